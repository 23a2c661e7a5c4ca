// The CLI's bad-input contract, table-driven (issue 10): every row of
// tests/badinput/*.tsv runs one mxsim command on hostile input and checks
// what the user sees.  Row format (one case a line, TAB-separated, '#' starts
// a comment line, '-' is an empty field):
//
//   name  exit  words  absent  setup  command
//
//   exit    expected exit status (2 for bad input; 0 where the input is legal)
//   words   '|'-separated words that must all appear (case-insensitive) in the
//           error line (exit != 0) or in stdout+stderr (exit 0)
//   absent  ','-separated paths that must not exist afterwards
//   setup   shell run first (must succeed): prepares hostile files
//   command shell whose exit status is checked; stderr is captured
//
// In setup, command and absent: @BIN@ is the mxsim binary, @TMP@ a fresh empty
// directory of the row, @SRC@ the source tree (the cwd of both shells).
//
// For exit != 0 the contract (README, DEVELOPERS.md): stderr is exactly one
// non-empty line, without raw control characters; nothing is left behind; the
// command ends within a few seconds (a hang guard, not a speed target: each
// shell runs under `timeout 20`).
#include "cli_helpers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <fstream>
#include <glob.h>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Row {
    std::string file;
    int line = 0;
    std::string name;
    int exit_status = 0;
    std::vector<std::string> words, absent;
    std::string setup, command;
};

std::vector<std::string> split(const std::string &s, char sep)
{
    std::vector<std::string> out;
    std::string cur;
    for (char ch : s) {
        if (ch == sep) { out.push_back(cur); cur.clear(); }
        else cur += ch;
    }
    out.push_back(cur);
    return out;
}

std::string subst(std::string s, const std::string &tmp)
{
    const std::pair<std::string, std::string> rep[] = {
        {"@BIN@", clitest::quote(clitest::mxsim_bin())}, {"@TMP@", tmp}, {"@SRC@", MXSIM_SRC_DIR}};
    for (const auto &r : rep)
        for (size_t p = s.find(r.first); p != std::string::npos; p = s.find(r.first, p + r.second.size()))
            s.replace(p, r.first.size(), r.second);
    return s;
}

std::string lower(std::string s)
{
    for (char &ch : s) ch = (char)tolower((unsigned char)ch);
    return s;
}

std::vector<Row> load_rows()
{
    std::vector<Row> rows;
    glob_t g;
    std::string pat = std::string(MXSIM_SRC_DIR) + "/tests/badinput/*.tsv";
    if (glob(pat.c_str(), 0, nullptr, &g) != 0) return rows;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        std::ifstream in(g.gl_pathv[i]);
        std::string line;
        int ln = 0;
        while (std::getline(in, line)) {
            ln++;
            if (line.empty() || line[0] == '#') continue;
            std::vector<std::string> f = split(line, '\t');
            Row r;
            r.file = g.gl_pathv[i];
            r.line = ln;
            if (f.size() != 6) { r.name = "<malformed row>"; rows.push_back(r); continue; }
            r.name = f[0];
            r.exit_status = atoi(f[1].c_str());
            if (f[2] != "-") r.words = split(f[2], '|');
            if (f[3] != "-") r.absent = split(f[3], ',');
            r.setup = f[4] == "-" ? "" : f[4];
            r.command = f[5];
            rows.push_back(r);
        }
    }
    globfree(&g);
    return rows;
}

// gtest prints a failing parameter: the row, not its bytes.
void PrintTo(const Row &r, std::ostream *os) { *os << r.file << ":" << r.line << " " << r.name; }

int sh(const std::string &cmd)
{
    int st = system(("cd " + clitest::quote(MXSIM_SRC_DIR) + " && timeout 20 sh -c " + clitest::quote(cmd)).c_str());
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

}  // namespace

class BadInput : public ::testing::TestWithParam<Row> {};

TEST_P(BadInput, Row)
{
    const Row &r = GetParam();
    SCOPED_TRACE(r.file + ":" + std::to_string(r.line) + " " + r.name);
    ASSERT_NE(r.name, "<malformed row>") << "a row needs 6 TAB-separated fields";
    clitest::TempDir dir;
    ASSERT_FALSE(dir.path().empty());
    const std::string tmp = dir.path();
    if (!r.setup.empty()) {
        ASSERT_EQ(sh(subst(r.setup, tmp)), 0) << "setup failed: " << r.setup;
    }
    const std::string out = tmp + "/.stdout", err = tmp + "/.stderr";
    auto t0 = std::chrono::steady_clock::now();
    int st = sh("( " + subst(r.command, tmp) + " ) >" + clitest::quote(out) + " 2>" + clitest::quote(err));
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::string o = clitest::read_text(out), e = clitest::read_text(err);
    EXPECT_NE(st, 124) << "timed out (hang) after " << secs << " s";
    EXPECT_EQ(st, r.exit_status) << "stderr: " << e;
    std::string seen = r.exit_status != 0 ? e : o + e;
    for (const std::string &w : r.words) {
        EXPECT_NE(lower(seen).find(lower(w)), std::string::npos) << "missing '" << w << "' in: " << seen;
    }
    if (r.exit_status != 0) {
        EXPECT_FALSE(e.empty()) << "no error message";
        EXPECT_EQ(std::count(e.begin(), e.end(), '\n'), 1) << "not one line: " << e;
        EXPECT_TRUE(!e.empty() && e.back() == '\n') << "unterminated line: " << e;
        for (size_t i = 0; i + 1 < e.size(); i++) {
            unsigned char ch = (unsigned char)e[i];
            EXPECT_TRUE(ch >= 0x20 && ch != 0x7f) << "raw control character " << (int)ch << " at " << i;
        }
    }
    for (const std::string &a : r.absent) {
        EXPECT_FALSE(clitest::exists(subst(a, tmp))) << subst(a, tmp) << " exists";
    }
    (void)!system(("rm -rf " + clitest::quote(tmp) + "/* " + clitest::quote(tmp) + "/.[!.]*").c_str());
}

// Row names are test names: letters, digits and '_' only, unique.
TEST(BadInputTable, NamesAreUniqueIdentifiers)
{
    std::vector<Row> rows = load_rows();
    ASSERT_GE(rows.size(), 1u) << "no rows in tests/badinput/*.tsv";
    std::vector<std::string> names;
    for (const Row &r : rows) {
        SCOPED_TRACE(r.file + ":" + std::to_string(r.line));
        EXPECT_FALSE(r.name.empty());
        for (char ch : r.name) {
            EXPECT_TRUE(isalnum((unsigned char)ch) || ch == '_') << r.name;
        }
        EXPECT_EQ(std::count(names.begin(), names.end(), r.name), 0) << "duplicate row name " << r.name;
        names.push_back(r.name);
    }
}

INSTANTIATE_TEST_SUITE_P(Table, BadInput, ::testing::ValuesIn(load_rows()),
                         [](const ::testing::TestParamInfo<Row> &i) {
                             std::string n;
                             for (char ch : i.param.name) n += isalnum((unsigned char)ch) ? ch : '_';
                             return n.empty() ? "row" + std::to_string(i.index) : n + "_" + std::to_string(i.index);
                         });
