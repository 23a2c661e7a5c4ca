// Cycle model of the accelerator (models/arch/mx_arch.h): closed forms derived
// here by hand, a register-level slow simulator written in this test, memory
// bounds, counters and energy sums.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

extern "C" {
#include "arch/mx_arch.h"
#include "arch/mx_cycle.h"
#include "formats/mx_rng.h"
}

#include "arch_test_util.h"

namespace {

mx_arch_config small_cfg(int R, int C, int L, mx_dataflow df, int P)
{
    mx_arch_config c;
    mx_arch_config_default(&c);
    c.rows = R;
    c.cols = C;
    c.lanes = L;
    c.dataflow = df;
    c.pe_pipeline_depth = P;
    c.fold_overlap = 0;
    c.ideal_memory = 1;
    c.tile_rows = c.tile_cols = 0;
    c.block_size = 32;
    set_formats(c, "bf16");
    return c;
}

long long run_cycles(const mx_arch_config &c, long long M, long long N, long long K)
{
    mx_gemm g = test_gemm(M, N, K);
    mx_stats s;
    char err[256];
    EXPECT_EQ(mx_arch_gemm_timing(&c, &g, &s, err, sizeof err), 0) << err;
    return s.cycles;
}

// ---- register-level slow simulator of one fold -------------------------------
// r x c PEs.  Horizontal tokens (A for OS/WS, B for IS) enter row i from the
// left edge one per cycle after a skew of i cycles and move one PE right per
// cycle.  Vertical tokens (B for OS; partial sums for WS/IS) enter column j at
// the top after a skew of j cycles and move one PE down per cycle.  A PE
// issues a MAC when it holds a horizontal and a vertical token of the same
// step; the result is complete P-1 cycles after issue.  WS/IS first shift the
// stationary operand down the columns: r cycles until row r-1 holds its value.
// Returns the number of cycles until the last MAC is complete.
long long slow_fold(int r, int c, long long t, int P, bool preload)
{
    long long base = 0;
    if (preload) {
        std::vector<int> col(r, -1); // stationary value held per row (same for all columns)
        long long cyc = 0;
        int injected = 0;
        while (col[r - 1] < 0) { // shift down, inject the next value at the top
            for (int i = r - 1; i > 0; i--) col[i] = col[i - 1];
            col[0] = injected++;
            cyc++;
        }
        base = cyc;
    }
    std::vector<long long> h(r * c, -1), v(r * c, -1), nh(r * c), nv(r * c);
    std::vector<long long> fired(r * c, 0);
    long long last_issue = -1, total = (long long)r * c * t, done = 0;
    for (long long cyc = base; done < total; cyc++) {
        // registers advance
        for (int i = 0; i < r; i++)
            for (int j = 0; j < c; j++) {
                long long s_in_h = j == 0 ? ((cyc - base - i >= 0 && cyc - base - i < t) ? cyc - base - i : -1)
                                          : h[i * c + j - 1];
                long long s_in_v = i == 0 ? ((cyc - base - j >= 0 && cyc - base - j < t) ? cyc - base - j : -1)
                                          : v[(i - 1) * c + j];
                nh[i * c + j] = s_in_h;
                nv[i * c + j] = s_in_v;
            }
        h.swap(nh);
        v.swap(nv);
        for (int p = 0; p < r * c; p++)
            if (h[p] >= 0 && v[p] >= 0) {
                EXPECT_EQ(h[p], v[p]);
                fired[p]++;
                done++;
                last_issue = cyc;
            }
    }
    for (int p = 0; p < r * c; p++) EXPECT_EQ(fired[p], t);
    return last_issue + P; // complete P-1 cycles after issue, counted from cycle 0
}

} // namespace

