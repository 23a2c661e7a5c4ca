// DRAM configuration loader (sim/dram_config.cpp: our YAML presets and
// DRAMsim3 .ini files) and the `mxsim dram` command (sim/cmd_dram.c).
// DramConfig*: the loader called directly.  DramCli*: the binary ($MXSIM_BIN).
#include "cli_helpers.h"

#include "dram_config.h"
#include "mem/mx_dram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#ifndef MXSIM_SRC_DIR
#define MXSIM_SRC_DIR "."
#endif

using clitest::TempDir;
using clitest::run_mxsim;

namespace {

std::string src(const std::string &rel) { return std::string(MXSIM_SRC_DIR) + "/" + rel; }

std::string load_err(const std::string &path, mx_dram_config *c = nullptr)
{
    mx_dram_config tmp;
    char err[600] = "";
    int rc = mx_dram_config_load(path.c_str(), c ? c : &tmp, err, sizeof err);
    return rc == 0 ? std::string() : std::string(err);
}

mx_dram_config load_ok(const std::string &path)
{
    mx_dram_config c;
    char err[600] = "";
    EXPECT_EQ(mx_dram_config_load(path.c_str(), &c, err, sizeof err), 0) << err;
    return c;
}

int timing(const mx_dram_config &c, const char *name)
{
    for (size_t i = 0; i < mx_dram_timing_table_n; i++)
        if (!strcmp(mx_dram_timing_table[i].name, name)) {
            int v;
            memcpy(&v, reinterpret_cast<const char *>(&c.t) + mx_dram_timing_table[i].offset, sizeof v);
            return v;
        }
    ADD_FAILURE() << "no timing field " << name;
    return -1;
}

void write_text(const std::string &path, const std::string &s)
{
    std::ofstream o(path, std::ios::binary);
    o << s;
}

// Text with the first line starting with `from` replaced by `to` (or removed
// when `to` is empty); fails the test if there is no such line.
std::string edit_line(const std::string &text, const std::string &from, const std::string &to)
{
    size_t p = 0;
    while (p < text.size()) {
        size_t e = text.find('\n', p);
        if (e == std::string::npos) e = text.size();
        if (text.compare(p, from.size(), from) == 0) {
            std::string out = text.substr(0, p) + to;
            if (!to.empty()) out += "\n";
            return out + (e < text.size() ? text.substr(e + 1) : "");
        }
        p = e + 1;
    }
    ADD_FAILURE() << "no line starting with '" << from << "'";
    return text;
}

// Line number (1-based) of the first line starting with `prefix`.
int line_of(const std::string &text, const std::string &prefix)
{
    int line = 1;
    size_t p = 0;
    while (p < text.size()) {
        if (text.compare(p, prefix.size(), prefix) == 0) return line;
        size_t e = text.find('\n', p);
        if (e == std::string::npos) break;
        p = e + 1;
        line++;
    }
    return -1;
}

// A config text and the start of its load error after the file name
// (":LINE: key '...': ...").
struct ErrCase {
    std::string text, expect;
};

// Writes each case's text to `f`: loading it fails with one line starting
// with f + expect.
void expect_load_errors(const std::string &f, const std::vector<ErrCase> &cases)
{
    for (const ErrCase &k : cases) {
        write_text(f, k.text);
        std::string e = load_err(f);
        EXPECT_EQ(e.compare(0, f.size() + k.expect.size(), f + k.expect), 0) << "got: " << e << "\nwant prefix: " << f + k.expect;
        EXPECT_EQ(e.find('\n'), std::string::npos) << e;
    }
}

const char *kIni = "tests/golden/dram/DDR4_8Gb_x8_3200.ini";
const char *kDdr4 = "configs/dram/ddr4_3200.yaml";

}  // namespace

// ---- presets ---------------------------------------------------------------

