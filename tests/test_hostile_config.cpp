// Hostile configuration input at the library level (issue 10): the shared
// reader mx_input_read, the checked YAML parse behind mx_config_load,
// mx_energy_load and --set, and the command-line helpers of config_yaml.h.
// The CLI side (exit status, one line, nothing written) is in
// tests/badinput/*.tsv; these cases pin the boundaries.
#include "cli_helpers.h"
#include "config_yaml.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <sys/stat.h>

namespace {

void write_file(const std::string &path, const std::string &text)
{
    std::ofstream(path, std::ios::binary) << text;
}

std::string read_err(const std::string &path, std::string *text = nullptr)
{
    char *t = nullptr, err[700] = "";
    size_t len = 0;
    int rc = mx_input_read(path.c_str(), "configuration", &t, &len, err, sizeof err);
    if (rc == 0) {
        if (text) *text = std::string(t, len);
        free(t);
        return "";
    }
    EXPECT_EQ(t, nullptr);
    return err;
}

std::string load_err(const std::string &path)
{
    mx_arch_config c;
    char err[700] = "";
    return mx_config_load(path.c_str(), &c, nullptr, err, sizeof err) == 0 ? "" : err;
}

std::string set_err(const std::string &assignment)
{
    mx_arch_config c;
    mx_arch_config_default(&c);
    char err[700] = "";
    return mx_config_override(&c, assignment.c_str(), err, sizeof err) == 0 ? "" : err;
}

}  // namespace

TEST(HostileConfig, ReaderTakesRegularFilesUpTo256KiB)
{
    clitest::TempDir d;
    std::string text;
    write_file(d.file("ok.yaml"), std::string("name: a\n\0x", 10));
    EXPECT_EQ(read_err(d.file("ok.yaml"), &text), "");
    EXPECT_EQ(text, std::string("name: a\n\0x", 10)); // every byte, length reported
    write_file(d.file("max.yaml"), std::string(256 << 10, '#'));
    EXPECT_EQ(read_err(d.file("max.yaml"), &text), "");
    EXPECT_EQ(text.size(), 256u << 10);
    write_file(d.file("over.yaml"), std::string((256 << 10) + 1, '#'));
    EXPECT_EQ(read_err(d.file("over.yaml")),
              d.file("over.yaml") + ": 262145 bytes: over the 256 KiB limit of configuration files");
}

TEST(HostileConfig, ReaderRefusesNonRegularFilesWithoutReading)
{
    clitest::TempDir d;
    EXPECT_EQ(read_err(d.path()), d.path() + ": not a regular file");
    EXPECT_EQ(read_err("/dev/zero"), "/dev/zero: not a regular file");
    ASSERT_EQ(mkfifo(d.file("fifo").c_str(), 0600), 0);
    EXPECT_EQ(read_err(d.file("fifo")), d.file("fifo") + ": not a regular file"); // no writer: must not block
    EXPECT_EQ(read_err(d.file("none.yaml")), d.file("none.yaml") + ": cannot open the file");
    // the same reader behind the config and energy loaders
    EXPECT_EQ(load_err("/dev/zero"), "/dev/zero: not a regular file");
    mx_energy_table t;
    char err[700] = "";
    EXPECT_NE(mx_energy_load(d.path().c_str(), &t, err, sizeof err), 0);
    EXPECT_EQ(std::string(err), d.path() + ": not a regular file");
}

TEST(HostileConfig, KeysArePlainUniqueScalars)
{
    clitest::TempDir d;
    const std::string p = d.file("c.yaml");
    write_file(p, "arch:\n  rows: 8\nformat:\n  block: 32\narch:\n  cols: 8\n");
    EXPECT_EQ(load_err(p), p + ":5: key 'arch': duplicate key (first on line 1)");
    write_file(p, "arch: {rows: 8, rows: 8}\n");
    EXPECT_EQ(load_err(p), p + ":1: key 'arch.rows': duplicate key (first on line 1)");
    write_file(p, "arch:\n  ? [rows]\n  : 8\n");
    EXPECT_EQ(load_err(p), p + ":2: key 'arch': a sequence as a key: keys must be plain words");
    write_file(p, "arch:\n  {rows: 1}: 8\n");
    EXPECT_EQ(load_err(p), p + ":2: key 'arch': a mapping as a key: keys must be plain words");
    write_file(p, "arch:\n  ~: 8\n");
    EXPECT_EQ(load_err(p), p + ":2: key 'arch': a null as a key: keys must be plain words");
    write_file(p, "x: &k rows\narch:\n  *k : 8\n");
    EXPECT_EQ(load_err(p), p + ":3: key 'arch': an alias as a key: keys must be plain words");
    // the same text under two keys is no duplicate
    write_file(p, "arch:\n  rows: 8\nformat:\n  block: 8\n");
    EXPECT_EQ(load_err(p), "");
}

