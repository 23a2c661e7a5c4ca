/*
 * mx_sc_gemm.cpp — shared GEMM job code of the SystemC platform (see header).
 */
#include "mx_sc_gemm.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "operand_data.h"

extern "C" {
#include "formats/mx_block.h"
#include "stats/mx_dist.h"
#include "units/mx_pe_format.h"
#include "units/mx_requant.h"
}

/* Names from the datapath format table (units/mx_pe_format.h): the block-
 * scaled storage name (mxfp8_e4m3) or, for unit-scale operands, the
 * element's (fp8_e4m3; MXSF has none). */
const char *mx_sc_fmt_arch_name(mx_pe_fmt f, bool scaled)
{
    const mx_pe_format *pf = mx_pe_format_of(f);
    if (!pf) return "?";
    return scaled || !pf->elem_name ? pf->mx_name : pf->elem_name;
}

int mx_sc_fmt_from_name(const char *name, mx_pe_fmt *f, bool *scaled)
{
    for (int i = 0; i < MX_PE_NFMT; i++) {
        const mx_pe_format *pf = mx_pe_format_of((mx_pe_fmt)i);
        if (!strcmp(name, pf->mx_name)) { *f = (mx_pe_fmt)i; *scaled = pf->block_scaled != 0; return 0; }
        if (pf->elem_name && !strcmp(name, pf->elem_name)) { *f = (mx_pe_fmt)i; *scaled = false; return 0; }
    }
    return -1;
}

int mx_sc_code_bytes(mx_pe_fmt f)
{
    const mx_pe_format *pf = mx_pe_format_of(f);
    return pf ? pf->code_bits / 8 : 1;
}

static long long cdiv(long long a, long long b) { return (a + b - 1) / b; }

size_t mx_sc_a_scale_count(const mx_sc_job &j)
{
    if (!j.scaled) return 0;
    if (j.tile_rows > 0) return (size_t)(cdiv(j.M, j.tile_rows) * cdiv(j.K, j.tile_cols));
    return (size_t)(j.M * cdiv(j.K, j.block));
}

size_t mx_sc_b_scale_count(const mx_sc_job &j)
{
    if (!j.scaled) return 0;
    if (j.tile_rows > 0) return (size_t)(cdiv(j.K, j.tile_rows) * cdiv(j.N, j.tile_cols));
    return (size_t)(cdiv(j.K, j.block) * j.N);
}

int mx_sc_k_per_scale(const mx_sc_job &j)
{
    if (j.tile_rows > 0) return j.tile_cols; /* A's tile extent along K (== B's, checked) */
    return j.block;
}

std::string mx_sc_job_from_gemm(const mx_arch_config &c, const mx_gemm &g, mx_sc_job &j)
{
    const char *an = g.a_format[0] ? g.a_format : c.a_format;
    const char *bn = g.b_format[0] ? g.b_format : c.b_format;
    mx_pe_fmt fa, fb;
    bool sa, sb;
    if (mx_sc_fmt_from_name(an, &fa, &sa) != 0 || mx_sc_fmt_from_name(bn, &fb, &sb) != 0 || sa != sb ||
        (fa != fb && (fa == MX_PE_BF16 || fb == MX_PE_BF16)))
        return std::string("formats '") + an + "' x '" + bn +
               "': the accelerator's PE takes A and B both with block scales (mxsf, mxfp8_e4m3, mxfp8_e5m2, "
               "mxfp8_e2m5, mxint8) or both without (fp8_e4m3, fp8_e5m2, fp8_e2m5, int8), or bf16 x bf16";
    j.M = g.M;
    j.N = g.N;
    j.K = g.K;
    j.fmt = fa;
    j.fmt_b = fb;
    j.scaled = sa;
    j.phase = g.phase;
    j.block = c.block_size;
    j.tile_rows = c.tile_rows;
    j.tile_cols = c.tile_cols;
    j.rq_tile = c.rqu_tile != 0;
    return "";
}