// SPEC §4.1: DDR4-3200 (x8, 8 Gb; JEDEC 22-22-22: tCK 0.625 ns, CL 22, CWL 16,
// tRCD 22, tRP 22, tRAS 52, tRFC 560, tREFI 12480, tRRD_S 4, tRRD_L 8, tFAW 34,
// tWR 24, tRTP 12, tCCD_S 4, tCCD_L 8, tWTR_S 4, tWTR_L 12, in clocks; 4 bank
// groups x 4 banks, 65536 rows, 1024 columns, BL8, one 64-bit channel).
TEST(DramConfig, Ddr4PresetEqualsSpec)
{
    mx_dram_config c = load_ok(src(kDdr4));
    EXPECT_STREQ(c.name, "ddr4_3200");
    EXPECT_DOUBLE_EQ(c.tCK_ns, 0.625);
    EXPECT_EQ(timing(c, "CL"), 22);
    EXPECT_EQ(timing(c, "CWL"), 16);
    EXPECT_EQ(timing(c, "tRCD"), 22);
    EXPECT_EQ(timing(c, "tRP"), 22);
    EXPECT_EQ(timing(c, "tRAS"), 52);
    EXPECT_EQ(timing(c, "tRFC"), 560);
    EXPECT_EQ(timing(c, "tREFI"), 12480);
    EXPECT_EQ(timing(c, "tRRD_S"), 4);
    EXPECT_EQ(timing(c, "tRRD_L"), 8);
    EXPECT_EQ(timing(c, "tFAW"), 34);
    EXPECT_EQ(timing(c, "tWR"), 24);
    EXPECT_EQ(timing(c, "tRTP"), 12);
    EXPECT_EQ(timing(c, "tCCD_S"), 4);
    EXPECT_EQ(timing(c, "tCCD_L"), 8);
    EXPECT_EQ(timing(c, "tWTR_S"), 4);
    EXPECT_EQ(timing(c, "tWTR_L"), 12);
    EXPECT_EQ(c.device_width, 8);
    EXPECT_EQ(c.bankgroups, 4);
    EXPECT_EQ(c.banks_per_group, 4);
    EXPECT_EQ(c.rows, 65536);
    EXPECT_EQ(c.columns, 1024);
    EXPECT_EQ(c.BL, 8);
    EXPECT_EQ(c.channels, 1);
    EXPECT_EQ(c.bus_bits, 64);
    // 8 Gb per device: banks x rows x columns x width
    EXPECT_EQ((long long)c.bankgroups * c.banks_per_group * c.rows * c.columns * c.device_width, 8LL << 30);
    // the rest of the preset, as documented in the file
    EXPECT_EQ(timing(c, "tRC"), 74);
    EXPECT_EQ(timing(c, "AL"), 0);
    EXPECT_EQ(c.ranks, 1);
    EXPECT_DOUBLE_EQ(c.p.VDD, 1.2);
    EXPECT_DOUBLE_EQ(c.p.IDD0, 57);
    EXPECT_DOUBLE_EQ(c.p.IDD2N, 37);
    EXPECT_DOUBLE_EQ(c.p.IDD3N, 52);
    EXPECT_DOUBLE_EQ(c.p.IDD4R, 168);
    EXPECT_DOUBLE_EQ(c.p.IDD4W, 150);
    EXPECT_DOUBLE_EQ(c.p.IDD5, 250);
    EXPECT_EQ(c.page_policy, MX_PAGE_OPEN);
    EXPECT_STREQ(c.address_mapping, "rochrababgco");
    EXPECT_EQ(c.refresh, 1);
}

TEST(DramConfig, Lpddr4AndHbm2PresetsLoad)
{
    mx_dram_config l = load_ok(src("configs/dram/lpddr4_2400.yaml"));
    EXPECT_EQ(l.device_width, 16);
    EXPECT_EQ(l.BL, 16);
    EXPECT_EQ((long long)l.bankgroups * l.banks_per_group * l.rows * l.columns * l.device_width, 8LL << 30);
    EXPECT_EQ(timing(l, "CL"), 17);
    EXPECT_EQ(timing(l, "tRCD"), 15);
    mx_dram_config h = load_ok(src("configs/dram/hbm2.yaml"));
    EXPECT_EQ(h.device_width, 128);
    EXPECT_EQ(h.bus_bits, 128);
    EXPECT_EQ(h.channels, 8);
    EXPECT_EQ(h.BL, 4);
    EXPECT_EQ((long long)h.bankgroups * h.banks_per_group * h.rows * h.columns * h.device_width, 8LL << 30);
    EXPECT_EQ(timing(h, "CL"), 14);
    EXPECT_EQ(timing(h, "tRTP"), 6);
}

// Every preset entry has a source: removing the section's source makes the
// loader name the first entry without its own.
TEST(DramConfig, EveryNumberNeedsASource)
{
    TempDir d;
    std::string text = clitest::read_text(src(kDdr4));
    size_t a = text.find("timing:\n  source: >-\n");
    ASSERT_NE(a, std::string::npos);
    size_t b = text.find("  tCK_ns:", a);
    std::string edited = text.substr(0, a) + "timing:\n" + text.substr(b);
    write_text(d.file("x.yaml"), edited);
    std::string e = load_err(d.file("x.yaml"));
    int l = line_of(edited, "  CL: 22");
    EXPECT_EQ(e, d.file("x.yaml") + ":" + std::to_string(l) +
                     ": key 'timing.CL': no source: give the section a 'source:' or write {value: ..., source: ...}");
}

