/*
 * mx_ref_dot.c — exact reference for mx_pe_dot (see mx_ref_dot.h).
 */
#include "mx_ref_dot.h"
#include "formats/mx_format.h"
#include "units/mx_pe_format.h"

#include <math.h>
#include <string.h>

/* ---- 2048-bit signed fixed point, lsb = 2^-1024 ---------------------------- */
#define BN_WORDS 32
#define BN_LSB   (-1024)
typedef struct { int neg; uint64_t w[BN_WORDS]; } bignum;

static void bn_set(bignum *x, int neg, uint64_t mag, int exp)
{
    memset(x, 0, sizeof *x);
    x->neg = neg;
    for (int b = 0; b < 64; b++)
        if ((mag >> b) & 1) {
            int pos = b + exp - BN_LSB;
            x->w[pos / 64] |= 1ull << (pos % 64);
        }
}

static int bn_cmp_mag(const bignum *a, const bignum *b)
{
    for (int i = BN_WORDS - 1; i >= 0; i--)
        if (a->w[i] != b->w[i]) return a->w[i] > b->w[i] ? 1 : -1;
    return 0;
}

static int bn_is_zero(const bignum *a)
{
    for (int i = 0; i < BN_WORDS; i++) if (a->w[i]) return 0;
    return 1;
}

/* r = a + b (signed) */
static void bn_add(bignum *r, const bignum *a, const bignum *b)
{
    if (a->neg == b->neg) {
        unsigned carry = 0;
        for (int i = 0; i < BN_WORDS; i++) {
            uint64_t s = a->w[i] + b->w[i];
            unsigned c1 = s < a->w[i];
            uint64_t t = s + carry;
            unsigned c2 = t < s;
            r->w[i] = t;
            carry = c1 | c2;
        }
        r->neg = a->neg;
        return;
    }
    const bignum *big = a, *small = b;
    if (bn_cmp_mag(a, b) < 0) { big = b; small = a; }
    unsigned borrow = 0;
    bignum t;
    for (int i = 0; i < BN_WORDS; i++) {
        uint64_t d = big->w[i] - small->w[i];
        unsigned b1 = big->w[i] < small->w[i];
        uint64_t e = d - borrow;
        unsigned b2 = d < (uint64_t)borrow;
        t.w[i] = e;
        borrow = b1 | b2;
    }
    t.neg = big->neg;
    *r = t;
}

static int bn_bit(const bignum *x, int pos)
{
    if (pos < 0) return 0;
    return (int)((x->w[pos / 64] >> (pos % 64)) & 1);
}

/* Round to FP32, RNE, overflow to Inf.  Zero -> +0 unless zero_sign. */
static uint32_t bn_to_fp32(const bignum *x, int zero_sign)
{
    uint32_t s = x->neg ? 0x80000000u : 0;
    if (bn_is_zero(x)) return zero_sign ? 0x80000000u : 0;
    int p = BN_WORDS * 64 - 1;
    while (!bn_bit(x, p)) p--;
    int e = p + BN_LSB;                 /* value in [2^e, 2^(e+1)) */
    if (e > 127) return s | 0x7F800000u;
    int q = (e > -126 ? e : -126) - 23; /* quantum exponent */
    int qb = q - BN_LSB;
    uint64_t n = 0;
    for (int b = p; b >= qb; b--) n = (n << 1) | (uint64_t)bn_bit(x, b);
    int round = bn_bit(x, qb - 1), sticky = 0;
    for (int b = qb - 2; b >= 0 && !sticky; b--) sticky = bn_bit(x, b);
    if (round && (sticky || (n & 1))) n++;
    uint32_t bits;
    if (q == -149) bits = (uint32_t)n;                                   /* subnormal range */
    else bits = ((uint32_t)(e + 127) << 23) + (uint32_t)(n - (1u << 23)); /* carry moves e  */
    if (bits >= 0x7F800000u) bits = 0x7F800000u;
    return s | bits;
}

static void bn_from_fp32(bignum *x, uint32_t f)
{
    uint32_t ef = (f >> 23) & 0xFF, m = f & 0x7FFFFF;
    bn_set(x, (int)(f >> 31), ef ? (m | 0x800000u) : m, (ef ? (int)ef : 1) - 150);
}

uint32_t mx_ref_fp32_add_exact(uint32_t x, int sign, uint64_t mag, int exp)
{
    bignum a, b, r;
    bn_from_fp32(&a, x);
    bn_set(&b, sign, mag, exp);
    bn_add(&r, &a, &b);
    /* IEEE: an exact zero sum is +0, except (-0) + (-0) */
    int zero_sign = (x >> 31) && sign && bn_is_zero(&a);
    if (mag != 0) zero_sign = 0;
    return bn_to_fp32(&r, zero_sign);
}

/* ---- elements --------------------------------------------------------------- */
typedef struct { int special; int neg; double sig; int lsb; } ref_elem; /* special 1 NaN 2 Inf */

static int pow2_exp(double d, int *e)
{
    int x;
    if (!(d > 0) || frexp(d, &x) != 0.5) return 0;
    *e = x - 1;
    return 1;
}

