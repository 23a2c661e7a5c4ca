// `mxsim run --mode functional --dump DIR` (issue 11): the dumped output
// tensors (DIR/NAME.PHASE.out.npy, .out_codes.npy, .out_scales.npy).
//  - HandOperands*: --data operands of small integers, exact in the operand
//    format, so the products are exact in FP32 and computed here independently;
//    the dump equals them bit for bit.
//  - EqualsCApi: random operands (--seed); the dump equals the outputs of
//    mx_arch_gemm_functional_mt with an output buffer for the same seed (row i
//    of the trace gets seed + i), with -j 1 and -j 2; the codes and scales equal
//    `mxsim quant` of the dumped FP32 outputs.
//  - SampledRowNotDumped, TimingOnlyRowNotDumped: a row above
//    functional.max_macs, or one the PE cannot take, is not dumped (a note).
// Bad input: tests/badinput/dump.tsv.
#include "cli_helpers.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

extern "C" {
#include "arch/mx_arch.h"
#include "arch/mx_func.h"
#include "arch/mx_trace.h"
}
#include "config_yaml.h"

using namespace clitest;

namespace {

std::string src(const std::string &rel) { return std::string(MXSIM_SRC_DIR) + "/" + rel; }

// The data bytes of an mxsim-written .npy with the expected header.
std::vector<uint8_t> npy_data(const std::string &path, const std::string &descr, const std::string &shape)
{
    std::string dict;
    std::vector<uint8_t> data;
    EXPECT_TRUE(split_npy(read_bytes(path), dict, data)) << path;
    EXPECT_NE(dict.find("'descr': '" + descr + "'"), std::string::npos) << path << ": " << dict;
    EXPECT_NE(dict.find("'shape': " + shape), std::string::npos) << path << ": " << dict;
    return data;
}

std::vector<uint32_t> u32_of(const std::vector<uint8_t> &d)
{
    std::vector<uint32_t> v;
    for (size_t i = 0; i + 4 <= d.size(); i += 4)
        v.push_back((uint32_t)d[i] | (uint32_t)d[i + 1] << 8 | (uint32_t)d[i + 2] << 16 | (uint32_t)d[i + 3] << 24);
    return v;
}

// Removes DIR's files, then DIR (TempDir removes only its own level).
void rm_dir(const std::string &d)
{
    std::string cmd = "rm -rf " + quote(d);
    ASSERT_EQ(system(cmd.c_str()), 0);
}

void hand_operands(const char *config, const char *descr_codes, bool scales)
{
    TempDir t;
    const int M = 5, N = 6, K = 40; // K not a multiple of the 32 block
    std::vector<float> a(M * K), b(K * N);
    // integers in [-7, 7]: exact in BF16 and in MXINT8 (a block's amax < 2^(e+1)
    // puts every element on an integer of at most 7 bits under scale 2^(e-6))
    for (int i = 0; i < M; i++)
        for (int k = 0; k < K; k++) a[i * K + k] = (float)((i * 7 + k * 3) % 15 - 7);
    for (int k = 0; k < K; k++)
        for (int j = 0; j < N; j++) b[k * N + j] = (float)((k * 5 + j * 11 + 3) % 15 - 7);
    write_bytes(t.file("g.fwd.a.npy"), f32_npy("(5, 40)", a));
    write_bytes(t.file("g.fwd.b.npy"), f32_npy("(40, 6)", b));
    std::ofstream(t.file("t.csv")) << "name,M,N,K,phase,count\ng,5,6,40,fwd,3\n";
    const std::string dump = t.file("dump");
    RunResult r = run_mxsim(t, {"run", "-q", "-c", src(config), "-t", t.file("t.csv"), "--mode", "functional",
                                "--data", t.path(), "--dump", dump});
    ASSERT_EQ(r.status, 0) << r.err;
    std::vector<float> got = f32_values(npy_data(dump + "/g.fwd.out.npy", "<f4", "(5, 6)"));
    ASSERT_EQ(got.size(), (size_t)(M * N));
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            long long s = 0;
            for (int k = 0; k < K; k++) s += (long long)a[i * K + k] * (long long)b[k * N + j];
            EXPECT_EQ(bits_of(got[i * N + j]), bits_of((float)s)) << config << " (" << i << ", " << j << ")";
        }
    EXPECT_TRUE(exists(dump + "/g.fwd.out_codes.npy"));
    npy_data(dump + "/g.fwd.out_codes.npy", descr_codes, "(5, 6)");
    EXPECT_EQ(exists(dump + "/g.fwd.out_scales.npy"), scales);
    rm_dir(dump);
}

