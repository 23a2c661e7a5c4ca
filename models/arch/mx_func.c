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

/* ---- the outputs: PE bits and FP64 reference, rows split across threads ---- */

typedef struct {
    const mx_pe_fast *pf;
    const mx_pe_fast_b *pb;
    const float *A;             /* A rows x K                                  */
    const double *Bk;           /* B panels of K x REF_NC (reference), exact   */
    const uint16_t *ac;
    const uint8_t *as;
    long long K, nc, nkb, kt;
    long long r0, r1;           /* rows of this job                           */
    long long c0;               /* first row of the chunk                     */
    uint32_t *obuf;             /* chunk rows x nc                            */
    double *rbuf;
    mx_pe_fast_scratch sc;
    int fail;
} func_job;

enum { REF_NC = 16 }; /* columns per reference panel */

/* acc[c] = sum over k of a[k] * b[k][c], each a sequential FP64 sum from 0.
 * GCC/Clang vector extensions keep the 16 sums in registers (element-wise
 * IEEE operations: the same bits as scalar code; no contraction, see
 * util/mx_fp_env.h). */
typedef double ref_v2d __attribute__((vector_size(16)));

static void ref_panel(const float *a, const double *bp, long long K, double *acc)
{
    ref_v2d r0 = {0, 0}, r1 = r0, r2 = r0, r3 = r0, r4 = r0, r5 = r0, r6 = r0, r7 = r0;
    for (long long k = 0; k < K; k++) {
        const double xs = (double)a[k];
        const ref_v2d x = {xs, xs};
        const double *b = bp + k * REF_NC;
        ref_v2d t0, t1, t2, t3, t4, t5, t6, t7;
        memcpy(&t0, b + 0, 16); memcpy(&t1, b + 2, 16); memcpy(&t2, b + 4, 16); memcpy(&t3, b + 6, 16);
        memcpy(&t4, b + 8, 16); memcpy(&t5, b + 10, 16); memcpy(&t6, b + 12, 16); memcpy(&t7, b + 14, 16);
        r0 += x * t0; r1 += x * t1; r2 += x * t2; r3 += x * t3;
        r4 += x * t4; r5 += x * t5; r6 += x * t6; r7 += x * t7;
    }
    memcpy(acc + 0, &r0, 16); memcpy(acc + 2, &r1, 16); memcpy(acc + 4, &r2, 16); memcpy(acc + 6, &r3, 16);
    memcpy(acc + 8, &r4, 16); memcpy(acc + 10, &r5, 16); memcpy(acc + 12, &r6, 16); memcpy(acc + 14, &r7, 16);
}

static void *func_job_run(void *arg)
{
    func_job *j = arg;
    for (long long i = j->r0; i < j->r1; i++) {
        uint32_t *o = j->obuf + (i - j->c0) * j->nc;
        double *r = j->rbuf + (i - j->c0) * j->nc;
        mx_pe_fast_row(j->pf, j->pb, j->ac + i * j->K, j->pf->bf16 ? NULL : j->as + i * j->nkb, j->kt, &j->sc, o);
        /* FP64 reference: per output the sequential sum over k from 0, as one
         * dot loop per output; 16 outputs at once from a panel of B */
        const float *arow = j->A + i * j->K;
        for (long long p = 0; p * REF_NC < j->nc; p++) {
            double acc[REF_NC];
            ref_panel(arow, j->Bk + p * j->K * REF_NC, j->K, acc);
            for (int c = 0; c < REF_NC && p * REF_NC + c < j->nc; c++) r[p * REF_NC + c] = acc[c];
        }
    }
    return NULL;
}

