/*
 * mx_format_table.c — the one table of formats (SPEC §2) and the derivation
 * of every per-format constant from its layout.  Adding a format is a line in
 * mx_format_table[] below.
 *
 * MXSF element (SPEC §2.2), a code of 8 bits:
 *
 *    bit  7 | 6 5 | 4 3 2 1 0
 *         s |  E  |     F
 *    E != 0 : FP8 E2M5 normal    (-1)^s 2^(E-1) (1 + F/32)
 *    E == 0 : F = fff.nn, FP5 E3M2 with bias b5:
 *             f >= 1: (-1)^s 2^(f-b5) (1 + n/4);  f == 0: (-1)^s 2^(1-b5) n/4
 */
#include "formats/mx_format.h"
#include "formats/mx_policy.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Layout entries; derived fields are filled in by mx_format_finish(). */
#define FMT(n, k, b, e, m, bi, b5, sp, sg) \
    {.name = n, .kind = k, .bits = b, .ebits = e, .mbits = m, .bias = bi, \
     .fp5_bias = b5, .specials = sp, .is_signed = sg}

/* Layouts only; derived fields are computed by mx_format_finish(). */
static const mx_format mx_format_table[] = {
    /*  name        kind           bits e  m   bias fp5 specials              signed */
    FMT("fp32",     MX_KIND_FLOAT, 32, 8, 23, 127, 0, MX_SPECIALS_IEEE,     1),
    FMT("bf16",     MX_KIND_FLOAT, 16, 8,  7, 127, 0, MX_SPECIALS_IEEE,     1),
    FMT("fp16",     MX_KIND_FLOAT, 16, 5, 10,  15, 0, MX_SPECIALS_IEEE,     1),
    FMT("fp8_e5m2", MX_KIND_FLOAT,  8, 5,  2,  15, 0, MX_SPECIALS_IEEE,     1),
    FMT("fp8_e4m3", MX_KIND_FLOAT,  8, 4,  3,   7, 0, MX_SPECIALS_NAN_ONES, 1),
    FMT("fp8_e3m4", MX_KIND_FLOAT,  8, 3,  4,   3, 0, MX_SPECIALS_NAN_ONES, 1),
    FMT("fp8_e2m5", MX_KIND_FLOAT,  8, 2,  5,   1, 0, MX_SPECIALS_NONE,     1),
    FMT("fp6_e3m2", MX_KIND_FLOAT,  6, 3,  2,   3, 0, MX_SPECIALS_NONE,     1),
    FMT("fp6_e2m3", MX_KIND_FLOAT,  6, 2,  3,   1, 0, MX_SPECIALS_NONE,     1),
    FMT("fp4_e2m1", MX_KIND_FLOAT,  4, 2,  1,   1, 0, MX_SPECIALS_NONE,     1),
    FMT("int8",     MX_KIND_INT,    8, 0,  7,   6, 0, MX_SPECIALS_NONE,     1),
    FMT("e8m0",     MX_KIND_E8M0,   8, 8,  0, 127, 0, MX_SPECIALS_E8M0,     0),
    FMT("mxsf",     MX_KIND_MXSF,   8, 2,  5,   1, MX_MXSF_FP5_BIAS_DEFAULT, MX_SPECIALS_NONE, 1),
};

#define MX_TABLE_LEN ((int)(sizeof mx_format_table / sizeof mx_format_table[0]))

static int msb64(uint64_t x) { return 63 - __builtin_clzll(x); }

/* Fills the derived fields from the layout. */
static void mx_format_finish(mx_format *f)
{
    uint64_t max_sig;
    int max_exp;
    f->sign_mask = f->is_signed ? 1u << (f->bits - 1) : 0;
    switch (f->kind) {
    case MX_KIND_FLOAT:
        f->emin = 1 - f->bias;
        if (f->ebits == 0) {               /* e0mY: fixed point, no normals */
            max_sig = (1ull << f->mbits) - 1;
            max_exp = f->emin - f->mbits;
            f->max_code = (uint32_t)max_sig;
        } else {
            int top = (1 << f->ebits) - 1; /* exponent field of the largest normal */
            if (f->specials == MX_SPECIALS_IEEE) top--;
            max_sig = (2ull << f->mbits) - (f->specials == MX_SPECIALS_NAN_ONES ? 2 : 1);
            max_exp = top - f->bias - f->mbits;
            f->max_code = ((uint32_t)top << f->mbits) | (uint32_t)(max_sig - (1ull << f->mbits));
        }
        f->min_normal = ldexp(1.0, f->emin);
        f->min_subnormal = ldexp(1.0, f->emin - f->mbits);
        break;
    case MX_KIND_INT:
        max_sig = (1ull << (f->bits - 1)) - 1;
        max_exp = -f->bias;
        f->emin = -f->bias;
        f->max_code = (uint32_t)max_sig;
        f->min_normal = f->min_subnormal = ldexp(1.0, -f->bias);
        break;
    case MX_KIND_E8M0:
        max_sig = 1;
        max_exp = 254 - f->bias;
        f->emin = -f->bias;
        f->max_code = 0xFE;
        f->min_normal = f->min_subnormal = ldexp(1.0, -f->bias);
        break;
    case MX_KIND_MXSF:
    default:
        max_sig = 63;          /* 2^2 * (1 + 31/32) = 63 * 2^-3 = 7.875 */
        max_exp = -3;
        f->emin = 1 - f->fp5_bias;
        f->max_code = 0x7F;
        f->min_normal = ldexp(1.0, f->emin);
        f->min_subnormal = ldexp(1.0, -f->fp5_bias - 1);
        break;
    }
    f->max_sig = (uint32_t)max_sig;
    f->max_exp = max_exp;
    f->max_normal = ldexp((double)max_sig, max_exp);
    f->emax = msb64(max_sig) + max_exp;
}

