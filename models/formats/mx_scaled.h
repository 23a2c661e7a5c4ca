/*
 * mx_scaled.h — FP8 post-training quantization with FP32 scales (SPEC §2.5,
 * Shen et al. arXiv 2309.14592): per tensor or per channel,
 * scale = format max / amax, code = encode(x * scale), value = decode / scale.
 */
#ifndef MX_SCALED_H
#define MX_SCALED_H

#include "formats/mx_block.h"

#ifdef __cplusplus
extern "C" {
#endif

/* axis in -ndim..ndim-1 : per channel along `axis` (one scale per index of
 * that axis, scales in index order); per_tensor != 0 ignores axis (one scale).
 * scales (may be NULL) receives one FP32 scale per tensor/channel:
 * scale = (float)max_normal / amax in FP32, clamped to FLT_MAX when that
 * overflows; an all-zero tensor/channel gets scale 1.  codes = encode(x * scale)
 * (FP32 product, enc's rounding and overflow; enc NULL = even, saturate),
 * deq = decode(code) / scale in FP32; codes, deq may be NULL.
 * Errors (-1 with a message in err, nothing written): a NaN/Inf in the
 * tensor (per tensor) or anywhere (per channel), a bad axis, an unsigned
 * element format, stochastic rounding without enc->rng.  Returns 0 or -1. */
int mx_scaled_quantize(const mx_format *elem, const mx_encode_opts *enc, int per_tensor,
                       int axis, const mx_shape *sh, const float *x,
                       uint16_t *codes, float *scales, float *deq, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
