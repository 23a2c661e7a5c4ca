/*
 * mx_align.h — shared-exponent alignment (SPEC §3.3), twin of rtl/mx_align.sv.
 *
 * The L products of one cycle are aligned to e_max, the largest lsb exponent
 * among the non-zero products (0 when all are zero).  With G = align_width - 16
 * guard bits, lane i becomes the signed integer
 *     aligned_i = (-1)^s_i * floor(prod_i * 2^(G - (e_max - exp_i)))
 * in units of 2^(e_max - G): exact whenever e_max - exp_i <= G, otherwise the
 * bits below the word are dropped (truncation of the magnitude).
 * It also reduces the lanes' special flags: NaN if any lane is NaN or +Inf
 * meets -Inf, else Inf (with its sign) if any lane is Inf.  Combinational.
 */
#ifndef MX_UNITS_ALIGN_H
#define MX_UNITS_ALIGN_H
#include <stdint.h>
#include "units/mx_pe.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int      sign_i[MX_PE_MAX_LANES];
    uint32_t prod_i[MX_PE_MAX_LANES];
    int      exp_i[MX_PE_MAX_LANES];
    int      nan_i[MX_PE_MAX_LANES];
    int      inf_i[MX_PE_MAX_LANES];
} mx_align_in;

typedef struct {
    int64_t aligned_o[MX_PE_MAX_LANES]; /* align_width + 1 bits, two's complement */
    int     emax_o;
    int     nan_o, inf_o, inf_sign_o;
} mx_align_out;

void mx_align_comb(int lanes, int align_width, const mx_align_in *in, mx_align_out *out);

#ifdef __cplusplus
}
#endif
#endif