// Hand derivation: 2x2 OS array, K=3, one lane, P=1.  A row 1 is skewed by one
// cycle, B column 1 by one; PE(1,1) sees its first pair at cycle 2 and its
// third at cycle 4, so the fold takes 5 cycles.
TEST(ArchTiming, HandDerived2x2K3)
{
    mx_arch_config c = small_cfg(2, 2, 1, MX_DATAFLOW_OS, 1);
    EXPECT_EQ(run_cycles(c, 2, 2, 3), 5);
    // Two lanes: K=3 takes ceil(3/2) = 2 steps -> last pair at cycle 3 -> 4.
    c.lanes = 2;
    EXPECT_EQ(run_cycles(c, 2, 2, 3), 4);
    // Four pipeline stages add 3 cycles after the last issue.
    c.lanes = 1;
    c.pe_pipeline_depth = 4;
    EXPECT_EQ(run_cycles(c, 2, 2, 3), 8);
    // M = 3 on 2 rows: two row folds, the second has one row:
    // fold 1: 5 cycles; fold 2 (1x2): last pair at PE(0,1) cycle 1+2 = 3 -> 4.
    c.pe_pipeline_depth = 1;
    EXPECT_EQ(run_cycles(c, 3, 2, 3), 9);
    // WS 2x2, K=2 (rows), N=2, M=3 streamed: preload 2 cycles, then the
    // input of step 2 reaches PE(1,1) after 1+1 hops: issue at 2+2+2 = 6 -> 7.
    mx_arch_config w = small_cfg(2, 2, 1, MX_DATAFLOW_WS, 1);
    EXPECT_EQ(run_cycles(w, 3, 2, 2), 7);
}

TEST(ArchTiming, SlowSimulatorAgreesOnRandomShapes)
{
    uint64_t rng = 12345;
    const mx_dataflow dfs[3] = {MX_DATAFLOW_OS, MX_DATAFLOW_WS, MX_DATAFLOW_IS};
    for (int iter = 0; iter < 150; iter++) {
        int R = 1 + (int)(mx_rng_next(&rng) % 6), C = 1 + (int)(mx_rng_next(&rng) % 6);
        int L = 1 << (mx_rng_next(&rng) % 3);
        int P = 1 + (int)(mx_rng_next(&rng) % 4);
        mx_dataflow df = dfs[iter % 3];
        long long M = 1 + (long long)(mx_rng_next(&rng) % 15);
        long long N = 1 + (long long)(mx_rng_next(&rng) % 15);
        long long K = 1 + (long long)(mx_rng_next(&rng) % 20);
        mx_arch_config c = small_cfg(R, C, L, df, P);
        // expected: every fold simulated at register level, one after another
        long long ks = (K + L - 1) / L;
        long long sr = df == MX_DATAFLOW_OS ? M : ks;
        long long sc = df == MX_DATAFLOW_IS ? M : N;
        long long t = df == MX_DATAFLOW_OS ? ks : (df == MX_DATAFLOW_WS ? M : N);
        long long expect = 0;
        for (long long c0 = 0; c0 < sc; c0 += C)
            for (long long r0 = 0; r0 < sr; r0 += R) {
                int r = (int)std::min<long long>(R, sr - r0), cc = (int)std::min<long long>(C, sc - c0);
                expect += slow_fold(r, cc, t, P, df != MX_DATAFLOW_OS);
            }
        EXPECT_EQ(run_cycles(c, M, N, K), expect)
            << "R=" << R << " C=" << C << " L=" << L << " P=" << P << " df=" << mx_dataflow_name(df)
            << " M=" << M << " N=" << N << " K=" << K;
    }
}

