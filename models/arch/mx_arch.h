/*
 * mx_arch.h — the accelerator model of SPEC §4: configuration, per-GEMM
 * counters, the analytic cycle model (one function used by both the timing
 * and the functional mode) and the energy model of SPEC §5.
 *
 * Cycle-model decisions are documented in docs/ARCH.md, energy entries in
 * docs/ENERGY.md.  Core code: C11, libc + libm, no global state.
 */
#ifndef MX_ARCH_H
#define MX_ARCH_H

#include "arch/mx_trace.h"
#include "formats/mx_block.h"
#include "formats/mx_format.h"
#include "mem/mx_dram.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { MX_DATAFLOW_OS = 0, MX_DATAFLOW_WS, MX_DATAFLOW_IS } mx_dataflow;
/* The mapper's objective (memory.tiling, docs/ARCH.md "Mapper"): time (least
 * traffic within 1% of the fastest), least DRAM traffic, least energy, least
 * energy x delay; the last two need mx_arch_config.energy_tab. */
typedef enum { MX_TILING_TIME = 0, MX_TILING_TRAFFIC, MX_TILING_ENERGY, MX_TILING_EDP } mx_tiling_objective;
const char *mx_tiling_objective_name(mx_tiling_objective o);
int mx_tiling_objective_parse(const char *s, mx_tiling_objective *out);

/* Which engine times a GEMM (SPEC §4.2): closed forms, or the cycle engine. */
typedef enum { MX_ENGINE_ANALYTIC = 0, MX_ENGINE_CYCLE = 1 } mx_engine;
const char *mx_engine_name(mx_engine e);
int mx_engine_parse(const char *s, mx_engine *out);
const char *mx_dataflow_name(mx_dataflow d);
int mx_dataflow_parse(const char *s, mx_dataflow *out);

/* Operand slots. */
enum { MX_OP_A = 0, MX_OP_B = 1, MX_OP_OUT = 2, MX_NOPS = 3 };

typedef struct {
    double kib;          /* capacity (both halves when double buffered)   */
    int    banks;        /* independent banks                             */
    int    bytes_per_cycle; /* per bank                                  */
} mx_sram_config;

#define MX_ARCH_NAME_MAX 64
#define MX_ARCH_PATH_MAX 512

typedef struct {
    char name[MX_ARCH_NAME_MAX];
    /* array */
    int rows, cols, lanes;     /* R x C PEs, L lanes (elements of K per PE-cycle) */
    mx_dataflow dataflow;
    int pe_pipeline_depth;     /* P: stages from operand in to accumulator update  */
    int fold_overlap;          /* 1: consecutive folds of a tile are pipelined     */
    int scalesim_compat;       /* 1: SCALE-Sim v2 conventions (docs/ARCH.md)       */
    mx_engine engine;          /* `engine` key / --engine: analytic (default) or cycle */
    int analytic_probes;       /* analytic engine with a DRAM model: time each distinct tile
                                * transfer on the DRAM model (1, default) or use the
                                * calibrated bandwidth only (0; the mapper's inner loop) */
    int analytic_no_jump;      /* 1: the analytic engine walks every tile (no periodic
                                * fast-forward; tests compare the two)                */
    /* numerics */
    char a_format[MX_FORMAT_NAME_MAX];   /* MX name ("mxsf", "mxfp8_e4m3") or plain ("bf16") */
    char b_format[MX_FORMAT_NAME_MAX];
    char out_format[MX_FORMAT_NAME_MAX]; /* format the RQU writes outputs in    */
    int block_size;            /* 1-D block k along K (MX formats)                 */
    int tile_rows, tile_cols;  /* > 0: 2-D tiles (one scale per tile)              */
    mx_scale_rule scale_rule;
    mx_round round;
    int mxsf_fp5_bias;
    int align_width;           /* aligned product width in the adder tree (bits)   */
    double mxsf_wide_fraction; /* timing mode: fraction of MXSF elements in E2M5 mode */
    /* memory */
    mx_sram_config sram[MX_NOPS];
    int double_buffer;         /* 1 tiles double buffered, 0 not, 2 the mapper chooses per GEMM */
    double dram_bytes_per_cycle;
    int dram_latency;          /* cycles from a read's issue to its first data    */
    int ideal_memory;          /* 1: no DRAM/SRAM stalls (SCALE-Sim CALC mode)    */
    /* protocol-level DRAM (memory.dram): a preset name or file; "" keeps the
     * bandwidth + latency channel above.  The sim layer loads it into dram. */
    char dram_preset[MX_ARCH_PATH_MAX];
    int dram_channels;         /* memory.dram_channels: 0 = the preset's       */
    int dram_model;            /* 1: `dram` holds a loaded, checked config     */
    mx_dram_config dram;
    /* the analytic engine's summary of that DRAM (mx_arch_dram_calibrate)    */
    struct {
        int valid;
        double read_bytes_per_cycle, write_bytes_per_cycle; /* accelerator cycles */
        int latency;                    /* accelerator cycles, idle read       */
        int write_latency;              /* accelerator cycles, idle write (data sent) */
        double rd_pj_per_byte, wr_pj_per_byte; /* commands (ACT/PRE/RD/WR)     */
        double bg_pj_per_cycle;         /* background + refresh per accelerator cycle */
        double bg_noref_pj_per_cycle;   /* background alone (refresh counted by schedule) */
        double ref_pj;                  /* one REF of one rank                   */
        double act_per_byte;            /* activates per byte read (row locality)   */
    } dram_cal;
    mx_tiling_objective tiling_objective; /* memory.tiling: the mapper's objective        */
    const struct mx_energy_table_s *energy_tab; /* the loaded energy table (not owned), for
                                * the energy and EDP objectives; NULL otherwise              */
    int rqu_elements_per_cycle;
    int rqu_tile;              /* RQU output block: 1 the R x C fold tile, 0 R outputs of a column (rqu.block) */
    double clock_ghz;
    int train_requant;         /* 1: account second quantized copies in training  */
    /* functional mode */
    long long functional_max_macs; /* above this a GEMM is sampled (see mx_arch_func) */
    char energy_table[MX_ARCH_PATH_MAX]; /* path as written in the config file     */
} mx_arch_config;

