/*
 * cosim_array_main.cpp — whole-GEMM co-simulation of rtl/mx_array_ctrl.sv
 * (Verilated: descriptor-driven controller, mx_array, re-quantizing output
 * stage) against its C twin, the register model of models/array (built on the
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
 * fold schedule, the arch model's mx_tile_compute_cycles().  First divergence: cycle,
 * GEMM, PE row/column, field, expected and actual in hex; exit 1.
 * Start-to-done (start_i to done_o) must equal tile_done_schedule (lead +
 * compute + drain, array_model.h) without back-pressure, and lie in
 * [schedule, schedule + cycles in which an output block was valid and not
 * ready] with it.  --engine: the same tile (the whole GEMM, one descriptor)
 * on the cycle engine (models/arch/mx_cycle.h) with a config matching the
 * RTL (engine_config below); its start-to-done, rqu_end - start of the tile
 * record, must equal the RTL's unthrottled start-to-done: one MISMATCH
 * line per differing tile (all tiles are run), a PASS line otherwise.
 * Exit 0 all equal, 2 bad input.  --repeat N (bench) runs the trace N
 * times, then replays the first run's per-cycle inputs N times on the RTL
 * alone and on the C register model alone (outputs must hash as in the
 * checked run), and prints simulated cycles per CPU-second of the RTL, the
 * C register model, the C core's values and the whole co-simulation, and
 * the wall-clock rates of the lock-step runs.
 *
 * Bounds and progress: --gemms N runs the trace's first N GEMMs, --gemm I
 * only GEMM I (0-based; what a mismatch report's rerun line uses),
 * --max-cycles N stops after N simulated cycles in all; a cut run says what
 * was not compared.  On a terminal (isatty(stderr), or --progress) a
 * progress line: GEMM i of n, cycles, cycles/s.
 *
 * Every PE's result (its out_o, read through Verilator's public scope
 * table, u_pe.out_q) is compared with the twin's the cycle it appears, so a
 * wrong PE is caught at that PE.  A mismatch report gives the stimulus of
 * the output involved (A row, B column: scales and codes), the failing PE's
 * own output in both models and mx_pe_dot's value, a command line that
 * reruns exactly that GEMM with a waveform, and with --fst FILE the window
 * of cycles in FILE and FILE.gtkw, a gtkwave save file showing that PE's
 * ports and stage registers and the array controller's status.
 */
#include "array_model.h"
#include "cosim_opts.h"
#include "rtl_tile.h"

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <memory>
#include <string>
#include <unistd.h>

#include "verilated_fst_c.h"
#include "verilated_syms.h"

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

/* mk/vl_skip_ico.sh patches the Verilated model's input-combinational
 * trigger with this flag: 1 around the clock-high eval, whose inputs equal
 * the clock-low eval's (only clk_i changes), so the model does not recompute
 * every PE's input logic a second time per cycle.  MXSIM_COSIM_FULL_EVAL=1
 * keeps it 0 (Verilator's own schedule, for comparison). */
int mx_vl_skip_ico = 0;

static const char PROG[] = "mxsim-cosim-array";

static void usage(FILE *f)
{
    fprintf(f, "usage: mxsim-cosim-array -c CONFIG.yaml -t TRACE [--seed S] [--fst FILE]\n"
               "                         [--backpressure P] [--fault R,C] [--quiet] [--repeat N]\n"
               "                         [--data DIR] [--engine] [--gemms N | --gemm I] [--max-cycles N]\n"
               "                         [--progress]\n"
               "  --engine: also compare each tile's start-to-done cycles with the cycle engine\n"
               "  --data DIR: operands DIR/NAME.PHASE.a.npy (M x K) and DIR/NAME.PHASE.b.npy (K x N),\n"
               "  float32/float64; absent files -> seeded random N(0,1)\n"
               "  --gemms N: the first N GEMMs; --gemm I: GEMM I only (0-based); --max-cycles N: stop after N cycles\n"
               "  --progress: progress lines on stderr even when it is not a terminal\n"
               "  compiled for a %dx%d array with %d lanes; the config must match\n", ARR_R, ARR_C, ARR_L);
}

/* The cycle engine configured as the RTL's tile (--engine):
 *  - array: the config's R x C, L, os, P, fold overlap (mx_array_config_from_arch in main);
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

/* Hex of n codes (mx_sc_code_bytes wide), at most 32, then "... (n)". */
static std::string hex_codes(const uint16_t *v, long long n, long long stride, int bytes)
{
    std::string s;
    char b[16];
    for (long long i = 0; i < n && i < 32; i++) {
        snprintf(b, sizeof b, "%s%0*x", i ? " " : "", 2 * bytes, v[i * stride]);
        s += b;
    }
    if (n > 32) s += " ... (" + std::to_string(n) + " codes)";
    return s;
}

static std::string hex_bytes(const uint8_t *v, size_t n)
{
    std::string s;
    char b[8];
    for (size_t i = 0; i < n && i < 32; i++) {
        snprintf(b, sizeof b, "%s%02x", i ? " " : "", v[i]);
        s += b;
    }
    if (n > 32) s += " ... (" + std::to_string(n) + ")";
    return s;
}

/* The mxsim binary beside this harness (BUILD/mxsim, the harness being
 * BUILD/cosim_array/mxsim-cosim-array-RxCxL or BUILD/mxsim-cosim-array), for
 * the rerun line; "mxsim" if not found. */
static std::string mxsim_path()
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return "mxsim";
    self[n] = '\0';
    std::string d(self);
    d = d.substr(0, d.rfind('/'));
    if (d.size() >= 12 && d.compare(d.size() - 12, 12, "/cosim_array") == 0) d = d.substr(0, d.size() - 12);
    const std::string m = d + "/mxsim";
    return access(m.c_str(), X_OK) == 0 ? m : "mxsim";
}

/* gtkwave save file for FST `fst`: PE (r, c)'s ports and registers and the
 * controller's status, the view starting at time t_from.  Signal names as
 * gtkwave builds them from Verilator's FST (scopes joined by '.', vector
 * range appended): `make cosim-array` checks each against the FST's list. */
static bool write_gtkw(const std::string &path, const char *fst, int r, int c, uint64_t t_from, uint64_t t_to)
{
    FILE *f = fopen(path.c_str(), "w");
    if (!f) return false;
    char absf[4096];
    const char *fa = realpath(fst, absf) ? absf : fst;
    char pe[160];
    snprintf(pe, sizeof pe, "TOP.mx_array_ctrl.u_array.g_row[%d].g_col[%d].u_pe", r, c);
    const int cw = ARR_L * 16 - 1;
    fprintf(f, "[*] mxsim-cosim-array mismatch report: PE row %d column %d\n", r, c);
    fprintf(f, "[dumpfile] \"%s\"\n", fa);
    fprintf(f, "[timestart] %llu\n", (unsigned long long)t_from);
    fprintf(f, "[markername] A\n[markertime] %llu\n", (unsigned long long)t_to); /* gtkwave ignores unknown keys */
    fprintf(f, "[size] 1600 900\n[treeopen] TOP.\n[treeopen] TOP.mx_array_ctrl.\n[treeopen] TOP.mx_array_ctrl.u_array.\n");
    fprintf(f, "@200\n-controller\n@28\nTOP.mx_array_ctrl.clk_i\nTOP.mx_array_ctrl.busy_o\nTOP.mx_array_ctrl.issue_o\n");
    fprintf(f, "@200\n-PE (%d, %d) inputs\n@28\n%s.in_valid_i\n%s.first_i\n%s.last_i\n", r, c, pe, pe, pe);
    fprintf(f, "@22\n%s.a_scale_i[7:0]\n%s.b_scale_i[7:0]\n%s.a_codes_i[%d:0]\n%s.b_codes_i[%d:0]\n", pe, pe, pe, cw, pe, cw);
    fprintf(f, "@200\n-PE (%d, %d) stages\n@28\n%s.s1_valid_q\n%s.s2_valid_q\n%s.s3_valid_q\n", r, c, pe, pe, pe);
    fprintf(f, "@22\n%s.acc_q[31:0]\n", pe);
    fprintf(f, "@200\n-PE (%d, %d) output\n@28\n%s.out_valid_o\n@22\n%s.out_o[31:0]\n", r, c, pe, pe);
    return fclose(f) == 0;
}

