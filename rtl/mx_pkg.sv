// mx_pkg.sv — format table and widths of the MXSF datapath RTL.
// Mirrors models/formats/mx_format_table.c (the entries the PE supports) and
// models/units/mx_pe.h (format codes, widths).  The format is a runtime input
// of every unit (fmt_i), so one design serves all formats.
package mx_pkg;
  // A table: not every unit uses every entry.
  /* verilator lint_off UNUSEDPARAM */
  // fmt_i codes (= mx_pe_fmt in models/units/mx_pe.h)
  localparam logic [2:0] FMT_MXSF = 3'd0;  // MX-SAFE, FP5 bias from fp5_bias_i
  localparam logic [2:0] FMT_E4M3 = 3'd1;  // MXFP8 E4M3 (OCP): bias 7, NaN S.1111.111
  localparam logic [2:0] FMT_E5M2 = 3'd2;  // MXFP8 E5M2 (OCP): bias 15, Inf/NaN at E=31
  localparam logic [2:0] FMT_E2M5 = 3'd3;  // MXFP8 E2M5: bias 1, finite only
  localparam logic [2:0] FMT_INT8 = 3'd4;  // MXINT8: two's complement x 2^-6
  localparam logic [2:0] FMT_BF16 = 3'd5;  // BF16: bias 127, 16-bit codes, no scales

  // Element layouts (exponent bits, mantissa bits, bias) and the numbers the
  // datapath derives from them.
  localparam int E4M3_EBITS = 4, E4M3_MBITS = 3, E4M3_BIAS = 7,   E4M3_EMAX = 8;
  localparam int E5M2_EBITS = 5, E5M2_MBITS = 2, E5M2_BIAS = 15,  E5M2_EMAX = 15;
  localparam int E2M5_EBITS = 2, E2M5_MBITS = 5, E2M5_BIAS = 1,   E2M5_EMAX = 2;
  localparam int BF16_EBITS = 8, BF16_MBITS = 7, BF16_BIAS = 127;
  localparam int INT8_FRAC  = 6,                                  INT8_EMAX = 0;
  localparam int MXSF_EMAX  = 2;   // 7.875 = 63 * 2^-3
  // Largest positive codes (saturation targets of the re-quantizer)
  localparam logic [7:0] E4M3_MAX_CODE = 8'h7E, E5M2_MAX_CODE = 8'h7B,
                         E2M5_MAX_CODE = 8'h7F, MXSF_MAX_CODE = 8'h7F, INT8_MAX_CODE = 8'h7F;
  // NaN element codes of a NaN block (0 where the format has no NaN)
  localparam logic [7:0] E4M3_NAN_CODE = 8'h7F, E5M2_NAN_CODE = 8'h7E;

  // Datapath widths
  localparam int CODE_W = 16;  // element code (BF16 is the widest)
  localparam int SIG_W  = 8;   // significand incl. hidden bit (BF16 1.7, |INT8| <= 128)
  localparam int LSB_W  = 9;   // signed lsb exponent: BF16 [-133, 120]
  localparam int PROD_W = 16;  // significand product
  localparam int PEXP_W = 10;  // signed product exponent
  localparam int GEXP_W = 12;  // signed exponent of a group sum incl. scales

  localparam logic [31:0] FP32_QNAN = 32'h7FC0_0000;
  localparam logic [31:0] FP32_PINF = 32'h7F80_0000;
  localparam logic [31:0] FP32_NINF = 32'hFF80_0000;
  /* verilator lint_on UNUSEDPARAM */
endpackage
