/* bench_dram.c — DRAM model throughput (models/mem/mx_dram.h): requests per
 * CPU-second on one core for a streaming read trace and a random read trace on
 * DDR4-3200, the requester feeding the queues as fast as they accept and
 * jumping to the model's next event when they are full (target >= 5 M
 * requests/s streaming). */
#include "bench.h"

#include <stdint.h>
#include <string.h>

#include <time.h>

#include "formats/mx_rng.h"
#include "mem/mx_dram.h"

/* CPU time of this thread: the machine may be shared with other jobs. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void ddr4(mx_dram_config *c, const char *mapping)
{
    memset(c, 0, sizeof *c);
    c->channels = 1; c->ranks = 1; c->bankgroups = 4; c->banks_per_group = 4;
    c->rows = 65536; c->columns = 1024; c->device_width = 8; c->bus_bits = 64; c->BL = 8;
    c->tCK_ns = 0.625;
    mx_dram_timing t = {.CL = 22, .CWL = 16, .tRCD = 22, .tRP = 22, .tRAS = 52, .tRC = 74,
                        .tRRD_S = 4, .tRRD_L = 8, .tCCD_S = 4, .tCCD_L = 8, .tFAW = 34,
                        .tWTR_S = 4, .tWTR_L = 12, .tWR = 24, .tRTP = 12, .tRTRS = 2,
                        .tRFC = 560, .tREFI = 12480};
    c->t = t;
    mx_dram_power p = {1.2, 58, 50, 55, 165, 150, 250};
    c->p = p;
    snprintf(c->address_mapping, sizeof c->address_mapping, "%s", mapping);
    c->queue_size = 32; c->write_high = 24; c->write_low = 8; c->refresh = 1;
}

static void run(const char *label, const char *mapping, int random, int write_every)
{
    mx_dram_config c;
    ddr4(&c, mapping);
    char err[256];
    mx_dram *d = mx_dram_new(&c, err, sizeof err);
    if (!d) { printf("%s: %s\n", label, err); return; }
    const uint64_t N = 4000000;
    uint64_t rng = 7, id = 0, got = 0;
    double t0 = cpu_now();
    uint64_t addr = 0;
    int have = 0;
    while (got < N) {
        while (id < N) {
            if (!have) addr = random ? (mx_rng_next(&rng) % (UINT64_C(1) << 33)) & ~UINT64_C(63) : id * 64;
            have = 1;
            int w = write_every && id % (uint64_t)write_every == 0;
            if (mx_dram_add(d, addr, w, id)) break;
            have = 0;
            id++;
        }
        mx_dram_done r;
        while (mx_dram_pop_done(d, &r)) got++;
        if (got < N) mx_dram_run_until(d, mx_dram_next_event(d));
    }
    double dt = cpu_now() - t0;
    mx_dram_stats s;
    mx_dram_get_stats(d, &s);
    printf("  %-34s %6.2f M requests/s of CPU time  (%.2f GB/s simulated, %llu clocks, row hits %.0f%%)\n", label,
           N / dt * 1e-6, N * 64.0 / (s.cycles * c.tCK_ns), (unsigned long long)s.cycles,
           100.0 * s.row_hits / (double)(s.row_hits + s.row_misses));
    mx_dram_free(d);
}

MX_BENCH(dram)
{
    run("streaming read, rochrabacobg", "rochrabacobg", 0, 0);
    run("streaming read, rochrababgco", "rochrababgco", 0, 0);
    run("random read (8 GiB)", "rochrababgco", 1, 0);
    run("streaming, 1 write in 4", "rochrabacobg", 0, 4);
}
