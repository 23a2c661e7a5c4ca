/*
 * fuzz_trace.c — libFuzzer harness for the GEMM trace reader
 * (models/arch/mx_trace.c, mx_trace_load: path only, so the input goes
 * through a scratch file).  A trace that loads must satisfy the header's
 * contract: n >= 1, every M, N, K, count >= 1, a known phase, NUL-terminated
 * names, and the MAC totals must not overflow (mx_trace_total_macs saturates).
 */
#include "fuzz_util.h"
#include "arch/mx_trace.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(0, "trace.csv", data, size);
    mx_trace t;
    char err[512];
    memset(&t, 0xA5, sizeof t); /* the reader must set it either way */
    if (mx_trace_load(path, &t, err, sizeof err) != 0) {
        if (t.n != 0 || t.gemms != NULL) abort(); /* "-1 with *t empty" */
        return 0;
    }
    if (t.n < 1) abort();
    for (size_t i = 0; i < t.n; i++) {
        const mx_gemm *g = &t.gemms[i];
        if (g->M < 1 || g->N < 1 || g->K < 1 || g->count < 1) abort();
        if ((int)g->phase < MX_PHASE_FWD || (int)g->phase > MX_PHASE_INF) abort();
        if (!memchr(g->name, 0, sizeof g->name) || !memchr(g->a_format, 0, sizeof g->a_format) ||
            !memchr(g->b_format, 0, sizeof g->b_format))
            abort();
        if (mx_gemm_macs(g) < 1) abort(); /* limited at load time to fit */
    }
    for (unsigned mask = 0; mask <= MX_TRACE_ALL_PHASES; mask++)
        if (mx_trace_total_macs(&t, mask) < 0) abort();
    mx_trace_free(&t);
    return 0;
}
