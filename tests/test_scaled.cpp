// Tests of FP8 per-tensor / per-channel scaled quantization (SPEC §2.5,
// models/formats/mx_scaled.h).  Expected scales are max/amax computed here
// with explicit index arithmetic; expected codes are derived by hand from the
// FP8 layouts, or (for bulk checks) from the scalar encoder applied to the
// test's own scale.
#include <gtest/gtest.h>

#include "test_util.h"

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include "formats/mx_format.h"
#include "formats/mx_scaled.h"
}

namespace {



struct Out {
    int rc;
    std::string err;
    std::vector<uint16_t> codes;
    std::vector<float> scales, deq;
};

Out ScaledRun(const char *fmt, int per_tensor, int axis, const mx_shape &sh, const std::vector<float> &x,
        size_t nscales, const mx_encode_opts *enc = nullptr)
{
    mx_format f = lookup_format(fmt);
    Out o;
    o.codes.assign(x.size(), 0xBEEF);
    o.scales.assign(nscales, -7.0f);
    o.deq.assign(x.size(), -7.0f);
    char err[256] = "";
    o.rc = mx_scaled_quantize(&f, enc, per_tensor, axis, &sh, x.data(), o.codes.data(),
                              o.scales.data(), o.deq.data(), err, sizeof err);
    o.err = err;
    return o;
}

}  // namespace

// E4M3 (bias 7, max 448 = 0x7E).  x = {1, -2, 0.5, 4, 0, 3}: amax 4, scale 112.
//   1*112 = 112 = 1.75*2^6  -> E=13, M=6 -> 0x6E
//  -2*112 = -224 = 1.75*2^7 -> E=14, M=6 -> 0xF6
//   0.5*112 = 56 = 1.75*2^5 -> E=12      -> 0x66
//   4*112 = 448 = 1.75*2^8  -> E=15      -> 0x7E
//   3*112 = 336 = 1.3125*2^8: M = 2.5, tie to even 2 -> 320 -> 0x7A,
//   dequantized 320/112.
TEST(Scaled, PerTensorE4m3HandDerived)
{
    std::vector<float> x = {1, -2, 0.5f, 4, 0, 3};
    Out o = ScaledRun("fp8_e4m3", 1, 0, make_shape({2, 3}), x, 1);
    ASSERT_EQ(o.rc, 0) << o.err;
    EXPECT_EQ(o.scales[0], 112.0f);
    EXPECT_EQ(o.codes, std::vector<uint16_t>({0x6E, 0xF6, 0x66, 0x7E, 0x00, 0x7A}));
    EXPECT_EQ(o.deq, std::vector<float>({1, -2, 0.5f, 4, 0, 320.0f / 112.0f}));
}

// Intel E3M4 (bias 3, max 30 = 0x7E, NaN 0x7F).  x = {1, 2.5, -5}: scale 6.
//   6 = 1.5*2^2 -> E=5, M=8 -> 0x58;  15 = 1.875*2^3 -> E=6, M=14 -> 0x6E;
//  -30 = -1.875*2^4 -> E=7, M=14 -> 0xFE.
TEST(Scaled, PerTensorE3m4IntelMax30)
{
    mx_format f = lookup_format("fp8_e3m4");
    EXPECT_EQ(f.max_normal, 30.0);
    Out o = ScaledRun("fp8_e3m4", 1, 0, make_shape({3}), {1, 2.5f, -5}, 1);
    ASSERT_EQ(o.rc, 0) << o.err;
    EXPECT_EQ(o.scales[0], 6.0f);
    EXPECT_EQ(o.codes, std::vector<uint16_t>({0x58, 0x6E, 0xFE}));
    EXPECT_EQ(o.deq, std::vector<float>({1, 2.5f, -5}));
}

