// MX block quantization (SPEC §2.1): known answers from Microsoft's microxcaling
// emulator, the spec's scale rules, and a slow per-block reference.
#include <gtest/gtest.h>

#include "test_util.h"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ref_formats.h"

extern "C" {
#include "formats/mx_block.h"
#include "formats/mx_rng.h"
#include "npy.h"
}

namespace {

mx_block_spec spec(const char *mx, int block = 32, mx_round r = MX_ROUND_EVEN)
{
    mx_block_spec s;
    std::memset(&s, 0, sizeof s);
    EXPECT_EQ(mx_block_format_lookup(mx, &s.elem), 0) << mx;
    s.block = block;
    s.axis = -1;
    s.scale_rule = MX_SCALE_FLOOR;
    s.enc.round = r;
    s.enc.overflow = MX_OVERFLOW_SATURATE;
    return s;
}


struct Quantized {
    std::vector<uint16_t> codes;
    std::vector<uint8_t> scales;
    std::vector<float> deq;
};

Quantized quantize(const mx_block_spec &s, const mx_shape &sh, const std::vector<float> &x)
{
    mx_shape ssh;
    char err[256];
    EXPECT_EQ(mx_block_scale_shape(&s, &sh, &ssh, err, sizeof err), 0) << err;
    Quantized q;
    q.codes.resize(x.size());
    q.scales.resize(mx_shape_count(&ssh));
    q.deq.resize(x.size());
    EXPECT_EQ(mx_block_quantize(&s, &sh, x.data(), q.codes.data(), q.scales.data(), q.deq.data(), err,
                                sizeof err), 0) << err;
    return q;
}

// Spec formula for the OCP scale: floor(log2 amax) - emax_elem, clamped.
int ref_floor_scale(double amax, int emax)
{
    if (amax == 0) return 0;
    int e;
    std::frexp(amax, &e);  // amax = m * 2^e, m in [0.5, 1)
    int se = (e - 1) - emax;
    if (se > 127) return 0xFF;
    return std::max(se, -127) + 127;
}

std::string golden(const std::string &f) { return std::string(MXSIM_SRC_DIR) + "/tests/golden/microxcaling/" + f; }

}  // namespace

// microxcaling's own FP8 E4M3 test: 400 in a block whose maximum is 485.
TEST(Block, MicroxcalingE4m3KnownAnswer)
{
    std::vector<float> x(32, 1.0f);
    x[0] = 485;
    x[1] = 400;
    x[2] = 475;
    auto n = quantize(spec("mxfp8_e4m3", 32, MX_ROUND_NEAREST), make_shape({32}), x);
    auto e = quantize(spec("mxfp8_e4m3", 32, MX_ROUND_EVEN), make_shape({32}), x);
    EXPECT_EQ(n.scales[0], 127);  // floor(log2 485) = 8 = emax(E4M3)
    EXPECT_EQ(n.deq[1], 416.0f);
    EXPECT_EQ(e.deq[1], 384.0f);
    EXPECT_EQ(n.deq[0], 448.0f);  // 485 = 15.2 * 32 -> 480 is beyond E4M3's max: saturates
    EXPECT_EQ(n.deq[2], 448.0f);  // 475 = 14.84 * 32 -> 480 likewise
}

TEST(Block, MatchesMicroxcalingGoldenFiles)
{
    mx_shape sh;
    float *in = nullptr;
    char err[512];
    ASSERT_EQ(npy_read_f32(golden("input.npy").c_str(), &sh, &in, err, sizeof err), 0) << err;
    std::vector<float> x(in, in + mx_shape_count(&sh));
    free(in);
    const char *formats[] = {"mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4", "mxint8"};
    int files = 0;
    for (const char *f : formats)
        for (const char *r : {"nearest", "even"}) {
            mx_shape gsh;
            float *g = nullptr;
            std::string path = golden(std::string(f) + "-" + r + ".npy");
            ASSERT_EQ(npy_read_f32(path.c_str(), &gsh, &g, err, sizeof err), 0) << err;
            mx_block_spec s = spec(f, 32, std::string(r) == "even" ? MX_ROUND_EVEN : MX_ROUND_NEAREST);
            auto q = quantize(s, sh, x);
            size_t mismatches = 0;
            for (size_t i = 0; i < x.size(); i++) {
                uint32_t a, b;
                std::memcpy(&a, &q.deq[i], 4);
                std::memcpy(&b, &g[i], 4);
                bool same = a == b || (std::isnan(q.deq[i]) && std::isnan(g[i]));
                if (!same && mismatches++ < 5)
                    ADD_FAILURE() << path << " [" << i / 64 << "," << i % 64 << "] x=" << x[i] << " got "
                                  << q.deq[i] << " want " << g[i];
            }
            EXPECT_EQ(mismatches, 0u) << path;
            free(g);
            files++;
        }
    EXPECT_EQ(files, 12);
}

