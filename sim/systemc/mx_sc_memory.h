/*
 * mx_sc_memory.h — a DRAM-like memory for the SystemC platform: a TLM-2.0
 * target with a flat byte array.  Loosely timed: b_transport annotates,
 * never waits.  Two timing models, chosen at construction:
 *   - bandwidth + latency (no DRAM config): annotated delay = latency +
 *     ceil(len / bytes_per_cycle) accelerator cycles per transaction;
 *   - a protocol-level DRAM (models/mem/mx_dram.h; the config's memory.dram):
 *     the memory owns one mx_dram instance whose clock k is simulated time
 *     k * tCK.  A transaction arriving at t = sc_time_stamp() + delay is
 *     split into bursts (mx_dram_burst_bytes, aligned), pushed into the
 *     DRAM's queue from the first DRAM clock at or after t (or from the
 *     DRAM's current clock if it is already past t: it is still busy), and
 *     the DRAM is run until the last burst completes (a read: its last data
 *     beat; a write: its data sent); delay grows to that completion time
 *     (clocks x tCK) minus sc_time_stamp().
 * load()/dump() are zero-time back doors for the platform's loader (they do
 * not touch the DRAM's state), and transport_dbg serves debuggers.
 */
#ifndef MX_SC_MEMORY_H
#define MX_SC_MEMORY_H

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "mem/mx_dram.h"

class mx_sc_memory : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<mx_sc_memory> socket;

    /* dram == nullptr: the bandwidth + latency channel (latency_cycles,
     * bytes_per_cycle, clock_period); else that DRAM (copied; an invalid
     * config is an SC_REPORT_ERROR at construction). */
    mx_sc_memory(sc_core::sc_module_name nm, uint64_t size_bytes, sc_core::sc_time clock_period,
                 unsigned latency_cycles, double bytes_per_cycle, const mx_dram_config *dram = nullptr)
        : sc_module(nm), socket("socket"), mem_(size_bytes, 0), period_(clock_period),
          latency_(latency_cycles), bw_(bytes_per_cycle > 0 ? bytes_per_cycle : 1)
    {
        socket.register_b_transport(this, &mx_sc_memory::b_transport);
        socket.register_transport_dbg(this, &mx_sc_memory::transport_dbg);
        if (dram) {
            char err[512] = "";
            dram_.reset(mx_dram_new(dram, err, sizeof err));
            if (!dram_) SC_REPORT_ERROR(name(), (std::string("DRAM model: ") + err).c_str());
            else {
                tck_ = sc_core::sc_time(dram->tCK_ns, sc_core::SC_NS);
                burst_ = (uint64_t)mx_dram_burst_bytes(dram);
                if (tck_ == sc_core::SC_ZERO_TIME || burst_ == 0)
                    SC_REPORT_ERROR(name(), "DRAM model: tCK below the time resolution or no burst bytes");
            }
        }
    }

    uint64_t size() const { return mem_.size(); }
    bool load(uint64_t addr, const void *src, size_t len)
    {
        if (addr > mem_.size() || len > mem_.size() - addr) return false;
        if (len) std::memcpy(&mem_[addr], src, len);
        return true;
    }
    bool dump(uint64_t addr, void *dst, size_t len) const
    {
        if (addr > mem_.size() || len > mem_.size() - addr) return false;
        if (len) std::memcpy(dst, &mem_[addr], len);
        return true;
    }
    uint64_t bytes_read() const { return rd_; }
    uint64_t bytes_written() const { return wr_; }
    uint64_t transactions() const { return txns_; }
    /* The DRAM model (nullptr without one) and the bursts it was sent. */
    const mx_dram *dram() const { return dram_.get(); }
    uint64_t bursts() const { return bursts_; }

private:
    std::vector<uint8_t> mem_;
    sc_core::sc_time period_;
    unsigned latency_;
    double bw_;
    uint64_t rd_ = 0, wr_ = 0, txns_ = 0, bursts_ = 0;
    struct dram_free { void operator()(mx_dram *d) const { mx_dram_free(d); } };
    std::unique_ptr<mx_dram, dram_free> dram_;
    sc_core::sc_time tck_;
    uint64_t burst_ = 0, next_id_ = 0;

    /* Runs the transaction's bursts through the DRAM model; returns the DRAM
     * clock at which the last one completed (>= arrive). */
    uint64_t dram_transfer(uint64_t addr, unsigned len, bool is_write, uint64_t arrive)
    {
        mx_dram *d = dram_.get();
        if (mx_dram_now(d) < arrive) mx_dram_run_until(d, arrive); /* idle until the request arrives */
        const uint64_t first = addr / burst_, n = (addr + len - 1) / burst_ - first + 1;
        uint64_t sent = 0, done = 0, end = mx_dram_now(d);
        mx_dram_done r;
        while (done < n) {
            while (sent < n && mx_dram_can_accept(d, (first + sent) * burst_, is_write)) {
                if (mx_dram_add(d, (first + sent) * burst_, is_write, next_id_++) != 0) break;
                sent++;
            }
            while (mx_dram_pop_done(d, &r)) {
                done++;
                if (r.done > end) end = r.done;
            }
            if (done >= n) break;
            const uint64_t e = mx_dram_next_event(d);
            if (e == UINT64_MAX || e <= mx_dram_now(d)) {
                SC_REPORT_ERROR(name(), "DRAM model: bursts pending but no later event");
                break;
            }
            mx_dram_run_until(d, e);
        }
        bursts_ += n;
        return end;
    }

    bool access(tlm::tlm_generic_payload &p)
    {
        const uint64_t a = p.get_address();
        const unsigned len = p.get_data_length();
        if (p.get_byte_enable_ptr() || p.get_streaming_width() < len) {
            p.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
            return false;
        }
        if (a > mem_.size() || len > mem_.size() - a) {
            p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
            return false;
        }
        if (p.is_read()) std::memcpy(p.get_data_ptr(), &mem_[a], len);
        else if (p.is_write()) std::memcpy(&mem_[a], p.get_data_ptr(), len);
        p.set_response_status(tlm::TLM_OK_RESPONSE);
        return true;
    }

    void b_transport(tlm::tlm_generic_payload &p, sc_core::sc_time &delay)
    {
        if (!access(p)) return;
        const unsigned len = p.get_data_length();
        (p.is_read() ? rd_ : wr_) += len;
        txns_++;
        if (dram_) {
            if (len == 0 || (!p.is_read() && !p.is_write())) return; /* nothing moves */
            /* DRAM clock k is simulated time k * tCK: the first clock at or after the arrival */
            const sc_core::sc_time t0 = sc_core::sc_time_stamp() + delay;
            const uint64_t tv = tck_.value(), arrive = (t0.value() + tv - 1) / tv;
            const uint64_t end = dram_transfer(p.get_address(), len, p.is_write(), arrive);
            delay = sc_core::sc_time::from_value(end * tv) - sc_core::sc_time_stamp();
            return;
        }
        const double beats = (double)len / bw_;
        const uint64_t cyc = latency_ + (uint64_t)(beats + 0.999999);
        delay += period_ * (double)cyc;
    }

    unsigned transport_dbg(tlm::tlm_generic_payload &p)
    {
        return access(p) ? p.get_data_length() : 0;
    }
};

#endif
