// mx_dram_clone (models/mem/mx_dram.c): the deep copy the analytic walk's
// carried replay (mx_probe_replay) takes of its base DRAM model at every
// query.  A wrong copy (an array shared instead of copied, a field left
// out) made the replay diverge and, at worst, hang until the test
// watchdog; these tests fail in about a second (a hang: 20 s) and name the
// first clock at which the copy and a model that was never copied part.
//
// The reference is the model itself, not a copy: a model R driven through
// the same requests clock by clock.  The copy C of a model O taken mid-run
// (requests queued in both queues, rows open, completions not popped, a
// refresh due and not issued) must then log exactly what R logs: every
// request accepted, every command (per clock, from the counters), every
// completion (id, address, arrival, done, in pop order), and at the end all
// statistics, energy bit for bit.  Running C must not move O (nothing
// shared), and C must outlive O (ASan in `make test-san` catches a pointer
// into O's freed arrays).
//
// An array shared by the copy and the original corrupts the heap: the model
// then crashes, or loops for good, wherever it next reads the array, and the
// two frees free it twice.  So each config's run is a child process
// (isolated): its failures print as usual, and a crash or a hang (over 20
// s) fails the test with the config and the step it was in, instead of
// taking the whole test binary down or waiting for the 600 s watchdog
// (tests/test_watchdog.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

extern "C" {
#include "arch/mx_arch.h"
#include "mem/mx_dram.h"
}
#include "dram_test_util.h"

