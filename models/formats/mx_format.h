/*
 * mx_format.h — the one table of number formats (SPEC §2) and the scalar
 * operations on them.
 *
 * Values are raw bit patterns (uint32_t codes, right-aligned), as in Berkeley
 * SoftFloat.  Every format is described by one mx_format descriptor; every
 * operation reads the descriptor, so adding a format is a table entry in
 * mx_format_table.c.  Implementation choices that the spec leaves open live in
 * mx_policy.h.
 *
 * Layout of a floating-point code (kind MX_KIND_FLOAT), e.g. fp8_e4m3:
 *
 *    bit  7 | 6 5 4 3 | 2 1 0
 *         s |   E     |   M          value = (-1)^s 2^(E-bias) (1 + M/2^m)   E != 0
 *                                    value = (-1)^s 2^(1-bias) (M/2^m)       E == 0
 *
 * MXSF (kind MX_KIND_MXSF) is described in mx_format_table.c next to its
 * accessors; INT8 is two's complement times 2^-6; E8M0 is 2^(code-127).
 */
#ifndef MX_FORMAT_H
#define MX_FORMAT_H

#include "util/mx_fp_env.h" /* refuses -ffast-math, excess precision */

#include <stdint.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    MX_KIND_FLOAT = 0, /* sign, exponent, mantissa (IEEE-like, incl. eXmY, e0mY) */
    MX_KIND_INT,       /* two's complement integer times 2^-frac_bits (MXINT8)   */
    MX_KIND_E8M0,      /* unsigned power of two, no zero (MX scale)              */
    MX_KIND_MXSF       /* MX-SAFE dual-mode element (SPEC §2.2)                  */
} mx_kind;

/* Which codes are not finite numbers. */
typedef enum {
    MX_SPECIALS_NONE = 0, /* every code is finite                                   */
    MX_SPECIALS_IEEE,     /* top exponent: M==0 Inf, M!=0 NaN (fp32/bf16/fp16/e5m2) */
    MX_SPECIALS_NAN_ONES, /* only S.1..1.1..1 is NaN, no Inf (fp8_e4m3, fp8_e3m4)   */
    MX_SPECIALS_E8M0      /* 0xFF is NaN                                            */
} mx_specials;

typedef enum {
    MX_ROUND_EVEN = 0,   /* round to nearest, ties to even (OCP default)         */
    MX_ROUND_NEAREST,    /* round to nearest, ties away from zero (microxcaling) */
    MX_ROUND_FLOOR,      /* toward zero (truncate the magnitude)                 */
    MX_ROUND_STOCHASTIC  /* seeded stochastic rounding                            */
} mx_round;

typedef enum {
    MX_OVERFLOW_SATURATE = 0, /* clamp to +-max normal (MX default)                 */
    MX_OVERFLOW_INF_NAN       /* Inf where the format has it, else NaN, else clamp   */
} mx_overflow;

/* Exception flags, SoftFloat style: OR-ed into *flags by encode. */
enum {
    MX_FLAG_INEXACT   = 1,
    MX_FLAG_OVERFLOW  = 2,
    MX_FLAG_UNDERFLOW = 4, /* tiny and inexact */
    MX_FLAG_INVALID   = 8  /* NaN (or Inf) into a format that cannot hold it */
};

#define MX_FORMAT_NAME_MAX 24

typedef struct mx_format {
    char        name[MX_FORMAT_NAME_MAX];
    mx_kind     kind;
    int         bits;      /* total width of a code                          */
    int         ebits;     /* exponent field width (MXSF: the E field, 2)     */
    int         mbits;     /* mantissa field width (MXSF: the F field, 5)     */
    int         bias;      /* exponent bias (INT: number of fraction bits)    */
    int         fp5_bias;  /* MXSF only: bias b5 of the FP5 E3M2 mode         */
    mx_specials specials;
    int         is_signed; /* 0 only for e8m0                                 */
    /* Derived by mx_format_finish(): */
    int         emax;      /* unbiased exponent of the largest normal (SPEC §2.1 emax_elem) */
    int         emin;      /* unbiased exponent of the smallest normal        */
    double      max_normal;
    double      min_normal;
    double      min_subnormal; /* smallest positive value                     */
    uint32_t    max_code;  /* positive code of max_normal                     */
    uint32_t    max_sig;   /* max_normal = max_sig * 2^max_exp exactly        */
    int         max_exp;
    uint32_t    sign_mask; /* 0 when unsigned                                 */
} mx_format;

/* Looks a format up by name: a table entry ("fp8_e4m3", "mxsf", "int8", ...) or
 * any "eXmY" with 1+X+Y <= 16, X <= 7 (finite only, bias 2^(X-1)-1; e0mY is a
 * sign-magnitude fixed-point number m * 2^(1-Y)).  Returns 0 on success, -1 if
 * the name is unknown. */
int mx_format_lookup(const char *name, mx_format *out);

/* For a name of the shape e<digits>m<digits> that is not a format (widths out
 * of range, leading zeros): why, in words, for an error message.  NULL for
 * any other name (valid eXmY or not eXmY-shaped). */
const char *mx_format_exmy_problem(const char *name);

/* MXSF with a non-default FP5 bias.  Returns -1 if b5 is outside
 * [MX_MXSF_FP5_BIAS_MIN, MX_MXSF_FP5_BIAS_MAX]. */
int mx_format_mxsf(int fp5_bias, mx_format *out);

/* Number of named table entries and a copy of the i-th one (-1 if out of range). */
int mx_format_count(void);
int mx_format_at(int i, mx_format *out);

/* Options that travel with every encode: no global state. */
typedef struct {
    mx_round    round;
    mx_overflow overflow;
    uint64_t   *rng;   /* state for MX_ROUND_STOCHASTIC (see mx_rng.h); may be NULL otherwise */
} mx_encode_opts;

/* FP32 -> code.  flags may be NULL. */
uint32_t mx_encode(const mx_format *f, float x, const mx_encode_opts *o, unsigned *flags);

/* The rounding routine for a destination format: rounds the exact value
 * (-1)^sign * sig * 2^exp to the format (mode, overflow policy and stochastic
 * state from o) and packs the code.  Every encode goes through it, and so does
 * the datapath wherever it rounds (e.g. the accumulator into fp32).  For MXSF
 * with fp5_bias > 8, sig must be below 2^53. */
uint32_t mx_round_pack(const mx_format *f, int sign, uint64_t sig, int exp,
                       const mx_encode_opts *o, unsigned *flags);

/* Exponent q of the quantum 2^q (one unit in the last place) of the format's
 * values in binade [2^e, 2^(e+1)).  Not meaningful for MXSF with fp5_bias > 8
 * inside the gap below 1.0 (see mx_policy.h). */
int mx_quantum_exp(const mx_format *f, int e);

/* code -> exact value.  Every value of every format here is an FP32 value, so
 * both are exact; NaN codes give a quiet NaN, Inf codes give Inf. */
double mx_decode(const mx_format *f, uint32_t code);
float  mx_decode_f32(const mx_format *f, uint32_t code);

/* Classification of a code. */
int mx_is_nan(const mx_format *f, uint32_t code);
int mx_is_inf(const mx_format *f, uint32_t code);

/* Number of codes (2^bits) for formats of 16 bits or fewer. */
static inline uint32_t mx_code_count(const mx_format *f) { return 1u << f->bits; }

/* Parses rounding / overflow names; -1 if unknown. */
int mx_round_parse(const char *s, mx_round *out);
int mx_overflow_parse(const char *s, mx_overflow *out);
const char *mx_round_name(mx_round r);

#ifdef __cplusplus
}
#endif
#endif