// With fold overlap the closed form (class counts) must equal a literal
// fold-by-fold walk of the documented schedule (docs/ARCH.md):
//   OS: fold f+1 starts max(t, r_f) after fold f; fold f ends
//       t + (r-1) + (c-1) + (P-1) after its start.
//   WS/IS: the first preload takes r_0; fold f+1 streams max(t, r_{f+1}) after
//       fold f (its preload overlapped); a fold ends t + (r-1) + (c-1) + (P-1)
//       after its stream starts.
//   The tile ends when its latest fold ends (an earlier, wider fold can end
//   after a narrow last one).
TEST(ArchTiming, FoldOverlapMatchesFoldWalk)
{
    uint64_t rng = 777;
    for (int iter = 0; iter < 600; iter++) {
        int R = 1 + (int)(mx_rng_next(&rng) % 9), C = 1 + (int)(mx_rng_next(&rng) % 9);
        int P = 1 + (int)(mx_rng_next(&rng) % 4);
        mx_dataflow df = (mx_dataflow)(iter % 3);
        mx_arch_config c = small_cfg(R, C, 1, df, P);
        c.fold_overlap = 1;
        long long m = 1 + (long long)(mx_rng_next(&rng) % 40);
        long long n = 1 + (long long)(mx_rng_next(&rng) % 40);
        long long k = 1 + (long long)(mx_rng_next(&rng) % (iter % 2 ? 40 : 4)); // short t too
        long long sr = df == MX_DATAFLOW_OS ? m : k, sc = df == MX_DATAFLOW_IS ? m : n;
        long long t = df == MX_DATAFLOW_OS ? k : (df == MX_DATAFLOW_WS ? m : n);
        std::vector<std::pair<long long, long long>> folds;
        for (long long c0 = 0; c0 < sc; c0 += C)
            for (long long r0 = 0; r0 < sr; r0 += R)
                folds.push_back({std::min<long long>(R, sr - r0), std::min<long long>(C, sc - c0)});
        long long start = df == MX_DATAFLOW_OS ? 0 : folds[0].first, expect = 0;
        for (size_t f = 0; f < folds.size(); f++) {
            long long r = folds[f].first, cc = folds[f].second;
            expect = std::max(expect, start + t + (r - 1) + (cc - 1) + (P - 1));
            if (f + 1 < folds.size())
                start += df == MX_DATAFLOW_OS ? std::max(t, r) : std::max(t, folds[f + 1].first);
        }
        EXPECT_EQ(mx_tile_compute_cycles(&c, m, n, k), expect)
            << iter << " " << mx_dataflow_name(df) << " R=" << R << " C=" << C << " " << m << "x" << n << "x" << k;
    }
    // The array RTL's example (docs/SYSTEMC.md): 1 x 6 x 1 on 4 x 4, L = 4, P = 4:
    // folds (1x4) and (1x2), t = 1; the first ends at 0+1+0+3+3 = 7, the second at 1+1+0+1+3 = 6.
    mx_arch_config c = small_cfg(4, 4, 4, MX_DATAFLOW_OS, 4);
    c.fold_overlap = 1;
    EXPECT_EQ(mx_tile_compute_cycles(&c, 1, 6, 1), 7);
}