namespace {

// A request stream of one kind: address, earliest clock, and whether it is
// offered as the DMA offers it (mx_dram_dma_add) or added outright
// (mx_dram_add: writes then reach the drain watermark).
struct Req {
    uint64_t addr;
    uint64_t at;
    bool dma;
};

struct Traffic {
    std::vector<Req> r[2]; // [0] reads, [1] writes
};

// An address from its fields, through the model's own mapping.
uint64_t compose(const mx_dram_addr_map &m, int ch, int ra, int bg, int ba, int row, int col)
{
    const int v[6] = {ch, ra, bg, ba, row, col};
    uint64_t x = 0;
    for (int k = 0; k < 6; k++) x |= ((uint64_t)v[k] & m.mask[k]) << m.pos[k];
    return x << m.shift;
}

// Requests over every bank, three rows each (hits, misses and conflicts),
// in bursts separated by idle gaps (queues fill, then drain with rows left
// open, and writes drain when no read waits), dense around the first
// refresh; one read in eight re-reads a written address (served from the
// write queue while the write waits).  Writes in runs of 64 offered as the
// DMA offers them (below the drain watermark) and 64 added outright (up to
// the watermark: a drain that reads wait for).
Traffic make_traffic(const mx_dram_config &c, unsigned seed, size_t nreads, size_t nwrites, uint64_t ref_step)
{
    mx_dram_addr_map m;
    EXPECT_EQ(mx_dram_map_build(&c, &m), 0);
    std::mt19937_64 g(seed);
    auto pick = [&](int n) { return (int)(g() % (uint64_t)n); };
    const int rows[3] = {5, 77, 1234};
    auto addr = [&]() {
        return compose(m, pick(c.channels), pick(c.ranks), pick(c.bankgroups), pick(c.banks_per_group), rows[pick(3)],
                       pick(c.columns / c.BL));
    };
    Traffic t;
    for (int w = 0; w < 2; w++) {
        const size_t n = w ? nwrites : nreads;
        uint64_t at = (uint64_t)w * 37;
        for (size_t i = 0; i < n; i++) {
            // an idle gap every 150 requests, none in the stretch before the
            // first refresh falls due (it then finds rows open, queues full)
            const uint64_t dense = ref_step > 800 ? ref_step - 800 : 0; // to ref_step + 200
            if (i % 150 == 149 && !(at >= dense && at < ref_step + 200)) {
                const uint64_t before = at;
                at += 1500 + (uint64_t)pick(1000);
                if (before < dense && at > dense) at = dense; // not over the dense stretch
            } else {
                at += (uint64_t)pick(w ? 5 : 4);
            }
            Req q{addr(), at, w == 0 || (i / 64) % 2 == 0};
            if (w == 0 && i % 8 == 7 && !t.r[1].empty()) // a write offered about now, read back
                q.addr = t.r[1][std::min(t.r[1].size() - 1, i * nwrites / nreads)].addr;
            t.r[w].push_back(q);
        }
    }
    return t;
}

// One model and the position of each stream in it: what a copy of the run
// must carry.  Everything the model does is appended to log, one line per
// event, for a line-by-line comparison.
struct ModelRun {
    mx_dram *d = nullptr;
    size_t next[2] = {0, 0};
    uint64_t popped = 0; // completions popped (the statistics count them when due)
    mx_dram_stats last{};
    std::vector<std::string> log;
};

std::string counters(const mx_dram_stats &s)
{
    std::ostringstream o;
    o << "act " << s.act << " pre " << s.pre << " rd " << s.rd << " wr " << s.wr << " ref " << s.ref << " hits "
      << s.row_hits << " misses " << s.row_misses << " conflicts " << s.row_conflicts << " rdone " << s.reads_done
      << " wdone " << s.writes_done << " lat " << s.read_latency_sum;
    return o.str();
}

// Adds what is offered by now, while the model takes it.
void feed(ModelRun &r, const Traffic &t)
{
    const uint64_t now = mx_dram_now(r.d);
    for (int w = 0; w < 2; w++)
        while (r.next[w] < t.r[w].size() && t.r[w][r.next[w]].at <= now) {
            const Req &q = t.r[w][r.next[w]];
            const uint64_t id = (uint64_t)w << 32 | r.next[w];
            if ((q.dma ? mx_dram_dma_add(r.d, q.addr, w, id) : mx_dram_add(r.d, q.addr, w, id)) != 0) break;
            r.log.push_back("clk " + std::to_string(now) + (w ? " add W " : " add R ") + std::to_string(r.next[w]) +
                            " epoch " + std::to_string(mx_dram_queue_epoch(r.d)));
            r.next[w]++;
        }
}

// The commands of the last step (counter changes) and the completions
// popped, in order.
void observe(ModelRun &r)
{
    const uint64_t now = mx_dram_now(r.d);
    mx_dram_stats s;
    mx_dram_get_stats(r.d, &s);
    if (counters(s) != counters(r.last)) r.log.push_back("clk " + std::to_string(now) + " " + counters(s));
    r.last = s;
    for (mx_dram_done x; mx_dram_pop_done(r.d, &x); r.popped++)
        r.log.push_back("clk " + std::to_string(now) + " done id " + std::to_string(x.id) + (x.is_write ? " W" : " R") +
                        " addr " + std::to_string(x.addr) + " arrive " + std::to_string(x.arrive) + " done " +
                        std::to_string(x.done));
}

// Runs r up to clock `until`: clock by clock up to `ticks`, then from event
// to event (mx_dram_next_event, mx_dram_run_until: the skipping path).
void run(ModelRun &r, const Traffic &t, uint64_t ticks, uint64_t until)
{
    while (mx_dram_now(r.d) < until) {
        feed(r, t);
        observe(r);
        const uint64_t now = mx_dram_now(r.d);
        if (now < ticks) {
            mx_dram_tick(r.d);
            continue;
        }
        uint64_t nx = mx_dram_next_event(r.d);
        if (nx <= now) { // a model that would stop here: fail, not loop
            ADD_FAILURE() << "next event " << nx << " not after clock " << now;
            return;
        }
        for (int w = 0; w < 2; w++)
            if (r.next[w] < t.r[w].size()) nx = std::min(nx, std::max(now + 1, t.r[w][r.next[w]].at));
        mx_dram_run_until(r.d, std::min(nx, until));
    }
    feed(r, t);
    observe(r);
}

// What can be read of a model without moving it: clock, next event,
// epochs, statistics, and per bank whether a read or a write would enter.
std::string fingerprint(const mx_dram *d)
{
    mx_dram_stats s;
    mx_dram_get_stats(d, &s);
    std::ostringstream o;
    o << "now " << mx_dram_now(d) << " next " << mx_dram_next_event(d) << " epoch " << mx_dram_queue_epoch(d)
      << " refusal " << mx_dram_refusal_epoch(d, 0) << "/" << mx_dram_refusal_epoch(d, 1) << " " << counters(s);
    for (int e = 0; e < MX_DRAM_E_N; e++) o << " e" << e << " " << s.energy_pj[e];
    return o.str();
}

// Every field of the statistics, energy bit for bit.
void expect_same_stats(const mx_dram *want, const mx_dram *got, const std::string &what)
{
    mx_dram_stats a, b;
    mx_dram_get_stats(want, &a);
    mx_dram_get_stats(got, &b);
    EXPECT_EQ(counters(b), counters(a)) << what;
    EXPECT_EQ(b.cycles, a.cycles) << what;
    for (int e = 0; e < MX_DRAM_E_N; e++)
        EXPECT_EQ(std::memcmp(&a.energy_pj[e], &b.energy_pj[e], sizeof(double)), 0)
            << what << ": energy " << mx_dram_energy_name((mx_dram_energy)e) << " " << b.energy_pj[e] << " against "
            << a.energy_pj[e];
    EXPECT_EQ(std::memcmp(&a.energy_total_pj, &b.energy_total_pj, sizeof(double)), 0)
        << what << ": energy " << b.energy_total_pj << " against " << a.energy_total_pj;
}

// The first line where two logs part, with the two lines before it: a
// readable failure instead of two dumps of 10,000 lines.
void expect_same_log(const std::vector<std::string> &want, const std::vector<std::string> &got, const std::string &what)
{
    size_t i = 0;
    while (i < want.size() && i < got.size() && want[i] == got[i]) i++;
    if (i == want.size() && i == got.size()) return;
    std::ostringstream o;
    o << what << ": logs part at line " << i << " of " << want.size() << " (reference) / " << got.size() << "\n";
    for (size_t k = i >= 2 ? i - 2 : 0; k < i; k++) o << "   both: " << want[k] << "\n";
    o << "   reference: " << (i < want.size() ? want[i] : "(end)") << "\n";
    o << "   got:       " << (i < got.size() ? got[i] : "(end)");
    ADD_FAILURE() << o.str();
}


// fn in a child process with a limit of `seconds` (a config takes about
// 0.3 s, 2 s under ASan); `step` (shared memory) names what it is doing,
// for the report of a crash or a hang.  The child's own failures print as
// they happen; it exits 1 after any.  false on any failure (the callers
// stop at the first config that fails).
bool isolated(const std::string &what, const std::function<void(char *step)> &fn, unsigned seconds = 20)
{
    char *step = (char *)mmap(nullptr, 256, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (step == MAP_FAILED) {
        ADD_FAILURE() << "mmap";
        return false;
    }
    std::strcpy(step, "starting");
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t p = fork();
    if (p < 0) {
        ADD_FAILURE() << "fork";
        return false;
    }
    if (p == 0) {
        alarm(seconds); // the watchdog's handler (inherited) prints the test and exits 124; without it, SIGALRM
        fn(step);
        std::fflush(stdout);
        _exit(::testing::Test::HasFailure() ? 1 : 0);
    }
    int st = 0;
    const bool ok = waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 1)
        ADD_FAILURE() << what << ": failed (above) in: " << step;
    else if ((WIFEXITED(st) && WEXITSTATUS(st) == 124) || (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM))
        ADD_FAILURE() << what << ": hung (over " << seconds << " s) in: " << step
                      << " (a model state shared with the copy?)";
    else if (WIFSIGNALED(st))
        ADD_FAILURE() << what << ": crashed, signal " << WTERMSIG(st) << " (" << strsignal(WTERMSIG(st))
                      << ") in: " << step << " (a model array shared with the copy, corrupted or freed twice?)";
    else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        ADD_FAILURE() << what << ": exit status " << WEXITSTATUS(st) << " in: " << step;
    munmap(step, 256);
    return ok;
}

void set_step(char *step, const std::string &s) { std::snprintf(step, 256, "%s", s.c_str()); }

// The configs: the three presets, and DDR4 changed where the copy has more
// to carry: 4 ranks of 32 banks (128 banks: two mask words), a drain
// between watermarks 20 and 6 of 24 (the drain mode's hysteresis), and the
// same with a closed page (auto-precharge).
struct Cfg {
    std::string name;
    mx_dram_config c;
};

std::vector<Cfg> configs()
{
    std::vector<Cfg> v;
    for (const char *p : {"ddr4_3200", "lpddr4_2400", "hbm2"}) v.push_back({p, preset_cfg(p).dram});
    mx_dram_config c = preset_cfg("ddr4_3200").dram;
    c.ranks = 4;
    c.banks_per_group = 8;
    c.queue_size = 24;
    c.write_high = 20;
    c.write_low = 6;
    v.push_back({"ddr4 4 ranks 128 banks, drain 20..6 of 24", c});
    c.page_policy = MX_PAGE_CLOSED;
    v.push_back({"ddr4 4 ranks 128 banks, drain 20..6 of 24, closed page", c});
    return v;
}

struct CloneSetup {
    mx_dram_config c;
    Traffic t;
    uint64_t ref_step, clone_at, ticks, end;
};

// The copy's clock: the first, from the first refresh due (rank 0 at
// tREFI / ranks), at which a REF is due and not issued, rows are open, and
// reads and writes wait (mid_run); the traffic is dense there.  The copy
// and the model then run clock by clock for 3,000 clocks and by events to
// two refresh intervals later.
CloneSetup setup(const mx_dram_config &c, unsigned seed)
{
    CloneSetup s;
    s.c = c;
    s.ref_step = (uint64_t)(c.t.tREFI / c.ranks);
    s.t = make_traffic(c, seed, 3000, 2000, s.ref_step);
    s.clone_at = s.ticks = 0; // reach_mid_run
    s.end = s.ref_step + 2 * (uint64_t)c.t.tREFI;
    return s;
}

ModelRun start(const CloneSetup &s)
{
    ModelRun r;
    char err[300] = "";
    r.d = mx_dram_new(&s.c, err, sizeof err);
    EXPECT_NE(r.d, nullptr) << err;
    return r;
}

// What the copy must carry is there: requests of both kinds waiting (reads
// served from the write queue count as done at once), a row open, a REF
// due and not issued (channels * now / (tREFI / ranks) have fallen due:
// the ranks' REFs are staggered by tREFI / ranks), completions due and not
// popped.
bool mid_run(const ModelRun &o, const CloneSetup &s)
{
    mx_dram_stats st;
    mx_dram_get_stats(o.d, &st);
    const uint64_t due = (uint64_t)s.c.channels * (mx_dram_now(o.d) / s.ref_step);
    return o.next[0] >= st.reads_done + 8 && o.next[1] >= st.writes_done + 4 && st.act > st.pre && st.ref < due &&
           st.reads_done + st.writes_done > o.popped && o.next[0] < s.t.r[0].size();
}

// One clock as run() steps it, the completions of that clock left unpopped.
void step_unpopped(ModelRun &r, const Traffic &t)
{
    feed(r, t);
    observe(r);
    mx_dram_tick(r.d);
}

// Runs the model and the one to be copied (both alike) to that clock;
// false (and a failure) if it does not come within 3,000 clocks.
bool reach_mid_run(ModelRun &ref, ModelRun &o, CloneSetup &s, const std::string &what)
{
    run(ref, s.t, UINT64_MAX, s.ref_step);
    run(o, s.t, UINT64_MAX, s.ref_step);
    do {
        if (mx_dram_now(o.d) > s.ref_step + 3000) {
            ADD_FAILURE() << what << ": no clock from " << s.ref_step
                          << " with a REF pending, rows open, reads and writes waiting, completions not popped"
                             " (retune make_traffic)";
            return false;
        }
        step_unpopped(ref, s.t);
        step_unpopped(o, s.t);
    } while (!mid_run(o, s));
    s.clone_at = mx_dram_now(o.d);
    s.ticks = s.clone_at + 3000;
    s.end = s.clone_at + 2 * (uint64_t)s.c.t.tREFI;
    return true;
}

// (a) and (b): the copy runs on as a model never copied, and running it
// leaves the original where it was; the original then also runs on so.
TEST(DramClone, RunsOnAsTheModelAndLeavesTheOriginal)
{
    for (const Cfg &k : configs()) {
        const bool ok = isolated(k.name, [&](char *step) {
            SCOPED_TRACE(k.name);
            CloneSetup s = setup(k.c, 13);
            ModelRun ref = start(s), o = start(s);
            ASSERT_NE(ref.d, nullptr);
            ASSERT_NE(o.d, nullptr);
            set_step(step, "the prefix to the first refresh");
            if (!reach_mid_run(ref, o, s, k.name)) return;
            set_step(step, "the copy");
            ModelRun c = o;
            c.d = mx_dram_clone(o.d);
            ASSERT_NE(c.d, nullptr);
            const std::string o_at = fingerprint(o.d);
            EXPECT_EQ(fingerprint(c.d), o_at) << "the copy as taken";
            set_step(step, "the copy running on");
            const size_t cut = c.log.size();
            run(c, s.t, s.ticks, s.end);
            EXPECT_EQ(fingerprint(o.d), o_at) << "the original moved while only its copy ran";
            set_step(step, "the model never copied running on");
            run(ref, s.t, s.ticks, s.end);
            EXPECT_GT(ref.next[0], o.next[0] + 100) << "reads offered after the copy";
            EXPECT_GE(ref.last.ref, 2u * (uint64_t)s.c.channels) << "refreshes in the run";
            expect_same_log(ref.log, c.log, "the copy against the model never copied (from clock " +
                                                 std::to_string(s.clone_at) + ", log line " + std::to_string(cut) + ")");
            expect_same_stats(ref.d, c.d, "the copy's statistics");
            set_step(step, "the original running on after its copy ran");
            run(o, s.t, s.ticks, s.end);
            expect_same_log(ref.log, o.log, "the original, run after its copy");
            expect_same_stats(ref.d, o.d, "the original's statistics");
            set_step(step, "freeing the copy, the original and the model");
            mx_dram_free(c.d);
            mx_dram_free(o.d);
            mx_dram_free(ref.d);
        });
        if (!ok) break;
    }
}

// (c) the copy outlives the original, and a copy of a copy (taken before
// the first copy runs, then the first freed too) runs on as well.
TEST(DramClone, OutlivesTheOriginal)
{
    for (const Cfg &k : configs()) {
        const bool ok = isolated(k.name, [&](char *step) {
            SCOPED_TRACE(k.name);
            CloneSetup s = setup(k.c, 29);
            ModelRun ref = start(s), o = start(s);
            ASSERT_NE(ref.d, nullptr);
            ASSERT_NE(o.d, nullptr);
            set_step(step, "the prefix to the first refresh");
            if (!reach_mid_run(ref, o, s, k.name)) return;
            set_step(step, "the copy, then freeing the original");
            ModelRun c = o;
            c.d = mx_dram_clone(o.d);
            ASSERT_NE(c.d, nullptr);
            mx_dram_free(o.d);
            set_step(step, "the copy of the copy");
            ModelRun c2 = c;
            c2.d = mx_dram_clone(c.d);
            ASSERT_NE(c2.d, nullptr);
            set_step(step, "the copy running on, its original freed");
            run(c, s.t, s.ticks, s.end);
            set_step(step, "freeing the copy");
            mx_dram_free(c.d);
            set_step(step, "the copy of the copy running on, both freed");
            run(c2, s.t, s.ticks, s.end);
            run(ref, s.t, s.ticks, s.end);
            expect_same_log(ref.log, c.log, "the copy, its original freed");
            expect_same_log(ref.log, c2.log, "the copy of the copy, both freed before it ran");
            expect_same_stats(ref.d, c2.d, "the copy of the copy's statistics");
            set_step(step, "freeing the copy of the copy and the model");
            mx_dram_free(c2.d);
            mx_dram_free(ref.d);
        });
        if (!ok) break;
    }
}

// Copies every 101 clocks of one run (each run on briefly, clock by clock,
// before the original runs the same stretch): states the one clone clock
// above misses (a ring grown or wrapped, a drain starting or ending, a REF
// in progress).
TEST(DramClone, CopiesAtManyClocksRunOnAsTheModel)
{
    for (const Cfg &k : configs()) {
        const bool ok = isolated(k.name, [&](char *step) {
            SCOPED_TRACE(k.name);
            const CloneSetup s = setup(k.c, 7);
            ASSERT_GT(s.end, 10000u); // HBM2: tREFI 3,900
            ModelRun o = start(s);
            ASSERT_NE(o.d, nullptr);
            const uint64_t every = 101, horizon = 400;
            for (uint64_t at = 211; at < s.end; at += every) {
                set_step(step, "the model to clock " + std::to_string(at));
                run(o, s.t, UINT64_MAX, at - 1);
                step_unpopped(o, s.t); // the copy carries the clock's completions
                ModelRun c = o;
                c.d = mx_dram_clone(o.d);
                ASSERT_NE(c.d, nullptr);
                c.log.clear();
                set_step(step, "the copy at clock " + std::to_string(at) + " running on");
                run(c, s.t, UINT64_MAX, at + horizon); // the copy first: the original must not move
                const std::string cfp = fingerprint(c.d);
                set_step(step, "freeing the copy taken at clock " + std::to_string(at));
                mx_dram_free(c.d);
                const size_t from = o.log.size();
                set_step(step, "the model from clock " + std::to_string(at) + ", its copy freed");
                run(o, s.t, UINT64_MAX, at + horizon);
                const std::vector<std::string> olog(o.log.begin() + (long)from, o.log.end());
                expect_same_log(olog, c.log, "the copy at clock " + std::to_string(at));
                EXPECT_EQ(cfp, fingerprint(o.d)) << "the copy at clock " << at;
                if (::testing::Test::HasFailure()) break;
            }
            mx_dram_free(o.d);
        });
        if (!ok) break;
    }
}

} // namespace
