// `mxsim sweep` (sim/cmd_sweep.c): every row of sweep.csv is what `mxsim run`
// gives for the same base config with the point's overrides as --set (run
// here separately, its report.json read independently); invalid points are
// recorded with run's own error; shards merged are byte-identical to the
// unsharded run; --resume skips finished points and a sweep killed midway
// leaves only whole points; a sweep file equals the same command line.
#include "cli_helpers.h"
#include "arch/mx_arch.h"

#include <csignal>
#include <cstring>
#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <algorithm>

using namespace clitest;

namespace {

const std::string SRC = MXSIM_SRC_DIR;

void rm_tree(const std::string &p) { (void)!system(("rm -rf " + quote(p)).c_str()); }

// A fresh directory removed with everything under it.
struct Tree {
    TempDir t;
    ~Tree() { rm_tree(t.path() + "/"); }
};

std::vector<std::string> split(const std::string &s, char sep)
{
    std::vector<std::string> out;
    std::string cur;
    bool q = false;
    for (size_t i = 0; i < s.size(); i++) {
        char c = s[i];
        if (q) {
            if (c == '"' && i + 1 < s.size() && s[i + 1] == '"') { cur += '"'; i++; }
            else if (c == '"') q = false;
            else cur += c;
        } else if (c == '"') q = true;
        else if (c == sep) { out.push_back(cur); cur.clear(); }
        else cur += c;
    }
    out.push_back(cur);
    return out;
}

// sweep.csv as rows of column name -> field.
std::vector<std::map<std::string, std::string>> read_csv(const std::string &path)
{
    std::vector<std::map<std::string, std::string>> rows;
    std::istringstream in(read_text(path));
    std::string line;
    std::vector<std::string> head;
    while (std::getline(in, line)) {
        std::vector<std::string> f = split(line, ',');
        if (head.empty()) { head = f; continue; }
        std::map<std::string, std::string> r;
        for (size_t i = 0; i < head.size() && i < f.size(); i++) r[head[i]] = f[i];
        rows.push_back(r);
    }
    return rows;
}

// "cycles" and "energy_pj" of report.json's "total" object, found by text.
void report_total(const std::string &path, long long &cycles, double &energy)
{
    std::string j = read_text(path);
    size_t t = j.find("\"total\"");
    ASSERT_NE(t, std::string::npos) << path;
    size_t c = j.find("\"cycles\": ", t), e = j.find("\"energy_pj\": ", t);
    ASSERT_NE(c, std::string::npos);
    ASSERT_NE(e, std::string::npos);
    cycles = atoll(j.c_str() + c + 10);
    energy = atof(j.c_str() + e + 13);
}

const std::vector<std::string> BASE = {"sweep", "-c", SRC + "/configs/mxsf.yaml", "-t", SRC + "/traces/tiny_train.csv",
                                       "-t", SRC + "/tests/golden/sweep/mini.csv"};

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string> &more)
{
    a.insert(a.end(), more.begin(), more.end());
    return a;
}

} // namespace

