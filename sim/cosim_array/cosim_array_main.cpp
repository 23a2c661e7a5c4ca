/*
 * cosim_array_main.cpp — whole-GEMM co-simulation of rtl/mx_array.sv
 * (Verilated) against the C array model (array_model.cpp, built on the C PE
 * model) in lock step, plus the C core's mx_pe_dot for every output value.
 *
 *   mxsim-cosim-array -c CONFIG.yaml -t TRACE [--seed S] [--fst FILE]
 *                     [--backpressure P] [--fault R,C] [--quiet]
 *
 * Per GEMM (seeded Gaussian operands, quantized with the config's block
 * shape): the controller below issues the folds of the whole GEMM as one tile
 * (col-fold outer, row-fold inner, fold starts max(t, r) apart, FIFO credits);
 * each cycle the RTL's column outputs (valid, row, FP32 bits), FIFO room and
 * PE result strobes must equal the model's; every output must equal mx_pe_dot;
 * compute cycles (first issue to last PE result) without back-pressure must
 * equal mx_tile_compute_cycles() of the arch model.  First divergence: cycle,
 * GEMM, PE row/column, field, expected and actual in hex; exit 1.
 * Exit 0 all equal, 2 bad input.
 */
#include "array_model.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <string>

#include "Vmx_array.h"
#include "verilated.h"
#include "verilated_fst_c.h"

#include "config_yaml.h"
#include "systemc/mx_sc_gemm.h"

extern "C" {
#include "formats/mx_rng.h"
}

#ifndef ARR_R
#define ARR_R 4
#endif
#ifndef ARR_C
#define ARR_C 4
#endif
#ifndef ARR_L
#define ARR_L 4
#endif
static const int FIFO_D = 2 * ARR_R;

struct fold { long long r0, c0; int rl, cl; };

struct sim {
    Vmx_array *top;
    VerilatedFstC *fst;
    VerilatedContext *ctx;
    uint64_t time = 0;
};

template <typename W> static void set_codes_any(W &w, const std::vector<uint16_t> &codes)
{
    for (size_t k = 0; k < sizeof(w.m_storage) / sizeof(w.m_storage[0]); k++) w[k] = 0;
    for (size_t i = 0; i < codes.size(); i++) w[i / 2] |= (uint32_t)codes[i] << (16 * (i % 2));
}

static void drive(sim &s, const arr_issue &in, const std::vector<int> &ready, int fmt, int b5)
{
    Vmx_array *t = s.top;
    t->fmt_i = (uint8_t)fmt;
    t->fp5_bias_i = (uint8_t)b5;
    t->row_valid_i = 0;
    for (int r = 0; r < ARR_R; r++) t->row_valid_i |= (uint32_t)(in.row_valid[(size_t)r] & 1) << r;
    t->col_valid_i = 0;
    for (int c = 0; c < ARR_C; c++) t->col_valid_i |= (uint32_t)(in.col_valid[(size_t)c] & 1) << c;
    t->first_i = (uint8_t)in.first;
    t->last_i = (uint8_t)in.last;
    set_codes_any(t->a_codes_i, in.a_codes);
    set_codes_any(t->b_codes_i, in.b_codes);
    t->a_scales_i = 0;
    for (int r = 0; r < ARR_R; r++) t->a_scales_i |= (uint32_t)in.a_scales[(size_t)r] << (8 * r);
    t->b_scales_i = 0;
    for (int c = 0; c < ARR_C; c++) t->b_scales_i |= (uint32_t)in.b_scales[(size_t)c] << (8 * c);
    t->out_ready_i = 0;
    for (int c = 0; c < ARR_C; c++) t->out_ready_i |= (uint32_t)(ready[(size_t)c] & 1) << c;
}

static void step(sim &s)
{
    s.top->clk_i = 0;
    s.top->eval();
    if (s.fst) s.fst->dump(s.time);
    s.time += 5;
    s.top->clk_i = 1;
    s.top->eval();
    if (s.fst) s.fst->dump(s.time);
    s.time += 5;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: mxsim-cosim-array -c CONFIG.yaml -t TRACE [--seed S] [--fst FILE]\n"
               "                         [--backpressure P] [--fault R,C] [--quiet]\n"
               "  compiled for a %dx%d array with %d lanes; the config must match\n", ARR_R, ARR_C, ARR_L);
}

