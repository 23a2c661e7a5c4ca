/*
 * mx_pe.h — the MXSF processing element (SPEC §3): decode -> mul -> align ->
 * addtree -> accum for L lanes, as a cycle model (mirrors rtl/mx_pe.sv) and as
 * a fast functional entry point for the architecture model.
 *
 * Numerics (docs/DATAPATH.md):
 *   per cycle group of L lanes (one scale pair):
 *     products p_i = sig_a*sig_b * 2^(lsb_a+lsb_b)      exact
 *     e_max = max lsb exponent of the non-zero products
 *     aligned_i = trunc(|p_i| * 2^(G - (e_max - e_i))),  G = align_width - 16
 *                 (exact when the exponent spread <= G; truncation toward 0)
 *     S = sum of signed aligned_i                         exact
 *     g = RNE_fp32(S * 2^(e_max - G + xa + xb - 254))     mx_round_pack
 *     acc = RNE_fp32(acc + g)                             mx_round_pack
 *   A codes decode with cfg->fmt, B codes with cfg->fmt_b (mixed formats).
 *   BF16: no scales (offset 0).  Specials (E4M3/E5M2/BF16 NaN/Inf, scale 0xFF):
 *   IEEE rules, NaN results are the canonical quiet NaN 0x7FC00000.
 */
#ifndef MX_UNITS_PE_H
#define MX_UNITS_PE_H

#include "util/mx_fp_env.h" /* refuses -ffast-math, excess precision */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Formats of the PE; the value is the RTL's fmt_i (rtl/mx_pkg.sv). */
typedef enum {
    MX_PE_MXSF = 0, /* MX-SAFE (SPEC §2.2), FP5 bias from the config   */
    MX_PE_E4M3 = 1, /* MXFP8 E4M3                                       */
    MX_PE_E5M2 = 2, /* MXFP8 E5M2                                       */
    MX_PE_E2M5 = 3, /* MXFP8 E2M5                                       */
    MX_PE_INT8 = 4, /* MXINT8                                           */
    MX_PE_BF16 = 5, /* BF16 baseline: 16-bit codes, no block scales     */
    MX_PE_E3M2 = 6, /* MXFP6 E3M2 (6-bit codes)                         */
    MX_PE_E2M3 = 7, /* MXFP6 E2M3 (6-bit codes)                         */
    MX_PE_E2M1 = 8, /* MXFP4 E2M1 (4-bit codes)                         */
    MX_PE_NFMT
} mx_pe_fmt;

#define MX_PE_MAX_LANES        64
#define MX_PE_PROD_W           16  /* product significand slot (8x8 bits)        */
#define MX_PE_ALIGN_W_DEFAULT  32  /* aligned magnitude bits: 16 guard bits      */
#define MX_PE_ALIGN_W_MIN      16
#define MX_PE_ALIGN_W_MAX      56
#define MX_FP32_QNAN           0x7FC00000u

typedef struct {
    mx_pe_fmt fmt;    /* A operand's format                                        */
    mx_pe_fmt fmt_b;  /* B operand's format; `fmt` is A's.  Mixed pairs allowed,
                         except BF16, which mixes with nothing                      */
    int lanes;        /* L: elements per cycle, 1..MX_PE_MAX_LANES, divides block  */
    int block;        /* k: elements per scale (ignored for BF16)                  */
    int align_width;  /* MX_PE_ALIGN_W_MIN..MAX                                     */
    int fp5_bias;     /* MXSF FP5 bias b5 (5..16) of whichever operand is MXSF (one
                         bias per PE), ignored otherwise                            */
} mx_pe_config;

/* Defaults: fmt_b = fmt, L = 8, k = 32, align_width = 32, b5 = 8. */
void mx_pe_config_default(mx_pe_fmt fmt, mx_pe_config *cfg);
/* 0 if valid, else -1 with a message in err. */
int mx_pe_config_check(const mx_pe_config *cfg, char *err, unsigned errlen);
/* "mxsf" "e4m3" "e5m2" "e2m5" "int8" "bf16" "e3m2" "e2m3" "e2m1" (also
 * "mxfp8_e4m3", "mxint8", "mxfp6_e3m2", "mxfp4", "fp4_e2m1", ...) */