std::string mx_sc_fmt_pair(const mx_sc_job &j)
{
    return j.fmt == j.fmt_b ? std::string(mx_pe_fmt_name(j.fmt))
                            : std::string(mx_pe_fmt_name(j.fmt)) + " x " + mx_pe_fmt_name(j.fmt_b);
}

std::string mx_sc_job_check(const mx_arch_config &c, const mx_sc_job &j)
{
    if (j.M < 1 || j.N < 1 || j.K < 1) return "M, N and K must be at least 1";
    if (j.M > (1 << 20) || j.N > (1 << 20) || j.K > (1 << 20) || j.M * j.N > (1LL << 28) ||
        j.M * j.K > (1LL << 28) || j.K * j.N > (1LL << 28))
        return "GEMM too large for the platform (M, N, K <= 2^20, operands <= 2^28 elements)";
    if ((unsigned)j.fmt >= MX_PE_NFMT || (unsigned)j.fmt_b >= MX_PE_NFMT) return "unknown element format code";
    if (j.fmt != j.fmt_b && (j.fmt == MX_PE_BF16 || j.fmt_b == MX_PE_BF16)) return "BF16 mixes with no other format";
    if (j.fmt == MX_PE_BF16 && j.scaled) return "BF16 has no block scales";
    if ((j.fmt == MX_PE_MXSF || j.fmt_b == MX_PE_MXSF) && !j.scaled) return "MXSF needs block scales";
    if (j.scaled) {
        if (j.tile_rows > 0) {
            if (j.tile_rows != j.tile_cols)
                return "2-D tiles must be square: A's tile extent along K (cols) and B's (rows) "
                       "must be one scale period for the PE";
        } else if (j.block < 1) {
            return "block size must be at least 1";
        }
        if (mx_sc_k_per_scale(j) % c.lanes != 0) return "lanes must divide the block's K extent";
    }
    return "";
}

mx_pe_config mx_sc_pe_config(const mx_arch_config &c, const mx_sc_job &j)
{
    mx_pe_config p;
    mx_pe_config_default(j.fmt, &p);
    p.fmt_b = j.fmt_b;
    p.lanes = c.lanes;
    /* unscaled formats: unit scales, one per lane group */
    p.block = j.scaled ? mx_sc_k_per_scale(j) : c.lanes;
    p.align_width = c.align_width;
    p.fp5_bias = c.mxsf_fp5_bias;
    return p;
}

std::string mx_sc_quantize(const mx_arch_config &c, const float *a, const float *b, mx_sc_job &j)
{
    std::string e = mx_sc_job_check(c, j);
    if (!e.empty()) return e;
    mx_operand_fmt of, ofb;
    if (mx_operand_fmt_resolve(&c, mx_sc_fmt_arch_name(j.fmt, j.scaled), &of) != 0 ||
        mx_operand_fmt_resolve(&c, mx_sc_fmt_arch_name(j.fmt_b, j.scaled), &ofb) != 0)
        return "cannot resolve format";
    j.a_codes.assign((size_t)(j.M * j.K), 0);
    j.b_codes.assign((size_t)(j.K * j.N), 0);
    j.a_scales.assign(mx_sc_a_scale_count(j), 0);
    j.b_scales.assign(mx_sc_b_scale_count(j), 0);
    mx_encode_opts enc = {c.round, MX_OVERFLOW_SATURATE, nullptr};
    if (!j.scaled) {
        for (size_t i = 0; i < j.a_codes.size(); i++) j.a_codes[i] = (uint16_t)mx_encode(&of.elem, a[i], &enc, nullptr);
        for (size_t i = 0; i < j.b_codes.size(); i++) j.b_codes[i] = (uint16_t)mx_encode(&ofb.elem, b[i], &enc, nullptr);
        return "";
    }
    char err[256];
    mx_block_spec s;
    memset(&s, 0, sizeof s);
    s.elem = of.elem;
    s.scale_rule = c.scale_rule;
    s.enc = enc;
    s.block = j.block;
    s.tile_rows = j.tile_rows;
    s.tile_cols = j.tile_cols;
    mx_shape sa = {2, {(size_t)j.M, (size_t)j.K}}, sb = {2, {(size_t)j.K, (size_t)j.N}};
    s.axis = -1; /* A: blocks along K = its last axis */
    if (mx_block_quantize(&s, &sa, a, j.a_codes.data(), j.a_scales.data(), nullptr, err, sizeof err) != 0)
        return err;
    s.axis = 0;  /* B: blocks along K = its first axis, in B's format */
    s.elem = ofb.elem;
    if (mx_block_quantize(&s, &sb, b, j.b_codes.data(), j.b_scales.data(), nullptr, err, sizeof err) != 0)
        return err;
    return "";
}

