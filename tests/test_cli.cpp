// mxsim quant / mxsim qsnr through the binary ($MXSIM_BIN).  Expected values
// are derived by hand in the comments (format grids from SPEC §2), from
// microxcaling's published FP8 E4M3 example (485 / 400), from the
// microxcaling known-answer files in tests/golden/microxcaling, or from
// rounding-error bounds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "cli_helpers.h"

using namespace clitest;

namespace {

struct Npy {
    std::string dict;
    std::vector<uint8_t> data;
};

Npy load(const std::string &path)
{
    Npy n;
    EXPECT_TRUE(split_npy(read_bytes(path), n.dict, n.data)) << path;
    return n;
}

std::string dict_of(const char *descr, const std::string &shape)
{
    return std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
}

// Runs a quant that must succeed and returns the dequantized values.
std::vector<float> quant_ok(const TempDir &dir, const std::string &shape, const std::vector<float> &x,
                            std::vector<std::string> args, const std::string &out_shape = "")
{
    std::string in = dir.file("in.npy"), out = dir.file("out.npy");
    write_bytes(in, f32_npy(shape, x));
    args.insert(args.begin(), "quant");
    args.push_back(in);
    args.push_back(out);
    RunResult r = run_mxsim(dir, args);
    EXPECT_EQ(r.status, 0) << r.err;
    Npy o = load(out);
    EXPECT_EQ(o.dict, dict_of("<f4", out_shape.empty() ? shape : out_shape));
    return f32_values(o.data);
}

void expect_values(const std::vector<float> &got, const std::vector<float> &want, const char *what)
{
    ASSERT_EQ(got.size(), want.size()) << what;
    for (size_t i = 0; i < want.size(); i++) {
        if (std::isnan(want[i])) EXPECT_TRUE(std::isnan(got[i])) << what << " [" << i << "] " << got[i];
        else EXPECT_EQ(bits_of(got[i]), bits_of(want[i])) << what << " [" << i << "] got " << got[i]
                                                            << " want " << want[i];
    }
}

std::vector<float> zeros(size_t n) { return std::vector<float>(n, 0.0f); }

}  // namespace

TEST(Cli, QuantHelp)
{
    TempDir dir;
    RunResult r = run_mxsim(dir, {"quant", "--help"});
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.out.find("usage: mxsim quant"), std::string::npos);
    r = run_mxsim(dir, {"qsnr", "--help"});
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.out.find("usage: mxsim qsnr"), std::string::npos);
}

