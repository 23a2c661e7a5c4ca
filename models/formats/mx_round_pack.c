/*
 * mx_round_pack.c — all rounding into a destination format, in one routine.
 *
 * The exact input (-1)^s * sig * 2^exp lies in some binade e = floor(log2).
 * Each kind of format has, per binade, a quantum 2^q (the value of one unit in
 * the last place there); rounding is then integer rounding of sig * 2^(exp-q)
 * by mode, followed by a re-normalisation if the carry crossed into a binade
 * with another quantum, an overflow check against max_sig * 2^max_exp, and
 * packing of the fields.
 */
#include "formats/mx_format.h"
#include "formats/mx_policy.h"
#include "formats/mx_rng.h"

#include <math.h>

static int msb64(uint64_t x) { return 63 - __builtin_clzll(x); }

int mx_quantum_exp(const mx_format *f, int e)
{
    switch (f->kind) {
    case MX_KIND_FLOAT:
        return (e > f->emin ? e : f->emin) - f->mbits;
    case MX_KIND_INT:
        return -f->bias;
    case MX_KIND_E8M0:
        return e;
    case MX_KIND_MXSF:
    default:
        if (e >= 0) return e - f->mbits;           /* E2M5: 5 fraction bits      */
        if (e >= 1 - f->fp5_bias) return e - 2;    /* FP5 normal: 2 fraction bits */
        return -1 - f->fp5_bias;                   /* FP5 subnormal               */
    }
}

/* Rounds sig * 2^-shift (shift >= 0) to an integer by mode.  The discarded
 * part is kept as a 64-bit binary fraction plus a sticky bit. */
static uint64_t round_shift(uint64_t sig, int shift, const mx_encode_opts *o, int *inexact)
{
    uint64_t n, frac;
    int sticky;
    if (shift == 0) { *inexact = 0; return sig; }
    if (shift < 64) {
        n = sig >> shift;
        frac = sig << (64 - shift);
        sticky = 0;
    } else if (shift < 128) {
        n = 0;
        frac = shift == 64 ? sig : sig >> (shift - 64);
        sticky = shift > 64 && (sig & ((1ull << (shift - 64)) - 1)) != 0;
    } else {
        n = 0;
        frac = 0;
        sticky = sig != 0;
    }
    *inexact = frac != 0 || sticky;
    const uint64_t half = 1ull << 63;
    int up = 0;
    switch (o->round) {
    case MX_ROUND_EVEN:
        up = frac > half || (frac == half && (sticky || (n & 1)));
        break;
    case MX_ROUND_NEAREST:
        up = frac >= half;
        break;
    case MX_ROUND_FLOOR:
        up = 0;
        break;
    case MX_ROUND_STOCHASTIC:
        up = o->rng && *inexact && mx_rng_next(o->rng) < frac;
        break;
    }
    return n + (uint64_t)up;
}

/* n * 2^q > max_sig * 2^max_exp ? (n > 0) */
static int above_max(const mx_format *f, uint64_t n, int q)
{
    int d = q - f->max_exp;
    if (d >= 0) return d >= 40 || (n << d) > f->max_sig;
    return d > -40 && n > ((uint64_t)f->max_sig << -d);
}

static uint32_t nan_code(const mx_format *f, int sign)
{
    uint32_t s = sign ? f->sign_mask : 0;
    switch (f->specials) {
    case MX_SPECIALS_IEEE:     /* quiet NaN: top exponent, mantissa msb set */
        return s | (((1u << f->ebits) - 1) << f->mbits) | (1u << (f->mbits - 1));
    case MX_SPECIALS_NAN_ONES:
        return s | ((1u << (f->bits - 1)) - 1);
    case MX_SPECIALS_E8M0:
        return 0xFF;
    case MX_SPECIALS_NONE:
    default:
        return MX_POLICY_NAN_TO_FINITE_CODE;
    }
}

static uint32_t overflow_code(const mx_format *f, int sign, const mx_encode_opts *o)
{
    uint32_t s = sign ? f->sign_mask : 0;
    if (o->overflow == MX_OVERFLOW_INF_NAN && o->round != MX_ROUND_FLOOR) {
        if (f->specials == MX_SPECIALS_IEEE) return s | (((1u << f->ebits) - 1) << f->mbits);
        if (f->specials != MX_SPECIALS_NONE) return nan_code(f, sign);
    }
    if (f->kind == MX_KIND_INT) return sign ? ((0u - f->max_code) & ((1u << f->bits) - 1)) : f->max_code;
    return s | f->max_code;
}

/* Packs the magnitude n * 2^q (already rounded, in range, n > 0 normalised to
 * the quantum of its binade) into a code. */
