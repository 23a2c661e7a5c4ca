/*
 * mx_chan.c — the bandwidth + latency memory channel (see mx_chan.h).
 */
#include "mem/mx_chan.h"

void mx_chan_init(mx_chan *ch, double bytes_per_cycle, int latency)
{
    *ch = (mx_chan){0};
    ch->per_burst = (double)MX_CHAN_BURST_BYTES / bytes_per_cycle;
    ch->latency = latency;
}
