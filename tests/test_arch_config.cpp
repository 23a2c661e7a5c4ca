// Configuration and energy-table loading (sim/config_yaml.cpp) and the
// `mxsim run` command: bad input names file, line and key; reports exist,
// parse, and their totals equal the sum of their GEMMs.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <string>

#include "cli_helpers.h"

extern "C" {
#include "arch/mx_arch.h"
#include "config_yaml.h"
}

namespace {

std::string src(const std::string &rel) { return std::string(MXSIM_SRC_DIR) + "/" + rel; }

void write(const std::string &path, const std::string &text)
{
    std::ofstream f(path);
    f << text;
}

std::string load_err(const std::string &path)
{
    mx_arch_config c;
    char err[600] = "";
    char ep[MX_ARCH_PATH_MAX];
    EXPECT_NE(mx_config_load(path.c_str(), &c, ep, err, sizeof err), 0);
    return err;
}

} // namespace

TEST(ArchConfig, ShippedConfigsLoadWithTheirTables)
{
    const char *names[] = {"mxsf", "bf16", "mxfp8_e4m3", "mxfp8_e2m5", "mxint8", "mxsf_1d",
                           "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4"};
    for (const char *n : names) {
        mx_arch_config c;
        char err[600] = "", ep[MX_ARCH_PATH_MAX];
        std::string p = src(std::string("configs/") + n + ".yaml");
        ASSERT_EQ(mx_config_load(p.c_str(), &c, ep, err, sizeof err), 0) << err;
        EXPECT_STREQ(c.name, n);
        EXPECT_EQ(c.rows, 32);
        mx_energy_table t;
        ASSERT_EQ(mx_energy_load(ep, &t, err, sizeof err), 0) << err;
    }
    mx_arch_config c;
    char err[600], ep[MX_ARCH_PATH_MAX];
    ASSERT_EQ(mx_config_load(src("configs/mxsf.yaml").c_str(), &c, ep, err, sizeof err), 0);
    EXPECT_EQ(c.tile_rows, 8);
    EXPECT_EQ(c.lanes, 8);
    EXPECT_EQ(c.dataflow, MX_DATAFLOW_OS);
    ASSERT_EQ(mx_config_load(src("configs/bf16.yaml").c_str(), &c, ep, err, sizeof err), 0);
    EXPECT_STREQ(c.a_format, "bf16");
    EXPECT_EQ(c.tile_rows, 0);
}

TEST(ArchConfig, BadInputNamesFileLineAndKey)
{
    clitest::TempDir d;
    std::string p = d.file("x.yaml");
    write(p, "name: t\narch:\n  rows: 0\n");
    EXPECT_EQ(load_err(p), p + ":3: key 'arch.rows': must be 1..1024, got 0");
    write(p, "arch:\n  rows: 4\n  colz: 4\n");
    EXPECT_EQ(load_err(p), p + ":3: key 'arch.colz': unknown key");
    write(p, "bogus: 1\n");
    EXPECT_EQ(load_err(p), p + ":1: key 'bogus': unknown key");
    write(p, "arch:\n  lanes: many\n");
    EXPECT_EQ(load_err(p), p + ":2: key 'arch.lanes': not an integer: 'many'");
    write(p, "arch:\n  dataflow: diagonal\n");
    EXPECT_EQ(load_err(p), p + ":2: key 'arch.dataflow': must be os, ws or is, got 'diagonal'");
    write(p, "format:\n  a: mxfp9\n");
    EXPECT_NE(load_err(p).find(p + ":2: key 'format.a': unknown format 'mxfp9'"), std::string::npos);
    write(p, "memory:\n  fold: 1\n");
    EXPECT_EQ(load_err(p), p + ":2: key 'memory.fold': unknown key");
    write(p, "memory:\n  dram_bytes_per_cycle: -3\n");
    EXPECT_EQ(load_err(p), p + ":2: key 'memory.dram_bytes_per_cycle': must be 0.001..1e+06, got -3");
    write(p, "format:\n  tile: [8, 8]\narch:\n  lanes: 16\n");
    EXPECT_NE(load_err(p).find(p + ":4: key 'arch.lanes': 16 lanes must divide"), std::string::npos);
    write(p, "arch: [1, 2\n");
    EXPECT_NE(load_err(p).find(p + ":"), std::string::npos);
    EXPECT_NE(load_err(p).find("malformed YAML"), std::string::npos);
    write(p, "arch:\n  rows: 4\n  rows: 5\n");
    EXPECT_NE(load_err(p).find("duplicate"), std::string::npos);
    EXPECT_EQ(load_err(d.file("missing.yaml")), d.file("missing.yaml") + ": cannot open the file");
}

