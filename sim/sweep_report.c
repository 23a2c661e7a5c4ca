/*
 * sweep_report.c — a sweep's plots (gnuplot, PNG and SVG, OUT/plots/) and its
 * self-contained report OUT/index.html (no network: inline CSS and script,
 * the plots as relative links).  Per trace: energy vs cycles with the Pareto
 * front (least cycles / least energy), the energy breakdown stacked per
 * point, and per swept axis energy and cycles vs the axis' value, one line
 * per setting of the other axes.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "json_out.h"
#include "sweep_out.h"
#include "config_yaml.h"
#include "version.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define P "mxsim sweep"

static const char *short_key(const char *k)
{
    const char *d = strrchr(k, '.');
    return d ? d + 1 : k;
}

/* "rows=16 lanes=8" of point p, axes other than skip (-1: none). */
static void label_of(const sw_def *d, size_t p, int skip, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = 0;
    for (int a = 0; a < d->naxes; a++) {
        if (a == skip) continue;
        int v = sw_def_point_index(d, p, a);
        for (int k = 0; k < d->axes[a].nkeys && n < cap; k++)
            n += (size_t)snprintf(buf + n, cap - n, "%s%s=%s", n ? " " : "", short_key(d->axes[a].keys[k]), sw_val(&d->axes[a], v, k));
    }
    if (n >= cap && cap > 4) strcpy(buf + cap - 4, "...");
}

/* gnuplot string literal (single quotes, '' for '). */
static void gq(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'') fputc('\'', f);
        if ((unsigned char)*s >= 0x20) fputc(*s, f);
    }
    fputc('\'', f);
}

static const char *trace_base(const char *t)
{
    const char *s = strrchr(t, '/');
    return s ? s + 1 : t;
}

static int cmp_cycles(const void *x, const void *y)
{
    const sw_row *a = *(const sw_row *const *)x, *b = *(const sw_row *const *)y;
    if (a->cycles != b->cycles) return a->cycles < b->cycles ? -1 : 1;
    if (a->energy_pj != b->energy_pj) return a->energy_pj < b->energy_pj ? -1 : 1;
    return a->p < b->p ? -1 : a->p > b->p;
}

/* Marks Pareto-optimal rows of trace t (no other row has fewer or equal
 * cycles and less energy); returns their number, sorted by cycles in front. */
static size_t pareto(sw_row *rows, size_t n, int t, const sw_row **front, int *on_front)
{
    const sw_row **v = malloc(sizeof *v * (n + 1));
    size_t m = 0, nf = 0;
    if (!v) return 0;
    for (size_t i = 0; i < n; i++)
        if (rows[i].t == t && rows[i].ok) v[m++] = &rows[i];
    qsort(v, m, sizeof *v, cmp_cycles);
    double best = 1e308;
    for (size_t i = 0; i < m; i++)
        if (v[i]->energy_pj < best) {
            best = v[i]->energy_pj;
            front[nf++] = v[i];
            on_front[v[i] - rows] = 1;
        }
    free(v);
    return nf;
}

