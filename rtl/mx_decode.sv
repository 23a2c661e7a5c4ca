// mx_decode.sv — element decode (SPEC §3.1), twin of models/units/mx_decode.c.
// Per-format constants (LSB0 = bias + mantissa bits) from mx_pkg, which is
// generated from the datapath format table (models/units/mx_pe_format.c).
// code -> value (-1)^sign_o * sig_o * 2^lsb_o, zero/NaN/Inf flags and the MXSF
// mode (1 = FP5 E3M2 mode, chosen by the exponent field E == 0).
module mx_decode
(
  input  logic [mx_pkg::CODE_W-1:0] code_i,
  input  logic [2:0]        fmt_i,
  input  logic [4:0]        fp5_bias_i,
  output logic              sign_o,
  output logic [mx_pkg::SIG_W-1:0]  sig_o,
  output logic [mx_pkg::LSB_W-1:0]  lsb_o,    // two's complement
  output logic              zero_o,
  output logic              nan_o,
  output logic              inf_o,
  output logic              mode_o
);
  logic [3:0] e4;
  logic [4:0] e5;
  logic [1:0] e2;
  logic [7:0] e8;
  logic [2:0] f5;
  localparam int LSB_W = mx_pkg::LSB_W;
  logic [mx_pkg::SIG_W-1:0] sig;
  logic [LSB_W-1:0] lsb;

  always_comb begin
    e4 = code_i[6:3];
    e5 = code_i[6:2];
    e2 = code_i[6:5];
    e8 = code_i[14:7];
    f5 = code_i[4:2];
    sign_o = code_i[7];
    sig = '0;
    lsb = '0;
    nan_o = 1'b0;
    inf_o = 1'b0;
    mode_o = 1'b0;
    case (fmt_i)
      mx_pkg::FMT_E4M3: begin
        sig = {4'b0, e4 != 4'd0, code_i[2:0]};
        lsb = {5'b0, (e4 != 4'd0) ? e4 : 4'd1} - LSB_W'(mx_pkg::E4M3_LSB0);
        nan_o = code_i[6:0] == 7'h7F;
      end
      mx_pkg::FMT_E5M2: begin
        sig = {5'b0, e5 != 5'd0, code_i[1:0]};
        lsb = {4'b0, (e5 != 5'd0) ? e5 : 5'd1} - LSB_W'(mx_pkg::E5M2_LSB0);
        nan_o = e5 == 5'h1F && code_i[1:0] != 2'd0;
        inf_o = e5 == 5'h1F && code_i[1:0] == 2'd0;
      end
      mx_pkg::FMT_E2M5: begin
        sig = {2'b0, e2 != 2'd0, code_i[4:0]};
        lsb = {7'b0, (e2 != 2'd0) ? e2 : 2'd1} - LSB_W'(mx_pkg::E2M5_LSB0);
      end
      mx_pkg::FMT_INT8: begin
        sig = code_i[7] ? (~code_i[7:0] + 8'd1) : code_i[7:0];  // |-128| = 128
        lsb = -LSB_W'(mx_pkg::INT8_FRAC);
      end
      mx_pkg::FMT_BF16: begin
        sign_o = code_i[15];
        sig = {e8 != 8'd0, code_i[6:0]};
        lsb = {1'b0, (e8 != 8'd0) ? e8 : 8'd1} - LSB_W'(mx_pkg::BF16_LSB0);
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
