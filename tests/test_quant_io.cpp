// mxsim quant's file path (issue 11: chunked reads, block writes, the codes
// kernel only with --codes) against bytes computed here independently: the
// expected .npy files are built byte by byte (cli_helpers.h) from one
// whole-tensor call of the C kernels (mx_block_quantize, mx_bdr_quantize,
// mx_encode/mx_decode_f32), so any chunk boundary that split a block, broke
// the scale order or the stochastic-rounding sequence, or any writer change
// that altered a byte, shows up.  Inputs are 8 MiB and larger, so every
// chunking mode of sim/cmd_quant.c is crossed several times: 1-D blocks
// within one long row, whole rows, one slice per chunk (axis 0 with an inner
// dimension), tile bands, element formats, and a pipe (stream) input; each
// with 1 and 3 threads (MXSIM_QUANT_THREADS) and the default.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <string>
#include <vector>

#include "cli_helpers.h"

extern "C" {
#include "formats/mx_bdr.h"
#include "formats/mx_block.h"
#include "formats/mx_format.h"
}

using namespace clitest;

namespace {

std::string shape_text(const std::vector<size_t> &dims)
{
    std::string s = "(";
    for (size_t i = 0; i < dims.size(); i++) s += std::to_string(dims[i]) + (i + 1 < dims.size() ? ", " : "");
    if (dims.size() == 1) s += ",";
    return s + ")";
}

std::string dict(const char *descr, const std::vector<size_t> &dims)
{
    return std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shape_text(dims) + ", }";
}

mx_shape to_shape(const std::vector<size_t> &dims)
{
    mx_shape sh;
    memset(&sh, 0, sizeof sh);
    sh.ndim = (int)dims.size();
    for (size_t i = 0; i < dims.size(); i++) sh.dim[i] = dims[i];
    return sh;
}

size_t count_of(const std::vector<size_t> &dims)
{
    size_t n = 1;
    for (size_t d : dims) n *= d;
    return n;
}

// Deterministic data over many binades, with zeros of both signs, subnormals,
// and (when asked) a few NaN/Inf, so NaN blocks and saturation are crossed.
std::vector<float> data(size_t n, uint64_t seed, bool specials)
{
    std::vector<float> v(n);
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        uint32_t r = (uint32_t)(s >> 32);
        int e = (int)(r % 40) - 20;
        float m = (float)((r >> 8) & 0xFFFF) / 65536.0f + 0.5f;
        float x = std::ldexp((r & 1) ? -m : m, e);
        unsigned k = (unsigned)(s & 0xFFFF);
        if (k < 40) x = (k & 1) ? -0.0f : 0.0f;
        else if (k < 60) x = std::ldexp(m, -140);
        else if (specials && k == 60) x = NAN;
        else if (specials && k == 61) x = -INFINITY;
        v[i] = x;
    }
    return v;
}

std::vector<uint8_t> le_bytes(const void *p, size_t n, size_t item)
{
    std::vector<uint8_t> b;
    b.reserve(n * item);
    const uint8_t *src = static_cast<const uint8_t *>(p);
    for (size_t i = 0; i < n; i++) {
        uint32_t v = 0;
        if (item == 1) v = src[i];
        else if (item == 2) { uint16_t u; memcpy(&u, src + 2 * i, 2); v = u; }
        else memcpy(&v, src + 4 * i, 4);
        put_le(b, v, (int)item);
    }
    return b;
}

struct Expected {
    std::vector<uint8_t> out, codes, scales;
};

struct Case {
    const char *format;
    std::vector<size_t> dims;
    std::vector<std::string> opts;  // besides --format
    int block, axis, tile_rows, tile_cols;
    mx_round round;
    uint64_t seed;
};