TEST(ArchConfig, EnergyTableErrors)
{
    clitest::TempDir d;
    std::string p = d.file("e.yaml");
    mx_energy_table t;
    char err[600];
    write(p, "entries:\n  mul_8x8: {pj: 0.2, source: s, node: 45nm}\n");
    ASSERT_NE(mx_energy_load(p.c_str(), &t, err, sizeof err), 0);
    EXPECT_EQ(std::string(err), p + ":2: key 'entries.mul_8x8.voltage': missing");
    write(p, "entries:\n  mul_8x8: {pj: -1, source: s, node: 45nm, voltage: 0.9V}\n");
    ASSERT_NE(mx_energy_load(p.c_str(), &t, err, sizeof err), 0);
    EXPECT_NE(std::string(err).find(p + ":2: key 'entries.mul_8x8.pj': must be 0..1e+09"), std::string::npos);
    write(p, "entries:\n  mul_8x8: {pj: 1, source: s, node: 45nm, voltage: 0.9V, colour: red}\n");
    ASSERT_NE(mx_energy_load(p.c_str(), &t, err, sizeof err), 0);
    EXPECT_NE(std::string(err).find("key 'entries.mul_8x8.colour': unknown field"), std::string::npos);
    write(p, "entries:\n  mul_8x8: {pj: 1.5, source: s, node: 45nm, voltage: 0.9V}\n");
    ASSERT_EQ(mx_energy_load(p.c_str(), &t, err, sizeof err), 0) << err;
    double pj = 0;
    ASSERT_EQ(mx_energy_get(&t, "mul_8x8", &pj), 0);
    EXPECT_EQ(pj, 1.5);
}

// ---- mxsim run ----------------------------------------------------------------

namespace {

// Minimal JSON reader for the report: enough to check keys and numbers.
struct Json {
    enum Kind { NUL, NUM, STR, BOOL, ARR, OBJ } kind = NUL;
    double num = 0;
    std::string str;
    std::vector<Json> arr;
    std::map<std::string, Json> obj;
};

struct Parser {
    const std::string &s;
    size_t i = 0;
    bool ok = true;
    explicit Parser(const std::string &t) : s(t) {}
    void ws() { while (i < s.size() && isspace((unsigned char)s[i])) i++; }
    Json value()
    {
        ws();
        Json j;
        if (i >= s.size()) { ok = false; return j; }
        char c = s[i];
        if (c == '{') {
            j.kind = Json::OBJ;
            i++;
            ws();
            if (s[i] == '}') { i++; return j; }
            while (ok) {
                ws();
                Json k = value();
                if (k.kind != Json::STR) { ok = false; break; }
                ws();
                if (s[i++] != ':') { ok = false; break; }
                j.obj[k.str] = value();
                ws();
                if (s[i] == ',') { i++; continue; }
                if (s[i] == '}') { i++; break; }
                ok = false;
            }
        } else if (c == '[') {
            j.kind = Json::ARR;
            i++;
            ws();
            if (s[i] == ']') { i++; return j; }
            while (ok) {
                j.arr.push_back(value());
                ws();
                if (s[i] == ',') { i++; continue; }
                if (s[i] == ']') { i++; break; }
                ok = false;
            }
        } else if (c == '"') {
            j.kind = Json::STR;
            i++;
            while (i < s.size() && s[i] != '"') {
                if (s[i] == '\\') i++;
                j.str += s[i++];
            }
            i++;
        } else if (!s.compare(i, 4, "true") || !s.compare(i, 5, "false")) {
            j.kind = Json::BOOL;
            i += s[i] == 't' ? 4 : 5;
        } else if (!s.compare(i, 4, "null")) {
            i += 4;
        } else {
            j.kind = Json::NUM;
            size_t n = 0;
            j.num = std::stod(s.substr(i, 40), &n);
            i += n;
        }
        return j;
    }
};

} // namespace

