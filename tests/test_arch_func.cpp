// Functional mode of the accelerator model: MXSF mode pairs counted from the
// codes, outputs equal to a direct loop over mx_pe_dot on operands quantized
// here, QSNR against FP64, sampling of large GEMMs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

extern "C" {
#include "arch/mx_arch.h"
#include "formats/mx_block.h"
#include "formats/mx_rng.h"
#include "units/mx_decode.h"
#include "units/mx_pe.h"
#include "ref/mx_ref_dot.h"
}

#include "arch_test_util.h"
#include "pe_ref_operands.h"

namespace {

mx_arch_config cfg_for(const char *fmt, int tile, int lanes, mx_dataflow df)
{
    mx_arch_config c;
    mx_arch_config_default(&c);
    set_formats(c, fmt);
    c.tile_rows = c.tile_cols = tile;
    c.lanes = lanes;
    c.dataflow = df;
    c.rows = 4;
    c.cols = 3;
    // small buffers so that K, M and N are tiled
    c.sram[MX_OP_A].kib = 1;
    c.sram[MX_OP_B].kib = 1;
    c.sram[MX_OP_OUT].kib = 1;
    return c;
}

// Operands A (M x K, uniform in [-2, 2)) and B (K x N, over 9 binades) from
// seed, and the functional run of the GEMM on c: its outputs and statistics.
void run_functional(const mx_arch_config &c, long long M, long long N, long long K, uint64_t seed,
                    std::vector<float> &A, std::vector<float> &B, std::vector<uint32_t> &out, mx_stats &s)
{
    A.assign(M * K, 0);
    B.assign(K * N, 0);
    uint64_t rng = seed;
    for (auto &x : A) x = (float)(mx_rng_uniform(&rng) * 4 - 2);
    for (auto &x : B) x = (float)(std::ldexp(mx_rng_uniform(&rng) - 0.5, (int)(mx_rng_next(&rng) % 9)));
    mx_func_data d = {0, A.data(), B.data()};
    mx_gemm g = test_gemm(M, N, K);
    out.assign(M * N, 0xDEADBEEF);
    char err[400];
    ASSERT_EQ(mx_arch_gemm_functional(&c, &g, &d, &s, out.data(), err, sizeof err), 0) << c.a_format << ": " << err;
}

} // namespace

// The MXSF mode pairs functional mode charges the multipliers with
// (mul[6][6] E2M5 x E2M5, mul[6][3] mixed, mul[3][3] FP5 x FP5) equal a count
// over every MAC of the modes the decode unit (mx_decode_comb) gives the codes
// of operands quantized here.  (Functional mode's cycles are the timing
// mode's by construction, mx_func.c calls it; nothing to compare there.)
TEST(ArchFunctional, ModePairsEqualCountsFromDecodedCodes)
{
    for (int tile : {8, 0}) {
        mx_arch_config c = cfg_for("mxsf", tile, 8, MX_DATAFLOW_OS);
        const long long M = 19, N = 11, K = 300;
        std::vector<float> A(M * K), B(K * N);
        uint64_t rng = 21;
        // magnitudes over several binades so that blocks hold both modes
        for (auto &x : A) x = (float)std::ldexp(mx_rng_uniform(&rng) - 0.5, (int)(mx_rng_next(&rng) % 7));
        for (auto &x : B) x = (float)std::ldexp(mx_rng_uniform(&rng) - 0.5, (int)(mx_rng_next(&rng) % 7));
        mx_func_data d = {0, A.data(), B.data()};
        mx_gemm g = test_gemm(M, N, K);
        mx_stats s;
        char err[400];
        ASSERT_EQ(mx_arch_gemm_functional(&c, &g, &d, &s, nullptr, err, sizeof err), 0) << err;
        EXPECT_EQ(s.checked_outputs, M * N);
        EXPECT_FALSE(s.sampled);
        PeRefOperands ro;
        pe_ref_operands("mxsf", 8, tile, M, N, K, A, B, ro);
        if (HasFatalFailure()) return;
        auto narrow = [&](uint16_t code) {
            mx_decode_in in = {code, ro.pf, ro.pc.fp5_bias};
            mx_decode_out o;
            mx_decode_comb(&in, &o);
            return o.mode_o;
        };
        double pairs[2][2] = {{0, 0}, {0, 0}};
        for (long long k = 0; k < K; k++) {
            long long na = 0, nb = 0;
            for (long long i = 0; i < M; i++) na += narrow(ro.ac[i * K + k]);
            for (long long j = 0; j < N; j++) nb += narrow(ro.bc[k * N + j]);
            pairs[0][0] += (double)(M - na) * (double)(N - nb);
            pairs[0][1] += (double)(M - na) * (double)nb + (double)na * (double)(N - nb);
            pairs[1][1] += (double)na * (double)nb;
        }
        ASSERT_GT(pairs[0][1], 0) << "both modes must occur";
        ASSERT_GT(pairs[1][1], 0);
        EXPECT_EQ(s.mul[6][6], pairs[0][0]) << "tile " << tile;
        EXPECT_EQ(s.mul[6][3], pairs[0][1]) << "tile " << tile;
        EXPECT_EQ(s.mul[3][3], pairs[1][1]) << "tile " << tile;
    }
}

