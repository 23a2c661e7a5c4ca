// mx_skew.sv — systolic operand skew: a delay line of DEPTH registers
// (DEPTH = 0 is a wire).  The array delays row r's A stream by r cycles and
// column c's B stream by c cycles so that the operands of one K-step meet in
// PE (r, c) at cycle t + r + c.
module mx_skew #(
  parameter int W     = 8,
  parameter int DEPTH = 1
) (
  input  logic         clk_i,
  input  logic         rst_ni,
  input  logic [W-1:0] d_i,
  output logic [W-1:0] q_o
);
  if (DEPTH == 0) begin : g_wire
    assign q_o = d_i;
    logic unused_clk_rst;
    assign unused_clk_rst = clk_i ^ rst_ni;
  end else begin : g_regs
    logic [W-1:0] stage_q [DEPTH];
    always_ff @(posedge clk_i) begin
      if (!rst_ni) begin
        for (int i = 0; i < DEPTH; i++) stage_q[i] <= '0;
      end else begin
        stage_q[0] <= d_i;
        for (int i = 1; i < DEPTH; i++) stage_q[i] <= stage_q[i-1];
      end
    end
    assign q_o = stage_q[DEPTH-1];
  end
endmodule
