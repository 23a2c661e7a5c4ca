/*
 * cmd_sweep.c — `mxsim sweep`: a grid of config overrides run through
 * `mxsim run` (the same function, mxsim_cmd_run, in a forked process per
 * point), crash-safe and resumable, shardable, merged into one CSV.
 *
 * Layout of DIR (-o):
 *   DIR/sweep.json              the sweep's definition (base, traces, axes,
 *                               engine, mode, point count); shards and
 *                               --resume must match it
 *   DIR/points/<id>/point.json  per point: overrides, per trace status/error
 *   DIR/points/<id>/t<k>/report.json, report.csv   mxsim run's reports
 *   DIR/sweep.csv               a row per point x trace (unsharded or --merge)
 * A point is built in DIR/points/.tmp-<id>-<pid>-<slot>@<host>/ and renamed into
 * place once complete, so a point directory is always whole; such directories
 * of a sweep that was killed are removed by the next run into DIR.  Reports are read back with
 * jansson (docs/DECISIONS.md).
 */
#include "cli_getopt.h"
#include "config_yaml.h"
#include "mxsim_cmd.h"
#include "sweep_def.h"
#include "sweep_out.h"

#include "arch/mx_arch.h"
#include "arch/mx_trace.h"

#include <jansson.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define P "mxsim sweep"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mxsim sweep -c BASE.yaml -t TRACE [-t TRACE...] --grid KEY=V1,V2,... [--grid ...]\n"
            "                   [--zip KEY=V1,V2,...[;KEY=V1,V2,...]]... -o DIR [-j N] [--shard I/N] [--resume]\n"
            "                   [--engine analytic|cycle] [--mode timing|functional] [--progress|--no-progress]\n"
            "       mxsim sweep -s SWEEP.yaml [-o DIR] [...]\n"
            "       mxsim sweep --merge DIR [DIR...] -o OUT\n"
            "       mxsim sweep ... --emit-slurm FILE [--shards N]\n"
            "  Runs `mxsim run` on every point of the grid: the cartesian product of the --grid\n"
            "  axes and --zip groups, in the order given (the first slowest); the keys of one --zip\n"
            "  group ('KEY=LIST;KEY=LIST', lists of equal length) advance together, and each --zip\n"
            "  is one more axis crossed with the others. -j N processes (default: all CPUs).\n"
            "  Points whose config or mapping is refused are recorded with the error, not fatal.\n"
            "  Each point goes to DIR/points/<id>/ atomically; --resume skips finished points.\n"
            "  --filter 'KEY OP VALUE|KEY' (OP == != < <= > >=) keeps the points that pass (ids stay grid indices).\n"
            "  DIR/sweep.csv: a row per point x trace, swept keys as columns, then cycles, energy\n"
            "  (total and by component), utilization, DRAM bytes, EDP, engine_validated (0: the\n"
            "  analytic engine below its validated buffer size) (and QSNR, max error in\n"
            "  functional mode), status and error.\n"
            "  --shard I/N (0 <= I < N) runs points with index %% N == I and writes\n"
            "  DIR/sweep.shard-I-of-N.csv; --merge DIR... -o OUT writes OUT/sweep.csv from the\n"
            "  shards' points, byte-identical to an unsharded run's.\n"
            "  --emit-slurm FILE writes a script: `bash FILE` submits an sbatch job array of\n"
            "  --shards N tasks (default 4) and a merge job depending on it.\n"
            "  Plots (gnuplot, when installed) go to DIR/plots/, a report to DIR/index.html.\n");
}

/* ---- small helpers ------------------------------------------------------- */

static int mkdir_p(const char *dir)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf) { errno = ENAMETOOLONG; return -1; }
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
            *p = '/';
        }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
    return 0;
}

/* Removes a directory tree (point directories: two levels of plain files). */
static void rm_rf(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0) return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (d) {
            struct dirent *e;
            while ((e = readdir(d))) {
                if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
                char sub[4400];
                snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
                rm_rf(sub);
            }
            closedir(d);
        }
        rmdir(path);
    } else {
        unlink(path);
    }
}