// ---- DRAMsim3 .ini ---------------------------------------------------------

TEST(DramConfig, DramsimIniEqualsYamlPreset)
{
    mx_dram_config y = load_ok(src(kDdr4));
    mx_dram_config i = load_ok(src(kIni));
    EXPECT_STREQ(i.name, "DDR4_8Gb_x8_3200");
    memset(i.name, 0, sizeof i.name);
    strcpy(i.name, y.name);
    EXPECT_EQ(0, memcmp(&y, &i, sizeof y)) << "the .ini and the YAML preset differ";
    // field by field, for a readable failure
    EXPECT_EQ(i.channels, y.channels);
    EXPECT_EQ(i.ranks, y.ranks);
    EXPECT_EQ(i.bankgroups, y.bankgroups);
    EXPECT_EQ(i.banks_per_group, y.banks_per_group);
    EXPECT_EQ(i.rows, y.rows);
    EXPECT_EQ(i.columns, y.columns);
    EXPECT_EQ(i.device_width, y.device_width);
    EXPECT_EQ(i.bus_bits, y.bus_bits);
    EXPECT_EQ(i.BL, y.BL);
    EXPECT_DOUBLE_EQ(i.tCK_ns, y.tCK_ns);
    for (size_t k = 0; k < mx_dram_timing_table_n; k++)
        EXPECT_EQ(timing(i, mx_dram_timing_table[k].name), timing(y, mx_dram_timing_table[k].name))
            << mx_dram_timing_table[k].name;
    EXPECT_DOUBLE_EQ(i.p.VDD, y.p.VDD);
    EXPECT_DOUBLE_EQ(i.p.IDD0, y.p.IDD0);
    EXPECT_DOUBLE_EQ(i.p.IDD2N, y.p.IDD2N);
    EXPECT_DOUBLE_EQ(i.p.IDD3N, y.p.IDD3N);
    EXPECT_DOUBLE_EQ(i.p.IDD4R, y.p.IDD4R);
    EXPECT_DOUBLE_EQ(i.p.IDD4W, y.p.IDD4W);
    EXPECT_DOUBLE_EQ(i.p.IDD5, y.p.IDD5);
    EXPECT_EQ(i.page_policy, y.page_policy);
    EXPECT_STREQ(i.address_mapping, y.address_mapping);
    EXPECT_EQ(i.queue_size, y.queue_size);
    EXPECT_EQ(i.write_high, y.write_high);
    EXPECT_EQ(i.write_low, y.write_low);
    EXPECT_EQ(i.refresh, y.refresh);
}

// DRAMsim3's rules: ranks = channel_size / rank size; CLOSE_PAGE; HBM columns
// doubled; tRCDRD/tRCDWR and tRTP_L when tRCD/tRTP are absent; tRC = tRAS + tRP.
TEST(DramConfig, DramsimIniRules)
{
    TempDir d;
    std::string ini = clitest::read_text(src(kIni));
    std::string two = edit_line(edit_line(ini, "channel_size", "channel_size = 16384"), "row_buf_policy",
                                "row_buf_policy = CLOSE_PAGE");
    write_text(d.file("two.ini"), two);
    mx_dram_config c = load_ok(d.file("two.ini"));
    EXPECT_EQ(c.ranks, 2);
    EXPECT_EQ(c.page_policy, MX_PAGE_CLOSED);
    EXPECT_EQ(timing(c, "tRC"), 52 + 22);

    std::string hbm = "[dram_structure]\nprotocol = HBM2\nbankgroups = 4\nbanks_per_group = 4\nrows = 32768\n"
                      "columns = 64\ndevice_width = 128\nBL = 4\nnum_dies = 4\n\n[timing]\ntCK = 1\nCL = 14\nCWL = 4\n"
                      "tRCDRD = 14\ntRCDWR = 14\ntRP = 14\ntRAS = 34\ntRFC = 260\ntREFI = 3900\ntREFIb = 128\n"
                      "tRPRE = 1\ntWPRE = 1\ntRRD_S = 4\ntRRD_L = 6\ntWTR_S = 6\ntWTR_L = 8\ntFAW = 30\ntWR = 16\n"
                      "tCCD_S = 1\ntCCD_L = 2\ntXS = 268\ntCKE = 8\ntCKSRE = 10\ntXP = 8\ntRTP_L = 6\ntRTP_S = 4\n\n"
                      "[power]\nVDD = 1.2\nIDD0 = 65\nIDD2P = 28\nIDD2N = 40\nIDD3P = 40\nIDD3N = 55\nIDD4W = 500\n"
                      "IDD4R = 390\nIDD5AB = 250\nIDD6x = 31\n\n[system]\nchannel_size = 1024\nchannels = 8\n"
                      "bus_width = 128\naddress_mapping = rorabgbachco\nqueue_structure = PER_RANK\n"
                      "row_buf_policy = OPEN_PAGE\ncmd_queue_size = 8\ntrans_queue_size = 32\n";
    write_text(d.file("hbm.ini"), hbm);
    mx_dram_config h = load_ok(d.file("hbm.ini"));
    mx_dram_config y = load_ok(src("configs/dram/hbm2.yaml"));
    memset(h.name, 0, sizeof h.name);
    strcpy(h.name, y.name);
    EXPECT_EQ(0, memcmp(&h, &y, sizeof h)) << "HBM2 .ini (DRAMsim3 layout) and hbm2.yaml differ";
    EXPECT_EQ(h.columns, 128);
    EXPECT_EQ(h.ranks, 1);
    EXPECT_EQ(timing(h, "tRCD"), 14);
    EXPECT_EQ(timing(h, "tRTP"), 6);
}