// The reference: one whole-tensor kernel call, files assembled by hand.
Expected expected(const Case &c, const std::vector<float> &x)
{
    Expected e;
    mx_shape sh = to_shape(c.dims);
    size_t n = count_of(c.dims);
    std::vector<float> deq(n);
    std::vector<uint16_t> codes16(n);
    uint64_t rng = c.seed;
    mx_encode_opts enc = {c.round, MX_OVERFLOW_SATURATE, &rng};
    mx_format elem;
    mx_bdr_format bdr;
    char err[256];
    mx_shape ssh;
    std::vector<uint8_t> sc;
    const char *cdescr = "|u1";
    if (mx_block_format_lookup(c.format, &elem) == 0) {
        mx_block_spec s;
        memset(&s, 0, sizeof s);
        s.elem = elem;
        s.block = c.block;
        s.axis = c.axis;
        s.tile_rows = c.tile_rows;
        s.tile_cols = c.tile_cols;
        s.enc = enc;
        EXPECT_EQ(mx_block_scale_shape(&s, &sh, &ssh, err, sizeof err), 0) << err;
        sc.resize(mx_shape_count(&ssh));
        EXPECT_EQ(mx_block_quantize(&s, &sh, x.data(), codes16.data(), sc.data(), deq.data(), err, sizeof err), 0) << err;
        if (elem.bits <= 8) {
            for (uint16_t v : codes16) e.codes.push_back((uint8_t)v);
        } else {
            e.codes = le_bytes(codes16.data(), n, 2);
            cdescr = "<u2";
        }
    } else if (mx_bdr_lookup(c.format, &bdr) == 0) {
        mx_block_spec s;
        memset(&s, 0, sizeof s);
        s.block = bdr.k1;
        s.axis = c.axis;
        EXPECT_EQ(mx_block_scale_shape(&s, &sh, &ssh, err, sizeof err), 0) << err;
        sc.resize(mx_shape_count(&ssh));
        EXPECT_EQ(mx_bdr_quantize(&bdr, c.axis, c.round, &sh, x.data(), codes16.data(), sc.data(), nullptr,
                                  deq.data(), err, sizeof err), 0) << err;
        for (uint16_t v : codes16) e.codes.push_back((uint8_t)v);  // mbits + 1 <= 8 for mx9/mx6/mx4
    } else {
        EXPECT_EQ(mx_format_lookup(c.format, &elem), 0) << c.format;
        std::vector<uint32_t> c32(n);
        for (size_t i = 0; i < n; i++) {
            c32[i] = mx_encode(&elem, x[i], &enc, nullptr);
            deq[i] = mx_decode_f32(&elem, c32[i]);
        }
        size_t item = elem.bits <= 8 ? 1 : elem.bits <= 16 ? 2 : 4;
        cdescr = item == 1 ? "|u1" : item == 2 ? "<u2" : "<u4";
        for (uint32_t v : c32) put_le(e.codes, v, (int)item);
    }
    e.out = npy_bytes(1, dict("<f4", c.dims), le_bytes(deq.data(), n, 4));
    e.codes = npy_bytes(1, dict(cdescr, c.dims), e.codes);
    if (!sc.empty()) {
        std::vector<size_t> sd(ssh.dim, ssh.dim + ssh.ndim);
        e.scales = npy_bytes(1, dict("|u1", sd), sc);
    }
    return e;
}

// Runs quant on in (a file, or through a pipe when piped) with and without
// --codes/--scales; every output must equal the reference byte for byte.
void check_case(const Case &c, bool f64_input = false, bool piped = false)
{
    SCOPED_TRACE(std::string(c.format) + " " + shape_text(c.dims));
    TempDir dir;
    size_t n = count_of(c.dims);
    std::vector<float> x = data(n, c.seed + n, true);
    std::string in = dir.file("in.npy");
    if (f64_input) {
        std::vector<uint8_t> b;
        for (float f : x) {
            double d = f;
            uint64_t u;
            memcpy(&u, &d, 8);
            put_le(b, u, 8);
        }
        write_bytes(in, npy_bytes(1, dict("<f8", c.dims), b));
    } else {
        std::vector<uint32_t> bits(n);
        for (size_t i = 0; i < n; i++) bits[i] = bits_of(x[i]);
        write_bytes(in, npy_bytes(1, dict("<f4", c.dims), f32_bits(bits)));
    }
    Expected e = expected(c, x);
    bool has_scales = !e.scales.empty();
    // 1 thread (the sequential loop), 3 threads (pread/pwrite workers), and
    // the default; every run must give the reference bytes.
    for (const char *threads : {"1", "3", ""}) {
    SCOPED_TRACE(std::string("MXSIM_QUANT_THREADS=") + threads);
    if (*threads) setenv("MXSIM_QUANT_THREADS", threads, 1);
    else unsetenv("MXSIM_QUANT_THREADS");
    for (int with_codes = 0; with_codes < 2; with_codes++) {
        std::vector<std::string> args = {"quant", "--format", c.format};
        args.insert(args.end(), c.opts.begin(), c.opts.end());
        std::string out = dir.file(with_codes ? "o2.npy" : "o1.npy");
        std::string codes = dir.file("c.npy"), scales = dir.file("s.npy");
        if (with_codes) {
            args.insert(args.end(), {"--codes", codes});
            if (has_scales) args.insert(args.end(), {"--scales", scales});
        }
        RunResult r;
        if (piped) {
            std::string cmd = "cat " + quote(in) + " | " + quote(mxsim_bin());
            for (const std::string &a : args) cmd += " " + quote(a);
            cmd += " /dev/stdin " + quote(out) + " 2>" + quote(dir.file("err.txt"));
            int st = system(cmd.c_str());
            r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
            r.err = read_text(dir.file("err.txt"));
        } else {
            args.push_back(in);
            args.push_back(out);
            r = run_mxsim(dir, args);
        }
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_TRUE(read_bytes(out) == e.out) << "dequantized output differs (codes " << with_codes << ")";
        if (with_codes) {
            EXPECT_TRUE(read_bytes(codes) == e.codes) << "codes differ";
            if (has_scales) {
                EXPECT_TRUE(read_bytes(scales) == e.scales) << "scales differ";
            }
        }
    }
    // --codes on/off: identical dequantized bytes
    EXPECT_TRUE(read_bytes(dir.file("o1.npy")) == read_bytes(dir.file("o2.npy")));
    }
    unsetenv("MXSIM_QUANT_THREADS");
    // nothing left but the input, the outputs and the error capture
    for (const std::string &f : dir.list())
        EXPECT_EQ(f.find(".tmp."), std::string::npos) << "temporary file left: " << f;
}