TEST(RunDump, HandOperandsBf16)
{
    hand_operands("configs/bf16.yaml", "<u2", false);
}

TEST(RunDump, HandOperandsMxint8)
{
    hand_operands("configs/mxint8.yaml", "|u1", true);
}

// The functional model through its C API, as mxsim run calls it.
std::vector<uint32_t> c_api_outputs(const std::string &config, const std::string &trace, size_t row, uint64_t seed,
                                    long long &M, long long &N)
{
    mx_arch_config c;
    char err[800], ep[MX_ARCH_PATH_MAX];
    std::vector<uint32_t> out;
    EXPECT_EQ(mx_config_load(config.c_str(), &c, ep, err, sizeof err), 0) << err;
    EXPECT_EQ(mx_config_dram(config.c_str(), &c, err, sizeof err), 0) << err;
    mx_energy_table tab;
    EXPECT_EQ(mx_energy_load(ep, &tab, err, sizeof err), 0) << err;
    c.energy_tab = &tab;
    mx_trace tr;
    if (mx_trace_load(trace.c_str(), &tr, err, sizeof err) != 0) {
        ADD_FAILURE() << err;
        return out;
    }
    const mx_gemm *g = &tr.gemms[row];
    M = g->M;
    N = g->N;
    out.assign((size_t)(M * N), 0xDEADBEEFu);
    mx_func_data d = {seed + row, nullptr, nullptr};
    mx_stats s;
    EXPECT_EQ(mx_arch_gemm_functional_mt(&c, g, &d, &s, out.data(), 1, err, sizeof err), 0) << err;
    mx_trace_free(&tr);
    return out;
}

TEST(RunDump, EqualsCApi)
{
    TempDir t;
    std::ofstream(t.file("t.csv")) << "name,M,N,K,phase,count\n"
                                      "qkv,40,48,72,fwd,2\n"
                                      "qkv,24,40,48,dgrad,1\n"
                                      "head,17,9,100,inf,1\n";
    const std::string config = src("configs/mxsf.yaml");
    struct Row { const char *name, *phase; size_t row; };
    const Row rows[] = {{"qkv", "fwd", 0}, {"qkv", "dgrad", 1}, {"head", "inf", 2}};
    for (const char *jobs : {"1", "2"}) {
        const std::string dump = t.file(std::string("dump") + jobs);
        RunResult r = run_mxsim(t, {"run", "-q", "-c", config, "-t", t.file("t.csv"), "--mode", "functional",
                                    "--seed", "7", "-j", jobs, "--dump", dump});
        ASSERT_EQ(r.status, 0) << r.err;
        for (const Row &w : rows) {
            long long M = 0, N = 0;
            std::vector<uint32_t> want = c_api_outputs(config, t.file("t.csv"), w.row, 7, M, N);
            const std::string base = dump + "/" + w.name + "." + w.phase;
            const std::string shape = "(" + std::to_string(M) + ", " + std::to_string(N) + ")";
            std::vector<uint32_t> got = u32_of(npy_data(base + ".out.npy", "<f4", shape));
            EXPECT_EQ(got, want) << base << " -j " << jobs;
            // codes and scales: those of `mxsim quant` on the dumped outputs
            // (configs/mxsf.yaml: out mxsf, 8x8 tiles, floor, even)
            RunResult q = run_mxsim(t, {"quant", "--format", "mxsf", "--block", "8x8", base + ".out.npy",
                                        t.file("deq.npy"), "--codes", t.file("c.npy"), "--scales", t.file("s.npy")});
            ASSERT_EQ(q.status, 0) << q.err;
            EXPECT_EQ(read_bytes(base + ".out_codes.npy"), read_bytes(t.file("c.npy"))) << base;
            EXPECT_EQ(read_bytes(base + ".out_scales.npy"), read_bytes(t.file("s.npy"))) << base;
        }
        rm_dir(dump);
    }
}

