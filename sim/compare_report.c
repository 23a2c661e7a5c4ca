/* compare_report.c — see compare_report.h. */
#include "compare_report.h"
#include "json_out.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHART_W 560.0 /* px of the longest bar */

static const char *str_of(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static double num_of(const json_t *o, const char *k) { return json_number_value(json_object_get(o, k)); }

/* Literal HTML, then text escaped. */
static void put(FILE *f, const char *html, const char *text)
{
    fputs(html, f);
    mx_html_text(f, text);
}

/* A ratio cell: 4 decimals, or "-" where compare.json has null (B's part is 0). */
static void ratio_cell(FILE *f, const json_t *v)
{
    if (json_is_number(v)) fprintf(f, "<td class=\"ratio\">%.4f</td>", json_number_value(v));
    else fprintf(f, "<td class=\"ratio\">-</td>");
}

/* Side by side bars per component, widths proportional to pJ (one scale for
 * both configs); each bar carries its exact value (data-pj, 17 digits). */
static void chart(FILE *f, const json_t *a, const json_t *b)
{
    const json_t *ea = json_object_get(a, "energy_by_component_pj"), *eb = json_object_get(b, "energy_by_component_pj");
    double max = 0;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)ea, k, v)
    {
        double x = json_number_value(v), y = json_number_value(json_object_get(eb, k));
        if (x > max) max = x;
        if (y > max) max = y;
    }
    const int n = (int)json_object_size(ea), row = 34, left = 90, top = 30;
    fprintf(f, "<svg id=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-size=\"12\">\n",
            left + (int)CHART_W + 120, top + n * row + 10);
    for (int s = 0; s < 2; s++) { /* the legend */
        fprintf(f, "<rect x=\"%d\" y=\"4\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"15\">", left + 200 * s,
                s ? "#e08a2c" : "#3a6ea5", left + 200 * s + 16);
        put(f, "", str_of(s ? b : a, "name"));
        fprintf(f, "</text>\n");
    }
    int i = 0;
    json_object_foreach((json_t *)ea, k, v)
    {
        const double pj[2] = {json_number_value(v), json_number_value(json_object_get(eb, k))};
        const int y = top + i * row;
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", left - 6, y + 19);
        put(f, "", k);
        fprintf(f, "</text>\n");
        for (int s = 0; s < 2; s++) {
            const double w = max > 0 ? CHART_W * pj[s] / max : 0;
            fprintf(f, "<rect class=\"bar\" data-side=\"%c\"", s ? 'b' : 'a');
            put(f, " data-component=\"", k);
            fprintf(f, "\" data-pj=\"%.17g\" x=\"%d\" y=\"%d\" width=\"%.3f\" height=\"13\" fill=\"%s\"><title>%.6g uJ</title></rect>"
                       "<text x=\"%.1f\" y=\"%d\" font-size=\"10\">%.6g uJ</text>\n",
                    pj[s], left, y + 2 + 14 * s, w, s ? "#e08a2c" : "#3a6ea5", pj[s] * 1e-6, left + w + 4, y + 13 + 14 * s,
                    pj[s] * 1e-6);
        }
        i++;
    }
    fprintf(f, "</svg>\n");
}

static void side_item(FILE *f, const char *which, const json_t *s)
{
    const json_t *bk = json_object_get(s, "buffers_kib"), *fm = json_object_get(s, "formats");
    fprintf(f, "<li>%s", which);
    put(f, " <b>", str_of(s, "name"));
    put(f, "</b> (<code>", str_of(s, "config"));
    put(f, "</code>, <a href=\"", str_of(s, "report"));
    put(f, "\">report.json</a>): ", str_of(s, "array"));
    fprintf(f, " array, %lld lanes, buffers A %g / B %g / out %g KiB", (long long)json_integer_value(json_object_get(s, "lanes")),
            num_of(bk, "a"), num_of(bk, "b"), num_of(bk, "out"));
    put(f, ", DRAM ", str_of(s, "dram"));
    put(f, "; formats A ", str_of(fm, "a"));
    put(f, ", B ", str_of(fm, "b"));
    put(f, ", out ", str_of(fm, "out"));
    put(f, "; ", str_of(s, "engine"));
    put(f, " engine; energy table <code>", str_of(s, "energy_table"));
    fprintf(f, "</code></li>\n");
}