/* The first mismatch's report after the one-line MISMATCH: the output
 * involved and its stimulus, the PE's own output value, the rerun command,
 * the waveform window and the gtkwave save file. */
static void report_mismatch(const mx_arch_config &cfg, const char *cpath, const char *tpath, unsigned long long seed,
                            const std::string &bp_arg, const std::string &fault_arg, const char *data_dir,
                            const char *fst_path, size_t gi, const mx_gemm &g, const mx_sc_job &j,
                            const std::string &from_note, const std::vector<uint32_t> &expect, long long cyc, int r, int c,
                            const fold *f, uint32_t twin_pe, const uint32_t *rtl_pe, uint64_t gemm_t0)
{
    (void)cfg;
    if (r >= 0 && c >= 0) {
        if (f) {
            const long long m = f->r0 + r, n = f->c0 + c;
            fprintf(stderr, "  PE (%d, %d) output: C model 0x%08x, RTL u_pe.out_o ", r, c, twin_pe);
            if (rtl_pe) fprintf(stderr, "0x%08x", *rtl_pe);
            else fprintf(stderr, "(not visible in this build)");
            fprintf(stderr, "; its output (m, n) = (%lld, %lld) (fold rows %lld.., columns %lld..): mx_pe_dot 0x%08x\n", m, n,
                    f->r0, f->c0, expect[(size_t)(m * j.N + n)]);
            const int ba = mx_sc_code_bytes(j.fmt), bb = mx_sc_code_bytes(j.fmt_b);
            fprintf(stderr, "  stimulus: GEMM %zu '%s' %lldx%lldx%lld %s, operands %s; C[%lld][%lld] = sum over k < %lld of "
                            "A[%lld][k] * B[k][%lld]\n",
                    gi, g.name, j.M, j.N, j.K, mx_sc_fmt_pair(j).c_str(),
                    from_note.empty() ? ("seeded N(0,1), seed " + std::to_string(seed) + " + " + std::to_string(gi)).c_str()
                                      : from_note.c_str() + 2,
                    m, n, j.K, m, n);
            if (j.scaled) {
                std::vector<uint8_t> sa(mx_sc_a_scale_count(j) + j.K + 8), sb(mx_sc_b_scale_count(j) + j.K + 8);
                const long long nk = (j.K + mx_sc_k_per_scale(j) - 1) / mx_sc_k_per_scale(j);
                mx_sc_row_scales(j, m, sa.data());
                mx_sc_col_scales(j, n, sb.data());
                fprintf(stderr, "    A row %lld scales (E8M0, per %d of K): %s\n", m, mx_sc_k_per_scale(j), hex_bytes(sa.data(), (size_t)nk).c_str());
                fprintf(stderr, "    B column %lld scales: %s\n", n, hex_bytes(sb.data(), (size_t)nk).c_str());
            }
            fprintf(stderr, "    A row %lld codes: %s\n", m, hex_codes(&j.a_codes[(size_t)(m * j.K)], j.K, 1, ba).c_str());
            fprintf(stderr, "    B column %lld codes: %s\n", n, hex_codes(&j.b_codes[(size_t)n], j.K, j.N, bb).c_str());
        } else {
            fprintf(stderr, "  PE (%d, %d): no output of this GEMM is mapped to it\n", r, c);
        }
    }
    const std::string fst_out = fst_path ? fst_path : "mxsim-array-gemm" + std::to_string(gi) + ".fst";
    fprintf(stderr, "  rerun: %s cosim --level array -c %s -t %s --seed %llu --gemm %zu%s%s%s%s%s%s --fst %s\n",
            mxsim_path().c_str(), cpath, tpath, seed, gi, bp_arg.empty() ? "" : " --backpressure ", bp_arg.c_str(),
            fault_arg.empty() ? "" : " --fault ", fault_arg.c_str(), data_dir ? " --data " : "", data_dir ? data_dir : "",
            fst_out.c_str());
    const long long lo = cyc > 64 ? cyc - 64 : 0;
    if (!fst_path) {
        fprintf(stderr, "  waveform: none written (the rerun line writes one; window: GEMM cycles %lld..%lld)\n", lo, cyc);
        return;
    }
    const uint64_t t_lo = gemm_t0 + 10 * (uint64_t)lo, t_hi = gemm_t0 + 10 * (uint64_t)cyc;
    fprintf(stderr, "  waveform: %s: GEMM %zu cycles %lld..%lld = times %llu..%llu (10 time units per cycle, "
                    "clock low at 10 x cycle; this GEMM's cycle 0 at %llu)\n",
            fst_path, gi, lo, cyc, (unsigned long long)t_lo, (unsigned long long)t_hi, (unsigned long long)gemm_t0);
    if (r >= 0 && c >= 0) {
        const std::string gw = std::string(fst_path) + ".gtkw";
        if (write_gtkw(gw, fst_path, r, c, t_lo, t_hi))
            fprintf(stderr, "  gtkwave: %s (PE (%d, %d) ports and registers; gtkwave %s)\n", gw.c_str(), r, c, gw.c_str());
        else
            fprintf(stderr, "  gtkwave: cannot write %s: %s\n", gw.c_str(), strerror(errno));
    }
}

/* Every output's code and block scale against the C re-quantizer on
 * mx_pe_dot's values: a block is a fold's column (R outputs along M) or with
 * rqu.block: tile a TR x TC tile of the output matrix (inside one fold, as
 * TR | R and TC | C; the matrix's last tiles partial).  0 equal, 1 with a
 * MISMATCH line. */
