/*
 * bench/bench.h — benchmark registration.  Each bench file (bench_NAME.c) defines its
 * benchmarks with MX_BENCH(name) { ... } and prints its own figures.
 */
#ifndef MX_BENCH_H
#define MX_BENCH_H
#include <stdio.h>
#include <time.h>

typedef void (*mx_bench_fn)(void);
void mx_bench_register(const char *name, mx_bench_fn fn);

#define MX_BENCH(name)                                                         \
    static void bench_##name(void);                                            \
    __attribute__((constructor)) static void bench_reg_##name(void)            \
    { mx_bench_register(#name, bench_##name); }                                \
    static void bench_##name(void)

static inline double mx_bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
#endif
