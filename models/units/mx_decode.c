/*
 * mx_decode.c — element decode unit (twin of rtl/mx_decode.sv), driven by
 * the datapath format table (units/mx_pe_format.h).  A code outside the
 * table decodes as MXSF, as the RTL's default branch does; formats are
 * checked where they enter (mx_pe_config_check, the SystemC descriptor, the
 * co-simulation's options).
 */
#include "units/mx_decode.h"
#include "units/mx_pe.h"
#include "units/mx_pe_format.h"

/* IEEE-like minifloat with E field e, M field m, bias b: sig, lsb. */
static void fp_fields(uint32_t mag, int mbits, int bias, uint32_t *sig, int *lsb)
{
    uint32_t e = mag >> mbits, m = mag & ((1u << mbits) - 1);
    *sig = e ? (1u << mbits) | m : m;
    *lsb = (e ? (int)e : 1) - bias - mbits;
}

/* MX-SAFE (SPEC §2.2): E != 0 is E2M5 (sig 32 + F, lsb E - 6); E == 0 is
 * FP5 E3M2 with F = fff.nn and bias b5 (the mode_o flag). */
static void mxsf_fields(uint32_t mag, int b5, mx_decode_out *out)
{
    uint32_t e = mag >> 5, f = mag & 31;
    if (e) {
        out->sig_o = 32 | f;
        out->lsb_o = (int)e - 6;
    } else {
        uint32_t fe = f >> 2, n = f & 3;
        out->mode_o = 1;
        out->sig_o = fe ? 4 | n : n;
        out->lsb_o = fe ? (int)fe - b5 - 2 : -b5 - 1;
    }
}

void mx_decode_comb(const mx_decode_in *in, mx_decode_out *out)
{
    const mx_pe_format *pf = mx_pe_format_of((mx_pe_fmt)in->fmt_i);
    if (!pf) pf = mx_pe_format_of(MX_PE_MXSF);
    const int bits = pf->code_bits;
    const uint32_t c = in->code_i & ((1u << bits) - 1), mag = c & ((1u << (bits - 1)) - 1);
    out->nan_o = out->inf_o = out->mode_o = 0;
    out->sign_o = (int)(c >> (bits - 1));
    switch (pf->dec) {
    case MX_PE_DEC_FLOAT: {
        fp_fields(mag, pf->mbits, pf->bias, &out->sig_o, &out->lsb_o);
        const uint32_t eall = (1u << pf->ebits) - 1, e = mag >> pf->mbits, m = mag & ((1u << pf->mbits) - 1);
        if (pf->specials == MX_PE_SPEC_NAN_ONES) out->nan_o = mag == (1u << (bits - 1)) - 1;
        if (pf->specials == MX_PE_SPEC_IEEE) {
            out->nan_o = e == eall && m != 0;
            out->inf_o = e == eall && m == 0;
        }
        break;
    }
    case MX_PE_DEC_INT:
        out->sig_o = out->sign_o ? ((1u << bits) - c) : c; /* |-2^(bits-1)| = 2^(bits-1) */
        out->lsb_o = pf->int_lsb;
        break;
    case MX_PE_DEC_MXSF:
    default:
        mxsf_fields(mag, in->fp5_bias_i, out);
        break;
    }
    if (out->nan_o || out->inf_o) { out->sig_o = 0; out->lsb_o = 0; }
    out->zero_o = out->sig_o == 0 && !out->nan_o && !out->inf_o;
}
