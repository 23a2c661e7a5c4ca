/* bench_arch.c — speed of the accelerator model (models/arch):
 *   timing mode: the whole GPT-2 small training-step trace on a 32 x 32 array
 *     (target: well under a second), simulated MACs and cycles per second;
 *   functional mode: bit-exact MXSF MACs per second on one core (target >= 50 M/s).
 * Run from the repository root (`make bench`): reads traces/gpt2_small_train.csv. */
#include "bench.h"

#include "arch/mx_arch.h"
#include "arch/mx_trace.h"

#include <stdio.h>
#include <string.h>

MX_BENCH(arch_timing_gpt2_small_train)
{
    mx_trace tr;
    char err[512];
    if (mx_trace_load("traces/gpt2_small_train.csv", &tr, err, sizeof err) != 0) {
        printf("  skipped: %s\n", err);
        return;
    }
    mx_arch_config c;
    mx_arch_config_default(&c); /* = configs/mxsf.yaml: 32 x 32, 8 lanes, OS */
    double best = 1e30;
    mx_stats total;
    for (int rep = 0; rep < 5; rep++) {
        memset(&total, 0, sizeof total);
        double t0 = mx_bench_now();
        for (size_t i = 0; i < tr.n; i++) {
            mx_stats s;
            if (mx_arch_gemm_timing(&c, &tr.gemms[i], &s, err, sizeof err) != 0) {
                printf("  error: %s\n", err);
                mx_trace_free(&tr);
                return;
            }
            mx_stats_add(&total, &s, tr.gemms[i].count);
        }
        double dt = mx_bench_now() - t0;
        if (dt < best) best = dt;
    }
    printf("  GPT-2 small training step, %zu GEMM rows, %dx%d array, %d lanes: %.3f ms\n", tr.n,
           c.rows, c.cols, c.lanes, best * 1e3);
    printf("  simulated: %.3g MACs, %.3g cycles, %lld tiles, %lld folds\n", (double)total.macs,
           (double)total.cycles, total.tiles, total.folds);
    printf("  speed: %.3g simulated MACs/s, %.3g simulated cycles/s (target: whole trace well under 1 s)\n",
           (double)total.macs / best, (double)total.cycles / best);
    mx_trace_free(&tr);
}

static void functional_bench(const char *fmt, int tile)
{
    mx_arch_config c;
    mx_arch_config_default(&c);
    snprintf(c.a_format, sizeof c.a_format, "%s", fmt);
    snprintf(c.b_format, sizeof c.b_format, "%s", fmt);
    snprintf(c.out_format, sizeof c.out_format, "%s", fmt);
    c.tile_rows = c.tile_cols = tile;
    c.functional_max_macs = 1LL << 40;
    mx_gemm g;
    memset(&g, 0, sizeof g);
    snprintf(g.name, sizeof g.name, "bench");
    g.M = 256; g.N = 256; g.K = 1024; g.count = 1; g.phase = MX_PHASE_FWD;
    mx_func_data d = {1, NULL, NULL};
    mx_stats s;
    char err[512];
    double best = 1e30, best_cpu = 1e30;
    for (int rep = 0; rep < 3; rep++) {
        double t0 = mx_bench_now();
        clock_t c0 = clock();
        if (mx_arch_gemm_functional(&c, &g, &d, &s, NULL, err, sizeof err) != 0) {
            printf("  error: %s\n", err);
            return;
        }
        double dt = mx_bench_now() - t0, dc = (double)(clock() - c0) / CLOCKS_PER_SEC;
        if (dt < best) best = dt;
        if (dc < best_cpu) best_cpu = dc;
    }
    double macs = (double)(g.M * g.N * g.K);
    printf("  %-5s %s: %lldx%lldx%lld GEMM in %.3f s: %.1f M bit-exact MACs/s wall, %.1f M per "
           "CPU-second (one core, incl. quantization and the FP64 reference); QSNR %.2f dB\n",
           fmt, tile ? "8x8 tiles" : "1-D k=32", g.M, g.N, g.K, best, macs / best * 1e-6,
           macs / best_cpu * 1e-6, s.qsnr_db);
}

MX_BENCH(arch_functional_macs)
{
    functional_bench("mxsf", 8);
    functional_bench("mxsf", 0);
    functional_bench("bf16", 0);
    printf("  target: >= 50 M MACs/s per core for MXSF\n");
}
