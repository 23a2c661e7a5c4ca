// test_util.h — small helpers shared by the format-library tests.
#ifndef MXSIM_TEST_UTIL_H
#define MXSIM_TEST_UTIL_H

#include <gtest/gtest.h>

#include <cstring>
#include <initializer_list>
#include <vector>

extern "C" {
#include "formats/mx_block.h"
#include "formats/mx_format.h"
#include "formats/mx_rng.h"
#include "units/mx_pe.h"
}

// A tensor shape from its dimensions, C order.
inline mx_shape make_shape(std::initializer_list<size_t> d)
{
    mx_shape s;
    std::memset(&s, 0, sizeof s);
    s.ndim = (int)d.size();
    int i = 0;
    for (size_t v : d) s.dim[i++] = v;
    return s;
}

// A format of the table (or an eXmY name); a failed look-up fails the test.
inline mx_format lookup_format(const char *name)
{
    mx_format f;
    EXPECT_EQ(mx_format_lookup(name, &f), 0) << name;
    return f;
}

// One PE output for the cycle model: k codes of A and B from a and b, the
// scale of element i at xa[i / block] (ignored for BF16), the start value.
struct pe_job {
    const uint16_t *a, *b;
    const uint8_t *xa, *xb;
    int k;
    uint32_t acc;
};

// Streams the jobs through the PE cycle model (mx_pe_comb / mx_pe_tick) with
// random back-pressure (valid 80 %, ready 70 % of cycles); the outputs in
// order, as many as came out within 100000 cycles.
inline std::vector<uint32_t> pe_cycle_run(const mx_pe_config &cfg, const std::vector<pe_job> &jobs, uint64_t *rng)
{
    const int n = (int)jobs.size();
    const bool bf16 = cfg.fmt == MX_PE_BF16;
    std::vector<uint32_t> outs;
    mx_pe_regs q, d;
    mx_pe_reset(&q);
    mx_pe_in in;
    std::memset(&in, 0, sizeof in);
    int o_in = 0, g_in = 0;
    for (int cyc = 0; cyc < 100000 && (int)outs.size() < n; cyc++) {
        in.in_valid_i = o_in < n && mx_rng_next(rng) % 10 < 8;
        in.out_ready_i = mx_rng_next(rng) % 10 < 7;
        if (in.in_valid_i) {
            const pe_job &j = jobs[(size_t)o_in];
            for (int i = 0; i < cfg.lanes; i++) {
                in.a_codes_i[i] = j.a[g_in + i];
                in.b_codes_i[i] = j.b[g_in + i];
            }
            in.a_scale_i = bf16 ? 0 : j.xa[g_in / cfg.block];
            in.b_scale_i = bf16 ? 0 : j.xb[g_in / cfg.block];
            in.first_i = g_in == 0;
            in.last_i = g_in + cfg.lanes == j.k;
            in.acc_i = j.acc;
        }
        mx_pe_out out;
        mx_pe_comb(&cfg, &in, &q, &d, &out);
        if (out.out_valid_o && in.out_ready_i) outs.push_back(out.out_o);
        if (in.in_valid_i && out.in_ready_o) {
            g_in += cfg.lanes;
            if (g_in == jobs[(size_t)o_in].k) { g_in = 0; o_in++; }
        }
        mx_pe_tick(&q, &d);
    }
    return outs;
}

#endif
