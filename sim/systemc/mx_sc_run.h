/*
 * mx_sc_run.h — trace -> platform jobs and the counters report, shared by the
 * example top (mxsim_sc_top) and the SystemC regression (mxsim_sc_test).
 */
#ifndef MX_SC_RUN_H
#define MX_SC_RUN_H

#include "mx_sc_platform.h"

extern "C" {
#include "arch/mx_trace.h"
}

/* One job per trace row: formats from the row or the config
 * (mx_sc_job_from_gemm), block shape from the config, operands seeded
 * Gaussian (seed + row index) or from data_dir's .npy files
 * (mx_sc_load_operands; data_dir may be NULL), quantized on the host side.
 * a_f32/b_f32 (may be NULL) receive the FP32 operands.  0, or 2 after one
 * error line "PROG: ..." on stderr. */
int mx_sc_build_jobs(const char *prog, const mx_arch_config &cfg, const mx_trace &tr, const char *trace_path,
                     uint64_t seed, const char *data_dir, std::vector<mx_sc_job> &jobs,
                     std::vector<std::vector<float>> *a_f32, std::vector<std::vector<float>> *b_f32);

/* The counters table of `mxsim run` (timing columns), from per-row stats of
 * one instance each; rows are multiplied by their count. */
void mx_sc_print_report(FILE *f, const mx_arch_config &cfg, const char *trace_path, const mx_trace &tr,
                        const std::vector<mx_stats> &per_instance, const char *backend);

#endif
