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

int mx_line_read(FILE *f, char *buf, size_t cap, int *bad_char)
{
    size_t len = 0;
    int ch, any = 0;
    if (bad_char) *bad_char = 0;
    if (cap < 2) return MX_LINE_TOO_LONG;
    while ((ch = getc(f)) != EOF) {
        any = 1;
        if (ch == '\n') break;
        if (ch == '\0') return MX_LINE_NUL;
        if (ch == '\r') {
            /* CR is allowed only as the CR of a CRLF line end */
            int next = getc(f);
            if (next == '\n' || next == EOF) { ch = next; break; }
            ungetc(next, f);
        }
        if ((ch < 0x20 && ch != '\t') || ch == 0x7f) {
            if (bad_char) *bad_char = ch;
            return MX_LINE_CONTROL;
        }
        if (len + 1 >= cap) return MX_LINE_TOO_LONG;
        buf[len++] = (char)ch;
    }
    if (ch == EOF && ferror(f)) return MX_LINE_READ_ERROR;
    buf[len] = '\0';
    return any ? MX_LINE_OK : MX_LINE_EOF;
}

void mx_line_error(int code, size_t cap, int bad_char, char *out, size_t outlen)
{
    switch (code) {
    case MX_LINE_TOO_LONG:
        snprintf(out, outlen, "line longer than %zu characters", cap ? cap - 1 : 0);
        break;
    case MX_LINE_NUL: snprintf(out, outlen, "NUL byte in the line (not a text file?)"); break;
    case MX_LINE_CONTROL:
        snprintf(out, outlen, "control character 0x%02x in the line%s", (unsigned)bad_char,
                 bad_char == '\r' ? " (bare CR line ends are not supported; use LF or CRLF)" : "");
        break;
    case MX_LINE_READ_ERROR: snprintf(out, outlen, "read error: %s", strerror(errno)); break;
    default: snprintf(out, outlen, "bad line"); break;
    }
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
        if (!ok && mx_format_exmy_problem(s))
            return fail(c, col, "'%s' is not a format: %s", s, mx_format_exmy_problem(s));
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

int mx_trace_row_check(const char *name, long long M, long long N, long long K, long long count,
                       const char **column, char *why, size_t whylen)
{
    size_t len = strlen(name);
    *column = "name";
    if (len == 0) return snprintf(why, whylen, "empty"), -1;
    if (len >= MX_TRACE_NAME_MAX)
        return snprintf(why, whylen, "too long (%zu characters, at most %d)", len, MX_TRACE_NAME_MAX - 1), -1;
    /* a row starting with '#' would read back as a comment */
    if (name[0] == '#') return snprintf(why, whylen, "must not start with '#'"), -1;
    for (const char *p = name; *p; p++)
        if (*p == ',' || (unsigned char)*p < 0x20 || *p == 0x7f)
            return snprintf(why, whylen, "must not contain ',' or control characters"), -1;
    const long long v[4] = {M, N, K, count};
    static const char *const cols[4] = {"M", "N", "K", "count"};
    for (int i = 0; i < 4; i++)
        if (v[i] < 1) {
            *column = cols[i];
            return snprintf(why, whylen, "must be positive: %lld", v[i]), -1;
        }
    /* M*N*K*count must fit so that MAC counts never overflow. */
    long long acc = M;
    for (int i = 1; i < 4; i++) {
        if (acc > LLONG_MAX / v[i]) {
            *column = cols[i];
            return snprintf(why, whylen, "overflow: M*N*K*count exceeds %lld", LLONG_MAX), -1;
        }
        acc *= v[i];
    }
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
    if (parse_positive(c, "M", fields[1], &g->M)) return -1;
    if (parse_positive(c, "N", fields[2], &g->N)) return -1;
    if (parse_positive(c, "K", fields[3], &g->K)) return -1;
    if (mx_phase_parse(fields[4], &g->phase))
        return fail(c, "phase", "unknown phase '%s' (expected fwd, dgrad, wgrad or inf)",
                    fields[4]);
    if (parse_positive(c, "count", fields[5], &g->count)) return -1;
    const char *column;
    char why[160];
    if (mx_trace_row_check(fields[0], g->M, g->N, g->K, g->count, &column, why, sizeof why))
        return fail(c, column, "%s", why);
    memcpy(g->name, fields[0], strlen(fields[0]) + 1);
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

    char *buf = malloc(MX_TRACE_LINE_MAX);
    size_t rows_cap = 0;
    int ncols = 0, rc = 0, r, bad_char;
    char *fields[TRACE_MAX_COLS];
    if (!buf) { fclose(f); return fail(&c, NULL, "out of memory"); }

    while ((r = mx_line_read(f, buf, MX_TRACE_LINE_MAX, &bad_char)) != MX_LINE_EOF) {
        if (c.line == INT_MAX) { rc = fail(&c, NULL, "too many lines"); break; }
        c.line++;
        if (r != MX_LINE_OK) {
            char why[160];
            mx_line_error(r, MX_TRACE_LINE_MAX, bad_char, why, sizeof why);
            rc = fail(&c, NULL, "%s", why);
            break;
        }
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
