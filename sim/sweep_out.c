/* sweep_out.c — see sweep_out.h: rows, sweep.csv, the Slurm script. */
#include "sweep_out.h"
#include "json_out.h"
#include "config_yaml.h"
#include "version.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define P "mxsim sweep"

static double num(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : 0.0;
}

static double sum_obj(json_t *o)
{
    double s = 0;
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v) s += json_is_number(v) ? json_number_value(v) : 0.0;
    return s;
}

/* Reads DIR/points/ID/tT/report.json into r.  0 or -1. */
static int read_report(const char *path, sw_row *r)
{
    json_error_t je;
    json_t *rep = json_load_file(path, 0, &je);
    if (!rep) return -1;
    json_t *tot = json_object_get(rep, "total");
    if (!json_is_object(tot) || !json_is_integer(json_object_get(tot, "cycles"))) { json_decref(rep); return -1; }
    r->cycles = (long long)json_integer_value(json_object_get(tot, "cycles"));
    r->energy_pj = num(tot, "energy_pj");
    r->util = num(tot, "utilization");
    r->dram_bytes = sum_obj(json_object_get(tot, "dram_read_bytes")) + sum_obj(json_object_get(tot, "dram_write_bytes"));
    json_t *comp = json_object_get(tot, "energy_by_component_pj");
    for (int i = 0; i < MX_E_NCOMP; i++) r->comp_pj[i] = num(comp, mx_energy_comp_name((mx_energy_comp)i));
    r->qsnr_db = num(tot, "qsnr_db");
    r->max_abs_err = num(tot, "max_abs_err");
    r->edp = r->energy_pj * (double)r->cycles;
    json_t *ev = json_object_get(rep, "engine_validated");
    r->engine_validated = !json_is_false(ev); /* absent (older reports): no claim either way, kept as 1 */
    /* the mapping of the GEMM with the most cycles */
    size_t i;
    json_t *g;
    double best = -1;
    json_array_foreach(json_object_get(rep, "gemms"), i, g)
    {
        double c = num(g, "cycles");
        json_t *m = json_object_get(g, "mapping");
        if (c > best && json_is_object(m)) {
            best = c;
            snprintf(r->mapping, sizeof r->mapping, "%s: %lldx%lldx%lld %s", json_string_value(json_object_get(g, "name")) ? json_string_value(json_object_get(g, "name")) : "?",
                     (long long)num(m, "mt"), (long long)num(m, "nt"), (long long)num(m, "kt"),
                     json_string_value(json_object_get(m, "loop_order")) ? json_string_value(json_object_get(m, "loop_order")) : "?");
        }
    }
    json_decref(rep);
    return 0;
}

int sw_load_rows(const sw_def *d, const char *const *dirs, int ndirs, int si, int sn, sw_row **rows, size_t *nrows,
                 size_t *missing, char *miss_id, size_t cap)
{
    size_t np = sw_def_npoints(d), n = 0;
    *missing = 0;
    miss_id[0] = 0;
    sw_row *out = calloc((np / (size_t)sn + 1) * (size_t)d->ntraces + 1, sizeof *out);
    if (!out) { mx_print_error(P, "out of memory"); return 2; }
    for (size_t p = (size_t)si; p < np; p += (size_t)sn) {
        if (!sw_def_keep(d, p)) continue;
        char id[32], pj[4400];
        sw_point_id(p, id, sizeof id);
        json_t *pt = NULL;
        const char *dir = NULL;
        for (int k = 0; k < ndirs && !pt; k++) {
            snprintf(pj, sizeof pj, "%s/points/%s/point.json", dirs[k], id);
            if ((pt = json_load_file(pj, 0, NULL))) dir = dirs[k];
        }
        if (!pt) {
            if (!(*missing)++) snprintf(miss_id, cap, "%s", id);
            continue;
        }
        json_t *trs = json_object_get(pt, "traces");
        for (int t = 0; t < d->ntraces; t++) {
            sw_row *r = &out[n++];
            r->p = p;
            r->t = t;
            r->dir = dir;
            json_t *tj = json_array_get(trs, (size_t)t);
            const char *st = json_string_value(json_object_get(tj, "status"));
            if (st && !strcmp(st, "ok")) {
                char rp[4500];
                snprintf(rp, sizeof rp, "%s/points/%s/t%d/report.json", dir, id, t);
                if (read_report(rp, r) != 0) {
                    mx_print_error(P, "cannot read %s (a point directory is whole or absent: was it edited?)", rp);
                    json_decref(pt);
                    free(out);
                    return 2;
                }
                r->ok = 1;
            } else {
                const char *e = json_string_value(json_object_get(tj, "error"));
                snprintf(r->error, sizeof r->error, "%s", e ? e : "unknown error");
            }
        }
        json_decref(pt);
    }
    *rows = out;
    *nrows = n;
    return 0;
}