TEST(ArchRun, ReportsParseAndTotalsAreSums)
{
    clitest::TempDir d;
    std::string out = d.file("out");
    auto r = clitest::run_mxsim(d, {"run", "-c", src("configs/mxsf_1d.yaml"), "-t", src("traces/tiny_train.csv"),
                                    "-o", out});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("TOTAL"), std::string::npos);
    std::string js = clitest::read_text(out + "/report.json");
    std::string csv = clitest::read_text(out + "/report.csv");
    unlink((out + "/report.json").c_str());
    unlink((out + "/report.csv").c_str());
    rmdir(out.c_str());
    Parser p(js);
    Json root = p.value();
    ASSERT_TRUE(p.ok);
    ASSERT_EQ(root.kind, Json::OBJ);
    ASSERT_EQ(root.obj["gemms"].kind, Json::ARR);
    const Json &total = root.obj["total"];
    ASSERT_EQ(total.kind, Json::OBJ);
    double cyc = 0, e = 0, req = 0;
    std::map<std::string, double> comp;
    for (const Json &g : root.obj["gemms"].arr) {
        for (const char *k : {"name", "cycles", "energy_pj", "macs", "stall_cycles", "utilization",
                              "macs_by_mode", "sram_read_bytes", "dram_read_bytes", "dram_write_bytes",
                              "rqu_elements", "requant_elements", "energy_by_component_pj"})
            EXPECT_TRUE(g.obj.count(k)) << k;
        cyc += g.obj.at("cycles").num;
        e += g.obj.at("energy_pj").num;
        req += g.obj.at("requant_elements").num;
        for (auto &kv : g.obj.at("energy_by_component_pj").obj) comp[kv.first] += kv.second.num;
    }
    EXPECT_EQ(cyc, total.obj.at("cycles").num);
    EXPECT_NEAR(e, total.obj.at("energy_pj").num, 1e-9 * e);
    EXPECT_EQ(req, total.obj.at("requant_elements").num);
    EXPECT_GT(req, 0); // 1-D blocks: training needs second copies
    double esum = 0;
    for (auto &kv : total.obj.at("energy_by_component_pj").obj) {
        EXPECT_NEAR(comp[kv.first], kv.second.num, 1e-9 * (1 + kv.second.num)) << kv.first;
        esum += kv.second.num;
    }
    EXPECT_NEAR(esum, total.obj.at("energy_pj").num, 1e-9 * esum);
    // CSV: header + one line per GEMM + TOTAL; the cycles column sums up.
    std::istringstream is(csv);
    std::string line;
    std::getline(is, line);
    EXPECT_EQ(line.rfind("name,phase,M,N,K,count,cycles,", 0), 0u);
    double csum = 0, ctotal = -1;
    size_t rows = 0;
    while (std::getline(is, line)) {
        std::vector<std::string> f;
        std::stringstream ls(line);
        std::string x;
        while (std::getline(ls, x, ',')) f.push_back(x);
        ASSERT_GT(f.size(), 7u);
        if (f[0] == "TOTAL") ctotal = std::stod(f[6]);
        else { csum += std::stod(f[6]); rows++; }
    }
    EXPECT_EQ(rows, root.obj["gemms"].arr.size());
    EXPECT_EQ(csum, ctotal);
}

