// mx_pe_area.sv — synthesis wrapper for area estimates (`make area`): the PE
// with its format tied to a constant, so synthesis removes the other formats'
// decode paths and narrows the datapath to what FMT needs (widths follow from
// constant propagation: e.g. an E4M3 significand has 4 bits, so the 8x8
// multiplier shrinks to 4x4).
module mx_pe_area #(
  parameter mx_pkg::fmt_t FMT    = mx_pkg::FMT_MXSF,  // mx_pkg::FMT_*
  parameter logic [4:0] FP5_BIAS = 5'd8,
  parameter int         LANES    = 8,
  parameter int         ALIGN_W  = 32
) (
  input  logic                             clk_i,
  input  logic                             rst_ni,
  input  logic                             in_valid_i,
  output logic                             in_ready_o,
  input  logic [LANES*mx_pkg::CODE_W-1:0]  a_codes_i,
  input  logic [LANES*mx_pkg::CODE_W-1:0]  b_codes_i,
  input  logic [7:0]                       a_scale_i,
  input  logic [7:0]                       b_scale_i,
  input  logic                             first_i,
  input  logic                             last_i,
  input  logic [31:0]                      acc_i,
  output logic                             out_valid_o,
  input  logic                             out_ready_i,
  output logic [31:0]                      out_o
);
  mx_pe #(.LANES(LANES), .ALIGN_W(ALIGN_W)) u_pe (
    .clk_i, .rst_ni, .fmt_i(FMT), .fmt_b_i(FMT), .fp5_bias_i(FP5_BIAS), .in_valid_i, .in_ready_o, .a_codes_i,
    .b_codes_i, .a_scale_i, .b_scale_i, .first_i, .last_i, .acc_i, .out_valid_o, .out_ready_i, .out_o);
endmodule
