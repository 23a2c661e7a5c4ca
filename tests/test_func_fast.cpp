// The functional mode's fast path (models/units/mx_pe_fast.c, issue 11) against
// the bit-exact PE entry point mx_pe_dot, bit for bit: single dot products over
// seeded random blocks with every special case (NaN/Inf codes, zero blocks,
// scales 0x00/0xFE/0xFF, both MXSF modes, subnormal and overflowing results,
// rounding ties, NaN/Inf/-0/subnormal start values) for every format and the
// mixed pairs; whole output rows against B panels (mx_pe_fast_row) against
// one mx_pe_dot per output and K tile; and whole GEMMs of the functional mode
// (any thread count) against a direct mx_pe_dot loop on operands quantized here.
#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <cstring>
#include <vector>

extern "C" {
#include "arch/mx_arch.h"
#include "arch/mx_func.h"
#include "formats/mx_block.h"
#include "formats/mx_format.h"
#include "formats/mx_rng.h"
#include "units/mx_pe.h"
#include "units/mx_pe_fast.h"
}

#include "arch_test_util.h"
#include "pe_ref_operands.h"

namespace {

// A random code of format f, biased towards the interesting ones: zeros, the
// largest magnitudes, NaN/Inf codes, MXSF FP5 (E = 0) and E2M5 codes.
uint16_t rand_code(mx_pe_fmt f, uint64_t *rng)
{
    uint32_t r = (uint32_t)mx_rng_next(rng);
    uint32_t sel = (r >> 16) % 16;
    if (f == MX_PE_BF16) {
        uint32_t c = r & 0xFFFF;
        if (sel == 0) return 0;
        if (sel == 1) return (uint16_t)(0x7F80 | (r & 0x8000));                    // +-Inf
        if (sel == 2) return (uint16_t)(0x7F81 | (r & 0x807F));                    // NaN
        if (sel == 3) return (uint16_t)(r & 0x807F);                               // subnormal
        if (sel < 10) return (uint16_t)((c & 0x807F) | ((110 + (r >> 24) % 30) << 7)); // near 1
        return (uint16_t)c;
    }
    uint32_t c = r & 0xFF;
    if (sel == 0) return 0;
    if (sel == 1) return (uint16_t)(0x7F | (r & 0x80));   // largest (E4M3: NaN)
    if (sel == 2) return (uint16_t)(0x7C | (r & 0x83));   // E5M2 Inf/NaN, large others
    if (sel == 3) return (uint16_t)(c & 0x9F);             // MXSF FP5 mode (E = 0)
    return (uint16_t)c;
}

uint8_t rand_scale(uint64_t *rng)
{
    uint32_t r = (uint32_t)mx_rng_next(rng);
    switch (r % 12) {
    case 0: return 0x00;
    case 1: return 0xFE;
    case 2: return (uint8_t)((r >> 8) % 24);           // tiny: subnormal / zero results
    case 3: return (uint8_t)(230 + (r >> 8) % 25);     // huge: overflow to Inf
    case 4: return (r >> 8) % 8 == 0 ? 0xFF : 127;     // NaN scale, rarely
    default: return (uint8_t)(110 + (r >> 8) % 30);
    }
}

uint32_t rand_acc(uint64_t *rng)
{
    uint32_t r = (uint32_t)mx_rng_next(rng);
    switch (r % 10) {
    case 0: return 0x80000000u;                             // -0
    case 1: return 0x7F800000u | (r & 0x80000000u);         // +-Inf
    case 2: return 0x7FA00001u;                             // signalling NaN
    case 3: return (r >> 4) & 0x807FFFFFu;                  // subnormal
    case 4: return 0x4B800000u | (r & 0x80000000u);         // +-2^24: integer groups tie
    case 5: return (uint32_t)mx_rng_next(rng);              // anything
    default: return 0;
    }
}

struct Pair { mx_pe_fmt a, b; };

const Pair kPairs[] = {
    {MX_PE_MXSF, MX_PE_MXSF}, {MX_PE_E4M3, MX_PE_E4M3}, {MX_PE_E5M2, MX_PE_E5M2}, {MX_PE_E2M5, MX_PE_E2M5},
    {MX_PE_INT8, MX_PE_INT8}, {MX_PE_BF16, MX_PE_BF16}, {MX_PE_MXSF, MX_PE_INT8}, {MX_PE_E2M5, MX_PE_MXSF},
    {MX_PE_MXSF, MX_PE_E4M3}, {MX_PE_E4M3, MX_PE_E5M2}, {MX_PE_INT8, MX_PE_E2M5}, {MX_PE_E5M2, MX_PE_MXSF},
    // MXFP6 / MXFP4 (random codes keep bits above the 6/4-bit code: ignored by both)
    {MX_PE_E3M2, MX_PE_E3M2}, {MX_PE_E2M3, MX_PE_E2M3}, {MX_PE_E2M1, MX_PE_E2M1}, {MX_PE_E3M2, MX_PE_E2M1},
    {MX_PE_MXSF, MX_PE_E2M3},
};
const long long kNPairs = (long long)(sizeof kPairs / sizeof kPairs[0]);

// A config of the pair with a random L, block, width and FP5 bias.
mx_pe_config rand_config(const Pair &p, uint64_t *rng, bool default_geometry)
{
    mx_pe_config c;
    mx_pe_config_default(p.a, &c);
    c.fmt_b = p.b;
    if (default_geometry) return c;
    static const int lanes[] = {1, 2, 4, 8, 8, 8, 16, 32, 64};
    c.lanes = lanes[mx_rng_next(rng) % 9];
    c.block = c.lanes * (1 + (int)(mx_rng_next(rng) % (c.lanes >= 32 ? 2 : 4)));
    static const int widths[] = {16, 20, 24, 28, 32, 32, 32, 40, 56};
    c.align_width = widths[mx_rng_next(rng) % 9];
    c.fp5_bias = 5 + (int)(mx_rng_next(rng) % 12);
    return c;
}

// Bits of the single-group result's exact value t (fixed-point path) that
// fall below FP32's 24 bits: 1 when exactly half an ulp (a tie).
int is_tie(int64_t t)
{
    uint64_t m = (uint64_t)(t < 0 ? -t : t);
    if (m < (1ull << 25)) return 0;
    int msb = 63 - __builtin_clzll(m), sh = msb - 23;
    return (m & ((1ull << sh) - 1)) == (1ull << (sh - 1));
}

bool fp32_nan(uint32_t x) { return (x & 0x7FFFFFFFu) > 0x7F800000u; }

// a * b rounded to double before any addition: g++ contracts a * b + c into
// an FMA under -march=native (C++ has no FP_CONTRACT off by default), the C
// core does not (util/mx_fp_env.h)
double mul_rounded(double a, double b)
{
    volatile double p = a * b;
    return p;
}

} // namespace

