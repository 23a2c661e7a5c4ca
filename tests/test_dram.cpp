// Protocol-level DRAM model (models/mem/mx_dram.h).  Every expected clock
// below is derived by hand from the DDR4-3200 timing numbers written in
// ddr4_3200(); the derivation is in the comment next to each check.
//
// Clock conventions under test (docs/DRAM.md "Model"):
//  - a request added when mx_dram_now() == a may issue its first command in
//    clock a (no extra queueing clock);
//  - a read completes at RD + CL + BL/2, a write at WR + CWL + BL/2 (AL = 0);
//  - one command per channel per clock; row hits before other commands,
//    oldest first within a class; refresh work before both.
#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

extern "C" {
#include "formats/mx_rng.h"
#include "mem/mx_dram.h"
#include "mem/mx_dram_probe.h"
}

namespace {

// DDR4-3200 22-22-22, x8 devices of 8 Gb, one 64-bit channel (SPEC §4.1).
// Currents: IDD0 58 mA and IDD2N 50 mA as given for the Micron 8Gb x8
// DDR4-3200 part; IDD3N 55, IDD4R 165, IDD4W 150, IDD5B 250 mA are
// datasheet-like values in the same range (not copied from a datasheet).
mx_dram_config ddr4_3200()
{
    mx_dram_config c;
    std::memset(&c, 0, sizeof c);
    std::snprintf(c.name, sizeof c.name, "DDR4_8Gb_x8_3200");
    c.channels = 1; c.ranks = 1; c.bankgroups = 4; c.banks_per_group = 4;
    c.rows = 65536; c.columns = 1024; c.device_width = 8; c.bus_bits = 64; c.BL = 8;
    c.tCK_ns = 0.625;
    c.t.CL = 22; c.t.CWL = 16; c.t.AL = 0;
    c.t.tRCD = 22; c.t.tRP = 22; c.t.tRAS = 52; c.t.tRC = 74;
    c.t.tRRD_S = 4; c.t.tRRD_L = 8; c.t.tCCD_S = 4; c.t.tCCD_L = 8; c.t.tFAW = 34;
    c.t.tWTR_S = 4; c.t.tWTR_L = 12; c.t.tWR = 24; c.t.tRTP = 12; c.t.tRTRS = 2;
    c.t.tRFC = 560; c.t.tREFI = 12480; c.t.tCKE = 8; c.t.tXP = 10;
    c.p.VDD = 1.2; c.p.IDD0 = 58; c.p.IDD2N = 50; c.p.IDD3N = 55;
    c.p.IDD4R = 165; c.p.IDD4W = 150; c.p.IDD5 = 250;
    c.page_policy = MX_PAGE_OPEN;
    std::snprintf(c.address_mapping, sizeof c.address_mapping, "rochrababgco");
    c.queue_size = 32; c.write_high = 24; c.write_low = 8;
    c.refresh = 1;
    return c;
}

// "rochrababgco", one channel, one rank: from the LSB, 6 burst-offset bits
// (64 B bursts), 7 column bits (1024 columns / BL 8), 2 bg, 2 ba, 16 row bits.
uint64_t A(int bg, int ba, int row, int col = 0)
{
    return ((((uint64_t)row * 4 + ba) * 4 + bg) * 128 + col) * 64;
}

struct Dram {
    mx_dram *d;
    explicit Dram(const mx_dram_config &c)
    {
        char err[256] = "";
        d = mx_dram_new(&c, err, sizeof err);
        EXPECT_NE(d, nullptr) << err;
    }
    ~Dram() { mx_dram_free(d); }
    uint64_t now() const { return mx_dram_now(d); }
    void add(uint64_t addr, int w, uint64_t id) { ASSERT_EQ(mx_dram_add(d, addr, w, id), 0); }
    void until(uint64_t t) { mx_dram_run_until(d, t); }
    // Runs until `n` completions have been popped; returns done per id.
    std::vector<uint64_t> drain(size_t n, uint64_t max_ids = 64)
    {
        std::vector<uint64_t> done(max_ids, 0);
        size_t got = 0;
        uint64_t last = 0, limit = now() + 2000000; // a broken model must fail, not hang
        while (got < n) {
            if (now() > limit) { ADD_FAILURE() << "requests not completed by clock " << limit; break; }
            mx_dram_done r;
            while (mx_dram_pop_done(d, &r)) {
                EXPECT_LE(last, r.done) << "completion order";
                last = r.done;
                if (r.id < max_ids) done[r.id] = r.done;
                got++;
            }
            if (got >= n) break;
            uint64_t nx = mx_dram_next_event(d);
            if (nx == UINT64_MAX || nx <= now()) { ADD_FAILURE() << "no later event while waiting, clock " << now(); break; }
            mx_dram_run_until(d, nx);
        }
        return done;
    }
    mx_dram_stats stats() const
    {
        mx_dram_stats s;
        mx_dram_get_stats(d, &s);
        return s;
    }
};

// ---- configuration ------------------------------------------------------------

TEST(DramConfig, ValidPresetPasses)
{
    mx_dram_config c = ddr4_3200();
    char err[256] = "";
    EXPECT_EQ(mx_dram_config_check(&c, err, sizeof err), 0) << err;
    EXPECT_EQ(mx_dram_burst_bytes(&c), 64);
    EXPECT_DOUBLE_EQ(mx_dram_peak_gbs(&c), 64.0 / (4 * 0.625)); // 25.6 GB/s
}

TEST(DramConfig, ErrorsNameTheKey)
{
    struct Case { const char *key; void (*edit)(mx_dram_config &); };
    const Case cases[] = {
        {"'ranks'", [](mx_dram_config &c) { c.ranks = 3; }},
        {"'channels'", [](mx_dram_config &c) { c.channels = 0; }},
        {"'bankgroups'", [](mx_dram_config &c) { c.bankgroups = 6; }},
        {"'rows'", [](mx_dram_config &c) { c.rows = 65535; }},
        {"'columns'", [](mx_dram_config &c) { c.columns = 1000; }},
        {"'BL'", [](mx_dram_config &c) { c.BL = 6; }},
        {"'tRC'", [](mx_dram_config &c) { c.t.tRC = 73; }},   // < tRAS + tRP = 74
        {"'tRCD'", [](mx_dram_config &c) { c.t.tRCD = 0; }},
        {"'tREFI'", [](mx_dram_config &c) { c.t.tREFI = 500; }}, // <= tRFC
        {"'address_mapping'", [](mx_dram_config &c) { std::snprintf(c.address_mapping, 16, "rochrababgro"); }},
        {"'address_mapping'", [](mx_dram_config &c) { std::snprintf(c.address_mapping, 16, "rochrababgxx"); }},
        {"'address_mapping'", [](mx_dram_config &c) { std::snprintf(c.address_mapping, 16, "rochrababg"); }},
        {"'write_low'", [](mx_dram_config &c) { c.write_low = c.write_high; }},
        {"'write_high'", [](mx_dram_config &c) { c.write_high = c.queue_size + 1; }},
        {"'IDD0'", [](mx_dram_config &c) { c.p.IDD0 = -1; }},
    };
    for (const Case &k : cases) {
        mx_dram_config c = ddr4_3200();
        k.edit(c);
        char err[256] = "";
        EXPECT_EQ(mx_dram_config_check(&c, err, sizeof err), -1) << k.key;
        EXPECT_NE(std::strstr(err, k.key), nullptr) << k.key << ": " << err;
        EXPECT_EQ(mx_dram_new(&c, err, sizeof err), nullptr) << k.key;
    }
}

TEST(DramConfig, AddressMapping)
{
    mx_dram_config c = ddr4_3200();
    mx_dram_addr a;
    mx_dram_map(&c, A(3, 2, 4660, 77) + 63, &a); // offset bits inside the burst are dropped
    EXPECT_EQ(a.channel, 0); EXPECT_EQ(a.rank, 0);
    EXPECT_EQ(a.bankgroup, 3); EXPECT_EQ(a.bank, 2); EXPECT_EQ(a.row, 4660); EXPECT_EQ(a.column, 77);
    // 2 channels, 2 ranks, "rorabacochbg": from the LSB 6 offset bits, bg 2,
    // ch 1, co 7, ba 2, ra 1, ro 16.
    c.channels = 2; c.ranks = 2;
    std::snprintf(c.address_mapping, sizeof c.address_mapping, "rorabacochbg");
    uint64_t addr = ((((((uint64_t)321 * 2 + 1) * 4 + 2) * 128 + 100) * 2 + 1) * 4 + 3) * 64;
    mx_dram_map(&c, addr, &a);
    EXPECT_EQ(a.channel, 1); EXPECT_EQ(a.rank, 1);
    EXPECT_EQ(a.bankgroup, 3); EXPECT_EQ(a.bank, 2); EXPECT_EQ(a.row, 321); EXPECT_EQ(a.column, 100);
}

// ---- single-command timing ------------------------------------------------------

TEST(DramTiming, ClosedBankReadThenRowHitThenConflict)
{
    Dram m(ddr4_3200());
    m.until(100);
    m.add(A(0, 0, 5), 0, 0);
    // ACT at 100, RD at 100 + tRCD = 122, last beat at 122 + CL + BL/2 = 148
    EXPECT_EQ(m.drain(1)[0], 148u);
    m.until(300);
    m.add(A(0, 0, 5, 1), 0, 1);
    // row hit: RD at 300, done 300 + CL + BL/2 = 326
    EXPECT_EQ(m.drain(1)[1], 326u);
    m.until(500);
    m.add(A(0, 0, 6), 0, 2);
    // conflict, tRAS/tRTP long satisfied: PRE 500, ACT 500 + tRP = 522,
    // RD 522 + tRCD = 544, done 544 + 26 = 570
    EXPECT_EQ(m.drain(1)[2], 570u);
    mx_dram_stats s = m.stats();
    EXPECT_EQ(s.act, 2u); EXPECT_EQ(s.pre, 1u); EXPECT_EQ(s.rd, 2 + 1u);
    EXPECT_EQ(s.row_hits, 1u); EXPECT_EQ(s.row_misses, 2u); EXPECT_EQ(s.row_conflicts, 1u);
    EXPECT_EQ(s.reads_done, 3u);
    EXPECT_EQ(s.read_latency_sum, 48u + 26u + 70u);
}

TEST(DramTiming, ConflictWaitsForTrasFromEarlierAct)
{
    Dram m(ddr4_3200());
    m.until(100);
    m.add(A(0, 0, 5), 0, 0);
    m.until(101);
    m.add(A(0, 0, 6), 0, 1);
    // ACT0 100, RD0 122 (done 148).  PRE >= max(ACT0 + tRAS, RD0 + tRTP) =
    // max(152, 134) = 152; ACT1 >= max(PRE + tRP, ACT0 + tRC) = 174;
    // RD1 196; done 196 + 26 = 222
    std::vector<uint64_t> d = m.drain(2);
    EXPECT_EQ(d[0], 148u);
    EXPECT_EQ(d[1], 222u);
}

TEST(DramTiming, ActToActSpacing)
{
    {   // other bank group: ACTs 100, 100 + tRRD_S = 104; RDs 122, 126
        Dram m(ddr4_3200());
        m.until(100);
        m.add(A(0, 0, 5), 0, 0);
        m.add(A(1, 0, 5), 0, 1);
        std::vector<uint64_t> d = m.drain(2);
        EXPECT_EQ(d[0], 148u);
        EXPECT_EQ(d[1], 152u);
    }
    {   // same bank group: ACTs 100, 100 + tRRD_L = 108; RDs 122, 130
        Dram m(ddr4_3200());
        m.until(100);
        m.add(A(0, 0, 5), 0, 0);
        m.add(A(0, 1, 5), 0, 1);
        std::vector<uint64_t> d = m.drain(2);
        EXPECT_EQ(d[0], 148u);
        EXPECT_EQ(d[1], 156u);
    }
}

TEST(DramTiming, ActToActSameGroupVisible)
{
    // A write opens (bg0,ba0) alone (ACT 100).  A read to (bg0,ba1) at 101
    // takes over (1 write <= write_low): ACT >= 100 + tRRD_L = 108, RD 130,
    // done 156 (with tRRD_S it would be 152: RD at 126 has no other limit).
    // The write then waits for the read: WR >= 130 + CL + BL/2 + 2 - CWL = 142,
    // done 162.
    Dram m(ddr4_3200());
    m.until(100);
    m.add(A(0, 0, 5), 1, 0);
    m.until(101);
    m.add(A(0, 1, 5), 0, 1);
    std::vector<uint64_t> d = m.drain(2);
    EXPECT_EQ(d[1], 156u);
    EXPECT_EQ(d[0], 162u);
}

TEST(DramRefresh, RefWaitsForTrasOfLateAct)
{
    // ACT at 12470 (read arriving then); refresh due at 12480 blocks the RD,
    // and the row must close first: PRE >= ACT + tRAS = 12522, REF >= PRE +
    // tRP = 12544.  The read re-opens the row: ACT 12544 + tRFC = 13104, RD
    // 13126, done 13152.  Two ACTs, one CAS.
    Dram m(ddr4_3200());
    m.until(12470);
    m.add(A(0, 0, 5), 0, 0);
    EXPECT_EQ(m.drain(1)[0], 13152u);
    mx_dram_stats s = m.stats();
    EXPECT_EQ(s.act, 2u);
    EXPECT_EQ(s.pre, 1u);
    EXPECT_EQ(s.ref, 1u);
    EXPECT_EQ(s.row_misses, 1u);
}

TEST(DramTiming, FourActivateWindow)
{
    Dram m(ddr4_3200());
    m.until(100);
    // banks bg0..3 of ba0, then bg0/ba1
    for (int i = 0; i < 4; i++) m.add(A(i, 0, 5), 0, (uint64_t)i);
    m.add(A(0, 1, 5), 0, 4);
    // ACTs 100, 104, 108, 112 (tRRD_S); RDs 122, 126, 130, 134.
    // 5th ACT >= ACT0 + tFAW = 134 (tRRD_S: 116, tRRD_L from ACT0: 108), but
    // clock 134 goes to the row hit RD3, so ACT4 at 135, RD4 at 157, done 183.
    // (Without tFAW: ACT4 at 116, RD4 at 138, done 164.)
    std::vector<uint64_t> d = m.drain(5);
    EXPECT_EQ(d[0], 148u); EXPECT_EQ(d[1], 152u); EXPECT_EQ(d[2], 156u); EXPECT_EQ(d[3], 160u);
    EXPECT_EQ(d[4], 183u);
    EXPECT_GE(d[4] - 48, 100u + 34u); // ACT4 no earlier than ACT0 + tFAW
}

// Opens row 5 in (bg0,ba0), (bg0,ba1), (bg1,ba0) and idles to clock 400.
void open_three(Dram &m)
{
    m.until(100);
    m.add(A(0, 0, 5, 100), 0, 60);
    m.add(A(0, 1, 5, 100), 0, 61);
    m.add(A(1, 0, 5, 100), 0, 62);
    m.drain(3);
    m.until(400);
}

TEST(DramTiming, CasToCasSpacing)
{
    Dram m(ddr4_3200());
    open_three(m);
    m.add(A(0, 0, 5, 1), 0, 0); // same bank: tCCD_L
    m.add(A(0, 0, 5, 2), 0, 1);
    std::vector<uint64_t> d = m.drain(2);
    EXPECT_EQ(d[0], 426u); // RD 400
    EXPECT_EQ(d[1], 434u); // RD 408
    m.until(600);
    m.add(A(0, 0, 5, 3), 0, 2); // other bank group: tCCD_S
    m.add(A(1, 0, 5, 3), 0, 3);
    d = m.drain(2);
    EXPECT_EQ(d[2], 626u);
    EXPECT_EQ(d[3], 630u);
    m.until(800);
    m.add(A(0, 0, 5, 4), 0, 4); // same bank group, other bank: tCCD_L
    m.add(A(0, 1, 5, 4), 0, 5);
    d = m.drain(2);
    EXPECT_EQ(d[4], 826u);
    EXPECT_EQ(d[5], 834u);
}

TEST(DramTiming, WriteToReadAndReadToWrite)
{
    Dram m(ddr4_3200());
    open_three(m);
    // WR at 400 (row hit; the write queue drains because no read waits):
    // done 400 + CWL + BL/2 = 420.  Read to the same bank group at 401:
    // RD >= 400 + CWL + BL/2 + tWTR_L = 432, done 458.
    m.add(A(0, 0, 5, 10), 1, 0);
    m.until(401);
    m.add(A(0, 1, 5, 0), 0, 1);
    std::vector<uint64_t> d = m.drain(2);
    EXPECT_EQ(d[0], 420u);
    EXPECT_EQ(d[1], 458u);
    // other bank group: RD >= 1000 + 16 + 4 + tWTR_S = 1024, done 1050
    m.until(1000);
    m.add(A(0, 0, 5, 11), 1, 2);
    m.until(1001);
    m.add(A(1, 0, 5, 0), 0, 3);
    d = m.drain(2);
    EXPECT_EQ(d[2], 1020u);
    EXPECT_EQ(d[3], 1050u);
    // RD at 1500, then a write: WR >= 1500 + CL + BL/2 + 2 - CWL = 1512,
    // done 1512 + 20 = 1532
    m.until(1500);
    m.add(A(0, 0, 5, 12), 0, 4);
    m.until(1501);
    m.add(A(1, 0, 5, 12), 1, 5);
    d = m.drain(2);
    EXPECT_EQ(d[4], 1526u);
    EXPECT_EQ(d[5], 1532u);
}

TEST(DramTiming, RankToRankSwitch)
{
    mx_dram_config c = ddr4_3200();
    c.ranks = 2; // "rochrababgco": the rank bit sits just above ba
    auto R = [](int ra, int bg, int col) {
        return (((((uint64_t)5 * 2 + ra) * 4 + 0) * 4 + bg) * 128 + col) * 64;
    };
    Dram m(c);
    m.until(100);
    m.add(R(0, 0, 0), 0, 0);
    m.add(R(1, 0, 0), 0, 1);
    m.drain(2);
    m.until(400);
    // RD rank0 at 400; RD rank1 >= 400 + BL/2 + tRTRS = 406
    m.add(R(0, 0, 1), 0, 2);
    m.add(R(1, 0, 1), 0, 3);
    std::vector<uint64_t> d = m.drain(2);
    EXPECT_EQ(d[2], 426u);
    EXPECT_EQ(d[3], 432u);
}

TEST(DramTiming, ReadToWriteOtherRank)
{
    mx_dram_config c = ddr4_3200();
    c.ranks = 2;
    auto R = [](int ra, int col) { return ((((uint64_t)5 * 2 + ra) * 16) * 128 + col) * 64; }; // bg0, ba0, row 5
    Dram m(c);
    m.until(100);
    m.add(R(0, 0), 0, 0); // open row 5 in both ranks
    m.add(R(1, 0), 0, 1);
    m.drain(2);
    m.until(400);
    m.add(R(0, 1), 0, 2); // RD rank 0 at 400 (row hit), data on the bus 422..426
    m.until(401);
    m.add(R(1, 1), 1, 3); // WR rank 1 (row hit; no read waits, the write queue drains)
    // its data may start tRTRS after the read's: WR + CWL >= 400 + CL + BL/2 +
    // tRTRS, WR >= 400 + 22 + 4 + 2 - 16 = 412, done 412 + CWL + BL/2 = 432
    // (without tRTRS: WR 410, done 430)
    std::vector<uint64_t> d = m.drain(2);
    EXPECT_EQ(d[2], 426u);
    EXPECT_EQ(d[3], 432u);
}

TEST(DramTiming, ClosedPageAutoPrecharge)
{
    mx_dram_config c = ddr4_3200();
    c.page_policy = MX_PAGE_CLOSED;
    Dram m(c);
    m.until(100);
    m.add(A(0, 0, 5, 0), 0, 0);
    m.add(A(0, 0, 5, 1), 0, 1);
    // ACT 100, RDA 122 (done 148); its precharge starts at
    // max(RDA + tRTP, ACT + tRAS) = 152; ACT 152 + tRP = 174 (= ACT0 + tRC);
    // RDA 196, done 222.  No row hits although both reads share the row.
    std::vector<uint64_t> d = m.drain(2);
    EXPECT_EQ(d[0], 148u);
    EXPECT_EQ(d[1], 222u);
    m.until(1000);
    m.add(A(0, 0, 5, 2), 0, 2);
    EXPECT_EQ(m.drain(1)[2], 1048u); // closed bank again: tRCD + CL + BL/2
    mx_dram_stats s = m.stats();
    EXPECT_EQ(s.row_hits, 0u);
    EXPECT_EQ(s.row_misses, 3u);
    EXPECT_EQ(s.act, 3u);
    EXPECT_EQ(s.pre, 3u);
}

// ---- scheduler -------------------------------------------------------------------

TEST(DramScheduler, RowHitBeforeOlderConflict)
{
    Dram m(ddr4_3200());
    open_three(m);
    m.add(A(0, 0, 6), 0, 0);     // older, conflicts with open row 5
    m.add(A(0, 0, 5, 1), 0, 1);  // younger row hit
    // hit: RD 400, done 426.  Conflict: PRE >= RD + tRTP = 412, ACT 434,
    // RD 456, done 482.
    std::vector<uint64_t> d = m.drain(2);
    EXPECT_EQ(d[1], 426u);
    EXPECT_EQ(d[0], 482u);
}

TEST(DramScheduler, OlderCommandReadyTheClockAfterACasGoesFirst)
{
    // A CAS wins a clock in which a younger request's ACT is also ready; an
    // older request's PRE becomes ready the next clock.  In that clock both
    // are ready, so the older goes first (oldest first among the earliest);
    // the younger ACT's readiness one clock sooner gives it no precedence.
    Dram m(ddr4_3200());
    m.until(149);
    m.add(A(1, 0, 5), 0, 0);      // ACT bg1 149, RD 171, done 197
    m.until(178);
    m.add(A(3, 0, 5), 0, 1);      // ACT bg3 178, RD 178 + tRCD = 200, done 226
    m.until(190);
    m.add(A(1, 0, 6), 0, 2);      // older conflict in bg1: PRE >= 149 + tRAS = 201
    m.until(200);
    m.add(A(2, 0, 5), 0, 3);      // younger, bg2 closed: ACT ready at 200
    // 200: RD of id 1 (a row hit goes before other commands).
    // 201: id 2's PRE (ready 201, older) before id 3's ACT (ready 200).
    // 202: id 3's ACT, RD 224, done 224 + CL + BL/2 = 250.
    // id 2: ACT 201 + tRP = 223, RD 245, done 271.
    std::vector<uint64_t> d = m.drain(4);
    EXPECT_EQ(d[0], 197u);
    EXPECT_EQ(d[1], 226u);
    EXPECT_EQ(d[3], 250u);
    EXPECT_EQ(d[2], 271u);
}

// With tCCD_L = tCCD_S = BL/2 (as HBM2: a CAS to another bank group costs
// no more than one to the same) the rank's time after a CAS bounds every
// group's, and the hit class is chosen without reading the group times
// (rescan_cas_hits' floor).  A bank opened since, or a group still under a
// write-to-read turnaround, must still hold its hit back.
TEST(DramScheduler, OldestHitWaitsForItsBankAndGroup)
{
    mx_dram_config c = ddr4_3200();
    c.t.tCCD_L = 4; // = tCCD_S = BL/2: rd_rd_L = rd_rd_S = 4
    {
        Dram m(c);
        open_three(m); // rows 5 open in bg0/ba0, bg0/ba1, bg1/ba0
        m.add(A(2, 0, 5), 0, 1);    // oldest, bank closed
        m.add(A(0, 0, 5, 1), 0, 0); // hits
        m.add(A(0, 1, 5, 1), 0, 2);
        m.add(A(1, 0, 5, 1), 0, 3);
        // RD id 0 at 400; ACT id 1 at 401 (its RD >= 401 + tRCD = 423); RD
        // id 2 at 404; then id 3 at 408, not the older id 1 (its bank is
        // not ready before 423).  Done = RD + CL + BL/2 = RD + 26.
        std::vector<uint64_t> d = m.drain(4);
        EXPECT_EQ(d[0], 426u);
        EXPECT_EQ(d[2], 430u);
        EXPECT_EQ(d[3], 434u);
        EXPECT_EQ(d[1], 449u);
    }
    {
        Dram m(c);
        open_three(m);
        m.add(A(0, 0, 5, 2), 1, 9); // WR bg0 at 400 (done 420)
        m.until(401);
        m.add(A(0, 1, 5, 1), 0, 0); // older read in bg0: RD >= 400 + CWL + BL/2 + tWTR_L = 432
        m.add(A(1, 0, 5, 1), 0, 1); // younger in bg1: RD >= 400 + CWL + BL/2 + tWTR_S = 424
        std::vector<uint64_t> d = m.drain(3);
        EXPECT_EQ(d[9], 420u);
        EXPECT_EQ(d[1], 450u);
        EXPECT_EQ(d[0], 458u);
    }
}

TEST(DramScheduler, PendingHitKeepsRowOpen)
{
    Dram m(ddr4_3200());
    open_three(m);
    m.add(A(1, 0, 5, 3), 1, 9);   // WR bg1 at 400 (done 420)
    m.until(401);
    m.add(A(0, 0, 6), 0, 0);      // conflict in bg0/ba0: its PRE is legal at 401...
    m.add(A(0, 0, 5, 1), 0, 1);   // ...but this hit to the open row is pending
    // hit: RD >= WR + CWL + BL/2 + tWTR_S = 424, done 450.  Then PRE at
    // 424 + tRTP = 436, ACT 458, RD 480, done 506.
    std::vector<uint64_t> d = m.drain(3);
    EXPECT_EQ(d[9], 420u);
    EXPECT_EQ(d[1], 450u);
    EXPECT_EQ(d[0], 506u);
}

TEST(DramScheduler, ReadServedFromWriteQueue)
{
    Dram m(ddr4_3200());
    m.until(100);
    m.add(A(2, 3, 7, 9), 1, 0);
    m.add(A(2, 3, 7, 9) + 8, 0, 1); // same burst
    std::vector<uint64_t> d = m.drain(2);
    EXPECT_EQ(d[1], 101u);          // answered from the write queue, one clock later
    EXPECT_EQ(d[0], 100u + 22 + 16 + 4); // ACT 100, WR 122, done WR + CWL + BL/2
    EXPECT_EQ(m.stats().rd, 0u);
}

TEST(DramScheduler, QueueFullRefusesAndWritesDrainAtHighWatermark)
{
    mx_dram_config c = ddr4_3200();
    c.queue_size = 4; c.write_high = 3; c.write_low = 1;
    Dram m(c);
    m.until(100);
    for (int i = 0; i < 4; i++) m.add(A(i, 0, 5), 0, (uint64_t)i);
    EXPECT_FALSE(mx_dram_can_accept(m.d, A(0, 0, 9), 0));
    EXPECT_EQ(mx_dram_add(m.d, A(0, 0, 9), 0, 99), -1);
    EXPECT_TRUE(mx_dram_can_accept(m.d, A(0, 0, 9), 1));
    // The 3rd write reaches write_high = 3 while 4 reads wait: writes drain
    // down to write_low = 1, then reads, then the last write (no read left).
    for (int i = 0; i < 3; i++) m.add(A(i, 1, 5), 1, (uint64_t)(10 + i));
    // Writes: ACT bg0 100, bg1 104, bg2 108 (tRRD_S); WR 122 (done 142),
    // WR 126 (done 146): one write left = write_low, reads take over at 127.
    // Reads: ACT 127, 131, 135, then bg3 waits for tFAW: the last four ACTs
    // are 108, 127, 131, 135 -> 108 + 34 = 142.  RD0 (bg0) >= max(ACT + tRCD =
    // 149, WR bg0 122 + CWL + BL/2 + tWTR_L = 154) = 154; RD1 (bg1) >=
    // max(153, 126 + 32) = 158; RD2 >= max(157, 158 + tCCD_S) = 162; RD3 >=
    // max(164, 166) = 166 (done +26: 180, 184, 188, 192).  Then no read
    // waits: the last write, WR >= 166 + CL + BL/2 + 2 - CWL = 178, done 198.
    std::vector<uint64_t> d = m.drain(7);
    EXPECT_EQ(d[10], 142u);
    EXPECT_EQ(d[11], 146u);
    EXPECT_EQ(d[0], 180u);
    EXPECT_EQ(d[1], 184u);
    EXPECT_EQ(d[2], 188u);
    EXPECT_EQ(d[3], 192u);
    EXPECT_EQ(d[12], 198u);
}

// The store DMA's throttle (mx_cycle.c): a write is offered only while one
// more leaves the channel's write queue below write_high, so a writer that
// waits for it never forces a drain.  write_high = 3: room for the 1st and
// 2nd write (0 + 1 < 3, 1 + 1 < 3), none for a 3rd (2 + 1 = 3), though the
// queue (size 4) could take it.
TEST(DramScheduler, WriteBelowDrainWatermark)
{
    mx_dram_config c = ddr4_3200();
    c.queue_size = 4; c.write_high = 3; c.write_low = 1;
    Dram m(c);
    m.until(100);
    EXPECT_TRUE(mx_dram_write_below_drain(m.d, A(0, 1, 5)));
    m.add(A(0, 1, 5), 1, 1);
    EXPECT_TRUE(mx_dram_write_below_drain(m.d, A(1, 1, 5)));
    m.add(A(1, 1, 5), 1, 2);
    EXPECT_FALSE(mx_dram_write_below_drain(m.d, A(2, 1, 5)));
    EXPECT_TRUE(mx_dram_can_accept(m.d, A(2, 1, 5), 1));

    // A drain runs down to write_low = 0 once started: one write and no read
    // starts it; a read arriving then waits for the buffered write, and a
    // further write would lengthen the drain, so none is offered (1 + 1 < 4).
    c.write_high = 4; c.write_low = 0;
    Dram d2(c);
    d2.until(100);
    d2.add(A(0, 1, 5), 1, 1);
    EXPECT_TRUE(mx_dram_write_below_drain(d2.d, A(1, 1, 5))); // no read waits
    d2.add(A(1, 0, 7), 0, 2);
    EXPECT_FALSE(mx_dram_write_below_drain(d2.d, A(1, 1, 5)));
}

// mx_dram_queue_epoch, the cycle engine's cue to retry a refused DMA
// request: it moves when a queue gains a request or a CAS takes one out, and
// only then (an ACT, a refusal, an idle clock leave the queues as they were).
// Hand timeline, ddr4_3200(): one read of a closed bank at clock 0 takes its
// ACT at 0 and its RD at tRCD = 22.
TEST(DramScheduler, QueueEpochMovesWithTheQueuesOnly)
{
    mx_dram_config c = ddr4_3200();
    c.queue_size = 1; c.write_high = 1; c.write_low = 0;
    Dram m(c);
    const uint64_t e0 = mx_dram_queue_epoch(m.d);
    m.add(A(0, 0, 5), 0, 1); // the read queue is now full
    const uint64_t e1 = mx_dram_queue_epoch(m.d);
    EXPECT_NE(e1, e0);
    EXPECT_EQ(mx_dram_dma_add(m.d, A(1, 0, 5), 0, 2), -1); // refused: no change
    EXPECT_EQ(mx_dram_queue_epoch(m.d), e1);
    m.until(22); // clocks 0..21: the ACT issues, the RD not yet
    EXPECT_EQ(m.stats().act, 1u);
    EXPECT_EQ(mx_dram_queue_epoch(m.d), e1);
    EXPECT_EQ(mx_dram_dma_add(m.d, A(1, 0, 5), 0, 2), -1); // still full: refused again
    m.until(23); // clock 22: the RD leaves the queue
    EXPECT_NE(mx_dram_queue_epoch(m.d), e1);
    EXPECT_EQ(mx_dram_dma_add(m.d, A(1, 0, 5), 0, 2), 0); // and the retry is taken
}

// mx_dram_refusal_epoch: the per-kind cue.  Whenever the answer of
// mx_dram_dma_add for a read (the read queue has room) or for a write
// (mx_dram_write_below_drain) changes, that kind's epoch must have moved, or
// the cycle engine would skip a retry that would now be taken.  Checked at
// every event of seeded random traffic (reads and writes to two channels,
// small queues and watermarks so that refusals, drains and their ends are
// frequent), against the answers themselves; and by hand: a read queued
// behind others leaves the write epoch alone.
TEST(DramScheduler, RefusalEpochMovesWheneverTheAnswerDoes)
{
    mx_dram_config c = ddr4_3200();
    c.channels = 2;
    std::snprintf(c.address_mapping, sizeof c.address_mapping, "rorababgcoch");
    // a drain begun with 2..3 writes queued runs on when a read arrives,
    // and the read alone then refuses the next write (2 + 1 < 5 otherwise)
    c.queue_size = 6; c.write_high = 5; c.write_low = 1;
    int moves[2] = {0, 0};
    for (uint64_t seed = 1; seed <= 20; seed++) {
        Dram m(c);
        uint64_t x = seed * 0x9E3779B97F4A7C15ull;
        auto rnd = [&x](uint64_t n) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x % n; };
        const uint64_t probe[2] = {0, 64}; // one address in each channel (ch is the lowest field)
        int ans[2][2];
        uint64_t ep[2];
        auto look = [&](int a[2][2], uint64_t e[2]) {
            for (int ch = 0; ch < 2; ch++) {
                a[ch][0] = mx_dram_can_accept(m.d, probe[ch], 0);
                a[ch][1] = mx_dram_write_below_drain(m.d, probe[ch]);
            }
            e[0] = mx_dram_refusal_epoch(m.d, 0);
            e[1] = mx_dram_refusal_epoch(m.d, 1);
        };
        look(ans, ep);
        for (int step = 0; step < 400; step++) {
            if (rnd(3) != 0) { // a request (refused or not), or the next event
                const uint64_t addr = rnd(2) * 64 + rnd(4) * 128 * 64 + rnd(3) * 65536 * 64;
                (void)mx_dram_dma_add(m.d, addr, (int)rnd(2), (uint64_t)step);
            } else {
                const uint64_t nx = mx_dram_next_event(m.d);
                if (nx != UINT64_MAX) mx_dram_run_until(m.d, nx);
            }
            mx_dram_done r;
            while (mx_dram_pop_done(m.d, &r)) {}
            int a2[2][2];
            uint64_t e2[2];
            look(a2, e2);
            for (int ch = 0; ch < 2; ch++)
                for (int w = 0; w < 2; w++)
                    if (a2[ch][w] != ans[ch][w]) {
                        moves[w]++;
                        EXPECT_NE(e2[w], ep[w]) << "seed " << seed << " step " << step << " channel " << ch
                                                << (w ? " write" : " read") << " answer changed, epoch did not";
                    }
            std::memcpy(ans, a2, sizeof ans);
            std::memcpy(ep, e2, sizeof ep);
        }
    }
    EXPECT_GT(moves[0], 50); // the traffic does refuse and accept both kinds
    EXPECT_GT(moves[1], 50);

