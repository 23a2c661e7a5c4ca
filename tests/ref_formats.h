/*
 * ref_formats.h — the tests' own, slow, obviously-correct model of the number
 * formats, written from SPEC §2 independently of models/formats:
 *   ref_decode(): the value of a code straight from the layout definition;
 *   ref_round():  nearest representable value by exhaustive search over the
 *                 sorted list of all finite values, ties by the mode's rule.
 * The production encoder/decoder are checked against these.
 */
#ifndef REF_FORMATS_H
#define REF_FORMATS_H

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

extern "C" {
#include "formats/mx_format.h"
}

struct RefLayout {
    enum Kind { Float, Int, E8M0, Mxsf } kind;
    int bits, e, m, bias, b5;
    bool ieee_specials;  // top exponent reserved for Inf/NaN
    bool nan_all_ones;   // only S.1..1 is NaN
};

// Layouts written from the spec table, not read from the production table.
inline RefLayout ref_layout(const std::string &name, int b5 = 8)
{
    if (name == "fp32") return {RefLayout::Float, 32, 8, 23, 127, 0, true, false};
    if (name == "bf16") return {RefLayout::Float, 16, 8, 7, 127, 0, true, false};
    if (name == "fp16") return {RefLayout::Float, 16, 5, 10, 15, 0, true, false};
    if (name == "fp8_e5m2") return {RefLayout::Float, 8, 5, 2, 15, 0, true, false};
    if (name == "fp8_e4m3") return {RefLayout::Float, 8, 4, 3, 7, 0, false, true};
    if (name == "fp8_e3m4") return {RefLayout::Float, 8, 3, 4, 3, 0, false, true};
    if (name == "fp8_e2m5") return {RefLayout::Float, 8, 2, 5, 1, 0, false, false};
    if (name == "fp6_e3m2") return {RefLayout::Float, 6, 3, 2, 3, 0, false, false};
    if (name == "fp6_e2m3") return {RefLayout::Float, 6, 2, 3, 1, 0, false, false};
    if (name == "fp4_e2m1") return {RefLayout::Float, 4, 2, 1, 1, 0, false, false};
    if (name == "int8") return {RefLayout::Int, 8, 0, 7, 6, 0, false, false};
    if (name == "e8m0") return {RefLayout::E8M0, 8, 8, 0, 127, 0, false, false};
    if (name.rfind("mxsf", 0) == 0) return {RefLayout::Mxsf, 8, 2, 5, 1, b5, false, false};
    // eXmY
    int x = 0, y = 0;
    sscanf(name.c_str(), "e%dm%d", &x, &y);
    return {RefLayout::Float, 1 + x + y, x, y, x > 0 ? (1 << (x - 1)) - 1 : 0, 0, false, false};
}

// Value of a code; NaN for NaN codes, +-Inf for Inf codes.
inline double ref_decode(const RefLayout &L, uint32_t code)
{
    const uint32_t smask = 1u << (L.bits - 1);
    bool neg = (L.kind != RefLayout::E8M0) && (code & smask);
    uint32_t mag = (L.kind == RefLayout::E8M0) ? code : (code & (smask - 1));
    double v;
    switch (L.kind) {
    case RefLayout::E8M0:
        return code == 255 ? NAN : std::pow(2.0, (int)code - 127);
    case RefLayout::Int: {
        int s = (code & smask) ? (int)code - (1 << L.bits) : (int)code;
        return s / 64.0;
    }
    case RefLayout::Mxsf: {
        uint32_t E = mag >> 5, F = mag & 31;
        if (E) v = std::pow(2.0, (int)E - 1) * (1.0 + F / 32.0);
        else {
            uint32_t f = F >> 2, n = F & 3;
            v = f ? std::pow(2.0, (int)f - L.b5) * (1.0 + n / 4.0) : std::pow(2.0, 1 - L.b5) * (n / 4.0);
        }
        break;
    }
    case RefLayout::Float:
    default: {
        uint32_t E = mag >> L.m, M = mag & ((1u << L.m) - 1);
        uint32_t Etop = (1u << L.e) - 1;
        if (L.e > 0 && L.ieee_specials && E == Etop) return M ? NAN : (neg ? -INFINITY : INFINITY);
        if (L.nan_all_ones && mag == smask - 1) return NAN;
        if (E == 0) v = std::ldexp((double)M, 1 - L.bias - L.m);
        else v = std::ldexp(1.0 + std::ldexp((double)M, -L.m), (int)E - L.bias);
        break;
    }
    }
    return neg ? -v : v;
}

struct RefValue {
    double v;
    uint32_t code;
};

// All finite non-negative values with their codes, sorted by value; among equal
// values the last in code order is kept (the canonical encoding: for MXSF with
// b5 < 8, the E2M5 code rather than the FP5 one).
inline std::vector<RefValue> ref_positive_values(const RefLayout &L)
{
    std::vector<RefValue> vals;
    uint32_t n = 1u << L.bits;
    uint32_t smask = (L.kind == RefLayout::E8M0) ? 0 : 1u << (L.bits - 1);
    for (uint32_t c = 0; c < n; c++) {
        if (smask && (c & smask)) continue;
        double v = ref_decode(L, c);
        if (std::isfinite(v)) vals.push_back({v, c});
    }
    std::stable_sort(vals.begin(), vals.end(), [](const RefValue &a, const RefValue &b) { return a.v < b.v; });
    std::vector<RefValue> uniq;
    for (auto &r : vals) {
        if (!uniq.empty() && uniq.back().v == r.v) uniq.back() = r;
        else uniq.push_back(r);
    }
    return uniq;
}

// Expected rounding of |x| (finite, not above the largest value) between the
// two neighbours: index into vals.  Ties: even -> even code (formats without
// mantissa bits: the larger value unless the smaller is zero), nearest -> larger.
inline size_t ref_round_index(const std::vector<RefValue> &vals, double ax, mx_round mode,
                              bool no_mantissa = false)
{
    auto it = std::lower_bound(vals.begin(), vals.end(), ax,
                               [](const RefValue &a, double x) { return a.v < x; });
    size_t hi = (size_t)(it - vals.begin());
    if (hi < vals.size() && vals[hi].v == ax) return hi;
    if (hi == vals.size()) return hi - 1;  // caller handles overflow
    size_t lo = hi - 1;
    double dl = ax - vals[lo].v, dh = vals[hi].v - ax;
    switch (mode) {
    case MX_ROUND_FLOOR: return lo;
    case MX_ROUND_NEAREST: return dl < dh ? lo : hi;
    default:
        if (dl < dh) return lo;
        if (dh < dl) return hi;
        if (no_mantissa) return vals[lo].v == 0 ? lo : hi;
        return (vals[lo].code & 1) ? hi : lo;
    }
}

#endif
