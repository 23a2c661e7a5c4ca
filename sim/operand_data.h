/*
 * operand_data.h — functional-mode GEMM operands from .npy files, shared by
 * `mxsim run --data DIR` and `mxsim cosim --level array --data DIR`.
 *
 * File: DIR/NAME.PHASE.WHICH.npy (WHICH "a": M x K, "b": K x N, row-major),
 * float32 or float64 (sim/npy.h).  An absent file is not an error (the caller
 * uses its seeded random operand); a present one must parse, have exactly the
 * GEMM's shape and only finite elements.
 */
#ifndef MXSIM_OPERAND_DATA_H
#define MXSIM_OPERAND_DATA_H

#include "arch/mx_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Loads operand `which` of GEMM g (trace line from trace_path) from dir into
 * *out (malloc'ed, rows*cols floats; NULL when dir is NULL or the file is
 * absent).  Returns 0, or 2 after printing one line "PROG: FILE: problem" to
 * stderr (*out NULL then). */
int mx_operand_load(const char *prog, const char *dir, const char *trace_path, const mx_gemm *g,
                    const char *which, long long rows, long long cols, float **out);

#ifdef __cplusplus
}
#endif
#endif
