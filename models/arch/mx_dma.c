/*
 * mx_dma.c — tile transfers as burst address streams (layout in mx_dma.h).
 */
#include "arch/mx_dma.h"
#include "util/mx_util.h"

#include <math.h>
#include <string.h>

void mx_dma_stream_init(mx_dma_stream *s, uint64_t burst)
{
    memset(s, 0, sizeof *s);
    s->burst = burst;
}

void mx_dma_stream_add_segments(mx_dma_stream *s, uint64_t base, uint64_t stride, uint64_t len, uint64_t count)
{
    if (len == 0 || count == 0 || s->nseg == MX_DMA_MAX_SEGS) return;
    mx_dma_seg *g = &s->seg[s->nseg++];
    g->base = base;
    g->stride = stride;
    g->len = len;
    g->count = count;
    if (s->nseg == 1) {
        s->g = 0;
        s->j = 0;
        s->next = base - base % s->burst;
        s->end = base + len;
    }
}

void mx_dma_stream_add_tile(mx_dma_stream *s, const mx_dma_matrix *m, long long r0, long long nr,
                            long long c0, long long nc)
{
    if (nr <= 0 || nc <= 0) return;
    uint64_t b0 = (uint64_t)floor((double)c0 * m->bits / 8.0);
    uint64_t b1 = (uint64_t)ceil((double)(c0 + nc) * m->bits / 8.0);
    mx_dma_stream_add_segments(s, m->base + (uint64_t)r0 * m->row_bytes + b0, m->row_bytes, b1 - b0, (uint64_t)nr);
    if (m->has_scales) {
        long long sr0 = r0 / m->scale_rows_per, sr1 = (r0 + nr - 1) / m->scale_rows_per;
        long long sc0 = c0 / m->scale_cols_per, sc1 = (c0 + nc - 1) / m->scale_cols_per;
        mx_dma_stream_add_segments(s, m->scale_base + (uint64_t)sr0 * m->scale_row_bytes + (uint64_t)sc0,
                m->scale_row_bytes, (uint64_t)(sc1 - sc0 + 1), (uint64_t)(sr1 - sr0 + 1));
    }
}

void mx_dma_stream_add_linear(mx_dma_stream *s, uint64_t base, uint64_t bytes)
{
    mx_dma_stream_add_segments(s, base, bytes, bytes, 1);
}

int mx_dma_stream_next_fn(void *s, uint64_t *addr) { return mx_dma_stream_next((mx_dma_stream *)s, addr); }

void mx_dma_stream_unget(mx_dma_stream *s, uint64_t addr)
{
    s->held = 1;
    s->hold = addr;
}

int mx_dma_stream_next(mx_dma_stream *s, uint64_t *addr)
{
    if (s->held) {
        s->held = 0;
        *addr = s->hold;
        return 1;
    }
    while (s->g < s->nseg) {
        const mx_dma_seg *g = &s->seg[s->g];
        if (s->next < s->end) {
            uint64_t a = s->next;
            s->next += s->burst;
            if (s->emitted && a == s->last) continue; /* the burst just moved covers it */
            s->emitted = 1;
            s->last = a;
            *addr = a;
            return 1;
        }
        if (++s->j >= g->count) {
            s->j = 0;
            if (++s->g >= s->nseg) return 0;
            g = &s->seg[s->g];
        }
        const uint64_t start = g->base + s->j * g->stride;
        s->next = start - start % s->burst;
        s->end = start + g->len;
    }
    return 0;
}

size_t mx_dma_stream_fill(mx_dma_stream *s, uint64_t *out, size_t max)
{
    size_t n = 0;
    if (max == 0) return 0;
    if (s->held) {
        s->held = 0;
        out[n++] = s->hold;
    }
    const uint64_t burst = s->burst;
    uint64_t next = s->next, end = s->end, last = s->last;
    int emitted = s->emitted;
    while (n < max && s->g < s->nseg) {
        if (next < end) { /* mx_dma_stream_next's first branch */
            const uint64_t a = next;
            next += burst;
            if (emitted && a == last) continue;
            emitted = 1;
            last = a;
            out[n++] = a;
            continue;
        }
        const mx_dma_seg *g = &s->seg[s->g];
        if (++s->j >= g->count) {
            s->j = 0;
            if (++s->g >= s->nseg) break;
            g = &s->seg[s->g];
        }
        const uint64_t start = g->base + s->j * g->stride;
        next = start - start % burst;
        end = start + g->len;
    }
    s->next = next;
    s->end = end;
    s->last = last;
    s->emitted = emitted;
    return n;
}

uint64_t mx_dma_stream_bursts(const mx_dma_stream *s)
{
    mx_dma_stream c = *s;
    c.g = 0;
    c.j = 0;
    c.emitted = 0;
    c.held = 0;
    c.next = c.nseg ? c.seg[0].base - c.seg[0].base % c.burst : 0;
    c.end = c.nseg ? c.seg[0].base + c.seg[0].len : 0;
    uint64_t n = 0, a;
    while (mx_dma_stream_next(&c, &a)) n++;
    return n;
}

/* ---- burst counts without a stream ----------------------------------------- */

/* a + b and a * b, UINT64_MAX when they leave 64 bits (it stays there) */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* Segment j (j >= 1) moves its bursts less its first when segment j - 1
 * ended in that burst: with len <= stride, when its start's offset in the
 * burst, ph, has ph + len > stride.  The offsets repeat with the least
 * period P such that P * stride is a multiple of the burst (P divides the
 * burst), so each offset is counted once, times its segments. */
