// cosim_units.cpp — one lock-step runner per unit: Verilated RTL vs C model.
#include "cosim.h"
#include "fcov.h"

#include <cinttypes>
#include <cstdlib>
#include <fstream>
#include <chrono>
#include <x86intrin.h>
#include <cerrno>
#include <cstring>
#include <functional>
#include <memory>
#include <sstream>
#include <unistd.h>

#include "verilated_fst_c.h"
#if VM_COVERAGE
#include "verilated_cov.h"
#endif

#include "Vmx_decode.h"
#include "Vmx_mul.h"
#include "Vmx_align.h"
#include "Vmx_addtree.h"
#include "Vmx_accum.h"
#include "Vmx_requant.h"
#include "Vmx_pe.h"
#include "Vmx_pe___024root.h"
#include "Vmx_pe_fault.h"
#include "Vmx_pe_fault___024root.h"
#include "Vmx_pe_l4.h"
#include "Vmx_pe_l4___024root.h"
#ifdef COSIM_PE_LANES  // a harness built on demand for another PE lane count (mk/cosim.mk)
#include "Vmx_pe_lanes.h"
#include "Vmx_pe_lanes___024root.h"
#endif

extern "C" {
#include "units/mx_decode.h"
#include "units/mx_mul.h"
#include "units/mx_align.h"
#include "units/mx_addtree.h"
#include "units/mx_accum.h"
#include "units/mx_pe_format.h"
#include "units/mx_requant.h"
}