    // By hand: writes and reads queued in one channel, reads waiting (no
    // drain).  A second read moves only the read epoch; the first read, or a
    // write, moves the write epoch.
    Dram m(ddr4_3200());
    uint64_t w0 = mx_dram_refusal_epoch(m.d, 1), r0 = mx_dram_refusal_epoch(m.d, 0);
    m.add(A(0, 0, 5), 1, 1);
    EXPECT_NE(mx_dram_refusal_epoch(m.d, 1), w0);
    EXPECT_EQ(mx_dram_refusal_epoch(m.d, 0), r0);
    w0 = mx_dram_refusal_epoch(m.d, 1);
    m.add(A(1, 0, 5), 0, 2); // reads now wait: a write's answer may change
    EXPECT_NE(mx_dram_refusal_epoch(m.d, 1), w0);
    EXPECT_NE(mx_dram_refusal_epoch(m.d, 0), r0);
    w0 = mx_dram_refusal_epoch(m.d, 1);
    r0 = mx_dram_refusal_epoch(m.d, 0);
    m.add(A(2, 0, 5), 0, 3); // more reads waiting: nothing a write reads
    EXPECT_EQ(mx_dram_refusal_epoch(m.d, 1), w0);
    EXPECT_NE(mx_dram_refusal_epoch(m.d, 0), r0);
}

