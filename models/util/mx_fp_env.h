/*
 * mx_fp_env.h — the floating-point environment the core's bit-exactness needs,
 * checked at compile time.  Included by the core headers, so every core file
 * (models/, every .c) and everything built on it sees it.
 *
 * The core relies on IEEE-754 binary32/binary64 arithmetic, evaluated in the
 * type of the expression and rounded to nearest even:
 *  - models/formats/mx_block.c rounds with the FPU, r = (y + 2^(q+23)) - 2^(q+23),
 *    which -ffast-math/-Ofast (reassociation) folds to r = y, and x87 excess
 *    precision (FLT_EVAL_METHOD 2) rounds twice;
 *  - subnormal inputs and results are part of every format's contract, and an
 *    -Ofast link turns on flush-to-zero / denormals-are-zero;
 *  - NaN and Inf have defined outcomes (-ffinite-math-only assumes them away).
 * So such builds are refused here rather than giving different bits.
 */
#ifndef MX_FP_ENV_H
#define MX_FP_ENV_H

#include <float.h>

#if defined(__FAST_MATH__)
#error "mxsim core: -ffast-math/-Ofast changes floating-point results (models/util/mx_fp_env.h); use -O2 or -O3"
#endif

#if defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__
#error "mxsim core: -ffinite-math-only assumes away the NaN/Inf handling of the formats (models/util/mx_fp_env.h)"
#endif

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "mxsim core: needs FLT_EVAL_METHOD 0 (no excess precision, e.g. SSE2 not x87; models/util/mx_fp_env.h)"
#endif

/* No contraction of a*b+c into one fused multiply-add: GCC does not contract
 * under -std=c11 (ISO mode; -ffp-contract=off) whatever -march allows, clang
 * contracts within an expression by default (-ffp-contract=on). */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#endif