static int check_blocks(const mx_sc_job &j, int out_fmt, int fp5_bias, const std::vector<uint32_t> &expect,
                        const std::vector<uint8_t> &got_code, const std::vector<int> &got_scale, size_t gi,
                        const mx_gemm &g, const char *tpath)
{
    const long long br = j.rq_tile ? ARR_TR : ARR_R, bc = j.rq_tile ? ARR_TC : 1;
    mx_requant_in rq;
    mx_requant_out rqo;
    memset(&rq, 0, sizeof rq);
    rq.fmt_i = out_fmt;
    rq.fp5_bias_i = fp5_bias;
    for (long long m0 = 0; m0 < j.M; m0 += br)
        for (long long n0 = 0; n0 < j.N; n0 += bc) {
            const long long h = std::min(br, j.M - m0), w = std::min(bc, j.N - n0);
            for (long long q = 0; q < w; q++)
                for (long long r = 0; r < h; r++) rq.vals_i[q * h + r] = expect[(size_t)((m0 + r) * j.N + n0 + q)];
            mx_requant_comb((int)(h * w), &rq, &rqo);
            for (long long q = 0; q < w; q++)
                for (long long r = 0; r < h; r++) {
                    const size_t i = (size_t)((m0 + r) * j.N + n0 + q);
                    if (got_scale[i] != rqo.scale_o || got_code[i] != rqo.codes_o[q * h + r]) {
                        fprintf(stderr, "MISMATCH GEMM %zu '%s' (%s:%d): output (%lld, %lld) in the %lldx%lld block at (%lld, %lld): "
                                        "code/scale array 0x%02x/0x%02x, mx_requant 0x%02x/0x%02x\n",
                                gi, g.name, tpath, g.line, m0 + r, n0 + q, br, bc, m0, n0, got_code[i], got_scale[i] & 0xff,
                                rqo.codes_o[q * h + r], rqo.scale_o);
                        return 1;
                    }
                }
        }
    return 0;
}

static double now_s()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/* This thread's CPU time (the bench's rates: the machine may be shared, so
 * wall time would count other processes' time slices). */
static double cpu_s()
{
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Command-line options. */
struct ca_opts {
    const char *cpath = nullptr, *tpath = nullptr, *fst_path = nullptr, *data_dir = nullptr;
    unsigned long long seed = 1;
    double bp = 0;
    int fault_r = -1, fault_c = -1, quiet = 0, repeat = 1, engine = 0, progress = 0;
    long long max_cycles = -1, gemms = -1, gemm_only = -1;
    std::string bp_arg, fault_arg;
};

/* -1: run; else the exit status (0 after --help, 2 after one error line). */
static int parse_args(int argc, char **argv, ca_opts &o)
{
    const char *&cpath = o.cpath, *&tpath = o.tpath, *&fst_path = o.fst_path, *&data_dir = o.data_dir;
    unsigned long long &seed = o.seed;
    double &bp = o.bp;
    int &fault_r = o.fault_r, &fault_c = o.fault_c, &quiet = o.quiet, &repeat = o.repeat, &engine = o.engine,
        &progress = o.progress;
    long long &max_cycles = o.max_cycles, &gemms = o.gemms, &gemm_only = o.gemm_only;
    std::string &bp_arg = o.bp_arg, &fault_arg = o.fault_arg;
    progress = isatty(2);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const bool has = i + 1 < argc;
        long long cnt;
        int co;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        else if (has && (co = ca_count_option(a, argv[i + 1], &cnt)) != 0) {
            if (co < 0) { mx_print_error(PROG, "option '%s': %s, got '%s'", a, ca_count_range(a), argv[i + 1]); return 2; }
            i++;
            if (!strcmp(a, "--max-cycles")) max_cycles = cnt;
            else if (!strcmp(a, "--gemms")) gemms = cnt;
            else gemm_only = cnt;
        }
        else if (!strcmp(a, "--progress")) progress = 1;
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
            bp_arg = argv[i];
        } else if (!strcmp(a, "--fault") && has) {
            if (sscanf(argv[++i], "%d,%d", &fault_r, &fault_c) != 2 || fault_r < 0 || fault_r >= ARR_R ||
                fault_c < 0 || fault_c >= ARR_C) {
                mx_print_error(PROG, "option '--fault': expected R,C inside the %dx%d array: '%s'", ARR_R, ARR_C, argv[i]);
                return 2;
            }
            fault_arg = argv[i];
        } else {
            mx_print_error(PROG, "unknown option or missing value: '%s' (--help)", a);
            return 2;
        }
    }
    if (!cpath || !tpath) { mx_print_error(PROG, "-c CONFIG and -t TRACE are required (--help)"); return 2; }
    if (gemms >= 0 && gemm_only >= 0) { mx_print_error(PROG, "options '--gemms' and '--gemm': give one of them"); return 2; }
    if (gemm_only >= 0 && repeat > 1) { mx_print_error(PROG, "options '--gemm' and '--repeat': give one of them"); return 2; }
    return -1;
}

/* The first mismatch, for the report. */
struct ca_mismatch { long long cyc = -1; std::string field; int r = -1, c = -1; uint64_t exp = 0, act = 0; long long fold = -1; };

/* What the GEMMs of a run share: config, trace, the Verilated model and its
 * C twin, bounds and progress, and the totals of the summary. */
struct ca_run {
    explicit ca_run(const ca_opts &opts) : o(opts) {}
    const ca_opts &o;
    mx_arch_config cfg;
    mx_array_config acfg;
    mx_trace tr = {nullptr, 0};
    size_t g_lo = 0, g_hi = 0;   /* the GEMMs to run: [g_lo, g_hi) */
    std::unique_ptr<VerilatedContext> ctx;
    Vmx_array_ctrl *top = nullptr;
    VerilatedFstC *fst = nullptr;
    uint64_t vtime = 0;
    int out_fmt = -1;            /* output re-quantization format, -1 none */
    int skip_ico = 1;
    uint64_t bp_rng = 0;
    std::vector<const uint32_t *> pe_q; /* every PE's out_q, when visible */
    bool pe_visible = true;
    std::unique_ptr<array_ctrl_twin> model;
    ca_mismatch mm;
    /* bounds and progress */
    size_t n_run = 0;
    long long run_cycles = 0;    /* simulated cycles so far (resets included), for --max-cycles and progress */
    bool cut = false;
    size_t cur_gi = (size_t)-1, cut_gi = 0; /* the GEMM running (progress), the one cut */
    long long cut_cyc = 0, gemms_done = 0;
    double t_start = 0, t_prog = 0;
    long long total_cycles = 0, all_cycles = 0;
    /* start-to-done: back-pressure runs (GEMMs, equal to schedule + blocked,
     * sums), engine comparison (tiles compared, mismatches) */
    long long bp_gemms = 0, bp_exact = 0, bp_extra = 0, bp_blocked = 0;
    long long eng_tiles = 0, eng_bad = 0;
    double t_rtl = 0, t_model = 0, t_core = 0;
    /* bench (--repeat N > 1): each GEMM's per-cycle inputs and a hash of the
     * RTL's outputs in the checked run, replayed N times on the RTL alone and
     * on the C register model alone under CPU time (bench_replay) */
    std::vector<std::vector<tile_cycle_in>> rec_in;
    std::vector<uint64_t> rec_hash_rtl, rec_hash_model;
    long long cpu_cycles = 0;
    double cpu_rtl = 0, cpu_model = 0, cpu_core = 0, cpu_cosim = 0;
    int rc = 0;

    void show_progress(size_t gi, bool final) const
    {
        const double el = now_s() - t_start;
        const bool tty = isatty(2);
        fprintf(stderr, "%sprogress: GEMM %zu of %zu, %lld cycles, %.0f cycles/s, %.1f s%s", tty ? "\r" : "",
                gi - g_lo + 1, n_run, run_cycles, el > 0 ? run_cycles / el : 0.0, el, tty && !final ? "   " : "\n");
        fflush(stderr);
    }
};

/* The config (with the array model's check of what the RTL can build, then
 * this binary's size), the trace and the GEMMs to run.  0, or 2 after one
 * error line. */
