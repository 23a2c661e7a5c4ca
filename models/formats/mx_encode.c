/*
 * mx_encode.c — FP32 -> code: unpack the FP32 bit pattern, handle NaN and
 * Inf, and hand the exact value to the destination's rounding routine.
 */
#include "formats/mx_format.h"
#include "formats/mx_policy.h"

#include <string.h>

uint32_t mx_encode(const mx_format *f, float x, const mx_encode_opts *o, unsigned *flags)
{
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    int sign = (int)(b >> 31);
    int ef = (int)((b >> 23) & 0xFF);
    uint32_t man = b & 0x7FFFFF;

    if (ef == 0xFF) {
        int is_nan = man != 0;
        uint32_t s = sign ? f->sign_mask : 0;
        if (f->specials == MX_SPECIALS_IEEE) {
            uint32_t top = ((1u << f->ebits) - 1) << f->mbits;
            return s | top | (is_nan ? 1u << (f->mbits - 1) : 0);
        }
        if (flags) *flags |= MX_FLAG_INVALID;
        if (is_nan) {
            if (f->specials == MX_SPECIALS_NAN_ONES) return s | ((1u << (f->bits - 1)) - 1);
            if (f->specials == MX_SPECIALS_E8M0) return 0xFF;
            return MX_POLICY_NAN_TO_FINITE_CODE;
        }
        /* Inf into a format without Inf: NaN under inf_nan (if any), else max. */
        if (o->overflow == MX_OVERFLOW_INF_NAN && o->round != MX_ROUND_FLOOR) {
            if (f->specials == MX_SPECIALS_NAN_ONES) return s | ((1u << (f->bits - 1)) - 1);
            if (f->specials == MX_SPECIALS_E8M0) return 0xFF;
        }
        if (!f->is_signed && sign) return 0xFF;
        if (f->kind == MX_KIND_INT)
            return sign ? (0u - f->max_code) & ((1u << f->bits) - 1) : f->max_code;
        return s | f->max_code;
    }
    uint64_t sig = ef ? (man | 0x800000u) : man;
    int exp = ef ? ef - 150 : -149;
    return mx_round_pack(f, sign, sig, exp, o, flags);
}
