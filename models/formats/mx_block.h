/*
 * mx_block.h — MX block quantization over N-D tensors (SPEC §2.1).
 *
 * A block is one E8M0 scale X and k elements P_i, v_i = 2^(X-127) * P_i.
 * Blocks are 1-D (k consecutive elements along one axis) or 2-D tiles
 * (rows x cols over the last two axes).  Tails shorter than k and tiles cut by
 * the tensor edge are blocks of their own, with the same rule.
 */
#ifndef MX_BLOCK_H
#define MX_BLOCK_H

#include "formats/mx_format.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    MX_SCALE_FLOOR = 0, /* OCP: floor(log2 amax) - emax_elem                      */
    MX_SCALE_CEIL,      /* ceil(log2 amax) - emax_elem                            */
    MX_SCALE_EVEN,      /* amax first rounded (RNE) to the element's precision    */
    MX_SCALE_RCEIL      /* NVIDIA: ceil(log2(amax / max_normal))                  */
} mx_scale_rule;

#define MX_MAX_DIMS 8
typedef struct {
    int    ndim;
    size_t dim[MX_MAX_DIMS];
} mx_shape;

typedef struct {
    mx_format      elem;        /* element format (any format of the table)          */
    int            block;       /* 1-D block size k (used when tile_rows == 0)       */
    int            axis;        /* axis of 1-D blocks; negative counts from the end  */
    int            tile_rows;   /* > 0: 2-D tiles tile_rows x tile_cols over the     */
    int            tile_cols;   /*      last two axes                                */
    mx_scale_rule  scale_rule;
    mx_encode_opts enc;         /* element rounding; overflow is always saturate     */
} mx_block_spec;

/* E8M0 scale code for a block whose largest magnitude is amax (finite, >= 0).
 * 0xFF when the shared exponent exceeds 127; 0x00 for amax == 0. */
uint8_t mx_block_scale(const mx_block_spec *s, float amax);

size_t mx_shape_count(const mx_shape *sh);

/* Shape of the scale tensor.  Returns 0, or -1 with a message in err. */
int mx_block_scale_shape(const mx_block_spec *s, const mx_shape *in, mx_shape *scales,
                         char *err, size_t errlen);

/* Quantizes x (C order, shape sh).  Any of codes (same shape as x), scales
 * (mx_block_scale_shape) and deq (dequantized FP32, same shape) may be NULL.
 * A NaN or Inf in a block makes the block NaN: scale 0xFF, element codes NaN
 * where the format has one (else 0), dequantized values NaN.
 * Returns 0, or -1 with a message in err (impossible block shape). */
int mx_block_quantize(const mx_block_spec *s, const mx_shape *sh, const float *x,
                      uint16_t *codes, uint8_t *scales, float *deq,
                      char *err, size_t errlen);

/* mx_block_quantize with the choice of code width and of vector unit:
 * codes16 or codes8 (at most one non-NULL; codes8 needs elem.bits <= 8, the
 * codes as bytes without a uint16 pass), and simd: MX_SIMD_AUTO takes the
 * widest vectors the CPU has (x86-64: AVX-512, AVX2), MX_SIMD_AVX2 at most
 * AVX2, MX_SIMD_PORTABLE the 4-lane vectors of the build target.  Every
 * choice gives the same bits (tests compare them).  Returns 0, or -1 with a
 * message in err. */
typedef enum { MX_SIMD_AUTO = 0, MX_SIMD_PORTABLE = 1, MX_SIMD_AVX2 = 2 } mx_simd;
int mx_block_quantize_ex(const mx_block_spec *s, const mx_shape *sh, const float *x,
                         uint16_t *codes16, uint8_t *codes8, uint8_t *scales, float *deq,
                         mx_simd simd, char *err, size_t errlen);

/* Dequantizes codes with their scales. */
void mx_block_dequantize(const mx_block_spec *s, const mx_shape *sh, const uint16_t *codes,
                         const uint8_t *scales, float *out);

/* MX format names: "mxfp8_e4m3" "mxfp8_e5m2" "mxfp6_e3m2" "mxfp6_e2m3" "mxfp4"
 * "mxint8" "mxfp8_e2m5" "mxsf" -> element format.  -1 if not an MX name. */
int mx_block_format_lookup(const char *name, mx_format *elem);

int mx_scale_rule_parse(const char *s, mx_scale_rule *out);

#ifdef __cplusplus
}
#endif
#endif
