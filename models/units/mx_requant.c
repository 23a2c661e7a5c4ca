/*
 * mx_requant.c — re-quantization unit (twin of rtl/mx_requant.sv).  Element
 * rounding through mx_round_pack() (RNE, saturate).
 */
#include "units/mx_requant.h"
#include "units/mx_pe.h"
#include "units/mx_pe_format.h"
#include "formats/mx_format.h"

/* The element format of the datapath format fmt (table units/mx_pe_format.h;
 * a code outside the table re-quantizes as MXSF, as the RTL's default
 * branch does: formats are checked where they enter). */
static const mx_pe_format *elem_format(int fmt, int b5, mx_format *f)
{
    const mx_pe_format *pf = mx_pe_format_of((mx_pe_fmt)fmt);
    if (!pf || !pf->requant) pf = mx_pe_format_of(MX_PE_MXSF);
    if (pf->elem_name) mx_format_lookup(pf->elem_name, f);
    else mx_format_mxsf(b5, f);
    return pf;
}

void mx_requant_comb(int n, const mx_requant_in *in, mx_requant_out *out)
{
    mx_format f;
    const mx_encode_opts rne_sat = {MX_ROUND_EVEN, MX_OVERFLOW_SATURATE, 0};
    const mx_pe_format *pf = elem_format(in->fmt_i, in->fp5_bias_i, &f);
    uint32_t amax = 0;
    int bad = 0;
    for (int i = 0; i < n; i++) { /* max tree: magnitudes compare as integers */
        uint32_t m = in->vals_i[i] & 0x7FFFFFFFu;
        if (m >= 0x7F800000u) bad = 1;
        else if (m > amax) amax = m;
    }
    out->amax_o = amax;
    if (bad) {
        const uint8_t nc = pf->nan_code;
        out->scale_o = 0xFF;
        for (int i = 0; i < n; i++) out->codes_o[i] = nc;
        return;
    }
    int se = -127;
    if (amax) {
        int ef = (int)(amax >> 23);
        int log2 = ef ? ef - 127 : (31 - __builtin_clz(amax)) - 149;
        se = log2 - f.emax;
        if (se < -127) se = -127; /* fp32 input: se <= 127 always */
    }
    out->scale_o = (uint8_t)(se + 127);
    for (int i = 0; i < n; i++) {
        uint32_t x = in->vals_i[i];
        int ef = (int)((x >> 23) & 0xFF);
        uint64_t sig = ef ? ((x & 0x7FFFFFu) | 0x800000u) : (x & 0x7FFFFFu);
        int exp = (ef ? ef : 1) - 150;
        out->codes_o[i] = (uint8_t)mx_round_pack(&f, (int)(x >> 31), sig, exp - se, &rne_sat, 0);
    }
}