static int func_outputs(const mx_pe_config *pc, const float *A, const float *Bt, const uint16_t *ac,
                        const uint8_t *as, const uint16_t *bc, const uint8_t *bs, long long nr, long long nc,
                        long long K, long long kt, const long long *ri, const long long *ci, long long N,
                        uint32_t *out, int threads, mx_stats *s)
{
    enum { MAX_THREADS = 64 };
    if (threads <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 0 ? (int)n : 1;
    }
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
    mx_pe_fast_b pb;
    const long long nref = (nc + REF_NC - 1) / REF_NC;
    double *Bk = malloc(sizeof *Bk * (size_t)(K * nref * REF_NC) + 1);
    uint32_t *obuf = malloc(sizeof *obuf * (size_t)(chunk * nc) + 1);
    double *rbuf = malloc(sizeof *rbuf * (size_t)(chunk * nc) + 1);
    func_job jobs[MAX_THREADS];
    int njobs = 0, rc = -1;
    memset(&pb, 0, sizeof pb);
    if (!Bk || !obuf || !rbuf || mx_pe_fast_b_prepare(&pf, bc, bs, nc, K, &pb) != 0) goto out;
    for (long long j = 0; j < nref * REF_NC; j++)
        for (long long k = 0; k < K; k++)
            Bk[(j / REF_NC) * K * REF_NC + k * REF_NC + j % REF_NC] = j < nc ? (double)Bt[j * K + k] : 0.0;
    for (; njobs < threads; njobs++) {
        func_job *j = &jobs[njobs];
        memset(j, 0, sizeof *j);
        j->pf = &pf; j->pb = &pb; j->A = A; j->Bk = Bk; j->ac = ac; j->as = as;
        j->K = K; j->nc = nc; j->nkb = nkb; j->kt = kt; j->obuf = obuf; j->rbuf = rbuf;
        if (mx_pe_fast_scratch_init(&j->sc, K, nkb) != 0) goto out;
    }
    double err_sq = 0, ref_sq = 0, max_err = 0;
    for (long long c0 = 0; c0 < nr; c0 += chunk) {
        const long long c1 = nr - c0 < chunk ? nr : c0 + chunk;
        pthread_t tid[MAX_THREADS];
        int started[MAX_THREADS];
        for (int t = 0; t < threads; t++) {
            func_job *j = &jobs[t];
            j->c0 = c0;
            j->r0 = c0 + (c1 - c0) * t / threads;
            j->r1 = c0 + (c1 - c0) * (t + 1) / threads;
            started[t] = t > 0 && pthread_create(&tid[t], NULL, func_job_run, j) == 0;
        }
        for (int t = 0; t < threads; t++)
            if (!started[t]) func_job_run(&jobs[t]); /* the caller's share, or a thread that did not start */
        for (int t = 1; t < threads; t++)
            if (started[t]) pthread_join(tid[t], NULL);
        for (long long i = c0; i < c1; i++)
            for (long long j = 0; j < nc; j++) {
                const uint32_t acc = obuf[(i - c0) * nc + j];
                const double r = rbuf[(i - c0) * nc + j];
                float y;
                memcpy(&y, &acc, sizeof y);
                double e = (double)y - r;
                err_sq += e * e;
                ref_sq += r * r;
                if (fabs(e) > max_err || isnan(e)) max_err = fabs(e);
                if (out) out[ri[i] * N + ci[j]] = acc;
            }
    }
    s->err_sq = err_sq;
    s->ref_sq = ref_sq;
    s->max_abs_err = max_err;
    rc = 0;
out:
    for (int t = 0; t < njobs; t++) mx_pe_fast_scratch_free(&jobs[t].sc);
    mx_pe_fast_b_free(&pb);
    free(Bk); free(obuf); free(rbuf);
    return rc;
}

int mx_arch_gemm_functional(const mx_arch_config *c, const mx_gemm *g, const mx_func_data *d,
                            mx_stats *s, uint32_t *out, char *err, size_t errlen)
{
    return mx_arch_gemm_functional_mt(c, g, d, s, out, 1, err, errlen);
}