TEST(Sweep, EveryRowEqualsMxsimRunWithSet)
{
    Tree d;
    std::string out = d.t.file("sw");
    RunResult r = run_mxsim(d.t, with(BASE, {"--grid", "arch.rows=8,16,0", "--grid", "memory.dram=hbm2,ddr4_3200", "--grid",
                                             "memory.tiling=time,energy", "-o", out, "-j", "2", "--no-progress"}));
    ASSERT_EQ(r.status, 0) << r.err;
    auto rows = read_csv(out + "/sweep.csv");
    ASSERT_EQ(rows.size(), 3u * 2u * 2u * 2u); // points x traces
    const char *rows_v[] = {"8", "16", "0"}, *dram_v[] = {"hbm2", "ddr4_3200"}, *til_v[] = {"time", "energy"};
    const char *tr[] = {"traces/tiny_train.csv", "tests/golden/sweep/mini.csv"};
    size_t i = 0, ok = 0;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 2; b++)
            for (int c = 0; c < 2; c++)
                for (int t = 0; t < 2; t++, i++) {
                    auto &row = rows[i];
                    char id[40];
                    snprintf(id, sizeof id, "p%05d", (a * 2 + b) * 2 + c);
                    EXPECT_EQ(row["point"], id);
                    EXPECT_EQ(row["arch.rows"], rows_v[a]);
                    EXPECT_EQ(row["memory.dram"], dram_v[b]);
                    EXPECT_EQ(row["memory.tiling"], til_v[c]);
                    EXPECT_EQ(row["trace"], SRC + "/" + tr[t]);
                    std::string rd = d.t.file("run");
                    rm_tree(rd);
                    RunResult rr = run_mxsim(d.t, {"run", "-c", SRC + "/configs/mxsf.yaml", "-t", SRC + "/" + tr[t],
                                                   "--set", std::string("arch.rows=") + rows_v[a], "--set",
                                                   std::string("memory.dram=") + dram_v[b], "--set",
                                                   std::string("memory.tiling=") + til_v[c], "-o", rd, "-q"});
                    if (a == 2) { // arch.rows=0: refused by run, recorded by the sweep with run's error
                        EXPECT_EQ(rr.status, 2);
                        EXPECT_EQ(row["status"], "invalid");
                        EXPECT_EQ(row["error"] + "\n", rr.err);
                        EXPECT_EQ(row["cycles"], "");
                        continue;
                    }
                    ASSERT_EQ(rr.status, 0) << rr.err;
                    long long cyc = 0;
                    double en = 0;
                    report_total(rd + "/report.json", cyc, en);
                    EXPECT_EQ(row["status"], "ok");
                    EXPECT_EQ(atoll(row["cycles"].c_str()), cyc) << id << " " << tr[t];
                    EXPECT_NEAR(atof(row["energy_pj"].c_str()), en, 1e-9 * en) << id;
                    double edp = atof(row["edp_pj_cycles"].c_str());
                    EXPECT_NEAR(edp, en * (double)cyc, 1e-9 * en * (double)cyc);
                    double sum = 0;
                    for (auto &kv : row)
                        if (kv.first.rfind("energy_", 0) == 0 && kv.first != "energy_pj") sum += atof(kv.second.c_str());
                    EXPECT_NEAR(sum, en, 1e-6 * en) << "components sum to the total";
                    ok++;
                }
    EXPECT_EQ(ok, 16u);
    // each point's reports are mxsim run's, under points/<id>/t<k>/
    EXPECT_TRUE(exists(out + "/points/p00000/t0/report.json"));
    EXPECT_TRUE(exists(out + "/points/p00000/t1/report.csv"));
    EXPECT_NE(read_text(out + "/points/p00009/point.json").find("must be 1..1024"), std::string::npos);
    EXPECT_NE(r.out.find("12 points x 2 traces"), std::string::npos) << r.out;
}

TEST(Sweep, ShardsMergedEqualUnshardedByteForByte)
{
    Tree d;
    auto grid = with(BASE, {"--grid", "arch.lanes=4,8", "--zip", "arch.rows=8,16,32;arch.cols=8,16,32", "--no-progress"});
    RunResult r = run_mxsim(d.t, with(grid, {"-o", d.t.file("all")}));
    ASSERT_EQ(r.status, 0) << r.err;
    std::vector<std::string> dirs;
    for (int i = 0; i < 4; i++) {
        std::string s = d.t.file("s" + std::to_string(i));
        RunResult rs = run_mxsim(d.t, with(grid, {"-o", s, "--shard", std::to_string(i) + "/4", "-j", i % 2 ? "1" : "2"}));
        ASSERT_EQ(rs.status, 0) << rs.err;
        dirs.push_back(s);
    }
    // 6 points: shard i holds points i, i + 4
    EXPECT_EQ(read_csv(d.t.file("s1/sweep.shard-1-of-4.csv")).size(), 2u * 2u);
    EXPECT_EQ(read_csv(d.t.file("s3/sweep.shard-3-of-4.csv")).size(), 1u * 2u);
    EXPECT_FALSE(exists(d.t.file("s0/sweep.csv")));
    // a shard missing: no CSV, exit 1, the missing point named
    RunResult m1 = run_mxsim(d.t, {"sweep", "--merge", dirs[0], dirs[1], dirs[3], "-o", d.t.file("m1")});
    EXPECT_EQ(m1.status, 1);
    EXPECT_NE(m1.err.find("p00002"), std::string::npos) << m1.err;
    EXPECT_FALSE(exists(d.t.file("m1"))) << "nothing written";
    RunResult m = run_mxsim(d.t, with({"sweep", "--merge"}, with(dirs, {"-o", d.t.file("m")})));
    ASSERT_EQ(m.status, 0) << m.err;
    std::string all = read_text(d.t.file("all/sweep.csv"));
    EXPECT_EQ(read_text(d.t.file("m/sweep.csv")), all);
    auto rows = read_csv(d.t.file("all/sweep.csv"));
    ASSERT_EQ(rows.size(), 12u);
    // the zipped keys advance together, the grid key is the slower axis
    EXPECT_EQ(rows[2]["arch.lanes"], "4");
    EXPECT_EQ(rows[2]["arch.rows"], "16");
    EXPECT_EQ(rows[2]["arch.cols"], "16");
    EXPECT_EQ(rows[6]["arch.lanes"], "8");
    EXPECT_EQ(rows[6]["arch.rows"], "8");
    // shards of another sweep are refused
    RunResult other = run_mxsim(d.t, with(BASE, {"--grid", "arch.lanes=4", "-o", d.t.file("x"), "--no-progress"}));
    ASSERT_EQ(other.status, 0);
    RunResult bad = run_mxsim(d.t, {"sweep", "--merge", dirs[0], d.t.file("x"), "-o", d.t.file("m2")});
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.err.find("different sweep"), std::string::npos);
}

