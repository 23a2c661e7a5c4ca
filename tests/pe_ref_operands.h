// pe_ref_operands.h — operands quantized independently of models/arch/mx_func.c
// for a reference that calls mx_pe_dot once per output (test_arch_func.cpp,
// test_func_fast.cpp): A (M x K) with blocks along K, B (K x N) with blocks
// along K (axis 0), or 8x8-style tiles; BF16 element by element.
#ifndef MXSIM_TESTS_PE_REF_OPERANDS_H
#define MXSIM_TESTS_PE_REF_OPERANDS_H

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

extern "C" {
#include "formats/mx_block.h"
#include "formats/mx_format.h"
#include "units/mx_pe.h"
}

struct PeRefOperands {
    mx_pe_fmt pf;
    mx_pe_config pc;
    long long nkb;                           // scale blocks along K
    std::vector<uint16_t> ac, bc;            // codes, A row-major M x K, B row-major K x N
    std::vector<uint8_t> arow_s, bcol_s;     // per A row / per B column: nkb scales
};

// fmt: a PE format name; tile: 0 for 1-D blocks of 32 along K, else tile x tile.
inline void pe_ref_operands(const char *fmt, int lanes, int tile, long long M, long long N, long long K,
                            const std::vector<float> &A, const std::vector<float> &B, PeRefOperands &o)
{
    char err[300];
    ASSERT_EQ(mx_pe_fmt_parse(fmt, &o.pf), 0) << fmt;
    mx_pe_config_default(o.pf, &o.pc);
    o.pc.lanes = lanes;
    o.pc.block = tile ? tile : 32;
    o.ac.assign(M * K, 0);
    o.bc.assign(K * N, 0);
    o.nkb = (K + o.pc.block - 1) / o.pc.block;
    o.arow_s.assign(M * o.nkb, 0);
    o.bcol_s.assign(N * o.nkb, 0);
    mx_format el;
    if (o.pf == MX_PE_BF16) {
        ASSERT_EQ(mx_format_lookup("bf16", &el), 0);
        mx_encode_opts eo = {MX_ROUND_EVEN, MX_OVERFLOW_INF_NAN, nullptr};
        for (long long i = 0; i < M * K; i++) o.ac[i] = (uint16_t)mx_encode(&el, A[i], &eo, nullptr);
        for (long long i = 0; i < K * N; i++) o.bc[i] = (uint16_t)mx_encode(&el, B[i], &eo, nullptr);
        return;
    }
    ASSERT_EQ(mx_block_format_lookup(fmt, &el), 0);
    mx_block_spec sp;
    std::memset(&sp, 0, sizeof sp);
    sp.elem = el;
    sp.block = 32;
    sp.tile_rows = sp.tile_cols = tile;
    sp.scale_rule = MX_SCALE_FLOOR;
    sp.enc.round = MX_ROUND_EVEN;
    mx_shape sa = {2, {(size_t)M, (size_t)K}}, sb = {2, {(size_t)K, (size_t)N}}, ss;
    std::vector<uint8_t> as, bs;
    sp.axis = -1;
    ASSERT_EQ(mx_block_scale_shape(&sp, &sa, &ss, err, sizeof err), 0) << err;
    as.resize(mx_shape_count(&ss));
    ASSERT_EQ(mx_block_quantize(&sp, &sa, A.data(), o.ac.data(), as.data(), nullptr, err, sizeof err), 0) << err;
    sp.axis = 0;
    ASSERT_EQ(mx_block_scale_shape(&sp, &sb, &ss, err, sizeof err), 0) << err;
    bs.resize(mx_shape_count(&ss));
    ASSERT_EQ(mx_block_quantize(&sp, &sb, B.data(), o.bc.data(), bs.data(), nullptr, err, sizeof err), 0) << err;
    for (long long i = 0; i < M; i++)
        for (long long b = 0; b < o.nkb; b++)
            o.arow_s[i * o.nkb + b] = tile ? as[(i / tile) * o.nkb + b] : as[i * o.nkb + b];
    for (long long j = 0; j < N; j++)
        for (long long b = 0; b < o.nkb; b++)
            o.bcol_s[j * o.nkb + b] = tile ? bs[b * ((N + tile - 1) / tile) + j / tile] : bs[b * N + j];
}

// The reference outputs: one mx_pe_dot over the whole K per output, row-major
// M x N (B's column gathered from the row-major K x N codes).
inline std::vector<uint32_t> pe_ref_outputs(const PeRefOperands &o, long long M, long long N, long long K)
{
    const bool bf16 = o.pf == MX_PE_BF16;
    std::vector<uint32_t> want((size_t)(M * N));
    std::vector<uint16_t> bcol((size_t)K);
    for (long long j = 0; j < N; j++) {
        for (long long k = 0; k < K; k++) bcol[k] = o.bc[k * N + j];
        for (long long i = 0; i < M; i++)
            want[i * N + j] = mx_pe_dot(&o.pc, &o.ac[i * K], bf16 ? nullptr : &o.arow_s[i * o.nkb], bcol.data(),
                                        bf16 ? nullptr : &o.bcol_s[j * o.nkb], (int)K, 0);
    }
    return want;
}

#endif
