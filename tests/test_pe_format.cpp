// The datapath format table (models/units/mx_pe_format.c) against the
// format library's own table (models/formats/mx_format_table.c), which was
// written and tested independently (exhaustive encode/decode, microxcaling
// goldens): the same widths, bias, emax and largest code for every element
// the datapath takes; NaN codes from the format definitions (OCP MX v1.0:
// E4M3 S.1111.111, E5M2 S.11111.xx, the others have none); and every code
// of every format decoded by the unit equals the library's exact value.
#include <gtest/gtest.h>

#include <cmath>

extern "C" {
#include "formats/mx_block.h"
#include "formats/mx_format.h"
#include "units/mx_decode.h"
#include "units/mx_pe_format.h"
}

TEST(PeFormatTable, AgreesWithTheFormatLibrary)
{
    for (int i = 0; i < MX_PE_NFMT; i++) {
        const mx_pe_format *pf = mx_pe_format_of((mx_pe_fmt)i);
        ASSERT_NE(pf, nullptr);
        mx_format f;
        if (pf->elem_name) {
            ASSERT_EQ(mx_format_lookup(pf->elem_name, &f), 0) << pf->elem_name;
        } else {
            ASSERT_EQ(mx_format_mxsf(8, &f), 0);
        }
        EXPECT_EQ(pf->code_bits, f.bits) << pf->name;
        EXPECT_EQ(pf->emax, f.emax) << pf->name;
        if (pf->block_scaled) {  // saturation target (requant), largest code (coverage)
            EXPECT_EQ(pf->max_code, f.max_code) << pf->name;
        }
        if (pf->dec == MX_PE_DEC_FLOAT) {
            EXPECT_EQ(pf->ebits, f.ebits) << pf->name;
            EXPECT_EQ(pf->mbits, f.mbits) << pf->name;
            EXPECT_EQ(pf->bias, f.bias) << pf->name;
        }
        // a block-scaled format is known to the library by its MX name too
        if (pf->block_scaled) {
            EXPECT_EQ(mx_block_format_lookup(pf->mx_name, &f), 0) << pf->mx_name;
        }
    }
    EXPECT_EQ(mx_pe_format_of(MX_PE_E4M3)->nan_code, 0x7F);
    EXPECT_EQ(mx_pe_format_of(MX_PE_E5M2)->nan_code, 0x7E);
    EXPECT_EQ(mx_pe_format_of(MX_PE_E2M5)->nan_code, 0x00);
    EXPECT_EQ(mx_pe_format_of(MX_PE_NFMT), nullptr);
    // the MXFP6 / MXFP4 rows from OCP MX v1.0 (not from the library): widths,
    // biases, emax, no NaN code, not produced by the re-quantizer
    struct { mx_pe_fmt f; const char *mx; int bits, e, m, bias, emax; } ocp[] = {
        {MX_PE_E3M2, "mxfp6_e3m2", 6, 3, 2, 3, 4}, {MX_PE_E2M3, "mxfp6_e2m3", 6, 2, 3, 1, 2},
        {MX_PE_E2M1, "mxfp4", 4, 2, 1, 1, 2}};
    for (auto &o : ocp) {
        const mx_pe_format *pf = mx_pe_format_of(o.f);
        EXPECT_STREQ(pf->mx_name, o.mx);
        EXPECT_EQ(pf->code_bits, o.bits) << o.mx;
        EXPECT_EQ(pf->ebits, o.e) << o.mx;
        EXPECT_EQ(pf->mbits, o.m) << o.mx;
        EXPECT_EQ(pf->bias, o.bias) << o.mx;
        EXPECT_EQ(pf->emax, o.emax) << o.mx;
        EXPECT_EQ(pf->specials, MX_PE_SPEC_NONE) << o.mx;
        EXPECT_EQ(pf->nan_code, 0) << o.mx;
        EXPECT_TRUE(pf->block_scaled) << o.mx;
        EXPECT_FALSE(pf->requant) << o.mx;
    }
}

// Every code of every format (MXSF at FP5 biases 5..16): the decode unit's
// (-1)^sign * sig * 2^lsb equals the library's exact value, NaN and Inf
// where the library has them.
TEST(PeFormatTable, DecodeUnitEqualsLibraryValues)
{
    for (int i = 0; i < MX_PE_NFMT; i++) {
        const mx_pe_format *pf = mx_pe_format_of((mx_pe_fmt)i);
        for (int b5 = 5; b5 <= (pf->dec == MX_PE_DEC_MXSF ? 16 : 5); b5++) {
            mx_format f;
            if (pf->elem_name) ASSERT_EQ(mx_format_lookup(pf->elem_name, &f), 0);
            else ASSERT_EQ(mx_format_mxsf(b5, &f), 0);
            for (uint32_t c = 0; c < (1u << pf->code_bits); c++) {
                mx_decode_in in = {c, i, b5};
                mx_decode_out o;
                mx_decode_comb(&in, &o);
                const double want = mx_decode(&f, c);
                if (std::isnan(want)) {
                    EXPECT_TRUE(o.nan_o) << pf->name << " code " << c;
                    continue;
                }
                if (std::isinf(want)) {
                    EXPECT_TRUE(o.inf_o && o.sign_o == (want < 0)) << pf->name << " code " << c;
                    continue;
                }
                EXPECT_FALSE(o.nan_o || o.inf_o) << pf->name << " code " << c;
                const double got = (o.sign_o ? -1.0 : 1.0) * std::ldexp((double)o.sig_o, o.lsb_o);
                ASSERT_EQ(got, want) << pf->name << " b5 " << b5 << " code " << c;
            }
        }
    }
}
