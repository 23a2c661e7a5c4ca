/*
 * mx_ref_dot.h — slow, exact reference of what a PE dot product must return
 * (SPEC §3: "a pure, slow reference ... with explicit rounding at the
 * specified points").  Shares no code with the unit models: element values
 * come from the format library's mx_decode() (double, exact), the lsb exponent
 * of an element from the spacing of its neighbouring codes, products and
 * alignment truncation in double/int64, and the two FP32 roundings per cycle
 * group (group sum -> FP32, accumulator + group -> FP32) are done on a
 * 2048-bit fixed-point value with its own round-to-nearest-even.
 */
#ifndef MX_UNITS_REF_DOT_H
#define MX_UNITS_REF_DOT_H
#include <stdint.h>
#include "units/mx_pe.h"
#ifdef __cplusplus
extern "C" {
#endif

/* Same contract as mx_pe_dot(). */
uint32_t mx_ref_dot(const mx_pe_config *cfg, const uint16_t *a_codes, const uint8_t *a_scales,
                    const uint16_t *b_codes, const uint8_t *b_scales, int k,
                    uint32_t acc_fp32_bits);

/* Exact value of fp32 bits x + exact value (-1)^sign * mag * 2^exp, rounded
 * to FP32 with round-to-nearest-even (overflow to Inf).  Finite inputs only. */
uint32_t mx_ref_fp32_add_exact(uint32_t x, int sign, uint64_t mag, int exp);

#ifdef __cplusplus
}
#endif
#endif