// FP8 E4M3 per element (bias 7, 3 mantissa bits, max 448, SPEC §2 table):
//   1.0 = 0 0111 000 (0x38); -2 = 1 1000 000 (0xC0);
//   0.3 in [0.25, 0.5), step 2^-5: 0.28125 | 0.3125, nearer 0.3125 = 0 0101 010 (0x2A);
//   17 in [16, 32), step 2: tie 16 | 18 -> even 16 (0x58), nearest 18 (0x59);
//   19: tie 18 | 20 -> 20 (mantissa 010 even; also away from zero) (0x5A);
//   500 saturates to 448 (0x7E); 2^-9 is the smallest subnormal (0x01);
//   2^-11 is below half of it -> +0; -0 keeps its sign (0x80).
TEST(Cli, QuantFp8E4m3PerElement)
{
    TempDir dir;
    const std::vector<float> x = {1.0f, -2.0f, 0.3f, 17.0f, 19.0f, 500.0f, 0x1p-9f, 0x1p-11f, -0.0f};
    std::string codes = dir.file("codes.npy");
    std::vector<float> even = quant_ok(dir, "(9,)", x, {"--format", "fp8_e4m3", "--codes", codes});
    expect_values(even, {1.0f, -2.0f, 0.3125f, 16.0f, 20.0f, 448.0f, 0x1p-9f, 0.0f, -0.0f}, "even");
    Npy c = load(codes);
    EXPECT_EQ(c.dict, dict_of("|u1", "(9,)"));
    EXPECT_EQ(c.data, (std::vector<uint8_t>{0x38, 0xC0, 0x2A, 0x58, 0x5A, 0x7E, 0x01, 0x00, 0x80}));

    std::vector<float> nearest = quant_ok(dir, "(9,)", x, {"--format", "fp8_e4m3", "--round", "nearest"});
    expect_values(nearest, {1.0f, -2.0f, 0.3125f, 18.0f, 20.0f, 448.0f, 0x1p-9f, 0.0f, -0.0f}, "nearest");

    // floor (toward zero): 0.3 -> 0.28125, 19 -> 18, 500 -> 448.
    std::vector<float> floor_ = quant_ok(dir, "(3,)", {0.3f, 19.0f, -500.0f}, {"--format", "fp8_e4m3", "--round", "floor"});
    expect_values(floor_, {0.28125f, 18.0f, -448.0f}, "floor");

    // inf_nan: 1000 is far beyond 448 and E4M3 has no Inf -> NaN (code 0x7F).
    std::vector<float> ovf = quant_ok(dir, "(2,)", {1000.0f, -1.0f},
                                      {"--format", "fp8_e4m3", "--overflow", "inf_nan", "--codes", codes});
    expect_values(ovf, {NAN, -1.0f}, "inf_nan");
    EXPECT_EQ(load(codes).data, (std::vector<uint8_t>{0x7F, 0xB8}));

    // bf16 keeps the top 16 bits of FP32 when exact; 1 + 2^-8 is a tie -> even 1.0.
    std::vector<float> bf = quant_ok(dir, "(2,)", {1.5f, 1.0f + 0x1p-8f}, {"--format", "bf16", "--codes", codes});
    expect_values(bf, {1.5f, 1.0f}, "bf16");
    Npy bc = load(codes);
    EXPECT_EQ(bc.dict, dict_of("<u2", "(2,)"));
    EXPECT_EQ(bc.data, (std::vector<uint8_t>{0xC0, 0x3F, 0x80, 0x3F}));
}

// microxcaling's FP8 E4M3 example: a 32-block with max 485.  Scale (floor rule,
// emax 8): floor(log2 485) - 8 = 0 -> E8M0 code 127.  485 saturates to 448;
// 400 in [256, 512), step 32: tie 384 | 416 -> even 384 (0x7C), nearest 416
// (0x7D); 2^-10 is half the smallest subnormal 2^-9 -> even 0, nearest 2^-9.
// Row 1: every element 3*2^-20: floor(log2) = -19 -> shared exp -27 -> code 100,
// element 3*2^7 = 384 = 1.100b * 2^8 (0x7C), exact.
TEST(Cli, QuantMxfp8E4m3Block)
{
    TempDir dir;
    std::vector<float> x = zeros(64);
    x[0] = 485.0f; x[1] = 400.0f; x[2] = -400.0f; x[3] = 1.0f; x[4] = 0.75f; x[5] = 0x1p-10f;
    for (int i = 32; i < 64; i++) x[i] = 3.0f * 0x1p-20f;
    std::string codes = dir.file("codes.npy"), scales = dir.file("scales.npy");
    for (const char *mode : {"even", "nearest"}) {
        bool even = std::string(mode) == "even";
        std::vector<float> q = quant_ok(dir, "(2, 32)", x,
                                        {"--format", "mxfp8_e4m3", "--block", "32", "--axis", "-1", "--round",
                                         mode, "--codes", codes, "--scales", scales});
        std::vector<float> want = x;
        want[0] = 448.0f;
        want[1] = even ? 384.0f : 416.0f;
        want[2] = even ? -384.0f : -416.0f;
        want[5] = even ? 0.0f : 0x1p-9f;
        expect_values(q, want, mode);
        Npy c = load(codes);
        EXPECT_EQ(c.dict, dict_of("|u1", "(2, 32)"));
        ASSERT_EQ(c.data.size(), 64u);
        EXPECT_EQ(c.data[0], 0x7E);
        EXPECT_EQ(c.data[1], even ? 0x7C : 0x7D);
        EXPECT_EQ(c.data[2], even ? 0xFC : 0xFD);
        EXPECT_EQ(c.data[3], 0x38);
        EXPECT_EQ(c.data[4], 0x34);
        EXPECT_EQ(c.data[5], even ? 0x00 : 0x01);
        EXPECT_EQ(c.data[40], 0x7C);
        Npy s = load(scales);
        EXPECT_EQ(s.dict, dict_of("|u1", "(2, 1)"));
        EXPECT_EQ(s.data, (std::vector<uint8_t>{127, 100}));
    }
    // Same data along axis 0 of the transpose gives the same numbers.
    std::vector<float> xt(64);
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 32; c++) xt[c * 2 + r] = x[r * 32 + c];
    std::vector<float> q = quant_ok(dir, "(32, 2)", xt, {"--format", "mxfp8_e4m3", "--axis", "0", "--scales", scales});
    EXPECT_EQ(q[1 * 2 + 0], 384.0f);
    EXPECT_EQ(q[0], 448.0f);
    EXPECT_EQ(load(scales).dict, dict_of("|u1", "(1, 2)"));
    EXPECT_EQ(load(scales).data, (std::vector<uint8_t>{127, 100}));
}

