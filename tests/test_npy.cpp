// sim/npy.c against .npy bytes built by hand (the format of NumPy's
// "format.py": magic \x93NUMPY, version, little-endian header length, a
// Python dict literal padded with spaces to a multiple of 64 ending in '\n'),
// and mxsim quant's handling of bad input files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cli_helpers.h"

extern "C" {
#include "npy.h"
}

using namespace clitest;

namespace {

const char *kF4 = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";

struct Parsed {
    int rc;
    mx_shape shape;
    std::vector<float> v;
    std::string err;
};

Parsed parse(const std::vector<uint8_t> &b, const char *name = "x.npy")
{
    Parsed p;
    float *data = nullptr;
    char err[512] = "";
    p.rc = npy_parse_f32(b.data(), b.size(), name, &p.shape, &data, err, sizeof err);
    p.err = err;
    if (p.rc == 0) {
        size_t n = 1;
        for (int i = 0; i < p.shape.ndim; i++) n *= p.shape.dim[i];
        p.v.assign(data, data + n);
    }
    free(data);
    return p;
}

// 1.0, -2.5, 0.15625, -0.0, smallest subnormal, largest finite.
const std::vector<uint32_t> kBits = {0x3F800000u, 0xC0200000u, 0x3E200000u,
                                     0x80000000u, 0x00000001u, 0x7F7FFFFFu};

}  // namespace

TEST(Npy, ReadsFloat32Version1)
{
    Parsed p = parse(npy_bytes(1, kF4, f32_bits(kBits)));
    ASSERT_EQ(p.rc, 0) << p.err;
    ASSERT_EQ(p.shape.ndim, 2);
    EXPECT_EQ(p.shape.dim[0], 2u);
    EXPECT_EQ(p.shape.dim[1], 3u);
    ASSERT_EQ(p.v.size(), 6u);
    for (size_t i = 0; i < 6; i++) EXPECT_EQ(bits_of(p.v[i]), kBits[i]) << i;
}

TEST(Npy, ReadsVersions2And3AndHeaderVariants)
{
    for (int major : {2, 3}) {
        Parsed p = parse(npy_bytes(major, kF4, f32_bits(kBits)));
        ASSERT_EQ(p.rc, 0) << major << ": " << p.err;
        EXPECT_EQ(bits_of(p.v[1]), 0xC0200000u);
    }
    // Double quotes, other key order, extra blanks, no trailing comma, rank-1 tuple.
    Parsed p = parse(npy_bytes(1, "{ \"shape\" : ( 6 , ) ,\"fortran_order\":False,  'descr':\"<f4\"}",
                               f32_bits(kBits)));
    ASSERT_EQ(p.rc, 0) << p.err;
    ASSERT_EQ(p.shape.ndim, 1);
    EXPECT_EQ(p.shape.dim[0], 6u);
    // Rank 0 (a scalar) and an empty tensor.
    p = parse(npy_bytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", f32_bits({0x40490FDBu})));
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_EQ(p.shape.ndim, 0);
    ASSERT_EQ(p.v.size(), 1u);
    EXPECT_EQ(bits_of(p.v[0]), 0x40490FDBu);
    p = parse(npy_bytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4), }", {}));
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_EQ(p.v.size(), 0u);
    // Rank 8 (MX_MAX_DIMS) is fine.
    p = parse(npy_bytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1, 1, 1, 2), }",
                        f32_bits({0x3F800000u, 0x40000000u})));
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_EQ(p.shape.ndim, 8);
}