TEST(Sweep, ResumeSkipsFinishedPointsAndKillLeavesOnlyWholePoints)
{
    Tree d;
    std::string out = d.t.file("sw");
    const int NP = 24;
    auto args = with({"sweep", "-c", SRC + "/configs/mxsf.yaml", "-t", SRC + "/tests/golden/sweep/mini.csv", "--grid",
                      "arch.rows=8,16,32,64", "--grid", "arch.lanes=4,8", "--grid", "memory.dram=hbm2,ddr4_3200,lpddr4_2400",
                      "--no-progress", "-j", "2"},
                     {});
    // a clean reference
    RunResult ref = run_mxsim(d.t, with(args, {"-o", d.t.file("ref")}));
    ASSERT_EQ(ref.status, 0) << ref.err;
    // SIGKILL as soon as the first point is in place: every point directory there is whole
    std::string cmd = quote(mxsim_bin());
    for (auto &a : with(args, {"-o", out})) cmd += " " + quote(a);
    cmd = "cd " + quote(d.t.path()) + " && (" + cmd + " >/dev/null 2>&1 & p=$!; i=0; " +
          "while [ $i -lt 20000 ] && ! ls " + quote(out + "/points") + " 2>/dev/null | grep -q '^p'; do i=$((i+1)); done; " +
          "kill -9 $p; wait $p; sleep 0.3) 2>/dev/null"; // the points' processes die with it (PR_SET_PDEATHSIG)
    (void)!system(cmd.c_str());
    int whole = 0;
    for (int p = 0; p < NP; p++) {
        char id[40];
        snprintf(id, sizeof id, "/points/p%05d", p);
        if (!exists(out + id)) continue;
        EXPECT_TRUE(exists(out + id + "/point.json")) << id;
        EXPECT_TRUE(exists(out + id + "/t0/report.json")) << id;
        whole++;
    }
    EXPECT_FALSE(exists(out + "/sweep.csv")) << "killed before the end: no CSV";
    EXPECT_GE(whole, 1);
    EXPECT_LT(whole, NP) << "the kill came too late to test anything";
    RunResult res = run_mxsim(d.t, with(args, {"-o", out, "--resume"}));
    ASSERT_EQ(res.status, 0) << res.err;
    char want[96];
    snprintf(want, sizeof want, "%d points simulated (0 with errors), %d already done", NP - whole, whole);
    EXPECT_NE(res.out.find(want), std::string::npos) << res.out;
    EXPECT_EQ(read_text(out + "/sweep.csv"), read_text(d.t.file("ref/sweep.csv")));
    // a finished point is not rerun: its files keep their inode
    struct stat a, b;
    ASSERT_EQ(stat((out + "/points/p00003/t0/report.json").c_str(), &a), 0);
    rm_tree(out + "/points/p00005");
    RunResult res2 = run_mxsim(d.t, with(args, {"-o", out, "--resume"}));
    ASSERT_EQ(res2.status, 0);
    EXPECT_NE(res2.out.find("1 points simulated (0 with errors), 23 already done"), std::string::npos) << res2.out;
    ASSERT_EQ(stat((out + "/points/p00003/t0/report.json").c_str(), &b), 0);
    EXPECT_EQ(a.st_ino, b.st_ino);
    EXPECT_EQ(read_text(out + "/sweep.csv"), read_text(d.t.file("ref/sweep.csv")));
}

