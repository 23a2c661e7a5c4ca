/*
 * mx_sc_accel.cpp — the SystemC accelerator module (see mx_sc_accel.h).
 */
#include "mx_sc_accel.h"

#include <cstdio>
#include <cstring>

extern "C" {
#include "units/mx_requant.h"
}

#define MX_SC_MAX_RQ_BLOCK MX_REQUANT_MAX_N

using namespace sc_core;

std::string mx_sc_c_backend::run(const mx_arch_config &cfg, const mx_sc_job &job, std::vector<uint32_t> &out,
                                 std::vector<uint8_t> &codes, std::vector<uint8_t> &scales, mx_stats &stats)
{
    std::string e = mx_sc_timing(cfg, job, stats);
    if (!e.empty()) return e;
    mx_sc_c_outputs(cfg, job, out);
    if (job.out_fmt >= 0) mx_sc_requant_outputs(cfg, job, out, codes, scales);
    return "";
}

mx_sc_accel::mx_sc_accel(sc_module_name nm, const mx_arch_config &cfg,
                         std::unique_ptr<mx_sc_backend> backend)
    : sc_module(nm), regs("regs"), mem("mem"), irq("irq"), cfg_(cfg), backend_(std::move(backend)),
      period_(1.0 / (cfg.clock_ghz > 0 ? cfg.clock_ghz : 1.0), SC_NS)
{
    regs.register_b_transport(this, &mx_sc_accel::b_transport);
    regs.register_transport_dbg(this, &mx_sc_accel::transport_dbg);
    /* reset values: the config's block shape */
    r_[MX_SC_REG_BLOCK / 4] = (uint32_t)(cfg.block_size & 0xFF) | (uint32_t)(cfg.tile_rows & 0xFF) << 8 |
                              (uint32_t)(cfg.tile_cols & 0xFF) << 16;
    SC_THREAD(worker);
    SC_METHOD(irq_driver);
    sensitive << irq_ev_;
}

void mx_sc_accel::irq_driver() { irq.write(done_ || error_); }

uint32_t mx_sc_accel::reg_read(unsigned off) const
{
    switch (off) {
    case MX_SC_REG_ID: return MX_SC_ID_VALUE;
    case MX_SC_REG_VERSION: return MX_SC_VERSION_VALUE;
    case MX_SC_REG_CTRL: return 0;
    case MX_SC_REG_STATUS:
        return (busy_ ? MX_SC_STATUS_BUSY : 0u) | (done_ ? MX_SC_STATUS_DONE : 0u) |
               (error_ ? MX_SC_STATUS_ERROR : 0u) | (errcode_ & 0xFFu) << 8;
    default: return r_[off / 4];
    }
}

void mx_sc_accel::reg_write(unsigned off, uint32_t v)
{
    if (off == MX_SC_REG_CTRL) {
        if (v & MX_SC_CTRL_CLEAR) {
            done_ = error_ = false;
            errcode_ = 0;
            irq_ev_.notify(SC_ZERO_TIME);
        }
        if ((v & MX_SC_CTRL_START) && !busy_) {
            busy_ = true;
            done_ = error_ = false;
            errcode_ = 0;
            irq_ev_.notify(SC_ZERO_TIME);
            start_ev_.notify(SC_ZERO_TIME);
        }
        return;
    }
    if (busy_) return; /* the descriptor is frozen while a GEMM runs */
    if ((off >= MX_SC_REG_M && off < MX_SC_REG_CYCLES) || off >= MX_SC_REG_OUT_CODES) r_[off / 4] = v;
    /* ID, VERSION, STATUS and the counters are read-only: writes are ignored */
}

bool mx_sc_accel::reg_access(tlm::tlm_generic_payload &p)
{
    const uint64_t a = p.get_address();
    const unsigned len = p.get_data_length();
    if (a % 4 || len % 4 || len == 0 || a + len > MX_SC_REG_SPAN || p.get_byte_enable_ptr()) {
        p.set_response_status(a + len > MX_SC_REG_SPAN ? tlm::TLM_ADDRESS_ERROR_RESPONSE
                                                       : tlm::TLM_GENERIC_ERROR_RESPONSE);
        return false;
    }
    unsigned char *d = p.get_data_ptr();
    for (unsigned i = 0; i < len; i += 4) {
        uint32_t v;
        if (p.is_read()) {
            v = reg_read((unsigned)a + i);
            std::memcpy(d + i, &v, 4);
        } else if (p.is_write()) {
            std::memcpy(&v, d + i, 4);
            reg_write((unsigned)a + i, v);
        }
    }
    p.set_response_status(tlm::TLM_OK_RESPONSE);
    return true;
}

