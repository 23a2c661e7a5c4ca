// The four trace kinds of issue 13 (streaming, bank-conflicting, random,
// mixed) on the shipped DDR4-3200 preset (configs/dram/ddr4_3200.yaml, the
// numbers of DRAMsim3's DDR4_8Gb_x8_3200.ini), with the quantities a DRAMsim3
// run reports: requests completed, activates, average read latency and total
// clocks.  DRAMsim3 is not available here, so the expected values are
// derived by hand from the JEDEC timing and the address mapping
// (rochrababgco: 7 column bits of 64-byte bursts, then 2 bank-group bits,
// 2 bank bits, 0 rank bits, 16 row bits), with the 10% the issue allows.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

extern "C" {
#include "dram_config.h"
#include "mem/mx_dram.h"
#include "formats/mx_rng.h"
}

namespace {

struct trace_result {
    uint64_t clocks = 0, reads = 0, writes = 0, lat_sum = 0;
    mx_dram_stats st{};
};

// All requests arrive at clock 0 and are added as the queues take them (a
// DRAMsim3 trace with every cycle 0); runs until all complete.
trace_result run(const std::vector<std::pair<uint64_t, int>> &reqs)
{
    mx_dram_config c;
    char err[400];
    trace_result r;
    EXPECT_EQ(mx_dram_config_load(MXSIM_SRC_DIR "/configs/dram/ddr4_3200.yaml", &c, err, sizeof err), 0) << err;
    mx_dram *d = mx_dram_new(&c, err, sizeof err);
    EXPECT_NE(d, nullptr) << err;
    if (!d) return r;
    size_t next = 0, done = 0;
    for (uint64_t guard = 0; done < reqs.size() && guard < 10000000; guard++) {
        while (next < reqs.size() && mx_dram_can_accept(d, reqs[next].first, reqs[next].second)) {
            mx_dram_add(d, reqs[next].first, reqs[next].second, next);
            next++;
        }
        mx_dram_done x;
        while (mx_dram_pop_done(d, &x)) {
            done++;
            if (x.is_write) r.writes++;
            else { r.reads++; r.lat_sum += x.done - x.arrive; }
            if (x.done > r.clocks) r.clocks = x.done;
        }
        if (done == reqs.size()) break;
        mx_dram_tick(d); // a queue slot may open any clock
    }
    mx_dram_get_stats(d, &r.st);
    mx_dram_free(d);
    return r;
}

} // namespace

// 4096 consecutive 64-byte reads: 32 rows-worth of 128 bursts, spread over
// the 4 bank groups and 4 banks by the mapping -> 32 activates, plus one
// re-activation per refresh that closes the open row.  The data bus bounds
// the time from below (BL/2 = 4 clocks a burst: 16384); tCCD_L = 8 between
// reads of one bank group bounds it from above when the 32-deep queue never
// reaches the next bank group (32768, +10% for refreshes and row switches).
TEST(DramTraces, StreamingDdr4)
{
    std::vector<std::pair<uint64_t, int>> q;
    for (uint64_t i = 0; i < 4096; i++) q.push_back({i * 64, 0});
    trace_result r = run(q);
    EXPECT_EQ(r.reads, 4096u);
    EXPECT_GE(r.st.act, 32u);
    EXPECT_LE(r.st.act, 32u + r.st.ref);
    EXPECT_EQ(r.st.ref, r.clocks / 12480); // one per tREFI on the one rank
    EXPECT_GE(r.clocks, 4096u * 4);
    EXPECT_LE(r.clocks, 4096u * 8 * 11 / 10);
}

// Every read to a new row of one bank: each needs its own ACT, and ACTs to one
// bank are tRC = 74 clocks apart (tRC = tRAS + tRP exceeds tRCD + tRTP + tRP =
// 56): the last ACT at 511 x 74, its data tRCD + CL + BL/2 = 48 later:
// 37862 clocks, plus at most one tRFC + tRC per refresh (3 fall in that time).
TEST(DramTraces, BankConflictingDdr4)
{
    std::vector<std::pair<uint64_t, int>> q;
    const uint64_t row = 1ull << 17; // 64-byte bursts x 128 columns x 16 banks = one row step
    for (uint64_t i = 0; i < 512; i++) q.push_back({i * row, 0});
    trace_result r = run(q);
    EXPECT_EQ(r.reads, 512u);
    EXPECT_EQ(r.st.act, 512u);
    EXPECT_EQ(r.st.row_hits, 0u);
    EXPECT_GE(r.clocks, 511u * 74 + 48);
    EXPECT_LE(r.clocks, 511u * 74 + 48 + 3 * (560 + 74));
}

// Uniformly random reads over 1 GiB: nearly every read opens a row (16 banks
// x 65536 rows): activates >= 90% of reads; 4 activates per tFAW = 34 clocks
// bound the rate: clocks >= reads / 4 x 34.  Latency: at least a closed-bank
// read, tRCD + CL + BL/2 = 48.
TEST(DramTraces, RandomDdr4)
{
    std::vector<std::pair<uint64_t, int>> q;
    uint64_t st = 7;
    for (int i = 0; i < 4000; i++) q.push_back({(mx_rng_next(&st) % (1ull << 30)) & ~63ull, 0});
    trace_result r = run(q);
    EXPECT_EQ(r.reads, 4000u);
    EXPECT_GE(r.st.act, 3600u);
    EXPECT_GE(r.clocks, 4000u / 4 * 34);
    EXPECT_GE(r.lat_sum / r.reads, 48u);
}

// Mixed: one write in four, streaming addresses (16 rows-worth, one per
// bank): every request completes, 16 activates plus re-activations after a
// refresh (which closes all 16 banks), the
// bus bound 2048 x 4 below, and write-to-read turnarounds (CWL + BL/2 +
// tWTR_L = 32 per switch at most once per 4 requests) above.
TEST(DramTraces, MixedDdr4)
{
    std::vector<std::pair<uint64_t, int>> q;
    for (uint64_t i = 0; i < 2048; i++) q.push_back({i * 64, i % 4 == 3});
    trace_result r = run(q);
    EXPECT_EQ(r.reads, 1536u);
    EXPECT_EQ(r.writes, 512u);
    EXPECT_GE(r.st.act, 16u);
    EXPECT_LE(r.st.act, 16u + 16u * r.st.ref); // a refresh closes every bank; buffered writes reopen theirs
    EXPECT_GE(r.clocks, 2048u * 4);
    EXPECT_LE(r.clocks, 2048u * 8 + 512u * 32);
}
