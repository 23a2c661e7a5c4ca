// The mapper (models/arch/mx_arch.c, docs/ARCH.md "Mapper") against a brute
// force written here from its documented candidate space: tile extents of
// the array granule times powers of two, the whole extent and the balanced
// split of each; kt = the largest that fits and the balanced splits of K into
// the fewest tiles that fit up to three more; both loop orders; double-
// buffered tiles (half of each buffer) and, with memory.double_buffer:
// search, single-buffered ones (the whole buffer).  Every
// candidate is evaluated exactly (mx_arch_gemm_mapped, the cost the mapper
// ranks with), without pruning.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

extern "C" {
#include "arch/mx_arch.h"
#include "config_yaml.h"
#include "formats/mx_rng.h"
}

#include "arch_test_util.h"

namespace {

struct cand {
    double cycles, bytes, energy;
};

std::vector<long long> extents(long long X, long long gr)
{
    std::vector<long long> v;
    long long R = (X + gr - 1) / gr * gr;
    for (long long e = gr;; e = std::min(e * 2, R)) {
        v.push_back(e);
        long long q = (X + std::min(e, X) - 1) / std::min(e, X);
        v.push_back(((X + q - 1) / q + gr - 1) / gr * gr);
        if (e >= R) break;
    }
    return v;
}

// All candidates of an MXSF (8 x 8 tiles, 8.125 bits) GEMM, evaluated.
std::vector<cand> brute_force(const mx_arch_config &c, const mx_gemm &g, const mx_energy_table *tab)
{
    const long long M = g.M, N = g.N, K = g.K;
    long long mg = c.dataflow == MX_DATAFLOW_WS ? 1 : c.dataflow == MX_DATAFLOW_IS ? c.cols : c.rows;
    long long ng = c.dataflow == MX_DATAFLOW_IS ? 1 : c.cols, kg = 8;
    std::vector<cand> all;
    char err[256];
    for (int db = c.double_buffer ? 1 : 0; db >= (c.double_buffer == 1 ? 1 : 0); db--) {
    const double half = db ? 512 : 1024; // bytes per KiB the tile may use
    for (long long mt : extents(M, mg))
        for (long long nt : extents(N, ng)) {
            if (mt * nt * 4.0 > c.sram[MX_OP_OUT].kib * half) continue;
            double kmax_d = std::min(c.sram[MX_OP_A].kib * half / (mt * 8.125 / 8), c.sram[MX_OP_B].kib * half / (nt * 8.125 / 8));
            long long Kr = (K + kg - 1) / kg * kg;
            long long kmax = kmax_d >= Kr ? Kr : (long long)kmax_d / kg * kg;
            if (kmax < kg) continue;
            std::vector<long long> kts = {kmax};
            long long qmin = (K + kmax - 1) / kmax;
            for (long long q = qmin; q < qmin + 4; q++) {
                long long kt = ((K + q - 1) / q + kg - 1) / kg * kg;
                if (kt <= kmax && kt >= kg) kts.push_back(kt);
            }
            for (long long kt : kts)
                for (int o = 0; o < 2; o++) {
                    mx_tiling t;
                    memset(&t, 0, sizeof t);
                    t.mt = std::min(mt, M); t.nt = std::min(nt, N); t.kt = std::min(kt, K); t.n_outer = o;
                    t.double_buffer = db;
                    t.m_tiles = (M + t.mt - 1) / t.mt; t.n_tiles = (N + t.nt - 1) / t.nt; t.k_tiles = (K + t.kt - 1) / t.kt;
                    mx_stats s;
                    EXPECT_EQ(mx_arch_gemm_mapped(&c, &g, &t, &s, err, sizeof err), 0) << err;
                    double e = 0;
                    if (tab) {
                        EXPECT_EQ(mx_energy_apply(&c, tab, &s, err, sizeof err), 0) << err;
                        e = s.energy_total_pj;
                    }
                    all.push_back({(double)s.cycles, (double)(s.dram_read[0] + s.dram_read[1] + s.dram_write[MX_OP_OUT]), e});
                }
        }
    }
    return all;
}

mx_arch_config random_cfg(uint64_t *rng, int it)
{
    mx_arch_config c;
    mx_arch_config_default(&c);
    c.analytic_probes = 0; // the cost the mapper ranks with (docs/ARCH.md "Mapper")
    c.dataflow = (mx_dataflow)(it % 3);
    c.sram[MX_OP_A].kib = c.sram[MX_OP_B].kib = 16 << (mx_rng_next(rng) % 5);
    c.sram[MX_OP_OUT].kib = 64;
    return c;
}

} // namespace