// 8x8 tiles over (8, 16): tile 0 (columns 0-7) has amax 3.0 -> floor(log2 3) - 8
// = -7 -> code 120; 1.1875 * 2^7 = 152 lies in [128, 256), step 16: tie
// 144 | 160 -> even 160 -> 1.25.  Tile 1 (columns 8-15) has amax 0.25 ->
// -2 - 8 = -10 -> code 117; -0.1875 * 2^10 = -192 is exact.
TEST(Cli, QuantMxTiles)
{
    TempDir dir;
    std::vector<float> x(128);
    for (int r = 0; r < 8; r++)
        for (int c = 0; c < 16; c++) x[r * 16 + c] = c < 8 ? 1.0f : 0.25f;
    x[7 * 16 + 0] = 3.0f;
    x[0 * 16 + 1] = 1.1875f;
    x[3 * 16 + 12] = -0.1875f;
    std::string scales = dir.file("scales.npy");
    std::vector<float> q = quant_ok(dir, "(8, 16)", x, {"--format", "mxfp8_e4m3", "--block", "8x8", "--scales", scales});
    std::vector<float> want = x;
    want[1] = 1.25f;
    expect_values(q, want, "tiles");
    Npy s = load(scales);
    EXPECT_EQ(s.dict, dict_of("|u1", "(1, 2)"));
    EXPECT_EQ(s.data, (std::vector<uint8_t>{120, 117}));
}

// MXINT8: element k * 2^-6, emax 0.  amax 1.0 -> scale code 127.  -0.3 * 64 =
// -19.2 -> -19 (two's complement 0xED) -> -0.296875; 2^-7 = 0.5 * 2^-6 is a tie
// between 0 and 1: even 0, nearest 1.  A 4-element tensor is one (short) block.
TEST(Cli, QuantMxint8)
{
    TempDir dir;
    std::string codes = dir.file("codes.npy");
    std::vector<float> x = {1.0f, -0.3f, 0.5f, 0x1p-7f};
    expect_values(quant_ok(dir, "(4,)", x, {"--format", "mxint8", "--codes", codes}),
                  {1.0f, -0.296875f, 0.5f, 0.0f}, "even");
    EXPECT_EQ(load(codes).data, (std::vector<uint8_t>{0x40, 0xED, 0x20, 0x00}));
    expect_values(quant_ok(dir, "(4,)", x, {"--format", "mxint8", "--round", "nearest"}),
                  {1.0f, -0.296875f, 0.5f, 0x1p-6f}, "nearest");
}

