// mx_addtree.sv — two's-complement sum of the L aligned products (SPEC §3.4),
// twin of models/units/mx_addtree.c.  Exact: SUM_W = IN_W + clog2(LANES).
module mx_addtree #(
  parameter int LANES = 8,
  parameter int IN_W  = 33,
  parameter int SUM_W = IN_W + $clog2(LANES)
) (
  input  logic [LANES*IN_W-1:0] aligned_i,  // lane i at [i*IN_W +: IN_W]
  output logic [SUM_W-1:0]           sum_o
);
  localparam int EXT = SUM_W - IN_W;
  // A balanced tree would be the timing choice; the sum (and the cell count of
  // generic adders) is the same, so the chain keeps the code short.
  always_comb begin
    sum_o = '0;
    for (int i = 0; i < LANES; i++)
      sum_o = sum_o + {{EXT{aligned_i[i*IN_W+IN_W-1]}}, aligned_i[i*IN_W +: IN_W]};
  end
endmodule
