// mx_pe.sv — the processing element (SPEC §3), twin of the cycle model in
// models/units/mx_pe.c: decode -> mul -> align -> addtree -> accum for LANES
// lanes, four pipeline stages
//   S1 decode+mul | S2 align | S3 addtree | S4 accum (acc_q, out_q)
// with a global enable en = !out_valid_q || out_ready_i (in_ready_o = en):
// when the result register is full and not taken, every register holds.
// A transaction is one cycle group (LANES elements of A and B sharing one
// scale pair); first_i starts an output from acc_i, last_i emits it.
// fmt_i (A's element format), fmt_b_i (B's) and fp5_bias_i (of whichever
// operand is MXSF) are static configuration inputs; BF16 mixes with nothing
// (mx_pe_config_check), so use_scale follows fmt_i alone.
module mx_pe
#(
  parameter int LANES   = 8,
  parameter int ALIGN_W = 32,
  localparam int AL_W   = ALIGN_W + 1,
  localparam int SUM_W  = AL_W + $clog2(LANES)
) (
  input  logic                        clk_i,
  input  logic                        rst_ni,
  input  mx_pkg::fmt_t                fmt_i,
  input  mx_pkg::fmt_t                fmt_b_i,
  input  logic [4:0]                  fp5_bias_i,
  input  logic                        in_valid_i,
  output logic                        in_ready_o,
  input  logic [LANES*mx_pkg::CODE_W-1:0] a_codes_i,
  input  logic [LANES*mx_pkg::CODE_W-1:0] b_codes_i,
  input  logic [7:0]                  a_scale_i,
  input  logic [7:0]                  b_scale_i,
  input  logic                        first_i,
  input  logic                        last_i,
  input  logic [31:0]                 acc_i,
  output logic                        out_valid_o,
  input  logic                        out_ready_i,
  output logic [31:0]                 out_o
);
  logic en;

  // ---- stage registers (public for the co-simulation harness) ----
  logic                          s1_valid_q /*verilator public_flat_rd*/;
  logic                          s1_first_q /*verilator public_flat_rd*/;
  logic                          s1_last_q /*verilator public_flat_rd*/;
  logic [31:0]                   s1_acc_q /*verilator public_flat_rd*/;
  logic [LANES-1:0]              s1_sign_q /*verilator public_flat_rd*/;
  logic [LANES*mx_pkg::PROD_W-1:0]  s1_prod_q /*verilator public_flat_rd*/;
  logic [LANES*mx_pkg::PEXP_W-1:0]  s1_exp_q /*verilator public_flat_rd*/;
  logic [LANES-1:0]              s1_zero_q /*verilator public_flat_rd*/;
  logic [LANES-1:0]              s1_nan_q /*verilator public_flat_rd*/;
  logic [LANES-1:0]              s1_inf_q /*verilator public_flat_rd*/;
  logic [LANES*2-1:0]         s1_mode_q /*verilator public_flat_rd*/;
  logic [7:0]                    s1_a_scale_q /*verilator public_flat_rd*/;
  logic [7:0]                    s1_b_scale_q /*verilator public_flat_rd*/;

  logic                          s2_valid_q /*verilator public_flat_rd*/;
  logic                          s2_first_q /*verilator public_flat_rd*/;
  logic                          s2_last_q /*verilator public_flat_rd*/;
  logic [31:0]                   s2_acc_q /*verilator public_flat_rd*/;
  logic [LANES*AL_W-1:0]    s2_aligned_q /*verilator public_flat_rd*/;
  logic [mx_pkg::PEXP_W-1:0]             s2_emax_q /*verilator public_flat_rd*/;
  logic                          s2_nan_q /*verilator public_flat_rd*/;
  logic                          s2_inf_q /*verilator public_flat_rd*/;
  logic                          s2_inf_sign_q /*verilator public_flat_rd*/;
  logic [7:0]                    s2_a_scale_q /*verilator public_flat_rd*/;
  logic [7:0]                    s2_b_scale_q /*verilator public_flat_rd*/;

  logic                          s3_valid_q /*verilator public_flat_rd*/;
  logic                          s3_first_q /*verilator public_flat_rd*/;
  logic                          s3_last_q /*verilator public_flat_rd*/;
  logic [31:0]                   s3_acc_q /*verilator public_flat_rd*/;
  logic [SUM_W-1:0]              s3_sum_q /*verilator public_flat_rd*/;
  logic [mx_pkg::PEXP_W-1:0]             s3_emax_q /*verilator public_flat_rd*/;
  logic                          s3_nan_q /*verilator public_flat_rd*/;
  logic                          s3_inf_q /*verilator public_flat_rd*/;
  logic                          s3_inf_sign_q /*verilator public_flat_rd*/;
  logic [7:0]                    s3_a_scale_q /*verilator public_flat_rd*/;
  logic [7:0]                    s3_b_scale_q /*verilator public_flat_rd*/;

  logic [31:0]                   acc_q /*verilator public_flat_rd*/;
  logic [31:0]                   out_q /*verilator public_flat_rd*/;
  logic                          out_valid_q /*verilator public_flat_rd*/;

  assign en = !out_valid_q || out_ready_i;
  assign in_ready_o = en;
  assign out_valid_o = out_valid_q;
  assign out_o = out_q;

  // ---- S1: decode + mul per lane ----
  logic [LANES-1:0]              m_sign, m_zero, m_nan, m_inf;
  logic [LANES*mx_pkg::PROD_W-1:0]  m_prod;
  logic [LANES*mx_pkg::PEXP_W-1:0]  m_exp;
  logic [LANES*2-1:0]         m_mode;

  for (genvar i = 0; i < LANES; i++) begin : g_lane
    logic             a_sign, a_zero, a_nan, a_inf, a_mode;
    logic             b_sign, b_zero, b_nan, b_inf, b_mode;
    logic [mx_pkg::SIG_W-1:0] a_sig, b_sig;
    logic [mx_pkg::LSB_W-1:0] a_lsb, b_lsb;
    mx_decode u_dec_a (.code_i(a_codes_i[i*mx_pkg::CODE_W +: mx_pkg::CODE_W]), .fmt_i, .fp5_bias_i, .sign_o(a_sign), .sig_o(a_sig),
                       .lsb_o(a_lsb), .zero_o(a_zero), .nan_o(a_nan), .inf_o(a_inf), .mode_o(a_mode));
    mx_decode u_dec_b (.code_i(b_codes_i[i*mx_pkg::CODE_W +: mx_pkg::CODE_W]), .fmt_i(fmt_b_i), .fp5_bias_i, .sign_o(b_sign), .sig_o(b_sig),
                       .lsb_o(b_lsb), .zero_o(b_zero), .nan_o(b_nan), .inf_o(b_inf), .mode_o(b_mode));
    mx_mul u_mul (.a_sign_i(a_sign), .a_sig_i(a_sig), .a_lsb_i(a_lsb), .a_zero_i(a_zero),
                  .a_nan_i(a_nan), .a_inf_i(a_inf), .a_mode_i(a_mode),
                  .b_sign_i(b_sign), .b_sig_i(b_sig), .b_lsb_i(b_lsb), .b_zero_i(b_zero),
                  .b_nan_i(b_nan), .b_inf_i(b_inf), .b_mode_i(b_mode),
                  .sign_o(m_sign[i]), .prod_o(m_prod[i*mx_pkg::PROD_W +: mx_pkg::PROD_W]), .exp_o(m_exp[i*mx_pkg::PEXP_W +: mx_pkg::PEXP_W]), .zero_o(m_zero[i]),
                  .nan_o(m_nan[i]), .inf_o(m_inf[i]), .mode_o(m_mode[i*2 +: 2]));
  end

  // ---- S2: align ----
  logic [LANES*AL_W-1:0] al_aligned;
  logic [mx_pkg::PEXP_W-1:0]          al_emax;
  logic                       al_nan, al_inf, al_inf_sign;
  mx_align #(.LANES(LANES), .ALIGN_W(ALIGN_W)) u_align (
    .sign_i(s1_sign_q), .prod_i(s1_prod_q), .exp_i(s1_exp_q), .nan_i(s1_nan_q), .inf_i(s1_inf_q),
    .aligned_o(al_aligned), .emax_o(al_emax), .nan_o(al_nan), .inf_o(al_inf), .inf_sign_o(al_inf_sign));

  // ---- S3: addtree ----
  logic [SUM_W-1:0] at_sum;
  mx_addtree #(.LANES(LANES), .IN_W(AL_W), .SUM_W(SUM_W)) u_addtree (.aligned_i(s2_aligned_q), .sum_o(at_sum));

  // ---- S4: accum ----
  /* verilator lint_off UNUSEDSIGNAL */  // observed by the co-simulation harness
  logic [31:0] ac_group /*verilator public_flat_rd*/;
  logic [31:0] ac_res /*verilator public_flat_rd*/;
  /* verilator lint_on UNUSEDSIGNAL */
  mx_accum #(.ALIGN_W(ALIGN_W), .SUM_W(SUM_W)) u_accum (
    .clk_i, .rst_ni, .en_i(en), .valid_i(s3_valid_q), .first_i(s3_first_q), .last_i(s3_last_q),
    .acc_i(s3_acc_q), .sum_i(s3_sum_q), .emax_i(s3_emax_q), .a_scale_i(s3_a_scale_q),
    .b_scale_i(s3_b_scale_q), .use_scale_i(fmt_i != mx_pkg::FMT_BF16), .nan_i(s3_nan_q), .inf_i(s3_inf_q),
    .inf_sign_i(s3_inf_sign_q), .group_o(ac_group), .res_o(ac_res), .acc_q(acc_q), .out_q(out_q),
    .out_valid_q(out_valid_q));

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      s1_valid_q <= 1'b0; s1_first_q <= 1'b0; s1_last_q <= 1'b0; s1_acc_q <= '0;
      s1_sign_q <= '0; s1_prod_q <= '0; s1_exp_q <= '0; s1_zero_q <= '0; s1_nan_q <= '0;
      s1_inf_q <= '0; s1_mode_q <= '0; s1_a_scale_q <= '0; s1_b_scale_q <= '0;
      s2_valid_q <= 1'b0; s2_first_q <= 1'b0; s2_last_q <= 1'b0; s2_acc_q <= '0;
      s2_aligned_q <= '0; s2_emax_q <= '0; s2_nan_q <= 1'b0; s2_inf_q <= 1'b0;
      s2_inf_sign_q <= 1'b0; s2_a_scale_q <= '0; s2_b_scale_q <= '0;
      s3_valid_q <= 1'b0; s3_first_q <= 1'b0; s3_last_q <= 1'b0; s3_acc_q <= '0;
      s3_sum_q <= '0; s3_emax_q <= '0; s3_nan_q <= 1'b0; s3_inf_q <= 1'b0;
      s3_inf_sign_q <= 1'b0; s3_a_scale_q <= '0; s3_b_scale_q <= '0;
    end else if (en) begin
      s1_valid_q <= in_valid_i;
      if (in_valid_i) begin
        s1_first_q <= first_i; s1_last_q <= last_i; s1_acc_q <= acc_i;
        s1_a_scale_q <= a_scale_i; s1_b_scale_q <= b_scale_i;
        s1_sign_q <= m_sign; s1_prod_q <= m_prod; s1_exp_q <= m_exp; s1_zero_q <= m_zero;
        s1_nan_q <= m_nan; s1_inf_q <= m_inf; s1_mode_q <= m_mode;
      end
      s2_valid_q <= s1_valid_q;
      if (s1_valid_q) begin
        s2_first_q <= s1_first_q; s2_last_q <= s1_last_q; s2_acc_q <= s1_acc_q;
        s2_aligned_q <= al_aligned; s2_emax_q <= al_emax;
        s2_nan_q <= al_nan; s2_inf_q <= al_inf; s2_inf_sign_q <= al_inf_sign;
        s2_a_scale_q <= s1_a_scale_q; s2_b_scale_q <= s1_b_scale_q;
      end
      s3_valid_q <= s2_valid_q;
      if (s2_valid_q) begin
        s3_first_q <= s2_first_q; s3_last_q <= s2_last_q; s3_acc_q <= s2_acc_q;
        s3_sum_q <= at_sum; s3_emax_q <= s2_emax_q;
        s3_nan_q <= s2_nan_q; s3_inf_q <= s2_inf_q; s3_inf_sign_q <= s2_inf_sign_q;
        s3_a_scale_q <= s2_a_scale_q; s3_b_scale_q <= s2_b_scale_q;
      end
    end
  end
endmodule