// The probe issues writes as the accelerator's DMA does: only while the
// channel's write queue stays below write_high (mx_dram_write_below_drain),
// so a store with write_high or more bursts in one channel waits for that
// channel's drain.  ddr4_3200(): write_high 24.  One row of one bank:
//  - 23 bursts all enter at clock 0 (0 + 1 < 24 ... 22 + 1 < 24);
//  - the 24th enters once a write has left the queue: no read waits, so the
//    drain starts at once; ACT in clock 0, the first WR in clock tRCD = 22
//    frees a slot, seen from the next clock on (a clock's requests are added
//    before its commands): the 24th is accepted at clock 23.
// (With mx_dram_can_accept, as before, all 24 entered at clock 0.)
struct BurstsOfOneRow {
    int left;
    uint64_t col = 0;
};
int next_of_one_row(void *src, uint64_t *addr)
{
    BurstsOfOneRow *b = static_cast<BurstsOfOneRow *>(src);
    if (b->left-- <= 0) return 0;
    *addr = A(0, 1, 5, (int)b->col++);
    return 1;
}

TEST(DramProbe, WritesEnterBelowTheDrainWatermark)
{
    const mx_dram_config c = ddr4_3200();
    char err[256] = "";
    mx_dram_probe p;
    BurstsOfOneRow b23{23};
    ASSERT_EQ(mx_dram_probe_run(&c, next_of_one_row, &b23, 1, &p, err, sizeof err), 0) << err;
    EXPECT_EQ(p.bursts, 23u);
    EXPECT_EQ(p.accept_clock, 0u);
    BurstsOfOneRow b24{24};
    ASSERT_EQ(mx_dram_probe_run(&c, next_of_one_row, &b24, 1, &p, err, sizeof err), 0) << err;
    EXPECT_EQ(p.bursts, 24u);
    EXPECT_EQ(p.accept_clock, (uint64_t)c.t.tRCD + 1);
    // reads fill the whole queue (queue_size 32) at once
    BurstsOfOneRow r32{32};
    ASSERT_EQ(mx_dram_probe_run(&c, next_of_one_row, &r32, 0, &p, err, sizeof err), 0) << err;
    EXPECT_EQ(p.accept_clock, 0u);
}

