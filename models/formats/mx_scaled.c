/*
 * mx_scaled.c — FP8 (or any format) post-training quantization with FP32
 * scales, per tensor or per channel (SPEC §2.5, Shen et al. arXiv 2309.14592):
 * scale = max_normal / amax in FP32, code = encode(x * scale) with the FP32
 * product, value = decode(code) / scale in FP32.
 *
 * Two passes so that bad input writes nothing: the first finds every
 * channel's amax and rejects NaN/Inf, the second writes scales, codes, deq.
 */
#include "formats/mx_scaled.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mx_scaled_quantize(const mx_format *elem, const mx_encode_opts *enc, int per_tensor,
                       int axis, const mx_shape *sh, const float *x,
                       uint16_t *codes, float *scales, float *deq, char *err, size_t errlen)
{
    mx_encode_opts def = {MX_ROUND_EVEN, MX_OVERFLOW_SATURATE, NULL};
    if (!enc) enc = &def;
    if (!elem->is_signed || elem->kind == MX_KIND_E8M0) {
        snprintf(err, errlen, "scaled quantization: element format %s is unsigned; need a signed format",
                 elem->name);
        return -1;
    }
    if (elem->bits > 16) {
        snprintf(err, errlen, "scaled quantization: element format %s is %d bits; codes hold at most 16",
                 elem->name, elem->bits);
        return -1;
    }
    if (enc->round == MX_ROUND_STOCHASTIC && !enc->rng) {
        snprintf(err, errlen, "scaled quantization: stochastic rounding needs an RNG state (enc->rng is NULL)");
        return -1;
    }
    if (sh->ndim < 0 || sh->ndim > MX_MAX_DIMS) {
        snprintf(err, errlen, "scaled quantization: rank %d outside 0..%d", sh->ndim, MX_MAX_DIMS);
        return -1;
    }
    size_t n = mx_shape_count(sh), len = 1, inner = 1;
    if (!per_tensor) {
        int a = axis < 0 ? axis + sh->ndim : axis;
        if (sh->ndim < 1 || a < 0 || a >= sh->ndim) {
            snprintf(err, errlen, "scaled quantization: channel axis %d out of range for a tensor of rank %d",
                     axis, sh->ndim);
            return -1;
        }
        len = sh->dim[a];
        for (int d = a + 1; d < sh->ndim; d++) inner *= sh->dim[d];
    }
    /* channel of element i: (i / inner) % len (len == 1: the whole tensor) */
    float *amax = calloc(len ? len : 1, sizeof *amax);
    if (!amax) {
        snprintf(err, errlen, "scaled quantization: out of memory for %zu channel scales", len);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        size_t c = (i / inner) % len;
        float v = fabsf(x[i]);
        if (!isfinite(v)) {
            if (per_tensor)
                snprintf(err, errlen, "scaled quantization: %s at element %zu; the tensor has no finite scale",
                         isnan(v) ? "NaN" : "Inf", i);
            else
                snprintf(err, errlen, "scaled quantization: %s at element %zu (channel %zu); the channel has no finite scale",
                         isnan(v) ? "NaN" : "Inf", i, c);
            free(amax);
            return -1;
        }
        if (v > amax[c]) amax[c] = v;
    }
    /* amax -> scale, in place */
    const float fmax = (float)elem->max_normal; /* every format max is an FP32 value */
    for (size_t c = 0; c < len; c++) {
        float s = amax[c] > 0 ? fmax / amax[c] : 1.0f;
        if (s > FLT_MAX) s = FLT_MAX; /* amax so small that max/amax overflows FP32 */
        amax[c] = s;
        if (scales) scales[c] = s;
    }
    for (size_t i = 0; i < n; i++) {
        float s = amax[(i / inner) % len];
        uint32_t code = mx_encode(elem, x[i] * s, enc, NULL);
        if (codes) codes[i] = (uint16_t)code;
        if (deq) deq[i] = mx_decode_f32(elem, code) / s;
    }
    free(amax);
    return 0;
}
