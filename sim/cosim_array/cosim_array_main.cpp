/*
 * cosim_array_main.cpp — whole-GEMM co-simulation of rtl/mx_array_ctrl.sv
 * (Verilated: descriptor-driven controller, mx_array, re-quantizing output
 * stage) against its C++ twin array_ctrl_model (array_model.cpp, built on the
 * C PE model and mx_requant_comb) in lock step, plus the C core's mx_pe_dot
 * for every output value and mx_requant_comb for every output block.
 *
 *   mxsim-cosim-array -c CONFIG.yaml -t TRACE [--seed S] [--fst FILE]
 *                     [--backpressure P] [--fault R,C] [--quiet] [--repeat N]
 *                     [--data DIR]
 *
 * Per GEMM (seeded Gaussian operands, or DIR/NAME.PHASE.a.npy (M x K) and
 * DIR/NAME.PHASE.b.npy (K x N) with --data DIR as `mxsim run --data`
 * (sim/operand_data.h), quantized with the config's block shape): the harness packs the operands into the banked SRAM image, writes
 * the descriptor and pulses start; the controller does the rest.  Each cycle
 * the RTL's SRAM read addresses, issue strobe, PE result strobes, output
 * blocks (valid, FP32 values, codes, E8M0 scale) and status must equal the
 * twin's; every output must equal mx_pe_dot and every block's codes and
 * scale mx_requant_comb of those values; compute cycles (first K-step into
 * the array to the last PE result) without back-pressure must equal the
 * fold schedule written out here (tile_schedule_cycles) and the arch model's
 * mx_tile_compute_cycles().  First divergence: cycle,
 * GEMM, PE row/column, field, expected and actual in hex; exit 1.
 * Start-to-done (start_i to done_o) must equal tile_done_schedule (lead +
 * compute + drain, array_model.h) without back-pressure, and lie in
 * [schedule, schedule + cycles in which an output block was valid and not
 * ready] with it.  --engine: the same tile (the whole GEMM, one descriptor)
 * on the cycle engine (models/arch/mx_cycle.h) with a config matching the
 * RTL (engine_config below); its start-to-done, rqu_end - start of the tile
 * record, must equal the RTL's unthrottled start-to-done: one MISMATCH
 * line per differing tile (all tiles are run), a PASS line otherwise.
 * Exit 0 all equal, 2 bad input.  --repeat N runs the trace N times and
 * prints simulated cycles per second of the RTL and of the C++ twin (bench).
 */
#include "array_model.h"
#include "rtl_tile.h"

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <string>

#include "verilated_fst_c.h"

#include "config_yaml.h"
#include "operand_data.h"
#include "systemc/mx_sc_gemm.h"

extern "C" {
#include "arch/mx_cycle.h"
#include "formats/mx_rng.h"
#include "units/mx_requant.h"
}

#ifndef ARR_R
#define ARR_R 4
#endif
#ifndef ARR_C
#define ARR_C 4
#endif
#ifndef ARR_L
#define ARR_L 4
#endif

struct fold { long long r0, c0; int rl, cl; };

static const char PROG[] = "mxsim-cosim-array";

static void usage(FILE *f)
{
    fprintf(f, "usage: mxsim-cosim-array -c CONFIG.yaml -t TRACE [--seed S] [--fst FILE]\n"
               "                         [--backpressure P] [--fault R,C] [--quiet] [--repeat N]\n"
               "                         [--data DIR] [--engine]\n"
               "  --engine: also compare each tile's start-to-done cycles with the cycle engine\n"
               "  --data DIR: operands DIR/NAME.PHASE.a.npy (M x K) and DIR/NAME.PHASE.b.npy (K x N),\n"
               "  float32/float64; absent files -> seeded random N(0,1)\n"
               "  compiled for a %dx%d array with %d lanes; the config must match\n", ARR_R, ARR_C, ARR_L);
}