uint64_t mx_dma_segments_bursts(uint64_t base, uint64_t stride, uint64_t len, uint64_t count, uint64_t burst)
{
    if (len == 0 || count == 0) return 0;
    if (len > stride) { /* segments overlap: no matrix does; step the stream */
        mx_dma_stream s;
        mx_dma_stream_init(&s, burst);
        mx_dma_stream_add_segments(&s, base, stride, len, count);
        return mx_dma_stream_bursts(&s);
    }
    uint64_t n = (base % burst + len - 1) / burst + 1; /* segment 0 */
    const uint64_t step = stride % burst, rest = count - 1;
    uint64_t period = 1;
    for (uint64_t p = step; p % burst; p += step) period++;
    for (uint64_t j = 1; j <= period && j <= rest; j++) {
        const uint64_t ph = (base % burst + j * step) % burst;
        uint64_t c = (ph + len - 1) / burst + 1;
        if (ph + len > stride) c--; /* its first burst is segment j - 1's last */
        n = sat_add(n, sat_mul(c, (rest - j) / period + 1));
    }
    return n;
}

uint64_t mx_dma_tile_bursts(const mx_dma_matrix *m, long long r0, long long nr, long long c0, long long nc,
                            uint64_t burst)
{
    if (nr <= 0 || nc <= 0) return 0;
    /* the segments of mx_dma_stream_add_tile; codes and scales are in
     * regions of their own, so no burst is shared between the two */
    uint64_t b0 = (uint64_t)floor((double)c0 * m->bits / 8.0);
    uint64_t b1 = (uint64_t)ceil((double)(c0 + nc) * m->bits / 8.0);
    uint64_t n = mx_dma_segments_bursts(m->base + (uint64_t)r0 * m->row_bytes + b0, m->row_bytes, b1 - b0,
                                        (uint64_t)nr, burst);
    if (m->has_scales) {
        long long sr0 = r0 / m->scale_rows_per, sr1 = (r0 + nr - 1) / m->scale_rows_per;
        long long sc0 = c0 / m->scale_cols_per, sc1 = (c0 + nc - 1) / m->scale_cols_per;
        n = sat_add(n, mx_dma_segments_bursts(m->scale_base + (uint64_t)sr0 * m->scale_row_bytes + (uint64_t)sc0,
                                              m->scale_row_bytes, (uint64_t)(sc1 - sc0 + 1),
                                              (uint64_t)(sr1 - sr0 + 1), burst));
    }
    return n;
}

/* The least p in 1..pmax with fits(p), else pmax. */
static long long least_period(const mx_dma_matrix *m, long long t, uint64_t burst, int cols, long long pmax)
{
    const uint64_t B = burst;
    for (long long p = 1; p < pmax; p++) {
        /* the tile's code bytes move by p * t rows (or columns): a whole
         * number of bursts */
        if (!cols) {
            if ((uint64_t)p % B * ((uint64_t)t % B) % B * (m->row_bytes % B) % B) continue;
        } else {
            const double sh = (double)p * (double)t * m->bits / 8.0; /* exact: bits are whole, p * t < 2^53 */
            if (sh != floor(sh) || fmod(sh, (double)B) != 0) continue;
        }
        if (m->has_scales) { /* and its scales by whole blocks and whole bursts */
            const uint64_t per = (uint64_t)(cols ? m->scale_cols_per : m->scale_rows_per), sb = per * B;
            const uint64_t pt = (uint64_t)p % sb * ((uint64_t)t % sb) % sb; /* p * t mod (per * B) */
            if (pt % per) continue;
            if ((pt / per) * (cols ? 1 : m->scale_row_bytes % B) % B) continue;
        }
        return p;
    }
    return pmax;
}

/* A tile's count depends on where its rows and columns start only through
 * their offsets in a burst and in a scale block, which repeat with a period
 * along each axis (least_period); the tiles of one class (same offsets,
 * both inside the grid or on its edge) are counted once, times their
 * number: time bounded by the periods (at most burst * block), not by the
 * tile count. */
uint64_t mx_dma_grid_bursts(const mx_dma_matrix *m, long long rows, long long rt, long long cols, long long ct,
                            uint64_t burst)
{
    if (rows <= 0 || cols <= 0 || rt <= 0 || ct <= 0) return 0;
    const long long RT = (rows + rt - 1) / rt, CT = (cols + ct - 1) / ct;
    const long long spr = m->has_scales ? m->scale_rows_per : 1, spc = m->has_scales ? m->scale_cols_per : 1;
    /* an axis without a period below these bounds is walked tile by tile */
    const long long P = RT > 1 ? least_period(m, rt, burst, 0, mx_llmin(RT - 1, (long long)burst * spr)) : 1;
    const long long Q = CT > 1 ? least_period(m, ct, burst, 1, mx_llmin(CT - 1, 8 * (long long)burst * spc)) : 1;
    uint64_t n = 0;
    for (long long i = 0; i < mx_llmin(P, RT - 1) + 1; i++) {
        const int ie = i == mx_llmin(P, RT - 1); /* the edge row of tiles */
        const long long ti = ie ? RT - 1 : i, nr = ie ? rows - (RT - 1) * rt : rt;
        const uint64_t mi = ie ? 1 : (uint64_t)((RT - 2 - i) / P + 1);
        for (long long j = 0; j < mx_llmin(Q, CT - 1) + 1; j++) {
            const int je = j == mx_llmin(Q, CT - 1);
            const long long tj = je ? CT - 1 : j, nc = je ? cols - (CT - 1) * ct : ct;
            const uint64_t mj = je ? 1 : (uint64_t)((CT - 2 - j) / Q + 1);
            n = sat_add(n, sat_mul(sat_mul(mi, mj), mx_dma_tile_bursts(m, ti * rt, nr, tj * ct, nc, burst)));
        }
    }
    return n;
}