// MXSF (SPEC §2.2).  amax 7 -> floor(log2 7) - 2 = 0 -> scale code 127.
//   7.0   = 2^(3-1) * (1 + 24/32): E=3, F=24 -> 0 11 11000 = 0x78
//   1.3   in [1, 2), step 1/32: 1.28125 | 1.3125, nearer 1.3125: E=1, F=10 -> 0x2A
//   0.1   FP5 (b5 = 8): 2^(4-8) * (1 + n/4), 0.1 = 2^-4 * 1.6 -> n = 2 (1.5):
//         0.09375, F = 100.10 -> 0x12;  with b5 = 7: f = 3 -> 0 00 011 10 = 0x0E
//   -0.001 FP5 subnormal n * 2^(1-b5)/4: b5 = 8 step 2^-9, 0.512 steps -> 1:
//         -2^-9 (0x81); b5 = 7 step 2^-8, 0.256 steps -> 0: -0 (0x80)
TEST(Cli, QuantMxsfAndFp5Bias)
{
    TempDir dir;
    std::string codes = dir.file("codes.npy"), scales = dir.file("scales.npy");
    std::vector<float> x = {7.0f, 1.3f, 0.1f, -0.001f};
    expect_values(quant_ok(dir, "(4,)", x, {"--format", "mxsf", "--codes", codes, "--scales", scales}),
                  {7.0f, 1.3125f, 0.09375f, -0x1p-9f}, "mxsf");
    EXPECT_EQ(load(codes).data, (std::vector<uint8_t>{0x78, 0x2A, 0x12, 0x81}));
    EXPECT_EQ(load(scales).data, (std::vector<uint8_t>{127}));
    expect_values(quant_ok(dir, "(4,)", x, {"--format", "mxsf", "--fp5-bias", "7", "--codes", codes}),
                  {7.0f, 1.3125f, 0.09375f, -0.0f}, "mxsf b5=7");
    EXPECT_EQ(load(codes).data, (std::vector<uint8_t>{0x78, 0x2A, 0x0E, 0x80}));
}

// MX9 (SPEC §2.3, 7 magnitude bits): amax 1.0 -> E = 0 (code 127), value = mag *
// 2^(E - u - 6).  Pair (1.0, 0.75) touches the top binade -> u = 0: 64, 48.
// Pair (0.1, -0.05) is below it -> u = 1, step 2^-7: 12.8 -> 13 (0.1015625),
// -6.4 -> -6 (-0.046875, sign in bit 7: 0x86).
TEST(Cli, QuantMx9)
{
    TempDir dir;
    std::string codes = dir.file("codes.npy"), scales = dir.file("scales.npy");
    std::vector<float> x = zeros(16);
    x[0] = 1.0f; x[1] = 0.75f; x[2] = 0.1f; x[3] = -0.05f;
    std::vector<float> want = zeros(16);
    want[0] = 1.0f; want[1] = 0.75f; want[2] = 0.1015625f; want[3] = -0.046875f;
    expect_values(quant_ok(dir, "(16,)", x, {"--format", "mx9", "--codes", codes, "--scales", scales}), want, "mx9");
    Npy c = load(codes);
    EXPECT_EQ(c.dict, dict_of("|u1", "(16,)"));
    ASSERT_EQ(c.data.size(), 16u);
    EXPECT_EQ(c.data[0], 64);
    EXPECT_EQ(c.data[1], 48);
    EXPECT_EQ(c.data[2], 13);
    EXPECT_EQ(c.data[3], 0x86);
    EXPECT_EQ(load(scales).data, (std::vector<uint8_t>{127}));
}

// Per-tensor FP8 E4M3: scale = 448 / amax = 448 / 4 = 112.  0.3 * 112 = 33.6 ->
// [32, 64) step 4 -> 32 -> 32/112; -2 * 112 = -224 and 4 * 112 = 448 are exact.
// Per channel along axis 0 of [[1, 0.5], [-8, 2]]: scales 448/1, 448/8.
TEST(Cli, QuantPerTensorAndPerChannel)
{
    TempDir dir;
    std::string codes = dir.file("codes.npy"), scales = dir.file("scales.npy");
    std::vector<float> q = quant_ok(dir, "(4,)", {1.0f, -2.0f, 0.3f, 4.0f},
                                    {"--format", "fp8_e4m3", "--per-tensor", "--codes", codes, "--scales", scales});
    ASSERT_EQ(q.size(), 4u);
    EXPECT_EQ(q[0], 1.0f);
    EXPECT_EQ(q[1], -2.0f);
    EXPECT_FLOAT_EQ(q[2], 32.0f / 112.0f);
    EXPECT_EQ(q[3], 4.0f);
    EXPECT_EQ(load(codes).data, (std::vector<uint8_t>{0x6E, 0xF6, 0x60, 0x7E}));
    Npy s = load(scales);
    EXPECT_EQ(s.dict, dict_of("<f4", "(1,)"));
    expect_values(f32_values(s.data), {112.0f}, "scale");

    q = quant_ok(dir, "(2, 2)", {1.0f, 0.5f, -8.0f, 2.0f},
                 {"--format", "fp8_e4m3", "--per-channel", "0", "--scales", scales});
    expect_values(q, {1.0f, 0.5f, -8.0f, 2.0f}, "per-channel");
    s = load(scales);
    EXPECT_EQ(s.dict, dict_of("<f4", "(2,)"));
    expect_values(f32_values(s.data), {448.0f, 56.0f}, "channel scales");
}

