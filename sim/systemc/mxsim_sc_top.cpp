/*
 * mxsim_sc_top.cpp — example SystemC top: loads a config and a trace, builds
 * the platform (CPU initiator, accelerator, memory), runs every GEMM of the
 * trace through the accelerator's registers and prints the counters of
 * `mxsim run`.
 *
 *   mxsim_sc_top -c CONFIG.yaml -t TRACE [--seed S] [--data DIR] [--backend c|rtl] [--rq FMT|off] [--dump FILE]
 *
 * Exit status: 0, 1 if the accelerator reported an error, 2 bad input.
 */
#include "mx_sc_run.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "config_yaml.h"

static const char PROG[] = "mxsim_sc_top";

static void usage(FILE *f)
{
    fprintf(f, "usage: mxsim_sc_top -c CONFIG.yaml -t TRACE [--seed S] [--data DIR] [--backend c|rtl] [--rq FMT|off]\n"
               "                    [--dump FILE]\n"
               "  --seed S      operand data seed (GEMM i uses S + i; default 1)\n"
               "  --data DIR    operands from DIR/NAME.PHASE.a.npy (M x K) and .b.npy (K x N) where present\n"
               "  --backend B   c: the C core (default); rtl: the Verilated array\n"
               "  --rq FMT      re-quantize the outputs (FORMAT.RQ) to mxsf, e4m3, e5m2, e2m5 or int8;\n"
               "                default: the config's format.out when it is one of these, else off\n"
               "  --dump FILE   write every output as 'gemm row col fp32-hex [code-hex scale-hex]' lines\n");
}

