/*
 * mx_bdr.h — shared-microexponent (BDR) formats MX9, MX6, MX4 (SPEC §2.3,
 * Rouhani et al., ISCA 2023).
 *
 * A block of k1 = 16 elements shares an 8-bit exponent E (floor(log2 amax),
 * stored biased by 127); each sub-block of k2 = 2 elements shares a 1-bit
 * microexponent u (an extra right shift, taken only when both elements are
 * below the block's top binade); each element is sign + m magnitude bits,
 * m = 7 / 4 / 2.  value = (-1)^s * mag * 2^(E - u - (m - 1)).
 */
#ifndef MX_BDR_H
#define MX_BDR_H

#include "formats/mx_block.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    char name[8];   /* "mx9", "mx6", "mx4"                      */
    int  mbits;     /* magnitude bits per element: 7, 4, 2      */
    int  k1;        /* elements per shared exponent: 16         */
    int  k2;        /* elements per microexponent: 2            */
} mx_bdr_format;

/* -1 if name is not mx9/mx6/mx4. */
int mx_bdr_lookup(const char *name, mx_bdr_format *out);

/* Quantizes x (shape sh) with blocks of k1 along `axis` (negative counts from
 * the end).  Outputs (each may be NULL): codes (same shape as x; sign-magnitude
 * element, sign in bit mbits), exps (one biased 8-bit shared exponent per
 * block, shape as mx_block_scale_shape with block k1), micro (one bit per
 * sub-block, stored one per byte), deq (dequantized FP32).  A NaN/Inf in a
 * block makes the block's outputs NaN (exps 0xFF).  Returns 0, or -1 with err. */
int mx_bdr_quantize(const mx_bdr_format *f, int axis, mx_round round, const mx_shape *sh,
                    const float *x, uint16_t *codes, uint8_t *exps, uint8_t *micro,
                    float *deq, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
