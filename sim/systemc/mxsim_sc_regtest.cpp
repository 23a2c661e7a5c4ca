/*
 * mxsim_sc_regtest.cpp — the accelerator's register interface as an
 * integrator sees it (docs/SYSTEMC.md "Register map"): a test bench with its
 * own TLM-2.0 initiator, a memory and the accelerator (C core back-end), no
 * platform code.  Expected values come from the register map and from exact
 * arithmetic, not from the model:
 *   - ID / VERSION, reset STATUS, read-only registers ignore writes;
 *   - out-of-window, misaligned and short accesses get the documented TLM
 *     error responses;
 *   - FORMAT errors (BF16 mixed with MXSF, RQ out fmt BF16 or FP6 E3M2, A fmt 9), a shape error
 *     (M = 0) and a memory error (operands outside memory) raise STATUS.ERROR
 *     with their codes and the irq; CLEAR lowers both;
 *   - a 4 x 4 x 8 MXSF GEMM of 1.0 x 1.0 codes gives 8.0 everywhere (and with
 *     FORMAT.RQ, MXSF code 0x60 = 4.0 under E8M0 scale 128 = 2^1), raises DONE and
 *     the irq CYCLES periods after START; descriptor writes while BUSY are
 *     ignored.
 *
 *   mxsim_sc_regtest CONFIG.yaml      (tests/systemc/sc_mxsf.yaml: 8 x 8 tiles)
 * Prints "mxsim_sc_regtest: PASS N checks" or the failed checks; exit 0 / 1.
 */
#include <cstdio>
#include <string>

#include "config_yaml.h"
#include "mx_sc_accel.h"
#include "mx_sc_memory.h"

using namespace sc_core;

namespace {

class reg_tb : public sc_module {
public:
    tlm_utils::simple_initiator_socket<reg_tb> cpu;
    mx_sc_memory memory;
    mx_sc_accel accel;
    sc_signal<bool> irq;
    int checks = 0, fails = 0;
    bool finished = false;

    SC_HAS_PROCESS(reg_tb);
    reg_tb(sc_module_name nm, const mx_arch_config &cfg)
        : sc_module(nm), cpu("cpu"), memory("memory", 1 << 20, sc_time(1, SC_NS), 10, 16),
          accel("accel", cfg, std::unique_ptr<mx_sc_backend>(new mx_sc_c_backend)), irq("irq"),
          period_(1.0 / cfg.clock_ghz, SC_NS)
    {
        cpu.bind(accel.regs);
        accel.mem.bind(memory.socket);
        accel.irq.bind(irq);
        SC_THREAD(run);
    }

private:
    sc_time period_;

    void check(bool ok, const std::string &what)
    {
        checks++;
        if (!ok) {
            fails++;
            fprintf(stderr, "FAIL mxsim_sc_regtest: %s\n", what.c_str());
        }
    }
    /* One access; returns the response status. */
    tlm::tlm_response_status access(tlm::tlm_command cmd, uint64_t addr, uint32_t *v, unsigned len = 4)
    {
        tlm::tlm_generic_payload p;
        sc_time d = SC_ZERO_TIME;
        p.set_command(cmd);
        p.set_address(addr);
        p.set_data_ptr(reinterpret_cast<unsigned char *>(v));
        p.set_data_length(len);
        p.set_streaming_width(len);
        p.set_byte_enable_ptr(nullptr);
        p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        cpu->b_transport(p, d);
        wait(d);
        return p.get_response_status();
    }
    uint32_t rd(uint32_t off)
    {
        uint32_t v = 0xDEADBEEF;
        check(access(tlm::TLM_READ_COMMAND, off, &v) == tlm::TLM_OK_RESPONSE, "read of register " + hex(off));
        return v;
    }
    void wr(uint32_t off, uint32_t v)
    {
        check(access(tlm::TLM_WRITE_COMMAND, off, &v) == tlm::TLM_OK_RESPONSE, "write of register " + hex(off));
    }
    void wr64(uint32_t off, uint64_t v)
    {
        wr(off, (uint32_t)v);
        wr(off + 4, (uint32_t)(v >> 32));
    }
    static std::string hex(uint64_t x)
    {
        char b[24];
        snprintf(b, sizeof b, "0x%llx", (unsigned long long)x);
        return b;
    }
    /* START, wait for the irq; returns STATUS. */
    uint32_t start_and_wait()
    {
        wr(MX_SC_REG_CTRL, MX_SC_CTRL_START);
        while (!irq.read()) wait(irq.posedge_event());
        return rd(MX_SC_REG_STATUS);
    }
    void expect_error(const char *what, unsigned code)
    {
        const uint32_t st = start_and_wait();
        check((st & MX_SC_STATUS_ERROR) && !(st & MX_SC_STATUS_BUSY) && !(st & MX_SC_STATUS_DONE) &&
                  ((st >> 8) & 0xFF) == code,
              std::string(what) + ": STATUS " + hex(st) + ", expected ERROR with code " + std::to_string(code));
        wr(MX_SC_REG_CTRL, MX_SC_CTRL_CLEAR);
        wait(SC_ZERO_TIME);
        wait(SC_ZERO_TIME);
        check(!irq.read() && rd(MX_SC_REG_STATUS) == 0, std::string(what) + ": CLEAR leaves irq or STATUS set");
    }

