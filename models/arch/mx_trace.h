/*
 * mx_trace.h — GEMM traces: the workload the accelerator model runs (SPEC §4).
 *
 * A trace is a CSV file (format in docs/TRACES.md):
 *
 *   # comment lines start with '#' (used for the derivation of every row)
 *   name,M,N,K,phase,count[,a_format,b_format]
 *   conv1,401408,64,147,fwd,1
 *
 * One row is one GEMM  C[M x N] = A[M x K] * B[K x N], repeated `count` times
 * (per head, per layer, per batch ...).  phase is fwd, dgrad, wgrad or inf.
 * Training conventions: fwd Y = X*W (M tokens, K in, N out); dgrad dX = dY*W^T
 * (M tokens, K out, N in); wgrad dW = X^T*dY (M in, K tokens, N out).
 * a_format / b_format name per-operand element formats; empty (or absent
 * columns) means "use the configuration's format".
 *
 * Core code: C11, libc only, no global state.
 */
#ifndef MX_TRACE_H
#define MX_TRACE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    MX_PHASE_FWD = 0, /* forward:         Y  = X * W     */
    MX_PHASE_DGRAD,   /* data gradient:   dX = dY * W^T  */
    MX_PHASE_WGRAD,   /* weight gradient: dW = X^T * dY  */
    MX_PHASE_INF      /* inference forward               */
} mx_phase;

#define MX_TRACE_NAME_MAX   64 /* incl. the terminating NUL */
#define MX_TRACE_FORMAT_MAX 24 /* incl. the terminating NUL */

typedef struct {
    char name[MX_TRACE_NAME_MAX];
    long long M, N, K, count;    /* all >= 1 */
    mx_phase phase;
    char a_format[MX_TRACE_FORMAT_MAX]; /* "" = the configuration's format */
    char b_format[MX_TRACE_FORMAT_MAX];
    int line;                    /* 1-based line number in the file */
} mx_gemm;

typedef struct {
    mx_gemm *gemms;
    size_t n;
} mx_trace;

/*
 * Load a trace.  Returns 0 on success (t->n >= 1), or -1 with *t empty and a
 * one-line message in err such as
 *   "traces/x.csv:7: column 'K': not a positive integer: '0'"
 * naming the file, the line and (where one is at fault) the column.
 * err may be NULL; errlen is its size.
 */
int mx_trace_load(const char *path, mx_trace *t, char *err, size_t errlen);

/* Free the rows and leave *t empty; safe on an empty or zeroed trace. */
void mx_trace_free(mx_trace *t);

/* "fwd", "dgrad", "wgrad", "inf"; "?" for an out-of-range value. */
const char *mx_phase_name(mx_phase phase);

/* Parse a phase name; returns 0 and sets *phase, or -1 if unknown. */
int mx_phase_parse(const char *s, mx_phase *phase);

/* MACs of one row: M*N*K*count.  Rows are limited at load time so that this
 * fits in a long long. */
long long mx_gemm_macs(const mx_gemm *g);

/* Sum of mx_gemm_macs over the rows whose phase is in phase_mask
 * (bit (1 << MX_PHASE_x); MX_TRACE_ALL_PHASES for all).  Saturates at
 * LLONG_MAX rather than overflowing. */
#define MX_TRACE_ALL_PHASES 0xF
long long mx_trace_total_macs(const mx_trace *t, unsigned phase_mask);

#ifdef __cplusplus
}
#endif

#endif /* MX_TRACE_H */