int sw_write_csv(const sw_def *d, const char *const *dirs, int ndirs, int si, int sn, const char *path, size_t *nrows,
                 size_t *missing)
{
    sw_row *rows = NULL;
    char miss[32];
    int rc = sw_load_rows(d, dirs, ndirs, si, sn, &rows, nrows, missing, miss, sizeof miss);
    if (rc) return rc;
    if (*missing) {
        mx_print_error(P, "%zu point%s not finished (first: %s): %s not written (run the missing shards, or --resume)",
                       *missing, *missing == 1 ? "" : "s", miss, path);
        free(rows);
        return 1;
    }
    const int func = d->mode && !strcmp(d->mode, "functional");
    char tmp[4400];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        mx_print_error(P, "cannot write '%s': %s", tmp, strerror(errno));
        free(rows);
        return 2;
    }
    fprintf(f, "point");
    for (int a = 0; a < d->naxes; a++)
        for (int k = 0; k < d->axes[a].nkeys; k++) {
            fputc(',', f);
            mx_csv_field(f, d->axes[a].keys[k]);
        }
    fprintf(f, ",trace,status,cycles,energy_pj");
    for (int i = 0; i < MX_E_NCOMP; i++) fprintf(f, ",energy_%s_pj", mx_energy_comp_name((mx_energy_comp)i));
    fprintf(f, ",utilization,dram_bytes,edp_pj_cycles,engine_validated%s,error\n", func ? ",qsnr_db,max_abs_err" : "");
    size_t unvalidated = 0;
    for (size_t i = 0; i < *nrows; i++) {
        const sw_row *r = &rows[i];
        char id[32];
        sw_point_id(r->p, id, sizeof id);
        fputs(id, f);
        for (int a = 0; a < d->naxes; a++) {
            int v = sw_def_point_index(d, r->p, a);
            for (int k = 0; k < d->axes[a].nkeys; k++) {
                fputc(',', f);
                mx_csv_field(f, sw_val(&d->axes[a], v, k));
            }
        }
        fputc(',', f);
        mx_csv_field(f, d->traces[r->t]);
        if (r->ok) {
            fprintf(f, ",ok,%lld,%.10g", r->cycles, r->energy_pj);
            for (int c = 0; c < MX_E_NCOMP; c++) fprintf(f, ",%.10g", r->comp_pj[c]);
            fprintf(f, ",%.6f,%.0f,%.10g,%d", r->util, r->dram_bytes, r->edp, r->engine_validated);
            unvalidated += !r->engine_validated;
            if (func) fprintf(f, ",%.6f,%.9g", r->qsnr_db, r->max_abs_err);
            fprintf(f, ",\n");
        } else {
            fprintf(f, ",invalid,,");
            for (int c = 0; c < MX_E_NCOMP; c++) fputc(',', f);
            fprintf(f, ",,,,%s,", func ? ",," : "");
            mx_csv_field(f, r->error);
            fputc('\n', f);
        }
    }
    free(rows);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        mx_print_error(P, "cannot write '%s': %s", path, strerror(errno));
        unlink(tmp);
        return 2;
    }
    if (unvalidated)
        printf("sweep: note: %zu of %zu rows ran the analytic engine with a buffer below %d KiB, outside its "
               "validation against the cycle engine (column engine_validated = 0; docs/VALIDATION.md, 'Smaller "
               "buffers'): rerun those points with --engine cycle\n",
               unvalidated, *nrows, MX_ANALYTIC_VALIDATED_KIB);
    return 0;
}

/* ---- Slurm ------------------------------------------------------------------ */

/* s in single quotes for bash. */
static void shq(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'') fputs("'\\''", f);
        else fputc(*s, f);
    }
    fputc('\'', f);
}