/* Writes a JSON value to path through a temporary and a rename.  0 or -1. */
static int json_write_atomic(const char *path, json_t *v)
{
    char tmp[4400];
    const int n = snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    if (n < 0 || (size_t)n >= sizeof tmp) return -1; /* a path this long fails, never a cut name */
    if (json_dump_file(v, tmp, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0) { unlink(tmp); return -1; }
    if (rename(tmp, path) != 0) { unlink(tmp); return -1; }
    return 0;
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* ---- options ------------------------------------------------------------- */

typedef struct {
    sw_def def;
    const char *sweep_yaml;
    const char *outdir;
    const char *merge[SW_MAX_DIRS];
    int nmerge;
    const char *slurm_file;
    int slurm_shards;
    int jobs;
    int shard_i, shard_n;
    int resume;
    int progress; /* -1 auto, 0, 1 */
    const char *filter[SW_MAX_FILTERS]; /* --filter, added once the axes are known */
    int nfilter;
} sw_opts;

static int parse_int(const char *v, int lo, int hi, int *out)
{
    if (!*v || strlen(v) > 9) return -1;
    for (const char *c = v; *c; c++)
        if (*c < '0' || *c > '9') return -1;
    int n = atoi(v);
    if (n < lo || n > hi) return -1;
    *out = n;
    return 0;
}

static int parse_shard(const char *v, int *i, int *n)
{
    const char *slash = strchr(v, '/');
    char a[16];
    if (!slash || (size_t)(slash - v) >= sizeof a) return -1;
    memcpy(a, v, (size_t)(slash - v));
    a[slash - v] = 0;
    if (parse_int(a, 0, 100000, i) || parse_int(slash + 1, 1, 100000, n) || *i >= *n) return -1;
    return 0;
}

enum { OPT_GRID = 256, OPT_ZIP, OPT_SHARD, OPT_ENGINE, OPT_MODE, OPT_EMIT_SLURM, OPT_SHARDS, OPT_FILTER, OPT_MERGE, OPT_RESUME,
       OPT_PROGRESS, OPT_NO_PROGRESS };
static const struct option sweep_longopts[] = {
    {"config", required_argument, NULL, 'c'},     {"trace", required_argument, NULL, 't'},
    {"out", required_argument, NULL, 'o'},        {"jobs", required_argument, NULL, 'j'},
    {"sweep", required_argument, NULL, 's'},      {"help", no_argument, NULL, 'h'},
    {"grid", required_argument, NULL, OPT_GRID},  {"zip", required_argument, NULL, OPT_ZIP},
    {"shard", required_argument, NULL, OPT_SHARD}, {"engine", required_argument, NULL, OPT_ENGINE},
    {"mode", required_argument, NULL, OPT_MODE},  {"emit-slurm", required_argument, NULL, OPT_EMIT_SLURM},
    {"shards", required_argument, NULL, OPT_SHARDS}, {"filter", required_argument, NULL, OPT_FILTER},
    {"merge", no_argument, NULL, OPT_MERGE},      {"resume", no_argument, NULL, OPT_RESUME},
    {"progress", no_argument, NULL, OPT_PROGRESS}, {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
    {NULL, 0, NULL, 0}};

static int parse_opts(int argc, char **argv, sw_opts *o)
{
    memset(o, 0, sizeof *o);
    o->progress = -1;
    o->shard_n = 1;
    o->slurm_shards = 4;
    sw_def_init(&o->def);
    char err[600];
    optind = 0; /* a fresh scan; '+': no permutation, the first operand ends the options */
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, "+:c:t:o:j:s:h", sweep_longopts, NULL)) != -1) {
        const char *v = optarg;
        const int typed_long = mx_getopt_was_long(argv); /* messages name the option as typed */
        switch (ch) {
        case 'h': usage(stdout); return 1;
        case OPT_RESUME: o->resume = 1; break;
        case OPT_PROGRESS: o->progress = 1; break;
        case OPT_NO_PROGRESS: o->progress = 0; break;
        case OPT_MERGE: /* --merge DIR [DIR...]: the operands up to the next option */
            if (o->nmerge) { mx_print_error(P, "option '--merge' given twice (list every DIR after one --merge)"); return 2; }
            while (optind < argc && argv[optind][0] != '-') {
                if (o->nmerge == SW_MAX_DIRS) { mx_print_error(P, "option '--merge': more than %d directories", SW_MAX_DIRS); return 2; }
                o->merge[o->nmerge++] = argv[optind++];
            }
            if (!o->nmerge) { mx_print_error(P, "option '--merge' needs at least one sweep directory"); return 2; }
            break;
        case 'c': o->def.base = v; break;
        case 't':
            if (sw_def_add_trace(&o->def, v, err, sizeof err)) { mx_print_error(P, "option '%s': %s", typed_long ? "--trace" : "-t", err); return 2; }
            break;
        case OPT_GRID:
            if (sw_def_add_axis(&o->def, v, 0, err, sizeof err)) { mx_print_error(P, "option '--grid': %s", err); return 2; }
            break;
        case OPT_ZIP:
            if (sw_def_add_axis(&o->def, v, 1, err, sizeof err)) { mx_print_error(P, "option '--zip': %s", err); return 2; }
            break;
        case 'o': o->outdir = v; break;
        case 's': o->sweep_yaml = v; break;
        case OPT_FILTER:
            if (o->nfilter == SW_MAX_FILTERS) { mx_print_error(P, "option '--filter': more than %d filters", SW_MAX_FILTERS); return 2; }
            o->filter[o->nfilter++] = v;
            break;
        case OPT_EMIT_SLURM: o->slurm_file = v; break;
        case OPT_SHARDS:
            if (parse_int(v, 1, 10000, &o->slurm_shards)) { mx_print_error(P, "option '--shards': must be an integer 1..10000, got '%s'", v); return 2; }
            break;
        case 'j':
            if (parse_int(v, 0, 256, &o->jobs)) { mx_print_error(P, "option '%s': must be an integer 0..256 (0: all CPUs), got '%s'", typed_long ? "--jobs" : "-j", v); return 2; }
            break;
        case OPT_SHARD:
            if (parse_shard(v, &o->shard_i, &o->shard_n)) { mx_print_error(P, "option '--shard': must be I/N with 0 <= I < N, got '%s'", v); return 2; }
            break;
        case OPT_ENGINE:
            if (strcmp(v, "analytic") && strcmp(v, "cycle")) { mx_print_error(P, "option '--engine': must be analytic or cycle, got '%s'", v); return 2; }
            o->def.engine = v;
            break;
        case OPT_MODE:
            if (strcmp(v, "timing") && strcmp(v, "functional")) { mx_print_error(P, "option '--mode': must be timing or functional, got '%s'", v); return 2; }
            o->def.mode = v;
            break;
        default: return mx_getopt_fail(P, ch, argv, sweep_longopts);
        }
    }
    if (optind < argc) {
        mx_print_error(P, "unexpected argument '%s' (options only; --merge takes the directories: mxsim sweep --help)", argv[optind]);
        return 2;
    }
    return 0;
}

