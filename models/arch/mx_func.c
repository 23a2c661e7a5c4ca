/*
 * mx_func.c — functional mode of the accelerator model: the same cycles as
 * the timing mode (mx_arch_gemm_timing is called first and is the only cycle
 * source), plus values.  Operands are quantized as the hardware stores them
 * (A along K, B along K; 2-D tiles when configured), every output is computed
 * tile by tile with the bit-exact PE (mx_pe_dot, partial sums chained through
 * the FP32 accumulator across K tiles as the output buffer holds them), MXSF
 * mode pairs are counted from the codes, and the outputs are compared with an
 * FP64 reference product of the unquantized operands.
 *
 * Large GEMMs (M*N*K above functional_max_macs) are sampled: whole row groups
 * (one tile height) and column groups are chosen evenly, so every computed
 * output sees exactly the blocks the full run would.  Random data is a pure
 * function of (seed, operand, row, col), so a sampled run computes the same
 * values as the full run for the outputs it checks.
 */
#include "arch/mx_arch.h"
#include "arch/mx_func.h"
#include "formats/mx_rng.h"
#include "units/mx_pe.h"
#include "units/mx_pe_fast.h"

#include <pthread.h>
#include <unistd.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double gauss_at(uint64_t seed, uint64_t op, uint64_t r, uint64_t c)
{
    uint64_t st = seed * 0x9E3779B97F4A7C15ull ^ (op << 62) ^ (r * 0xD1B54A32D192ED03ull) ^
                  (c * 0x8CB92BA72F3D8DD7ull);
    double u1 = mx_rng_uniform(&st), u2 = mx_rng_uniform(&st);
    if (u1 < 1e-300) u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

static int efail(char *err, size_t errlen, const char *msg, const char *name)
{
    if (err && errlen) snprintf(err, errlen, msg, name);
    return -1;
}

/* Quantizes a rows x K row-major matrix along K.  2-D tiles are tr x tc
 * over (rows, K).  codes rows*K, scales rows * ceil(K/kb) (a row's scales in
 * its tile-row's scale row are replicated per row so mx_pe_dot can index
 * them linearly). */
static int quantize_rows(const mx_arch_config *c, const mx_operand_fmt *f, int tr, int tc,
                         long long rows, long long K, const float *x, uint16_t *codes,
                         uint8_t *scales, char *err, size_t errlen)
{
    if (!f->is_mx) { /* BF16 (or a plain 8-bit format with unit scales): per-element encode */
        mx_encode_opts o = {c->round, f->elem.bits == 16 ? MX_OVERFLOW_INF_NAN : MX_OVERFLOW_SATURATE, NULL};
        for (long long i = 0; i < rows * K; i++) codes[i] = (uint16_t)mx_encode(&f->elem, x[i], &o, NULL);
        long long kb = tr; /* caller passes the scale block in tr for unit scales */
        if (kb > 0) memset(scales, 127, (size_t)(rows * ((K + kb - 1) / kb)));
        return 0;
    }
    mx_block_spec s;
    memset(&s, 0, sizeof s);
    s.elem = f->elem;
    s.block = c->block_size;
    s.axis = -1;
    s.tile_rows = tr;
    s.tile_cols = tc;
    s.scale_rule = c->scale_rule;
    s.enc.round = c->round;
    s.enc.overflow = MX_OVERFLOW_SATURATE;
    mx_shape sh = {2, {(size_t)rows, (size_t)K}};
    long long kb = tr > 0 ? tc : c->block_size;
    long long nkb = (K + kb - 1) / kb;
    if (tr == 0)
        return mx_block_quantize(&s, &sh, x, codes, scales, NULL, err, errlen);
    long long nrb = (rows + tr - 1) / tr;
    uint8_t *ts = malloc((size_t)(nrb * nkb));
    if (!ts) return efail(err, errlen, "%s: out of memory", "functional mode");
    int rc = mx_block_quantize(&s, &sh, x, codes, ts, NULL, err, errlen);
    if (rc == 0)
        for (long long i = 0; i < rows; i++) memcpy(scales + i * nkb, ts + (i / tr) * nkb, (size_t)nkb);
    free(ts);
    return rc;
}

/* Rows (or columns) to compute: all, or evenly spread groups of g. */
static long long pick(long long n, long long g, long long want, long long *idx)
{
    long long groups = (n + g - 1) / g;
    long long take = want >= groups ? groups : (want < 1 ? 1 : want);
    long long cnt = 0;
    for (long long t = 0; t < take; t++) {
        long long grp = take == groups ? t : t * groups / take;
        for (long long r = grp * g; r < (grp + 1) * g && r < n; r++) idx[cnt++] = r;
    }
    return cnt;
}

/* ---- a parallel for: [0, n) in `threads` contiguous parts of whole grains ---- */

enum { MAX_THREADS = 64 };
typedef void (*par_fn)(void *ctx, long long lo, long long hi, int part);
typedef struct { par_fn fn; void *ctx; long long lo, hi; int part; } par_job;

static void *par_run(void *arg)
{
    par_job *j = arg;
    if (j->lo < j->hi) j->fn(j->ctx, j->lo, j->hi, j->part);
    return NULL;
}

/* Part t runs on thread t (part 0 on the caller; a part whose thread does
 * not start runs on the caller too).  The parts write disjoint outputs, so
 * the result does not depend on the thread count. */
static void par_for(int threads, long long n, long long grain, par_fn fn, void *ctx)
{
    if (grain < 1) grain = 1;
    const long long units = (n + grain - 1) / grain;
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    if (threads > units) threads = (int)units;
    if (threads < 1) threads = 1;
    par_job jobs[MAX_THREADS];
    pthread_t tid[MAX_THREADS];
    int started[MAX_THREADS];
    for (int t = 0; t < threads; t++) {
        long long lo = units * t / threads * grain, hi = units * (t + 1) / threads * grain;
        jobs[t] = (par_job){fn, ctx, lo < n ? lo : n, hi < n ? hi : n, t};
        started[t] = t > 0 && pthread_create(&tid[t], NULL, par_run, &jobs[t]) == 0;
    }
    for (int t = 0; t < threads; t++)
        if (!started[t]) par_run(&jobs[t]);
    for (int t = 1; t < threads; t++)
        if (started[t]) pthread_join(tid[t], NULL);
}

/* ---- the outputs: PE bits and FP64 reference, rows split across threads ---- */

typedef struct {
    const mx_pe_fast *pf;
    const mx_pe_fast_b *pb;
    const float *A;             /* A rows x K                                  */
    const double *Bk;           /* B panels of K x REF_NC (reference), exact   */
    const uint16_t *ac;
    const uint8_t *as;
    long long K, nc, nkb, kt;
    long long c0;               /* first row of the chunk                     */
    uint32_t *obuf;             /* chunk rows x nc                            */
    double *rbuf;
    mx_pe_fast_scratch sc[MAX_THREADS];
} func_job;

enum { REF_NC = 8 }; /* columns per reference panel */

/* acc_r[c] = sum over k of a_r[k] * b[k][c] for rows r = 0, 1 (nrow 1 or 2),
 * each a sequential FP64 sum from 0.  GCC/Clang vector extensions keep the
 * 16 sums in registers and load each element of B once for both rows
 * (element-wise IEEE operations: the same bits as scalar code; no
 * contraction, see util/mx_fp_env.h). */
typedef double ref_v2d __attribute__((vector_size(16)));

static void ref_panel(const float *a0, const float *a1, const double *bp, long long K, double *acc0, double *acc1)
{
    ref_v2d r0 = {0, 0}, r1 = r0, r2 = r0, r3 = r0, q0 = r0, q1 = r0, q2 = r0, q3 = r0;
    if (!a1) a1 = a0; /* one row: the second set of sums is discarded */
    for (long long k = 0; k < K; k++) {
        const double xs = (double)a0[k], ys = (double)a1[k];
        const ref_v2d x = {xs, xs}, y = {ys, ys};
        const double *b = bp + k * REF_NC;
        ref_v2d t0, t1, t2, t3;
        memcpy(&t0, b + 0, 16); memcpy(&t1, b + 2, 16); memcpy(&t2, b + 4, 16); memcpy(&t3, b + 6, 16);
        r0 += x * t0; r1 += x * t1; r2 += x * t2; r3 += x * t3;
        q0 += y * t0; q1 += y * t1; q2 += y * t2; q3 += y * t3;
    }
    memcpy(acc0 + 0, &r0, 16); memcpy(acc0 + 2, &r1, 16); memcpy(acc0 + 4, &r2, 16); memcpy(acc0 + 6, &r3, 16);
    memcpy(acc1 + 0, &q0, 16); memcpy(acc1 + 2, &q1, 16); memcpy(acc1 + 4, &q2, 16); memcpy(acc1 + 6, &q3, 16);
}

static void func_rows(void *ctx, long long lo, long long hi, int part)
{
    func_job *j = ctx;
    for (long long i = j->c0 + lo; i < j->c0 + hi; i++) {
        uint32_t *o = j->obuf + (i - j->c0) * j->nc;
        mx_pe_fast_row(j->pf, j->pb, j->ac + i * j->K, j->pf->bf16 ? NULL : j->as + i * j->nkb, j->kt, &j->sc[part], o);
    }
    /* FP64 reference: per output the sequential sum over k from 0, as one
     * dot loop per output; 2 rows x 8 outputs at once from a panel of B */
    for (long long i = j->c0 + lo; i < j->c0 + hi; i += 2) {
        const int two = i + 1 < j->c0 + hi;
        double *r0 = j->rbuf + (i - j->c0) * j->nc, *r1 = r0 + j->nc;
        const float *a0 = j->A + i * j->K, *a1 = two ? a0 + j->K : NULL;
        for (long long p = 0; p * REF_NC < j->nc; p++) {
            double acc0[REF_NC], acc1[REF_NC];
            ref_panel(a0, a1, j->Bk + p * j->K * REF_NC, j->K, acc0, acc1);
            for (int c = 0; c < REF_NC && p * REF_NC + c < j->nc; c++) {
                r0[p * REF_NC + c] = acc0[c];
                if (two) r1[p * REF_NC + c] = acc1[c];
            }
        }
    }
}

static int func_outputs(const mx_pe_config *pc, const float *A, const float *Bt, const uint16_t *ac,
                        const uint8_t *as, const uint16_t *bc, const uint8_t *bs, long long nr, long long nc,
                        long long K, long long kt, const long long *ri, const long long *ci, long long N,
                        uint32_t *out, int threads, mx_stats *s)
{
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    if (threads > nr) threads = (int)nr;
    if (threads < 1) threads = 1;
    mx_pe_fast pf;
    mx_pe_fast_init(&pf, pc);
    const long long kb = pf.bf16 ? K : pc->block, nkb = (K + kb - 1) / kb;
    /* rows per chunk: outputs and references of a chunk are buffered, then
     * reduced in row-major order (the same sums for any thread count) */
    long long chunk = (8ll << 20) / (12 * (nc > 0 ? nc : 1));
    if (chunk < threads) chunk = threads;
    if (chunk > nr) chunk = nr;
    const long long nref = (nc + REF_NC - 1) / REF_NC;
    mx_pe_fast_b pb;
    double *Bk = malloc(sizeof *Bk * (size_t)(K * nref * REF_NC) + 1);
    uint32_t *obuf = malloc(sizeof *obuf * (size_t)(chunk * nc) + 1);
    double *rbuf = malloc(sizeof *rbuf * (size_t)(chunk * nc) + 1);
    func_job *j = calloc(1, sizeof *j);
    int nsc = 0, rc = -1;
    memset(&pb, 0, sizeof pb);
    if (!Bk || !obuf || !rbuf || !j || mx_pe_fast_b_prepare(&pf, bc, bs, nc, K, &pb) != 0) goto out;
    for (long long jj = 0; jj < nref * REF_NC; jj++)
        for (long long k = 0; k < K; k++)
            Bk[(jj / REF_NC) * K * REF_NC + k * REF_NC + jj % REF_NC] = jj < nc ? (double)Bt[jj * K + k] : 0.0;
    j->pf = &pf; j->pb = &pb; j->A = A; j->Bk = Bk; j->ac = ac; j->as = as;
    j->K = K; j->nc = nc; j->nkb = nkb; j->kt = kt; j->obuf = obuf; j->rbuf = rbuf;
    for (; nsc < threads; nsc++)
        if (mx_pe_fast_scratch_init(&j->sc[nsc], K, nkb) != 0) goto out;
    double err_sq = 0, ref_sq = 0, max_err = 0;
    for (long long c0 = 0; c0 < nr; c0 += chunk) {
        const long long c1 = nr - c0 < chunk ? nr : c0 + chunk;
        j->c0 = c0;
        par_for(threads, c1 - c0, 1, func_rows, j);
        for (long long i = c0; i < c1; i++)
            for (long long jj = 0; jj < nc; jj++) {
                const uint32_t acc = obuf[(i - c0) * nc + jj];
                const double r = rbuf[(i - c0) * nc + jj];
                float y;
                memcpy(&y, &acc, sizeof y);
                double e = (double)y - r;
                err_sq += e * e;
                ref_sq += r * r;
                if (fabs(e) > max_err || isnan(e)) max_err = fabs(e);
                if (out) out[ri[i] * N + ci[jj]] = acc;
            }
    }
    s->err_sq = err_sq;
    s->ref_sq = ref_sq;
    s->max_abs_err = max_err;
    rc = 0;
out:
    if (j)
        for (int t = 0; t < nsc; t++) mx_pe_fast_scratch_free(&j->sc[t]);
    mx_pe_fast_b_free(&pb);
    free(Bk); free(obuf); free(rbuf); free(j);
    return rc;
}

/* ---- operand data and quantization, rows split across threads ------------- */

typedef struct {
    const mx_func_data *d;
    const long long *idx;       /* ri (A) or ci (B)                            */
    long long K, N;
    int op;                     /* 0 A, 1 B                                    */
    float *x;
} gen_job;

static void gen_rows(void *ctx, long long lo, long long hi, int part)
{
    const gen_job *g = ctx;
    (void)part;
    for (long long i = lo; i < hi; i++)
        for (long long k = 0; k < g->K; k++) {
            if (g->op == 0)
                g->x[i * g->K + k] = g->d->a ? g->d->a[g->idx[i] * g->K + k]
                                             : (float)gauss_at(g->d->seed, 0, (uint64_t)g->idx[i], (uint64_t)k);
            else
                g->x[i * g->K + k] = g->d->b ? g->d->b[k * g->N + g->idx[i]]
                                             : (float)gauss_at(g->d->seed, 1, (uint64_t)k, (uint64_t)g->idx[i]);
        }
}

typedef struct {
    const mx_arch_config *c;
    const mx_operand_fmt *f;
    int tr, tc;
    long long K, nkb;
    const float *x;
    uint16_t *codes;
    uint8_t *scales;
    int rc[MAX_THREADS];
    char err[MAX_THREADS][200];
} quant_job;

static void quant_part(void *ctx, long long lo, long long hi, int part)
{
    quant_job *q = ctx;
    q->rc[part] = quantize_rows(q->c, q->f, q->tr, q->tc, hi - lo, q->K, q->x + lo * q->K, q->codes + lo * q->K,
                                q->scales + lo * q->nkb, q->err[part], sizeof q->err[part]);
}

/* quantize_rows over row ranges in parallel: 1-D blocks and per-element
 * formats are row-local, 2-D tiles are split on whole tile rows, so the
 * codes and scales are those of one call (stochastic rounding, which carries
 * a random state along the data, stays in one call). */
static int quantize_rows_par(const mx_arch_config *c, const mx_operand_fmt *f, int tr, int tc, long long rows,
                             long long K, long long nkb, const float *x, uint16_t *codes, uint8_t *scales,
                             int threads, char *err, size_t errlen)
{
    if (c->round == MX_ROUND_STOCHASTIC) threads = 1;
    quant_job *q = calloc(1, sizeof *q);
    if (!q) return quantize_rows(c, f, tr, tc, rows, K, x, codes, scales, err, errlen);
    *q = (quant_job){c, f, tr, tc, K, nkb, x, codes, scales, {0}, {{0}}};
    par_for(threads, rows, f->is_mx && tr > 0 ? tr : 1, quant_part, q);
    int rc = 0;
    for (int t = 0; t < MAX_THREADS && !rc; t++)
        if (q->rc[t]) {
            rc = q->rc[t];
            if (err && errlen) snprintf(err, errlen, "%s", q->err[t]);
        }
    free(q);
    return rc;
}

/* MXSF mode pairs from the codes: per k, (#wide A in column k)(#wide B in
 * row k) etc.  An operand that is not MXSF has one significand width: all
 * its elements count as one side ("wide" at its own sig_bits), so with one
 * MXSF operand the MACs split into MXSF-wide x other and MXSF-narrow x
 * other, as the timing mode's count_muls does with the configured fraction.
 * s->mul[wa][wb] (wa >= wb) replaced; 0, or -1 out of memory. */
static int count_mode_pairs(const mx_operand_fmt *fa, const mx_operand_fmt *fb, const uint16_t *ac,
                            const uint16_t *bc, long long nr, long long nc, long long K, mx_stats *s)
{
    const int bits_a[2] = {fa->sig_bits, fa->fp5_sig_bits}, bits_b[2] = {fb->sig_bits, fb->fp5_sig_bits};
    double cnt[2][2] = {{0, 0}, {0, 0}}; /* [A wide/narrow][B wide/narrow] */
    /* wide elements per k, counted row by row (integers: the same
     * doubles as the column-wise count) */
    long long *wka = calloc((size_t)K, sizeof *wka), *wkb = calloc((size_t)K, sizeof *wkb);
    if (!wka || !wkb) { free(wka); free(wkb); return -1; }
    if (fa->is_mxsf)
        for (long long i = 0; i < nr; i++)
            for (long long k = 0; k < K; k++) wka[k] += ((ac[i * K + k] >> 5) & 3) != 0;
    if (fb->is_mxsf)
        for (long long j = 0; j < nc; j++)
            for (long long k = 0; k < K; k++) wkb[k] += ((bc[j * K + k] >> 5) & 3) != 0;
    for (long long k = 0; k < K; k++) {
        double wa = nr, wb = nc;
        if (fa->is_mxsf) wa = (double)wka[k];
        if (fb->is_mxsf) wb = (double)wkb[k];
        cnt[0][0] += wa * wb;
        cnt[0][1] += wa * (nc - wb);
        cnt[1][0] += (nr - wa) * wb;
        cnt[1][1] += (nr - wa) * (nc - wb);
    }
    free(wka);
    free(wkb);
    double tot = cnt[0][0] + cnt[0][1] + cnt[1][0] + cnt[1][1], macs = (double)s->macs;
    for (int a = 0; a <= MX_SIG_MAX; a++)
        for (int b = 0; b <= MX_SIG_MAX; b++) s->mul[a][b] = 0;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            if (cnt[i][j] == 0) continue;
            int w1 = bits_a[i], w2 = bits_b[j];
            if (w1 < w2) { int t = w1; w1 = w2; w2 = t; }
            s->mul[w1][w2] += macs * cnt[i][j] / tot;
        }
    return 0;
}