/* The cycle engine configured as the RTL's tile (--engine):
 *  - array: the config's R x C, L, os, P = 4, fold overlap (checked in main);
 *  - one engine tile = the co-simulated GEMM = one descriptor: buffers large
 *    enough and memory.tiling: traffic (least traffic, then fewest tiles);
 *    the record's start..rqu_end is compared, so DRAM timing (load_ready)
 *    does not enter;
 *  - SRAM: the RTL's operand SRAMs cannot conflict: A has R banks, bank r
 *    holding rows m = r mod R, B C banks by column, every bank reads the same
 *    word (one per operand) each cycle and the skew is in registers after
 *    the SRAM (mx_skew), so each array row/column owns its bank and reads it
 *    at most once a cycle.  The engine's mx_sram model instead reads
 *    K-contiguous rows with skewed streams from banks = word % banks; with
 *    bytes_per_cycle = one K-step of codes (L elements) and 1024 banks, two
 *    streams i, j meet in a bank only if (i - j)(t - 1) = 0 mod 1024, never
 *    for R <= 4 and t <= 342, so it predicts 0 stalls as the RTL has;
 *    a non-zero sram_stall is reported as a mismatch;
 *  - RQU: rqu.block as the config (descriptor rq_tile_i), elements_per_cycle
 *    R * C (C column re-quantizers of R outputs, or one of R x C, each a block
 *    per cycle);
 *  - no training second copies (the RTL writes none). */
static std::string engine_tile(const mx_arch_config &cfg, const mx_sc_job &j, const mx_gemm &g, mx_cycle_tile &rec,
                               long long &ntiles)
{
    mx_arch_config ec = cfg;
    ec.engine = MX_ENGINE_CYCLE;
    ec.ideal_memory = 0;
    ec.train_requant = 0;
    ec.tiling_objective = MX_TILING_TRAFFIC;
    ec.rqu_elements_per_cycle = ARR_R * ARR_C;
    ec.rqu_tile = j.rq_tile ? 1 : 0;
    mx_gemm gg = g;
    gg.M = j.M;
    gg.N = j.N;
    gg.K = j.K;
    gg.count = 1;
    char err[400];
    mx_operand_fmt fa, fb, fo;
    if (mx_arch_gemm_formats(&ec, &gg, &fa, &fb, &fo, err, sizeof err) != 0) return err;
    const int bits[2] = {fa.elem.bits, fb.elem.bits};
    for (int op = 0; op < MX_NOPS; op++) {
        ec.sram[op].kib = 1 << 16;
        ec.sram[op].banks = 1024;
        ec.sram[op].bytes_per_cycle = op < 2 ? (ARR_L * bits[op] + 7) / 8 : 64;
    }
    mx_stats st;
    memset(&rec, 0, sizeof rec);
    if (mx_arch_gemm_cycle_tiles(&ec, &gg, &st, &rec, 1, err, sizeof err) != 0) return err; /* the first tile's record */
    ntiles = st.tiles;
    return "";
}

