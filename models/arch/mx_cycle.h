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

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif
#endif
