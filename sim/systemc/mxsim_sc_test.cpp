/*
 * mxsim_sc_test.cpp — regression of the SystemC platform (make test-systemc).
 *
 *   mxsim_sc_test CONFIG.yaml TRACE [SEED]
 *
 * Elaborates one platform per available back-end (the C core always, the
 * Verilated RTL when linked in) side by side, runs every GEMM of TRACE through
 * the accelerator's registers and checks, per GEMM and back-end:
 *   - no error, CYCLES register == the reviewed golden of the trace row
 *     (tests/systemc/golden_cycles.tsv, frozen from `mxsim run --engine
 *     cycle`; with the config's memory.dram its protocol DRAM) ==
 *     counters' cycles == mx_arch_gemm_cycle(), and the simulated time from
 *     START to the interrupt == cycles x clock period;
 *   - that the check can tell the engines apart: on at least one GEMM of the
 *     run mx_arch_gemm_analytic() gives another count (the memory-bound
 *     ones; reported per GEMM), else the run fails;
 *   - every output's FP32 bits == mx_ref_dot() (the slow exact reference,
 *     which shares no code with mx_pe_dot) on the same quantized operands,
 *     the scale index computed here from the block shape;
 *   - the platform's memory target owns a DRAM model (and sent it bursts)
 *     exactly when the config has memory.dram;
 *   - when mx_arch_gemm_functional() is implemented (mxsim run --mode
 *     functional --engine cycle), its cycles and output bits on the same FP32
 *     operands;
 *   - the re-quantized outputs the accelerator wrote to memory (FORMAT.RQ, out
 *     format MXSF, E4M3, E5M2, E2M5, INT8 by turns over the GEMMs): per block of
 *     R = arch.rows consecutive outputs along M of one column (the last one
 *     r < R outputs), codes and E8M0 scale == mx_requant_comb(r, ...) of the
 *     exact reference's values (mx_ref_dot).
 * Exit status 0 all passed, 1 a check failed, 2 bad input.
 */
#include "mx_sc_run.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "config_yaml.h"

extern "C" {
#include "arch/mx_cycle.h"
#include "ref/mx_ref_dot.h"
#include "units/mx_requant.h"
}

static long long cdiv(long long a, long long b) { return (a + b - 1) / b; }

/* The scale of element k of row m of A / column n of B, straight from the
 * scale tensor's definition (mx_block_scale_shape: 1-D blocks along K, or
 * tile_rows x tile_cols tiles over the matrix). */
static uint8_t a_scale(const mx_sc_job &j, long long m, long long k)
{
    if (j.tile_rows > 0) return j.a_scales[(size_t)((m / j.tile_rows) * cdiv(j.K, j.tile_cols) + k / j.tile_cols)];
    return j.a_scales[(size_t)(m * cdiv(j.K, j.block) + k / j.block)];
}
static uint8_t b_scale(const mx_sc_job &j, long long k, long long n)
{
    if (j.tile_rows > 0) return j.b_scales[(size_t)((k / j.tile_rows) * cdiv(j.N, j.tile_cols) + n / j.tile_cols)];
    return j.b_scales[(size_t)((k / j.block) * j.N + n)];
}

/* The reviewed CYCLES per GEMM (tests/systemc/golden_cycles.tsv, next to
 * the trace: config, trace, trace line, name, cycles), frozen from `mxsim
 * run --engine cycle` by `make golden-systemc-cycles` and reviewed when it
 * changes: the platform's register must equal it.  (Comparing with
 * mx_arch_gemm_cycle() at run time could not fail: the platform takes its
 * value from that very function.)  Keyed "config trace line". */
