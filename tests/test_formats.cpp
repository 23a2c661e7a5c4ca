// Bit-exactness of the format library against the tests' own reference model
// (tests/ref_formats.h) and against values stated in SPEC §2.
#include <gtest/gtest.h>

#include "test_util.h"

#include <cfloat>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ref_formats.h"

extern "C" {
#include "formats/mx_format.h"
#include "formats/mx_rng.h"
}

namespace {


uint32_t enc(const mx_format &f, float x, mx_round r = MX_ROUND_EVEN,
             mx_overflow o = MX_OVERFLOW_SATURATE, unsigned *flags = nullptr)
{
    mx_encode_opts opts = {r, o, nullptr};
    return mx_encode(&f, x, &opts, flags);
}

bool same_value(double a, double b)
{
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    return a == b && std::signbit(a) == std::signbit(b);
}

// Every format of 16 bits or fewer that the tests sweep exhaustively.
const char *kSmallFormats[] = {"bf16", "fp16", "fp8_e5m2", "fp8_e4m3", "fp8_e3m4", "fp8_e2m5",
                               "fp6_e3m2", "fp6_e2m3", "fp4_e2m1", "int8", "e8m0", "mxsf",
                               "e0m7", "e1m6", "e3m3", "e5m10", "e7m8", "e2m1", "e4m0", "e6m9"};

float f32(double v) { return (float)v; }

}  // namespace

TEST(Formats, MaxNormalsMatchSpecTable)
{
    struct { const char *name; double max; } rows[] = {
        {"fp8_e5m2", 57344}, {"fp8_e4m3", 448}, {"fp8_e3m4", 30}, {"fp8_e2m5", 7.875},
        {"fp6_e3m2", 28},    {"fp6_e2m3", 7.5}, {"fp4_e2m1", 6},  {"int8", 127.0 / 64},
        {"e8m0", std::ldexp(1.0, 127)}, {"mxsf", 7.875}, {"bf16", 3.3895313892515355e38},
        {"fp16", 65504}, {"fp32", FLT_MAX}};
    for (auto &r : rows) EXPECT_EQ(lookup_format(r.name).max_normal, r.max) << r.name;
}

TEST(Formats, EmaxElemMatchesSpec)
{
    // SPEC §2.1: E5M2 15, E4M3 8, E3M4 4, E3M2 4, E2M3 2, E2M1 2, E2M5 2, INT8 0, MXSF 2.
    struct { const char *name; int emax; } rows[] = {
        {"fp8_e5m2", 15}, {"fp8_e4m3", 8}, {"fp8_e3m4", 4}, {"fp6_e3m2", 4}, {"fp6_e2m3", 2},
        {"fp4_e2m1", 2},  {"fp8_e2m5", 2}, {"int8", 0},      {"mxsf", 2}};
    for (auto &r : rows) EXPECT_EQ(lookup_format(r.name).emax, r.emax) << r.name;
}

TEST(Formats, UnknownNamesAreRejected)
{
    mx_format f;
    for (const char *bad : {"", "fp7", "e9m1", "e8m7", "e8m8", "e3", "m3", "e-1m3", "e0m0", "E4M3", "e4m3x"})
        EXPECT_EQ(mx_format_lookup(bad, &f), -1) << bad;
    EXPECT_EQ(mx_format_mxsf(4, &f), -1);
    EXPECT_EQ(mx_format_mxsf(17, &f), -1);
}

TEST(Formats, DecodeEveryCodeMatchesLayoutDefinition)
{
    for (const char *name : kSmallFormats) {
        mx_format f = lookup_format(name);
        RefLayout L = ref_layout(name);
        for (uint32_t c = 0; c < mx_code_count(&f); c++) {
            double want = ref_decode(L, c);
            ASSERT_TRUE(same_value(mx_decode(&f, c), want)) << name << " code " << c;
            ASSERT_TRUE(same_value((double)mx_decode_f32(&f, c), want)) << name << " code " << c;
        }
    }
}