void mx_sc_accel::b_transport(tlm::tlm_generic_payload &p, sc_time &delay)
{
    if (reg_access(p)) delay += period_; /* one bus cycle per register access */
}

unsigned mx_sc_accel::transport_dbg(tlm::tlm_generic_payload &p)
{
    /* debug reads only: a debugger must not start the accelerator */
    if (!p.is_read()) return 0;
    return reg_access(p) ? p.get_data_length() : 0;
}

bool mx_sc_accel::dma(tlm::tlm_command cmd, uint64_t addr, void *data, size_t len, sc_time &delay)
{
    if (len == 0) return true;
    if (len > 0xFFFFFFFFu) return false;
    tlm::tlm_generic_payload p;
    p.set_command(cmd);
    p.set_address(addr);
    p.set_data_ptr(static_cast<unsigned char *>(data));
    p.set_data_length((unsigned)len);
    p.set_streaming_width((unsigned)len);
    p.set_byte_enable_ptr(nullptr);
    p.set_dmi_allowed(false);
    p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    mem->b_transport(p, delay);
    return p.get_response_status() == tlm::TLM_OK_RESPONSE;
}

void mx_sc_accel::fail(unsigned code, const std::string &msg)
{
    error_ = true;
    errcode_ = code;
    err_msg_ = msg;
    busy_ = false;
    irq_ev_.notify(SC_ZERO_TIME);
}