// E5M2 (bias 15, max 57344 = 0x7B).  x = {1, 3}: scale = 57344/3 in FP32.
// 1*scale = 19114.67: quantum 2^14/4 = 4096 there, 4.67 quanta -> 5 ->
// 20480 = 1.25*2^14 -> E=29, M=1 -> 0x75.  3*scale rounds to the max 0x7B.
TEST(Scaled, PerTensorE5m2)
{
    Out o = ScaledRun("fp8_e5m2", 1, 0, make_shape({2}), {1, 3}, 1);
    ASSERT_EQ(o.rc, 0) << o.err;
    const float s = 57344.0f / 3.0f;
    EXPECT_EQ(o.scales[0], s);
    EXPECT_EQ(o.codes, std::vector<uint16_t>({0x75, 0x7B}));
    EXPECT_EQ(o.deq[0], 20480.0f / s);
    EXPECT_EQ(o.deq[1], 57344.0f / s);
}

// Any table format: fp6_e2m3 (max 7.5), int8 (max 127/64).
TEST(Scaled, OtherFormats)
{
    Out a = ScaledRun("fp6_e2m3", 1, 0, make_shape({2}), {0.5f, -2.0f}, 1);
    ASSERT_EQ(a.rc, 0) << a.err;
    EXPECT_EQ(a.scales[0], 3.75f);
    EXPECT_EQ(a.deq[1], -2.0f);  // -7.5 is the max, exact
    Out b = ScaledRun("int8", 1, 0, make_shape({2}), {1.0f, -0.5f}, 1);
    ASSERT_EQ(b.rc, 0) << b.err;
    EXPECT_EQ(b.scales[0], 127.0f / 64.0f);
    EXPECT_EQ(b.codes[0], 127);  // 127/64
}

// Per channel on a (2, 3, 4) tensor along every axis: scale of channel c is
// max / amax over every element whose index on `axis` is c.
TEST(Scaled, PerChannelEveryAxisOf3dTensor)
{
    const size_t D0 = 2, D1 = 3, D2 = 4;
    std::vector<float> x(D0 * D1 * D2);
    for (size_t a = 0; a < D0; a++)
        for (size_t b = 0; b < D1; b++)
            for (size_t c = 0; c < D2; c++) {
                size_t i = (a * D1 + b) * D2 + c;
                x[i] = (float)((i % 2 ? -1.0 : 1.0) * (0.3 + (double)((i * 7) % 11)) *
                               std::ldexp(1.0, (int)(a + 2 * b) - 3));
            }
    mx_format f = lookup_format("fp8_e4m3");
    mx_encode_opts enc = {MX_ROUND_EVEN, MX_OVERFLOW_SATURATE, nullptr};
    for (int axis : {0, 1, 2, -1, -2, -3}) {
        int ax = axis < 0 ? axis + 3 : axis;
        size_t dims[3] = {D0, D1, D2};
        std::vector<float> amax(dims[ax], 0.0f);
        for (size_t a = 0; a < D0; a++)
            for (size_t b = 0; b < D1; b++)
                for (size_t c = 0; c < D2; c++) {
                    size_t idx[3] = {a, b, c};
                    float v = std::fabs(x[(a * D1 + b) * D2 + c]);
                    amax[idx[ax]] = std::max(amax[idx[ax]], v);
                }
        Out o = ScaledRun("fp8_e4m3", 0, axis, make_shape({D0, D1, D2}), x, dims[ax], &enc);
        ASSERT_EQ(o.rc, 0) << o.err;
        for (size_t ch = 0; ch < dims[ax]; ch++) EXPECT_EQ(o.scales[ch], 448.0f / amax[ch]) << axis << " " << ch;
        for (size_t a = 0; a < D0; a++)
            for (size_t b = 0; b < D1; b++)
                for (size_t c = 0; c < D2; c++) {
                    size_t idx[3] = {a, b, c}, i = (a * D1 + b) * D2 + c;
                    float s = 448.0f / amax[idx[ax]];
                    uint32_t want = mx_encode(&f, x[i] * s, &enc, nullptr);
                    ASSERT_EQ(o.codes[i], want) << "axis " << axis << " i " << i;
                    ASSERT_EQ(o.deq[i], (float)mx_decode(&f, want) / s);
                    // the channel maximum lands on the format maximum
                    if (std::fabs(x[i]) == amax[idx[ax]]) {
                        ASSERT_EQ(o.codes[i] & 0x7F, 0x7E);
                    }
                    // E4M3 relative error <= 2^-4 for these (normal) values
                    ASSERT_LE(std::fabs(o.deq[i] - x[i]), std::ldexp(std::fabs(x[i]), -4) * 1.0001);
                }
    }
}

