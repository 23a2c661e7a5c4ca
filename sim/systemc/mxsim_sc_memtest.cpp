/*
 * mxsim_sc_memtest.cpp — the SystemC memory target's timing (mx_sc_memory.h)
 * checked against delays derived by hand, with a TLM-2.0 initiator of its own
 * and no accelerator.
 *
 *   mxsim_sc_memtest CONFIG.yaml      (tests/systemc/sc_ddr4.yaml: memory.dram: ddr4_3200)
 *
 * The config must name the DDR4-3200 preset (configs/dram/ddr4_3200.yaml);
 * the program first checks that the parameters the derivations below use
 * are the preset's (a changed preset fails here, not with odd numbers):
 * tCK 0.625 ns, CL 22, CWL 16, AL 0, tRCD 22, tRP 22, tRAS 52, tCCD_L 8,
 * tWTR_L 12, tRTP 12, tRFC 560, tREFI 12480, BL 8 on 64 bits (64-byte bursts),
 * 1 channel, 1 rank, 4 x 4 banks, 1024 columns, open page, mapping
 * rochrababgco (byte address: 6 burst-offset bits, 7 column bits, 2 bank, 2
 * bank group, then the row at bit 17: row r of bank 0 starts at r << 17).
 * DRAM conventions (models/mem/mx_dram.h, mx_dram.c): a request added at
 * clock t to a closed bank gets its ACT at t (when nothing else blocks), the
 * RD tRCD later, and completes RL + BL/2 = CL + 4 clocks after the RD (last
 * data beat); a write completes CWL + BL/2 after its WR.  DRAM clock k is
 * simulated time k * 0.625 ns.
 *
 * Expected annotated delays (initiator at simulated time 0 throughout; the
 * offset accumulates as in the accelerator's DMA, so each transaction
 * arrives when the previous one completed):
 *   memory 1 (fresh, all banks closed):
 *   a  read  64 B @0x0: ACT 0, RD 22, done 22+22+4 = 48 clocks      -> 30 ns
 *   b  read  64 B @0x40 (row hit) at 48: RD 48, done 48+26 = 74     -> 46.25 ns
 *   c  read 128 B @0x80 (2 bursts, hits) at 74: RD 74, RD 74+tCCD_L = 82,
 *      done 82+26 = 108                                             -> 67.5 ns
 *   d  read  64 B @0x20000 (row 1, bank 0: conflict) at 108: PRE at 108
 *      (bank's PRE limit: ACT 0 + tRAS = 52, last RD 82 + tRTP = 94),
 *      ACT 108+tRP = 130, RD 130+22 = 152, done 178                  -> 111.25 ns
 *   e  write 64 B @0x20040 (row hit) at 178: WR 178 (read-to-write from RD
 *      152: RL + BL/2 + 2 - CWL = 12 -> 164), done 178+16+4 = 198     -> 123.75 ns
 *   f  read  64 B @0x20080 (row hit) at 198: write-to-read same group
 *      CWL + BL/2 + tWTR_L = 32 after WR 178 -> RD 210, done 236       -> 147.5 ns
 *   memory 2 (fresh): read 8 B @0x3C (two bursts: 0x0, 0x40): ACT 0,
 *      RD 22, RD 30, done 30+26 = 56                                -> 35 ns
 *   memory 3 (fresh): read 64 B @0x0 with the initiator 1 ns ahead: first
 *      DRAM clock at or after 1 ns is 2 (1.25 ns), done 2+48 = 50     -> 31.25 ns
 *   memory 4 (fresh): read 64 B @0x0 at clock 12480 (7800 ns, the first
 *      refresh falls due): REF 12480, ACT 12480+tRFC = 13040, RD 13062,
 *      done 13088 (delay from 7800 ns: 608 clocks)                   -> 380 ns
 *   memory 5 (no DRAM model: 1 ns period, latency 10, 16 bytes/cycle):
 *      read 100 B -> 10 + ceil(100/16) = 17 cycles                   -> 17 ns
 * and, in memory 1, the DRAM was sent 7 bursts (1+1+2+1+1+1).
 * Prints "mxsim_sc_memtest: PASS N checks" or the failed checks; exit 0 / 1, 2 bad input.
 */
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>