// ---- refresh -----------------------------------------------------------------------

TEST(DramRefresh, OneRefPerRankPerTrefi)
{
    mx_dram_config c = ddr4_3200();
    {
        Dram m(c);
        m.until(10 * 12480 + 5); // REFs at clocks 12480 * k, k = 1..10
        mx_dram_stats s = m.stats();
        EXPECT_EQ(s.ref, 10u);
        EXPECT_EQ(s.act + s.pre + s.rd + s.wr, 0u);
        EXPECT_EQ(s.cycles, 10u * 12480 + 5);
    }
    c.ranks = 2; // staggered: rank 0 at 6240 + 12480k, rank 1 at 12480(k+1)
    {
        Dram m(c);
        m.until(10 * 12480 + 5);
        EXPECT_EQ(m.stats().ref, 20u);
    }
    c.ranks = 1; c.refresh = 0;
    {
        Dram m(c);
        m.until(10 * 12480 + 5);
        EXPECT_EQ(m.stats().ref, 0u);
    }
}

TEST(DramRefresh, ReadAfterRefWaitsTrfc)
{
    Dram m(ddr4_3200());
    m.until(12481); // REF at 12480
    EXPECT_EQ(m.stats().ref, 1u);
    m.add(A(0, 0, 5), 0, 0);
    // ACT >= REF + tRFC = 13040, done 13040 + 48
    EXPECT_EQ(m.drain(1)[0], 13088u);
}

