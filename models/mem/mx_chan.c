/*
 * mx_chan.c — the bandwidth + latency memory channel (see mx_chan.h).
 */
#include "mem/mx_chan.h"

#include <limits.h>
#include <math.h>

void mx_chan_init(mx_chan *ch, double bytes_per_cycle, int latency)
{
    *ch = (mx_chan){0};
    ch->per_burst = (double)MX_CHAN_BURST_BYTES / bytes_per_cycle;
    ch->latency = latency;
}

/* The window: less than MX_CHAN_WINDOW_BURSTS requests' time queued. */
static int window_open(const mx_chan *ch, long long now)
{
    return ch->free_at < (double)now + MX_CHAN_WINDOW_BURSTS * ch->per_burst;
}

int mx_chan_can_accept(const mx_chan *ch, long long now, int is_write)
{
    return ch->n[is_write != 0] < MX_CHAN_RING && window_open(ch, now);
}

int mx_chan_add(mx_chan *ch, long long now, int is_write, uint64_t id)
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

int mx_chan_pop(mx_chan *ch, long long now, uint64_t *id, int *is_write, long long *done)
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

long long mx_chan_next_event(const mx_chan *ch, long long now)
{
    long long e = LLONG_MAX;
    for (int k = 0; k < 2; k++)
        if (ch->n[k] && ch->ring[k][ch->head[k]].done < e) e = ch->ring[k][ch->head[k]].done;
    /* a full window opens again at the first cycle t with t + 64 bursts > free_at */
    if (ch->n[0] + ch->n[1] > 0 && !window_open(ch, now)) {
        const long long t = (long long)floor(ch->free_at - MX_CHAN_WINDOW_BURSTS * ch->per_burst) + 1;
        if (t < e) e = t;
    }
    return e == LLONG_MAX ? e : e > now ? e : now + 1;
}
