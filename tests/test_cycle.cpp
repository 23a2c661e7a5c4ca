// The cycle engine (models/arch/mx_cycle.h), the SRAM bank model
// (models/mem/mx_sram.h) and the DMA address streams (models/arch/mx_dma.h).
// Expected values are derived by hand in the comments, from the layout and
// port rules the headers state, never from the code under test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include "arch/mx_arch.h"
#include "arch/mx_cycle.h"
#include "arch/mx_dma.h"
#include "formats/mx_rng.h"
#include "mem/mx_sram.h"
}

#include "arch_test_util.h"

namespace {

// 4x4 output-stationary array, 4 lanes, P = 4, BF16 (no scales), the
// bandwidth + latency channel at 64 B/cycle (one 64-byte burst per cycle)
// and 10 cycles of read latency.
mx_arch_config chan_cfg()
{
    mx_arch_config c;
    mx_arch_config_default(&c);
    c.rows = c.cols = 4;
    c.lanes = 4;
    c.dataflow = MX_DATAFLOW_OS;
    c.pe_pipeline_depth = 4;
    c.tile_rows = c.tile_cols = 0;
    set_formats(c, "bf16");
    c.dram_bytes_per_cycle = 64;
    c.dram_latency = 10;
    c.engine = MX_ENGINE_CYCLE;
    return c;
}

} // namespace

// One 4x4x16 BF16 tile, derived by hand:
//  loads: A = 4 rows of 32 bytes at 0, 32, 64, 96 -> bursts 0 and 64 (a row
//  inside the burst just moved is not moved again); B (1 MiB on) likewise 2.
//  4 bursts at one per cycle: the last leaves the channel at cycle 4, its data
//  arrives 10 cycles later -> ready 14.
//  compute: one fold, t = 16/4 = 4 steps: 4 + 3 + 3 + (4-1) = 13 -> ends 27.
//  outputs: the RQU (32/cycle >= 16 PEs) sits on the controller's drain path
//  (rtl/mx_array_ctrl.sv, docs/DATAPATH.md): 2 cycles of lead (descriptor,
//  SRAM read), PE (i, j)'s result at the column FIFO head at
//  2 + t + i + j + P + 1 = 11 + i + j after the tile's start, one value per
//  cycle into column j's collector: column 3's last (i = 3) enters at 17, its
//  block leaves at 18, done at 19 -> codes at 14 + 19 = 33.
//  store: 4 rows of 8 bytes, all in burst 0 -> one write burst, done at 34.
//  cycles 34 = 14 (dram stall) + 13 + 7 (drain).
TEST(CycleEngine, OneTileByHand)
{
    mx_arch_config c = chan_cfg();
    mx_gemm g = test_gemm(4, 4, 16);
    mx_stats s;
    char err[256];
    ASSERT_EQ(mx_arch_gemm_timing(&c, &g, &s, err, sizeof err), 0) << err;
    EXPECT_EQ(s.cycles, 34);
    EXPECT_EQ(s.compute_cycles, 13);
    EXPECT_EQ(s.stall[MX_STALL_DRAM], 14);
    EXPECT_EQ(s.stall[MX_STALL_DRAIN], 7);
    EXPECT_EQ(s.stall[MX_STALL_SRAM], 0);
    EXPECT_EQ(s.dram_read[MX_OP_A], 2 * 64);
    EXPECT_EQ(s.dram_read[MX_OP_B], 2 * 64);
    EXPECT_EQ(s.dram_write[MX_OP_OUT], 1 * 64);
    // SRAM bytes: A and B tiles written once (128 B each) and read once (one
    // fold); outputs: FP32 sums written (64 B) and read by the RQU (64 B).
    EXPECT_EQ(s.sram_write[MX_OP_A], 128);
    EXPECT_EQ(s.sram_read[MX_OP_A], 128);
    EXPECT_EQ(s.sram_write[MX_OP_OUT], 64);
    EXPECT_EQ(s.sram_read[MX_OP_OUT], 64);

    // the read latency is paid once per load: 25 more cycles of it, 25 more cycles
    c.dram_latency = 35;
    ASSERT_EQ(mx_arch_gemm_timing(&c, &g, &s, err, sizeof err), 0) << err;
    EXPECT_EQ(s.cycles, 59);

    // a slower RQU (8 elements/cycle < 16 PEs) re-quantizes after the tile's
    // compute instead: 27 + ceil(16 / 8) = 29, write done at 30 (+25 latency: 55)
    c.rqu_elements_per_cycle = 8;
    ASSERT_EQ(mx_arch_gemm_timing(&c, &g, &s, err, sizeof err), 0) << err;
    EXPECT_EQ(s.cycles, 55);
}

