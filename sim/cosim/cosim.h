// cosim.h — the Verilator co-simulation harness: shared types and helpers.
// The Verilated RTL and the C model run in lock step from one stimulus; every
// cycle the outputs (and for the PE the stage registers) are compared.
#ifndef MXSIM_COSIM_H
#define MXSIM_COSIM_H

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "verilated.h"

extern "C" {
#include "formats/mx_rng.h"
#include "units/mx_pe.h"
}

namespace cosim {

struct Options {
    std::string unit;
    mx_pe_fmt fmt = MX_PE_MXSF;    // A's format (--format)
    mx_pe_fmt fmt_b = MX_PE_MXSF;  // B's format (--format-b, default --format): mul, align, pe
    int lanes = 8;
    long vectors = 10000;
    bool exhaustive = false;
    uint64_t seed = 1;
    double stall = 0.2;
    std::string fst;
    int fp5_bias = 8;
    int window = 64;     // cycles of waveform kept before a mismatch
    bool fault = false;  // use the fault-injected model (self-test of the harness)
    std::string directed;  // directed stimulus table (align, accum, requant): rows instead of random vectors
};

struct Mismatch {
    long cycle = -1;
    std::string unit, field;
    int lane = -1;
    uint64_t expected = 0, actual = 0;
    int width = 32;
    std::string stimulus;
};

struct Result {
    bool ok = true;
    long vectors = 0;
    long cycles = 0;
    double rtl_share = -1;  // share of the run inside the Verilated model's eval() (pe only)
    double c_share = -1;    // share inside the C cycle model (pe only)
    Mismatch mm;
};

// Waveform control: dumps only cycles in [from, to] (replay of a failing run).
struct Trace {
    long from = -1, to = -1;
    std::string file;
    bool on(long cycle) const { return from >= 0 && cycle >= from && cycle <= to; }
};

// Bit fields of Verilator signals of any width.
inline uint64_t get_bits(const uint32_t *w, int lo, int width)
{
    uint64_t v = 0;
    for (int got = 0; got < width;) {
        int idx = (lo + got) / 32, off = (lo + got) % 32;
        int take = 32 - off < width - got ? 32 - off : width - got;
        v |= (uint64_t)((w[idx] >> off) & (uint32_t)((1ull << take) - 1)) << got;
        got += take;
    }
    return v;
}
template <typename T> inline uint64_t field(const T &v, int lo, int width)
{
    return ((uint64_t)v >> lo) & (width >= 64 ? ~0ull : ((1ull << width) - 1));
}
template <std::size_t N> inline uint64_t field(const VlWide<N> &v, int lo, int width)
{
    return get_bits(v.data(), lo, width);
}
template <typename T> inline void set_field(T &v, int lo, int width, uint64_t x)
{
    uint64_t m = (width >= 64 ? ~0ull : ((1ull << width) - 1)) << lo;
    v = (T)(((uint64_t)v & ~m) | ((x << lo) & m));
}
template <std::size_t N> inline void set_field(VlWide<N> &v, int lo, int width, uint64_t x)
{
    for (int put = 0; put < width;) {
        int idx = (lo + put) / 32, off = (lo + put) % 32;
        int take = 32 - off < width - put ? 32 - off : width - put;
        uint32_t m = (uint32_t)((1ull << take) - 1) << off;
        uint32_t &w = v.data()[idx];
        w = (w & ~m) | ((uint32_t)(x >> put) << off & m);
        put += take;
    }
}
inline uint64_t mask(int width) { return width >= 64 ? ~0ull : ((1ull << width) - 1); }

// Per-unit runners (cosim_units.cpp).  Each returns the first mismatch.
Result run_decode(const Options &o, const Trace &t);
Result run_mul(const Options &o, const Trace &t);
Result run_align(const Options &o, const Trace &t);
Result run_addtree(const Options &o, const Trace &t);
Result run_accum(const Options &o, const Trace &t);
Result run_requant(const Options &o, const Trace &t);
Result run_pe(const Options &o, const Trace &t);

// Rows of a directed stimulus table: whitespace-separated fields, '#' starts a
// comment; each row keeps its line number for reports.  Exits 2 on a bad file.
struct Row {
    int line;
    std::vector<std::string> f;
};
std::vector<Row> read_table(const std::string &path);

// Random element code of a format; specials (NaN/Inf codes) only if allowed.
uint16_t rand_code(mx_pe_fmt f, uint64_t *rng, bool allow_special);

}  // namespace cosim
#endif