/* ---- the definition's checks (before anything is written) ---------------- */

static int check_def(const sw_def *d)
{
    char err[800];
    if (!d->base) { mx_print_error(P, "option '-c': a base configuration is required (mxsim sweep --help)"); return 2; }
    if (!d->ntraces) { mx_print_error(P, "option '-t': at least one trace is required"); return 2; }
    if (!d->naxes) { mx_print_error(P, "option '--grid': at least one swept key is required (--grid KEY=V1,V2,...)"); return 2; }
    mx_arch_config *base = malloc(sizeof *base), *c = malloc(sizeof *c);
    if (!base || !c) { free(base); free(c); mx_print_error(P, "out of memory"); return 2; }
    int rc = 0;
    if (mx_config_load(d->base, base, NULL, err, sizeof err) != 0) { mx_print_error(P, "%s", err); rc = 2; goto out; }
    for (int t = 0; t < d->ntraces; t++) {
        mx_trace tr;
        if (mx_trace_load(d->traces[t], &tr, err, sizeof err) != 0) { mx_print_error(P, "%s", err); rc = 2; goto out; }
        mx_trace_free(&tr);
    }
    /* every key must exist: a key that no value makes known is a typo, a
     * value the config refuses is a point-level error (recorded) */
    for (int a = 0; a < d->naxes; a++)
        for (int k = 0; k < d->axes[a].nkeys; k++) {
            const char *key = d->axes[a].keys[k];
            for (int b = 0; b < a; b++)
                for (int j = 0; j < d->axes[b].nkeys; j++)
                    if (!strcmp(key, d->axes[b].keys[j])) {
                        mx_print_error(P, "option '%s': key '%s' is swept twice", d->axes[a].zip ? "--zip" : "--grid", key);
                        rc = 2;
                        goto out;
                    }
            for (int j = 0; j < k; j++)
                if (!strcmp(key, d->axes[a].keys[j])) {
                    mx_print_error(P, "option '--zip': key '%s' is swept twice", key);
                    rc = 2;
                    goto out;
                }
            char asg[SW_VALUE_MAX * 2 + 4];
            *c = *base;
            snprintf(asg, sizeof asg, "%s=%s", key, sw_val(&d->axes[a], 0, k));
            if (mx_config_override(c, asg, err, sizeof err) != 0 && strstr(err, "unknown key")) {
                mx_print_error(P, "option '%s': unknown config key '%s' (README.md \"## Configuration\")",
                               d->axes[a].zip ? "--zip" : "--grid", key);
                rc = 2;
                goto out;
            }
        }
out:
    free(base);
    free(c);
    return rc;
}