    void run()
    {
        /* identity, reset state, read-only registers */
        check(rd(MX_SC_REG_ID) == 0x4D585346u, "ID is not 0x4D585346 (\"MXSF\")");
        check(rd(MX_SC_REG_VERSION) == 0x00010200u, "VERSION is not 0x00010200");
        check(rd(MX_SC_REG_STATUS) == 0 && !irq.read(), "STATUS / irq not clear after reset");
        wr(MX_SC_REG_ID, 0);
        wr(MX_SC_REG_CYCLES, 1234);
        check(rd(MX_SC_REG_ID) == 0x4D585346u && rd(MX_SC_REG_CYCLES) == 0, "a read-only register took a write");

        /* access errors */
        uint32_t v = 0;
        check(access(tlm::TLM_READ_COMMAND, MX_SC_REG_SPAN, &v) == tlm::TLM_ADDRESS_ERROR_RESPONSE,
              "read past the window: not TLM_ADDRESS_ERROR_RESPONSE");
        check(access(tlm::TLM_WRITE_COMMAND, 0x1000, &v) == tlm::TLM_ADDRESS_ERROR_RESPONSE,
              "write far past the window: not TLM_ADDRESS_ERROR_RESPONSE");
        check(access(tlm::TLM_READ_COMMAND, 0x02, &v) == tlm::TLM_GENERIC_ERROR_RESPONSE,
              "misaligned read: not TLM_GENERIC_ERROR_RESPONSE");
        check(access(tlm::TLM_READ_COMMAND, MX_SC_REG_M, &v, 2) == tlm::TLM_GENERIC_ERROR_RESPONSE,
              "2-byte read: not TLM_GENERIC_ERROR_RESPONSE");

        /* a valid 4 x 4 x 8 MXSF GEMM: A and B all code 0x20 (1.0), unit scales */
        const uint64_t A = 0x1000, AS = 0x2000, B = 0x3000, BS = 0x4000, OUT = 0x5000, OC = 0x6000, OS = 0x7000;
        const std::vector<uint8_t> ones(32, 0x20), unit(8, 127), poison(256, 0xA5);
        memory.load(A, ones.data(), ones.size());
        memory.load(B, ones.data(), ones.size());
        memory.load(AS, unit.data(), unit.size());
        memory.load(BS, unit.data(), unit.size());
        memory.load(OUT, poison.data(), poison.size());
        memory.load(OC, poison.data(), poison.size());
        memory.load(OS, poison.data(), poison.size());
        wr(MX_SC_REG_M, 4);
        wr(MX_SC_REG_N, 4);
        wr(MX_SC_REG_K, 8);
        /* A fmt 0, B fmt 0 (MXSF), out fmt 0, RQ; 8 x 8 tiles */
        wr(MX_SC_REG_FORMAT, MX_SC_FORMAT_RQ);
        wr(MX_SC_REG_BLOCK, 32u | 8u << 8 | 8u << 16);
        wr64(MX_SC_REG_A_CODES, A);
        wr64(MX_SC_REG_A_SCALES, AS);
        wr64(MX_SC_REG_B_CODES, B);
        wr64(MX_SC_REG_B_SCALES, BS);
        wr64(MX_SC_REG_OUT, OUT);
        wr64(MX_SC_REG_OUT_CODES, OC);
        wr64(MX_SC_REG_OUT_SCALES, OS);
        const sc_time t0 = sc_time_stamp();
        wr(MX_SC_REG_CTRL, MX_SC_CTRL_START);
        wait(SC_ZERO_TIME);
        check(rd(MX_SC_REG_STATUS) & MX_SC_STATUS_BUSY, "STATUS.BUSY not set after START");
        wr(MX_SC_REG_M, 999); /* ignored while BUSY */
        while (!irq.read()) wait(irq.posedge_event());
        const sc_time elapsed = sc_time_stamp() - t0;
        const uint32_t st = rd(MX_SC_REG_STATUS);
        check(st == MX_SC_STATUS_DONE, "valid GEMM: STATUS " + hex(st) + ", expected DONE only");
        check(rd(MX_SC_REG_M) == 4, "a descriptor write while BUSY was not ignored");
        const uint64_t cyc = rd(MX_SC_REG_CYCLES) | (uint64_t)rd(MX_SC_REG_CYCLES + 4) << 32;
        check(cyc > 0 && elapsed == period_ * (double)cyc,
              "START to irq " + elapsed.to_string() + " is not CYCLES (" + std::to_string(cyc) + ") periods");
        check(rd(MX_SC_REG_GEMMS) == 1, "GEMMS is not 1");
        check((rd(MX_SC_REG_MACS) | (uint64_t)rd(MX_SC_REG_MACS + 4) << 32) == 4 * 4 * 8, "MACS is not 4 * 4 * 8");
        uint32_t out[16];
        uint8_t codes[16], scales[4];
        memory.dump(OUT, out, sizeof out);
        memory.dump(OC, codes, sizeof codes);
        memory.dump(OS, scales, sizeof scales);
        bool vals_ok = true, codes_ok = true, scales_ok = true;
        for (int i = 0; i < 16; i++) vals_ok = vals_ok && out[i] == 0x41000000u;  /* 8 x 1.0 x 1.0 = 8.0 */
        /* 8.0 in an MXSF block: floor scale 2^(3 - emax 2) = 2^1 (E8M0 128); 8 / 2 = 4 = 2^2 x 1.0:
         * E = 3, F = 0 -> code 0x60 */
        for (int i = 0; i < 16; i++) codes_ok = codes_ok && codes[i] == 0x60;
        for (int i = 0; i < 4; i++) scales_ok = scales_ok && scales[i] == 128;
        check(vals_ok, "outputs are not 8.0 (0x41000000); first " + hex(out[0]));
        check(codes_ok, "re-quantized codes are not 0x60 (4.0 x 2^1); first " + hex(codes[0]));
        check(scales_ok, "re-quantized scales are not 128 (2^1); first " + hex(scales[0]));
        wr(MX_SC_REG_CTRL, MX_SC_CTRL_CLEAR);
        wait(SC_ZERO_TIME);
        wait(SC_ZERO_TIME);
        check(!irq.read(), "CLEAR did not lower the irq");

        /* errors, each with its code */
        wr(MX_SC_REG_FORMAT, 5u | 0u << 4); /* A BF16 x B MXSF */
        expect_error("BF16 x MXSF", MX_SC_ERR_FORMAT);
        wr(MX_SC_REG_FORMAT, MX_SC_FORMAT_RQ | 5u << 8); /* RQ to BF16 */
        expect_error("RQ out fmt BF16", MX_SC_ERR_FORMAT);
        wr(MX_SC_REG_FORMAT, MX_SC_FORMAT_RQ | 6u << 8); /* RQ to MXFP6 E3M2: an operand format only */
        expect_error("RQ out fmt E3M2", MX_SC_ERR_FORMAT);
        wr(MX_SC_REG_FORMAT, 9u); /* A fmt 9: no such format */
        expect_error("A fmt 9", MX_SC_ERR_FORMAT);
        wr(MX_SC_REG_FORMAT, 0);
        wr(MX_SC_REG_M, 0);
        expect_error("M = 0", MX_SC_ERR_SHAPE);
        wr(MX_SC_REG_M, 4);
        wr64(MX_SC_REG_A_CODES, (uint64_t)1 << 40); /* outside the 1 MiB memory */
        expect_error("A outside memory", MX_SC_ERR_MEMORY);
        finished = true;
    }
};

} // namespace

int sc_main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: mxsim_sc_regtest CONFIG.yaml\n");
        return 2;
    }
    char err[700], epath[MX_ARCH_PATH_MAX];
    mx_arch_config cfg;
    if (mx_config_load(argv[1], &cfg, epath, err, sizeof err) != 0 ||
        mx_config_dram(argv[1], &cfg, err, sizeof err) != 0) {
        fprintf(stderr, "mxsim_sc_regtest: %s\n", err);
        return 2;
    }
    reg_tb tb("tb", cfg);
    sc_start();
    if (!tb.finished) {
        fprintf(stderr, "FAIL mxsim_sc_regtest: the test thread did not finish\n");
        return 1;
    }
    if (tb.fails) {
        printf("mxsim_sc_regtest: FAILED %d of %d checks\n", tb.fails, tb.checks);
        return 1;
    }
    printf("mxsim_sc_regtest: PASS %d checks (register map, access errors, error codes, irq, a 4x4x8 GEMM)\n", tb.checks);
    return 0;
}
