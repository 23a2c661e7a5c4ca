// The analytic engine's periodic fast-forward (mx_arch.c "tile walk") against
// the full walk: the second implementation is the same engine stepping every
// tile (analytic_no_jump = 1).  Every counter must be equal; the DRAM energy
// (a floating sum) to 1e-12.  And GEMMs too large to walk are timed, their
// counters overflowing 64 bits refused.
#include "arch_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

extern "C" {
#include "arch/mx_arch.h"
#include "formats/mx_rng.h"
}
#include "config_yaml.h"

namespace {

struct Variant {
    const char *dram, *df, *fmt, *db, *tiling;
    int array;
    int kib;         // A and B buffer KiB (small: many tiles)
    int bw = 128;    // bytes per cycle of the channel (dram none): small = writes queue up
    int rqu = 32;    // RQU elements per cycle: small = the RQU holds output halves
};

bool load(const Variant &v, mx_arch_config &c, std::string &why, mx_energy_table *tab = nullptr)
{
    char err[700], epath[MX_ARCH_PATH_MAX];
    const std::string base = std::string(MXSIM_SRC_DIR) + "/configs/mxsf.yaml";
    if (mx_config_load(base.c_str(), &c, epath, err, sizeof err) != 0) { why = err; return false; }
    std::vector<std::string> sets = {
        std::string("memory.dram=") + v.dram, std::string("arch.dataflow=") + v.df,
        std::string("memory.double_buffer=") + v.db, std::string("memory.tiling=") + v.tiling,
        "arch.rows=" + std::to_string(v.array), "arch.cols=" + std::to_string(v.array),
        "memory.sram_a.kib=" + std::to_string(v.kib), "memory.sram_b.kib=" + std::to_string(v.kib),
        "memory.sram_out.kib=" + std::to_string(v.kib), "memory.dram_bytes_per_cycle=" + std::to_string(v.bw),
        "rqu.elements_per_cycle=" + std::to_string(v.rqu)};
    for (const std::string &s : sets)
        if (mx_config_override(&c, s.c_str(), err, sizeof err) != 0) { why = s + ": " + err; return false; }
    set_formats(c, v.fmt);
    if (tab) { /* the energy and edp objectives rank by energy */
        if (mx_energy_load(epath, tab, err, sizeof err) != 0) { why = err; return false; }
        c.energy_tab = tab;
    }
    if (mx_arch_config_check(&c, err, sizeof err) != 0 || mx_config_dram(base.c_str(), &c, err, sizeof err) != 0) {
        why = err;
        return false;
    }
    return true;
}

void expect_same(const mx_stats &a, const mx_stats &b)
{
    EXPECT_EQ(a.cycles, b.cycles);
    EXPECT_EQ(a.compute_cycles, b.compute_cycles);
    for (int i = 0; i < MX_NSTALL; i++) EXPECT_EQ(a.stall[i], b.stall[i]) << "stall " << i;
    EXPECT_EQ(a.folds, b.folds);
    EXPECT_EQ(a.tiles, b.tiles);
    EXPECT_EQ(a.map.mt, b.map.mt);
    EXPECT_EQ(a.map.nt, b.map.nt);
    EXPECT_EQ(a.map.kt, b.map.kt);
    for (int i = 0; i < MX_NOPS; i++) {
        EXPECT_EQ(a.sram_read[i], b.sram_read[i]) << "op " << i;
        EXPECT_EQ(a.sram_write[i], b.sram_write[i]) << "op " << i;
        EXPECT_EQ(a.dram_read[i], b.dram_read[i]) << "op " << i;
        EXPECT_EQ(a.dram_write[i], b.dram_write[i]) << "op " << i;
    }
    EXPECT_EQ(a.dram_act, b.dram_act);
    EXPECT_NEAR(a.dram_energy_pj, b.dram_energy_pj, 1e-12 * std::fabs(b.dram_energy_pj));
    EXPECT_EQ(a.macs, b.macs);
    EXPECT_EQ(a.rqu_elements, b.rqu_elements);
}

}  // namespace

// Seeded random GEMMs with hundreds to thousands of tiles over DRAM models,
// dataflows, formats, buffering, tiling objectives and training phases.
TEST(AnalyticJump, EqualsFullWalk)
{
    const Variant vars[] = {
        {"none", "os", "mxsf", "true", "time", 8, 16},     {"hbm2", "os", "mxsf", "true", "time", 8, 16},
        {"ddr4_3200", "ws", "bf16", "true", "time", 8, 32}, {"lpddr4_2400", "is", "mxsf", "true", "traffic", 8, 16},
        {"none", "os", "bf16", "false", "time", 16, 16},   {"hbm2", "ws", "mxsf", "search", "time", 8, 16},
        {"ddr4_3200", "os", "mxsf", "true", "energy", 8, 16}, {"none", "is", "mxsf", "true", "edp", 16, 32},
        {"none", "os", "mxsf", "true", "time", 8, 16, 2, 32},  {"none", "ws", "bf16", "true", "traffic", 8, 16, 1, 2},
        {"none", "os", "bf16", "false", "time", 8, 16, 3, 1},  {"lpddr4_2400", "os", "mxsf", "true", "time", 8, 16, 128, 1},
    };
    const mx_phase phases[] = {MX_PHASE_FWD, MX_PHASE_DGRAD, MX_PHASE_WGRAD};
    uint64_t st = 0x5eed;
    int jumped_cases = 0;
    for (const Variant &v : vars) {
        mx_arch_config c;
        mx_energy_table tab;
        std::string why;
        ASSERT_TRUE(load(v, c, why, &tab)) << why;
        for (int i = 0; i < 6; i++) {
            mx_gemm g = test_gemm(1 + (long long)(mx_rng_next(&st) % 3000), 1 + (long long)(mx_rng_next(&st) % 3000),
                                  1 + (long long)(mx_rng_next(&st) % 3000), phases[i % 3]);
            SCOPED_TRACE(std::string(v.dram) + " " + v.df + " " + v.fmt + " db=" + v.db + " " + v.tiling + " " +
                         std::to_string(g.M) + "x" + std::to_string(g.N) + "x" + std::to_string(g.K));
            char err[700];
            mx_stats fast, slow;
            c.analytic_no_jump = 0;
            ASSERT_EQ(mx_arch_gemm_analytic(&c, &g, &fast, err, sizeof err), 0) << err;
            c.analytic_no_jump = 1;
            ASSERT_EQ(mx_arch_gemm_analytic(&c, &g, &slow, err, sizeof err), 0) << err;
            expect_same(fast, slow);
            if (fast.tiles >= 64) jumped_cases++;
        }
    }
    EXPECT_GE(jumped_cases, 36); // most cases have enough tiles for a period to repeat
}

