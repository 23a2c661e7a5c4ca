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
#include <stdio.h>

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

/*
 * One bounded line of a text input (GEMM traces, DRAM request traces,
 * SCALE-Sim topologies): reads up to '\n' into buf (cap bytes, NUL-terminated,
 * without the '\n' and a CR of a CRLF end).  Reading stops at the first byte
 * that makes the line bad, so an endless stream (/dev/zero, a line without
 * end) costs at most cap bytes.  Returns MX_LINE_OK, MX_LINE_EOF (nothing
 * read), or an error: MX_LINE_TOO_LONG (more than cap - 1 characters),
 * MX_LINE_NUL (a NUL byte: not a text file), MX_LINE_CONTROL (another control
 * character than TAB, e.g. a bare CR of old Mac line ends; *bad_char says
 * which), MX_LINE_READ_ERROR (errno set).
 */
#define MX_LINE_OK 1
#define MX_LINE_EOF 0
#define MX_LINE_READ_ERROR (-1)
#define MX_LINE_NUL (-2)
#define MX_LINE_TOO_LONG (-3)
#define MX_LINE_CONTROL (-4)
#define MX_TRACE_LINE_MAX 4096 /* incl. the NUL: longer GEMM trace lines are refused */
int mx_line_read(FILE *f, char *buf, size_t cap, int *bad_char);

/* Describes an mx_line_read error code in words ("line longer than 4095
 * characters", "NUL byte (not a text file)", "control character 0x0d (bare CR
 * line ends are not supported)", ...) into out. */
void mx_line_error(int code, size_t cap, int bad_char, char *out, size_t outlen);

/* The checks of one trace row beyond its syntax, shared with the importers
 * (so a row they write is one `mxsim run` accepts): name 1..MX_TRACE_NAME_MAX-1
 * characters, not starting with '#', no ',' or control characters; M, N, K,
 * count >= 1 and M*N*K*count within a long long.  0, or -1 with the column
 * at fault in *column and the problem in why. */
int mx_trace_row_check(const char *name, long long M, long long N, long long K, long long count,
                       const char **column, char *why, size_t whylen);

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