static std::string base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static std::map<std::string, long long> golden_cycles(const char *tpath)
{
    std::map<std::string, long long> m;
    std::string dir(tpath);
    const size_t sl = dir.rfind('/');
    dir = sl == std::string::npos ? "." : dir.substr(0, sl);
    std::ifstream f(dir + "/golden_cycles.tsv");
    std::string line;
    while (std::getline(f, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream ss(line);
        std::string cfg, tr, name;
        long long ln = 0, cyc = 0;
        if (ss >> cfg >> tr >> ln >> name >> cyc) m[cfg + " " + tr + " " + std::to_string(ln)] = cyc;
    }
    return m;
}

/* The exact reference (mx_ref_dot, shares no code with mx_pe_dot) of every
 * output of job j, on its quantized operands, the scale index computed here
 * from the block shape. */
static std::vector<uint32_t> reference_outputs(const mx_arch_config &cfg, const mx_sc_job &j)
{
    mx_pe_config pc = mx_sc_pe_config(cfg, j);
    std::vector<uint32_t> ref((size_t)(j.M * j.N));
    std::vector<uint16_t> col((size_t)j.K);
    const long long kb = j.scaled ? mx_sc_k_per_scale(j) : cfg.lanes;
    std::vector<uint8_t> as((size_t)cdiv(j.K, kb), 127), bs((size_t)cdiv(j.K, kb), 127);
    for (long long n = 0; n < j.N; n++) {
        for (long long k = 0; k < j.K; k++) col[(size_t)k] = j.b_codes[(size_t)(k * j.N + n)];
        for (long long m = 0; m < j.M; m++) {
            if (j.scaled)
                for (long long q = 0; q < cdiv(j.K, kb); q++) {
                    as[(size_t)q] = a_scale(j, m, q * kb);
                    bs[(size_t)q] = b_scale(j, q * kb, n);
                }
            ref[(size_t)(m * j.N + n)] = mx_ref_dot(&pc, &j.a_codes[(size_t)(m * j.K)], as.data(), col.data(),
                                                    bs.data(), (int)j.K, 0);
        }
    }
    return ref;
}

/* The re-quantized outputs the accelerator must write (FORMAT.RQ):
 * mx_requant_comb over blocks of the reference's values. */
static void requant_expected(const mx_arch_config &cfg, const mx_sc_job &j, const std::vector<uint32_t> &ref,
                             std::vector<uint8_t> &rq_codes, std::vector<uint8_t> &rq_scales)
{
    /* expected re-quantized outputs: blocks of R rows along M of one column
     * (or, with rqu.block: tile, format.tile's tr rows x tc columns, the
     * fold's R x C without one), the last ones only as long as M (and N)
     * leave them; scales row-major by block */
    const long long R = !j.rq_tile ? cfg.rows : cfg.tile_rows > 0 ? cfg.tile_rows : cfg.rows,
                    C = !j.rq_tile ? 1 : cfg.tile_rows > 0 ? cfg.tile_cols : cfg.cols, mb = cdiv(j.M, R), nb = cdiv(j.N, C);
    rq_codes.assign((size_t)(j.M * j.N), 0);
    rq_scales.assign((size_t)(mb * nb), 0);
    for (long long b = 0; b < mb; b++)
        for (long long bn = 0; bn < nb; bn++) {
            mx_requant_in rq;
            mx_requant_out ro;
            memset(&rq, 0, sizeof rq);
            rq.fmt_i = j.out_fmt;
            rq.fp5_bias_i = cfg.mxsf_fp5_bias;
            const long long rl = std::min(R, j.M - b * R), cl = std::min(C, j.N - bn * C);
            for (long long q = 0; q < cl; q++)
                for (long long r = 0; r < rl; r++) rq.vals_i[q * rl + r] = ref[(size_t)((b * R + r) * j.N + bn * C + q)];
            mx_requant_comb((int)(rl * cl), &rq, &ro);
            rq_scales[(size_t)(b * nb + bn)] = ro.scale_o;
            for (long long q = 0; q < cl; q++)
                for (long long r = 0; r < rl; r++) rq_codes[(size_t)((b * R + r) * j.N + bn * C + q)] = ro.codes_o[q * rl + r];
        }
}

/* One platform's result of GEMM i against the golden CYCLES, the cycle
 * engine, the simulated time, the reference outputs, functional mode (when
 * fs) and the re-quantized outputs.  Returns the number of failures. */
static int check_platform(const mx_sc_platform &pp, const char *tpath, const char *cpath, const mx_gemm &g,
                          const mx_sc_job &j, size_t i, const std::map<std::string, long long> &golden,
                          const sc_core::sc_time &period, const mx_stats &ts, const mx_stats *fs,
                          const std::vector<uint32_t> *fout, const std::vector<uint32_t> &ref,
                          const std::vector<uint8_t> &rq_codes, const std::vector<uint8_t> &rq_scales)
{
    int fails = 0;
    const char *bn = pp.accel.backend_name();
    if (i >= pp.results().size()) {
        fprintf(stderr, "FAIL %s:%d [%s]: no result\n", tpath, g.line, bn);
        fails++;
        return fails;
    }
    const mx_sc_result &r = pp.results()[i];
    if (!r.error.empty()) {
        fprintf(stderr, "FAIL %s:%d [%s]: accelerator error: %s\n", tpath, g.line, bn, r.error.c_str());
        fails++;
        return fails;
    }
    const std::string key = base_name(cpath) + " " + base_name(tpath) + " " + std::to_string(g.line);
    const auto gc = golden.find(key);
    if (gc == golden.end() || (long long)r.reg_cycles != gc->second) {
        fprintf(stderr, "FAIL %s:%d [%s]: CYCLES %llu, reviewed golden %s (tests/systemc/golden_cycles.tsv; "
                "make golden-systemc-cycles after a reviewed model change)\n", tpath, g.line, bn,
                (unsigned long long)r.reg_cycles,
                gc == golden.end() ? "missing" : std::to_string(gc->second).c_str());
        fails++;
    }
    if ((long long)r.reg_cycles != ts.cycles || r.stats.cycles != ts.cycles ||
        r.elapsed != period * (double)ts.cycles || (long long)r.reg_macs != ts.macs) {
        fprintf(stderr,
                "FAIL %s:%d [%s]: cycles reg %llu counters %lld time %s, cycle engine %lld; macs %llu vs %lld\n",
                tpath, g.line, bn, (unsigned long long)r.reg_cycles, r.stats.cycles,
                r.elapsed.to_string().c_str(), ts.cycles, (unsigned long long)r.reg_macs, ts.macs);
        fails++;
    }
    if (fs && fs->cycles != r.stats.cycles) {
        fprintf(stderr, "FAIL %s:%d [%s]: cycles %lld, functional mode %lld\n", tpath, g.line, bn,
                r.stats.cycles, fs->cycles);
        fails++;
    }
    for (size_t k = 0; k < ref.size(); k++) {
        const bool bad_ref = r.out[k] != ref[k], bad_func = fout && r.out[k] != (*fout)[k];
        if (bad_ref || bad_func) {
            fprintf(stderr, "FAIL %s:%d [%s]: output (%lld, %lld) = %08x, reference %08x%s%08x\n", tpath,
                    g.line, bn, (long long)k / j.N, (long long)k % j.N, r.out[k], ref[k],
                    fout ? ", functional " : "", fout ? (*fout)[k] : 0u);
            fails++;
            break;
        }
    }
    if (r.codes.size() != rq_codes.size() || r.scales.size() != rq_scales.size()) {
        fprintf(stderr, "FAIL %s:%d [%s]: re-quantized outputs not read back\n", tpath, g.line, bn);
        fails++;
        return fails;
    }
    for (size_t k = 0; k < rq_codes.size(); k++)
        if (r.codes[k] != rq_codes[k]) {
            fprintf(stderr, "FAIL %s:%d [%s]: %s code of output (%lld, %lld) = %02x, mx_requant %02x\n", tpath,
                    g.line, bn, mx_pe_fmt_name((mx_pe_fmt)j.out_fmt), (long long)k / j.N, (long long)k % j.N,
                    r.codes[k], rq_codes[k]);
            fails++;
            break;
        }
    for (size_t k = 0; k < rq_scales.size(); k++)
        if (r.scales[k] != rq_scales[k]) {
            fprintf(stderr, "FAIL %s:%d [%s]: scale of block (%lld, %lld) = %02x, mx_requant %02x\n", tpath,
                    g.line, bn, (long long)k / j.N, (long long)k % j.N, r.scales[k], rq_scales[k]);
            fails++;
            break;
        }
    return fails;
}

int sc_main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: mxsim_sc_test CONFIG.yaml TRACE [SEED [DATA_DIR]]\n");
        return 2;
    }
    const char *cpath = argv[1], *tpath = argv[2];
    const uint64_t seed = argc > 3 ? strtoull(argv[3], nullptr, 0) : 7;
    const char *data_dir = argc > 4 ? argv[4] : nullptr; /* operands from .npy where present */
    char err[700], epath[MX_ARCH_PATH_MAX];
    mx_arch_config cfg;
    if (mx_config_load(cpath, &cfg, epath, err, sizeof err) != 0 ||
        mx_config_dram(cpath, &cfg, err, sizeof err) != 0) {
        fprintf(stderr, "mxsim_sc_test: %s\n", err);
        return 2;
    }
    mx_trace tr = {nullptr, 0};
    if (mx_trace_load(tpath, &tr, err, sizeof err) != 0) {
        fprintf(stderr, "mxsim_sc_test: %s\n", err);
        return 2;
    }
    std::vector<mx_sc_job> jobs;
    std::vector<std::vector<float>> af, bf;
    if (mx_sc_build_jobs("mxsim_sc_test", cfg, tr, tpath, seed, data_dir, jobs, &af, &bf)) return 2;
    /* re-quantized outputs in every element format the re-quantizer has */
    static const mx_pe_fmt rq_fmts[5] = {MX_PE_MXSF, MX_PE_E4M3, MX_PE_E5M2, MX_PE_E2M5, MX_PE_INT8};
    for (size_t i = 0; i < jobs.size(); i++) jobs[i].out_fmt = rq_fmts[i % 5];
    std::vector<std::unique_ptr<mx_sc_platform>> plats;
    plats.emplace_back(new mx_sc_platform("c_core", cfg, std::unique_ptr<mx_sc_backend>(new mx_sc_c_backend), jobs));
    std::string rerr;
    std::unique_ptr<mx_sc_backend> rtl = mx_sc_make_rtl_backend(cfg, rerr);
    if (rtl) plats.emplace_back(new mx_sc_platform("rtl", cfg, std::move(rtl), jobs));
    else printf("mxsim_sc_test: RTL back-end unavailable (%s): C core only\n", rerr.c_str());
    std::vector<const mx_sc_platform *> pp;
    for (auto &p : plats) pp.push_back(p.get());
    mx_sc_run_until_finished(pp);

    int fails = 0, func_checked = 0, engines_differ = 0;
    const std::map<std::string, long long> golden = golden_cycles(tpath);
    const sc_core::sc_time period(1.0 / cfg.clock_ghz, sc_core::SC_NS);
    mx_arch_config cfg_cycle = cfg; /* functional mode timed by the cycle engine */
    cfg_cycle.engine = MX_ENGINE_CYCLE;
    for (size_t i = 0; i < tr.n; i++) {
        const mx_gemm &g = tr.gemms[i];
        const mx_sc_job &j = jobs[i];
        mx_stats ts, an;
        if (mx_arch_gemm_cycle(&cfg, &g, &ts, err, sizeof err) != 0 ||
            mx_arch_gemm_analytic(&cfg, &g, &an, err, sizeof err) != 0) {
            fprintf(stderr, "%s:%d: timing model: %s\n", tpath, g.line, err);
            return 2;
        }
        if (an.cycles != ts.cycles) engines_differ++;
        const std::vector<uint32_t> ref = reference_outputs(cfg, j);
        /* mxsim run --mode functional, on the same FP32 operands */
        std::vector<uint32_t> fout((size_t)(j.M * j.N));
        mx_stats fs;
        mx_func_data fd = {seed + i, af[i].data(), bf[i].data()};
        const bool have_func = mx_arch_gemm_functional(&cfg_cycle, &g, &fd, &fs, fout.data(), err, sizeof err) == 0;
        if (have_func) func_checked++;
        std::vector<uint8_t> rq_codes, rq_scales;
        requant_expected(cfg, j, ref, rq_codes, rq_scales);

        for (auto &pp : plats)
            fails += check_platform(*pp, tpath, cpath, g, j, i, golden, period, ts, have_func ? &fs : nullptr,
                                    have_func ? &fout : nullptr, ref, rq_codes, rq_scales);
        printf("%-10s %-5s %4lldx%-4lldx%-4lld %-11s cycles %8lld (analytic %8lld)  %zu outputs%s, %zu %s codes + %zu scales\n",
               g.name, mx_phase_name(g.phase), g.M, g.N, g.K, mx_sc_fmt_pair(j).c_str(), ts.cycles, an.cycles, ref.size(),
               have_func ? " (+functional)" : "", rq_codes.size(), mx_pe_fmt_name((mx_pe_fmt)j.out_fmt), rq_scales.size());
    }
    /* the platform's memory target runs the config's DRAM model when it has one */
    for (auto &p : plats) {
        const bool has = p->memory.dram() != nullptr;
        if (has != (cfg.dram_model != 0) || (has && p->memory.bursts() == 0)) {
            fprintf(stderr, "FAIL %s [%s]: memory target %s a DRAM model (%llu bursts), config %s\n", cpath,
                    p->accel.backend_name(), has ? "has" : "has no", (unsigned long long)p->memory.bursts(),
                    cfg.dram_model ? cfg.dram.name : "without memory.dram");
            fails++;
        }
    }
    if (cfg.dram_model)
        printf("mxsim_sc_test: memory.dram %s: CYCLES from the cycle engine's DRAM port; memory target sent %llu "
               "bursts through its own DRAM model\n", cfg.dram.name, (unsigned long long)plats[0]->memory.bursts());
    if (engines_differ == 0) {
        fprintf(stderr, "FAIL %s: the cycle engine and the analytic engine agree on every GEMM, so the CYCLES check "
                        "cannot tell which one the platform used (add a memory-bound GEMM)\n", tpath);
        fails++;
    }
    printf("mxsim_sc_test: %d of %zu GEMMs have cycle-engine != analytic cycles (CYCLES must be the cycle engine's)\n",
           engines_differ, tr.n);
    if (func_checked == 0)
        printf("mxsim_sc_test: mx_arch_gemm_functional() not available (%s): checked against the timing model "
               "and the exact reference only\n", err);
    printf("mxsim_sc_test: %s, %zu GEMMs x %zu back-end(s): %s\n", tpath, tr.n, plats.size(),
           fails ? "FAILED" : "all equal");
    mx_trace_free(&tr);
    return fails ? 1 : 0;
}