TEST(DramRefresh, OpenRowPrechargedBeforeRef)
{
    Dram m(ddr4_3200());
    m.until(100);
    m.add(A(0, 0, 5), 0, 0);
    m.drain(1);
    m.until(12481); // due at 12480: PRE 12480, REF 12480 + tRP = 12502
    m.add(A(0, 0, 5, 1), 0, 1);
    // the row was closed by the refresh: ACT 12502 + tRFC = 13062, done 13110
    EXPECT_EQ(m.drain(1)[1], 13110u);
    mx_dram_stats s = m.stats();
    EXPECT_EQ(s.ref, 1u);
    EXPECT_EQ(s.pre, 1u);
    EXPECT_EQ(s.act, 2u);
}

// ---- bandwidth -------------------------------------------------------------------------

TEST(DramBandwidth, StreamingReadNearPeakMinusRefresh)
{
    mx_dram_config c = ddr4_3200();
    // bank group in the lowest bits: consecutive bursts alternate groups, so
    // tCCD_S = BL/2 and the data bus can stay busy
    std::snprintf(c.address_mapping, sizeof c.address_mapping, "rochrabacobg");
    Dram m(c);
    const uint64_t N = 60000;
    uint64_t id = 0, got = 0, last = 0;
    while (got < N && m.now() < 4 * N * 2) { // the limit: twice the peak-rate time
        while (id < N && mx_dram_can_accept(m.d, id * 64, 0)) m.add(id * 64, 0, id), id++;
        mx_dram_done r;
        while (mx_dram_pop_done(m.d, &r)) got++, last = r.done;
        mx_dram_tick(m.d);
    }
    // Peak: one burst per BL/2 = 4 clocks.  Per refresh the bus loses at most
    // tRTP + tRP (close rows) + tRFC + tRCD (reopen) = 12 + 22 + 560 + 22 = 616
    // clocks; plus the first access tRCD + CL + BL/2 = 48 and one ACT->RD bubble
    // per row change (every 512 bursts at most tRCD = 22 clocks).
    ASSERT_EQ(got, N);
    const double busy = 4.0 * N;
    const double refreshes = std::floor((double)last / 12480.0);
    const double bound = busy + refreshes * 616 + 48 + (N / 512.0 + 1) * 22;
    EXPECT_LE((double)last, bound);
    EXPECT_GE((double)last, busy + refreshes * 560); // never faster than the bus allows
    double gbs = N * 64.0 / (last * 0.625);
    EXPECT_GE(gbs, 25.6 * (1 - 616.0 / 12480) - 25.6 * 0.05);
    EXPECT_LE(gbs, 25.6);
    mx_dram_stats s = m.stats();
    EXPECT_EQ(s.rd, N);
    EXPECT_GE(s.act, s.row_misses); // an ACT may be undone by a refresh before its CAS
    std::printf("streaming: %.2f GB/s of 25.6 peak, end clock %llu, %llu REF\n", gbs,
                (unsigned long long)last, (unsigned long long)s.ref);
}