/* ---- one point, in a child process ---------------------------------------- */

/* The first line of FILE that is not a note (mxsim run's error line). */
static void first_error_line(const char *file, char *out, size_t cap)
{
    out[0] = 0;
    FILE *f = fopen(file, "r");
    if (!f) return;
    char line[2048];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0] || strstr(line, ": note:")) continue;
        snprintf(out, cap, "%s", line);
        break;
    }
    fclose(f);
}

/* Runs every trace of point p into tmp, writes tmp/point.json and renames
 * tmp to final.  Exit status of the child: 0 (point written, valid or not),
 * 3 (could not write). */
static int run_point(const sw_def *d, size_t p, const char *tmp, const char *final)
{
    const char *ov[SW_MAX_KEYS];
    char ovbuf[SW_MAX_KEYS][SW_VALUE_MAX * 2 + 4];
    int nov = sw_def_point(d, p, ovbuf, ov);
    json_t *pt = json_object(), *ovj = json_object(), *trs = json_array();
    char id[32];
    sw_point_id(p, id, sizeof id);
    json_object_set_new(pt, "id", json_string(id));
    json_object_set_new(pt, "index", json_integer((json_int_t)p));
    for (int k = 0; k < nov; k++) {
        const char *eq = strchr(ov[k], '=');
        char key[SW_VALUE_MAX];
        snprintf(key, sizeof key, "%.*s", (int)(eq - ov[k]), ov[k]);
        json_object_set_new(ovj, key, json_string(eq + 1));
    }
    json_object_set_new(pt, "overrides", ovj);
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) { dup2(devnull, 1); close(devnull); }
    for (int t = 0; t < d->ntraces; t++) {
        char out[4500], errf[4500], line[2048];
        snprintf(out, sizeof out, "%s/t%d", tmp, t);
        snprintf(errf, sizeof errf, "%s/t%d.stderr", tmp, t);
        const char *argv[16 + 2 * SW_MAX_KEYS];
        int n = 0;
        argv[n++] = "run";
        argv[n++] = "-c"; argv[n++] = d->base;
        argv[n++] = "-t"; argv[n++] = d->traces[t];
        argv[n++] = "-o"; argv[n++] = out;
        argv[n++] = "-q"; argv[n++] = "--no-progress";
        argv[n++] = "-j"; argv[n++] = "1";
        if (d->engine) { argv[n++] = "--engine"; argv[n++] = d->engine; }
        if (d->mode) { argv[n++] = "--mode"; argv[n++] = d->mode; }
        for (int k = 0; k < nov; k++) { argv[n++] = "--set"; argv[n++] = ov[k]; }
        argv[n] = NULL;
        fflush(stderr);
        int saved = dup(2), fd = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        if (fd >= 0) { dup2(fd, 2); close(fd); }
        int rc = mxsim_cmd_run(n, (char **)argv);
        fflush(stdout);
        fflush(stderr);
        if (saved >= 0) { dup2(saved, 2); close(saved); }
        json_t *tj = json_object();
        json_object_set_new(tj, "trace", json_string(d->traces[t]));
        json_object_set_new(tj, "dir", json_sprintf("t%d", t));
        if (rc == 0) {
            json_object_set_new(tj, "status", json_string("ok"));
            unlink(errf);
        } else {
            first_error_line(errf, line, sizeof line);
            json_object_set_new(tj, "status", json_string("invalid"));
            json_object_set_new(tj, "error", json_string(line[0] ? line : "mxsim run failed without a message"));
        }
        json_array_append_new(trs, tj);
    }
    json_object_set_new(pt, "traces", trs);
    char pj[4500];
    snprintf(pj, sizeof pj, "%s/point.json", tmp);
    int ok = json_write_atomic(pj, pt) == 0;
    json_decref(pt);
    if (!ok) return 3;
    if (rename(tmp, final) != 0) {
        /* an older copy of the point (a rerun without --resume): set aside, replace */
        char old[4500];
        snprintf(old, sizeof old, "%s.old.%ld", tmp, (long)getpid());
        if (rename(final, old) != 0 || rename(tmp, final) != 0) return 3;
        rm_rf(old);
    }
    return 0;
}