int main(int argc, char **argv)
{
    const char *cpath = nullptr, *tpath = nullptr, *fst_path = nullptr;
    unsigned long long seed = 1;
    double bp = 0;
    int fault_r = -1, fault_c = -1, quiet = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const bool has = i + 1 < argc;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        else if (!strcmp(a, "-c") && has) cpath = argv[++i];
        else if (!strcmp(a, "-t") && has) tpath = argv[++i];
        else if (!strcmp(a, "--fst") && has) fst_path = argv[++i];
        else if (!strcmp(a, "--quiet")) quiet = 1;
        else if (!strcmp(a, "--seed") && has) {
            char *e;
            errno = 0;
            seed = strtoull(argv[++i], &e, 0);
            if (errno || *e || !*argv[i]) { fprintf(stderr, "mxsim-cosim-array: option '--seed': not an unsigned integer: '%s'\n", argv[i]); return 2; }
        } else if (!strcmp(a, "--backpressure") && has) {
            char *e;
            bp = strtod(argv[++i], &e);
            if (*e || !(bp >= 0 && bp < 1)) { fprintf(stderr, "mxsim-cosim-array: option '--backpressure': must be in [0, 1): '%s'\n", argv[i]); return 2; }
        } else if (!strcmp(a, "--fault") && has) {
            if (sscanf(argv[++i], "%d,%d", &fault_r, &fault_c) != 2 || fault_r < 0 || fault_r >= ARR_R ||
                fault_c < 0 || fault_c >= ARR_C) {
                fprintf(stderr, "mxsim-cosim-array: option '--fault': expected R,C inside the %dx%d array: '%s'\n", ARR_R, ARR_C, argv[i]);
                return 2;
            }
        } else {
            fprintf(stderr, "mxsim-cosim-array: unknown option or missing value: '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (!cpath || !tpath) { usage(stderr); return 2; }
    char err[700], epath[MX_ARCH_PATH_MAX];
    mx_arch_config cfg;
    if (mx_config_load(cpath, &cfg, epath, err, sizeof err) != 0) { fprintf(stderr, "mxsim-cosim-array: %s\n", err); return 2; }
    if (cfg.rows != ARR_R || cfg.cols != ARR_C || cfg.lanes != ARR_L || cfg.dataflow != MX_DATAFLOW_OS ||
        cfg.pe_pipeline_depth != 4 || cfg.scalesim_compat || !cfg.fold_overlap) {
        fprintf(stderr, "mxsim-cosim-array: %s: keys 'arch.rows/cols/lanes/dataflow/pe_pipeline_depth/fold_overlap/"
                        "scalesim_compat': this binary simulates a %dx%d os array, %d lanes, depth 4, fold overlap on\n",
                cpath, ARR_R, ARR_C, ARR_L);
        return 2;
    }
    if (cfg.align_width != 32) { fprintf(stderr, "mxsim-cosim-array: %s: key 'format.align_width': the RTL is built with 32\n", cpath); return 2; }
    mx_trace tr = {nullptr, 0};
    if (mx_trace_load(tpath, &tr, err, sizeof err) != 0) { fprintf(stderr, "mxsim-cosim-array: %s\n", err); return 2; }

    std::unique_ptr<VerilatedContext> ctx(new VerilatedContext);
    ctx->traceEverOn(fst_path != nullptr);
    sim s;
    s.ctx = ctx.get();
    s.top = new Vmx_array(ctx.get());
    s.fst = nullptr;
    if (fst_path) {
        s.fst = new VerilatedFstC;
        s.top->trace(s.fst, 99);
        s.fst->open(fst_path);
    }
    int rc = 0;
    uint64_t bp_rng = seed ^ 0xB4C4B4C4ull;
    long long total_cycles = 0;
    for (size_t gi = 0; gi < tr.n && rc == 0; gi++) {
        const mx_gemm &g = tr.gemms[gi];
        const char *an = g.a_format[0] ? g.a_format : cfg.a_format;
        const char *bn = g.b_format[0] ? g.b_format : cfg.b_format;
        mx_sc_job j;
        bool sa, sb;
        mx_pe_fmt fa, fb;
        if (mx_sc_fmt_from_name(an, &fa, &sa) || mx_sc_fmt_from_name(bn, &fb, &sb) || fa != fb || sa != sb) {
            fprintf(stderr, "mxsim-cosim-array: %s:%d: formats '%s' x '%s': the PE takes one format for A and B\n", tpath, g.line, an, bn);
            rc = 2;
            break;
        }
        j.M = g.M; j.N = g.N; j.K = g.K; j.fmt = fa; j.scaled = sa; j.phase = g.phase;
        j.block = cfg.block_size; j.tile_rows = cfg.tile_rows; j.tile_cols = cfg.tile_cols;
        std::vector<float> af, bf;
        std::string e = mx_sc_job_check(cfg, j);
        if (e.empty()) {
            mx_sc_random_operands(seed + gi, j.M, j.N, j.K, af, bf);
            e = mx_sc_quantize(cfg, af.data(), bf.data(), j);
        }
        if (!e.empty()) { fprintf(stderr, "mxsim-cosim-array: %s:%d: %s\n", tpath, g.line, e.c_str()); rc = 2; break; }
        const mx_pe_config pc = mx_sc_pe_config(cfg, j);
        std::vector<uint32_t> expect;
        mx_sc_c_outputs(cfg, j, expect);
        const long long kps = j.scaled ? mx_sc_k_per_scale(j) : ARR_L;
        const long long nkb = (j.K + kps - 1) / kps;
        std::vector<std::vector<uint8_t>> rs((size_t)j.M, std::vector<uint8_t>((size_t)nkb, 127)),
            cs((size_t)j.N, std::vector<uint8_t>((size_t)nkb, 127));
        if (j.scaled) {
            for (long long m = 0; m < j.M; m++) mx_sc_row_scales(j, m, rs[(size_t)m].data());
            for (long long n = 0; n < j.N; n++) mx_sc_col_scales(j, n, cs[(size_t)n].data());
        }
        /* folds */
        std::vector<fold> folds;
        for (long long c0 = 0; c0 < j.N; c0 += ARR_C)
            for (long long r0 = 0; r0 < j.M; r0 += ARR_R)
                folds.push_back({r0, c0, (int)std::min<long long>(ARR_R, j.M - r0), (int)std::min<long long>(ARR_C, j.N - c0)});
        const long long t = (j.K + ARR_L - 1) / ARR_L;

        array_model model(ARR_R, ARR_C, pc, FIFO_D);
        if (fault_r >= 0) model.inject_fault(fault_r, fault_c);
        /* reset the RTL */
        arr_issue idle;
        idle.row_valid.assign(ARR_R, 0);
        idle.col_valid.assign(ARR_C, 0);
        idle.a_codes.assign(ARR_R * ARR_L, 0);
        idle.b_codes.assign(ARR_C * ARR_L, 0);
        idle.a_scales.assign(ARR_R, 0);
        idle.b_scales.assign(ARR_C, 0);
        std::vector<int> ready(ARR_C, 1);
        s.top->rst_ni = 0;
        drive(s, idle, ready, pc.fmt, pc.fp5_bias);
        step(s);
        step(s);
        s.top->rst_ni = 1;

        std::vector<uint32_t> got((size_t)(j.M * j.N), 0);
        std::vector<int> have((size_t)(j.M * j.N), 0);
        std::vector<std::deque<size_t>> colq(ARR_C); /* fold index per expected result, per column */
        std::vector<int> inflight(ARR_C, 0);
        size_t fi = 0;
        long long stepi = 0, cyc = 0, fold_start = -1, earliest = 0, last_issue = -1000000, last_gap = 0;
        long long first_issue = -1, last_pe_done = -1, popped = 0;
        const long long want = j.M * j.N;
        const long long limit = 64 + (long long)folds.size() * (t + ARR_R + ARR_C + 16) * (bp > 0 ? 50 : 2);
        while (popped < want && rc == 0) {
            if (cyc > limit) {
                fprintf(stderr, "mxsim-cosim-array: %s:%d: GEMM '%s' did not finish in %lld cycles (deadlock)\n", tpath, g.line, g.name, limit);
                rc = 1;
                break;
            }
            /* controller: one K-step of the current fold, or a bubble */
            arr_issue in = idle;
            if (fi < folds.size() && cyc >= earliest) {
                const fold &f = folds[fi];
                bool go = true;
                if (stepi == t - 1) {
                    if (cyc - last_issue < last_gap) go = false; /* same-PE results >= r apart */
                }
                if (go && stepi == t - 1) {
                    arr_outputs peek;
                    /* credits: FIFO room for results in flight plus this fold's */
                    model.comb(idle, ready, peek);
                    for (int c = 0; c < f.cl; c++)
                        if (peek.free[(size_t)c] - inflight[(size_t)c] < f.rl) go = false;
                }
                if (go) {
                    if (stepi == 0) fold_start = cyc;
                    if (first_issue < 0) first_issue = cyc;
                    in.first = stepi == 0;
                    in.last = stepi == t - 1;
                    for (int r = 0; r < f.rl; r++) {
                        in.row_valid[(size_t)r] = 1;
                        const long long m = f.r0 + r;
                        in.a_scales[(size_t)r] = rs[(size_t)m][(size_t)(stepi * ARR_L / kps)];
                        for (int l = 0; l < ARR_L; l++) {
                            const long long k = stepi * ARR_L + l;
                            in.a_codes[(size_t)(r * ARR_L + l)] = k < j.K ? j.a_codes[(size_t)(m * j.K + k)] : 0;
                        }
                    }
                    for (int c = 0; c < f.cl; c++) {
                        in.col_valid[(size_t)c] = 1;
                        const long long n = f.c0 + c;
                        in.b_scales[(size_t)c] = cs[(size_t)n][(size_t)(stepi * ARR_L / kps)];
                        for (int l = 0; l < ARR_L; l++) {
                            const long long k = stepi * ARR_L + l;
                            in.b_codes[(size_t)(c * ARR_L + l)] = k < j.K ? j.b_codes[(size_t)(k * j.N + n)] : 0;
                        }
                    }
                    if (++stepi == t) {
                        for (int c = 0; c < f.cl; c++) {
                            inflight[(size_t)c] += f.rl;
                            for (int r = 0; r < f.rl; r++) colq[(size_t)c].push_back(fi);
                        }
                        earliest = fold_start + std::max<long long>(t, f.rl);
                        last_issue = cyc;
                        last_gap = f.rl;
                        fi++;
                        stepi = 0;
                    }
                }
            }
            for (int c = 0; c < ARR_C; c++)
                ready[(size_t)c] = bp > 0 ? mx_rng_uniform(&bp_rng) >= bp : 1;
            arr_outputs o;
            model.comb(in, ready, o);
            drive(s, in, ready, pc.fmt, pc.fp5_bias);
            s.top->clk_i = 0;
            s.top->eval();
            /* compare this cycle's outputs */
            auto fail = [&](const char *field, int r, int c, uint64_t exp, uint64_t act) {
                fprintf(stderr,
                        "MISMATCH cycle %lld (GEMM %zu '%s', %s:%d): PE row %d column %d: %s expected 0x%llx actual 0x%llx\n",
                        cyc, gi, g.name, tpath, g.line, r, c, field, (unsigned long long)exp, (unsigned long long)act);
                rc = 1;
            };
            for (int r = 0; r < ARR_R && rc == 0; r++)
                for (int c = 0; c < ARR_C && rc == 0; c++) {
                    const int act = (int)((s.top->pe_done_o >> (r * ARR_C + c)) & 1);
                    if (act != o.pe_done[(size_t)(r * ARR_C + c)]) fail("pe_done", r, c, (uint64_t)o.pe_done[(size_t)(r * ARR_C + c)], (uint64_t)act);
                }
            for (int c = 0; c < ARR_C && rc == 0; c++) {
                const int av = (int)((s.top->out_valid_o >> c) & 1);
                const int fw = 4; /* $clog2(FIFO_D + 1) for FIFO_D = 8 */
                const int afree = (int)((s.top->free_o >> (c * fw)) & ((1u << fw) - 1));
                const int rw = ARR_R > 1 ? 2 : 1;
                const int arow = (int)((s.top->out_row_o >> (c * rw)) & ((1u << rw) - 1));
                const uint32_t adata = s.top->out_data_o[(size_t)c];
                if (av != o.out_valid[(size_t)c]) fail("out_valid", o.out_row[(size_t)c], c, (uint64_t)o.out_valid[(size_t)c], (uint64_t)av);
                else if (afree != o.free[(size_t)c]) fail("free", -1, c, (uint64_t)o.free[(size_t)c], (uint64_t)afree);
                else if (av && arow != o.out_row[(size_t)c]) fail("out_row", o.out_row[(size_t)c], c, (uint64_t)o.out_row[(size_t)c], (uint64_t)arow);
                else if (av && adata != o.out_data[(size_t)c]) fail("out_data", o.out_row[(size_t)c], c, o.out_data[(size_t)c], adata);
            }
            if (rc == 0 && (int)s.top->overrun_o != o.overrun) fail("overrun", -1, -1, (uint64_t)o.overrun, s.top->overrun_o);
            if (rc == 0 && o.overrun) { fprintf(stderr, "mxsim-cosim-array: controller bug: shadow overrun at cycle %lld\n", cyc); rc = 1; }
            if (rc) break;
            for (int i = 0; i < ARR_R * ARR_C; i++) if (o.pe_done[(size_t)i]) last_pe_done = cyc;
            for (int c = 0; c < ARR_C; c++) {
                if (o.take[(size_t)c]) inflight[(size_t)c]--;
                if (o.out_valid[(size_t)c] && ready[(size_t)c]) {
                    if (colq[(size_t)c].empty()) { fprintf(stderr, "mxsim-cosim-array: unexpected output in column %d at cycle %lld\n", c, cyc); rc = 1; break; }
                    const fold &f = folds[colq[(size_t)c].front()];
                    colq[(size_t)c].pop_front();
                    const long long m = f.r0 + o.out_row[(size_t)c], n = f.c0 + c;
                    if (m >= j.M || n >= j.N || have[(size_t)(m * j.N + n)]) { fprintf(stderr, "mxsim-cosim-array: bad output position (%lld, %lld) at cycle %lld\n", m, n, cyc); rc = 1; break; }
                    got[(size_t)(m * j.N + n)] = o.out_data[(size_t)c];
                    have[(size_t)(m * j.N + n)] = 1;
                    popped++;
                }
            }
            model.tick();
            s.top->clk_i = 1;
            s.top->eval();
            if (s.fst) { s.fst->dump(s.time); }
            s.time += 10;
            cyc++;
        }
        if (rc) break;
        for (long long k = 0; k < want; k++)
            if (got[(size_t)k] != expect[(size_t)k]) {
                fprintf(stderr, "MISMATCH GEMM %zu '%s' (%s:%d): output (%lld, %lld): array 0x%08x, mx_pe_dot 0x%08x\n", gi, g.name,
                        tpath, g.line, k / j.N, k % j.N, got[(size_t)k], expect[(size_t)k]);
                rc = 1;
                break;
            }
        if (rc) break;
        /* cycles from the first issue through the cycle whose edge writes the last
         * accumulator (its out_valid is seen one cycle later): the arch model's
         * t + (r-1) + (c-1) + (P-1) per fold */
        const long long compute = last_pe_done - first_issue;
        const long long analytic = mx_tile_compute_cycles(&cfg, j.M, j.N, j.K);
        if (bp == 0 && compute != analytic) {
            fprintf(stderr, "MISMATCH GEMM %zu '%s' (%s:%d): compute cycles RTL/C array %lld, arch model mx_tile_compute_cycles %lld\n",
                    gi, g.name, tpath, g.line, compute, analytic);
            rc = 1;
            break;
        }
        total_cycles += cyc;
        if (!quiet)
            printf("%-10s %4lldx%-4lldx%-4lld %-5s folds %3zu  compute %6lld (arch %6lld)  total %6lld cycles  %lld outputs equal\n",
                   g.name, g.M, g.N, g.K, mx_pe_fmt_name(j.fmt), folds.size(), compute, analytic, cyc, want);
    }
    if (rc == 0)
        printf("mxsim-cosim-array: %s, %zu GEMMs, %dx%d array L=%d, back-pressure %.2f: RTL == C model, %lld cycles\n", tpath,
               tr.n, ARR_R, ARR_C, ARR_L, bp, total_cycles);
    if (s.fst) { s.fst->close(); delete s.fst; }
    s.top->final();
    delete s.top;
    mx_trace_free(&tr);
    return rc;
}
