/*
 * array_model.h — C++ cycle model of rtl/mx_array.sv (skew, PE grid built
 * from the C PE model mx_pe_comb/mx_pe_tick, shadows, column drain and
 * FIFOs).  Same register-level structure as the RTL; comb() computes the
 * outputs of the current cycle from inputs and registers, tick() the edge.
 */
#ifndef MX_ARRAY_MODEL_H
#define MX_ARRAY_MODEL_H

#include <cstdint>
#include <deque>
#include <vector>

extern "C" {
#include "units/mx_pe.h"
}

struct arr_issue {            /* one cycle at the issue port */
    std::vector<int> row_valid, col_valid;
    int first = 0, last = 0;
    std::vector<uint16_t> a_codes; /* R x L */
    std::vector<uint8_t> a_scales; /* R */
    std::vector<uint16_t> b_codes; /* C x L */
    std::vector<uint8_t> b_scales; /* C */
};

struct arr_outputs {
    std::vector<int> out_valid, out_row, free, take;   /* take: shadow -> FIFO (take_o) */
    std::vector<uint32_t> out_data;
    std::vector<int> pe_done;    /* R*C */
    int overrun = 0;
};

class array_model {
public:
    array_model(int R, int C, const mx_pe_config &pe, int fifo_d);
    void reset();
    /* Outputs of this cycle (before the edge) given the inputs. */
    void comb(const arr_issue &in, const std::vector<int> &out_ready, arr_outputs &o);
    /* Clock edge with the same inputs. */
    void tick();
    /* Fault injection: flip bit 0 of PE (r, c)'s first result at its output
     * port (out_o, so the shadow and everything after get the flipped value). */
    void inject_fault(int r, int c) { fault_r_ = r; fault_c_ = c; }
    /* PE (r, c)'s output port this cycle (after comb): out_valid_o, out_o. */
    int pe_valid(int r, int c) const { return pe_out_[(std::size_t)(r * C_ + c)].out_valid_o; }
    uint32_t pe_value(int r, int c) const { return pe_out_[(std::size_t)(r * C_ + c)].out_o; }
    /* fmt_i / fp5_bias_i of the PEs (the controller's descriptor registers) */
    void set_pe_config(const mx_pe_config &pe) { pe_ = pe; }

private:
    struct astream { std::vector<uint16_t> codes; uint8_t scale = 0; int valid = 0, first = 0, last = 0; };
    struct bstream { std::vector<uint16_t> codes; uint8_t scale = 0; int valid = 0; };
    int R_, C_, L_, D_;
    mx_pe_config pe_;
    std::vector<std::deque<astream>> askew_;
    std::vector<std::deque<bstream>> bskew_;
    std::vector<astream> apass_, ain_;   /* R x C */
    std::vector<bstream> bpass_, bin_;
    std::vector<mx_pe_regs> q_, d_;
    std::vector<uint32_t> shadow_;
    std::vector<int> shadow_v_;
    std::vector<std::vector<uint32_t>> fifo_d_;
    std::vector<std::vector<int>> fifo_r_;
    std::vector<int> rd_, wr_, count_;
    int overrun_ = 0;
    int fault_r_ = -1, fault_c_ = -1, fault_done_ = 0;
    /* latched by comb for tick */
    arr_issue in_;
    std::vector<int> ready_;
    arr_outputs o_;
    std::vector<mx_pe_out> pe_out_;
    std::vector<int> head_row_;
    std::vector<uint32_t> head_val_;
};

/* ---- rtl/mx_array_ctrl.sv: descriptor-driven controller + array + output
 * stage (block collector and mx_requant per column) ---------------------- */

/* Largest M, N, K and SRAM word address the controller's 32-bit descriptor
 * fields hold (rtl/mx_array_ctrl.sv DW = AW = 32). */
constexpr long long TILE_FIELD_MAX = 0xFFFFFFFFLL;

struct tile_desc {            /* the descriptor inputs of mx_array_ctrl */
    int M = 0, N = 0, K = 0;
    int fmt = 0, fmt_b = 0, fp5_bias = 8, scaled = 1, sps = 1, out_fmt = 0; /* fmt: A's, fmt_b: B's */
    int rq_tile = 0;          /* 1: one scale per fold tile (rq_tile_i), else per column block */
    unsigned a_base = 0, as_base = 0, b_base = 0, bs_base = 0;
};

/* Banked operand SRAM image (layout in rtl/mx_array_ctrl.sv); a word of an A
 * or B code bank is L codes. */
struct tile_sram {
    int R = 0, C = 0, L = 0;
    std::vector<std::vector<uint16_t>> a, b;   /* [bank][word * L + lane] */
    std::vector<std::vector<uint8_t>> as, bs;  /* [bank][word] */
    /* synchronous read: the data of address `addr` (0 past the end) */
    void read_a(unsigned addr, std::vector<uint16_t> &out) const;
    void read_b(unsigned addr, std::vector<uint16_t> &out) const;
    void read_as(unsigned addr, std::vector<uint8_t> &out) const;
    void read_bs(unsigned addr, std::vector<uint8_t> &out) const;
};

struct tile_cycle_in {
    int start = 0;
    tile_desc d;
    std::vector<uint16_t> a_rdata, b_rdata;   /* R*L, C*L */
    std::vector<uint8_t> as_rdata, bs_rdata;  /* R, C */
    std::vector<int> blk_ready;               /* C */
};