static double now_s()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int main(int argc, char **argv)
{
    const char *cpath = nullptr, *tpath = nullptr, *fst_path = nullptr, *data_dir = nullptr;
    unsigned long long seed = 1;
    double bp = 0;
    int fault_r = -1, fault_c = -1, quiet = 0, repeat = 1, engine = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const bool has = i + 1 < argc;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        else if (!strcmp(a, "-c") && has) cpath = argv[++i];
        else if (!strcmp(a, "-t") && has) tpath = argv[++i];
        else if (!strcmp(a, "--fst") && has) fst_path = argv[++i];
        else if (!strcmp(a, "--data") && has) data_dir = argv[++i];
        else if (!strcmp(a, "--quiet")) quiet = 1;
        else if (!strcmp(a, "--engine")) engine = 1;
        else if (!strcmp(a, "--repeat") && has) {
            char *e;
            errno = 0;
            long r = strtol(argv[++i], &e, 10);
            if (errno || *e || !*argv[i] || r < 1 || r > 1000000) { mx_print_error(PROG, "option '--repeat': must be 1..1000000: '%s'", argv[i]); return 2; }
            repeat = (int)r;
        }
        else if (!strcmp(a, "--seed") && has) {
            uint64_t s;
            if (mx_parse_seed(argv[++i], &s) != 0) { mx_print_error(PROG, "option '--seed': must be an integer 0..18446744073709551615, got '%s'", argv[i]); return 2; }
            seed = s;
        } else if (!strcmp(a, "--backpressure") && has) {
            char *e;
            bp = strtod(argv[++i], &e);
            if (*e || e == argv[i] || !(bp >= 0 && bp < 1)) { mx_print_error(PROG, "option '--backpressure': must be in [0, 1): '%s'", argv[i]); return 2; }
        } else if (!strcmp(a, "--fault") && has) {
            if (sscanf(argv[++i], "%d,%d", &fault_r, &fault_c) != 2 || fault_r < 0 || fault_r >= ARR_R ||
                fault_c < 0 || fault_c >= ARR_C) {
                mx_print_error(PROG, "option '--fault': expected R,C inside the %dx%d array: '%s'", ARR_R, ARR_C, argv[i]);
                return 2;
            }
        } else {
            mx_print_error(PROG, "unknown option or missing value: '%s' (--help)", a);
            return 2;
        }
    }
    if (!cpath || !tpath) { mx_print_error(PROG, "-c CONFIG and -t TRACE are required (--help)"); return 2; }
    char err[700], epath[MX_ARCH_PATH_MAX];
    /* before any work: a report must never name a waveform that was not written */
    if (fst_path && mx_check_output_file("--fst", fst_path, err, sizeof err) != 0) { mx_print_error(PROG, "%s", err); return 2; }
    mx_arch_config cfg;
    if (mx_config_load(cpath, &cfg, epath, err, sizeof err) != 0 || mx_config_dram(cpath, &cfg, err, sizeof err) != 0) {
        mx_print_error(PROG, "%s", err);
        return 2;
    }
    if (cfg.rows != ARR_R || cfg.cols != ARR_C || cfg.lanes != ARR_L || cfg.dataflow != MX_DATAFLOW_OS ||
        cfg.pe_pipeline_depth != 4 || cfg.scalesim_compat || !cfg.fold_overlap) {
        fprintf(stderr, "mxsim-cosim-array: %s: keys 'arch.rows/cols/lanes/dataflow/pe_pipeline_depth/fold_overlap/"
                        "scalesim_compat': this binary simulates a %dx%d os array, %d lanes, depth 4, fold overlap on\n",
                cpath, ARR_R, ARR_C, ARR_L);
        return 2;
    }
    if (cfg.align_width != 32) { fprintf(stderr, "mxsim-cosim-array: %s: key 'format.align_width': the RTL is built with 32\n", cpath); return 2; }
    mx_trace tr = {nullptr, 0};
    if (mx_trace_load(tpath, &tr, err, sizeof err) != 0) { mx_print_error(PROG, "%s", err); return 2; }

    std::unique_ptr<VerilatedContext> ctx(new VerilatedContext);
    ctx->traceEverOn(fst_path != nullptr);
    Vmx_array_ctrl *top = new Vmx_array_ctrl(ctx.get());
    VerilatedFstC *fst = nullptr;
    uint64_t vtime = 0;
    if (fst_path) {
#ifdef CA_NO_TRACE
        fprintf(stderr, "mxsim-cosim-array: option '--fst': this benchmark build has no waveform support (use build/mxsim-cosim-array)\n");
        delete top;
        return 2;
#else
        fst = new VerilatedFstC;
        top->trace(fst, 99);
        fst->open(fst_path);
#endif
    }
    /* output re-quantization format: the config's output format when the
     * re-quantizer supports it (MX formats except BF16) */
    int out_fmt = -1;
    {
        mx_pe_fmt of;
        bool os;
        if (mx_sc_fmt_from_name(cfg.out_format, &of, &os) == 0 && os && of != MX_PE_BF16) out_fmt = of;
    }
    int rc = 0;
    uint64_t bp_rng = seed ^ 0xB4C4B4C4ull;
    long long total_cycles = 0, all_cycles = 0;
    /* start-to-done: back-pressure runs (GEMMs, equal to schedule + blocked,
     * sums), engine comparison (tiles compared, mismatches) */
    long long bp_gemms = 0, bp_exact = 0, bp_extra = 0, bp_blocked = 0;
    long long eng_tiles = 0, eng_bad = 0;
    double t_rtl = 0, t_model = 0, t_core = 0;
    array_ctrl_model model(ARR_R, ARR_C, ARR_L, 32);
    for (int rep = 0; rep < repeat && rc == 0; rep++)
    for (size_t gi = 0; gi < tr.n && rc == 0; gi++) {
        const mx_gemm &g = tr.gemms[gi];
        mx_sc_job j;
        const std::string fe = mx_sc_job_from_gemm(cfg, g, j);
        if (!fe.empty()) {
            fprintf(stderr, "mxsim-cosim-array: %s:%d: %s\n", tpath, g.line, fe.c_str());
            rc = 2;
            break;
        }
        std::vector<float> af, bf;
        std::string from_note;
        std::string e = mx_sc_job_check(cfg, j);
        if (e.empty() && (j.M > TILE_FIELD_MAX - ARR_R || j.N > TILE_FIELD_MAX - ARR_C || j.K > TILE_FIELD_MAX - ARR_L))
            e = "M, N, K must fit the controller's 32-bit descriptor fields";
        if (e.empty() && j.scaled && mx_sc_k_per_scale(j) / ARR_L > 255) e = "block K extent / lanes must fit 8 bits (sps)";
        if (e.empty()) {
            std::string from;
            if (mx_sc_load_operands("mxsim-cosim-array", data_dir, tpath, g, seed + gi, af, bf, &from)) {
                rc = 2;
                break;
            }
            from_note = from.empty() ? "" : "  (" + from + " from --data)";
            e = mx_sc_quantize(cfg, af.data(), bf.data(), j);
        }
        if (!e.empty()) { fprintf(stderr, "mxsim-cosim-array: %s:%d: %s\n", tpath, g.line, e.c_str()); rc = 2; break; }
        std::vector<uint32_t> expect;
        const double tc0 = now_s();
        mx_sc_c_outputs(cfg, j, expect);
        t_core += now_s() - tc0;
        tile_desc d;
        tile_sram sram;
        tile_pack(j, ARR_R, ARR_C, ARR_L, cfg.mxsf_fp5_bias, out_fmt, d, sram);
        if ((long long)sram.a[0].size() / ARR_L > TILE_FIELD_MAX || (long long)sram.b[0].size() / ARR_L > TILE_FIELD_MAX) {
            fprintf(stderr, "mxsim-cosim-array: %s:%d: operands exceed the 32-bit SRAM address space\n", tpath, g.line);
            rc = 2;
            break;
        }
        /* folds, in the controller's order, for placing output blocks */
        std::vector<fold> folds;
        for (long long c0 = 0; c0 < j.N; c0 += ARR_C)
            for (long long r0 = 0; r0 < j.M; r0 += ARR_R)
                folds.push_back({r0, c0, (int)std::min<long long>(ARR_R, j.M - r0), (int)std::min<long long>(ARR_C, j.N - c0)});
        std::vector<std::deque<size_t>> colq(ARR_C);
        for (size_t f = 0; f < folds.size(); f++)
            for (int c = 0; c < folds[f].cl; c++) colq[(size_t)c].push_back(f);
        const long long t = (j.K + ARR_L - 1) / ARR_L;

        model.reset();
        if (fault_r >= 0) model.array().inject_fault(fault_r, fault_c);
        tile_cycle_in in = tile_cycle_in_idle(d, ARR_R, ARR_C, ARR_L);
        /* reset the RTL */
        top->rst_ni = 0;
        rtl_tile::drive(top, in);
        for (int k = 0; k < 2; k++) {
            top->clk_i = 0; top->eval();
            if (fst) fst->dump(vtime);
            top->clk_i = 1; top->eval();
            if (fst) fst->dump(vtime + 5);
            vtime += 10;
        }
        top->rst_ni = 1;

        std::vector<uint32_t> got((size_t)(j.M * j.N), 0);
        std::vector<int> have((size_t)(j.M * j.N), 0);
        std::vector<std::vector<uint8_t>> blk_codes(folds.size() * ARR_C);
        std::vector<int> blk_scale(folds.size() * ARR_C, -1);
        long long cyc = 0, first_issue = -1, last_pe_done = -1;
        long long blocked = 0; /* cycles in which some output block was valid and not ready */
        const long long limit = 64 + (long long)folds.size() * (t + ARR_R + ARR_C + 16) * (bp > 0 ? 50 : 2);
        tile_cycle_out mo, ro;
        for (;;) {
            if (cyc > limit) {
                fprintf(stderr, "mxsim-cosim-array: %s:%d: GEMM '%s' did not finish in %lld cycles (deadlock)\n", tpath, g.line, g.name, limit);
                rc = 1;
                break;
            }
            in.start = cyc == 0;
            /* tile re-quantization: a fold's columns transfer together, so one ready for all */
            for (int c = 0; c < ARR_C; c++)
                in.blk_ready[(size_t)c] = c > 0 && j.rq_tile ? in.blk_ready[0] : bp > 0 ? mx_rng_uniform(&bp_rng) >= bp : 1;
            double t0 = now_s();
            model.comb(in, mo);
            double t1 = now_s();
            rtl_tile::drive(top, in);
            top->clk_i = 0;
            top->eval();
            if (fst) fst->dump(vtime);
            rtl_tile::read(top, ro);
            double t2 = now_s();
            t_model += t1 - t0;
            t_rtl += t2 - t1;
            /* compare this cycle's outputs */
            auto fail = [&](const char *field, int r, int c, uint64_t exp, uint64_t act) {
                fprintf(stderr,
                        "MISMATCH cycle %lld (GEMM %zu '%s', %s:%d): PE row %d column %d: %s expected 0x%llx actual 0x%llx\n",
                        cyc, gi, g.name, tpath, g.line, r, c, field, (unsigned long long)exp, (unsigned long long)act);
                rc = 1;
            };
            if (mo.busy != ro.busy) fail("busy", -1, -1, (uint64_t)mo.busy, (uint64_t)ro.busy);
            else if (mo.done != ro.done) fail("done", -1, -1, (uint64_t)mo.done, (uint64_t)ro.done);
            else if (mo.rd != ro.rd) fail("sram rd", -1, -1, (uint64_t)mo.rd, (uint64_t)ro.rd);
            else if (mo.rd && mo.a_addr != ro.a_addr) fail("sram a_addr", -1, -1, mo.a_addr, ro.a_addr);
            else if (mo.rd && mo.b_addr != ro.b_addr) fail("sram b_addr", -1, -1, mo.b_addr, ro.b_addr);
            else if (mo.rd && d.scaled && mo.as_addr != ro.as_addr) fail("sram as_addr", -1, -1, mo.as_addr, ro.as_addr);
            else if (mo.rd && d.scaled && mo.bs_addr != ro.bs_addr) fail("sram bs_addr", -1, -1, mo.bs_addr, ro.bs_addr);
            else if (mo.issue != ro.issue) fail("issue", -1, -1, (uint64_t)mo.issue, (uint64_t)ro.issue);
            for (int r = 0; r < ARR_R && rc == 0; r++)
                for (int c = 0; c < ARR_C && rc == 0; c++) {
                    const size_t i = (size_t)(r * ARR_C + c);
                    if (mo.pe_done[i] != ro.pe_done[i]) fail("pe_done", r, c, (uint64_t)mo.pe_done[i], (uint64_t)ro.pe_done[i]);
                }
            for (int c = 0; c < ARR_C && rc == 0; c++) {
                if (mo.blk_valid[(size_t)c] != ro.blk_valid[(size_t)c]) { fail("blk_valid", -1, c, (uint64_t)mo.blk_valid[(size_t)c], (uint64_t)ro.blk_valid[(size_t)c]); break; }
                if (!mo.blk_valid[(size_t)c]) continue;
                for (int r = 0; r < ARR_R && rc == 0; r++) {
                    const size_t i = (size_t)(c * ARR_R + r);
                    if (mo.vals[i] != ro.vals[i]) fail("blk_vals (FP32)", r, c, mo.vals[i], ro.vals[i]);
                    else if (out_fmt >= 0 && mo.codes[i] != ro.codes[i]) fail("blk_codes", r, c, mo.codes[i], ro.codes[i]);
                }
                if (rc == 0 && out_fmt >= 0 && mo.scales[(size_t)c] != ro.scales[(size_t)c]) fail("blk_scale", -1, c, mo.scales[(size_t)c], ro.scales[(size_t)c]);
            }
            if (rc == 0 && mo.overrun != ro.overrun) fail("overrun", -1, -1, (uint64_t)mo.overrun, (uint64_t)ro.overrun);
            if (rc == 0 && mo.overrun) { fprintf(stderr, "mxsim-cosim-array: controller bug: shadow overrun at cycle %lld\n", cyc); rc = 1; }
            if (rc) break;
            if (cyc > 0 && mo.done && !mo.busy) { vtime += 10; break; }
            if (mo.issue && first_issue < 0) first_issue = cyc;
            for (int c = 0; c < ARR_C; c++)
                if (mo.blk_valid[(size_t)c] && !in.blk_ready[(size_t)c]) { blocked++; break; }
            for (int i = 0; i < ARR_R * ARR_C; i++) if (mo.pe_done[(size_t)i]) last_pe_done = cyc;
            for (int c = 0; c < ARR_C && rc == 0; c++) {
                if (!(mo.blk_valid[(size_t)c] && in.blk_ready[(size_t)c])) continue;
                if (colq[(size_t)c].empty()) { fprintf(stderr, "mxsim-cosim-array: unexpected output block in column %d at cycle %lld\n", c, cyc); rc = 1; break; }
                const size_t fi = colq[(size_t)c].front();
                const fold &f = folds[fi];
                colq[(size_t)c].pop_front();
                const long long n = f.c0 + c;
                for (int r = 0; r < f.rl; r++) {
                    const long long m = f.r0 + r;
                    if (have[(size_t)(m * j.N + n)]) { fprintf(stderr, "mxsim-cosim-array: output (%lld, %lld) twice at cycle %lld\n", m, n, cyc); rc = 1; break; }
                    got[(size_t)(m * j.N + n)] = mo.vals[(size_t)(c * ARR_R + r)];
                    have[(size_t)(m * j.N + n)] = 1;
                }
                blk_codes[fi * ARR_C + (size_t)c].assign(mo.codes.begin() + c * ARR_R, mo.codes.begin() + c * ARR_R + f.rl);
                blk_scale[fi * ARR_C + (size_t)c] = mo.scales[(size_t)c];
            }
            if (rc) break;
            t0 = now_s();
            model.tick();
            t1 = now_s();
            top->clk_i = 1;
            top->eval();
            t2 = now_s();
            t_model += t1 - t0;
            t_rtl += t2 - t1;
            if (fst) fst->dump(vtime + 5);
            vtime += 10;
            /* synchronous SRAM: this cycle's read address, data next cycle (0 if no read) */
            tile_sram_respond(sram, mo, in);
            cyc++;
        }
        if (rc) break;
        const long long want = j.M * j.N;
        for (long long k = 0; k < want; k++)
            if (!have[(size_t)k] || got[(size_t)k] != expect[(size_t)k]) {
                fprintf(stderr, "MISMATCH GEMM %zu '%s' (%s:%d): output (%lld, %lld): array 0x%08x%s, mx_pe_dot 0x%08x\n", gi, g.name,
                        tpath, g.line, k / j.N, k % j.N, got[(size_t)k], have[(size_t)k] ? "" : " (missing)", expect[(size_t)k]);
                rc = 1;
                break;
            }
        /* every block's codes and scale: the C re-quantizer on mx_pe_dot's values,
         * a block being a fold's column (r outputs) or with rqu.block: tile the
         * fold's r x c outputs */
        for (size_t fi = 0; fi < folds.size() && rc == 0 && out_fmt >= 0; fi++) {
            const fold &f = folds[fi];
            const int bw = j.rq_tile ? f.cl : 1; /* columns per block */
            for (int c0 = 0; c0 < f.cl && rc == 0; c0 += bw) {
                mx_requant_in rq;
                mx_requant_out rqo;
                memset(&rq, 0, sizeof rq);
                rq.fmt_i = out_fmt;
                rq.fp5_bias_i = cfg.mxsf_fp5_bias;
                for (int q = 0; q < bw; q++)
                    for (int r = 0; r < f.rl; r++) rq.vals_i[q * f.rl + r] = expect[(size_t)((f.r0 + r) * j.N + f.c0 + c0 + q)];
                mx_requant_comb(f.rl * bw, &rq, &rqo);
                for (int q = 0; q < bw && rc == 0; q++) {
                    const int c = c0 + q;
                    const std::vector<uint8_t> &bc = blk_codes[fi * ARR_C + (size_t)c];
                    if (blk_scale[fi * ARR_C + (size_t)c] != rqo.scale_o) {
                        fprintf(stderr, "MISMATCH GEMM %zu '%s' (%s:%d): block rows %lld.. column %lld: scale array 0x%02x, mx_requant 0x%02x\n",
                                gi, g.name, tpath, g.line, f.r0, f.c0 + c, blk_scale[fi * ARR_C + (size_t)c], rqo.scale_o);
                        rc = 1;
                    }
                    for (int r = 0; r < f.rl && rc == 0; r++)
                        if (bc[(size_t)r] != rqo.codes_o[q * f.rl + r]) {
                            fprintf(stderr, "MISMATCH GEMM %zu '%s' (%s:%d): output (%lld, %lld): code array 0x%02x, mx_requant 0x%02x\n",
                                    gi, g.name, tpath, g.line, f.r0 + r, f.c0 + c, bc[(size_t)r], rqo.codes_o[q * f.rl + r]);
                            rc = 1;
                        }
                }
            }
        }
        if (rc) break;
        /* cycles from the first K-step into the array through the cycle whose
         * edge writes the last accumulator: the arch model's
         * t + (r-1) + (c-1) + (P-1) per fold, folds overlapped */
        const long long compute = last_pe_done - first_issue;
        const long long analytic = mx_tile_compute_cycles(&cfg, j.M, j.N, j.K);
        const long long sched = tile_schedule_cycles(ARR_R, ARR_C, ARR_L, 4, j.M, j.N, j.K);
        if (bp == 0 && compute != sched) {
            fprintf(stderr, "MISMATCH GEMM %zu '%s' (%s:%d): compute cycles RTL/C array %lld, fold schedule %lld "
                            "(arch model mx_tile_compute_cycles %lld)\n",
                    gi, g.name, tpath, g.line, compute, sched, analytic);
            rc = 1;
            break;
        }
        if (bp == 0 && compute != analytic) {
            fprintf(stderr, "MISMATCH GEMM %zu '%s' (%s:%d): compute cycles RTL/C array %lld = fold schedule, arch model "
                            "mx_tile_compute_cycles %lld\n", gi, g.name, tpath, g.line, compute, analytic);
            rc = 1;
            break;
        }
        /* start-to-done: the RTL against its schedule written out (lead +
         * compute + drain), and with --engine the cycle engine's tile */
        const tile_done_sched ds = tile_done_schedule(ARR_R, ARR_C, ARR_L, 4, j.M, j.N, j.K, j.rq_tile);
        if (bp == 0 && (cyc != ds.total || first_issue != ds.lead)) {
            fprintf(stderr, "MISMATCH GEMM %zu '%s' (%s:%d): start-to-done RTL %lld (first K-step in cycle %lld, drain %lld), "
                            "schedule %lld (lead %lld + compute %lld + drain %lld)\n",
                    gi, g.name, tpath, g.line, cyc, first_issue, cyc - last_pe_done, ds.total, ds.lead, ds.compute, ds.drain);
            rc = 1;
            break;
        }
        if (bp > 0) {
            /* back-pressure delays the tile by at most the cycles it blocked an output */
            if (cyc < ds.total || cyc > ds.total + blocked) {
                fprintf(stderr, "MISMATCH GEMM %zu '%s' (%s:%d): start-to-done RTL %lld with back-pressure outside "
                                "[unthrottled %lld, %lld + %lld cycles an output block was valid and not ready]\n",
                        gi, g.name, tpath, g.line, cyc, ds.total, ds.total, blocked);
                rc = 1;
                break;
            }
            if (rep == 0) {
                bp_gemms++;
                bp_exact += cyc == ds.total + blocked;
                bp_extra += cyc - ds.total;
                bp_blocked += blocked;
            }
        }
        if (engine && rep == 0) {
            mx_cycle_tile er;
            long long ntiles = 0;
            const std::string ee = engine_tile(cfg, j, g, er, ntiles);
            if (!ee.empty()) {
                fprintf(stderr, "mxsim-cosim-array: %s:%d: cycle engine: %s\n", tpath, g.line, ee.c_str());
                rc = 2;
                break;
            }
            const long long e_total = er.rqu_end - er.start, e_comp = er.end - er.start - er.sram_stall;
            const bool same = ntiles == 1 && er.m == j.M && er.n == j.N && er.k == j.K && er.rqu_end >= 0 &&
                              er.sram_stall == 0 && e_total == ds.total;
            eng_tiles++;
            if (!same) {
                eng_bad++;
                if (ntiles != 1 || er.m != j.M || er.n != j.N || er.k != j.K)
                    fprintf(stderr, "MISMATCH GEMM %zu '%s' (%s:%d): cycle engine cut the %lldx%lldx%lld tile into %lld tiles "
                                    "(first %lldx%lldx%lld); the RTL runs it as one descriptor\n",
                            gi, g.name, tpath, g.line, j.M, j.N, j.K, ntiles, er.m, er.n, er.k);
                else
                    fprintf(stderr, "MISMATCH GEMM %zu '%s' (%s:%d): tile %lldx%lldx%lld %s start-to-done: RTL %lld "
                                    "(lead %lld + compute %lld + drain %lld), cycle engine %lld (compute %lld + sram %lld + rqu %lld)"
                                    "%s\n",
                            gi, g.name, tpath, g.line, j.M, j.N, j.K, j.rq_tile ? "rqu.block tile" : "rqu.block column",
                            ds.total, ds.lead, ds.compute, ds.drain, e_total, e_comp, er.sram_stall, er.rqu_end - er.end,
                            bp > 0 ? "  (RTL: unthrottled schedule, checked without back-pressure)" : "");
            } else if (!quiet)
                printf("%-10s start-to-done %lld = lead %lld + compute %lld + drain %lld: cycle engine equal\n", g.name,
                       ds.total, ds.lead, ds.compute, ds.drain);
        }
        total_cycles += cyc;
        all_cycles += cyc + 2; /* + reset */
        if (!quiet && rep == 0)
            printf("%-10s %4lldx%-4lldx%-4lld %-11s folds %3zu  compute %6lld (arch %6lld)  start-to-done %6lld cycles  %lld outputs%s equal%s\n",
                   g.name, g.M, g.N, g.K, mx_sc_fmt_pair(j).c_str(), folds.size(), compute, analytic, cyc, want,
                   out_fmt >= 0 ? " + codes/scales" : "", from_note.c_str());
    }
    if (rc == 0) {
        printf("mxsim-cosim-array: %s, %zu GEMMs, %dx%d array L=%d, back-pressure %.2f: RTL == C model, %lld cycles\n", tpath,
               tr.n, ARR_R, ARR_C, ARR_L, bp, total_cycles);
        if (bp > 0)
            printf("mxsim-cosim-array: %s: start-to-done with back-pressure within [unthrottled, unthrottled + blocked cycles] "
                   "on %lld GEMMs (equal to the upper end on %lld; %lld cycles added, %lld blocked)\n",
                   tpath, bp_gemms, bp_exact, bp_extra, bp_blocked);
    }
    if ((rc == 0 || rc == 1) && engine && eng_tiles > 0) {
        if (eng_bad == 0 && rc == 0)
            printf("mxsim-cosim-array: %s, %lld tiles, %dx%d array L=%d: PASS start-to-done RTL == cycle engine%s\n", tpath,
                   eng_tiles, ARR_R, ARR_C, ARR_L, bp > 0 ? " (unthrottled)" : "");
        else if (eng_bad) {
            fprintf(stderr, "mxsim-cosim-array: %s: start-to-done: cycle engine differs from the RTL on %lld of %lld tiles\n",
                    tpath, eng_bad, eng_tiles);
            rc = 1;
        }
    }
    if (rc == 0) {
        if (repeat > 1)
            printf("bench-array %2dx%-2d L=%d: %lld cycles x %d runs: RTL (Verilated) %9.0f cycles/s | C++ cycle twin %9.0f cycles/s | "
                   "C core values (mx_pe_dot) %10.0f array-cycles/s\n",
                   ARR_R, ARR_C, ARR_L, all_cycles / repeat, repeat, (double)all_cycles / t_rtl, (double)all_cycles / t_model,
                   (double)all_cycles / t_core);
    }
    if (fst) { fst->close(); delete fst; }
    top->final();
    delete top;
    mx_trace_free(&tr);
    return rc;
}