TEST(Formats, SpecialCodesPerSpec)
{
    mx_format e5m2 = lookup_format("fp8_e5m2"), e4m3 = lookup_format("fp8_e4m3"), e3m4 = lookup_format("fp8_e3m4");
    EXPECT_TRUE(mx_is_inf(&e5m2, 0x7C));
    EXPECT_TRUE(mx_is_inf(&e5m2, 0xFC));
    for (uint32_t c : {0x7Du, 0x7Eu, 0x7Fu, 0xFDu, 0xFEu, 0xFFu}) EXPECT_TRUE(mx_is_nan(&e5m2, c));
    int nans = 0, infs = 0;
    for (uint32_t c = 0; c < 256; c++) { nans += mx_is_nan(&e4m3, c); infs += mx_is_inf(&e4m3, c); }
    EXPECT_EQ(nans, 2);  // S.1111.111 only
    EXPECT_EQ(infs, 0);
    EXPECT_TRUE(mx_is_nan(&e4m3, 0x7F) && mx_is_nan(&e4m3, 0xFF));
    EXPECT_TRUE(mx_is_nan(&e3m4, 0x7F) && mx_is_nan(&e3m4, 0xFF) && !mx_is_nan(&e3m4, 0x7E));
    mx_format e8m0 = lookup_format("e8m0");
    EXPECT_TRUE(mx_is_nan(&e8m0, 0xFF));
    EXPECT_EQ(mx_decode(&e8m0, 0), std::ldexp(1.0, -127));
    EXPECT_EQ(mx_decode(&e8m0, 127), 1.0);
    for (const char *name : {"fp8_e2m5", "fp6_e3m2", "fp6_e2m3", "fp4_e2m1", "int8", "mxsf"}) {
        mx_format f = lookup_format(name);
        for (uint32_t c = 0; c < mx_code_count(&f); c++)
            ASSERT_TRUE(std::isfinite(mx_decode(&f, c))) << name << " " << c;
    }
}

TEST(Formats, EveryCodeRoundTrips)
{
    for (const char *name : kSmallFormats) {
        mx_format f = lookup_format(name);
        RefLayout L = ref_layout(name);
        for (uint32_t c = 0; c < mx_code_count(&f); c++) {
            double v = ref_decode(L, c);
            if (std::isnan(v)) continue;
            if (L.kind == RefLayout::Int && c == 0x80) continue;  // -128 is never produced
            for (mx_round r : {MX_ROUND_EVEN, MX_ROUND_NEAREST, MX_ROUND_FLOOR})
                for (mx_overflow o : {MX_OVERFLOW_SATURATE, MX_OVERFLOW_INF_NAN}) {
                    unsigned flags = 0;
                    uint32_t got = enc(f, f32(v), r, o, &flags);
                    ASSERT_EQ(got, c) << name << " value " << v;
                    ASSERT_EQ(flags & MX_FLAG_INEXACT, 0u) << name << " value " << v;
                }
        }
    }
}

// Midpoints between adjacent values, and the floats either side of them.
TEST(Formats, MidpointsRoundPerMode)
{
    for (const char *name : kSmallFormats) {
        mx_format f = lookup_format(name);
        RefLayout L = ref_layout(name);
        bool no_mant = (L.kind == RefLayout::E8M0) || (L.kind == RefLayout::Float && L.m == 0);
        auto vals = ref_positive_values(L);
        for (size_t i = 0; i + 1 < vals.size(); i++) {
            double mid = (vals[i].v + vals[i + 1].v) / 2;
            float fm = f32(mid);
            ASSERT_EQ((double)fm, mid) << name;  // midpoints of <=16-bit formats are FP32 values
            for (float x : {fm, std::nextafter(fm, 0.0f), std::nextafter(fm, INFINITY)})
                for (mx_round r : {MX_ROUND_EVEN, MX_ROUND_NEAREST, MX_ROUND_FLOOR}) {
                    uint32_t want = vals[ref_round_index(vals, x, r, no_mant)].code;
                    ASSERT_EQ(enc(f, x, r), want)
                        << name << " x=" << x << " between " << vals[i].v << " and " << vals[i + 1].v
                        << " mode " << mx_round_name(r);
                    if (f.is_signed && (want != 0 || L.kind != RefLayout::Int)) {
                        uint32_t neg = L.kind == RefLayout::Int
                                           ? ((1u << L.bits) - want) & ((1u << L.bits) - 1)
                                           : want | (1u << (L.bits - 1));
                        ASSERT_EQ(enc(f, -x, r), neg) << name << " x=" << -x;
                    }
                }
        }
    }
}

