/*
 * mx_pe.c — the PE: cycle model (twin of rtl/mx_pe.sv) built from the unit
 * models, and the fast functional mx_pe_dot().
 */
#include "units/mx_pe.h"
#include "units/mx_decode.h"
#include "units/mx_pe_format.h"
#include "units/mx_mul.h"
#include "units/mx_align.h"
#include "units/mx_addtree.h"
#include "units/mx_accum.h"
#include "formats/mx_format.h"
#include "formats/mx_policy.h"

#include <stdio.h>
#include <string.h>

const char *mx_pe_fmt_name(mx_pe_fmt f)
{
    const mx_pe_format *pf = mx_pe_format_of(f);
    return pf ? pf->name : "?";
}

/* A PE format by its name, its block-scaled storage name (mxfp8_e4m3) or its
 * element's name (fp8_e4m3: unit-scale operands), from the format table. */
int mx_pe_fmt_parse(const char *s, mx_pe_fmt *out)
{
    for (int i = 0; i < MX_PE_NFMT; i++) {
        const mx_pe_format *pf = mx_pe_format_of((mx_pe_fmt)i);
        if (!strcmp(s, pf->name) || !strcmp(s, pf->mx_name) || (pf->elem_name && !strcmp(s, pf->elem_name))) {
            *out = (mx_pe_fmt)i;
            return 0;
        }
    }
    return -1;
}

int mx_pe_code_bits(mx_pe_fmt f)
{
    const mx_pe_format *pf = mx_pe_format_of(f);
    return pf ? pf->code_bits : 8;
}

void mx_pe_config_default(mx_pe_fmt fmt, mx_pe_config *cfg)
{
    cfg->fmt = fmt;
    cfg->fmt_b = fmt;
    cfg->lanes = 8;
    cfg->block = 32;
    cfg->align_width = MX_PE_ALIGN_W_DEFAULT;
    cfg->fp5_bias = MX_MXSF_FP5_BIAS_DEFAULT;
}

int mx_pe_config_check(const mx_pe_config *cfg, char *err, unsigned errlen)
{
    if ((unsigned)cfg->fmt >= MX_PE_NFMT) { snprintf(err, errlen, "unknown PE format %d", (int)cfg->fmt); return -1; }
    if ((unsigned)cfg->fmt_b >= MX_PE_NFMT) {
        snprintf(err, errlen, "unknown PE format %d for operand B (fmt_b)", (int)cfg->fmt_b); return -1;
    }
    /* BF16 has 16-bit codes and no block scales: it pairs only with itself */
    if ((cfg->fmt == MX_PE_BF16) != (cfg->fmt_b == MX_PE_BF16)) {
        snprintf(err, errlen, "BF16 does not mix with other formats (A %s x B %s): both operands must be BF16",
                 mx_pe_fmt_name(cfg->fmt), mx_pe_fmt_name(cfg->fmt_b)); return -1;
    }
    if (cfg->lanes < 1 || cfg->lanes > MX_PE_MAX_LANES) {
        snprintf(err, errlen, "lanes %d outside 1..%d", cfg->lanes, MX_PE_MAX_LANES); return -1;
    }
    if (cfg->fmt != MX_PE_BF16 && (cfg->block < 1 || cfg->block % cfg->lanes)) {
        snprintf(err, errlen, "lanes %d must divide the block size %d", cfg->lanes, cfg->block); return -1;
    }
    if (cfg->align_width < MX_PE_ALIGN_W_MIN || cfg->align_width > MX_PE_ALIGN_W_MAX) {
        snprintf(err, errlen, "align_width %d outside %d..%d", cfg->align_width,
                 MX_PE_ALIGN_W_MIN, MX_PE_ALIGN_W_MAX); return -1;
    }
    if ((cfg->fmt == MX_PE_MXSF || cfg->fmt_b == MX_PE_MXSF) &&
        (cfg->fp5_bias < MX_MXSF_FP5_BIAS_MIN || cfg->fp5_bias > MX_MXSF_FP5_BIAS_MAX)) {
        snprintf(err, errlen, "fp5_bias %d outside %d..%d", cfg->fp5_bias,
                 MX_MXSF_FP5_BIAS_MIN, MX_MXSF_FP5_BIAS_MAX); return -1;
    }
    return 0;
}

