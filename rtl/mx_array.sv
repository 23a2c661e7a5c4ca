// mx_array.sv — R x C output-stationary PE array with L lanes (SPEC §4),
// twin of the C register model mx_array_comb/_tick (models/array/mx_array.c).
//
//   issue port: one K-step per cycle for all rows and columns (first_i,
//     last_i shared; R rows of A and C columns of B, L codes and one E8M0
//     scale each).  row_valid_i / col_valid_i mark the rows and columns of the
//     current fold: PE (r, c) takes the step only if both are set, so PEs
//     outside a ragged fold stay idle and produce no result.
//   skew: row r's stream (with valid/first/last) is delayed r cycles, column c's
//     c cycles (mx_skew); A then moves right and B down one PE per cycle, so
//     both operands of step t meet in PE (r, c) at cycle t + r + c.
//   drain: each PE's result (out_ready_i tied high, so a PE never holds) is
//     caught in its shadow register; per column the lowest valid shadow row
//     moves into a column FIFO of FIFO_D entries each cycle; the FIFO's head is
//     the column's output port (valid/ready back-pressure).
//   flow control (controller's duty): consecutive folds start max(t, r) cycles
//     apart (t K-steps, r rows of the earlier fold), so a column never gets two
//     results in one cycle; and the last K-step of a fold is issued only when
//     every column FIFO has room (free_o) for the results in flight plus this
//     fold's, so shadows never overflow whatever the back-pressure.
//   overrun_o flags a protocol violation (a shadow overwritten before drained).
module mx_array #(
  parameter int R       = 4,
  parameter int C       = 4,
  parameter int LANES   = 4,
  parameter int ALIGN_W = 32,
  parameter int FIFO_D  = 2 * R,
  localparam int RW     = (R > 1) ? $clog2(R) : 1,
  localparam int FW     = $clog2(FIFO_D + 1),
  localparam int CW     = LANES * mx_pkg::CODE_W
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic [2:0]          fmt_i,        // A's element format
  input  logic [2:0]          fmt_b_i,      // B's element format
  input  logic [4:0]          fp5_bias_i,
  input  logic [R-1:0]        row_valid_i,
  input  logic [C-1:0]        col_valid_i,
  input  logic                first_i,
  input  logic                last_i,
  input  logic [R*CW-1:0]     a_codes_i,
  input  logic [R*8-1:0]      a_scales_i,
  input  logic [C*CW-1:0]     b_codes_i,
  input  logic [C*8-1:0]      b_scales_i,
  output logic [C-1:0]        out_valid_o,
  input  logic [C-1:0]        out_ready_i,
  output logic [C*32-1:0]     out_data_o,
  output logic [C*RW-1:0]     out_row_o,
  output logic [C*FW-1:0]     free_o,       // free FIFO entries per column
  output logic [C-1:0]        take_o,       // a shadow moves into column c's FIFO
  output logic [R*C-1:0]      pe_done_o,    // PE (r, c) result valid (r*C + c)
  output logic                overrun_o
);
  localparam int AW = CW + 8 + 3;  // A stream: codes, scale, {valid, first, last}
  localparam int BW = CW + 8 + 1;  // B stream: codes, scale, column valid

  // ---- skew ----
  logic [AW-1:0] a_sk [R];
  logic [BW-1:0] b_sk [C];
  for (genvar r = 0; r < R; r++) begin : g_askew
    mx_skew #(.W(AW), .DEPTH(r)) u_skew (
      .clk_i, .rst_ni,
      .d_i({a_codes_i[r*CW +: CW], a_scales_i[r*8 +: 8], row_valid_i[r], first_i, last_i}),
      .q_o(a_sk[r]));
  end
  for (genvar c = 0; c < C; c++) begin : g_bskew
    mx_skew #(.W(BW), .DEPTH(c)) u_skew (
      .clk_i, .rst_ni, .d_i({b_codes_i[c*CW +: CW], b_scales_i[c*8 +: 8], col_valid_i[c]}),
      .q_o(b_sk[c]));
  end

  // ---- PE grid: a_in[r][c] / b_in[r][c] are PE (r, c)'s operands ----
  logic [AW-1:0] a_in [R][C];
  logic [BW-1:0] b_in [R][C];
  logic [31:0]   pe_out [R][C];
  logic          pe_valid [R][C];
  logic [31:0]   shadow_q [R][C];
  logic          shadow_v_q [R][C];
  logic [R*C-1:0] overrun_vec;

  for (genvar r = 0; r < R; r++) begin : g_row
    for (genvar c = 0; c < C; c++) begin : g_col
      if (c == 0) begin : g_aleft
        assign a_in[r][c] = a_sk[r];
      end else begin : g_apass
        logic [AW-1:0] a_q;
        always_ff @(posedge clk_i)
          if (!rst_ni) a_q <= '0; else a_q <= a_in[r][c-1];
        assign a_in[r][c] = a_q;
      end
      if (r == 0) begin : g_btop
        assign b_in[r][c] = b_sk[c];
      end else begin : g_bpass
        logic [BW-1:0] b_q;
        always_ff @(posedge clk_i)
          if (!rst_ni) b_q <= '0; else b_q <= b_in[r-1][c];
        assign b_in[r][c] = b_q;
      end
      logic pe_in_ready;
      mx_pe #(.LANES(LANES), .ALIGN_W(ALIGN_W)) u_pe (
        .clk_i, .rst_ni, .fmt_i, .fmt_b_i, .fp5_bias_i,
        .in_valid_i(a_in[r][c][2] && b_in[r][c][0]), .in_ready_o(pe_in_ready),
        .a_codes_i(a_in[r][c][AW-1 -: CW]), .b_codes_i(b_in[r][c][BW-1 -: CW]),
        .a_scale_i(a_in[r][c][10:3]), .b_scale_i(b_in[r][c][8:1]),
        .first_i(a_in[r][c][1]), .last_i(a_in[r][c][0]), .acc_i(32'd0),
        .out_valid_o(pe_valid[r][c]), .out_ready_i(1'b1), .out_o(pe_out[r][c]));
      assign pe_done_o[r*C + c] = pe_valid[r][c];
      // pe_in_ready is always 1 (out_ready_i = 1): the array never stalls a PE
      logic unused_ready;
      assign unused_ready = pe_in_ready;
    end
  end

  // ---- drain: shadows -> per-column pointer -> column FIFO ----
  for (genvar c = 0; c < C; c++) begin : g_drain
    logic [RW-1:0] head_row;
    logic [31:0]   fifo_d_q [FIFO_D];
    logic [RW-1:0] fifo_r_q [FIFO_D];
    logic [FW-1:0] count_q;
    logic [$clog2(FIFO_D)-1:0] rd_q, wr_q;
    logic take, pop;
    logic [31:0] head_val;
    logic        head_v;
    always_comb begin
      head_val = '0;
      head_v = 1'b0;
      head_row = '0;
      for (int r = R - 1; r >= 0; r--)
        if (shadow_v_q[r][c]) begin
          head_val = shadow_q[r][c];
          head_v = 1'b1;
          head_row = RW'(r);
        end
    end
    assign pop  = out_valid_o[c] && out_ready_i[c];
    assign take = head_v && (count_q < FW'(FIFO_D));
    always_ff @(posedge clk_i) begin
      if (!rst_ni) begin
        count_q <= '0;
        rd_q <= '0;
        wr_q <= '0;
        for (int i = 0; i < FIFO_D; i++) begin
          fifo_d_q[i] <= '0;
          fifo_r_q[i] <= '0;
        end
      end else begin
        if (take) begin
          fifo_d_q[wr_q] <= head_val;
          fifo_r_q[wr_q] <= head_row;
          wr_q <= (wr_q == $clog2(FIFO_D)'(FIFO_D - 1)) ? '0 : wr_q + 1'b1;
        end
        if (pop) rd_q <= (rd_q == $clog2(FIFO_D)'(FIFO_D - 1)) ? '0 : rd_q + 1'b1;
        count_q <= count_q + FW'(take) - FW'(pop);
      end
    end
    assign out_valid_o[c] = count_q != '0;
    assign out_data_o[c*32 +: 32] = fifo_d_q[rd_q];
    assign out_row_o[c*RW +: RW] = fifo_r_q[rd_q];
    assign free_o[c*FW +: FW] = FW'(FIFO_D) - count_q;
    assign take_o[c] = take;

    for (genvar r = 0; r < R; r++) begin : g_shadow
      logic taken;
      assign taken = take && (head_row == RW'(r));
      always_ff @(posedge clk_i) begin
        if (!rst_ni) begin
          shadow_q[r][c] <= '0;
          shadow_v_q[r][c] <= 1'b0;
        end else if (pe_valid[r][c]) begin
          shadow_q[r][c] <= pe_out[r][c];
          shadow_v_q[r][c] <= 1'b1;
        end else if (taken) begin
          shadow_v_q[r][c] <= 1'b0;
        end
      end
      assign overrun_vec[r*C + c] = pe_valid[r][c] && shadow_v_q[r][c] && !taken;
    end
  end

  logic overrun_q;
  always_ff @(posedge clk_i)
    if (!rst_ni) overrun_q <= 1'b0; else if (|overrun_vec) overrun_q <= 1'b1;
  assign overrun_o = overrun_q;
endmodule