TEST(Formats, RandomInputsMatchExhaustiveSearch)
{
    uint64_t rng = 12345;
    for (const char *name : kSmallFormats) {
        mx_format f = lookup_format(name);
        RefLayout L = ref_layout(name);
        bool no_mant = (L.kind == RefLayout::E8M0) || (L.kind == RefLayout::Float && L.m == 0);
        auto vals = ref_positive_values(L);
        double vmax = vals.back().v;
        for (int i = 0; i < 20000; i++) {
            // log-uniform magnitudes from well below the smallest value to the largest
            double lo = std::log2(vals.size() > 1 ? vals[1].v : 1.0) - 4, hi = std::log2(vmax);
            float x = f32(std::exp2(lo + (hi - lo) * mx_rng_uniform(&rng)));
            if (!(x <= vmax) || x == 0 || x < vals[0].v) continue;
            for (mx_round r : {MX_ROUND_EVEN, MX_ROUND_NEAREST, MX_ROUND_FLOOR})
                ASSERT_EQ(enc(f, x, r), vals[ref_round_index(vals, x, r, no_mant)].code)
                    << name << " x=" << x << " mode " << mx_round_name(r);
        }
    }
}

TEST(Formats, OverflowSaturatesOrGivesInfNaN)
{
    struct { const char *name; uint32_t inf_nan_code; } rows[] = {
        {"fp8_e5m2", 0x7C}, {"fp8_e4m3", 0x7F}, {"fp8_e3m4", 0x7F}, {"fp8_e2m5", 0x7F},
        {"fp6_e3m2", 0x1F}, {"fp4_e2m1", 0x7}, {"mxsf", 0x7F}, {"int8", 0x7F}, {"bf16", 0x7F80},
        {"fp16", 0x7C00}, {"e8m0", 0xFF}};
    for (auto &r : rows) {
        mx_format f = lookup_format(r.name);
        float big = f32(std::min(f.max_normal * 4, (double)FLT_MAX));
        unsigned flags = 0;
        EXPECT_EQ(enc(f, big, MX_ROUND_EVEN, MX_OVERFLOW_SATURATE, &flags), f.max_code) << r.name;
        EXPECT_TRUE(flags & MX_FLAG_OVERFLOW) << r.name;
        EXPECT_EQ(enc(f, big, MX_ROUND_EVEN, MX_OVERFLOW_INF_NAN), r.inf_nan_code) << r.name;
        EXPECT_EQ(enc(f, big, MX_ROUND_FLOOR, MX_OVERFLOW_INF_NAN), f.max_code) << r.name;  // RTZ never overflows
    }
    // IEEE rule at the top: e4m3 464 (tie between 448 = 1.110b and 480 = 1.111b) -> 448;
    // e5m2 61440 (tie between 57344 = 1.11b and 65536) -> overflow.
    mx_format e4m3 = lookup_format("fp8_e4m3"), e5m2 = lookup_format("fp8_e5m2");
    EXPECT_EQ(enc(e4m3, 464, MX_ROUND_EVEN, MX_OVERFLOW_INF_NAN), 0x7Eu);
    EXPECT_EQ(enc(e4m3, 464.01f, MX_ROUND_EVEN, MX_OVERFLOW_INF_NAN), 0x7Fu);
    EXPECT_EQ(enc(e4m3, 464, MX_ROUND_NEAREST, MX_OVERFLOW_INF_NAN), 0x7Fu);
    EXPECT_EQ(enc(e5m2, 61440, MX_ROUND_EVEN, MX_OVERFLOW_INF_NAN), 0x7Cu);
    EXPECT_EQ(enc(e5m2, 61439, MX_ROUND_EVEN, MX_OVERFLOW_INF_NAN), 0x7Bu);
    EXPECT_EQ(enc(e5m2, -61440, MX_ROUND_EVEN, MX_OVERFLOW_SATURATE), 0xFBu);
    // int8: -128 is never produced
    mx_format i8 = lookup_format("int8");
    EXPECT_EQ(enc(i8, -2.0f), 0x81u);
    EXPECT_EQ(enc(i8, -1.0f), 0xC0u);
}

