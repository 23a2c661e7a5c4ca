// cosim_main.cpp — `mxsim-cosim` (run as `mxsim cosim`): unit co-simulation of
// the Verilated RTL against the C models.  Exit 0 equivalent, 1 mismatch,
// 2 bad usage.
#include "cosim.h"
#include "fcov.h"
#include "config_yaml.h"

extern "C" {
#include "units/mx_pe_format.h"
}

#include <cerrno>
#include <chrono>
#include <string>
#include <cstdlib>
#include <cstring>

using namespace cosim;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mxsim cosim --unit {decode,mul,align,addtree,accum,requant,pe} --format F [--format-b FB]\n"
            "                   [--lanes L] [--vectors N | --exhaustive] [--seed S] [--stall P]\n"
            "                   [--fst FILE] [--window C] [--fp5-bias B] [--fault]\n"
            "  F: mxsf e4m3 e5m2 e2m5 int8 bf16 e3m2 e2m3 e2m1 (also mxfp8_e4m3, mxint8, mxfp6_e3m2, mxfp4, ...)\n"
            "  --format-b FB B operand's format (mul, align, pe; default F; bf16 mixes with nothing)\n"
            "  --exhaustive  every code (decode, all FP5 biases for mxsf) or every code pair (mul)\n"
            "  --stall P     probability of a valid/ready bubble per cycle (pe), default 0.2\n"
            "  --lanes L     8 (default); the PE also 4, and through mxsim cosim any 1..64 (built once)\n"
            "  --fst FILE    at a mismatch, replay and write the last C cycles (--window, 64) as FST\n"
            "  --fault       use the RTL built with +define+MX_FAULT_ALIGN (harness self-test)\n"
            "  --directed T  run the rows of the directed table T instead of random vectors\n"
            "                (align, accum, requant; the formats come from the rows)\n"
            "  --fcov FILE   append this run's functional coverage counts to FILE\n"
            "usage: mxsim cosim --fcov-report FILE...   merge the counts, print the point table;\n"
            "                exit 1 if any functional coverage point was never hit\n");
}

static int bad_option(const char *msg, const char *arg)
{
    char safe[1024];
    mx_escape_controls(safe, sizeof safe, arg ? arg : ""); // arguments are echoed: no raw control characters
    fprintf(stderr, "mxsim cosim: %s '%s' (mxsim cosim --help)\n", msg, safe);
    return 2;
}

static bool parse_long(const char *s, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 0);
    if (errno || *end || end == s) return false;
    *out = v;
    return true;
}