// ---- bad configurations: one line naming file:line and key ------------------

TEST(DramConfig, IniErrorsNameFileLineKey)
{
    TempDir d;
    std::string ini = clitest::read_text(src(kIni));
    std::string f = d.file("bad.ini");
    expect_load_errors(f, {
        {edit_line(ini, "tRCD", "tRCD = 22\ntFOO = 3"),
         ":" + std::to_string(line_of(ini, "tRCD") + 1) + ": key 'timing.tFOO': unknown key"},
        {edit_line(ini, "tRCD", ""), ":" + std::to_string(line_of(ini, "[timing]")) + ": key 'timing.tRCD': missing"},
        {edit_line(ini, "tRCD", "tRCD = 2x"), ":" + std::to_string(line_of(ini, "tRCD")) + ": key 'timing.tRCD': not an integer: '2x'"},
        {edit_line(ini, "tRCD", "tRCD = 0"), ":" + std::to_string(line_of(ini, "tRCD")) + ": key 'timing.tRCD': must be >= 1"},
        {edit_line(ini, "VDD", "VDD = -1.2"), ":" + std::to_string(line_of(ini, "VDD")) + ": key 'power.VDD': must be >= 0"},
        {edit_line(ini, "tCK", "tCK = fast"), ":" + std::to_string(line_of(ini, "tCK")) + ": key 'timing.tCK': not a number: 'fast'"},
        {"protocol = DDR4\n" + ini, ":1: key 'protocol': outside a section"},
        {edit_line(ini, "[other]", "[others]"), ":" + std::to_string(line_of(ini, "[other]") + 1) + ": key 'others.epoch_period': unknown section 'others'"},
        {edit_line(ini, "row_buf_policy", "row_buf_policy = OPEN"), ":" + std::to_string(line_of(ini, "row_buf_policy")) + ": key 'system.row_buf_policy': must be OPEN_PAGE or CLOSE_PAGE"},
        {edit_line(ini, "protocol", "protocol = GDDR5"), ":" + std::to_string(line_of(ini, "protocol")) + ": key 'dram_structure.protocol': 'GDDR5' is not modelled"},
        {edit_line(ini, "channel_size", "channel_size = 4096"), ":" + std::to_string(line_of(ini, "channel_size")) + ": key 'system.channel_size': 4096 MB is less than one rank (8192 MB)"},
        {edit_line(ini, "tRP", "tRP = 22\ntRP = 23"), ":" + std::to_string(line_of(ini, "tRP") + 1) + ": key 'timing.tRP': duplicate key"},
        {edit_line(ini, "rows", "rows = 65000"), ":" + std::to_string(line_of(ini, "rows")) + ": key 'dram_structure.rows': must be a power of two"},
        {edit_line(ini, "tRAS", "tRAS 52"), ":" + std::to_string(line_of(ini, "tRAS")) + ": malformed INI line"},
    });
}