/* Defaults of configs/mxsf.yaml (every key the YAML loader knows). */
void mx_arch_config_default(mx_arch_config *c);
/* Fills c->dram_cal from probes of c->dram (nothing when !c->dram_model).
 * Call after loading the DRAM config and after every override.  0 or -1. */
int mx_arch_dram_calibrate(mx_arch_config *c, char *err, size_t errlen);

/* Semantic checks beyond per-key ranges (lanes divide the K extent of a block,
 * formats exist, buffers hold one fold).  0, or -1 with a message naming the key. */
int mx_arch_config_check(const mx_arch_config *c, char *err, size_t errlen);

/* ---- operand formats ----------------------------------------------------- */
typedef struct {
    mx_format elem;
    int is_mx;            /* block-scaled (E8M0 scale per block or tile)      */
    int is_mxsf;
    int sig_bits;         /* significand width the multiplier sees (MXSF: 6)  */
    int fp5_sig_bits;     /* MXSF: significand of the FP5 mode (3)            */
    int exp_bits;         /* exponent width added per product                 */
    double bits_per_elem; /* storage incl. the share of the scale             */
} mx_operand_fmt;

/* Resolves a format name for the config (block/tile shape give the scale
 * share).  0, or -1 if unknown. */
int mx_operand_fmt_resolve(const mx_arch_config *c, const char *name, mx_operand_fmt *o);
/* The block spec that re-quantizes an M x N output in format fo (an MX
 * format) as the config stores it: 2-D tiles over (M, N) (format.tile) or
 * blocks of format.block along N, format.scale_rule, elements rounded per
 * enc (saturating).  One place for `run --dump` and the Python bridge. */
void mx_arch_out_block_spec(const mx_arch_config *c, const mx_operand_fmt *fo, mx_encode_opts enc,
                            mx_block_spec *spec);

/* ---- energy table (SPEC §5) ---------------------------------------------- */
#define MX_ENERGY_MAX_ENTRIES 128
#define MX_ENERGY_KEY_MAX 40
typedef struct {
    char key[MX_ENERGY_KEY_MAX];
    double pj;
    int line;
} mx_energy_entry;
typedef struct mx_energy_table_s {
    char path[MX_ARCH_PATH_MAX];
    int n;
    mx_energy_entry e[MX_ENERGY_MAX_ENTRIES];
} mx_energy_table;

/* Looks an entry up: 0 and *pj, or -1 if absent. */
int mx_energy_get(const mx_energy_table *t, const char *key, double *pj);