const size_t M8 = (size_t)2 << 20;  // 2 Mi float32 = 8 MiB

}  // namespace

TEST(QuantIo, MxFp8LongRowBlocksAcrossChunks)
{
    check_case({"mxfp8_e4m3", {M8 + 45}, {}, 32, -1, 0, 0, MX_ROUND_EVEN, 1});
}

TEST(QuantIo, MxsfRowsLongerThanAChunk)
{
    check_case({"mxsf", {5, 400003}, {}, 32, -1, 0, 0, MX_ROUND_EVEN, 2});
}

TEST(QuantIo, MxInt8ManyRowsOddBlock)
{
    check_case({"mxint8", {2048, 1029}, {"--block", "24", "--round", "nearest"}, 24, -1, 0, 0, MX_ROUND_NEAREST, 3});
}

TEST(QuantIo, MxFp6Axis0WithInnerDimension)
{
    check_case({"mxfp6_e3m2", {400001, 5}, {"--axis", "0"}, 32, 0, 0, 0, MX_ROUND_EVEN, 4});
}

TEST(QuantIo, MxFp4TilesInBands)
{
    check_case({"mxfp4", {2, 1100, 1003}, {"--block", "8x16"}, 32, -1, 8, 16, MX_ROUND_EVEN, 5});
}

TEST(QuantIo, MxsfTilesWholeBatches)
{
    check_case({"mxsf", {300, 70, 100}, {"--block", "8x8"}, 32, -1, 8, 8, MX_ROUND_EVEN, 6});
}

TEST(QuantIo, MxsfStochasticSequenceAcrossChunks)
{
    check_case({"mxsf", {M8 + 7}, {"--round", "stochastic", "--seed", "77"}, 32, -1, 0, 0, MX_ROUND_STOCHASTIC, 77});
}

TEST(QuantIo, BdrMx6AcrossChunks)
{
    check_case({"mx6", {3, 700001}, {}, 16, -1, 0, 0, MX_ROUND_EVEN, 8});
}

TEST(QuantIo, ElementFormats)
{
    check_case({"bf16", {M8 + 3}, {}, 0, 0, 0, 0, MX_ROUND_EVEN, 9});
    check_case({"fp8_e5m2", {1024, 2049}, {"--round", "stochastic", "--seed", "5"}, 0, 0, 0, 0,
                MX_ROUND_STOCHASTIC, 5});
}

TEST(QuantIo, Float64Input)
{
    check_case({"mxfp8_e5m2", {1000, 1100}, {}, 32, -1, 0, 0, MX_ROUND_EVEN, 10}, true);
}

TEST(QuantIo, PipeInputSameBytes)
{
    check_case({"mxfp8_e4m3", {3, 1000003}, {}, 32, -1, 0, 0, MX_ROUND_EVEN, 11}, false, true);
}
