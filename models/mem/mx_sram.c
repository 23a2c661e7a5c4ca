/*
 * mx_sram.c — bank-conflict stalls of the array's skewed operand streams
 * (model in mx_sram.h).
 */
#include "mem/mx_sram.h"

#include <stdlib.h>

#define MX_SRAM_MAX_BANKS 1024 /* memory.sram_*.banks is 1..1024 */
#define WORD_CACHE 4096        /* recent word reads remembered per group (direct mapped) */

/* Per stream group: when each bank's port is next free, and the recent word
 * reads (word, cycle) that are still in the skew registers. */
typedef struct {
    long long bank_free[MX_SRAM_MAX_BANKS];
    long long word[WORD_CACHE], read_at[WORD_CACHE];
} port_state;

long long mx_sram_fold_stall(const mx_sram_streams *g, int n)
{
    long long stall = 0, lead[2] = {1, 1}, off[2] = {0, 0}, span = 0, total_streams = 0;
    for (int k = 0; k < n; k++) {
        long long bpc = g[k].bytes_per_cycle;
        lead[k] = g[k].pitch_s == g[k].bytes && g[k].bytes < bpc ? bpc / g[k].bytes : 1;
        if (g[k].steps + g[k].streams > span) span = g[k].steps + g[k].streams;
        off[k] = total_streams; /* the group's streams in last[] */
        total_streams += g[k].streams;
    }
    long long *last = malloc((size_t)(total_streams > 0 ? total_streams : 1) * sizeof *last);
    port_state *ps = malloc((size_t)n * sizeof *ps);
    if (!last || !ps) { free(last); free(ps); return -1; }
    for (long long i = 0; i < total_streams; i++) last[i] = -1; /* word each stream holds */
    for (int k = 0; k < n; k++) {
        for (int b = 0; b < MX_SRAM_MAX_BANKS; b++) ps[k].bank_free[b] = -(1LL << 40); /* idle since ever */
        for (int w = 0; w < WORD_CACHE; w++) { ps[k].word[w] = -1; ps[k].read_at[w] = 0; }
    }
    long long max_lead = n > 1 && lead[1] > lead[0] ? lead[1] : lead[0];
    /* rc: request cycle in stall-free time; accesses used at rc + lead.
     * Addresses are never negative, so plain division gives words and banks. */
    for (long long rc = -max_lead; rc < span; rc++) {
        for (int k = 0; k < n; k++) {
            const mx_sram_streams *s = &g[k];
            port_state *p = &ps[k];
            long long use = rc + lead[k];
            long long i_lo = use - (s->steps - 1), i_hi = use; /* streams with 0 <= use - i < steps */
            if (i_lo < 0) i_lo = 0;
            if (i_hi > s->streams - 1) i_hi = s->streams - 1;
            long long bpc = s->bytes_per_cycle, banks = s->banks;
            for (long long i = i_lo; i <= i_hi; i++) {
                long long a = s->base + i * s->pitch_i + (use - i) * s->pitch_s;
                for (long long w = a / bpc; w <= (a + s->bytes - 1) / bpc; w++) {
                    if (w <= last[off[k] + i]) continue;
                    last[off[k] + i] = w;
                    long long t_req = rc + stall, x;
                    /* a word read within the skew window is still in the
                     * skew registers: that read feeds this stream too */
                    long long slot = w & (WORD_CACHE - 1);
                    if (p->word[slot] == w && p->read_at[slot] >= t_req - s->streams - lead[k] - 1) {
                        x = p->read_at[slot];
                    } else {
                        long long *bf = &p->bank_free[w % banks];
                        x = *bf > t_req ? *bf : t_req;
                        *bf = x + 1;
                        p->word[slot] = w;
                        p->read_at[slot] = x;
                    }
                    long long need = use + stall;
                    if (x + 1 > need) stall += x + 1 - need;
                }
            }
        }
    }
    free(last);
    free(ps);
    return stall;
}
