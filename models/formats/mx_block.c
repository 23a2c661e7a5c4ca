/*
 * mx_block.c — MX block quantization over N-D tensors (SPEC §2.1).
 *
 * Every block, 1-D or a 2-D tile, is walked as a small matrix view
 * (rows x cols with a row stride and a column stride into the tensor), so one
 * routine quantizes both shapes, tails and edge tiles included.
 */
#include "formats/mx_block.h"
#include "formats/mx_policy.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int msb64(uint64_t x) { return 63 - __builtin_clzll(x); }

int mx_block_format_lookup(const char *name, mx_format *elem)
{
    static const struct { const char *mx, *elem; } names[] = {
        {"mxfp8_e4m3", "fp8_e4m3"}, {"mxfp8_e5m2", "fp8_e5m2"}, {"mxfp6_e3m2", "fp6_e3m2"},
        {"mxfp6_e2m3", "fp6_e2m3"}, {"mxfp4", "fp4_e2m1"},      {"mxint8", "int8"},
        {"mxfp8_e2m5", "fp8_e2m5"}, {"mxsf", "mxsf"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i].mx) == 0) return mx_format_lookup(names[i].elem, elem);
    return -1;
}

int mx_scale_rule_parse(const char *s, mx_scale_rule *out)
{
    static const char *names[] = {"floor", "ceil", "even", "rceil"};
    for (int i = 0; i < 4; i++)
        if (strcmp(s, names[i]) == 0) { *out = (mx_scale_rule)i; return 0; }
    return -1;
}

size_t mx_shape_count(const mx_shape *sh)
{
    size_t n = 1;
    for (int i = 0; i < sh->ndim; i++) n *= sh->dim[i];
    return n;
}

/* FP32 bits -> magnitude sig * 2^exp (finite values only). */
static inline void unpack_f32(float x, int *sign, uint64_t *sig, int *exp)
{
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    int ef = (int)((b >> 23) & 0xFF);
    *sign = (int)(b >> 31);
    *sig = ef ? ((b & 0x7FFFFF) | 0x800000u) : (b & 0x7FFFFF);
    *exp = ef ? ef - 150 : -149;
}

uint8_t mx_block_scale(const mx_block_spec *s, float amax)
{
    const mx_format *f = &s->elem;
    int sign, exp, se;
    uint64_t sig;
    if (!(amax > 0)) return 0; /* all-zero block: the smallest scale */
    unpack_f32(amax, &sign, &sig, &exp);
    int top = msb64(sig);
    int e = top + exp; /* floor(log2 amax), exact */
    switch (s->scale_rule) {
    case MX_SCALE_CEIL:
        se = e + ((sig & (sig - 1)) != 0) - f->emax;
        break;
    case MX_SCALE_EVEN: {
        /* round amax (RNE) to the element's precision in its top binade */
        int p = msb64(f->max_sig); /* fraction bits below the leading one */
        int drop = top - p;
        int carry = 0;
        if (drop > 0) {
            uint64_t kept = sig >> drop, rest = sig & ((1ull << drop) - 1), half = 1ull << (drop - 1);
            if (rest > half || (rest == half && (kept & 1))) kept++;
            carry = kept >> (p + 1) != 0;
        }
        se = e + carry - f->emax;
        break;
    }
    case MX_SCALE_RCEIL: {
        int s0 = e - f->emax; /* amax <= max_normal * 2^s0 ? s0 : s0 + 1 */
        se = (ldexp((double)sig, exp) <= ldexp((double)f->max_sig, f->max_exp + s0)) ? s0 : s0 + 1;
        break;
    }
    case MX_SCALE_FLOOR:
    default:
        se = e - f->emax;
        break;
    }
    if (se > 127) return 0xFF;
    if (se < -127) se = -127;
    return (uint8_t)(se + 127);
}

