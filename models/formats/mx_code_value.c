/*
 * mx_code_value.c — code -> exact value (mx_decode), straight from the layout.
 * (Named apart from units/mx_decode.c, the datapath decode unit: the
 * library holds no two members of one name.)
 */
#include "formats/mx_format.h"

#include <math.h>

int mx_is_nan(const mx_format *f, uint32_t code)
{
    uint32_t mag = code & ~f->sign_mask & ((f->bits < 32) ? (1u << f->bits) - 1 : ~0u);
    switch (f->specials) {
    case MX_SPECIALS_IEEE:
        return (mag >> f->mbits) == (1u << f->ebits) - 1 && (mag & ((1u << f->mbits) - 1)) != 0;
    case MX_SPECIALS_NAN_ONES:
        return mag == (1u << (f->bits - 1)) - 1;
    case MX_SPECIALS_E8M0:
        return code == 0xFF;
    default:
        return 0;
    }
}

int mx_is_inf(const mx_format *f, uint32_t code)
{
    uint32_t mag = code & ~f->sign_mask;
    return f->specials == MX_SPECIALS_IEEE && mag == ((1u << f->ebits) - 1) << f->mbits;
}

double mx_decode(const mx_format *f, uint32_t code)
{
    int sign = (code & f->sign_mask) != 0;
    uint32_t mag = code & ~f->sign_mask;
    double v;
    if (mx_is_nan(f, code)) return NAN;
    if (mx_is_inf(f, code)) return sign ? -INFINITY : INFINITY;
    switch (f->kind) {
    case MX_KIND_FLOAT: {
        uint32_t E = mag >> f->mbits, M = mag & ((1u << f->mbits) - 1);
        if (E == 0) v = ldexp((double)M, f->emin - f->mbits);
        else        v = ldexp((double)((1u << f->mbits) + M), (int)E - f->bias - f->mbits);
        break;
    }
    case MX_KIND_INT: {
        int32_t s = (int32_t)(code << (32 - f->bits)) >> (32 - f->bits); /* sign-extend */
        return ldexp((double)s, -f->bias);
    }
    case MX_KIND_E8M0:
        return ldexp(1.0, (int)code - f->bias);
    case MX_KIND_MXSF:
    default: {
        uint32_t E = (mag >> 5) & 3, F = mag & 31;
        if (E != 0) v = ldexp(32.0 + F, (int)E - 1 - 5);
        else {
            uint32_t fe = F >> 2, n = F & 3;
            v = fe ? ldexp(4.0 + n, (int)fe - f->fp5_bias - 2) : ldexp((double)n, -1 - f->fp5_bias);
        }
        break;
    }
    }
    return sign ? -v : v;
}

float mx_decode_f32(const mx_format *f, uint32_t code)
{
    return (float)mx_decode(f, code);
}
