/*
 * mx_sc_gemm.h — what the SystemC platform's back-ends share: the GEMM job
 * as the accelerator reads it from memory (descriptor + quantized operands in
 * the host layout of docs/SYSTEMC.md), the host-side quantizer that produces
 * that layout, and the C-core computation (mx_pe_dot per output, cycles from
 * the cycle engine).  A thin C++ layer over the C API.
 */
#ifndef MX_SC_GEMM_H
#define MX_SC_GEMM_H

#include <cstdint>
#include <string>
#include <vector>

extern "C" {
#include "arch/mx_arch.h"
#include "units/mx_pe.h"
}

struct mx_sc_job {
    long long M = 0, N = 0, K = 0;
    mx_pe_fmt fmt = MX_PE_MXSF;   /* A's element format                             */
    mx_pe_fmt fmt_b = MX_PE_MXSF; /* B's element format (BF16 mixes with nothing)   */
    bool scaled = true;           /* E8M0 block scales (MX) for both; false: unit scales */
    mx_phase phase = MX_PHASE_FWD;
    int block = 32;               /* 1-D block along K (tile_rows == 0)            */
    int tile_rows = 0, tile_cols = 0;
    std::vector<uint16_t> a_codes;  /* M x K row-major                             */
    std::vector<uint8_t> a_scales;  /* mx_block_scale_shape of A (axis K)          */
    std::vector<uint16_t> b_codes;  /* K x N row-major                             */
    std::vector<uint8_t> b_scales;  /* mx_block_scale_shape of B (axis 0 = K)      */
    int out_fmt = -1;               /* re-quantizer format of the outputs (mx_pe_fmt
                                       except BF16); -1: FP32 outputs only           */
    bool rq_tile = false;           /* re-quantization block: the 2-D tile (true;
                                       mx_sc_out_block) or R outputs of a column      */
};

/* Name of a PE format as the arch model spells it: with block scales ("mxsf",
 * "mxfp8_e4m3", ..., "mxint8") or without ("fp8_e4m3", ..., "int8"; "bf16"). */
const char *mx_sc_fmt_arch_name(mx_pe_fmt f, bool scaled);
/* And back: 0 with *f, *scaled, or -1 if the PE cannot run the format. */
int mx_sc_fmt_from_name(const char *name, mx_pe_fmt *f, bool *scaled);

/* Bytes of one element code in memory (1, or 2 for BF16) and sizes of the
 * scale tensors (0 for BF16). */
int mx_sc_code_bytes(mx_pe_fmt f);
size_t mx_sc_a_scale_count(const mx_sc_job &j);
size_t mx_sc_b_scale_count(const mx_sc_job &j);

/* Elements of K per scale as the PE sees them (A and B must agree). */
int mx_sc_k_per_scale(const mx_sc_job &j);

/* A job's descriptor (shape, formats, phase, block shape; no operands) from a
 * trace row: A and B formats from the row or the config, both with block
 * scales (mxsf, mxfp8_*, mxint8) or both without (fp8_*, int8; bf16 only
 * with bf16).  "" or what is wrong with the formats. */
std::string mx_sc_job_from_gemm(const mx_arch_config &c, const mx_gemm &g, mx_sc_job &j);

/* "mxsf", or "mxsf x e4m3" when B's format differs (for reports). */
std::string mx_sc_fmt_pair(const mx_sc_job &j);

/* Checks shape, block shape and lanes against the config.  "" if fine. */
std::string mx_sc_job_check(const mx_arch_config &c, const mx_sc_job &j);

/* Host side: quantizes FP32 A (M x K) and B (K x N) into j's codes/scales with
 * the config's block shape, scale rule and rounding.  "" or an error. */
std::string mx_sc_quantize(const mx_arch_config &c, const float *a, const float *b, mx_sc_job &j);

/* The PE configuration for a job. */
mx_pe_config mx_sc_pe_config(const mx_arch_config &c, const mx_sc_job &j);

/* Per-K-block scales of row m of A and column n of B, as mx_pe_dot wants them. */
void mx_sc_row_scales(const mx_sc_job &j, long long m, uint8_t *out);
void mx_sc_col_scales(const mx_sc_job &j, long long n, uint8_t *out);

/* Output values with the C core: out[m*N + n] = mx_pe_dot(row m, column n, acc 0). */
void mx_sc_c_outputs(const mx_arch_config &c, const mx_sc_job &j, std::vector<uint32_t> &out);

/* The re-quantization block of the array's output stage on a rows x cols
 * array: R = rows outputs along M of a column (rows x 1), or with j.rq_tile
 * the job's 2-D tile j.tile_rows x j.tile_cols (format.tile; it divides the
 * array, mx_array_config_from_arch), the R x C fold without one. */
void mx_sc_out_block(int rows, int cols, const mx_sc_job &j, long long &block_rows, long long &block_cols);

/* Layout of the re-quantized outputs' E8M0 scales (row-major): one per
 * block (mx_sc_out_block br x bc), ceil(M/br) x ceil(N/bc).  Count, and the
 * index of output (m, n)'s scale. */
size_t mx_sc_out_scale_count(int rows, int cols, const mx_sc_job &j);
size_t mx_sc_out_scale_index(int rows, int cols, const mx_sc_job &j, long long m, long long n);

/* Re-quantized outputs as the array's output stage forms them (rtl/mx_array_ctrl.sv):
 * blocks of mx_sc_out_block (the last ones padded with +0, as the RTL's
 * collector), encoded by mx_requant_comb in j.out_fmt.  codes: M x N
 * row-major, one byte each; scales: mx_sc_out_scale_count E8M0.  j.out_fmt must be >= 0. */
void mx_sc_requant_outputs(const mx_arch_config &c, const mx_sc_job &j, const std::vector<uint32_t> &vals,
                           std::vector<uint8_t> &codes, std::vector<uint8_t> &scales);

/* Counters of the GEMM from the cycle engine: mx_arch_gemm_timing on a copy of
 * c with engine = MX_ENGINE_CYCLE (= mx_arch_gemm_cycle; whatever c's
 * `engine` key says) and the job's block shape.  With c.dram_model (the
 * config's memory.dram, loaded by mx_config_dram) the engine's DRAM port is
 * the protocol model, else the bandwidth + latency channel. */
std::string mx_sc_timing(const mx_arch_config &c, const mx_sc_job &j, mx_stats &s);

/* FP32 operands of trace row g: seeded Gaussian (mx_sc_random_operands), each
 * replaced by DIR/NAME.PHASE.{a,b}.npy when that file exists (mx_operand_load,
 * sim/operand_data.h; data_dir may be NULL).  0, or 2 after one error line
 * "PROG: FILE: problem" on stderr.  *from (may be NULL): which came from files,
 * "", "A", "B" or "A, B". */
int mx_sc_load_operands(const char *prog, const char *data_dir, const char *trace_path, const mx_gemm &g,
                        uint64_t seed, std::vector<float> &a, std::vector<float> &b, std::string *from);

/* Seeded operand data: standard normal, A first then B (mx_dist_normal). */
void mx_sc_random_operands(uint64_t seed, long long M, long long N, long long K,
                           std::vector<float> &a, std::vector<float> &b);

#endif