/* The plot commands for one terminal; the file names' extension is ext. */
static void plot_cmds(FILE *g, const sw_def *d, const sw_row *rows, size_t n, const char *term, const char *ext,
                      const int *ngroups)
{
    for (int t = 0; t < d->ntraces; t++) {
        fprintf(g, "set terminal %s noenhanced\n", term);
        fprintf(g, "set output 'pareto_t%d.%s'\n", t, ext);
        fprintf(g, "reset\nset format x '%%.3g'\nset format y '%%.4g'\nset grid\nset xlabel 'cycles (sum over the trace, mxsim run)'\nset ylabel 'energy (uJ, mxsim run)'\n");
        fprintf(g, "set title ");
        gq(g, trace_base(d->traces[t]));
        fprintf(g, " . ': energy vs cycles, Pareto front (fewest cycles / least energy)'\nset key top right\n");
        fprintf(g, "plot 'points_t%d.tsv' using 2:3 with points pt 7 ps 0.8 title 'points', "
                   "'pareto_t%d.tsv' using 2:3 with linespoints lw 2 pt 6 ps 1.5 title 'Pareto front', "
                   "'pareto_t%d.tsv' using 2:3:1 with labels offset 1,1 font ',8' notitle\n", t, t, t);
        fprintf(g, "set output 'breakdown_t%d.%s'\nreset\n", t, ext);
        fprintf(g, "set style data histograms\nset style histogram rowstacked\nset style fill solid 0.8 border -1\n"
                   "set boxwidth 0.8\nset key outside right\nset ylabel 'energy (uJ, mxsim run)'\nset xtics rotate by 90 right font ',8'\nset bmargin 5\nset format y '%%.4g'\n"
                   "set linetype 9 lc rgb '#8c564b'\nset linetype 10 lc rgb '#7f7f7f'\nset linetype 11 lc rgb '#bcbd22'\n");
        fprintf(g, "set title ");
        gq(g, trace_base(d->traces[t]));
        fprintf(g, " . ': energy by component per point'\n");
        fprintf(g, "plot for [i=5:%d] 'points_t%d.tsv' using i:xtic(1) title columnheader(i)\n", 4 + MX_E_NCOMP, t);
        for (int a = 0; a < d->naxes; a++) {
            fprintf(g, "set output 'key%d_t%d.%s'\nreset\nset multiplot layout 1,2 title ", a, t, ext);
            char title[600];
            snprintf(title, sizeof title, "%s: sensitivity to %s%s", trace_base(d->traces[t]), d->axes[a].keys[0],
                     d->axes[a].nkeys > 1 ? " (zipped)" : "");
            gq(g, title);
            fprintf(g, "\nset grid\nset format y '%%.4g'\nset xtics (");
            for (int v = 0; v < d->axes[a].nvals; v++) {
                fprintf(g, "%s", v ? ", " : "");
                gq(g, sw_val(&d->axes[a], v, 0));
                fprintf(g, " %d", v);
            }
            fprintf(g, ")\nset xrange [-0.5:%d.5]\nset xlabel ", d->axes[a].nvals - 1);
            gq(g, d->axes[a].keys[0]);
            fprintf(g, "\n%s\n", ngroups[a] > 8 ? "set key off" : "set key bottom left font ',8'");
            for (int m = 0; m < 2; m++) {
                fprintf(g, "set ylabel '%s'\nplot ", m ? "cycles (mxsim run)" : "energy (uJ, mxsim run)");
                for (int gi = 0; gi < ngroups[a]; gi++) {
                    /* the group's title: the other axes of its first row */
                    char lab[300] = "";
                    for (size_t i = 0; i < n; i++)
                        if (rows[i].t == t) {
                            /* group index of row i = its point with axis a removed */
                            size_t p = rows[i].p, gidx = 0;
                            for (int b = 0; b < d->naxes; b++)
                                if (b != a) gidx = gidx * (size_t)d->axes[b].nvals + (size_t)sw_def_point_index(d, p, b);
                            if ((int)gidx == gi) { label_of(d, p, a, lab, sizeof lab); break; }
                        }
                    fprintf(g, "%s'key%d_t%d.tsv' index %d using 1:%d with linespoints title ", gi ? ", " : "", a, t, gi, m ? 3 : 2);
                    gq(g, lab[0] ? lab : "all");
                }
                fprintf(g, "\n");
            }
            fprintf(g, "unset multiplot\n");
        }
    }
    fprintf(g, "set output\n");
}

