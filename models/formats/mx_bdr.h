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
 * the end); the last block along the axis may be shorter (a tail), and so may
 * its last sub-block.  Outputs (each may be NULL):
 *  codes  same shape as x; sign-magnitude element, sign in bit mbits,
 *         magnitude M in bits mbits-1..0 (a value rounding to zero keeps its
 *         sign, as -0);
 *  exps   one biased 8-bit shared exponent E + 127 per block, shape as
 *         mx_block_scale_shape with block k1 (x's shape with dim[axis] ->
 *         ceil(dim[axis] / k1)); E = floor(log2 amax) clamped to >= -127, so an
 *         all-zero block has 0x00;
 *  micro  one microexponent u (0 or 1) per sub-block, one per byte, shape x's
 *         shape with dim[axis] -> ceil(dim[axis] / k2); u = 1 exactly when
 *         every element of the sub-block is below 2^E (so also for zeros);
 *  deq    dequantized FP32, (-1)^s * M * 2^(E - u - (mbits - 1)).
 * Elements round by `round` (even, nearest, floor) and saturate at
 * M = 2^mbits - 1.  MX_ROUND_STOCHASTIC is rejected: this entry point takes
 * no RNG state.  A NaN/Inf in a block makes the block NaN: exps 0xFF, codes 0,
 * micro 0, deq NaN.  Returns 0, or -1 with a message in err (bad axis, bad
 * format, stochastic rounding). */
int mx_bdr_quantize(const mx_bdr_format *f, int axis, mx_round round, const mx_shape *sh,
                    const float *x, uint16_t *codes, uint8_t *exps, uint8_t *micro,
                    float *deq, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