TEST(ArchTiming, MemoryBoundsAndCounters)
{
    mx_arch_config c;
    mx_arch_config_default(&c);
    mx_gemm g = test_gemm(512, 384, 1000);
    mx_stats s;
    char err[256];
    ASSERT_EQ(mx_arch_gemm_timing(&c, &g, &s, err, sizeof err), 0) << err;
    EXPECT_EQ(s.macs, 512LL * 384 * 1000);
    EXPECT_EQ(s.pe_steps, 512LL * 384 * 125); // K / 8 lanes
    EXPECT_EQ(s.cycles, s.compute_cycles + s.stall[0] + s.stall[1] + s.stall[2] + s.stall[3]);
    // every operand byte comes from DRAM at least once: MXSF 8 bits + 8/64 per element
    EXPECT_GE(s.dram_read[MX_OP_A], (long long)(512 * 1000 * 8.125 / 8));
    EXPECT_GE(s.dram_read[MX_OP_B], (long long)(384 * 1000 * 8.125 / 8));
    // the DMA stores whole 64-byte bursts: at least the 512 x 384 codes and
    // the 64 x 48 scale bytes, and the same bursts the cycle engine moves
    EXPECT_EQ(s.dram_write[MX_OP_OUT] % 64, 0);
    EXPECT_GE(s.dram_write[MX_OP_OUT], (long long)std::ceil(512.0 * 384 * 8.125 / 8));
    {
        mx_stats cy;
        ASSERT_EQ(mx_arch_gemm_cycle(&c, &g, &cy, err, sizeof err), 0) << err;
        EXPECT_EQ(s.dram_write[MX_OP_OUT], cy.dram_write[MX_OP_OUT]);
        EXPECT_EQ(s.dram_read[MX_OP_A], cy.dram_read[MX_OP_A]);
        EXPECT_EQ(s.dram_read[MX_OP_B], cy.dram_read[MX_OP_B]);
    }
    // MXSF mode split in timing mode: wide fraction w on both sides
    double w = c.mxsf_wide_fraction, macs = (double)s.macs;
    EXPECT_NEAR(s.mul[6][6], macs * w * w, 1);
    EXPECT_NEAR(s.mul[6][3], macs * 2 * w * (1 - w), 1);
    EXPECT_NEAR(s.mul[3][3], macs * (1 - w) * (1 - w), 1);

    // A starved DRAM: total time can't beat bytes / bandwidth.
    c.dram_bytes_per_cycle = 0.5;
    ASSERT_EQ(mx_arch_gemm_timing(&c, &g, &s, err, sizeof err), 0) << err;
    long long bytes = 0;
    for (int i = 0; i < MX_NOPS; i++) bytes += s.dram_read[i] + s.dram_write[i];
    EXPECT_GE(s.cycles, (long long)(bytes / 0.5));
    EXPECT_LE(s.cycles, (long long)(bytes / 0.5) + s.compute_cycles + 200LL * s.tiles);
    EXPECT_GT(s.stall[MX_STALL_DRAM], 0);

    // A slow RQU (1 element per cycle) bounds a GEMM with many outputs and a
    // short K: it re-quantizes the 64 x 64 outputs after they are computed,
    // so the GEMM lasts at least compute + 4096 cycles, and the RQU's time
    // after the last compute shows as drain.
    c.dram_bytes_per_cycle = 128;
    c.rqu_elements_per_cycle = 1;
    mx_gemm wide = test_gemm(64, 64, 8);
    ASSERT_EQ(mx_arch_gemm_timing(&c, &wide, &s, err, sizeof err), 0) << err;
    // (the mapper may split the outputs into tiles, so part of the RQU work
    // overlaps later tiles' compute: only the total and a tail are certain)
    EXPECT_GT(s.cycles, 64 * 64);
    EXPECT_GT(s.stall[MX_STALL_DRAIN], 64 * 64 / 2);
    c.rqu_elements_per_cycle = 32;

    // Ideal memory: no stalls.
    c.ideal_memory = 1;
    ASSERT_EQ(mx_arch_gemm_timing(&c, &g, &s, err, sizeof err), 0) << err;
    EXPECT_EQ(s.cycles, s.compute_cycles);
}

TEST(ArchTiming, TrainingRequantCopies)
{
    mx_arch_config c;
    mx_arch_config_default(&c);
    c.tile_rows = c.tile_cols = 0; // 1-D blocks along K
    mx_stats s;
    char err[256];
    mx_gemm f = test_gemm(256, 128, 64, MX_PHASE_FWD);
    ASSERT_EQ(mx_arch_gemm_timing(&c, &f, &s, err, sizeof err), 0);
    EXPECT_EQ(s.requant_elements, 0);
    mx_gemm d = test_gemm(256, 128, 64, MX_PHASE_DGRAD); // W^T: K x N copy
    ASSERT_EQ(mx_arch_gemm_timing(&c, &d, &s, err, sizeof err), 0);
    EXPECT_EQ(s.requant_elements, 64 * 128);
    EXPECT_EQ(s.rqu_elements, 256 * 128 + 64 * 128);
    mx_gemm w = test_gemm(256, 128, 64, MX_PHASE_WGRAD); // X^T and dY copies
    ASSERT_EQ(mx_arch_gemm_timing(&c, &w, &s, err, sizeof err), 0);
    EXPECT_EQ(s.requant_elements, 256 * 64 + 64 * 128);
    EXPECT_EQ(s.requant_copies, 2);
    // 1-D block of 32: 8 + 8/32 bits per element
    EXPECT_EQ(s.dram_write[MX_OP_A], (long long)std::ceil(256 * 64 * 8.25 / 8));
    // 2-D tiles: one copy serves all phases.
    c.tile_rows = c.tile_cols = 8;
    ASSERT_EQ(mx_arch_gemm_timing(&c, &w, &s, err, sizeof err), 0);
    EXPECT_EQ(s.requant_elements, 0);
    // BF16 has no blocks: nothing to re-quantize.
    mx_arch_config b = small_cfg(32, 32, 8, MX_DATAFLOW_OS, 4);
    ASSERT_EQ(mx_arch_gemm_timing(&b, &w, &s, err, sizeof err), 0);
    EXPECT_EQ(s.requant_elements, 0);
}