static int write_plot_data(const sw_def *d, sw_row *rows, size_t n, const char *dir, int *ngroups)
{
    char path[4600];
    int *on_front = calloc(n + 1, sizeof *on_front);
    const sw_row **front = malloc(sizeof *front * (n + 1));
    if (!on_front || !front) { free(on_front); free(front); return -1; }
    for (int t = 0; t < d->ntraces; t++) {
        snprintf(path, sizeof path, "%s/points_t%d.tsv", dir, t);
        FILE *f = fopen(path, "w");
        if (!f) { free(on_front); free(front); return -1; }
        fprintf(f, "point\tcycles\tenergy_uJ\tedp");
        for (int c = 0; c < MX_E_NCOMP; c++) fprintf(f, "\t%s", mx_energy_comp_name((mx_energy_comp)c));
        fprintf(f, "\n");
        for (size_t i = 0; i < n; i++) {
            if (rows[i].t != t || !rows[i].ok) continue;
            char id[32];
            sw_point_id(rows[i].p, id, sizeof id);
            fprintf(f, "%s\t%lld\t%.9g\t%.9g", id, rows[i].cycles, rows[i].energy_pj * 1e-6, rows[i].edp);
            for (int c = 0; c < MX_E_NCOMP; c++) fprintf(f, "\t%.9g", rows[i].comp_pj[c] * 1e-6);
            fprintf(f, "\n");
        }
        fclose(f);
        size_t nf = pareto(rows, n, t, front, on_front);
        snprintf(path, sizeof path, "%s/pareto_t%d.tsv", dir, t);
        if (!(f = fopen(path, "w"))) { free(on_front); free(front); return -1; }
        for (size_t i = 0; i < nf; i++) {
            char id[32];
            sw_point_id(front[i]->p, id, sizeof id);
            fprintf(f, "%s\t%lld\t%.9g\n", id, front[i]->cycles, front[i]->energy_pj * 1e-6);
        }
        if (!nf) fprintf(f, "none\t0\t0\n");
        fclose(f);
        /* per axis: blocks (two blank lines apart) per setting of the other axes */
        for (int a = 0; a < d->naxes; a++) {
            size_t groups = sw_def_npoints(d) / (size_t)d->axes[a].nvals;
            ngroups[a] = (int)groups;
            snprintf(path, sizeof path, "%s/key%d_t%d.tsv", dir, a, t);
            if (!(f = fopen(path, "w"))) { free(on_front); free(front); return -1; }
            for (size_t gi = 0; gi < groups; gi++) {
                fprintf(f, "# group %zu\n", gi);
                int any = 0;
                for (size_t i = 0; i < n; i++) {
                    if (rows[i].t != t) continue;
                    size_t p = rows[i].p, gidx = 0;
                    for (int b = 0; b < d->naxes; b++)
                        if (b != a) gidx = gidx * (size_t)d->axes[b].nvals + (size_t)sw_def_point_index(d, p, b);
                    if (gidx != gi || !rows[i].ok) continue;
                    fprintf(f, "%d\t%.9g\t%lld\n", sw_def_point_index(d, p, a), rows[i].energy_pj * 1e-6, rows[i].cycles);
                    any = 1;
                }
                if (!any) fprintf(f, "NaN\tNaN\tNaN\n");
                fprintf(f, "\n\n");
            }
            fclose(f);
        }
    }
    free(on_front);
    free(front);
    return 0;
}

/* gnuplot on OUT/plots/plots.gp; 0 when it ran and succeeded. */
static int run_gnuplot(const char *dir)
{
    char gp[PATH_MAX];
    const char *cands[] = {"/usr/bin/gnuplot", "/usr/local/bin/gnuplot"};
    gp[0] = 0;
    for (size_t i = 0; i < 2; i++)
        if (access(cands[i], X_OK) == 0) { snprintf(gp, sizeof gp, "%s", cands[i]); break; }
    if (!gp[0]) {
        mx_print_error(P, "note: gnuplot not found: no plots in %s (make deps installs gnuplot-nox)", dir);
        return -1;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        if (chdir(dir) != 0) _exit(127);
        int fd = open("gnuplot.log", O_WRONLY | O_CREAT | O_TRUNC, 0666);
        if (fd >= 0) { dup2(fd, 1); dup2(fd, 2); close(fd); }
        execl(gp, "gnuplot", "plots.gp", (char *)NULL);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return -1;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        mx_print_error(P, "note: gnuplot failed on %s/plots.gp (see %s/gnuplot.log)", dir, dir);
        return -1;
    }
    return 0;
}

/* ---- index.html ---------------------------------------------------------- */

static void h(FILE *f, const char *s) { mx_html_text(f, s); }

static void best_line(FILE *f, const sw_def *d, const sw_row *rows, size_t n, int t, int which)
{
    const sw_row *b = NULL;
    for (size_t i = 0; i < n; i++) {
        const sw_row *r = &rows[i];
        if (r->t != t || !r->ok) continue;
        double x = which == 0 ? (double)r->cycles : which == 1 ? r->energy_pj : r->edp;
        double y = !b ? 0 : which == 0 ? (double)b->cycles : which == 1 ? b->energy_pj : b->edp;
        /* ties: the other objective decides (fewest cycles: then least energy) */
        if (!b || x < y || (x == y && (which == 1 ? r->cycles < b->cycles : r->energy_pj < b->energy_pj))) b = r;
    }
    static const char *name[] = {"fewest cycles", "least energy", "least energy x delay"};
    fprintf(f, "<li>%s: ", name[which]);
    if (!b) { fprintf(f, "no valid point</li>\n"); return; }
    char id[32], lab[800];
    sw_point_id(b->p, id, sizeof id);
    label_of(d, b->p, -1, lab, sizeof lab);
    fprintf(f, "<a href=\"#%s\">%s</a> (", id, id);
    h(f, lab);
    fprintf(f, "): %lld cycles, %.6g uJ, EDP %.6g pJ&middot;cycles</li>\n", b->cycles, b->energy_pj * 1e-6, b->edp);
}

