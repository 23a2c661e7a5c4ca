/*
 * mx_cycle.h — the cycle engine (SPEC §4.2, `mxsim run --engine cycle`):
 * steps one GEMM on the accelerator by exact events.
 *
 *   tile loop ──> DMA (mx_dma: tile -> burst addresses) ──> DRAM (mx_dram
 *   protocol model, or the bandwidth + latency channel) ──> buffer half
 *   ready ──> folds (mx_tile_compute_cycles + SRAM bank-conflict stalls,
 *   mx_sram) ──> RQU (elements per cycle) ──> DMA store ──> DRAM
 *
 * Double buffering: tile t loads into half t%2 once tile t-2 has computed;
 * output tile j accumulates in output half j%2 once output tile j-2 has
 * been handed to the DRAM controller.  Stalls are measured by cause:
 * dram (compute waits for a load, or for an output half held by DRAM
 * writes), sram (bank conflicts), rqu (an output half held by the RQU),
 * drain (after the last compute: RQU and write-back of the last tile).
 * Decisions: docs/ARCH.md "Cycle engine".
 */
#ifndef MX_CYCLE_H
#define MX_CYCLE_H

#include "arch/mx_arch.h"
#include "mem/mx_chan.h" /* MX_CHAN_*: the bandwidth + latency channel the engines share */