TEST(RunDump, SampledRowNotDumped)
{
    TempDir t;
    std::ofstream(t.file("t.csv")) << "name,M,N,K,phase,count\nsmall,8,8,32,fwd,1\nbig,64,64,64,fwd,1\n";
    const std::string dump = t.file("d");
    RunResult r = run_mxsim(t, {"run", "-q", "-c", src("configs/mxsf.yaml"), "-t", t.file("t.csv"), "--mode",
                                "functional", "--set", "functional.max_macs=100000", "--dump", dump});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(exists(dump + "/small.fwd.out.npy"));
    EXPECT_FALSE(exists(dump + "/big.fwd.out.npy"));
    EXPECT_NE(r.err.find("'big'"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("not dumped"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("functional.max_macs"), std::string::npos) << r.err;
    rm_dir(dump);
}

TEST(RunDump, TimingOnlyRowNotDumped)
{
    TempDir t;
    // BF16 x MXSF: no PE format pair, the row is timed only
    std::ofstream(t.file("t.csv")) << "name,M,N,K,phase,count,a_format,b_format\n"
                                      "ok,8,8,32,fwd,1,,\nmixed,8,8,32,fwd,1,bf16,mxsf\n";
    const std::string dump = t.file("d");
    RunResult r = run_mxsim(t, {"run", "-q", "-c", src("configs/mxsf.yaml"), "-t", t.file("t.csv"), "--mode",
                                "functional", "--dump", dump});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(exists(dump + "/ok.fwd.out.npy"));
    EXPECT_FALSE(exists(dump + "/mixed.fwd.out.npy"));
    EXPECT_NE(r.err.find("'mixed'"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("timing only"), std::string::npos) << r.err;
    rm_dir(dump);
}

// The report says what was sampled: the number of sampled rows and of their
// outputs that were computed (M*N of the sampled row, counted by hand).
TEST(RunSampling, SummaryLineNamesSampledRows)
{
    TempDir t;
    std::ofstream(t.file("t.csv")) << "name,M,N,K,phase,count\nsmall,8,8,32,fwd,1\nbig,64,64,64,fwd,1\n";
    RunResult r = run_mxsim(t, {"run", "-c", src("configs/mxsf.yaml"), "-t", t.file("t.csv"), "--mode",
                                "functional", "--no-progress", "--set", "functional.max_macs=100000"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("sampling: 1 of 2 computed GEMM rows sampled (M*N*K above functional.max_macs 100000)"),
              std::string::npos) << r.out;
    EXPECT_NE(r.out.find("of their 4096 outputs computed"), std::string::npos) << r.out;
}

// The shipped configs compute GEMMs of up to 2^30 MACs in full (issue 11: the
// traces' smaller GEMMs in full by default; 2^24 sampled this one).
TEST(RunSampling, ShippedConfigComputesMidSizeGemmInFull)
{
    TempDir t;
    std::ofstream(t.file("t.csv")) << "name,M,N,K,phase,count\nmid,512,256,256,fwd,1\n"; // 2^25 MACs
    RunResult r = run_mxsim(t, {"run", "-c", src("configs/mxsf.yaml"), "-t", t.file("t.csv"), "--mode",
                                "functional", "--no-progress"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("sampling: none (all 1 computed GEMM rows in full; functional.max_macs 1073741824)"),
              std::string::npos) << r.out;
    EXPECT_NE(r.out.find("over 131072 checked outputs"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("(sampled)"), std::string::npos) << r.out;
}

} // namespace