static ref_elem ref_decode(const mx_format *f, uint32_t code)
{
    ref_elem r = {0, 0, 0, 0};
    double v = mx_decode(f, code);
    if (isnan(v)) { r.special = 1; return r; }
    r.neg = signbit(v) != 0;
    if (isinf(v)) { r.special = 2; return r; }
    if (f->kind == MX_KIND_INT) {
        r.lsb = -f->bias;
    } else {
        /* lsb of the code: spacing to the next code up, or down at the top */
        uint32_t m = code & ~f->sign_mask;
        int e;
        double up = NAN, down = NAN;
        if (m + 1 < f->sign_mask) up = mx_decode(f, m + 1) - mx_decode(f, m);
        if (m > 0) down = mx_decode(f, m) - mx_decode(f, m - 1);
        if (!pow2_exp(up, &e) && !pow2_exp(down, &e)) e = 0;
        r.lsb = e;
    }
    r.sig = ldexp(fabs(v), -r.lsb);
    return r;
}

/* The format library's element format for a PE format (MXSF with the PE's b5). */
static int ref_format(mx_pe_fmt fmt, int fp5_bias, mx_format *f)
{
    const mx_pe_format *pf = mx_pe_format_of(fmt);
    if (!pf) return -1;
    if (!pf->elem_name) return mx_format_mxsf(fp5_bias, f);
    return mx_format_lookup(pf->elem_name, f);
}

uint32_t mx_ref_dot(const mx_pe_config *cfg, const uint16_t *a_codes, const uint8_t *a_scales,
                    const uint16_t *b_codes, const uint8_t *b_scales, int k,
                    uint32_t acc_fp32_bits)
{
    mx_format fa, fb; /* A decodes with cfg->fmt, B with cfg->fmt_b */
    ref_format(cfg->fmt, cfg->fp5_bias, &fa);
    ref_format(cfg->fmt_b, cfg->fp5_bias, &fb);
    const int L = cfg->lanes, G = cfg->align_width - 16;
    const int use_scale = cfg->fmt != MX_PE_BF16 && cfg->fmt_b != MX_PE_BF16;
    uint32_t acc = acc_fp32_bits;
    for (int base = 0; base < k; base += L) {
        double prod[MX_PE_MAX_LANES];
        int pexp[MX_PE_MAX_LANES], pneg[MX_PE_MAX_LANES];
        int nan = 0, pinf = 0, ninf = 0, have = 0, emax = 0;
        int xa = 127, xb = 127;
        if (use_scale) {
            xa = a_scales[base / cfg->block];
            xb = b_scales[base / cfg->block];
            nan |= xa == 0xFF || xb == 0xFF;
        }
        for (int i = 0; i < L; i++) {
            ref_elem ea = ref_decode(&fa, base + i < k ? a_codes[base + i] : 0);
            ref_elem eb = ref_decode(&fb, base + i < k ? b_codes[base + i] : 0);
            pneg[i] = ea.neg != eb.neg;
            prod[i] = 0;
            pexp[i] = 0;
            if (ea.special == 1 || eb.special == 1) { nan = 1; continue; }
            if (ea.special == 2 || eb.special == 2) {
                double other = ea.special == 2 ? eb.sig : ea.sig;
                int other_special = ea.special == 2 ? eb.special : ea.special;
                if (other == 0 && other_special == 0) nan = 1;      /* Inf x 0 */
                else if (pneg[i]) ninf = 1; else pinf = 1;
                continue;
            }
            prod[i] = ea.sig * eb.sig;     /* exact: < 2^17 */
            pexp[i] = ea.lsb + eb.lsb;
            if (prod[i] != 0 && (!have || pexp[i] > emax)) { emax = pexp[i]; have = 1; }
        }
        uint32_t g;
        if (nan || (pinf && ninf)) g = MX_FP32_QNAN;
        else if (pinf || ninf) g = ninf ? 0xFF800000u : 0x7F800000u;
        else {
            int64_t sum = 0;
            for (int i = 0; i < L; i++) {
                if (prod[i] == 0) continue;
                double t = floor(ldexp(prod[i], G - (emax - pexp[i]))); /* truncating alignment */
                sum += pneg[i] ? -(int64_t)t : (int64_t)t;
            }
            int scale = use_scale ? xa + xb - 254 : 0;
            g = mx_ref_fp32_add_exact(0, sum < 0, (uint64_t)(sum < 0 ? -sum : sum), emax - G + scale);
        }
        /* accumulate: IEEE specials, else exact sum rounded once */
        int acc_nan = (acc & 0x7F800000u) == 0x7F800000u && (acc & 0x7FFFFFu);
        int acc_inf = (acc & 0x7FFFFFFFu) == 0x7F800000u;
        int g_nan = g == MX_FP32_QNAN;
        int g_inf = (g & 0x7FFFFFFFu) == 0x7F800000u;
        if (acc_nan || g_nan || (acc_inf && g_inf && acc != g)) acc = MX_FP32_QNAN;
        else if (acc_inf) continue;
        else if (g_inf) acc = g;
        else {
            uint32_t ge = (g >> 23) & 0xFF, gm = g & 0x7FFFFF;
            acc = mx_ref_fp32_add_exact(acc, (int)(g >> 31), ge ? (gm | 0x800000u) : gm, (ge ? (int)ge : 1) - 150);
        }
    }
    return acc;
}