TEST(Block, ScaleCodesAtTheEdges)
{
    // 0x00: all-zero block, and a block of tiny values clamped at -127
    EXPECT_EQ(quantize(spec("mxfp8_e4m3"), make_shape({32}), std::vector<float>(32, 0.0f)).scales[0], 0);
    auto tiny = quantize(spec("mxfp8_e4m3"), make_shape({4}), {1e-40f, 0, 0, -1e-41f});
    EXPECT_EQ(tiny.scales[0], 0);
    EXPECT_EQ(tiny.deq[0], std::ldexp(1.0f, -127) * std::ldexp(1.0f, -9) * std::round(1e-40f / std::ldexp(1.0f, -136)));
    // 0x7F: amax in [256, 512) for E4M3 (emax 8)
    EXPECT_EQ(quantize(spec("mxfp8_e4m3"), make_shape({2}), {300.0f, 1.0f}).scales[0], 0x7F);
    // 0xFE: INT8 (emax 0) with amax in [2^127, 2^128)
    auto big = quantize(spec("mxint8"), make_shape({2}), {std::ldexp(1.5f, 127), std::ldexp(1.0f, 126)});
    EXPECT_EQ(big.scales[0], 0xFE);
    EXPECT_EQ(big.deq[0], std::ldexp(1.5f, 127));
    EXPECT_EQ(big.deq[1], std::ldexp(1.0f, 126));
    // NaN scale: a NaN or an Inf anywhere in the block
    for (float bad : {NAN, INFINITY, -INFINITY}) {
        auto q = quantize(spec("mxfp8_e4m3", 4), make_shape({8}), {1, 2, bad, 4, 5, 6, 7, 8});
        EXPECT_EQ(q.scales[0], 0xFF);
        EXPECT_EQ(q.scales[1], 127 + 3 - 8);  // the next block is untouched: floor(log2 8) - 8
        for (int i = 0; i < 4; i++) EXPECT_TRUE(std::isnan(q.deq[i]));
        EXPECT_EQ(q.codes[0], 0x7F);  // E4M3 has a NaN code
        EXPECT_EQ(q.deq[4], 5.0f);
    }
    // ceil rule overflowing the scale range gives NaN too
    mx_block_spec c = spec("mxint8");
    c.scale_rule = MX_SCALE_CEIL;
    EXPECT_EQ(quantize(c, make_shape({1}), {std::ldexp(1.5f, 127)}).scales[0], 0xFF);
}

TEST(Block, OneHugeElementFlushesTheRest)
{
    std::vector<float> x(32, 1e-3f);
    x[7] = 1e6f;
    auto q = quantize(spec("mxfp8_e4m3"), make_shape({32}), x);
    EXPECT_EQ(q.scales[0], ref_floor_scale(1e6, 8));
    for (int i = 0; i < 32; i++) {
        if (i != 7) {
            EXPECT_EQ(q.deq[i], 0.0f) << i;
        }
    }
    EXPECT_EQ(q.deq[7], 448.0f * 2048);  // scale 2^(19-8): 1e6 / 2^11 = 488.3 > 448 -> saturates
}