// Non-finite input: an MX block containing NaN becomes NaN (scale 0xFF), other
// blocks are untouched; per-tensor scaling refuses non-finite data.
TEST(Cli, QuantNonFinite)
{
    TempDir dir;
    std::string scales = dir.file("scales.npy");
    std::vector<float> x = {1.0f, NAN, 2.0f, 3.0f, 1.0f, 2.0f, 3.0f, 4.0f};
    std::vector<float> q = quant_ok(dir, "(2, 4)", x, {"--format", "mxfp8_e4m3", "--scales", scales});
    expect_values(q, {NAN, NAN, NAN, NAN, 1.0f, 2.0f, 3.0f, 4.0f}, "nan block");
    // Row 1: amax 4 -> 2 - 8 = -6 -> code 121.
    EXPECT_EQ(load(scales).data, (std::vector<uint8_t>{0xFF, 121}));

    std::string in = dir.file("inf.npy"), out = dir.file("o.npy");
    write_bytes(in, f32_npy("(2,)", {1.0f, INFINITY}));
    RunResult r = run_mxsim(dir, {"quant", "--format", "fp8_e4m3", "--per-tensor", in, out});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find(in), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("non-finite"), std::string::npos) << r.err;
    EXPECT_FALSE(exists(out));
}

// float64 input is rounded to the nearest float32 first (0.1 -> 0x3DCCCCCD).
TEST(Cli, QuantFloat64Input)
{
    TempDir dir;
    std::vector<uint8_t> d;
    put_le(d, 0x3FB999999999999Aull, 8);
    put_le(d, 0xC008000000000000ull, 8);  // -3
    std::string in = dir.file("in64.npy"), out = dir.file("out.npy");
    write_bytes(in, npy_bytes(1, dict_of("<f8", "(2,)"), d));
    RunResult r = run_mxsim(dir, {"quant", "--format", "fp32", in, out});
    ASSERT_EQ(r.status, 0) << r.err;
    Npy o = load(out);
    EXPECT_EQ(o.dict, dict_of("<f4", "(2,)"));
    std::vector<float> v = f32_values(o.data);
    ASSERT_EQ(v.size(), 2u);
    EXPECT_EQ(bits_of(v[0]), 0x3DCCCCCDu);
    EXPECT_EQ(v[1], -3.0f);
}