// Two K tiles (K = 32, buffers that hold half of it): the partial sums of the
// second tile are read back from the output buffer: m*n*4 = 64 bytes, plus
// 64 bytes read by the RQU at the end.
TEST(CycleEngine, PartialSumReadBack)
{
    mx_arch_config c = chan_cfg();
    // A half holds 4 x 16 BF16 = 128 bytes: 256 bytes double-buffered = 0.25 KiB
    c.sram[MX_OP_A].kib = c.sram[MX_OP_B].kib = 0.25;
    mx_gemm g = test_gemm(4, 4, 32);
    mx_stats s;
    char err[256];
    for (int e = 0; e < 2; e++) {
        c.engine = e ? MX_ENGINE_CYCLE : MX_ENGINE_ANALYTIC;
        ASSERT_EQ(mx_arch_gemm_timing(&c, &g, &s, err, sizeof err), 0) << err;
        EXPECT_EQ(s.tiles, 2);
        EXPECT_EQ(s.sram_write[MX_OP_OUT], 2 * 64);
        EXPECT_EQ(s.sram_read[MX_OP_OUT], 64 + 64) << "engine " << e;
    }
}

// Double buffering: tile t loads into half t % 2 only once tile t-2 has
// finished computing, so its data cannot be ready before end(t-2) + the
// channel time of one burst + the read latency.  A compute-bound shape (one
// lane: 16 + 9 = 25 cycles per 4x4x16 tile, 8 bursts + 5 cycles to load)
// with many K tiles makes the rule bind: the loads would otherwise run ahead.
TEST(CycleEngine, LoadsWaitForTheirBufferHalf)
{
    mx_arch_config c = chan_cfg();
    c.lanes = 1;
    c.sram[MX_OP_A].kib = c.sram[MX_OP_B].kib = 0.25;
    c.dram_latency = 5; // 64 B/cycle: one cycle per burst
    mx_gemm g = test_gemm(4, 4, 16 * 8);
    mx_stats s;
    std::vector<mx_cycle_tile> rec(8);
    char err[256];
    ASSERT_EQ(mx_arch_gemm_cycle_tiles(&c, &g, &s, rec.data(), 8, err, sizeof err), 0) << err;
    ASSERT_EQ(s.tiles, 8);
    for (int t = 2; t < 8; t++) {
        EXPECT_GE(rec[t].load_ready, rec[t - 2].end + 1 + 5) << "tile " << t;
        EXPECT_GE(rec[t].start, rec[t - 1].end);
        EXPECT_GE(rec[t].start, rec[t].load_ready);
        EXPECT_EQ(rec[t].end - rec[t].start, 25);
    }
    // single buffer: tile t loads only after tile t-1 computed
    c.double_buffer = 0;
    c.sram[MX_OP_A].kib = c.sram[MX_OP_B].kib = 0.125;
    ASSERT_EQ(mx_arch_gemm_cycle_tiles(&c, &g, &s, rec.data(), 8, err, sizeof err), 0) << err;
    for (int t = 1; t < 8; t++) EXPECT_GE(rec[t].load_ready, rec[t - 1].end + 1 + 5) << "tile " << t;
}