// ---- energy -------------------------------------------------------------------------------

TEST(DramEnergy, PerCommandByHand)
{
    mx_dram_config c = ddr4_3200();
    double pj[MX_DRAM_E_N];
    mx_dram_energy_per_command(&c, pj);
    // k = VDD * tCK * devices = 1.2 V * 0.625 ns * 8 = 6.0 pJ per mA-clock
    EXPECT_NEAR(pj[MX_DRAM_E_ACT], 6.0 * (58 - 55) * 52, 1e-9);     // 936
    EXPECT_NEAR(pj[MX_DRAM_E_PRE], 6.0 * (58 - 50) * 22, 1e-9);     // 1056
    EXPECT_NEAR(pj[MX_DRAM_E_RD], 6.0 * (165 - 55) * 4, 1e-9);      // 2640
    EXPECT_NEAR(pj[MX_DRAM_E_WR], 6.0 * (150 - 55) * 4, 1e-9);      // 2280
    EXPECT_NEAR(pj[MX_DRAM_E_REF], 6.0 * (250 - 55) * 560, 1e-6);   // 655200
    EXPECT_NEAR(pj[MX_DRAM_E_BG_ACT], 6.0 * 55, 1e-9);              // 330
    EXPECT_NEAR(pj[MX_DRAM_E_BG_PRE], 6.0 * 50, 1e-9);              // 300
    EXPECT_STREQ(mx_dram_energy_name(MX_DRAM_E_REF), "ref");
}

TEST(DramEnergy, KnownSequenceByHand)
{
    {   // open page: ACT at 0, RD at 22, row open for clocks 0..999
        Dram m(ddr4_3200());
        m.add(A(0, 0, 5), 0, 0);
        m.until(1000);
        mx_dram_stats s = m.stats();
        EXPECT_NEAR(s.energy_pj[MX_DRAM_E_BG_ACT], 1000 * 330.0, 1e-6);
        EXPECT_NEAR(s.energy_pj[MX_DRAM_E_BG_PRE], 0.0, 1e-9);
        EXPECT_NEAR(s.energy_total_pj, 936 + 2640 + 1000 * 330.0, 1e-6);
    }
    {   // closed page: the bank counts as closed from the RDA clock (22):
        // 22 active clocks, 978 precharged clocks, plus one PRE
        mx_dram_config c = ddr4_3200();
        c.page_policy = MX_PAGE_CLOSED;
        Dram m(c);
        m.add(A(0, 0, 5), 0, 0);
        m.until(1000);
        mx_dram_stats s = m.stats();
        EXPECT_NEAR(s.energy_total_pj, 936 + 2640 + 1056 + 22 * 330.0 + 978 * 300.0, 1e-6);
    }
    {   // idle through one refresh: 20000 precharged clocks and one REF
        Dram m(ddr4_3200());
        m.until(20000);
        mx_dram_stats s = m.stats();
        EXPECT_EQ(s.ref, 1u);
        EXPECT_NEAR(s.energy_total_pj, 655200 + 20000 * 300.0, 1e-6);
    }
}

// ---- event skipping == clock by clock ---------------------------------------------------

struct Req { uint64_t t, addr; int w; };
struct Out { uint64_t id, done, arrive; int w; };