TEST(Scaled, AllZeroChannelGetsScaleOne)
{
    // (2, 3): channel 1 along axis 1 is all zero
    std::vector<float> x = {1, 0, -2, 4, -0.0f, 8};
    Out o = ScaledRun("fp8_e4m3", 0, 1, make_shape({2, 3}), x, 3);
    ASSERT_EQ(o.rc, 0) << o.err;
    EXPECT_EQ(o.scales, std::vector<float>({112.0f, 1.0f, 56.0f}));
    EXPECT_EQ(o.codes[1], 0x00);
    EXPECT_EQ(o.codes[4], 0x80);  // -0 keeps its sign
    EXPECT_EQ(o.deq[1], 0.0f);
    EXPECT_EQ(o.deq[4], 0.0f);
    Out t = ScaledRun("fp8_e4m3", 1, 0, make_shape({3}), {0, 0, 0}, 1);
    ASSERT_EQ(t.rc, 0);
    EXPECT_EQ(t.scales[0], 1.0f);
    EXPECT_EQ(t.codes, std::vector<uint16_t>({0, 0, 0}));
}

TEST(Scaled, NanOrInfIsAnErrorAndWritesNothing)
{
    for (float bad : {NAN, INFINITY, -INFINITY}) {
        std::vector<float> x = {1, 2, 3, 4, 5, 6};
        x[4] = bad;
        for (int per_tensor : {1, 0}) {
            Out o = ScaledRun("fp8_e4m3", per_tensor, 0, make_shape({2, 3}), x, per_tensor ? 1 : 2);
            EXPECT_EQ(o.rc, -1);
            EXPECT_NE(o.err.find(std::isnan(bad) ? "NaN" : "Inf"), std::string::npos) << o.err;
            EXPECT_NE(o.err.find("element 4"), std::string::npos) << o.err;
            if (!per_tensor) {
                EXPECT_NE(o.err.find("channel 1"), std::string::npos) << o.err;
            }
            for (uint16_t c : o.codes) EXPECT_EQ(c, 0xBEEF);
            for (float s : o.scales) EXPECT_EQ(s, -7.0f);
            for (float d : o.deq) EXPECT_EQ(d, -7.0f);
        }
    }
}

TEST(Scaled, BadAxisAndFormat)
{
    Out o = ScaledRun("fp8_e4m3", 0, 2, make_shape({2, 3}), {1, 2, 3, 4, 5, 6}, 3);
    EXPECT_EQ(o.rc, -1);
    EXPECT_NE(o.err.find("axis 2"), std::string::npos) << o.err;
    o = ScaledRun("fp8_e4m3", 0, -3, make_shape({2, 3}), {1, 2, 3, 4, 5, 6}, 3);
    EXPECT_EQ(o.rc, -1);
    // per tensor ignores the axis
    o = ScaledRun("fp8_e4m3", 1, 99, make_shape({2, 3}), {1, 2, 3, 4, 5, 6}, 1);
    EXPECT_EQ(o.rc, 0) << o.err;
    o = ScaledRun("e8m0", 1, 0, make_shape({2}), {1, 2}, 1);
    EXPECT_EQ(o.rc, -1);
    mx_encode_opts sr = {MX_ROUND_STOCHASTIC, MX_OVERFLOW_SATURATE, nullptr};
    o = ScaledRun("fp8_e4m3", 1, 0, make_shape({2}), {1, 2}, 1, &sr);
    EXPECT_EQ(o.rc, -1);
    EXPECT_NE(o.err.find("stochastic"), std::string::npos) << o.err;
}

// amax so small that max / amax overflows FP32: the scale clamps to FLT_MAX.
TEST(Scaled, TinyAmaxScaleClamps)
{
    const float tiny = std::ldexp(1.0f, -149);
    Out o = ScaledRun("fp8_e4m3", 1, 0, make_shape({2}), {tiny, 0}, 1);
    ASSERT_EQ(o.rc, 0) << o.err;
    EXPECT_EQ(o.scales[0], FLT_MAX);
    EXPECT_TRUE(std::isfinite(o.deq[0]));
}