// Bank conflicts, by hand: 2 streams, one 64-byte word per step (lead 1),
// 3 steps, one bank.  Stream 1 starts a cycle after stream 0; the single
// port must read 6 words while the stall-free fold uses them in cycles
// 0..3 (4 cycles): the walk gives stream 1's first word one cycle late
// (stall 1) and its second one late again (stall 2), the third on time.
TEST(SramBanks, ConflictsByHand)
{
    mx_sram_streams g = {2, 3, 0, 4096, 64, 64, 1, 64};
    EXPECT_EQ(mx_sram_fold_stall(&g, 1), 2);
    // two banks and a pitch that puts the streams on different banks: none
    g.banks = 2;
    g.pitch_i = 64 * 3; // stream 1 starts on word 3 (bank 1); per step both move one word
    // cycle c: stream 0 reads word c (bank c%2), stream 1 word 3+c-1 = c+2 (bank c%2):
    // the same bank in the same cycle -> conflicts again; pitch of 4 words instead:
    EXPECT_GT(mx_sram_fold_stall(&g, 1), 0);
    g.pitch_i = 64 * 4; // stream 1 reads word 4 + c - 1 = c + 3: other bank every cycle
    EXPECT_EQ(mx_sram_fold_stall(&g, 1), 0);
    // a sequential 8-byte stream fetches one word per 8 steps with 8 cycles of
    // lead: 8 streams on 8 banks never wait
    mx_sram_streams h = {8, 64, 0, 1024 + 64, 8, 8, 8, 64};
    EXPECT_EQ(mx_sram_fold_stall(&h, 1), 0);
}

// Broadcast: 8 streams reading consecutive 8-byte lanes of one 64-byte word
// per step (a weight-stationary array taking lanes of one A row): one read
// per step feeds all; with one bank and a new word every step, the port is
// busy every cycle but never late.
TEST(SramBanks, OneReadFeedsEveryStream)
{
    mx_sram_streams g = {8, 16, 0, 8, 64, 8, 1, 64};
    // step s: stream i reads bytes 64 s + 8 i in cycle s + i: word s, needed
    // first by stream 0 in cycle s, read in cycle s - 1 (lead 1)
    EXPECT_EQ(mx_sram_fold_stall(&g, 1), 0);
}

// The engine adds the bank model's stalls: one bank of 8 bytes per cycle
// cannot feed 4 rows of 8-byte accesses (4 x 4 lanes x 2 bytes) every cycle.
TEST(CycleEngine, SramConflictsStallTheArray)
{
    mx_arch_config c = chan_cfg();
    mx_gemm g = test_gemm(4, 4, 64);
    mx_stats wide, narrow;
    char err[256];
    ASSERT_EQ(mx_arch_gemm_timing(&c, &g, &wide, err, sizeof err), 0) << err;
    EXPECT_EQ(wide.stall[MX_STALL_SRAM], 0);
    c.sram[MX_OP_A].banks = 1;
    c.sram[MX_OP_A].bytes_per_cycle = 8;
    ASSERT_EQ(mx_arch_gemm_timing(&c, &g, &narrow, err, sizeof err), 0) << err;
    // 4 streams x 16 steps = 64 word reads on one port (rows 256 bytes apart never share a word); the stall-free fold
    // spans 16 + 3 = 19 cycles of use, so at least 64 - 19 - 1 cycles are lost
    EXPECT_GE(narrow.stall[MX_STALL_SRAM], 64 - 20);
    EXPECT_EQ(narrow.cycles - wide.cycles, narrow.stall[MX_STALL_SRAM]);
    // the tile's compute itself lasts the folds plus the stalls (with the
    // RQU on the drain path the total would hide a compute end that forgot them)
    std::vector<mx_cycle_tile> rec(1);
    mx_stats s;
    ASSERT_EQ(mx_arch_gemm_cycle_tiles(&c, &g, &s, rec.data(), 1, err, sizeof err), 0) << err;
    EXPECT_EQ(rec[0].end - rec[0].start, s.compute_cycles + s.stall[MX_STALL_SRAM]);
    EXPECT_EQ(rec[0].sram_stall, s.stall[MX_STALL_SRAM]);
}

