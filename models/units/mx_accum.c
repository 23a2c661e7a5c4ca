/*
 * mx_accum.c — scale add, FP32 conversion and accumulation (twin of
 * rtl/mx_accum.sv).  All rounding through mx_round_pack() into fp32.
 */
#include "units/mx_accum.h"
#include "units/mx_pe.h"
#include "formats/mx_format.h"

static const mx_encode_opts rne_inf = {MX_ROUND_EVEN, MX_OVERFLOW_INF_NAN, 0};

uint32_t mx_accum_group_fp32(const mx_format *fp32, int64_t sum, int exp)
{
    int sign = sum < 0;
    uint64_t mag = sign ? (uint64_t)0 - (uint64_t)sum : (uint64_t)sum;
    if (mag == 0) return 0; /* an exact zero sum is +0 */
    /* A sum that FP32 holds exactly needs no rounding: pack it directly
     * (the common case; every inexact one goes to mx_round_pack). */
    int tz = __builtin_ctzll(mag);
    uint64_t m = mag >> tz;
    if (m < (1u << 24)) {
        int msb = 63 - __builtin_clzll(m);
        int e = msb + exp + tz;
        if (e >= -126 && e <= 127)
            return ((uint32_t)sign << 31) | ((uint32_t)(e + 127) << 23) |
                   ((uint32_t)(m << (23 - msb)) & 0x7FFFFFu);
    }
    return mx_round_pack(fp32, sign, mag, exp, &rne_inf, 0);
}

static int f32_is_nan(uint32_t x) { return (x & 0x7F800000u) == 0x7F800000u && (x & 0x7FFFFFu); }
static int f32_is_inf(uint32_t x) { return (x & 0x7FFFFFFFu) == 0x7F800000u; }

/* IEEE addition, RNE.  The smaller operand is aligned 39 bits below the
 * larger's lsb; beyond that it only contributes a sticky bit, which lies far
 * below the rounding position, so the rounded result is the exact one's. */
uint32_t mx_accum_fp32_add(const mx_format *fp32, uint32_t a, uint32_t b)
{
    if (f32_is_nan(a) || f32_is_nan(b)) return MX_FP32_QNAN;
    if (f32_is_inf(a) && f32_is_inf(b)) return a == b ? a : MX_FP32_QNAN;
    if (f32_is_inf(a)) return a;
    if (f32_is_inf(b)) return b;
    uint32_t ma = a & 0x7FFFFFFFu, mb = b & 0x7FFFFFFFu;
    if (mb > ma) { uint32_t t = a; a = b; b = t; t = ma; ma = mb; mb = t; }
    int sa = (int)(a >> 31), sb = (int)(b >> 31);
    int ea = (int)(ma >> 23), eb = (int)(mb >> 23);
    uint64_t siga = (ma & 0x7FFFFFu) | (ea ? 0x800000u : 0);
    uint64_t sigb = (mb & 0x7FFFFFu) | (eb ? 0x800000u : 0);
    int la = (ea ? ea : 1) - 150, lb = (eb ? eb : 1) - 150;
    int d = la - lb;
    uint64_t xa = siga << 39, xb = sigb << 39, xbs;
    if (d >= 63) xbs = xb != 0;
    else xbs = (xb >> d) | ((xb & ((1ull << d) - 1)) != 0);
    uint64_t mag = sa == sb ? xa + xbs : xa - xbs;
    if (mag == 0) return sa == sb ? (uint32_t)sa << 31 : 0; /* x + (-x) = +0 */
    return mx_round_pack(fp32, sa, mag, la - 39, &rne_inf, 0);
}

void mx_accum_comb(int align_width, const mx_accum_in *in, const mx_accum_regs *q,
                   mx_accum_regs *d, mx_accum_out *out)
{
    mx_format fp32;
    mx_format_lookup("fp32", &fp32);
    int scale_nan = in->use_scale_i && (in->a_scale_i == 0xFF || in->b_scale_i == 0xFF);
    int scale = in->use_scale_i ? (int)in->a_scale_i + (int)in->b_scale_i - 254 : 0;
    uint32_t g;
    if (in->nan_i || scale_nan) g = MX_FP32_QNAN;
    else if (in->inf_i) g = in->inf_sign_i ? 0xFF800000u : 0x7F800000u;
    else g = mx_accum_group_fp32(&fp32, in->sum_i, in->emax_i - (align_width - MX_PE_PROD_W) + scale);
    uint32_t base = in->first_i ? in->acc_i : q->acc_q;
    uint32_t res = mx_accum_fp32_add(&fp32, base, g);
    out->group_o = g;
    out->res_o = res;
    *d = *q;
    if (in->en_i) {
        if (in->valid_i) d->acc_q = res;
        d->out_valid_q = in->valid_i && in->last_i;
        if (in->valid_i && in->last_i) d->out_q = res;
    }
}

void mx_accum_tick(mx_accum_regs *q, const mx_accum_regs *d) { *q = *d; }