#ifdef __cplusplus
extern "C" {
#endif

/* One GEMM row whose array time alone exceeds this many cycles is refused
 * (about 45 minutes of simulation at 4e7 cycles/s). */
#define MX_CYCLE_MAX_CYCLES 1e11


/* Same contract as mx_arch_gemm_timing (counters of one instance, energy
 * not applied).  0, or -1 with a message. */
int mx_arch_gemm_cycle(const mx_arch_config *c, const mx_gemm *g, mx_stats *s, char *err,
                       size_t errlen);

/* Per-tile record for co-simulation and tests (optional): filled for the
 * first `cap` tiles when non-NULL. */
typedef struct {
    long long m, n, k;                 /* tile extents                   */
    long long load_ready, start, end;  /* accelerator cycles             */
    long long sram_stall;              /* of end - start                 */
    long long rqu_end;                 /* last K tile: the RQU has the codes; else -1 */
} mx_cycle_tile;
int mx_arch_gemm_cycle_tiles(const mx_arch_config *c, const mx_gemm *g, mx_stats *s,
                             mx_cycle_tile *tiles, long long cap, char *err, size_t errlen);
/* The same run with the engine woken at every event of the DRAM model
 * (each command, each completion) instead of only where it can act
 * (mx_dram_run_until_wake): slow, and the reference the tests hold the fast
 * stepping to.  Results are identical by construction (docs/ARCH.md). */
int mx_arch_gemm_cycle_every_event(const mx_arch_config *c, const mx_gemm *g, mx_stats *s,
                                   mx_cycle_tile *tiles, long long cap, char *err, size_t errlen);

/* Start-to-done cycles of one m x n x k tile on the array controller
 * (rtl/mx_array_ctrl.sv, start_i to done_o) with the re-quantizer on its
 * drain path, no SRAM stalls: lead 2 (descriptor latch, synchronous SRAM
 * read), the folds, and each PE result through its column FIFO to the
 * collector (rqu.block: column or tile).  Output stationary with fold
 * overlap only; -1 otherwise (or out of memory).  The engine uses it when
 * the RQU keeps up with the drain; the array co-simulation checks the RTL
 * against it. */
long long mx_cycle_tile_done(const mx_arch_config *c, long long m, long long n, long long k);

/* Bank-conflict stall cycles of all folds of an m x n x k tile (mx_sram
 * model; the analytic engine charges the same); -1 on allocation failure. */
long long mx_cycle_tile_sram_stall(const mx_arch_config *c, const mx_operand_fmt *fa,
                                   const mx_operand_fmt *fb, long long m, long long n, long long k);

/* One tile transfer run alone on a fresh DRAM (c->dram_model): the loads of
 * the A and/or B tile rows [r0, r0+m) / [n0, n0+n) x K [k0, k0+k), or the
 * store of the output tile, as the cycle engine's DMA moves them.  The
 * analytic engine times and charges its transfers with these (one probe per
 * distinct tile shape of a GEMM).  0, or -1 without a DRAM model. */
enum { MX_PROBE_A = 1, MX_PROBE_B = 2, MX_PROBE_STORE = 4 };
typedef struct {
    long long bursts;
    long long cycles;   /* accelerator cycles from the first request to the last data */
    double cmd_pj;      /* ACT + PRE + RD/WR energy                                  */
    long long act;
    uint64_t ranks;     /* ranks touched: bit channel * ranks + rank (mod 64)          */
    long long end_clock; /* DRAM clock of the last completion (probe alone)            */
    long long ch_bursts; /* the most bursts one channel receives (mx_cycle_probe_tile)      */
    uint64_t sig;        /* mx_cycle_xfer_sig of the transfer (set by the analytic engine)  */
    long long first;    /* mx_cycle_probe_pair out[1]: cycles to the second's first completion */
    long long accept;   /* mx_cycle_probe_tile: cycles to the last request's acceptance (a store frees its half then) */
    long long cycles_noref; /* mx_cycle_probe_tile: `cycles` with refresh off when a REF fell due in the probe, else 0 */
} mx_tile_probe;
/* Bursts the DMA moves for that transfer (what: MX_PROBE_A and/or _B, or
 * _STORE), with the channel's burst (the DRAM model's, or 64 bytes). */
long long mx_cycle_tile_bursts(const mx_arch_config *c, const mx_operand_fmt *fa, const mx_operand_fmt *fb,
                               const mx_operand_fmt *fo, long long M, long long N, long long K, long long r0,
                               long long m, long long n0, long long n, long long k0, long long k, int what);
/* The sum of mx_cycle_tile_bursts over every tile of the GEMM's tiling for
 * one operand (what: MX_PROBE_A, _B or _STORE), each tile once; -1 when it
 * leaves 64 bits.  Time bounded by the burst and scale-block periods, not
 * by the tile count (mx_dma_grid_bursts). */
long long mx_cycle_grid_bursts(const mx_arch_config *c, const mx_operand_fmt *fa, const mx_operand_fmt *fb,
                               const mx_operand_fmt *fo, long long M, long long N, long long K, const mx_tiling *tl,
                               int what);
int mx_cycle_probe_tile(const mx_arch_config *c, const mx_operand_fmt *fa, const mx_operand_fmt *fb,
                        const mx_operand_fmt *fo, long long M, long long N, long long K,
                        long long r0, long long m, long long n0, long long n, long long k0, long long k,
                        int what, mx_tile_probe *out);

/* Two tile transfers issued back to back on a fresh DRAM (the second from
 * DRAM clock second_at on; -1: at once, or one clock later when one is a
 * load and the other a store, so the writes have begun draining): the controller serves row hits of either first (FR-FCFS), so
 * the first one's data may be in after some of the second's.  The analytic
 * engine times the first two loads of a double-buffered GEMM (tile 1 waits
 * for nothing, so the DMA issues it right behind tile 0) and a store queued
 * right behind another with these.  out[0].cycles: the first transfer all
 * done; out[1].cycles: both; the energy and ACTs of both in out[1].  0, or
 * -1 without a DRAM model. */
typedef struct {
    long long r0, m, n0, n, k0, k;
    int what;
    long long skip, limit; /* mx_cycle_probe_seq: the first `skip` bursts left out, at most
                              `limit` issued (0: all) */
} mx_probe_xfer;
int mx_cycle_probe_pair(const mx_arch_config *c, const mx_operand_fmt *fa, const mx_operand_fmt *fb,
                        const mx_operand_fmt *fo, long long M, long long N, long long K,
                        const mx_probe_xfer x[2], long long second_at, mx_tile_probe out[2]);
/* The ranks one transfer's bursts touch (mx_tile_probe.ranks' bits),
 * without running the DRAM model. */
uint64_t mx_cycle_xfer_ranks(const mx_arch_config *c, const mx_operand_fmt *fa, const mx_operand_fmt *fb,
                             const mx_operand_fmt *fo, long long M, long long N, long long K, const mx_probe_xfer *x);

/* The channels (bit channel mod 64) that receive at least min(min_bursts,
 * the most any one channel receives) of a transfer's bursts: with 1, every
 * channel it touches; with the write queue's room, the channels a store
 * fills (where its DMA waits for a drain). */
uint64_t mx_cycle_xfer_channels(const mx_arch_config *c, const mx_operand_fmt *fa, const mx_operand_fmt *fb,
                                const mx_operand_fmt *fo, long long M, long long N, long long K, const mx_probe_xfer *x,
                                long long min_bursts);

/* 1 when every burst of b goes to a bank where a[0..na)'s last burst there
 * left another row open, and a left no other bank open: b's writes all wait
 * for a PRE of a's rows (a row conflict); else 0 (also without a DRAM model). */
int mx_cycle_xfer_row_conflict(const mx_arch_config *c, const mx_operand_fmt *fa, const mx_operand_fmt *fb,
                               const mx_operand_fmt *fo, long long M, long long N, long long K,
                               const mx_probe_xfer *a, int na, const mx_probe_xfer *b);

/* A hash of what decides a transfer's timing alone on a fresh DRAM: each
 * burst's bank and its row relative to that bank's first row. */
uint64_t mx_cycle_xfer_sig(const mx_arch_config *c, const mx_operand_fmt *fa, const mx_operand_fmt *fb,
                           const mx_operand_fmt *fo, long long M, long long N, long long K, const mx_probe_xfer *x);

/* As mx_cycle_probe_pair with n = 2; with n = 3 the first two are issued
 * together (as the pair) and the third from second_at on: out[0] is the
 * first group, out[1] the third and the totals.  end_clock: the DRAM clock
 * of each's last completion.  n = 1: one transfer alone, all in out[1]. */
int mx_cycle_probe_seq(const mx_arch_config *c, const mx_operand_fmt *fa, const mx_operand_fmt *fb,
                       const mx_operand_fmt *fo, long long M, long long N, long long K, const mx_probe_xfer *x,
                       int n, long long second_at, mx_tile_probe out[2]);

/* Transfers x[0..n) run one after another on one fresh DRAM, each issued
 * when the previous one's data is all in, or (join[i]) right behind it, so
 * the controller serves both together: rows one leaves open serve the next
 * one's row hits.  *cmd_pj: the ACT, PRE, RD and WR energy of all;
 * *act, *rd, *wr: their commands; *closed: the DRAM clocks the ranks they
 * touch spent with every bank closed after their first access (a PRE that
 * closes the last open row, until the next ACT), summed over the ranks.
 * 0, or -1 without a DRAM model or on a model error. */
int mx_cycle_probe_chain(const mx_arch_config *c, const mx_operand_fmt *fa, const mx_operand_fmt *fb,
                         const mx_operand_fmt *fo, long long M, long long N, long long K, const mx_probe_xfer *x,
                         const int *join, int n, double *cmd_pj, long long *act, long long *rd, long long *wr,
                         double *closed);

/* Transfers x[0..n) on one fresh DRAM, transfer i offered from DRAM clock
 * at[i] on as the cycle engine's DMA offers it (loads in index order, stores
 * likewise, the two side by side): end[i], the DRAM clock of its last
 * completion; accept[i] (unless NULL), the DRAM clock its last burst entered
 * the controller (a store's output half is free then).  Without a DRAM model,
 * on the bandwidth channel (mx_chan, its clock the accelerator's).  0, or -1
 * on a model error. */
/* the walk's bound on a replay outside replay_all (any n is taken) */
#define MX_PROBE_TIMED_MAX 72
int mx_cycle_probe_timed(const mx_arch_config *c, const mx_operand_fmt *fa, const mx_operand_fmt *fb,
                         const mx_operand_fmt *fo, long long M, long long N, long long K, const mx_probe_xfer *x,
                         const long long *at, int n, long long *end, long long *accept);

/* mx_cycle_probe_timed carried along: a base replay of the transfers known
 * so far, run up to a DRAM clock before which no later transfer is offered,
 * so a query runs only what comes after it, on a copy (mx_dram_clone).  The
 * caller keeps the pointers in mx_probe_replay_in alive. */
typedef struct {
    const mx_arch_config *c;
    const mx_operand_fmt *fa, *fb, *fo;
    long long M, N, K;
} mx_probe_replay_in;
typedef struct mx_probe_replay mx_probe_replay;
mx_probe_replay *mx_probe_replay_new(const mx_probe_replay_in *in);
void mx_probe_replay_free(mx_probe_replay *r);
/* Transfers the base has (a prefix of every later call's x) and its clock. */
int mx_probe_replay_known(const mx_probe_replay *r);
uint64_t mx_probe_replay_now(const mx_probe_replay *r);
/* 1 if the base is the from-scratch replay's state for x[0..n) offered at
 * at[]: n >= known and each of x[known..n) offered at or after its clock.
 * Else _advance rebuilds it from nothing and _query runs from nothing (the
 * walk's replays never do: replay_incr in mx_arch.c). */
int mx_probe_replay_fits(const mx_probe_replay *r, const long long *at, int n);
/* The base takes x[0..n) (x[0..known) as given before) and runs until DRAM
 * clock `until`: the caller's bound, every transfer after x[n-1] offered at
 * or after it (else the base is not the from-scratch replay's, and a later
 * call rebuilds it).  0 or -1. */
int mx_probe_replay_advance(mx_probe_replay *r, const mx_probe_xfer *x, const long long *at, int n, uint64_t until);
/* mx_probe_replay_advance, stopping also once transfer `want` (< n) is
 * over: 1 and *end its last completion (DRAM clock), or 0 (stopped at
 * `until` first), or -1.  x[want] must be the transfer every later call
 * has there (the caller's next one, offered as given). */
int mx_probe_replay_advance_want(mx_probe_replay *r, const mx_probe_xfer *x, const long long *at, int n,
                                 uint64_t until, int want, long long *end);
/* As mx_cycle_probe_timed on x[0..n) (x[0..known) the base's), from a copy of
 * the base (from nothing where it does not fit x): end[] and accept[] as
 * there, final for transfer `want` (its accept with want_acc; want -1: for
 * all, run to the end).  0 or -1. */
int mx_probe_replay_query(const mx_probe_replay *r, const mx_probe_xfer *x, const long long *at, int n, long long *end,
                          long long *accept, int want, int want_acc);
/* As mx_probe_replay_query, the copy handed back in *keep as a replay that
 * knows x[0..n) (NULL where the query ran from nothing or on the bandwidth
 * channel; the caller frees it): where x[0..n) are the caller's next
 * transfers as given, it is a base further on than r (its checks as any
 * base's: mx_probe_replay_fits).  0 or -1. */
int mx_probe_replay_query_keep(const mx_probe_replay *r, const mx_probe_xfer *x, const long long *at, int n,
                               long long *end, long long *accept, int want, int want_acc, mx_probe_replay **keep);
/* A kept copy (mx_probe_replay_query_keep) whose last known transfer i, a
 * load, the caller records at index i + by instead, the `by` stores put
 * before it offered at or after the copy's clock (the caller checks): as
 * if it had run on those.  0 or -1. */
int mx_probe_replay_shift(mx_probe_replay *r, int i, int by);
/* As mx_probe_replay_query with want -1 (run to the end), handing back the
 * copy's DRAM model in *fin (the caller frees it: mx_dram_free), whose
 * commands and energy are the replay's.  0, or -1 (then *fin NULL); -1
 * also on the bandwidth channel. */
int mx_probe_replay_query_model(const mx_probe_replay *r, const mx_probe_xfer *x, const long long *at, int n,
                                long long *end, long long *accept, struct mx_dram **fin);

#ifdef __cplusplus
}
#endif
#endif