// One dot product: mx_pe_dot_ctx == mx_pe_dot for every pair, random
// geometry, random codes and scales incl. every special.
TEST(FuncFast, DotCtxEqualsPeDotBitForBit)
{
    uint64_t rng = 2026;
    long long cases = 0, nan_res = 0, inf_res = 0, sub_res = 0, zero_res = 0, ties = 0, fixed_cases = 0;
    for (const Pair &p : kPairs)
        for (int it = 0; it < 1500; it++) {
            mx_pe_config cfg = rand_config(p, &rng, it < 300);
            char err[200];
            ASSERT_EQ(mx_pe_config_check(&cfg, err, sizeof err), 0) << err;
            mx_pe_fast f;
            mx_pe_fast_init(&f, &cfg);
            static const int ks[] = {1, 3, 7, 8, 31, 32, 33, 64, 100, 128, 129, 256, 300, 1000};
            int k = it % 5 == 0 ? cfg.lanes : ks[mx_rng_next(&rng) % 14];
            const int nb = (k + cfg.block - 1) / cfg.block;
            std::vector<uint16_t> a(k), b(k);
            std::vector<uint8_t> xa(nb), xb(nb);
            const int mode = it % 7; // 0: zero A block; 1: no specials; 2: all one code; else random
            uint16_t one_a = rand_code(p.a, &rng), one_b = rand_code(p.b, &rng);
            for (int i = 0; i < k; i++) {
                a[i] = mode == 0 ? 0 : mode == 2 ? one_a : rand_code(p.a, &rng);
                b[i] = mode == 2 ? one_b : rand_code(p.b, &rng);
            }
            if (mode == 1) // no specials: the fixed-point / panel paths
                for (int i = 0; i < k; i++) {
                    if (f.bf16) { a[i] &= 0xBFFF; b[i] &= 0xBFFF; continue; }
                    if (f.spec_a[a[i] & 0xFF]) a[i] = 0x11;
                    if (f.spec_b[b[i] & 0xFF]) b[i] = 0x22;
                }
            for (int i = 0; i < nb; i++) {
                xa[i] = rand_scale(&rng);
                xb[i] = rand_scale(&rng);
                if (mode == 1) { if (xa[i] == 0xFF) xa[i] = 0xFE; if (xb[i] == 0xFF) xb[i] = 0; }
            }
            const uint32_t acc0 = it % 3 == 0 ? 0 : rand_acc(&rng);
            const uint8_t *pa = f.bf16 ? nullptr : xa.data(), *pb = f.bf16 ? nullptr : xb.data();
            const uint32_t want = mx_pe_dot(&cfg, a.data(), pa, b.data(), pb, k, acc0);
            const uint32_t got = mx_pe_dot_ctx(&f, a.data(), pa, b.data(), pb, k, acc0);
            ASSERT_EQ(got, want) << mx_pe_fmt_name(p.a) << "x" << mx_pe_fmt_name(p.b) << " L=" << cfg.lanes
                                 << " block=" << cfg.block << " w=" << cfg.align_width << " b5=" << cfg.fp5_bias
                                 << " k=" << k << " it=" << it << " acc0=" << std::hex << acc0;
            cases++;
            nan_res += fp32_nan(want);
            inf_res += (want & 0x7FFFFFFFu) == 0x7F800000u;
            sub_res += (want & 0x7F800000u) == 0 && (want & 0x7FFFFFu) != 0;
            zero_res += (want & 0x7FFFFFFFu) == 0;
            if (f.fixed && k <= cfg.lanes && acc0 == 0) {
                int64_t t = 0;
                for (int i = 0; i < k; i++) t += (int64_t)f.va[a[i] & 0xFF] * f.vb[b[i] & 0xFF];
                ties += is_tie(t);
                fixed_cases++;
            }
        }
    // the special cases were exercised
    EXPECT_GT(nan_res, 100);
    EXPECT_GT(inf_res, 100);
    EXPECT_GT(sub_res, 50);
    EXPECT_GT(zero_res, 100);
    EXPECT_GT(ties, 0) << "of " << fixed_cases << " single-group fixed-point cases";
    EXPECT_EQ(cases, kNPairs * 1500);
}

