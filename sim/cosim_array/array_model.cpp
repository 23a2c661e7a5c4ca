/*
 * array_model.cpp — harness over the C array register model, SRAM image,
 * start-to-done schedule (see header).
 */
#include "array_model.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "systemc/mx_sc_gemm.h"

extern "C" {
#include "arch/mx_cycle.h"
}

/* ---- tile_sram ------------------------------------------------------------ */

void tile_sram::read_a(unsigned addr, std::vector<uint16_t> &out) const
{
    out.assign((size_t)(R * L), 0);
    for (int r = 0; r < R; r++)
        for (int l = 0; l < L; l++) {
            const size_t i = (size_t)addr * (size_t)L + (size_t)l;
            if (i < a[(size_t)r].size()) out[(size_t)(r * L + l)] = a[(size_t)r][i];
        }
}

void tile_sram::read_b(unsigned addr, std::vector<uint16_t> &out) const
{
    out.assign((size_t)(C * L), 0);
    for (int c = 0; c < C; c++)
        for (int l = 0; l < L; l++) {
            const size_t i = (size_t)addr * (size_t)L + (size_t)l;
            if (i < b[(size_t)c].size()) out[(size_t)(c * L + l)] = b[(size_t)c][i];
        }
}

void tile_sram::read_as(unsigned addr, std::vector<uint8_t> &out) const
{
    out.assign((size_t)R, 0);
    for (int r = 0; r < R; r++)
        if (addr < as[(size_t)r].size()) out[(size_t)r] = as[(size_t)r][addr];
}

void tile_sram::read_bs(unsigned addr, std::vector<uint8_t> &out) const
{
    out.assign((size_t)C, 0);
    for (int c = 0; c < C; c++)
        if (addr < bs[(size_t)c].size()) out[(size_t)c] = bs[(size_t)c][addr];
}

tile_cycle_in tile_cycle_in_idle(const tile_desc &d, int R, int C, int L)
{
    tile_cycle_in in;
    in.d = d;
    in.a_rdata.assign((size_t)(R * L), 0);
    in.b_rdata.assign((size_t)(C * L), 0);
    in.as_rdata.assign((size_t)R, 0);
    in.bs_rdata.assign((size_t)C, 0);
    in.blk_ready.assign((size_t)C, 1);
    return in;
}

void tile_sram_respond(const tile_sram &sram, const tile_cycle_out &o, tile_cycle_in &in)
{
    if (o.rd) {
        sram.read_a(o.a_addr, in.a_rdata);
        sram.read_b(o.b_addr, in.b_rdata);
        sram.read_as(o.as_addr, in.as_rdata);
        sram.read_bs(o.bs_addr, in.bs_rdata);
    } else {
        std::fill(in.a_rdata.begin(), in.a_rdata.end(), 0);
        std::fill(in.b_rdata.begin(), in.b_rdata.end(), 0);
        std::fill(in.as_rdata.begin(), in.as_rdata.end(), 0);
        std::fill(in.bs_rdata.begin(), in.bs_rdata.end(), 0);
    }
}

/* ---- array_ctrl_twin ---------------------------------------------------------- */

array_ctrl_twin::array_ctrl_twin(const mx_array_config &a) : a_(a)
{
    if (mx_array_ctrl_regs_alloc(&a_, &q_) != 0 || mx_array_ctrl_regs_alloc(&a_, &d_) != 0 ||
        mx_array_ctrl_out_alloc(&a_, &out_) != 0)
        throw std::bad_alloc();
}

array_ctrl_twin::~array_ctrl_twin()
{
    mx_array_ctrl_regs_free(&q_);
    mx_array_ctrl_regs_free(&d_);
    mx_array_ctrl_out_free(&out_);
}

void array_ctrl_twin::reset()
{
    mx_array_ctrl_reset(&a_, &q_);
    mx_array_ctrl_reset(&a_, &d_);
}