/* Energy components of the report. */
typedef enum {
    MX_E_MUL = 0,   /* significand multipliers (by mode pair)          */
    MX_E_ADDTREE,   /* exponent add, alignment shift, adder tree       */
    MX_E_ACCUM,     /* FP32 accumulate                                 */
    MX_E_SCALE,     /* E8M0 + E8M0 scale add                           */
    MX_E_SRAM_A, MX_E_SRAM_B, MX_E_SRAM_OUT,
    MX_E_DRAM,
    MX_E_RQU,
    MX_E_LEAKAGE,
    MX_E_NCOMP
} mx_energy_comp;
const char *mx_energy_comp_name(mx_energy_comp c);

/* ---- counters ------------------------------------------------------------ */
typedef struct {
    long long mt, nt, kt;        /* tile extents                          */
    int n_outer;                 /* loop order: 0 m,n,k; 1 n,m,k           */
    int double_buffer;           /* the mapping double buffers             */
} mx_tiling_shape;
#define MX_SIG_MAX 24
typedef enum {
    MX_STALL_DRAM = 0,  /* compute waits for a tile load, or for an output
                         * half its store's DRAM writes still hold          */
    MX_STALL_SRAM,      /* SRAM ports narrower than the array's demand     */
    MX_STALL_DRAIN,     /* last output tile's write after compute ends     */
    MX_STALL_RQU,       /* RQU slower than the array's output rate          */
    MX_NSTALL
} mx_stall_cause;
const char *mx_stall_name(mx_stall_cause s);

typedef struct {
    long long cycles;            /* total */
    long long compute_cycles;    /* array busy (incl. fill/drain of folds) */
    long long stall[MX_NSTALL];
    long long macs;              /* useful multiply-accumulates            */
    long long pe_steps;          /* (output, K-step) accumulations (FP32 adds)  */
    long long scale_adds;        /* E8M0 + E8M0 adds (= pe_steps for MX operands) */
    double exp_add_bits;         /* sum over products of the exponent-add width */
    long long folds, tiles;
    mx_tiling_shape map;         /* the mapping chosen for this GEMM (per row; not summed) */
    /* multiplies by significand widths: mul[wa][wb], wa >= wb             */
    double mul[MX_SIG_MAX + 1][MX_SIG_MAX + 1];
    long long sram_read[MX_NOPS], sram_write[MX_NOPS]; /* bytes */
    long long dram_read[MX_NOPS], dram_write[MX_NOPS]; /* bytes */
    long long rqu_elements;      /* all elements through the RQU           */
    /* protocol-level DRAM (memory.dram set): commands and energy measured by
     * the cycle engine or estimated by the analytic one */
    int dram_model;
    long long dram_act, dram_pre, dram_ref, dram_row_hits, dram_row_misses;
    double dram_energy_pj;
    long long requant_elements;  /* of which: second quantized copies (training, 1-D blocks) */
    long long requant_copies;    /* operands needing a second copy          */
    double energy_pj[MX_E_NCOMP];
    double energy_total_pj;
    /* functional mode */
    int functional;              /* values computed                         */
    int sampled;                 /* only part of the outputs computed       */
    long long checked_outputs;
    double qsnr_db, max_abs_err;
    double err_sq, ref_sq;       /* sums for QSNR aggregation               */
    int overflow;                /* a 64-bit counter overflowed in mx_stats_add: totals invalid */
} mx_stats;

/* Adds b (times `times`) into a; a counter leaving 64 bits sets a->overflow
 * (callers summing rows must check it: the totals are then wrong). */
void mx_stats_add(mx_stats *a, const mx_stats *b, long long times);

/* ---- fold cycle model ---------------------------------------------------- */
/* Cycles of one fold run alone: an r x c sub-array (r <= R, c <= C) and t
 * streaming steps (docs/ARCH.md):
 *   OS: t + (r-1) + (c-1) + (P-1)
 *   WS, IS: r (preload of the stationary operand) + the same
 * In SCALE-Sim mode r, c are the full R, C and P = 1. */
long long mx_fold_cycles(const mx_arch_config *c, int r, int cc, long long t);

/* Fold geometry of a (m x n x k) tile for the config's dataflow:
 *   sr, sc: extents mapped on array rows / cols, t: streaming steps. */