static int write_html(const sw_def *d, const sw_row *rows, size_t n, const char *out, int plots)
{
    char path[4600], tmp[4700];
    snprintf(path, sizeof path, "%s/index.html", out);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) return -1;
    fprintf(f, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>mxsim sweep</title>\n<style>\n"
               "body{font-family:sans-serif;margin:1.5em;max-width:1400px}table{border-collapse:collapse;font-size:12px}"
               "th,td{border:1px solid #bbb;padding:2px 6px;text-align:right}th{background:#eee;cursor:pointer}"
               "td.s,th.s{text-align:left}tr.invalid td{color:#a00}img{max-width:100%%;border:1px solid #ddd;margin:4px}"
               "pre{background:#f6f6f6;padding:6px;font-size:12px;overflow:auto}\n</style></head><body>\n");
    fprintf(f, "<h1>mxsim sweep</h1>\n<p>Written by mxsim ");
    h(f, mxsim_version());
    fprintf(f, ". Every number is from <code>mxsim run</code> on the base configuration with the point's overrides "
               "(<code>--set</code>); cycles and energy are totals over the trace.</p>\n<h2>Definition</h2>\n<ul>\n<li>base: <code>");
    h(f, d->base);
    fprintf(f, "</code></li>\n<li>traces:");
    for (int t = 0; t < d->ntraces; t++) {
        fprintf(f, " <code>");
        h(f, d->traces[t]);
        fprintf(f, "</code>");
    }
    fprintf(f, "</li>\n<li>engine: %s; mode: %s</li>\n", d->engine ? d->engine : "the config's", d->mode ? d->mode : "timing");
    for (int a = 0; a < d->naxes; a++) {
        fprintf(f, "<li>%s axis %d:", d->axes[a].zip ? "zipped" : "grid", a + 1);
        for (int k = 0; k < d->axes[a].nkeys; k++) {
            fprintf(f, " <code>");
            h(f, d->axes[a].keys[k]);
            fprintf(f, "</code> = ");
            for (int v = 0; v < d->axes[a].nvals; v++) {
                fprintf(f, "%s", v ? ", " : "");
                h(f, sw_val(&d->axes[a], v, k));
            }
            fprintf(f, ";");
        }
        fprintf(f, "</li>\n");
    }
    for (int i = 0; i < d->nfilters; i++) {
        fprintf(f, "<li>filter: <code>");
        h(f, d->filters[i]);
        fprintf(f, "</code></li>\n");
    }
    size_t nbad = 0;
    for (size_t i = 0; i < n; i++) nbad += !rows[i].ok;
    size_t nunval = 0;
    for (size_t i = 0; i < n; i++) nunval += rows[i].ok && !rows[i].engine_validated;
    fprintf(f, "<li>%zu points &times; %d trace(s) = <span id=\"nrows\">%zu</span> rows, %zu with errors</li>\n",
            sw_def_nkept(d), d->ntraces, n, nbad);
    if (nunval)
        fprintf(f, "<li class=\"unvalidated\">%zu rows (marked &dagger;) ran the analytic engine with a buffer below %d KiB, "
                   "outside its validation against the cycle engine (docs/VALIDATION.md, 'Smaller buffers'): rerun "
                   "them with <code>--engine cycle</code></li>\n",
                nunval, MX_ANALYTIC_VALIDATED_KIB);
    fprintf(f, "</ul>\n");
    fprintf(f, "<h2>Best points</h2>\n");
    for (int t = 0; t < d->ntraces; t++) {
        fprintf(f, "<p>");
        h(f, trace_base(d->traces[t]));
        fprintf(f, ":</p><ul>\n");
        for (int w = 0; w < 3; w++) best_line(f, d, rows, n, t, w);
        fprintf(f, "</ul>\n");
    }
    if (plots) {
        fprintf(f, "<h2>Plots</h2>\n<p>PNG beside each SVG in <a href=\"plots/\">plots/</a>.</p>\n");
        for (int t = 0; t < d->ntraces; t++) {
            fprintf(f, "<div><img src=\"plots/pareto_t%d.svg\" alt=\"Pareto\"><img src=\"plots/breakdown_t%d.svg\" alt=\"breakdown\">\n", t, t);
            for (int a = 0; a < d->naxes; a++) fprintf(f, "<img src=\"plots/key%d_t%d.svg\" alt=\"key %d\">\n", a, t, a);
            fprintf(f, "</div>\n");
        }
    }
    fprintf(f, "<h2>All points</h2>\n<p>Click a column head to sort.</p>\n<table id=\"points\"><thead><tr><th class=\"s\">point</th>");
    for (int a = 0; a < d->naxes; a++)
        for (int k = 0; k < d->axes[a].nkeys; k++) {
            fprintf(f, "<th class=\"s\">");
            h(f, d->axes[a].keys[k]);
            fprintf(f, "</th>");
        }
    fprintf(f, "<th class=\"s\">trace</th><th>cycles</th><th>energy (uJ)</th><th>utilization</th><th>DRAM (MB)</th>"
               "<th>EDP (pJ&middot;cycles)</th><th class=\"s\">mapping of the slowest GEMM (mt x nt x kt, loop order)</th><th class=\"s\">error</th></tr></thead><tbody>\n");
    for (size_t i = 0; i < n; i++) {
        const sw_row *r = &rows[i];
        char id[32];
        sw_point_id(r->p, id, sizeof id);
        fprintf(f, "<tr class=\"row%s\"><td class=\"s\"><a href=\"#%s\">%s</a>%s</td>", r->ok ? "" : " invalid", id, id,
                r->ok && !r->engine_validated ? " &dagger;" : "");
        for (int a = 0; a < d->naxes; a++) {
            int v = sw_def_point_index(d, r->p, a);
            for (int k = 0; k < d->axes[a].nkeys; k++) {
                fprintf(f, "<td class=\"s\">");
                h(f, sw_val(&d->axes[a], v, k));
                fprintf(f, "</td>");
            }
        }
        fprintf(f, "<td class=\"s\">");
        h(f, trace_base(d->traces[r->t]));
        if (r->ok)
            fprintf(f, "</td><td>%lld</td><td>%.6g</td><td>%.4f</td><td>%.6g</td><td>%.6g</td><td class=\"s\">", r->cycles,
                    r->energy_pj * 1e-6, r->util, r->dram_bytes * 1e-6, r->edp);
        else
            fprintf(f, "</td><td></td><td></td><td></td><td></td><td></td><td class=\"s\">");
        h(f, r->mapping);
        fprintf(f, "</td><td class=\"s\">");
        h(f, r->error);
        fprintf(f, "</td></tr>\n");
    }
    fprintf(f, "</tbody></table>\n<h2>Each point's configuration</h2>\n<p>The base configuration, then per point the "
               "overrides applied to it and its reports (each report.json names its engine, mode, DRAM, energy table, "
               "version and per GEMM the mapping).</p>\n<details><summary>base: ");
    h(f, d->base);
    fprintf(f, "</summary><pre>");
    char *text = NULL, err[600];
    size_t len = 0;
    if (mx_input_read(d->base, "configuration", &text, &len, err, sizeof err) == 0) h(f, text);
    else h(f, err);
    free(text);
    fprintf(f, "</pre></details>\n");
    for (size_t i = 0; i < n; i++) {
        if (rows[i].t != 0) continue;
        char id[32], ov[SW_MAX_KEYS][SW_VALUE_MAX * 2 + 4];
        const char *o[SW_MAX_KEYS];
        sw_point_id(rows[i].p, id, sizeof id);
        int no = sw_def_point(d, rows[i].p, ov, o);
        fprintf(f, "<details id=\"%s\"><summary>%s</summary><pre>", id, id);
        for (int k = 0; k < no; k++) {
            fprintf(f, "--set ");
            h(f, o[k]);
            fprintf(f, "\n");
        }
        /* the resolved configuration mxsim run wrote (every key in effect) */
        char rj[4600];
        if (!strcmp(rows[i].dir, out)) snprintf(rj, sizeof rj, "%s/points/%s/t0/report.json", out, id);
        else snprintf(rj, sizeof rj, "%s/points/%s/t0/report.json", rows[i].dir, id);
        json_t *rep = rows[i].ok ? json_load_file(rj, 0, NULL) : NULL;
        json_t *rc = json_object_get(rep, "resolved_config");
        if (json_is_object(rc)) {
            const char *k;
            json_t *v;
            fprintf(f, "# resolved configuration (report.json \"resolved_config\")\n");
            json_object_foreach(rc, k, v)
            {
                h(f, k);
                fprintf(f, ": ");
                h(f, json_string_value(v) ? json_string_value(v) : "?");
                fprintf(f, "\n");
            }
        }
        json_decref(rep);
        fprintf(f, "</pre><p>");
        for (int t = 0; t < d->ntraces; t++) {
            char rp[4600];
            char rdir[PATH_MAX];
            if (!strcmp(rows[i].dir, out)) snprintf(rp, sizeof rp, "points/%s/t%d/report.json", id, t);
            else snprintf(rp, sizeof rp, "%s/points/%s/t%d/report.json", realpath(rows[i].dir, rdir) ? rdir : rows[i].dir, id, t);
            fprintf(f, "<a href=\"");
            h(f, rp);
            fprintf(f, "\">report.json (");
            h(f, trace_base(d->traces[t]));
            fprintf(f, ")</a> ");
        }
        fprintf(f, "</p></details>\n");
    }
    /* sorting; and a DOM summary the browser test reads (images loaded) */
    fprintf(f, "<script>\n"
               "(function(){var tb=document.querySelector('#points tbody');\n"
               "document.querySelectorAll('#points th').forEach(function(th,c){var asc=true;th.onclick=function(){\n"
               " var rs=Array.prototype.slice.call(tb.rows);rs.sort(function(a,b){var x=a.cells[c].textContent,y=b.cells[c].textContent;\n"
               " var nx=parseFloat(x),ny=parseFloat(y);var r=(!isNaN(nx)&&!isNaN(ny))?nx-ny:x.localeCompare(y);return asc?r:-r;});\n"
               " asc=!asc;rs.forEach(function(r){tb.appendChild(r);});};});\n"
               "window.addEventListener('load',function(){var im=document.images,ok=0;for(var i=0;i<im.length;i++)if(im[i].complete&&im[i].naturalWidth>0)ok++;\n"
               " document.body.setAttribute('data-images',im.length);document.body.setAttribute('data-images-loaded',ok);});})();\n"
               "</script>\n</body></html>\n");
    if (fclose(f) != 0 || rename(tmp, path) != 0) { unlink(tmp); return -1; }
    return 0;
}

