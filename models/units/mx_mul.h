/*
 * mx_mul.h — dual-mode multiplier (SPEC §3.2), twin of rtl/mx_mul.sv.
 * Significand product, exponent sum, special flags, and the MXSF mode pair
 * (0 E2M5xE2M5, 1 E2M5xFP5, 2 FP5xFP5) for the energy model.  Combinational.
 */
#ifndef MX_UNITS_MUL_H
#define MX_UNITS_MUL_H

#include "util/mx_fp_env.h" /* refuses -ffast-math, excess precision */
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int a_sign_i; uint32_t a_sig_i; int a_lsb_i; int a_zero_i, a_nan_i, a_inf_i, a_mode_i;
    int b_sign_i; uint32_t b_sig_i; int b_lsb_i; int b_zero_i, b_nan_i, b_inf_i, b_mode_i;
} mx_mul_in;

typedef struct {
    int      sign_o;
    uint32_t prod_o;  /* 16 bits */
    int      exp_o;   /* lsb exponent of the product */
    int      zero_o, nan_o, inf_o;
    int      mode_o;  /* mode pair */
} mx_mul_out;

void mx_mul_comb(const mx_mul_in *in, mx_mul_out *out);

#ifdef __cplusplus
}
#endif
#endif