TEST(ArchEnergy, SumOfCountsTimesTable)
{
    mx_energy_table t;
    memset(&t, 0, sizeof t);
    snprintf(t.path, sizeof t.path, "hand.yaml");
    const char *keys[] = {"mul_8x8", "exp_add_per_bit", "align_per_bit", "addtree_per_bit",
                          "fp32_add", "scale_add", "sram_64b_8kib", "sram_64b_32kib",
                          "sram_64b_1mib", "dram_64b", "rqu_per_element", "leak_pe_cycle",
                          "leak_sram_kib_cycle"};
    const double vals[] = {2, 0.5, 0.25, 0.125, 3, 7, 8, 16, 64, 1000, 5, 0.001, 0.002};
    for (int i = 0; i < 13; i++) {
        snprintf(t.e[i].key, sizeof t.e[i].key, "%s", keys[i]);
        t.e[i].pj = vals[i];
    }
    t.n = 13;
    mx_arch_config c = small_cfg(4, 4, 2, MX_DATAFLOW_OS, 1);
    c.align_width = 20;
    for (int i = 0; i < MX_NOPS; i++) { c.sram[i].kib = 32; c.sram[i].banks = 4; } // 8 KiB banks
    mx_gemm g = test_gemm(10, 6, 9);
    mx_stats s;
    char err[256];
    ASSERT_EQ(mx_arch_gemm_timing(&c, &g, &s, err, sizeof err), 0);
    ASSERT_EQ(mx_energy_apply(&c, &t, &s, err, sizeof err), 0) << err;
    double macs = 10 * 6 * 9, steps = 10 * 6 * 5;
    EXPECT_DOUBLE_EQ(s.energy_pj[MX_E_MUL], macs * 2);
    EXPECT_DOUBLE_EQ(s.energy_pj[MX_E_ADDTREE], macs * (8 * 0.5 + 20 * (0.25 + 0.125)));
    EXPECT_DOUBLE_EQ(s.energy_pj[MX_E_ACCUM], steps * 3);
    EXPECT_DOUBLE_EQ(s.energy_pj[MX_E_SCALE], 0); // BF16: no scales
    EXPECT_DOUBLE_EQ(s.energy_pj[MX_E_SRAM_A], (s.sram_read[0] + s.sram_write[0]) * 8 / 8.0);
    double dram = 0;
    for (int i = 0; i < MX_NOPS; i++) dram += s.dram_read[i] + s.dram_write[i];
    EXPECT_DOUBLE_EQ(s.energy_pj[MX_E_DRAM], dram / 8 * 1000);
    EXPECT_DOUBLE_EQ(s.energy_pj[MX_E_RQU], 60 * 5);
    EXPECT_DOUBLE_EQ(s.energy_pj[MX_E_LEAKAGE], s.cycles * (16 * 0.001 + 96 * 0.002));
    double sum = 0;
    for (int i = 0; i < MX_E_NCOMP; i++) sum += s.energy_pj[i];
    EXPECT_DOUBLE_EQ(s.energy_total_pj, sum);
    // 32 KiB banks: the 32 KiB anchor; 128 KiB: log-linear between 32 KiB (16) and 1 MiB (64)
    for (int i = 0; i < MX_NOPS; i++) c.sram[i].banks = 1;
    ASSERT_EQ(mx_energy_apply(&c, &t, &s, err, sizeof err), 0);
    EXPECT_DOUBLE_EQ(s.energy_pj[MX_E_SRAM_B], (s.sram_read[1] + s.sram_write[1]) * 16 / 8.0);
    for (int i = 0; i < MX_NOPS; i++) c.sram[i].kib = 128;
    ASSERT_EQ(mx_energy_apply(&c, &t, &s, err, sizeof err), 0);
    EXPECT_NEAR(s.energy_pj[MX_E_SRAM_B], (s.sram_read[1] + s.sram_write[1]) * 16 * std::pow(4.0, 2.0 / 5.0) / 8.0, 1e-6);
    // A missing entry is an error naming the table and the entry.
    t.n = 12;
    EXPECT_NE(mx_energy_apply(&c, &t, &s, err, sizeof err), 0);
    EXPECT_NE(strstr(err, "hand.yaml"), nullptr);
    EXPECT_NE(strstr(err, "leak_sram_kib_cycle"), nullptr);
}