TEST(Block, ScaleRules)
{
    // amax = 6.5 with MXFP4 (E2M1, max 6, emax 2, 1 mantissa bit)
    mx_block_spec s = spec("mxfp4");
    auto scale = [&](mx_scale_rule r, float amax) { s.scale_rule = r; return (int)mx_block_scale(&s, amax) - 127; };
    EXPECT_EQ(scale(MX_SCALE_FLOOR, 6.5f), 0);   // floor(log2 6.5) = 2, minus 2
    EXPECT_EQ(scale(MX_SCALE_CEIL, 6.5f), 1);    // ceil(log2 6.5) = 3
    EXPECT_EQ(scale(MX_SCALE_CEIL, 4.0f), 0);    // exact power of two
    EXPECT_EQ(scale(MX_SCALE_EVEN, 6.5f), 0);    // 6.5 -> 6 (1.1b x 4): stays in binade 2
    EXPECT_EQ(scale(MX_SCALE_EVEN, 7.0f), 1);    // 7 = 1.11b x 4, RNE to 1 bit -> 8: binade 3
    EXPECT_EQ(scale(MX_SCALE_RCEIL, 6.0f), 0);   // 6/6 = 1 -> 2^0
    EXPECT_EQ(scale(MX_SCALE_RCEIL, 6.5f), 1);   // 6.5/6 -> ceil(log2 1.08) = 1
    EXPECT_EQ(scale(MX_SCALE_RCEIL, 3.0f), -1);  // 3/6 = 0.5 -> -1
    EXPECT_EQ(scale(MX_SCALE_RCEIL, 3.1f), 0);
}

TEST(Block, TailsAndAxes)
{
    // 40 elements, block 32: a second block of 8 with its own scale
    std::vector<float> x(40, 1.0f);
    x[35] = 100.0f;
    auto q = quantize(spec("mxfp8_e4m3"), make_shape({40}), x);
    ASSERT_EQ(q.scales.size(), 2u);
    EXPECT_EQ(q.scales[0], ref_floor_scale(1.0, 8));
    EXPECT_EQ(q.scales[1], ref_floor_scale(100.0, 8));
    // blocks along axis 0 of a 3x5 tensor equal blocks along the last axis of its transpose
    uint64_t rng = 3;
    std::vector<float> a(15), at(15);
    for (auto &v : a) v = (float)(mx_rng_uniform(&rng) * 20 - 10);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 5; j++) at[j * 3 + i] = a[i * 5 + j];
    mx_block_spec s0 = spec("mxfp6_e2m3", 2);
    s0.axis = 0;
    auto q0 = quantize(s0, make_shape({3, 5}), a);
    auto q1 = quantize(spec("mxfp6_e2m3", 2), make_shape({5, 3}), at);
    ASSERT_EQ(q0.scales.size(), 10u);  // scale shape (2, 5)
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 5; j++) EXPECT_EQ(q0.deq[i * 5 + j], q1.deq[j * 3 + i]);
    for (int b = 0; b < 2; b++)
        for (int j = 0; j < 5; j++) EXPECT_EQ(q0.scales[b * 5 + j], q1.scales[j * 2 + b]);
}

TEST(Block, TilesAtTensorEdges)
{
    // 10x10 with 8x8 tiles: scales 2x2; tile (r,c) holds values of magnitude 10^(r*2+c)
    std::vector<float> x(100);
    for (int i = 0; i < 10; i++)
        for (int j = 0; j < 10; j++) x[i * 10 + j] = std::pow(10.0f, (float)((i / 8) * 2 + (j / 8))) * (1 + (i + j) % 3);
    mx_block_spec s = spec("mxsf");
    s.tile_rows = s.tile_cols = 8;
    auto q = quantize(s, make_shape({10, 10}), x);
    ASSERT_EQ(q.scales.size(), 4u);
    for (int t = 0; t < 4; t++) EXPECT_EQ(q.scales[t], ref_floor_scale(3 * std::pow(10.0, t), 2)) << t;
    // batch dimension in front: each matrix gets its own tiles
    std::vector<float> x2(x);
    x2.insert(x2.end(), x.begin(), x.end());
    for (size_t i = 100; i < 200; i++) x2[i] *= 1024;
    auto q2 = quantize(s, make_shape({2, 10, 10}), x2);
    ASSERT_EQ(q2.scales.size(), 8u);
    for (int t = 0; t < 4; t++) EXPECT_EQ(q2.scales[4 + t], q.scales[t] + 10);
    // impossible shapes
    mx_shape out;
    char err[256];
    mx_shape one = make_shape({10});
    EXPECT_EQ(mx_block_scale_shape(&s, &one, &out, err, sizeof err), -1);
    EXPECT_NE(std::string(err).find("rank"), std::string::npos);
    mx_block_spec b = spec("mxsf", 0);
    EXPECT_EQ(mx_block_scale_shape(&b, &one, &out, err, sizeof err), -1);
    b = spec("mxsf", 32);
    b.axis = 1;
    EXPECT_EQ(mx_block_scale_shape(&b, &one, &out, err, sizeof err), -1);
}

