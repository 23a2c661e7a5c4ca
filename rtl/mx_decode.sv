// mx_decode.sv — element decode (SPEC §3.1), twin of models/units/mx_decode.c.
// Per-format constants (code width, mantissa bits, LSB0 = bias + mantissa
// bits) from mx_pkg, which is generated from the datapath format table
// (models/units/mx_pe_format.c).
// code -> value (-1)^sign_o * sig_o * 2^lsb_o, zero/NaN/Inf flags and the MXSF
// mode (1 = FP5 E3M2 mode, chosen by the exponent field E == 0).
module mx_decode
(
  input  logic [mx_pkg::CODE_W-1:0] code_i,
  input  mx_pkg::fmt_t      fmt_i,
  input  logic [4:0]        fp5_bias_i,
  output logic              sign_o,
  output logic [mx_pkg::SIG_W-1:0]  sig_o,
  output logic [mx_pkg::LSB_W-1:0]  lsb_o,    // two's complement
  output logic              zero_o,
  output logic              nan_o,
  output logic              inf_o,
  output logic              mode_o
);
  localparam int CODE_W = mx_pkg::CODE_W;
  localparam int SIG_W = mx_pkg::SIG_W;
  localparam int LSB_W = mx_pkg::LSB_W;
  logic [1:0] e2;
  logic [2:0] f5;
  logic [4:0] e5;
  logic [7:0] e8;
  logic [SIG_W-1:0] sig;
  logic [LSB_W-1:0] lsb;

  // An IEEE-like minifloat from its package constants, as {sign, sig, lsb}: a
  // code of cb bits (sign at bit cb-1, bits above ignored), mb mantissa bits,
  // LSB0 = bias + mb; E == 0 is subnormal (the lsb of E == 1).  Called with
  // constants only, so every case below elaborates to fixed wiring.  (lsb0 is
  // an int constant: only its low LSB_W bits matter.)
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic [SIG_W+LSB_W:0] minifloat(input logic [CODE_W-1:0] code, input int cb, input int mb,
                                                     input int lsb0);
    logic [CODE_W-1:0] mag, e, m;
    mag = code & ((CODE_W'(1) << (cb - 1)) - CODE_W'(1));
    e = mag >> mb;
    m = mag & ((CODE_W'(1) << mb) - CODE_W'(1));
    minifloat = {code[cb - 1], SIG_W'(m | ((e != '0) ? (CODE_W'(1) << mb) : '0)),
                 LSB_W'((e != '0) ? e : CODE_W'(1)) - LSB_W'(lsb0)};
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  always_comb begin
    e2 = code_i[6:5];
    f5 = code_i[4:2];
    e5 = code_i[6:2];
    e8 = code_i[14:7];
    sign_o = code_i[7];
    sig = '0;
    lsb = '0;
    nan_o = 1'b0;
    inf_o = 1'b0;
    mode_o = 1'b0;
    case (fmt_i)
      mx_pkg::FMT_E4M3: begin
        {sign_o, sig, lsb} = minifloat(code_i, mx_pkg::E4M3_CODE_BITS, mx_pkg::E4M3_MBITS, mx_pkg::E4M3_LSB0);
        nan_o = code_i[6:0] == 7'h7F;
      end
      mx_pkg::FMT_E5M2: begin
        {sign_o, sig, lsb} = minifloat(code_i, mx_pkg::E5M2_CODE_BITS, mx_pkg::E5M2_MBITS, mx_pkg::E5M2_LSB0);
        nan_o = e5 == 5'h1F && code_i[1:0] != 2'd0;
        inf_o = e5 == 5'h1F && code_i[1:0] == 2'd0;
      end
      mx_pkg::FMT_E2M5:
        {sign_o, sig, lsb} = minifloat(code_i, mx_pkg::E2M5_CODE_BITS, mx_pkg::E2M5_MBITS, mx_pkg::E2M5_LSB0);
      mx_pkg::FMT_E3M2:  // OCP FP6/FP4: every code finite
        {sign_o, sig, lsb} = minifloat(code_i, mx_pkg::E3M2_CODE_BITS, mx_pkg::E3M2_MBITS, mx_pkg::E3M2_LSB0);
      mx_pkg::FMT_E2M3:
        {sign_o, sig, lsb} = minifloat(code_i, mx_pkg::E2M3_CODE_BITS, mx_pkg::E2M3_MBITS, mx_pkg::E2M3_LSB0);
      mx_pkg::FMT_E2M1:
        {sign_o, sig, lsb} = minifloat(code_i, mx_pkg::E2M1_CODE_BITS, mx_pkg::E2M1_MBITS, mx_pkg::E2M1_LSB0);
      mx_pkg::FMT_INT8: begin
        sig = code_i[7] ? (~code_i[7:0] + 8'd1) : code_i[7:0];  // |-128| = 128
        lsb = -LSB_W'(mx_pkg::INT8_FRAC);
      end
      mx_pkg::FMT_BF16: begin
        {sign_o, sig, lsb} = minifloat(code_i, mx_pkg::BF16_CODE_BITS, mx_pkg::BF16_MBITS, mx_pkg::BF16_LSB0);
        nan_o = e8 == 8'hFF && code_i[6:0] != 7'd0;
        inf_o = e8 == 8'hFF && code_i[6:0] == 7'd0;
      end
      default: begin  // mx_pkg::FMT_MXSF
        if (e2 != 2'd0) begin            // E2M5 mode: sig = 32 + F, lsb = E - 6
          sig = {2'b0, 1'b1, code_i[4:0]};
          lsb = {7'b0, e2} - 9'd6;
        end else begin                   // FP5 E3M2 mode, F = fff.nn
          mode_o = 1'b1;
          if (f5 != 3'd0) begin          // normal: sig = 4 + n, lsb = f - b5 - 2
            sig = {5'b0, 1'b1, code_i[1:0]};
            lsb = {6'b0, f5} - {4'b0, fp5_bias_i} - 9'd2;
          end else begin                 // subnormal: sig = n, lsb = -b5 - 1
            sig = {6'b0, code_i[1:0]};
            lsb = -{4'b0, fp5_bias_i} - 9'd1;
          end
        end
      end
    endcase
    if (nan_o || inf_o) begin
      sig = '0;
      lsb = '0;
    end
    sig_o = sig;
    lsb_o = lsb;
    zero_o = sig == '0 && !nan_o && !inf_o;
  end
endmodule
