// mx_align.sv — shared-exponent alignment (SPEC §3.3), twin of
// models/units/mx_align.c.  Products are aligned to e_max, the largest lsb
// exponent of the non-zero products, into ALIGN_W-bit magnitudes with
// G = ALIGN_W - 16 guard bits below e_max's lsb: exact while the exponent
// spread is at most G, otherwise the low bits fall off (truncation).
// `MX_FAULT_ALIGN injects a fault for the co-simulation self-test: the
// shifter shifts one bit too far for every lane below e_max.
module mx_align
#(
  parameter int LANES   = 8,
  parameter int ALIGN_W = 32   // > mx_pkg::PROD_W
) (
  input  logic [LANES-1:0]              sign_i,
  input  logic [LANES*mx_pkg::PROD_W-1:0]       prod_i,   // lane i at [i*PROD_W +: PROD_W]
  input  logic [LANES*mx_pkg::PEXP_W-1:0]       exp_i,    // two's complement
  input  logic [LANES-1:0]              nan_i,
  input  logic [LANES-1:0]              inf_i,
  output logic [LANES*(ALIGN_W+1)-1:0]   aligned_o,  // two's complement
  output logic [mx_pkg::PEXP_W-1:0]             emax_o,
  output logic                          nan_o,
  output logic                          inf_o,
  output logic                          inf_sign_o
);
  localparam int G = ALIGN_W - mx_pkg::PROD_W;

  logic                any;
  logic [mx_pkg::PEXP_W-1:0]   emax;
  logic [mx_pkg::PEXP_W-1:0]   shamt;
  logic [ALIGN_W-1:0]  mag;
  logic                pinf, ninf, nan;

  always_comb begin
    any = 1'b0;
    emax = '0;
    pinf = 1'b0;
    ninf = 1'b0;
    nan = 1'b0;
    for (int i = 0; i < LANES; i++) begin
      if (prod_i[i*mx_pkg::PROD_W +: mx_pkg::PROD_W] != '0 && (!any || $signed(exp_i[i*mx_pkg::PEXP_W +: mx_pkg::PEXP_W]) > $signed(emax))) begin
        emax = exp_i[i*mx_pkg::PEXP_W +: mx_pkg::PEXP_W];
        any = 1'b1;
      end
      nan  = nan | nan_i[i];
      pinf = pinf | (inf_i[i] & ~sign_i[i]);
      ninf = ninf | (inf_i[i] & sign_i[i]);
    end
    for (int i = 0; i < LANES; i++) begin
      shamt = emax - exp_i[i*mx_pkg::PEXP_W +: mx_pkg::PEXP_W];  // >= 0 for every non-zero lane
      mag = {prod_i[i*mx_pkg::PROD_W +: mx_pkg::PROD_W], {G{1'b0}}} >> shamt;
`ifdef MX_FAULT_ALIGN
      if (shamt != '0) mag = mag >> 1;
`endif
      if (prod_i[i*mx_pkg::PROD_W +: mx_pkg::PROD_W] == '0) mag = '0;
      aligned_o[i*(ALIGN_W+1) +: ALIGN_W+1] = sign_i[i] ? -{1'b0, mag} : {1'b0, mag};
    end
    emax_o = emax;
    nan_o = nan | (pinf & ninf);
    inf_o = ~nan_o & (pinf | ninf);
    inf_sign_o = ~nan_o & ninf;
  end
endmodule
