/*
 * mx_decode.c — element decode unit (twin of rtl/mx_decode.sv).
 */
#include "units/mx_decode.h"
#include "units/mx_pe.h"

/* IEEE-like minifloat with E field e, M field m, bias b: sig, lsb. */
static void fp_fields(uint32_t mag, int mbits, int bias, uint32_t *sig, int *lsb)
{
    uint32_t e = mag >> mbits, m = mag & ((1u << mbits) - 1);
    *sig = e ? (1u << mbits) | m : m;
    *lsb = (e ? (int)e : 1) - bias - mbits;
}

void mx_decode_comb(const mx_decode_in *in, mx_decode_out *out)
{
    uint32_t c = in->code_i;
    uint32_t mag;
    out->nan_o = out->inf_o = out->mode_o = 0;
    switch (in->fmt_i) {
    case MX_PE_E4M3:
        c &= 0xFF; mag = c & 0x7F;
        out->sign_o = (int)(c >> 7);
        fp_fields(mag, 3, 7, &out->sig_o, &out->lsb_o);
        out->nan_o = mag == 0x7F;
        break;
    case MX_PE_E5M2:
        c &= 0xFF; mag = c & 0x7F;
        out->sign_o = (int)(c >> 7);
        fp_fields(mag, 2, 15, &out->sig_o, &out->lsb_o);
        out->nan_o = (mag >> 2) == 31 && (mag & 3) != 0;
        out->inf_o = mag == 0x7C;
        break;
    case MX_PE_E2M5:
        c &= 0xFF; mag = c & 0x7F;
        out->sign_o = (int)(c >> 7);
        fp_fields(mag, 5, 1, &out->sig_o, &out->lsb_o);
        break;
    case MX_PE_INT8:
        c &= 0xFF;
        out->sign_o = (int)(c >> 7);
        out->sig_o = out->sign_o ? (0x100u - c) : c; /* |-128| = 128 */
        out->lsb_o = -6;
        break;
    case MX_PE_BF16:
        c &= 0xFFFF; mag = c & 0x7FFF;
        out->sign_o = (int)(c >> 15);
        fp_fields(mag, 7, 127, &out->sig_o, &out->lsb_o);
        out->nan_o = (mag >> 7) == 255 && (mag & 0x7F) != 0;
        out->inf_o = mag == 0x7F80;
        break;
    case MX_PE_MXSF:
    default: {
        c &= 0xFF; mag = c & 0x7F;
        uint32_t e = mag >> 5, f = mag & 31;
        out->sign_o = (int)(c >> 7);
        if (e) {
            out->sig_o = 32 | f;
            out->lsb_o = (int)e - 6;
        } else {
            uint32_t fe = f >> 2, n = f & 3;
            out->mode_o = 1;
            out->sig_o = fe ? 4 | n : n;
            out->lsb_o = fe ? (int)fe - in->fp5_bias_i - 2 : -in->fp5_bias_i - 1;
        }
        break;
    }
    }
    if (out->nan_o || out->inf_o) { out->sig_o = 0; out->lsb_o = 0; }
    out->zero_o = out->sig_o == 0 && !out->nan_o && !out->inf_o;
}
