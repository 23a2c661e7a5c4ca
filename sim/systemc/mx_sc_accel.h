/*
 * mx_sc_accel.h — the MXSF accelerator as a SystemC/TLM-2.0 module.
 *
 *   regs (target socket)   32-bit registers of mx_sc_regs.h: a GEMM descriptor
 *                          (M, N, K, formats, block shape, seven addresses),
 *                          CTRL/STATUS and counters.  docs/SYSTEMC.md.
 *   mem  (initiator socket) operand reads and output writes (FP32, and with
 *                          FORMAT.RQ re-quantized codes and scales), one burst per
 *                          region, to any TLM-2.0 memory (mx_sc_memory).
 *   irq  (sc_out<bool>)    high while STATUS.DONE or STATUS.ERROR is set.
 *
 * On START the module reads the operands, hands the GEMM to its back-end and
 * finishes cycles x clock period later, cycles being the cycle engine's count
 * (mx_sc_timing: mx_arch_gemm_timing with engine = cycle, as `mxsim run
 * --engine cycle`, with the config's DRAM: memory.dram's protocol model or
 * the bandwidth + latency channel), for both back-ends; the RTL back-end's
 * own clock advances simulated time while it runs, and the interrupt comes
 * no earlier than its end.  The back-end is chosen at elaboration.
 */
#ifndef MX_SC_ACCEL_H
#define MX_SC_ACCEL_H

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <memory>
#include <string>
#include <vector>

#include "mx_sc_gemm.h"
#include "mx_sc_regs.h"

/* A back-end computes one GEMM: output FP32 bits (M x N), counters and, when
 * job.out_fmt >= 0, the re-quantized outputs in the layout of
 * mx_sc_requant_outputs (codes M x N, scales ceil(M / R) x N). */
class mx_sc_backend {
public:
    virtual ~mx_sc_backend() {}
    virtual const char *name() const = 0;
    /* "" on success, else a message (the accelerator reports ERROR/BACKEND). */
    virtual std::string run(const mx_arch_config &cfg, const mx_sc_job &job, std::vector<uint32_t> &out,
                            std::vector<uint8_t> &codes, std::vector<uint8_t> &scales, mx_stats &stats) = 0;
};

/* The C core: values from mx_pe_dot, counters from the cycle engine (mx_sc_timing), codes
 * and scales from mx_requant_comb (mx_sc_requant_outputs). */
class mx_sc_c_backend : public mx_sc_backend {
public:
    const char *name() const override { return "c"; }
    std::string run(const mx_arch_config &cfg, const mx_sc_job &job, std::vector<uint32_t> &out,
                    std::vector<uint8_t> &codes, std::vector<uint8_t> &scales, mx_stats &stats) override;
};

/* The Verilated array (mx_sc_rtl_backend.cpp); nullptr if not built in. */
std::unique_ptr<mx_sc_backend> mx_sc_make_rtl_backend(const mx_arch_config &cfg, std::string &err);

class mx_sc_accel : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<mx_sc_accel> regs;
    tlm_utils::simple_initiator_socket<mx_sc_accel> mem;
    sc_core::sc_out<bool> irq;

    SC_HAS_PROCESS(mx_sc_accel);
    mx_sc_accel(sc_core::sc_module_name nm, const mx_arch_config &cfg,
                std::unique_ptr<mx_sc_backend> backend);

    sc_core::sc_time clock_period() const { return period_; }
    const char *backend_name() const { return backend_->name(); }
    /* Full counters of the last GEMM and summed over all GEMMs (side channel for
     * the platform's report; the registers carry the main ones). */
    const mx_stats &last_stats() const { return last_; }
    const mx_stats &total_stats() const { return total_; }
    /* Message of the last ERROR. */
    const std::string &last_error() const { return err_msg_; }
    /* Simulated time the memory annotated for the last GEMM's transfers. */
    sc_core::sc_time last_memory_time() const { return mem_time_; }

private:
    mx_arch_config cfg_;
    std::unique_ptr<mx_sc_backend> backend_;
    sc_core::sc_time period_;
    uint32_t r_[MX_SC_REG_SPAN / 4] = {};
    bool busy_ = false, done_ = false, error_ = false;
    unsigned errcode_ = 0;
    std::string err_msg_;
    mx_stats last_{}, total_{};
    sc_core::sc_time mem_time_;
    sc_core::sc_event start_ev_, irq_ev_;

    void b_transport(tlm::tlm_generic_payload &p, sc_core::sc_time &delay);
    unsigned transport_dbg(tlm::tlm_generic_payload &p);
    bool reg_access(tlm::tlm_generic_payload &p);
    uint32_t reg_read(unsigned off) const;
    void reg_write(unsigned off, uint32_t v);
    uint64_t reg64(unsigned off) const { return (uint64_t)r_[off / 4] | ((uint64_t)r_[off / 4 + 1] << 32); }
    void set64(unsigned off, uint64_t v) { r_[off / 4] = (uint32_t)v; r_[off / 4 + 1] = (uint32_t)(v >> 32); }
    bool dma(tlm::tlm_command cmd, uint64_t addr, void *data, size_t len, sc_core::sc_time &delay);
    void fail(unsigned code, const std::string &msg);
    void worker();
    void irq_driver();
};

#endif
