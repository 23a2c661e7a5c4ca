/*
 * mx_sc_platform.cpp — the example virtual platform (see header).
 */
#include "mx_sc_platform.h"

#include <algorithm>

using namespace sc_core;

static uint64_t align64(uint64_t x) { return (x + 63) & ~(uint64_t)63; }

mx_sc_platform::layout mx_sc_platform::layout_of(const mx_sc_job &j, int rows, int cols)
{
    layout l;
    const uint64_t cb = (uint64_t)mx_sc_code_bytes(j.fmt);
    l.a_codes = 0x1000; /* page 0 left unused: address 0 is never valid data */
    l.a_scales = align64(l.a_codes + (uint64_t)(j.M * j.K) * cb);
    l.b_codes = align64(l.a_scales + mx_sc_a_scale_count(j));
    l.b_scales = align64(l.b_codes + (uint64_t)(j.K * j.N) * cb);
    l.out = align64(l.b_scales + mx_sc_b_scale_count(j));
    l.out_codes = align64(l.out + (uint64_t)(j.M * j.N) * 4);
    l.out_scales = align64(l.out_codes + (uint64_t)(j.M * j.N));
    l.end = align64(l.out_scales + (uint64_t)mx_sc_out_scale_count(rows, cols, j));
    return l;
}

static uint64_t memory_size(const std::vector<mx_sc_job> &jobs, int rows, int cols)
{
    uint64_t m = 0x2000;
    for (const auto &j : jobs) m = std::max(m, mx_sc_platform::layout_of(j, rows, cols).end);
    return m;
}

mx_sc_platform::mx_sc_platform(sc_module_name nm, const mx_arch_config &cfg,
                               std::unique_ptr<mx_sc_backend> backend,
                               const std::vector<mx_sc_job> &jobs)
    : sc_module(nm), cpu("cpu"),
      memory("memory", memory_size(jobs, cfg.rows > 0 ? cfg.rows : 1, cfg.cols > 0 ? cfg.cols : 1), sc_time(1.0 / (cfg.clock_ghz > 0 ? cfg.clock_ghz : 1.0), SC_NS),
             (unsigned)cfg.dram_latency, cfg.dram_bytes_per_cycle, cfg.dram_model ? &cfg.dram : nullptr),
      accel("accel", cfg, std::move(backend)), irq("irq"), jobs_(jobs), rows_(cfg.rows > 0 ? cfg.rows : 1), cols_(cfg.cols > 0 ? cfg.cols : 1)
{
    cpu.bind(accel.regs);
    accel.mem.bind(memory.socket);
    accel.irq.bind(irq);
    SC_THREAD(cpu_thread);
}

/* One 32-bit register access over the CPU socket, waiting its annotated delay. */
void mx_sc_platform::reg_access(tlm::tlm_command cmd, uint32_t off, uint32_t *v)
{
    tlm::tlm_generic_payload p;
    sc_time d = SC_ZERO_TIME;
    p.set_command(cmd);
    p.set_address(off);
    p.set_data_ptr(reinterpret_cast<unsigned char *>(v));
    p.set_data_length(4);
    p.set_streaming_width(4);
    p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    cpu->b_transport(p, d);
    if (p.get_response_status() != tlm::TLM_OK_RESPONSE) SC_REPORT_ERROR("mx_sc_platform", "register access failed");
    wait(d);
}

uint32_t mx_sc_platform::rd(uint32_t off)
{
    uint32_t v = 0;
    reg_access(tlm::TLM_READ_COMMAND, off, &v);
    return v;
}

void mx_sc_platform::wr(uint32_t off, uint32_t v) { reg_access(tlm::TLM_WRITE_COMMAND, off, &v); }