// The MXFP6 / MXFP4 datapath formats in functional mode: every output of a
// tiled GEMM equals the slow exact reference (tests/ref/mx_ref_dot, bignum
// arithmetic on the format library's values) over all of K on operands
// quantized here; the multiplier energy counts charge every MAC to the
// significand width of the OCP definition (1 + mantissa bits: E3M2 3, E2M3 4,
// E2M1 2).
TEST(ArchFunctional, Fp6Fp4OutputsEqualSlowReference)
{
    struct { const char *f; int tile; int lanes; int sig; } fm[] = {
        {"mxfp6_e3m2", 0, 8, 3}, {"mxfp6_e2m3", 8, 4, 4}, {"mxfp4", 8, 8, 2}, {"mxfp4", 0, 2, 2}};
    for (auto &f : fm) {
        mx_arch_config c = cfg_for(f.f, f.tile, f.lanes, MX_DATAFLOW_OS);
        const long long M = 13, N = 7, K = 200;
        std::vector<float> A, B;
        std::vector<uint32_t> out;
        mx_stats s;
        run_functional(c, M, N, K, 8, A, B, out, s);
        if (HasFatalFailure()) return;
        EXPECT_TRUE(s.functional) << f.f;
        PeRefOperands ro;
        pe_ref_operands(f.f, f.lanes, f.tile, M, N, K, A, B, ro);
        if (HasFatalFailure()) return;
        std::vector<uint16_t> bcol(K);
        int bad = 0, nonzero = 0;
        for (long long i = 0; i < M; i++)
            for (long long j = 0; j < N; j++) {
                for (long long k = 0; k < K; k++) bcol[k] = ro.bc[k * N + j];
                const uint32_t want = mx_ref_dot(&ro.pc, &ro.ac[i * K], &ro.arow_s[i * ro.nkb], bcol.data(),
                                                 &ro.bcol_s[j * ro.nkb], (int)K, 0);
                bad += want != out[i * N + j];
                nonzero += (want & 0x7FFFFFFFu) != 0;
            }
        EXPECT_EQ(bad, 0) << f.f << " tile " << f.tile;
        EXPECT_GT(nonzero, M * N / 2) << f.f;
        EXPECT_EQ(s.mul[f.sig][f.sig], (double)s.macs) << f.f;
    }
}

// Operands quantized here with mx_block_quantize / mx_encode, one mx_pe_dot
// call per output over all of K: the model's tiled computation must give the
// same bits.
TEST(ArchFunctional, OutputsEqualDirectPeDotLoop)
{
    struct { const char *f; int tile; int lanes; } fm[] = {
        {"mxsf", 8, 8}, {"mxsf", 0, 4}, {"bf16", 0, 4}, {"mxint8", 0, 8}, {"mxfp8_e2m5", 8, 2}};
    for (auto &f : fm) {
        mx_arch_config c = cfg_for(f.f, f.tile, f.lanes, MX_DATAFLOW_OS);
        const long long M = 19, N = 11, K = 300; // ragged vs tiles, blocks and lanes
        std::vector<float> A, B;
        std::vector<uint32_t> out;
        mx_stats s;
        run_functional(c, M, N, K, 5, A, B, out, s);
        if (HasFatalFailure()) return;
        char err[400];
        mx_tiling tl;
        mx_operand_fmt fo;
        ASSERT_EQ(mx_operand_fmt_resolve(&c, f.f, &fo), 0);
        ASSERT_EQ(mx_arch_tiling(&c, &fo, &fo, M, N, K, &tl, err, sizeof err), 0);
        EXPECT_LT(tl.kt, K) << "the test must exercise K tiling";

        // independent quantization: A as M x K, B as K x N (blocks along axis 0 / tiles over (K, N))
        PeRefOperands ro;
        pe_ref_operands(f.f, f.lanes, f.tile, M, N, K, A, B, ro);
        if (HasFatalFailure()) return;
        const std::vector<uint32_t> want = pe_ref_outputs(ro, M, N, K);
        int bad = 0;
        for (long long i = 0; i < M * N; i++) bad += want[i] != out[i];
        EXPECT_EQ(bad, 0) << f.f << " tile " << f.tile;
        EXPECT_GT(s.qsnr_db, 20) << f.f;
    }
}

TEST(ArchFunctional, QsnrOrderAndSampling)
{
    mx_arch_config mx = cfg_for("mxsf", 8, 8, MX_DATAFLOW_OS), bf = cfg_for("bf16", 0, 8, MX_DATAFLOW_OS);
    mx.rows = mx.cols = bf.rows = bf.cols = 8;
    mx_gemm g = test_gemm(64, 48, 256);
    mx_func_data d = {7, nullptr, nullptr};
    mx_stats a, b;
    char err[400];
    ASSERT_EQ(mx_arch_gemm_functional(&mx, &g, &d, &a, nullptr, err, sizeof err), 0) << err;
    ASSERT_EQ(mx_arch_gemm_functional(&bf, &g, &d, &b, nullptr, err, sizeof err), 0) << err;
    // BF16 keeps 8 significand bits per element, MXSF at most 6: BF16 is more accurate.
    EXPECT_GT(b.qsnr_db, a.qsnr_db);
    EXPECT_GT(a.qsnr_db, 25);
    // MXSF mode pairs counted from the codes add up to all MACs
    EXPECT_NEAR(a.mul[6][6] + a.mul[6][3] + a.mul[3][3], (double)a.macs, 1e-6 * a.macs);
    EXPECT_GT(a.mul[6][3], 0);
    // sampling above the limit: fewer outputs, whole tile-row groups, flagged
    mx.functional_max_macs = 20000;
    ASSERT_EQ(mx_arch_gemm_functional(&mx, &g, &d, &a, nullptr, err, sizeof err), 0) << err;
    EXPECT_TRUE(a.sampled);
    EXPECT_LT(a.checked_outputs, 64 * 48);
    EXPECT_EQ(a.checked_outputs % 64, 0); // groups of 8 rows x 8 columns
    EXPECT_GT(a.qsnr_db, 25);
}
