/* bench_pack.c — eXmY bit-plane packing speed (SPEC §2.4), width 7.
 *
 * Counts, per pass over N codes: elements/s; GB/s of packed data (N*7/8 bytes,
 * written by pack, read by unpack); GB/s of uint16 codes (2N bytes, read by
 * pack, written by unpack).  Reference: memcpy of the 2N code bytes and of the
 * packed bytes, timed in the same run.  Target (SPEC §2.4 "fast"): at least
 * 2 GB/s of packed data at 7 bits.  Best of several passes. */
#include "bench.h"
#include "formats/mx_pack.h"
#include "formats/mx_rng.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PACK_BENCH_WIDTH 7
#define PACK_BENCH_N     ((size_t)32 << 20) /* 32 Mi codes = 64 MiB of uint16 */
#define PACK_BENCH_REPS  10

static double best_of(void (*fn)(void *), void *arg)
{
    double best = 1e30;
    for (int r = 0; r < PACK_BENCH_REPS; r++) {
        double t0 = mx_bench_now();
        fn(arg);
        double t = mx_bench_now() - t0;
        if (t < best) best = t;
    }
    return best;
}

typedef struct {
    uint16_t *codes, *back, *copy;
    uint8_t  *packed, *pcopy;
    size_t    n, nbytes;
} pack_bench_data;

static void run_pack(void *a)   { pack_bench_data *d = a; mx_pack(PACK_BENCH_WIDTH, d->codes, d->n, d->packed); }
static void run_unpack(void *a) { pack_bench_data *d = a; mx_unpack(PACK_BENCH_WIDTH, d->packed, d->n, d->back); }
static void run_memcpy16(void *a) { pack_bench_data *d = a; memcpy(d->copy, d->codes, d->n * 2); }
static void run_memcpy_packed(void *a) { pack_bench_data *d = a; memcpy(d->pcopy, d->packed, d->nbytes); }

MX_BENCH(pack)
{
    pack_bench_data d;
    d.n = PACK_BENCH_N;
    d.nbytes = mx_pack_bytes(PACK_BENCH_WIDTH, d.n);
    d.codes = malloc(d.n * 2);
    d.back = malloc(d.n * 2);
    d.copy = malloc(d.n * 2);
    d.packed = malloc(d.nbytes);
    d.pcopy = malloc(d.nbytes);
    if (!d.codes || !d.back || !d.copy || !d.packed || !d.pcopy) {
        printf("pack: out of memory\n");
        goto done;
    }
    uint64_t rng = 7;
    for (size_t i = 0; i < d.n; i++)
        d.codes[i] = (uint16_t)(mx_rng_next(&rng) & ((1u << PACK_BENCH_WIDTH) - 1));
    /* touch every page once before timing */
    memset(d.back, 0, d.n * 2);
    memset(d.copy, 0, d.n * 2);
    memset(d.packed, 0, d.nbytes);
    memset(d.pcopy, 0, d.nbytes);

    double tp = best_of(run_pack, &d);
    double tu = best_of(run_unpack, &d);
    double tm16 = best_of(run_memcpy16, &d);
    double tmp = best_of(run_memcpy_packed, &d);
    int ok = memcmp(d.codes, d.back, d.n * 2) == 0;

    double n = (double)d.n, pb = (double)d.nbytes, cb = 2.0 * n;
    printf("width %d, %zu codes (%.0f MiB uint16, %.0f MiB packed), best of %d%s\n",
           PACK_BENCH_WIDTH, d.n, cb / 1048576, pb / 1048576, PACK_BENCH_REPS,
           ok ? "" : "  ROUND TRIP MISMATCH");
    printf("  %-8s %8.3f ms  %6.2f Gelem/s  packed %6.2f GB/s  uint16 %6.2f GB/s\n",
           "pack", tp * 1e3, n / tp * 1e-9, pb / tp * 1e-9, cb / tp * 1e-9);
    printf("  %-8s %8.3f ms  %6.2f Gelem/s  packed %6.2f GB/s  uint16 %6.2f GB/s\n",
           "unpack", tu * 1e3, n / tu * 1e-9, pb / tu * 1e-9, cb / tu * 1e-9);
    printf("  memcpy of the uint16 codes: %8.3f ms  %6.2f GB/s; of the packed bytes: %8.3f ms  %6.2f GB/s\n",
           tm16 * 1e3, cb / tm16 * 1e-9, tmp * 1e3, pb / tmp * 1e-9);
    printf("  time / memcpy(uint16 codes): pack %.2fx, unpack %.2fx\n", tp / tm16, tu / tm16);
    printf("  target: packed >= 2 GB/s: pack %s, unpack %s\n",
           pb / tp * 1e-9 >= 2.0 ? "met" : "MISSED", pb / tu * 1e-9 >= 2.0 ? "met" : "MISSED");
done:
    free(d.codes);
    free(d.back);
    free(d.copy);
    free(d.packed);
    free(d.pcopy);
}