struct tile_cycle_out {
    int busy = 0, done = 0, rd = 0, issue = 0, overrun = 0;
    unsigned a_addr = 0, as_addr = 0, b_addr = 0, bs_addr = 0;
    std::vector<int> pe_done;                 /* R*C */
    std::vector<int> blk_valid;               /* C */
    std::vector<uint32_t> vals;               /* C*R: column c, row r at c*R + r */
    std::vector<uint8_t> codes;               /* C*R */
    std::vector<uint8_t> scales;              /* C */
};

/* Inputs of a cycle with descriptor d, no start, zero SRAM data and every
 * column ready (vectors sized for R rows, C columns, L lanes). */
tile_cycle_in tile_cycle_in_idle(const tile_desc &d, int R, int C, int L);

/* The SRAM's answer to one cycle of the controller: the data of this cycle's
 * read addresses on the next cycle, zeros when it issued no read. */
void tile_sram_respond(const tile_sram &sram, const tile_cycle_out &o, tile_cycle_in &in);

class array_ctrl_model {
public:
    array_ctrl_model(int R, int C, int L, int align_width);
    void reset();
    void comb(const tile_cycle_in &in, tile_cycle_out &o);
    void tick();
    array_model &array() { return arr_; }

private:
    int R_, C_, L_;
    mx_pe_config pe_;
    array_model arr_;
    /* descriptor registers */
    long long t_ = 0, nkb_ = 0, nrf_ = 0, ncf_ = 0, rl_last_ = 0, cl_last_ = 0, blocks_left_ = 0;
    int fmt_ = 0, fmt_b_ = 0, out_fmt_ = 0, b5_ = 0, scaled_ = 0, sps_ = 1, rq_tile_ = 0;
    unsigned a_base_ = 0, as_base_ = 0, b_base_ = 0, bs_base_ = 0;
    int busy_ = 0, done_ = 0, all_issued_ = 0;
    /* sequencer */
    long long rf_ = 0, cf_ = 0, step_ = 0, q_ = 0, sc_cnt_ = 0;
    unsigned a_fb_ = 0, as_fb_ = 0, b_fb_ = 0, bs_fb_ = 0;
    long long since_start_ = 0, since_last_ = 0, gap_ = 0, lastgap_ = 0;
    std::vector<int> inflight_;
    int iss_v_ = 0, iss_first_ = 0, iss_last_ = 0;
    std::vector<int> iss_rowv_, iss_colv_;
    /* output stage */
    std::vector<std::vector<uint32_t>> vals_;
    std::vector<int> full_;
    std::vector<long long> crf_, blk_rl_;
    long long orf_ = 0, ocf_ = 0;  /* tile mode: the fold being collected */
    int tile_emit_ = 0;
    /* latched by comb */
    tile_cycle_in in_;
    arr_outputs ao_;
    std::vector<int> arr_ready_, emit_;
    int go_ = 0;
    long long rl_ = 0, cl_ = 0;
    void sync_pe();
};

/* Compute cycles of an unthrottled GEMM tile on the array, from the fold
 * schedule (folds col-fold outer, row-fold inner, fold f+1 starts
 * max(t, r_f) after fold f, fold f busy t + (r_f-1) + (c_f-1) + (P-1) cycles):
 * the latest fold end, max_f(start_f + busy_f) (not the last fold's end: an
 * earlier, wider fold can end later).  Written independently of the arch
 * model's mx_tile_compute_cycles, which must agree. */
long long tile_schedule_cycles(int R, int C, int L, int P, long long M, long long N, long long K);

/* Start-to-done cycles of an unthrottled tile on mx_array_ctrl (every
 * blk_ready_i high), written out from the RTL's registers:
 *   lead    = 2: cycle 0 start_i (the edge latches the descriptor), cycle 1
 *             the first SRAM read, cycle 2 its data = the first K-step at the
 *             array's issue port (the RTL's SRAMs cannot stall: below);
 *   compute = tile_schedule_cycles (first K-step to the last PE result);
 *   drain   : the result of PE (i, j) of fold f (pe_done in cycle
 *             x = 2 + start_f + t + i + j + P - 1) is in its shadow in x + 1,
 *             in the column FIFO from x + 2 (the head may enter the collector
 *             in that cycle), the collector holds one fold's column; a block
 *             (column mode) or fold tile (tile mode: the fold's c columns all
 *             full, tiles strictly in fold order) is full the cycle after its
 *             last value entered and leaves in that cycle; a full collector
 *             takes the next value only in the cycle its block leaves; done_o
 *             is high the cycle after the last block left.
 * total = the cycle done_o is first seen high (start_i in cycle 0); it is
 * the cycle engine's mx_cycle_tile_done (models/arch/mx_cycle.h), which the
 * co-simulation thereby checks against the RTL.
 * Column mode: total = 2 + compute + 4 always (a column gets at most one
 * result per cycle, so nothing queues).  Tile mode: a fold tile waits for its
 * widest column and for the previous tile, so drain can exceed 4 (narrow last
 * column fold behind a wider fold, t < C). */
struct tile_done_sched {
    long long lead = 0, compute = 0, drain = 0, total = 0;
};
tile_done_sched tile_done_schedule(int R, int C, int L, int P, long long M, long long N, long long K, int rq_tile);

/* Packs a job's operands (host layout) into the banked SRAM image and fills the
 * descriptor (bases 0).  out_fmt < 0: no re-quantization (BF16 output). */
struct mx_sc_job;
void tile_pack(const mx_sc_job &j, int R, int C, int L, int fp5_bias, int out_fmt, tile_desc &d, tile_sram &s);

#endif
