/*
 * mx_func.h — functional mode with a thread count (issue 11).  The same as
 * mx_arch_gemm_functional() (mx_arch.h), which is this with threads = 1:
 * output rows are split across `threads` worker threads (<= 0: the number of
 * online CPUs); every output's bits, the QSNR and the counters are the same
 * for any thread count (each output is computed by one thread in one fixed
 * order, the reductions are done in row order after the join).
 * (A separate header because mx_arch.h belongs to the architecture model;
 * the declaration can move there.)
 */
#ifndef MX_ARCH_FUNC_H
#define MX_ARCH_FUNC_H

#include "arch/mx_arch.h"

#ifdef __cplusplus
extern "C" {
#endif

int mx_arch_gemm_functional_mt(const mx_arch_config *c, const mx_gemm *g, const mx_func_data *d,
                               mx_stats *s, uint32_t *out, int threads, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
