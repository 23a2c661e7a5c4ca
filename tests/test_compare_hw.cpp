// `mxsim run --compare`: the assumptions block says "same ... array ... and
// DRAM" only when both configs have the same hardware, and names both when
// they differ (issue 9: it printed the first config's array as both's).
#include "cli_helpers.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

using namespace clitest;

TEST(RunCompare, AssumptionsNameDifferentHardware)
{
    TempDir t;
    std::ifstream in(std::string(MXSIM_SRC_DIR) + "/configs/bf16.yaml");
    std::stringstream ss;
    ss << in.rdbuf();
    std::string y = ss.str();
    auto sub = [&](const std::string &from, const std::string &to) {
        size_t p = y.find(from);
        ASSERT_NE(p, std::string::npos) << from;
        y.replace(p, from.size(), to);
    };
    sub("  rows: 32", "  rows: 16");
    sub("name: bf16", "name: bf16_16rows");
    sub("table: energy/horowitz45.yaml", "table: " + std::string(MXSIM_SRC_DIR) + "/configs/energy/horowitz45.yaml");
    std::ofstream(t.file("bf16_16.yaml")) << y;
    const std::string trace = std::string(MXSIM_SRC_DIR) + "/traces/tiny_train.csv";
    RunResult same = run_mxsim(t, {"run", "-q", "-c", std::string(MXSIM_SRC_DIR) + "/configs/mxsf.yaml", "--compare",
                                   std::string(MXSIM_SRC_DIR) + "/configs/bf16.yaml", "-t", trace, "--no-sensitivity"});
    ASSERT_EQ(same.status, 0) << same.err;
    EXPECT_NE(same.out.find("  - same 32x32 array, 8 lanes"), std::string::npos) << same.out;
    RunResult diff = run_mxsim(t, {"run", "-q", "-c", std::string(MXSIM_SRC_DIR) + "/configs/mxsf.yaml", "--compare",
                                   t.file("bf16_16.yaml"), "-t", trace, "--no-sensitivity"});
    ASSERT_EQ(diff.status, 0) << diff.err;
    EXPECT_EQ(diff.out.find("same 32x32 array"), std::string::npos) << diff.out;
    EXPECT_NE(diff.out.find("different hardware: mxsf 32x32 array"), std::string::npos) << diff.out;
    EXPECT_NE(diff.out.find("bf16_16rows 16x32"), std::string::npos) << diff.out;
}