TEST(Npy, ConvertsFloat64ToNearestFloat32)
{
    std::vector<uint8_t> data;
    put_le(data, 0x3FF0000000000000ull, 8);  // 1.0
    put_le(data, 0x3FB999999999999Aull, 8);  // 0.1 -> float 0x3DCCCCCD (round to nearest)
    put_le(data, 0x3FF0000010000000ull, 8);  // 1 + 2^-24: a tie, to even -> 1.0
    put_le(data, 0x3FF0000030000000ull, 8);  // 1 + 3*2^-24: tie, to even -> 1 + 2^-22
    put_le(data, 0x7FEFFFFFFFFFFFFFull, 8);  // DBL_MAX -> +Inf
    put_le(data, 0xC000000000000000ull, 8);  // -2
    Parsed p = parse(npy_bytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (6,), }", data));
    ASSERT_EQ(p.rc, 0) << p.err;
    const uint32_t want[] = {0x3F800000u, 0x3DCCCCCDu, 0x3F800000u, 0x3F800002u, 0x7F800000u, 0xC0000000u};
    for (int i = 0; i < 6; i++) EXPECT_EQ(bits_of(p.v[i]), want[i]) << i;
}

TEST(Npy, RejectsBadHeaders)
{
    struct Case {
        std::vector<uint8_t> bytes;
        const char *needle;
    };
    std::vector<uint8_t> good = npy_bytes(1, kF4, f32_bits(kBits));
    std::vector<uint8_t> bad_magic = good;
    bad_magic[1] = 'X';
    std::vector<uint8_t> truncated(good.begin(), good.end() - 1);
    std::vector<uint8_t> trailing = good;
    trailing.push_back(0);
    std::vector<uint8_t> short_header(good.begin(), good.begin() + 40);
    const std::vector<Case> cases = {
        {{}, "bad magic"},
        {bad_magic, "bad magic"},
        {npy_bytes(4, kF4, f32_bits(kBits)), "version 4.0"},
        {npy_bytes(1, kF4, f32_bits(kBits), 1), "version 1.1"},
        {npy_bytes(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }", f32_bits(kBits)), "'<i4'"},
        {npy_bytes(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }", f32_bits(kBits)), "big-endian"},
        {npy_bytes(1, "{'descr': '<f2', 'fortran_order': False, 'shape': (2, 3), }", f32_bits(kBits)), "'<f2'"},
        {npy_bytes(1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2, 3), }", {}), "dtype"},
        {npy_bytes(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", f32_bits(kBits)), "fortran_order"},
        {npy_bytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }", {}), "negative"},
        {npy_bytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }", {}), "shape"},
        {npy_bytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': [2, 3], }", {}), "shape"},
        {npy_bytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3 }", {}), "shape"},
        {npy_bytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }", {}), "rank"},
        {npy_bytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", {}),
         "too large"},
        {npy_bytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", {}),
         "too many"},
        {npy_bytes(1, "{'descr': '<f4', 'fortran_order': False, }", {}), "missing key 'shape'"},
        {npy_bytes(1, "{'descr': '<f4', 'shape': (6,), }", f32_bits(kBits)), "missing key 'fortran_order'"},
        {npy_bytes(1, "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (6,), }", {}),
         "duplicate key 'descr'"},
        {npy_bytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), 'x': 1}", {}), "unknown key 'x'"},
        {npy_bytes(1, "'descr': '<f4'", {}), "malformed"},
        {npy_bytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (6,)} extra", {}), "after the dict"},
        {npy_bytes(1, "{'descr': '<f4', 'fortran_order': Falsey, 'shape': (6,)}", {}), "fortran_order"},
        {truncated, "truncated data"},
        {trailing, "1 unexpected bytes after the data"},
        {short_header, "truncated .npy header"},
    };
    for (size_t i = 0; i < cases.size(); i++) {
        Parsed p = parse(cases[i].bytes, "in/file.npy");
        EXPECT_EQ(p.rc, -1) << i;
        EXPECT_EQ(p.err.rfind("in/file.npy: ", 0), 0u) << i << ": " << p.err;
        EXPECT_NE(p.err.find(cases[i].needle), std::string::npos) << i << ": " << p.err;
    }
}

TEST(Npy, WritesNumpyCompatibleFilesAtomically)
{
    TempDir dir;
    ASSERT_FALSE(dir.path().empty());
    mx_shape sh = {2, {2, 3}};
    std::vector<float> v;
    for (uint32_t b : kBits) v.push_back(float_of(b));
    char err[512];
    std::string f = dir.file("out.npy");
    ASSERT_EQ(npy_write(f.c_str(), NPY_F32, &sh, v.data(), err, sizeof err), 0) << err;
    // Exactly the bytes NumPy writes for np.save of this array.
    EXPECT_EQ(read_bytes(f), npy_bytes(1, kF4, f32_bits(kBits)));
    // And nothing else in the directory (the temporary file was renamed).
    EXPECT_EQ(dir.list(), std::vector<std::string>{"out.npy"});

    // Read back through the reader.
    mx_shape rs;
    float *data = nullptr;
    ASSERT_EQ(npy_read_f32(f.c_str(), &rs, &data, err, sizeof err), 0) << err;
    EXPECT_EQ(rs.ndim, 2);
    for (int i = 0; i < 6; i++) EXPECT_EQ(bits_of(data[i]), kBits[i]);
    free(data);

    // uint8 rank 1, uint16 rank 0, uint32 rank 3.
    const uint8_t u8[3] = {0, 0x7F, 0xFF};
    mx_shape s1 = {1, {3}};
    ASSERT_EQ(npy_write(f.c_str(), NPY_U8, &s1, u8, err, sizeof err), 0) << err;
    EXPECT_EQ(read_bytes(f), npy_bytes(1, "{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }",
                                       {0, 0x7F, 0xFF}));
    const uint16_t u16 = 0xABCD;
    mx_shape s0 = {0, {0}};
    ASSERT_EQ(npy_write(f.c_str(), NPY_U16, &s0, &u16, err, sizeof err), 0) << err;
    EXPECT_EQ(read_bytes(f), npy_bytes(1, "{'descr': '<u2', 'fortran_order': False, 'shape': (), }", {0xCD, 0xAB}));
    const uint32_t u32[2] = {0x01020304u, 0xFFFFFFFFu};
    mx_shape s3 = {3, {1, 2, 1}};
    ASSERT_EQ(npy_write(f.c_str(), NPY_U32, &s3, u32, err, sizeof err), 0) << err;
    EXPECT_EQ(read_bytes(f), npy_bytes(1, "{'descr': '<u4', 'fortran_order': False, 'shape': (1, 2, 1), }",
                                       {4, 3, 2, 1, 0xFF, 0xFF, 0xFF, 0xFF}));
    EXPECT_EQ(dir.list(), std::vector<std::string>{"out.npy"});
}

TEST(Npy, WriteFailureLeavesNothing)
{
    TempDir dir;
    mx_shape sh = {1, {1}};
    float one = 1.0f;
    char err[512] = "";
    std::string f = dir.file("no_such_dir/out.npy");
    EXPECT_EQ(npy_write(f.c_str(), NPY_F32, &sh, &one, err, sizeof err), -1);
    EXPECT_NE(std::string(err).find(f), std::string::npos) << err;
    EXPECT_TRUE(dir.list().empty());
}

TEST(Npy, MissingFileNamesThePath)
{
    mx_shape sh;
    float *data = nullptr;
    char err[512] = "";
    EXPECT_EQ(npy_read_f32("/nonexistent/dir/x.npy", &sh, &data, err, sizeof err), -1);
    EXPECT_EQ(std::string(err).rfind("/nonexistent/dir/x.npy: cannot open", 0), 0u) << err;
}

// Reads bounded by the format (issue 10): the header length limit, a regular
// file's size against the shape before allocating, devices and directories.
TEST(Npy, ReadsAreBoundedByTheFormat)
{
    // a header length just over the limit is refused before reading it
    std::vector<uint8_t> big = {0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0};
    uint32_t hl = NPY_HEADER_MAX + 1;
    for (int i = 0; i < 4; i++) big.push_back((uint8_t)(hl >> (8 * i)));
    Parsed p = parse(big);
    EXPECT_EQ(p.rc, -1);
    EXPECT_NE(p.err.find("header length 65537 exceeds the 65536-byte limit"), std::string::npos) << p.err;

    mx_shape sh;
    float *data = nullptr;
    char err[512] = "";
    EXPECT_EQ(npy_read_f32("/dev/zero", &sh, &data, err, sizeof err), -1);
    EXPECT_STREQ(err, "/dev/zero: not an .npy file (bad magic)");
    EXPECT_EQ(data, nullptr);
    EXPECT_EQ(npy_read_f32("/", &sh, &data, err, sizeof err), -1);
    EXPECT_STREQ(err, "/: is a directory, not an .npy file");

    // a shape of 10^12 float32 in a file of one header: the size is checked, nothing allocated
    clitest::TempDir d;
    std::string f = d.file("huge.npy");
    clitest::write_bytes(f, clitest::npy_bytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000,), }", {}));
    EXPECT_EQ(npy_read_f32(f.c_str(), &sh, &data, err, sizeof err), -1);
    EXPECT_NE(std::string(err).find("truncated data: the shape needs 4000000000000 bytes, the file has 0"),
              std::string::npos) << err;
    EXPECT_EQ(data, nullptr);
}

// Through the CLI: every bad input file gives exit status 2, one error line
// naming the file, and no output.
TEST(NpyCli, BadInputFilesExit2WithoutOutput)
{
    TempDir dir;
    std::vector<uint8_t> good = npy_bytes(1, kF4, f32_bits(kBits));
    std::vector<uint8_t> truncated(good.begin(), good.end() - 3);
    std::vector<uint8_t> trailing = good;
    trailing.insert(trailing.end(), {1, 2, 3, 4});
    std::vector<uint8_t> bad_magic = good;
    bad_magic[0] = 'P';
    struct Case {
        const char *name;
        std::vector<uint8_t> bytes;
        const char *needle;
    };
    const std::vector<Case> cases = {
        {"empty.npy", {}, "bad magic"},
        {"magic.npy", bad_magic, "bad magic"},
        {"version.npy", npy_bytes(5, kF4, f32_bits(kBits)), "version 5.0"},
        {"dtype.npy", npy_bytes(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 3), }", {}), "dtype"},
        {"bigend.npy", npy_bytes(1, "{'descr': '>f8', 'fortran_order': False, 'shape': (2, 3), }", {}), "big-endian"},
        {"fortran.npy", npy_bytes(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", f32_bits(kBits)),
         "fortran_order"},
        {"shape.npy", npy_bytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3.5), }", {}), "shape"},
        {"truncated.npy", truncated, "truncated data"},
        {"trailing.npy", trailing, "unexpected bytes"},
        {"header.npy", std::vector<uint8_t>(good.begin(), good.begin() + 30), "truncated .npy header"},
    };
    for (const Case &c : cases) {
        std::string in = dir.file(c.name), out = dir.file("out.npy"), codes = dir.file("codes.npy");
        write_bytes(in, c.bytes);
        RunResult r = run_mxsim(dir, {"quant", "--format", "mxfp8_e4m3", "--codes", codes, in, out});
        EXPECT_EQ(r.status, 2) << c.name;
        EXPECT_NE(r.err.find(in), std::string::npos) << c.name << ": " << r.err;
        EXPECT_NE(r.err.find(c.needle), std::string::npos) << c.name << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << c.name << ": " << r.err;
        EXPECT_FALSE(exists(out)) << c.name;
        EXPECT_FALSE(exists(codes)) << c.name;
        unlink(in.c_str());
        EXPECT_TRUE(dir.list().empty()) << c.name;  // no temporary files either
    }
    RunResult r = run_mxsim(dir, {"quant", "--format", "fp8_e4m3", dir.file("missing.npy"), dir.file("out.npy")});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find(dir.file("missing.npy") + ": cannot open"), std::string::npos) << r.err;
    EXPECT_TRUE(dir.list().empty());
}
