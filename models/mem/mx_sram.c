/*
 * mx_sram.c — bank-conflict stalls of the array's skewed operand streams
 * (model in mx_sram.h).
 */
#include "mem/mx_sram.h"

#include <stdlib.h>

#define MX_SRAM_MAX_BANKS 1024
#define WORD_CACHE 4096 /* recent word reads remembered per group (direct mapped) */

static long long floor_div(long long a, long long b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

long long mx_sram_fold_stall(const mx_sram_streams *g, int n)
{
    long long stall = 0, lead[2], span = 0, total_streams = 0;
    for (int k = 0; k < n; k++) {
        long long bpc = g[k].bytes_per_cycle;
        lead[k] = g[k].pitch_s == g[k].bytes && g[k].bytes < bpc ? bpc / g[k].bytes : 1;
        long long e = g[k].steps + g[k].streams;
        if (e > span) span = e;
        total_streams += g[k].streams;
    }
    long long *last = malloc((size_t)(total_streams > 0 ? total_streams : 1) * sizeof *last);
    long long *bank_free = malloc(((size_t)2 * MX_SRAM_MAX_BANKS + 4 * WORD_CACHE) * sizeof *bank_free);
    if (!last || !bank_free) { free(last); free(bank_free); return -1; }
    long long *lw = bank_free + 2 * MX_SRAM_MAX_BANKS, *lx = lw + 2 * WORD_CACHE; /* recent reads: word, cycle */
    for (long long i = 0; i < 2 * WORD_CACHE; i++) { lw[i] = -1; lx[i] = 0; }
    for (long long i = 0; i < total_streams; i++) last[i] = -1;
    for (long long i = 0; i < 2 * MX_SRAM_MAX_BANKS; i++) bank_free[i] = -(1LL << 40); /* idle since ever */
    long long max_lead = n > 1 && lead[1] > lead[0] ? lead[1] : lead[0];
    /* rc: request cycle in stall-free time; accesses used at rc + lead */
    for (long long rc = -max_lead; rc < span; rc++) {
        long long off = 0;
        for (int k = 0; k < n; k++, off += g[k - 1].streams) {
            const mx_sram_streams *s = &g[k];
            long long use = rc + lead[k];
            long long i_lo = use - (s->steps - 1), i_hi = use; /* streams with 0 <= use - i < steps */
            if (i_lo < 0) i_lo = 0;
            if (i_hi > s->streams - 1) i_hi = s->streams - 1;
            long long bpc = s->bytes_per_cycle, banks = s->banks > MX_SRAM_MAX_BANKS ? MX_SRAM_MAX_BANKS : s->banks;
            long long *bf = bank_free + k * MX_SRAM_MAX_BANKS;
            for (long long i = i_lo; i <= i_hi; i++) {
                long long step = use - i;
                long long a = s->base + i * s->pitch_i + step * s->pitch_s;
                long long w0 = floor_div(a, bpc), w1 = floor_div(a + s->bytes - 1, bpc);
                for (long long w = w0; w <= w1; w++) {
                    if (w <= last[off + i]) continue;
                    last[off + i] = w;
                    long long bank = ((w % banks) + banks) % banks;
                    long long t_req = rc + stall;
                    long long x;
                    /* a word read within the skew window is still in the
                     * skew registers: that read feeds this stream too */
                    long long slot = k * WORD_CACHE + (w & (WORD_CACHE - 1));
                    if (lw[slot] == w && lx[slot] >= t_req - s->streams - lead[k] - 1) {
                        x = lx[slot];
                    } else {
                        x = bf[bank] > t_req ? bf[bank] : t_req;
                        bf[bank] = x + 1;
                        lw[slot] = w;
                        lx[slot] = x;
                    }
                    long long need = use + stall;
                    if (x + 1 > need) stall += x + 1 - need;
                }
            }
        }
    }
    free(last);
    free(bank_free);
    return stall;
}