// Ties of both roundings, by construction.  Group rounding: single MXSF
// groups of 32 lanes whose exact sum t has 25+ significant bits and exactly
// half an ulp below FP32's 24 (E2M5/INT8 groups never exceed 24 bits: their
// group rounding is always exact).  Accumulator rounding, every fixed-point
// format: a group value g = q * 2^m (q odd) added to acc = +-2^(24+m) (+ 2^(m+1),
// odd significand) lies exactly half an ulp of acc away: ties to even, both ways.
TEST(FuncFast, RoundingTiesByConstruction)
{
    for (int fi : {MX_PE_MXSF, MX_PE_E2M5, MX_PE_INT8}) {
        mx_pe_config cfg;
        mx_pe_config_default((mx_pe_fmt)fi, &cfg);
        cfg.lanes = 32;
        mx_pe_fast f;
        mx_pe_fast_init(&f, &cfg);
        ASSERT_TRUE(f.fixed);
        ASSERT_TRUE(f.panel);
        int group_ties = 0, acc_ties = 0;
        uint64_t rng = 11;
        for (int it = 0; it < 20000; it++) {
            std::vector<uint16_t> a(32), b(32);
            for (int i = 0; i < 32; i++) { a[i] = (uint16_t)(mx_rng_next(&rng) & 0xFF); b[i] = (uint16_t)(mx_rng_next(&rng) & 0xFF); }
            int64_t t = 0;
            for (int i = 0; i < 32; i++) t += (int64_t)f.va[a[i]] * f.vb[b[i]];
            uint8_t xa = 127, xb = (uint8_t)(100 + it % 50);
            const uint32_t g = mx_pe_dot(&cfg, a.data(), &xa, b.data(), &xb, 32, 0);
            ASSERT_EQ(mx_pe_dot_ctx(&f, a.data(), &xa, b.data(), &xb, 32, 0), g) << it;
            group_ties += is_tie(t);
            if ((g & 0x7FFFFFFFu) == 0 || (g & 0x7F800000u) == 0x7F800000u) continue;
            const uint32_t E = (g >> 23) & 0xFF, mant = (g & 0x7FFFFFu) | (E ? 0x800000u : 0);
            const int m = (E ? (int)E : 1) - 150 + __builtin_ctz(mant);
            if (24 + m > 126 || m + 1 < -149) continue;
            for (int odd = 0; odd < 2; odd++)
                for (uint32_t sign : {0u, 0x80000000u}) {
                    float acc = std::ldexp(1.0f, 24 + m) + (odd ? std::ldexp(1.0f, m + 1) : 0.0f);
                    uint32_t acc0;
                    std::memcpy(&acc0, &acc, 4);
                    acc0 |= sign;
                    const uint32_t want = mx_pe_dot(&cfg, a.data(), &xa, b.data(), &xb, 32, acc0);
                    ASSERT_EQ(mx_pe_dot_ctx(&f, a.data(), &xa, b.data(), &xb, 32, acc0), want) << it;
                    acc_ties += ((g ^ acc0) & 0x80000000u) == 0; // same sign: a tie
                }
        }
        if (fi == MX_PE_MXSF) { EXPECT_GT(group_ties, 20); }
        EXPECT_GT(acc_ties, 1000) << mx_pe_fmt_name((mx_pe_fmt)fi);
    }
}