void mx_fold_geometry(const mx_arch_config *c, long long m, long long n, long long k,
                      long long *sr, long long *sc, long long *t);

/* The fold schedule (the one in the code base: the analytic and cycle
 * engines, the array register model's checks and the co-simulations read
 * it).  Folds of an (m x n x k) tile run col-fold outer, row-fold inner;
 * fold f covers geometry rows r0 .. r0+rows-1 and columns c0 .. c0+cols-1
 * (mx_fold_geometry; rows = R except the last of each column fold, cols = C
 * except in the last column fold) and streams from `start` to `end`
 * (docs/ARCH.md):
 *   no overlap: start_f = end_{f-1}, end_f = start_f + fold(r_f, c_f)
 *   OS:     start_0 = 0,   start_{f+1} = start_f + max(t, r_f),
 *           end_f = start_f + fold(r_f, c_f)
 *   WS, IS: start_0 = r_0 (first preload), start_{f+1} = start_f + max(t, r_{f+1}),
 *           end_f = start_f + fold(r_f, c_f) - r_f
 * O(1) per fold (closed form). */
typedef struct {
    long long index, r0, c0, start, end;
    int rows, cols;
} mx_fold;
long long mx_fold_count(const mx_arch_config *c, long long m, long long n, long long k);
void mx_fold_at(const mx_arch_config *c, long long m, long long n, long long k, long long f, mx_fold *out);

/* Compute cycles of a tile: the latest fold end of the fold schedule (not
 * the last fold's end: an earlier, wider fold can end later). */
long long mx_tile_compute_cycles(const mx_arch_config *c, long long m, long long n, long long k);

/* The mapper: tile shape and loop order of a GEMM on the buffers
 * (docs/ARCH.md "Mapper"): memory.tiling time = least traffic among the
 * candidates within 1% of the fastest (exact analytic cycles, branch and
 * bound); traffic = least DRAM operand traffic.  -1 if no tile fits. */
typedef struct {
    long long mt, nt, kt;   /* tile extents (last tiles may be smaller) */
    long long m_tiles, n_tiles, k_tiles;
    int n_outer;            /* loop order: 0 m, n, k; 1 n, m, k (k always inner) */
    int double_buffer;      /* 1: tiles fill half of each buffer, loads overlap compute */
    double dram_bytes;      /* operand reads this tiling implies (A + B)  */
} mx_tiling;
int mx_arch_tiling(const mx_arch_config *c, const mx_operand_fmt *fa, const mx_operand_fmt *fb,
                   long long M, long long N, long long K, mx_tiling *t, char *err, size_t errlen);

/* ---- one GEMM ------------------------------------------------------------ */
/* The largest M, N or K the accelerator model takes (2^48). */
#define MX_ARCH_DIM_MAX (1LL << 48)

/* Timing of one GEMM row (count ignored: stats are for ONE instance).  This
 * is the one cycle function both modes use; it runs c->engine
 * (mx_arch_gemm_analytic below, or mx_arch_gemm_cycle in arch/mx_cycle.h).  Counters except energy are
 * filled; returns 0, or -1 with a message (e.g. unknown per-row format). */
int mx_arch_gemm_timing(const mx_arch_config *c, const mx_gemm *g, mx_stats *s,
                        char *err, size_t errlen);

int mx_arch_gemm_analytic(const mx_arch_config *c, const mx_gemm *g, mx_stats *s,
                          char *err, size_t errlen);

/* Results of mx_arch_gemm_timing already computed, for a run of one trace:
 * a trace repeats GEMMs of one shape (BERT-base: the Q, K, V, attention
 * output and MLM transform projections, fwd and dgrad alike), and the
 * engines are pure functions of the configuration and the row's M, N, K,
 * phase (only with 1-D blocks and training copies on) and per-row formats
 * (name, line and count enter only messages and the overflow check).  Entries hold for the configuration of the first
 * call, compared whole (a byte copy) at every call: another one, or the
 * same one changed, empties the memo.  Tables it points to
 * (energy_tab) must not change meanwhile.  Zero-initialise; free with
 * mx_gemm_memo_free. */
typedef struct {
    mx_arch_config cfg;
    int have_cfg;
    struct mx_gemm_memo_entry {
        long long M, N, K;
        mx_phase phase;
        char a_format[MX_TRACE_FORMAT_MAX], b_format[MX_TRACE_FORMAT_MAX];
        mx_stats s;
    } *e;
    size_t n, cap;
} mx_gemm_memo;
void mx_gemm_memo_free(mx_gemm_memo *m);
/* mx_arch_gemm_timing through m (NULL: none); the same results and
 * errors. */