// A value the loader takes but mx_dram_config_check refuses: the message names
// the .ini's own key and line (not our field name), for each mapped key; a
// duplicate names the line of the first.
TEST(DramConfig, IniCheckErrorsNameTheIniKeyAndLine)
{
    TempDir d;
    std::string ini = clitest::read_text(src(kIni));
    std::string f = d.file("bad.ini");
    auto at = [&](const std::string &prefix) { return ":" + std::to_string(line_of(ini, prefix)) + ": "; };
    expect_load_errors(f, {
        {edit_line(ini, "bankgroups", "bankgroups = 3"), at("bankgroups") + "key 'dram_structure.bankgroups': must be a power of two"},
        {edit_line(ini, "banks_per_group", "banks_per_group = 3"), at("banks_per_group") + "key 'dram_structure.banks_per_group': must be a power of two"},
        {edit_line(ini, "columns", "columns = 1000"), at("columns") + "key 'dram_structure.columns': must be a power of two"},
        {edit_line(ini, "BL", "BL = 3"), at("BL") + "key 'dram_structure.BL': must be a power of two"},
        {edit_line(ini, "channels", "channels = 3"), at("channels") + "key 'system.channels': must be a power of two"},
        {edit_line(ini, "tREFI", "tREFI = 500"), at("tREFI") + "key 'timing.tREFI': must exceed tRFC = 560 (got 500)"},
        {edit_line(ini, "trans_queue_size", "trans_queue_size = 100000"), at("trans_queue_size") + "key 'system.trans_queue_size': must be in 1..65536"},
        {edit_line(ini, "tRP", "tRP = 22\ntRP = 23"),
         ":" + std::to_string(line_of(ini, "tRP") + 1) + ": key 'timing.tRP': duplicate key (first on line " + std::to_string(line_of(ini, "tRP")) + ")"},
    });
}

TEST(DramConfig, YamlErrorsNameFileLineKey)
{
    TempDir d;
    std::string y = clitest::read_text(src(kDdr4));
    std::string f = d.file("bad.yaml");
    expect_load_errors(f, {
        {edit_line(y, "  tRCD:", "  tRCD: 22\n  tFOO: 3"), ":" + std::to_string(line_of(y, "  tRCD:") + 1) + ": key 'timing.tFOO': unknown key"},
        {edit_line(y, "  tRCD:", ""), ":" + std::to_string(line_of(y, "timing:")) + ": key 'timing.tRCD': missing"},
        {edit_line(y, "  tRCD:", "  tRCD: 2x"), ":" + std::to_string(line_of(y, "  tRCD:")) + ": key 'timing.tRCD': not an integer: '2x'"},
        {edit_line(y, "  tRCD:", "  tRCD: 0"), ":" + std::to_string(line_of(y, "  tRCD:")) + ": key 'timing.tRCD': must be >= 1"},
        {edit_line(y, "  page_policy:", "  page_policy: half"), ":" + std::to_string(line_of(y, "  page_policy:")) + ": key 'controller.page_policy': must be open or closed"},
        {edit_line(y, "  CL: 22", "  CL: {value: 22}"), ":" + std::to_string(line_of(y, "  CL: 22")) + ": key 'timing.CL.source': missing or empty"},
        {edit_line(y, "  CL: 22", "  CL: 22\n  CL: 23"), ":" + std::to_string(line_of(y, "  CL: 22") + 1) + ": key 'timing.CL': duplicate key"},
        {edit_line(y, "name:", "nmae: x"), ":" + std::to_string(line_of(y, "name:")) + ": key 'nmae': unknown key"},
        {edit_line(y, "  tRC:", "  tRC: {value: 70, source: test}"), ":" + std::to_string(line_of(y, "  tRC:")) + ": key 'timing.tRC': must be >= tRAS + tRP"},
        {edit_line(y, "  columns:", "  columns: 1000"), ":" + std::to_string(line_of(y, "  columns:")) + ": key 'structure.columns': must be a power of two"},
        {edit_line(y, "  CL: 22", "  CL: [22"), ":"},
    });
}

TEST(DramConfig, NotAFile)
{
    TempDir d;
    EXPECT_EQ(load_err(d.path()), d.path() + ": not a regular file");
    EXPECT_EQ(load_err(d.file("none.yaml")).rfind(d.file("none.yaml") + ": cannot open the file", 0), 0u);
    write_text(d.file("x.cfg"), "a = 1\n");
    EXPECT_EQ(load_err(d.file("x.cfg")).rfind(d.file("x.cfg") + ": unknown DRAM config type", 0), 0u);
    write_text(d.file("long.ini"), "[timing]\n; " + std::string(5000, 'x') + "\n");
    EXPECT_EQ(load_err(d.file("long.ini")).rfind(d.file("long.ini") + ":2: line longer than", 0), 0u);
}

// ---- mxsim dram: end to end ----------------------------------------------------

