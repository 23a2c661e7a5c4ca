// mx_requant.sv — tile-based re-quantization unit (SPEC §3.6), twin of
// models/units/mx_requant.c.  One transaction = one block or tile of N FP32
// values: max tree -> amax, E8M0 scale by the OCP floor rule
// (floor(log2 amax) - emax_elem, clamped at -127), every element encoded
// round-to-nearest-even with saturation.  NaN/Inf in the block: scale 0xFF and
// the format's NaN code (0 if none); all-zero block: scale 0x00.
// MXSF: fp5_bias_i in 5..16, incl. the b5 > 8 gap between the FP5 and E2M5 ranges.
module mx_requant
#(
  parameter int N = 8
) (
  input  mx_pkg::fmt_t       fmt_i,
  input  logic [4:0]         fp5_bias_i,
  input  logic [N*32-1:0]    vals_i,   // value i at [i*32 +: 32]
  output logic [7:0]         scale_o,
  output logic [31:0]        amax_o,
  output logic [N*8-1:0]     codes_o   // code i at [i*8 +: 8]
);
  logic        bad;
  logic [30:0] amax;
  logic [9:0]  se;        // shared exponent, two's complement
  logic [9:0]  log2a;
  logic [4:0]  amsb;
  logic [9:0]  emax_elem;
  logic [7:0]  nan_code;

  // Encodes one FP32 value divided by 2^se (RNE, saturate).
  function automatic logic [7:0] encode(input logic [31:0] x, input mx_pkg::fmt_t fmt,
                                        input logic [4:0] b5, input logic [9:0] sev);
    logic [23:0] sig;
    logic [10:0] lsb, e, q, sh, emin, mb, qmin;
    logic [4:0]  p;
    logic [55:0] wide;
    logic [23:0] n;
    logic        rnd, sticky, is_int;
    logic [10:0] code;
    logic [7:0]  maxc;
    logic [63:0] vfix, lofix;
    sig = {x[30:23] != 8'd0, x[22:0]};
    lsb = {3'b0, (x[30:23] != 8'd0) ? x[30:23] : 8'd1} - 11'd150 - {sev[9], sev};
    p = '0;
    for (int i = 0; i < 24; i++)
      if (sig[i]) p = 5'(i);
    e = {6'b0, p} + lsb;
    is_int = 1'b0;
    emin = '0;
    mb = '0;
    maxc = mx_pkg::MXSF_MAX_CODE;
    qmin = '0;
    case (fmt)
      mx_pkg::FMT_E4M3: begin emin = 11'(1 - mx_pkg::E4M3_BIAS); mb = 11'(mx_pkg::E4M3_MBITS); maxc = mx_pkg::E4M3_MAX_CODE; end
      mx_pkg::FMT_E5M2: begin emin = 11'(1 - mx_pkg::E5M2_BIAS); mb = 11'(mx_pkg::E5M2_MBITS); maxc = mx_pkg::E5M2_MAX_CODE; end
      mx_pkg::FMT_E2M5: begin emin = 11'(1 - mx_pkg::E2M5_BIAS); mb = 11'(mx_pkg::E2M5_MBITS); maxc = mx_pkg::E2M5_MAX_CODE; end
      mx_pkg::FMT_INT8: begin is_int = 1'b1;              maxc = mx_pkg::INT8_MAX_CODE; end
      default: ;
    endcase
    // quantum of the binade e
    if (is_int) q = -11'd6;
    else if (fmt == mx_pkg::FMT_MXSF) begin
      qmin = 11'd1 - {6'b0, b5};                     // smallest FP5 normal binade
      if (!e[10]) q = e - 11'd5;                         // E2M5 mode
      else if ($signed(e) >= $signed(qmin)) q = e - 11'd2; // FP5 normal
      else q = -11'd1 - {6'b0, b5};                     // FP5 subnormal
    end else q = (($signed(e) > $signed(emin)) ? e : emin) - mb;
    sh = q - lsb;
    wide = '0;
    if ($signed(sh) <= 0) wide[55:32] = sig << (-sh);
    else if ($signed(sh) < 11'sd56) wide = {sig, 32'b0} >> sh;
    else wide[0] = |sig;
    n = wide[55:32];
    rnd = wide[31];
    sticky = |wide[30:0];
    n = n + {23'b0, rnd & (sticky | n[0])};
    // pack: a rounding carry moves into the next binade by itself
    if (is_int) code = {2'b0, n[8:0]};
    else if (fmt == mx_pkg::FMT_MXSF) begin
      if (!e[10]) code = {e[5:0], 5'b0} + n[10:0];
      else if ($signed(e) >= $signed(qmin)) begin
        code = {(e[8:0] + {4'b0, b5} - 9'd1), 2'b0} + n[10:0];
        if (e == -11'd1 && n[3]) code = 11'h20;          // 1.0 is the E2M5 code
      end else code = n[10:0];
    end else if ($signed(e) < $signed(emin)) code = n[10:0];        // subnormal
    else code = ((e - emin) << mb) + n[10:0];
    if (n == '0) code = '0;
    // MXSF with b5 > 8: a value between the largest FP5 value lo = 7 * 2^(5-b5)
    // and 1.0 rounds to one of the two (tie: up, 1.0's code is the even one).
    // Compared at 2^-32 resolution: here e >= 7 - b5 >= -9, so lsb >= -32.
    vfix = '0;
    lofix = '0;
    if (fmt == mx_pkg::FMT_MXSF && b5 > 5'd8 && e[10] && $signed(e) >= $signed(11'd7 - {6'b0, b5})) begin
      vfix = {40'b0, sig} << (lsb + 11'd32);
      lofix = 64'd7 << (6'd37 - {1'b0, b5});
      if (vfix > lofix) code = ({vfix[62:0], 1'b0} >= 64'h1_0000_0000 + lofix) ? 11'h20 : 11'h1F;
    end
    if (code > {3'b0, maxc}) code = {3'b0, maxc};                 // saturate
    if (is_int) encode = x[31] ? (8'd0 - code[7:0]) : code[7:0];
    else encode = {x[31], code[6:0]};
  endfunction

  always_comb begin
    bad = 1'b0;
    amax = '0;
    for (int i = 0; i < N; i++) begin
      if (vals_i[i*32+23 +: 8] == 8'hFF) bad = 1'b1;
      else if (vals_i[i*32 +: 31] > amax) amax = vals_i[i*32 +: 31];
    end
    amsb = '0;
    for (int i = 0; i < 23; i++)
      if (amax[i]) amsb = 5'(i);
    case (fmt_i)
      mx_pkg::FMT_E4M3: begin emax_elem = 10'(mx_pkg::E4M3_EMAX); nan_code = mx_pkg::E4M3_NAN_CODE; end
      mx_pkg::FMT_E5M2: begin emax_elem = 10'(mx_pkg::E5M2_EMAX); nan_code = mx_pkg::E5M2_NAN_CODE; end
      mx_pkg::FMT_E2M5: begin emax_elem = 10'(mx_pkg::E2M5_EMAX); nan_code = 8'h00; end
      mx_pkg::FMT_INT8: begin emax_elem = 10'(mx_pkg::INT8_EMAX); nan_code = 8'h00; end
      default:  begin emax_elem = 10'(mx_pkg::MXSF_EMAX); nan_code = 8'h00; end
    endcase
    log2a = (amax[30:23] != 8'd0) ? ({2'b0, amax[30:23]} - 10'd127) : ({5'b0, amsb} - 10'd149);
    se = log2a - emax_elem;
    if (amax == '0 || $signed(se) < -10'sd127) se = -10'd127;
    amax_o = {1'b0, amax};
    if (bad) begin
      scale_o = 8'hFF;
      for (int i = 0; i < N; i++) codes_o[i*8 +: 8] = nan_code;
    end else begin
      scale_o = se[7:0] + 8'd127;
      for (int i = 0; i < N; i++) codes_o[i*8 +: 8] = encode(vals_i[i*32 +: 32], fmt_i, fp5_bias_i, se);
    end
  end
endmodule
