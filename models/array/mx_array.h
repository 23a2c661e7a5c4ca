/*
 * mx_array.h — register model of the systolic array and its controller, the
 * C twin of rtl/mx_array.sv (operand skew, R x C PEs built from the C PE
 * model mx_pe_comb/mx_pe_tick, result shadows, column FIFOs) and
 * rtl/mx_array_ctrl.sv (descriptor, fold sequencer with credits, operand SRAM
 * addresses, per-column block collector and re-quantization by
 * mx_requant_comb).  Same registers as the RTL, cycle for cycle; the array
 * co-simulation (sim/cosim_array) runs it in lock step with the Verilated RTL.
 *
 * Like the units: comb() computes this cycle's outputs and every next-state
 * register d from the inputs and the registers q (pure); tick() is the clock
 * edge (q <- d, by swapping the two register sets).  Register sets are sized
 * by the config (mx_array_regs_alloc); no globals.
 *
 * Fold order, fold starts and their cycle counts are the arch model's
 * (mx_tile_compute_cycles, models/arch/mx_arch.h): this model is the
 * register-level realisation that the co-simulation checks against them.
 */
#ifndef MX_ARRAY_H
#define MX_ARRAY_H

#include <stddef.h>
#include <stdint.h>

#include "arch/mx_arch.h"
#include "units/mx_pe.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Pipeline stages of the PE cycle model (S1 decode+mul .. S4 accum, mx_pe.h
 * and rtl/mx_pe.sv): a K-step entering a PE in cycle x has its result on the
 * PE's output in x + 4 when it is the last of its transaction. */
#define MX_ARRAY_PE_STAGES 4

typedef struct {
    int rows, cols, lanes;     /* R x C PEs, L lanes                                   */
    int pipeline_depth;        /* P >= MX_ARRAY_PE_STAGES: cycles from a PE's last
                                * K-step at its input to its result at the shadow's
                                * input; P - 4 result registers follow each PE        */
    int fifo_depth;            /* column FIFO entries (RTL: 2R + C + 8)                */
    int align_width;           /* the PEs' adder-tree width                           */
    int tile_rows, tile_cols;  /* re-quantization tile TR x TC of tile mode (rq_tile):
                                * divide R and C (a tile never straddles folds)       */
    int fault_row, fault_col;  /* test hook: PE whose first result has bit 0 flipped
                                * at its output port; -1 none                          */
} mx_array_config;

/* The array configuration of an accelerator config, and the check that the
 * RTL can build it: output stationary with fold overlap, not SCALE-Sim
 * conventions, P >= 4, L <= MX_PE_MAX_LANES, and with rqu.block: tile the
 * format's 2-D tile (format.tile [tr, tc]; none: the R x C fold) dividing the
 * array (tr | rows, tc | cols) and at most MX_REQUANT_MAX_N elements.  0, or
 * -1 with a one-line message naming the key. */
int mx_array_config_from_arch(const mx_arch_config *c, mx_array_config *a, char *err, size_t errlen);

/* Scales per column in an output block: R / TR (one per tile row of the fold). */
static inline int mx_array_scales_per_col(const mx_array_config *a) { return a->rows / a->tile_rows; }

/* ---- the array alone (rtl/mx_array.sv) ------------------------------------ */

typedef struct {               /* one A or B operand stream register           */
    uint16_t codes[MX_PE_MAX_LANES];
    uint8_t  scale;
    uint8_t  valid, first, last;
} mx_array_stream;

typedef struct {
    const int      *row_valid, *col_valid; /* R, C                            */
    int             first, last;
    const uint16_t *a_codes;               /* R x L                           */
    const uint8_t  *a_scales;              /* R                               */
    const uint16_t *b_codes;               /* C x L                           */
    const uint8_t  *b_scales;              /* C                               */
    const int      *out_ready;             /* C                               */
} mx_array_in;

typedef struct {               /* caller-owned, sized by mx_array_out_alloc    */
    int      *out_valid, *out_row, *free, *take; /* C; take: shadow -> FIFO      */
    uint32_t *out_data;                          /* C                            */
    int      *pe_done;                           /* R*C: result at a shadow's input */
    int      *pe_valid;                          /* R*C: PE output port valid     */
    uint32_t *pe_value;                          /* R*C: PE output port value     */
    int       overrun;
} mx_array_out;

typedef struct {
    mx_array_stream *askew, *bskew; /* row r's r stages at r(r-1)/2 (stage 0 newest) */
    mx_array_stream *apass, *bpass; /* R*C: register in front of PE (r, c)        */
    mx_pe_regs      *pe;            /* R*C                                         */
    uint8_t         *res_valid;     /* R*C*(P-4) extra result stages               */
    uint32_t        *res_value;
    uint8_t         *shadow_valid;  /* R*C                                         */
    uint32_t        *shadow;
    uint32_t        *fifo_data;     /* C*D                                         */
    uint16_t        *fifo_row;
    int             *rd, *wr, *count; /* C                                         */
    int              overrun, fault_done;
} mx_array_regs;