// Usage errors: exit 2, one line naming the option, no output.
TEST(Cli, QuantOptionErrors)
{
    TempDir dir;
    std::string in1 = dir.file("v.npy"), in2 = dir.file("m.npy"), out = dir.file("out.npy");
    std::string sc = dir.file("s.npy");
    write_bytes(in1, f32_npy("(4,)", {1, 2, 3, 4}));
    write_bytes(in2, f32_npy("(2, 2)", {1, 2, 3, 4}));
    struct Case {
        std::vector<std::string> args;
        const char *needle;
    };
    const std::vector<Case> cases = {
        {{"--format", "fp9_e9m9", in1, out}, "--format"},
        {{"--format", "mxfp4", "--frobnicate", "1", in1, out}, "--frobnicate"},
        {{in1, out}, "--format"},
        {{"--format", "mxfp4", in1}, "OUT.npy"},
        {{"--format", "mxfp4", in1, out, "--block"}, "--block"},
        {{"--format", "mxfp4", "--block", "0", in1, out}, "--block"},
        {{"--format", "mxfp4", "--block", "-4", in1, out}, "--block"},
        {{"--format", "mxfp4", "--block", "8x0", in1, out}, "--block"},
        {{"--format", "mxfp4", "--block", "8y8", in1, out}, "--block"},
        {{"--format", "mxfp4", "--block", "8x8", in1, out}, "--block 8x8"},
        {{"--format", "mxfp4", "--axis", "2", in2, out}, "--axis"},
        {{"--format", "mxfp4", "--axis", "-3", in2, out}, "--axis"},
        {{"--format", "mxfp4", "--axis", "one", in2, out}, "--axis"},
        {{"--format", "mxfp8_e4m3", "--fp5-bias", "7", in1, out}, "--fp5-bias"},
        {{"--format", "mxsf", "--fp5-bias", "4", in1, out}, "--fp5-bias"},
        {{"--format", "fp8_e4m3", "--scales", sc, in1, out}, "--scales"},
        {{"--format", "fp8_e4m3", "--block", "32", in1, out}, "--block"},
        {{"--format", "mxfp4", "--per-tensor", in1, out}, "--per-tensor"},
        {{"--format", "fp8_e4m3", "--per-channel", "1", in1, out}, "--per-channel"},
        {{"--format", "fp8_e4m3", "--per-tensor", "--per-channel", "0", in1, out}, "--per-channel"},
        {{"--format", "mxfp4", "--round", "up", in1, out}, "--round"},
        {{"--format", "mxfp4", "--scale-rule", "log", in1, out}, "--scale-rule"},
        {{"--format", "mxfp4", "--overflow", "inf_nan", in1, out}, "--overflow"},
        {{"--format", "mxfp4", "--overflow", "wrap", in1, out}, "--overflow"},
        {{"--format", "mxfp4", "--seed", "-1", in1, out}, "--seed"},
        {{"--format", "mx9", "--scale-rule", "ceil", in1, out}, "--scale-rule"},
        {{"--format", "mx9", "--block", "32", in1, out}, "--block"},
        {{"--format", "mxfp4", "--codes", out, in1, out}, "--codes"},
        {{"--format", "fp32", "--per-tensor", in1, out}, "--per-tensor"},
        {{"--format", "e8m0", "--per-tensor", in1, out}, "unsigned"},
    };
    for (const Case &c : cases) {
        std::vector<std::string> args = c.args;
        args.insert(args.begin(), "quant");
        RunResult r = run_mxsim(dir, args);
        std::string what = c.needle;
        EXPECT_EQ(r.status, 2) << what << ": " << r.err;
        EXPECT_NE(r.err.find(c.needle), std::string::npos) << what << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_FALSE(exists(out)) << what;
        EXPECT_FALSE(exists(sc)) << what;
    }
    EXPECT_EQ(dir.list().size(), 2u);  // only the two inputs, no temporary files
}

// Known answers from microxcaling (see tests/golden/microxcaling/README.md).
TEST(Cli, QuantMatchesMicroxcalingGolden)
{
#ifdef MXSIM_SRC_DIR
    std::string golden = std::string(MXSIM_SRC_DIR) + "/tests/golden/microxcaling/";
#else
    std::string src = __FILE__;
    std::string golden = src.substr(0, src.find_last_of('/') + 1) + "golden/microxcaling/";
#endif
    ASSERT_TRUE(exists(golden + "input.npy")) << golden;
    TempDir dir;
    for (const char *fmt : {"mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4", "mxint8"})
        for (const char *mode : {"even", "nearest"}) {
            std::string out = dir.file("out.npy");
            RunResult r = run_mxsim(dir, {"quant", "--format", fmt, "--block", "32", "--axis", "-1", "--round", mode,
                                          golden + "input.npy", out});
            ASSERT_EQ(r.status, 0) << r.err;
            Npy want = load(golden + fmt + "-" + mode + ".npy"), got = load(out);
            EXPECT_EQ(got.dict, want.dict);
            std::vector<float> g = f32_values(got.data), w = f32_values(want.data);
            ASSERT_EQ(g.size(), w.size());
            int bad = 0;
            for (size_t i = 0; i < w.size(); i++)
                if (bits_of(g[i]) != bits_of(w[i]) && !(std::isnan(g[i]) && std::isnan(w[i])) && bad++ < 5)
                    ADD_FAILURE() << fmt << "-" << mode << " [" << i / 64 << "][" << i % 64 << "] got " << g[i]
                                  << " want " << w[i];
            EXPECT_EQ(bad, 0) << fmt << "-" << mode;
        }
}