void mx_sc_row_scales(const mx_sc_job &j, long long m, uint8_t *out)
{
    const long long kb = mx_sc_k_per_scale(j), nkb = cdiv(j.K, kb);
    for (long long q = 0; q < nkb; q++)
        out[q] = j.tile_rows > 0 ? j.a_scales[(size_t)((m / j.tile_rows) * nkb + q)]
                                 : j.a_scales[(size_t)(m * nkb + q)];
}

void mx_sc_col_scales(const mx_sc_job &j, long long n, uint8_t *out)
{
    const long long kb = mx_sc_k_per_scale(j), nkb = cdiv(j.K, kb);
    for (long long q = 0; q < nkb; q++)
        out[q] = j.tile_rows > 0 ? j.b_scales[(size_t)(q * cdiv(j.N, j.tile_cols) + n / j.tile_cols)]
                                 : j.b_scales[(size_t)(q * j.N + n)];
}

void mx_sc_c_outputs(const mx_arch_config &c, const mx_sc_job &j, std::vector<uint32_t> &out)
{
    const mx_pe_config p = mx_sc_pe_config(c, j);
    const bool scaled = j.scaled;
    const long long nkb = scaled ? cdiv(j.K, mx_sc_k_per_scale(j)) : cdiv(j.K, c.lanes);
    std::vector<uint16_t> col((size_t)j.K);
    std::vector<uint8_t> as((size_t)nkb, 127), bs((size_t)nkb, 127); /* 127: 2^0 */
    out.assign((size_t)(j.M * j.N), 0);
    for (long long n = 0; n < j.N; n++) {
        for (long long k = 0; k < j.K; k++) col[(size_t)k] = j.b_codes[(size_t)(k * j.N + n)];
        if (scaled) mx_sc_col_scales(j, n, bs.data());
        for (long long m = 0; m < j.M; m++) {
            if (scaled) mx_sc_row_scales(j, m, as.data());
            out[(size_t)(m * j.N + n)] =
                mx_pe_dot(&p, &j.a_codes[(size_t)(m * j.K)], as.data(), col.data(), bs.data(), (int)j.K, 0);
        }
    }
}

std::string mx_sc_timing(const mx_arch_config &c, const mx_sc_job &j, mx_stats &s)
{
    mx_arch_config cc = c;
    /* the platform's clock is the cycle engine's (SPEC §4.2), whatever the
     * config's `engine` key says; with memory.dram its DRAM is the protocol
     * model the config loaded (mx_config_dram) */
    cc.engine = MX_ENGINE_CYCLE;
    cc.block_size = j.block;
    cc.tile_rows = j.tile_rows;
    cc.tile_cols = j.tile_cols;
    mx_gemm g;
    memset(&g, 0, sizeof g);
    snprintf(g.name, sizeof g.name, "sc");
    g.M = j.M;
    g.N = j.N;
    g.K = j.K;
    g.count = 1;
    g.phase = j.phase;
    snprintf(g.a_format, sizeof g.a_format, "%s", mx_sc_fmt_arch_name(j.fmt, j.scaled));
    snprintf(g.b_format, sizeof g.b_format, "%s", mx_sc_fmt_arch_name(j.fmt_b, j.scaled));
    char err[512];
    if (mx_arch_gemm_timing(&cc, &g, &s, err, sizeof err) != 0) return err;
    return "";
}