int mx_arch_gemm_functional_mt(const mx_arch_config *c, const mx_gemm *g, const mx_func_data *d,
                               mx_stats *s, uint32_t *out, int threads, char *err, size_t errlen)
{
    if (mx_arch_gemm_timing(c, g, s, err, errlen) != 0) return -1;
    mx_operand_fmt fa, fb;
    const char *an = g->a_format[0] ? g->a_format : c->a_format;
    const char *bn = g->b_format[0] ? g->b_format : c->b_format;
    mx_operand_fmt_resolve(c, an, &fa);
    mx_operand_fmt_resolve(c, bn, &fb);
    mx_pe_fmt pf, pfb;
    /* mxsf_bN names carry their own FP5 bias */
    int b5a = fa.is_mxsf ? fa.elem.fp5_bias : c->mxsf_fp5_bias;
    int b5b = fb.is_mxsf ? fb.elem.fp5_bias : c->mxsf_fp5_bias;
    const char *pan = fa.is_mxsf ? "mxsf" : an, *pbn = fb.is_mxsf ? "mxsf" : bn;
    /* The PE takes a format per operand (mx_pe_config.fmt / fmt_b), but:
     * both operands MX block formats or both plain unit-scale ones (one scale
     * scheme per PE), BF16 only with BF16, and one FP5 bias per PE (two MXSF
     * operands must agree).  Other pairs are timed only. */
    if (mx_pe_fmt_parse(pan, &pf) != 0 || mx_pe_fmt_parse(pbn, &pfb) != 0 ||
        ((pf == MX_PE_BF16 || pfb == MX_PE_BF16) && pf != pfb) || fa.is_mx != fb.is_mx ||
        (fa.is_mxsf && fb.is_mxsf && b5a != b5b)) {
        if (err && errlen)
            snprintf(err, errlen, "GEMM '%s' (line %d): A %s x B %s has no PE format pair; timing only",
                     g->name, g->line, an, bn);
        return 1;
    }
    if (c->tile_rows > 0 && c->tile_rows != c->tile_cols && fa.is_mx)
        return efail(err, errlen, "GEMM '%s': functional mode needs square tiles (format.tile)", g->name);
    mx_pe_config pc;
    mx_pe_config_default(pf, &pc);
    pc.fmt_b = pfb;
    pc.lanes = c->lanes;
    pc.block = c->tile_rows > 0 ? c->tile_cols : c->block_size;
    pc.align_width = c->align_width;
    pc.fp5_bias = fa.is_mxsf ? b5a : b5b; /* whichever operand is MXSF */
    /* plain (per-tensor, unit-scale) FP8/INT8 operands: scales of 2^0 */
    const int unit_scale = !fa.is_mx && pf != MX_PE_BF16;
    if (unit_scale && pc.block % pc.lanes) pc.block = pc.lanes;
    char perr[200];
    if (mx_pe_config_check(&pc, perr, sizeof perr) != 0) {
        if (err && errlen) snprintf(err, errlen, "GEMM '%s': PE config: %s", g->name, perr);
        return -1;
    }
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
    for (long long i = 0; i < nr; i++)
        for (long long k = 0; k < K; k++)
            A[i * K + k] = d->a ? d->a[ri[i] * K + k] : (float)gauss_at(d->seed, 0, (uint64_t)ri[i], (uint64_t)k);
    for (long long j = 0; j < nc; j++)
        for (long long k = 0; k < K; k++)
            Bt[j * K + k] = d->b ? d->b[k * N + ci[j]] : (float)gauss_at(d->seed, 1, (uint64_t)k, (uint64_t)ci[j]);
    /* A (rows x K) tiles tr x tc; B^T (N x K) tiles are B's tiles transposed */
    if (unit_scale) {
        quantize_rows(c, &fa, (int)kb, 0, nr, K, A, ac, as, err, errlen);
        quantize_rows(c, &fb, (int)kb, 0, nc, K, Bt, bc, bs, err, errlen);
    } else if (quantize_rows(c, &fa, c->tile_rows, c->tile_cols, nr, K, A, ac, as, err, errlen) != 0 ||
               quantize_rows(c, &fb, c->tile_rows ? c->tile_cols : 0, c->tile_rows, nc, K, Bt, bc, bs, err, errlen) != 0)
        goto done;

    /* MXSF mode pairs from the codes: per k, (#wide A in column k)(#wide B in
     * row k) etc.  An operand that is not MXSF has one significand width:
     * all its elements count as one side ("wide" at its own sig_bits), so
     * with one MXSF operand the MACs split into MXSF-wide x other and
     * MXSF-narrow x other, as the timing mode's count_muls does with the
     * configured fraction.  mul[wa][wb] keeps wa >= wb. */
    if (fa.is_mxsf || fb.is_mxsf) {
        const int bits_a[2] = {fa.sig_bits, fa.fp5_sig_bits}, bits_b[2] = {fb.sig_bits, fb.fp5_sig_bits};
        double cnt[2][2] = {{0, 0}, {0, 0}}; /* [A wide/narrow][B wide/narrow] */
        for (long long k = 0; k < K; k++) {
            double wa = nr, wb = nc;
            if (fa.is_mxsf) { wa = 0; for (long long i = 0; i < nr; i++) wa += ((ac[i * K + k] >> 5) & 3) != 0; }
            if (fb.is_mxsf) { wb = 0; for (long long j = 0; j < nc; j++) wb += ((bc[j * K + k] >> 5) & 3) != 0; }
            cnt[0][0] += wa * wb;
            cnt[0][1] += wa * (nc - wb);
            cnt[1][0] += (nr - wa) * wb;
            cnt[1][1] += (nr - wa) * (nc - wb);
        }
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
