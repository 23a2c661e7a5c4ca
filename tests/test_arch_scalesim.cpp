// SCALE-Sim v2 known answers (tests/golden/scalesim/, produced by SCALE-Sim
// itself, see its README): `mxsim import-scalesim` + the timing model must
// reproduce every row's "Total Cycles" for OS, WS and IS.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_helpers.h"

extern "C" {
#include "arch/mx_arch.h"
#include "arch/mx_trace.h"
#include "config_yaml.h"
}

namespace {

std::string golden(const std::string &f) { return std::string(MXSIM_SRC_DIR) + "/tests/golden/scalesim/" + f; }

std::vector<long long> total_cycles_column(const std::string &path)
{
    std::ifstream f(path);
    std::string line;
    std::vector<long long> out;
    std::getline(f, line); // header: LayerID, Total Cycles, ...
    EXPECT_NE(line.find("Total Cycles"), std::string::npos);
    while (std::getline(f, line)) {
        std::stringstream ls(line);
        std::string id, cyc;
        std::getline(ls, id, ',');
        std::getline(ls, cyc, ',');
        if (!cyc.empty()) out.push_back(std::stoll(cyc));
    }
    return out;
}

} // namespace

TEST(ArchScaleSim, GoldenComputeReportsAllDataflows)
{
    int matched = 0;
    for (const char *df : {"os", "ws", "is"}) {
        clitest::TempDir d;
        std::string out = d.file("imp");
        auto r = clitest::run_mxsim(d, {"import-scalesim", golden(std::string(df) + "-8x8.cfg"),
                                        golden("topology_mnk.csv"), "-o", out,
                                        "--energy", std::string(MXSIM_SRC_DIR) + "/configs/energy/horowitz45.yaml"});
        ASSERT_EQ(r.status, 0) << r.err;
        mx_arch_config c;
        char err[600], ep[MX_ARCH_PATH_MAX];
        ASSERT_EQ(mx_config_load((out + "/config.yaml").c_str(), &c, ep, err, sizeof err), 0) << err;
        mx_trace tr;
        ASSERT_EQ(mx_trace_load((out + "/trace.csv").c_str(), &tr, err, sizeof err), 0) << err;
        unlink((out + "/config.yaml").c_str());
        unlink((out + "/trace.csv").c_str());
        rmdir(out.c_str());
        EXPECT_EQ(c.rows, 8);
        EXPECT_EQ(c.cols, 8);
        EXPECT_STREQ(mx_dataflow_name(c.dataflow), df);
        std::vector<long long> want = total_cycles_column(golden(std::string(df) + "-8x8.COMPUTE_REPORT.csv"));
        ASSERT_EQ(want.size(), tr.n);
        for (size_t i = 0; i < tr.n; i++) {
            mx_stats s;
            ASSERT_EQ(mx_arch_gemm_timing(&c, &tr.gemms[i], &s, err, sizeof err), 0) << err;
            EXPECT_EQ(s.cycles, want[i]) << df << " layer " << i << " (" << tr.gemms[i].M << "x"
                                         << tr.gemms[i].N << "x" << tr.gemms[i].K << ")";
            matched += s.cycles == want[i];
        }
        mx_trace_free(&tr);
    }
    EXPECT_EQ(matched, 9);
}