TEST(Sweep, SweepFileEqualsCommandLine)
{
    Tree d;
    std::ofstream(d.t.file("s.yaml")) << "base: " << SRC << "/configs/mxsf.yaml\n"
                                      << "traces: [" << SRC << "/traces/tiny_train.csv]\n"
                                      << "grid:\n  format.a: [mxsf, mxfp8_e4m3]\n"
                                      << "zip:\n  - {arch.rows: [8, 16], arch.cols: [8, 16]}\n"
                                      << "engine: cycle\nout: swy\n";
    RunResult y = run_mxsim(d.t, {"sweep", "-s", d.t.file("s.yaml"), "--no-progress"});
    ASSERT_EQ(y.status, 0) << y.err;
    RunResult c = run_mxsim(d.t, {"sweep", "-c", SRC + "/configs/mxsf.yaml", "-t", SRC + "/traces/tiny_train.csv", "--grid",
                                  "format.a=mxsf,mxfp8_e4m3", "--zip", "arch.rows=8,16;arch.cols=8,16",
                                  "--engine", "cycle", "-o", d.t.file("swc"), "--no-progress"});
    ASSERT_EQ(c.status, 0) << c.err;
    EXPECT_EQ(read_text(d.t.file("swy/sweep.csv")), read_text(d.t.file("swc/sweep.csv")));
    EXPECT_EQ(read_csv(d.t.file("swc/sweep.csv")).size(), 4u);
    EXPECT_NE(read_text(d.t.file("swc/points/p00000/t0/report.json")).find("\"engine\": \"cycle\""), std::string::npos);
    // the same sweep again without --resume: every point is simulated again and replaces the old one
    struct stat s1, s2;
    ASSERT_EQ(stat(d.t.file("swc/points/p00001/point.json").c_str(), &s1), 0);
    RunResult again = run_mxsim(d.t, {"sweep", "-c", SRC + "/configs/mxsf.yaml", "-t", SRC + "/traces/tiny_train.csv", "--grid",
                                      "format.a=mxsf,mxfp8_e4m3", "--zip", "arch.rows=8,16;arch.cols=8,16",
                                      "--engine", "cycle", "-o", d.t.file("swc"), "--no-progress"});
    ASSERT_EQ(again.status, 0) << again.err;
    EXPECT_NE(again.out.find("4 points simulated (0 with errors), 0 already done"), std::string::npos) << again.out;
    ASSERT_EQ(stat(d.t.file("swc/points/p00001/point.json").c_str(), &s2), 0);
    EXPECT_NE(s1.st_ino, s2.st_ino);
    EXPECT_EQ(read_text(d.t.file("swy/sweep.csv")), read_text(d.t.file("swc/sweep.csv")));
}

TEST(Sweep, EmitSlurmScript)
{
    Tree d;
    std::string out = d.t.file("sw"), sh = d.t.file("job.sh");
    RunResult r = run_mxsim(d.t, with(BASE, {"--grid", "arch.rows=8,16,32", "-o", out, "--emit-slurm", sh, "--shards", "2"}));
    ASSERT_EQ(r.status, 0) << r.err;
    std::string s = read_text(sh);
    EXPECT_NE(s.find("#SBATCH --array=0-1\n"), std::string::npos) << s;
    EXPECT_NE(s.find("--shard \"$SLURM_ARRAY_TASK_ID/2\""), std::string::npos);
    EXPECT_NE(s.find("--dependency=afterok:$jid"), std::string::npos);
    EXPECT_NE(s.find("sweep --merge"), std::string::npos);
    EXPECT_TRUE(exists(out + "/sweep.json"));
    // the tasks' command, run by hand as Slurm would (task ids 0, 1), then the merge
    std::string cmd = "cd " + quote(d.t.path()) + " && SLURM_ARRAY_TASK_ID=0 bash " + quote(sh) + " >/dev/null 2>&1 && " +
                      "SLURM_ARRAY_TASK_ID=1 bash " + quote(sh) + " >/dev/null 2>&1";
    ASSERT_EQ(system(cmd.c_str()), 0);
    RunResult m = run_mxsim(d.t, {"sweep", "--merge", out, "-o", out});
    ASSERT_EQ(m.status, 0) << m.err;
    RunResult l = run_mxsim(d.t, with(BASE, {"--grid", "arch.rows=8,16,32", "-o", d.t.file("local"), "--no-progress"}));
    ASSERT_EQ(l.status, 0);
    EXPECT_EQ(read_text(out + "/sweep.csv"), read_text(d.t.file("local/sweep.csv")));
}