int mx_block_scale_shape(const mx_block_spec *s, const mx_shape *in, mx_shape *scales,
                         char *err, size_t errlen)
{
    *scales = *in;
    if (s->tile_rows > 0 || s->tile_cols > 0) {
        if (s->tile_rows < 1 || s->tile_cols < 1) {
            snprintf(err, errlen, "tile %dx%d: both sides must be at least 1", s->tile_rows, s->tile_cols);
            return -1;
        }
        if (in->ndim < 2) {
            snprintf(err, errlen, "tile %dx%d needs a tensor of rank >= 2 (rank is %d)",
                     s->tile_rows, s->tile_cols, in->ndim);
            return -1;
        }
        scales->dim[in->ndim - 2] = (in->dim[in->ndim - 2] + (size_t)s->tile_rows - 1) / (size_t)s->tile_rows;
        scales->dim[in->ndim - 1] = (in->dim[in->ndim - 1] + (size_t)s->tile_cols - 1) / (size_t)s->tile_cols;
        return 0;
    }
    if (s->block < 1) {
        snprintf(err, errlen, "block size %d: must be at least 1", s->block);
        return -1;
    }
    if (in->ndim < 1) {
        snprintf(err, errlen, "a 0-d tensor has no axis for blocks");
        return -1;
    }
    int a = s->axis < 0 ? s->axis + in->ndim : s->axis;
    if (a < 0 || a >= in->ndim) {
        snprintf(err, errlen, "axis %d out of range for a tensor of rank %d", s->axis, in->ndim);
        return -1;
    }
    scales->dim[a] = (in->dim[a] + (size_t)s->block - 1) / (size_t)s->block;
    return 0;
}

/* One block as a matrix view into the tensor. */
typedef struct {
    size_t base, rows, cols, row_stride, col_stride;
} block_view;

static uint32_t nan_element_code(const mx_format *f)
{
    mx_encode_opts o = {MX_ROUND_EVEN, MX_OVERFLOW_INF_NAN, NULL};
    return mx_encode(f, NAN, &o, NULL);
}

/* Largest magnitude of the block as FP32 bits; >= 0x7F800000 when the block
 * holds a NaN or an Inf (their bit patterns sort above every finite value). */
static uint32_t block_amax_bits(const block_view *v, const float *x)
{
    uint32_t m = 0;
    for (size_t r = 0; r < v->rows; r++) {
        const float *row = x + v->base + r * v->row_stride;
        for (size_t c = 0; c < v->cols; c++) {
            uint32_t b;
            memcpy(&b, &row[c * v->col_stride], sizeof b);
            b &= 0x7FFFFFFFu;
            m = b > m ? b : m;
        }
    }
    return m;
}

/* Fast quantize-dequantize: y = |x| 2^-se is rounded to its quantum 2^q by
 * the FPU itself, r = (y + 2^(q+23)) - 2^(q+23) (round to nearest even), the
 * constant looked up by y's exponent field.  Ties away from zero and floor are
 * RNE plus an exact correction: d = y - r is exact, a tie shows as d = +q/2
 * (RNE went down: go up), and floor steps back one quantum when r > y.  Then r
 * is clamped to max_normal.  Every step but the one RNE addition is exact, so
 * the result equals the generic path (Block.FastPathEqualsGenericPath).
 * This needs strict IEEE evaluation: -ffast-math would fold (y + m) - m to y
 * and x87 excess precision would round twice, so util/mx_fp_env.h refuses
 * both at compile time (make test-fp-env; make test-o3 runs this file's tests
 * at -O3 -march=native).
 *
 * Codes from r: r is a representable magnitude, and within one binade the
 * representable values are consecutive codes one quantum apart (IEEE-style
 * floats, MXSF's E2M5 and FP5 modes, INT), so with r's FP32 exponent field ef
 * and significand m = 1.f x 2^23 the code magnitude is
 *     (m >> shift[ef]) + add[ef],  shift = 23 - (e - q),  e = ef - 127,
 * add = code(2^e) - 2^(e - q), code(2^e) taken once from mx_encode.  The sign
 * is a sign bit, or two's complement for INT (as mx_round_pack packs it). */
