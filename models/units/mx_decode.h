/*
 * mx_decode.h — element decode unit (SPEC §3.1), C twin of rtl/mx_decode.sv.
 * Element code -> sign, significand, lsb exponent (value = (-1)^sign * sig *
 * 2^lsb), zero flag, NaN/Inf flags, and for MXSF the mode (0 E2M5, 1 FP5).
 * Purely combinational: no registers, hence no tick.
 */
#ifndef MX_UNITS_DECODE_H
#define MX_UNITS_DECODE_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    uint32_t code_i;     /* 8 bits (16 for BF16)                */
    int      fmt_i;      /* mx_pe_fmt                           */
    int      fp5_bias_i; /* MXSF FP5 bias b5                    */
} mx_decode_in;

typedef struct {
    int      sign_o;
    uint32_t sig_o;      /* <= 255 (BF16 1.7 significand, INT8 |-128|) */
    int      lsb_o;      /* exponent of the significand's lsb          */
    int      zero_o;
    int      nan_o;
    int      inf_o;
    int      mode_o;     /* MXSF: 1 when the FP5 E3M2 mode (E == 0)     */
} mx_decode_out;

void mx_decode_comb(const mx_decode_in *in, mx_decode_out *out);

#ifdef __cplusplus
}
#endif
#endif