void mx_sc_accel::worker()
{
    for (;;) {
        wait(start_ev_);
        mx_sc_job j;
        j.M = r_[MX_SC_REG_M / 4];
        j.N = r_[MX_SC_REG_N / 4];
        j.K = r_[MX_SC_REG_K / 4];
        const uint32_t f = r_[MX_SC_REG_FORMAT / 4], b = r_[MX_SC_REG_BLOCK / 4];
        const unsigned fa = f & 0xF, fb = (f >> 4) & 0xF;
        j.phase = (mx_phase)((f >> 12) & 3);
        j.scaled = !((f >> 14) & 1) && fa != MX_PE_BF16;
        j.block = (int)(b & 0xFF);
        j.tile_rows = (int)((b >> 8) & 0xFF);
        j.tile_cols = (int)((b >> 16) & 0xFF);
        if (fa >= MX_PE_NFMT || fb >= MX_PE_NFMT || (fa != fb && (fa == MX_PE_BF16 || fb == MX_PE_BF16))) {
            fail(MX_SC_ERR_FORMAT, "FORMAT: A and B fmt must be PE formats 0..5; BF16 (5) mixes with no other");
            continue;
        }
        j.fmt = (mx_pe_fmt)fa;
        j.fmt_b = (mx_pe_fmt)fb;
        if (f & MX_SC_FORMAT_RQ) {
            const unsigned fo = (f >> 8) & 0xF;
            if (fo >= MX_PE_BF16) { fail(MX_SC_ERR_FORMAT, "FORMAT: out fmt (RQ) must be 0..4 (the re-quantizer has no BF16)"); continue; }
            j.rq_tile = (f & MX_SC_FORMAT_RT) != 0;
            long long br, bc;
            mx_sc_out_block(cfg_.rows, cfg_.cols, j, br, bc);
            if (br * bc > MX_SC_MAX_RQ_BLOCK) {
                fail(MX_SC_ERR_SHAPE, "RQ: the output block (rows, or the tile with RT) exceeds the re-quantizer's 1024");
                continue;
            }
            j.out_fmt = (int)fo;
        }
        std::string e = mx_sc_job_check(cfg_, j);
        if (!e.empty()) { fail(MX_SC_ERR_SHAPE, e); continue; }

        /* operand reads: one burst per region */
        sc_time delay = SC_ZERO_TIME;
        const size_t cb = (size_t)mx_sc_code_bytes(j.fmt);
        std::vector<uint8_t> raw_a((size_t)(j.M * j.K) * cb), raw_b((size_t)(j.K * j.N) * cb);
        j.a_scales.resize(mx_sc_a_scale_count(j));
        j.b_scales.resize(mx_sc_b_scale_count(j));
        bool ok = dma(tlm::TLM_READ_COMMAND, reg64(MX_SC_REG_A_CODES), raw_a.data(), raw_a.size(), delay) &&
                  dma(tlm::TLM_READ_COMMAND, reg64(MX_SC_REG_A_SCALES), j.a_scales.data(), j.a_scales.size(), delay) &&
                  dma(tlm::TLM_READ_COMMAND, reg64(MX_SC_REG_B_CODES), raw_b.data(), raw_b.size(), delay) &&
                  dma(tlm::TLM_READ_COMMAND, reg64(MX_SC_REG_B_SCALES), j.b_scales.data(), j.b_scales.size(), delay);
        if (!ok) { fail(MX_SC_ERR_MEMORY, "operand read failed (address error)"); continue; }
        /* codes are little-endian in memory */
        j.a_codes.resize((size_t)(j.M * j.K));
        j.b_codes.resize((size_t)(j.K * j.N));
        for (size_t i = 0; i < j.a_codes.size(); i++)
            j.a_codes[i] = cb == 1 ? raw_a[i] : (uint16_t)(raw_a[2 * i] | raw_a[2 * i + 1] << 8);
        for (size_t i = 0; i < j.b_codes.size(); i++)
            j.b_codes[i] = cb == 1 ? raw_b[i] : (uint16_t)(raw_b[2 * i] | raw_b[2 * i + 1] << 8);

        std::vector<uint32_t> out;
        std::vector<uint8_t> codes, scales;
        mx_stats s;
        std::memset(&s, 0, sizeof s);
        /* a clocked back-end (the RTL) spends simulated time inside run() */
        const sc_time t_run = sc_time_stamp();
        e = backend_->run(cfg_, j, out, codes, scales, s);
        const sc_time spent = sc_time_stamp() - t_run;
        if (!e.empty()) { fail(MX_SC_ERR_BACKEND, std::string(backend_->name()) + " back-end: " + e); continue; }
        std::vector<uint8_t> raw_o(out.size() * 4);
        for (size_t i = 0; i < out.size(); i++)
            for (int k = 0; k < 4; k++) raw_o[4 * i + k] = (uint8_t)(out[i] >> (8 * k));
        if (!dma(tlm::TLM_WRITE_COMMAND, reg64(MX_SC_REG_OUT), raw_o.data(), raw_o.size(), delay)) {
            fail(MX_SC_ERR_MEMORY, "output write failed (address error)");
            continue;
        }
        if (j.out_fmt >= 0) {
            const size_t ns = mx_sc_out_scale_count(cfg_.rows, cfg_.cols, j);
            if (codes.size() != (size_t)(j.M * j.N) || scales.size() != ns) {
                fail(MX_SC_ERR_BACKEND, std::string(backend_->name()) + " back-end: no re-quantized outputs");
                continue;
            }
            if (!dma(tlm::TLM_WRITE_COMMAND, reg64(MX_SC_REG_OUT_CODES), codes.data(), codes.size(), delay) ||
                !dma(tlm::TLM_WRITE_COMMAND, reg64(MX_SC_REG_OUT_SCALES), scales.data(), scales.size(), delay)) {
                fail(MX_SC_ERR_MEMORY, "output codes/scales write failed (address error)");
                continue;
            }
        }
        /* The back-end's cycle count (the cycle engine) already contains the DRAM
         * traffic: its own DRAM port, double-buffered tile transfers on the
         * same DRAM config (memory.dram's protocol model or the bandwidth +
         * latency channel).  The memory target's annotated delay (its own
         * DRAM instance, one burst train per region) is recorded, not added
         * (docs/SYSTEMC.md "Timing"). */
        mem_time_ = delay;
        /* done `cycles` periods after START (if the back-end's own run took
         * longer, at its end) */
        if (period_ * (double)s.cycles > spent) wait(period_ * (double)s.cycles - spent);
        last_ = s;
        mx_stats_add(&total_, &s, 1);
        set64(MX_SC_REG_CYCLES, (uint64_t)s.cycles);
        set64(MX_SC_REG_TOTAL, (uint64_t)total_.cycles);
        r_[MX_SC_REG_GEMMS / 4]++;
        set64(MX_SC_REG_MACS, (uint64_t)s.macs);
        set64(MX_SC_REG_STALL, (uint64_t)(s.stall[MX_STALL_DRAM] + s.stall[MX_STALL_SRAM] + s.stall[MX_STALL_DRAIN]));
        busy_ = false;
        done_ = true;
        irq_ev_.notify(SC_ZERO_TIME);
    }
}
