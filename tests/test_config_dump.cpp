// The resolved configuration (sim/config_dump.c) that reports carry: its keys
// are exactly README's "## Configuration" table (parsed here), every value
// is accepted by --set, and applying all of them to the defaults gives the
// same configuration back (for every shipped config); `mxsim run` writes it
// and the overrides into report.json.
#include <jansson.h>
#include "cli_helpers.h"
#include "config_dump.h"
#include "config_yaml.h"

#include <gtest/gtest.h>

#include <glob.h>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

namespace {

const std::string SRC = MXSIM_SRC_DIR;

void collect(void *ctx, const char *k, const char *v) { (*(std::map<std::string, std::string> *)ctx)[k] = v; }

std::map<std::string, std::string> dump(const mx_arch_config &c)
{
    std::map<std::string, std::string> m;
    int n = mx_config_resolved(&c, collect, &m);
    EXPECT_EQ((size_t)n, m.size()) << "a key twice";
    return m;
}

// The keys README's configuration table names (first column, `...` tokens;
// `sram_b` after `memory.sram_a` is memory.sram_b; the buffers' three subkeys).
std::set<std::string> readme_keys()
{
    std::istringstream in(clitest::read_text(SRC + "/README.md"));
    std::string line;
    bool in_cfg = false;
    std::set<std::string> keys;
    while (std::getline(in, line)) {
        if (line.rfind("## ", 0) == 0) in_cfg = line == "## Configuration";
        if (!in_cfg || line.rfind("| `", 0) != 0) continue;
        std::string cell = line.substr(2, line.find('|', 2) - 2);
        std::string prefix;
        for (size_t a = cell.find('`'); a != std::string::npos; a = cell.find('`', a + 1)) {
            size_t b = cell.find('`', a + 1);
            std::string k = cell.substr(a + 1, b - a - 1);
            a = b;
            if (k.find('.') != std::string::npos) prefix = k.substr(0, k.find('.') + 1);
            else if (k != "name" && k != "engine") k = prefix + k;
            if (k.find("memory.sram_") == 0)
                for (const char *sub : {".kib", ".banks", ".bytes_per_cycle"}) keys.insert(k + sub);
            else keys.insert(k);
        }
    }
    return keys;
}

} // namespace

TEST(ConfigDump, KeysAreReadmesTable)
{
    mx_arch_config c;
    char err[600];
    ASSERT_EQ(mx_config_load((SRC + "/configs/mxsf.yaml").c_str(), &c, nullptr, err, sizeof err), 0) << err;
    ASSERT_EQ(mx_config_dram((SRC + "/configs/mxsf.yaml").c_str(), &c, err, sizeof err), 0) << err;
    std::set<std::string> got;
    for (auto &kv : dump(c)) got.insert(kv.first);
    std::set<std::string> want = readme_keys();
    EXPECT_EQ(want.size(), 41u);
    EXPECT_EQ(got, want);
}

TEST(ConfigDump, SetOfEveryValueGivesTheSameConfigBack)
{
    glob_t g;
    ASSERT_EQ(glob((SRC + "/configs/*.yaml").c_str(), 0, nullptr, &g), 0);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        const char *path = g.gl_pathv[i];
        SCOPED_TRACE(path);
        mx_arch_config c, d;
        char err[600];
        ASSERT_EQ(mx_config_load(path, &c, nullptr, err, sizeof err), 0) << err;
        ASSERT_EQ(mx_config_dram(path, &c, err, sizeof err), 0) << err;
        auto m = dump(c);
        mx_arch_config_default(&d);
        for (auto &kv : m) {
            std::string a = kv.first + "=" + kv.second;
            ASSERT_EQ(mx_config_override(&d, a.c_str(), err, sizeof err), 0) << a << ": " << err;
        }
        ASSERT_EQ(mx_config_dram(path, &d, err, sizeof err), 0) << err;
        EXPECT_EQ(dump(d), m);
        EXPECT_EQ(memcmp(&c.dram, &d.dram, sizeof c.dram), 0) << "the same DRAM";
    }
    globfree(&g);
}

