// mx_array_ctrl.sv — executes one GEMM tile on an R x C mx_array from a
// descriptor: fold sequencing, operand reads from banked SRAM ports, credit
// flow control, and the output stage (per-column block collector + mx_requant
// on the drain path).  Twin of the C register model mx_array_ctrl_comb/_tick
// in models/array/mx_array_ctrl.c.  docs/SYSTEMC.md "Array controller".
//
// Descriptor (sampled on start_i while idle): M, N, K of the tile, element
// formats of A (fmt_i) and B (fmt_b_i), fp5 bias, scaled (E8M0 block scales read from SRAM; else unit
// scales 127), sps = K-steps per scale (block K extent / LANES), output
// format of the re-quantizer, and four SRAM base addresses (words).
//
// Operand SRAM (banked, synchronous read: the address of cycle n returns data
// in cycle n + 1; one address per operand, the same for all its banks):
//   A codes  : R banks of LANES codes; row m in bank m % R at
//              a_base + (m / R) * t + step           (t = ceil(K / LANES))
//   A scales : R banks of one byte;   as_base + (m / R) * nkb + step / sps
//              (nkb = ceil(t / sps))
//   B codes  : C banks; column n in bank n % C at b_base + (n / C) * t + step
//   B scales : C banks;               bs_base + (n / C) * nkb + step / sps
// Elements past K are zero codes in the SRAM image (the host pads).
//
// Folds run col-fold outer, row-fold inner.  A fold's first K-step waits
// until max(t, r_prev) cycles after the previous fold's first; its last
// K-step waits until r_prev cycles after the previous fold's last and until
// every active column FIFO has room for the results in flight plus this
// fold's r (credits, counted after this cycle's FIFO pop: the K-step reaches
// the array one cycle later).  A decision in cycle n reaches the array in n + 1 with
// the SRAM data.
//
// Output: per column, a block = one fold's column (r results, rows 0..r-1,
// rows >= r read as +0) with its FP32 values, the element codes and an E8M0
// scale; valid/ready.  rq_tile_i selects the re-quantization block:
//   0  column blocks: each column's r outputs along M have their own scale
//      (mx_requant per column, N = R); columns transfer independently;
//   1  tiles: each TR x TC sub-block of a fold shares one scale (one
//      mx_requant with a max tree per sub-block, N = TR * TC: the tile-based
//      RQU of SPEC §3 with the config's format.tile); TR | R and TC | C, so a
//      tile never straddles two folds (the config check refuses others:
//      mx_array_config_from_arch); sub-blocks past a ragged fold's r rows or
//      c columns see +0, so the matrix's last tiles are partial, as the C
//      model's.  The fold's c columns are valid together and transfer
//      together, in the cycle when all c have blk_ready_i (the columns act
//      as one port).
// blk_scales_o: S = R / TR scales per column, scale i of column c for its
// rows i*TR .. i*TR+TR-1 (column mode: S copies of the column's scale).
module mx_array_ctrl #(
  parameter int R       = 4,
  parameter int C       = 4,
  parameter int LANES   = 4,
  parameter int ALIGN_W = 32,
  parameter int AW      = 32,   // SRAM word address width
  parameter int DW      = 32,   // M, N, K width
  parameter int TR      = R,    // re-quantization tile rows (rq_tile_i = 1), divides R
  parameter int TC      = C,    // re-quantization tile columns, divides C
  // Column FIFO depth: the credit rule reserves room for every result in
  // flight plus the next fold's; with no back-pressure up to ~3 folds' rows
  // overlap (fold starts >= R apart, a result takes t + r + c + P cycles), so
  // 2R + C + 8 keeps credits from ever stalling an unthrottled array
  // (compute cycles == mx_tile_compute_cycles).
  localparam int FIFO_D = 2 * R + C + 8,
  localparam int FW     = $clog2(FIFO_D + 1),
  localparam int RW     = (R > 1) ? $clog2(R) : 1,
  localparam int CW     = LANES * mx_pkg::CODE_W,
  localparam int S      = R / TR  // scales per column of an output block
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  // descriptor and control
  input  logic                start_i,
  output logic                busy_o,
  output logic                done_o,
  input  logic [DW-1:0]       m_i,
  input  logic [DW-1:0]       n_i,
  input  logic [DW-1:0]       k_i,
  input  logic [2:0]          fmt_i,
  input  logic [2:0]          fmt_b_i,
  input  logic [4:0]          fp5_bias_i,
  input  logic                scaled_i,
  input  logic [7:0]          sps_i,
  input  logic [2:0]          out_fmt_i,
  input  logic                rq_tile_i,
  input  logic [AW-1:0]       a_base_i,
  input  logic [AW-1:0]       as_base_i,
  input  logic [AW-1:0]       b_base_i,
  input  logic [AW-1:0]       bs_base_i,
  // operand SRAM read ports
  output logic                rd_o,
  output logic [AW-1:0]       a_addr_o,
  output logic [AW-1:0]       as_addr_o,
  output logic [AW-1:0]       b_addr_o,
  output logic [AW-1:0]       bs_addr_o,
  input  logic [R*CW-1:0]     a_rdata_i,
  input  logic [R*8-1:0]      as_rdata_i,
  input  logic [C*CW-1:0]     b_rdata_i,
  input  logic [C*8-1:0]      bs_rdata_i,
  // output blocks, per column
  output logic [C-1:0]        blk_valid_o,
  input  logic [C-1:0]        blk_ready_i,
  output logic [C*R*32-1:0]   blk_vals_o,
  output logic [C*R*8-1:0]    blk_codes_o,
  output logic [C*S*8-1:0]    blk_scales_o,
  // observation
  output logic                issue_o,      // the array takes a K-step this cycle
  output logic [R*C-1:0]      pe_done_o,
  output logic                overrun_o
);
  // ---- descriptor registers ----
  logic [DW-1:0] m_q, n_q, t_q, nkb_q, nrf_q, ncf_q, rl_last_q, cl_last_q;
  logic [2:0]    fmt_q, fmt_b_q, out_fmt_q;
  logic [4:0]    b5_q;
  logic          scaled_q, rq_tile_q;
  logic [7:0]    sps_q;
  logic [AW-1:0] a_base_q, as_base_q, b_base_q, bs_base_q;
  logic          busy_q, done_q, all_issued_q;
  logic [2*DW-1:0] blocks_left_q;

  // ---- fold sequencer ----
  logic [DW-1:0] rf_q, cf_q, step_q, q_q;
  logic [7:0]    sc_cnt_q;
  logic [AW-1:0] a_fb_q, as_fb_q, b_fb_q, bs_fb_q;
  logic [DW:0]   since_start_q, since_last_q;   // saturating cycle counters
  logic [DW-1:0] gap_q, lastgap_q;
  logic [FW:0]   inflight_q [C];

  logic [DW-1:0] rl, cl;
  logic [C-1:0]      arr_valid, arr_ready, blk_pop;
  logic [C*32-1:0]   arr_data;
  logic [C*RW-1:0]   arr_row;
  logic          go, at_first, at_last;
  logic [C*FW-1:0] free;
  logic [C-1:0]  take;

  assign rl = (rf_q == nrf_q - 1'b1) ? rl_last_q : DW'(R);
  assign cl = (cf_q == ncf_q - 1'b1) ? cl_last_q : DW'(C);
  assign at_first = step_q == '0;
  assign at_last  = step_q == t_q - 1'b1;

  always_comb begin
    go = busy_q && !all_issued_q;
    if (at_first && {1'b0, gap_q} > since_start_q) go = 1'b0;
    if (at_last) begin
      if ({1'b0, lastgap_q} > since_last_q) go = 1'b0;
      for (int c = 0; c < C; c++)
        if (DW'(c) < cl &&
            {{(DW - FW){1'b0}}, free[c*FW +: FW]} + DW'(arr_valid[c] && arr_ready[c]) <
            {{(DW - FW - 1){1'b0}}, inflight_q[c]} + rl)
          go = 1'b0;
    end
  end

  assign rd_o      = go;
  assign a_addr_o  = a_base_q + a_fb_q + AW'(step_q);
  assign b_addr_o  = b_base_q + b_fb_q + AW'(step_q);
  assign as_addr_o = as_base_q + as_fb_q + AW'(q_q);
  assign bs_addr_o = bs_base_q + bs_fb_q + AW'(q_q);

  // ---- issue stage: the decision of cycle n meets its SRAM data in n + 1 ----
  logic         iss_v_q, iss_first_q, iss_last_q;
  logic [R-1:0] iss_rowv_q;
  logic [C-1:0] iss_colv_q;
  logic [R-1:0] rowv_mask;
  logic [C-1:0] colv_mask;
  always_comb begin
    for (int r = 0; r < R; r++) rowv_mask[r] = DW'(r) < rl;
    for (int c = 0; c < C; c++) colv_mask[c] = DW'(c) < cl;
  end

  logic [DW-1:0] nrf_in;
  assign nrf_in = (m_i + DW'(R - 1)) / DW'(R);

  function automatic logic [DW:0] sat_inc(input logic [DW:0] x);
    sat_inc = (&x) ? x : x + 1'b1;
  endfunction

  // ---- output-stage wires ----
  logic [$clog2(C + 1)-1:0] n_pop;
  always_comb begin
    n_pop = '0;
    for (int c = 0; c < C; c++) n_pop = n_pop + $clog2(C + 1)'(blk_pop[c]);
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      m_q <= '0; n_q <= '0; t_q <= '0; nkb_q <= '0; nrf_q <= '0; ncf_q <= '0;
      rl_last_q <= '0; cl_last_q <= '0; fmt_q <= '0; fmt_b_q <= '0; out_fmt_q <= '0; b5_q <= '0;
      scaled_q <= 1'b0; rq_tile_q <= 1'b0; sps_q <= '0;
      a_base_q <= '0; as_base_q <= '0; b_base_q <= '0; bs_base_q <= '0;
      busy_q <= 1'b0; done_q <= 1'b0; all_issued_q <= 1'b0; blocks_left_q <= '0;
      rf_q <= '0; cf_q <= '0; step_q <= '0; q_q <= '0; sc_cnt_q <= '0;
      a_fb_q <= '0; as_fb_q <= '0; b_fb_q <= '0; bs_fb_q <= '0;
      since_start_q <= '1; since_last_q <= '1; gap_q <= '0; lastgap_q <= '0;
      for (int c = 0; c < C; c++) inflight_q[c] <= '0;
      iss_v_q <= 1'b0; iss_first_q <= 1'b0; iss_last_q <= 1'b0;
      iss_rowv_q <= '0; iss_colv_q <= '0;
    end else begin
      for (int c = 0; c < C; c++)
        inflight_q[c] <= inflight_q[c] - (FW + 1)'(take[c]) +
                         ((go && at_last && DW'(c) < cl) ? (FW + 1)'(rl) : '0);
      iss_v_q <= go;
      iss_first_q <= go && at_first;
      iss_last_q <= go && at_last;
      iss_rowv_q <= go ? rowv_mask : '0;
      iss_colv_q <= go ? colv_mask : '0;
      since_start_q <= (go && at_first) ? (DW + 1)'(1) : sat_inc(since_start_q);
      since_last_q <= (go && at_last) ? (DW + 1)'(1) : sat_inc(since_last_q);
      if (!busy_q) begin
        if (start_i) begin
          m_q <= m_i; n_q <= n_i;
          t_q <= (k_i + DW'(LANES - 1)) / DW'(LANES);
          nkb_q <= (((k_i + DW'(LANES - 1)) / DW'(LANES)) + DW'(sps_i) - 1'b1) / DW'(sps_i);
          nrf_q <= nrf_in;
          ncf_q <= (n_i + DW'(C - 1)) / DW'(C);
          rl_last_q <= m_i - ((m_i - 1'b1) / DW'(R)) * DW'(R);
          cl_last_q <= n_i - ((n_i - 1'b1) / DW'(C)) * DW'(C);
          blocks_left_q <= (2 * DW)'(nrf_in) * (2 * DW)'(n_i);
          fmt_q <= fmt_i; fmt_b_q <= fmt_b_i; out_fmt_q <= out_fmt_i; b5_q <= fp5_bias_i;
          scaled_q <= scaled_i; rq_tile_q <= rq_tile_i; sps_q <= sps_i;
          a_base_q <= a_base_i; as_base_q <= as_base_i; b_base_q <= b_base_i; bs_base_q <= bs_base_i;
          busy_q <= 1'b1; done_q <= 1'b0; all_issued_q <= 1'b0;
          rf_q <= '0; cf_q <= '0; step_q <= '0; q_q <= '0; sc_cnt_q <= '0;
          a_fb_q <= '0; as_fb_q <= '0; b_fb_q <= '0; bs_fb_q <= '0;
          since_start_q <= '1; since_last_q <= '1; gap_q <= '0; lastgap_q <= '0;
        end
      end else begin
        blocks_left_q <= blocks_left_q - (2 * DW)'(n_pop);
        if (all_issued_q && blocks_left_q == (2 * DW)'(n_pop)) begin
          busy_q <= 1'b0;
          done_q <= 1'b1;
        end
        if (go) begin
          if (at_last) begin
            step_q <= '0; q_q <= '0; sc_cnt_q <= '0;
            gap_q <= (t_q > rl) ? t_q : rl;
            lastgap_q <= rl;
            if (rf_q == nrf_q - 1'b1) begin
              rf_q <= '0; a_fb_q <= '0; as_fb_q <= '0;
              if (cf_q == ncf_q - 1'b1) all_issued_q <= 1'b1;
              else begin
                cf_q <= cf_q + 1'b1;
                b_fb_q <= b_fb_q + AW'(t_q);
                bs_fb_q <= bs_fb_q + AW'(nkb_q);
              end
            end else begin
              rf_q <= rf_q + 1'b1;
              a_fb_q <= a_fb_q + AW'(t_q);
              as_fb_q <= as_fb_q + AW'(nkb_q);
            end
          end else begin
            step_q <= step_q + 1'b1;
            if (sc_cnt_q == sps_q - 1'b1) begin
              sc_cnt_q <= '0;
              q_q <= q_q + 1'b1;
            end else sc_cnt_q <= sc_cnt_q + 1'b1;
          end
        end
      end
    end
  end
  assign busy_o = busy_q;
  assign done_o = done_q;
  assign issue_o = iss_v_q;

  // ---- the array ----
  logic [R*8-1:0] a_scales;
  logic [C*8-1:0] b_scales;
  assign a_scales = scaled_q ? as_rdata_i : {R{8'd127}};
  assign b_scales = scaled_q ? bs_rdata_i : {C{8'd127}};
  /* verilator lint_off UNUSEDSIGNAL */  // m_q, n_q: kept for waveforms
  logic [DW-1:0] unused_mn;
  assign unused_mn = m_q ^ n_q;
  /* verilator lint_on UNUSEDSIGNAL */

  mx_array #(.R(R), .C(C), .LANES(LANES), .ALIGN_W(ALIGN_W), .FIFO_D(FIFO_D)) u_array (
    .clk_i, .rst_ni, .fmt_i(fmt_q), .fmt_b_i(fmt_b_q), .fp5_bias_i(b5_q),
    .row_valid_i(iss_rowv_q), .col_valid_i(iss_colv_q),
    .first_i(iss_first_q), .last_i(iss_last_q),
    .a_codes_i(a_rdata_i), .a_scales_i(a_scales), .b_codes_i(b_rdata_i), .b_scales_i(b_scales),
    .out_valid_o(arr_valid), .out_ready_i(arr_ready), .out_data_o(arr_data), .out_row_o(arr_row),
    .free_o(free), .take_o(take), .pe_done_o, .overrun_o);

  // ---- output stage: per column, collect one fold's column, re-quantize ----
  // Tile mode: the fold whose outputs are being collected (orf_q, ocf_q) and
  // its active columns (ocl); a tile leaves when all of them are full and ready.
  logic [DW-1:0]   orf_q, ocf_q, ocl;
  logic [C-1:0]    col_full, ocl_mask, tile_emit_c;
  logic            tile_full, tile_emit;
  logic [R*C*32-1:0] tile_vals;
  logic [R*C*8-1:0]  tile_codes;
  logic [C*S*8-1:0]  tile_scales;   // column c's tile row i at (c*S + i)*8
  assign ocl = (ocf_q == ncf_q - 1'b1) ? cl_last_q : DW'(C);
  always_comb begin
    for (int c = 0; c < C; c++) ocl_mask[c] = DW'(c) < ocl;
  end
  assign tile_full = rq_tile_q && ((col_full & ocl_mask) == ocl_mask);
  assign tile_emit = tile_full && ((blk_ready_i & ocl_mask) == ocl_mask);
  assign tile_emit_c = tile_emit ? ocl_mask : '0;
  always_ff @(posedge clk_i) begin
    if (!rst_ni || (!busy_q && start_i)) begin
      orf_q <= '0;
      ocf_q <= '0;
    end else if (tile_emit) begin
      if (orf_q == nrf_q - 1'b1) begin
        orf_q <= '0;
        ocf_q <= ocf_q + 1'b1;
      end else orf_q <= orf_q + 1'b1;
    end
  end

  for (genvar c = 0; c < C; c++) begin : g_out
    logic [31:0]   vals_q [R];
    logic          full_q;
    logic [DW-1:0] crf_q, blk_rl_q, rl_blk;
    logic [RW-1:0] row;
    logic          emit;
    logic [R*32-1:0] masked;
    logic [R*8-1:0]  col_codes;
    logic [7:0]      col_scale;
    assign row = arr_row[c*RW +: RW];
    assign rl_blk = (crf_q == nrf_q - 1'b1) ? rl_last_q : DW'(R);
    assign emit = rq_tile_q ? tile_emit_c[c] : (full_q && blk_ready_i[c]);
    assign arr_ready[c] = !full_q || emit;
    assign blk_pop[c] = emit;
    assign col_full[c] = full_q;
    always_ff @(posedge clk_i) begin
      if (!rst_ni || (!busy_q && start_i)) begin
        full_q <= 1'b0;
        crf_q <= '0;
        blk_rl_q <= '0;
        for (int r = 0; r < R; r++) vals_q[r] <= '0;
      end else begin
        if (arr_valid[c] && arr_ready[c]) begin
          vals_q[row] <= arr_data[c*32 +: 32];
          if (DW'(row) == rl_blk - 1'b1) begin
            full_q <= 1'b1;
            blk_rl_q <= rl_blk;
            crf_q <= (crf_q == nrf_q - 1'b1) ? '0 : crf_q + 1'b1;
          end else if (emit) full_q <= 1'b0;
        end else if (emit) full_q <= 1'b0;
      end
    end
    for (genvar r = 0; r < R; r++) begin : g_mask
      assign masked[r*32 +: 32] = (DW'(r) < blk_rl_q) ? vals_q[r] : 32'd0;
    end
    // columns outside the fold hold stale values: +0 in the tile
    assign tile_vals[c*R*32 +: R*32] = ocl_mask[c] ? masked : '0;
    /* verilator lint_off UNUSEDSIGNAL */
    logic [31:0] unused_amax;
    /* verilator lint_on UNUSEDSIGNAL */
    mx_requant #(.N(R)) u_rq (
      .fmt_i(out_fmt_q), .fp5_bias_i(b5_q), .vals_i(masked),
      .scale_o(col_scale), .amax_o(unused_amax), .codes_o(col_codes));
    assign blk_valid_o[c] = rq_tile_q ? (tile_full && ocl_mask[c]) : full_q;
    assign blk_vals_o[c*R*32 +: R*32] = masked;
    assign blk_codes_o[c*R*8 +: R*8] = rq_tile_q ? tile_codes[c*R*8 +: R*8] : col_codes;
    assign blk_scales_o[c*S*8 +: S*8] = rq_tile_q ? tile_scales[c*S*8 +: S*8] : {S{col_scale}};
  end

  // Tile mode: one re-quantizer (max tree + encoders) per TR x TC sub-block
  // (i, j) of the fold, its values column by column.
  if (R % TR != 0 || C % TC != 0) begin : g_bad_tile
    $error("mx_array_ctrl: the re-quantization tile TR x TC must divide the R x C array");
  end
  for (genvar i = 0; i < S; i++) begin : g_tile_row
    for (genvar j = 0; j < C / TC; j++) begin : g_tile_col
      logic [TR*TC*32-1:0] sub_vals;
      logic [TR*TC*8-1:0]  sub_codes;
      logic [7:0]          sub_scale;
      /* verilator lint_off UNUSEDSIGNAL */
      logic [31:0]         unused_sub_amax;
      /* verilator lint_on UNUSEDSIGNAL */
      for (genvar k = 0; k < TC; k++) begin : g_k
        assign sub_vals[k*TR*32 +: TR*32] = tile_vals[((j*TC + k)*R + i*TR)*32 +: TR*32];
        assign tile_codes[((j*TC + k)*R + i*TR)*8 +: TR*8] = sub_codes[k*TR*8 +: TR*8];
        assign tile_scales[((j*TC + k)*S + i)*8 +: 8] = sub_scale;
      end
      mx_requant #(.N(TR * TC)) u_rq_tile (
        .fmt_i(out_fmt_q), .fp5_bias_i(b5_q), .vals_i(sub_vals),
        .scale_o(sub_scale), .amax_o(unused_sub_amax), .codes_o(sub_codes));
    end
  end
endmodule