// DMA streams: a 3 x 10-byte tile of a matrix with 100-byte rows at 1000,
// 64-byte bursts: rows at 1000, 1100, 1200 -> bursts 960, 1088 (1100..1109
// lies in 1088..1151), 1152 (1200..1209 in 1152..1215) -> 3 bursts.
TEST(Dma, TileBursts)
{
    mx_dma_matrix m;
    memset(&m, 0, sizeof m);
    m.base = 1000;
    m.row_bytes = 100;
    m.bits = 8;
    mx_dma_stream s;
    mx_dma_stream_init(&s, 64);
    mx_dma_stream_add_tile(&s, &m, 0, 3, 0, 10);
    std::vector<uint64_t> got;
    uint64_t a;
    while (mx_dma_stream_next(&s, &a)) got.push_back(a);
    EXPECT_EQ(got, (std::vector<uint64_t>{960, 1088, 1152}));
    // a segment crossing a burst boundary: 60..69 -> bursts 0 and 64
    mx_dma_stream_init(&s, 64);
    mx_dma_stream_add_linear(&s, 60, 10);
    got.clear();
    while (mx_dma_stream_next(&s, &a)) got.push_back(a);
    EXPECT_EQ(got, (std::vector<uint64_t>{0, 64}));
    // MX scales: 1-D blocks of 32 along 64 columns, rows 2..3 -> scale rows 2..3,
    // 2 bytes each at scale_base + 2*2
    m.has_scales = 1;
    m.scale_base = 4096;
    m.scale_row_bytes = 2;
    m.scale_rows_per = 1;
    m.scale_cols_per = 32;
    mx_dma_stream_init(&s, 64);
    mx_dma_stream_add_tile(&s, &m, 2, 2, 0, 64);
    got.clear();
    while (mx_dma_stream_next(&s, &a)) got.push_back(a);
    // codes: rows 1200..1263 (bursts 1152, 1216), 1300..1363 (1280, 1344); scales at 4100..4101 and 4102..4103
    mx_dma_stream_init(&s, 64);
    mx_dma_stream_add_tile(&s, &m, 2, 2, 0, 64);
    EXPECT_EQ(got, (std::vector<uint64_t>{1152, 1216, 1280, 1344, 4096})); // both scale rows in one burst
    EXPECT_EQ(mx_dma_stream_bursts(&s), 5u);
}

// Counting without a stream (the analytic engine's traffic) equals stepping
// the stream (the cycle engine's DMA), the slow, obviously correct model:
// a boundary table, then seeded random segment groups and tile grids.
namespace {
uint64_t stream_segments(uint64_t base, uint64_t stride, uint64_t len, uint64_t count, uint64_t burst)
{
    mx_dma_stream s;
    mx_dma_stream_init(&s, burst);
    mx_dma_stream_add_segments(&s, base, stride, len, count);
    return mx_dma_stream_bursts(&s);
}

uint64_t stream_grid(const mx_dma_matrix &m, long long rows, long long rt, long long cols, long long ct, uint64_t burst)
{
    uint64_t n = 0;
    for (long long r0 = 0; r0 < rows; r0 += rt)
        for (long long c0 = 0; c0 < cols; c0 += ct) {
            mx_dma_stream s;
            mx_dma_stream_init(&s, burst);
            mx_dma_stream_add_tile(&s, &m, r0, std::min(rt, rows - r0), c0, std::min(ct, cols - c0));
            n += mx_dma_stream_bursts(&s);
        }
    return n;
}
} // namespace

TEST(Dma, SegmentBurstsWithoutAStream)
{
    // by hand, 64-byte bursts: 3 rows of 10 at 1000 + 100 j (Dma.TileBursts): 3;
    // 4 rows of 32 at 48 + 32 j (contiguous): bytes 48..175, bursts 0, 64, 128: 3;
    // 5 rows of 64 at 32, stride 64: 32..351, bursts 0 .. 320: 6;
    // 2 rows of 1 at 63 and 64: 2; 3 rows of 1 at 0, 64, 128 (stride 64): 3
    EXPECT_EQ(mx_dma_segments_bursts(1000, 100, 10, 3, 64), 3u);
    EXPECT_EQ(mx_dma_segments_bursts(48, 32, 32, 4, 64), 3u);
    EXPECT_EQ(mx_dma_segments_bursts(32, 64, 64, 5, 64), 6u);
    EXPECT_EQ(mx_dma_segments_bursts(63, 1, 1, 2, 64), 2u);
    EXPECT_EQ(mx_dma_segments_bursts(0, 64, 1, 3, 64), 3u);
    EXPECT_EQ(mx_dma_segments_bursts(0, 64, 0, 3, 64), 0u);
    // a billion rows of 176 bytes, 720 apart: the rows start 0, 16, 32, 48
    // bytes into a burst, in turn, and take 3, 3, 4, 4 bursts (176 bytes from
    // 32 end at 207, in the fourth): 14 every 4 rows, 3.5e9
    EXPECT_EQ(mx_dma_segments_bursts(0, 720, 176, 1000000000ULL, 64), 3500000000ULL);
    uint64_t st = 0x5eed13;
    for (int i = 0; i < 3000; i++) {
        const uint64_t burst = (mx_rng_next(&st) & 1) ? 64 : 32;
        const uint64_t stride = 1 + mx_rng_next(&st) % 300, len = 1 + mx_rng_next(&st) % stride;
        const uint64_t base = mx_rng_next(&st) % 5000, count = 1 + mx_rng_next(&st) % 40;
        ASSERT_EQ(mx_dma_segments_bursts(base, stride, len, count, burst), stream_segments(base, stride, len, count, burst))
            << base << " " << stride << " " << len << " " << count << " " << burst;
    }
}

