/*
 * mx_accum.h — scale add, group sum -> FP32, FP32 accumulation (SPEC §3.5),
 * twin of rtl/mx_accum.sv.
 *
 *   g   = RNE_fp32(sum_i * 2^(emax_i - G + [use_scale_i] (a_scale_i + b_scale_i - 254)))
 *   res = RNE_fp32((first_i ? acc_i : acc_q) + g)
 * Both roundings go through mx_round_pack() into fp32 (overflow -> Inf).
 * NaN (lane NaN, +Inf meets -Inf, E8M0 scale 0xFF, acc NaN) gives 0x7FC00000.
 * Registers: acc_q (updated when en_i && valid_i), out_q/out_valid_q (the
 * emitted result of a last_i group; out_valid_q follows valid_i && last_i
 * whenever en_i).
 */
#ifndef MX_UNITS_ACCUM_H
#define MX_UNITS_ACCUM_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int      en_i, valid_i, first_i, last_i;
    uint32_t acc_i;                 /* start value with first_i        */
    int64_t  sum_i;                 /* addtree sum                     */
    int      emax_i;
    uint8_t  a_scale_i, b_scale_i;  /* E8M0                            */
    int      use_scale_i;           /* 0 for BF16                      */
    int      nan_i, inf_i, inf_sign_i;
} mx_accum_in;

typedef struct {
    uint32_t acc_q;
    uint32_t out_q;
    int      out_valid_q;
} mx_accum_regs;

typedef struct {
    uint32_t group_o;  /* g: the group sum in FP32            */
    uint32_t res_o;    /* the accumulator's next value         */
} mx_accum_out;

void mx_accum_comb(int align_width, const mx_accum_in *in, const mx_accum_regs *q,
                   mx_accum_regs *d, mx_accum_out *out);
void mx_accum_tick(mx_accum_regs *q, const mx_accum_regs *d);

/* The two rounding steps, shared with mx_pe_dot(); fp32 is
 * mx_format_lookup("fp32") (looked up once by the caller). */
struct mx_format;
uint32_t mx_accum_group_fp32(const struct mx_format *fp32, int64_t sum, int exp); /* RNE(sum*2^exp) */
uint32_t mx_accum_fp32_add(const struct mx_format *fp32, uint32_t a, uint32_t b); /* RNE(a+b), IEEE */

#ifdef __cplusplus
}
#endif
#endif