// The Pareto front plotted (plots/pareto_t0.tsv) is the set of rows of
// sweep.csv that no other row dominates (fewer-or-equal cycles and
// less-or-equal energy, one strictly; of exact ties the lower point index),
// computed here by brute force; the plots and index.html exist.
TEST(Sweep, ParetoFrontIsTheNonDominatedSet)
{
    Tree d;
    std::string out = d.t.file("sw");
    RunResult r = run_mxsim(d.t, with(BASE, {"--grid", "arch.rows=8,16,32", "--grid", "arch.lanes=4,8", "--grid",
                                             "memory.dram=hbm2,ddr4_3200,lpddr4_2400", "-o", out, "--no-progress"}));
    ASSERT_EQ(r.status, 0) << r.err;
    for (int t = 0; t < 2; t++) {
        auto rows = read_csv(out + "/sweep.csv");
        std::vector<std::map<std::string, std::string>> tr;
        for (auto &row : rows)
            if (row["trace"] == (t ? SRC + "/tests/golden/sweep/mini.csv" : SRC + "/traces/tiny_train.csv")) tr.push_back(row);
        ASSERT_EQ(tr.size(), 18u);
        std::vector<std::string> want;
        for (size_t i = 0; i < tr.size(); i++) {
            long long ci = atoll(tr[i]["cycles"].c_str());
            double ei = atof(tr[i]["energy_pj"].c_str());
            bool dominated = false;
            for (size_t j = 0; j < tr.size() && !dominated; j++) {
                if (j == i) continue;
                long long cj = atoll(tr[j]["cycles"].c_str());
                double ej = atof(tr[j]["energy_pj"].c_str());
                bool strictly = cj < ci || ej < ei;
                dominated = cj <= ci && ej <= ei && (strictly || j < i);
            }
            if (!dominated) want.push_back(tr[i]["point"]);
        }
        std::vector<std::string> got;
        std::istringstream in(read_text(out + "/plots/pareto_t" + std::to_string(t) + ".tsv"));
        std::string line;
        while (std::getline(in, line)) got.push_back(line.substr(0, line.find('\t')));
        std::sort(got.begin(), got.end());
        EXPECT_EQ(got, want) << "trace " << t;
        EXPECT_GE(want.size(), 1u);
        for (const char *f : {"pareto_t", "breakdown_t", "key0_t", "key2_t"})
            for (const char *ext : {".png", ".svg"})
                EXPECT_TRUE(exists(out + "/plots/" + f + std::to_string(t) + ext)) << f << t << ext;
    }
    std::string html = read_text(out + "/index.html");
    size_t n = 0;
    for (size_t p = html.find("<tr class=\"row"); p != std::string::npos; p = html.find("<tr class=\"row", p + 1)) n++;
    EXPECT_EQ(n, 36u);
    // each point's resolved configuration, as mxsim run wrote it
    size_t p5 = html.find("<details id=\"p00005\">");
    ASSERT_NE(p5, std::string::npos);
    std::string det = html.substr(p5, html.find("</details>", p5) - p5);
    EXPECT_NE(det.find("--set arch.rows=8\n--set arch.lanes=8\n--set memory.dram=lpddr4_2400"), std::string::npos) << det;
    EXPECT_NE(det.find("arch.rows: 8\narch.cols: 32\narch.lanes: 8\n"), std::string::npos) << det;
    EXPECT_NE(det.find("memory.dram: lpddr4_2400\n"), std::string::npos) << det;
}