void mx_sc_platform::cpu_thread()
{
    if (rd(MX_SC_REG_ID) != MX_SC_ID_VALUE) SC_REPORT_FATAL("mx_sc_platform", "accelerator ID mismatch");
    for (const auto &j : jobs_) {
        const layout l = layout_of(j, rows_, cols_);
        /* operands into memory through the back door (a loader, not the bus) */
        std::vector<uint8_t> a((size_t)(j.M * j.K) * mx_sc_code_bytes(j.fmt)),
            b((size_t)(j.K * j.N) * mx_sc_code_bytes(j.fmt));
        for (size_t i = 0; i < j.a_codes.size(); i++) {
            if (j.fmt == MX_PE_BF16) { a[2 * i] = (uint8_t)j.a_codes[i]; a[2 * i + 1] = (uint8_t)(j.a_codes[i] >> 8); }
            else a[i] = (uint8_t)j.a_codes[i];
        }
        for (size_t i = 0; i < j.b_codes.size(); i++) {
            if (j.fmt == MX_PE_BF16) { b[2 * i] = (uint8_t)j.b_codes[i]; b[2 * i + 1] = (uint8_t)(j.b_codes[i] >> 8); }
            else b[i] = (uint8_t)j.b_codes[i];
        }
        memory.load(l.a_codes, a.data(), a.size());
        memory.load(l.a_scales, j.a_scales.data(), j.a_scales.size());
        memory.load(l.b_codes, b.data(), b.size());
        memory.load(l.b_scales, j.b_scales.data(), j.b_scales.size());
        /* poison the re-quantized output regions: whatever is read back was written */
        const std::vector<uint8_t> poison((size_t)(l.end - l.out_codes), 0xA5);
        memory.load(l.out_codes, poison.data(), poison.size());

        wr(MX_SC_REG_M, (uint32_t)j.M);
        wr(MX_SC_REG_N, (uint32_t)j.N);
        wr(MX_SC_REG_K, (uint32_t)j.K);
        wr(MX_SC_REG_FORMAT, (uint32_t)j.fmt | (uint32_t)j.fmt_b << 4 | ((uint32_t)j.phase & 3) << 12 |
                                  (uint32_t)!j.scaled << 14 |
                                  (j.out_fmt >= 0 ? ((uint32_t)j.out_fmt & 0xF) << 8 | MX_SC_FORMAT_RQ : 0u) |
                                  (j.out_fmt >= 0 && j.rq_tile ? MX_SC_FORMAT_RT : 0u));
        wr(MX_SC_REG_BLOCK, (uint32_t)(j.block & 0xFF) | (uint32_t)(j.tile_rows & 0xFF) << 8 |
                                (uint32_t)(j.tile_cols & 0xFF) << 16);
        const uint64_t addr[7] = {l.a_codes, l.a_scales, l.b_codes, l.b_scales, l.out, l.out_codes, l.out_scales};
        const uint32_t reg[7] = {MX_SC_REG_A_CODES, MX_SC_REG_A_SCALES, MX_SC_REG_B_CODES,
                                 MX_SC_REG_B_SCALES, MX_SC_REG_OUT, MX_SC_REG_OUT_CODES, MX_SC_REG_OUT_SCALES};
        for (int i = 0; i < 7; i++) {
            wr(reg[i], (uint32_t)addr[i]);
            wr(reg[i] + 4, (uint32_t)(addr[i] >> 32));
        }
        const sc_time t0 = sc_time_stamp();
        wr(MX_SC_REG_CTRL, MX_SC_CTRL_START);
        while (!irq.read()) wait(irq.posedge_event());
        mx_sc_result r;
        r.elapsed = sc_time_stamp() - t0;
        const uint32_t st = rd(MX_SC_REG_STATUS);
        if (st & MX_SC_STATUS_ERROR) {
            r.error = accel.last_error();
            if (r.error.empty()) r.error = "STATUS.ERROR";
        } else {
            r.reg_cycles = rd(MX_SC_REG_CYCLES) | (uint64_t)rd(MX_SC_REG_CYCLES + 4) << 32;
            r.reg_macs = rd(MX_SC_REG_MACS) | (uint64_t)rd(MX_SC_REG_MACS + 4) << 32;
            r.stats = accel.last_stats();
            std::vector<uint8_t> o((size_t)(j.M * j.N) * 4);
            memory.dump(l.out, o.data(), o.size());
            r.out.resize((size_t)(j.M * j.N));
            for (size_t i = 0; i < r.out.size(); i++)
                r.out[i] = (uint32_t)o[4 * i] | (uint32_t)o[4 * i + 1] << 8 | (uint32_t)o[4 * i + 2] << 16 |
                           (uint32_t)o[4 * i + 3] << 24;
            if (j.out_fmt >= 0) {
                r.codes.resize((size_t)(j.M * j.N));
                r.scales.resize(mx_sc_out_scale_count(rows_, cols_, j));
                memory.dump(l.out_codes, r.codes.data(), r.codes.size());
                memory.dump(l.out_scales, r.scales.data(), r.scales.size());
            }
        }
        results_.push_back(std::move(r));
        wr(MX_SC_REG_CTRL, MX_SC_CTRL_CLEAR);
    }
    finish_time_ = sc_time_stamp();
    finished_ = true;
}

void mx_sc_run_until_finished(const std::vector<const mx_sc_platform *> &plats)
{
    const sc_time slice(1, SC_MS);
    for (;;) {
        sc_start(slice);
        bool all = true;
        for (const mx_sc_platform *p : plats) all = all && p->finished();
        if (all || !sc_pending_activity()) break;
    }
}