// skip: event by event (else clock by clock); take: completions by
// mx_dram_take_done (any order) instead of mx_dram_pop_done; late: popped
// only at the end (all three kinds due at once: the pops must merge them)
std::vector<Out> run_trace(const mx_dram_config &c, const std::vector<Req> &tr, bool skip, uint64_t end,
                           mx_dram_stats *st, bool take = false, bool late = false)
{
    std::vector<Out> out;
    char err[256];
    mx_dram *d = mx_dram_new(&c, err, sizeof err);
    EXPECT_NE(d, nullptr) << err;
    if (!d) return out;
    size_t next = 0;
    for (;;) {
        while (next < tr.size() && tr[next].t <= mx_dram_now(d) && mx_dram_can_accept(d, tr[next].addr, tr[next].w)) {
            EXPECT_EQ(mx_dram_add(d, tr[next].addr, tr[next].w, next), 0);
            next++;
        }
        mx_dram_done r;
        const bool now_pop = !late || mx_dram_now(d) >= end;
        if (now_pop && take)
            for (const mx_dram_done *t; (t = mx_dram_take_done(d)) != nullptr;) {
                EXPECT_LE(t->done, mx_dram_now(d)) << "taken before it completed";
                out.push_back({t->id, t->done, t->arrive, t->is_write});
            }
        else if (now_pop)
            while (mx_dram_pop_done(d, &r)) out.push_back({r.id, r.done, r.arrive, r.is_write});
        if (mx_dram_now(d) >= end) break;
        if (!skip) { mx_dram_tick(d); continue; }
        uint64_t target = mx_dram_next_event(d);
        if (target <= mx_dram_now(d)) { ADD_FAILURE() << "next event " << target << " not after now"; break; }
        if (next < tr.size() && tr[next].t > mx_dram_now(d) && tr[next].t < target) target = tr[next].t;
        if (target > end) target = end;
        mx_dram_run_until(d, target);
    }
    mx_dram_get_stats(d, st);
    mx_dram_free(d);
    return out;
}

TEST(DramEvents, RunUntilEqualsTickByTick)
{
    for (int variant = 0; variant < 4; variant++) {
        mx_dram_config c = ddr4_3200();
        if (variant & 1) { c.page_policy = MX_PAGE_CLOSED; }
        if (variant & 2) {
            c.channels = 2; c.ranks = 2; c.queue_size = 6; c.write_high = 4; c.write_low = 1;
            std::snprintf(c.address_mapping, sizeof c.address_mapping, "rorabacochbg");
        }
        uint64_t rng = 1234 + (uint64_t)variant;
        std::vector<Req> tr;
        uint64_t t = 0;
        for (int i = 0; i < 10000; i++) {
            uint64_t u = mx_rng_next(&rng);
            t += (u % 4 == 0) ? u % 300 : (u >> 8) % 3; // bursts of arrivals, idle gaps
            uint64_t addr;
            switch ((u >> 20) % 3) {
            case 0: addr = (mx_rng_next(&rng) % (1u << 22)) * 64; break;          // random, few rows
            case 1: addr = (uint64_t)i * 64; break;                                // streaming
            default: addr = ((mx_rng_next(&rng) % 4) << 20) + (u % 8) * 64; break; // bank conflicts
            }
            tr.push_back({t, addr, (int)((u >> 30) % 3 == 0)});
        }
        const uint64_t end = t + 40000; // past a few refreshes after the last arrival
        mx_dram_stats a, b;
        std::vector<Out> oa = run_trace(c, tr, false, end, &a);
        std::vector<Out> ob = run_trace(c, tr, true, end, &b);
        ASSERT_EQ(oa.size(), tr.size()) << variant;
        ASSERT_EQ(ob.size(), oa.size()) << variant;
        for (size_t i = 0; i < oa.size(); i++) {
            ASSERT_EQ(oa[i].id, ob[i].id) << variant << " #" << i;
            ASSERT_EQ(oa[i].done, ob[i].done) << variant << " #" << i;
            ASSERT_EQ(oa[i].arrive, ob[i].arrive) << variant << " #" << i;
            if (i) { EXPECT_LE(oa[i - 1].done, oa[i].done); }
            EXPECT_GT(oa[i].done, oa[i].arrive);
        }
        // mx_dram_take_done: the same completions (each once, same fields),
        // in any order; reads served from the write queue included
        mx_dram_stats tk;
        std::vector<Out> ot = run_trace(c, tr, true, end, &tk, true);
        auto by_done = [](const Out &x, const Out &y) {
            return x.done != y.done ? x.done < y.done : x.id < y.id;
        };
        std::vector<Out> sa = oa;
        std::sort(sa.begin(), sa.end(), by_done);
        std::sort(ot.begin(), ot.end(), by_done);
        ASSERT_EQ(ot.size(), sa.size()) << variant;
        for (size_t i = 0; i < sa.size(); i++) {
            ASSERT_EQ(ot[i].id, sa[i].id) << variant << " #" << i;
            ASSERT_EQ(ot[i].done, sa[i].done) << variant << " #" << i;
            ASSERT_EQ(ot[i].arrive, sa[i].arrive) << variant << " #" << i;
            ASSERT_EQ(ot[i].w, sa[i].w) << variant << " #" << i;
        }
        EXPECT_EQ(tk.cycles, a.cycles) << variant;
        // popped all at once: still in completion order, the same requests
        mx_dram_stats lt;
        std::vector<Out> ol = run_trace(c, tr, true, end, &lt, false, true);
        ASSERT_EQ(ol.size(), oa.size()) << variant;
        for (size_t i = 1; i < ol.size(); i++) ASSERT_LE(ol[i - 1].done, ol[i].done) << variant << " #" << i;
        std::sort(ol.begin(), ol.end(), by_done);
        for (size_t i = 0; i < sa.size(); i++) ASSERT_EQ(ol[i].id, sa[i].id) << variant << " #" << i;
        EXPECT_GT(a.reads_done, a.rd) << variant; // some reads were served from the write queue
        EXPECT_EQ(a.cycles, b.cycles);
        EXPECT_EQ(a.reads_done, b.reads_done);
        EXPECT_EQ(a.writes_done, b.writes_done);
        EXPECT_EQ(a.read_latency_sum, b.read_latency_sum);
        EXPECT_EQ(a.act, b.act); EXPECT_EQ(a.pre, b.pre); EXPECT_EQ(a.rd, b.rd);
        EXPECT_EQ(a.wr, b.wr); EXPECT_EQ(a.ref, b.ref);
        EXPECT_EQ(a.row_hits, b.row_hits); EXPECT_EQ(a.row_misses, b.row_misses);
        EXPECT_EQ(a.row_conflicts, b.row_conflicts);
        for (int e = 0; e < MX_DRAM_E_N; e++) EXPECT_EQ(a.energy_pj[e], b.energy_pj[e]) << variant << " " << e;
        EXPECT_EQ(a.rd + a.wr + (a.reads_done - a.rd), tr.size()) << variant; // forwarded reads issue no RD
        EXPECT_EQ(a.row_hits + a.row_misses, a.rd + a.wr);
        EXPECT_GE(a.ref, (end - 1) / 12480 * (uint64_t)(c.channels * c.ranks) - (uint64_t)(c.channels * c.ranks));
    }
}

} // namespace

// ---- mx_dram_run_until_wake: the clocks a caller stepping event by event
// would stop at, and only those it asks for -------------------------------
// Four reads of one row (bank group 0, bank 0, row 5), columns 0..3, added at
// clock 0: ACT in clock 0, RDs in tRCD = 22 and then tCCD_L = 8 apart (one
// bank group): 22, 30, 38, 46; each done CL + BL/2 = 26 later: 48, 56, 64, 72.
TEST(DramWake, StopsWhenTheAskedCompletionsAreDone)
{
    Dram m(ddr4_3200());
    for (int i = 0; i < 4; i++) m.add(A(0, 0, 5, i), 0, (uint64_t)i);
    ASSERT_EQ(mx_dram_run_until_wake(m.d, UINT64_MAX, 2, 0, nullptr, nullptr), 0);
    EXPECT_EQ(m.now(), 56u); // the second completion, not a clock later
    mx_dram_done r;
    ASSERT_TRUE(mx_dram_pop_done(m.d, &r));
    EXPECT_EQ(r.done, 48u);
    ASSERT_TRUE(mx_dram_pop_done(m.d, &r));
    EXPECT_EQ(r.done, 56u);
    EXPECT_FALSE(mx_dram_pop_done(m.d, &r));
    // `until` comes first: clock 60 holds no completion (the third is at 64)
    ASSERT_EQ(mx_dram_run_until_wake(m.d, 60, 2, 0, nullptr, nullptr), 0);
    EXPECT_EQ(m.now(), 60u);
    EXPECT_FALSE(mx_dram_pop_done(m.d, &r));
    ASSERT_EQ(mx_dram_run_until_wake(m.d, UINT64_MAX, 2, 0, nullptr, nullptr), 0);
    EXPECT_EQ(m.now(), 72u);
    ASSERT_TRUE(mx_dram_pop_done(m.d, &r));
    EXPECT_EQ(r.done, 64u);
    ASSERT_TRUE(mx_dram_pop_done(m.d, &r));
    EXPECT_EQ(r.done, 72u);
    EXPECT_EQ(m.stats().reads_done, 4u);
    // nothing in flight and nothing asked: an error, not a hang
    EXPECT_EQ(mx_dram_run_until_wake(m.d, UINT64_MAX, 1, 0, nullptr, nullptr), -1);
}