// Slow reference: per block, the spec's floor scale, then exhaustive nearest-value
// search in the element format (tests/ref_formats.h), then the scale applied.
TEST(Block, RandomTensorsMatchSlowReference)
{
    uint64_t rng = 2024;
    for (const char *mx : {"mxsf", "mxfp8_e4m3", "mxfp8_e5m2", "mxfp8_e2m5", "mxint8", "mxfp4", "mxfp6_e3m2"}) {
        mx_block_spec s = spec(mx, 16);
        RefLayout L = ref_layout(s.elem.name);
        auto vals = ref_positive_values(L);
        for (mx_round r : {MX_ROUND_EVEN, MX_ROUND_NEAREST, MX_ROUND_FLOOR}) {
            s.enc.round = r;
            std::vector<float> x(16 * 40);
            for (size_t i = 0; i < x.size(); i++) {
                double mag = std::exp2(-12 + 14 * mx_rng_uniform(&rng) + 8 * (double)(i / 16 % 5));
                x[i] = (float)(mx_rng_uniform(&rng) < 0.5 ? -mag : mag);
            }
            auto q = quantize(s, make_shape({x.size()}), x);
            for (size_t b = 0; b < x.size() / 16; b++) {
                double amax = 0;
                for (int i = 0; i < 16; i++) amax = std::max(amax, (double)std::fabs(x[b * 16 + i]));
                int sc = ref_floor_scale(amax, s.elem.emax);
                ASSERT_EQ(q.scales[b], sc) << mx;
                for (int i = 0; i < 16; i++) {
                    double y = std::ldexp((double)std::fabs(x[b * 16 + i]), -(sc - 127));
                    double v = y >= vals.back().v ? vals.back().v : vals[ref_round_index(vals, y, r)].v;
                    double want = std::ldexp(v, sc - 127) * (x[b * 16 + i] < 0 ? -1 : 1);
                    ASSERT_EQ((double)q.deq[b * 16 + i], want) << mx << " x=" << x[b * 16 + i] << " " << mx_round_name(r);
                }
            }
            // dequantize(codes, scales) reproduces deq
            std::vector<float> back(x.size());
            mx_block_dequantize(&s, std::vector<mx_shape>{make_shape({x.size()})}.data(), q.codes.data(), q.scales.data(), back.data());
            for (size_t i = 0; i < x.size(); i++) ASSERT_EQ(back[i], q.deq[i]);
        }
    }
}