// Refresh in the analytic engine (ref_delay): nothing before the first REF
// (DDR4-3200, one rank: tREFI = 12480 clocks of 0.625 ns = 7800 cycles), then
// each transfer stretched by tRFC / tREFI = 560 / 12480 = 4.49% of its length.
// A GEMM done before 7800 cycles is unchanged; a long memory-bound one is
// slower by more than 1% and less than twice 4.49%: in a store-bound walk a
// store's time is on the critical path twice (the channel is busy with it and
// its output half is held for it), so its stretch counts twice (this case:
// 8.1%; the cycle engine lies between the walk without and with refresh).
TEST(AnalyticJump, RefreshStretchesTransfersAfterTheFirstRef)
{
    Variant v = {"ddr4_3200", "os", "bf16", "true", "time", 32, 1024};
    mx_arch_config c;
    std::string why;
    ASSERT_TRUE(load(v, c, why)) << why;
    char err[700];
    const mx_gemm cases[] = {test_gemm(64, 64, 64), test_gemm(4096, 4096, 64)};
    mx_stats on[2], off[2];
    for (int i = 0; i < 2; i++) {
        c.dram.refresh = 1;
        ASSERT_EQ(mx_arch_gemm_analytic(&c, &cases[i], &on[i], err, sizeof err), 0) << err;
        c.dram.refresh = 0;
        ASSERT_EQ(mx_arch_gemm_analytic(&c, &cases[i], &off[i], err, sizeof err), 0) << err;
    }
    ASSERT_LT(on[0].cycles, 7800);
    EXPECT_EQ(on[0].cycles, off[0].cycles);
    ASSERT_GT(off[1].stall[MX_STALL_DRAM], off[1].compute_cycles); // memory-bound
    double slower = (double)on[1].cycles / (double)off[1].cycles - 1;
    EXPECT_GT(slower, 0.01);
    EXPECT_LT(slower, 2 * 560.0 / 12480);
}

// A GEMM of 2^40 x 1024 x 1024 (2^60 MACs, ~10^10 tiles) is timed: the walk
// cannot step its tiles, so this returns only through the jump.  Compute
// cycles are at least MACs / (R * C * L) and the array is busy most of it.
TEST(AnalyticJump, HugeGemmIsTimed)
{
    Variant v = {"hbm2", "os", "mxsf", "true", "time", 32, 1024};
    mx_arch_config c;
    std::string why;
    ASSERT_TRUE(load(v, c, why)) << why;
    mx_gemm g = test_gemm(1LL << 40, 1024, 1024);
    mx_stats s;
    char err[700];
    ASSERT_EQ(mx_arch_gemm_analytic(&c, &g, &s, err, sizeof err), 0) << err;
    const double ideal = std::ldexp(1.0, 60) / (32.0 * 32.0 * c.lanes);
    EXPECT_EQ(s.macs, 1LL << 60);
    EXPECT_GE((double)s.compute_cycles, ideal);
    EXPECT_LT((double)s.cycles, 1.2 * ideal);
    EXPECT_GE(s.cycles, s.compute_cycles);
}

// Extents beyond 2^48 and GEMMs whose element counts overflow are refused
// with the GEMM named (before: a division by zero in the mapper, SIGFPE).
TEST(AnalyticJump, OverflowRefused)
{
    Variant v = {"none", "os", "mxsf", "true", "time", 32, 1024};
    mx_arch_config c;
    std::string why;
    ASSERT_TRUE(load(v, c, why)) << why;
    const long long cases[][3] = {{9223372036854775807LL, 1, 1}, {1, 1LL << 49, 1}, {1, 1, 1LL << 49},
                                  {3037000499LL, 3037000499LL, 1}};
    for (const auto &d : cases) {
        mx_gemm g = test_gemm(d[0], d[1], d[2]);
        mx_stats s;
        char err[700] = "";
        EXPECT_EQ(mx_arch_gemm_analytic(&c, &g, &s, err, sizeof err), -1) << d[0] << "x" << d[1] << "x" << d[2];
        EXPECT_NE(std::string(err).find("GEMM 'g'"), std::string::npos) << err;
    }
}
