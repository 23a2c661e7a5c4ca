/*
 * mx_pe_format.c — the datapath's format table (see mx_pe_format.h).  The
 * numbers follow the format definitions (SPEC §2; OCP MX v1.0 for the FP8,
 * FP6, FP4 and INT8 elements) and must agree with models/formats/mx_format_table.c
 * for the same element (tests/test_pe_format.cpp checks it).
 */
#include "units/mx_pe_format.h"

#include <stddef.h>

/*  name    mx_name       elem_name   bits dec              e  m  bias lsb specials             emax scaled rq  max   nan */
static const mx_pe_format mx_pe_format_table[MX_PE_NFMT] = {
    [MX_PE_MXSF] = {"mxsf", "mxsf",       NULL,       8,  MX_PE_DEC_MXSF,  2, 5, 1,   0,  MX_PE_SPEC_NONE,     2,  1, 1, 0x7F, 0x00},
    [MX_PE_E4M3] = {"e4m3", "mxfp8_e4m3", "fp8_e4m3", 8,  MX_PE_DEC_FLOAT, 4, 3, 7,   0,  MX_PE_SPEC_NAN_ONES, 8,  1, 1, 0x7E, 0x7F},
    [MX_PE_E5M2] = {"e5m2", "mxfp8_e5m2", "fp8_e5m2", 8,  MX_PE_DEC_FLOAT, 5, 2, 15,  0,  MX_PE_SPEC_IEEE,     15, 1, 1, 0x7B, 0x7E},
    [MX_PE_E2M5] = {"e2m5", "mxfp8_e2m5", "fp8_e2m5", 8,  MX_PE_DEC_FLOAT, 2, 5, 1,   0,  MX_PE_SPEC_NONE,     2,  1, 1, 0x7F, 0x00},
    [MX_PE_INT8] = {"int8", "mxint8",     "int8",     8,  MX_PE_DEC_INT,   0, 0, 0,   -6, MX_PE_SPEC_NONE,     0,  1, 1, 0x7F, 0x00},
    [MX_PE_BF16] = {"bf16", "bf16",       "bf16",     16, MX_PE_DEC_FLOAT, 8, 7, 127, 0,  MX_PE_SPEC_IEEE,     127, 0, 0, 0x00, 0x00},
    /* OCP MX v1.0 FP6/FP4 elements: no NaN/Inf codes.  Operand formats only:
     * the re-quantizer does not produce them (rq 0; docs/DECISIONS.md). */
    [MX_PE_E3M2] = {"e3m2", "mxfp6_e3m2", "fp6_e3m2", 6,  MX_PE_DEC_FLOAT, 3, 2, 3,   0,  MX_PE_SPEC_NONE,     4,  1, 0, 0x1F, 0x00},
    [MX_PE_E2M3] = {"e2m3", "mxfp6_e2m3", "fp6_e2m3", 6,  MX_PE_DEC_FLOAT, 2, 3, 1,   0,  MX_PE_SPEC_NONE,     2,  1, 0, 0x1F, 0x00},
    [MX_PE_E2M1] = {"e2m1", "mxfp4",      "fp4_e2m1", 4,  MX_PE_DEC_FLOAT, 2, 1, 1,   0,  MX_PE_SPEC_NONE,     2,  1, 0, 0x07, 0x00},
};

const mx_pe_format *mx_pe_format_of(mx_pe_fmt f)
{
    return (unsigned)f < MX_PE_NFMT ? &mx_pe_format_table[f] : NULL;
}