// The fixed-point path's boundary: every pair, every width 16..56 and FP5
// bias 5..16, dot products made only of the codes at the ends of each
// operand's lsb range (odd significands first), so that a group holds
// products exactly `span_a + span_b` binades apart: truncation by the aligner
// shows up as soon as that exceeds the guard bits.
TEST(FuncFast, FixedPathBoundaryEveryWidthAndBias)
{
    uint64_t rng = 4242;
    long long fixed_cfgs = 0, other_cfgs = 0;
    for (const Pair &p : kPairs) {
        if (p.a == MX_PE_BF16) continue;
        for (int w = MX_PE_ALIGN_W_MIN; w <= MX_PE_ALIGN_W_MAX; w++)
            for (int b5 = 5; b5 <= 16; b5++) {
                if (b5 != 8 && p.a != MX_PE_MXSF && p.b != MX_PE_MXSF) continue;
                mx_pe_config cfg;
                mx_pe_config_default(p.a, &cfg);
                cfg.fmt_b = p.b;
                cfg.align_width = w;
                cfg.fp5_bias = b5;
                mx_pe_fast f;
                mx_pe_fast_init(&f, &cfg);
                (f.fixed ? fixed_cfgs : other_cfgs)++;
                // extreme codes: lsb == min or max over non-zero, non-special codes
                std::vector<uint16_t> ea, eb;
                for (int side = 0; side < 2; side++) {
                    const int32_t *sig = side ? f.sig_b : f.sig_a, *lsb = side ? f.lsb_b : f.lsb_a;
                    const uint8_t *sp = side ? f.spec_b : f.spec_a;
                    int lo = 1 << 20, hi = -(1 << 20);
                    for (int c = 0; c < 256; c++)
                        if (sig[c] && !sp[c]) { lo = std::min(lo, (int)lsb[c]); hi = std::max(hi, (int)lsb[c]); }
                    for (int c = 0; c < 256; c++)
                        if (sig[c] && !sp[c] && (lsb[c] == lo || lsb[c] == hi) && (sig[c] & 1))
                            (side ? eb : ea).push_back((uint16_t)c);
                }
                ASSERT_FALSE(ea.empty());
                ASSERT_FALSE(eb.empty());
                for (int it = 0; it < 6; it++) {
                    const int k = it % 2 ? 128 : 32;
                    std::vector<uint16_t> a(k), b(k);
                    std::vector<uint8_t> xa(k / 32), xb(k / 32);
                    for (int i = 0; i < k; i++) {
                        a[i] = ea[mx_rng_next(&rng) % ea.size()];
                        b[i] = eb[mx_rng_next(&rng) % eb.size()];
                    }
                    for (auto &x : xa) x = (uint8_t)(120 + mx_rng_next(&rng) % 10);
                    for (auto &x : xb) x = (uint8_t)(120 + mx_rng_next(&rng) % 10);
                    const uint32_t want = mx_pe_dot(&cfg, a.data(), xa.data(), b.data(), xb.data(), k, 0);
                    ASSERT_EQ(mx_pe_dot_ctx(&f, a.data(), xa.data(), b.data(), xb.data(), k, 0), want)
                        << mx_pe_fmt_name(p.a) << "x" << mx_pe_fmt_name(p.b) << " w=" << w << " b5=" << b5 << " k=" << k;
                }
            }
    }
    EXPECT_GT(fixed_cfgs, 100);
    EXPECT_GT(other_cfgs, 100);
}