int sc_main(int argc, char **argv)
{
    const char *cpath = nullptr, *tpath = nullptr, *dump = nullptr, *backend = "c", *rq = nullptr, *data_dir = nullptr;
    unsigned long long seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const bool has = i + 1 < argc;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        else if (!strcmp(a, "-c") && has) cpath = argv[++i];
        else if (!strcmp(a, "-t") && has) tpath = argv[++i];
        else if (!strcmp(a, "--dump") && has) dump = argv[++i];
        else if (!strcmp(a, "--backend") && has) backend = argv[++i];
        else if (!strcmp(a, "--rq") && has) rq = argv[++i];
        else if (!strcmp(a, "--data") && has) data_dir = argv[++i];
        else if (!strcmp(a, "--seed") && has) {
            uint64_t s;
            if (mx_parse_seed(argv[++i], &s) != 0) {
                mx_print_error(PROG, "option '--seed': must be an integer 0..18446744073709551615, got '%s'", argv[i]);
                return 2;
            }
            seed = s;
        } else {
            mx_print_error(PROG, "unknown option or missing value: '%s' (--help)", a);
            return 2;
        }
    }
    if (!cpath || !tpath) { mx_print_error(PROG, "-c CONFIG and -t TRACE are required (--help)"); return 2; }
    if (strcmp(backend, "c") && strcmp(backend, "rtl")) {
        mx_print_error(PROG, "option '--backend': must be c or rtl, not '%s'", backend);
        return 2;
    }
    char err[700], epath[MX_ARCH_PATH_MAX];
    /* before the run: a dump that cannot be written is bad input, not a late failure */
    if (dump && mx_check_output_file("--dump", dump, err, sizeof err) != 0) { mx_print_error(PROG, "%s", err); return 2; }
    mx_arch_config cfg;
    mx_energy_table et;
    if (mx_config_load(cpath, &cfg, epath, err, sizeof err) != 0 ||
        mx_config_dram(cpath, &cfg, err, sizeof err) != 0 || /* memory.dram, after every override */
        mx_energy_load(epath, &et, err, sizeof err) != 0) {
        mx_print_error(PROG, "%s", err);
        return 2;
    }
    if (cfg.dataflow != MX_DATAFLOW_OS) {
        fprintf(stderr, "mxsim_sc_top: %s: key 'arch.dataflow': the SystemC accelerator is output-stationary (os)\n", cpath);
        return 2;
    }
    mx_trace tr = {nullptr, 0};
    if (mx_trace_load(tpath, &tr, err, sizeof err) != 0) {
        mx_print_error(PROG, "%s", err);
        return 2;
    }
    std::vector<mx_sc_job> jobs;
    if (mx_sc_build_jobs("mxsim_sc_top", cfg, tr, tpath, seed, data_dir, jobs, nullptr, nullptr)) {
        mx_trace_free(&tr);
        return 2;
    }
    /* FORMAT.RQ: --rq, else the config's output format if the re-quantizer has it */
    int out_fmt = -1;
    mx_pe_fmt of;
    bool os;
    if (rq && strcmp(rq, "off")) {
        if (mx_pe_fmt_parse(rq, &of) != 0 || of == MX_PE_BF16) {
            fprintf(stderr, "mxsim_sc_top: option '--rq': must be mxsf, e4m3, e5m2, e2m5, int8 or off, not '%s'\n", rq);
            mx_trace_free(&tr);
            return 2;
        }
        out_fmt = of;
    } else if (!rq && mx_sc_fmt_from_name(cfg.out_format, &of, &os) == 0 && os && of != MX_PE_BF16) {
        out_fmt = of;
    }
    for (mx_sc_job &j : jobs) j.out_fmt = out_fmt;
    std::unique_ptr<mx_sc_backend> be;
    if (!strcmp(backend, "rtl")) {
        std::string berr;
        be = mx_sc_make_rtl_backend(cfg, berr);
        if (!be) {
            fprintf(stderr, "mxsim_sc_top: option '--backend rtl': %s\n", berr.c_str());
            mx_trace_free(&tr);
            return 2;
        }
    } else {
        be.reset(new mx_sc_c_backend);
    }
    mx_sc_platform top("top", cfg, std::move(be), jobs);
    mx_sc_run_until_finished({&top});
    int rc = 0;
    std::vector<mx_stats> per;
    for (size_t i = 0; i < top.results().size(); i++) {
        const mx_sc_result &r = top.results()[i];
        if (!r.error.empty()) {
            fprintf(stderr, "mxsim_sc_top: %s:%d: accelerator error: %s\n", tpath, tr.gemms[i].line, r.error.c_str());
            rc = 1;
            break;
        }
        mx_stats s = r.stats;
        if (mx_energy_apply(&cfg, &et, &s, err, sizeof err) != 0) {
            fprintf(stderr, "mxsim_sc_top: %s\n", err);
            rc = 2;
            break;
        }
        per.push_back(s);
    }
    if (rc == 0 && !top.finished()) {
        fprintf(stderr, "mxsim_sc_top: simulation stopped before the last GEMM\n");
        rc = 1;
    }
    if (rc == 0) {
        mx_sc_print_report(stdout, cfg, tpath, tr, per, top.accel.backend_name());
        printf("SystemC time %s for one instance of each GEMM\n", top.finish_time().to_string().c_str());
        if (out_fmt >= 0) {
            long long br = 0, bc = 0;
            if (!jobs.empty()) mx_sc_out_block(cfg.rows, cfg.cols, jobs[0], br, bc);
            printf("outputs re-quantized (FORMAT.RQ) to %s: codes and E8M0 scales (blocks of %lld rows x %lld columns) written to memory\n",
                   mx_pe_fmt_name((mx_pe_fmt)out_fmt), br, bc);
        }
        if (dump) {
            FILE *f = fopen(dump, "w");
            if (!f) {
                fprintf(stderr, "mxsim_sc_top: option '--dump': cannot write '%s': %s\n", dump, strerror(errno));
                rc = 2;
            } else {
                for (size_t i = 0; i < top.results().size(); i++) {
                    const mx_sc_result &r = top.results()[i];
                    const long long N = jobs[i].N;
                    for (size_t k = 0; k < r.out.size(); k++) {
                        const long long row = (long long)k / N, col = (long long)k % N;
                        fprintf(f, "%zu %lld %lld %08x", i, row, col, r.out[k]);
                        const size_t si = mx_sc_out_scale_index(cfg.rows, cfg.cols, jobs[i], row, col);
                        if (k < r.codes.size() && si < r.scales.size()) fprintf(f, " %02x %02x", r.codes[k], r.scales[si]);
                        fputc('\n', f);
                    }
                }
                if (fclose(f) != 0) rc = 2;
            }
        }
    }
    mx_trace_free(&tr);
    return rc;
}
