/*
 * mxsim_capi.c — the stable C ABI of mxsim_capi.h over the C core.
 */
#include "mxsim_capi.h"

#include "arch/mx_arch.h"
#include "arch/mx_func.h"
#include "config_yaml.h"
#include "formats/mx_block.h"
#include "version.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct mxsim_capi_config {
    char path[MX_ARCH_PATH_MAX];
    mx_arch_config cfg;
};

int mxsim_capi_abi(void) { return MXSIM_CAPI_ABI; }

const char *mxsim_capi_version(void) { return mxsim_version(); }

static void set_err(char *err, size_t errlen, const char *msg)
{
    if (err && errlen) snprintf(err, errlen, "%s", msg);
}

mxsim_capi_config *mxsim_capi_config_load(const char *path, const char *const *sets, int nsets, char *err,
                                          size_t errlen)
{
    char e[700];
    if (!path || !*path) {
        set_err(err, errlen, "config: empty path");
        return NULL;
    }
    if (strlen(path) >= MX_ARCH_PATH_MAX) {
        set_err(err, errlen, "config: path too long");
        return NULL;
    }
    mxsim_capi_config *c = calloc(1, sizeof *c);
    if (!c) {
        set_err(err, errlen, "config: out of memory");
        return NULL;
    }
    snprintf(c->path, sizeof c->path, "%s", path);
    if (mx_config_load(path, &c->cfg, NULL, e, sizeof e) != 0) goto fail;
    for (int i = 0; i < nsets; i++)
        if (mx_config_override(&c->cfg, sets[i], e, sizeof e) != 0) goto fail;
    if (mx_config_dram(path, &c->cfg, e, sizeof e) != 0) goto fail;
    if (mx_arch_config_check(&c->cfg, e, sizeof e) != 0) goto fail;
    return c;
fail:
    set_err(err, errlen, e);
    free(c);
    return NULL;
}

void mxsim_capi_config_free(mxsim_capi_config *c) { free(c); }

int mxsim_capi_config_describe(const mxsim_capi_config *c, char *buf, size_t len)
{
    const mx_arch_config *a = &c->cfg;
    int n = snprintf(buf, len,
                     "name=%s\na=%s\nb=%s\nout=%s\nblock=%d\ntile_rows=%d\ntile_cols=%d\nlanes=%d\n"
                     "round=%d\nscale_rule=%d\nmxsf_fp5_bias=%d\nalign_width=%d\npath=%s\n",
                     a->name, a->a_format, a->b_format, a->out_format, a->block_size, a->tile_rows, a->tile_cols,
                     a->lanes, (int)a->round, (int)a->scale_rule, a->mxsf_fp5_bias, a->align_width, c->path);
    return n < 0 ? 0 : n;
}

int mxsim_capi_gemm(const mxsim_capi_config *c, long long M, long long N, long long K, const float *A,
                    const float *B, void *out, int phase, const char *a_format, const char *b_format,
                    int threads, double *qsnr_db, long long *cycles, char *err, size_t errlen)
{
    if (!c || !A || !B || !out) {
        set_err(err, errlen, "gemm: NULL argument");
        return -1;
    }
    if (M < 1 || N < 1 || K < 1 || M > MX_ARCH_DIM_MAX || N > MX_ARCH_DIM_MAX || K > MX_ARCH_DIM_MAX) {
        set_err(err, errlen, "gemm: M, N, K must be 1..2^48");
        return -1;
    }
    if (phase < MX_PHASE_FWD || phase > MX_PHASE_INF) {
        set_err(err, errlen, "gemm: phase must be 0..3");
        return -1;
    }
    mx_gemm g;
    memset(&g, 0, sizeof g);
    snprintf(g.name, sizeof g.name, "python");
    g.M = M;
    g.N = N;
    g.K = K;
    g.count = 1;
    g.phase = (mx_phase)phase;
    if (a_format && strlen(a_format) >= sizeof g.a_format) { set_err(err, errlen, "gemm: a_format too long"); return -1; }
    if (b_format && strlen(b_format) >= sizeof g.b_format) { set_err(err, errlen, "gemm: b_format too long"); return -1; }
    if (a_format) snprintf(g.a_format, sizeof g.a_format, "%s", a_format);
    if (b_format) snprintf(g.b_format, sizeof g.b_format, "%s", b_format);
    mx_func_data d = {0, A, B};
    mx_stats s;
    memset(&s, 0, sizeof s);
    int rc = mx_arch_gemm_functional_mt(&c->cfg, &g, &d, &s, (uint32_t *)out, threads, err, errlen);
    if (rc == 0 && !s.functional) {
        set_err(err, errlen, "gemm: no values computed");
        return -1;
    }
    if (qsnr_db) *qsnr_db = s.qsnr_db;
    if (cycles) *cycles = s.cycles;
    return rc;
}