// Double panels at wide widths and many lanes: codes whose exponents lie in
// a random window (so group spreads fall on both sides of the double path's
// limit min(G, 37 - log2 L), e.g. 31 at L = 64, width 56), anywhere in the
// format's range (BF16 down to its subnormals), rows against panels vs one
// mx_pe_dot per output.
TEST(FuncFast, DoublePanelWindowedExponents)
{
    uint64_t rng = 31337;
    long long outputs = 0;
    for (mx_pe_fmt fmt : {MX_PE_E5M2, MX_PE_BF16, MX_PE_E4M3})
        for (int w : {32, 40, 48, 56})
            for (int L : {8, 16, 32, 64}) {
                mx_pe_config cfg;
                mx_pe_config_default(fmt, &cfg);
                cfg.lanes = L;
                cfg.block = 64;
                cfg.align_width = w;
                mx_pe_fast f;
                mx_pe_fast_init(&f, &cfg);
                ASSERT_TRUE(f.dpanel);
                const int ebits = fmt == MX_PE_BF16 ? 8 : fmt == MX_PE_E5M2 ? 5 : 4, mbits = fmt == MX_PE_BF16 ? 7 : fmt == MX_PE_E5M2 ? 2 : 3;
                const int emax_field = (1 << ebits) - 2; // no Inf/NaN exponent
                const long long K = 256, nc = 11, nr = 3, nkb = K / cfg.block;
                const int win = std::min(emax_field, 4 + (int)(mx_rng_next(&rng) % 20));
                const int e0 = (int)(mx_rng_next(&rng) % (uint64_t)(emax_field - win + 1));
                auto code = [&]() -> uint16_t {
                    uint32_t r = (uint32_t)mx_rng_next(&rng);
                    if (r % 9 == 0) return 0;
                    uint32_t E = (uint32_t)(e0 + (int)((r >> 4) % (win + 1)));
                    uint32_t M = (r >> 12) & ((1u << mbits) - 1);
                    uint32_t sgn = (r >> 20) & 1;
                    return (uint16_t)((sgn << (ebits + mbits)) | (E << mbits) | M);
                };
                std::vector<uint16_t> ac(nr * K), bc(nc * K);
                std::vector<uint8_t> as(nr * nkb), bs(nc * nkb);
                for (auto &c : ac) c = code();
                for (auto &c : bc) c = code();
                for (auto &x : as) x = (uint8_t)(110 + mx_rng_next(&rng) % 30);
                for (auto &x : bs) x = (uint8_t)(110 + mx_rng_next(&rng) % 30);
                const bool bf = fmt == MX_PE_BF16;
                mx_pe_fast_b pb;
                ASSERT_EQ(mx_pe_fast_b_prepare(&f, bc.data(), bf ? nullptr : bs.data(), nc, K, &pb), 0);
                mx_pe_fast_scratch sc;
                ASSERT_EQ(mx_pe_fast_scratch_init(&sc, K, nkb), 0);
                std::vector<uint32_t> out(nc);
                for (long long i = 0; i < nr; i++) {
                    mx_pe_fast_row(&f, &pb, &ac[i * K], bf ? nullptr : &as[i * nkb], K, &sc, out.data());
                    for (long long j = 0; j < nc; j++) {
                        uint32_t want = mx_pe_dot(&cfg, &ac[i * K], bf ? nullptr : &as[i * nkb], &bc[j * K],
                                                  bf ? nullptr : &bs[j * nkb], (int)K, 0);
                        ASSERT_EQ(out[j], want) << mx_pe_fmt_name(fmt) << " w=" << w << " L=" << L << " window " << e0
                                                << "+" << win << " row " << i << " col " << j;
                        outputs++;
                    }
                }
                mx_pe_fast_scratch_free(&sc);
                mx_pe_fast_b_free(&pb);
            }
    EXPECT_EQ(outputs, 3 * 4 * 4 * 3 * 11);
}

