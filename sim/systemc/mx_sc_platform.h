/*
 * mx_sc_platform.h — an example virtual platform: a CPU-like initiator that
 * programs the accelerator's registers, the accelerator, and one memory.
 *
 *   cpu (initiator) --> accel.regs      accel.mem --> memory.socket
 *   accel.irq --> irq (sc_signal)       the CPU thread waits on it
 *
 * The CPU thread runs a list of GEMM jobs (operands already quantized on the
 * host side, mx_sc_quantize): it writes them into memory through the memory's
 * back door, programs the descriptor over TLM, starts, waits for the
 * interrupt, reads STATUS and the counters, and collects the outputs (and the
 * re-quantized codes/scales when job.out_fmt >= 0, FORMAT.RQ).
 */
#ifndef MX_SC_PLATFORM_H
#define MX_SC_PLATFORM_H

#include "mx_sc_accel.h"
#include "mx_sc_memory.h"

struct mx_sc_result {
    mx_stats stats{};             /* the accelerator's full counters            */
    uint64_t reg_cycles = 0;      /* CYCLES register                            */
    uint64_t reg_macs = 0;        /* MACS register                              */
    sc_core::sc_time elapsed;     /* START write to interrupt                   */
    std::vector<uint32_t> out;    /* M x N FP32 bits read back from memory      */
    std::vector<uint8_t> codes;   /* re-quantized codes M x N (job.out_fmt >= 0) */
    std::vector<uint8_t> scales;  /* their E8M0 scales ceil(M / rows) x N        */
    std::string error;            /* non-empty: STATUS.ERROR and its message    */
};

class mx_sc_platform : public sc_core::sc_module {
public:
    tlm_utils::simple_initiator_socket<mx_sc_platform> cpu;
    mx_sc_memory memory;
    mx_sc_accel accel;
    sc_core::sc_signal<bool> irq;

    SC_HAS_PROCESS(mx_sc_platform);
    /* jobs must outlive the simulation. */
    mx_sc_platform(sc_core::sc_module_name nm, const mx_arch_config &cfg,
                   std::unique_ptr<mx_sc_backend> backend, const std::vector<mx_sc_job> &jobs);

    const std::vector<mx_sc_result> &results() const { return results_; }
    bool finished() const { return finished_; }
    /* Simulated time at which the CPU thread finished its last job. */
    sc_core::sc_time finish_time() const { return finish_time_; }

    /* Memory map of one job (same base addresses for every job). */
    struct layout { uint64_t a_codes, a_scales, b_codes, b_scales, out, out_codes, out_scales, end; };
    static layout layout_of(const mx_sc_job &j, int rows, int cols);

private:
    const std::vector<mx_sc_job> &jobs_;
    int rows_, cols_;
    std::vector<mx_sc_result> results_;
    bool finished_ = false;
    sc_core::sc_time finish_time_;
    void cpu_thread();
    uint32_t rd(uint32_t off);
    void wr(uint32_t off, uint32_t v);
    void reg_access(tlm::tlm_command cmd, uint32_t off, uint32_t *v);
};

/* Simulates until every platform's CPU thread has finished, in 1 ms slices:
 * a free-running clock elsewhere in the platform never runs out of events,
 * so plain sc_start() might not return. */
void mx_sc_run_until_finished(const std::vector<const mx_sc_platform *> &plats);

#endif