/* ---- cycle model --------------------------------------------------------- */

/* S1 of one lane: decode A's code in fmt and B's in fmt_b, multiply. */
static void lane_product(const mx_pe_config *cfg, uint32_t a, uint32_t b, mx_mul_out *mo)
{
    mx_decode_in da = {a, cfg->fmt, cfg->fp5_bias};
    mx_decode_in db = {b, cfg->fmt_b, cfg->fp5_bias};
    mx_decode_out oa, ob;
    mx_decode_comb(&da, &oa);
    mx_decode_comb(&db, &ob);
    mx_mul_in mi = {oa.sign_o, oa.sig_o, oa.lsb_o, oa.zero_o, oa.nan_o, oa.inf_o, oa.mode_o,
                    ob.sign_o, ob.sig_o, ob.lsb_o, ob.zero_o, ob.nan_o, ob.inf_o, ob.mode_o};
    mx_mul_comb(&mi, mo);
}

void mx_pe_reset(mx_pe_regs *q) { memset(q, 0, sizeof *q); }

void mx_pe_tick(mx_pe_regs *q, const mx_pe_regs *d) { *q = *d; }

void mx_pe_comb(const mx_pe_config *cfg, const mx_pe_in *in, const mx_pe_regs *q,
                mx_pe_regs *d, mx_pe_out *out)
{
    const int L = cfg->lanes;
    const int en = !q->out_valid_q || in->out_ready_i;
    *d = *q;
    out->in_ready_o = en;
    out->out_valid_o = q->out_valid_q;
    out->out_o = q->out_q;

    /* S4 accum (reads S3) */
    mx_accum_in ai = {
        .en_i = en, .valid_i = q->s3_valid_q, .first_i = q->s3_first_q, .last_i = q->s3_last_q,
        .acc_i = q->s3_acc_q, .sum_i = q->s3_sum_q, .emax_i = q->s3_emax_q,
        .a_scale_i = q->s3_a_scale_q, .b_scale_i = q->s3_b_scale_q,
        .use_scale_i = cfg->fmt != MX_PE_BF16,
        .nan_i = q->s3_nan_q, .inf_i = q->s3_inf_q, .inf_sign_i = q->s3_inf_sign_q};
    mx_accum_regs aq = {q->acc_q, q->out_q, q->out_valid_q}, ad;
    mx_accum_out ao;
    mx_accum_comb(cfg->align_width, &ai, &aq, &ad, &ao);
    if (!en) return; /* every register holds */
    d->acc_q = ad.acc_q;
    d->out_q = ad.out_q;
    d->out_valid_q = ad.out_valid_q;

    /* S3 addtree (reads S2) */
    d->s3_valid_q = q->s2_valid_q;
    if (q->s2_valid_q) {
        d->s3_first_q = q->s2_first_q; d->s3_last_q = q->s2_last_q; d->s3_acc_q = q->s2_acc_q;
        d->s3_sum_q = mx_addtree_comb(L, q->s2_aligned_q);
        d->s3_emax_q = q->s2_emax_q;
        d->s3_nan_q = q->s2_nan_q; d->s3_inf_q = q->s2_inf_q; d->s3_inf_sign_q = q->s2_inf_sign_q;
        d->s3_a_scale_q = q->s2_a_scale_q; d->s3_b_scale_q = q->s2_b_scale_q;
    }

    /* S2 align (reads S1) */
    d->s2_valid_q = q->s1_valid_q;
    if (q->s1_valid_q) {
        mx_align_in li;
        mx_align_out lo;
        for (int i = 0; i < L; i++) {
            li.sign_i[i] = q->s1_sign_q[i]; li.prod_i[i] = q->s1_prod_q[i];
            li.exp_i[i] = q->s1_exp_q[i]; li.nan_i[i] = q->s1_nan_q[i]; li.inf_i[i] = q->s1_inf_q[i];
        }
        mx_align_comb(L, cfg->align_width, &li, &lo);
        d->s2_first_q = q->s1_first_q; d->s2_last_q = q->s1_last_q; d->s2_acc_q = q->s1_acc_q;
        for (int i = 0; i < L; i++) d->s2_aligned_q[i] = lo.aligned_o[i];
        d->s2_emax_q = lo.emax_o;
        d->s2_nan_q = lo.nan_o; d->s2_inf_q = lo.inf_o; d->s2_inf_sign_q = lo.inf_sign_o;
        d->s2_a_scale_q = q->s1_a_scale_q; d->s2_b_scale_q = q->s1_b_scale_q;
    }

    /* S1 decode + mul (reads inputs) */
    d->s1_valid_q = in->in_valid_i;
    if (in->in_valid_i) {
        d->s1_first_q = in->first_i; d->s1_last_q = in->last_i; d->s1_acc_q = in->acc_i;
        d->s1_a_scale_q = in->a_scale_i; d->s1_b_scale_q = in->b_scale_i;
        for (int i = 0; i < L; i++) {
            mx_mul_out mo;
            lane_product(cfg, in->a_codes_i[i], in->b_codes_i[i], &mo);
            d->s1_sign_q[i] = mo.sign_o; d->s1_prod_q[i] = mo.prod_o; d->s1_exp_q[i] = mo.exp_o;
            d->s1_zero_q[i] = mo.zero_o; d->s1_nan_q[i] = mo.nan_o; d->s1_inf_q[i] = mo.inf_o;
            d->s1_mode_q[i] = mo.mode_o;
        }
    }
}