TEST(HostileConfig, NestingLimitAndOneDocument)
{
    clitest::TempDir d;
    const std::string p = d.file("c.yaml");
    // the root mapping is level 1: 31 brackets reach level 32 (allowed), 32 do not
    write_file(p, "name: " + std::string(31, '[') + std::string(31, ']') + "\n");
    EXPECT_EQ(load_err(p), p + ":1: key 'name': expected a scalar value");
    write_file(p, "name: " + std::string(32, '[') + std::string(32, ']') + "\n");
    EXPECT_NE(load_err(p).find(p + ":1: key 'name[0]"), std::string::npos) << load_err(p);
    EXPECT_NE(load_err(p).find("nested more than 32 levels deep"), std::string::npos);
    write_file(p, "name: a\n---\nname: b\n");
    EXPECT_EQ(load_err(p), p + ":2: more than one YAML document ('---'): expected one");
    write_file(p, "---\nname: a\n...\n");
    EXPECT_EQ(load_err(p), "");
}

TEST(HostileConfig, NameIsOneSafeFileName)
{
    EXPECT_EQ(set_err("name=mxsf_1d.v2+b-3"), "");
    EXPECT_EQ(set_err("name=_x"), "");
    for (const char *bad : {"name=..", "name=.hidden", "name=-x", "name=a/b", "name=../x", "name=a b"})
        EXPECT_NE(set_err(bad).find("--set: key 'name': must"), std::string::npos) << bad << ": " << set_err(bad);
}

TEST(HostileConfig, SetValuesAreCheckedLikeFiles)
{
    EXPECT_EQ(set_err("arch.rows=16"), "");
    EXPECT_EQ(set_err("arch.rows=8\n---\n9"), "--set: key 'arch.rows': more than one YAML document ('---'): expected one");
    // a value is its own document: its first sequence (arch.rows) is level 1, the 33rd fails
    EXPECT_EQ(set_err("arch.rows=" + std::string(40, '[') + std::string(40, ']')),
              "--set: key 'arch.rows" + [] { std::string s; for (int i = 0; i < 32; i++) s += "[0]"; return s; }() +
                  "': nested more than 32 levels deep");
    // unterminated: yaml-cpp reads the brackets as keys; still the depth message, before its own limit
    EXPECT_NE(set_err("arch.rows=" + std::string(100000, '[')).find("nested more than 32 levels deep"), std::string::npos);
    EXPECT_EQ(set_err("arch.rows={a: 1, a: 2}"), "--set: key 'arch.rows.a': duplicate key");
    EXPECT_EQ(set_err("name=a\x1b[31m"), "--set: key 'name': must be a file name of letters, digits, '_', '-', '.' "
                                         "and '+' (reports go to OUTDIR/NAME/), got 'a\\x1b[31m'");
}

TEST(HostileConfig, SeedIsDecimalDigitsOnly)
{
    uint64_t s = 7;
    EXPECT_EQ(mx_parse_seed("0", &s), 0);
    EXPECT_EQ(s, 0u);
    EXPECT_EQ(mx_parse_seed("18446744073709551615", &s), 0);
    EXPECT_EQ(s, UINT64_MAX);
    for (const char *bad : {"", "-1", "+1", " 1", "1 ", "0x10", "18446744073709551616", "1e3"})
        EXPECT_EQ(mx_parse_seed(bad, &s), -1) << "'" << bad << "'";
}

TEST(HostileConfig, EscapeControls)
{
    char out[64];
    mx_escape_controls(out, sizeof out, "a\x1b[31mb\n\x7f");
    EXPECT_STREQ(out, "a\\x1b[31mb\\x0a\\x7f");
    mx_escape_controls(out, sizeof out, "\xc2\x9b" "1m \xc3\xa9"); // C1 CSI escaped, é kept
    EXPECT_STREQ(out, "\\x9b1m \xc3\xa9");
    mx_escape_controls(out, 6, "\x01\x02");  // no room for the second escape: cut, terminated
    EXPECT_STREQ(out, "\\x01");
}

TEST(HostileConfig, OutputFileDirectoryChecked)
{
    clitest::TempDir d;
    char err[700] = "";
    EXPECT_EQ(mx_check_output_file("--fst", d.file("w.fst").c_str(), err, sizeof err), 0);
    EXPECT_EQ(mx_check_output_file("--fst", d.file("no/w.fst").c_str(), err, sizeof err), -1);
    EXPECT_EQ(std::string(err), "option '--fst': cannot write '" + d.file("no/w.fst") + "': its directory does not exist");
    EXPECT_EQ(mx_check_output_file("--fst", d.path().c_str(), err, sizeof err), -1);
    EXPECT_EQ(std::string(err), "option '--fst': '" + d.path() + "' is a directory");
    EXPECT_FALSE(clitest::exists(d.file("w.fst"))); // a check, not a write
}

TEST(HostileConfig, NodeLimit)
{
    clitest::TempDir d;
    const std::string p = d.file("c.yaml");
    // the root mapping, the key, the sequence: 3 nodes; then one per element
    std::string seq;
    for (int i = 0; i < 19997; i++) seq += "1,";
    write_file(p, "name: [" + seq + "]\n");
    EXPECT_EQ(load_err(p), p + ":1: key 'name': expected a scalar value"); // 20000 nodes: parsed
    write_file(p, "name: [" + seq + "1]\n");
    EXPECT_EQ(load_err(p), p + ":1: more than 20000 YAML nodes (keys and values): not a configuration");
}
