/*
 * array_model.h — the C++ side of the array co-simulation and the SystemC
 * RTL back-end: a thin harness over the C register model of the array and
 * its controller (models/array/mx_array.h, mx_array_ctrl_comb/_tick) taking
 * and giving the per-cycle port values as vectors, the banked operand SRAM
 * image, and the start-to-done schedule the RTL is checked against.
 */
#ifndef MX_ARRAY_MODEL_H
#define MX_ARRAY_MODEL_H

#include <cstdint>
#include <vector>

#include "config_yaml.h"

extern "C" {
#include "array/mx_array.h"
}

#ifdef ARR_R /* a Verilated build's size (mk/cosim_array.mk, mk/systemc.mk) */
#ifndef ARR_TR /* its re-quantization tile (mx_array_ctrl's TR x TC, dividing the array) */
#define ARR_TR ARR_R
#endif
#ifndef ARR_TC
#define ARR_TC ARR_C
#endif
#define ARR_S (ARR_R / ARR_TR) /* scales per column of an output block */
#endif

/* ---- rtl/mx_array_ctrl.sv: descriptor-driven controller + array + output
 * stage (block collector and mx_requant per column) ---------------------- */

/* Largest M, N, K and SRAM word address the controller's 32-bit descriptor
 * fields hold (rtl/mx_array_ctrl.sv DW = AW = 32). */
constexpr long long TILE_FIELD_MAX = MX_ARRAY_FIELD_MAX;

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
    std::vector<uint8_t> scales;              /* C*S, S = R / TR: column c's tile row i at c*S + i */
};

/* Inputs of a cycle with descriptor d, no start, zero SRAM data and every
 * column ready (vectors sized for R rows, C columns, L lanes). */
tile_cycle_in tile_cycle_in_idle(const tile_desc &d, int R, int C, int L);

/* The SRAM's answer to one cycle of the controller: the data of this cycle's
 * read addresses on the next cycle, zeros when it issued no read. */
void tile_sram_respond(const tile_sram &sram, const tile_cycle_out &o, tile_cycle_in &in);

/* The C model (mx_array_ctrl_comb/_tick) with the ports as vectors. */
class array_ctrl_twin {
public:
    explicit array_ctrl_twin(const mx_array_config &a);
    ~array_ctrl_twin();
    array_ctrl_twin(const array_ctrl_twin &) = delete;
    array_ctrl_twin &operator=(const array_ctrl_twin &) = delete;
    void reset();
    /* Outputs of this cycle (before the edge) given the inputs. */
    void comb(const tile_cycle_in &in, tile_cycle_out &o);
    /* Clock edge. */
    void tick();
    /* PE (r, c)'s output port this cycle (after comb). */
    uint32_t pe_value(int r, int c) const { return out_.arr.pe_value[r * a_.cols + c]; }

private:
    mx_array_config a_;
    mx_array_ctrl_regs q_, d_;
    mx_array_ctrl_out out_;
};

/* Start-to-done cycles of an unthrottled tile on mx_array_ctrl (every
 * blk_ready_i high), written out from the RTL's registers:
 *   lead    = 2: cycle 0 start_i (the edge latches the descriptor), cycle 1
 *             the first SRAM read, cycle 2 its data = the first K-step at the
 *             array's issue port (the RTL's SRAMs cannot stall: below);
 *   compute = mx_tile_compute_cycles, the fold schedule (first K-step to
 *             the last PE result);
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
tile_done_sched tile_done_schedule(const mx_arch_config &cfg, long long M, long long N, long long K, int rq_tile);

/* Packs a job's operands (host layout) into the banked SRAM image and fills the
 * descriptor (bases 0).  out_fmt < 0: no re-quantization (BF16 output). */
struct mx_sc_job;
void tile_pack(const mx_sc_job &j, int R, int C, int L, int fp5_bias, int out_fmt, tile_desc &d, tile_sram &s);

#endif
