/*
 * mx_trace.c — loader for GEMM trace CSV files (format: docs/TRACES.md).
 *
 * The parser is deliberately strict: every field is checked, and the first
 * problem is reported as one line "FILE:LINE: column 'X': what is wrong".
 * Fields are plain (no quoting); blanks around a field are ignored.
 */
#include "arch/mx_trace.h"
#include "formats/mx_block.h"
#include "formats/mx_format.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRACE_MAX_COLS 8
#define TRACE_MIN_COLS 6

static const char *const trace_columns[TRACE_MAX_COLS] = {
    "name", "M", "N", "K", "phase", "count", "a_format", "b_format"};

static const char *const phase_names[] = {"fwd", "dgrad", "wgrad", "inf"};

const char *mx_phase_name(mx_phase phase)
{
    return (unsigned)phase < 4u ? phase_names[phase] : "?";
}

int mx_phase_parse(const char *s, mx_phase *phase)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(s, phase_names[i]) == 0) {
            *phase = (mx_phase)i;
            return 0;
        }
    return -1;
}

long long mx_gemm_macs(const mx_gemm *g)
{
    return g->M * g->N * g->K * g->count;
}

long long mx_trace_total_macs(const mx_trace *t, unsigned phase_mask)
{
    long long total = 0;
    for (size_t i = 0; i < t->n; i++) {
        const mx_gemm *g = &t->gemms[i];
        if (!(phase_mask & (1u << g->phase))) continue;
        long long m = mx_gemm_macs(g);
        if (total > LLONG_MAX - m) return LLONG_MAX;
        total += m;
    }
    return total;
}

void mx_trace_free(mx_trace *t)
{
    if (!t) return;
    free(t->gemms);
    t->gemms = NULL;
    t->n = 0;
}

/* ---- parsing ------------------------------------------------------------ */

typedef struct {
    const char *path;
    int line;
    char *err;
    size_t errlen;
} trace_ctx;