/* ---- batches ---------------------------------------------------------------- */
enum { BATCH_MAX_THREADS = 64 };

typedef struct {
    const mxsim_capi_config *c;
    long long lo, hi, M, N, K;
    const float *A, *B;
    uint32_t *out;
    int phase, rc;
    char err[512];
} batch_part;

static void *batch_run(void *arg)
{
    batch_part *p = arg;
    for (long long i = p->lo; i < p->hi && p->rc == 0; i++)
        p->rc = mxsim_capi_gemm(p->c, p->M, p->N, p->K, p->A + i * p->M * p->K, p->B + i * p->K * p->N,
                                p->out + i * p->M * p->N, p->phase, NULL, NULL, 1, NULL, NULL, p->err,
                                sizeof p->err);
    return NULL;
}

int mxsim_capi_gemm_batch(const mxsim_capi_config *c, long long count, long long M, long long N, long long K,
                          const float *A, const float *B, void *out, int phase, int threads, char *err,
                          size_t errlen)
{
    if (count < 1) {
        set_err(err, errlen, "gemm: count must be >= 1");
        return -1;
    }
    if (threads <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 0 ? (int)n : 1;
    }
    if (threads > BATCH_MAX_THREADS) threads = BATCH_MAX_THREADS;
    if (threads > count) threads = (int)count;
    batch_part *parts = calloc((size_t)threads, sizeof *parts);
    pthread_t tid[BATCH_MAX_THREADS];
    int started[BATCH_MAX_THREADS] = {0};
    if (!parts) {
        set_err(err, errlen, "gemm: out of memory");
        return -1;
    }
    for (int t = 0; t < threads; t++) {
        parts[t] = (batch_part){c, count * t / threads, count * (t + 1) / threads, M, N, K, A, B, (uint32_t *)out,
                                phase, 0, {0}};
        started[t] = t > 0 && pthread_create(&tid[t], NULL, batch_run, &parts[t]) == 0;
    }
    for (int t = 0; t < threads; t++)
        if (!started[t]) batch_run(&parts[t]);
    for (int t = 1; t < threads; t++)
        if (started[t]) pthread_join(tid[t], NULL);
    int rc = 0;
    for (int t = 0; t < threads && !rc; t++)
        if (parts[t].rc) {
            rc = parts[t].rc;
            set_err(err, errlen, parts[t].err);
        }
    free(parts);
    return rc;
}

int mxsim_capi_requant(const mxsim_capi_config *c, long long M, long long N, const float *y, float *deq, char *err,
                       size_t errlen)
{
    if (!c || !y || !deq || M < 1 || N < 1) {
        set_err(err, errlen, "requant: bad arguments");
        return -1;
    }
    const mx_arch_config *a = &c->cfg;
    const size_t n = (size_t)M * (size_t)N;
    mx_operand_fmt fo;
    if (mx_operand_fmt_resolve(a, a->out_format, &fo) != 0) {
        set_err(err, errlen, "requant: unknown format.out");
        return -1;
    }
    if (fo.elem.bits >= 32) {
        if (deq != y) memmove(deq, y, sizeof *deq * n);
        return 0;
    }
    uint64_t rng = 0;
    mx_encode_opts enc = {a->round, MX_OVERFLOW_SATURATE, &rng};
    if (!fo.is_mx) {
        for (size_t i = 0; i < n; i++) deq[i] = (float)mx_decode(&fo.elem, mx_encode(&fo.elem, y[i], &enc, NULL));
        return 0;
    }
    mx_block_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.elem = fo.elem;
    spec.block = a->block_size;
    spec.axis = -1;
    spec.tile_rows = a->tile_rows;
    spec.tile_cols = a->tile_rows > 0 ? a->tile_cols : 0;
    spec.scale_rule = a->scale_rule;
    spec.enc = enc;
    mx_shape sh = {2, {(size_t)M, (size_t)N}};
    float *tmp = deq == y ? malloc(sizeof *tmp * n + 1) : deq;
    if (!tmp) {
        set_err(err, errlen, "requant: out of memory");
        return -1;
    }
    char e[300];
    int rc = mx_block_quantize(&spec, &sh, y, NULL, NULL, tmp, e, sizeof e);
    if (rc != 0) set_err(err, errlen, e);
    else if (tmp != deq) memcpy(deq, tmp, sizeof *deq * n);
    if (tmp != deq) free(tmp);
    return rc;
}