// Functional mode: the QSNR and max-error columns are mxsim run's (its
// report.json total), for each point.
TEST(Sweep, FunctionalModeColumnsEqualRun)
{
    Tree d;
    std::string out = d.t.file("sw");
    RunResult r = run_mxsim(d.t, {"sweep", "-c", SRC + "/configs/mxsf.yaml", "-t", SRC + "/traces/tiny_train.csv", "--grid",
                                  "format.a=mxsf,mxfp8_e4m3,bf16", "--mode", "functional", "-o", out, "--no-progress"});
    ASSERT_EQ(r.status, 0) << r.err;
    auto rows = read_csv(out + "/sweep.csv");
    ASSERT_EQ(rows.size(), 3u);
    const char *fmt[] = {"mxsf", "mxfp8_e4m3", "bf16"};
    std::set<std::string> distinct;
    for (int i = 0; i < 3; i++) {
        std::string rd = d.t.file("run");
        rm_tree(rd);
        RunResult rr = run_mxsim(d.t, {"run", "-c", SRC + "/configs/mxsf.yaml", "-t", SRC + "/traces/tiny_train.csv", "--set",
                                       std::string("format.a=") + fmt[i], "--mode", "functional", "-o", rd, "-q"});
        ASSERT_EQ(rr.status, 0) << rr.err;
        std::string j = read_text(rd + "/report.json");
        size_t t = j.find("\"total\""), q = j.find("\"qsnr_db\": ", t), m = j.find("\"max_abs_err\": ", t);
        ASSERT_NE(q, std::string::npos);
        ASSERT_NE(m, std::string::npos);
        double qsnr = atof(j.c_str() + q + 11), maxe = atof(j.c_str() + m + 15);
        EXPECT_EQ(rows[i]["format.a"], fmt[i]);
        EXPECT_NEAR(atof(rows[i]["qsnr_db"].c_str()), qsnr, 1e-5) << fmt[i];
        EXPECT_NEAR(atof(rows[i]["max_abs_err"].c_str()), maxe, 1e-8 * (1 + maxe)) << fmt[i];
        EXPECT_GT(qsnr, 10.0);
        distinct.insert(rows[i]["qsnr_db"]);
    }
    EXPECT_EQ(distinct.size(), 3u) << "the formats differ in error";
}

// --filter keeps the points that pass (ids stay the grid's indices); shards
// and the merge see the same points; a sweep file's filters are the same.
TEST(Sweep, FiltersKeepOnlyPassingPoints)
{
    Tree d;
    auto args = with({"sweep", "-c", SRC + "/configs/mxsf.yaml", "-t", SRC + "/traces/tiny_train.csv", "--grid",
                      "arch.rows=8,16,32", "--grid", "arch.cols=8,16,32", "--filter", "arch.rows >= arch.cols", "--filter",
                      "arch.rows!=16", "--no-progress"},
                     {});
    RunResult r = run_mxsim(d.t, with(args, {"-o", d.t.file("all")}));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("4 of the grid's 9 points pass the filters"), std::string::npos) << r.out;
    auto rows = read_csv(d.t.file("all/sweep.csv"));
    ASSERT_EQ(rows.size(), 4u);
    const char *want[][3] = {{"p00000", "8", "8"}, {"p00006", "32", "8"}, {"p00007", "32", "16"}, {"p00008", "32", "32"}};
    for (int i = 0; i < 4; i++) {
        EXPECT_EQ(rows[i]["point"], want[i][0]);
        EXPECT_EQ(rows[i]["arch.rows"], want[i][1]);
        EXPECT_EQ(rows[i]["arch.cols"], want[i][2]);
    }
    EXPECT_FALSE(exists(d.t.file("all/points/p00001")));
    for (int i = 0; i < 2; i++)
        ASSERT_EQ(run_mxsim(d.t, with(args, {"-o", d.t.file("s" + std::to_string(i)), "--shard", std::to_string(i) + "/2"})).status, 0);
    RunResult m = run_mxsim(d.t, {"sweep", "--merge", d.t.file("s0"), d.t.file("s1"), "-o", d.t.file("m")});
    ASSERT_EQ(m.status, 0) << m.err;
    EXPECT_EQ(read_text(d.t.file("m/sweep.csv")), read_text(d.t.file("all/sweep.csv")));
    std::ofstream(d.t.file("s.yaml")) << "base: " << SRC << "/configs/mxsf.yaml\ntraces: [" << SRC << "/traces/tiny_train.csv]\n"
                                      << "grid:\n  arch.rows: [8, 16, 32]\n  arch.cols: [8, 16, 32]\n"
                                      << "filters: ['arch.rows >= arch.cols', 'arch.rows!=16']\n";
    RunResult y = run_mxsim(d.t, {"sweep", "-s", d.t.file("s.yaml"), "-o", d.t.file("y"), "--no-progress"});
    ASSERT_EQ(y.status, 0) << y.err;
    EXPECT_EQ(read_text(d.t.file("y/sweep.csv")), read_text(d.t.file("all/sweep.csv")));
}

