/*
 * mx_dram_probe.c — runs one access pattern alone on the DRAM model and
 * measures it (see mx_dram_probe.h).  The analytic engine summarises a DRAM
 * preset by a few such probes, once per configuration.
 */
#include "mem/mx_dram_probe.h"

#include <string.h>

int mx_dram_probe_run(const mx_dram_config *c, const mx_dram_pattern *p, mx_dram_probe *out,
                      char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    mx_dram *d = mx_dram_new(c, err, errlen);
    if (!d) return -1;
    const uint64_t burst = (uint64_t)mx_dram_burst_bytes(c);
    uint64_t seg = 0, off = 0, id = 0, done = 0, last = 0;
    /* requests in address order, as fast as the queues take them (a DMA
     * engine with unbounded issue rate); every burst touched counts once */
    for (;;) {
        while (seg < p->segments) {
            uint64_t addr = p->base + seg * p->stride + off;
            addr -= addr % burst;
            if (!mx_dram_can_accept(d, addr, p->is_write)) break;
            mx_dram_add(d, addr, p->is_write, id++);
            uint64_t end = p->base + seg * p->stride + p->seg_bytes; /* exclusive */
            uint64_t next = addr + burst;
            if (next >= end) { seg++; off = 0; }
            else off = next - (p->base + seg * p->stride);
        }
        mx_dram_done r;
        while (mx_dram_pop_done(d, &r)) {
            done++;
            if (r.done > last) last = r.done;
        }
        if (seg >= p->segments && done == id) break;
        uint64_t nx = mx_dram_next_event(d);
        if (seg < p->segments) mx_dram_tick(d); /* a queue may free up any clock */
        else if (nx != UINT64_MAX) mx_dram_run_until(d, nx);
        else { mx_dram_tick(d); }
    }
    mx_dram_get_stats(d, &out->stats);
    out->bursts = id;
    out->end_clock = last;
    mx_dram_free(d);
    return 0;
}