/* ---- the parallel driver -------------------------------------------------- */

/* The digits at *s (advanced past them) as a number; -1 if none. */
static long digits(const char **s)
{
    long v = 0;
    const char *b = *s;
    while (**s >= '0' && **s <= '9' && *s - b < 18) v = v * 10 + (**s - '0'), (*s)++;
    return *s > b ? v : -1;
}

/* Whether NAME is a temporary point directory of a sweep that is no longer
 * running: ".tmp-p<digits>-<pid>-<slot>" then "@<host>" (none: written by an
 * older mxsim, taken as this host's) and maybe ".old.<pid>" (a replaced
 * point).  Stale when the host is this one and its sweep process <pid> is
 * gone (or is this process, which has not started any point yet).  A
 * directory of another host is never touched: shards of other machines may
 * be writing into DIR at the same time. */
static int stale_tmp(const char *name, const char *host)
{
    const char *s = name;
    if (strncmp(s, ".tmp-p", 6) != 0) return 0;
    s += 6;
    long pid;
    if (digits(&s) < 0 || *s++ != '-' || (pid = digits(&s)) <= 0 || *s++ != '-' || digits(&s) < 0) return 0;
    if (*s == '@') {
        s++;
        const char *old = strstr(s, ".old.");
        size_t hl = old ? (size_t)(old - s) : strlen(s);
        if (strlen(host) != hl || strncmp(s, host, hl) != 0) return 0;
        s += hl;
    }
    if (!strncmp(s, ".old.", 5)) {
        s += 5;
        if (digits(&s) < 0) return 0;
    }
    if (*s) return 0;
    return (pid_t)pid == getpid() || (kill((pid_t)pid, 0) != 0 && errno == ESRCH);
}

/* Removes DIR/points/ temporaries left by a killed sweep (stale_tmp); the
 * number removed. */
static int clean_stale_tmps(const char *outdir, const char *host)
{
    char pdir[4400];
    snprintf(pdir, sizeof pdir, "%s/points", outdir);
    DIR *d = opendir(pdir);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (stale_tmp(e->d_name, host)) {
            char sub[4700];
            snprintf(sub, sizeof sub, "%s/%s", pdir, e->d_name);
            rm_rf(sub);
            n++;
        }
    closedir(d);
    return n;
}


static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void progress_line(int on, size_t done, size_t total, size_t invalid, double t0)
{
    if (!on) return;
    double el = now_s() - t0, rate = el > 0 ? (double)done / el : 0;
    fprintf(stderr, "\rsweep: %zu/%zu points (%zu with errors), %.1f points/s, ETA %.0f s   ", done, total, invalid, rate,
            rate > 0 ? (double)(total - done) / rate : 0.0);
    if (done == total) fprintf(stderr, "\n");
    fflush(stderr);
}

/* Whether point.json of a finished point has an invalid trace. */
static int point_has_error(const char *final)
{
    char pj[4500];
    snprintf(pj, sizeof pj, "%s/point.json", final);
    json_t *v = json_load_file(pj, 0, NULL);
    int bad = 0;
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(v, "traces"), i, t) bad |= strcmp(json_string_value(json_object_get(t, "status")) ? json_string_value(json_object_get(t, "status")) : "", "ok") != 0;
    json_decref(v);
    return bad;
}

typedef struct {
    pid_t pid;
    size_t p;
    char tmp[4400];
} sw_child;