TEST(Dma, GridBurstsWithoutAStream)
{
    uint64_t st = 0x5eed14;
    static const double bits[4] = {4, 6, 8, 16};
    static const long long per[4] = {1, 8, 16, 32};
    for (int i = 0; i < 1500; i++) {
        mx_dma_matrix m;
        memset(&m, 0, sizeof m);
        const uint64_t burst = (mx_rng_next(&st) & 1) ? 64 : 32;
        const long long rows = 1 + (long long)(mx_rng_next(&st) % 200), cols = 1 + (long long)(mx_rng_next(&st) % 300);
        m.bits = bits[mx_rng_next(&st) % 4];
        m.row_bytes = (uint64_t)ceil((double)cols * m.bits / 8.0);
        m.base = (mx_rng_next(&st) % 4) * 4096;
        if (mx_rng_next(&st) & 1) {
            m.has_scales = 1;
            m.scale_rows_per = per[mx_rng_next(&st) % 4];
            m.scale_cols_per = per[1 + mx_rng_next(&st) % 3];
            m.scale_base = 1 << 20;
            m.scale_row_bytes = (uint64_t)((cols + m.scale_cols_per - 1) / m.scale_cols_per);
        }
        const long long rt = 1 + (long long)(mx_rng_next(&st) % (uint64_t)rows), ct = 1 + (long long)(mx_rng_next(&st) % (uint64_t)cols);
        ASSERT_EQ(mx_dma_grid_bursts(&m, rows, rt, cols, ct, burst), stream_grid(m, rows, rt, cols, ct, burst))
            << rows << "x" << cols << " tiles " << rt << "x" << ct << " bits " << m.bits << " scales " << m.has_scales
            << " " << m.scale_rows_per << "x" << m.scale_cols_per << " burst " << burst;
    }
}

// A burst the memory refused goes back and comes out next, once; the count
// of a stream is from its start whatever was put back.
TEST(Dma, UngetReturnsTheRefusedBurstNext)
{
    mx_dma_stream s;
    mx_dma_stream_init(&s, 64);
    mx_dma_stream_add_linear(&s, 0, 256); // bursts 0, 64, 128, 192
    uint64_t a;
    ASSERT_TRUE(mx_dma_stream_next(&s, &a));
    ASSERT_TRUE(mx_dma_stream_next(&s, &a));
    EXPECT_EQ(a, 64u);
    mx_dma_stream_unget(&s, a);
    EXPECT_EQ(mx_dma_stream_bursts(&s), 4u);
    std::vector<uint64_t> got;
    while (mx_dma_stream_next(&s, &a)) got.push_back(a);
    EXPECT_EQ(got, (std::vector<uint64_t>{64, 128, 192}));
}