typedef struct {
    float magic[256];  /* 2^(q+23) per FP32 exponent field of y */
    float max_normal;
    mx_round round;
    uint8_t shift[256];    /* codes: see above (ef of a representable r) */
    int16_t add[256];
    uint16_t sign_bit;     /* 0: two's complement (INT) */
    uint16_t code_mask;
    /* The same codes in closed form, when the format allows (IEEE-style floats
     * and INT; checked against shift/add entry by entry at init): below the
     * FP32 bit pattern norm_bits the binades share the smallest quantum
     * 2^q_min and the codes count from 0, so mag = r * 2^-q_min (exact); from
     * norm_bits up every binade has mb fraction bits, so
     *     mag = (rb >> (23 - mb)) + norm_add.
     * No table lookup per element: the loop vectorizes (about 4x faster). */
    int closed;
    float inv_qmin;        /* 2^-q_min */
    uint32_t norm_bits;
    int norm_shift, norm_add;
    /* magic[ef] in closed form (fast_magic_init): its exponent field is
     * min(qf + 23, 255) (255: Inf, as ldexpf gives), qf = q + 127 piecewise
     * linear in y's exponent field ef:
     *     qf = ef >= magic_hi_ef ? ef - magic_mb_hi : max(ef - magic_mb_lo, magic_lo)
     * (IEEE-style floats and INT: one slope above a floor; MXSF: E2M5 above
     * 2^0, FP5 below).  With it rows run as vectors (fast_row_vec and the
     * contiguous-block kernels of mx_block_simd.inc), without a table lookup. */
    int magic_closed, magic_lo, magic_hi_ef, magic_mb_hi, magic_mb_lo;
    int magic_one_slope;   /* qf = max(ef - magic_mb_hi, magic_lo) for every ef (not MXSF) */
    int magic_no_clamp;    /* qf + 23 <= 254 for every y a block can give: no clamp to 255 */
    int sign_shift;        /* sign_bit = 0x80000000 >> sign_shift */
} fast_table;

static int fast_path_ok(const mx_block_spec *s)
{
    const mx_format *f = &s->elem;
    return s->enc.round != MX_ROUND_STOCHASTIC && f->bits <= 16 &&
           (f->kind == MX_KIND_FLOAT || f->kind == MX_KIND_INT ||
            (f->kind == MX_KIND_MXSF && f->fp5_bias <= 8));
}

/* Derives the closed form from the table (t->closed = 0 when the table does
 * not follow it, e.g. MXSF, whose two modes interleave their binades). */
static void fast_closed_init(fast_table *t)
{
    int ef = 1, qmin = 0, lo = 0;
    while (ef < 256 && !t->shift[ef]) ef++;       /* the lowest representable binade */
    t->closed = 0;
    if (ef == 256) return;
    qmin = (ef - 127) - (23 - t->shift[ef]);      /* e - (e - q) */
    for (; ef < 256 && t->shift[ef] && t->add[ef] == 0 && 23 - t->shift[ef] == (ef - 127) - qmin; ef++)
        lo = ef;                                  /* codes count from 0 in quanta 2^qmin */
    t->norm_bits = (uint32_t)(lo + 1) << 23;
    t->norm_shift = ef < 256 ? t->shift[ef] : 23;
    const int mb = 23 - t->norm_shift;
    t->norm_add = ef < 256 ? t->add[ef] + (1 << mb) - (ef << mb) : 0;
    for (; ef < 256 && t->shift[ef]; ef++)
        if (t->shift[ef] != t->norm_shift || t->add[ef] + (1 << mb) - (ef << mb) != t->norm_add) return;
    for (; ef < 256; ef++)
        if (t->shift[ef]) return;                 /* a gap, then more binades */
    t->inv_qmin = ldexpf(1.0f, -qmin);
    t->closed = 1;
}

/* The pieces of magic[]'s closed form, read off mx_quantum_exp from the top
 * binade down, then checked against the table entry by entry (magic_closed =
 * 0 where a format does not follow it).  ef = 255 is not checked: y = |x|
 * 2^-se of a finite block is finite, its exponent field at most 254. */