int mx_sc_load_operands(const char *prog, const char *data_dir, const char *trace_path, const mx_gemm &g,
                        uint64_t seed, std::vector<float> &a, std::vector<float> &b, std::string *from)
{
    mx_sc_random_operands(seed, g.M, g.N, g.K, a, b);
    float *da = nullptr, *db = nullptr;
    if (mx_operand_load(prog, data_dir, trace_path, &g, "a", g.M, g.K, &da) ||
        mx_operand_load(prog, data_dir, trace_path, &g, "b", g.K, g.N, &db)) {
        free(da);
        return 2;
    }
    if (from) *from = da && db ? "A, B" : da ? "A" : db ? "B" : "";
    if (da) std::copy(da, da + g.M * g.K, a.begin());
    if (db) std::copy(db, db + g.K * g.N, b.begin());
    free(da);
    free(db);
    return 0;
}

void mx_sc_random_operands(uint64_t seed, long long M, long long N, long long K,
                           std::vector<float> &a, std::vector<float> &b)
{
    uint64_t rng = seed;
    a.resize((size_t)(M * K));
    b.resize((size_t)(K * N));
    for (auto &x : a) x = (float)mx_dist_normal(&rng);
    for (auto &x : b) x = (float)mx_dist_normal(&rng);
}

void mx_sc_out_block(int rows, int cols, const mx_sc_job &j, long long &block_rows, long long &block_cols)
{
    block_rows = !j.rq_tile ? rows : j.tile_rows > 0 ? j.tile_rows : rows;
    block_cols = !j.rq_tile ? 1 : j.tile_rows > 0 ? j.tile_cols : cols;
}

size_t mx_sc_out_scale_count(int rows, int cols, const mx_sc_job &j)
{
    long long br, bc;
    mx_sc_out_block(rows, cols, j, br, bc);
    return (size_t)(cdiv(j.M, br) * cdiv(j.N, bc));
}

size_t mx_sc_out_scale_index(int rows, int cols, const mx_sc_job &j, long long m, long long n)
{
    long long br, bc;
    mx_sc_out_block(rows, cols, j, br, bc);
    return (size_t)((m / br) * cdiv(j.N, bc) + n / bc);
}

void mx_sc_requant_outputs(const mx_arch_config &c, const mx_sc_job &j, const std::vector<uint32_t> &vals,
                           std::vector<uint8_t> &codes, std::vector<uint8_t> &scales)
{
    long long R, C; /* the block */
    mx_sc_out_block(c.rows, c.cols, j, R, C);
    codes.assign((size_t)(j.M * j.N), 0);
    scales.assign(mx_sc_out_scale_count(c.rows, c.cols, j), 0);
    mx_requant_in in;
    mx_requant_out o;
    memset(&in, 0, sizeof in);
    in.fmt_i = j.out_fmt;
    in.fp5_bias_i = c.mxsf_fp5_bias;
    /* block (m0, n0): R rows x C columns (C = 1 for column blocks), +0 outside */
    for (long long m0 = 0; m0 < j.M; m0 += R)
        for (long long n0 = 0; n0 < j.N; n0 += C) {
            for (long long q = 0; q < C; q++)
                for (long long r = 0; r < R; r++)
                    in.vals_i[q * R + r] = m0 + r < j.M && n0 + q < j.N ? vals[(size_t)((m0 + r) * j.N + n0 + q)] : 0u;
            mx_requant_comb((int)(R * C), &in, &o);
            scales[mx_sc_out_scale_index(c.rows, c.cols, j, m0, n0)] = o.scale_o;
            for (long long q = 0; q < C && n0 + q < j.N; q++)
                for (long long r = 0; r < R && m0 + r < j.M; r++)
                    codes[(size_t)((m0 + r) * j.N + n0 + q)] = o.codes_o[q * R + r];
        }
}