// mx_dma_stream_fill: the bursts mx_dma_stream_next gives, a buffer at a
// time (the cycle engine's read-ahead).  Burst 64.  Segments of 100 bytes
// at 100 and 356: [100, 200) moves bursts 64, 128, 192; [356, 456) 320, 384,
// 448.  Then 32-byte segments at 0 and 32 share burst 0: it moves once.  A
// held burst comes first.
TEST(Dma, FillGivesTheBurstsOfNext)
{
    mx_dma_stream s;
    mx_dma_stream_init(&s, 64);
    mx_dma_stream_add_segments(&s, 100, 256, 100, 2);
    mx_dma_stream_add_segments(&s, 0, 32, 32, 2);
    uint64_t a;
    ASSERT_TRUE(mx_dma_stream_next(&s, &a));
    EXPECT_EQ(a, 64u);
    mx_dma_stream_unget(&s, a);
    uint64_t b[4] = {};
    ASSERT_EQ(mx_dma_stream_fill(&s, b, 4), 4u);
    EXPECT_EQ(b[0], 64u); EXPECT_EQ(b[1], 128u); EXPECT_EQ(b[2], 192u); EXPECT_EQ(b[3], 320u);
    ASSERT_EQ(mx_dma_stream_fill(&s, b, 2), 2u);
    EXPECT_EQ(b[0], 384u); EXPECT_EQ(b[1], 448u);
    ASSERT_EQ(mx_dma_stream_fill(&s, b, 4), 1u);
    EXPECT_EQ(b[0], 0u);
    EXPECT_EQ(mx_dma_stream_fill(&s, b, 4), 0u);
    EXPECT_FALSE(mx_dma_stream_next(&s, &a));
}

// A config naming a DRAM that was never loaded (a caller skipped
// mx_config_dram) is refused by both engines instead of silently timing the
// bandwidth channel.
TEST(CycleEngine, UnloadedDramIsAnError)
{
    mx_arch_config c = chan_cfg();
    snprintf(c.dram_preset, sizeof c.dram_preset, "hbm2");
    mx_gemm g = test_gemm(4, 4, 16);
    mx_stats s;
    char err[256];
    for (int e = 0; e < 2; e++) {
        c.engine = e ? MX_ENGINE_CYCLE : MX_ENGINE_ANALYTIC;
        ASSERT_EQ(mx_arch_gemm_timing(&c, &g, &s, err, sizeof err), -1);
        EXPECT_NE(std::string(err).find("memory.dram"), std::string::npos) << err;
    }
}

// The analytic engine charges the same bank-conflict stalls as the cycle
// engine (one bank model, walked once per tile shape).
TEST(AnalyticEngine, SramStallsFromTheBankModel)
{
    mx_arch_config c = chan_cfg();
    c.sram[MX_OP_A].banks = 1;
    c.sram[MX_OP_A].bytes_per_cycle = 8;
    mx_gemm g = test_gemm(4, 4, 64);
    mx_stats an, cy;
    char err[256];
    c.engine = MX_ENGINE_ANALYTIC;
    ASSERT_EQ(mx_arch_gemm_timing(&c, &g, &an, err, sizeof err), 0) << err;
    c.engine = MX_ENGINE_CYCLE;
    ASSERT_EQ(mx_arch_gemm_timing(&c, &g, &cy, err, sizeof err), 0) << err;
    EXPECT_GE(an.stall[MX_STALL_SRAM], 64 - 20); // as derived in SramConflictsStallTheArray
    EXPECT_EQ(an.stall[MX_STALL_SRAM], cy.stall[MX_STALL_SRAM]);
}

// The mapper's fast cost (analytic_probes = 0, docs/ARCH.md "SRAM") does not
// walk the bank model: it stretches each tile's compute by the array's
// demand over the port width.  By hand: output stationary 4 x 4, 4 lanes,
// BF16: the A side wants 4 rows x 4 lanes x 2 bytes = 32 bytes a cycle; one
// bank of 8 bytes a cycle gives 8, so the 13-cycle tile of OneTileByHand
// takes 13 x 32 / 8 = 52 cycles: 39 cycles of SRAM stall, and the GEMM 39
// cycles longer than with the default 8 banks x 64 bytes (512 >= 32: no
// stretch).
TEST(AnalyticEngine, FastCostStretchesBySramDemand)
{
    mx_arch_config c = chan_cfg();
    c.engine = MX_ENGINE_ANALYTIC;
    c.analytic_probes = 0;
    mx_gemm g = test_gemm(4, 4, 16);
    mx_stats wide, narrow;
    char err[256];
    ASSERT_EQ(mx_arch_gemm_timing(&c, &g, &wide, err, sizeof err), 0) << err;
    EXPECT_EQ(wide.compute_cycles, 13);
    EXPECT_EQ(wide.stall[MX_STALL_SRAM], 0);
    c.sram[MX_OP_A].banks = 1;
    c.sram[MX_OP_A].bytes_per_cycle = 8;
    ASSERT_EQ(mx_arch_gemm_timing(&c, &g, &narrow, err, sizeof err), 0) << err;
    EXPECT_EQ(narrow.compute_cycles, 13);
    EXPECT_EQ(narrow.stall[MX_STALL_SRAM], 52 - 13);
    EXPECT_EQ(narrow.cycles - wide.cycles, 52 - 13);
}