/* The operand formats and the PE configuration of a GEMM's functional run
 * (*unit_scale: plain FP8/INT8 operands with scales of 2^0).  0; 1 when the
 * pair has no PE format (timed only, message in err); -1 on error. */
static int func_pe_config(const mx_arch_config *c, const mx_gemm *g, mx_operand_fmt *fa, mx_operand_fmt *fb,
                          mx_pe_config *pc, int *unit_scale, char *err, size_t errlen)
{
    const char *an = g->a_format[0] ? g->a_format : c->a_format;
    const char *bn = g->b_format[0] ? g->b_format : c->b_format;
    mx_operand_fmt_resolve(c, an, fa);
    mx_operand_fmt_resolve(c, bn, fb);
    mx_pe_fmt pf, pfb;
    /* mxsf_bN names carry their own FP5 bias */
    int b5a = fa->is_mxsf ? fa->elem.fp5_bias : c->mxsf_fp5_bias;
    int b5b = fb->is_mxsf ? fb->elem.fp5_bias : c->mxsf_fp5_bias;
    const char *pan = fa->is_mxsf ? "mxsf" : an, *pbn = fb->is_mxsf ? "mxsf" : bn;
    /* The PE takes a format per operand (mx_pe_config.fmt / fmt_b), but:
     * both operands MX block formats or both plain unit-scale ones (one scale
     * scheme per PE), BF16 only with BF16, and one FP5 bias per PE (two MXSF
     * operands must agree).  Other pairs are timed only. */
    if (mx_pe_fmt_parse(pan, &pf) != 0 || mx_pe_fmt_parse(pbn, &pfb) != 0 ||
        ((pf == MX_PE_BF16 || pfb == MX_PE_BF16) && pf != pfb) || fa->is_mx != fb->is_mx ||
        (fa->is_mxsf && fb->is_mxsf && b5a != b5b)) {
        if (err && errlen)
            snprintf(err, errlen, "GEMM '%s' (line %d): A %s x B %s has no PE format pair; timing only",
                     g->name, g->line, an, bn);
        return 1;
    }
    if (c->tile_rows > 0 && c->tile_rows != c->tile_cols && fa->is_mx)
        return efail(err, errlen, "GEMM '%s': functional mode needs square tiles (format.tile)", g->name);
    mx_pe_config_default(pf, pc);
    pc->fmt_b = pfb;
    pc->lanes = c->lanes;
    pc->block = c->tile_rows > 0 ? c->tile_cols : c->block_size;
    pc->align_width = c->align_width;
    pc->fp5_bias = fa->is_mxsf ? b5a : b5b; /* whichever operand is MXSF */
    /* plain (per-tensor, unit-scale) FP8/INT8 operands: scales of 2^0 */
    *unit_scale = !fa->is_mx && pf != MX_PE_BF16;
    if (*unit_scale && pc->block % pc->lanes) pc->block = pc->lanes;
    char perr[200];
    if (mx_pe_config_check(pc, perr, sizeof perr) != 0) {
        if (err && errlen) snprintf(err, errlen, "GEMM '%s': PE config: %s", g->name, perr);
        return -1;
    }
    return 0;
}

