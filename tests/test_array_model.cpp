// The C register model of the array and its controller (models/array/mx_array.h)
// driven alone: start-to-done and PE result cycles derived by hand from the
// register rules written in rtl/mx_array_ctrl.sv and rtl/mx_array.sv, output
// values against the PE's numerics (mx_pe_dot) and block codes/scales against
// the re-quantizer (mx_requant_comb) on those values; the config check.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include "arch/mx_arch.h"
#include "array/mx_array.h"
#include "units/mx_pe.h"
#include "units/mx_requant.h"
}

namespace {

// MXINT8 operands: a code is an int8, its value code * 2^-6 * 2^(scale - 127).
struct Tile {
    int M, N, K;
    std::vector<uint16_t> a;  // M x K codes
    std::vector<uint16_t> b;  // K x N codes (column n: b[k * N + n])
    std::vector<uint8_t> as;  // M: one scale per row (K <= 32)
    std::vector<uint8_t> bs;  // N
};

struct TileRun {
    long long done = -1, first_issue = -1, last_pe_done = -1;
    std::vector<uint32_t> vals;   // M x N as the output blocks carried them
    std::vector<uint8_t> codes;   // M x N
    std::vector<int> scale;       // M x N: the scale of each output's block
};

mx_array_config array_cfg(int R, int C, int L, int P, int TR, int TC)
{
    mx_array_config a;
    memset(&a, 0, sizeof a);
    a.rows = R; a.cols = C; a.lanes = L; a.pipeline_depth = P;
    a.fifo_depth = 2 * R + C + 8;
    a.align_width = 32;
    a.tile_rows = TR; a.tile_cols = TC;
    a.fault_row = a.fault_col = -1;
    return a;
}

// One tile of at most R x C outputs (one fold) through the model, every
// output block ready; SRAM: bank r word w = row r's K-step w (bases 0,
// sps = t: one scale per row and column), data the cycle after the read.
TileRun run_one_fold(const mx_array_config &a, const Tile &t, int rq_tile)
{
    const int R = a.rows, C = a.cols, L = a.lanes, steps = (t.K + L - 1) / L;
    mx_array_ctrl_regs q, d;
    mx_array_ctrl_out o;
    EXPECT_EQ(mx_array_ctrl_regs_alloc(&a, &q), 0);
    EXPECT_EQ(mx_array_ctrl_regs_alloc(&a, &d), 0);
    EXPECT_EQ(mx_array_ctrl_out_alloc(&a, &o), 0);
    std::vector<uint16_t> ad((size_t)(R * L), 0), bd((size_t)(C * L), 0);
    std::vector<uint8_t> asd((size_t)R, 0), bsd((size_t)C, 0);
    std::vector<int> ready((size_t)C, 1);
    mx_array_ctrl_in in;
    memset(&in, 0, sizeof in);
    in.desc = mx_array_desc{t.M, t.N, t.K, MX_PE_INT8, MX_PE_INT8, 8, 1, steps, MX_PE_INT8, rq_tile, 0, 0, 0, 0};
    in.a_rdata = ad.data(); in.b_rdata = bd.data(); in.as_rdata = asd.data(); in.bs_rdata = bsd.data();
    in.blk_ready = ready.data();
    TileRun run;
    run.vals.assign((size_t)(t.M * t.N), 0);
    run.codes.assign((size_t)(t.M * t.N), 0);
    run.scale.assign((size_t)(t.M * t.N), -1);
    const int S = R / a.tile_rows;
    for (long long cyc = 0; cyc < 1000; cyc++) {
        in.start = cyc == 0;
        mx_array_ctrl_comb(&a, &in, &q, &d, &o);
        if (cyc > 0 && o.done && !o.busy) { run.done = cyc; break; }
        if (o.issue && run.first_issue < 0) run.first_issue = cyc;
        for (int i = 0; i < R * C; i++)
            if (o.arr.pe_done[i]) run.last_pe_done = cyc;
        for (int c = 0; c < C; c++)
            if (o.blk_valid[c])
                for (int r = 0; r < t.M; r++) {
                    run.vals[(size_t)(r * t.N + c)] = o.vals[c * R + r];
                    run.codes[(size_t)(r * t.N + c)] = o.codes[c * R + r];
                    run.scale[(size_t)(r * t.N + c)] = o.scales[c * S + r / a.tile_rows];
                }
        mx_array_ctrl_tick(&q, &d);
        // synchronous SRAM: this cycle's read address, its data next cycle
        std::fill(ad.begin(), ad.end(), 0); std::fill(bd.begin(), bd.end(), 0);
        std::fill(asd.begin(), asd.end(), 0); std::fill(bsd.begin(), bsd.end(), 0);
        if (o.rd) {
            for (int r = 0; r < t.M; r++) {
                for (int l = 0; l < L; l++) {
                    const long long k = (long long)o.a_addr * L + l;
                    ad[(size_t)(r * L + l)] = k < t.K ? t.a[(size_t)(r * t.K + k)] : 0;
                }
                asd[(size_t)r] = t.as[(size_t)r];
            }
            for (int c = 0; c < t.N; c++) {
                for (int l = 0; l < L; l++) {
                    const long long k = (long long)o.b_addr * L + l;
                    bd[(size_t)(c * L + l)] = k < t.K ? t.b[(size_t)(k * t.N + c)] : 0;
                }
                bsd[(size_t)c] = t.bs[(size_t)c];
            }
        }
    }
    mx_array_ctrl_regs_free(&q);
    mx_array_ctrl_regs_free(&d);
    mx_array_ctrl_out_free(&o);
    return run;
}

Tile small_tile(int M, int N, int K)
{
    Tile t{M, N, K, {}, {}, {}, {}};
    for (int m = 0; m < M; m++)
        for (int k = 0; k < K; k++) t.a.push_back((uint16_t)(uint8_t)(int8_t)((m * 7 + k * 3) % 23 - 11));
    for (int k = 0; k < K; k++)
        for (int n = 0; n < N; n++) t.b.push_back((uint16_t)(uint8_t)(int8_t)((n * 5 + k * 11) % 19 - 9));
    for (int m = 0; m < M; m++) t.as.push_back(127);
    for (int n = 0; n < N; n++) t.bs.push_back(127);
    return t;
}

// An n x n output-stationary array with fold overlap, L lanes, depth P.
mx_arch_config os_arch(int n, int L, int P)
{
    mx_arch_config c;
    mx_arch_config_default(&c);
    c.rows = c.cols = n;
    c.lanes = L;
    c.pe_pipeline_depth = P;
    c.dataflow = MX_DATAFLOW_OS;
    c.fold_overlap = 1;
    c.scalesim_compat = 0;
    return c;
}

uint32_t pe_dot(const Tile &t, int L, int m, int n)
{
    mx_pe_config pc;
    mx_pe_config_default(MX_PE_INT8, &pc);
    pc.lanes = L;
    pc.block = 32; // one scale pair covers all of K <= 32
    std::vector<uint16_t> bcol;
    for (int k = 0; k < t.K; k++) bcol.push_back(t.b[(size_t)(k * t.N + n)]);
    return mx_pe_dot(&pc, &t.a[(size_t)(m * t.K)], &t.as[(size_t)m], bcol.data(), &t.bs[(size_t)n], t.K, 0);
}

// 2x2 array, L = 2, one fold (M = N = 2), K = 6: t = 3 K-steps.  By hand:
//   cycle 0 start_i (the edge latches the descriptor), cycle 1 the first
//   SRAM read (rd_o), cycle 2 its data = K-step 0 at the issue port
//   (issue_o): lead 2.  K-step s reaches PE (i, j) in cycle 2 + s + i + j
//   (one skew/pass register per row and column); the last (s = t - 1) enters
//   S1 at that cycle's edge and the result is on the PE's output P cycles
//   later with P - 4 result registers after the 4 PE stages:
//   pe_done(i, j) = 2 + (t - 1) + i + j + P; the last, PE (1, 1):
//   2 + 2 + 2 + P = 6 + P.  Drain, column 1's last value: the shadow holds it
//   in +1, the column FIFO in +2, the block collector in +3 (block full, it
//   leaves the same cycle, ready), done_o in +4.
//   done = lead 2 + K-steps (t - 1 = 2 after the first) + skew (1 + 1)
//        + pipeline P + drain 4 = 10 + P.
//   P = 4: last pe_done 10, done 14;  P = 6: last pe_done 12, done 16.
TEST(ArrayModel, TwoByTwoOneFoldCyclesByHand)
{
    const Tile t = small_tile(2, 2, 6);
    for (int P : {4, 6}) {
        const TileRun r = run_one_fold(array_cfg(2, 2, 2, P, 2, 2), t, 0);
        EXPECT_EQ(r.first_issue, 2) << "P = " << P;
        EXPECT_EQ(r.last_pe_done, 6 + P) << "P = " << P;
        EXPECT_EQ(r.done, 10 + P) << "P = " << P;
    }
}

// The same numbers from the fold schedule: compute = last pe_done - first
// K-step = t + (r-1) + (c-1) + (P-1) (mx_tile_compute_cycles), and the
// start-to-done of the cycle engine's drain model (mx_cycle_tile_done is
// declared in arch/mx_cycle.h; here only the fold schedule).
TEST(ArrayModel, ComputeCyclesAreTheFoldSchedule)
{
    const Tile t = small_tile(2, 2, 6);
    const mx_arch_config c = os_arch(2, 2, 6);
    const TileRun r = run_one_fold(array_cfg(2, 2, 2, 6, 2, 2), t, 0);
    EXPECT_EQ(r.last_pe_done - r.first_issue, mx_tile_compute_cycles(&c, 2, 2, 6));
    EXPECT_EQ(r.last_pe_done - r.first_issue, 3 + 1 + 1 + 5);
}

// Values: every output is the PE's dot product; column mode codes and scales
// are mx_requant_comb of the column's two values.
TEST(ArrayModel, ValuesAndColumnBlocks)
{
    const Tile t = small_tile(2, 2, 6);
    const TileRun r = run_one_fold(array_cfg(2, 2, 2, 4, 2, 2), t, 0);
    for (int n = 0; n < 2; n++) {
        mx_requant_in in;
        mx_requant_out out;
        memset(&in, 0, sizeof in);
        in.fmt_i = MX_PE_INT8;
        in.fp5_bias_i = 8;
        for (int m = 0; m < 2; m++) {
            EXPECT_EQ(r.vals[(size_t)(m * 2 + n)], pe_dot(t, 2, m, n)) << m << "," << n;
            in.vals_i[m] = pe_dot(t, 2, m, n);
        }
        mx_requant_comb(2, &in, &out);
        for (int m = 0; m < 2; m++) {
            EXPECT_EQ(r.codes[(size_t)(m * 2 + n)], out.codes_o[m]);
            EXPECT_EQ(r.scale[(size_t)(m * 2 + n)], out.scale_o);
        }
    }
}

// Tile mode on a 4x4 array with 2x2 tiles: one scale per 2x2 sub-block of
// the fold.  Rows 2-3 and columns 2-3 carry larger operand scales, so the
// four sub-blocks have four different amax and scales (a fold-wide max tree
// would give all sixteen outputs one scale).
TEST(ArrayModel, TileModeScalesPerSubBlock)
{
    Tile t = small_tile(4, 4, 8);
    t.as = {127, 127, 131, 131};
    t.bs = {127, 127, 129, 129};
    const TileRun r = run_one_fold(array_cfg(4, 4, 2, 4, 2, 2), t, 1);
    std::vector<int> seen;
    for (int m0 = 0; m0 < 4; m0 += 2)
        for (int n0 = 0; n0 < 4; n0 += 2) {
            mx_requant_in in;
            mx_requant_out out;
            memset(&in, 0, sizeof in);
            in.fmt_i = MX_PE_INT8;
            in.fp5_bias_i = 8;
            for (int q = 0; q < 2; q++)
                for (int i = 0; i < 2; i++) in.vals_i[q * 2 + i] = pe_dot(t, 2, m0 + i, n0 + q);
            mx_requant_comb(4, &in, &out);
            seen.push_back(out.scale_o);
            for (int q = 0; q < 2; q++)
                for (int i = 0; i < 2; i++) {
                    const size_t k = (size_t)((m0 + i) * 4 + n0 + q);
                    EXPECT_EQ(r.vals[k], pe_dot(t, 2, m0 + i, n0 + q));
                    EXPECT_EQ(r.scale[k], out.scale_o) << "output (" << m0 + i << ", " << n0 + q << ")";
                    EXPECT_EQ(r.codes[k], out.codes_o[q * 2 + i]);
                }
        }
    // the stimulus makes the test able to fail: four distinct scales
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(std::unique(seen.begin(), seen.end()) - seen.begin(), 4);
}

// The fold schedule (mx_fold_at) by hand: 4x4 array, L = 4, P = 4, output
// stationary with overlap; M = 6, N = 5, K = 8 (t = 2).  Folds col-fold
// outer: f0 rows 0-3 cols 0-3, f1 rows 4-5 cols 0-3, f2 rows 0-3 col 4,
// f3 rows 4-5 col 4.  start_{f+1} = start_f + max(t, r_f):
// 0, max(2, 4) = 4, 4 + max(2, 2) = 6, 6 + 4 = 10; end = start + t + (r-1) +
// (c-1) + (P-1): 0+2+3+3+3 = 11, 4+2+1+3+3 = 13, 6+2+3+0+3 = 14, 10+2+1+0+3 = 16.
TEST(ArrayModel, FoldScheduleByHand)
{
    const mx_arch_config c = os_arch(4, 4, 4);
    ASSERT_EQ(mx_fold_count(&c, 6, 5, 8), 4);
    const long long r0[] = {0, 4, 0, 4}, c0[] = {0, 0, 4, 4}, start[] = {0, 4, 6, 10}, end[] = {11, 13, 14, 16};
    const int rows[] = {4, 2, 4, 2}, cols[] = {4, 4, 1, 1};
    for (int f = 0; f < 4; f++) {
        mx_fold fo;
        mx_fold_at(&c, 6, 5, 8, f, &fo);
        EXPECT_EQ(fo.r0, r0[f]) << f;
        EXPECT_EQ(fo.c0, c0[f]) << f;
        EXPECT_EQ(fo.rows, rows[f]) << f;
        EXPECT_EQ(fo.cols, cols[f]) << f;
        EXPECT_EQ(fo.start, start[f]) << f;
        EXPECT_EQ(fo.end, end[f]) << f;
    }
    EXPECT_EQ(mx_tile_compute_cycles(&c, 6, 5, 8), 16);
}

// The config check: what the RTL cannot build is refused with a message naming the key.
TEST(ArrayModel, ConfigCheck)
{
    mx_arch_config c = os_arch(4, 4, 4);
    c.rqu_tile = 1;
    c.tile_rows = c.tile_cols = 2;
    mx_array_config a;
    char err[300];
    ASSERT_EQ(mx_array_config_from_arch(&c, &a, err, sizeof err), 0) << err;
    EXPECT_EQ(a.tile_rows, 2);
    EXPECT_EQ(a.tile_cols, 2);
    EXPECT_EQ(a.fifo_depth, 2 * 4 + 4 + 8);
    c.tile_rows = c.tile_cols = 8; // straddles folds
    EXPECT_NE(mx_array_config_from_arch(&c, &a, err, sizeof err), 0);
    EXPECT_EQ(std::string(err), "key 'format.tile': with rqu.block: tile the 8x8 tile must divide the 4x4 array "
                                "(a tile may not straddle two folds)");
    c.tile_rows = 3;
    c.tile_cols = 4; // 3 does not divide 4
    EXPECT_NE(mx_array_config_from_arch(&c, &a, err, sizeof err), 0);
    c.rqu_tile = 0; // column blocks: the tile is not the RTL's concern
    EXPECT_EQ(mx_array_config_from_arch(&c, &a, err, sizeof err), 0) << err;
    c.pe_pipeline_depth = 3;
    EXPECT_NE(mx_array_config_from_arch(&c, &a, err, sizeof err), 0);
    EXPECT_EQ(std::string(err), "key 'arch.pe_pipeline_depth': the PE has 4 stages, got 3");
}

} // namespace
