/*
 * mx_pe_fast.c — mx_pe_dot() with the decode tables built once per GEMM, the
 * fixed-point group sums as integer multiply-adds over 8 output columns at
 * once, and the two FP32 roundings done by the host's IEEE arithmetic.  The
 * exactness argument is in mx_pe_fast.h; the same bits as mx_pe_dot() are
 * checked by tests/test_func_fast.cpp.
 */
#include "units/mx_pe_fast.h"
#include "units/mx_decode.h"
#include "units/mx_accum.h"
#include "formats/mx_format.h"

#include <stdlib.h>
#include <string.h>

static inline double pow2d(int e);

/* ---- tables ----------------------------------------------------------------- */

static void decode_table(mx_pe_fmt fmt, int b5, int32_t *sig, int32_t *lsb, uint8_t *spec)
{
    for (uint32_t c = 0; c < 256; c++) {
        mx_decode_in di = {c, fmt, b5};
        mx_decode_out o;
        mx_decode_comb(&di, &o);
        sig[c] = o.sign_o ? -(int32_t)o.sig_o : (int32_t)o.sig_o;
        lsb[c] = o.lsb_o;
        spec[c] = (uint8_t)(o.nan_o ? 1 : o.inf_o ? (o.sign_o ? 3 : 2) : 0);
    }
}

static void lsb_range(const int32_t *sig, const int32_t *lsb, int *lmin, int *lmax)
{
    int lo = 1 << 20, hi = -(1 << 20);
    for (int c = 0; c < 256; c++)
        if (sig[c]) {
            if (lsb[c] < lo) lo = lsb[c];
            if (lsb[c] > hi) hi = lsb[c];
        }
    if (hi < lo) lo = hi = 0;
    *lmin = lo;
    *lmax = hi;
}

static int ceil_log2(int x) { int b = 0; while ((1 << b) < x) b++; return b; }

void mx_pe_fast_init(mx_pe_fast *f, const mx_pe_config *cfg)
{
    memset(f, 0, sizeof *f);
    f->cfg = *cfg;
    f->bf16 = cfg->fmt == MX_PE_BF16;
    /* double panels: a group is summed exactly in double when its product
     * exponents span <= dlim: <= G (no truncation) and <= 53 - 16 - log2 L
     * (the sum's bits fit a double's significand) */
    f->dlim = cfg->align_width - MX_PE_PROD_W;
    if (f->dlim > 53 - MX_PE_PROD_W - ceil_log2(cfg->lanes)) f->dlim = 53 - MX_PE_PROD_W - ceil_log2(cfg->lanes);
    if (f->bf16) { f->dpanel = 1; return; }
    decode_table(cfg->fmt, cfg->fp5_bias, f->sig_a, f->lsb_a, f->spec_a);
    decode_table(cfg->fmt_b, cfg->fp5_bias, f->sig_b, f->lsb_b, f->spec_b);
    for (int c = 0; c < 256; c++) {
        f->has_special |= f->spec_a[c] | f->spec_b[c];
        f->lz_a[c] = f->sig_a[c] ? f->lsb_a[c] : MX_PE_FAST_LZ;
        f->lz_b[c] = f->sig_b[c] ? f->lsb_b[c] : MX_PE_FAST_LZ;
    }
    int lmax_a, lmax_b;
    lsb_range(f->sig_a, f->lsb_a, &f->lmin_a, &lmax_a);
    lsb_range(f->sig_b, f->lsb_b, &f->lmin_b, &lmax_b);
    const int span_a = lmax_a - f->lmin_a, span_b = lmax_b - f->lmin_b;
    const int guard = cfg->align_width - MX_PE_PROD_W;
    for (int c = 0; c < 256; c++) {
        f->da[c] = f->spec_a[c] ? 0.0 : (double)f->sig_a[c] * pow2d(f->lsb_a[c]);
        f->db[c] = f->spec_b[c] ? 0.0 : (double)f->sig_b[c] * pow2d(f->lsb_b[c]);
        f->ax[c] = (int16_t)f->lz_a[c];
        f->bx[c] = (int16_t)f->lz_b[c];
        f->an[c] = (int16_t)(f->sig_a[c] ? f->lsb_a[c] : -MX_PE_FAST_LZ);
        f->bn[c] = (int16_t)(f->sig_b[c] ? f->lsb_b[c] : -MX_PE_FAST_LZ);
    }
    /* the same condition as mx_pe_dot's fixed-point path */
    f->fixed = !f->has_special && span_a + span_b <= guard && span_a <= 20 && span_b <= 20;
    if (!f->fixed) { f->dpanel = 1; return; }
    long long ma = 0, mb = 0;
    for (int c = 0; c < 256; c++) {
        f->va[c] = f->sig_a[c] * (1 << (f->lsb_a[c] - f->lmin_a));
        f->vb[c] = f->sig_b[c] * (1 << (f->lsb_b[c] - f->lmin_b));
        long long xa = f->va[c] < 0 ? -(long long)f->va[c] : f->va[c];
        long long xb = f->vb[c] < 0 ? -(long long)f->vb[c] : f->vb[c];
        if (xa > ma) ma = xa;
        if (xb > mb) mb = xb;
    }
    f->panel = ma <= 32767 && mb <= 32767 && (long long)cfg->lanes * ma * mb < (1ll << 31);
    f->dpanel = !f->panel;
    if (f->panel)
        for (int c = 0; c < 256; c++) { f->va16[c] = (int16_t)f->va[c]; f->vb16[c] = (int16_t)f->vb[c]; }
}