TEST(Formats, ZerosNaNsInfsAndUnderflow)
{
    for (const char *name : kSmallFormats) {
        mx_format f = lookup_format(name);
        RefLayout L = ref_layout(name);
        if (L.kind == RefLayout::E8M0) continue;
        EXPECT_EQ(enc(f, 0.0f), 0u) << name;
        uint32_t negzero = L.kind == RefLayout::Int ? 0u : 1u << (L.bits - 1);
        EXPECT_EQ(enc(f, -0.0f), negzero) << name;
        // below half the smallest subnormal: zero, with underflow
        unsigned flags = 0;
        EXPECT_EQ(enc(f, f32(f.min_subnormal * 0.25), MX_ROUND_EVEN, MX_OVERFLOW_SATURATE, &flags), 0u) << name;
        EXPECT_TRUE((flags & MX_FLAG_UNDERFLOW) && (flags & MX_FLAG_INEXACT)) << name;
        // exactly half: ties to even (zero), away (smallest)
        EXPECT_EQ(enc(f, f32(f.min_subnormal * 0.5), MX_ROUND_EVEN), 0u) << name;
        EXPECT_EQ(enc(f, f32(f.min_subnormal * 0.5), MX_ROUND_NEAREST), 1u) << name;
    }
    mx_format e5m2 = lookup_format("fp8_e5m2"), e4m3 = lookup_format("fp8_e4m3"), e2m5 = lookup_format("fp8_e2m5");
    EXPECT_TRUE(mx_is_nan(&e5m2, enc(e5m2, NAN)));
    EXPECT_EQ(enc(e5m2, INFINITY), 0x7Cu);
    EXPECT_EQ(enc(e5m2, -INFINITY, MX_ROUND_EVEN, MX_OVERFLOW_SATURATE), 0xFCu);  // Inf stays Inf
    EXPECT_EQ(enc(e4m3, NAN), 0x7Fu);
    EXPECT_EQ(enc(e4m3, -NAN), 0xFFu);
    EXPECT_EQ(enc(e4m3, INFINITY, MX_ROUND_EVEN, MX_OVERFLOW_SATURATE), 0x7Eu);
    EXPECT_EQ(enc(e4m3, -INFINITY, MX_ROUND_EVEN, MX_OVERFLOW_INF_NAN), 0xFFu);
    unsigned flags = 0;
    EXPECT_EQ(enc(e2m5, NAN, MX_ROUND_EVEN, MX_OVERFLOW_SATURATE, &flags), 0u);  // policy: +0, invalid
    EXPECT_TRUE(flags & MX_FLAG_INVALID);
    EXPECT_EQ(enc(e2m5, -INFINITY), 0xFFu);
    // FP32 subnormal inputs: bf16 keeps the FP32 exponent range, so 2^-133 is its
    // smallest subnormal and 3*2^-135 rounds to it (nearer than 2*2^-133... exact search)
    mx_format bf16 = lookup_format("bf16");
    EXPECT_EQ(enc(bf16, std::ldexp(1.0f, -133)), 0x0001u);
    EXPECT_EQ(enc(bf16, std::ldexp(1.0f, -134)), 0x0000u);  // tie -> even (zero)
    EXPECT_EQ(enc(bf16, std::ldexp(3.0f, -135)), 0x0001u);  // 0.75 ulp -> 1 ulp
    EXPECT_EQ(enc(bf16, std::ldexp(1.0f, -149)), 0x0000u);
    mx_format fp32 = lookup_format("fp32");
    for (float x : {1.0f, -3.5f, std::ldexp(1.0f, -149), FLT_MAX, 1e-40f}) {
        uint32_t b;
        std::memcpy(&b, &x, 4);
        EXPECT_EQ(enc(fp32, x), b);
    }
}

TEST(Formats, StochasticRoundingPicksNeighboursInProportion)
{
    mx_format f = lookup_format("fp8_e4m3");
    uint64_t rng = 7;
    mx_encode_opts o = {MX_ROUND_STOCHASTIC, MX_OVERFLOW_SATURATE, &rng};
    // 1.0 + 0.25 ulp: ulp at 1.0 is 1/8; neighbours 1.0 (0x38) and 1.125 (0x39)
    const int n = 40000;
    int up = 0;
    for (int i = 0; i < n; i++) {
        uint32_t c = mx_encode(&f, 1.03125f, &o, nullptr);
        ASSERT_TRUE(c == 0x38 || c == 0x39);
        up += c == 0x39;
    }
    EXPECT_NEAR((double)up / n, 0.25, 0.01);
    // exact values never move
    for (int i = 0; i < 100; i++) EXPECT_EQ(mx_encode(&f, 1.125f, &o, nullptr), 0x39u);
    // same seed, same sequence
    uint64_t a = 99, b = 99;
    mx_encode_opts oa = {MX_ROUND_STOCHASTIC, MX_OVERFLOW_SATURATE, &a}, ob = oa;
    ob.rng = &b;
    for (int i = 0; i < 100; i++) EXPECT_EQ(mx_encode(&f, 1.03f, &oa, nullptr), mx_encode(&f, 1.03f, &ob, nullptr));
}

// ---- MXSF (SPEC §2.2) -------------------------------------------------------