// Each --zip is its own group: `--zip 'arch.rows=8,16;arch.cols=8,32'` (two
// keys advancing together) and `--zip memory.dram=...` are two axes crossed
// with each other and with the grid, in the order given (the first slowest):
// 2 lanes x 2 (rows, cols) pairs x 3 DRAMs = 12 points, listed by hand.
TEST(Sweep, SeveralZipGroupsAreCrossed)
{
    Tree d;
    RunResult r = run_mxsim(d.t, {"sweep", "-c", SRC + "/configs/mxsf.yaml", "-t", SRC + "/tests/golden/sweep/mini.csv",
                                  "--grid", "arch.lanes=4,8", "--zip", "arch.rows=8,16;arch.cols=8,32", "--zip",
                                  "memory.dram=hbm2,ddr4_3200,lpddr4_2400", "-o", d.t.file("sw"), "--no-progress"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("12 points x 1 trace"), std::string::npos) << r.out;
    const char *want[12][4] = {
        {"4", "8", "8", "hbm2"},  {"4", "8", "8", "ddr4_3200"},  {"4", "8", "8", "lpddr4_2400"},
        {"4", "16", "32", "hbm2"}, {"4", "16", "32", "ddr4_3200"}, {"4", "16", "32", "lpddr4_2400"},
        {"8", "8", "8", "hbm2"},  {"8", "8", "8", "ddr4_3200"},  {"8", "8", "8", "lpddr4_2400"},
        {"8", "16", "32", "hbm2"}, {"8", "16", "32", "ddr4_3200"}, {"8", "16", "32", "lpddr4_2400"},
    };
    auto rows = read_csv(d.t.file("sw/sweep.csv"));
    ASSERT_EQ(rows.size(), 12u);
    for (int i = 0; i < 12; i++) {
        char id[40];
        snprintf(id, sizeof id, "p%05d", i);
        EXPECT_EQ(rows[i]["point"], id);
        EXPECT_EQ(rows[i]["arch.lanes"], want[i][0]) << id;
        EXPECT_EQ(rows[i]["arch.rows"], want[i][1]) << id;
        EXPECT_EQ(rows[i]["arch.cols"], want[i][2]) << id;
        EXPECT_EQ(rows[i]["memory.dram"], want[i][3]) << id;
        EXPECT_EQ(rows[i]["status"], "ok") << id;
    }
    // the same two groups from a sweep file (zip: a list of groups) give the same CSV
    std::ofstream(d.t.file("s.yaml")) << "base: " << SRC << "/configs/mxsf.yaml\ntraces: [" << SRC << "/tests/golden/sweep/mini.csv]\n"
                                      << "grid:\n  arch.lanes: [4, 8]\n"
                                      << "zip:\n  - {arch.rows: [8, 16], arch.cols: [8, 32]}\n  - {memory.dram: [hbm2, ddr4_3200, lpddr4_2400]}\n";
    RunResult y = run_mxsim(d.t, {"sweep", "-s", d.t.file("s.yaml"), "-o", d.t.file("y"), "--no-progress"});
    ASSERT_EQ(y.status, 0) << y.err;
    EXPECT_EQ(read_text(d.t.file("y/sweep.csv")), read_text(d.t.file("sw/sweep.csv")));
}

// A sweep killed mid-way leaves DIR/points/.tmp-* directories; the next run
// into DIR removes those of this host whose sweep process is gone, and
// nothing else: not a live process's, not another host's (a shard on another
// machine may be writing), not names outside the pattern.
TEST(Sweep, StaleTmpDirsOfAKilledSweepAreRemoved)
{
    Tree d;
    std::string out = d.t.file("sw"), P = out + "/points/";
    auto args = with({"sweep", "-c", SRC + "/configs/mxsf.yaml", "-t", SRC + "/tests/golden/sweep/mini.csv", "--grid",
                      "arch.rows=8,16,32", "--no-progress"},
                     {"-o", out});
    RunResult ref = run_mxsim(d.t, args);
    ASSERT_EQ(ref.status, 0) << ref.err;
    std::string csv = read_text(out + "/sweep.csv");
    pid_t dead = fork(); // a pid no process has any more
    if (dead == 0) _exit(0);
    ASSERT_GT(dead, 0);
    waitpid(dead, nullptr, 0);
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    const std::string D = std::to_string(dead), H = host;
    const std::vector<std::string> stale = {".tmp-p00001-" + D + "-0@" + H, ".tmp-p00002-" + D + "-1@" + H + ".old." + D,
                                            ".tmp-p00000-" + D + "-0"}; // an older mxsim's name (no host)
    const std::vector<std::string> kept = {".tmp-p00001-1-0@" + H,          // pid 1 is alive
                                           ".tmp-p00001-" + D + "-0@other-host", ".tmp-p00001-" + D + "-0@" + H + "x",
                                           ".tmpfoo", ".tmp-p00001-x-0@" + H, "notes"};
    for (auto &n : stale) {
        ASSERT_EQ(mkdir((P + n).c_str(), 0777), 0) << n;
        std::ofstream(P + n + "/half.json") << "{\"cyc";
    }
    for (auto &n : kept) ASSERT_EQ(mkdir((P + n).c_str(), 0777), 0) << n;
    rm_tree(P + "p00001"); // as if the killed sweep had not finished it
    RunResult res = run_mxsim(d.t, with(args, {"--resume"}));
    ASSERT_EQ(res.status, 0) << res.err;
    EXPECT_NE(res.out.find("removed 3 temporary point directories of an interrupted sweep"), std::string::npos) << res.out;
    EXPECT_NE(res.out.find("1 points simulated (0 with errors), 2 already done"), std::string::npos) << res.out;
    for (auto &n : stale) EXPECT_FALSE(exists(P + n)) << n;
    for (auto &n : kept) EXPECT_TRUE(exists(P + n)) << n;
    EXPECT_EQ(read_text(out + "/sweep.csv"), csv);
    // no temporary of this run is left either
    std::set<std::string> names, want = {"p00000", "p00001", "p00002"};
    want.insert(kept.begin(), kept.end());
    if (DIR *dir = opendir(P.c_str())) {
        while (struct dirent *e = readdir(dir))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) names.insert(e->d_name);
        closedir(dir);
    }
    EXPECT_EQ(names, want);
}

