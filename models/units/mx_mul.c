/*
 * mx_mul.c — dual-mode multiplier (twin of rtl/mx_mul.sv).
 */
#include "units/mx_mul.h"

void mx_mul_comb(const mx_mul_in *in, mx_mul_out *out)
{
    out->sign_o = in->a_sign_i ^ in->b_sign_i;
    out->prod_o = in->a_sig_i * in->b_sig_i;
    out->exp_o  = in->a_lsb_i + in->b_lsb_i;
    out->zero_o = in->a_zero_i || in->b_zero_i;
    /* Inf x 0 is invalid */
    out->nan_o  = in->a_nan_i || in->b_nan_i || (in->a_inf_i && in->b_zero_i) ||
                  (in->b_inf_i && in->a_zero_i);
    out->inf_o  = (in->a_inf_i || in->b_inf_i) && !out->nan_o;
    out->mode_o = in->a_mode_i + in->b_mode_i;
}
