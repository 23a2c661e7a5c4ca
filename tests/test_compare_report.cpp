// `mxsim run --compare -o OUTDIR`'s index.html (sim/compare_report.c) read
// back as text against OUTDIR/compare.json (jansson): the embedded data is
// compare.json; every bar of the chart carries its component's exact pJ and a
// width proportional to it (one scale for both configs, computed here); every
// table row's energies, cycles and ratios are compare.json's.  The two
// configs differ in everything (array, formats, DRAM), so a swapped side or
// component shows.
#include "cli_helpers.h"

#include <gtest/gtest.h>
#include <jansson.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <string>

namespace {
const std::string SRC = MXSIM_SRC_DIR;

std::string between(const std::string &s, const std::string &a, const std::string &b, size_t from = 0)
{
    size_t p = s.find(a, from);
    if (p == std::string::npos) return "";
    p += a.size();
    size_t q = s.find(b, p);
    return q == std::string::npos ? "" : s.substr(p, q - p);
}
} // namespace

TEST(CompareReport, HtmlEqualsCompareJson)
{
    clitest::TempDir t;
    std::string small = t.file("small.yaml"), out = t.file("o");
    std::ofstream(small) << "name: small\narch: {rows: 8, cols: 4, lanes: 4}\nformat: {a: bf16, b: bf16, out: bf16, tile: none}\n"
                         << "memory: {dram: none, sram_a: {kib: 64}}\nenergy: {table: " << SRC << "/configs/energy/horowitz45.yaml}\n";
    auto r = clitest::run_mxsim(t, {"run", "-c", SRC + "/configs/mxsf.yaml", "--compare", small, "-t",
                                    SRC + "/traces/llama_decoder_infer.csv", "--no-sensitivity", "-q", "-o", out});
    ASSERT_EQ(r.status, 0) << r.err;
    json_error_t je;
    json_t *cmp = json_load_file((out + "/compare.json").c_str(), 0, &je);
    ASSERT_NE(cmp, nullptr) << je.text;
    const std::string html = clitest::read_text(out + "/index.html");
    // the embedded data is compare.json
    std::string data = between(html, "<script type=\"application/json\" id=\"compare-data\">", "</script>");
    json_t *emb = json_loads(data.c_str(), 0, &je);
    ASSERT_NE(emb, nullptr) << je.text;
    EXPECT_TRUE(json_equal(emb, cmp));
    json_decref(emb);
    json_t *ea = json_object_get(json_object_get(cmp, "a"), "energy_by_component_pj"),
           *eb = json_object_get(json_object_get(cmp, "b"), "energy_by_component_pj");
    ASSERT_EQ(json_object_size(ea), 10u);
    double max = 0;
    const char *k;
    json_t *v;
    json_object_foreach(ea, k, v) max = std::max({max, json_number_value(v), json_number_value(json_object_get(eb, k))});
    // the bars: 2 per component, exact values, widths on one scale (560 px for the largest)
    std::set<std::string> seen;
    size_t bars = 0;
    for (size_t p = html.find("<rect class=\"bar\""); p != std::string::npos; p = html.find("<rect class=\"bar\"", p + 1)) {
        char side = 0, comp[64] = "";
        double pj = -1, w = -1;
        int x, y;
        ASSERT_EQ(sscanf(html.c_str() + p, "<rect class=\"bar\" data-side=\"%c\" data-component=\"%63[a-z_]\" data-pj=\"%lf\" x=\"%d\" y=\"%d\" width=\"%lf\"",
                         &side, comp, &pj, &x, &y, &w), 6)
            << html.substr(p, 200);
        json_t *want = json_object_get(side == 'a' ? ea : eb, comp);
        ASSERT_TRUE(json_is_number(want)) << side << " " << comp;
        EXPECT_EQ(pj, json_number_value(want)) << side << " " << comp;
        EXPECT_NEAR(w, 560.0 * json_number_value(want) / max, 0.0006) << side << " " << comp;
        seen.insert(std::string(1, side) + comp);
        bars++;
    }
    EXPECT_EQ(bars, 20u);
    EXPECT_EQ(seen.size(), 20u);
    // the table: per component both energies (uJ, 6 decimals) and the ratio (4 decimals, '-' where B's part is 0)
    json_t *rat = json_object_get(cmp, "ratios_a_over_b"), *rc = json_object_get(rat, "energy_by_component");
    int nulls = 0;
    json_object_foreach(ea, k, v)
    {
        std::string row = between(html, std::string("<tr class=\"comp\" data-component=\"") + k + "\">", "</tr>");
        ASSERT_FALSE(row.empty()) << k;
        char name[64] = "", ratio[32] = "";
        double a = -1, b = -1;
        ASSERT_EQ(sscanf(row.c_str(), "<td class=\"s\">%63[a-z_]</td><td>%lf</td><td>%lf</td><td class=\"ratio\">%31[-0-9.]</td>", name, &a,
                         &b, ratio), 4)
            << row;
        EXPECT_STREQ(name, k);
        EXPECT_NEAR(a, json_number_value(v) * 1e-6, 5.1e-7) << k;
        EXPECT_NEAR(b, json_number_value(json_object_get(eb, k)) * 1e-6, 5.1e-7) << k;
        json_t *rv = json_object_get(rc, k);
        if (json_is_null(rv)) {
            EXPECT_STREQ(ratio, "-") << k;
            nulls++;
        } else {
            EXPECT_NEAR(atof(ratio), json_number_value(rv), 5.1e-5) << k;
        }
    }
    EXPECT_EQ(nulls, 1) << "scale: bf16 has no block scales";
    long long ca = -1, cb = -1;
    double cr = -1, er = -1, ta = -1, tb = -1;
    ASSERT_EQ(sscanf(between(html, "<tr class=\"sum\" id=\"cycles\">", "</tr>").c_str(),
                     "<td class=\"s\">cycles</td><td>%lld</td><td>%lld</td><td class=\"ratio\">%lf", &ca, &cb, &cr), 3);
    EXPECT_EQ(ca, json_integer_value(json_object_get(json_object_get(cmp, "a"), "cycles")));
    EXPECT_EQ(cb, json_integer_value(json_object_get(json_object_get(cmp, "b"), "cycles")));
    EXPECT_NEAR(cr, (double)ca / (double)cb, 5.1e-5);
    ASSERT_EQ(sscanf(between(html, "<tr class=\"sum\" id=\"total\">", "</tr>").c_str(),
                     "<td class=\"s\">total energy</td><td>%lf</td><td>%lf</td><td class=\"ratio\">%lf", &ta, &tb, &er), 3);
    EXPECT_NEAR(ta, json_number_value(json_object_get(json_object_get(cmp, "a"), "energy_pj")) * 1e-6, 5.1e-7);
    EXPECT_NEAR(er, json_number_value(json_object_get(rat, "energy")), 5.1e-5);
    // each side's own hardware
    EXPECT_NE(html.find("<b>mxsf</b>"), std::string::npos);
    EXPECT_NE(between(html, "B: <b>small</b>", "</li>").find("8x4 array, 4 lanes, buffers A 64 / B 1024 / out 512 KiB, DRAM channel"),
              std::string::npos)
        << between(html, "B: <b>small</b>", "</li>");
    json_decref(cmp);
    (void)!system(("rm -rf " + clitest::quote(out)).c_str());
    unlink(small.c_str());
}
