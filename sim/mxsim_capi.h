/*
 * mxsim_capi.h — a small, stable C ABI over the C core for foreign-function
 * callers (the Python package sim/python/mxsim loads build/libmxcore.so with
 * ctypes).  Plain C types only: an opaque config handle, FP32 buffers, long
 * long extents, an error buffer.  Nothing here computes numerics: a GEMM is
 * mx_arch_gemm_functional_mt (models/arch/mx_func.h) on the caller's operands,
 * the same call `mxsim run --mode functional --data` makes.
 */
#ifndef MXSIM_CAPI_H
#define MXSIM_CAPI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped when a signature below changes; the Python layer checks it. */
#define MXSIM_CAPI_ABI 3
int mxsim_capi_abi(void);
/* "mxsim VERSION (git ...)" */
const char *mxsim_capi_version(void);

typedef struct mxsim_capi_config mxsim_capi_config;

/* Loads a YAML configuration as `mxsim run -c PATH --set ...` does
 * (mx_config_load, each "key=value" of sets in order, the DRAM model).
 * NULL with a one-line message in err on failure. */
mxsim_capi_config *mxsim_capi_config_load(const char *path, const char *const *sets, int nsets, char *err,
                                          size_t errlen);
void mxsim_capi_config_free(mxsim_capi_config *c);

/* The numeric keys of a config, as "key=value" lines ("name", "a", "b",
 * "out", "block", "tile_rows", "tile_cols", "lanes", "round", "scale_rule",
 * "mxsf_fp5_bias", "align_width").  Returns the length written (< len). */
int mxsim_capi_config_describe(const mxsim_capi_config *c, char *buf, size_t len);

/* out[M x N] = A[M x K] . B[K x N] (row-major FP32; out receives M*N FP32
 * bit patterns, 4-byte aligned) through the config's
 * bit-exact functional datapath: A quantized along K (rows of A), B along K
 * (columns of B), 1-D blocks or 2-D tiles per the config.  phase: 0 fwd,
 * 1 dgrad, 2 wgrad, 3 inf (a label; the numerics do not depend on it).
 * a_format / b_format: per-operand overrides as a trace's columns (NULL or
 * "" = the config's).  threads <= 0: all online CPUs.  qsnr_db (may be NULL)
 * receives the QSNR against the FP64 product of the unquantized operands.
 * Returns 0; 1 when the PE cannot take the format pair (no values; reason in
 * err); -1 with a message. */
int mxsim_capi_gemm(const mxsim_capi_config *c, long long M, long long N, long long K, const float *A,
                    const float *B, void *out, int phase, const char *a_format, const char *b_format,
                    int threads, double *qsnr_db, long long *cycles, char *err, size_t errlen);

/* The output re-quantization of `mxsim run --dump` (the RQU's format):
 * y (M x N FP32) encoded in the config's format.out -- MX formats in
 * format.tile 2-D tiles over (M, N) or format.block blocks along N, with
 * format.scale_rule and format.round, saturating; plain formats per element
 * -- and decoded back into deq (M x N FP32; may equal y).  fp32 out: a copy.
 * 0, or -1 with a message. */
int mxsim_capi_requant(const mxsim_capi_config *c, long long M, long long N, const float *y, float *deq, char *err,
                       size_t errlen);

/* `count` independent GEMMs of one shape (attention: one per batch element
 * and head): instance i is mxsim_capi_gemm on A + i*M*K, B + i*K*N into
 * out + i*M*N (the same bits), instances spread over `threads` threads
 * (<= 0: all online CPUs), each instance on one thread.  Returns as
 * mxsim_capi_gemm (the first failing instance's result and message). */
int mxsim_capi_gemm_batch(const mxsim_capi_config *c, long long count, long long M, long long N, long long K,
                          const float *A, const float *B, void *out, int phase, int threads, char *err,
                          size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
