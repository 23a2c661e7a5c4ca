/*
 * mx_arch_dram.c — the analytic engine's summary of a protocol-level DRAM
 * (memory.dram): a few probes (mem/mx_dram_probe.h) run once per
 * configuration give sustained read and write bandwidth, idle read latency,
 * command energy per byte and background power.  The cycle engine needs
 * none of this: it steps the DRAM model itself.  docs/ARCH.md "Analytic
 * engine with a DRAM preset".
 */
#include "arch/mx_arch.h"
#include "arch/mx_dma.h"
#include "mem/mx_dram_probe.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* One probe: `count` segments of `len` bytes `stride` apart, read or written. */
static int probe(const mx_arch_config *c, uint64_t stride, uint64_t len, uint64_t count, int is_write,
                 mx_dram_probe *out, char *err, size_t errlen)
{
    mx_dma_stream st;
    mx_dma_stream_init(&st, (uint64_t)mx_dram_burst_bytes(&c->dram));
    mx_dma_stream_add_segments(&st, 0, stride, len, count);
    return mx_dram_probe_run(&c->dram, mx_dma_stream_next_fn, &st, is_write, out, err, errlen);
}

int mx_arch_dram_calibrate(mx_arch_config *c, char *err, size_t errlen)
{
    memset(&c->dram_cal, 0, sizeof c->dram_cal);
    if (!c->dram_model) return 0;
    const double ratio = c->dram.tCK_ns * c->clock_ghz; /* accelerator cycles per DRAM clock */
    /* one burst read and written (idle latencies), and the probe tile: 256
     * rows of 2 KiB from a matrix with a 16 KiB row pitch, the shape of an
     * operand tile load of the default configurations */
    mx_dram_probe one, onew, rd, wr;
    if (probe(c, 64, 1, 1, 0, &one, err, errlen) != 0 || probe(c, 64, 1, 1, 1, &onew, err, errlen) != 0 ||
        probe(c, 16384, 2048, 256, 0, &rd, err, errlen) != 0 || probe(c, 16384, 2048, 256, 1, &wr, err, errlen) != 0)
        return -1;
    const double burst = mx_dram_burst_bytes(&c->dram);
    double rd_bytes = (double)rd.bursts * burst, wr_bytes = (double)wr.bursts * burst;
    c->dram_cal.read_bytes_per_cycle = rd_bytes / ((double)rd.end_clock * ratio);
    c->dram_cal.write_bytes_per_cycle = wr_bytes / ((double)wr.end_clock * ratio);
    c->dram_cal.latency = (int)ceil((double)one.end_clock * ratio - 1e-9);
    c->dram_cal.write_latency = (int)ceil((double)onew.end_clock * ratio - 1e-9);
    const mx_dram_stats *r = &rd.stats, *w = &wr.stats;
    double rd_cmd = r->energy_pj[MX_DRAM_E_ACT] + r->energy_pj[MX_DRAM_E_PRE] + r->energy_pj[MX_DRAM_E_RD];
    double wr_cmd = w->energy_pj[MX_DRAM_E_ACT] + w->energy_pj[MX_DRAM_E_PRE] + w->energy_pj[MX_DRAM_E_WR];
    c->dram_cal.rd_pj_per_byte = rd_cmd / rd_bytes;
    c->dram_cal.wr_pj_per_byte = wr_cmd / wr_bytes;
    /* background and refresh: per DRAM clock of every rank, precharged-standby
     * current while idle is the floor; the probe's mix of open/closed time is
     * taken as typical */
    double bg = r->energy_pj[MX_DRAM_E_BG_ACT] + r->energy_pj[MX_DRAM_E_BG_PRE] + r->energy_pj[MX_DRAM_E_REF];
    c->dram_cal.bg_pj_per_cycle = bg / ((double)r->cycles * ratio);
    c->dram_cal.bg_noref_pj_per_cycle =
        (r->energy_pj[MX_DRAM_E_BG_ACT] + r->energy_pj[MX_DRAM_E_BG_PRE]) / ((double)r->cycles * ratio);
    double pj[MX_DRAM_E_N];
    mx_dram_energy_per_command(&c->dram, pj);
    c->dram_cal.ref_pj = pj[MX_DRAM_E_REF];
    c->dram_cal.act_per_byte = (double)r->act / rd_bytes;
    c->dram_cal.valid = 1;
    if (!(c->dram_cal.read_bytes_per_cycle > 0) || !(c->dram_cal.write_bytes_per_cycle > 0)) {
        snprintf(err, errlen, "key 'memory.dram': DRAM '%s' moved no data in the calibration probe", c->dram.name);
        return -1;
    }
    return 0;
}