int sw_emit_slurm(const sw_def *d, const char *out, const char *file, int shards, int jobs, char *err, size_t errlen)
{
    char self[PATH_MAX], cwd[PATH_MAX], abs_file[PATH_MAX + 8], def[4400], defdir[4400];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) { snprintf(err, errlen, "option '--emit-slurm': cannot find the mxsim binary (/proc/self/exe)"); return 2; }
    self[n] = 0;
    if (!getcwd(cwd, sizeof cwd)) { snprintf(err, errlen, "option '--emit-slurm': cannot get the working directory"); return 2; }
    if (file[0] == '/') snprintf(abs_file, sizeof abs_file, "%s", file);
    else snprintf(abs_file, sizeof abs_file, "%s/%s", cwd, file);
    if (mx_check_output_file("--emit-slurm", file, err, errlen) != 0) return 2;
    char absout[PATH_MAX + 8];
    if (out[0] == '/') snprintf(absout, sizeof absout, "%s", out);
    else snprintf(absout, sizeof absout, "%s/%s", cwd, out);
    /* the definition goes to OUT/sweep.json: the tasks read it (-s) */
    snprintf(defdir, sizeof defdir, "%s/slurm", out);
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "%s", out);
    for (char *p = cmd + 1; *p; p++)
        if (*p == '/') { *p = 0; mkdir(cmd, 0777); *p = '/'; }
    mkdir(out, 0777);
    if (mkdir(defdir, 0777) != 0 && errno != EEXIST) { snprintf(err, errlen, "option '--emit-slurm': cannot create '%s': %s", defdir, strerror(errno)); return 2; }
    snprintf(def, sizeof def, "%s/sweep.json", out);
    json_t *mine = sw_def_to_json(d), *there = json_load_file(def, 0, NULL);
    int bad = there && !json_equal(there, mine);
    int wrote = !there && json_dump_file(mine, def, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0;
    json_decref(mine);
    json_decref(there);
    if (bad) { snprintf(err, errlen, "option '--emit-slurm': '%s' holds a different sweep (%s)", out, def); return 2; }
    if (!there && !wrote) { snprintf(err, errlen, "option '--emit-slurm': cannot write '%s'", def); return 2; }
    size_t np = sw_def_nkept(d);
    if ((size_t)shards > sw_def_npoints(d)) shards = (int)sw_def_npoints(d);
    char tmp[PATH_MAX + 32];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", file, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) { snprintf(err, errlen, "option '--emit-slurm': cannot write '%s': %s", file, strerror(errno)); return 2; }
    int cpus = jobs > 0 ? jobs : 1;
    fprintf(f, "#!/bin/bash\n");
    fprintf(f, "#SBATCH --job-name=mxsim-sweep\n#SBATCH --array=0-%d\n#SBATCH --cpus-per-task=%d\n", shards - 1, cpus);
    fprintf(f, "#SBATCH --output=%s/slurm/shard-%%a.out\n", absout);
    fprintf(f, "# Written by mxsim sweep --emit-slurm (mxsim %s): %zu points x %d trace(s) in %d array tasks\n",
            mxsim_version(), np, d->ntraces, shards);
    fprintf(f, "# (task I runs `mxsim sweep --shard I/%d`), then one merge job (afterok) writing %s/sweep.csv.\n", shards, out);
    fprintf(f, "# Submit both with:  bash %s     (sbatch %s alone submits the array only)\n", file, file);
    fprintf(f, "set -euo pipefail\nMXSIM=");
    shq(f, self);
    fprintf(f, "\nOUT=");
    shq(f, absout);
    fprintf(f, "\ncd ");
    shq(f, cwd);
    fprintf(f, "\nif [ -z \"${SLURM_ARRAY_TASK_ID:-}\" ]; then\n");
    fprintf(f, "  jid=$(sbatch --parsable ");
    shq(f, abs_file);
    fprintf(f, ")\n  jid=${jid%%%%;*}\n");
    fprintf(f, "  mid=$(sbatch --parsable --dependency=afterok:$jid --job-name=mxsim-sweep-merge --output=\"$OUT/slurm/merge.out\" \\\n"
               "        --wrap \"$(printf '%%q ' \"$MXSIM\" sweep --merge \"$OUT\" -o \"$OUT\")\")\n");
    fprintf(f, "  echo \"submitted array job $jid (%d tasks) and merge job ${mid%%%%;*}\"\n  exit 0\nfi\n", shards);
    fprintf(f, "exec \"$MXSIM\" sweep -s \"$OUT/sweep.json\" -o \"$OUT\" --shard \"$SLURM_ARRAY_TASK_ID/%d\" -j \"${SLURM_CPUS_PER_TASK:-1}\" --resume --no-progress\n",
            shards);
    if (fclose(f) != 0 || chmod(tmp, 0755) != 0 || rename(tmp, file) != 0) {
        unlink(tmp);
        snprintf(err, errlen, "option '--emit-slurm': cannot write '%s': %s", file, strerror(errno));
        return 2;
    }
    return 0;
}
