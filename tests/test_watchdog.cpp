// A per-test time limit for the GoogleTest binary: a model that stops
// advancing time (a DRAM controller that never retires, an event loop that
// does not move) must fail its test with its name, not hang the suite until
// CI's wall clock kills it.  GoogleTest has no timeout of its own, so a
// listener arms alarm() when each test starts and disarms it when it ends;
// SIGALRM prints the test's name and exits with status 124 (as timeout(1)).
//
// Limit: MXSIM_TEST_TIMEOUT seconds (default 600; 0 disables).  The slowest
// test (Validation.DocMatchesRegenerated) takes 22 s in the plain build;
// ASan+UBSan at -O1 is several times slower, still far below the limit.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace {

char g_running[512]; // the running test's name, for the signal handler

extern "C" void on_alarm(int)
{
    static const char pre[] = "\nmxsim_tests: TIMEOUT in test ";
    static const char post[] = " (over MXSIM_TEST_TIMEOUT seconds)\n";
    ssize_t r = write(2, pre, sizeof pre - 1);
    r = write(2, g_running, strlen(g_running));
    r = write(2, post, sizeof post - 1);
    (void)r;
    _exit(124);
}

class Watchdog : public ::testing::EmptyTestEventListener {
public:
    explicit Watchdog(unsigned limit) : limit_(limit) {}
    void OnTestStart(const ::testing::TestInfo &t) override
    {
        snprintf(g_running, sizeof g_running, "%s.%s", t.test_suite_name(), t.name());
        alarm(limit_);
    }
    void OnTestEnd(const ::testing::TestInfo &) override { alarm(0); }

private:
    unsigned limit_;
};

// Registered before main() (gtest_main) runs the tests.
const bool g_installed = [] {
    unsigned limit = 600;
    if (const char *e = getenv("MXSIM_TEST_TIMEOUT")) {
        char *end = nullptr;
        unsigned long v = strtoul(e, &end, 10);
        if (end == e || *end || v > 86400) {
            fprintf(stderr, "mxsim_tests: MXSIM_TEST_TIMEOUT='%s': want whole seconds 0..86400\n", e);
            exit(2);
        }
        limit = (unsigned)v;
    }
    if (limit == 0) return false;
    signal(SIGALRM, on_alarm);
    ::testing::UnitTest::GetInstance()->listeners().Append(new Watchdog(limit));
    return true;
}();

} // namespace

// The watchdog itself: a test that overruns is stopped and named.  Runs a
// child copy of this binary on the one test below with a 1 s limit.
TEST(Watchdog, StopsAndNamesATestThatOverruns)
{
    if (getenv("MXSIM_WATCHDOG_CHILD")) { // the child: overrun
        for (;;) pause();
    }
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    ASSERT_GT(n, 0);
    self[n] = 0;
    // timeout(1) kills the child (status 137) if the watchdog fails to fire
    // (not sharded: under mk/gtest_shards.sh the child would inherit a shard
    // of the one test filtered, most likely an empty one)
    std::string cmd = std::string("env -u GTEST_TOTAL_SHARDS -u GTEST_SHARD_INDEX MXSIM_WATCHDOG_CHILD=1 "
                                  "MXSIM_TEST_TIMEOUT=1 timeout -s KILL 30 '") + self +
                      "' --gtest_filter=Watchdog.StopsAndNamesATestThatOverruns 2>&1";
    FILE *p = popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string out;
    char buf[512];
    while (fgets(buf, sizeof buf, p)) out += buf;
    int st = pclose(p);
    ASSERT_TRUE(WIFEXITED(st));
    EXPECT_EQ(WEXITSTATUS(st), 124) << out;
    EXPECT_NE(out.find("TIMEOUT in test Watchdog.StopsAndNamesATestThatOverruns"), std::string::npos) << out;
}