// The quantize-dequantize fast path (no codes requested) against the generic
// path (codes requested) on the same data, bit for bit, in every rounding mode.
// The block quantizer's fast path (FPU rounding trick and the code tables of
// mx_block.c) against the one rounding routine, element by element: each code
// must be mx_round_pack of x / 2^scale (RNE, ties away or floor; saturating)
// and each dequantized value decode(code) * 2^scale (a zero keeps x's sign).
// Also codes-only and values-only calls give the same bits.
// Every element of every block, fast path (vectorized rows of 4 and the
// scalar tail) against mx_round_pack on the exact FP32 value, for x of shape
// (rows, cols), 1-D blocks of 32 and of 5 along the rows (the consecutive-
// blocks kernels: blocks longer and shorter than a vector) and 8x8 tiles.
// Byte codes (mx_block_quantize_ex codes8), and every vector width (MX_SIMD_AUTO:
// AVX-512 where the CPU has it, MX_SIMD_AVX2, MX_SIMD_PORTABLE: 4 lanes) must
// give the same bits; a NaN block has NaN values and the format's NaN code.
static void expect_fast_path_equals_round_pack(const std::vector<float> &x, size_t rows, size_t cols)
{
    // "mxsf5", "mxsf7": MXSF with FP5 bias 5 and 7 (the fast path takes biases up to 8)
    const char *formats[] = {"mxsf", "mxsf5", "mxsf7", "mxfp8_e4m3", "mxfp8_e5m2", "mxfp8_e2m5", "mxint8", "mxfp4",
                             "mxfp6_e3m2", "mxfp6_e2m3"};
    for (const char *mx : formats)
        for (int layout = 0; layout < 3; layout++)
        for (mx_round rm : {MX_ROUND_EVEN, MX_ROUND_NEAREST, MX_ROUND_FLOOR}) {
            const int tile = layout == 2 ? 8 : 0, k = layout == 1 ? 5 : 32;
            const bool b5 = !std::strncmp(mx, "mxsf", 4) && mx[4];
            mx_block_spec s = spec(b5 ? "mxsf" : mx, k, rm);
            if (b5) {
                ASSERT_EQ(mx_format_mxsf(mx[4] - '0', &s.elem), 0);
            }
            s.tile_rows = s.tile_cols = tile;
            mx_shape sh = make_shape({rows, cols});
            auto q = quantize(s, sh, x);
            std::vector<float> deq_only(x.size());
            std::vector<uint16_t> codes_only(x.size());
            char err[128];
            ASSERT_EQ(mx_block_quantize(&s, &sh, x.data(), nullptr, nullptr, deq_only.data(), err, sizeof err), 0);
            ASSERT_EQ(mx_block_quantize(&s, &sh, x.data(), codes_only.data(), nullptr, nullptr, err, sizeof err), 0);
            for (mx_simd simd : {MX_SIMD_AUTO, MX_SIMD_AVX2, MX_SIMD_PORTABLE}) {
                std::vector<uint8_t> c8(x.size()), sc8(q.scales.size());
                std::vector<uint16_t> c16(x.size());
                std::vector<float> d8(x.size()), d16(x.size());
                ASSERT_EQ(mx_block_quantize_ex(&s, &sh, x.data(), nullptr, c8.data(), sc8.data(), d8.data(), simd, err,
                                               sizeof err), 0) << err;
                ASSERT_EQ(mx_block_quantize_ex(&s, &sh, x.data(), c16.data(), nullptr, nullptr, d16.data(), simd, err,
                                               sizeof err), 0) << err;
                ASSERT_TRUE(sc8 == q.scales) << mx << " simd " << simd;
                ASSERT_TRUE(c16 == q.codes) << mx << " simd " << simd;
                for (size_t i = 0; i < x.size(); i++) {
                    ASSERT_LT(q.codes[i], 256u) << mx;
                    ASSERT_EQ(c8[i], q.codes[i]) << mx << " byte codes, simd " << simd << ", element " << i;
                    ASSERT_EQ(std::memcmp(&d8[i], &q.deq[i], 4), 0) << mx << " simd " << simd << ", element " << i;
                    ASSERT_EQ(std::memcmp(&d16[i], &q.deq[i], 4), 0) << mx << " simd " << simd << ", element " << i;
                }
            }
            const mx_encode_opts enc = {rm, MX_OVERFLOW_SATURATE, nullptr};
            for (size_t i = 0; i < x.size(); i++) {
                const size_t r = i / cols, c = i % cols;
                const uint8_t sc = q.scales[tile ? (r / 8) * ((cols + 7) / 8) + c / 8 : r * ((cols + k - 1) / k) + c / k];
                ASSERT_EQ(codes_only[i], q.codes[i]) << mx << " codes-only call, element " << i;
                uint32_t a, b;
                std::memcpy(&a, &q.deq[i], 4);
                std::memcpy(&b, &deq_only[i], 4);
                ASSERT_TRUE(a == b || (std::isnan(q.deq[i]) && std::isnan(deq_only[i]))) << mx << " values-only call";
                if (sc == 0xFF) {  // NaN block: NaN values, the format's NaN code (0 without one)
                    const mx_encode_opts nan_enc = {MX_ROUND_EVEN, MX_OVERFLOW_INF_NAN, nullptr};
                    ASSERT_TRUE(std::isnan(q.deq[i])) << mx << " element " << i;
                    ASSERT_EQ(q.codes[i], mx_encode(&s.elem, NAN, &nan_enc, nullptr)) << mx << " element " << i;
                    continue;
                }
                const int se = (int)sc - 127, sign = std::signbit(x[i]) ? 1 : 0;
                int e2 = 0;
                const double m = std::frexp(std::fabs((double)x[i]), &e2);  // |x| = m 2^e2, m in [0.5, 1)
                const uint64_t sig = (uint64_t)std::ldexp(m, 24);
                const uint32_t want = mx_round_pack(&s.elem, sign, sig, e2 - 24 - se, &enc, nullptr);
                ASSERT_EQ(q.codes[i], want) << mx << " tile " << tile << " " << mx_round_name(rm) << " x=" << x[i]
                                            << " scale " << se;
                const double val = std::ldexp(mx_decode(&s.elem, want), se);
                const float want_deq = (float)(val == 0 && sign ? -0.0 : val);
                std::memcpy(&b, &want_deq, 4);
                ASSERT_EQ(a, b) << mx << " tile " << tile << " " << mx_round_name(rm) << " x=" << x[i] << " deq "
                                << q.deq[i] << " want " << want_deq;
            }
        }
}