int main(int argc, char **argv)
{
    Options o;
    bool have_format = false, have_format_b = false;
    std::string fcov_file;
    if (argc >= 2 && !strcmp(argv[1], "--fcov-report")) {
        if (argc < 3) return bad_option("--fcov-report needs count files", "");
        return cosim::fcov::report(argc - 2, argv + 2);
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        auto need = [&](const char *) -> const char * { return i + 1 < argc ? argv[++i] : nullptr; };
        long v;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); return 0; }
        else if (!strcmp(a, "--exhaustive")) o.exhaustive = true;
        else if (!strcmp(a, "--fault")) o.fault = true;
        else if (!strcmp(a, "--unit")) { const char *s = need(a); if (!s) return bad_option("missing value for", a); o.unit = s; }
        else if (!strcmp(a, "--format")) {
            const char *s = need(a);
            if (!s) return bad_option("missing value for", a);
            if (mx_pe_fmt_parse(s, &o.fmt)) return bad_option("unknown --format", s);
            have_format = true;
        } else if (!strcmp(a, "--format-b")) {
            const char *s = need(a);
            if (!s) return bad_option("missing value for", a);
            if (mx_pe_fmt_parse(s, &o.fmt_b)) return bad_option("unknown --format-b", s);
            have_format_b = true;
        } else if (!strcmp(a, "--directed")) { const char *s = need(a); if (!s) return bad_option("missing value for", a); o.directed = s; }
        else if (!strcmp(a, "--fcov")) { const char *s = need(a); if (!s) return bad_option("missing value for", a); fcov_file = s; }
        else if (!strcmp(a, "--fst")) { const char *s = need(a); if (!s) return bad_option("missing value for", a); o.fst = s; }
        else if (!strcmp(a, "--lanes") || !strcmp(a, "--vectors") || !strcmp(a, "--seed") ||
                 !strcmp(a, "--window") || !strcmp(a, "--fp5-bias")) {
            const char *s = need(a);
            if (!s) return bad_option("missing value for", a);
            if (!strcmp(a, "--seed")) { // decimal digits only: strtol would take -1 or 0x10 (config_yaml.h)
                if (mx_parse_seed(s, &o.seed) != 0) return bad_option("bad value for --seed (an integer 0..18446744073709551615):", s);
                continue;
            }
            if (!parse_long(s, &v) || v < 0) return bad_option((std::string("bad value for ") + a + ":").c_str(), s);
            if (!strcmp(a, "--lanes")) o.lanes = (int)v;
            else if (!strcmp(a, "--vectors")) o.vectors = v;
            else if (!strcmp(a, "--window")) o.window = (int)v;
            else o.fp5_bias = (int)v;
        } else if (!strcmp(a, "--stall")) {
            const char *s = need(a);
            if (!s) return bad_option("missing value for", a);
            char *end;
            o.stall = strtod(s, &end);
            if (*end || end == s || !(o.stall >= 0 && o.stall < 1)) return bad_option("--stall must be in [0, 1):", s);
        } else {
            return bad_option("unknown option", a);
        }
    }
    if (o.unit.empty()) return bad_option("missing --unit", "");
    if (!o.fst.empty()) { // before the run: a mismatch report must never name a waveform that was not written
        char err[700];
        if (mx_check_output_file("--fst", o.fst.c_str(), err, sizeof err) != 0) {
            char safe[4 * sizeof err];
            mx_escape_controls(safe, sizeof safe, err);
            fprintf(stderr, "mxsim cosim: %s\n", safe);
            return 2;
        }
    }
    if (!o.directed.empty() && o.unit != "align" && o.unit != "accum" && o.unit != "requant")
        return bad_option("--directed is for align, accum and requant, not", o.unit.c_str());
    if (!have_format && o.directed.empty()) return bad_option("missing --format for unit", o.unit.c_str());
    if (!have_format_b) o.fmt_b = o.fmt;
    if (o.fmt_b != o.fmt) {
        if (o.unit != "mul" && o.unit != "align" && o.unit != "pe")
            return bad_option("--format-b is for mul, align and pe, not", o.unit.c_str());
        if (o.fmt == MX_PE_BF16 || o.fmt_b == MX_PE_BF16)
            return bad_option("bf16 mixes with no other format:", mx_pe_fmt_name(o.fmt == MX_PE_BF16 ? o.fmt_b : o.fmt));
    }
    Result (*run)(const Options &, const Trace &) = nullptr;
    if (o.unit == "decode") run = run_decode;
    else if (o.unit == "mul") run = run_mul;
    else if (o.unit == "align") run = run_align;
    else if (o.unit == "addtree") run = run_addtree;
    else if (o.unit == "accum") run = run_accum;
    else if (o.unit == "requant") run = run_requant;
    else if (o.unit == "pe") run = run_pe;
    else return bad_option("unknown --unit", o.unit.c_str());
#ifdef COSIM_PE_LANES
    const bool other_lanes = o.lanes == COSIM_PE_LANES && o.unit == "pe" && !o.fault;
#else
    const bool other_lanes = false;
