// fcov.h — functional coverage of the unit co-simulation (issue 11).
// A fixed table of named points (fcov.cpp); a point is counted when the
// stimulus reaches it, judged from the C model's inputs and internal values
// (never from the RTL).  Each mxsim-cosim run appends its counts to the file
// of --fcov FILE; `mxsim-cosim --fcov-report FILE` merges them, prints the
// table and fails if any point was never hit.
#ifndef MXSIM_COSIM_FCOV_H
#define MXSIM_COSIM_FCOV_H

#include <cstdint>
#include <string>

extern "C" {
#include "units/mx_accum.h"
#include "units/mx_align.h"
#include "units/mx_mul.h"
#include "units/mx_pe.h"
#include "units/mx_requant.h"
}

namespace cosim {
namespace fcov {

// Samplers: each looks at one evaluation of a C unit and counts the points it reaches.
void align(int lanes, int align_width, const mx_align_in &in);
void mul(const mx_mul_in &in, bool mxsf);  // mxsf: count the MXSF mode pair
// base: the accumulator operand (first_i ? acc_i : acc_q); out: the C model's outputs.
void accum(int align_width, const mx_accum_in &in, uint32_t base, const mx_accum_out &out);
void requant(int n, const mx_requant_in &in, const mx_requant_out &out);
// One accepted PE group (codes of L lanes, the scale pair), and whether the
// block it belongs to is all zero (A's or B's elements).
void pe_group(const mx_pe_config &cfg, const uint16_t *a, const uint16_t *b, uint8_t xa, uint8_t xb);
void pe_zero_block(char operand);

// Appends the non-zero counts of this run to path ("name count" lines).
bool write(const std::string &path);
// Merges the count files, prints the table; returns 0 if every point was hit, 1 if not, 2 on error.
int report(int nfiles, char **files);

}  // namespace fcov
}  // namespace cosim
#endif
