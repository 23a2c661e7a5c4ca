/*
 * mx_dram_probe.h — one transfer run alone on the DRAM model (mx_dram.h),
 * from an idle, freshly reset device: how long it takes and what it costs.
 * The analytic engine calibrates itself with a few probes per configuration
 * and times each distinct tile transfer of a GEMM with one (docs/ARCH.md
 * "Analytic engine").
 *
 * The transfer is a sequence of burst addresses from `next` (e.g. an
 * mx_dma_stream); requests are issued in order as fast as the controller's
 * queue takes them, as a DMA engine with unbounded issue rate would.
 */
#ifndef MX_DRAM_PROBE_H
#define MX_DRAM_PROBE_H

#include "mem/mx_dram.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The transfer's next burst address: 1 and *addr, or 0 at its end. */
typedef int (*mx_dram_next_addr)(void *src, uint64_t *addr);

typedef struct {
    uint64_t bursts;      /* requests issued                              */
    uint64_t end_clock;   /* DRAM clock the last request completed        */
    uint64_t accept_clock; /* DRAM clock the last request was accepted     */
    uint64_t split_end;   /* _split: DRAM clock the last of the first `split`
                             requests completed                            */
    uint64_t second_first; /* _split: the first of the others completed    */
    mx_dram_stats stats;  /* commands, row hits, energy (incl. background) */
} mx_dram_probe;

/* 0, or -1 with err set (bad config; or requests outstanding and no later
 * event, a model bug, reported rather than spun on or truncated). */
int mx_dram_probe_run(const mx_dram_config *c, mx_dram_next_addr next, void *src, int is_write,
                      mx_dram_probe *out, char *err, size_t errlen);
/* The same for two transfers as one sequence: the first `split` requests
 * (is_write), then the rest (second_is_write), added from DRAM clock
 * second_at on, so the controller may reorder across them (row hits
 * first) or, for a read behind writes, finds the writes already draining.
 * out->split_end says when the first transfer's data was all in. */
int mx_dram_probe_run_split(const mx_dram_config *c, mx_dram_next_addr next, void *src, int is_write,
                            uint64_t split, int second_is_write, uint64_t second_at, mx_dram_probe *out,
                            char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