TEST(Mxsf, ModeBoundaryAndTie)
{
    mx_format f = lookup_format("mxsf");
    EXPECT_EQ(enc(f, 0.875f), 0x1Fu);  // FP5 f=7, n=3: 2^-1 * 1.75
    EXPECT_EQ(enc(f, 1.0f), 0x20u);    // E2M5 E=1, F=0
    EXPECT_EQ(enc(f, 0.9375f, MX_ROUND_EVEN), 0x20u);     // tie: even code
    EXPECT_EQ(enc(f, 0.9375f, MX_ROUND_NEAREST), 0x20u);  // tie: away
    EXPECT_EQ(enc(f, 0.9375f, MX_ROUND_FLOOR), 0x1Fu);
    EXPECT_EQ(enc(f, 0.93f), 0x1Fu);
    EXPECT_EQ(enc(f, 0.94f), 0x20u);
    EXPECT_EQ(enc(f, 7.875f), 0x7Fu);
    EXPECT_EQ(enc(f, 100.0f), 0x7Fu);
    EXPECT_EQ(enc(f, -100.0f), 0xFFu);
    EXPECT_EQ(enc(f, 1.03125f), 0x21u);  // 1 + 1/32
}

TEST(Mxsf, SubnormalsAndMonotonicCodes)
{
    mx_format f = lookup_format("mxsf");
    EXPECT_EQ(mx_decode(&f, 0x01), std::ldexp(1.0, -9));
    EXPECT_EQ(mx_decode(&f, 0x02), std::ldexp(1.0, -8));
    EXPECT_EQ(mx_decode(&f, 0x03), 1.5 * std::ldexp(1.0, -8));
    EXPECT_EQ(mx_decode(&f, 0x04), std::ldexp(1.0, -7));  // smallest FP5 normal
    EXPECT_EQ(mx_decode(&f, 0x80), 0.0);
    EXPECT_TRUE(std::signbit(mx_decode(&f, 0x80)));
    for (uint32_t c = 1; c < 0x80; c++) ASSERT_LT(mx_decode(&f, c - 1), mx_decode(&f, c)) << c;
    // SPEC's datapath view: sig * 2^lsb with sig <= 63, lsb in [-9, -3]
    for (uint32_t c = 1; c < 0x80; c++) {
        double v = mx_decode(&f, c);
        bool found = false;
        for (int lsb = -9; lsb <= -3 && !found; lsb++) {
            double sig = std::ldexp(v, -lsb);
            found = sig == std::floor(sig) && sig <= 63;
        }
        EXPECT_TRUE(found) << c;
    }
}

TEST(Mxsf, OtherFp5Biases)
{
    for (int b5 : {5, 6, 7, 9, 10, 12}) {
        mx_format f;
        ASSERT_EQ(mx_format_mxsf(b5, &f), 0);
        RefLayout L = ref_layout("mxsf", b5);
        EXPECT_EQ(f.max_normal, 7.875);
        EXPECT_EQ(f.min_subnormal, std::ldexp(1.0, -b5 - 1));
        for (uint32_t c = 0; c < 256; c++) ASSERT_TRUE(same_value(mx_decode(&f, c), ref_decode(L, c))) << b5;
        auto vals = ref_positive_values(L);
        for (size_t i = 0; i + 1 < vals.size(); i++) {
            double mid = (vals[i].v + vals[i + 1].v) / 2;
            for (float x : {f32(mid), std::nextafter(f32(mid), 0.0f), std::nextafter(f32(mid), INFINITY),
                            f32(vals[i].v)})
                for (mx_round r : {MX_ROUND_EVEN, MX_ROUND_NEAREST, MX_ROUND_FLOOR})
                    ASSERT_EQ(enc(f, x, r), vals[ref_round_index(vals, x, r)].code)
                        << "b5=" << b5 << " x=" << x << " " << mx_round_name(r);
        }
    }
    // b5 = 10: gap between 7 * 2^-5 = 0.21875 and 1.0; midpoint 0.609375
    mx_format f;
    mx_format_mxsf(10, &f);
    EXPECT_EQ(enc(f, 0.6f), 0x1Fu);
    EXPECT_EQ(enc(f, 0.61f), 0x20u);
}

TEST(Formats, ExmyNamesAndPacking)
{
    mx_format f = lookup_format("e0m7");  // sign-magnitude fixed point m * 2^-6
    EXPECT_EQ(f.bits, 8);
    EXPECT_EQ(f.max_normal, 127.0 / 64);
    EXPECT_EQ(enc(f, -1.0f), 0xC0u);
    mx_format g = lookup_format("e3m3");
    EXPECT_EQ(g.bits, 7);
    EXPECT_EQ(g.bias, 3);
    EXPECT_EQ(g.max_normal, 1.875 * 16);  // finite only: top exponent is a number
}