// A point whose analytic run is outside the engine's validated buffer size
// (mxsim run's "engine_validated": false) is marked: column engine_validated
// 0, a stdout note counting such rows, a dagger in index.html. The cycle
// engine and the bandwidth channel are never marked. Expected marks by the
// rule (buffer < MX_ANALYTIC_VALIDATED_KIB with a DRAM model, analytic).
TEST(Sweep, RowsOutsideTheAnalyticValidationAreMarked)
{
    Tree d;
    const std::string small = std::to_string(MX_ANALYTIC_VALIDATED_KIB / 4), big = std::to_string(MX_ANALYTIC_VALIDATED_KIB);
    for (const char *engine : {"analytic", "cycle"}) {
        std::string out = d.t.file(std::string("sw_") + engine);
        RunResult r = run_mxsim(d.t, {"sweep", "-c", SRC + "/configs/mxsf.yaml", "-t", SRC + "/traces/tiny_train.csv",
                                      "--grid", "memory.sram_out.kib=" + small + "," + big, "--grid",
                                      "memory.dram=hbm2,none", "--engine", engine, "-o", out, "--no-progress"});
        ASSERT_EQ(r.status, 0) << r.err;
        auto rows = read_csv(out + "/sweep.csv");
        ASSERT_EQ(rows.size(), 4u);
        const bool analytic = std::string(engine) == "analytic";
        const char *want[4] = {analytic ? "0" : "1", "1", "1", "1"}; // (small, hbm2) (small, none) (big, hbm2) (big, none)
        for (int i = 0; i < 4; i++) EXPECT_EQ(rows[i]["engine_validated"], want[i]) << engine << " row " << i;
        const bool note = r.out.find("sweep: note: 1 of 4 rows ran the analytic engine") != std::string::npos;
        EXPECT_EQ(note, analytic) << r.out;
        const std::string html = read_text(out + "/index.html");
        EXPECT_EQ(html.find("p00000</a> &dagger;") != std::string::npos, analytic);
        EXPECT_EQ(html.find("p00001</a> &dagger;"), std::string::npos);
    }
}
