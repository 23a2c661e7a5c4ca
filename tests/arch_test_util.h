// arch_test_util.h — small helpers shared by the accelerator-model tests
// (test_arch_*.cpp, test_cycle.cpp, test_mapper.cpp).
#ifndef MXSIM_ARCH_TEST_UTIL_H
#define MXSIM_ARCH_TEST_UTIL_H

#include <cstdio>
#include <cstring>

extern "C" {
#include "arch/mx_arch.h"
}

// One trace row M x N x K (count 1) in a phase.
inline mx_gemm test_gemm(long long M, long long N, long long K, mx_phase ph = MX_PHASE_FWD)
{
    mx_gemm g;
    std::memset(&g, 0, sizeof g);
    std::snprintf(g.name, sizeof g.name, "g");
    g.M = M; g.N = N; g.K = K; g.count = 1; g.phase = ph;
    return g;
}

// The same format for A, B and the outputs.
inline void set_formats(mx_arch_config &c, const char *fmt)
{
    std::snprintf(c.a_format, sizeof c.a_format, "%s", fmt);
    std::snprintf(c.b_format, sizeof c.b_format, "%s", fmt);
    std::snprintf(c.out_format, sizeof c.out_format, "%s", fmt);
}

#endif