/* ---- fast functional path ------------------------------------------------- */

typedef struct { int32_t sig; int32_t lsb; uint8_t special; } pe_elem; /* special: 1 NaN, 2 Inf */

static pe_elem decode_elem(mx_pe_fmt fmt, int b5, uint32_t code)
{
    mx_decode_in di = {code, fmt, b5};
    mx_decode_out o;
    pe_elem e;
    mx_decode_comb(&di, &o);
    e.sig = o.sign_o ? -(int32_t)o.sig_o : (int32_t)o.sig_o;
    e.lsb = o.lsb_o;
    e.special = (uint8_t)(o.nan_o ? 1 : o.inf_o ? (o.sign_o ? 3 : 2) : 0);
    return e;
}

/* BF16 straight from the bits (the decode unit's BF16 case, inlined). */
static inline pe_elem decode_bf16(uint32_t c)
{
    pe_elem e;
    uint32_t E = (c >> 7) & 0xFF, M = c & 0x7F;
    int32_t sig = (int32_t)(E ? 128 | M : M);
    e.special = (uint8_t)(E == 255 ? (M ? 1 : (c & 0x8000) ? 3 : 2) : 0);
    e.sig = E == 255 ? 0 : (c & 0x8000) ? -sig : sig;
    e.lsb = E == 255 ? 0 : (E ? (int)E : 1) - 134;
    return e;
}

/* One cycle group through the same unit functions (specials, truncation). */
static uint32_t group_slow(const mx_pe_config *cfg, const uint16_t *a,
                           const uint16_t *b, int n, uint8_t xa, uint8_t xb, uint32_t acc)
{
    mx_align_in li;
    mx_align_out lo;
    mx_accum_in ai;
    mx_accum_regs q = {acc, 0, 0}, d;
    mx_accum_out ao;
    for (int i = 0; i < cfg->lanes; i++) {
        mx_mul_out mo;
        lane_product(cfg, i < n ? a[i] : 0u, i < n ? b[i] : 0u, &mo);
        li.sign_i[i] = mo.sign_o; li.prod_i[i] = mo.prod_o; li.exp_i[i] = mo.exp_o;
        li.nan_i[i] = mo.nan_o; li.inf_i[i] = mo.inf_o;
    }
    mx_align_comb(cfg->lanes, cfg->align_width, &li, &lo);
    memset(&ai, 0, sizeof ai);
    ai.en_i = 1; ai.valid_i = 1;
    ai.sum_i = mx_addtree_comb(cfg->lanes, lo.aligned_o);
    ai.emax_i = lo.emax_o;
    ai.a_scale_i = xa; ai.b_scale_i = xb;
    ai.use_scale_i = cfg->fmt != MX_PE_BF16;
    ai.nan_i = lo.nan_o; ai.inf_i = lo.inf_o; ai.inf_sign_i = lo.inf_sign_o;
    mx_accum_comb(cfg->align_width, &ai, &q, &d, &ao);
    return ao.res_o;
}

