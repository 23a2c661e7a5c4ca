// Datapath unit models (models/units) against independent sources: the format
// library's exact decode, host IEEE float arithmetic (SSE2, round to nearest
// even), hand-computed boundary cases, the exact reference mx_ref_dot
// (models/units/mx_ref_dot.c, shares no code with the units) and the format
// library's block quantizer.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

extern "C" {
#include "formats/mx_format.h"
#include "formats/mx_block.h"
#include "formats/mx_rng.h"
#include "units/mx_decode.h"
#include "units/mx_mul.h"
#include "units/mx_align.h"
#include "units/mx_addtree.h"
#include "units/mx_accum.h"
#include "units/mx_pe.h"
#include "ref/mx_ref_dot.h"
#include "units/mx_requant.h"
}

#include "test_util.h"

namespace {

const char *lib_name(mx_pe_fmt f)
{
    // in mx_pe_fmt order, written here (not read from the datapath table)
    static const char *n[] = {"mxsf", "fp8_e4m3", "fp8_e5m2", "fp8_e2m5", "int8",
                              "bf16", "fp6_e3m2", "fp6_e2m3", "fp4_e2m1"};
    static_assert(sizeof n / sizeof n[0] == MX_PE_NFMT, "one library name per PE format");
    return n[f];
}

mx_format lib_format(mx_pe_fmt f)
{
    mx_format x;
    EXPECT_EQ(mx_format_lookup(lib_name(f), &x), 0);
    return x;
}

mx_decode_out dec(mx_pe_fmt f, uint32_t code, int b5 = 8)
{
    mx_decode_in in = {code, f, b5};
    mx_decode_out o;
    mx_decode_comb(&in, &o);
    return o;
}

uint32_t f2b(float x) { uint32_t b; std::memcpy(&b, &x, 4); return b; }
float b2f(uint32_t b) { float x; std::memcpy(&x, &b, 4); return x; }

TEST(UnitDecode, EveryCodeMatchesLibraryValue)
{
    for (int fi = 0; fi < MX_PE_NFMT; fi++) {
        mx_pe_fmt f = (mx_pe_fmt)fi;
        mx_format lf = lib_format(f);
        uint32_t n = 1u << mx_pe_code_bits(f);
        for (uint32_t c = 0; c < n; c++) {
            mx_decode_out o = dec(f, c);
            double v = mx_decode(&lf, c);
            if (std::isnan(v)) { EXPECT_TRUE(o.nan_o) << lib_name(f) << " " << c; continue; }
            if (std::isinf(v)) { EXPECT_TRUE(o.inf_o && o.sign_o == (v < 0)) << c; continue; }
            ASSERT_FALSE(o.nan_o || o.inf_o) << lib_name(f) << " " << c;
            double got = std::ldexp((double)o.sig_o, o.lsb_o) * (o.sign_o ? -1 : 1);
            ASSERT_EQ(got, v) << lib_name(f) << " code " << c;
            ASSERT_EQ(o.zero_o, v == 0) << c;
            ASSERT_LE(o.sig_o, 255u);
        }
    }
}

// OCP MX v1.0 §5.3.2 (FP6 E3M2 bias 3, E2M3 bias 1) and §5.3.3 (FP4 E2M1
// bias 1): max normal, min normal, max/min subnormal, by hand; sig/lsb as the
// datapath carries them (value = sig * 2^lsb); bits above the code ignored.
TEST(UnitDecode, Fp6Fp4BoundariesFromSpec)
{
    struct { mx_pe_fmt f; uint32_t code; uint32_t sig; int lsb; int sign; double val; } t[] = {
        {MX_PE_E3M2, 0x1F, 7, 2, 0, 28.0},      // 0 111 11: 2^4 x 1.75
        {MX_PE_E3M2, 0x3F, 7, 2, 1, -28.0},
        {MX_PE_E3M2, 0x04, 4, -4, 0, 0.25},     // 0 001 00: 2^-2
        {MX_PE_E3M2, 0x03, 3, -4, 0, 0.1875},   // 0 000 11: 2^-2 x 0.75
        {MX_PE_E3M2, 0x01, 1, -4, 0, 0.0625},   // 0 000 01: 2^-2 x 0.25
        {MX_PE_E3M2, 0x0C, 4, -2, 0, 1.0},      // 0 011 00
        {MX_PE_E3M2, 0xDF, 7, 2, 0, 28.0},      // bits 7:6 ignored
        {MX_PE_E2M3, 0x1F, 15, -1, 0, 7.5},     // 0 11 111: 2^2 x 1.875
        {MX_PE_E2M3, 0x08, 8, -3, 0, 1.0},      // 0 01 000
        {MX_PE_E2M3, 0x07, 7, -3, 0, 0.875},    // 0 00 111
        {MX_PE_E2M3, 0x21, 1, -3, 1, -0.125},   // 1 00 001
        {MX_PE_E2M1, 0x7, 3, 1, 0, 6.0},        // 0 11 1: 2^2 x 1.5
        {MX_PE_E2M1, 0x2, 2, -1, 0, 1.0},       // 0 01 0
        {MX_PE_E2M1, 0x1, 1, -1, 0, 0.5},       // 0 00 1
        {MX_PE_E2M1, 0xC, 2, 0, 1, -2.0},       // 1 10 0
        {MX_PE_E2M1, 0xF7, 3, 1, 0, 6.0},       // bits 7:4 ignored
    };
    for (auto &e : t) {
        mx_decode_out o = dec(e.f, e.code);
        EXPECT_EQ(o.sig_o, e.sig) << mx_pe_fmt_name(e.f) << " " << e.code;
        EXPECT_EQ(o.lsb_o, e.lsb) << mx_pe_fmt_name(e.f) << " " << e.code;
        EXPECT_EQ(o.sign_o, e.sign) << mx_pe_fmt_name(e.f) << " " << e.code;
        EXPECT_FALSE(o.nan_o || o.inf_o || o.mode_o || o.zero_o) << mx_pe_fmt_name(e.f) << " " << e.code;
        EXPECT_EQ((o.sign_o ? -1 : 1) * std::ldexp((double)o.sig_o, o.lsb_o), e.val) << e.code;
    }
    for (mx_pe_fmt f : {MX_PE_E3M2, MX_PE_E2M3, MX_PE_E2M1}) {  // no NaN/Inf codes; +-0
        EXPECT_TRUE(dec(f, 0x00).zero_o);
        EXPECT_TRUE(dec(f, 1u << (mx_pe_code_bits(f) - 1)).zero_o);
        EXPECT_EQ(dec(f, 1u << (mx_pe_code_bits(f) - 1)).sign_o, 1);
    }
    EXPECT_EQ(mx_pe_code_bits(MX_PE_E3M2), 6);
    EXPECT_EQ(mx_pe_code_bits(MX_PE_E2M3), 6);
    EXPECT_EQ(mx_pe_code_bits(MX_PE_E2M1), 4);
}

TEST(UnitDecode, MxsfBoundariesFromSpec)
{
    // SPEC §2.2 datapath view: E2M5 sig = 32 + F, lsb = E - 6; FP5 normal sig = 4 + n,
    // lsb = f - b5 - 2; FP5 subnormal sig = n, lsb = -b5 - 1.
    struct { uint32_t code; uint32_t sig; int lsb; int mode; int sign; } t[] = {
        {0x20, 32, -5, 0, 0},  // 1.0
        {0x7F, 63, -3, 0, 0},  // 7.875
        {0xFF, 63, -3, 0, 1},  // -7.875
        {0x1F, 7, -3, 1, 0},   // f=7, n=3: 0.875
        {0x04, 4, -9, 1, 0},   // 2^-7
        {0x01, 1, -9, 1, 0},   // 2^-9
        {0x03, 3, -9, 1, 0},   // 1.5 * 2^-8
        {0x80, 0, -9, 1, 1},   // -0
    };
    for (auto &e : t) {
        mx_decode_out o = dec(MX_PE_MXSF, e.code);
        EXPECT_EQ(o.sig_o, e.sig) << e.code;
        if (e.sig) { EXPECT_EQ(o.lsb_o, e.lsb) << e.code; }
        EXPECT_EQ(o.mode_o, e.mode) << e.code;
        EXPECT_EQ(o.sign_o, e.sign) << e.code;
    }
    // b5 = 10 moves the FP5 mode down two binades
    EXPECT_EQ(dec(MX_PE_MXSF, 0x04, 10).lsb_o, -11);
    EXPECT_EQ(dec(MX_PE_MXSF, 0x01, 10).lsb_o, -11);
    // INT8 -128 is magnitude 128
    EXPECT_EQ(dec(MX_PE_INT8, 0x80).sig_o, 128u);
    EXPECT_EQ(dec(MX_PE_INT8, 0x80).lsb_o, -6);
}

TEST(UnitMul, ExhaustiveMxsfProductsAndModes)
{
    mx_format lf = lib_format(MX_PE_MXSF);
    long modes[3] = {0, 0, 0};
    for (uint32_t a = 0; a < 256; a++)
        for (uint32_t b = 0; b < 256; b++) {
            mx_decode_out oa = dec(MX_PE_MXSF, a), ob = dec(MX_PE_MXSF, b);
            mx_mul_in in = {oa.sign_o, oa.sig_o, oa.lsb_o, oa.zero_o, oa.nan_o, oa.inf_o, oa.mode_o,
                            ob.sign_o, ob.sig_o, ob.lsb_o, ob.zero_o, ob.nan_o, ob.inf_o, ob.mode_o};
            mx_mul_out o;
            mx_mul_comb(&in, &o);
            double want = mx_decode(&lf, a) * mx_decode(&lf, b);
            double got = std::ldexp((double)o.prod_o, o.exp_o) * (o.sign_o ? -1 : 1);
            ASSERT_EQ(got, want) << a << " " << b;
            ASSERT_LT(o.prod_o, 1u << 12);  // SPEC: a product is at most 12 bits
            if (o.prod_o) { ASSERT_GE(o.exp_o, -18); ASSERT_LE(o.exp_o, -6); }
            int ma = ((a >> 5) & 3) == 0, mb = ((b >> 5) & 3) == 0;
            ASSERT_EQ(o.mode_o, ma + mb);
            modes[o.mode_o]++;
        }
    EXPECT_EQ(modes[0], 192L * 192);  // 3 of 4 exponent fields are E2M5
    EXPECT_EQ(modes[2], 64L * 64);
}

TEST(UnitMul, InfTimesZeroIsNaN)
{
    mx_decode_out i = dec(MX_PE_BF16, 0x7F80), z = dec(MX_PE_BF16, 0x8000), one = dec(MX_PE_BF16, 0x3F80);
    mx_mul_in in = {i.sign_o, i.sig_o, i.lsb_o, i.zero_o, i.nan_o, i.inf_o, 0,
                    z.sign_o, z.sig_o, z.lsb_o, z.zero_o, z.nan_o, z.inf_o, 0};
    mx_mul_out o;
    mx_mul_comb(&in, &o);
    EXPECT_TRUE(o.nan_o);
    in.b_sign_i = one.sign_o; in.b_sig_i = one.sig_o; in.b_zero_i = 0;
    mx_mul_comb(&in, &o);
    EXPECT_TRUE(o.inf_o && !o.nan_o);
}

TEST(UnitAlign, HandComputedExactAndTruncated)
{
    mx_align_in in;
    std::memset(&in, 0, sizeof in);
    // lanes: +3*2^-6, -5*2^-10, 0, +1*2^-30 ; align_width 20 -> G = 4
    in.prod_i[0] = 3; in.exp_i[0] = -6;
    in.prod_i[1] = 5; in.exp_i[1] = -10; in.sign_i[1] = 1;
    in.prod_i[2] = 0; in.exp_i[2] = 100;  // a zero never sets e_max
    in.prod_i[3] = 1; in.exp_i[3] = -30;
    mx_align_out o;
    mx_align_comb(4, 20, &in, &o);
    EXPECT_EQ(o.emax_o, -6);
    EXPECT_EQ(o.aligned_o[0], 48);   // 3 * 2^4
    EXPECT_EQ(o.aligned_o[1], -5);   // 5 * 2^(4-4)
    EXPECT_EQ(o.aligned_o[2], 0);
    EXPECT_EQ(o.aligned_o[3], 0);    // 2^-30 lies below 2^-10: truncated
    // -7 * 2^-12 at G = 4: 7 * 2^-2 = 1.75 -> magnitude 1 -> -1
    in.prod_i[3] = 7; in.exp_i[3] = -12; in.sign_i[3] = 1;
    mx_align_comb(4, 20, &in, &o);
    EXPECT_EQ(o.aligned_o[3], -1);
    EXPECT_EQ(mx_addtree_comb(4, o.aligned_o), 48 - 5 + 0 - 1);
    // +Inf and -Inf lanes make NaN
    in.inf_i[0] = 1; in.inf_i[1] = 1;
    mx_align_comb(4, 20, &in, &o);
    EXPECT_TRUE(o.nan_o);
}

TEST(UnitAccum, Fp32AddMatchesHostIeee)
{
    mx_format fp32;
    mx_format_lookup("fp32", &fp32);
    uint64_t rng = 42;
    const uint32_t edge[] = {0, 0x80000000u, 1, 0x80000001u, 0x007FFFFFu, 0x00800000u, 0x7F7FFFFFu,
                             0xFF7FFFFFu, 0x3F800000u, 0xBF800000u, 0x33800000u, 0x7F800000u, 0xFF800000u};
    std::vector<std::pair<uint32_t, uint32_t>> cases;
    for (uint32_t a : edge) for (uint32_t b : edge) cases.push_back({a, b});
    for (int i = 0; i < 200000; i++) {
        uint32_t a = (uint32_t)mx_rng_next(&rng), b = (uint32_t)mx_rng_next(&rng);
        if (i & 1) b = (b & 0x807FFFFFu) | ((((a >> 23) & 0xFF) + (uint32_t)(mx_rng_next(&rng) % 60) - 30) & 0xFF) << 23;
        cases.push_back({a, b});
    }
    for (auto &c : cases) {
        uint32_t got = mx_accum_fp32_add(&fp32, c.first, c.second);
        float want = b2f(c.first) + b2f(c.second);
        if (std::isnan(want)) { ASSERT_EQ(got, MX_FP32_QNAN); continue; }
        ASSERT_EQ(got, f2b(want)) << std::hex << c.first << " + " << c.second;
    }
}

TEST(UnitAccum, GroupToFp32MatchesOneRounding)
{
    mx_format fp32;
    mx_format_lookup("fp32", &fp32);
    uint64_t rng = 7;
    for (int i = 0; i < 100000; i++) {
        int64_t sum = (int64_t)(mx_rng_next(&rng) >> (11 + mx_rng_next(&rng) % 40)) * ((i & 1) ? -1 : 1);
        int exp = (int)(mx_rng_next(&rng) % 400) - 250;
        uint32_t got = mx_accum_group_fp32(&fp32, sum, exp);
        // |sum| < 2^53: the double is exact, (float) rounds once (RNE)
        float want = (float)std::ldexp((double)sum, exp);
        if (sum == 0) want = 0.0f;
        ASSERT_EQ(got, f2b(want)) << sum << " 2^" << exp;
    }
}

TEST(UnitAccum, GroupToFp32Boundaries)
{
    mx_format fp32;
    mx_format_lookup("fp32", &fp32);
    struct { int64_t sum; int exp; } t[] = {
        {(1 << 24) - 1, -149 - 23 + 126}, {(1 << 24) - 1, -150}, {(1 << 24) + 1, 0}, {(1 << 25) - 1, 103},
        {(1 << 24) - 1, 104}, {1, 127}, {1, 128}, {3, -150}, {1, -149}, {1, -150}, {1, -151}, {3, -151},
        {-((1 << 24) - 1), -126 - 23}, {-(1 << 23), -149}, {(int64_t)1 << 40, -40 - 126}, {-7, -152},
    };
    for (auto &c : t) {
        float want = (float)std::ldexp((double)c.sum, c.exp);  // exact double, one RNE rounding
        ASSERT_EQ(mx_accum_group_fp32(&fp32, c.sum, c.exp), f2b(want)) << c.sum << " 2^" << c.exp;
    }
}

// Random codes: uniform, with NaN/Inf codes mostly replaced, and (for
// BF16) exponents kept within a realistic spread.
uint16_t rand_code(mx_pe_fmt f, uint64_t *rng, bool allow_special)
{
    for (;;) {
        uint32_t c = (uint32_t)mx_rng_next(rng);
        if (f == MX_PE_BF16) {
            c &= 0x807F;
            c |= (uint32_t)(127 - 20 + (int)(mx_rng_next(rng) % 40)) << 7;
            if (mx_rng_next(rng) % 64 == 0) c = (uint32_t)mx_rng_next(rng) & 0xFFFF;
        } else {
            c &= (1u << mx_pe_code_bits(f)) - 1;  // FP6/FP4: 6 and 4 bits
        }
        mx_decode_out o = dec(f, c);
        if ((o.nan_o || o.inf_o) && !allow_special) continue;
        return (uint16_t)c;
    }
}

void rand_operands(const mx_pe_config &cfg, int k, uint64_t *rng, std::vector<uint16_t> &a,
                   std::vector<uint16_t> &b, std::vector<uint8_t> &xa, std::vector<uint8_t> &xb,
                   bool specials)
{
    a.resize(k); b.resize(k);
    int nb = (k + cfg.block - 1) / cfg.block;
    xa.resize(nb); xb.resize(nb);
    for (int i = 0; i < k; i++) {
        a[i] = rand_code(cfg.fmt, rng, specials && mx_rng_next(rng) % 200 == 0);
        b[i] = rand_code(cfg.fmt, rng, specials && mx_rng_next(rng) % 200 == 0);
    }
    for (int i = 0; i < nb; i++) {
        xa[i] = (uint8_t)(127 - 12 + (int)(mx_rng_next(rng) % 24));
        xb[i] = (uint8_t)(127 - 12 + (int)(mx_rng_next(rng) % 24));
        uint64_t r = mx_rng_next(rng) % 100;
        if (r == 0) xa[i] = 1;
        if (r == 1) xb[i] = 254;
        if (r == 2 && specials) xa[i] = 0xFF;
        if (r == 3) { xa[i] = 254; xb[i] = 254; }  // group overflows to Inf
        if (r == 4) { xa[i] = 1; xb[i] = 2; }      // subnormal / zero groups
    }
}

class PeDot : public ::testing::TestWithParam<int> {};

TEST_P(PeDot, MatchesExactReference)
{
    mx_pe_config cfg;
    mx_pe_config_default((mx_pe_fmt)GetParam(), &cfg);
    uint64_t rng = 1000 + (uint64_t)GetParam();
    std::vector<uint16_t> a, b;
    std::vector<uint8_t> xa, xb;
    const int lane_opts[] = {1, 4, 8, 16, 32};
    const int width_opts[] = {16, 20, 28, 32, 44, 56};
    for (int t = 0; t < 600; t++) {
        cfg.lanes = lane_opts[t % 5];
        cfg.align_width = width_opts[(t / 5) % 6];
        cfg.fp5_bias = cfg.fmt == MX_PE_MXSF ? 5 + (int)(mx_rng_next(&rng) % 12) : 8;
        if (t % 3 == 0) cfg.fp5_bias = 8;
        int k = 1 + (int)(mx_rng_next(&rng) % 96);
        char err[128];
        ASSERT_EQ(mx_pe_config_check(&cfg, err, sizeof err), 0) << err;
        rand_operands(cfg, k, &rng, a, b, xa, xb, t % 4 == 0);
        uint32_t acc0 = (t % 7 == 0) ? f2b((float)(mx_rng_uniform(&rng) * 2 - 1)) : 0;
        const uint8_t *pa = cfg.fmt == MX_PE_BF16 ? nullptr : xa.data();
        const uint8_t *pb = cfg.fmt == MX_PE_BF16 ? nullptr : xb.data();
        uint32_t want = mx_ref_dot(&cfg, a.data(), pa, b.data(), pb, k, acc0);
        uint32_t got = mx_pe_dot(&cfg, a.data(), pa, b.data(), pb, k, acc0);
        ASSERT_EQ(got, want) << std::hex << "fmt " << mx_pe_fmt_name(cfg.fmt) << " L " << std::dec
                             << cfg.lanes << " W " << cfg.align_width << " b5 " << cfg.fp5_bias
                             << " k " << k << " t " << t;
    }
}

// Long dot products take mx_pe_dot's table-driven fast paths (k >= 128).
TEST_P(PeDot, LongDotsMatchExactReference)
{
    mx_pe_config cfg;
    mx_pe_config_default((mx_pe_fmt)GetParam(), &cfg);
    uint64_t rng = 2000 + (uint64_t)GetParam();
    std::vector<uint16_t> a, b;
    std::vector<uint8_t> xa, xb;
    for (int t = 0; t < 24; t++) {
        cfg.align_width = (t % 3 == 2) ? 20 : MX_PE_ALIGN_W_DEFAULT;
        cfg.fp5_bias = (t % 4 == 3) ? 12 : 8;
        const int k = 128 + 8 * (int)(mx_rng_next(&rng) % 64);
        rand_operands(cfg, k, &rng, a, b, xa, xb, t % 5 == 4);
        const uint8_t *pa = cfg.fmt == MX_PE_BF16 ? nullptr : xa.data();
        const uint8_t *pb = cfg.fmt == MX_PE_BF16 ? nullptr : xb.data();
        ASSERT_EQ(mx_pe_dot(&cfg, a.data(), pa, b.data(), pb, k, 0),
                  mx_ref_dot(&cfg, a.data(), pa, b.data(), pb, k, 0))
            << mx_pe_fmt_name(cfg.fmt) << " W " << cfg.align_width << " b5 " << cfg.fp5_bias << " k " << k;
    }
}

// The MXSF default width aligns exactly: the result equals the exact dot
// product rounded once per cycle group, computed here in double per group
// (exact: a group of 8 products spans < 40 bits).
TEST(PeDotMxsf, DefaultWidthIsExact)
{
    mx_pe_config cfg;
    mx_pe_config_default(MX_PE_MXSF, &cfg);
    mx_format lf = lib_format(MX_PE_MXSF);
    uint64_t rng = 99;
    for (int t = 0; t < 300; t++) {
        int k = 64;
        std::vector<uint16_t> a(k), b(k);
        uint8_t xa[2] = {127, 130}, xb[2] = {120, 127};
        for (int i = 0; i < k; i++) { a[i] = (uint16_t)(mx_rng_next(&rng) & 0xFF); b[i] = (uint16_t)(mx_rng_next(&rng) & 0xFF); }
        float acc = 0;
        for (int g = 0; g < k; g += 8) {
            double s = 0;
            for (int i = g; i < g + 8; i++) s += mx_decode(&lf, a[i]) * mx_decode(&lf, b[i]);
            s = std::ldexp(s, xa[g / 32] + xb[g / 32] - 254);
            acc = acc + (float)s;  // two IEEE RNE roundings, as specified
        }
        ASSERT_EQ(mx_pe_dot(&cfg, a.data(), xa, b.data(), xb, k, 0), f2b(acc)) << t;
    }
}

INSTANTIATE_TEST_SUITE_P(AllFormats, PeDot, ::testing::Range(0, (int)MX_PE_NFMT),
                         [](const ::testing::TestParamInfo<int> &i) { return std::string(mx_pe_fmt_name((mx_pe_fmt)i.param)); });

// The cycle model with random valid/ready back-pressure produces, for every
// output, exactly mx_pe_dot's bits.
TEST_P(PeDot, CycleModelMatchesDotUnderBackPressure)
{
    mx_pe_config cfg;
    mx_pe_config_default((mx_pe_fmt)GetParam(), &cfg);
    cfg.lanes = 4;
    cfg.block = 8;
    uint64_t rng = 555 + (uint64_t)GetParam();
    const int n_out = 60;
    std::vector<std::vector<uint16_t>> A(n_out), B(n_out);
    std::vector<std::vector<uint8_t>> XA(n_out), XB(n_out);
    std::vector<int> K(n_out);
    std::vector<uint32_t> init(n_out), want(n_out);
    for (int o = 0; o < n_out; o++) {
        K[o] = 4 * (1 + (int)(mx_rng_next(&rng) % 6));
        rand_operands(cfg, K[o], &rng, A[o], B[o], XA[o], XB[o], o % 5 == 0);
        init[o] = o % 3 ? 0 : f2b((float)o);
        const uint8_t *pa = cfg.fmt == MX_PE_BF16 ? nullptr : XA[o].data();
        const uint8_t *pb = cfg.fmt == MX_PE_BF16 ? nullptr : XB[o].data();
        want[o] = mx_pe_dot(&cfg, A[o].data(), pa, B[o].data(), pb, K[o], init[o]);
    }
    std::vector<pe_job> jobs;
    for (int o = 0; o < n_out; o++)
        jobs.push_back({A[o].data(), B[o].data(), XA[o].data(), XB[o].data(), K[o], init[o]});
    const std::vector<uint32_t> got = pe_cycle_run(cfg, jobs, &rng);
    ASSERT_EQ((int)got.size(), n_out);
    for (int o = 0; o < n_out; o++) ASSERT_EQ(got[(size_t)o], want[o]) << "output " << o;
}

TEST(UnitRequant, MatchesLibraryBlockQuantizer)
{
    uint64_t rng = 3;
    struct { mx_pe_fmt f; int b5; } cases[] = {{MX_PE_MXSF, 8}, {MX_PE_MXSF, 5}, {MX_PE_MXSF, 12}, {MX_PE_MXSF, 16},
                                               {MX_PE_E4M3, 8}, {MX_PE_E5M2, 8}, {MX_PE_E2M5, 8}, {MX_PE_INT8, 8}};
    for (auto cs : cases)
        for (int t = 0; t < 300; t++) {
            const mx_pe_fmt f = cs.f;
            const int n = 1 + (int)(mx_rng_next(&rng) % 64);
            mx_requant_in in;
            mx_requant_out out;
            in.fmt_i = f;
            in.fp5_bias_i = cs.b5;
            std::vector<float> x(n);
            int e0 = (int)(mx_rng_next(&rng) % 250) - 140;
            for (int i = 0; i < n; i++) {
                x[i] = (float)std::ldexp(mx_rng_uniform(&rng) * 2 - 1, e0 - (int)(mx_rng_next(&rng) % 16));
                if (t % 50 == 1) x[i] = 0;
                if (t % 50 == 2 && i == n / 2) x[i] = NAN;
                in.vals_i[i] = f2b(x[i]);
            }
            mx_requant_comb(n, &in, &out);
            mx_block_spec s;
            std::memset(&s, 0, sizeof s);
            s.elem = lib_format(f);
            if (f == MX_PE_MXSF) { ASSERT_EQ(mx_format_mxsf(cs.b5, &s.elem), 0); }
            s.block = n;
            s.scale_rule = MX_SCALE_FLOOR;
            s.enc.round = MX_ROUND_EVEN;
            mx_shape sh;
            sh.ndim = 1;
            sh.dim[0] = (size_t)n;
            std::vector<uint16_t> codes(n);
            uint8_t scale;
            char err[64];
            ASSERT_EQ(mx_block_quantize(&s, &sh, x.data(), codes.data(), &scale, nullptr, err, sizeof err), 0);
            ASSERT_EQ(out.scale_o, scale) << lib_name(f) << " b5 " << cs.b5 << " t " << t;
            for (int i = 0; i < n; i++) ASSERT_EQ(out.codes_o[i], codes[i]) << lib_name(f) << " b5 " << cs.b5 << " t " << t << " i " << i;
        }
}

}  // namespace
