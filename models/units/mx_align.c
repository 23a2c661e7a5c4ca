/*
 * mx_align.c — shared-exponent alignment (twin of rtl/mx_align.sv).
 */
#include "units/mx_align.h"

void mx_align_comb(int lanes, int align_width, const mx_align_in *in, mx_align_out *out)
{
    const int guard = align_width - MX_PE_PROD_W;
    int any = 0, emax = 0, nan = 0, pinf = 0, ninf = 0;
    for (int i = 0; i < lanes; i++) {
        if (in->prod_i[i] != 0 && (!any || in->exp_i[i] > emax)) { emax = in->exp_i[i]; any = 1; }
        nan |= in->nan_i[i];
        pinf |= in->inf_i[i] && !in->sign_i[i];
        ninf |= in->inf_i[i] && in->sign_i[i];
    }
    for (int i = 0; i < lanes; i++) {
        int d = emax - in->exp_i[i];
        uint64_t mag = 0;
        if (in->prod_i[i] != 0 && d < align_width)
            mag = ((uint64_t)in->prod_i[i] << guard) >> d;
        out->aligned_o[i] = in->sign_i[i] ? -(int64_t)mag : (int64_t)mag;
    }
    out->emax_o = emax;
    out->nan_o = nan || (pinf && ninf);
    out->inf_o = !out->nan_o && (pinf || ninf);
    out->inf_sign_o = !out->nan_o && ninf;
}