static void fast_magic_init(const mx_format *f, fast_table *t)
{
    int qf[255];
    for (int ef = 0; ef < 255; ef++) qf[ef] = mx_quantum_exp(f, ef ? ef - 127 : -127) + 127;
    const int mb_hi = 254 - qf[254];
    int hi = 254;
    while (hi > 0 && (hi - 1) - qf[hi - 1] == mb_hi) hi--;
    t->magic_hi_ef = hi;
    t->magic_mb_hi = mb_hi;
    t->magic_mb_lo = hi > 0 ? (hi - 1) - qf[hi - 1] : mb_hi;
    t->magic_lo = qf[0];
    t->magic_closed = 1;
    t->magic_one_slope = 1;
    /* y = |x| 2^-se < 2^(emax + 1) under every scale rule (se >= floor(log2
     * amax) - emax, and the -127 clamp only raises se): its exponent field is
     * at most emax + 127 */
    const int ef_top = f->emax + 127 < 254 ? f->emax + 127 : 254;
    t->magic_no_clamp = (ef_top >= hi ? ef_top - mb_hi : ef_top - t->magic_mb_lo) + 23 <= 254;
    for (int ef = 0; ef < 255; ef++) {
        int e = ef >= hi ? ef - mb_hi : (ef - t->magic_mb_lo > t->magic_lo ? ef - t->magic_mb_lo : t->magic_lo);
        if (e != (ef - mb_hi > t->magic_lo ? ef - mb_hi : t->magic_lo)) t->magic_one_slope = 0;
        e = e + 23 > 255 ? 255 : e + 23;
        uint32_t mbits;
        memcpy(&mbits, &t->magic[ef], sizeof mbits);
        if (e < 1 || mbits != (uint32_t)e << 23) t->magic_closed = 0;
    }
}

static void fast_table_init(const mx_block_spec *s, fast_table *t)
{
    const mx_format *f = &s->elem;
    const mx_encode_opts enc = {MX_ROUND_EVEN, MX_OVERFLOW_SATURATE, NULL};
    for (int ef = 0; ef < 256; ef++) {
        const int e = ef ? ef - 127 : -127, q = mx_quantum_exp(f, e);
        t->magic[ef] = ldexpf(1.0f, q + 23);
        t->shift[ef] = 0;
        t->add[ef] = 0;
        /* binades holding representable values: 2^e within [quantum, max_normal] */
        if (ef && e - q >= 0 && e - q <= 23 && ldexp(1.0, e) <= f->max_normal) {
            t->shift[ef] = (uint8_t)(23 - (e - q));
            t->add[ef] = (int16_t)((int)mx_encode(f, ldexpf(1.0f, e), &enc, NULL) - (1 << (e - q)));
        }
    }
    t->max_normal = (float)f->max_normal;
    t->round = s->enc.round;
    t->sign_bit = f->kind == MX_KIND_INT ? 0 : (uint16_t)(1u << (f->bits - 1));
    t->sign_shift = 32 - f->bits;
    t->code_mask = (uint16_t)((1u << f->bits) - 1);
    fast_closed_init(t);
    fast_magic_init(f, t);
}

/* The code of a representable magnitude r (>= 0) with the sign of x, in
 * closed form (t->closed). */
static inline __attribute__((always_inline)) uint16_t fast_code_closed(const fast_table *t, float r, int neg)
{
    uint32_t rb;
    memcpy(&rb, &r, sizeof rb);
    const int sub = (int)(r * t->inv_qmin), nrm = (int)(rb >> t->norm_shift) + t->norm_add;
    const int mag = rb < t->norm_bits ? sub : nrm;
    if (!neg) return (uint16_t)mag;
    return t->sign_bit ? (uint16_t)(mag | t->sign_bit) : (uint16_t)(-mag & t->code_mask);
}

/* The code of a representable magnitude r (>= 0) with the sign of x. */
static inline __attribute__((always_inline)) uint16_t fast_code(const fast_table *t, float r, int neg)
{
    uint32_t rb;
    memcpy(&rb, &r, sizeof rb);
    const uint32_t ef = rb >> 23;
    const int mag = rb ? (int)(((rb & 0x7FFFFFu) | 0x800000u) >> t->shift[ef]) + t->add[ef] : 0;
    if (!neg) return (uint16_t)mag;
    return t->sign_bit ? (uint16_t)(mag | t->sign_bit) : (uint16_t)(-mag & t->code_mask);
}

static inline __attribute__((always_inline)) float fast_round(const fast_table *t, float y, mx_round mode)
{
    uint32_t yb;
    memcpy(&yb, &y, sizeof yb);
    float m = t->magic[yb >> 23];
    float r = (y + m) - m;
    if (mode != MX_ROUND_EVEN) {
        float quantum = m * 0x1p-23f, d = y - r;
        if (mode == MX_ROUND_NEAREST) r += (d == quantum * 0.5f) ? quantum : 0.0f;
        else r -= (r > y) ? quantum : 0.0f;
    }
    return r < t->max_normal ? r : t->max_normal;
}

