/*
 * mx_pe_format.h — the one table of the datapath's element formats (issue
 * 14; FPnew's fpnew_pkg in spirit).  Every unit reads a format's constants
 * from here: the decode unit (mx_decode.c), the re-quantizer (mx_requant.c),
 * the PE (mx_pe.c: names, code widths, scale use), the slow reference
 * (tests/ref) and the SystemC platform; rtl/mx_pkg.sv is generated from it
 * (mk/gen_mx_pkg.c, by `make`).  The row index is the format
 * code, the RTL's fmt_i.
 *
 * Adding a datapath format: an mx_pe_fmt value, a row below, and whatever the
 * decoder and multiplier cannot yet take (docs/CONTRIBUTING.md).
 */
#ifndef MX_UNITS_PE_FORMAT_H
#define MX_UNITS_PE_FORMAT_H

#include "units/mx_pe.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the decode unit reads a code. */
typedef enum {
    MX_PE_DEC_FLOAT = 0, /* sign, E field, M field, bias (subnormals at E == 0) */
    MX_PE_DEC_INT,       /* two's complement, value = code x 2^int_lsb          */
    MX_PE_DEC_MXSF       /* MX-SAFE: E2M5 or FP5 E3M2 by the E field (SPEC §2.2) */
} mx_pe_dec_kind;

/* Which codes are special (after the sign bit). */
typedef enum {
    MX_PE_SPEC_NONE = 0, /* every code finite                                  */
    MX_PE_SPEC_NAN_ONES, /* only S.1111111 (all ones) is NaN (OCP E4M3)        */
    MX_PE_SPEC_IEEE      /* E all ones: M == 0 Inf, else NaN (E5M2, BF16)      */
} mx_pe_specials;

typedef struct {
    const char *name;         /* the PE's name (cosim, SystemC descriptors)       */
    const char *mx_name;      /* the block-scaled storage format (configs)        */
    const char *elem_name;    /* its element format in the format library, or
                                 NULL for MXSF (whose FP5 bias is a parameter)   */
    int code_bits;            /* 4, 6, 8 or 16 (codes below 8 bits use the low bits
                                 of an 8-bit slot)                                */
    mx_pe_dec_kind dec;
    int ebits, mbits, bias;   /* MX_PE_DEC_FLOAT                                  */
    int int_lsb;              /* MX_PE_DEC_INT                                    */
    mx_pe_specials specials;
    int emax;                 /* exponent of the largest normal (re-quantizer)    */
    int block_scaled;         /* takes E8M0 block scales (0: BF16)                */
    int requant;              /* an element format of the re-quantizer            */
    uint8_t max_code;         /* largest positive code (saturation)               */
    uint8_t nan_code;         /* element code of a NaN block (0: no NaN code)     */
} mx_pe_format;

/* The row of format f, or NULL when f is not a datapath format. */
const mx_pe_format *mx_pe_format_of(mx_pe_fmt f);

#ifdef __cplusplus
}
#endif
#endif