namespace {

// The number after the first "key": in text (the report puts the top-level
// counters before energy_pj and config); NaN if absent.
double json_field(const std::string &text, const std::string &key)
{
    std::string pat = "\"" + key + "\": ";
    size_t a = text.find(pat);
    if (a == std::string::npos) return std::nan("");
    const char *p = text.c_str() + a + pat.size();
    char *end = nullptr;
    double v = strtod(p, &end);
    return end == p ? std::nan("") : v;
}

std::string json_object(const std::string &text, const std::string &key)
{
    size_t a = text.find("\"" + key + "\": {");
    if (a == std::string::npos) return "";
    size_t b = text.find('}', a);
    return text.substr(a, b - a + 1);
}

struct DramRun {
    clitest::RunResult r;
    std::string json;
};

DramRun run_dram(const TempDir &d, const std::string &config, const std::string &trace,
                 std::vector<std::string> extra = {})
{
    write_text(d.file("t.trace"), trace);
    std::vector<std::string> args = {"dram", "-c", config, "-t", d.file("t.trace"), "-o", d.file("out.json")};
    args.insert(args.end(), extra.begin(), extra.end());
    DramRun x;
    x.r = run_mxsim(d, args);
    x.json = clitest::read_text(d.file("out.json"));
    return x;
}

}  // namespace

// DDR4-3200 preset, hand-derived (one 64-bit channel, 64 B bursts, mapping
// rochrababgco: bits 0-5 burst offset, 6-12 column, 13-14 bank group, 15-16
// bank, 17+ row).  A read issues ACT at 0, RD at tRCD, and its data ends at
// RD + CL + BL/2; energy from the Micron formulas of mem/mx_dram.h with
// VDD 1.2 V, 8 devices, tCK 0.625 ns.
TEST(DramCli, OneReadLatencyAndEnergy)
{
    TempDir d;
    DramRun x = run_dram(d, src(kDdr4), "# one read\n0x0 READ 0\n");
    ASSERT_EQ(x.r.status, 0) << x.r.err;
    const double tRCD = 22, CL = 22, BL = 8;
    EXPECT_EQ(json_field(x.json, "avg_read_latency"), tRCD + CL + BL / 2); // 48
    EXPECT_EQ(json_field(x.json, "cycles"), 48);
    EXPECT_EQ(json_field(x.json, "reads_done"), 1);
    EXPECT_EQ(json_field(x.json, "writes_done"), 0);
    EXPECT_EQ(json_field(x.json, "act"), 1);
    EXPECT_EQ(json_field(x.json, "pre"), 0);
    EXPECT_EQ(json_field(x.json, "ref"), 0);
    EXPECT_EQ(json_field(x.json, "row_hits"), 0);
    EXPECT_EQ(json_field(x.json, "row_misses"), 1);
    EXPECT_NEAR(json_field(x.json, "bandwidth_gbs"), 64.0 / (48 * 0.625), 1e-12);
    std::string e = json_object(x.json, "energy_pj");
    EXPECT_NEAR(json_field(e, "act"), 1.2 * (57 - 52) * 52 * 0.625 * 8, 1e-9);   // (IDD0-IDD3N) tRAS
    EXPECT_NEAR(json_field(e, "rd"), 1.2 * (168 - 52) * 4 * 0.625 * 8, 1e-9);    // (IDD4R-IDD3N) BL/2
    EXPECT_NEAR(json_field(e, "bg_act"), 1.2 * 52 * 0.625 * 8 * 48, 1e-9);       // IDD3N, 48 clocks open
    EXPECT_NEAR(json_field(e, "bg_pre"), 0, 1e-9);
    EXPECT_NEAR(json_field(e, "total"), 1560 + 2784 + 14976, 1e-9);
    EXPECT_NE(x.json.find("\"engine\": \"dram\""), std::string::npos);
    EXPECT_NE(x.json.find("\"version\": \"0."), std::string::npos);
    std::string cfg = x.json.substr(x.json.find("\"config\": {"));
    EXPECT_EQ(json_field(cfg, "tRCD"), 22);
    EXPECT_EQ(json_field(cfg, "tREFI"), 12480);
    EXPECT_EQ(json_field(cfg, "IDD5"), 250);
    EXPECT_NE(cfg.find("\"address_mapping\": \"rochrababgco\""), std::string::npos);
    EXPECT_NE(x.r.out.find("avg read latency"), std::string::npos);
}

// Two reads of one row: one ACT, the second is a row hit, its RD tCCD_L after
// the first (same bank group): latencies 48 and 22 + 8 + 22 + 4 = 56.
TEST(DramCli, TwoReadsSameRowOneActOneHit)
{
    TempDir d;
    DramRun x = run_dram(d, src(kDdr4), "0x0 READ 0\n0x40 READ 0\n");
    ASSERT_EQ(x.r.status, 0) << x.r.err;
    EXPECT_EQ(json_field(x.json, "act"), 1);
    EXPECT_EQ(json_field(x.json, "row_hits"), 1);
    EXPECT_EQ(json_field(x.json, "row_misses"), 1);
    EXPECT_EQ(json_field(x.json, "avg_read_latency"), (48 + 56) / 2.0);
    EXPECT_EQ(json_field(x.json, "cycles"), 56);
}