int mx_format_count(void) { return MX_TABLE_LEN; }

int mx_format_at(int i, mx_format *out)
{
    if (i < 0 || i >= MX_TABLE_LEN) return -1;
    *out = mx_format_table[i];
    mx_format_finish(out);
    return 0;
}

/* Reads the decimal width at *p (digits only, at most 2 digits, no leading
 * zero: "e05m2" would name e5m2 under another spelling) and advances p.
 * Returns the width, -1 if there are no digits, -2 if it is not canonical or
 * out of any possible range (so no integer can overflow). */
static int exmy_width(const char **p)
{
    const char *s = *p;
    size_t n = 0;
    while (isdigit((unsigned char)s[n])) n++;
    *p = s + n;
    if (n == 0) return -1;
    if (n > 2 || (n == 2 && s[0] == '0')) return -2;
    return n == 1 ? s[0] - '0' : (s[0] - '0') * 10 + (s[1] - '0');
}

/* Parses "eXmY" (lower case), 1+X+Y <= 16, X <= 7 so every value is a finite
 * FP32 (an e8 format without Inf/NaN codes would reach 2^128).  0 if valid,
 * -1 if name does not have the shape e<digits>m<digits>, -2 if it has it but
 * the widths are not a format. */
static int parse_exmy(const char *s, int *x, int *y)
{
    if (s[0] != 'e') return -1;
    const char *p = s + 1;
    int ex = exmy_width(&p);
    if (ex == -1 || *p != 'm') return -1;
    p++;
    int my = exmy_width(&p);
    if (my == -1 || *p != '\0') return -1;
    if (ex < 0 || my < 0 || ex > 7 || 1 + ex + my > 16 || 1 + ex + my < 2) return -2;
    *x = ex;
    *y = my;
    return 0;
}

const char *mx_format_exmy_problem(const char *name)
{
    int x, y;
    if (!name || parse_exmy(name, &x, &y) != -2) return NULL;
    return "eXmY needs decimal widths without leading zeros, X <= 7 and 2 <= 1+X+Y <= 16";
}

int mx_format_lookup(const char *name, mx_format *out)
{
    int x, y;
    for (int i = 0; i < MX_TABLE_LEN; i++)
        if (strcmp(mx_format_table[i].name, name) == 0) return mx_format_at(i, out);
    if (parse_exmy(name, &x, &y) == 0) {
        mx_format f;
        memset(&f, 0, sizeof f);
        snprintf(f.name, sizeof f.name, "e%dm%d", x, y);
        f.kind = MX_KIND_FLOAT;
        f.bits = 1 + x + y;
        f.ebits = x;
        f.mbits = y;
        f.bias = x > 0 ? (1 << (x - 1)) - 1 : 0;
        f.specials = MX_SPECIALS_NONE;
        f.is_signed = 1;
        mx_format_finish(&f);
        *out = f;
        return 0;
    }
    return -1;
}

int mx_format_mxsf(int fp5_bias, mx_format *out)
{
    if (fp5_bias < MX_MXSF_FP5_BIAS_MIN || fp5_bias > MX_MXSF_FP5_BIAS_MAX) return -1;
    mx_format_lookup("mxsf", out);
    out->fp5_bias = fp5_bias;
    mx_format_finish(out);
    if (fp5_bias != MX_MXSF_FP5_BIAS_DEFAULT)
        snprintf(out->name, sizeof out->name, "mxsf_b%d", fp5_bias);
    return 0;
}

int mx_round_parse(const char *s, mx_round *out)
{
    static const char *names[] = {"even", "nearest", "floor", "stochastic"};
    for (int i = 0; i < 4; i++)
        if (strcmp(s, names[i]) == 0) { *out = (mx_round)i; return 0; }
    return -1;
}

const char *mx_round_name(mx_round r)
{
    static const char *names[] = {"even", "nearest", "floor", "stochastic"};
    return (unsigned)r < 4 ? names[r] : "?";
}

int mx_overflow_parse(const char *s, mx_overflow *out)
{
    if (strcmp(s, "saturate") == 0) { *out = MX_OVERFLOW_SATURATE; return 0; }
    if (strcmp(s, "inf_nan") == 0) { *out = MX_OVERFLOW_INF_NAN; return 0; }
    return -1;
}
