/*
 * mx_addtree.h — two's-complement sum of the L aligned products (SPEC §3.4),
 * twin of rtl/mx_addtree.sv.  Exact: the result has align_width + 1 +
 * ceil(log2 L) bits.  Combinational.
 */
#ifndef MX_UNITS_ADDTREE_H
#define MX_UNITS_ADDTREE_H

#include "util/mx_fp_env.h" /* refuses -ffast-math, excess precision */
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

int64_t mx_addtree_comb(int lanes, const int64_t *aligned_i);

#ifdef __cplusplus
}
#endif
#endif