static int setup_run(ca_run &x)
{
    const char *cpath = x.o.cpath, *tpath = x.o.tpath, *fst_path = x.o.fst_path;
    const int fault_r = x.o.fault_r, fault_c = x.o.fault_c;
    const long long gemms = x.o.gemms, gemm_only = x.o.gemm_only;
    mx_arch_config &cfg = x.cfg;
    mx_array_config &acfg = x.acfg;
    mx_trace &tr = x.tr;
    size_t &g_lo = x.g_lo, &g_hi = x.g_hi;
    char err[700], epath[MX_ARCH_PATH_MAX];
    /* before any work: a report must never name a waveform that was not written */
    if (fst_path && mx_check_output_file("--fst", fst_path, err, sizeof err) != 0) { mx_print_error(PROG, "%s", err); return 2; }
    if (mx_config_load(cpath, &cfg, epath, err, sizeof err) != 0 || mx_config_dram(cpath, &cfg, err, sizeof err) != 0) {
        mx_print_error(PROG, "%s", err);
        return 2;
    }
    /* the config check of the array model (what the RTL can build), then this binary's size */
    if (mx_array_config_from_arch(&cfg, &acfg, err, sizeof err) != 0) {
        fprintf(stderr, "mxsim-cosim-array: %s: %s\n", cpath, err);
        return 2;
    }
    if (acfg.rows != ARR_R || acfg.cols != ARR_C || acfg.lanes != ARR_L || acfg.pipeline_depth != MX_ARRAY_PE_STAGES ||
        (cfg.rqu_tile && (acfg.tile_rows != ARR_TR || acfg.tile_cols != ARR_TC))) {
        fprintf(stderr, "mxsim-cosim-array: %s: keys 'arch.rows/cols/lanes/pe_pipeline_depth, format.tile': this binary "
                        "simulates a %dx%d array, %d lanes, depth %d, re-quantization tile %dx%d\n",
                cpath, ARR_R, ARR_C, ARR_L, MX_ARRAY_PE_STAGES, ARR_TR, ARR_TC);
        return 2;
    }
    acfg.tile_rows = ARR_TR; /* column mode: the build's tile, unused */
    acfg.tile_cols = ARR_TC;
    acfg.fault_row = fault_r;
    acfg.fault_col = fault_c;
    if (cfg.align_width != 32) { fprintf(stderr, "mxsim-cosim-array: %s: key 'format.align_width': the RTL is built with 32\n", cpath); return 2; }
    if (mx_trace_load(tpath, &tr, err, sizeof err) != 0) { mx_print_error(PROG, "%s", err); return 2; }
    /* the GEMMs to run: [g_lo, g_hi) */
    g_lo = 0;
    g_hi = tr.n;
    if (gemm_only >= 0) {
        if ((size_t)gemm_only >= tr.n) {
            mx_print_error(PROG, "option '--gemm': %s has %zu GEMMs (0..%zu), got %lld", tpath, tr.n, tr.n ? tr.n - 1 : 0, gemm_only);
            mx_trace_free(&tr);
            return 2;
        }
        g_lo = (size_t)gemm_only;
        g_hi = g_lo + 1;
    } else if (gemms >= 0 && (size_t)gemms < tr.n) {
        g_hi = (size_t)gemms;
    }

    x.n_run = g_hi - g_lo;
    x.cur_gi = g_lo > 0 ? g_lo - 1 : (size_t)-1;
    return 0;
}

/* The Verilated model (with its waveform when --fst), the output format,
 * every PE's result register through Verilator's scope table.  0, or 2. */
static int setup_rtl(ca_run &x)
{
    const char *fst_path = x.o.fst_path;
    const mx_arch_config &cfg = x.cfg;
    x.ctx.reset(new VerilatedContext);
    VerilatedContext *ctx = x.ctx.get();
    ctx->traceEverOn(fst_path != nullptr);
    Vmx_array_ctrl *&top = x.top;
    VerilatedFstC *&fst = x.fst;
    top = new Vmx_array_ctrl(ctx);
    if (fst_path) {
#ifdef CA_NO_TRACE
        (void)fst; /* the bench build has no tracing */
        fprintf(stderr, "mxsim-cosim-array: option '--fst': this benchmark build has no waveform support (use build/mxsim-cosim-array)\n");
        delete top;
        top = nullptr;
        return 2;
#else
        fst = new VerilatedFstC;
        top->trace(fst, 99);
        fst->open(fst_path);
#endif
    }
    /* output re-quantization format: the config's output format when the
     * re-quantizer supports it (MX formats except BF16) */
    int &out_fmt = x.out_fmt;
    {
        mx_pe_fmt of;
        bool os;
        if (mx_sc_fmt_from_name(cfg.out_format, &of, &os) == 0 && os && mx_pe_format_of(of)->requant) out_fmt = of;
    }
    x.skip_ico = !(getenv("MXSIM_COSIM_FULL_EVAL") && !strcmp(getenv("MXSIM_COSIM_FULL_EVAL"), "1"));
    /* every PE's output register through Verilator's scope table (out_q is
     * public_flat_rd in rtl/mx_pe.sv; out_o = out_q); all null when this
     * build does not expose them */
    std::vector<const uint32_t *> &pe_q = x.pe_q;
    bool &pe_visible = x.pe_visible;
    pe_q.assign((size_t)(ARR_R * ARR_C), nullptr);
    for (int i = 0; i < ARR_R * ARR_C && pe_visible; i++) {
        char sn[160];
        snprintf(sn, sizeof sn, "TOP.mx_array_ctrl.u_array.g_row[%d].g_col[%d].u_pe", i / ARR_C, i % ARR_C);
        const VerilatedScope *sc = ctx->scopeFind(sn);
        VerilatedVar *v = sc ? sc->varFind("out_q") : nullptr;
        if (!v || v->vltype() != VLVT_UINT32) pe_visible = false;
        else pe_q[(size_t)i] = (const uint32_t *)v->datap();
    }
    return 0;
}

/* GEMM gi's cycles: compute (first K-step to the last PE result) against
 * the fold schedule and start-to-done against tile_done_schedule without
 * back-pressure, within [schedule, schedule + blocked cycles] with it, and
 * with --engine against the cycle engine's tile.  0, 1 (MISMATCH line) or 2. */
