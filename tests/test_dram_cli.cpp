// DRAM configuration loader (sim/dram_config.cpp: our YAML presets and
// DRAMsim3 .ini files) and the `mxsim dram` command (sim/cmd_dram.c).
// DramConfig*: the loader called directly.  DramCli*: the binary ($MXSIM_BIN).
#include "cli_helpers.h"

#include "dram_config.h"
#include "mem/mx_dram.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <string>

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
    struct Case {
        std::string text, expect;
    } cases[] = {
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
    };
    for (const Case &k : cases) {
        write_text(f, k.text);
        std::string e = load_err(f);
        EXPECT_EQ(e.compare(0, f.size() + k.expect.size(), f + k.expect), 0) << "got: " << e << "\nwant prefix: " << f + k.expect;
        EXPECT_EQ(e.find('\n'), std::string::npos) << e;
    }
}

TEST(DramConfig, YamlErrorsNameFileLineKey)
{
    TempDir d;
    std::string y = clitest::read_text(src(kDdr4));
    std::string f = d.file("bad.yaml");
    struct Case {
        std::string text, expect;
    } cases[] = {
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
    };
    for (const Case &k : cases) {
        write_text(f, k.text);
        std::string e = load_err(f);
        EXPECT_EQ(e.compare(0, f.size() + k.expect.size(), f + k.expect), 0) << "got: " << e << "\nwant prefix: " << f + k.expect;
        EXPECT_EQ(e.find('\n'), std::string::npos) << e;
    }
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
