/*
 * mx_requant.h — tile-based re-quantization unit (SPEC §3.6), twin of
 * rtl/mx_requant.sv.  One transaction is one block or tile of n FP32 outputs
 * (a tile r x c arrives as its n = r*c values): a max tree finds amax, the
 * E8M0 scale follows the OCP floor rule (floor(log2 amax) - emax_elem, clamped
 * to [-127, 127]), and every element is encoded RNE with saturation.
 * NaN/Inf anywhere: scale 0xFF and the format's NaN code (0 if it has none).
 * All-zero block: scale 0x00.  Element formats: MXSF, E4M3, E5M2, E2M5, INT8
 * (not BF16).  Combinational: no registers.
 */
#ifndef MX_UNITS_REQUANT_H
#define MX_UNITS_REQUANT_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

#define MX_REQUANT_MAX_N 1024  /* a 32 x 32 fold tile (rtl/mx_array_ctrl.sv rq_tile_i) */

typedef struct {
    int      fmt_i;       /* mx_pe_fmt, not BF16 */
    int      fp5_bias_i;
    uint32_t vals_i[MX_REQUANT_MAX_N]; /* FP32 bits */
} mx_requant_in;

typedef struct {
    uint8_t  scale_o;
    uint32_t amax_o;                   /* FP32 bits of the max magnitude */
    uint8_t  codes_o[MX_REQUANT_MAX_N];
} mx_requant_out;

void mx_requant_comb(int n, const mx_requant_in *in, mx_requant_out *out);

#ifdef __cplusplus
}
#endif
#endif
