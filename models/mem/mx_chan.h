/*
 * mx_chan.h — the bandwidth + latency memory channel (`memory.dram: none`,
 * SPEC §4.1): what the cycle engine steps when no protocol DRAM is
 * configured, and what the analytic engine's channel rules (mx_arch.c,
 * chan_room / chan_release) assume.
 *
 *   request (64 bytes) ──► window: taken while less than 64 requests'
 *                          transfer time is queued ahead of it
 *                     ──► ring: at most 256 reads (and 256 writes) in flight
 *   transfer: back to back at bytes_per_cycle; a read's data is in
 *   `latency` cycles after its transfer ends, a write is done when its
 *   transfer ends.
 *
 * Times are accelerator cycles (this channel runs on the accelerator
 * clock).  C11, libc + libm, no global state.
 */
#ifndef MX_CHAN_H
#define MX_CHAN_H

#include "util/mx_fp_env.h" /* refuses -ffast-math, excess precision: free_at is a double */

#include <limits.h>
#include <math.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The DMA's last request of a transfer enters this many requests' transfer
 * time before its data has moved (the analytic engine's store release). */
#define MX_CHAN_WINDOW_BURSTS 64
#define MX_CHAN_BURST_BYTES 64
/* With its latency, a stream of reads may fill less than the window,
 * leaving room for writes (mx_arch.c, chan_room).  A power of two. */
#define MX_CHAN_RING 256

typedef struct {
    uint64_t id;
    long long done;
} mx_chan_req;

typedef struct {
    double free_at;      /* the transfer queue is busy until then       */
    double per_burst;    /* cycles one request's transfer takes          */
    int latency;         /* cycles from a read's transfer end to its data */
    mx_chan_req ring[2][MX_CHAN_RING]; /* [0] reads, [1] writes, each in done order */
    int head[2], n[2];
} mx_chan;

void mx_chan_init(mx_chan *ch, double bytes_per_cycle, int latency);

/* The per-request calls below are inline: the cycle engine makes one or
 * more per request, and as calls into another file they cost it 20% more
 * instructions on the BERT step (callgrind). */

/* The window: less than MX_CHAN_WINDOW_BURSTS requests' time queued. */
static inline int mx_chan_window_open(const mx_chan *ch, long long now)
{
    return ch->free_at < (double)now + MX_CHAN_WINDOW_BURSTS * ch->per_burst;
}

/* Whether a request (is_write 0/1) is taken at cycle now. */
static inline int mx_chan_can_accept(const mx_chan *ch, long long now, int is_write)
{
    return ch->n[is_write != 0] < MX_CHAN_RING && mx_chan_window_open(ch, now);
}

/* The request taken at cycle now: 0, or -1 (refused, nothing changed). */
static inline int mx_chan_add(mx_chan *ch, long long now, int is_write, uint64_t id)
{
    const int w = is_write != 0;
    if (!mx_chan_can_accept(ch, now, w)) return -1;
    const double start = ch->free_at > (double)now ? ch->free_at : (double)now;
    ch->free_at = start + ch->per_burst;
    mx_chan_req *r = &ch->ring[w][(ch->head[w] + ch->n[w]++) % MX_CHAN_RING];
    r->id = id;
    r->done = (long long)ceil(ch->free_at - 1e-9) + (w ? 0 : ch->latency);
    return 0;
}

/* 1 and the first completed request (done <= now; reads first), or 0. */
static inline int mx_chan_pop(mx_chan *ch, long long now, uint64_t *id, int *is_write, long long *done)
{
    for (int k = 0; k < 2; k++) {
        if (ch->n[k] && ch->ring[k][ch->head[k]].done <= now) {
            const mx_chan_req *r = &ch->ring[k][ch->head[k]];
            ch->head[k] = (ch->head[k] + 1) % MX_CHAN_RING;
            ch->n[k]--;
            *id = r->id;
            *is_write = k;
            *done = r->done;
            return 1;
        }
    }
    return 0;
}

/* The first cycle > now at which the channel changes by itself (a
 * completion, or a full window opening), or LLONG_MAX with nothing in flight. */
static inline long long mx_chan_next_event(const mx_chan *ch, long long now)
{
    long long e = LLONG_MAX;
    for (int k = 0; k < 2; k++)
        if (ch->n[k] && ch->ring[k][ch->head[k]].done < e) e = ch->ring[k][ch->head[k]].done;
    /* a full window opens again at the first cycle t with t + 64 bursts > free_at */
    if (ch->n[0] + ch->n[1] > 0 && !mx_chan_window_open(ch, now)) {
        const long long t = (long long)floor(ch->free_at - MX_CHAN_WINDOW_BURSTS * ch->per_burst) + 1;
        if (t < e) e = t;
    }
    return e == LLONG_MAX ? e : e > now ? e : now + 1;
}

#ifdef __cplusplus
}
#endif

#endif