// Output writes never retire before their tile exists: two output tiles
// (a 64-byte output half holds one 4 x 4 FP32 tile), the second finishing
// last; its store (4 rows x 8 bytes, 32 bytes = 1 channel cycle at 64 B/cycle)
// can only start once the RQU has its codes (16 elements at 8 per cycle: 2
// cycles after its compute), so the GEMM ends at least 3 cycles after the
// last compute: drain >= 3, in both engines.
TEST(AnalyticEngine, WritesWaitForTheirTile)
{
    mx_arch_config c = chan_cfg();
    c.sram[MX_OP_OUT].kib = 0.125;
    c.rqu_elements_per_cycle = 8; // after the tile, at its rate: 16 / 8 = 2 cycles
    mx_gemm g = test_gemm(8, 4, 16);
    char err[256];
    for (int e = 0; e < 2; e++) {
        c.engine = e ? MX_ENGINE_CYCLE : MX_ENGINE_ANALYTIC;
        mx_stats s;
        ASSERT_EQ(mx_arch_gemm_timing(&c, &g, &s, err, sizeof err), 0) << err;
        EXPECT_EQ(s.tiles, 2);
        EXPECT_GE(s.stall[MX_STALL_DRAIN], 2 + 1) << "engine " << e;
    }
}

// The analytic engine's double-buffer rule: tile t's load starts once tile
// t-2 has computed.  One lane, 8 K tiles of 4 x 4 x 16 BF16 (compute 16 + 9
// = 25 cycles each), 256 bytes a tile at 64 B/cycle (4 cycles) and 30 cycles
// of latency: a load takes 34, so end(t) >= end(t-2) + 34 + 25; end(1) >=
// 4 + 4 + 30 + 25 = 63, end(7) >= 63 + 3 x 59 = 240, then the RQU (1 cycle)
// and the store (1 cycle): >= 242.  Loads that ignored the busy half would
// all arrive early and give 34 + 8 x 25 + 2 = 236.
TEST(AnalyticEngine, LoadsWaitForTheirBufferHalf)
{
    mx_arch_config c = chan_cfg();
    c.engine = MX_ENGINE_ANALYTIC;
    c.lanes = 1;
    c.sram[MX_OP_A].kib = c.sram[MX_OP_B].kib = 0.25;
    c.tiling_objective = MX_TILING_TRAFFIC; // fewest tiles among equal traffic: kt = 16
    c.dram_latency = 30;
    mx_gemm g = test_gemm(4, 4, 16 * 8);
    mx_stats s;
    char err[256];
    ASSERT_EQ(mx_arch_gemm_timing(&c, &g, &s, err, sizeof err), 0) << err;
    ASSERT_EQ(s.tiles, 8);
    EXPECT_GE(s.cycles, 242);
}

// A GEMM whose array time alone would take the cycle engine hours is refused
// with a message naming the other engine: 2^20 x 2^20 x 2^20 on 4x4x4 is
// 2^60 / 64 = 1.8e16 cycles, far above MX_CYCLE_MAX_CYCLES.
TEST(CycleEngine, RefusesWhatWouldRunForHours)
{
    mx_arch_config c = chan_cfg();
    mx_gemm g = test_gemm(1 << 20, 1 << 20, 1 << 20);
    mx_stats s;
    char err[256];
    ASSERT_EQ(mx_arch_gemm_timing(&c, &g, &s, err, sizeof err), -1);
    EXPECT_NE(std::string(err).find("--engine analytic"), std::string::npos) << err;
}
