// mx_mul.sv — dual-mode multiplier (SPEC §3.2), twin of models/units/mx_mul.c.
// For MXSF an FP5 operand has a 3-bit significand, so a mixed or FP5 x FP5
// product needs a 6x3 or 3x3 array; mode_o (0 E2M5xE2M5, 1 mixed, 2 FP5xFP5)
// lets the energy model charge each case its own cost.
module mx_mul
(
  input  logic              a_sign_i,
  input  logic [mx_pkg::SIG_W-1:0]  a_sig_i,
  input  logic [mx_pkg::LSB_W-1:0]  a_lsb_i,
  input  logic              a_zero_i,
  input  logic              a_nan_i,
  input  logic              a_inf_i,
  input  logic              a_mode_i,
  input  logic              b_sign_i,
  input  logic [mx_pkg::SIG_W-1:0]  b_sig_i,
  input  logic [mx_pkg::LSB_W-1:0]  b_lsb_i,
  input  logic              b_zero_i,
  input  logic              b_nan_i,
  input  logic              b_inf_i,
  input  logic              b_mode_i,
  output logic              sign_o,
  output logic [mx_pkg::PROD_W-1:0] prod_o,
  output logic [mx_pkg::PEXP_W-1:0] exp_o,
  output logic              zero_o,
  output logic              nan_o,
  output logic              inf_o,
  output logic [1:0]        mode_o
);
  always_comb begin
    sign_o = a_sign_i ^ b_sign_i;
    prod_o = {8'b0, a_sig_i} * {8'b0, b_sig_i};
    exp_o  = {a_lsb_i[mx_pkg::LSB_W-1], a_lsb_i} + {b_lsb_i[mx_pkg::LSB_W-1], b_lsb_i};
    zero_o = a_zero_i | b_zero_i;
    nan_o  = a_nan_i | b_nan_i | (a_inf_i & b_zero_i) | (b_inf_i & a_zero_i);  // Inf x 0
    inf_o  = (a_inf_i | b_inf_i) & ~nan_o;
    mode_o = {1'b0, a_mode_i} + {1'b0, b_mode_i};
  end
endmodule