#include "config_yaml.h"
#include "mx_sc_memory.h"

using namespace sc_core;

namespace {

class mem_tb : public sc_module {
public:
    int checks = 0, fails = 0;
    bool finished = false;

    SC_HAS_PROCESS(mem_tb);
    mem_tb(sc_module_name nm, const mx_dram_config &dram)
        : sc_module(nm), dram_(dram)
    {
        for (int i = 0; i < 5; i++) {
            char n[16];
            snprintf(n, sizeof n, "ini%d", i);
            ini_.emplace_back(new tlm_utils::simple_initiator_socket<mem_tb>(n));
            snprintf(n, sizeof n, "mem%d", i);
            /* memories 0..3 with the DRAM model, 4 the bandwidth + latency channel */
            mem_.emplace_back(new mx_sc_memory(n, 1 << 20, sc_time(1, SC_NS), 10, 16, i < 4 ? &dram_ : nullptr));
            ini_[i]->bind(mem_[i]->socket);
        }
        SC_THREAD(run);
    }

private:
    mx_dram_config dram_;
    std::vector<std::unique_ptr<tlm_utils::simple_initiator_socket<mem_tb>>> ini_;
    std::vector<std::unique_ptr<mx_sc_memory>> mem_;
    std::vector<uint8_t> buf_ = std::vector<uint8_t>(4096, 0);

    void check(bool ok, const std::string &what)
    {
        checks++;
        if (!ok) {
            fails++;
            fprintf(stderr, "FAIL mxsim_sc_memtest: %s\n", what.c_str());
        }
    }
    /* One transaction on memory m with the initiator's offset `delay`
     * (updated); checks the response and the resulting delay. */
    void xfer(int m, tlm::tlm_command cmd, uint64_t addr, unsigned len, sc_time &delay, const sc_time &want,
              const char *what)
    {
        tlm::tlm_generic_payload p;
        p.set_command(cmd);
        p.set_address(addr);
        p.set_data_ptr(buf_.data());
        p.set_data_length(len);
        p.set_streaming_width(len);
        p.set_byte_enable_ptr(nullptr);
        p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        (*ini_[(size_t)m])->b_transport(p, delay);
        check(p.get_response_status() == tlm::TLM_OK_RESPONSE, std::string(what) + ": response not OK");
        check(delay == want, std::string(what) + ": delay " + delay.to_string() + ", expected " + want.to_string());
    }