TEST(ConfigDump, RunReportCarriesOverridesAndResolvedConfig)
{
    clitest::TempDir t;
    std::string out = t.file("r");
    auto r = clitest::run_mxsim(t, {"run", "-c", SRC + "/configs/bf16.yaml", "-t", SRC + "/traces/tiny_train.csv", "--set",
                                    "arch.rows=16", "--set", "memory.dram=ddr4_3200", "--set", "arch.rows=8", "--set", "arch.clock_ghz=0.1234567890123", "-o", out, "-q"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::string js = clitest::read_text(out + "/report.json");
    json_error_t je;
    json_t *rep = json_loads(js.c_str(), 0, &je);
    ASSERT_NE(rep, nullptr) << je.text;
    json_t *want_ov = json_pack("[s,s,s,s]", "arch.rows=16", "memory.dram=ddr4_3200", "arch.rows=8", "arch.clock_ghz=0.1234567890123");
    EXPECT_TRUE(json_equal(json_object_get(rep, "overrides"), want_ov)) << js;
    json_decref(want_ov);
    EXPECT_NE(js.find("\"arch.rows\": \"8\""), std::string::npos);
    EXPECT_NE(js.find("\"memory.dram\": \"ddr4_3200\""), std::string::npos);
    EXPECT_NE(js.find("\"format.a\": \"bf16\""), std::string::npos);
    EXPECT_NE(js.find("\"arch.cols\": \"32\""), std::string::npos);
    EXPECT_NE(js.find("\"format.mxsf_wide_fraction\": \"0.65\""), std::string::npos) << "shortest spelling";
    EXPECT_NE(js.find("\"arch.clock_ghz\": \"0.1234567890123\""), std::string::npos) << "every digit that counts";
    // report.csv: per GEMM the mapping of report.json's gemms[i].mapping, the TOTAL row none; the overrides
    std::istringstream csv(clitest::read_text(out + "/report.csv"));
    std::string line;
    std::getline(csv, line);
    EXPECT_NE(line.find(",version,mt,nt,kt,loop_order,double_buffer,overrides"), std::string::npos) << line;
    size_t pos = 0;
    int rows = 0;
    while (std::getline(csv, line)) {
        bool total = line.rfind("TOTAL,", 0) == 0;
        size_t v = line.find(" (git ");
        ASSERT_NE(v, std::string::npos);
        std::string tail = line.substr(line.find(',', v) + 1);
        if (total) {
            EXPECT_EQ(tail, ",,,,,arch.rows=16;memory.dram=ddr4_3200;arch.rows=8;arch.clock_ghz=0.1234567890123") << "no mapping";
            continue;
        }
        json_t *m = json_object_get(json_array_get(json_object_get(rep, "gemms"), pos++), "mapping");
        ASSERT_TRUE(json_is_object(m));
        const char *order = json_string_value(json_object_get(m, "loop_order"));
        ASSERT_TRUE(order && json_is_boolean(json_object_get(m, "double_buffer")));
        char want[96];
        snprintf(want, sizeof want, "%lld,%lld,%lld,\"%s\",%s,", (long long)json_integer_value(json_object_get(m, "mt")),
                 (long long)json_integer_value(json_object_get(m, "nt")), (long long)json_integer_value(json_object_get(m, "kt")),
                 order, json_is_true(json_object_get(m, "double_buffer")) ? "true" : "false");
        EXPECT_EQ(tail.rfind(want, 0), 0u) << tail << " vs " << want;
        rows++;
    }
    int gemms = (int)json_array_size(json_object_get(rep, "gemms"));
    json_decref(rep);
    EXPECT_EQ(rows, gemms);
    EXPECT_EQ(gemms, 8); // traces/tiny_train.csv
    unlink((out + "/report.json").c_str());
    unlink((out + "/report.csv").c_str());
    rmdir(out.c_str());
}

// run --compare -o: OUTDIR/compare.json holds the ratios (equal to the two
// report.json totals' ratios, read here) and each config's own array, lanes,
// buffers, DRAM and formats (two configs that differ in all of them).
TEST(ConfigDump, CompareJsonHasBothSidesAndTheRatios)
{
    clitest::TempDir t;
    std::string small = t.file("small.yaml"), out = t.file("o");
    std::ofstream(small) << "name: small\narch: {rows: 8, cols: 4, lanes: 4}\nformat: {a: bf16, b: bf16, out: bf16, tile: none}\n"
                         << "memory: {dram: none, sram_a: {kib: 64}}\nenergy: {table: " << SRC << "/configs/energy/horowitz45.yaml}\n";
    auto r = clitest::run_mxsim(t, {"run", "-c", SRC + "/configs/mxsf.yaml", "--compare", small, "-t", SRC + "/traces/tiny_train.csv",
                                    "--no-sensitivity", "-q", "-o", out});
    ASSERT_EQ(r.status, 0) << r.err;
    std::string c = clitest::read_text(out + "/compare.json");
    auto total = [](const std::string &js, const char *key) {
        size_t p = js.find("\"total\"");
        p = js.find(std::string("\"") + key + "\": ", p);
        return p == std::string::npos ? -1.0 : atof(js.c_str() + p + strlen(key) + 4);
    };
    std::string ja = clitest::read_text(out + "/mxsf/report.json"), jb = clitest::read_text(out + "/small/report.json");
    double ea = total(ja, "energy_pj"), eb = total(jb, "energy_pj"), ca = total(ja, "cycles"), cb = total(jb, "cycles");
    ASSERT_GT(eb, 0);
    size_t rp = c.find("\"ratios_a_over_b\"");
    ASSERT_NE(rp, std::string::npos) << c;
    double re = atof(c.c_str() + c.find("\"energy\": ", rp) + 10), rc = atof(c.c_str() + c.find("\"cycles\": ", rp) + 10);
    EXPECT_NEAR(re, ea / eb, 1e-9 * ea / eb);
    EXPECT_NEAR(rc, ca / cb, 1e-12);
    size_t b = c.find("\"b\": {");
    ASSERT_NE(b, std::string::npos);
    std::string sa = c.substr(0, b), sb = c.substr(b);
    EXPECT_NE(sa.find("\"array\": \"32x32\""), std::string::npos);
    EXPECT_NE(sb.find("\"array\": \"8x4\""), std::string::npos) << sb;
    EXPECT_NE(sb.find("\"lanes\": 4"), std::string::npos);
    EXPECT_NE(sb.find("\"a\": 64.0"), std::string::npos);
    EXPECT_NE(sa.find("\"dram\": \"hbm2\""), std::string::npos) << sa;
    EXPECT_NE(sb.find("\"dram\": \"channel\""), std::string::npos);
    EXPECT_NE(sb.find("\"a\": \"bf16\""), std::string::npos);
    EXPECT_NE(sb.find("\"report\": \"small/report.json\""), std::string::npos);
    (void)!system(("rm -rf " + clitest::quote(out)).c_str());
    unlink(small.c_str());
}

// -o into a place that cannot hold a directory fails before the simulation:
// no table on stdout, one line naming -o, nothing created.
TEST(ConfigDump, RunOutUnwritableFailsBeforeSimulating)
{
    clitest::TempDir t;
    std::ofstream(t.file("file")) << "x";
    for (std::string bad : {t.file("file") + "/sub", t.file("file")}) { // (root writes anywhere: no permission case)
        auto r = clitest::run_mxsim(t, {"run", "-c", SRC + "/configs/mxsf.yaml", "-t", SRC + "/traces/tiny_train.csv", "-o", bad});
        EXPECT_EQ(r.status, 2) << bad;
        EXPECT_EQ(r.out, "") << "simulated first: " << r.out.substr(0, 200);
        EXPECT_NE(r.err.find("option '-o'"), std::string::npos) << r.err;
    }
    auto ok = clitest::run_mxsim(t, {"run", "-c", SRC + "/configs/mxsf.yaml", "-t", SRC + "/traces/tiny_train.csv", "-q", "-o",
                                     t.file("new/deeper/")});
    EXPECT_EQ(ok.status, 0) << ok.err;
    EXPECT_TRUE(clitest::exists(t.file("new/deeper/report.json")));
    (void)!system(("rm -rf " + clitest::quote(t.file("new"))).c_str());
    unlink(t.file("file").c_str());
}

// report.json (jansson) carries every double exactly: each GEMM's and the
// total's energy and energy by component read back (jansson, strtod) to the
// same bits as report.csv's fields, written by a separate "%.17g" printf.
TEST(ConfigDump, ReportJsonNumbersRoundTripExactly)
{
    clitest::TempDir t;
    std::string out = t.file("r");
    auto r = clitest::run_mxsim(t, {"run", "-c", SRC + "/configs/mxsf.yaml", "-t", SRC + "/traces/tiny_train.csv", "--engine",
                                    "cycle", "-o", out, "-q"});
    ASSERT_EQ(r.status, 0) << r.err;
    json_error_t je;
    json_t *rep = json_load_file((out + "/report.json").c_str(), 0, &je);
    ASSERT_NE(rep, nullptr) << je.text;
    std::istringstream csv(clitest::read_text(out + "/report.csv"));
    std::string line;
    std::getline(csv, line);
    std::vector<std::string> head;
    {
        std::istringstream h(line);
        for (std::string f; std::getline(h, f, ',');) head.push_back(f);
    }
    size_t row = 0, checked = 0;
    while (std::getline(csv, line)) {
        std::vector<std::string> f;
        std::istringstream l(line);
        for (std::string x; std::getline(l, x, ',');) f.push_back(x);
        const bool total = f[0] == "TOTAL";
        json_t *o = total ? json_object_get(rep, "total") : json_array_get(json_object_get(rep, "gemms"), row++);
        ASSERT_NE(o, nullptr) << line;
        for (size_t i = 0; i < head.size() && i < f.size(); i++) {
            if (head[i].rfind("energy_", 0) != 0) continue;
            json_t *v = head[i] == "energy_pj" ? json_object_get(o, "energy_pj")
                                               : json_object_get(json_object_get(o, "energy_by_component_pj"),
                                                                 head[i].substr(7, head[i].size() - 10).c_str());
            ASSERT_TRUE(json_is_number(v)) << head[i];
            const double want = strtod(f[i].c_str(), nullptr), got = json_number_value(v);
            EXPECT_EQ(memcmp(&want, &got, sizeof want), 0) << head[i] << ": csv " << f[i] << " json " << got;
            checked++;
        }
        if (total) break;
    }
    EXPECT_EQ(row, 8u);
    EXPECT_GE(checked, 9u * 10u);
    json_decref(rep);
}
