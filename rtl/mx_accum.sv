// mx_accum.sv — scale add, group sum -> FP32 (RNE) and FP32 accumulation
// (RNE) (SPEC §3.5), twin of models/units/mx_accum.c.
//   g   = RNE(sum_i * 2^(emax_i - G + a_scale_i + b_scale_i - 254))
//   res = RNE((first_i ? acc_i : acc_q) + g)
// Registers advance when en_i: acc_q takes res for a valid group; out_q takes
// res of a last_i group and out_valid_q flags it.
module mx_accum
#(
  parameter int ALIGN_W = 32,
  parameter int SUM_W   = 36
) (
  input  logic              clk_i,
  input  logic              rst_ni,     // synchronous, active low
  input  logic              en_i,
  input  logic              valid_i,
  input  logic              first_i,
  input  logic              last_i,
  input  logic [31:0]       acc_i,
  input  logic [SUM_W-1:0]  sum_i,      // two's complement
  input  logic [mx_pkg::PEXP_W-1:0] emax_i,     // two's complement
  input  logic [7:0]        a_scale_i,  // E8M0
  input  logic [7:0]        b_scale_i,
  input  logic              use_scale_i,
  input  logic              nan_i,
  input  logic              inf_i,
  input  logic              inf_sign_i,
  output logic [31:0]       group_o,
  output logic [31:0]       res_o,
  output logic [31:0]       acc_q,
  output logic [31:0]       out_q,
  output logic              out_valid_q
);
  localparam int G = ALIGN_W - mx_pkg::PROD_W;

  logic              scale_nan, neg;
  logic [mx_pkg::GEXP_W-1:0] scale, gexp;
  logic [SUM_W-1:0]  abs_sum;
  logic [63:0]       mag;
  logic [31:0]       g_round, base;

  always_comb begin
    scale_nan = use_scale_i && (a_scale_i == 8'hFF || b_scale_i == 8'hFF);
    scale = use_scale_i ? ({4'b0, a_scale_i} + {4'b0, b_scale_i} - mx_pkg::GEXP_W'(254)) : '0;
    gexp = {{(mx_pkg::GEXP_W - mx_pkg::PEXP_W){emax_i[mx_pkg::PEXP_W-1]}}, emax_i} - mx_pkg::GEXP_W'(G) + scale;
    neg = sum_i[SUM_W-1];
    abs_sum = neg ? -sum_i : sum_i;
    mag = {{(64 - SUM_W){1'b0}}, abs_sum};
  end

  mx_fp32_round u_group (.sign_i(neg), .mag_i(mag), .exp_i(gexp), .fp32_o(g_round));

  always_comb begin
    if (nan_i || scale_nan) group_o = mx_pkg::FP32_QNAN;
    else if (inf_i) group_o = inf_sign_i ? mx_pkg::FP32_NINF : mx_pkg::FP32_PINF;
    else if (sum_i == '0) group_o = 32'b0;
    else group_o = g_round;
    base = first_i ? acc_i : acc_q;
  end

  mx_fp32_add u_add (.a_i(base), .b_i(group_o), .sum_o(res_o));

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      acc_q <= '0;
      out_q <= '0;
      out_valid_q <= 1'b0;
    end else if (en_i) begin
      if (valid_i) acc_q <= res_o;
      out_valid_q <= valid_i & last_i;
      if (valid_i && last_i) out_q <= res_o;
    end
  end
endmodule
