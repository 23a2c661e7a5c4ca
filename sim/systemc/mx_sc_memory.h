/*
 * mx_sc_memory.h — a DRAM-like memory for the SystemC platform: a TLM-2.0
 * target with a flat byte array, a fixed latency per transaction and a
 * bandwidth in bytes per cycle (annotated delay = latency + ceil(len / bw)
 * cycles).  Loosely timed: b_transport annotates, never waits.  load()/dump()
 * are zero-time back doors for the platform's loader, and transport_dbg
 * serves debuggers.
 */
#ifndef MX_SC_MEMORY_H
#define MX_SC_MEMORY_H

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <cstring>
#include <vector>

class mx_sc_memory : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<mx_sc_memory> socket;

    mx_sc_memory(sc_core::sc_module_name nm, uint64_t size_bytes, sc_core::sc_time clock_period,
                 unsigned latency_cycles, double bytes_per_cycle)
        : sc_module(nm), socket("socket"), mem_(size_bytes, 0), period_(clock_period),
          latency_(latency_cycles), bw_(bytes_per_cycle > 0 ? bytes_per_cycle : 1)
    {
        socket.register_b_transport(this, &mx_sc_memory::b_transport);
        socket.register_transport_dbg(this, &mx_sc_memory::transport_dbg);
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

private:
    std::vector<uint8_t> mem_;
    sc_core::sc_time period_;
    unsigned latency_;
    double bw_;
    uint64_t rd_ = 0, wr_ = 0, txns_ = 0;

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