#endif
    if (o.lanes != 8 && !(o.lanes == 4 && o.unit == "pe" && !o.fault) && !other_lanes)
        return bad_option("Verilated models exist for --lanes 8 (every unit) and 4 (pe), and mxsim cosim builds "
                          "--unit pe for any lane count 1..64; not", std::to_string(o.lanes).c_str());
    if (o.fault && o.unit != "pe") return bad_option("--fault exists for --unit pe only, not", o.unit.c_str());
    if (o.unit == "requant" && !mx_pe_format_of(o.fmt)->requant)
        return bad_option("the re-quantizer has no element format", mx_pe_fmt_name(o.fmt));
    if (o.fp5_bias < 5 || o.fp5_bias > 16)
        return bad_option("--fp5-bias outside 5..16:", std::to_string(o.fp5_bias).c_str());
    if (o.exhaustive && o.unit != "decode" && o.unit != "mul")
        return bad_option("--exhaustive is for decode and mul, not", o.unit.c_str());
    if (o.exhaustive && o.unit == "mul" && o.fmt == MX_PE_BF16)
        return bad_option("--exhaustive mul covers formats of up to 8 bits (2^16 pairs), not", "bf16");

    auto t0 = std::chrono::steady_clock::now();
    Result r = run(o, Trace());
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!fcov_file.empty() && !cosim::fcov::write(fcov_file)) {
        fprintf(stderr, "mxsim cosim: cannot append functional coverage to %s\n", fcov_file.c_str());
        return 2;
    }
    const std::string fpair = o.fmt == o.fmt_b ? std::string(mx_pe_fmt_name(o.fmt))
                                               : std::string(mx_pe_fmt_name(o.fmt)) + "x" + mx_pe_fmt_name(o.fmt_b);
    const std::string fdesc = o.directed.empty() ? fpair : "directed " + o.directed;
    const char *fname = fdesc.c_str();
    if (r.ok) {
        char share[96] = "";
        if (r.rtl_share >= 0)
            snprintf(share, sizeof share, "; time: RTL %.0f%%, C model %.0f%%, harness %.0f%%", 100 * r.rtl_share,
                     100 * r.c_share, 100 * (1 - r.rtl_share - r.c_share));
        printf("cosim %s %s%s: PASS %ld vectors, %ld cycles, %.2f s (%.0f vectors/s, %.0f cycles/s%s)%s\n",
               o.unit.c_str(), fname, o.unit == "pe" ? (" L=" + std::to_string(o.lanes)).c_str() : "", r.vectors, r.cycles, secs,
               r.vectors / (secs > 0 ? secs : 1e-9), r.cycles / (secs > 0 ? secs : 1e-9), share,
               o.exhaustive ? " [exhaustive]" : "");
        return 0;
    }
    const Mismatch &m = r.mm;
    int digits = (m.width + 3) / 4;
    printf("MISMATCH at cycle %ld: unit %s%s, lane %s, field %s\n", m.cycle, m.unit.c_str(),
           o.unit == "pe" && m.unit != "pe" ? " (in pe)" : "",
           m.lane < 0 ? "-" : std::to_string(m.lane).c_str(), m.field.c_str());
    const bool table = m.field.size() > 7 && m.field.compare(m.field.size() - 7, 7, "(table)") == 0;
    printf(table ? "  expected (spec table) 0x%0*llx\n  actual   (C model)    0x%0*llx\n"
                 : "  expected (C model) 0x%0*llx\n  actual   (RTL)     0x%0*llx\n",
           digits, (unsigned long long)m.expected, digits, (unsigned long long)m.actual);
    printf("  stimulus: %s\n", m.stimulus.c_str());
    if (!o.directed.empty())
        printf("  run: --unit %s --directed %s\n", o.unit.c_str(), o.directed.c_str());
    else
        printf("  run: --unit %s --format %s --seed %llu --vectors %ld%s%s\n", o.unit.c_str(), fname,
               (unsigned long long)o.seed, o.vectors, o.exhaustive ? " --exhaustive" : "", o.fault ? " --fault" : "");
    if (!o.fst.empty()) {
        Trace t;
        t.file = o.fst;
        t.from = m.cycle > o.window ? m.cycle - o.window : 0;
        t.to = m.cycle;
        run(o, t);  // deterministic replay with the waveform on
        printf("  waveform: %s (cycles %ld..%ld, 10 time units per cycle)\n", o.fst.c_str(), t.from, t.to);
    }
    return 1;
}