void sw_write_extras(const sw_def *d, const char *out, const char *const *dirs, int ndirs)
{
    sw_row *rows = NULL;
    size_t n = 0, missing = 0;
    char miss[32], dir[4500];
    if (sw_load_rows(d, dirs, ndirs, 0, 1, &rows, &n, &missing, miss, sizeof miss) != 0 || missing) { free(rows); return; }
    int ngroups[SW_MAX_AXES] = {0}, plots = 0;
    snprintf(dir, sizeof dir, "%s/plots", out);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        mx_print_error(P, "note: cannot create %s: %s: no plots", dir, strerror(errno));
    } else if (write_plot_data(d, rows, n, dir, ngroups) == 0) {
        char gp[4600];
        snprintf(gp, sizeof gp, "%s/plots.gp", dir);
        FILE *g = fopen(gp, "w");
        if (g) {
            fprintf(g, "# written by mxsim sweep: the plots of %s/sweep.csv (run: cd plots && gnuplot plots.gp)\n", out);
            plot_cmds(g, d, rows, n, "pngcairo size 1000,640", "png", ngroups);
            plot_cmds(g, d, rows, n, "svg size 1000,640 dynamic", "svg", ngroups);
            if (fclose(g) == 0 && run_gnuplot(dir) == 0) {
                plots = 1;
                printf("sweep: plots (gnuplot) in %s: pareto_t*, breakdown_t*, key*_t* (.png, .svg)\n", dir);
            }
        }
    }
    if (write_html(d, rows, n, out, plots) == 0) printf("sweep: report %s/index.html\n", out);
    else mx_print_error(P, "note: cannot write %s/index.html", out);
    free(rows);
}