namespace cosim {

// Parameters the Verilated models were built with (mk/cosim.mk).
constexpr int RTL_LANES = 8, RTL_ALIGN_W = 32, RTL_AL_W = RTL_ALIGN_W + 1, RTL_SUM_W = RTL_AL_W + 3;
constexpr int RTL_REQ_N = 8;
constexpr int PROD_W = 16, PEXP_W = 10, LSB_W = 9, CODE_W = 16;

static std::string hex(uint64_t v)
{
    char b[32];
    snprintf(b, sizeof b, "0x%" PRIx64, v);
    return b;
}

// Sign-extends the low w bits.
static int64_t sext(uint64_t v, int w) { return (int64_t)(v << (64 - w)) >> (64 - w); }

std::vector<Row> read_table(const std::string &path)
{
    std::ifstream in(path);
    if (!in) {
        fprintf(stderr, "mxsim cosim: cannot read directed table %s\n", path.c_str());
        exit(2);
    }
    std::vector<Row> rows;
    std::string line;
    for (int ln = 1; std::getline(in, line); ln++) {
        size_t h = line.find('#');
        if (h != std::string::npos) line.resize(h);
        std::istringstream ss(line);
        Row r{ln, {}};
        for (std::string w; ss >> w;) r.f.push_back(w);
        if (!r.f.empty()) rows.push_back(r);
    }
    if (rows.empty()) {
        fprintf(stderr, "mxsim cosim: directed table %s has no rows\n", path.c_str());
        exit(2);
    }
    return rows;
}

// Field parsing of a table row; a bad field ends the run (status 2).
struct RowParser {
    const std::string &path;
    const Row &r;
    [[noreturn]] void bad(const std::string &what) const
    {
        fprintf(stderr, "mxsim cosim: %s line %d: %s\n", path.c_str(), r.line, what.c_str());
        exit(2);
    }
    void need(size_t n) const
    {
        if (r.f.size() != n) bad("expected " + std::to_string(n) + " fields, got " + std::to_string(r.f.size()));
    }
    uint64_t num(size_t i, int base = 16) const
    {
        const char *s = r.f[i].c_str();
        char *end;
        errno = 0;
        unsigned long long v = strtoull(s, &end, base);
        if (errno || *end || end == s) bad("bad number '" + r.f[i] + "'");
        return v;
    }
    int64_t snum(size_t i) const
    {
        const char *s = r.f[i].c_str();
        char *end;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (errno || *end || end == s) bad("bad integer '" + r.f[i] + "'");
        return v;
    }
    mx_pe_fmt fmt(size_t i) const
    {
        mx_pe_fmt f;
        if (mx_pe_fmt_parse(r.f[i].c_str(), &f)) bad("unknown format '" + r.f[i] + "'");
        return f;
    }
    std::vector<uint64_t> list(size_t i, size_t n) const  // comma-separated hex
    {
        std::vector<uint64_t> v;
        std::istringstream ss(r.f[i]);
        for (std::string w; std::getline(ss, w, ',');) {
            char *end;
            errno = 0;
            unsigned long long x = strtoull(w.c_str(), &end, 16);
            if (errno || *end || w.empty()) bad("bad hex list '" + r.f[i] + "'");
            v.push_back(x);
        }
        if (v.size() != n) bad("list '" + r.f[i] + "' needs " + std::to_string(n) + " entries");
        return v;
    }
};

uint16_t rand_code(mx_pe_fmt f, uint64_t *rng, bool allow_special)
{
    const int bits = mx_pe_code_bits(f);
    for (;;) {
        uint32_t c = (uint32_t)mx_rng_next(rng);
        if (f == MX_PE_BF16) {
            c &= 0x807F;
            c |= (uint32_t)(127 - 24 + (int)(mx_rng_next(rng) % 48)) << 7;
            if (mx_rng_next(rng) % 64 == 0) c = (uint32_t)mx_rng_next(rng) & 0xFFFF;
        } else {
            c &= (1u << bits) - 1;  /* FP6/FP4: the low bits of the 8-bit slot */
        }
        if (!allow_special) {  /* NaN/Inf codes as the format table defines them */
            mx_decode_in in = {c, f, 8};
            mx_decode_out d;
            mx_decode_comb(&in, &d);
            if (d.nan_o || d.inf_o) continue;
        }
        return (uint16_t)c;
    }
}

// Records the first mismatch of a cycle; returns true if one was found.
struct Checker {
    Result &r;
    std::string unit;
    long cycle = 0;
    std::function<std::string()> stim;  // built only at a mismatch
    explicit Checker(Result &res, const char *u) : r(res), unit(u) {}
    inline bool operator()(const char *fieldname, int lane, uint64_t exp, uint64_t act, int width,
                           const char *unit_override = nullptr)
    {
        if (__builtin_expect(((exp ^ act) & mask(width)) == 0, 1)) return !r.ok;
        return fail(fieldname, lane, exp & mask(width), act & mask(width), width, unit_override);
    }
    __attribute__((noinline, cold)) bool fail(const char *fieldname, int lane, uint64_t exp, uint64_t act,
                                              int width, const char *unit_override)
    {
        if (!r.ok) return true;
        r.ok = false;
        r.mm.cycle = cycle;
        r.mm.unit = unit_override ? unit_override : unit;
        r.mm.field = fieldname;
        r.mm.lane = lane;
        r.mm.expected = exp;
        r.mm.actual = act;
        r.mm.width = width;
        r.mm.stimulus = stim ? stim() : std::string();
        return true;
    }
};

template <class M> struct Sim {
    std::unique_ptr<VerilatedContext> ctx;
    std::unique_ptr<M> m;
    std::unique_ptr<VerilatedFstC> tfp;
    const Trace &t;
    explicit Sim(const Trace &tr) : ctx(new VerilatedContext), t(tr)
    {
        if (t.from >= 0) ctx->traceEverOn(true);
        m.reset(new M(ctx.get()));
        if (t.from >= 0) {
            tfp.reset(new VerilatedFstC);
            m->trace(tfp.get(), 99);
            tfp->open(t.file.c_str());
        }
    }
    void dump(long cycle, int phase)
    {
        if (tfp && t.on(cycle)) tfp->dump((uint64_t)(cycle * 10 + phase * 5));
    }
    ~Sim()
    {
        if (tfp) tfp->close();
        m->final();
#if VM_COVERAGE
        // line/toggle counts of this model's run (make coverage merges them)
        if (const char *dir = getenv("MXSIM_COSIM_COVERAGE_DIR")) {
            static int seq = 0;
            const std::string path = std::string(dir) + "/" + m->modelName() + "_" + std::to_string((long)getpid()) + "_" +
                                     std::to_string(seq++) + ".dat";
            ctx->coveragep()->write(path.c_str());
        }
#endif
    }
};

// ---------------------------------------------------------------- decode ---
Result run_decode(const Options &o, const Trace &t)
{
    Result r;
    Checker chk(r, "decode");
    Sim<Vmx_decode> s(t);
    uint64_t rng = o.seed;
    // every value of the code's slot: for FP6/FP4 also the ignored bits above the code
    const long ncodes = 1L << (mx_pe_code_bits(o.fmt) > 8 ? mx_pe_code_bits(o.fmt) : 8);
    const int b5_lo = o.fmt == MX_PE_MXSF && o.exhaustive ? 5 : o.fp5_bias;
    const int b5_hi = o.fmt == MX_PE_MXSF && o.exhaustive ? 16 : o.fp5_bias;
    const long n = o.exhaustive ? ncodes * (b5_hi - b5_lo + 1) : o.vectors;
    for (long v = 0; v < n && r.ok; v++) {
        uint32_t code = o.exhaustive ? (uint32_t)(v % ncodes) : rand_code(o.fmt, &rng, true);
        int b5 = o.exhaustive ? b5_lo + (int)(v / ncodes) : o.fp5_bias;
        s.m->code_i = (uint16_t)code;
        s.m->fmt_i = (uint8_t)o.fmt;
        s.m->fp5_bias_i = (uint8_t)b5;
        s.m->eval();
        s.dump(v, 0);
        mx_decode_in in = {code, o.fmt, b5};
        mx_decode_out c;
        mx_decode_comb(&in, &c);
        chk.cycle = v;
        chk.stim = [&] { return "code_i=" + hex(code) + " fmt_i=" + mx_pe_fmt_name(o.fmt) + " fp5_bias_i=" + std::to_string(b5); };
        chk("sign_o", -1, (uint64_t)c.sign_o, s.m->sign_o, 1) ||
        chk("sig_o", -1, c.sig_o, s.m->sig_o, 8) ||
        chk("lsb_o", -1, (uint64_t)c.lsb_o, s.m->lsb_o, LSB_W) ||
        chk("zero_o", -1, (uint64_t)c.zero_o, s.m->zero_o, 1) ||
        chk("nan_o", -1, (uint64_t)c.nan_o, s.m->nan_o, 1) ||
        chk("inf_o", -1, (uint64_t)c.inf_o, s.m->inf_o, 1) ||
        chk("mode_o", -1, (uint64_t)c.mode_o, s.m->mode_o, 1);
        r.vectors++;
        r.cycles++;
    }
    return r;
}

static void decode_c(mx_pe_fmt f, int b5, uint32_t code, mx_decode_out *o)
{
    mx_decode_in in = {code, f, b5};
    mx_decode_comb(&in, o);
}

// ------------------------------------------------------------------- mul ---
Result run_mul(const Options &o, const Trace &t)
{
    Result r;
    Checker chk(r, "mul");
    Sim<Vmx_mul> s(t);
    uint64_t rng = o.seed;
    // exhaustive: every pair of codes (A's x B's) of formats up to 8 bits
    const int bits_a = mx_pe_code_bits(o.fmt), bits_b = mx_pe_code_bits(o.fmt_b);
    const bool exh = o.exhaustive && bits_a <= 8 && bits_b <= 8;
    const long n = exh ? 1L << (bits_a + bits_b) : o.vectors;
    for (long v = 0; v < n && r.ok; v++) {
        uint32_t a = exh ? (uint32_t)(v >> bits_b) : rand_code(o.fmt, &rng, true);
        uint32_t b = exh ? (uint32_t)(v & ((1L << bits_b) - 1)) : rand_code(o.fmt_b, &rng, true);
        mx_decode_out da, db;
        decode_c(o.fmt, o.fp5_bias, a, &da);
        decode_c(o.fmt_b, o.fp5_bias, b, &db);
        s.m->a_sign_i = da.sign_o; s.m->a_sig_i = (uint8_t)da.sig_o; s.m->a_lsb_i = (uint16_t)(da.lsb_o & 0x1FF);
        s.m->a_zero_i = da.zero_o; s.m->a_nan_i = da.nan_o; s.m->a_inf_i = da.inf_o; s.m->a_mode_i = da.mode_o;
        s.m->b_sign_i = db.sign_o; s.m->b_sig_i = (uint8_t)db.sig_o; s.m->b_lsb_i = (uint16_t)(db.lsb_o & 0x1FF);
        s.m->b_zero_i = db.zero_o; s.m->b_nan_i = db.nan_o; s.m->b_inf_i = db.inf_o; s.m->b_mode_i = db.mode_o;
        s.m->eval();
        s.dump(v, 0);
        mx_mul_in mi = {da.sign_o, da.sig_o, da.lsb_o, da.zero_o, da.nan_o, da.inf_o, da.mode_o,
                        db.sign_o, db.sig_o, db.lsb_o, db.zero_o, db.nan_o, db.inf_o, db.mode_o};
        mx_mul_out c;
        mx_mul_comb(&mi, &c);
        fcov::mul(mi, o.fmt == MX_PE_MXSF && o.fmt_b == MX_PE_MXSF);
        chk.cycle = v;
        chk.stim = [&] {
            return "a=" + hex(a) + " b=" + hex(b) + " (codes, " + mx_pe_fmt_name(o.fmt) + " x " + mx_pe_fmt_name(o.fmt_b) + ")";
        };
        chk("sign_o", -1, (uint64_t)c.sign_o, s.m->sign_o, 1) ||
        chk("prod_o", -1, c.prod_o, s.m->prod_o, PROD_W) ||
        chk("exp_o", -1, (uint64_t)c.exp_o, s.m->exp_o, PEXP_W) ||
        chk("zero_o", -1, (uint64_t)c.zero_o, s.m->zero_o, 1) ||
        chk("nan_o", -1, (uint64_t)c.nan_o, s.m->nan_o, 1) ||
        chk("inf_o", -1, (uint64_t)c.inf_o, s.m->inf_o, 1) ||
        chk("mode_o", -1, (uint64_t)c.mode_o, s.m->mode_o, 2);
        r.vectors++;
        r.cycles++;
    }
    return r;
}

// ----------------------------------------------------------------- align ---
Result run_align(const Options &o, const Trace &t)
{
    Result r;
    Checker chk(r, "align");
    Sim<Vmx_align> s(t);
    uint64_t rng = o.seed;
    // Directed rows: fmt fmt_b a_codes b_codes nan inf inf_sign (the spec's group flags).
    const std::vector<Row> rows = o.directed.empty() ? std::vector<Row>() : read_table(o.directed);
    const long n = rows.empty() ? o.vectors : (long)rows.size();
    for (long v = 0; v < n && r.ok; v++) {
        mx_align_in in;
        std::memset(&in, 0, sizeof in);
        mx_pe_fmt fa = o.fmt, fb = o.fmt_b;
        std::vector<uint64_t> ac, bc;
        uint64_t want[3] = {0, 0, 0};
        const Row *row = rows.empty() ? nullptr : &rows[(size_t)v];
        if (row) {
            RowParser p{o.directed, *row};
            p.need(7);
            fa = p.fmt(0);
            fb = p.fmt(1);
            ac = p.list(2, RTL_LANES);
            bc = p.list(3, RTL_LANES);
            for (int k = 0; k < 3; k++) want[k] = p.num(4 + (size_t)k);
        }
        for (int i = 0; i < RTL_LANES; i++) {
            uint32_t a = row ? (uint32_t)ac[(size_t)i] : rand_code(o.fmt, &rng, mx_rng_next(&rng) % 64 == 0);
            uint32_t b = row ? (uint32_t)bc[(size_t)i] : rand_code(o.fmt_b, &rng, false);
            mx_decode_out da, db;
            decode_c(fa, o.fp5_bias, a, &da);
            decode_c(fb, o.fp5_bias, b, &db);
            mx_mul_in mi = {da.sign_o, da.sig_o, da.lsb_o, da.zero_o, da.nan_o, da.inf_o, da.mode_o,
                            db.sign_o, db.sig_o, db.lsb_o, db.zero_o, db.nan_o, db.inf_o, db.mode_o};
            mx_mul_out mo;
            mx_mul_comb(&mi, &mo);
            if (!row && mx_rng_next(&rng) % 8 == 0) {  // raw products: any exponent spread
                mo.prod_o = (uint32_t)mx_rng_next(&rng) & 0xFFFF;
                mo.exp_o = (int)(mx_rng_next(&rng) % 120) - 80;
            }
            in.sign_i[i] = mo.sign_o; in.prod_i[i] = mo.prod_o; in.exp_i[i] = mo.exp_o;
            in.nan_i[i] = mo.nan_o; in.inf_i[i] = mo.inf_o;
            set_field(s.m->sign_i, i, 1, (uint64_t)mo.sign_o);
            set_field(s.m->prod_i, i * PROD_W, PROD_W, mo.prod_o);
            set_field(s.m->exp_i, i * PEXP_W, PEXP_W, (uint64_t)mo.exp_o);
            set_field(s.m->nan_i, i, 1, (uint64_t)mo.nan_o);
            set_field(s.m->inf_i, i, 1, (uint64_t)mo.inf_o);
        }
        s.m->eval();
        s.dump(v, 0);
        mx_align_out c;
        mx_align_comb(RTL_LANES, RTL_ALIGN_W, &in, &c);
        fcov::align(RTL_LANES, RTL_ALIGN_W, in);
        chk.cycle = v;
        chk.stim = [&] {
            std::ostringstream st;
            if (row) st << o.directed << " line " << row->line << ": ";
            st << "lanes (sign,prod,exp,nan,inf):";
            for (int i = 0; i < RTL_LANES; i++)
                st << " (" << in.sign_i[i] << "," << hex(in.prod_i[i]) << "," << in.exp_i[i] << "," << in.nan_i[i]
                   << "," << in.inf_i[i] << ")";
            return st.str();
        };
        for (int i = 0; i < RTL_LANES; i++)
            if (chk("aligned_o", i, (uint64_t)c.aligned_o[i], field(s.m->aligned_o, i * RTL_AL_W, RTL_AL_W), RTL_AL_W)) break;
        chk("emax_o", -1, (uint64_t)c.emax_o, s.m->emax_o, PEXP_W) ||
        chk("nan_o", -1, (uint64_t)c.nan_o, s.m->nan_o, 1) ||
        chk("inf_o", -1, (uint64_t)c.inf_o, s.m->inf_o, 1) ||
        chk("inf_sign_o", -1, (uint64_t)c.inf_sign_o, s.m->inf_sign_o, 1);
        if (row)  // the spec's expectation, against the C model (the RTL was compared with it above)
            chk("nan_o(table)", -1, want[0], (uint64_t)c.nan_o, 1) ||
            chk("inf_o(table)", -1, want[1], (uint64_t)c.inf_o, 1) ||
            chk("inf_sign_o(table)", -1, want[2], (uint64_t)c.inf_sign_o, 1);
        r.vectors++;
        r.cycles++;
    }
    return r;
}

// --------------------------------------------------------------- addtree ---
Result run_addtree(const Options &o, const Trace &t)
{
    Result r;
    Checker chk(r, "addtree");
    Sim<Vmx_addtree> s(t);
    uint64_t rng = o.seed;
    for (long v = 0; v < o.vectors && r.ok; v++) {
        int64_t al[MX_PE_MAX_LANES];
        for (int i = 0; i < RTL_LANES; i++) {
            int w = 1 + (int)(mx_rng_next(&rng) % (RTL_AL_W - 1));
            al[i] = sext(mx_rng_next(&rng) & mask(w + 1), w + 1);
            if (mx_rng_next(&rng) % 16 == 0) al[i] = (mx_rng_next(&rng) & 1) ? sext(1ull << RTL_ALIGN_W, RTL_AL_W) : (int64_t)mask(RTL_ALIGN_W);
            set_field(s.m->aligned_i, i * RTL_AL_W, RTL_AL_W, (uint64_t)al[i]);
        }
        s.m->eval();
        s.dump(v, 0);
        int64_t c = mx_addtree_comb(RTL_LANES, al);
        chk.cycle = v;
        chk.stim = [&] {
            std::ostringstream st;
            st << "aligned_i:";
            for (int i = 0; i < RTL_LANES; i++) st << " " << al[i];
            return st.str();
        };
        chk("sum_o", -1, (uint64_t)c, s.m->sum_o, RTL_SUM_W);
        r.vectors++;
        r.cycles++;
    }
    return r;
}

static uint32_t rand_fp32(uint64_t *rng)
{
    uint32_t x = (uint32_t)mx_rng_next(rng);
    switch (mx_rng_next(rng) % 8) {
    case 0: return x;                                          // anything, incl. NaN/Inf
    case 1: return x & 0x807FFFFFu;                            // zero / subnormal
    default: return (x & 0x807FFFFFu) | ((uint32_t)(100 + mx_rng_next(rng) % 56) << 23);
    }
}

// ----------------------------------------------------------------- accum ---
Result run_accum(const Options &o, const Trace &t)
{
    Result r;
    Checker chk(r, "accum");
    Sim<Vmx_accum> s(t);
    uint64_t rng = o.seed;
    mx_accum_regs q = {0, 0, 0}, d;
    s.m->rst_ni = 0;
    for (int i = 0; i < 2; i++) { s.m->clk_i = 0; s.m->eval(); s.m->clk_i = 1; s.m->eval(); }
    s.m->rst_ni = 1;
    // Directed rows: first acc_i sum_i emax_i a_scale b_scale use_scale nan inf inf_sign group_o res_o
    // (en, valid, last set; expected group_o and res_o from the spec's roundings).
    const std::vector<Row> rows = o.directed.empty() ? std::vector<Row>() : read_table(o.directed);
    const long n = rows.empty() ? o.vectors : (long)rows.size();
    for (long v = 0; v < n && r.ok; v++) {
        mx_accum_in in;
        std::memset(&in, 0, sizeof in);
        const Row *row = rows.empty() ? nullptr : &rows[(size_t)v];
        uint64_t want_group = 0, want_res = 0;
        if (row) {
            RowParser p{o.directed, *row};
            p.need(12);
            in.en_i = in.valid_i = in.last_i = 1;
            in.first_i = (int)p.num(0);
            in.acc_i = (uint32_t)p.num(1);
            in.sum_i = p.snum(2);
            in.emax_i = (int)p.snum(3);
            in.a_scale_i = (uint8_t)p.num(4);
            in.b_scale_i = (uint8_t)p.num(5);
            in.use_scale_i = (int)p.num(6);
            in.nan_i = (int)p.num(7);
            in.inf_i = (int)p.num(8);
            in.inf_sign_i = (int)p.num(9);
            want_group = p.num(10);
            want_res = p.num(11);
            if (in.sum_i >= (1ll << (RTL_SUM_W - 1)) || in.sum_i < -(1ll << (RTL_SUM_W - 1)) || in.emax_i < -512 ||
                in.emax_i > 511)
                p.bad("sum_i or emax_i outside the RTL's widths");
        } else {
        in.en_i = mx_rng_next(&rng) % 10 != 0;
        in.valid_i = mx_rng_next(&rng) % 10 != 0;
        in.first_i = mx_rng_next(&rng) % 4 == 0;
        in.last_i = mx_rng_next(&rng) % 4 == 0;
        in.acc_i = rand_fp32(&rng);
        int w = 1 + (int)(mx_rng_next(&rng) % (RTL_SUM_W - 1));
        in.sum_i = sext(mx_rng_next(&rng) & mask(w), w);
        in.emax_i = (int)(mx_rng_next(&rng) % 500) - 270;
        in.a_scale_i = (uint8_t)(mx_rng_next(&rng) % 8 ? 100 + mx_rng_next(&rng) % 56 : mx_rng_next(&rng) & 0xFF);
        in.b_scale_i = (uint8_t)(mx_rng_next(&rng) % 8 ? 100 + mx_rng_next(&rng) % 56 : mx_rng_next(&rng) & 0xFF);
        in.use_scale_i = mx_rng_next(&rng) % 6 != 0;
        in.nan_i = mx_rng_next(&rng) % 50 == 0;
        in.inf_i = mx_rng_next(&rng) % 50 == 0;
        in.inf_sign_i = (int)(mx_rng_next(&rng) & 1);
        }
        s.m->en_i = in.en_i; s.m->valid_i = in.valid_i; s.m->first_i = in.first_i; s.m->last_i = in.last_i;
        s.m->acc_i = in.acc_i; s.m->sum_i = (uint64_t)in.sum_i & mask(RTL_SUM_W);
        s.m->emax_i = (uint16_t)(in.emax_i & 0x3FF);
        s.m->a_scale_i = in.a_scale_i; s.m->b_scale_i = in.b_scale_i; s.m->use_scale_i = in.use_scale_i;
        s.m->nan_i = in.nan_i; s.m->inf_i = in.inf_i; s.m->inf_sign_i = in.inf_sign_i;
        s.m->clk_i = 0;
        s.m->eval();
        s.dump(v, 0);
        mx_accum_out c;
        mx_accum_comb(RTL_ALIGN_W, &in, &q, &d, &c);
        fcov::accum(RTL_ALIGN_W, in, in.first_i ? in.acc_i : q.acc_q, c);
        chk.cycle = v;
        chk.stim = [&] {
        std::ostringstream st;
        if (row) st << o.directed << " line " << row->line << ": ";
        st << "en=" << in.en_i << " valid=" << in.valid_i << " first=" << in.first_i << " last=" << in.last_i
           << " acc_i=" << hex(in.acc_i) << " sum_i=" << in.sum_i << " emax_i=" << in.emax_i
           << " scales=" << hex(in.a_scale_i) << "," << hex(in.b_scale_i) << " use_scale=" << in.use_scale_i
           << " nan/inf/sign=" << in.nan_i << in.inf_i << in.inf_sign_i << " acc_q=" << hex(q.acc_q);
        return st.str();
        };
        chk("group_o", -1, c.group_o, s.m->group_o, 32) ||
        chk("res_o", -1, c.res_o, s.m->res_o, 32) ||
        chk("acc_q", -1, q.acc_q, s.m->acc_q, 32) ||
        chk("out_q", -1, q.out_q, s.m->out_q, 32) ||
        chk("out_valid_q", -1, (uint64_t)q.out_valid_q, s.m->out_valid_q, 1);
        if (row)
            chk("group_o(table)", -1, want_group, c.group_o, 32) || chk("res_o(table)", -1, want_res, c.res_o, 32);
        s.m->clk_i = 1;
        s.m->eval();
        s.dump(v, 1);
        mx_accum_tick(&q, &d);
        r.vectors++;
        r.cycles++;
    }
    return r;
}

// --------------------------------------------------------------- requant ---
Result run_requant(const Options &o, const Trace &t)
{
    Result r;
    Checker chk(r, "requant");
    Sim<Vmx_requant> s(t);
    uint64_t rng = o.seed;
    mx_requant_in in;
    std::memset(&in, 0, sizeof in);
    // Directed rows: fmt fp5_bias vals scale codes (lists of 8 hex; expectations from the spec).
    const std::vector<Row> rows = o.directed.empty() ? std::vector<Row>() : read_table(o.directed);
    const long n = rows.empty() ? o.vectors : (long)rows.size();
    for (long v = 0; v < n && r.ok; v++) {
        const Row *row = rows.empty() ? nullptr : &rows[(size_t)v];
        uint64_t want_scale = 0;
        std::vector<uint64_t> want_codes;
        if (row) {
            RowParser p{o.directed, *row};
            p.need(5);
            in.fmt_i = p.fmt(0);
            if (!mx_pe_format_of((mx_pe_fmt)in.fmt_i)->requant)
                p.bad(std::string("the re-quantizer has no element format ") + mx_pe_fmt_name((mx_pe_fmt)in.fmt_i));
            in.fp5_bias_i = (int)p.snum(1);
            if (in.fp5_bias_i < 5 || in.fp5_bias_i > 16) p.bad("fp5 bias outside 5..16");
            std::vector<uint64_t> vals = p.list(2, RTL_REQ_N);
            for (int i = 0; i < RTL_REQ_N; i++) {
                in.vals_i[i] = (uint32_t)vals[(size_t)i];
                set_field(s.m->vals_i, i * 32, 32, in.vals_i[i]);
            }
            want_scale = p.num(3);
            want_codes = p.list(4, RTL_REQ_N);
        } else {
        in.fmt_i = o.fmt;
        in.fp5_bias_i = o.fp5_bias;
        int e0 = 1 + (int)(mx_rng_next(&rng) % 254);
        for (int i = 0; i < RTL_REQ_N; i++) {
            uint32_t x = (uint32_t)mx_rng_next(&rng);
            int e = e0 - (int)(mx_rng_next(&rng) % 20);
            if (e < 0) e = 0;
            x = (x & 0x807FFFFFu) | ((uint32_t)e << 23);
            uint64_t k = mx_rng_next(&rng) % 200;
            if (k == 0) x = 0x7FC00000u;
            if (k == 1) x = 0xFF800000u;
            if (k < 10 && k > 1) x &= 0x80000000u;
            in.vals_i[i] = x;
            set_field(s.m->vals_i, i * 32, 32, x);
        }
        if (mx_rng_next(&rng) % 50 == 0)
            for (int i = 0; i < RTL_REQ_N; i++) { in.vals_i[i] &= 0x80000000u; set_field(s.m->vals_i, i * 32, 32, in.vals_i[i]); }
        }
        s.m->fmt_i = (uint8_t)in.fmt_i;
        s.m->fp5_bias_i = (uint8_t)in.fp5_bias_i;
        s.m->eval();
        s.dump(v, 0);
        mx_requant_out c;
        mx_requant_comb(RTL_REQ_N, &in, &c);
        fcov::requant(RTL_REQ_N, in, c);
        chk.cycle = v;
        chk.stim = [&] {
            std::ostringstream st;
            if (row) st << o.directed << " line " << row->line << ": " << mx_pe_fmt_name((mx_pe_fmt)in.fmt_i)
                        << " b5=" << in.fp5_bias_i << " ";
            st << "vals_i:";
            for (int i = 0; i < RTL_REQ_N; i++) st << " " << hex(in.vals_i[i]);
            return st.str();
        };
        if (!chk("scale_o", -1, c.scale_o, s.m->scale_o, 8) && !chk("amax_o", -1, c.amax_o, s.m->amax_o, 32))
            for (int i = 0; i < RTL_REQ_N; i++)
                if (chk("codes_o", i, c.codes_o[i], field(s.m->codes_o, i * 8, 8), 8)) break;
        if (row && !chk("scale_o(table)", -1, want_scale, c.scale_o, 8))
            for (int i = 0; i < RTL_REQ_N; i++)
                if (chk("codes_o(table)", i, want_codes[(size_t)i], c.codes_o[i], 8)) break;
        r.vectors++;
        r.cycles++;
    }
    return r;
}

// -------------------------------------------------------------------- pe ---
struct Txn {
    long id;
    uint16_t a[MX_PE_MAX_LANES], b[MX_PE_MAX_LANES];
    uint8_t xa, xb;
    int first, last;
    uint32_t acc;
    bool blk_first, blk_last;  // first / last group of a scale block
};

static std::string txn_str(const Txn &x, int lanes)
{
    std::ostringstream s;
    s << "group #" << x.id << " a_codes=[";
    for (int i = 0; i < lanes; i++) s << (i ? " " : "") << hex(x.a[i]);
    s << "] b_codes=[";
    for (int i = 0; i < lanes; i++) s << (i ? " " : "") << hex(x.b[i]);
    s << "] a_scale=" << hex(x.xa) << " b_scale=" << hex(x.xb) << " first=" << x.first << " last=" << x.last
      << " acc_i=" << hex(x.acc);
    return s.str();
}

// The C model's stage registers and outputs against the RTL's (the PE's
// four stages, then its ports); a mismatch's stimulus is the group the
// failing stage holds (ids of S1, S2, S3 and the accumulator's last group).
// true on a mismatch.
template <class M, int L, class Stim>
static bool check_pe_stages(Checker &chk, Sim<M> &s, const mx_pe_regs *q, const mx_pe_out &c, const Stim &stage_stim,
                            long id_s1, long id_s2, long id_s3, long id_acc)
{
    constexpr int SUM_W = RTL_AL_W + (L > 32 ? 6 : L > 16 ? 5 : L > 8 ? 4 : L > 4 ? 3 : L > 2 ? 2 : L > 1 ? 1 : 0); // + clog2(L)
    auto *R = s.m->rootp;
    chk.stim = [&stage_stim, id_s1] { return stage_stim(id_s1, "S1 holds"); };
    bool bad = false;
    bad = bad || chk("s1_valid_q", -1, (uint64_t)q->s1_valid_q, R->mx_pe__DOT__s1_valid_q, 1, "pe");
    for (int i = 0; i < L && !bad; i++) {
        bad = chk("s1_sign_q", i, (uint64_t)q->s1_sign_q[i], field(R->mx_pe__DOT__s1_sign_q, i, 1), 1, "mul") ||
              chk("s1_prod_q", i, q->s1_prod_q[i], field(R->mx_pe__DOT__s1_prod_q, i * PROD_W, PROD_W), PROD_W, "mul") ||
              chk("s1_exp_q", i, (uint64_t)q->s1_exp_q[i], field(R->mx_pe__DOT__s1_exp_q, i * PEXP_W, PEXP_W), PEXP_W, "mul") ||
              chk("s1_zero_q", i, (uint64_t)q->s1_zero_q[i], field(R->mx_pe__DOT__s1_zero_q, i, 1), 1, "mul") ||
              chk("s1_nan_q", i, (uint64_t)q->s1_nan_q[i], field(R->mx_pe__DOT__s1_nan_q, i, 1), 1, "mul") ||
              chk("s1_inf_q", i, (uint64_t)q->s1_inf_q[i], field(R->mx_pe__DOT__s1_inf_q, i, 1), 1, "mul") ||
              chk("s1_mode_q", i, (uint64_t)q->s1_mode_q[i], field(R->mx_pe__DOT__s1_mode_q, i * 2, 2), 2, "mul");
    }
    bad = bad || chk("s1_first_q", -1, (uint64_t)q->s1_first_q, R->mx_pe__DOT__s1_first_q, 1) ||
          chk("s1_last_q", -1, (uint64_t)q->s1_last_q, R->mx_pe__DOT__s1_last_q, 1) ||
          chk("s1_acc_q", -1, q->s1_acc_q, R->mx_pe__DOT__s1_acc_q, 32) ||
          chk("s1_a_scale_q", -1, q->s1_a_scale_q, R->mx_pe__DOT__s1_a_scale_q, 8) ||
          chk("s1_b_scale_q", -1, q->s1_b_scale_q, R->mx_pe__DOT__s1_b_scale_q, 8);
    if (!bad) chk.stim = [&stage_stim, id_s2] { return stage_stim(id_s2, "S2 holds"); };
    bad = bad || chk("s2_valid_q", -1, (uint64_t)q->s2_valid_q, R->mx_pe__DOT__s2_valid_q, 1);
    for (int i = 0; i < L && !bad; i++)
        bad = chk("s2_aligned_q", i, (uint64_t)q->s2_aligned_q[i],
                  field(R->mx_pe__DOT__s2_aligned_q, i * RTL_AL_W, RTL_AL_W), RTL_AL_W, "align");
    bad = bad || chk("s2_emax_q", -1, (uint64_t)q->s2_emax_q, R->mx_pe__DOT__s2_emax_q, PEXP_W, "align") ||
          chk("s2_nan_q", -1, (uint64_t)q->s2_nan_q, R->mx_pe__DOT__s2_nan_q, 1, "align") ||
          chk("s2_inf_q", -1, (uint64_t)q->s2_inf_q, R->mx_pe__DOT__s2_inf_q, 1, "align") ||
          chk("s2_inf_sign_q", -1, (uint64_t)q->s2_inf_sign_q, R->mx_pe__DOT__s2_inf_sign_q, 1, "align") ||
          chk("s2_first_q", -1, (uint64_t)q->s2_first_q, R->mx_pe__DOT__s2_first_q, 1) ||
          chk("s2_last_q", -1, (uint64_t)q->s2_last_q, R->mx_pe__DOT__s2_last_q, 1) ||
          chk("s2_acc_q", -1, q->s2_acc_q, R->mx_pe__DOT__s2_acc_q, 32) ||
          chk("s2_a_scale_q", -1, q->s2_a_scale_q, R->mx_pe__DOT__s2_a_scale_q, 8) ||
          chk("s2_b_scale_q", -1, q->s2_b_scale_q, R->mx_pe__DOT__s2_b_scale_q, 8);
    if (!bad) chk.stim = [&stage_stim, id_s3] { return stage_stim(id_s3, "S3 holds"); };
    bad = bad || chk("s3_valid_q", -1, (uint64_t)q->s3_valid_q, R->mx_pe__DOT__s3_valid_q, 1) ||
          chk("s3_sum_q", -1, (uint64_t)q->s3_sum_q, R->mx_pe__DOT__s3_sum_q, SUM_W, "addtree") ||
          chk("s3_emax_q", -1, (uint64_t)q->s3_emax_q, R->mx_pe__DOT__s3_emax_q, PEXP_W) ||
          chk("s3_nan_q", -1, (uint64_t)q->s3_nan_q, R->mx_pe__DOT__s3_nan_q, 1) ||
          chk("s3_inf_q", -1, (uint64_t)q->s3_inf_q, R->mx_pe__DOT__s3_inf_q, 1) ||
          chk("s3_inf_sign_q", -1, (uint64_t)q->s3_inf_sign_q, R->mx_pe__DOT__s3_inf_sign_q, 1) ||
          chk("s3_first_q", -1, (uint64_t)q->s3_first_q, R->mx_pe__DOT__s3_first_q, 1) ||
          chk("s3_last_q", -1, (uint64_t)q->s3_last_q, R->mx_pe__DOT__s3_last_q, 1) ||
          chk("s3_acc_q", -1, q->s3_acc_q, R->mx_pe__DOT__s3_acc_q, 32) ||
          chk("s3_a_scale_q", -1, q->s3_a_scale_q, R->mx_pe__DOT__s3_a_scale_q, 8) ||
          chk("s3_b_scale_q", -1, q->s3_b_scale_q, R->mx_pe__DOT__s3_b_scale_q, 8);
    if (!bad) chk.stim = [&stage_stim, id_acc] { return stage_stim(id_acc, "last group into the accumulator:"); };
    bad = bad || chk("acc_q", -1, q->acc_q, R->mx_pe__DOT__acc_q, 32, "accum") ||
          chk("out_q", -1, q->out_q, R->mx_pe__DOT__out_q, 32, "accum") ||
          chk("out_valid_q", -1, (uint64_t)q->out_valid_q, R->mx_pe__DOT__out_valid_q, 1, "accum") ||
          chk("in_ready_o", -1, (uint64_t)c.in_ready_o, s.m->in_ready_o, 1) ||
          chk("out_valid_o", -1, (uint64_t)c.out_valid_o, s.m->out_valid_o, 1) ||
          chk("out_o", -1, c.out_o, s.m->out_o, 32);
    return bad;
}

// Functional coverage of a cycle whose edge moves the pipeline: the align
// and accumulator inputs from the C model's stage contents, the accepted
// group, and all-zero scale blocks (blk_zero_*: the block's groups so far).
template <int L>
static void cover_pe_edge(const Options &o, const mx_pe_config &cfg, const mx_pe_regs *q, const mx_pe_in &in,
                          const Txn &cur, bool &blk_zero_a, bool &blk_zero_b)
{
    const bool bf16 = o.fmt == MX_PE_BF16;
    if (q->s1_valid_q) {
        mx_align_in ai;
        std::memset(&ai, 0, sizeof ai);
        for (int i = 0; i < L; i++) {
            ai.sign_i[i] = q->s1_sign_q[i]; ai.prod_i[i] = q->s1_prod_q[i]; ai.exp_i[i] = q->s1_exp_q[i];
            ai.nan_i[i] = q->s1_nan_q[i]; ai.inf_i[i] = q->s1_inf_q[i];
        }
        fcov::align(L, RTL_ALIGN_W, ai);
    }
    if (q->s3_valid_q) {
        mx_accum_in ai;
        std::memset(&ai, 0, sizeof ai);
        ai.en_i = ai.valid_i = 1;
        ai.first_i = q->s3_first_q; ai.last_i = q->s3_last_q; ai.acc_i = q->s3_acc_q;
        ai.sum_i = q->s3_sum_q; ai.emax_i = q->s3_emax_q;
        ai.a_scale_i = q->s3_a_scale_q; ai.b_scale_i = q->s3_b_scale_q; ai.use_scale_i = !bf16;
        ai.nan_i = q->s3_nan_q; ai.inf_i = q->s3_inf_q; ai.inf_sign_i = q->s3_inf_sign_q;
        mx_accum_regs aq = {q->acc_q, q->out_q, q->out_valid_q}, ad;
        mx_accum_out ao;
        mx_accum_comb(RTL_ALIGN_W, &ai, &aq, &ad, &ao);
        fcov::accum(RTL_ALIGN_W, ai, ai.first_i ? ai.acc_i : aq.acc_q, ao);
    }
    if (in.in_valid_i) {
        fcov::pe_group(cfg, cur.a, cur.b, cur.xa, cur.xb);
        if (!bf16) {
            if (cur.blk_first) blk_zero_a = blk_zero_b = true;
            for (int i = 0; i < L; i++) {
                mx_decode_out da, db;
                decode_c(o.fmt, o.fp5_bias, cur.a[i], &da);
                decode_c(o.fmt_b, o.fp5_bias, cur.b[i], &db);
                blk_zero_a = blk_zero_a && da.zero_o;
                blk_zero_b = blk_zero_b && db.zero_o;
            }
            if (cur.blk_last && blk_zero_a) fcov::pe_zero_block('a');
            if (cur.blk_last && blk_zero_b) fcov::pe_zero_block('b');
        }
    }
}

/* The PE regression's random stimulus: outputs of 1..8 groups of L lanes,
 * shared block scales with their extremes (0x00, 0xFE, 0xFF, 1) now and
 * then, all-zero blocks, rare special codes, and a nonzero accumulator
 * input for one output in four.  Keeps the current output's operands for
 * the mx_pe_dot expectation. */
template <int L> struct PeStimulus {
    int groups_per_block;
    bool bf16;
    int grp_in_out = 0, groups_this_out = 0;
    uint8_t xa = 127, xb = 127;
    bool zero_a = false, zero_b = false; // this block's elements are all zero
    uint32_t acc0 = 0;
    std::vector<uint16_t> out_a, out_b;
    std::vector<uint8_t> out_xa, out_xb;
    PeStimulus(int gpb, bool is_bf16) : groups_per_block(gpb), bf16(is_bf16) {}

    /* The next group into cur (its id: id). */
    void draw(const Options &o, uint64_t *rng, long id, Txn &cur)
    {
        if (grp_in_out == 0) {
            groups_this_out = 1 + (int)(mx_rng_next(rng) % 8);
            acc0 = mx_rng_next(rng) % 4 == 0 ? rand_fp32(rng) : 0;
            out_a.clear(); out_b.clear(); out_xa.clear(); out_xb.clear();
        }
        if (grp_in_out % groups_per_block == 0) {
            xa = (uint8_t)(127 - 16 + (int)(mx_rng_next(rng) % 32));
            xb = (uint8_t)(127 - 16 + (int)(mx_rng_next(rng) % 32));
            uint64_t k = mx_rng_next(rng) % 200;
            if (k == 0) xa = 0xFF;
            if (k == 1) { xa = 254; xb = 254; }
            if (k == 2) { xa = 1; xb = 1; }
            if (k == 3) { xa = 0; xb = 0; }  // 2^-127 each
            if (k == 4) xb = 0xFF;
            zero_a = k == 5;  // all-zero blocks
            zero_b = k == 6;
            out_xa.push_back(xa); out_xb.push_back(xb);
        }
        cur.id = id;
        for (int i = 0; i < L; i++) {
            cur.a[i] = rand_code(o.fmt, rng, mx_rng_next(rng) % 500 == 0);
            cur.b[i] = rand_code(o.fmt_b, rng, mx_rng_next(rng) % 500 == 0);
            if (zero_a) cur.a[i] = 0;
            if (zero_b) cur.b[i] = 0;
            out_a.push_back(cur.a[i]); out_b.push_back(cur.b[i]);
        }
        cur.blk_first = grp_in_out % groups_per_block == 0;
        cur.blk_last = grp_in_out % groups_per_block == groups_per_block - 1 || grp_in_out + 1 == groups_this_out;
        cur.xa = bf16 ? 0 : xa; cur.xb = bf16 ? 0 : xb;
        cur.first = grp_in_out == 0;
        cur.last = grp_in_out + 1 == groups_this_out;
        cur.acc = acc0;
    }
};

template <class M, int L> static Result run_pe_model(const Options &o, const Trace &t)
{
    Result r;
    Checker chk(r, "pe");
    Sim<M> s(t);
    mx_pe_config cfg;
    mx_pe_config_default(o.fmt, &cfg);
    cfg.fmt_b = o.fmt_b;
    cfg.lanes = L;
    cfg.align_width = RTL_ALIGN_W;
    cfg.fp5_bias = o.fp5_bias;
    const bool bf16 = o.fmt == MX_PE_BF16;
    uint64_t rng = o.seed;
    auto *q = new mx_pe_regs, *d = new mx_pe_regs;
    mx_pe_reset(q);
    mx_pe_in in;
    std::memset(&in, 0, sizeof in);

    s.m->fmt_i = (uint8_t)o.fmt;
    s.m->fmt_b_i = (uint8_t)o.fmt_b;
    s.m->fp5_bias_i = (uint8_t)o.fp5_bias;
    s.m->rst_ni = 0;
    s.m->in_valid_i = 0;
    s.m->out_ready_i = 0;
    for (int i = 0; i < 2; i++) { s.m->clk_i = 0; s.m->eval(); s.m->clk_i = 1; s.m->eval(); }
    s.m->rst_ni = 1;

    // Output under construction; expected results from mx_pe_dot as a third opinion.
    std::vector<Txn> groups;           // groups of the current output
    std::vector<uint32_t> expect_out;  // per finished output, in order
    // The last accepted groups, for the stimulus report (the pipeline holds 3).
    constexpr int HIST = 16;
    std::vector<Txn> hist(HIST);
    long n_hist = 0;
    long out_seen = 0, n_acc = 0;
    PeStimulus<L> stim(cfg.block / L, bf16);
    bool blk_zero_a = false, blk_zero_b = false;  // accepted groups of the block so far are all zero (coverage)
    bool holding = false;              // a presented group waits for in_ready_o
    Txn cur;
    long id_s1 = -1, id_s2 = -1, id_s3 = -1, id_acc = -1;  // groups held by each stage

    long cyc = 0;
    uint64_t rtl_tsc = 0, c_tsc = 0;
    const uint64_t run_tsc0 = __rdtsc();
    const long max_cycles = o.vectors * 20 + 1000;
    while (r.ok && (n_acc < o.vectors || out_seen < (long)expect_out.size() || holding) && cyc < max_cycles) {
        // ---- stimulus
        if (!holding && n_acc < o.vectors && mx_rng_uniform(&rng) >= o.stall) {
            stim.draw(o, &rng, n_hist, cur);
            holding = true;
        }
        in.in_valid_i = holding;
        if (holding) {
            for (int i = 0; i < L; i++) { in.a_codes_i[i] = cur.a[i]; in.b_codes_i[i] = cur.b[i]; }
            in.a_scale_i = cur.xa; in.b_scale_i = cur.xb;
            in.first_i = cur.first; in.last_i = cur.last; in.acc_i = cur.acc;
        }
        in.out_ready_i = mx_rng_uniform(&rng) >= o.stall;
        s.m->in_valid_i = in.in_valid_i;
        for (int i = 0; i < L; i++) {
            set_field(s.m->a_codes_i, i * CODE_W, CODE_W, in.a_codes_i[i]);
            set_field(s.m->b_codes_i, i * CODE_W, CODE_W, in.b_codes_i[i]);
        }
        s.m->a_scale_i = in.a_scale_i; s.m->b_scale_i = in.b_scale_i;
        s.m->first_i = in.first_i; s.m->last_i = in.last_i; s.m->acc_i = in.acc_i;
        s.m->out_ready_i = in.out_ready_i;
        s.m->clk_i = 0;
        uint64_t e0 = __rdtsc();
        s.m->eval();
        rtl_tsc += __rdtsc() - e0;
        s.dump(cyc, 0);

        // ---- compare
        mx_pe_out c;
        uint64_t c0 = __rdtsc();
        mx_pe_comb(&cfg, &in, q, d, &c);
        c_tsc += __rdtsc() - c0;
        chk.cycle = cyc;
        auto stage_stim = [&](long id, const char *what) {
            if (id < 0) return std::string(what) + " (nothing yet: reset values)";
            return std::string(what) + " " + txn_str(hist[(size_t)(id % HIST)], L);
        };
        bool bad = check_pe_stages<M, L>(chk, s, q, c, stage_stim, id_s1, id_s2, id_s3, id_acc);
        // the emitted result also equals the functional model's
        if (!bad && c.out_valid_o && in.out_ready_i) {
            if (out_seen < (long)expect_out.size()) {
                chk.stim = [&] { return "output #" + std::to_string(out_seen) + " vs mx_pe_dot()"; };
                bad = chk("out_o(mx_pe_dot)", -1, expect_out[(size_t)out_seen], c.out_o, 32);
            }
            out_seen++;
        }
        if (bad) break;

        // ---- clock edge: RTL, C model, and the harness's shadow of the stage contents
        s.m->clk_i = 1;
        e0 = __rdtsc();
        s.m->eval();
        rtl_tsc += __rdtsc() - e0;
        s.dump(cyc, 1);
        if (c.in_ready_o) {
            cover_pe_edge<L>(o, cfg, q, in, cur, blk_zero_a, blk_zero_b);
            id_acc = q->s3_valid_q ? id_s3 : id_acc;
            id_s3 = q->s2_valid_q ? id_s2 : id_s3;
            id_s2 = q->s1_valid_q ? id_s1 : id_s2;
            if (in.in_valid_i) {
                hist[(size_t)(n_hist++ % HIST)] = cur;
                id_s1 = cur.id;
                holding = false;
                n_acc++;
                stim.grp_in_out++;
                if (cur.last) {
                    const uint8_t *pa = bf16 ? nullptr : stim.out_xa.data(), *pb = bf16 ? nullptr : stim.out_xb.data();
                    uint64_t d0 = __rdtsc();
                    expect_out.push_back(mx_pe_dot(&cfg, stim.out_a.data(), pa, stim.out_b.data(), pb,
                                                   (int)stim.out_a.size(), stim.acc0));
                    c_tsc += __rdtsc() - d0;
                    stim.grp_in_out = 0;
                }
            }
        }
        c0 = __rdtsc();
        mx_pe_tick(q, d);
        c_tsc += __rdtsc() - c0;
        cyc++;
    }
    if (r.ok && cyc >= max_cycles) {
        r.ok = false;
        r.mm.cycle = cyc;
        r.mm.unit = "pe";
        r.mm.field = "progress (no output for too long)";
    }
    r.vectors = n_acc;
    r.cycles = cyc;
    const double all = (double)(__rdtsc() - run_tsc0);
    r.rtl_share = all > 0 ? rtl_tsc / all : -1;
    r.c_share = all > 0 ? c_tsc / all : -1;
    delete q;
    delete d;
    return r;
}

Result run_pe(const Options &o, const Trace &t)
{
    if (o.fault) return run_pe_model<Vmx_pe_fault, 8>(o, t);
#ifdef COSIM_PE_LANES
    if (o.lanes == COSIM_PE_LANES) return run_pe_model<Vmx_pe_lanes, COSIM_PE_LANES>(o, t);
#endif
    return o.lanes == 4 ? run_pe_model<Vmx_pe_l4, 4>(o, t) : run_pe_model<Vmx_pe, 8>(o, t);
}

}  // namespace cosim