// The double path's 53-bit limit, by construction: one BF16 group (L = 8,
// width 56: the aligner is exact up to a spread of 40 binades, the double sum
// only up to 53 - 16 - 3 = 34) of 2^24 + 16641*2^-29 + 1 - 16640*2^-29
// (spread 39).  Summed in double, 2^24 + 16641*2^-29 rounds to even, the rest
// lands exactly on FP32's tie 2^24 + 1 and rounds to 2^24; the exact sum
// 2^24 + 1 + 2^-29 rounds up to 2^24 + 2 (0x4B800001), as the PE does.
TEST(FuncFast, DoubleSumBeyond53BitsTakesTheAlignedPath)
{
    mx_pe_config cfg;
    mx_pe_config_default(MX_PE_BF16, &cfg);
    cfg.align_width = 56;
    mx_pe_fast f;
    mx_pe_fast_init(&f, &cfg);
    ASSERT_TRUE(f.dpanel);
    const uint16_t a[8] = {0x4580, (uint16_t)(119 << 7 | 1), 0x3F80, (uint16_t)(119 << 7), 0, 0, 0, 0};
    const uint16_t b[8] = {0x4580, (uint16_t)(120 << 7 | 1), 0x3F80, (uint16_t)(0x8000 | 120 << 7 | 2), 0, 0, 0, 0};
    const uint32_t want = mx_pe_dot(&cfg, a, nullptr, b, nullptr, 8, 0);
    EXPECT_EQ(want, 0x4B800001u);
    EXPECT_EQ(mx_pe_dot_ctx(&f, a, nullptr, b, nullptr, 8, 0), want);
    mx_pe_fast_b pb;
    ASSERT_EQ(mx_pe_fast_b_prepare(&f, b, nullptr, 1, 8, &pb), 0);
    mx_pe_fast_scratch sc;
    ASSERT_EQ(mx_pe_fast_scratch_init(&sc, 8, 1), 0);
    uint32_t out = 0;
    mx_pe_fast_row(&f, &pb, a, nullptr, 8, &sc, &out);
    EXPECT_EQ(out, want);
    mx_pe_fast_scratch_free(&sc);
    mx_pe_fast_b_free(&pb);
}

// Output rows against B panels: mx_pe_fast_row == one mx_pe_dot per output
// and K tile (the functional mode's reference path), incl. ragged column
// counts, K tiles, rows and columns with a NaN scale, every pair.
TEST(FuncFast, RowEqualsPeDotPerKTile)
{
    uint64_t rng = 77;
    long long panel_outputs = 0, panel_sub = 0;
    for (const Pair &p : kPairs)
        for (int it = 0; it < 16; it++) {
            mx_pe_config cfg = rand_config(p, &rng, it < 8);
            const long long K = 1 + (long long)(mx_rng_next(&rng) % 700), nc = 1 + (long long)(mx_rng_next(&rng) % 21);
            const long long nr = 3;
            mx_pe_fast f;
            mx_pe_fast_init(&f, &cfg);
            const long long kb = f.bf16 ? K : cfg.block, nkb = (K + kb - 1) / kb;
            long long kt = it % 3 == 0 ? K : kb * (1 + (long long)(mx_rng_next(&rng) % 4));
            std::vector<uint16_t> ac(nr * K), bc(nc * K);
            std::vector<uint8_t> as(nr * nkb), bs(nc * nkb);
            const bool clean = it % 2 == 1; // no special codes or NaN scales: the panel path
            for (auto &c : ac) { c = rand_code(p.a, &rng); if (clean && !f.bf16 && f.spec_a[c & 0xFF]) c = 0x12; }
            for (auto &c : bc) { c = rand_code(p.b, &rng); if (clean && !f.bf16 && f.spec_b[c & 0xFF]) c = 0x21; }
            // scales: half the cases near 2^0, half with the extremes (subnormal,
            // zero and overflowing outputs through the panel path too)
            // (it % 4 == 3: products near 2^-130, FP32's subnormal range)
            auto scale_of = [&](int i) -> uint8_t {
                if (it % 4 < 2) return (uint8_t)(115 + mx_rng_next(&rng) % 20);
                if (it % 4 == 3 && !f.bf16) return (uint8_t)(45 + mx_rng_next(&rng) % 30);
                uint8_t x = rand_scale(&rng);
                return clean && x == 0xFF ? (uint8_t)(i ? 0xFE : 0) : x;
            };
            for (auto &x : as) x = scale_of(0);
            for (auto &x : bs) x = scale_of(1);
            if (!clean) { as[nkb - 1] = 0xFF; bs[(nc / 2) * nkb] = 0xFF; bs[0] = 0; as[nkb] = 0xFE; }
            mx_pe_fast_b pb;
            ASSERT_EQ(mx_pe_fast_b_prepare(&f, bc.data(), f.bf16 ? nullptr : bs.data(), nc, K, &pb), 0);
            mx_pe_fast_scratch sc;
            ASSERT_EQ(mx_pe_fast_scratch_init(&sc, K, nkb), 0);
            std::vector<uint32_t> out(nc);
            for (long long i = 0; i < nr; i++) {
                mx_pe_fast_row(&f, &pb, &ac[i * K], f.bf16 ? nullptr : &as[i * nkb], kt, &sc, out.data());
                for (long long j = 0; j < nc; j++) {
                    uint32_t acc = 0;
                    for (long long k0 = 0; k0 < K; k0 += kt) {
                        int kk = (int)(K - k0 < kt ? K - k0 : kt);
                        acc = mx_pe_dot(&cfg, &ac[i * K + k0], f.bf16 ? nullptr : &as[i * nkb + k0 / kb], &bc[j * K + k0],
                                        f.bf16 ? nullptr : &bs[j * nkb + k0 / kb], kk, acc);
                    }
                    ASSERT_EQ(out[j], acc) << mx_pe_fmt_name(p.a) << "x" << mx_pe_fmt_name(p.b) << " L=" << cfg.lanes
                                           << " block=" << cfg.block << " w=" << cfg.align_width << " b5=" << cfg.fp5_bias
                                           << " K=" << K << " kt=" << kt << " row " << i << " col " << j;
                }
                panel_outputs += f.panel ? nc : 0;
                if (f.panel && clean)
                    for (long long j = 0; j < nc; j++) panel_sub += (out[j] & 0x7F800000u) == 0 && (out[j] & 0x7FFFFFu);
            }
            mx_pe_fast_scratch_free(&sc);
            mx_pe_fast_b_free(&pb);
        }
    EXPECT_GT(panel_outputs, 500);
    EXPECT_GT(panel_sub, 10); // subnormal results through the panel path
}