int mx_arch_gemm_functional(const mx_arch_config *c, const mx_gemm *g, const mx_func_data *d,
                            mx_stats *s, uint32_t *out, char *err, size_t errlen)
{
    return mx_arch_gemm_functional_mt(c, g, d, s, out, 1, err, errlen);
}

int mx_arch_gemm_functional_mt(const mx_arch_config *c, const mx_gemm *g, const mx_func_data *d,
                               mx_stats *s, uint32_t *out, int threads, char *err, size_t errlen)
{
    if (threads <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 0 ? (int)n : 1;
    }
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    if (mx_arch_gemm_timing(c, g, s, err, errlen) != 0) return -1;
    mx_operand_fmt fa, fb;
    mx_pe_config pc;
    int unit_scale;
    const int prc = func_pe_config(c, g, &fa, &fb, &pc, &unit_scale, err, errlen);
    if (prc != 0) return prc;
    const long long M = g->M, N = g->N, K = g->K;
    /* sample when too large (never with caller data or an output buffer) */
    if (!fa.is_mx) pc.block = unit_scale ? pc.block : c->block_size;
    long long gm = c->tile_rows > 0 && fa.is_mx ? c->tile_rows : 1;
    long long gn = c->tile_rows > 0 && fb.is_mx ? c->tile_cols : 1;
    long long *ri = malloc(sizeof *ri * (size_t)M), *ci = malloc(sizeof *ci * (size_t)N);
    if (!ri || !ci) { free(ri); free(ci); return efail(err, errlen, "%s: out of memory", g->name); }
    long long nr = M, nc = N;
    int sampled = 0;
    if ((double)M * N * K > (double)c->functional_max_macs && !out && !d->a && !d->b) {
        /* outputs budget: max_macs / K, split as a square of row and column groups */
        double outs = (double)c->functional_max_macs / (double)K;
        long long side = (long long)sqrt(outs);
        if (side < 1) side = 1;
        long long rg = (side + gm - 1) / gm, cg = (side + gn - 1) / gn;
        nr = pick(M, gm, rg, ri);
        nc = pick(N, gn, cg, ci);
        sampled = nr < M || nc < N;
    } else {
        for (long long i = 0; i < M; i++) ri[i] = i;
        for (long long j = 0; j < N; j++) ci[j] = j;
    }
    long long kb = pc.block;
    long long nkb = (K + kb - 1) / kb;
    size_t asz = (size_t)(nr * K), bsz = (size_t)(nc * K);
    float *A = malloc(sizeof *A * asz), *Bt = malloc(sizeof *Bt * bsz);
    uint16_t *ac = malloc(sizeof *ac * asz), *bc = malloc(sizeof *bc * bsz);
    uint8_t *as = malloc((size_t)(nr * nkb) + 1), *bs = malloc((size_t)(nc * nkb) + 1);
    int rc = -1;
    if (!A || !Bt || !ac || !bc || !as || !bs) { efail(err, errlen, "%s: out of memory", g->name); goto done; }
    {
        gen_job ga = {d, ri, K, N, 0, A}, gb = {d, ci, K, N, 1, Bt};
        par_for(threads, nr, 1, gen_rows, &ga);
        par_for(threads, nc, 1, gen_rows, &gb);
    }
    /* A (rows x K) tiles tr x tc; B^T (N x K) tiles are B's tiles transposed.
     * BF16 gets tr = 0: quantize_rows reads a non-MX operand's tr as its unit
     * scale block and fills ceil(K / tr) scales per row, more than the nkb
     * (block_size) the buffers have when format.tile is set (BF16 has no
     * scales; they are not read). */
    if (unit_scale) {
        quantize_rows_par(c, &fa, (int)kb, 0, nr, K, nkb, A, ac, as, threads, err, errlen);
        quantize_rows_par(c, &fb, (int)kb, 0, nc, K, nkb, Bt, bc, bs, threads, err, errlen);
    } else if (quantize_rows_par(c, &fa, fa.is_mx ? c->tile_rows : 0, c->tile_cols, nr, K, nkb, A, ac, as, threads,
                                 err, errlen) != 0 ||
               quantize_rows_par(c, &fb, fb.is_mx && c->tile_rows ? c->tile_cols : 0, c->tile_rows, nc, K, nkb, Bt, bc,
                                 bs, threads, err, errlen) != 0)
        goto done;

    if ((fa.is_mxsf || fb.is_mxsf) && count_mode_pairs(&fa, &fb, ac, bc, nr, nc, K, s) != 0) {
        efail(err, errlen, "%s: out of memory", g->name);
        goto done;
    }

    /* outputs tile by tile as the array computes them; partial sums chain
     * through the FP32 accumulator across K tiles (mx_pe_fast_row: the bits
     * of one mx_pe_dot call per output and K tile, decode tables built once) */
    mx_tiling tl;
    if (mx_arch_tiling(c, &fa, &fb, M, N, K, &tl, err, errlen) != 0) goto done;
    if (func_outputs(&pc, A, Bt, ac, as, bc, bs, nr, nc, K, tl.kt, ri, ci, N, out, threads, s) != 0) {
        efail(err, errlen, "%s: out of memory", g->name);
        goto done;
    }
    s->functional = 1;
    s->sampled = sampled;
    s->checked_outputs = nr * nc;
    s->qsnr_db = s->err_sq > 0 ? -10.0 * log10(s->err_sq / s->ref_sq) : INFINITY;
    rc = 0;
done:
    free(ri); free(ci); free(A); free(Bt); free(ac); free(bc); free(as); free(bs);
    return rc;
}
