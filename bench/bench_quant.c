/* bench_quant.c — FP32 -> MX quantize + dequantize throughput on one core,
 * beside a plain memcpy of the same data (issue 2's speed target: >= 1 GB/s
 * of FP32 input for MXFP8 E4M3 and MXSF). */
#include "bench.h"
#include "formats/mx_block.h"
#include "formats/mx_rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define N_ELEM (16u << 20) /* 64 MiB of FP32 */

static double run_quant(const char *mx, mx_round round, const float *x, float *y, uint16_t *codes)
{
    mx_block_spec s;
    memset(&s, 0, sizeof s);
    mx_block_format_lookup(mx, &s.elem);
    s.block = 32;
    s.axis = -1;
    s.enc.round = round;
    mx_shape sh = {1, {N_ELEM}};
    char err[128];
    double best = 1e30;
    for (int rep = 0; rep < 3; rep++) {
        double t0 = mx_bench_now();
        mx_block_quantize(&s, &sh, x, codes, NULL, y, err, sizeof err);
        double t = mx_bench_now() - t0;
        best = t < best ? t : best;
    }
    return (double)N_ELEM * 4 / best / 1e9;
}

MX_BENCH(quant)
{
    float *x = malloc(N_ELEM * sizeof *x), *y = malloc(N_ELEM * sizeof *y);
    uint16_t *codes = malloc(N_ELEM * sizeof *codes);
    uint64_t rng = 1;
    for (size_t i = 0; i < N_ELEM; i++) {
        /* Box-Muller Gaussian */
        double u1 = mx_rng_uniform(&rng) + 1e-12, u2 = mx_rng_uniform(&rng);
        x[i] = (float)(sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2));
    }
    double best = 1e30;
    for (int rep = 0; rep < 3; rep++) {
        double t0 = mx_bench_now();
        memcpy(y, x, N_ELEM * sizeof *x);
        double t = mx_bench_now() - t0;
        best = t < best ? t : best;
    }
    double mc = (double)N_ELEM * 4 / best / 1e9;
    printf("%-44s %8.2f GB/s\n", "memcpy (64 MiB FP32)", mc);
    struct { const char *mx; mx_round r; int codes; const char *what; } rows[] = {
        {"mxfp8_e4m3", MX_ROUND_EVEN, 0, "quant+dequant, RNE (fast path)"},
        {"mxsf", MX_ROUND_EVEN, 0, "quant+dequant, RNE (fast path)"},
        {"mxfp8_e4m3", MX_ROUND_EVEN, 1, "quant+dequant+codes, RNE (fast path)"},
        {"mxsf", MX_ROUND_EVEN, 1, "quant+dequant+codes, RNE (fast path)"},
        {"mxsf", MX_ROUND_NEAREST, 0, "quant+dequant, ties away (fast path)"},
        {"mxsf", MX_ROUND_STOCHASTIC, 0, "quant+dequant, stochastic (generic)"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        double g = run_quant(rows[i].mx, rows[i].r, x, y, rows[i].codes ? codes : NULL);
        char label[96];
        snprintf(label, sizeof label, "%s %s", rows[i].mx, rows[i].what);
        printf("%-44s %8.2f GB/s of FP32 in  (%.2fx memcpy)\n", label, g, g / mc);
    }
    free(x);
    free(y);
    free(codes);
}
