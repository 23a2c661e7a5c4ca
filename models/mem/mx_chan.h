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
/* Whether a request (is_write 0/1) is taken at cycle now. */
int mx_chan_can_accept(const mx_chan *ch, long long now, int is_write);
/* The request taken at cycle now: 0, or -1 (refused, nothing changed). */
int mx_chan_add(mx_chan *ch, long long now, int is_write, uint64_t id);
/* 1 and the first completed request (done <= now; reads first), or 0. */
int mx_chan_pop(mx_chan *ch, long long now, uint64_t *id, int *is_write, long long *done);
/* The first cycle > now at which the channel changes by itself (a
 * completion, or a full window opening), or LLONG_MAX with nothing in flight. */
long long mx_chan_next_event(const mx_chan *ch, long long now);

#ifdef __cplusplus
}
#endif

#endif