static int write_page(FILE *f, const json_t *cmp)
{
    const json_t *a = json_object_get(cmp, "a"), *b = json_object_get(cmp, "b"), *r = json_object_get(cmp, "ratios_a_over_b");
    if (!json_is_object(a) || !json_is_object(b) || !json_is_object(r)) return -1;
    const json_t *ea = json_object_get(a, "energy_by_component_pj"), *eb = json_object_get(b, "energy_by_component_pj"),
                 *rc = json_object_get(r, "energy_by_component");
    fprintf(f, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>mxsim run --compare</title>\n<style>\n"
               "body{font-family:sans-serif;margin:1.5em;max-width:1100px}table{border-collapse:collapse;font-size:13px}"
               "th,td{border:1px solid #bbb;padding:2px 8px;text-align:right}th{background:#eee}td.s,th.s{text-align:left}"
               "tr.sum td{font-weight:bold}svg{border:1px solid #ddd}\n</style></head><body>\n");
    put(f, "<h1>", str_of(a, "name"));
    put(f, " vs ", str_of(b, "name"));
    put(f, "</h1>\n<p>Written by mxsim ", str_of(cmp, "mxsim_version"));
    put(f, " from <a href=\"compare.json\">compare.json</a>: trace <code>", str_of(cmp, "trace"));
    put(f, "</code>, ", str_of(cmp, "mode"));
    fprintf(f, " mode");
    const json_t *ov = json_object_get(cmp, "overrides");
    if (json_array_size(ov)) {
        fprintf(f, ", overrides applied to both:");
        size_t i;
        json_t *v;
        json_array_foreach(ov, i, v)
        {
            fprintf(f, " <code>--set ");
            mx_html_text(f, json_string_value(v) ? json_string_value(v) : "");
            fprintf(f, "</code>");
        }
    }
    fprintf(f, ". Ratios are A/B (A: the first config).</p>\n<h2>Energy by component</h2>\n");
    chart(f, a, b);
    put(f, "<h2>Totals and ratios</h2>\n<table id=\"ratios\"><thead><tr><th class=\"s\"></th><th>", str_of(a, "name"));
    put(f, " (uJ)</th><th>", str_of(b, "name"));
    fprintf(f, " (uJ)</th><th>ratio A/B</th></tr></thead><tbody>\n");
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)ea, k, v)
    {
        put(f, "<tr class=\"comp\" data-component=\"", k);
        put(f, "\"><td class=\"s\">", k);
        fprintf(f, "</td><td>%.6f</td><td>%.6f</td>", json_number_value(v) * 1e-6, json_number_value(json_object_get(eb, k)) * 1e-6);
        ratio_cell(f, json_object_get(rc, k));
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "<tr class=\"sum\" id=\"total\"><td class=\"s\">total energy</td><td>%.6f</td><td>%.6f</td>",
            num_of(a, "energy_pj") * 1e-6, num_of(b, "energy_pj") * 1e-6);
    ratio_cell(f, json_object_get(r, "energy"));
    fprintf(f, "</tr>\n<tr class=\"sum\" id=\"cycles\"><td class=\"s\">cycles</td><td>%lld</td><td>%lld</td>",
            (long long)json_integer_value(json_object_get(a, "cycles")), (long long)json_integer_value(json_object_get(b, "cycles")));
    ratio_cell(f, json_object_get(r, "cycles"));
    fprintf(f, "</tr>\n<tr id=\"pe\"><td class=\"s\">PE datapath energy (mul, addtree, accum, scale)</td><td></td><td></td>");
    ratio_cell(f, json_object_get(r, "pe_datapath_energy"));
    fprintf(f, "</tr>\n<tr id=\"onchip\"><td class=\"s\">on-chip energy (all but DRAM)</td><td></td><td></td>");
    ratio_cell(f, json_object_get(r, "on_chip_energy"));
    fprintf(f, "</tr>\n</tbody></table>\n<h2>Each configuration's own assumptions</h2>\n<ul>\n");
    side_item(f, "A:", a);
    side_item(f, "B:", b);
    fprintf(f, "</ul>\n");
    /* the data the page was drawn from, for readers and for the browser
     * test (which checks every bar against it); "</" cannot end the script */
    char *js = json_dumps(cmp, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    if (!js) return -1;
    fprintf(f, "<script type=\"application/json\" id=\"compare-data\">");
    for (const char *c = js; *c; c++) {
        if (c[0] == '<' && c[1] == '/') fputs("<\\", f);
        else fputc(*c, f);
    }
    free(js);
    fprintf(f, "</script>\n<script>\n"
               "window.addEventListener('load',function(){var d=JSON.parse(document.getElementById('compare-data').textContent);\n"
               " var bars=document.querySelectorAll('#chart rect.bar'),ok=0,drawn=0;\n"
               " bars.forEach(function(r){var s=d[r.getAttribute('data-side')].energy_by_component_pj[r.getAttribute('data-component')];\n"
               "  if(s===parseFloat(r.getAttribute('data-pj')))ok++;if(s===0||r.getBoundingClientRect().width>0)drawn++;});\n"
               " var b=document.body;b.setAttribute('data-bars',bars.length);b.setAttribute('data-bars-match',ok);b.setAttribute('data-bars-drawn',drawn);\n"
               " b.setAttribute('data-components',Object.keys(d.a.energy_by_component_pj).length);\n"
               " b.setAttribute('data-rows',document.querySelectorAll('#ratios tbody tr').length);});\n"
               "</script>\n</body></html>\n");
    return 0;
}

int mx_compare_html_tmp(const char *outdir, const json_t *cmp, char *tmp, size_t cap)
{
    const int n = snprintf(tmp, cap, "%s/.index.html.tmp", outdir);
    if (n < 0 || (size_t)n >= cap) { errno = ENAMETOOLONG; return -1; }
    FILE *f = fopen(tmp, "w");
    if (!f) return -1;
    const int rc = write_page(f, cmp);
    if (fclose(f) != 0 || rc != 0) {
        if (!errno) errno = EIO;
        remove(tmp);
        return -1;
    }
    return 0;
}