/* Lowest and highest lsb exponent over the non-zero codes of a table. */
static void lut_lsb_range(const pe_elem *lut, int *lmin, int *lmax)
{
    int lo = 1 << 20, hi = -(1 << 20);
    for (int c = 0; c < 256; c++)
        if (lut[c].sig) {
            if (lut[c].lsb < lo) lo = lut[c].lsb;
            if (lut[c].lsb > hi) hi = lut[c].lsb;
        }
    if (hi < lo) lo = hi = 0;
    *lmin = lo;
    *lmax = hi;
}

/* Fixed-point values v = sig << (lsb - lmin) of a table; 0 if it has NaN/Inf codes. */
static int lut_fixed(const pe_elem *lut, int lmin, int32_t *v)
{
    for (int c = 0; c < 256; c++) {
        if (lut[c].special) return 0; /* formats with NaN/Inf codes take the unit path */
        v[c] = lut[c].sig * (1 << (lut[c].lsb - lmin));
    }
    return 1;
}

/* Fast path for format pairs whose whole product-exponent range fits the
 * guard bits (MXSF with b5 <= 10, E2M5, INT8 at the default width, and mixes
 * of them): alignment is then always exact, so the group's exact value
 * sum_i p_i 2^(e_i) can be formed with one fixed anchor 2^(lmin_a + lmin_b)
 * from per-code fixed-point values v = sig << (lsb - lmin): one integer
 * multiply-add per MAC.  The product exponent spread is at most
 * span_a + span_b (A's lsb range plus B's).  The rounded FP32 result depends
 * only on that exact value, so it equals the aligned datapath's bit for bit.
 * lut_b == lut_a for same-format pairs (one table). */
static int dot_fast(const mx_pe_config *cfg, const mx_format *fp32, const pe_elem *lut_a,
                    const pe_elem *lut_b, const uint16_t *a, const uint8_t *xa_s, const uint16_t *b,
                    const uint8_t *xb_s, int k, uint32_t *acc_io)
{
    const int guard = cfg->align_width - MX_PE_PROD_W;
    int lmin_a, lmax_a, lmin_b, lmax_b;
    int32_t va[256], vb_own[256];
    const int32_t *vb = va;
    lut_lsb_range(lut_a, &lmin_a, &lmax_a);
    if (lut_b != lut_a) lut_lsb_range(lut_b, &lmin_b, &lmax_b);
    else { lmin_b = lmin_a; lmax_b = lmax_a; }
    const int span_a = lmax_a - lmin_a, span_b = lmax_b - lmin_b;
    if (span_a + span_b > guard || span_a > 20 || span_b > 20) return 0;
    if (!lut_fixed(lut_a, lmin_a, va)) return 0;
    if (lut_b != lut_a) {
        if (!lut_fixed(lut_b, lmin_b, vb_own)) return 0;
        vb = vb_own;
    }
    for (int i = 0; i < (k + cfg->block - 1) / cfg->block; i++)
        if (xa_s[i] == 0xFF || xb_s[i] == 0xFF) return 0;
    const int L = cfg->lanes;
    uint32_t acc = *acc_io;
    for (int base = 0; base < k; base += L) {
        const int n = k - base < L ? k - base : L;
        int64_t t = 0;
        for (int i = 0; i < n; i++)
            t += (int64_t)va[a[base + i] & 0xFF] * vb[b[base + i] & 0xFF];
        int blk = base / cfg->block;
        int scale = (int)xa_s[blk] + (int)xb_s[blk] - 254;
        uint32_t g = mx_accum_group_fp32(fp32, t, lmin_a + lmin_b + scale);
        acc = mx_accum_fp32_add(fp32, acc, g);
    }
    *acc_io = acc;
    return 1;
}