static int run_points(const sw_opts *o, size_t *n_run, size_t *n_err, size_t *n_skip)
{
    const sw_def *d = &o->def;
    size_t np = sw_def_npoints(d);
    int jobs = o->jobs ? o->jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (jobs < 1) jobs = 1;
    size_t *todo = malloc(sizeof *todo * (np + 1));
    sw_child *kids = calloc((size_t)jobs, sizeof *kids);
    if (!todo || !kids) { free(todo); free(kids); mx_print_error(P, "out of memory"); return 2; }
    size_t nt = 0;
    *n_skip = *n_run = *n_err = 0;
    char host[256] = "localhost";
    gethostname(host, sizeof host - 1);
    int stale = clean_stale_tmps(o->outdir, host);
    if (stale)
        printf("sweep: removed %d temporary point director%s of an interrupted sweep from %s/points\n", stale,
               stale == 1 ? "y" : "ies", o->outdir);
    for (size_t p = 0; p < np; p++) {
        if ((int)(p % (size_t)o->shard_n) != o->shard_i || !sw_def_keep(d, p)) continue;
        char id[32], final[4400];
        sw_point_id(p, id, sizeof id);
        snprintf(final, sizeof final, "%s/points/%s", o->outdir, id);
        if (o->resume && file_exists(final)) { (*n_skip)++; continue; }
        todo[nt++] = p;
    }
    int bar = o->progress == 1 || (o->progress == -1 && isatty(2));
    double t0 = now_s();
    size_t next = 0, done = 0;
    int running = 0, rc = 0;
    progress_line(bar && nt, 0, nt, 0, t0);
    while (next < nt || running) {
        while (running < jobs && next < nt) {
            int slot = 0;
            while (kids[slot].pid) slot++;
            sw_child *k = &kids[slot];
            char id[32];
            k->p = todo[next++];
            sw_point_id(k->p, id, sizeof id);
            const int tl = snprintf(k->tmp, sizeof k->tmp, "%s/points/.tmp-%s-%ld-%d@%s", o->outdir, id, (long)getpid(), slot, host);
            if (tl < 0 || (size_t)tl >= sizeof k->tmp) errno = ENAMETOOLONG;
            else rm_rf(k->tmp);
            if (tl < 0 || (size_t)tl >= sizeof k->tmp || mkdir(k->tmp, 0777) != 0) {
                mx_print_error(P, "option '-o': cannot create '%s': %s", k->tmp, strerror(errno));
                rc = 2;
                next = nt;
                break;
            }
            fflush(stdout);
            fflush(stderr);
            pid_t parent = getpid(), pid = fork();
            if (pid < 0) {
                mx_print_error(P, "fork: %s", strerror(errno));
                rc = 2;
                next = nt;
                break;
            }
            if (pid == 0) {
                /* a point dies with its sweep (kill -9 of the sweep stops all work) */
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                if (getppid() != parent) _exit(3);
                char final[4400];
                snprintf(final, sizeof final, "%s/points/%s", o->outdir, id);
                _exit(run_point(d, k->p, k->tmp, final));
            }
            k->pid = pid;
            running++;
        }
        if (!running) break;
        int st;
        pid_t w = waitpid(-1, &st, 0);
        if (w < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (int s = 0; s < jobs; s++)
            if (kids[s].pid == w) {
                sw_child *k = &kids[s];
                char id[32], final[4400];
                sw_point_id(k->p, id, sizeof id);
                snprintf(final, sizeof final, "%s/points/%s", o->outdir, id);
                if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
                    (*n_run)++;
                    if (point_has_error(final)) (*n_err)++;
                } else {
                    if (bar) fprintf(stderr, "\n");
                    if (WIFSIGNALED(st))
                        mx_print_error(P, "point %s ended by signal %d: not recorded (--resume retries it)", id, WTERMSIG(st));
                    else
                        mx_print_error(P, "point %s: cannot write '%s' (disk full or not writable?): not recorded", id, final);
                    rm_rf(k->tmp);
                    rc = 1;
                }
                k->pid = 0;
                running--;
                done++;
                progress_line(bar, done, nt, *n_err, t0);
            }
    }
    free(todo);
    free(kids);
    return rc;
}

/* ---- sweep.json ------------------------------------------------------------ */

/* Writes DIR/sweep.json, or checks that the one there is the same sweep. */
static int write_or_check_def(const sw_opts *o)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/sweep.json", o->outdir);
    json_t *mine = sw_def_to_json(&o->def);
    int rc = 0;
    if (file_exists(path)) {
        json_error_t je;
        json_t *there = json_load_file(path, 0, &je);
        if (!there || !json_equal(there, mine)) {
            mx_print_error(P, "option '-o': '%s' holds a different sweep (%s): choose another directory", o->outdir, path);
            rc = 2;
        }
        json_decref(there);
    } else if (json_write_atomic(path, mine) != 0) {
        mx_print_error(P, "option '-o': cannot write '%s': %s", path, strerror(errno));
        rc = 2;
    }
    json_decref(mine);
    return rc;
}