    void run()
    {
        const sc_time ns(1, SC_NS), ps(1, SC_PS);
        sc_time d = SC_ZERO_TIME;
        xfer(0, tlm::TLM_READ_COMMAND, 0x0, 64, d, 30 * ns, "a: 64 B read, closed bank (tRCD + CL + BL/2)");
        xfer(0, tlm::TLM_READ_COMMAND, 0x40, 64, d, 46250 * ps, "b: 64 B read, row hit (+ CL + BL/2)");
        xfer(0, tlm::TLM_READ_COMMAND, 0x80, 128, d, 67500 * ps, "c: 128 B read, two row hits (+ tCCD_L + CL + BL/2)");
        xfer(0, tlm::TLM_READ_COMMAND, 0x20000, 64, d, 111250 * ps,
             "d: 64 B read, row conflict (+ tRP + tRCD + CL + BL/2)");
        xfer(0, tlm::TLM_WRITE_COMMAND, 0x20040, 64, d, 123750 * ps, "e: 64 B write, row hit (+ CWL + BL/2)");
        xfer(0, tlm::TLM_READ_COMMAND, 0x20080, 64, d, 147500 * ps, "f: 64 B read after a write (tWTR_L)");
        check(mem_[0]->bursts() == 7, "memory 1: " + std::to_string(mem_[0]->bursts()) + " bursts, expected 7");
        check(mem_[0]->dram() && mx_dram_now(mem_[0]->dram()) == 236,
              "memory 1: DRAM clock " + std::to_string(mem_[0]->dram() ? mx_dram_now(mem_[0]->dram()) : 0) +
                  " after the last transfer, expected 236");
        if (mem_[0]->dram()) {
            mx_dram_stats s;
            mx_dram_get_stats(mem_[0]->dram(), &s);
            check(s.act == 2 && s.pre == 1 && s.rd == 6 && s.wr == 1,
                  "memory 1: commands ACT " + std::to_string(s.act) + " PRE " + std::to_string(s.pre) + " RD " +
                      std::to_string(s.rd) + " WR " + std::to_string(s.wr) + ", expected 2 1 6 1");
        }

        d = SC_ZERO_TIME;
        xfer(1, tlm::TLM_READ_COMMAND, 0x3C, 8, d, 35 * ns, "8 B read across two bursts (RD, RD + tCCD_L)");
        d = ns;
        xfer(2, tlm::TLM_READ_COMMAND, 0x0, 64, d, 31250 * ps, "64 B read arriving at 1 ns (next DRAM clock 1.25 ns)");
        /* at 7800 ns = clock 12480 the first refresh falls due */
        wait(7800, SC_NS);
        d = SC_ZERO_TIME;
        xfer(3, tlm::TLM_READ_COMMAND, 0x0, 64, d, 380 * ns, "64 B read when a refresh falls due (+ tRFC)");
        d = SC_ZERO_TIME;
        xfer(4, tlm::TLM_READ_COMMAND, 0x0, 100, d, 17 * ns, "no DRAM model: 100 B read = latency 10 + ceil(100/16)");
        check(mem_[4]->dram() == nullptr && mem_[4]->bursts() == 0, "no DRAM model: no DRAM instance, no bursts");
        finished = true;
    }
};

} // namespace

int sc_main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: mxsim_sc_memtest CONFIG.yaml   (a config with memory.dram: ddr4_3200)\n");
        return 2;
    }
    char err[700], epath[MX_ARCH_PATH_MAX];
    mx_arch_config cfg;
    if (mx_config_load(argv[1], &cfg, epath, err, sizeof err) != 0 || mx_config_dram(argv[1], &cfg, err, sizeof err) != 0) {
        fprintf(stderr, "mxsim_sc_memtest: %s\n", err);
        return 2;
    }
    const mx_dram_config &c = cfg.dram;
    const mx_dram_timing &t = c.t;
    if (!cfg.dram_model || std::fabs(c.tCK_ns - 0.625) > 1e-12 || t.CL != 22 || t.CWL != 16 || t.AL != 0 ||
        t.tRCD != 22 || t.tRP != 22 || t.tRAS != 52 || t.tCCD_L != 8 || t.tWTR_L != 12 || t.tRTP != 12 ||
        t.tRFC != 560 || t.tREFI != 12480 || c.BL != 8 || c.bus_bits != 64 || c.channels != 1 || c.ranks != 1 ||
        c.bankgroups != 4 || c.banks_per_group != 4 || c.columns != 1024 || c.page_policy != MX_PAGE_OPEN ||
        strcmp(c.address_mapping, "rochrababgco") != 0 || !c.refresh) {
        fprintf(stderr, "mxsim_sc_memtest: %s: memory.dram must be the DDR4-3200 preset the expected delays were "
                        "derived for (see the head of sim/systemc/mxsim_sc_memtest.cpp)\n", argv[1]);
        return 2;
    }
    mem_tb tb("tb", c);
    sc_start();
    if (!tb.finished) {
        fprintf(stderr, "FAIL mxsim_sc_memtest: the test thread did not finish\n");
        return 1;
    }
    if (tb.fails) {
        printf("mxsim_sc_memtest: FAILED %d of %d checks\n", tb.fails, tb.checks);
        return 1;
    }
    printf("mxsim_sc_memtest: PASS %d checks (DDR4-3200 b_transport delays derived by hand: closed bank, row hits, "
           "conflict, write, write-to-read, burst split, clock alignment, refresh; no-DRAM channel)\n", tb.checks);
    return 0;
}