TEST(Block, FastPathEqualsGenericPath)
{
    uint64_t rng = 77;
    std::vector<float> x(64 * 64);
    for (size_t i = 0; i < x.size(); i++) {
        double mag = std::exp2(-40 + 80 * mx_rng_uniform(&rng));
        if (i % 97 == 0) mag = 0;
        if (i % 89 == 0) mag = std::ldexp(1.0, -140);  // FP32 subnormal
        x[i] = (float)(mx_rng_uniform(&rng) < 0.5 ? -mag : mag);
    }
    x[5] = NAN;
    x[700] = -0.0f;
    expect_fast_path_equals_round_pack(x, 64, 64);
}

// Blocks at the ends of the scale range, where the kernels leave their
// vector-domain scale (2^-se and 2^se normal only for se in [-126, 126]):
// rows whose largest magnitude runs from the smallest normals (scale clamped
// at -127) to near FLT_MAX, with subnormal elements among them.
TEST(Block, FastPathEqualsGenericPathAtScaleExtremes)
{
    uint64_t rng = 91;
    const size_t rows = 64, cols = 64;
    std::vector<float> x(rows * cols);
    for (size_t i = 0; i < x.size(); i++) {
        const size_t r = i / cols;
        const int top = r < 32 ? -126 + (int)r : 64 + (int)r;  // row top exponent: -126..-95, 96..127
        const double mag = std::ldexp(1.0 + mx_rng_uniform(&rng), top - (int)(mx_rng_uniform(&rng) * 30));
        x[i] = (float)(mx_rng_uniform(&rng) < 0.5 ? -mag : mag);
    }
    expect_fast_path_equals_round_pack(x, rows, cols);
}

// Rows whose length is not a multiple of 4 (the vector loop's tail) and
// values on a grid of 2^-6 within a few binades, so that many fall exactly on
// rounding ties and on the edges of the subnormal and saturating ranges.
TEST(Block, FastPathEqualsGenericPathOnTiesAndTails)
{
    uint64_t rng = 5;
    const size_t rows = 16, cols = 45;
    std::vector<float> x(rows * cols);
    for (size_t i = 0; i < x.size(); i++) {
        const int k = (int)(mx_rng_uniform(&rng) * 1201) - 600;     // k / 64 in [-9.4, 9.4]
        x[i] = std::ldexp((float)k, -6 + (int)(i % 7 == 3) * 5);   // a few 32x larger: saturation
    }
    expect_fast_path_equals_round_pack(x, rows, cols);
}