// time: the choice is within 1% of the fastest, and no candidate within 1%
// of the fastest moves fewer bytes (as the engine counts them: whole bursts); also when the mapper may choose single-
// buffered tiles (memory.double_buffer: search).
TEST(Mapper, WithinOnePercentOfBruteForce)
{
    uint64_t rng = 99;
    char err[256];
    for (int it = 0; it < 18; it++) {
        mx_arch_config c = random_cfg(&rng, it);
        if (it >= 12) c.double_buffer = 2; // memory.double_buffer: search (both kinds of tiles)
        long long M = 1 + mx_rng_next(&rng) % 700, N = 1 + mx_rng_next(&rng) % 700, K = 1 + mx_rng_next(&rng) % 2000;
        mx_gemm g = test_gemm(M, N, K);
        mx_stats chosen;
        ASSERT_EQ(mx_arch_gemm_timing(&c, &g, &chosen, err, sizeof err), 0) << err;
        std::vector<cand> all = brute_force(c, g, nullptr);
        double best = -1;
        for (auto &p : all)
            if (best < 0 || p.cycles < best) best = p.cycles;
        ASSERT_GT(best, 0);
        EXPECT_LE((double)chosen.cycles, best * 1.01) << M << "x" << N << "x" << K << " df " << it % 3;
        // the engine's own traffic (whole bursts, reads and writes), exactly
        double chosen_bytes = (double)(chosen.dram_read[0] + chosen.dram_read[1] + chosen.dram_write[MX_OP_OUT]);
        for (auto &p : all) {
            if (p.cycles <= best * 1.01) {
                EXPECT_GE(p.bytes, chosen_bytes) << M << "x" << N << "x" << K << " df " << it % 3;
            }
        }
    }
}

// energy and edp (memory.tiling: energy | edp): the choice is the least
// energy (energy x cycles) of all candidates, with the shipped energy table.
TEST(Mapper, EnergyAndEdpObjectivesAreExact)
{
    mx_energy_table tab;
    char err[600];
    ASSERT_EQ(mx_energy_load(MXSIM_SRC_DIR "/configs/energy/horowitz45.yaml", &tab, err, sizeof err), 0) << err;
    uint64_t rng = 7;
    for (int it = 0; it < 9; it++) {
        mx_arch_config c = random_cfg(&rng, it);
        c.energy_tab = &tab;
        long long M = 1 + mx_rng_next(&rng) % 600, N = 1 + mx_rng_next(&rng) % 600, K = 1 + mx_rng_next(&rng) % 1500;
        mx_gemm g = test_gemm(M, N, K);
        std::vector<cand> all = brute_force(c, g, &tab);
        double best_e = -1, best_edp = -1;
        for (auto &p : all) {
            if (best_e < 0 || p.energy < best_e) best_e = p.energy;
            if (best_edp < 0 || p.energy * p.cycles < best_edp) best_edp = p.energy * p.cycles;
        }
        for (int obj = 1; obj <= 2; obj++) {
            c.tiling_objective = obj == 1 ? MX_TILING_ENERGY : MX_TILING_EDP;
            mx_stats s;
            ASSERT_EQ(mx_arch_gemm_timing(&c, &g, &s, err, sizeof err), 0) << err;
            ASSERT_EQ(mx_energy_apply(&c, &tab, &s, err, sizeof err), 0) << err;
            if (obj == 1) EXPECT_LE(s.energy_total_pj, best_e * (1 + 1e-9)) << M << "x" << N << "x" << K;
            else EXPECT_LE(s.energy_total_pj * (double)s.cycles, best_edp * (1 + 1e-9)) << M << "x" << N << "x" << K;
        }
        c.energy_tab = nullptr; // the objective without a table is an error naming the key
        mx_stats s;
        EXPECT_EQ(mx_arch_gemm_timing(&c, &g, &s, err, sizeof err), -1);
        EXPECT_NE(std::string(err).find("memory.tiling"), std::string::npos) << err;
    }
}
