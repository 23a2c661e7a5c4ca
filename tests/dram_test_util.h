// dram_test_util.h — the DRAM-preset config shared by the DRAM-model tests
// of the accelerator (test_arch_dram.cpp, test_probe_seq.cpp).
#ifndef MXSIM_DRAM_TEST_UTIL_H
#define MXSIM_DRAM_TEST_UTIL_H

#include <gtest/gtest.h>

#include <cstdio>

extern "C" {
#include "arch/mx_arch.h"
}
#include "config_yaml.h"

// configs/mxsf.yaml with a DRAM preset (configs/dram/)
inline mx_arch_config preset_cfg(const char *dram)
{
    mx_arch_config c;
    char err[600], ep[600], set[80];
    std::snprintf(set, sizeof set, "memory.dram=%s", dram);
    EXPECT_EQ(mx_config_load(MXSIM_SRC_DIR "/configs/mxsf.yaml", &c, ep, err, sizeof err), 0) << err;
    EXPECT_EQ(mx_config_override(&c, set, err, sizeof err), 0) << err;
    EXPECT_EQ(mx_config_dram(MXSIM_SRC_DIR "/configs/mxsf.yaml", &c, err, sizeof err), 0) << err;
    return c;
}

#endif