static uint32_t pack(const mx_format *f, int sign, uint64_t n, int q)
{
    uint32_t s = sign ? f->sign_mask : 0;
    int e = msb64(n) + q;
    switch (f->kind) {
    case MX_KIND_FLOAT:
        if (f->ebits == 0 || n < (1ull << f->mbits)) return s | (uint32_t)n; /* subnormal */
        return s | ((uint32_t)(e + f->bias) << f->mbits) | (uint32_t)(n - (1ull << f->mbits));
    case MX_KIND_INT:
        return sign ? (uint32_t)(0u - (uint32_t)n) & ((1u << f->bits) - 1) : (uint32_t)n;
    case MX_KIND_E8M0:
        return (uint32_t)(e + f->bias);
    case MX_KIND_MXSF:
    default:
        if (e >= 0) return s | ((uint32_t)(e + 1) << 5) | (uint32_t)(n - 32);
        if (n >= 4) return s | ((uint32_t)(e + f->fp5_bias) << 2) | (uint32_t)(n - 4);
        return s | (uint32_t)n;
    }
}

/* MXSF with b5 > 8: values strictly between the largest FP5 value
 * lo = 7 * 2^(5-b5) and hi = 1.0 round between those two neighbours. */
static int mxsf_gap(const mx_format *f, uint64_t sig, int exp, const mx_encode_opts *o,
                    uint64_t *n, int *q, int *inexact)
{
    double lo = ldexp(7.0, 5 - f->fp5_bias), v = ldexp((double)sig, exp);
    if (f->fp5_bias <= 8 || v <= lo || v >= 1.0) return 0;
    double mid = (lo + 1.0) / 2;
    int up = 0;
    switch (o->round) {
    case MX_ROUND_EVEN:    /* lo's code ...11111 is odd, 1.0's code 0x20 even */
    case MX_ROUND_NEAREST: up = v >= mid; break;
    case MX_ROUND_FLOOR:   up = 0; break;
    case MX_ROUND_STOCHASTIC:
        up = o->rng && mx_rng_uniform(o->rng) < (v - lo) / (1.0 - lo);
        break;
    }
    *inexact = 1;
    if (up) { *n = 32; *q = -5; }
    else    { *n = 7;  *q = 5 - f->fp5_bias; }
    return 1;
}

uint32_t mx_round_pack(const mx_format *f, int sign, uint64_t sig, int exp,
                       const mx_encode_opts *o, unsigned *flags)
{
    unsigned fl = 0;
    uint32_t code;
    uint64_t n;
    int q, inexact;

    if (!f->is_signed && sign && sig != 0) {
        fl = MX_FLAG_INVALID;
        code = nan_code(f, 0);
        goto out;
    }
    if (sig == 0) {
        code = (f->kind == MX_KIND_E8M0) ? 0 : (f->kind == MX_KIND_INT || !sign) ? 0 : f->sign_mask;
        if (f->kind == MX_KIND_E8M0) fl = MX_FLAG_UNDERFLOW | MX_FLAG_INEXACT;
        goto out;
    }
    int e = msb64(sig) + exp;
    if (e > f->emax + 1) {
        fl = MX_FLAG_OVERFLOW | MX_FLAG_INEXACT;
        code = overflow_code(f, sign, o);
        goto out;
    }
    if (f->kind == MX_KIND_E8M0 && e < f->emin) {
        fl = MX_FLAG_UNDERFLOW | MX_FLAG_INEXACT;
        code = 0;
        goto out;
    }
    if (f->kind == MX_KIND_MXSF && mxsf_gap(f, sig, exp, o, &n, &q, &inexact)) {
        /* n, q set */
    } else {
        q = mx_quantum_exp(f, e);
        if (q <= exp) {
            n = sig << (exp - q);
            inexact = 0;
        } else {
            n = round_shift(sig, q - exp, o, &inexact);
        }
        if (n != 0) {
            int q2 = mx_quantum_exp(f, msb64(n) + q);
            if (q2 > q) { n >>= (q2 - q); q = q2; }      /* carry into a coarser binade */
            else if (q2 < q) { n <<= (q - q2); q = q2; } /* carry into a finer one (MXSF 0.875 -> 1) */
        }
    }
    if (inexact) fl |= MX_FLAG_INEXACT;
    if (n == 0) {
        if (inexact) fl |= MX_FLAG_UNDERFLOW;
        code = (f->kind == MX_KIND_INT || !sign) ? 0 : f->sign_mask;
        goto out;
    }
    if (above_max(f, n, q)) {
        fl |= MX_FLAG_OVERFLOW | MX_FLAG_INEXACT;
        code = (o->round == MX_ROUND_FLOOR) ? (sign ? f->sign_mask : 0) | f->max_code
                                             : overflow_code(f, sign, o);
        if (f->kind == MX_KIND_INT) code = overflow_code(f, sign, o);
        goto out;
    }
    if (inexact && msb64(n) + q < f->emin && f->kind != MX_KIND_INT) fl |= MX_FLAG_UNDERFLOW;
    code = pack(f, sign, n, q);
out:
    if (flags) *flags |= fl;
    return code;
}