void array_ctrl_twin::comb(const tile_cycle_in &in, tile_cycle_out &o)
{
    const tile_desc &td = in.d;
    mx_array_ctrl_in ci;
    ci.start = in.start;
    ci.desc = mx_array_desc{td.M, td.N, td.K, td.fmt, td.fmt_b, td.fp5_bias, td.scaled, td.sps, td.out_fmt,
                            td.rq_tile, td.a_base, td.as_base, td.b_base, td.bs_base};
    ci.a_rdata = in.a_rdata.data();
    ci.b_rdata = in.b_rdata.data();
    ci.as_rdata = in.as_rdata.data();
    ci.bs_rdata = in.bs_rdata.data();
    ci.blk_ready = in.blk_ready.data();
    mx_array_ctrl_comb(&a_, &ci, &q_, &d_, &out_);
    const size_t R = (size_t)a_.rows, C = (size_t)a_.cols, S = (size_t)mx_array_scales_per_col(&a_);
    o.busy = out_.busy;
    o.done = out_.done;
    o.rd = out_.rd;
    o.issue = out_.issue;
    o.overrun = out_.overrun;
    o.a_addr = out_.a_addr;
    o.as_addr = out_.as_addr;
    o.b_addr = out_.b_addr;
    o.bs_addr = out_.bs_addr;
    o.pe_done.assign(out_.arr.pe_done, out_.arr.pe_done + R * C);
    o.blk_valid.assign(out_.blk_valid, out_.blk_valid + C);
    o.vals.assign(out_.vals, out_.vals + C * R);
    o.codes.assign(out_.codes, out_.codes + C * R);
    o.scales.assign(out_.scales, out_.scales + C * S);
}

void array_ctrl_twin::tick() { mx_array_ctrl_tick(&q_, &d_); }

/* ---- tile_pack ---------------------------------------------------------------- */

void tile_pack(const mx_sc_job &j, int R, int C, int L, int fp5_bias, int out_fmt, tile_desc &d, tile_sram &s)
{
    const long long t = (j.K + L - 1) / L;
    const long long kps = j.scaled ? mx_sc_k_per_scale(j) : L;
    const long long sps = kps / L, nkb = (t + sps - 1) / sps;
    const long long nrf = (j.M + R - 1) / R, ncf = (j.N + C - 1) / C;
    d = tile_desc();
    d.M = (int)j.M; d.N = (int)j.N; d.K = (int)j.K;
    d.fmt = j.fmt;
    d.fmt_b = j.fmt_b;
    d.fp5_bias = fp5_bias;
    d.scaled = j.scaled;
    d.sps = (int)sps;
    d.out_fmt = out_fmt < 0 ? 0 : out_fmt;
    d.rq_tile = j.rq_tile;
    s.R = R; s.C = C; s.L = L;
    s.a.assign((size_t)R, std::vector<uint16_t>((size_t)(nrf * t * L), 0));
    s.as.assign((size_t)R, std::vector<uint8_t>((size_t)(nrf * nkb), 127));
    s.b.assign((size_t)C, std::vector<uint16_t>((size_t)(ncf * t * L), 0));
    s.bs.assign((size_t)C, std::vector<uint8_t>((size_t)(ncf * nkb), 127));
    std::vector<uint8_t> sc((size_t)((j.K + kps - 1) / kps) + 1, 127);
    for (long long m = 0; m < j.M; m++) {
        std::vector<uint16_t> &bank = s.a[(size_t)(m % R)];
        for (long long k = 0; k < j.K; k++) bank[(size_t)(((m / R) * t) * L + k)] = j.a_codes[(size_t)(m * j.K + k)];
        if (j.scaled) {
            mx_sc_row_scales(j, m, sc.data());
            for (long long qq = 0; qq < nkb; qq++) s.as[(size_t)(m % R)][(size_t)((m / R) * nkb + qq)] = sc[(size_t)qq];
        }
    }
    for (long long n = 0; n < j.N; n++) {
        std::vector<uint16_t> &bank = s.b[(size_t)(n % C)];
        for (long long k = 0; k < j.K; k++) bank[(size_t)(((n / C) * t) * L + k)] = j.b_codes[(size_t)(k * j.N + n)];
        if (j.scaled) {
            mx_sc_col_scales(j, n, sc.data());
            for (long long qq = 0; qq < nkb; qq++) s.bs[(size_t)(n % C)][(size_t)((n / C) * nkb + qq)] = sc[(size_t)qq];
        }
    }
}

tile_done_sched tile_done_schedule(const mx_arch_config &cfg, long long M, long long N, long long K, int rq_tile)
{
    /* the drain schedule is the cycle engine's (mx_cycle_tile_done) on this
     * config; the Verilated RTL is the independent check */
    mx_arch_config c = cfg;
    c.rqu_tile = rq_tile;
    tile_done_sched o;
    o.lead = 2; /* descriptor latch + synchronous SRAM read */
    o.compute = mx_tile_compute_cycles(&c, M, N, K); /* the fold schedule's last PE result */
    o.total = mx_cycle_tile_done(&c, M, N, K);
    o.drain = o.total - o.lead - o.compute;
    return o;
}