// ---- qsnr -------------------------------------------------------------------

namespace {

// format -> distribution -> (qsnr_db, max_rel) from the CSV.
typedef std::map<std::string, std::map<std::string, std::pair<double, double>>> QsnrTable;

QsnrTable parse_csv(const std::string &text, size_t *rows)
{
    QsnrTable t;
    std::istringstream in(text);
    std::string line;
    *rows = 0;
    std::getline(in, line);
    EXPECT_EQ(line, "distribution,format,qsnr_db,max_rel_err");
    while (std::getline(in, line)) {
        std::vector<std::string> f;
        std::stringstream ls(line);
        std::string cell;
        while (std::getline(ls, cell, ',')) f.push_back(cell);
        EXPECT_EQ(f.size(), 4u) << line;
        if (f.size() != 4) continue;
        t[f[1]][f[0]] = {std::stod(f[2]), std::stod(f[3])};
        ++*rows;
    }
    return t;
}

}  // namespace

TEST(Cli, QsnrProperties)
{
    TempDir dir;
    std::string csv = dir.file("q.csv");
    RunResult r = run_mxsim(dir, {"qsnr", "--n", "65536", "--seed", "7", "--csv", csv});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("n = 65536, seed = 7, MX block = 32"), std::string::npos) << r.out;
    size_t rows = 0;
    QsnrTable t = parse_csv(read_text(csv), &rows);
    EXPECT_EQ(rows, 13u * 5u);  // 13 default formats x 5 distributions
    const char *dists[] = {"gaussian", "laplace", "uniform", "student_t3", "block_gaussian"};
    for (const char *d : dists)
        for (const auto &f : t) EXPECT_EQ(f.second.count(d), 1u) << f.first << " " << d;
    auto g = [&](const char *f) { return t[f]["gaussian"].first; };

    // FP8 E4M3 with an MX scale: 4 significant bits give about 31.5 dB
    // (-10 log10(2^-6 / 12 * E[1/m^2]), m log-uniform in [1, 2)), less a little
    // for elements saturating at 448 under the floor scale rule.
    EXPECT_GT(g("mxfp8_e4m3"), 28.0);
    EXPECT_LT(g("mxfp8_e4m3"), 34.0);
    // bf16: 8 significant bits -> about 55.6 dB by the same estimate, and the
    // relative error of round-to-nearest is at most 2^-8 everywhere.
    EXPECT_GT(g("bf16"), 54.0);
    EXPECT_LT(g("bf16"), 57.0);
    for (const char *d : dists) EXPECT_LE(t["bf16"][d].second, 0x1p-8) << d;
    // More bits, more QSNR.
    EXPECT_LT(g("mxfp4"), g("mxfp6_e2m3"));
    EXPECT_LT(g("mxfp4"), g("mxfp6_e3m2"));
    EXPECT_LT(g("mxfp6_e3m2"), g("mxfp6_e2m3"));  // same width, one more mantissa bit
    // E2M3 and E4M3 both keep 3 mantissa bits: about the same QSNR (they differ
    // only in saturation under the floor rule and in the subnormal range).
    EXPECT_NEAR(g("mxfp6_e2m3"), g("mxfp8_e4m3"), 1.5);
    EXPECT_LT(g("mxfp8_e5m2"), g("mxfp8_e4m3"));
    EXPECT_LT(g("mxfp8_e4m3"), g("mxfp8_e2m5"));
    EXPECT_LT(g("mx4"), g("mx6"));
    EXPECT_LT(g("mx6"), g("mx9"));
    EXPECT_LT(g("mxfp8_e4m3"), g("mx9"));
    EXPECT_LT(g("mx9"), g("bf16"));
    // SPEC §2.3 (Rouhani et al.): MX9 well above FP8 E4M3, MX6 between E5M2 and E4M3.
    EXPECT_GT(g("mx9") - g("mxfp8_e4m3"), 8.0);
    EXPECT_GT(g("mx6"), g("mxfp8_e5m2"));
    EXPECT_LT(g("mx6"), g("mxfp8_e4m3"));
    // Block scaling follows per-block variance: QSNR on block_gaussian is that
    // of gaussian.  One per-tensor scale cannot: with sigma spanning 10^6
    // (~20 binades > E4M3's 17.8), the quietest blocks fall below the smallest
    // subnormal and flush to zero (relative error exactly 1).  Global QSNR
    // hides that (it is energy-weighted, dominated by the loudest blocks).
    EXPECT_NEAR(t["mxfp8_e4m3"]["block_gaussian"].first, g("mxfp8_e4m3"), 2.0);
    EXPECT_EQ(t["fp8_e4m3/tensor"]["block_gaussian"].second, 1.0);

    // Deterministic for a seed, different for another.
    std::string csv2 = dir.file("q2.csv"), csv3 = dir.file("q3.csv");
    ASSERT_EQ(run_mxsim(dir, {"qsnr", "--n", "65536", "--seed", "7", "--csv", csv2}).status, 0);
    ASSERT_EQ(run_mxsim(dir, {"qsnr", "--n", "65536", "--seed", "8", "--csv", csv3}).status, 0);
    EXPECT_EQ(read_text(csv), read_text(csv2));
    EXPECT_NE(read_text(csv), read_text(csv3));
}

