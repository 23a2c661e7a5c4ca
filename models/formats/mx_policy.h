/*
 * mx_policy.h — the one place for implementation choices the spec leaves open.
 * Every choice here is also listed in docs/DECISIONS.md.
 */
#ifndef MX_POLICY_H
#define MX_POLICY_H

/* MXSF FP5 E3M2 bias b5 (SPEC §2.2).  Below 5 the FP5 mode would reach above
 * the E2M5 maximum 7.875; above 8 a gap opens between the largest FP5 value and
 * 1.0, which encode handles by rounding between the two gap neighbours. */
#define MX_MXSF_FP5_BIAS_DEFAULT 8
#define MX_MXSF_FP5_BIAS_MIN     5
#define MX_MXSF_FP5_BIAS_MAX     16

/* NaN into a format with no NaN code (finite-only formats, INT8): the code of
 * +0, with MX_FLAG_INVALID raised.  (In MX blocks a NaN never reaches the
 * element encoder: the whole block becomes NaN through its scale.) */
#define MX_POLICY_NAN_TO_FINITE_CODE 0u

/* Inf into a format with Inf codes stays Inf whatever the overflow mode (it is
 * exact, not an overflow).  Inf into a format without Inf: +-max under
 * `saturate` and under `floor` rounding, NaN (if any) under `inf_nan`. */

/* E8M0 encode of a value below 2^-127, of zero: code 0x00 (no zero exists),
 * MX_FLAG_UNDERFLOW.  Negative values: 0xFF (NaN), MX_FLAG_INVALID.
 * Ties between 2^e and 2^(e+1) round up under `even` (the significand 2 is
 * the even one at the coarser step). */

/* Stochastic rounding: rounds up with probability frac/2^64 where frac is the
 * discarded fraction truncated to 64 bits (bias below 2^-64). */

/* INT8 (MXINT8 element): symmetric, -128 is never produced. */

#endif
