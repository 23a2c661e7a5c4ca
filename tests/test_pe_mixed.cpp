// Mixed operand formats in the PE (mx_pe_config.fmt for A, fmt_b for B):
// the fast mx_pe_dot against the exact reference mx_ref_dot and the cycle
// model, a golden check from hand-written code/value tables (exact double
// arithmetic with the two specified FP32 roundings per cycle group), the
// config check's BF16 rule, and the architecture model's functional mode on
// a mixed GEMM against per-output mx_ref_dot on independently quantized
// operands.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include "test_util.h"

extern "C" {
#include "arch/mx_arch.h"
#include "formats/mx_block.h"
#include "formats/mx_rng.h"
#include "units/mx_pe.h"
#include "ref/mx_ref_dot.h"
}

namespace {

uint32_t f2b(float x) { uint32_t b; std::memcpy(&b, &x, 4); return b; }

struct FmtPair { mx_pe_fmt a, b; };

// The pairs the feature must cover, plus E2M5 x MXSF (both table-driven fast
// paths, spans add up to the guard bits at b5 = 16) and MXSF x INT8.
const FmtPair kPairs[] = {
    {MX_PE_MXSF, MX_PE_E4M3}, {MX_PE_E4M3, MX_PE_E5M2}, {MX_PE_E2M5, MX_PE_INT8},
    {MX_PE_INT8, MX_PE_MXSF}, {MX_PE_E5M2, MX_PE_MXSF}, {MX_PE_E2M5, MX_PE_MXSF},
    {MX_PE_MXSF, MX_PE_INT8},
    // the MXFP6/MXFP4 elements with each other and with the 8-bit formats
    {MX_PE_E3M2, MX_PE_E2M3}, {MX_PE_E2M1, MX_PE_E4M3}, {MX_PE_MXSF, MX_PE_E2M1},
    {MX_PE_E2M3, MX_PE_INT8}, {MX_PE_E5M2, MX_PE_E3M2}, {MX_PE_E2M1, MX_PE_E2M1},
};

std::string pair_name(const FmtPair &p)
{
    return std::string(mx_pe_fmt_name(p.a)) + "_x_" + mx_pe_fmt_name(p.b);
}

void PrintTo(const FmtPair &p, std::ostream *os) { *os << pair_name(p); }

// Boundary codes per format, from the layouts of SPEC §2 (not from the
// decoder): zeros, the largest magnitudes, smallest subnormals, NaN and Inf.
std::vector<uint16_t> edge_codes(mx_pe_fmt f, bool specials)
{
    const uint16_t sgn = (uint16_t)(1u << (mx_pe_code_bits(f) - 1));  // 0x80; FP6 0x20, FP4 0x8
    std::vector<uint16_t> v = {0x00, sgn, 0x01, (uint16_t)(sgn | 1)};
    switch (f) {
    case MX_PE_E3M2: case MX_PE_E2M3: v.insert(v.end(), {0x1F, 0x3F, 0x04, 0x08}); break;  // +-max, E3M2/E2M3 1.0 region
    case MX_PE_E2M1: v.insert(v.end(), {0x7, 0xF, 0x2}); break;                           // +-6, 1.0
    case MX_PE_E4M3: v.insert(v.end(), {0x7E, 0xFE}); if (specials) v.insert(v.end(), {0x7F, 0xFF}); break;
    case MX_PE_E5M2:
        v.insert(v.end(), {0x7B, 0xFB});
        if (specials) v.insert(v.end(), {0x7C, 0xFC, 0x7D, 0x7E, 0xFF});
        break;
    case MX_PE_INT8: v.insert(v.end(), {0x7F, 0x80, 0x81}); break;  // +127, -128, -127
    default: v.insert(v.end(), {0x7F, 0xFF, 0x1F, 0x9F, 0x20}); break; // MXSF/E2M5 max, FP5 top, 1.0
    }
    return v;
}

bool is_special(mx_pe_fmt f, uint16_t c)
{
    uint16_t m = c & 0x7F;
    if (f == MX_PE_E4M3) return m == 0x7F;
    if (f == MX_PE_E5M2) return m >= 0x7C;
    return false;
}

uint16_t rand_code(mx_pe_fmt f, uint64_t *rng, bool specials)
{
    if (mx_rng_next(rng) % 8 == 0) {
        std::vector<uint16_t> e = edge_codes(f, specials);
        return e[mx_rng_next(rng) % e.size()];
    }
    for (;;) {
        uint16_t c = (uint16_t)(mx_rng_next(rng) & ((1u << mx_pe_code_bits(f)) - 1));
        if (!is_special(f, c) || (specials && mx_rng_next(rng) % 50 == 0)) return c;
    }
}

struct Operands {
    std::vector<uint16_t> a, b;
    std::vector<uint8_t> xa, xb;
};

void rand_operands(const mx_pe_config &cfg, int k, uint64_t *rng, bool specials, Operands &o)
{
    o.a.resize(k); o.b.resize(k);
    const int nb = (k + cfg.block - 1) / cfg.block;
    o.xa.resize(nb); o.xb.resize(nb);
    for (int i = 0; i < k; i++) {
        o.a[i] = rand_code(cfg.fmt, rng, specials);
        o.b[i] = rand_code(cfg.fmt_b, rng, specials);
    }
    for (int i = 0; i < nb; i++) {
        o.xa[i] = (uint8_t)(127 - 12 + (int)(mx_rng_next(rng) % 24));
        o.xb[i] = (uint8_t)(127 - 12 + (int)(mx_rng_next(rng) % 24));
        switch (mx_rng_next(rng) % 60) {
        case 0: if (specials) o.xa[i] = 0xFF; break;       // NaN scale
        case 1: if (specials) o.xb[i] = 0xFF; break;
        case 2: o.xa[i] = 254; o.xb[i] = 254; break;         // group overflows to Inf
        case 3: o.xa[i] = 1; o.xb[i] = 2; break;             // subnormal / zero groups
        case 4: o.xa[i] = 0; break;                          // smallest scale 2^-127
        default: break;
        }
    }
}

class PeMixed : public ::testing::TestWithParam<FmtPair> {};

TEST_P(PeMixed, DotMatchesExactReference)
{
    const FmtPair p = GetParam();
    mx_pe_config cfg;
    mx_pe_config_default(p.a, &cfg);
    cfg.fmt_b = p.b;
    uint64_t rng = 0x1234 + 17 * (uint64_t)p.a + (uint64_t)p.b;
    const int lane_opts[] = {1, 4, 8, 16, 32};
    const int width_opts[] = {16, 20, 28, 32, 44, 56};
    Operands o;
    for (int t = 0; t < 500; t++) {
        cfg.lanes = lane_opts[t % 5];
        cfg.align_width = width_opts[(t / 5) % 6];
        cfg.fp5_bias = t % 3 == 0 ? 8 : 5 + (int)(mx_rng_next(&rng) % 12);
        // every 4th case long enough for the table-driven fast paths (k >= 128)
        const int k = t % 4 == 1 ? 128 + 32 * (int)(mx_rng_next(&rng) % 8) : 1 + (int)(mx_rng_next(&rng) % 96);
        char err[160];
        ASSERT_EQ(mx_pe_config_check(&cfg, err, sizeof err), 0) << err;
        rand_operands(cfg, k, &rng, t % 4 != 1 || t % 8 == 1, o);
        const uint32_t acc0 = t % 7 == 0 ? f2b((float)(mx_rng_uniform(&rng) * 2 - 1)) : 0;
        const uint32_t want = mx_ref_dot(&cfg, o.a.data(), o.xa.data(), o.b.data(), o.xb.data(), k, acc0);
        const uint32_t got = mx_pe_dot(&cfg, o.a.data(), o.xa.data(), o.b.data(), o.xb.data(), k, acc0);
        ASSERT_EQ(got, want) << std::hex << pair_name(p) << std::dec << " L " << cfg.lanes << " W "
                             << cfg.align_width << " b5 " << cfg.fp5_bias << " k " << k << " t " << t;
    }
}

// Swapping operands (and formats) must not change the result: the product
// is commutative and the datapath has no A/B asymmetry besides the decode.
TEST_P(PeMixed, SwappedOperandsGiveSameResult)
{
    const FmtPair p = GetParam();
    mx_pe_config ab, ba;
    mx_pe_config_default(p.a, &ab);
    ab.fmt_b = p.b;
    mx_pe_config_default(p.b, &ba);
    ba.fmt_b = p.a;
    uint64_t rng = 777 + (uint64_t)p.a * 8 + (uint64_t)p.b;
    Operands o;
    for (int t = 0; t < 60; t++) {
        const int k = t % 2 ? 256 : 40;
        rand_operands(ab, k, &rng, t % 3 == 0, o);
        ASSERT_EQ(mx_pe_dot(&ab, o.a.data(), o.xa.data(), o.b.data(), o.xb.data(), k, 0),
                  mx_pe_dot(&ba, o.b.data(), o.xb.data(), o.a.data(), o.xa.data(), k, 0))
            << pair_name(p) << " t " << t;
    }
}

// The cycle model with random valid/ready back-pressure produces, for every
// output, exactly mx_pe_dot's bits.
TEST_P(PeMixed, CycleModelMatchesDot)
{
    const FmtPair p = GetParam();
    mx_pe_config cfg;
    mx_pe_config_default(p.a, &cfg);
    cfg.fmt_b = p.b;
    cfg.lanes = 4;
    cfg.block = 8;
    cfg.fp5_bias = 11;
    uint64_t rng = 4242 + (uint64_t)p.a * 8 + (uint64_t)p.b;
    const int n_out = 50;
    std::vector<Operands> ops(n_out);
    std::vector<int> K(n_out);
    std::vector<uint32_t> init(n_out), want(n_out);
    for (int o = 0; o < n_out; o++) {
        K[o] = 4 * (1 + (int)(mx_rng_next(&rng) % 8));
        rand_operands(cfg, K[o], &rng, o % 3 == 0, ops[o]);
        init[o] = o % 3 ? 0 : f2b((float)o * 0.25f);
        want[o] = mx_pe_dot(&cfg, ops[o].a.data(), ops[o].xa.data(), ops[o].b.data(), ops[o].xb.data(), K[o], init[o]);
        ASSERT_EQ(want[o], mx_ref_dot(&cfg, ops[o].a.data(), ops[o].xa.data(), ops[o].b.data(), ops[o].xb.data(),
                                      K[o], init[o]));
    }
    std::vector<pe_job> jobs;
    for (int o = 0; o < n_out; o++)
        jobs.push_back({ops[o].a.data(), ops[o].b.data(), ops[o].xa.data(), ops[o].xb.data(), K[o], init[o]});
    const std::vector<uint32_t> got = pe_cycle_run(cfg, jobs, &rng);
    ASSERT_EQ((int)got.size(), n_out) << pair_name(p);
    for (int o = 0; o < n_out; o++) ASSERT_EQ(got[(size_t)o], want[o]) << pair_name(p) << " output " << o;
}

INSTANTIATE_TEST_SUITE_P(Pairs, PeMixed, ::testing::ValuesIn(kPairs),
                         [](const ::testing::TestParamInfo<FmtPair> &i) { return pair_name(i.param); });

// ---- golden: code/value tables written from SPEC §2 -------------------------
struct CodeVal { uint16_t code; double val; };

// Values by hand from the layouts (MXSF with b5 = 8).  Kept within a range
// whose products align exactly at align_width 56 (spread <= 40 binades).
std::vector<CodeVal> table(mx_pe_fmt f)
{
    const double m9 = std::ldexp(1.0, -9), m7 = std::ldexp(1.0, -7), m6 = std::ldexp(1.0, -6);
    switch (f) {
    case MX_PE_MXSF:  // E!=0: 2^(E-1)(1+F/32); E==0: FP5 E3M2, 2^(f-8)(1+n/4), f==0: 2^-7 n/4
        return {{0x00, 0}, {0x80, -0.0}, {0x20, 1.0}, {0x30, 1.5}, {0x50, 3.0}, {0x7F, 7.875},
                {0xFF, -7.875}, {0x1E, 0.75}, {0x9E, -0.75}, {0x01, m9}, {0x04, m7}, {0x3F, 1.96875},
                {0xA0, -1.0}};
    case MX_PE_E4M3:  // bias 7, 3 mantissa bits
        return {{0x38, 1.0}, {0xC0, -2.0}, {0x7E, 448}, {0xFE, -448}, {0x01, m9}, {0x4A, 5.0},
                {0x30, 0.5}, {0x2C, 0.375}, {0x00, 0}, {0x08, m6}};
    case MX_PE_E5M2:  // bias 15, 2 mantissa bits
        return {{0x3C, 1.0}, {0xBC, -1.0}, {0x40, 2.0}, {0x5B, 224}, {0x01, std::ldexp(1.0, -16)},
                {0x3E, 1.5}, {0x00, 0}, {0x44, 4.0}};
    case MX_PE_E2M5:  // bias 1, 5 mantissa bits
        return {{0x20, 1.0}, {0x7F, 7.875}, {0x01, 1.0 / 32}, {0xA0, -1.0}, {0x40, 2.0}, {0x00, 0},
                {0x2A, 1.3125}};
    case MX_PE_INT8:  // two's complement, lsb 2^-6
        return {{0x40, 1.0}, {0xC0, -1.0}, {0x7F, 127.0 / 64}, {0x80, -2.0}, {0x01, 1.0 / 64},
                {0x00, 0}, {0x60, 1.5}};
    case MX_PE_E3M2:  // OCP FP6 E3M2: bias 3, 2 mantissa bits, no NaN/Inf
        return {{0x0C, 1.0}, {0x1F, 28.0}, {0x3F, -28.0}, {0x01, 0.0625}, {0x04, 0.25}, {0x2E, -1.5},
                {0x00, 0}, {0x13, 3.5}};
    case MX_PE_E2M3:  // OCP FP6 E2M3: bias 1, 3 mantissa bits
        return {{0x08, 1.0}, {0x1F, 7.5}, {0x3F, -7.5}, {0x01, 0.125}, {0x07, 0.875}, {0x2C, -1.5},
                {0x00, 0}, {0x12, 2.5}};
    case MX_PE_E2M1:  // OCP FP4 E2M1: bias 1, 1 mantissa bit
        return {{0x2, 1.0}, {0x7, 6.0}, {0xF, -6.0}, {0x1, 0.5}, {0x3, 1.5}, {0xC, -2.0}, {0x0, 0}, {0x5, 3.0}};
    default:
        return {};
    }
}

// One explicit case: A MXSF {1.5, 7.875, 0.75, -1} x B E4M3 {-2, 448, 0.5, 5}
// = -3 + 3528 + 0.375 - 5 = 3520.375 (exact in FP32), scaled by 2^(128+126-254).
TEST(PeMixedGolden, MxsfTimesE4m3ByHand)
{
    mx_pe_config cfg;
    mx_pe_config_default(MX_PE_MXSF, &cfg);
    cfg.fmt_b = MX_PE_E4M3;
    const uint16_t a[8] = {0x30, 0x7F, 0x1E, 0xA0, 0, 0, 0, 0};
    const uint16_t b[8] = {0xC0, 0x7E, 0x30, 0x4A, 0x7E, 0xFE, 0x38, 0x01};
    uint8_t xa = 128, xb = 126;
    EXPECT_EQ(mx_pe_dot(&cfg, a, &xa, b, &xb, 8, 0), f2b(3520.375f));
    EXPECT_EQ(mx_ref_dot(&cfg, a, &xa, b, &xb, 8, 0), f2b(3520.375f));
    // E5M2 x INT8: 224 * (127/64) + 1.5 * (-2) = 444.5 - 3 = 441.5, times 2^-3, plus acc 1.0
    cfg.fmt = MX_PE_E5M2;
    cfg.fmt_b = MX_PE_INT8;
    const uint16_t c[8] = {0x5B, 0x3E, 0, 0, 0, 0, 0, 0};
    const uint16_t e[8] = {0x7F, 0x80, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F};
    xa = 127 - 1; xb = 127 - 2;
    EXPECT_EQ(mx_pe_dot(&cfg, c, &xa, e, &xb, 8, f2b(1.0f)), f2b(1.0f + 441.5f / 8));
    EXPECT_EQ(mx_ref_dot(&cfg, c, &xa, e, &xb, 8, f2b(1.0f)), f2b(1.0f + 441.5f / 8));
}

// Random vectors drawn from the tables: expected FP32 = per cycle group
// RNE_fp32(exact sum * 2^(xa+xb-254)), then RNE_fp32(acc + group) (host IEEE
// float arithmetic); exact alignment at width 56.
TEST(PeMixedGolden, TableVectorsMatchExactArithmetic)
{
    uint64_t rng = 31337;
    for (const FmtPair &p : kPairs) {
        const std::vector<CodeVal> ta = table(p.a), tb = table(p.b);
        mx_pe_config cfg;
        mx_pe_config_default(p.a, &cfg);
        cfg.fmt_b = p.b;
        cfg.align_width = 56;
        for (int t = 0; t < 40; t++) {
            const int k = t % 2 ? 64 : 256; // short: group path; long: table paths
            std::vector<uint16_t> a(k), b(k);
            std::vector<double> va(k), vb(k);
            std::vector<uint8_t> xa(k / 32), xb(k / 32);
            for (int i = 0; i < k; i++) {
                const CodeVal &ca = ta[mx_rng_next(&rng) % ta.size()], &cb = tb[mx_rng_next(&rng) % tb.size()];
                a[i] = ca.code; va[i] = ca.val;
                b[i] = cb.code; vb[i] = cb.val;
            }
            for (auto &x : xa) x = (uint8_t)(120 + mx_rng_next(&rng) % 15);
            for (auto &x : xb) x = (uint8_t)(120 + mx_rng_next(&rng) % 15);
            float acc = 0;
            for (int g = 0; g < k; g += cfg.lanes) {
                double s = 0;
                for (int i = g; i < g + cfg.lanes; i++) s += va[i] * vb[i]; // exact: < 53 bits span
                s = std::ldexp(s, xa[g / 32] + xb[g / 32] - 254);
                acc = acc + (float)s;
            }
            ASSERT_EQ(mx_pe_dot(&cfg, a.data(), xa.data(), b.data(), xb.data(), k, 0), f2b(acc))
                << pair_name(p) << " t " << t;
            ASSERT_EQ(mx_ref_dot(&cfg, a.data(), xa.data(), b.data(), xb.data(), k, 0), f2b(acc))
                << pair_name(p) << " t " << t;
        }
    }
}

// ---- configuration ----------------------------------------------------------
TEST(PeMixedConfig, Bf16MixesWithNothing)
{
    mx_pe_config cfg;
    char err[200] = "";
    mx_pe_config_default(MX_PE_BF16, &cfg);
    EXPECT_EQ(cfg.fmt_b, MX_PE_BF16);
    EXPECT_EQ(mx_pe_config_check(&cfg, err, sizeof err), 0) << err;
    cfg.fmt_b = MX_PE_MXSF;
    ASSERT_EQ(mx_pe_config_check(&cfg, err, sizeof err), -1);
    EXPECT_NE(std::string(err).find("BF16 does not mix"), std::string::npos) << err;
    mx_pe_config_default(MX_PE_MXSF, &cfg);
    cfg.fmt_b = MX_PE_BF16;
    err[0] = 0;
    ASSERT_EQ(mx_pe_config_check(&cfg, err, sizeof err), -1);
    EXPECT_NE(std::string(err).find("BF16"), std::string::npos) << err;
    EXPECT_NE(std::string(err).find("mxsf"), std::string::npos) << err;
}

TEST(PeMixedConfig, FmtBValidatedAndFp5BiasAppliesToEitherSide)
{
    mx_pe_config cfg;
    char err[200];
    mx_pe_config_default(MX_PE_E4M3, &cfg);
    cfg.fmt_b = (mx_pe_fmt)MX_PE_NFMT;
    EXPECT_EQ(mx_pe_config_check(&cfg, err, sizeof err), -1);
    cfg.fmt_b = (mx_pe_fmt)-1;
    EXPECT_EQ(mx_pe_config_check(&cfg, err, sizeof err), -1);
    cfg.fmt_b = MX_PE_MXSF;
    EXPECT_EQ(mx_pe_config_check(&cfg, err, sizeof err), 0) << err;
    cfg.fp5_bias = 4;   // B is MXSF: its bias is checked
    EXPECT_EQ(mx_pe_config_check(&cfg, err, sizeof err), -1);
    EXPECT_NE(std::string(err).find("fp5_bias"), std::string::npos) << err;
    cfg.fmt_b = MX_PE_E5M2; // no MXSF operand: the bias is ignored
    EXPECT_EQ(mx_pe_config_check(&cfg, err, sizeof err), 0) << err;
}

// ---- architecture model: functional mode on mixed GEMMs ------------------------
mx_arch_config arch_cfg()
{
    mx_arch_config c;
    mx_arch_config_default(&c);
    snprintf(c.a_format, sizeof c.a_format, "mxsf");
    snprintf(c.b_format, sizeof c.b_format, "mxsf");
    snprintf(c.out_format, sizeof c.out_format, "mxsf");
    c.rows = c.cols = 4;
    c.lanes = 8;
    c.tile_rows = c.tile_cols = 0;  // 1-D blocks of 32 unless a test sets tiles
    c.sram[MX_OP_A].kib = 1;  // small buffers: K is tiled
    c.sram[MX_OP_B].kib = 1;
    c.sram[MX_OP_OUT].kib = 1;
    return c;
}

mx_gemm mixed_gemm(long long M, long long N, long long K, const char *af, const char *bf)
{
    mx_gemm g;
    std::memset(&g, 0, sizeof g);
    snprintf(g.name, sizeof g.name, "mixed");
    g.M = M; g.N = N; g.K = K; g.count = 1; g.phase = MX_PHASE_FWD;
    snprintf(g.a_format, sizeof g.a_format, "%s", af);
    snprintf(g.b_format, sizeof g.b_format, "%s", bf);
    return g;
}

// A mxsf x B mxfp8_e4m3 (per-GEMM formats), 1-D blocks of 32 and 8x8 tiles:
// outputs equal mx_ref_dot on operands block-quantized here; mode pairs split
// MXSF-wide/narrow x E4M3.
TEST(ArchFunctionalMixed, MxsfTimesMxfp8E4m3)
{
    for (int tile : {0, 8}) {
        mx_arch_config c = arch_cfg();
        c.tile_rows = c.tile_cols = tile;
        const long long M = 8, N = 8, K = 64;
        std::vector<float> A(M * K), B(K * N);
        uint64_t rng = 11;
        for (auto &x : A) x = (float)std::ldexp(mx_rng_uniform(&rng) * 2 - 1, (int)(mx_rng_next(&rng) % 7) - 3);
        for (auto &x : B) x = (float)(mx_rng_uniform(&rng) * 6 - 3);
        mx_func_data d = {0, A.data(), B.data()};
        mx_gemm g = mixed_gemm(M, N, K, "mxsf", "mxfp8_e4m3");
        std::vector<uint32_t> out(M * N, 0xDEADBEEF);
        mx_stats s;
        char err[400] = "";
        ASSERT_EQ(mx_arch_gemm_functional(&c, &g, &d, &s, out.data(), err, sizeof err), 0) << err;
        EXPECT_TRUE(s.functional);

        // independent quantization: A (M x K) blocks along K, B (K x N) along
        // K = axis 0; or tiles over (M, K) and (K, N)
        mx_block_spec sp;
        std::memset(&sp, 0, sizeof sp);
        sp.block = c.block_size;
        sp.tile_rows = sp.tile_cols = tile;
        sp.scale_rule = c.scale_rule;
        sp.enc.round = c.round;
        sp.enc.overflow = MX_OVERFLOW_SATURATE;
        const long long kb = tile ? tile : c.block_size, nkb = K / kb;
        std::vector<uint16_t> ac(M * K), bc(K * N);
        mx_shape sa = make_shape({(size_t)M, (size_t)K}), sb = make_shape({(size_t)K, (size_t)N}), ss;
        ASSERT_EQ(mx_block_format_lookup("mxsf", &sp.elem), 0);
        ASSERT_EQ(mx_format_mxsf(c.mxsf_fp5_bias, &sp.elem), 0);
        sp.axis = -1;
        ASSERT_EQ(mx_block_scale_shape(&sp, &sa, &ss, err, sizeof err), 0) << err;
        std::vector<uint8_t> as(mx_shape_count(&ss));
        ASSERT_EQ(mx_block_quantize(&sp, &sa, A.data(), ac.data(), as.data(), nullptr, err, sizeof err), 0) << err;
        ASSERT_EQ(mx_block_format_lookup("mxfp8_e4m3", &sp.elem), 0);
        sp.axis = 0;
        ASSERT_EQ(mx_block_scale_shape(&sp, &sb, &ss, err, sizeof err), 0) << err;
        std::vector<uint8_t> bs(mx_shape_count(&ss));
        ASSERT_EQ(mx_block_quantize(&sp, &sb, B.data(), bc.data(), bs.data(), nullptr, err, sizeof err), 0) << err;

        mx_pe_config pc;
        mx_pe_config_default(MX_PE_MXSF, &pc);
        pc.fmt_b = MX_PE_E4M3;
        pc.lanes = c.lanes;
        pc.block = (int)kb;
        pc.align_width = c.align_width;
        pc.fp5_bias = c.mxsf_fp5_bias;
        std::vector<uint16_t> bcol(K);
        std::vector<uint8_t> arow_s(nkb), bcol_s(nkb);
        int bad = 0;
        for (long long i = 0; i < M; i++)
            for (long long j = 0; j < N; j++) {
                for (long long k = 0; k < K; k++) bcol[k] = bc[k * N + j];
                for (long long b = 0; b < nkb; b++) {
                    arow_s[b] = tile ? as[(i / tile) * nkb + b] : as[i * nkb + b];
                    bcol_s[b] = tile ? bs[b * ((N + tile - 1) / tile) + j / tile] : bs[b * N + j];
                }
                uint32_t want = mx_ref_dot(&pc, &ac[i * K], arow_s.data(), bcol.data(), bcol_s.data(), (int)K, 0);
                bad += want != out[i * N + j];
            }
        EXPECT_EQ(bad, 0) << "tile " << tile;
        EXPECT_GT(s.qsnr_db, 20) << "tile " << tile;

        // mode pairs: wide MXSF x E4M3 (6 x 4 bits) and FP5 MXSF x E4M3 (4 x 3 bits)
        double wide = 0;
        for (uint16_t code : ac) wide += ((code >> 5) & 3) != 0;
        const double macs = (double)s.macs, frac = wide / (double)(M * K);
        EXPECT_NEAR(s.mul[6][4], macs * frac, 1e-9 * macs) << "tile " << tile;
        EXPECT_NEAR(s.mul[4][3], macs * (1 - frac), 1e-9 * macs) << "tile " << tile;
        EXPECT_GT(s.mul[4][3], 0);
        EXPECT_EQ(s.mul[6][6] + s.mul[6][3] + s.mul[3][3], 0);
    }
}

// Plain unit-scale FP8 x INT8: values equal mx_ref_dot with scales 2^0.
TEST(ArchFunctionalMixed, PlainFp8TimesInt8)
{
    mx_arch_config c = arch_cfg();
    const long long M = 5, N = 6, K = 48;
    std::vector<float> A(M * K), B(K * N);
    uint64_t rng = 12;
    for (auto &x : A) x = (float)(mx_rng_uniform(&rng) * 8 - 4);
    for (auto &x : B) x = (float)(mx_rng_uniform(&rng) * 3 - 1.5);
    mx_func_data d = {0, A.data(), B.data()};
    mx_gemm g = mixed_gemm(M, N, K, "fp8_e4m3", "int8");
    std::vector<uint32_t> out(M * N, 0xDEADBEEF);
    mx_stats s;
    char err[400] = "";
    ASSERT_EQ(mx_arch_gemm_functional(&c, &g, &d, &s, out.data(), err, sizeof err), 0) << err;
    mx_format fa = lookup_format("fp8_e4m3"), fb = lookup_format("int8");
    mx_encode_opts o = {c.round, MX_OVERFLOW_SATURATE, nullptr};
    mx_pe_config pc;
    mx_pe_config_default(MX_PE_E4M3, &pc);
    pc.fmt_b = MX_PE_INT8;
    pc.lanes = c.lanes;
    pc.block = c.lanes;
    pc.align_width = c.align_width;
    std::vector<uint16_t> arow(K), bcol(K);
    std::vector<uint8_t> unit(K, 127);
    int bad = 0;
    for (long long i = 0; i < M; i++)
        for (long long j = 0; j < N; j++) {
            for (long long k = 0; k < K; k++) {
                arow[k] = (uint16_t)mx_encode(&fa, A[i * K + k], &o, nullptr);
                bcol[k] = (uint16_t)mx_encode(&fb, B[k * N + j], &o, nullptr);
            }
            bad += mx_ref_dot(&pc, arow.data(), unit.data(), bcol.data(), unit.data(), (int)K, 0) != out[i * N + j];
        }
    EXPECT_EQ(bad, 0);
}

// Pairs the PE cannot take stay timing only (return 1, the reason in err).
TEST(ArchFunctionalMixed, UnsupportedPairsAreTimingOnly)
{
    mx_arch_config c = arch_cfg();
    const char *pairs[][2] = {{"mxsf_b5", "mxsf_b12"},    // one FP5 bias per PE
                              {"bf16", "mxsf"},           // BF16 mixes with nothing
                              {"mxfp8_e4m3", "bf16"},
                              {"mxfp8_e4m3", "fp8_e4m3"}}; // block-scaled x unit-scaled
    for (auto &p : pairs) {
        mx_gemm g = mixed_gemm(4, 4, 32, p[0], p[1]);
        mx_func_data d = {1, nullptr, nullptr};
        mx_stats s;
        char err[400] = "";
        EXPECT_EQ(mx_arch_gemm_functional(&c, &g, &d, &s, nullptr, err, sizeof err), 1) << p[0] << " x " << p[1];
        EXPECT_NE(std::string(err).find("timing only"), std::string::npos) << err;
        EXPECT_GT(s.cycles, 0);
    }
    // the same bias on both MXSF operands is one PE format
    mx_gemm g = mixed_gemm(4, 4, 32, "mxsf_b12", "mxsf_b12");
    mx_func_data d = {1, nullptr, nullptr};
    mx_stats s;
    char err[400] = "";
    EXPECT_EQ(mx_arch_gemm_functional(&c, &g, &d, &s, nullptr, err, sizeof err), 0) << err;
}

} // namespace