TEST(Cli, QsnrFormatsOptionAndErrors)
{
    TempDir dir;
    std::string csv = dir.file("q.csv");
    RunResult r = run_mxsim(dir, {"qsnr", "--n", "4096", "--formats", "mxfp4,e3m2,fp8_e5m2/tensor", "--csv", csv});
    ASSERT_EQ(r.status, 0) << r.err;
    size_t rows = 0;
    QsnrTable t = parse_csv(read_text(csv), &rows);
    EXPECT_EQ(rows, 3u * 5u);
    EXPECT_EQ(t.count("fp8_e5m2/tensor"), 1u);
    // Uniform data is the same for every format: per-element e3m2 (finite
    // only, max 28) keeps 3 significant bits; relative error <= 2^-3 above
    // its smallest normal 2^-2 but values below lose more.
    EXPECT_GT(t["e3m2"]["uniform"].first, 15.0);

    for (const std::vector<std::string> &args :
         std::vector<std::vector<std::string>>{{"--formats", "mxfp4,nope"},
                                               {"--formats", "mxfp4,"},
                                               {"--n", "0"},
                                               {"--n", "12x"},
                                               {"--block", "0"},
                                               {"--bogus", "1"},
                                               {"--csv"}}) {
        std::vector<std::string> a = args;
        a.insert(a.begin(), "qsnr");
        a.push_back("--csv=" + csv + ".bad");
        if (args[0] == "--csv") a = {"qsnr", "--csv"};
        RunResult e = run_mxsim(dir, a);
        EXPECT_EQ(e.status, 2) << args[0];
        EXPECT_NE(e.err.find(args[0]), std::string::npos) << e.err;
        EXPECT_FALSE(exists(csv + ".bad"));
    }
}

// `mxsim cosim --level` picks the unit or the array harness; a bad level is a
// usage error that names the option (exit 2), whether or not the harnesses are built.
TEST(Cli, CosimLevelOption)
{
    TempDir dir;
    RunResult r = run_mxsim(dir, {"cosim", "--level", "bogus"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--level 'bogus'"), std::string::npos) << r.err;
    r = run_mxsim(dir, {"cosim", "--level"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--level needs a value"), std::string::npos) << r.err;
}