// Another row of the same bank: PRE at max(tRAS, tRCD + tRTP) = 52, ACT at
// 52 + tRP = 74 (= tRC), RD at 96, data at 96 + 26 = 122.
TEST(DramCli, RowConflict)
{
    TempDir d;
    DramRun x = run_dram(d, src(kDdr4), "0x0 READ 0\n0x20000 READ 0\n");
    ASSERT_EQ(x.r.status, 0) << x.r.err;
    EXPECT_EQ(json_field(x.json, "act"), 2);
    EXPECT_EQ(json_field(x.json, "pre"), 1);
    EXPECT_EQ(json_field(x.json, "row_conflicts"), 1);
    EXPECT_EQ(json_field(x.json, "avg_read_latency"), (48 + 122) / 2.0);
    std::string e = json_object(x.json, "energy_pj");
    EXPECT_NEAR(json_field(e, "pre"), 1.2 * (57 - 37) * 22 * 0.625 * 8, 1e-9); // (IDD0-IDD2N) tRP
}

// A write completes when its data has been sent: tRCD + CWL + BL/2 = 42.
TEST(DramCli, OneWrite)
{
    TempDir d;
    DramRun x = run_dram(d, src(kDdr4), "0x0 WRITE 0\n");
    ASSERT_EQ(x.r.status, 0) << x.r.err;
    EXPECT_EQ(json_field(x.json, "writes_done"), 1);
    EXPECT_EQ(json_field(x.json, "cycles"), 42);
}

// --cycles N runs exactly N clocks (as DRAMsim3's -c): two refreshes (at
// tREFI and 2 tREFI) in 30000 clocks, each (IDD5-IDD3N) tRFC.
TEST(DramCli, CyclesLimitAndRefresh)
{
    TempDir d;
    DramRun x = run_dram(d, src(kDdr4), "0x0 READ 0\n", {"--cycles", "30000"});
    ASSERT_EQ(x.r.status, 0) << x.r.err;
    EXPECT_EQ(json_field(x.json, "cycles"), 30000);
    EXPECT_EQ(json_field(x.json, "cycles_limit"), 30000);
    EXPECT_EQ(json_field(x.json, "reads_done"), 1);
    EXPECT_EQ(json_field(x.json, "ref"), 2);
    std::string e = json_object(x.json, "energy_pj");
    EXPECT_NEAR(json_field(e, "ref"), 2 * 1.2 * (250 - 52) * 560 * 0.625 * 8, 1e-6);
    // requests beyond the limit are counted, not simulated
    DramRun y = run_dram(d, src(kDdr4), "0x0 READ 0\n0x40 READ 100\n0x80 READ 200\n", {"--cycles", "50"});
    ASSERT_EQ(y.r.status, 0) << y.r.err;
    EXPECT_EQ(json_field(y.json, "cycles"), 50);
    EXPECT_EQ(json_field(y.json, "reads_done"), 1);
    EXPECT_EQ(json_field(y.json, "requests_not_issued"), 2);
}

// The DRAMsim3 .ini of the same device gives the same numbers.
TEST(DramCli, IniConfigSameResults)
{
    TempDir d;
    const std::string trace = "0x0 READ 0\n0x40 WRITE 3\n0x20000 READ 10\n0x1000 READ 10\n0x2000 WRITE 40\n";
    DramRun a = run_dram(d, src(kDdr4), trace);
    ASSERT_EQ(a.r.status, 0) << a.r.err;
    DramRun b = run_dram(d, src(kIni), trace);
    ASSERT_EQ(b.r.status, 0) << b.r.err;
    for (const char *k : {"cycles", "reads_done", "writes_done", "avg_read_latency", "act", "pre", "row_hits",
                          "row_misses", "bandwidth_gbs"})
        EXPECT_EQ(json_field(a.json, k), json_field(b.json, k)) << k;
    EXPECT_EQ(json_object(a.json, "energy_pj"), json_object(b.json, "energy_pj"));
}

// A full queue holds the request (and those behind it) until it frees:
// 200 reads at cycle 0 to distinct rows of one bank all complete.
TEST(DramCli, FullQueueHoldsRequests)
{
    TempDir d;
    std::string t;
    for (int i = 0; i < 200; i++) t += "0x" + [](unsigned long v) { char b[32]; snprintf(b, sizeof b, "%lx", v); return std::string(b); }((unsigned long)i << 17) + " READ 0\n";
    DramRun x = run_dram(d, src(kDdr4), t);
    ASSERT_EQ(x.r.status, 0) << x.r.err;
    EXPECT_EQ(json_field(x.json, "reads_done"), 200);
    EXPECT_EQ(json_field(x.json, "act"), 200);
    EXPECT_GE(json_field(x.json, "cycles"), 200 * 74); // one bank: an ACT per tRC at best
}