/* fast_round + fast_code_closed on 4 lanes at once (GCC/clang vector
 * extensions: SSE2, NEON or scalar code, whatever the target has), the same
 * IEEE operations in the same order per lane, so the same bits (tested by
 * Block.FastPathEqualsGenericPath on rows of every length).  Elements
 * [0, n - n % 4) of a contiguous row; the caller does the tail. */
typedef float    v4f __attribute__((vector_size(16)));
typedef int32_t  v4i __attribute__((vector_size(16)));
typedef uint32_t v4u __attribute__((vector_size(16)));
typedef uint16_t v4h __attribute__((vector_size(8)));
typedef uint8_t  v4b __attribute__((vector_size(4)));

/* mask ? a : b per lane (C has no vector ?:); mask lanes are 0 or -1 */
static inline __attribute__((always_inline)) v4f v4_blend(v4i mask, v4f a, v4f b)
{
    return (v4f)(((v4u)mask & (v4u)a) | (~(v4u)mask & (v4u)b));
}

static inline __attribute__((always_inline)) v4i v4i_blend(v4i mask, v4i a, v4i b)
{
    return (mask & a) | (~mask & b);
}

static inline __attribute__((always_inline)) size_t
fast_row_vec(const fast_table *t, const float *x, float *deq, uint16_t *codes, uint8_t *codes8, size_t n, float down,
             float up, mx_round mode)
{
    const v4u absmask = (v4u){0} + 0x7FFFFFFFu, signmask = (v4u){0} + 0x80000000u;
    const v4i mb_lo = (v4i){0} + t->magic_mb_lo, mb_hi = (v4i){0} + t->magic_mb_hi, lo = (v4i){0} + t->magic_lo;
    const v4i hi_ef = (v4i){0} + t->magic_hi_ef;
    const v4i e255 = (v4i){0} + 255, nbits = (v4i){0} + (int32_t)t->norm_bits;
    const v4f vmax = (v4f){0} + t->max_normal, vdown = (v4f){0} + down, vup = (v4f){0} + up;
    const v4f vinv = (v4f){0} + t->inv_qmin, z = (v4f){0};
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        v4f xv;
        memcpy(&xv, x + i, sizeof xv);
        const v4u sign = (v4u)xv & signmask;
        const v4f y = (v4f)((v4u)xv & absmask) * vdown;
        const v4i ef = (v4i)((v4u)y >> 23);
        v4i e = ef - mb_lo;
        e = v4i_blend(ef >= hi_ef, ef - mb_hi, v4i_blend(e > lo, e, lo)) + 23;
        e = v4i_blend(e > e255, e255, e);
        const v4f m = (v4f)((v4u)e << 23);
        v4f r = (y + m) - m;
        if (mode != MX_ROUND_EVEN) {
            const v4f quantum = m * 0x1p-23f, d = y - r;
            if (mode == MX_ROUND_NEAREST) r = r + v4_blend(d == quantum * 0.5f, quantum, z);
            else r = r - v4_blend(r > y, quantum, z);
        }
        r = v4_blend(r < vmax, r, vmax);
        if (deq) {
            const v4f dv = (v4f)((v4u)r | sign) * vup;
            memcpy(deq + i, &dv, sizeof dv);
        }
        if (codes || codes8) {
            const v4i rb = (v4i)r;                       /* r >= 0: signed compare is fine */
            const v4i sub = __builtin_convertvector(r * vinv, v4i);
            const v4i nrm = (v4i)((v4u)r >> (uint32_t)t->norm_shift) + t->norm_add;
            v4i mag = v4i_blend(rb < nbits, sub, nrm);
            const v4i neg = (v4i)sign != 0;
            const v4i sgn = t->sign_bit ? (mag | (int32_t)t->sign_bit) : (-mag & (int32_t)t->code_mask);
            mag = v4i_blend(neg, sgn, mag);
            if (codes8) {
                const v4b c = __builtin_convertvector(mag, v4b);
                memcpy(codes8 + i, &c, sizeof c);
            } else {
                const v4h c = __builtin_convertvector(mag, v4h);
                memcpy(codes + i, &c, sizeof c);
            }
        }
    }
    return i;
}

/* 2^k as ldexpf(1, k) gives it, without a libm call per block for the
 * normal range (the exponent field alone); the rest through ldexpf. */