// A full read queue (queue_size 2) and a DMA that retries when the queue
// moves: the RD of column 0 in clock 22 frees a slot, seen from clock 23
// (a clock's requests are added before its commands), the RD of column 1 in
// 30 (tCCD_L), of column 2 (added at 23) in 38.  The feed runs at 23, 31, 39.
struct WakeFeed {
    mx_dram *d;
    int col = 2, calls = 0, last_call = 3, wake_at_call = 0;
    uint64_t at[8] = {};
};
int wake_feed(void *ctx)
{
    WakeFeed *f = static_cast<WakeFeed *>(ctx);
    f->at[f->calls++] = mx_dram_now(f->d);
    EXPECT_EQ(mx_dram_dma_add(f->d, A(0, 0, 5, f->col), 0, (uint64_t)f->col), 0);
    f->col++;
    if (f->calls == f->wake_at_call) return MX_DRAM_FEED_WAKE;
    return f->calls < f->last_call ? MX_DRAM_FEED_REFUSED : 0;
}

TEST(DramWake, RefusedDmaFedWhenTheQueueMoves)
{
    mx_dram_config c = ddr4_3200();
    c.queue_size = 2; c.write_high = 2; c.write_low = 1; // no writes here
    {
        Dram m(c);
        m.add(A(0, 0, 5, 0), 0, 0);
        m.add(A(0, 0, 5, 1), 0, 1);
        EXPECT_EQ(mx_dram_dma_add(m.d, A(0, 0, 5, 2), 0, 2), -1); // full
        ASSERT_EQ(mx_dram_run_until_wake(m.d, UINT64_MAX, 0, 1, nullptr, nullptr), 0);
        EXPECT_EQ(m.now(), 23u); // no feed: the caller wakes at the first slot
        EXPECT_EQ(m.stats().rd, 1u);
    }
    {
        Dram m(c);
        m.add(A(0, 0, 5, 0), 0, 0);
        m.add(A(0, 0, 5, 1), 0, 1);
        WakeFeed f{m.d};
        ASSERT_EQ(mx_dram_run_until_wake(m.d, 100, 0, 1, wake_feed, &f), 0);
        ASSERT_EQ(f.calls, 3); // the third returned 0: no more watching
        EXPECT_EQ(f.at[0], 23u);
        EXPECT_EQ(f.at[1], 31u);
        EXPECT_EQ(f.at[2], 39u);
        EXPECT_EQ(m.now(), 100u);
        // columns 0..4: RDs at 22, 30, 38, 46, 54, done 26 later, all by 100
        EXPECT_EQ(m.stats().reads_done, 5u);
    }
    {
        Dram m(c);
        m.add(A(0, 0, 5, 0), 0, 0);
        m.add(A(0, 0, 5, 1), 0, 1);
        WakeFeed f{m.d};
        f.wake_at_call = 2;
        ASSERT_EQ(mx_dram_run_until_wake(m.d, 100, 0, 1, wake_feed, &f), 0);
        EXPECT_EQ(f.calls, 2);
        EXPECT_EQ(m.now(), 31u); // stopped where the feed asked
    }
}

// mx_dram_dma_pend: the model adds a refused DMA's next requests itself, at
// the clocks a feed retrying them would (the example above: a read queue of
// 2 with columns 0 and 1 of bank group 0, bank 0, row 5 in it from clock 0;
// the RDs at 22, 30, 38, 46, 54 free a slot each, seen from the next clock).
// Columns 2, 3, 4 pending: added at 23, 31 and 39 (their arrival clocks),
// the feed called only at 39, when the list ran out, and told all three
// were taken.  Done RD + CL + BL/2: 64, 72, 80.
struct PendFeed {
    mx_dram *d;
    int calls = 0, ret = 0;
    uint64_t at = 0;
    size_t taken = 99;
};
int pend_feed_cb(void *ctx)
{
    PendFeed *f = static_cast<PendFeed *>(ctx);
    f->calls++;
    f->at = mx_dram_now(f->d);
    f->taken = mx_dram_dma_taken(f->d, 0);
    EXPECT_EQ(mx_dram_dma_taken(f->d, 1), 0u);
    return f->ret;
}

TEST(DramWake, PendingDmaAddedByTheModelAtTheFeedsClocks)
{
    mx_dram_config c = ddr4_3200();
    c.queue_size = 2; c.write_high = 2; c.write_low = 1; // no writes here
    const uint64_t next[3] = {A(0, 0, 5, 2), A(0, 0, 5, 3), A(0, 0, 5, 4)};
    {
        Dram m(c);
        m.add(A(0, 0, 5, 0), 0, 0);
        m.add(A(0, 0, 5, 1), 0, 1);
        EXPECT_EQ(mx_dram_dma_add(m.d, next[0], 0, 7), -1); // full
        mx_dram_dma_pend(m.d, 0, next, 3, 7);
        PendFeed f{m.d};
        ASSERT_EQ(mx_dram_run_until_wake(m.d, 100, 0, 1, pend_feed_cb, &f), 0);
        EXPECT_EQ(f.calls, 1);
        EXPECT_EQ(f.at, 39u);
        EXPECT_EQ(f.taken, 3u);
        EXPECT_EQ(m.now(), 100u);
        EXPECT_EQ(m.stats().reads_done, 5u);
        uint64_t arrive[3] = {}, done[3] = {};
        mx_dram_done r;
        while (mx_dram_pop_done(m.d, &r))
            if (r.id == 7) {
                const int k = (int)((r.addr / 64) % 128) - 2; // the column
                ASSERT_TRUE(k >= 0 && k < 3);
                arrive[k] = r.arrive;
                done[k] = r.done;
            }
        EXPECT_EQ(arrive[0], 23u); EXPECT_EQ(arrive[1], 31u); EXPECT_EQ(arrive[2], 39u);
        EXPECT_EQ(done[0], 64u); EXPECT_EQ(done[1], 72u); EXPECT_EQ(done[2], 80u);
    }
    {
        // At `until` (31: the RD in 30 frees a slot seen at 31) the model
        // adds nothing itself: the caller's feed runs there, as before, and
        // is told only column 2 (at 23) was taken.
        Dram m(c);
        m.add(A(0, 0, 5, 0), 0, 0);
        m.add(A(0, 0, 5, 1), 0, 1);
        mx_dram_dma_pend(m.d, 0, next, 3, 7);
        PendFeed f{m.d};
        f.ret = MX_DRAM_FEED_REFUSED;
        ASSERT_EQ(mx_dram_run_until_wake(m.d, 31, 0, 1, pend_feed_cb, &f), 0);
        EXPECT_EQ(f.calls, 1);
        EXPECT_EQ(f.at, 31u);
        EXPECT_EQ(f.taken, 1u);
        EXPECT_EQ(mx_dram_dma_taken(m.d, 0), 0u); // the feed took the list
    }
}