// Bad input: exit 2, one line on stderr naming file:line and key, no report.
TEST(DramCli, BadInputExit2NoOutput)
{
    TempDir d;
    std::string ini = clitest::read_text(src(kIni));
    std::string yaml = clitest::read_text(src(kDdr4));
    write_text(d.file("unknown.ini"), edit_line(ini, "tRCD", "tRCD = 22\ntFOO = 1"));
    write_text(d.file("missing.ini"), edit_line(ini, "tRP =", ""));
    write_text(d.file("badnum.yaml"), edit_line(yaml, "  tRCD:", "  tRCD: 22.5"));
    write_text(d.file("unknown.yaml"), edit_line(yaml, "  tRCD:", "  tRCD: 22\n  tRCDX: 1"));
    mkdir(d.file("dir.yaml").c_str(), 0777);
    const std::string good_trace = "0x0 READ 0\n";
    struct Case {
        std::string config, trace, expect;
    } cases[] = {
        {d.file("unknown.ini"), good_trace, d.file("unknown.ini") + ":" + std::to_string(line_of(ini, "tRCD") + 1) + ": key 'timing.tFOO': unknown key"},
        {d.file("missing.ini"), good_trace, d.file("missing.ini") + ":" + std::to_string(line_of(ini, "[timing]")) + ": key 'timing.tRP': missing"},
        {d.file("badnum.yaml"), good_trace, d.file("badnum.yaml") + ":" + std::to_string(line_of(yaml, "  tRCD:")) + ": key 'timing.tRCD': not an integer: '22.5'"},
        {d.file("unknown.yaml"), good_trace, d.file("unknown.yaml") + ":" + std::to_string(line_of(yaml, "  tRCD:") + 1) + ": key 'timing.tRCDX': unknown key"},
        {d.file("dir.yaml"), good_trace, d.file("dir.yaml") + ": not a regular file"},
        {src(kDdr4), "0x0 READ 0\n0x40 READ\n", d.file("t.trace") + ":2: truncated line"},
        {src(kDdr4), "0x0 READ 5\n# c\n0x40 READ 4\n", d.file("t.trace") + ":3: cycle 4 is before the previous request's cycle 5"},
        {src(kDdr4), "0x0 FETCH 0\n", d.file("t.trace") + ":1: request type must be READ or WRITE, got 'FETCH'"},
        {src(kDdr4), "0xZZ READ 0\n", d.file("t.trace") + ":1: address: not a hexadecimal number: '0xZZ'"},
        {src(kDdr4), "0x0 READ -1\n", d.file("t.trace") + ":1: cycle: not a non-negative integer: '-1'"},
        {src(kDdr4), "0x0 READ 0 7\n", d.file("t.trace") + ":1: extra field '7'"},
        {src(kDdr4), "0x0 READ 0\n" + std::string(300, ' ') + "\n", d.file("t.trace") + ":2: line longer than 256 characters"},
    };
    for (const Case &k : cases) {
        DramRun x = run_dram(d, k.config, k.trace);
        EXPECT_EQ(x.r.status, 2) << k.expect;
        std::string want = "mxsim dram: " + k.expect;
        EXPECT_EQ(x.r.err.compare(0, want.size(), want), 0) << "got: " << x.r.err << "want: " << want;
        EXPECT_EQ(std::count(x.r.err.begin(), x.r.err.end(), '\n'), 1) << x.r.err;
        EXPECT_FALSE(clitest::exists(d.file("out.json"))) << k.expect;
        EXPECT_FALSE(clitest::exists(d.file("out.json.tmp"))) << k.expect;
    }
    // an unwritable -o: exit 2, nothing left behind
    write_text(d.file("t.trace"), good_trace);
    auto r = run_mxsim(d, {"dram", "-c", src(kDdr4), "-t", d.file("t.trace"), "-o", d.file("no/such/dir/out.json")});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("cannot write"), std::string::npos) << r.err;
    // usage errors
    EXPECT_EQ(run_mxsim(d, {"dram", "-c", src(kDdr4)}).status, 2);
    EXPECT_EQ(run_mxsim(d, {"dram", "-c", src(kDdr4), "-t", d.file("t.trace"), "--cycles", "0"}).status, 2);
    EXPECT_EQ(run_mxsim(d, {"dram", "--bogus"}).status, 2);
    EXPECT_EQ(run_mxsim(d, {"dram", "--help"}).status, 0);
}