int  mx_array_regs_alloc(const mx_array_config *a, mx_array_regs *q);
void mx_array_regs_free(mx_array_regs *q);
void mx_array_reset(const mx_array_config *a, mx_array_regs *q);
int  mx_array_out_alloc(const mx_array_config *a, mx_array_out *o);
void mx_array_out_free(mx_array_out *o);
/* pe: the PEs' formats, lanes, block and bias (the controller's descriptor). */
void mx_array_comb(const mx_array_config *a, const mx_pe_config *pe, const mx_array_in *in,
                   const mx_array_regs *q, mx_array_regs *d, mx_array_out *o);
void mx_array_tick(mx_array_regs *q, mx_array_regs *d);

/* ---- controller + array + output stage (rtl/mx_array_ctrl.sv) ------------- */

/* Largest M, N, K and SRAM word address of the 32-bit descriptor fields. */
#define MX_ARRAY_FIELD_MAX 0xFFFFFFFFLL

typedef struct {               /* the descriptor inputs of mx_array_ctrl       */
    long long M, N, K;
    int fmt, fmt_b, fp5_bias, scaled, sps, out_fmt; /* fmt: A's, fmt_b: B's    */
    int rq_tile;               /* 1: TR x TC tile scales, 0: a scale per column block */
    uint32_t a_base, as_base, b_base, bs_base;
} mx_array_desc;

typedef struct {
    int             start;
    mx_array_desc   desc;
    const uint16_t *a_rdata, *b_rdata;   /* R*L, C*L: synchronous SRAM data  */
    const uint8_t  *as_rdata, *bs_rdata; /* R, C                              */
    const int      *blk_ready;           /* C                                 */
} mx_array_ctrl_in;

typedef struct {               /* caller-owned, sized by mx_array_ctrl_out_alloc */
    int busy, done, rd, issue, overrun;
    uint32_t a_addr, as_addr, b_addr, bs_addr;
    int      *blk_valid;       /* C                                             */
    uint32_t *vals;            /* C*R: column c, row r at c*R + r               */
    uint8_t  *codes;           /* C*R                                           */
    uint8_t  *scales;          /* C*S, S = R/TR: column c's tile row i at c*S + i
                                * (column mode: S copies of the column's scale) */
    mx_array_out arr;          /* the array's outputs (pe_done, PE ports, ...)   */
    /* scratch of comb: the array's inputs */
    uint8_t *arr_a_scales, *arr_b_scales; /* R, C                                */
    int     *arr_ready, *emit;            /* C                                   */
} mx_array_ctrl_out;

typedef struct {
    /* descriptor registers */
    long long t, nkb, nrf, ncf, rl_last, cl_last, blocks_left;
    int fmt, fmt_b, out_fmt, b5, scaled, sps, rq_tile;
    uint32_t a_base, as_base, b_base, bs_base;
    int busy, done, all_issued;
    /* fold sequencer */
    long long rf, cf, step, q, sc_cnt;
    uint32_t a_fb, as_fb, b_fb, bs_fb;
    long long since_start, since_last, gap, lastgap;
    long long *inflight;       /* C                                             */
    int iss_v, iss_first, iss_last;
    int *iss_rowv, *iss_colv;  /* R, C                                          */
    /* output stage */
    uint32_t *vals;            /* C*R                                           */
    int *full;                 /* C                                             */
    long long *crf, *blk_rl;   /* C                                             */
    long long orf, ocf;        /* tile mode: the fold being collected           */
    mx_array_regs arr;
} mx_array_ctrl_regs;

int  mx_array_ctrl_regs_alloc(const mx_array_config *a, mx_array_ctrl_regs *q);
void mx_array_ctrl_regs_free(mx_array_ctrl_regs *q);
void mx_array_ctrl_reset(const mx_array_config *a, mx_array_ctrl_regs *q);
int  mx_array_ctrl_out_alloc(const mx_array_config *a, mx_array_ctrl_out *o);
void mx_array_ctrl_out_free(mx_array_ctrl_out *o);
void mx_array_ctrl_comb(const mx_array_config *a, const mx_array_ctrl_in *in, const mx_array_ctrl_regs *q,
                        mx_array_ctrl_regs *d, mx_array_ctrl_out *o);
void mx_array_ctrl_tick(mx_array_ctrl_regs *q, mx_array_ctrl_regs *d);

#ifdef __cplusplus
}
#endif
#endif