// Independent closed forms from SCALE-Sim's conventions (docs/ARCH.md), for
// convolution topologies (SCALE-Sim's im2col view) and ragged shapes:
//   OS: Sr = M, Sc = N, T = K;  WS: Sr = K, Sc = N, T = M;  IS: Sr = K, Sc = M, T = N
//   folds = ceil(Sr/R) * ceil(Sc/C); per fold OS: T + R + C - 2; WS/IS: T + 2R + C - 2
//   reported total = folds * per-fold - 1.
TEST(ArchScaleSim, ConvTopologyClosedForm)
{
    clitest::TempDir d;
    std::string cfg = d.file("a.cfg"), topo = d.file("t.csv"), out = d.file("o");
    std::ofstream(topo) << "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\n"
                           "Conv1, 14, 14, 3, 3, 5, 7, 1,\n"
                           "Conv2, 9, 11, 2, 3, 4, 13, 2,\n";
    for (const char *df : {"os", "ws", "is"}) {
        std::ofstream(cfg) << "[general]\nrun_name = t\n[architecture_presets]\nArrayHeight: 4\nArrayWidth: 6\n"
                              "IfmapSramSzkB: 64\nFilterSramSzkB: 64\nOfmapSramSzkB: 64\nDataflow : "
                           << df << "\n";
        auto r = clitest::run_mxsim(d, {"import-scalesim", cfg, topo, "-o", out, "--energy",
                                        std::string(MXSIM_SRC_DIR) + "/configs/energy/horowitz45.yaml"});
        ASSERT_EQ(r.status, 0) << r.err;
        mx_arch_config c;
        char err[600], ep[MX_ARCH_PATH_MAX];
        ASSERT_EQ(mx_config_load((out + "/config.yaml").c_str(), &c, ep, err, sizeof err), 0) << err;
        mx_trace tr;
        ASSERT_EQ(mx_trace_load((out + "/trace.csv").c_str(), &tr, err, sizeof err), 0) << err;
        ASSERT_EQ(tr.n, 2u);
        // SCALE-Sim's ofmap size is ceil((in - filter + stride) / stride):
        // Conv1: 12x12 -> M 144, N 7, K 45.  Conv2: ceil(9/2) x ceil(10/2) = 5x5.
        long long dims[2][3] = {{144, 7, 45}, {25, 13, 24}};
        for (int i = 0; i < 2; i++) {
            EXPECT_EQ(tr.gemms[i].M, dims[i][0]);
            EXPECT_EQ(tr.gemms[i].N, dims[i][1]);
            EXPECT_EQ(tr.gemms[i].K, dims[i][2]);
            long long M = dims[i][0], N = dims[i][1], K = dims[i][2], R = 4, C = 6;
            long long sr, sc, t;
            if (df[0] == 'o') { sr = M; sc = N; t = K; }
            else if (df[0] == 'w') { sr = K; sc = N; t = M; }
            else { sr = K; sc = M; t = N; }
            long long folds = ((sr + R - 1) / R) * ((sc + C - 1) / C);
            long long per = df[0] == 'o' ? t + R + C - 2 : t + 2 * R + C - 2;
            mx_stats s;
            ASSERT_EQ(mx_arch_gemm_timing(&c, &tr.gemms[i], &s, err, sizeof err), 0);
            EXPECT_EQ(s.cycles, folds * per - 1) << df << " " << i;
        }
        mx_trace_free(&tr);
        unlink((out + "/config.yaml").c_str());
        unlink((out + "/trace.csv").c_str());
    }
    rmdir(out.c_str());
    // bad input: one line naming file, line and key
    std::ofstream(cfg) << "[architecture_presets]\nArrayHeight: 0\n";
    auto r = clitest::run_mxsim(d, {"import-scalesim", cfg, topo, "-o", out});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "mxsim import-scalesim: " + cfg + ":2: key 'ArrayHeight': must be a positive integer, got '0'\n");
}

// SCALE-Sim's own regression answers on its shipped topologies (AlexNet conv1,
// its M,N,K test layer), 32 x 32: our compute cycles must equal SCALE-Sim's
// total minus its memory stalls (tests/golden/scalesim/shipped/).
TEST(ArchScaleSim, ShippedTopologiesOfScaleSim)
{
    std::ifstream f(golden("shipped/compute_reports.csv"));
    ASSERT_TRUE(f.good());
    std::string line;
    int rows = 0, matched = 0;
    while (std::getline(f, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::vector<std::string> v;
        std::stringstream ls(line);
        std::string x;
        while (std::getline(ls, x, ',')) v.push_back(x);
        ASSERT_EQ(v.size(), 7u) << line;
        clitest::TempDir d;
        std::string cfg = d.file("s.cfg"), out = d.file("o");
        std::ofstream(cfg) << "[architecture_presets]\nArrayHeight: " << v[3] << "\nArrayWidth: " << v[4]
                           << "\nIfmapSramSzkB: 6144\nFilterSramSzkB: 6144\nOfmapSramSzkB: 2048\nDataflow : " << v[2] << "\n";
        auto r = clitest::run_mxsim(d, {"import-scalesim", cfg, golden("shipped/" + v[1]), "-o", out, "--energy",
                                        std::string(MXSIM_SRC_DIR) + "/configs/energy/horowitz45.yaml"});
        ASSERT_EQ(r.status, 0) << r.err;
        mx_arch_config c;
        char err[600], ep[MX_ARCH_PATH_MAX];
        ASSERT_EQ(mx_config_load((out + "/config.yaml").c_str(), &c, ep, err, sizeof err), 0) << err;
        mx_trace tr;
        ASSERT_EQ(mx_trace_load((out + "/trace.csv").c_str(), &tr, err, sizeof err), 0) << err;
        unlink((out + "/config.yaml").c_str());
        unlink((out + "/trace.csv").c_str());
        rmdir(out.c_str());
        ASSERT_EQ(tr.n, 1u);
        mx_stats s;
        ASSERT_EQ(mx_arch_gemm_timing(&c, &tr.gemms[0], &s, err, sizeof err), 0) << err;
        long long want = std::stoll(v[5]) - std::stoll(v[6]);
        EXPECT_EQ(s.cycles, want) << v[0];
        matched += s.cycles == want;
        rows++;
        mx_trace_free(&tr);
    }
    EXPECT_EQ(rows, 4);
    EXPECT_EQ(matched, 4);
}