static int fail(const trace_ctx *c, const char *column, const char *fmt, ...)
{
    if (!c->err || c->errlen == 0) return -1;
    int n;
    if (c->line > 0 && column)
        n = snprintf(c->err, c->errlen, "%s:%d: column '%s': ", c->path, c->line, column);
    else if (c->line > 0)
        n = snprintf(c->err, c->errlen, "%s:%d: ", c->path, c->line);
    else
        n = snprintf(c->err, c->errlen, "%s: ", c->path);
    if (n < 0 || (size_t)n >= c->errlen) return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* Reads one line (without '\n' and a trailing '\r') into a growing buffer.
 * Returns 1 for a line, 0 at end of file, -1 on a read or memory error,
 * -2 if the line holds a NUL byte. */
static int read_line(FILE *f, char **buf, size_t *cap)
{
    size_t len = 0;
    int ch, nul = 0;
    while ((ch = fgetc(f)) != EOF) {
        if (len + 2 > *cap) {
            size_t ncap = *cap ? *cap * 2 : 256;
            char *nb = realloc(*buf, ncap);
            if (!nb) return -1;
            *buf = nb;
            *cap = ncap;
        }
        if (ch == '\n') break;
        if (ch == '\0') nul = 1;
        (*buf)[len++] = (char)ch;
    }
    if (ferror(f)) return -1;
    if (ch == EOF && len == 0) return 0;
    if (len > 0 && (*buf)[len - 1] == '\r') len--;
    (*buf)[len] = '\0';
    return nul ? -2 : 1;
}

static int is_blank(char ch) { return ch == ' ' || ch == '\t'; }

static char *trim(char *s)
{
    while (is_blank(*s)) s++;
    size_t n = strlen(s);
    while (n > 0 && is_blank(s[n - 1])) s[--n] = '\0';
    return s;
}

/* Splits s at commas in place; returns the number of fields (may exceed max,
 * in which case only the first max are stored). */
static int split(char *s, char **fields, int max)
{
    int n = 0;
    for (;;) {
        char *comma = strchr(s, ',');
        if (comma) *comma = '\0';
        if (n < max) fields[n] = trim(s);
        n++;
        if (!comma) return n;
        s = comma + 1;
    }
}

/* A positive decimal integer: digits only, no sign, no exponent. */
static int parse_positive(const trace_ctx *c, const char *col, const char *s, long long *out)
{
    if (*s == '\0') return fail(c, col, "empty, expected a positive integer");
    const char *p = s;
    if (*p == '-' || *p == '+') p++;
    if (*p == '\0') return fail(c, col, "not an integer: '%s'", s);
    for (const char *q = p; *q; q++)
        if (*q < '0' || *q > '9') return fail(c, col, "not an integer: '%s'", s);
    if (*s == '-') return fail(c, col, "must be positive: '%s'", s);
    long long v = 0;
    for (; *p; p++) {
        int d = *p - '0';
        if (v > (LLONG_MAX - d) / 10) return fail(c, col, "integer overflow: '%s'", s);
        v = v * 10 + d;
    }
    if (v <= 0) return fail(c, col, "must be positive: '%s'", s);
    *out = v;
    return 0;
}

/* Element format override: empty, a format-table name / eXmY (per-tensor,
 * unit scales), an MX block format name (mxfp8_e4m3, mxint8, ...), or mxsf_bN. */
static int check_format(const trace_ctx *c, const char *col, const char *s, char *dst)
{
    if (strlen(s) >= MX_TRACE_FORMAT_MAX)
        return fail(c, col, "format name too long (%zu characters, at most %d): '%s'",
                    strlen(s), MX_TRACE_FORMAT_MAX - 1, s);
    if (*s) {
        mx_format f;
        int ok = mx_format_lookup(s, &f) == 0 || mx_block_format_lookup(s, &f) == 0;
        if (!ok && strncmp(s, "mxsf_b", 6) == 0) {
            long long b;
            trace_ctx quiet = *c;
            quiet.err = NULL;
            if (parse_positive(&quiet, col, s + 6, &b) == 0 && b <= INT_MAX)
                ok = mx_format_mxsf((int)b, &f) == 0;
        }
        if (!ok) return fail(c, col, "unknown element format '%s'", s);
    }
    memcpy(dst, s, strlen(s) + 1);
    return 0;
}

static int parse_header(const trace_ctx *c, char **fields, int n, int *ncols)
{
    if (n != TRACE_MIN_COLS && n != TRACE_MAX_COLS)
        return fail(c, NULL,
                    "bad header: %d columns, expected 'name,M,N,K,phase,count' "
                    "optionally followed by ',a_format,b_format'", n);
    for (int i = 0; i < n; i++)
        if (strcmp(fields[i], trace_columns[i]) != 0)
            return fail(c, trace_columns[i],
                        "bad header: column %d is '%s', expected '%s'", i + 1, fields[i],
                        trace_columns[i]);
    *ncols = n;
    return 0;
}

static int parse_row(const trace_ctx *c, char **fields, int n, int ncols, mx_gemm *g)
{
    if (n != ncols)
        return fail(c, NULL, "%d columns, expected %d (%s)", n, ncols,
                    ncols == TRACE_MAX_COLS ? "name,M,N,K,phase,count,a_format,b_format"
                                            : "name,M,N,K,phase,count");
    memset(g, 0, sizeof *g);
    g->line = c->line;
    size_t len = strlen(fields[0]);
    if (len == 0) return fail(c, "name", "empty");
    if (len >= MX_TRACE_NAME_MAX)
        return fail(c, "name", "too long (%zu characters, at most %d)", len,
                    MX_TRACE_NAME_MAX - 1);
    memcpy(g->name, fields[0], len + 1);
    if (parse_positive(c, "M", fields[1], &g->M)) return -1;
    if (parse_positive(c, "N", fields[2], &g->N)) return -1;
    if (parse_positive(c, "K", fields[3], &g->K)) return -1;
    if (mx_phase_parse(fields[4], &g->phase))
        return fail(c, "phase", "unknown phase '%s' (expected fwd, dgrad, wgrad or inf)",
                    fields[4]);
    if (parse_positive(c, "count", fields[5], &g->count)) return -1;
    /* M*N*K*count must fit so that MAC counts never overflow. */
    long long acc = g->M;
    const long long factors[3] = {g->N, g->K, g->count};
    static const char *const factor_cols[3] = {"N", "K", "count"};
    for (int i = 0; i < 3; i++) {
        if (acc > LLONG_MAX / factors[i])
            return fail(c, factor_cols[i], "overflow: M*N*K*count exceeds %lld", LLONG_MAX);
        acc *= factors[i];
    }
    if (ncols == TRACE_MAX_COLS) {
        if (check_format(c, "a_format", fields[6], g->a_format)) return -1;
        if (check_format(c, "b_format", fields[7], g->b_format)) return -1;
    }
    return 0;
}

int mx_trace_load(const char *path, mx_trace *t, char *err, size_t errlen)
{
    trace_ctx c = {path ? path : "(null)", 0, err, errlen};
    if (err && errlen) err[0] = '\0';
    if (!t) return fail(&c, NULL, "no trace to load into");
    t->gemms = NULL;
    t->n = 0;
    if (!path) return fail(&c, NULL, "no trace file given");

    FILE *f = fopen(path, "rb");
    if (!f) return fail(&c, NULL, "cannot open: %s", strerror(errno));

    char *buf = NULL;
    size_t cap = 0, rows_cap = 0;
    int ncols = 0, rc = 0, r;
    char *fields[TRACE_MAX_COLS];

    while ((r = read_line(f, &buf, &cap)) != 0) {
        if (c.line == INT_MAX) { rc = fail(&c, NULL, "too many lines"); break; }
        c.line++;
        if (r == -1) { rc = fail(&c, NULL, "read error: %s", strerror(errno)); break; }
        if (r == -2) { rc = fail(&c, NULL, "contains a NUL byte"); break; }
        char *s = trim(buf);
        if (*s == '\0' || *s == '#') continue;
        int n = split(s, fields, TRACE_MAX_COLS); /* n may exceed TRACE_MAX_COLS */
        if (ncols == 0) {
            if (parse_header(&c, fields, n, &ncols)) { rc = -1; break; }
            continue;
        }
        if (t->n == rows_cap) {
            size_t ncap = rows_cap ? rows_cap * 2 : 64;
            mx_gemm *ng = realloc(t->gemms, ncap * sizeof *ng);
            if (!ng) { rc = fail(&c, NULL, "out of memory"); break; }
            t->gemms = ng;
            rows_cap = ncap;
        }
        if (parse_row(&c, fields, n, ncols, &t->gemms[t->n])) { rc = -1; break; }
        t->n++;
    }
    free(buf);
    fclose(f);

    if (c.line == 0) c.line = 1; /* an empty file: point at its first line */
    if (rc == 0 && ncols == 0) {
        rc = fail(&c, NULL, "empty trace: no header line 'name,M,N,K,phase,count'");
    } else if (rc == 0 && t->n == 0) {
        rc = fail(&c, NULL, "empty trace: header but no GEMM rows");
    }
    if (rc) mx_trace_free(t);
    return rc;
}
