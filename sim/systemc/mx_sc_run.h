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

/* One job per trace row: formats from the row or the config (A and B must map
 * to the same PE format: mxsf, mxfp8_e4m3/e5m2/e2m5, mxint8 or bf16), block
 * shape from the config, seeded Gaussian operands (seed + row index, A then B,
 * mx_sc_random_operands), quantized on the host side.  a_f32/b_f32 (may be
 * NULL) receive the FP32 operands.  "" or "TRACE:LINE: message". */
std::string mx_sc_build_jobs(const mx_arch_config &cfg, const mx_trace &tr, const char *trace_path,
                             uint64_t seed, std::vector<mx_sc_job> &jobs,
                             std::vector<std::vector<float>> *a_f32,
                             std::vector<std::vector<float>> *b_f32);

/* The counters table of `mxsim run` (timing columns), from per-row stats of
 * one instance each; rows are multiplied by their count. */
void mx_sc_print_report(FILE *f, const mx_arch_config &cfg, const char *trace_path, const mx_trace &tr,
                        const std::vector<mx_stats> &per_instance, const char *backend);

#endif