static int check_gemm_cycles(ca_run &x, size_t gi, int rep, const mx_sc_job &j, const mx_gemm &g, long long cyc,
                             long long first_issue, long long last_pe_done, long long blocked)
{
    const char *tpath = x.o.tpath;
    const double bp = x.o.bp;
    const int engine = x.o.engine, quiet = x.o.quiet;
    const mx_arch_config &cfg = x.cfg;
    long long &bp_gemms = x.bp_gemms, &bp_exact = x.bp_exact, &bp_extra = x.bp_extra, &bp_blocked = x.bp_blocked;
    long long &eng_tiles = x.eng_tiles, &eng_bad = x.eng_bad;
    int rc = 0;
    /* cycles from the first K-step into the array through the cycle whose
     * edge writes the last accumulator: the arch model's
     * t + (r-1) + (c-1) + (P-1) per fold, folds overlapped */
    const long long compute = last_pe_done - first_issue;
    const long long analytic = mx_tile_compute_cycles(&cfg, j.M, j.N, j.K);
    if (bp == 0 && compute != analytic) {
        fprintf(stderr, "MISMATCH GEMM %zu '%s' (%s:%d): compute cycles RTL/C array %lld, fold schedule "
                        "(mx_tile_compute_cycles) %lld\n", gi, g.name, tpath, g.line, compute, analytic);
        rc = 1;
        return rc;
    }
    /* start-to-done: the RTL against its schedule written out (lead +
     * compute + drain), and with --engine the cycle engine's tile */
    const tile_done_sched ds = tile_done_schedule(cfg, j.M, j.N, j.K, j.rq_tile);
    if (bp == 0 && (cyc != ds.total || first_issue != ds.lead)) {
        fprintf(stderr, "MISMATCH GEMM %zu '%s' (%s:%d): start-to-done RTL %lld (first K-step in cycle %lld, drain %lld), "
                        "schedule %lld (lead %lld + compute %lld + drain %lld)\n",
                gi, g.name, tpath, g.line, cyc, first_issue, cyc - last_pe_done, ds.total, ds.lead, ds.compute, ds.drain);
        rc = 1;
        return rc;
    }
    if (bp > 0) {
        /* back-pressure delays the tile by at most the cycles it blocked an output */
        if (cyc < ds.total || cyc > ds.total + blocked) {
            fprintf(stderr, "MISMATCH GEMM %zu '%s' (%s:%d): start-to-done RTL %lld with back-pressure outside "
                            "[unthrottled %lld, %lld + %lld cycles an output block was valid and not ready]\n",
                    gi, g.name, tpath, g.line, cyc, ds.total, ds.total, blocked);
            rc = 1;
            return rc;
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
            return rc;
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
    return rc;
}

/* GEMM gi's job: operands (seeded or --data), quantized with the config's
 * block shape, the C core's output values, the SRAM image and descriptor.
 * 0, or 2 after one error line. */
static int prepare_gemm(ca_run &x, size_t gi, mx_sc_job &j, std::vector<uint32_t> &expect, tile_desc &d, tile_sram &sram,
                        std::string &from_note)
{
    const char *tpath = x.o.tpath, *data_dir = x.o.data_dir;
    const unsigned long long seed = x.o.seed;
    const mx_arch_config &cfg = x.cfg;
    const mx_gemm &g = x.tr.gemms[gi];
    const std::string fe = mx_sc_job_from_gemm(cfg, g, j);
    if (!fe.empty()) {
        fprintf(stderr, "mxsim-cosim-array: %s:%d: %s\n", tpath, g.line, fe.c_str());
        return 2;
    }
    std::vector<float> af, bf;
    std::string e = mx_sc_job_check(cfg, j);
    if (e.empty() && (j.M > TILE_FIELD_MAX - ARR_R || j.N > TILE_FIELD_MAX - ARR_C || j.K > TILE_FIELD_MAX - ARR_L))
        e = "M, N, K must fit the controller's 32-bit descriptor fields";
    if (e.empty() && j.scaled && mx_sc_k_per_scale(j) / ARR_L > 255) e = "block K extent / lanes must fit 8 bits (sps)";
    if (e.empty()) {
        std::string from;
        if (mx_sc_load_operands("mxsim-cosim-array", data_dir, tpath, g, seed + gi, af, bf, &from)) {
            return 2;
        }
        from_note = from.empty() ? "" : "  (" + from + " from --data)";
        e = mx_sc_quantize(cfg, af.data(), bf.data(), j);
    }
    if (!e.empty()) { fprintf(stderr, "mxsim-cosim-array: %s:%d: %s\n", tpath, g.line, e.c_str()); return 2; }
    const double tc0 = now_s(), cc0 = cpu_s();
    mx_sc_c_outputs(cfg, j, expect);
    x.t_core += now_s() - tc0;
    x.cpu_core += cpu_s() - cc0;
    tile_pack(j, ARR_R, ARR_C, ARR_L, cfg.mxsf_fp5_bias, x.out_fmt, d, sram);
    if ((long long)sram.a[0].size() / ARR_L > TILE_FIELD_MAX || (long long)sram.b[0].size() / ARR_L > TILE_FIELD_MAX) {
        fprintf(stderr, "mxsim-cosim-array: %s:%d: operands exceed the 32-bit SRAM address space\n", tpath, g.line);
        return 2;
    }
    return 0;
}

/* GEMM gi of the trace (repetition rep): operands, SRAM image, the RTL
 * and its C twin in lock step cycle by cycle, then outputs, codes/scales
 * and cycles against the C core and the schedules.  The run's rc: 0, 1
 * mismatch (reported), 2 bad input. */
/* The folds of a GEMM in the controller's order (the one fold schedule,
 * mx_fold_at), and per column the folds whose output blocks it will carry. */
static void fold_queues(const mx_arch_config &cfg, const mx_sc_job &j, std::vector<fold> &folds,
                        std::vector<std::deque<size_t>> &colq)
{
    for (long long f = 0, nf = mx_fold_count(&cfg, j.M, j.N, j.K); f < nf; f++) {
        mx_fold fo;
        mx_fold_at(&cfg, j.M, j.N, j.K, f, &fo);
        folds.push_back({fo.r0, fo.c0, fo.rows, fo.cols});
    }
    for (size_t f = 0; f < folds.size(); f++)
        for (int c = 0; c < folds[f].cl; c++) colq[(size_t)c].push_back(f);
}

/* Two reset cycles of the RTL with the idle inputs (counted in the run's cycles). */
static void reset_rtl(ca_run &x, const tile_cycle_in &in)
{
    x.top->rst_ni = 0;
    rtl_tile::drive(x.top, in);
    for (int k = 0; k < 2; k++) {
        x.top->clk_i = 0; x.top->eval();
        if (x.fst) x.fst->dump(x.vtime);
        x.top->clk_i = 1; x.top->eval();
        if (x.fst) x.fst->dump(x.vtime + 5);
        x.vtime += 10;
    }
    x.top->rst_ni = 1;
    x.run_cycles += 2;
}

/* The first difference between the C register model's and the RTL's
 * outputs of one cycle (field NULL: none), in the order a reader checks
 * them: controller state, SRAM reads, issue, each PE's done and result, the
 * output blocks. */
struct cycle_diff { const char *field = nullptr; int r = -1, c = -1; uint64_t exp = 0, act = 0; };
static cycle_diff compare_cycle(const tile_cycle_out &mo, const tile_cycle_out &ro, const tile_desc &d,
                                array_ctrl_twin &model, const std::vector<const uint32_t *> &pe_q, bool pe_visible,
                                int out_fmt)
{
    cycle_diff x;
    auto diff = [&](const char *field, int r, int c, uint64_t e, uint64_t a) {
        x.field = field; x.r = r; x.c = c; x.exp = e; x.act = a;
        return x;
    };
    if (mo.busy != ro.busy) return diff("busy", -1, -1, (uint64_t)mo.busy, (uint64_t)ro.busy);
    if (mo.done != ro.done) return diff("done", -1, -1, (uint64_t)mo.done, (uint64_t)ro.done);
    if (mo.rd != ro.rd) return diff("sram rd", -1, -1, (uint64_t)mo.rd, (uint64_t)ro.rd);
    if (mo.rd && mo.a_addr != ro.a_addr) return diff("sram a_addr", -1, -1, mo.a_addr, ro.a_addr);
    if (mo.rd && mo.b_addr != ro.b_addr) return diff("sram b_addr", -1, -1, mo.b_addr, ro.b_addr);
    if (mo.rd && d.scaled && mo.as_addr != ro.as_addr) return diff("sram as_addr", -1, -1, mo.as_addr, ro.as_addr);
    if (mo.rd && d.scaled && mo.bs_addr != ro.bs_addr) return diff("sram bs_addr", -1, -1, mo.bs_addr, ro.bs_addr);
    if (mo.issue != ro.issue) return diff("issue", -1, -1, (uint64_t)mo.issue, (uint64_t)ro.issue);
    for (int r = 0; r < ARR_R; r++)
        for (int c = 0; c < ARR_C; c++) {
            const size_t i = (size_t)(r * ARR_C + c);
            if (mo.pe_done[i] != ro.pe_done[i]) return diff("pe_done", r, c, (uint64_t)mo.pe_done[i], (uint64_t)ro.pe_done[i]);
        }
    /* each PE's own result the cycle it appears (out_valid_o = pe_done, just compared) */
    for (int i = 0; i < ARR_R * ARR_C && pe_visible; i++)
        if (mo.pe_done[(size_t)i]) {
            const int r = i / ARR_C, c = i % ARR_C;
            const uint32_t mv = model.pe_value(r, c), rv = *pe_q[(size_t)i];
            if (mv != rv) return diff("PE result (u_pe.out_o)", r, c, mv, rv);
        }
    for (int c = 0; c < ARR_C; c++) {
        if (mo.blk_valid[(size_t)c] != ro.blk_valid[(size_t)c])
            return diff("blk_valid", -1, c, (uint64_t)mo.blk_valid[(size_t)c], (uint64_t)ro.blk_valid[(size_t)c]);
        if (!mo.blk_valid[(size_t)c]) continue;
        for (int r = 0; r < ARR_R; r++) {
            const size_t i = (size_t)(c * ARR_R + r);
            if (mo.vals[i] != ro.vals[i]) return diff("blk_vals (FP32)", r, c, mo.vals[i], ro.vals[i]);
            if (out_fmt >= 0 && mo.codes[i] != ro.codes[i]) return diff("blk_codes", r, c, mo.codes[i], ro.codes[i]);
        }
        for (int i = 0; i < ARR_S && out_fmt >= 0; i++)
            if (mo.scales[(size_t)(c * ARR_S + i)] != ro.scales[(size_t)(c * ARR_S + i)])
                return diff("blk_scale", i * ARR_TR, c, mo.scales[(size_t)(c * ARR_S + i)], ro.scales[(size_t)(c * ARR_S + i)]);
    }
    return x;
}

/* The output blocks taken this cycle (valid and ready), placed by the fold
 * at the head of their column's queue.  0, or 1 after a message. */
static int collect_blocks(const tile_cycle_out &mo, const tile_cycle_in &in, const std::vector<fold> &folds,
                          std::vector<std::deque<size_t>> &colq, const mx_sc_job &j, long long cyc,
                          std::vector<uint32_t> &got, std::vector<int> &have, std::vector<uint8_t> &got_code,
                          std::vector<int> &got_scale)
{
    for (int c = 0; c < ARR_C; c++) {
        if (!(mo.blk_valid[(size_t)c] && in.blk_ready[(size_t)c])) continue;
        if (colq[(size_t)c].empty()) { fprintf(stderr, "mxsim-cosim-array: unexpected output block in column %d at cycle %lld\n", c, cyc); return 1; }
        const size_t fi = colq[(size_t)c].front();
        const fold &f = folds[fi];
        colq[(size_t)c].pop_front();
        const long long n = f.c0 + c;
        for (int r = 0; r < f.rl; r++) {
            const long long m = f.r0 + r;
            if (have[(size_t)(m * j.N + n)]) { fprintf(stderr, "mxsim-cosim-array: output (%lld, %lld) twice at cycle %lld\n", m, n, cyc); return 1; }
            got[(size_t)(m * j.N + n)] = mo.vals[(size_t)(c * ARR_R + r)];
            have[(size_t)(m * j.N + n)] = 1;
            got_code[(size_t)(m * j.N + n)] = mo.codes[(size_t)(c * ARR_R + r)];
            got_scale[(size_t)(m * j.N + n)] = mo.scales[(size_t)(c * ARR_S + r / ARR_TR)];
        }
    }
    return 0;
}

/* FNV-1a of one cycle's outputs, chained: the bench replays must
 * reproduce the checked run's. */
static uint64_t hash_cycle(const tile_cycle_out &o, uint64_t h)
{
    auto mix = [&h](uint64_t v) { h = (h ^ v) * 0x100000001b3ull; };
    mix((uint64_t)o.busy | (uint64_t)o.done << 1 | (uint64_t)o.rd << 2 | (uint64_t)o.issue << 3);
    mix(((uint64_t)o.a_addr << 32) | o.b_addr);
    for (size_t i = 0; i < o.pe_done.size(); i++) mix((uint64_t)o.pe_done[i]);
    for (size_t c = 0; c < o.blk_valid.size(); c++)
        if (o.blk_valid[c])
            for (int r = 0; r < ARR_R; r++) mix((uint64_t)o.vals[c * ARR_R + (size_t)r] << 8 | o.codes[c * ARR_R + (size_t)r]);
    return h;
}

static int run_gemm(ca_run &x, size_t gi, int rep)
{
    const char *cpath = x.o.cpath, *tpath = x.o.tpath, *fst_path = x.o.fst_path, *data_dir = x.o.data_dir;
    const unsigned long long seed = x.o.seed;
    const double bp = x.o.bp;
    const int quiet = x.o.quiet, progress = x.o.progress;
    const long long max_cycles = x.o.max_cycles;
    const std::string &bp_arg = x.o.bp_arg, &fault_arg = x.o.fault_arg;
    const mx_arch_config &cfg = x.cfg;
    const mx_trace &tr = x.tr;
    int &rc = x.rc;
    Vmx_array_ctrl *top = x.top;
    VerilatedFstC *fst = x.fst;
    uint64_t &vtime = x.vtime, &bp_rng = x.bp_rng;
    const int out_fmt = x.out_fmt, skip_ico = x.skip_ico;
    const std::vector<const uint32_t *> &pe_q = x.pe_q;
    const bool pe_visible = x.pe_visible;
    array_ctrl_twin &model = *x.model;
    ca_mismatch &mm = x.mm;
    long long &run_cycles = x.run_cycles, &cut_cyc = x.cut_cyc, &gemms_done = x.gemms_done;
    bool &cut = x.cut;
    size_t &cur_gi = x.cur_gi, &cut_gi = x.cut_gi;
    double &t_prog = x.t_prog, &t_rtl = x.t_rtl, &t_model = x.t_model;
    long long &total_cycles = x.total_cycles, &all_cycles = x.all_cycles;
    const mx_gemm &g = tr.gemms[gi];
    cur_gi = gi;
    /* per GEMM, so that --gemm I reruns GEMM I with the same back-pressure */
    bp_rng = (seed + gi) ^ 0xB4C4B4C4ull;
    mx_sc_job j;
    std::vector<uint32_t> expect;
    tile_desc d;
    tile_sram sram;
    std::string from_note;
    rc = prepare_gemm(x, gi, j, expect, d, sram, from_note);
    if (rc) return rc;
    std::vector<fold> folds;
    std::vector<std::deque<size_t>> colq(ARR_C);
    fold_queues(cfg, j, folds, colq);
    const long long t = (j.K + ARR_L - 1) / ARR_L;

    model.reset();
    tile_cycle_in in = tile_cycle_in_idle(d, ARR_R, ARR_C, ARR_L);
    reset_rtl(x, in);
    /* bench: record this GEMM's inputs and output hashes (first repetition) */
    const bool rec = x.o.repeat > 1 && rep == 0;
    uint64_t h_rtl = 0xcbf29ce484222325ull, h_model = h_rtl;
    if (rec) {
        x.rec_in.resize(tr.n);
        x.rec_hash_rtl.resize(tr.n);
        x.rec_hash_model.resize(tr.n);
        x.rec_in[gi].assign(1, in);
    }
    const uint64_t gemm_t0 = vtime;
    /* per PE: results seen in this GEMM (which fold's output is next) */
    std::vector<long long> pe_cnt((size_t)(ARR_R * ARR_C), 0);
    auto pe_fold = [&](int r, int c, long long k) -> long long { /* the k-th fold covering PE (r, c) */
        for (size_t f = 0; f < folds.size(); f++)
            if (r < folds[f].rl && c < folds[f].cl && k-- == 0) return (long long)f;
        return -1;
    };

    std::vector<uint32_t> got((size_t)(j.M * j.N), 0);
    std::vector<int> have((size_t)(j.M * j.N), 0);
    std::vector<uint8_t> got_code((size_t)(j.M * j.N), 0); /* each output's code and block scale */
    std::vector<int> got_scale((size_t)(j.M * j.N), -1);
    long long cyc = 0, first_issue = -1, last_pe_done = -1;
    long long blocked = 0; /* cycles in which some output block was valid and not ready */
    const long long limit = 64 + (long long)folds.size() * (t + ARR_R + ARR_C + 16) * (bp > 0 ? 50 : 2);
    tile_cycle_out mo, ro;
    for (;;) {
        if (max_cycles >= 0 && run_cycles >= max_cycles) {
            cut = true;
            cut_gi = gi;
            cut_cyc = cyc;
            break;
        }
        if (progress && now_s() - t_prog >= 0.5) {
            x.show_progress(gi, false);
            t_prog = now_s();
        }
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
        if (rec) {
            x.rec_in[gi].push_back(in);
            h_rtl = hash_cycle(ro, h_rtl);
            h_model = hash_cycle(mo, h_model);
        }
        /* compare this cycle's outputs */
        auto fail = [&](const char *field, int r, int c, uint64_t exp, uint64_t act) {
            fprintf(stderr,
                    "MISMATCH cycle %lld (GEMM %zu '%s', %s:%d): PE row %d column %d: %s expected 0x%llx actual 0x%llx\n",
                    cyc, gi, g.name, tpath, g.line, r, c, field, (unsigned long long)exp, (unsigned long long)act);
            rc = 1;
            mm.cyc = cyc;
            mm.field = field;
            mm.r = r;
            mm.c = c;
            mm.exp = exp;
            mm.act = act;
            /* the output involved: a block's at the head of column c, else the PE's next result */
            if (c >= 0 && r >= 0 && !strncmp(field, "blk_", 4) && !colq[(size_t)c].empty()) mm.fold = (long long)colq[(size_t)c].front();
            else if (c >= 0 && r >= 0) mm.fold = pe_fold(r, c, pe_cnt[(size_t)(r * ARR_C + c)]);
        };
        const cycle_diff df = compare_cycle(mo, ro, d, model, pe_q, pe_visible, out_fmt);
        if (df.field) fail(df.field, df.r, df.c, df.exp, df.act);
        if (rc == 0 && mo.overrun != ro.overrun) fail("overrun", -1, -1, (uint64_t)mo.overrun, (uint64_t)ro.overrun);
        if (rc == 0 && mo.overrun) { fprintf(stderr, "mxsim-cosim-array: controller bug: shadow overrun at cycle %lld\n", cyc); rc = 1; }
        if (rc) break;
        if (cyc > 0 && mo.done && !mo.busy) { vtime += 10; break; }
        if (mo.issue && first_issue < 0) first_issue = cyc;
        for (int c = 0; c < ARR_C; c++)
            if (mo.blk_valid[(size_t)c] && !in.blk_ready[(size_t)c]) { blocked++; break; }
        for (int i = 0; i < ARR_R * ARR_C; i++)
            if (mo.pe_done[(size_t)i]) { last_pe_done = cyc; pe_cnt[(size_t)i]++; }
        rc = collect_blocks(mo, in, folds, colq, j, cyc, got, have, got_code, got_scale);
        if (rc) break;
        t0 = now_s();
        model.tick();
        t1 = now_s();
        top->clk_i = 1;
        mx_vl_skip_ico = skip_ico;
        top->eval();
        mx_vl_skip_ico = 0;
        t2 = now_s();
        t_model += t1 - t0;
        t_rtl += t2 - t1;
        if (fst) fst->dump(vtime + 5);
        vtime += 10;
        /* synchronous SRAM: this cycle's read address, data next cycle (0 if no read) */
        tile_sram_respond(sram, mo, in);
        cyc++;
        run_cycles++;
    }
    if (rc == 1 && mm.cyc >= 0)
        report_mismatch(cfg, cpath, tpath, seed, bp_arg, fault_arg, data_dir, fst_path, gi, g, j, from_note, expect,
                        mm.cyc, mm.r, mm.c, mm.fold >= 0 ? &folds[(size_t)mm.fold] : nullptr,
                        mm.r >= 0 && mm.c >= 0 ? model.pe_value(mm.r, mm.c) : 0,
                        mm.r >= 0 && mm.c >= 0 && pe_visible ? pe_q[(size_t)(mm.r * ARR_C + mm.c)] : nullptr, gemm_t0);
    if (rc || cut) return rc;
    if (rec) {
        x.rec_hash_rtl[gi] = h_rtl;
        x.rec_hash_model[gi] = h_model;
    }
    const long long want = j.M * j.N;
    for (long long k = 0; k < want; k++)
        if (!have[(size_t)k] || got[(size_t)k] != expect[(size_t)k]) {
            fprintf(stderr, "MISMATCH GEMM %zu '%s' (%s:%d): output (%lld, %lld): array 0x%08x%s, mx_pe_dot 0x%08x\n", gi, g.name,
                    tpath, g.line, k / j.N, k % j.N, got[(size_t)k], have[(size_t)k] ? "" : " (missing)", expect[(size_t)k]);
            rc = 1;
            break;
        }
    if (rc == 0 && out_fmt >= 0)
        rc = check_blocks(j, out_fmt, cfg.mxsf_fp5_bias, expect, got_code, got_scale, gi, g, tpath);
    if (rc) return rc;
    rc = check_gemm_cycles(x, gi, rep, j, g, cyc, first_issue, last_pe_done, blocked);
    if (rc) return rc;
    total_cycles += cyc;
    gemms_done++;
    all_cycles += cyc + 2; /* + reset */
    if (!quiet && rep == 0)
        printf("%-10s %4lldx%-4lldx%-4lld %-11s folds %3zu  compute %6lld (arch %6lld)  start-to-done %6lld cycles  %lld outputs%s equal%s\n",
               g.name, g.M, g.N, g.K, mx_sc_fmt_pair(j).c_str(), folds.size(), last_pe_done - first_issue,
               mx_tile_compute_cycles(&cfg, j.M, j.N, j.K), cyc, want,
               out_fmt >= 0 ? " + codes/scales" : "", from_note.c_str());
    return rc;
}

/* Bench (--repeat N): the RTL alone, then the C register model alone, on
 * the inputs recorded in the checked run, N times each, under this
 * thread's CPU time; each replay must give the checked run's outputs (hash).
 * A recorded GEMM is its idle reset input, then one input per cycle; the
 * last cycle (done seen) has no clock edge, as in run_gemm.  0, or 1 after a
 * message. */
static int bench_replay(ca_run &x)
{
    const long long saved_run_cycles = x.run_cycles;
    tile_cycle_out o;
    double c0 = cpu_s();
    for (int rep = 0; rep < x.o.repeat; rep++)
        for (size_t gi = x.g_lo; gi < x.g_hi; gi++) {
            const std::vector<tile_cycle_in> &ins = x.rec_in[gi];
            reset_rtl(x, ins[0]);
            uint64_t h = 0xcbf29ce484222325ull;
            for (size_t k = 1; k < ins.size(); k++) {
                rtl_tile::drive(x.top, ins[k]);
                x.top->clk_i = 0;
                x.top->eval();
                rtl_tile::read(x.top, o);
                h = hash_cycle(o, h);
                if (k + 1 == ins.size()) break;
                x.top->clk_i = 1;
                mx_vl_skip_ico = x.skip_ico;
                x.top->eval();
                mx_vl_skip_ico = 0;
            }
            if (h != x.rec_hash_rtl[gi]) {
                fprintf(stderr, "mxsim-cosim-array: bench: the RTL replay of GEMM %zu differs from its checked run\n", gi);
                return 1;
            }
            x.cpu_cycles += (long long)ins.size() + 1; /* 2 reset cycles + cycles 0..done-1, as all_cycles */
        }
    x.cpu_rtl = cpu_s() - c0;
    c0 = cpu_s();
    for (int rep = 0; rep < x.o.repeat; rep++)
        for (size_t gi = x.g_lo; gi < x.g_hi; gi++) {
            const std::vector<tile_cycle_in> &ins = x.rec_in[gi];
            x.model->reset();
            uint64_t h = 0xcbf29ce484222325ull;
            for (size_t k = 1; k < ins.size(); k++) {
                x.model->comb(ins[k], o);
                h = hash_cycle(o, h);
                if (k + 1 < ins.size()) x.model->tick();
            }
            if (h != x.rec_hash_model[gi]) {
                fprintf(stderr, "mxsim-cosim-array: bench: the C model replay of GEMM %zu differs from its checked run\n", gi);
                return 1;
            }
        }
    x.cpu_model = cpu_s() - c0;
    x.run_cycles = saved_run_cycles;
    return 0;
}

/* The run's closing lines (cut, range, equality, back-pressure, engine, bench). */
static int print_summary(ca_run &x)
{
    const char *tpath = x.o.tpath;
    const double bp = x.o.bp;
    const int repeat = x.o.repeat, engine = x.o.engine, progress = x.o.progress;
    const long long max_cycles = x.o.max_cycles, gemm_only = x.o.gemm_only;
    const mx_trace &tr = x.tr;
    const size_t g_lo = x.g_lo, g_hi = x.g_hi;
    int &rc = x.rc;
    const size_t cur_gi = x.cur_gi, cut_gi = x.cut_gi, n_run = x.n_run;
    const bool cut = x.cut;
    const long long cut_cyc = x.cut_cyc, gemms_done = x.gemms_done, total_cycles = x.total_cycles, all_cycles = x.all_cycles;
    const long long bp_gemms = x.bp_gemms, bp_exact = x.bp_exact, bp_extra = x.bp_extra, bp_blocked = x.bp_blocked;
    const long long eng_tiles = x.eng_tiles, eng_bad = x.eng_bad;
    const double t_rtl = x.t_rtl, t_model = x.t_model, t_core = x.t_core;
    auto show_progress = [&x](size_t i, bool final) { x.show_progress(i, final); };
    if (progress && cur_gi != (size_t)-1 && cur_gi >= g_lo) show_progress(cur_gi, true);
    if (rc == 0 && cut) {
        const mx_gemm &g = tr.gemms[cut_gi];
        printf("mxsim-cosim-array: CUT by --max-cycles %lld: GEMM %zu '%s' (%s:%d) stopped at its cycle %lld (its outputs, "
               "start-to-done and codes not checked)%s; %lld of %zu GEMMs compared in full\n",
               max_cycles, cut_gi, g.name, tpath, g.line, cut_cyc,
               cut_gi + 1 < g_hi ? (", GEMMs " + std::to_string(cut_gi + 1) + ".." + std::to_string(g_hi - 1) + " not run").c_str() : "",
               gemms_done, n_run);
    }
    if (rc == 0 && (g_lo > 0 || g_hi < tr.n))
        printf("mxsim-cosim-array: %s: GEMMs %zu..%zu of %zu run (%s)\n", tpath, g_lo, g_hi - 1, tr.n,
               gemm_only >= 0 ? "--gemm" : "--gemms");
    if (rc == 0) {
        printf("mxsim-cosim-array: %s, %lld GEMMs, %dx%d array L=%d, back-pressure %.2f: RTL == C model, %lld cycles%s\n", tpath,
               gemms_done / repeat, ARR_R, ARR_C, ARR_L, bp, total_cycles + (cut ? cut_cyc : 0), cut ? " (cut)" : "");
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
        if (repeat > 1) {
            /* per CPU-second: RTL and C model replayed alone, the C core's values, the whole checked co-simulation */
            printf("bench-array %2dx%-2d L=%d: %lld cycles x %d runs, cycles per CPU-second: RTL (Verilated) %9.0f | "
                   "C register model %9.0f | C core values (mx_pe_dot) %10.0f | whole co-simulation %9.0f\n",
                   ARR_R, ARR_C, ARR_L, all_cycles / repeat, repeat, (double)x.cpu_cycles / x.cpu_rtl,
                   (double)x.cpu_cycles / x.cpu_model, (double)all_cycles / x.cpu_core, (double)all_cycles / x.cpu_cosim);
            printf("bench-array %2dx%-2d L=%d: wall, in lock step: RTL (Verilated) %9.0f cycles/s | C register model %9.0f cycles/s | "
                   "C core values %10.0f array-cycles/s\n",
                   ARR_R, ARR_C, ARR_L, (double)all_cycles / t_rtl, (double)all_cycles / t_model, (double)all_cycles / t_core);
        }
    }
    return rc;
}

int main(int argc, char **argv)
{
    ca_opts o;
    const int pa = parse_args(argc, argv, o);
    if (pa >= 0) return pa;
    ca_run x(o);
    if (setup_run(x) != 0) return 2;
    if (setup_rtl(x) != 0) {
        mx_trace_free(&x.tr);
        return 2;
    }
    x.t_start = x.t_prog = now_s();
    x.model.reset(new array_ctrl_twin(x.acfg));
    const double cosim0 = cpu_s();
    for (int rep = 0; rep < o.repeat && x.rc == 0; rep++)
        for (size_t gi = x.g_lo; gi < x.g_hi && x.rc == 0 && !x.cut; gi++) x.rc = run_gemm(x, gi, rep);
    x.cpu_cosim = cpu_s() - cosim0;
    if (x.rc == 0 && !x.cut && o.repeat > 1) x.rc = bench_replay(x);
    const int rc = print_summary(x);
    if (x.fst) { x.fst->close(); delete x.fst; }
    x.top->final();
    delete x.top;
    mx_trace_free(&x.tr);
    return rc;
}