static inline float pow2f(int k)
{
    if (k < -126 || k > 127) return ldexpf(1.0f, k);
    const uint32_t b = (uint32_t)(k + 127) << 23;
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

/* One block on the fast path.  codes (uint16) or codes8 (bytes): at most
 * one; closed: the codes in closed form (t->closed), else by the tables. */
static inline __attribute__((always_inline)) void
fast_block_mode(const fast_table *t, const block_view *v, const float *x, float *deq, uint16_t *codes,
                uint8_t *codes8, int se, mx_round mode, int closed)
{
    const float down = pow2f(-se), up = pow2f(se);
    const int want_codes = codes || codes8;
    for (size_t r = 0; r < v->rows; r++) {
        const size_t row = v->base + r * v->row_stride;
        size_t c0 = 0;
        if ((closed || !want_codes) && t->magic_closed && v->col_stride == 1)
            c0 = fast_row_vec(t, x + row, deq ? deq + row : NULL, codes ? codes + row : NULL,
                              codes8 ? codes8 + row : NULL, v->cols, down, up, mode);
        for (size_t c = c0; c < v->cols; c++) {
            const size_t i = row + c * v->col_stride;
            const float xi = x[i], m = fast_round(t, fabsf(xi) * down, mode);
            if (deq) deq[i] = copysignf(m, xi) * up;
            if (want_codes) {
                const uint16_t code =
                    closed ? fast_code_closed(t, m, signbit(xi) != 0) : fast_code(t, m, signbit(xi) != 0);
                if (codes8) codes8[i] = (uint8_t)code;
                else codes[i] = code;
            }
        }
    }
}

/* One specialised loop per rounding mode and output set. */
static void fast_block(const fast_table *t, const block_view *v, const float *x, float *deq, uint16_t *codes,
                       uint8_t *codes8, int se)
{
#define FAST_MODES(D, C, C8, K)                                                                     \
    switch (t->round) {                                                                             \
    case MX_ROUND_NEAREST: fast_block_mode(t, v, x, D, C, C8, se, MX_ROUND_NEAREST, K); break;     \
    case MX_ROUND_FLOOR:   fast_block_mode(t, v, x, D, C, C8, se, MX_ROUND_FLOOR, K); break;       \
    default:               fast_block_mode(t, v, x, D, C, C8, se, MX_ROUND_EVEN, K); break;        \
    }
    if (codes8 && t->closed) FAST_MODES(deq, NULL, codes8, 1)
    else if (codes8) FAST_MODES(deq, NULL, codes8, 0)
    else if (!codes) FAST_MODES(deq, NULL, NULL, t->closed)
    else if (t->closed && !deq) FAST_MODES(NULL, codes, NULL, 1)
    else if (t->closed) FAST_MODES(deq, codes, NULL, 1)
    else if (!deq) FAST_MODES(NULL, codes, NULL, 0)
    else FAST_MODES(deq, codes, NULL, 0)
#undef FAST_MODES
}

/* The kernel of the commonest layout, blocks of consecutive elements (1-D
 * blocks along the last axis, or along any axis with nothing after it):
 * one loop over the blocks, each block's amax and elements as vectors, codes
 * stored at their final width.  Included once per vector width (4 lanes
 * portable; on x86-64 also 8 lanes for AVX2 and 16 for AVX-512 F+BW+VL,
 * chosen at run time): the same IEEE operations per lane in the same order,
 * so the same bits as fast_block. */
typedef struct {
    const float *x;        /* n elements, blocks of k (the last may be shorter) */
    size_t n, k;
    float *deq;            /* outputs, any may be NULL: values, codes (one width), scales */
    uint16_t *codes16;
    uint8_t *codes8;
    uint8_t *scales;
    uint16_t nan_code;     /* the element code of a NaN block */
} mxb_run;

#define MXB_W 4
#define MXB_SUFFIX v4
#define MXB_ATTR
#include "formats/mx_block_simd.inc"
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define MXB_HAVE_AVX2 1
#define MXB_W 8
#define MXB_SUFFIX v8
#define MXB_ATTR __attribute__((target("avx2")))
#include "formats/mx_block_simd.inc"
#define MXB_W 16
#define MXB_SUFFIX v16
#define MXB_ATTR __attribute__((target("avx512f,avx512bw,avx512vl")))
#include "formats/mx_block_simd.inc"
#endif

typedef struct {
    const mx_block_spec *s;
    const float *x;
    uint16_t *codes;
    uint8_t *codes8;   /* codes as bytes instead (at most one of codes, codes8) */
    uint8_t *scales;
    float *deq;
    const fast_table *fast; /* non-NULL: codes and deq by fast_block */
} quant_ctx;

static uint8_t quantize_block(const quant_ctx *q, const block_view *v)
{
    const mx_block_spec *s = q->s;
    uint32_t amax_bits = block_amax_bits(v, q->x);
    float amax;
    memcpy(&amax, &amax_bits, sizeof amax);
    uint8_t scale = amax_bits >= 0x7F800000u ? 0xFF : mx_block_scale(s, amax);
    if (scale == 0xFF) {
        uint16_t nc = (uint16_t)nan_element_code(&s->elem);
        for (size_t r = 0; r < v->rows; r++)
            for (size_t c = 0; c < v->cols; c++) {
                size_t i = v->base + r * v->row_stride + c * v->col_stride;
                if (q->codes) q->codes[i] = nc;
                if (q->codes8) q->codes8[i] = (uint8_t)nc;
                if (q->deq) q->deq[i] = NAN;
            }
        return scale;
    }
    int se = (int)scale - 127;
    if (q->fast) {
        fast_block(q->fast, v, q->x, q->deq, q->codes, q->codes8, se);
        return scale;
    }
    mx_encode_opts enc = s->enc;
    enc.overflow = MX_OVERFLOW_SATURATE;
    for (size_t r = 0; r < v->rows; r++)
        for (size_t c = 0; c < v->cols; c++) {
            size_t i = v->base + r * v->row_stride + c * v->col_stride;
            int sign, exp;
            uint64_t sig;
            unpack_f32(q->x[i], &sign, &sig, &exp);
            uint32_t code = mx_round_pack(&s->elem, sign, sig, exp - se, &enc, NULL);
            if (q->codes) q->codes[i] = (uint16_t)code;
            if (q->codes8) q->codes8[i] = (uint8_t)code;
            if (q->deq) {
                /* a value that rounds to zero keeps its sign, also where the
                 * format has no -0 code (MXINT8), as microxcaling's output does */
                double val = ldexp(mx_decode(&s->elem, code), se);
                q->deq[i] = (float)(val == 0 && sign ? -0.0 : val);
            }
        }
    return scale;
}

/* Calls fn for every block of the tensor, in scale-tensor (C) order. */
typedef void (*block_fn)(const block_view *v, size_t scale_index, void *ctx);

static void for_each_block(const mx_block_spec *s, const mx_shape *sh, block_fn fn, void *ctx)
{
    block_view v;
    size_t si = 0;
    if (s->tile_rows > 0) {
        size_t R = sh->dim[sh->ndim - 2], C = sh->dim[sh->ndim - 1], batch = 1;
        for (int d = 0; d < sh->ndim - 2; d++) batch *= sh->dim[d];
        for (size_t b = 0; b < batch; b++)
            for (size_t r0 = 0; r0 < R; r0 += (size_t)s->tile_rows)
                for (size_t c0 = 0; c0 < C; c0 += (size_t)s->tile_cols) {
                    v.base = b * R * C + r0 * C + c0;
                    v.rows = R - r0 < (size_t)s->tile_rows ? R - r0 : (size_t)s->tile_rows;
                    v.cols = C - c0 < (size_t)s->tile_cols ? C - c0 : (size_t)s->tile_cols;
                    v.row_stride = C;
                    v.col_stride = 1;
                    fn(&v, si++, ctx);
                }
        return;
    }
    int a = s->axis < 0 ? s->axis + sh->ndim : s->axis;
    size_t outer = 1, inner = 1, len = sh->dim[a], k = (size_t)s->block;
    for (int d = 0; d < a; d++) outer *= sh->dim[d];
    for (int d = a + 1; d < sh->ndim; d++) inner *= sh->dim[d];
    for (size_t o = 0; o < outer; o++)
        for (size_t i0 = 0; i0 < len; i0 += k)
            for (size_t j = 0; j < inner; j++) {
                v.base = (o * len + i0) * inner + j;
                v.rows = 1;
                v.row_stride = 0;
                v.cols = len - i0 < k ? len - i0 : k;
                v.col_stride = inner;
                fn(&v, si++, ctx);
            }
}

static void quant_one(const block_view *v, size_t si, void *p)
{
    quant_ctx *q = p;
    uint8_t sc = quantize_block(q, v);
    if (q->scales) q->scales[si] = sc;
}

int mx_block_quantize(const mx_block_spec *s, const mx_shape *sh, const float *x,
                      uint16_t *codes, uint8_t *scales, float *deq, char *err, size_t errlen)
{
    return mx_block_quantize_ex(s, sh, x, codes, NULL, scales, deq, MX_SIMD_AUTO, err, errlen);
}

int mx_block_quantize_ex(const mx_block_spec *s, const mx_shape *sh, const float *x,
                         uint16_t *codes16, uint8_t *codes8, uint8_t *scales, float *deq,
                         mx_simd simd, char *err, size_t errlen)
{
    mx_shape ssh;
    (void)simd; /* one vector width only on other targets */
    if (mx_block_scale_shape(s, sh, &ssh, err, errlen)) return -1;
    if (codes16 && codes8) {
        snprintf(err, errlen, "codes as uint16 and as bytes at once");
        return -1;
    }
    if (codes8 && s->elem.bits > 8) {
        snprintf(err, errlen, "%s has %d-bit codes: they do not fit in bytes", s->elem.name, s->elem.bits);
        return -1;
    }
    fast_table fast;
    quant_ctx q = {s, x, codes16, codes8, scales, deq, NULL};
    const int want_codes = codes16 || codes8;
    if ((want_codes || deq) && fast_path_ok(s)) {
        fast_table_init(s, &fast);
        q.fast = &fast;
    }
    /* consecutive blocks (nothing after the block axis) on the run kernels;
     * the axis is only checked (mx_block_scale_shape) for 1-D blocks */
    const int a = s->tile_rows > 0 ? 0 : s->axis < 0 ? s->axis + sh->ndim : s->axis;
    size_t outer = 1, inner = 1;
    for (int d = 0; d < a; d++) outer *= sh->dim[d];
    for (int d = a + 1; d < sh->ndim; d++) inner *= sh->dim[d];
    if (q.fast && fast.magic_closed && (fast.closed || !want_codes) && s->tile_rows == 0 && inner == 1) {
        const size_t len = sh->dim[a], k = (size_t)s->block, nb = (len + k - 1) / k;
        const uint16_t nan_code = (uint16_t)nan_element_code(&s->elem);
        for (size_t o = 0; o < outer; o++) {
            const size_t off = o * len;
            const mxb_run run = {x + off, len, k, deq ? deq + off : NULL, codes16 ? codes16 + off : NULL,
                                 codes8 ? codes8 + off : NULL, scales ? scales + o * nb : NULL, nan_code};
#ifdef MXB_HAVE_AVX2
            if (simd == MX_SIMD_AUTO && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                __builtin_cpu_supports("avx512vl")) {
                mxb_runs_v16(&fast, s, &run);
                continue;
            }
            if ((simd == MX_SIMD_AUTO || simd == MX_SIMD_AVX2) && __builtin_cpu_supports("avx2")) {
                mxb_runs_v8(&fast, s, &run);
                continue;
            }
#endif
            mxb_runs_v4(&fast, s, &run);
        }
        return 0;
    }
    for_each_block(s, sh, quant_one, &q);
    return 0;
}

typedef struct {
    const mx_block_spec *s;
    const uint16_t *codes;
    const uint8_t *scales;
    float *out;
} dequant_ctx;

static void dequant_one(const block_view *v, size_t si, void *p)
{
    dequant_ctx *q = p;
    uint8_t sc = q->scales[si];
    for (size_t r = 0; r < v->rows; r++)
        for (size_t c = 0; c < v->cols; c++) {
            size_t i = v->base + r * v->row_stride + c * v->col_stride;
            q->out[i] = sc == 0xFF ? NAN : (float)ldexp(mx_decode(&q->s->elem, q->codes[i]), (int)sc - 127);
        }
}

void mx_block_dequantize(const mx_block_spec *s, const mx_shape *sh, const uint16_t *codes,
                         const uint8_t *scales, float *out)
{
    dequant_ctx q = {s, codes, scales, out};
    for_each_block(s, sh, dequant_one, &q);
}
