// mx_fp32_round.sv — rounds the exact value (-1)^sign_i * mag_i * 2^exp_i
// (mag_i != 0) to FP32, round to nearest even, overflow to Inf, subnormals
// kept.  The RTL counterpart of mx_round_pack() into fp32, used twice by
// mx_accum (group sum -> FP32, accumulator add).
module mx_fp32_round
(
  input  logic              sign_i,
  input  logic [63:0]       mag_i,
  input  logic [mx_pkg::GEXP_W-1:0] exp_i,   // two's complement
  output logic [31:0]       fp32_o
);
  logic [5:0]  msb;
  logic [12:0] e;       // binade of the value, two's complement
  logic [12:0] q;       // exponent of the quantum there
  logic [12:0] sh;      // right shift from mag_i to the quantum
  logic [127:0] wide;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [63:0] n;     // < 2^25 by construction: the top bits are never set
  /* verilator lint_on UNUSEDSIGNAL */
  logic        rnd, sticky;
  logic [31:0] n1, bits;

  always_comb begin
    msb = '0;
    for (int i = 0; i < 64; i++)
      if (mag_i[i]) msb = 6'(i);
    e = {7'b0, msb} + {exp_i[mx_pkg::GEXP_W-1], exp_i};
    q = (($signed(e) > -13'sd126) ? e : -13'd126) - 13'd23;
    sh = q - {exp_i[mx_pkg::GEXP_W-1], exp_i};
    wide = '0;
    if ($signed(sh) <= 0) begin
      wide[127:64] = mag_i << (-sh);          // exact; fits 24 bits
    end else if (sh < 13'd128) begin
      wide = {mag_i, 64'b0} >> sh;
    end else begin
      wide[0] = |mag_i;
    end
    n = wide[127:64];
    rnd = wide[63];
    sticky = |wide[62:0];
    n1 = n[31:0] + {31'b0, rnd & (sticky | n[0])};
    if (q == -13'd149)
      bits = n1;                                   // subnormal range (may carry into 2^-126)
    else
      bits = {e[8:0] + 9'd126, 23'b0} + n1;        // n1 in [2^23, 2^24]: a carry bumps the exponent
    if ($signed(e) > 13'sd127 || bits >= mx_pkg::FP32_PINF) bits = mx_pkg::FP32_PINF;
    fp32_o = {sign_i, bits[30:0]};
  end
endmodule
