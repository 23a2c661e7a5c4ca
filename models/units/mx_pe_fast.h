/*
 * mx_pe_fast.h — the PE's functional result, prepared once per GEMM (issue 11).
 *
 * mx_pe_dot() (mx_pe.h) rebuilds its per-code decode tables on every call; the
 * functional mode calls it once per output and K tile.  Here the tables are
 * built once (mx_pe_fast_init) and the result is the same bits as mx_pe_dot()
 * for every input (tests/test_func_fast.cpp checks it, incl. NaN/Inf codes,
 * scales 0x00/0xFE/0xFF, subnormal and overflowing results):
 *
 *   mx_pe_dot_ctx   one dot product, any format (the drop-in for mx_pe_dot);
 *   mx_pe_fast_b_*  a GEMM's B operand (B^T, columns x K) turned once into
 *                   panels of 8 columns of per-code fixed-point values, and
 *   mx_pe_fast_row  one output row against all of B, K tiles chained through
 *                   the FP32 accumulator as the functional mode does.
 *
 * Exactness (docs/DATAPATH.md): when A's lsb span plus B's fits the guard
 * bits and neither format has NaN/Inf codes (MXSF b5 <= 10, E2M5, INT8 and
 * their mixes at width 32), alignment never drops a bit, so a cycle group's
 * exact value is the integer t = sum v_a * v_b (v = sig << (lsb - lmin)) times
 * 2^(lmin_a + lmin_b + xa + xb - 254).  t fits 32 bits when L * max|v_a| *
 * max|v_b| < 2^31 (MXSF b5 = 8: v <= 4032, L <= 64 fits).  The two FP32
 * roundings are then done by the host's IEEE arithmetic, which
 * util/mx_fp_env.h pins to FLT_EVAL_METHOD 0 without fast-math: t * 2^e is
 * exact in double (|t| < 2^53, 2^e a normal double), one double -> float
 * conversion is RNE_fp32 of the exact value (subnormals and overflow to Inf
 * included), and the accumulation is a float add (RNE, x + (-x) = +0); a NaN
 * accumulator is made the canonical 0x7FC00000 at the end.  Groups with
 * special values (NaN/Inf codes, scale 0xFF) go through mx_pe_dot itself.
 */
#ifndef MX_UNITS_PE_FAST_H
#define MX_UNITS_PE_FAST_H

#include "units/mx_pe.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MX_PE_FAST_NC 8 /* columns per B panel */
#define MX_PE_FAST_LZ (-4096) /* lsb given to zero codes: a product with a zero
                                 operand has e < LZ/2, a real one e > LZ/2 */

typedef struct {
    mx_pe_config cfg;
    int bf16;            /* BF16: inline decode, no tables                     */
    /* per-code decode of 8-bit formats: signed significand, lsb, special
     * (1 NaN, 2 +Inf, 3 -Inf) */
    int32_t sig_a[256], lsb_a[256], sig_b[256], lsb_b[256];
    uint8_t spec_a[256], spec_b[256];
    int32_t lz_a[256], lz_b[256]; /* lsb, MX_PE_FAST_LZ for codes with sig 0 */
    int has_special;     /* a table holds a NaN/Inf code                        */
    /* fixed-point path: exact alignment for every code pair */
    int fixed;
    int lmin_a, lmin_b;
    int32_t va[256], vb[256];
    /* panel path: fixed, |v| <= 32767 and L * max|va| * max|vb| < 2^31 */
    int panel;
    int16_t va16[256], vb16[256];
    /* double-panel path (every format the int16 panels do not take): element
     * values sig * 2^lsb as exact doubles, lsb with zero codes at -4096 (ax,
     * bx: for e_max) and +4096 (an, bn: for e_min); exact when a group's
     * product exponents span <= dlim */
    int dpanel, dlim;
    double da[256], db[256];
    int16_t ax[256], an[256], bx[256], bn[256];
} mx_pe_fast;

/* Prepares the tables; cfg must pass mx_pe_config_check(). */
void mx_pe_fast_init(mx_pe_fast *f, const mx_pe_config *cfg);

/* Same arguments and the same bits as mx_pe_dot(&f->cfg, ...). */
uint32_t mx_pe_dot_ctx(const mx_pe_fast *f, const uint16_t *a_codes, const uint8_t *a_scales,
                       const uint16_t *b_codes, const uint8_t *b_scales, int k,
                       uint32_t acc_fp32_bits);

/* A GEMM's B operand: nc columns (B^T rows) of K codes, scales nc x nkb
 * (nkb = ceil(K / kb), kb = cfg.block; NULL for BF16).  The codes and scales
 * are referenced, not copied: keep them alive while the panel is used. */
typedef struct {
    long long nc, K, kb, nkb;
    const uint16_t *codes;
    const uint8_t *scales;
    int16_t *val;        /* ceil(nc/8) panels of K x 8 values (panel path)     */
    double *fac;         /* per panel and block, 8 factors 2^(xb - 127 + lmin_b) */
    uint8_t *nan_col;    /* per column: some scale is 0xFF (double panels: or a
                            NaN/Inf code): that column takes the scalar path   */
    double *dval;        /* double panels: K x 8 element values per panel      */
    int16_t *ex, *en;    /* double panels: lsb, zero codes at -4096 / +4096    */
} mx_pe_fast_b;

/* 0, or -1 when out of memory. */
int mx_pe_fast_b_prepare(const mx_pe_fast *f, const uint16_t *b_codes, const uint8_t *b_scales,
                         long long nc, long long K, mx_pe_fast_b *pb);
void mx_pe_fast_b_free(mx_pe_fast_b *pb);

/* Scratch for one thread's mx_pe_fast_row calls (K values and factors). */
typedef struct {
    long long K;
    int16_t *va;
    double *fa;
    double *da;          /* double panels: the row's element values and lsbs   */
    int16_t *ax, *an;
} mx_pe_fast_scratch;
int mx_pe_fast_scratch_init(mx_pe_fast_scratch *s, long long K, long long nkb);
void mx_pe_fast_scratch_free(mx_pe_fast_scratch *s);

/* out[j], j < nc: the FP32 bits of row a (K codes, scales nkb; NULL for BF16)
 * times column j of B, starting from +0, over K tiles of kt elements (kt a
 * multiple of the block size, or >= K), each tile's result passed into the
 * next as the accumulator: bit-identical to
 *   acc = 0; for k0 in 0, kt, ...: acc = mx_pe_dot(cfg, a + k0, as + k0/kb,
 *                                     b_j + k0, bs_j + k0/kb, min(kt, K-k0), acc) */
void mx_pe_fast_row(const mx_pe_fast *f, const mx_pe_fast_b *pb, const uint16_t *a_codes,
                    const uint8_t *a_scales, long long kt, mx_pe_fast_scratch *s, uint32_t *out);

#ifdef __cplusplus
}
#endif
#endif