/* ---- roundings -------------------------------------------------------------- */

static inline double pow2d(int e) /* e in [-1022, 1023] */
{
    uint64_t u = (uint64_t)(e + 1023) << 52;
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static inline float f32_of(uint32_t u) { float x; memcpy(&x, &u, sizeof x); return x; }
static inline uint32_t bits_of(float x) { uint32_t u; memcpy(&u, &x, sizeof u); return u; }

/* The accumulator after >= 1 group: NaN results are the canonical quiet NaN. */
static inline uint32_t acc_bits(float acc)
{
    uint32_t u = bits_of(acc);
    return (u & 0x7FFFFFFFu) > 0x7F800000u ? MX_FP32_QNAN : u;
}

/* RNE_fp32(t * 2^e) for |t| < 2^53 and a normal 2^e: exact product in double,
 * one correctly rounded conversion. */
static inline float group_f32(int64_t t, int e) { return (float)((double)t * pow2d(e)); }

/* ---- one dot product ------------------------------------------------------------ */

typedef struct { int32_t sig, lsb; int special; } elem;

static inline elem dec_bf16(uint32_t c)
{
    elem e;
    uint32_t E = (c >> 7) & 0xFF, M = c & 0x7F;
    int32_t sig = (int32_t)(E ? 128 | M : M);
    e.special = E == 255 ? (M ? 1 : (c & 0x8000) ? 3 : 2) : 0;
    e.sig = E == 255 ? 0 : (c & 0x8000) ? -sig : sig;
    e.lsb = E == 255 ? 0 : (E ? (int)E : 1) - 134;
    return e;
}

/* One cycle group of n <= L lanes on the aligned datapath: acc + g, with the
 * scales *xs_a, *xs_b (NULL for BF16).  One pass for e_max over the non-zero
 * products (a zero code's lsb is MX_PE_FAST_LZ, so a lane with a zero product
 * never wins), then lane i contributes trunc(|p_i| * 2^(G - (e_max - e_i)))
 * with its sign, (|p_i| << G) >> (e_max - e_i) as the aligner does it (exact
 * within G binades of e_max, truncated below; 0 when e_max - e_i >=
 * align_width, since |p_i| < 2^16), without branches.  Groups with a NaN/Inf
 * code or a NaN scale go through mx_pe_dot on the group alone. */
static float group_aligned(const mx_pe_fast *f, const uint16_t *a, const uint16_t *b, int n,
                           const uint8_t *xs_a, const uint8_t *xs_b, float acc)
{
    const int guard = f->cfg.align_width - MX_PE_PROD_W;
    const int use_scale = !f->bf16;
    int32_t p[MX_PE_MAX_LANES], ex[MX_PE_MAX_LANES];
    uint8_t xa = 127, xb = 127;
    if (use_scale) { xa = *xs_a; xb = *xs_b; }
    int special = use_scale && (xa == 0xFF || xb == 0xFF);
    int emax = 2 * MX_PE_FAST_LZ;
    if (f->bf16) {
        for (int i = 0; i < n; i++) {
            const elem ea = dec_bf16(a[i]), eb = dec_bf16(b[i]);
            special |= ea.special | eb.special;
            p[i] = ea.sig * eb.sig;
            ex[i] = (ea.sig ? ea.lsb : MX_PE_FAST_LZ) + (eb.sig ? eb.lsb : MX_PE_FAST_LZ);
            emax = ex[i] > emax ? ex[i] : emax;
        }
    } else {
        for (int i = 0; i < n; i++) {
            const uint32_t ca = a[i] & 0xFF, cb = b[i] & 0xFF;
            special |= f->spec_a[ca] | f->spec_b[cb];
            p[i] = f->sig_a[ca] * f->sig_b[cb];
            ex[i] = f->lz_a[ca] + f->lz_b[cb];
            emax = ex[i] > emax ? ex[i] : emax;
        }
    }
    if (special) /* NaN/Inf: the unit models */
        return f32_of(mx_pe_dot(&f->cfg, a, xs_a, b, xs_b, n, bits_of(acc)));
    if (emax < MX_PE_FAST_LZ / 2) return acc + 0.0f; /* every product is zero: g = +0 */
    int64_t sum = 0;
    for (int i = 0; i < n; i++) {
        const int dd = emax - ex[i]; /* >= 0; |p_i| << G < 2^56, so >> 63 gives 0 */
        const int64_t sg = p[i] < 0 ? -1 : 0;      /* sign as a mask: no branch */
        const uint64_t m = (uint64_t)(((int64_t)p[i] ^ sg) - sg);
        const int64_t v = (int64_t)((m << guard) >> (dd < 63 ? dd : 63));
        sum += (v ^ sg) - sg;
    }
    const int e = emax - guard + (use_scale ? (int)xa + (int)xb - 254 : 0);
    if (sum > -(1ll << 53) && sum < (1ll << 53)) return acc + group_f32(sum, e);
    mx_format fp32;
    mx_format_lookup("fp32", &fp32);
    return acc + f32_of(mx_accum_group_fp32(&fp32, sum, e));
}

uint32_t mx_pe_dot_ctx(const mx_pe_fast *f, const uint16_t *a_codes, const uint8_t *a_scales,
                       const uint16_t *b_codes, const uint8_t *b_scales, int k,
                       uint32_t acc_fp32_bits)
{
    const mx_pe_config *cfg = &f->cfg;
    const int L = cfg->lanes, kb = cfg->block;
    const int use_scale = !f->bf16;
    if (k <= 0) return acc_fp32_bits;
    float acc = f32_of(acc_fp32_bits);
    int nan_scale = 0;
    if (use_scale)
        for (int i = 0; i < (k + kb - 1) / kb; i++) nan_scale |= a_scales[i] == 0xFF || b_scales[i] == 0xFF;
    if (f->fixed && !nan_scale) {
        /* L divides the block (mx_pe_config_check): a group never straddles two */
        for (int base = 0, blk = 0, inb = 0; base < k; base += L, inb += L) {
            if (inb == kb) { blk++; inb = 0; }
            const int n = k - base < L ? k - base : L;
            int64_t t = 0;
            for (int i = 0; i < n; i++) t += (int64_t)f->va[a_codes[base + i] & 0xFF] * f->vb[b_codes[base + i] & 0xFF];
            const int e = f->lmin_a + f->lmin_b + (int)a_scales[blk] + (int)b_scales[blk] - 254;
            acc += group_f32(t, e);
        }
        return acc_bits(acc);
    }
    for (int base = 0, blk = 0, inb = 0; base < k; base += L, inb += L) {
        if (inb == kb) { blk++; inb = 0; }
        const int n = k - base < L ? k - base : L;
        acc = group_aligned(f, a_codes + base, b_codes + base, n, use_scale ? a_scales + blk : NULL,
                            use_scale ? b_scales + blk : NULL, acc);
    }
    return acc_bits(acc);
}

/* ---- GEMM: B panels and one output row ------------------------------------------- */

void mx_pe_fast_b_free(mx_pe_fast_b *pb)
{
    free(pb->val);
    free(pb->fac);
    free(pb->nan_col);
    free(pb->dval);
    free(pb->ex);
    free(pb->en);
    memset(pb, 0, sizeof *pb);
}

/* Double panels of B: per panel K x 8 element values sig * 2^lsb (exact
 * doubles; 0 for NaN/Inf codes), lsb with zero codes at -+4096 for the
 * e_max / e_min of a group, per block 8 factors 2^(xb - 127) (1 for BF16);
 * nan_col marks columns with a NaN scale or a NaN/Inf code (scalar path). */
static int dpanel_prepare(const mx_pe_fast *f, mx_pe_fast_b *pb)
{
    const int NC = MX_PE_FAST_NC;
    const long long nc = pb->nc, K = pb->K, nkb = pb->nkb, np = (nc + NC - 1) / NC;
    pb->dval = malloc(sizeof *pb->dval * (size_t)(np * K * NC));
    pb->ex = malloc(sizeof *pb->ex * (size_t)(np * K * NC));
    pb->en = malloc(sizeof *pb->en * (size_t)(np * K * NC));
    pb->fac = malloc(sizeof *pb->fac * (size_t)(np * nkb * NC));
    pb->nan_col = calloc((size_t)nc + 1, 1);
    if (!pb->dval || !pb->ex || !pb->en || !pb->fac || !pb->nan_col) { mx_pe_fast_b_free(pb); return -1; }
    for (long long p = 0; p < np; p++)
        for (int c = 0; c < NC; c++) {
            const long long j = p * NC + c, o = p * K * NC + c;
            double *fc = pb->fac + p * nkb * NC + c;
            for (long long b = 0; b < nkb; b++) fc[b * NC] = 1.0;
            if (j >= nc) { /* padding columns: zeros */
                for (long long kk = 0; kk < K; kk++) {
                    pb->dval[o + kk * NC] = 0.0;
                    pb->ex[o + kk * NC] = MX_PE_FAST_LZ;
                    pb->en[o + kk * NC] = -MX_PE_FAST_LZ;
                }
                continue;
            }
            const uint16_t *bc = pb->codes + j * K;
            int bad = 0;
            for (long long kk = 0; kk < K; kk++) {
                elem e;
                if (f->bf16) e = dec_bf16(bc[kk]);
                else { const uint32_t cb = bc[kk] & 0xFF; e.sig = f->sig_b[cb]; e.lsb = f->lsb_b[cb]; e.special = f->spec_b[cb]; }
                bad |= e.special;
                pb->dval[o + kk * NC] = e.special ? 0.0 : (double)e.sig * pow2d(e.lsb);
                pb->ex[o + kk * NC] = (int16_t)(e.sig ? e.lsb : MX_PE_FAST_LZ);
                pb->en[o + kk * NC] = (int16_t)(e.sig ? e.lsb : -MX_PE_FAST_LZ);
            }
            if (!f->bf16) {
                const uint8_t *bs = pb->scales + j * nkb;
                for (long long b = 0; b < nkb; b++) {
                    bad |= bs[b] == 0xFF;
                    fc[b * NC] = pow2d((int)bs[b] - 127);
                }
            }
            pb->nan_col[j] = (uint8_t)(bad != 0);
        }
    return 0;
}

int mx_pe_fast_b_prepare(const mx_pe_fast *f, const uint16_t *b_codes, const uint8_t *b_scales,
                         long long nc, long long K, mx_pe_fast_b *pb)
{
    const int NC = MX_PE_FAST_NC;
    memset(pb, 0, sizeof *pb);
    pb->nc = nc;
    pb->K = K;
    pb->kb = f->bf16 ? K : f->cfg.block;
    pb->nkb = (K + pb->kb - 1) / pb->kb;
    pb->codes = b_codes;
    pb->scales = b_scales;
    if (f->dpanel) return dpanel_prepare(f, pb);
    if (!f->panel) return 0;
    const long long np = (nc + NC - 1) / NC;
    pb->val = malloc(sizeof *pb->val * (size_t)(np * K * NC));
    pb->fac = malloc(sizeof *pb->fac * (size_t)(np * pb->nkb * NC));
    pb->nan_col = calloc((size_t)nc + 1, 1);
    if (!pb->val || !pb->fac || !pb->nan_col) { mx_pe_fast_b_free(pb); return -1; }
    for (long long p = 0; p < np; p++)
        for (int c = 0; c < NC; c++) {
            const long long j = p * NC + c;
            int16_t *v = pb->val + p * K * NC + c;
            double *fc = pb->fac + p * pb->nkb * NC + c;
            if (j >= nc) { /* padding columns: zeros */
                for (long long kk = 0; kk < K; kk++) v[kk * NC] = 0;
                for (long long b = 0; b < pb->nkb; b++) fc[b * NC] = 1.0;
                continue;
            }
            const uint16_t *bc = b_codes + j * K;
            const uint8_t *bs = b_scales + j * pb->nkb;
            for (long long kk = 0; kk < K; kk++) v[kk * NC] = f->vb16[bc[kk] & 0xFF];
            for (long long b = 0; b < pb->nkb; b++) {
                pb->nan_col[j] |= bs[b] == 0xFF;
                fc[b * NC] = pow2d((int)bs[b] - 127 + f->lmin_b);
            }
        }
    return 0;
}

int mx_pe_fast_scratch_init(mx_pe_fast_scratch *s, long long K, long long nkb)
{
    s->K = K;
    s->va = malloc(sizeof *s->va * (size_t)(K + 1));
    s->fa = malloc(sizeof *s->fa * (size_t)(nkb + 1));
    s->da = malloc(sizeof *s->da * (size_t)(K + 1));
    s->ax = malloc(sizeof *s->ax * (size_t)(K + 1));
    s->an = malloc(sizeof *s->an * (size_t)(K + 1));
    if (!s->va || !s->fa || !s->da || !s->ax || !s->an) { mx_pe_fast_scratch_free(s); return -1; }
    return 0;
}

void mx_pe_fast_scratch_free(mx_pe_fast_scratch *s)
{
    free(s->va);
    free(s->fa);
    free(s->da);
    free(s->ax);
    free(s->an);
    s->va = NULL;
    s->fa = NULL;
    s->da = NULL;
    s->ax = NULL;
    s->an = NULL;
}

/* One row against one panel of 8 columns over all of K (K tiles chained):
 * per cycle group, 8 exact int32 group sums, then per column
 * acc += RNE_fp32(t * 2^(lmin_a + xa - 127) * 2^(lmin_b + xb - 127)). */
static void panel_row(const int16_t *va, const double *fa, const int16_t *vp, const double *fp,
                      long long K, long long kt, long long kb, int L, float *acc)
{
    enum { NC = MX_PE_FAST_NC };
    float a8[NC];
    for (int c = 0; c < NC; c++) a8[c] = 0.0f;
    for (long long k0 = 0; k0 < K; k0 += kt) {
        const long long kend = K - k0 < kt ? K : k0 + kt;
        for (long long base = k0; base < kend; base += L) {
            const int n = kend - base < L ? (int)(kend - base) : L;
            int32_t s[NC];
            for (int c = 0; c < NC; c++) s[c] = 0;
            const int16_t *ap = va + base, *bp = vp + base * NC;
            for (int l = 0; l < n; l++) {
                const int32_t a = ap[l];
                for (int c = 0; c < NC; c++) s[c] += a * (int32_t)bp[l * NC + c];
            }
            const long long blk = k0 / kb + (base - k0) / kb;
            const double x = fa[blk];
            const double *y = fp + blk * NC;
            for (int c = 0; c < NC; c++) a8[c] += (float)((double)s[c] * x * y[c]);
        }
    }
    for (int c = 0; c < NC; c++) acc[c] = a8[c];
}

/* One row against one double panel of 8 columns over all of K (K tiles
 * chained).  Per cycle group and column: the exact sum of the products in
 * double, e_max and e_min of the non-zero products; when e_max - e_min <=
 * dlim (or every product is zero) the aligner is exact and the sum is the
 * group's value: acc += RNE_fp32(sum * 2^(xa - 127) * 2^(xb - 127)) (both
 * factors exact); otherwise that column's group goes through group_aligned. */
static void dpanel_row(const mx_pe_fast *f, const mx_pe_fast_b *pb, long long p, const mx_pe_fast_scratch *s,
                       const uint16_t *a_codes, const uint8_t *a_scales, long long kt, float *acc)
{
    enum { NC = MX_PE_FAST_NC };
    const long long K = pb->K, kb = pb->kb, nkb = pb->nkb, nc = pb->nc;
    const int L = f->cfg.lanes, lim = f->dlim;
    const double *vb = pb->dval + p * K * NC, *fb = pb->fac + p * nkb * NC;
    const int16_t *bx = pb->ex + p * K * NC, *bn = pb->en + p * K * NC;
    float a8[NC];
    for (int c = 0; c < NC; c++) a8[c] = 0.0f;
    for (long long k0 = 0; k0 < K; k0 += kt) {
        const long long kend = K - k0 < kt ? K : k0 + kt;
        for (long long base = k0; base < kend; base += L) {
            const int n = kend - base < L ? (int)(kend - base) : L;
            double sm[NC];
            int16_t mx[NC], mn[NC];
            for (int c = 0; c < NC; c++) { sm[c] = 0.0; mx[c] = 2 * MX_PE_FAST_LZ; mn[c] = -2 * MX_PE_FAST_LZ; }
            for (int l = 0; l < n; l++) {
                const double a = s->da[base + l];
                const int16_t ax = s->ax[base + l], an = s->an[base + l];
                const double *bv = vb + (base + l) * NC;
                const int16_t *bxx = bx + (base + l) * NC, *bnn = bn + (base + l) * NC;
                for (int c = 0; c < NC; c++) {
                    sm[c] += a * bv[c];
                    const int16_t e1 = (int16_t)(ax + bxx[c]), e2 = (int16_t)(an + bnn[c]);
                    mx[c] = e1 > mx[c] ? e1 : mx[c];
                    mn[c] = e2 < mn[c] ? e2 : mn[c];
                }
            }
            const long long blk = k0 / kb + (base - k0) / kb;
            const double x = s->fa[blk];
            const double *y = fb + blk * NC;
            for (int c = 0; c < NC; c++) {
                if (mx[c] - mn[c] <= lim || mx[c] < MX_PE_FAST_LZ / 2) {
                    a8[c] += (float)(sm[c] * x * y[c]);
                } else if (p * NC + c < nc) {
                    const long long j = p * NC + c;
                    a8[c] = group_aligned(f, a_codes + base, pb->codes + j * K + base, n,
                                          f->bf16 ? NULL : a_scales + blk, f->bf16 ? NULL : pb->scales + j * nkb + blk,
                                          a8[c]);
                }
            }
        }
    }
    for (int c = 0; c < NC; c++) acc[c] = a8[c];
}

void mx_pe_fast_row(const mx_pe_fast *f, const mx_pe_fast_b *pb, const uint16_t *a_codes,
                    const uint8_t *a_scales, long long kt, mx_pe_fast_scratch *s, uint32_t *out)
{
    const long long K = pb->K, nc = pb->nc, kb = pb->kb, nkb = pb->nkb;
    const int NC = MX_PE_FAST_NC;
    if (kt <= 0 || kt > K) kt = K;
    int row_nan = 0;
    if (f->panel) {
        for (long long b = 0; b < nkb; b++) {
            row_nan |= a_scales[b] == 0xFF;
            s->fa[b] = pow2d((int)a_scales[b] - 127 + f->lmin_a);
        }
    }
    if (f->dpanel) {
        if (!f->bf16)
            for (long long b = 0; b < nkb; b++) {
                row_nan |= a_scales[b] == 0xFF;
                s->fa[b] = pow2d((int)a_scales[b] - 127);
            }
        else s->fa[0] = 1.0;
        for (long long kk = 0; kk < K; kk++) {
            elem e;
            if (f->bf16) e = dec_bf16(a_codes[kk]);
            else { const uint32_t ca = a_codes[kk] & 0xFF; e.sig = f->sig_a[ca]; e.lsb = f->lsb_a[ca]; e.special = f->spec_a[ca]; }
            row_nan |= e.special;
            s->da[kk] = e.special ? 0.0 : (double)e.sig * pow2d(e.lsb);
            s->ax[kk] = (int16_t)(e.sig ? e.lsb : MX_PE_FAST_LZ);
            s->an[kk] = (int16_t)(e.sig ? e.lsb : -MX_PE_FAST_LZ);
        }
        if (!row_nan) {
            float acc[MX_PE_FAST_NC];
            for (long long p = 0; p * NC < nc; p++) {
                dpanel_row(f, pb, p, s, a_codes, a_scales, kt, acc);
                for (int c = 0; c < NC && p * NC + c < nc; c++) out[p * NC + c] = acc_bits(acc[c]);
            }
        }
    }
    const int vec = (f->panel || f->dpanel) && !row_nan; /* the panels computed this row */
    if (f->panel && !row_nan) {
        for (long long kk = 0; kk < K; kk++) s->va[kk] = f->va16[a_codes[kk] & 0xFF];
        float acc[MX_PE_FAST_NC];
        for (long long p = 0; p * NC < nc; p++) {
            panel_row(s->va, s->fa, pb->val + p * K * NC, pb->fac + p * nkb * NC, K, kt, kb, f->cfg.lanes, acc);
            for (int c = 0; c < NC && p * NC + c < nc; c++) out[p * NC + c] = acc_bits(acc[c]);
        }
    }
    /* everything else, and the columns with a NaN scale: one dot per K tile */
    for (long long j = 0; j < nc; j++) {
        if (vec && !pb->nan_col[j]) continue;
        const uint16_t *bc = pb->codes + j * K;
        const uint8_t *bs = f->bf16 ? NULL : pb->scales + j * nkb;
        uint32_t acc = 0;
        for (long long k0 = 0; k0 < K; k0 += kt) {
            const int kk = (int)(K - k0 < kt ? K - k0 : kt);
            acc = mx_pe_dot_ctx(f, a_codes + k0, f->bf16 ? NULL : a_scales + k0 / kb, bc + k0,
                                bs ? bs + k0 / kb : NULL, kk, acc);
        }
        out[j] = acc;
    }
}
