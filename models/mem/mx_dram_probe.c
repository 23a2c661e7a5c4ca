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
    int have = next(src, &addr);
    for (;;) {
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
        for (const mx_dram_done *r; (r = mx_dram_take_done(d)) != NULL;) { /* order-free: counts, maxima, minima */
            done++;
            if (r->done > last) last = r->done;
            if (r->id < split && r->done > out->split_end) out->split_end = r->done;
            if (r->id >= split && (out->second_first == 0 || r->done < out->second_first)) out->second_first = r->done;
        }
        if (!have && done == issued) break;
        /* Nothing changes the DMA's answer or the result before: the second
         * transfer's start, a queue change (the DMA was refused), or, all
         * issued, the last completion.  At the events between, the loop
         * would only pop completions (maxima and minima: order-free). */
        const int wait_second = have && split > 0 && issued >= split && mx_dram_now(d) < second_at;
        if (mx_dram_run_until_wake(d, wait_second ? second_at : UINT64_MAX, have ? 0 : (size_t)(issued - done),
                                   have && !wait_second, NULL, NULL) != 0) {
            mx_fail(err, errlen, "DRAM probe: %llu of %llu requests done at clock %llu and no progress "
                     "(internal error)", (unsigned long long)done, (unsigned long long)issued,
                     (unsigned long long)mx_dram_now(d));
            mx_dram_free(d);
            return -1;
        }
    }
    mx_dram_get_stats(d, &out->stats);
    out->bursts = issued;
    out->end_clock = last;
    mx_dram_free(d);
    return 0;
}
