// The bandwidth + latency channel (models/mem/mx_chan.h; `memory.dram:
// none`).  Every expected cycle is derived by hand from the channel's
// contract in mx_chan.h (SPEC §4.1) with 128 bytes per cycle and a latency
// of 100, the default config's numbers:
//  - a 64-byte request transfers in 64 / 128 = 0.5 cycles, back to back;
//  - it is taken while less than 64 requests' transfer time (32 cycles) is
//    queued: the n-th request of a busy channel (1-based) finds the queue
//    busy until 0.5 (n - 1), so by cycle c it has taken those with
//    0.5 (n - 1) < c + 32, i.e. n <= 2c + 64;
//  - a read's data is in `latency` cycles after its transfer ends:
//    read i (0-based) of a stream begun at 0 at ceil(0.5 (i + 1)) + 100;
//    a write is done when its transfer ends;
//  - at most 256 reads (and 256 writes) in flight.
#include <gtest/gtest.h>

#include <climits>

extern "C" {
#include "mem/mx_chan.h"
}

namespace {

mx_chan fresh()
{
    mx_chan ch;
    mx_chan_init(&ch, 128.0, 100);
    return ch;
}

// Requests taken at cycle `now` until the first refusal, ids from *next_id.
int fill(mx_chan &ch, long long now, int is_write, uint64_t *next_id)
{
    int n = 0;
    while (mx_chan_add(&ch, now, is_write, *next_id) == 0) {
        ++*next_id;
        ++n;
    }
    return n;
}

} // namespace

// n <= 2c + 64: 64 requests at cycle 0 (the 64th finds the queue busy until
// 31.5 < 32; a 65th would find 32, not less than 32), 2 more each cycle.
TEST(Chan, TakesRequestsWhileLessThanTheWindowIsQueued)
{
    mx_chan ch = fresh();
    uint64_t id = 0;
    EXPECT_EQ(fill(ch, 0, 0, &id), 64);
    EXPECT_FALSE(mx_chan_can_accept(&ch, 0, 0));
    // the window opens at the first cycle t with t + 32 > 32: t = 1
    EXPECT_EQ(mx_chan_next_event(&ch, 0), 1);
    EXPECT_EQ(fill(ch, 1, 0, &id), 2);
    EXPECT_EQ(fill(ch, 2, 1, &id), 2); // writes share the transfer queue
}

// Read i of a stream begun at 0: data at ceil(0.5 (i + 1)) + 100, so reads 0
// and 1 both at 101, 63 at 132.  A write on an idle channel at cycle 10 is
// done when its transfer ends, at ceil(10.5) = 11.
TEST(Chan, ReadDataLatencyAfterItsTransfer)
{
    mx_chan ch = fresh();
    uint64_t id = 0;
    ASSERT_EQ(fill(ch, 0, 0, &id), 64);
    uint64_t got;
    int w;
    long long done;
    EXPECT_EQ(mx_chan_pop(&ch, 100, &got, &w, &done), 0);
    ASSERT_EQ(mx_chan_pop(&ch, 101, &got, &w, &done), 1);
    EXPECT_EQ(got, 0u);
    EXPECT_EQ(w, 0);
    EXPECT_EQ(done, 101);
    ASSERT_EQ(mx_chan_pop(&ch, 101, &got, &w, &done), 1);
    EXPECT_EQ(got, 1u);
    EXPECT_EQ(mx_chan_pop(&ch, 101, &got, &w, &done), 0);
    for (int i = 2; i < 64; i++) ASSERT_EQ(mx_chan_pop(&ch, 1000, &got, &w, &done), 1);
    EXPECT_EQ(got, 63u);
    EXPECT_EQ(done, 132);
    EXPECT_EQ(mx_chan_next_event(&ch, 1000), LLONG_MAX); // nothing in flight

    mx_chan idle = fresh();
    ASSERT_EQ(mx_chan_add(&idle, 10, 1, 7), 0);
    EXPECT_EQ(mx_chan_next_event(&idle, 10), 11);
    ASSERT_EQ(mx_chan_pop(&idle, 11, &got, &w, &done), 1);
    EXPECT_EQ(w, 1);
    EXPECT_EQ(done, 11);
}

// A read stream, completions taken each cycle: the window alone would have
// taken 2c + 64 reads by cycle c, 256 at c = 96 and 258 at c = 97; the first
// data are in at 101 (reads 0 and 1).  So at c = 97..100 the ring is full
// (256 in flight) and no read enters though the window has room, a write
// does (its own ring), and at 101 two reads leave and two enter.
TEST(Chan, AtMost256ReadsInFlight)
{
    mx_chan ch = fresh();
    uint64_t id = 0, got;
    int w;
    long long done;
    int taken = 0;
    for (long long c = 0; c <= 96; c++) {
        while (mx_chan_pop(&ch, c, &got, &w, &done)) ADD_FAILURE() << "a read done at " << done << " before 101";
        taken += fill(ch, c, 0, &id);
        ASSERT_EQ(taken, 2 * c + 64) << "cycle " << c;
    }
    for (long long c = 97; c <= 100; c++) {
        EXPECT_EQ(mx_chan_pop(&ch, c, &got, &w, &done), 0) << "cycle " << c;
        EXPECT_EQ(fill(ch, c, 0, &id), 0) << "cycle " << c;
    }
    EXPECT_EQ(mx_chan_add(&ch, 100, 1, 1u << 20), 0) << "a write waits for the reads' ring";
    int left = 0;
    while (mx_chan_pop(&ch, 101, &got, &w, &done)) left++;
    EXPECT_EQ(left, 2);
    EXPECT_EQ(fill(ch, 101, 0, &id), 2);
}
