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

/* axis < -ndim..ndim-1 : per channel along `axis` (one scale per index of that
 * axis); per_tensor != 0 ignores axis.  scales (may be NULL) receives one FP32
 * scale per tensor/channel; codes, deq may be NULL.  An all-zero tensor/channel
 * gets scale 1.  A NaN/Inf in the tensor/channel: error.  Returns 0 or -1 with err. */
int mx_scaled_quantize(const mx_format *elem, const mx_encode_opts *enc, int per_tensor,
                       int axis, const mx_shape *sh, const float *x,
                       uint16_t *codes, float *scales, float *deq, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