// Whole GEMMs of the functional mode: every output bit equals one mx_pe_dot
// call per output over all of K on operands quantized here (as
// ArchFunctional.OutputsEqualDirectPeDotLoop, for every format, 1-D blocks
// and 8x8 tiles, NaN/Inf in the data), and the outputs, QSNR and counters are
// the same for 1, 2, 3 threads and "all CPUs".
TEST(FuncFast, GemmEqualsPeDotLoopAnyThreads)
{
    struct { const char *f; int tile; int lanes; } fm[] = {
        {"mxsf", 8, 8}, {"mxsf", 0, 8}, {"mxsf", 0, 32}, {"mxfp8_e4m3", 8, 8}, {"mxfp8_e5m2", 0, 4},
        {"mxfp8_e2m5", 8, 2}, {"mxint8", 0, 8}, {"bf16", 0, 8}};
    for (auto &fmc : fm)
        for (int special = 0; special < 2; special++) {
            mx_arch_config c;
            mx_arch_config_default(&c);
            set_formats(c, fmc.f);
            c.tile_rows = c.tile_cols = fmc.tile;
            c.lanes = fmc.lanes;
            c.rows = 4;
            c.cols = 3;
            c.sram[MX_OP_A].kib = 1;
            c.sram[MX_OP_B].kib = 1;
            c.sram[MX_OP_OUT].kib = 1;
            const long long M = 21, N = 19, K = 352;
            std::vector<float> A(M * K), B(K * N);
            uint64_t rng = 5 + special;
            for (auto &x : A) x = (float)(mx_rng_uniform(&rng) * 4 - 2);
            for (auto &x : B) x = (float)(std::ldexp(mx_rng_uniform(&rng) - 0.5, (int)(mx_rng_next(&rng) % 9) - 4));
            if (special) {
                A[3 * K + 40] = NAN;
                B[100 * N + 7] = INFINITY;
                for (long long k = 0; k < K; k++) A[5 * K + k] = 0; // a zero row
                A[6 * K + 1] = 1e-30f;                                // tiny next to normal values
            }
            mx_func_data d = {0, A.data(), B.data()};
            mx_gemm g = test_gemm(M, N, K);
            std::vector<uint32_t> out1(M * N, 0xDEADBEEF);
            mx_stats s1;
            char err[400];
            ASSERT_EQ(mx_arch_gemm_functional_mt(&c, &g, &d, &s1, out1.data(), 1, err, sizeof err), 0) << err;
            for (int th : {2, 3, 0}) {
                std::vector<uint32_t> outn(M * N, 0xDEADBEEF);
                mx_stats sn;
                ASSERT_EQ(mx_arch_gemm_functional_mt(&c, &g, &d, &sn, outn.data(), th, err, sizeof err), 0) << err;
                EXPECT_EQ(outn, out1) << fmc.f << " threads " << th;
                EXPECT_EQ(std::memcmp(&sn.err_sq, &s1.err_sq, sizeof s1.err_sq), 0);
                EXPECT_EQ(std::memcmp(&sn.ref_sq, &s1.ref_sq, sizeof s1.ref_sq), 0);
                EXPECT_EQ(std::memcmp(&sn.max_abs_err, &s1.max_abs_err, sizeof s1.max_abs_err), 0);
                EXPECT_EQ(sn.cycles, s1.cycles);
            }
            // QSNR inputs as the per-output loop computed them before issue 11:
            // r = sequential FP64 sum over k, errors summed in row-major order
            {
                double err_sq = 0, ref_sq = 0, max_err = 0;
                for (long long i = 0; i < M; i++)
                    for (long long j = 0; j < N; j++) {
                        double r = 0;
                        for (long long k = 0; k < K; k++) r += mul_rounded((double)A[i * K + k], (double)B[k * N + j]);
                        float y;
                        std::memcpy(&y, &out1[i * N + j], 4);
                        double e = (double)y - r;
                        err_sq += mul_rounded(e, e);
                        ref_sq += mul_rounded(r, r);
                        if (std::fabs(e) > max_err || std::isnan(e)) max_err = std::fabs(e);
                    }
                EXPECT_EQ(std::memcmp(&err_sq, &s1.err_sq, sizeof err_sq), 0) << fmc.f << " " << err_sq << " " << s1.err_sq;
                EXPECT_EQ(std::memcmp(&ref_sq, &s1.ref_sq, sizeof ref_sq), 0) << fmc.f;
                EXPECT_EQ(std::memcmp(&max_err, &s1.max_abs_err, sizeof max_err), 0) << fmc.f;
            }
            // the reference path: operands quantized here, one mx_pe_dot per output
            PeRefOperands ro;
            pe_ref_operands(fmc.f, fmc.lanes, fmc.tile, M, N, K, A, B, ro);
            if (HasFatalFailure()) return;
            const std::vector<uint32_t> want = pe_ref_outputs(ro, M, N, K);
            int bad = 0, nan_out = 0;
            for (long long i = 0; i < M * N; i++) {
                bad += want[i] != out1[i];
                nan_out += fp32_nan(want[i]);
            }
            EXPECT_EQ(bad, 0) << fmc.f << " tile " << fmc.tile << " special " << special;
            if (special) { EXPECT_GT(nan_out, 0) << fmc.f; }
        }
}