/* ---- the command ---------------------------------------------------------- */

static int do_merge(sw_opts *o)
{
    if (!o->outdir) { mx_print_error(P, "option '--merge' needs -o OUT"); return 2; }
    json_t *def = NULL;
    for (int i = 0; i < o->nmerge; i++) {
        char path[4400];
        snprintf(path, sizeof path, "%s/sweep.json", o->merge[i]);
        json_error_t je;
        json_t *v = json_load_file(path, 0, &je);
        if (!v) {
            mx_print_error(P, "option '--merge': '%s' is not a sweep directory (%s: %s)", o->merge[i], path, je.text);
            json_decref(def);
            return 2;
        }
        if (def && !json_equal(def, v)) {
            mx_print_error(P, "option '--merge': '%s' holds a different sweep than '%s' (their sweep.json differ)", o->merge[i], o->merge[0]);
            json_decref(v);
            json_decref(def);
            return 2;
        }
        if (!def) def = v;
        else json_decref(v);
    }
    char err[600];
    int rc = sw_def_from_json(&o->def, def, err, sizeof err);
    if (rc) {
        mx_print_error(P, "option '--merge': %s/sweep.json: %s", o->merge[0], err);
        json_decref(def);
        return 2;
    }
    {   /* every point must be somewhere before OUT is touched */
        sw_row *rows = NULL;
        size_t nrows = 0, missing = 0;
        char miss[32];
        rc = sw_load_rows(&o->def, o->merge, o->nmerge, 0, 1, &rows, &nrows, &missing, miss, sizeof miss);
        free(rows);
        if (!rc && missing) {
            mx_print_error(P, "option '--merge': %zu point%s not finished in the given directories (first: %s): nothing written "
                           "(run the missing shards, or --resume them)", missing, missing == 1 ? "" : "s", miss);
            rc = 1;
        }
        if (rc) {
            json_decref(def);
            return rc;
        }
    }
    if (mkdir_p(o->outdir) != 0) {
        mx_print_error(P, "option '-o': cannot create directory '%s': %s", o->outdir, strerror(errno));
        json_decref(def);
        return 2;
    }
    char path[4400];
    snprintf(path, sizeof path, "%s/sweep.json", o->outdir);
    json_t *there = json_load_file(path, 0, NULL);
    if (there && !json_equal(there, def)) {
        mx_print_error(P, "option '-o': '%s' holds a different sweep (%s)", o->outdir, path);
        rc = 2;
    } else if (!there && json_write_atomic(path, def) != 0) {
        mx_print_error(P, "option '-o': cannot write '%s': %s", path, strerror(errno));
        rc = 2;
    }
    json_decref(there);
    json_decref(def);
    if (rc) return rc;
    size_t rows = 0, missing = 0;
    char csv[4400];
    snprintf(csv, sizeof csv, "%s/sweep.csv", o->outdir);
    rc = sw_write_csv(&o->def, o->merge, o->nmerge, 0, 1, csv, &rows, &missing);
    if (rc) return rc;
    printf("sweep --merge: %zu rows (points x traces) from %d director%s -> %s\n", rows, o->nmerge, o->nmerge == 1 ? "y" : "ies", csv);
    sw_write_extras(&o->def, o->outdir, o->merge, o->nmerge);
    return 0;
}

