/* bench_func.c — functional mode (mx_arch_gemm_functional): bit-exact MACs per
 * CPU second on a 256x256x1024 GEMM (no sampling) per format, against a
 * baseline measured in the same run: a plain C FP32 GEMM of the same shape
 * and numpy's FP32 matmul (mk/bench_numpy.py under Debian's python3, which
 * make deps gives numpy; $MXSIM_PYTHON overrides), one thread and all.
 *
 * Speed is MACs / CPU time (user+sys of the process, getrusage), so other
 * jobs on the machine slow the figure less than wall time would; with
 * threads, per core = MACs / CPU time and all cores = MACs / wall time.
 * The functional figure includes everything the call does: timing model,
 * quantization of A and B, the PE computation, the FP64 reference and QSNR. */
#include "bench.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "arch/mx_arch.h"
#include "arch/mx_func.h"

static double cpu_now(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

enum { BM = 256, BN = 256, BK = 1024 };

/* Baselines: FP32 C = A (M x K) * B (K x N), row-major; "dot" is the naive
 * i-j-k loop (one sequential FP32 sum per output), "ikj" the loop order the
 * compiler vectorizes without reassociating (rows of B). */
static void fp32_dot(const float *A, const float *B, float *C)
{
    for (int i = 0; i < BM; i++)
        for (int j = 0; j < BN; j++) {
            float s = 0;
            for (int k = 0; k < BK; k++) s += A[i * BK + k] * B[k * BN + j];
            C[i * BN + j] = s;
        }
}

static void fp32_ikj(const float *A, const float *B, float *C)
{
    memset(C, 0, sizeof *C * BM * BN);
    for (int i = 0; i < BM; i++)
        for (int k = 0; k < BK; k++) {
            const float a = A[i * BK + k];
            for (int j = 0; j < BN; j++) C[i * BN + j] += a * B[k * BN + j];
        }
}

static void bench_baseline(const char *name, void (*fn)(const float *, const float *, float *),
                           const float *A, const float *B, float *C)
{
    double best = 0, worst = 1e300;
    for (int r = 0; r < 3; r++) {
        double c0 = cpu_now();
        fn(A, B, C);
        double dt = cpu_now() - c0;
        double macs = (double)BM * BN * BK / (dt > 1e-9 ? dt : 1e-9);
        if (macs > best) best = macs;
        if (macs < worst) worst = macs;
    }
    printf("  baseline FP32 C %-4s %dx%dx%d: %7.0f-%7.0f M MAC/s per core  (C[7] %g)\n", name, BM, BN, BK,
           worst / 1e6, best / 1e6, (double)C[7]);
}

/* numpy's FP32 matmul of the same shape with `threads` BLAS threads (0:
 * the library's default, all CPUs): MAC/s per CPU-second and of wall time;
 * 0 when it cannot run (the reason printed). */
static int bench_numpy(int threads, double *per_cpu, double *wall)
{
    const char *py = getenv("MXSIM_PYTHON") ? getenv("MXSIM_PYTHON") : "/usr/bin/python3";
    char cmd[1024], th[64] = "", ver[64] = "?";
    if (threads > 0)
        snprintf(th, sizeof th, "OPENBLAS_NUM_THREADS=%d OMP_NUM_THREADS=%d ", threads, threads);
    snprintf(cmd, sizeof cmd, "%s'%s' '%s/mk/bench_numpy.py' 2>&1", th, py, MXSIM_SRC_DIR);
    FILE *f = popen(cmd, "r");
    char line[512] = "";
    if (!f || !fgets(line, sizeof line, f)) {
        if (f) pclose(f);
        printf("  baseline numpy: could not run %s\n", cmd);
        return 0;
    }
    const int st = pclose(f);
    double c7 = 0;
    if (st != 0 || sscanf(line, "%lf %lf %63s %lf", per_cpu, wall, ver, &c7) != 4) {
        printf("  baseline numpy: %s", line);
        return 0;
    }
    printf("  baseline numpy %s FP32 matmul %dx%dx%d, %-9s: %7.0f M MAC/s per core (CPU time, best of 7), "
           "best wall %7.0f M MAC/s  (C[7] %g)\n", ver, BM, BN, BK, threads > 0 ? "1 thread" : "all CPUs",
           *per_cpu / 1e6, *wall / 1e6, c7);
    return 1;
}

/* Returns the best MAC/s per CPU-second (*wall_best: of wall time). */
static double bench_format(const char *fmt, int tile, int reps, int threads, double *wall_best)
{
    mx_arch_config c;
    mx_arch_config_default(&c);
    snprintf(c.a_format, sizeof c.a_format, "%s", fmt);
    snprintf(c.b_format, sizeof c.b_format, "%s", fmt);
    snprintf(c.out_format, sizeof c.out_format, "%s", fmt);
    c.tile_rows = c.tile_cols = tile;
    c.functional_max_macs = (long long)BM * BN * BK; /* no sampling */
    mx_gemm g;
    memset(&g, 0, sizeof g);
    snprintf(g.name, sizeof g.name, "bench");
    g.M = BM; g.N = BN; g.K = BK; g.count = 1;
    mx_func_data d = {1, NULL, NULL};
    mx_stats s;
    char err[300];
    double best = 0, worst = 1e300, wbest = 0;
    for (int r = 0; r < reps; r++) {
        double c0 = cpu_now(), w0 = mx_bench_now();
        int rc = mx_arch_gemm_functional_mt(&c, &g, &d, &s, NULL, threads, err, sizeof err);
        double dt = cpu_now() - c0, wt = mx_bench_now() - w0;
        if (rc != 0) { printf("  %s: error %s\n", fmt, err); return 0; }
        double macs = (double)BM * BN * BK / (dt > 1e-9 ? dt : 1e-9);
        double wmacs = (double)BM * BN * BK / (wt > 1e-9 ? wt : 1e-9);
        if (macs > best) best = macs;
        if (macs < worst) worst = macs;
        if (wmacs > wbest) wbest = wmacs;
    }
    char th[32];
    if (threads > 0) snprintf(th, sizeof th, "%d thread%s", threads, threads == 1 ? "" : "s");
    else snprintf(th, sizeof th, "all CPUs");
    printf("  functional %-10s%s %dx%dx%d, %-9s: %7.0f-%7.0f M MAC/s per core (CPU time, %d runs), "
           "best wall %7.0f M MAC/s  (QSNR %.2f dB)\n",
           fmt, tile ? " 8x8" : " 1-D", BM, BN, BK, th, worst / 1e6, best / 1e6, reps, wbest / 1e6, s.qsnr_db);
    if (wall_best) *wall_best = wbest;
    return best;
}

MX_BENCH(func_gemm)
{
    float *A = malloc(sizeof *A * BM * BK), *B = malloc(sizeof *B * BK * BN), *C = malloc(sizeof *C * BM * BN);
    if (!A || !B || !C) { free(A); free(B); free(C); return; }
    uint64_t st = 7;
    for (int i = 0; i < BM * BK; i++) { st = st * 6364136223846793005ull + 1442695040888963407ull; A[i] = (float)(st >> 40) / (float)(1 << 24) - 0.5f; }
    for (int i = 0; i < BK * BN; i++) { st = st * 6364136223846793005ull + 1442695040888963407ull; B[i] = (float)(st >> 40) / (float)(1 << 24) - 0.5f; }
    bench_baseline("dot", fp32_dot, A, B, C);
    bench_baseline("ikj", fp32_ikj, A, B, C);
    free(A); free(B); free(C);
    double np1 = 0, np1w = 0, npa = 0, npaw = 0;
    const int have_np = bench_numpy(1, &np1, &np1w) && bench_numpy(0, &npa, &npaw);
    const double mx1 = bench_format("mxsf", 8, 5, 1, NULL);
    bench_format("mxsf", 0, 3, 1, NULL);
    bench_format("mxfp8_e2m5", 8, 3, 1, NULL);
    bench_format("mxint8", 8, 3, 1, NULL);
    bench_format("mxfp8_e4m3", 8, 3, 1, NULL);
    bench_format("mxfp8_e5m2", 8, 3, 1, NULL);
    bench_format("bf16", 0, 3, 1, NULL);
    bench_format("mxsf", 8, 5, 2, NULL);
    bench_format("mxfp8_e4m3", 8, 3, 2, NULL);
    bench_format("bf16", 0, 3, 2, NULL);
    double mxaw = 0;
    bench_format("mxsf", 8, 3, 0, &mxaw);
    if (have_np && np1 > 0 && npaw > 0)
        printf("  functional mxsf 8x8 / numpy FP32 matmul: %.3f per core (1 thread, CPU time), %.3f on all CPUs "
               "(wall)\n", mx1 / np1, mxaw / npaw);
}
