/*
 * mx_dma.c — tile transfers as burst address streams (layout in mx_dma.h).
 */
#include "arch/mx_dma.h"

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