uint32_t mx_pe_dot(const mx_pe_config *cfg, const uint16_t *a_codes, const uint8_t *a_scales,
                   const uint16_t *b_codes, const uint8_t *b_scales, int k,
                   uint32_t acc_fp32_bits)
{
    mx_format fp32;
    mx_format_lookup("fp32", &fp32);
    const int L = cfg->lanes;
    const int guard = cfg->align_width - MX_PE_PROD_W;
    /* BF16 never mixes (mx_pe_config_check), so fmt decides for both sides */
    const int use_scale = cfg->fmt != MX_PE_BF16;
    /* a 256-entry table per operand (codes up to 8 bits; BF16 never mixes), on long dots */
    const int lut_ok = mx_pe_code_bits(cfg->fmt) <= 8 && k >= 128;
    const int bf16 = cfg->fmt == MX_PE_BF16;
    const int mixed = cfg->fmt_b != cfg->fmt;
    pe_elem lut_a[256], lut_b_own[256];
    const pe_elem *lut_b = lut_a;   /* same-format pairs share one table */
    if (lut_ok) {
        for (uint32_t c = 0; c < 256; c++) lut_a[c] = decode_elem(cfg->fmt, cfg->fp5_bias, c);
        if (mixed) {
            for (uint32_t c = 0; c < 256; c++) lut_b_own[c] = decode_elem(cfg->fmt_b, cfg->fp5_bias, c);
            lut_b = lut_b_own;
        }
    }
    uint32_t acc = acc_fp32_bits;
    int32_t p[MX_PE_MAX_LANES], e[MX_PE_MAX_LANES];
    if (lut_ok && use_scale && dot_fast(cfg, &fp32, lut_a, lut_b, a_codes, a_scales, b_codes, b_scales, k, &acc))
        return acc;

    for (int base = 0; base < k; base += L) {
        const int n = k - base < L ? k - base : L;
        uint8_t xa = 127, xb = 127;
        if (use_scale) { xa = a_scales[base / cfg->block]; xb = b_scales[base / cfg->block]; }
        int special = use_scale && (xa == 0xFF || xb == 0xFF);
        int emax = 0, any = 0, emin = 0;
        for (int i = 0; i < n; i++) {
            pe_elem ea = lut_ok ? lut_a[a_codes[base + i] & 0xFF]
                       : bf16 ? decode_bf16(a_codes[base + i]) : decode_elem(cfg->fmt, cfg->fp5_bias, a_codes[base + i]);
            pe_elem eb = lut_ok ? lut_b[b_codes[base + i] & 0xFF]
                       : bf16 ? decode_bf16(b_codes[base + i]) : decode_elem(cfg->fmt_b, cfg->fp5_bias, b_codes[base + i]);
            special |= ea.special | eb.special;
            p[i] = ea.sig * eb.sig;
            e[i] = ea.lsb + eb.lsb;
            if (p[i]) {
                if (!any) { emax = emin = e[i]; any = 1; }
                else { if (e[i] > emax) emax = e[i]; if (e[i] < emin) emin = e[i]; }
            }
        }
        if (special) { /* NaN/Inf handling lives in the unit models */
            acc = group_slow(cfg, a_codes + base, b_codes + base, n, xa, xb, acc);
            continue;
        }
        int64_t sum = 0;
        if (emax - emin <= guard) {  /* exact alignment */
            for (int i = 0; i < n; i++)
                if (p[i]) sum += (int64_t)p[i] * ((int64_t)1 << (guard - (emax - e[i])));
        } else {
            for (int i = 0; i < n; i++) {
                int dd = emax - e[i];
                if (!p[i] || dd >= cfg->align_width) continue;
                uint64_t mag = (uint64_t)(p[i] < 0 ? -p[i] : p[i]);
                mag = (mag << guard) >> dd;
                sum += p[i] < 0 ? -(int64_t)mag : (int64_t)mag;
            }
        }
        int scale = use_scale ? (int)xa + (int)xb - 254 : 0;
        uint32_t g = mx_accum_group_fp32(&fp32, sum, emax - guard + scale);
        acc = mx_accum_fp32_add(&fp32, acc, g);
    }
    return acc;
}