TEST(ArchTiming, TilingFitsBuffersAndTrafficMode)
{
    mx_arch_config c;
    mx_arch_config_default(&c);
    char err[256];
    mx_stats s;
    // Everything fits: the least-traffic mapping is one tile, every operand
    // byte read exactly once (the time objective may split it to overlap
    // loads with compute: see Mapper.*).
    mx_gemm g = test_gemm(256, 128, 512);
    c.tiling_objective = MX_TILING_TRAFFIC;
    ASSERT_EQ(mx_arch_gemm_timing(&c, &g, &s, err, sizeof err), 0) << err;
    EXPECT_EQ(s.tiles, 1);
    EXPECT_EQ(s.dram_read[MX_OP_A], (long long)std::ceil(256 * 512 * 8.125 / 8));
    EXPECT_EQ(s.dram_read[MX_OP_B], (long long)std::ceil(512 * 128 * 8.125 / 8));
    uint64_t rng = 4242;
    mx_operand_fmt f;
    ASSERT_EQ(mx_operand_fmt_resolve(&c, "mxsf", &f), 0);
    for (int it = 0; it < 60; it++) {
        c.dataflow = (mx_dataflow)(it % 3);
        for (int i = 0; i < MX_NOPS; i++) c.sram[i].kib = 8 << (mx_rng_next(&rng) % 6);
        long long M = 1 + mx_rng_next(&rng) % 3000, N = 1 + mx_rng_next(&rng) % 3000, K = 1 + mx_rng_next(&rng) % 5000;
        mx_tiling t;
        c.tiling_objective = MX_TILING_TIME;
        ASSERT_EQ(mx_arch_tiling(&c, &f, &f, M, N, K, &t, err, sizeof err), 0) << err;
        double half = 1024.0 / 2;
        EXPECT_LE(t.mt * t.kt * 8.125 / 8, c.sram[MX_OP_A].kib * half);
        EXPECT_LE(t.kt * t.nt * 8.125 / 8, c.sram[MX_OP_B].kib * half);
        EXPECT_LE(t.mt * t.nt * 4.0, c.sram[MX_OP_OUT].kib * half);
        EXPECT_TRUE(t.kt == K || t.kt % 8 == 0); // whole 8x8 tiles along K
        // the mapper's fast cost (analytic_probes = 0) counts the traffic the
        // engine counts (whole bursts), which is at least the tiling's
        // operand-byte estimate (the mapper's lower bound stays a bound)
        mx_gemm gg = test_gemm(M, N, K);
        mx_stats full;
        c.analytic_probes = 0;
        ASSERT_EQ(mx_arch_gemm_mapped(&c, &gg, &t, &s, err, sizeof err), 0) << err;
        c.analytic_probes = 1;
        ASSERT_EQ(mx_arch_gemm_mapped(&c, &gg, &t, &full, err, sizeof err), 0) << err;
        EXPECT_EQ(s.dram_read[0] + s.dram_read[1], full.dram_read[0] + full.dram_read[1]);
        EXPECT_EQ(s.dram_write[MX_OP_OUT], full.dram_write[MX_OP_OUT]);
        EXPECT_GE((double)(s.dram_read[0] + s.dram_read[1]), t.dram_bytes - 2.0 * s.tiles);
        mx_tiling tt;
        c.tiling_objective = MX_TILING_TRAFFIC;
        ASSERT_EQ(mx_arch_tiling(&c, &f, &f, M, N, K, &tt, err, sizeof err), 0) << err;
        EXPECT_LE(tt.dram_bytes, t.dram_bytes * (1 + 1e-12));
    }
}
