/*
 * mx_dram_probe.c — runs one transfer alone on the DRAM model and measures
 * it (see mx_dram_probe.h).
 */
#include "mem/mx_dram_probe.h"

#include "util/mx_util.h"

#include <stdio.h>
#include <string.h>

int mx_dram_probe_run(const mx_dram_config *c, mx_dram_next_addr next, void *src, int is_write,
                      mx_dram_probe *out, char *err, size_t errlen)
{
    return mx_dram_probe_run_split(c, next, src, is_write, 0, is_write, 0, out, err, errlen);
}

int mx_dram_probe_run_split(const mx_dram_config *c, mx_dram_next_addr next, void *src, int is_write,
                            uint64_t split, int second_is_write, uint64_t second_at, mx_dram_probe *out,
                            char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    mx_dram *d = mx_dram_new(c, err, errlen);
    if (!d) return -1;
    uint64_t issued = 0, done = 0, last = 0, addr;
    long long idle = 0; /* waits in a row with nothing accepted or completed */
    int have = next(src, &addr);
    for (;;) {
        const uint64_t before = issued + done;
        for (;;) {
            const int second = split > 0 && issued >= split, wr = second ? second_is_write : is_write;
            /* requests as the accelerator's DMA issues them: writes only
             * below the drain watermark (mx_dram_dma_add), so a store whose
             * channel share exceeds it waits on that channel's drain */
            if (!have || (second && mx_dram_now(d) < second_at) || mx_dram_dma_add(d, addr, wr, issued) != 0) break;
            issued++;
            out->accept_clock = mx_dram_now(d);
            have = next(src, &addr);
        }
        mx_dram_done r;
        while (mx_dram_pop_done(d, &r)) {
            done++;
            if (r.done > last) last = r.done;
            if (r.id < split && r.done > out->split_end) out->split_end = r.done;
            if (r.id >= split && (out->second_first == 0 || r.done < out->second_first)) out->second_first = r.done;
        }
        if (!have && done == issued) break;
        idle = issued + done == before ? idle + 1 : 0;
        /* a queue slot frees only when the model acts: skip to its next event */
        uint64_t nx = mx_dram_next_event(d);
        if (have && issued >= split && split > 0 && mx_dram_now(d) < second_at && second_at < nx) nx = second_at;
        /* requests outstanding and time stuck, or moving on refresh alone
         * (the cycle engine's bound, MX_CYCLE_IDLE_EVENTS_MAX): a model bug */
        if (nx == UINT64_MAX || nx <= mx_dram_now(d) || idle > 1000000) {
            mx_fail(err, errlen, "DRAM probe: %llu of %llu requests done at clock %llu and no progress "
                     "(internal error)", (unsigned long long)done, (unsigned long long)issued,
                     (unsigned long long)mx_dram_now(d));
            mx_dram_free(d);
            return -1;
        }
        mx_dram_run_until(d, nx);
    }
    mx_dram_get_stats(d, &out->stats);
    out->bursts = issued;
    out->end_clock = last;
    mx_dram_free(d);
    return 0;
}