int mx_arch_gemm_timing_memo(const mx_arch_config *c, mx_gemm_memo *m, const mx_gemm *g, mx_stats *s,
                             char *err, size_t errlen);

/* The smallest buffer (KiB, each of A, B and output) the analytic engine's
 * validation covers: `mxsim validate` measures it as the default buffers
 * (docs/VALIDATION.md, "Smaller buffers": the table's GEMMs at 256 KiB no
 * further off than at the default buffers, max 12.1%; at 64 KiB max 19.8%,
 * at 16 KiB 39.6%).
 * Below it `mxsim run` and `mxsim sweep` print a note. */
#define MX_ANALYTIC_VALIDATED_KIB 256

/* 1 when c runs the analytic engine on a DRAM model with a buffer below
 * MX_ANALYTIC_VALIDATED_KIB (*min_kib: the smallest buffer). */
int mx_arch_analytic_outside_validation(const mx_arch_config *c, double *min_kib);

/* The analytic engine on a given mapping (tl from mx_arch_tiling or any
 * tiling that fits): what the mapper evaluates for each candidate. */
int mx_arch_gemm_mapped(const mx_arch_config *c, const mx_gemm *g, const mx_tiling *tl, mx_stats *s,
                        char *err, size_t errlen);

/* Pieces both engines share (mx_arch.c). */
long long mx_arch_tile_bytes(long long rows, long long cols, double bits);
long long mx_arch_train_copies(const mx_arch_config *c, const mx_gemm *g, const mx_operand_fmt *fa,
                               const mx_operand_fmt *fb, mx_stats *s);
long long mx_arch_tile_counts(const mx_arch_config *c, const mx_operand_fmt *fa,
                              const mx_operand_fmt *fb, const mx_operand_fmt *fo, long long m,
                              long long n, long long k, int readback, int last_k, mx_stats *s);
/* GEMM-level counters both engines fill alike (tiles, mapping, MACs, PE
 * steps, scale adds, exponent bits, RQU elements, multiplies by mode). */
void mx_arch_gemm_counts(const mx_arch_config *c, const mx_operand_fmt *fa, const mx_operand_fmt *fb,
                         const mx_gemm *g, const mx_tiling *tl, mx_stats *s);
/* Multiplies by significand widths (timing mode: MXSF by the configured mix). */
void mx_arch_count_muls(const mx_arch_config *c, const mx_operand_fmt *fa, const mx_operand_fmt *fb,
                        double macs, mx_stats *s);
/* The operand formats of a GEMM row (per-row overrides or the config's).
 * 0, or -1 with a message. */
int mx_arch_gemm_formats(const mx_arch_config *c, const mx_gemm *g, mx_operand_fmt *fa,
                         mx_operand_fmt *fb, mx_operand_fmt *fo, char *err, size_t errlen);

/* Fills s->energy_pj and energy_total_pj from the counters.  Returns 0, or -1
 * with "TABLE: missing entry 'KEY' (component ...)" in err. */
int mx_energy_apply(const mx_arch_config *c, const mx_energy_table *t, mx_stats *s,
                    char *err, size_t errlen);

/* ---- functional mode ----------------------------------------------------- */
typedef struct {
    uint64_t seed;          /* random operand data (Gaussian, per GEMM)       */
    const float *a, *b;     /* optional operand data (row-major M x K, K x N) */
} mx_func_data;

/* Timing (same cycles) plus values: quantizes A and B, computes every output
 * (or a sample when M*N*K > c->functional_max_macs) with mx_pe_dot tile by
 * tile, counts MXSF mode pairs from the codes and compares to an FP64
 * reference of the unquantized operands.  out (M*N FP32 bits) may be NULL.
 * Returns 0; 1 when the PE cannot take the row's A/B format pair (BF16 with
 * another format, block-scaled with unit-scaled, two MXSF FP5 biases, a
 * format with no PE decode: timing counters filled, no values, the reason in
 * err); -1 with a message. */
int mx_arch_gemm_functional(const mx_arch_config *c, const mx_gemm *g, const mx_func_data *d,
                            mx_stats *s, uint32_t *out, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
