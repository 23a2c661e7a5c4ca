/*
 * mx_bdr.c — shared-microexponent (BDR) formats MX9, MX6, MX4 (SPEC §2.3).
 *
 * Per block of k1 elements along the axis: E = floor(log2 amax), clamped to
 * [-127, 127] and stored biased by 127.  Per sub-block of k2 elements: u = 1
 * when every element is below 2^E (the block's top binade), else 0.  Each
 * element is rounded, as the exact value |x| / 2^(E-u), into the sign-magnitude
 * fixed-point format e0m{m} (value M * 2^(1-m), M <= 2^m - 1) through
 * mx_round_pack, saturating: value = (-1)^s * M * 2^(E - u - (m - 1)).
 */
#include "formats/mx_bdr.h"
#include "formats/mx_block.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int mx_bdr_lookup(const char *name, mx_bdr_format *out)
{
    static const struct { const char *name; int mbits; } fmts[] = {
        {"mx9", 7}, {"mx6", 4}, {"mx4", 2}};
    for (size_t i = 0; i < sizeof fmts / sizeof fmts[0]; i++) {
        if (strcasecmp(name, fmts[i].name) != 0) continue;
        memset(out, 0, sizeof *out);
        snprintf(out->name, sizeof out->name, "%s", fmts[i].name);
        out->mbits = fmts[i].mbits;
        out->k1 = 16;
        out->k2 = 2;
        return 0;
    }
    return -1;
}

/* FP32 -> sign, sig * 2^exp (finite values). */
static void unpack_f32(float x, int *sign, uint64_t *sig, int *exp)
{
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    int ef = (int)((b >> 23) & 0xFF);
    *sign = (int)(b >> 31);
    *sig = ef ? ((b & 0x7FFFFFu) | 0x800000u) : (b & 0x7FFFFFu);
    *exp = ef ? ef - 150 : -149;
}

/* floor(log2 a) for finite a > 0. */
static int floor_log2f(float a)
{
    int e;
    frexpf(a, &e); /* a = f * 2^e, f in [0.5, 1) */
    return e - 1;
}

#define BDR_EXP_MIN (-127)
#define BDR_EXP_MAX 127
#define BDR_EXP_NAN 0xFF

int mx_bdr_quantize(const mx_bdr_format *f, int axis, mx_round round, const mx_shape *sh,
                    const float *x, uint16_t *codes, uint8_t *exps, uint8_t *micro,
                    float *deq, char *err, size_t errlen)
{
    if (f->mbits < 1 || f->mbits > 15 || f->k1 < 1 || f->k2 < 1 || f->k1 % f->k2 != 0) {
        snprintf(err, errlen, "BDR format '%s': need 1 <= mbits <= 15 and k2 dividing k1 (mbits %d, k1 %d, k2 %d)",
                 f->name, f->mbits, f->k1, f->k2);
        return -1;
    }
    if (round == MX_ROUND_STOCHASTIC) {
        snprintf(err, errlen, "BDR quantization: stochastic rounding needs an RNG state, which this entry point does not take; use even, nearest or floor");
        return -1;
    }
    if ((unsigned)round > MX_ROUND_STOCHASTIC) {
        snprintf(err, errlen, "BDR quantization: unknown rounding mode %d", (int)round);
        return -1;
    }
    mx_block_spec bs;
    memset(&bs, 0, sizeof bs);
    bs.block = f->k1;
    bs.axis = axis;
    mx_shape eshape;
    if (mx_block_scale_shape(&bs, sh, &eshape, err, errlen) != 0) return -1;

    int a = axis < 0 ? axis + sh->ndim : axis;
    size_t outer = 1, inner = 1, len = sh->dim[a];
    for (int d = 0; d < a; d++) outer *= sh->dim[d];
    for (int d = a + 1; d < sh->ndim; d++) inner *= sh->dim[d];
    size_t k1 = (size_t)f->k1, k2 = (size_t)f->k2;
    size_t nblk = (len + k1 - 1) / k1, nsub = (len + k2 - 1) / k2;

    char ename[16];
    snprintf(ename, sizeof ename, "e0m%d", f->mbits);
    mx_format elem;
    if (mx_format_lookup(ename, &elem) != 0) {
        snprintf(err, errlen, "BDR quantization: no element format %s", ename);
        return -1;
    }
    mx_encode_opts enc = {round, MX_OVERFLOW_SATURATE, NULL};
    const int m = f->mbits;

    for (size_t o = 0; o < outer; o++)
        for (size_t b = 0; b < nblk; b++)
            for (size_t i = 0; i < inner; i++) {
                size_t a0 = b * k1, a1 = a0 + k1 < len ? a0 + k1 : len;
#define IDX(ax) ((o * len + (ax)) * inner + i)
#define MIDX(s) ((o * nsub + (s)) * inner + i)
                float amax = 0.0f;
                int bad = 0;
                for (size_t t = a0; t < a1; t++) {
                    float v = fabsf(x[IDX(t)]);
                    if (!isfinite(v)) bad = 1;
                    else if (v > amax) amax = v;
                }
                if (bad) {
                    if (exps) exps[(o * nblk + b) * inner + i] = BDR_EXP_NAN;
                    for (size_t t = a0; t < a1; t++) {
                        if (codes) codes[IDX(t)] = 0;
                        if (deq) deq[IDX(t)] = NAN;
                        if (micro && (t - a0) % k2 == 0) micro[MIDX(t / k2)] = 0;
                    }
                    continue;
                }
                int E = amax > 0 ? floor_log2f(amax) : BDR_EXP_MIN;
                if (E < BDR_EXP_MIN) E = BDR_EXP_MIN;
                if (E > BDR_EXP_MAX) E = BDR_EXP_MAX; /* unreachable for FP32 */
                if (exps) exps[(o * nblk + b) * inner + i] = (uint8_t)(E + 127);
                float top = ldexpf(1.0f, E); /* 2^E, exact (E >= -127) */

                for (size_t s0 = a0; s0 < a1; s0 += k2) {
                    size_t s1 = s0 + k2 < a1 ? s0 + k2 : a1;
                    int u = 1;
                    for (size_t t = s0; t < s1; t++)
                        if (fabsf(x[IDX(t)]) >= top) u = 0;
                    if (micro) micro[MIDX(s0 / k2)] = (uint8_t)u;
                    for (size_t t = s0; t < s1; t++) {
                        int sign, exp;
                        uint64_t sig;
                        unpack_f32(x[IDX(t)], &sign, &sig, &exp);
                        /* |x| / 2^(E-u) into e0m{m}: code = s << m | M,
                         * value M * 2^(1-m). */
                        uint32_t code = mx_round_pack(&elem, sign, sig, exp - (E - u), &enc, NULL);
                        if (codes) codes[IDX(t)] = (uint16_t)code;
                        if (deq) {
                            uint32_t mag = code & ((1u << m) - 1);
                            double v = ldexp((double)mag, E - u - (m - 1));
                            deq[IDX(t)] = (float)((code >> m) & 1 ? -v : v);
                        }
                    }
                }
#undef IDX
#undef MIDX
            }
    return 0;
}