int mx_pe_fmt_parse(const char *s, mx_pe_fmt *out);
const char *mx_pe_fmt_name(mx_pe_fmt f);
/* Code width in bits: 16 for BF16, 6 for the FP6 and 4 for the FP4 elements,
 * else 8 (codes travel in 8-bit slots; bits above the code are ignored). */
int mx_pe_code_bits(mx_pe_fmt f);

/* FP32 accumulator bits after consuming k elements of A and B starting from
 * acc_fp32_bits: L per cycle, one E8M0 scale per block of cfg->block elements
 * (a_scales[i / block]); NULL scales for BF16.  A partial last cycle is padded
 * with zero codes.  Bit-identical to the cycle model of mx_pe.  The config must
 * pass mx_pe_config_check(). */
uint32_t mx_pe_dot(const mx_pe_config *cfg, const uint16_t *a_codes, const uint8_t *a_scales,
                   const uint16_t *b_codes, const uint8_t *b_scales, int k,
                   uint32_t acc_fp32_bits);

/* ---- cycle model (rtl/mx_pe.sv): 4 stages, global-enable pipeline ----------
 *   S1 decode+mul | S2 align | S3 addtree | S4 accum (acc_q, out_q)
 * en = !out_valid_q || out_ready_i; in_ready_o = en; every register holds
 * when !en.  A transaction is one cycle group; first_i loads acc_i as the
 * accumulator's start value, last_i emits the result on out_o. */
typedef struct {
    int      in_valid_i;
    uint16_t a_codes_i[MX_PE_MAX_LANES];
    uint16_t b_codes_i[MX_PE_MAX_LANES];
    uint8_t  a_scale_i, b_scale_i;
    int      first_i, last_i;
    uint32_t acc_i;
    int      out_ready_i;
} mx_pe_in;

typedef struct {
    /* S1: decode + mul, per lane */
    int      s1_valid_q, s1_first_q, s1_last_q;
    uint32_t s1_acc_q;
    int      s1_sign_q[MX_PE_MAX_LANES];
    uint32_t s1_prod_q[MX_PE_MAX_LANES];
    int      s1_exp_q[MX_PE_MAX_LANES];
    int      s1_zero_q[MX_PE_MAX_LANES];
    int      s1_nan_q[MX_PE_MAX_LANES];
    int      s1_inf_q[MX_PE_MAX_LANES];
    int      s1_mode_q[MX_PE_MAX_LANES]; /* 0 E2M5xE2M5, 1 mixed, 2 FP5xFP5 (MXSF) */
    uint8_t  s1_a_scale_q, s1_b_scale_q; /* E8M0 scales, added in accum          */
    /* S2: align */
    int      s2_valid_q, s2_first_q, s2_last_q;
    uint32_t s2_acc_q;
    int64_t  s2_aligned_q[MX_PE_MAX_LANES];
    int      s2_emax_q;
    int      s2_nan_q, s2_inf_q, s2_inf_sign_q;
    uint8_t  s2_a_scale_q, s2_b_scale_q;
    /* S3: addtree */
    int      s3_valid_q, s3_first_q, s3_last_q;
    uint32_t s3_acc_q;
    int64_t  s3_sum_q;
    int      s3_emax_q;
    int      s3_nan_q, s3_inf_q, s3_inf_sign_q;
    uint8_t  s3_a_scale_q, s3_b_scale_q;
    /* S4: accum */
    uint32_t acc_q;
    uint32_t out_q;
    int      out_valid_q;
} mx_pe_regs;

typedef struct {
    int      in_ready_o;
    int      out_valid_o;
    uint32_t out_o;
} mx_pe_out;

/* Registers after reset (all zero). */
void mx_pe_reset(mx_pe_regs *q);
/* Next-state d and outputs from inputs and registers q (pure). */
void mx_pe_comb(const mx_pe_config *cfg, const mx_pe_in *in, const mx_pe_regs *q,
                mx_pe_regs *d, mx_pe_out *out);
/* Clock edge: q <- d. */
void mx_pe_tick(mx_pe_regs *q, const mx_pe_regs *d);

#ifdef __cplusplus
}
#endif
#endif
