// fcov.cpp — the functional coverage points of the unit co-simulation and
// their samplers (see fcov.h).  Every point is judged from the C model's
// inputs and values; rounding classes (tie, overflow, subnormal) are worked
// out here from the exact operands, independently of the rounding code.
#include "fcov.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <unordered_map>
#include <vector>

extern "C" {
#include "units/mx_decode.h"
#include "units/mx_pe_format.h"
}

namespace cosim {
namespace fcov {

namespace {

struct Point {
    std::string name, what;
};

const char *const RQ_FMTS[] = {"mxsf", "e4m3", "e5m2", "e2m5", "int8"};
const mx_pe_fmt RQ_FMT_IDS[] = {MX_PE_MXSF, MX_PE_E4M3, MX_PE_E5M2, MX_PE_E2M5, MX_PE_INT8};
const char *const FCLS[] = {"fin", "+inf", "-inf", "nan"};

std::vector<Point> build_table()
{
    std::vector<Point> t;
    auto add = [&](const std::string &n, const std::string &w) { t.push_back({n, w}); };
    // align: every NaN/+Inf/-Inf combination among a group's lanes
    for (int n = 0; n < 2; n++)
        for (int p = 0; p < 2; p++)
            for (int m = 0; m < 2; m++)
                add("align.group nan" + std::to_string(n) + " +inf" + std::to_string(p) + " -inf" + std::to_string(m),
                    "lanes of one group: NaN present / +Inf present / -Inf present");
    add("align.inf_minus_inf", "+Inf and -Inf products in one group, no NaN (group is NaN)");
    add("align.all_zero", "no non-zero product in the group (e_max = 0)");
    add("align.truncated", "a non-zero product loses bits below the guard bits");
    add("align.shifted_out", "a non-zero product shifted out entirely (shift >= ALIGN_W)");
    add("align.negative", "a negative non-zero product");
    // mul
    add("mul.inf_x_zero", "Inf x 0 (NaN)");
    add("mul.nan_operand", "a NaN operand");
    add("mul.inf_x_finite", "Inf x non-zero finite (Inf)");
    for (int m = 0; m < 3; m++) add("mul.mxsf_mode" + std::to_string(m), "MXSF mode pair (0 E2M5xE2M5, 1 mixed, 2 FP5xFP5)");
    // accum: the adder's operand classes, the scale extremes, every rounding class
    for (int a = 0; a < 4; a++)
        for (int g = 0; g < 4; g++)
            add(std::string("accum.add ") + FCLS[a] + " + " + FCLS[g], "accumulator operand class + group class");
    add("accum.group.lane_nan", "group flagged NaN by align");
    add("accum.group.lane_inf+", "group flagged +Inf by align");
    add("accum.group.lane_inf-", "group flagged -Inf by align");
    for (const char *s : {"a", "b"}) {
        add(std::string("accum.scale.") + s + "=0x00", "E8M0 0x00 = 2^-127 (smallest scale)");
        add(std::string("accum.scale.") + s + "=0xFE", "E8M0 0xFE = 2^127 (largest scale)");
        add(std::string("accum.scale.") + s + "=0xFF", "E8M0 0xFF = NaN: group is NaN");
    }
    add("accum.scale.0xFF_unused", "scale 0xFF with use_scale 0 (BF16): ignored");
    add("accum.group.zero_sum", "group sum 0 (+0)");
    add("accum.group.exact", "group sum exact in FP32");
    add("accum.group.tie_down", "group sum exactly half-way, rounds down to even");
    add("accum.group.tie_up", "group sum exactly half-way, rounds up to even");
    add("accum.group.overflow", "finite group sum overflows to Inf");
    add("accum.group.subnormal", "group sum rounds to an FP32 subnormal");
    add("accum.group.underflow_zero", "non-zero group sum rounds to 0");
    add("accum.add.tie_down", "acc + group exactly half-way, rounds down to even");
    add("accum.add.tie_up", "acc + group exactly half-way, rounds up to even");
    add("accum.add.overflow", "finite acc + finite group overflows to Inf");
    add("accum.add.subnormal", "acc + group is an FP32 subnormal");
    add("accum.add.cancel", "x + (-x) = +0, x != 0");
    add("accum.add.neg_zero", "-0 + -0 = -0");
    add("accum.emit", "a last group emits out_q");
    add("accum.hold", "en_i low: registers hold");
    // requant, per element format
    for (const char *f : RQ_FMTS) {
        std::string p = std::string("requant.") + f + ".";
        add(p + "tie_down", "element exactly half-way between two codes, rounds down (even)");
        add(p + "tie_up", "element exactly half-way between two codes, rounds up (even)");
        add(p + "saturate", "element above the largest code: saturates");
        add(p + "underflow_zero", "non-zero element rounds to code 0");
        add(p + "zero_block", "all-zero block: scale 0x00");
        add(p + "scale_clamped", "tiny non-zero amax: scale clamped to 0x00 (2^-127)");
        add(p + "nan_block", "NaN in the block: scale 0xFF");
        add(p + "inf_block", "Inf (no NaN) in the block: scale 0xFF");
        add(p + "subnormal_in", "an FP32 subnormal element (non-zero)");
        add(p + "scale_max", "amax in FP32's top binade: the largest scale, 254 - emax_elem");
    }
    add("requant.int8.scale=0xFE", "amax >= 2^127: scale 0xFE (only INT8, emax_elem 0, reaches it)");
    add("requant.mxsf.fp5_to_1.0", "an FP5-mode value rounds up to 1.0 (E2M5 code 0x20)");
    add("requant.mxsf.gap", "b5 > 8: value strictly inside the gap (largest FP5, 1.0)");
    add("requant.mxsf.gap_tie", "b5 > 8: value exactly half-way in the gap (ties to 1.0)");
    // PE
    for (int i = 0; i < 8; i++)
        for (const char *op : {"a", "b"})
            for (const char *m : {"e2m5", "fp5"})
                add("pe.mxsf lane" + std::to_string(i) + " " + op + " " + m,
                    "non-zero MXSF element in this lane and mode");
    // per block-scaled minifloat format of the table (E4M3 .. FP4 E2M1): its
    // subnormals and its largest finite code reach the PE
    for (int i = 0; i < MX_PE_NFMT; i++) {
        const mx_pe_format *pf = mx_pe_format_of((mx_pe_fmt)i);
        if (pf->dec != MX_PE_DEC_FLOAT || !pf->block_scaled) continue;
        add(std::string("pe.") + pf->name + ".subnormal", "a non-zero subnormal element (E field 0), A or B");
        add(std::string("pe.") + pf->name + ".max", "an element of the largest finite magnitude, A or B");
    }
    for (const char *s : {"a", "b"}) {
        add(std::string("pe.scale.") + s + "=0x00", "block scale 0x00 (2^-127)");
        add(std::string("pe.scale.") + s + "=0xFE", "block scale 0xFE (2^127)");
        add(std::string("pe.scale.") + s + "=0xFF", "block scale 0xFF (NaN)");
        add(std::string("pe.zero_block.") + s, "every element of a block is zero");
    }
    return t;
}

const std::vector<Point> &table()
{
    static const std::vector<Point> t = build_table();
    return t;
}

std::vector<long> &counts()
{
    static std::vector<long> c(table().size(), 0);
    return c;
}

int idx(const std::string &name)
{
    static std::unordered_map<std::string, int> m = [] {
        std::unordered_map<std::string, int> r;
        for (size_t i = 0; i < table().size(); i++) r[table()[i].name] = (int)i;
        return r;
    }();
    auto it = m.find(name);
    if (it == m.end()) {
        fprintf(stderr, "fcov: internal error: unknown point '%s'\n", name.c_str());
        abort();
    }
    return it->second;
}

inline void hit(int i) { counts()[(size_t)i]++; }
#define HIT(name)                             \
    do {                                      \
        static const int hit_idx_ = idx(name); \
        hit(hit_idx_);                        \
    } while (0)

// Round-to-nearest-even of mag * 2^exp (mag > 0) to FP32: how the exact value
// lies against the FP32 grid (not the result bits: those come from the model).
struct Rnd {
    bool exact, tie, up, overflow, subnormal, zero;
};
Rnd fp32_class(unsigned __int128 mag, int exp)
{
    Rnd r = {true, false, false, false, false, false};
    int msb = 127;
    while (!((mag >> msb) & 1)) msb--;
    const int e = msb + exp;
    const int q = std::max(e, -126) - 23;
    const int sh = q - exp;
    unsigned __int128 n = mag;
    int qq = exp;  // value = n * 2^qq after rounding
    if (sh > 0) {
        qq = q;
        if (sh > 127) {
            r.exact = false;
            n = 0;
        } else {
            const unsigned __int128 rem = mag & ((((unsigned __int128)1) << sh) - 1);
            const unsigned __int128 half = ((unsigned __int128)1) << (sh - 1);
            n = mag >> sh;
            r.exact = rem == 0;
            r.tie = rem == half;
            r.up = rem > half || (r.tie && (n & 1));
        }
    }
    if (r.up) n++;
    // n * 2^q: overflow if >= 2^128, subnormal if < 2^-126
    int nmsb = -1;
    for (int i = 0; i < 128; i++)
        if ((n >> i) & 1) nmsb = i;
    r.zero = n == 0;
    if (!r.zero) {
        r.overflow = nmsb + qq >= 128;
        r.subnormal = nmsb + qq < -126;
    }
    return r;
}

int fp32_cls(uint32_t x)
{
    if ((x & 0x7F800000u) != 0x7F800000u) return 0;
    if (x & 0x007FFFFFu) return 3;
    return (x >> 31) ? 2 : 1;
}
bool fp32_finite(uint32_t x) { return (x & 0x7F800000u) != 0x7F800000u; }
bool fp32_subnormal(uint32_t x) { return (x & 0x7F800000u) == 0 && (x & 0x007FFFFFu) != 0; }

// The positive values of an element format, ascending (requant targets).
const std::vector<double> &rep_values(mx_pe_fmt f, int b5)
{
    static std::map<std::pair<int, int>, std::vector<double>> cache;
    auto key = std::make_pair((int)f, f == MX_PE_MXSF ? b5 : 0);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
    std::vector<double> v;
    for (uint32_t c = 0; c < 0x80; c++) {
        mx_decode_in in = {c, f, b5};
        mx_decode_out o;
        mx_decode_comb(&in, &o);
        if (o.nan_o || o.inf_o) continue;
        v.push_back(std::ldexp((double)o.sig_o, o.lsb_o));
    }
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return cache[key] = v;
}

double code_mag(mx_pe_fmt f, int b5, uint8_t code)
{
    if (f == MX_PE_INT8) return std::ldexp(std::fabs((double)(int8_t)code), -6);
    mx_decode_in in = {(uint32_t)(code & 0x7F), f, b5};
    mx_decode_out o;
    mx_decode_comb(&in, &o);
    return std::ldexp((double)o.sig_o, o.lsb_o);
}

}  // namespace

void align(int lanes, int align_width, const mx_align_in &in)
{
    static int combo[8] = {-1};
    if (combo[0] < 0)
        for (int n = 0; n < 2; n++)
            for (int p = 0; p < 2; p++)
                for (int m = 0; m < 2; m++)
                    combo[n * 4 + p * 2 + m] = idx("align.group nan" + std::to_string(n) + " +inf" + std::to_string(p) +
                                                   " -inf" + std::to_string(m));
    int nan = 0, pinf = 0, ninf = 0, any = 0, emax = 0;
    for (int i = 0; i < lanes; i++) {
        nan |= in.nan_i[i];
        pinf |= in.inf_i[i] && !in.sign_i[i];
        ninf |= in.inf_i[i] && in.sign_i[i];
        if (in.prod_i[i] && (!any || in.exp_i[i] > emax)) { emax = in.exp_i[i]; any = 1; }
    }
    hit(combo[nan * 4 + pinf * 2 + ninf]);
    if (pinf && ninf && !nan) HIT("align.inf_minus_inf");
    if (!any) HIT("align.all_zero");
    const int g = align_width - 16;
    for (int i = 0; i < lanes; i++) {
        if (!in.prod_i[i]) continue;
        if (in.sign_i[i]) HIT("align.negative");
        const int sh = emax - in.exp_i[i];
        if (sh >= align_width) HIT("align.shifted_out");
        if (sh > g && ((uint64_t)in.prod_i[i] & ((1ull << std::min(sh - g, 63)) - 1))) HIT("align.truncated");
    }
}

void mul(const mx_mul_in &in, bool mxsf)
{
    static const int mode_id[3] = {idx("mul.mxsf_mode0"), idx("mul.mxsf_mode1"), idx("mul.mxsf_mode2")};
    if (mxsf && !in.a_zero_i && !in.b_zero_i) hit(mode_id[in.a_mode_i + in.b_mode_i]);
    if ((in.a_inf_i && in.b_zero_i) || (in.b_inf_i && in.a_zero_i)) HIT("mul.inf_x_zero");
    if (in.a_nan_i || in.b_nan_i) HIT("mul.nan_operand");
    if ((in.a_inf_i && !in.b_zero_i && !in.b_nan_i) || (in.b_inf_i && !in.a_zero_i && !in.a_nan_i))
        HIT("mul.inf_x_finite");
}

void accum(int align_width, const mx_accum_in &in, uint32_t base, const mx_accum_out &out)
{
    if (!in.en_i) { HIT("accum.hold"); return; }
    if (!in.valid_i) return;
    if (in.last_i) HIT("accum.emit");
    static int add_id[16] = {-1};
    if (add_id[0] < 0)
        for (int a = 0; a < 4; a++)
            for (int g = 0; g < 4; g++) add_id[a * 4 + g] = idx(std::string("accum.add ") + FCLS[a] + " + " + FCLS[g]);
    hit(add_id[fp32_cls(base) * 4 + fp32_cls(out.group_o)]);
    const bool scale_nan = in.use_scale_i && (in.a_scale_i == 0xFF || in.b_scale_i == 0xFF);
    if (in.nan_i) HIT("accum.group.lane_nan");
    if (!in.nan_i && in.inf_i) { if (in.inf_sign_i) HIT("accum.group.lane_inf-"); else HIT("accum.group.lane_inf+"); }
    if (in.use_scale_i) {
        if (in.a_scale_i == 0x00) HIT("accum.scale.a=0x00");
        if (in.a_scale_i == 0xFE) HIT("accum.scale.a=0xFE");
        if (in.a_scale_i == 0xFF) HIT("accum.scale.a=0xFF");
        if (in.b_scale_i == 0x00) HIT("accum.scale.b=0x00");
        if (in.b_scale_i == 0xFE) HIT("accum.scale.b=0xFE");
        if (in.b_scale_i == 0xFF) HIT("accum.scale.b=0xFF");
    } else if (in.a_scale_i == 0xFF || in.b_scale_i == 0xFF) {
        HIT("accum.scale.0xFF_unused");
    }
    // the group conversion, when it rounds a finite sum
    if (!in.nan_i && !in.inf_i && !scale_nan) {
        if (in.sum_i == 0) {
            HIT("accum.group.zero_sum");
        } else {
            const int gexp = in.emax_i - (align_width - 16) +
                             (in.use_scale_i ? (int)in.a_scale_i + (int)in.b_scale_i - 254 : 0);
            const uint64_t m = in.sum_i < 0 ? (uint64_t)(-in.sum_i) : (uint64_t)in.sum_i;
            Rnd r = fp32_class(m, gexp);
            if (r.exact) HIT("accum.group.exact");
            if (r.tie) { if (r.up) HIT("accum.group.tie_up"); else HIT("accum.group.tie_down"); }
            if (r.overflow) HIT("accum.group.overflow");
            if (r.subnormal) HIT("accum.group.subnormal");
            if (r.zero) HIT("accum.group.underflow_zero");
        }
    }
    // the FP32 add of two finite operands
    const uint32_t a = base, b = out.group_o;
    if (fp32_finite(a) && fp32_finite(b)) {
        if ((a & 0x7FFFFFFFu) == 0 && (b & 0x7FFFFFFFu) == 0) {
            if (a == 0x80000000u && b == 0x80000000u) HIT("accum.add.neg_zero");
        } else if ((a ^ b) == 0x80000000u) {
            HIT("accum.add.cancel");
        } else if ((a & 0x7FFFFFFFu) && (b & 0x7FFFFFFFu)) {
            const int ea = std::max((int)((a >> 23) & 0xFF), 1) - 150, eb = std::max((int)((b >> 23) & 0xFF), 1) - 150;
            const int64_t ma = (int64_t)((a & 0x7FFFFFu) | (((a >> 23) & 0xFF) ? 0x800000u : 0)),
                          mb = (int64_t)((b & 0x7FFFFFu) | (((b >> 23) & 0xFF) ? 0x800000u : 0));
            const int lo = std::min(ea, eb);
            if (std::abs(ea - eb) <= 80) {
                __int128 s = (__int128)(a >> 31 ? -ma : ma) * ((__int128)1 << (ea - lo)) +
                             (__int128)(b >> 31 ? -mb : mb) * ((__int128)1 << (eb - lo));
                if (s != 0) {
                    Rnd r = fp32_class((unsigned __int128)(s < 0 ? -s : s), lo);
                    if (r.tie) { if (r.up) HIT("accum.add.tie_up"); else HIT("accum.add.tie_down"); }
                    if (r.overflow) HIT("accum.add.overflow");
                    if (r.subnormal) HIT("accum.add.subnormal");
                }
            }
        } else if (fp32_subnormal(a) || fp32_subnormal(b)) {
            HIT("accum.add.subnormal");  // 0 + subnormal
        }
    }
}

void requant(int n, const mx_requant_in &in, const mx_requant_out &out)
{
    int fi = -1;
    for (int i = 0; i < 5; i++)
        if (RQ_FMT_IDS[i] == in.fmt_i) fi = i;
    if (fi < 0) return;
    struct Ids { int tie_down, tie_up, sat, uz, zb, clamp, nanb, infb, subin, smax; };
    static Ids ids[5];
    static bool init = false;
    if (!init) {
        for (int i = 0; i < 5; i++) {
            std::string p = std::string("requant.") + RQ_FMTS[i] + ".";
            ids[i] = {idx(p + "tie_down"), idx(p + "tie_up"), idx(p + "saturate"), idx(p + "underflow_zero"),
                      idx(p + "zero_block"), idx(p + "scale_clamped"), idx(p + "nan_block"), idx(p + "inf_block"),
                      idx(p + "subnormal_in"), idx(p + "scale_max")};
        }
        init = true;
    }
    const Ids &id = ids[fi];
    const mx_pe_fmt f = (mx_pe_fmt)in.fmt_i;
    bool nan = false, inf = false, allzero = true;
    for (int i = 0; i < n; i++) {
        const uint32_t x = in.vals_i[i];
        if (fp32_cls(x) == 3) nan = true;
        if (fp32_cls(x) == 1 || fp32_cls(x) == 2) inf = true;
        if (x & 0x7FFFFFFFu) allzero = false;
        if (fp32_subnormal(x)) hit(id.subin);
    }
    if (nan) { hit(id.nanb); return; }
    if (inf) { hit(id.infb); return; }
    if (allzero) { hit(id.zb); return; }
    const uint32_t amax = out.amax_o & 0x7FFFFFFFu;
    // the OCP floor rule before its clamp (SPEC §2.1)
    int log2a = (amax >> 23) ? (int)(amax >> 23) - 127 : -150 + (32 - __builtin_clz(amax));
    static const int emax_elem[5] = {2, 8, 15, 2, 0};
    if (log2a - emax_elem[fi] < -127) hit(id.clamp);
    if (log2a == 127) hit(id.smax);
    if (f == MX_PE_INT8 && log2a >= 127) HIT("requant.int8.scale=0xFE");
    const int se = (int)out.scale_o - 127;
    const std::vector<double> &rep = rep_values(f, in.fp5_bias_i);
    for (int i = 0; i < n; i++) {
        const uint32_t x = in.vals_i[i] & 0x7FFFFFFFu;
        if (!x) continue;
        float fx;
        std::memcpy(&fx, &x, 4);
        const double v = std::ldexp((double)fx, -se);  // exact
        const double got = code_mag(f, in.fp5_bias_i, out.codes_o[i]);
        if (v > rep.back()) { hit(id.sat); continue; }
        if (got == 0) hit(id.uz);
        auto hi_it = std::lower_bound(rep.begin(), rep.end(), v);
        const double hi = *hi_it;
        if (hi == v) continue;
        const double lo = *(hi_it - 1);
        const bool tie = 2 * v == lo + hi;
        if (tie) hit(got == hi ? id.tie_up : id.tie_down);
        if (f == MX_PE_MXSF) {
            if (hi == 1.0 && lo < 1.0 && got == 1.0) HIT("requant.mxsf.fp5_to_1.0");
            if (in.fp5_bias_i > 8 && hi == 1.0 && lo == std::ldexp(7.0, 5 - in.fp5_bias_i)) {
                HIT("requant.mxsf.gap");
                if (tie) HIT("requant.mxsf.gap_tie");
            }
        }
    }
}

void pe_group(const mx_pe_config &cfg, const uint16_t *a, const uint16_t *b, uint8_t xa, uint8_t xb)
{
    static int lane_id[8][2][2];
    static bool init = false;
    if (!init) {
        for (int i = 0; i < 8; i++)
            for (int o = 0; o < 2; o++)
                for (int m = 0; m < 2; m++)
                    lane_id[i][o][m] = idx("pe.mxsf lane" + std::to_string(i) + " " + (o ? "b" : "a") + " " +
                                           (m ? "fp5" : "e2m5"));
        init = true;
    }
    static int sub_id[MX_PE_NFMT], max_id[MX_PE_NFMT];
    static bool init_fmt = false;
    if (!init_fmt) {
        for (int i = 0; i < MX_PE_NFMT; i++) {
            const mx_pe_format *pf = mx_pe_format_of((mx_pe_fmt)i);
            const bool has = pf->dec == MX_PE_DEC_FLOAT && pf->block_scaled;
            sub_id[i] = has ? idx(std::string("pe.") + pf->name + ".subnormal") : -1;
            max_id[i] = has ? idx(std::string("pe.") + pf->name + ".max") : -1;
        }
        init_fmt = true;
    }
    for (int o = 0; o < 2; o++) {  // minifloat classes from the table's fields, not from the decoder
        const mx_pe_fmt f = o ? cfg.fmt_b : cfg.fmt;
        if (sub_id[f] < 0) continue;
        const mx_pe_format *pf = mx_pe_format_of(f);
        const uint32_t mag_mask = (1u << (pf->code_bits - 1)) - 1;
        for (int i = 0; i < cfg.lanes; i++) {
            const uint32_t mag = (o ? b : a)[i] & mag_mask;
            if (mag && !(mag >> pf->mbits)) hit(sub_id[f]);
            if (mag == pf->max_code) hit(max_id[f]);
        }
    }
    for (int o = 0; o < 2; o++) {
        const mx_pe_fmt f = o ? cfg.fmt_b : cfg.fmt;
        if (f != MX_PE_MXSF) continue;
        const uint16_t *c = o ? b : a;
        for (int i = 0; i < cfg.lanes && i < 8; i++) {
            mx_decode_in in = {c[i], f, cfg.fp5_bias};
            mx_decode_out d;
            mx_decode_comb(&in, &d);
            if (!d.zero_o) hit(lane_id[i][o][d.mode_o]);
        }
    }
    if (cfg.fmt == MX_PE_BF16) return;
    if (xa == 0x00) HIT("pe.scale.a=0x00");
    if (xa == 0xFE) HIT("pe.scale.a=0xFE");
    if (xa == 0xFF) HIT("pe.scale.a=0xFF");
    if (xb == 0x00) HIT("pe.scale.b=0x00");
    if (xb == 0xFE) HIT("pe.scale.b=0xFE");
    if (xb == 0xFF) HIT("pe.scale.b=0xFF");
}

void pe_zero_block(char operand)
{
    if (operand == 'a') HIT("pe.zero_block.a");
    else HIT("pe.zero_block.b");
}

bool write(const std::string &path)
{
    FILE *f = fopen(path.c_str(), "a");
    if (!f) return false;
    for (size_t i = 0; i < table().size(); i++)
        if (counts()[i]) fprintf(f, "%s\t%ld\n", table()[i].name.c_str(), counts()[i]);
    return fclose(f) == 0;
}

int report(int nfiles, char **files)
{
    std::vector<long> total(table().size(), 0);
    for (int k = 0; k < nfiles; k++) {
        FILE *f = fopen(files[k], "r");
        if (!f) { fprintf(stderr, "fcov: cannot read %s\n", files[k]); return 2; }
        char line[512];
        while (fgets(line, sizeof line, f)) {
            char *tab = strrchr(line, '\t');
            if (!tab) continue;
            *tab = 0;
            total[(size_t)idx(line)] += atol(tab + 1);
        }
        fclose(f);
    }
    std::map<std::string, std::pair<int, int>> per_unit;
    int unhit = 0;
    printf("functional coverage (points judged from the C model's values; hits over all runs):\n");
    printf("  %-34s %10s  %s\n", "point", "hits", "meaning");
    for (size_t i = 0; i < table().size(); i++) {
        const Point &p = table()[i];
        const std::string unit = p.name.substr(0, p.name.find_first_of(". "));
        auto &u = per_unit[unit];
        u.second++;
        if (total[i]) u.first++;
        else unhit++;
        printf("  %-34s %10ld  %s%s\n", p.name.c_str(), total[i], total[i] ? "" : "UNHIT: ", p.what.c_str());
    }
    printf("functional coverage per unit:");
    for (auto &u : per_unit) printf(" %s %d/%d;", u.first.c_str(), u.second.first, u.second.second);
    printf("\nfunctional coverage: %s (%d/%zu points hit)\n", unhit ? "FAIL" : "PASS",
           (int)table().size() - unhit, table().size());
    return unhit ? 1 : 0;
}

}  // namespace fcov
}  // namespace cosim