TEST(ArchRun, BadInputExitsTwoWithOneLine)
{
    clitest::TempDir d;
    std::string cfg = d.file("c.yaml");
    write(cfg, "arch:\n  rows: 2000\n");
    auto r = clitest::run_mxsim(d, {"run", "-c", cfg, "-t", src("traces/tiny_train.csv"), "-o", d.file("o")});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "mxsim run: " + cfg + ":2: key 'arch.rows': must be 1..1024, got 2000\n");
    EXPECT_FALSE(clitest::exists(d.file("o")));
    std::string tr = d.file("t.csv");
    write(tr, "name,M,N,K,phase,count\na,1,2,0,fwd,1\n");
    r = clitest::run_mxsim(d, {"run", "-c", src("configs/mxsf.yaml"), "-t", tr});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find(tr + ":2:"), std::string::npos) << r.err;
    // energy table missing an entry the config needs
    std::string et = d.file("e.yaml");
    write(et, "entries:\n  mul_8x8: {pj: 0.2, source: s, node: 45nm, voltage: 0.9V}\n");
    write(cfg, "format:\n  a: bf16\n  b: bf16\n  out: bf16\n  tile: none\nenergy:\n  table: e.yaml\n");
    write(tr, "name,M,N,K,phase,count\na,8,8,8,fwd,1\n");
    r = clitest::run_mxsim(d, {"run", "-c", cfg, "-t", tr});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find(et + ": missing entry 'exp_add_per_bit'"), std::string::npos) << r.err;
    r = clitest::run_mxsim(d, {"run", "-c", src("configs/mxsf.yaml"), "-t", src("traces/tiny_train.csv"), "--mode", "fast"});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "mxsim run: option '--mode': must be timing or functional, got 'fast'\n");
}

TEST(ArchRun, EveryShippedTraceRunsInTimingMode)
{
    const char *traces[] = {"resnet50_train", "bert_base_train", "gpt2_small_train", "vit_b16_infer",
                            "llama_decoder_infer", "tiny_train"};
    clitest::TempDir d;
    for (const char *t : traces) {
        auto r = clitest::run_mxsim(d, {"run", "-q", "-c", src("configs/mxsf.yaml"), "-t",
                                        src(std::string("traces/") + t + ".csv")});
        EXPECT_EQ(r.status, 0) << t << ": " << r.err;
    }
}

TEST(ArchRun, FunctionalModeReadsNpyOperands)
{
    clitest::TempDir d;
    std::string tr = d.file("t.csv");
    write(tr, "name,M,N,K,phase,count\ng,2,3,4,fwd,1\n");
    // values exactly representable in MXSF (and BF16): the output is exact
    clitest::write_bytes(d.file("g.fwd.a.npy"), clitest::f32_npy("(2, 4)", {1, 2, 0.5f, -1, 3, 0.25f, 1.5f, 2}));
    clitest::write_bytes(d.file("g.fwd.b.npy"),
                         clitest::f32_npy("(4, 3)", {1, 0, 2, -1, 1, 0.5f, 2, 4, 1, 0.5f, 1, -2}));
    std::string out = d.path() + "/o";
    auto r = clitest::run_mxsim(d, {"run", "-q", "-c", src("configs/mxsf.yaml"), "-t", tr, "--mode", "functional",
                                    "--data", d.path(), "-o", out});
    ASSERT_EQ(r.status, 0) << r.err;
    std::string js = clitest::read_text(out + "/report.json");
    unlink((out + "/report.json").c_str());
    unlink((out + "/report.csv").c_str());
    rmdir(out.c_str());
    Parser p(js);
    Json root = p.value();
    ASSERT_TRUE(p.ok);
    const Json &g = root.obj["gemms"].arr.at(0);
    EXPECT_EQ(g.obj.at("max_abs_err").num, 0.0);
    EXPECT_EQ(g.obj.at("checked_outputs").num, 6.0);
    EXPECT_EQ(g.obj.at("qsnr_db").kind, Json::NUL); // exact: infinite QSNR
    // wrong shape: one error line, exit 2, no report
    clitest::write_bytes(d.file("g.fwd.b.npy"), clitest::f32_npy("(3, 4)", std::vector<float>(12, 1.0f)));
    r = clitest::run_mxsim(d, {"run", "-q", "-c", src("configs/mxsf.yaml"), "-t", tr, "--mode", "functional",
                               "--data", d.path(), "-o", out});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "mxsim run: " + d.file("g.fwd.b.npy") + ": shape must be (4, 3) for GEMM 'g' (" + tr + ":2)\n");
    EXPECT_FALSE(clitest::exists(out));
}