// Seeded Gaussian data (generated and quantized in parallel row ranges) and
// 2-D tiles split on tile rows: the same outputs and statistics for 1, 2 and 5
// threads.  BF16 under a config with format.tile set (a trace row's format
// override on an MX config) gives the outputs of tile none: before issue 11
// its quantization filled ceil(K / 8) unit scales per row into a buffer of
// ceil(K / 32) (a heap overflow under ASan).
TEST(FuncFast, SeededDataAnyThreadsAndBf16WithTiles)
{
    struct { const char *f; int tile; } fm[] = {{"mxsf", 8}, {"mxfp8_e4m3", 0}, {"mxint8", 8}, {"bf16", 8}, {"bf16", 0}};
    std::vector<uint32_t> bf16_tiled;
    for (auto &fmc : fm) {
        mx_arch_config c;
        mx_arch_config_default(&c);
        set_formats(c, fmc.f);
        c.tile_rows = c.tile_cols = fmc.tile;
        const long long M = 37, N = 29, K = 160;
        mx_gemm g = test_gemm(M, N, K);
        mx_func_data d = {3, nullptr, nullptr};
        std::vector<uint32_t> out1(M * N), outn(M * N);
        mx_stats s1, sn;
        char err[400];
        ASSERT_EQ(mx_arch_gemm_functional_mt(&c, &g, &d, &s1, out1.data(), 1, err, sizeof err), 0) << err;
        for (int th : {2, 5}) {
            ASSERT_EQ(mx_arch_gemm_functional_mt(&c, &g, &d, &sn, outn.data(), th, err, sizeof err), 0) << err;
            EXPECT_EQ(outn, out1) << fmc.f << " threads " << th;
            EXPECT_EQ(std::memcmp(&sn.err_sq, &s1.err_sq, sizeof s1.err_sq), 0) << fmc.f;
            EXPECT_EQ(std::memcmp(&sn.qsnr_db, &s1.qsnr_db, sizeof s1.qsnr_db), 0) << fmc.f;
            for (int a = 0; a <= MX_SIG_MAX; a++)
                for (int b = 0; b <= MX_SIG_MAX; b++) EXPECT_EQ(sn.mul[a][b], s1.mul[a][b]);
        }
        if (!std::strcmp(fmc.f, "bf16")) {
            if (fmc.tile) bf16_tiled = out1;
            else EXPECT_EQ(out1, bf16_tiled);
        }
        EXPECT_GT(s1.qsnr_db, 20) << fmc.f;
    }
}
