/*
 * mx_dram_probe.h — one access pattern run alone on the DRAM model
 * (mx_dram.h), from an idle, freshly reset device: how long it takes and
 * what it costs.  The analytic engine calibrates its closed forms with a few
 * probes per configuration (docs/ARCH.md "Analytic engine").
 *
 *   pattern: `segments` runs of `seg_bytes` contiguous bytes, run i starting
 *            at base + i * stride (a tile of a row-major matrix: rows of the
 *            tile are the segments, the matrix row pitch the stride)
 */
#ifndef MX_DRAM_PROBE_H
#define MX_DRAM_PROBE_H

#include "mem/mx_dram.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    uint64_t base, stride, seg_bytes, segments;
    int is_write;
} mx_dram_pattern;

typedef struct {
    uint64_t bursts;      /* requests issued                              */
    uint64_t end_clock;   /* DRAM clock the last request completed        */
    mx_dram_stats stats;  /* commands, row hits, energy (incl. background) */
} mx_dram_probe;

/* 0, or -1 with err set (bad config). */
int mx_dram_probe_run(const mx_dram_config *c, const mx_dram_pattern *p, mx_dram_probe *out,
                      char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
