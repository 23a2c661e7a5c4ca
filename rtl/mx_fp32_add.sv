// mx_fp32_add.sv — IEEE FP32 addition, round to nearest even (twin of
// mx_accum_fp32_add() in models/units/mx_accum.c).  The smaller operand is
// aligned 39 bits below the larger's lsb; what falls beyond only sets a
// sticky bit, far below the rounding position.  NaN results are 0x7FC00000.
module mx_fp32_add
(
  input  logic [31:0] a_i,
  input  logic [31:0] b_i,
  output logic [31:0] sum_o
);
  logic        a_nan, b_nan, a_inf, b_inf, swap;
  logic [31:0] hi_op, lo_op;
  logic [7:0]  eb, es, d;
  logic [63:0] xb, xs, xss, lost, mag;
  logic [31:0] rounded;
  logic [mx_pkg::GEXP_W-1:0] lsb_exp;

  mx_fp32_round u_round (.sign_i(hi_op[31]), .mag_i(mag), .exp_i(lsb_exp), .fp32_o(rounded));

  always_comb begin
    a_nan = a_i[30:23] == 8'hFF && a_i[22:0] != '0;
    b_nan = b_i[30:23] == 8'hFF && b_i[22:0] != '0;
    a_inf = a_i[30:0] == 31'h7F80_0000;
    b_inf = b_i[30:0] == 31'h7F80_0000;
    swap = b_i[30:0] > a_i[30:0];
    hi_op = swap ? b_i : a_i;
    lo_op = swap ? a_i : b_i;
    eb = (hi_op[30:23] != 8'd0) ? hi_op[30:23] : 8'd1;
    es = (lo_op[30:23] != 8'd0) ? lo_op[30:23] : 8'd1;
    d = eb - es;
    xb = {1'b0, hi_op[30:23] != 8'd0, hi_op[22:0], 39'b0};
    xs = {1'b0, lo_op[30:23] != 8'd0, lo_op[22:0], 39'b0};
    lost = '0;
    if (d >= 8'd63) begin
      xss = {63'b0, xs != '0};
    end else begin
      lost = xs & ((64'd1 << d) - 64'd1);
      xss = (xs >> d) | {63'b0, lost != '0};
    end
    mag = (hi_op[31] == lo_op[31]) ? xb + xss : xb - xss;
    lsb_exp = {4'b0, eb} - mx_pkg::GEXP_W'(150 + 39);
  end

  always_comb begin
    if (a_nan || b_nan || (a_inf && b_inf && a_i != b_i)) sum_o = mx_pkg::FP32_QNAN;
    else if (a_inf) sum_o = a_i;
    else if (b_inf) sum_o = b_i;
    else if (mag == '0) sum_o = (hi_op[31] == lo_op[31]) ? {hi_op[31], 31'b0} : 32'b0;  // x + (-x) = +0
    else sum_o = rounded;
  end
endmodule