int mxsim_cmd_sweep(int argc, char **argv)
{
    sw_opts o;
    int rc = parse_opts(argc, argv, &o);
    if (rc) { sw_def_free(&o.def); return rc == 1 ? 0 : rc; }
    if (o.nmerge) {
        if (o.def.base || o.def.ntraces || o.def.naxes || o.sweep_yaml || o.nfilter) {
            mx_print_error(P, "option '--merge': takes only sweep directories and -o (the definition is in their sweep.json)");
            rc = 2;
        } else {
            rc = do_merge(&o);
        }
        sw_def_free(&o.def);
        return rc;
    }
    char err[800];
    if (o.sweep_yaml) {
        if (o.def.base || o.def.ntraces || o.def.naxes) {
            mx_print_error(P, "option '-s': the sweep file gives base, traces and axes; not with -c, -t, --grid or --zip");
            sw_def_free(&o.def);
            return 2;
        }
        const char *yout = NULL;
        size_t ylen = strlen(o.sweep_yaml);
        if (ylen > 5 && !strcmp(o.sweep_yaml + ylen - 5, ".json")) {
            /* a sweep.json (what --emit-slurm's tasks read) */
            json_error_t je;
            json_t *v = json_load_file(o.sweep_yaml, 0, &je);
            if (!v || sw_def_from_json(&o.def, v, err, sizeof err) != 0) {
                mx_print_error(P, "option '-s': %s: %s", o.sweep_yaml, v ? err : je.text);
                json_decref(v);
                sw_def_free(&o.def);
                return 2;
            }
            json_decref(v);
        } else if (sw_def_load_yaml(o.sweep_yaml, &o.def, &yout, err, sizeof err) != 0) {
            mx_print_error(P, "%s", err);
            sw_def_free(&o.def);
            return 2;
        }
        if (!o.outdir) o.outdir = yout;
    }
    for (int i = 0; i < o.nfilter; i++)
        if (sw_def_add_filter(&o.def, o.filter[i], err, sizeof err) != 0) {
            mx_print_error(P, "option '--filter': %s", err);
            sw_def_free(&o.def);
            return 2;
        }
    if ((rc = check_def(&o.def)) != 0) { sw_def_free(&o.def); return rc; }
    if (sw_def_nkept(&o.def) == 0) {
        mx_print_error(P, "option '--filter': no point of the grid passes the filters");
        sw_def_free(&o.def);
        return 2;
    }
    if (!o.outdir || !o.outdir[0]) {
        mx_print_error(P, "option '-o': an output directory is required");
        sw_def_free(&o.def);
        return 2;
    }
    size_t np = sw_def_npoints(&o.def);
    if (o.slurm_file) {
        rc = sw_emit_slurm(&o.def, o.outdir, o.slurm_file, o.slurm_shards, o.jobs, err, sizeof err);
        if (rc) mx_print_error(P, "%s", err);
        else printf("sweep: wrote %s: %d array tasks over %zu points, then a merge job into %s/sweep.csv (submit: bash %s)\n",
                    o.slurm_file, o.slurm_shards, np, o.outdir, o.slurm_file);
        sw_def_free(&o.def);
        return rc;
    }
    char pdir[4400];
    snprintf(pdir, sizeof pdir, "%s/points", o.outdir);
    if (mkdir_p(pdir) != 0) {
        mx_print_error(P, "option '-o': cannot create directory '%s': %s", pdir, strerror(errno));
        sw_def_free(&o.def);
        return 2;
    }
    if ((rc = write_or_check_def(&o)) != 0) { sw_def_free(&o.def); return rc; }
    double t0 = now_s();
    size_t n_run = 0, n_err = 0, n_skip = 0;
    rc = run_points(&o, &n_run, &n_err, &n_skip);
    double wall = now_s() - t0;
    int jobs = o.jobs ? o.jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (o.def.nfilters) printf("sweep: %zu of the grid's %zu points pass the filters\n", sw_def_nkept(&o.def), np);
    printf("sweep: %zu points x %d trace%s; this run: %zu points simulated (%zu with errors), %zu already done (--resume); "
           "wall time %.1f s on %d processes\n",
           sw_def_nkept(&o.def), o.def.ntraces, o.def.ntraces == 1 ? "" : "s", n_run, n_err, n_skip, wall, jobs);
    if (rc == 0) {
        char csv[4400];
        const char *dirs[1] = {o.outdir};
        size_t rows = 0, missing = 0;
        if (o.shard_n == 1)
            snprintf(csv, sizeof csv, "%s/sweep.csv", o.outdir);
        else
            snprintf(csv, sizeof csv, "%s/sweep.shard-%d-of-%d.csv", o.outdir, o.shard_i, o.shard_n);
        rc = sw_write_csv(&o.def, dirs, 1, o.shard_i, o.shard_n, csv, &rows, &missing);
        if (!rc) {
            printf("sweep: wrote %s (%zu rows: points x traces)\n", csv, rows);
            if (o.shard_n == 1) sw_write_extras(&o.def, o.outdir, dirs, 1);
        }
    }
    sw_def_free(&o.def);
    return rc;
}
