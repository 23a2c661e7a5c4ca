/*
 * cmd_run.c — `mxsim run`: a GEMM trace through the accelerator model
 * (models/arch), a terminal table, OUTDIR/report.json and report.csv.
 * With --compare BASELINE.yaml the same trace also runs on a second
 * configuration and the energy ratio is printed (the `make run` job).
 */
#include "cli_getopt.h"
#include "compare_report.h"
#include "config_dump.h"
#include "config_yaml.h"
#include "json_out.h"
#include "npy.h"
#include "mxsim_cmd.h"
#include "operand_data.h"
#include "version.h"

#include "arch/mx_arch.h"
#include "arch/mx_func.h"
#include "arch/mx_trace.h"
#include "formats/mx_block.h"
#include "formats/mx_format.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_SETS 64

typedef struct {
    const char *config_path;
    const char *compare_path;
    const char *trace_path;
    const char *outdir;
    const char *data_dir;
    const char *dump_dir; /* --dump DIR: output tensors of every GEMM (functional mode) */
    const char *sets[MAX_SETS];
    int nsets;
    int functional;
    int quiet;
    int progress; /* -1 auto (terminal), 0 off, 1 on */
    uint64_t seed;
    int engine_set;     /* --engine given: overrides the config's `engine` key */
    mx_engine engine;
    int no_sensitivity; /* --no-sensitivity: --compare without the reruns */
    int jobs;           /* -j N: functional-mode threads (0: all online CPUs) */
} run_opts;

typedef struct {
    mx_arch_config cfg;
    mx_energy_table energy;
    mx_stats *rows;   /* per trace row, all `count` instances */
    mx_stats total;
    double seconds;
} run_result;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mxsim run -c CONFIG.yaml -t TRACE.csv [--mode timing|functional] [-o OUTDIR]\n"
            "                 [--compare BASELINE.yaml] [--set KEY=VALUE]... [--seed N]\n"
            "                 [--engine analytic|cycle] [--data DIR] [--progress|--no-progress] [-q]\n"
            "                 [--no-sensitivity] [-j N]\n"
            "  Runs every GEMM of the trace on the configured accelerator; prints a table\n"
            "  per GEMM and the total; with -o writes OUTDIR/report.json and report.csv.\n"
            "  --engine cycle steps tile loads, DRAM (memory.dram), SRAM banks, folds and the\n"
            "  RQU by exact events; analytic (the config's `engine` key, default) uses closed forms.\n"
            "  --mode functional computes values with the bit-exact PE model (same cycles).\n"
            "  --compare runs the trace on a second config and prints the energy ratio, then\n"
            "  reruns both under each DRAM preset and the other mapper objective\n"
            "  (--no-sensitivity: not).\n"
            "  --data DIR: functional-mode operands DIR/NAME.PHASE.a.npy (M x K) and\n"
            "  DIR/NAME.PHASE.b.npy (K x N), float32/float64; absent files -> random N(0,1).\n"
            "  -j N (--jobs N): functional mode on N threads (0, the default: all CPUs); the\n"
            "  values and the report are the same for any N.\n"
            "  --dump DIR (functional mode; created if absent): each GEMM's FP32 outputs as\n"
            "  DIR/NAME.PHASE.out.npy (M x N, float32) and, when format.out is quantized,\n"
            "  the codes and scales of those outputs re-quantized as `mxsim quant` does\n"
            "  (DIR/NAME.PHASE.out_codes.npy, .out_scales.npy). A row with count > 1 is\n"
            "  computed and dumped once. Rows above functional.max_macs without --data\n"
            "  operands are sampled and not dumped (a note names them; raise the key with\n"
            "  --set to compute them in full), nor are timing-only rows. Not with --compare.\n");
}

/* getopt_long's table: long names, and the short letters of -c -t -o -q -j -h */
enum { OPT_PROGRESS = 256, OPT_NO_PROGRESS, OPT_NO_SENS, OPT_MODE, OPT_COMPARE, OPT_SET, OPT_SEED, OPT_DATA, OPT_ENGINE, OPT_DUMP };
static const struct option run_longopts[] = {
    {"config", required_argument, NULL, 'c'},   {"trace", required_argument, NULL, 't'},
    {"out", required_argument, NULL, 'o'},      {"quiet", no_argument, NULL, 'q'},
    {"jobs", required_argument, NULL, 'j'},     {"help", no_argument, NULL, 'h'},
    {"progress", no_argument, NULL, OPT_PROGRESS}, {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
    {"no-sensitivity", no_argument, NULL, OPT_NO_SENS}, {"mode", required_argument, NULL, OPT_MODE},
    {"compare", required_argument, NULL, OPT_COMPARE}, {"set", required_argument, NULL, OPT_SET},
    {"seed", required_argument, NULL, OPT_SEED}, {"data", required_argument, NULL, OPT_DATA},
    {"engine", required_argument, NULL, OPT_ENGINE}, {"dump", required_argument, NULL, OPT_DUMP},
    {NULL, 0, NULL, 0}};

static int parse_opts(int argc, char **argv, run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->progress = -1;
    o->seed = 1;
    o->jobs = 0; /* all online CPUs: the bits do not depend on the count */
    optind = 0;  /* a fresh scan (commands may run more than once in a process: the sweep, tests) */
    opterr = 0;
    int ch;
    /* '+': options end at the first operand (refused below), argv is not permuted */
    while ((ch = getopt_long(argc, argv, "+:c:t:o:qj:h", run_longopts, NULL)) != -1) {
        const char *v = optarg;
        switch (ch) {
        case 'h': usage(stdout); return 1;
        case 'q': o->quiet = 1; break;
        case OPT_PROGRESS: o->progress = 1; break;
        case OPT_NO_PROGRESS: o->progress = 0; break;
        case OPT_NO_SENS: o->no_sensitivity = 1; break;
        case 'c': o->config_path = v; break;
        case 't': o->trace_path = v; break;
        case 'o': o->outdir = v; break;
        case OPT_COMPARE: o->compare_path = v; break;
        case OPT_DATA: o->data_dir = v; break;
        case OPT_DUMP: o->dump_dir = v; break;
        case OPT_ENGINE:
            if (mx_engine_parse(v, &o->engine)) { mx_print_error("mxsim run", "option '--engine': must be analytic or cycle, got '%s'", v); return 2; }
            o->engine_set = 1;
            break;
        case OPT_SET:
            if (o->nsets == MAX_SETS) { mx_print_error("mxsim run", "option '--set': more than %d", MAX_SETS); return 2; }
            o->sets[o->nsets++] = v;
            break;
        case OPT_SEED:
            if (mx_parse_seed(v, &o->seed) != 0) {
                mx_print_error("mxsim run", "option '--seed': must be an integer 0..18446744073709551615, got '%s'", v);
                return 2;
            }
            break;
        case 'j': {
            int n = 0, ok = v[0] != 0 && strlen(v) <= 2;
            for (const char *c = v; ok && *c; c++) ok = *c >= '0' && *c <= '9';
            if (ok) n = atoi(v);
            if (!ok || n > 64) {
                mx_print_error("mxsim run", "option '%s': must be an integer 0..64 (0: all CPUs), got '%s'",
                               mx_getopt_was_long(argv) ? "--jobs" : "-j", v);
                return 2;
            }
            o->jobs = n;
            break;
        }
        case OPT_MODE:
            if (!strcmp(v, "timing")) o->functional = 0;
            else if (!strcmp(v, "functional")) o->functional = 1;
            else { mx_print_error("mxsim run", "option '--mode': must be timing or functional, got '%s'", v); return 2; }
            break;
        default: return mx_getopt_fail("mxsim run", ch, argv, run_longopts);
        }
    }
    if (optind < argc) {
        mx_print_error("mxsim run", "unexpected argument '%s' (options only: mxsim run --help)", argv[optind]);
        return 2;
    }
    if (!o->config_path || !o->trace_path) {
        fprintf(stderr, "mxsim run: -c CONFIG and -t TRACE are required (mxsim run --help)\n");
        return 2;
    }
    if (o->dump_dir && !o->functional) {
        mx_print_error("mxsim run", "option '--dump' needs --mode functional (timing mode computes no values)");
        return 2;
    }
    if (o->dump_dir && o->compare_path) {
        mx_print_error("mxsim run", "option '--dump' does not apply with --compare (both configs would write the same files)");
        return 2;
    }
    if (o->dump_dir && !o->dump_dir[0]) {
        mx_print_error("mxsim run", "option '--dump': empty directory name");
        return 2;
    }
    return 0;
}

static void progress_bar(int on, size_t done, size_t total, const char *label)
{
    if (!on) return;
    int width = 40, fill = total ? (int)(width * done / total) : width;
    fprintf(stderr, "\r%-12.12s [", label);
    for (int i = 0; i < width; i++) fputc(i < fill ? '#' : '.', stderr);
    fprintf(stderr, "] %zu/%zu", done, total);
    if (done == total) fprintf(stderr, "\r%*s\r", width + 40, "");
    fflush(stderr);
}

/* Optional operand from --data: 0 (absent or loaded), 2 on bad input. */
static int load_operand(const run_opts *o, const mx_gemm *g, const char *which, long long rows,
                        long long cols, float **out)
{
    return mx_operand_load("mxsim run", o->data_dir, o->trace_path, g, which, rows, cols, out);
}

/* Where a config key's value came from: the last --set of it, else the
 * config file (messages name the one the user has to edit). */
static const char *key_origin(const run_opts *o, const char *config_path, const char *key, size_t keylen)
{
    const char *origin = config_path;
    for (int i = 0; i < o->nsets; i++)
        if (!strncmp(o->sets[i], key, keylen) && o->sets[i][keylen] == '=') origin = "--set";
    return origin;
}

/* Config file, overrides, DRAM and energy table: everything a run needs
 * before its first GEMM, so that bad input fails before any simulation. */
static int configure(const run_opts *o, const char *config_path, run_result *r)
{
    char err[700], epath[MX_ARCH_PATH_MAX];
    if (mx_config_load(config_path, &r->cfg, NULL, err, sizeof err) != 0) {
        mx_print_error("mxsim run", "%s", err);
        return 2;
    }
    for (int i = 0; i < o->nsets; i++)
        if (mx_config_override(&r->cfg, o->sets[i], err, sizeof err) != 0) {
            mx_print_error("mxsim run", "%s", err);
            return 2;
        }
    if (o->engine_set) r->cfg.engine = o->engine;
    if (mx_config_dram(config_path, &r->cfg, err, sizeof err) != 0) {
        mx_print_error("mxsim run", "%s", err);
        return 2;
    }
    /* after the overrides: --set energy.table=FILE counts */
    if (mx_config_energy_path(config_path, &r->cfg, epath, err, sizeof err) != 0) {
        mx_print_error("mxsim run", "%s", err);
        return 2;
    }
    if (mx_energy_load(epath, &r->energy, err, sizeof err) != 0) {
        mx_print_error("mxsim run", "%s (key 'energy.table' of %s)", err,
                       key_origin(o, config_path, "energy.table", strlen("energy.table")));
        return 2;
    }
    return 0;
}

/* An error of the arch model on one GEMM.  When it names a config key (a
 * buffer too small, ...) the config file (or --set) is what to fix: it
 * leads, the trace line follows. */
static void gemm_error(const run_opts *o, const char *config_path, const mx_gemm *g, const char *err)
{
    const char *k = strstr(err, "key '");
    if (k) {
        const char *origin = key_origin(o, config_path, k + 5, strcspn(k + 5, "'"));
        mx_print_error("mxsim run", "%s: %s (GEMM '%s' at %s:%d)", origin, k, g->name, o->trace_path, g->line);
    } else {
        mx_print_error("mxsim run", "%s:%d: %s", o->trace_path, g->line, err);
    }
}

static int mkdir_p(const char *dir);

/* -o before any simulation: the deepest existing ancestor of OUTDIR must be a
 * writable directory (nothing is created here: bad input leaves nothing).  0 or 2. */
static int outdir_check(const char *dir)
{
    char p[4096];
    struct stat st;
    if (!dir) return 0;
    if (!dir[0] || strlen(dir) >= sizeof p - 8) {
        mx_print_error("mxsim run", "option '-o': bad directory name '%s'", dir);
        return 2;
    }
    snprintf(p, sizeof p, "%s", dir);
    for (;;) {
        if (stat(p, &st) == 0) {
            if (!S_ISDIR(st.st_mode)) {
                mx_print_error("mxsim run", "option '-o': cannot create directory '%s': '%s' is not a directory", dir, p);
                return 2;
            }
            if (access(p, W_OK | X_OK) != 0) {
                mx_print_error("mxsim run", "option '-o': cannot create directory '%s': '%s' is not writable", dir, p);
                return 2;
            }
            return 0;
        }
        if (errno != ENOENT) {
            mx_print_error("mxsim run", "option '-o': cannot create directory '%s': %s", dir, strerror(errno));
            return 2;
        }
        char *slash = strrchr(p, '/');
        while (slash && slash > p && slash[1] == 0) { *slash = 0; slash = strrchr(p, '/'); } /* trailing '/' */
        if (!slash) strcpy(p, ".");
        else if (slash == p) p[1] = 0;
        else *slash = 0;
    }
}

/* ---- --dump DIR ---------------------------------------------------------- */

static int dump_cmp(const void *x, const void *y)
{
    const mx_gemm *a = *(const mx_gemm *const *)x, *b = *(const mx_gemm *const *)y;
    int c = strcmp(a->name, b->name);
    if (c) return c;
    if (a->phase != b->phase) return a->phase < b->phase ? -1 : 1;
    return a->line < b->line ? -1 : a->line > b->line;
}

/* Before any GEMM runs: every name makes one file name in DIR (no '/'), no
 * two rows share NAME.PHASE (their files would overwrite each other), and
 * DIR is a writable directory (created when absent).  0 or 2. */
static int dump_check(const run_opts *o, const mx_trace *tr)
{
    const char *dir = o->dump_dir;
    if (!dir) return 0;
    if (strlen(dir) + MX_TRACE_NAME_MAX + 32 >= 4096) {
        mx_print_error("mxsim run", "option '--dump': directory name too long (%zu characters)", strlen(dir));
        return 2;
    }
    for (size_t i = 0; i < tr->n; i++) {
        const mx_gemm *g = &tr->gemms[i];
        if (strchr(g->name, '/')) {
            mx_print_error("mxsim run", "option '--dump': GEMM name '%s' (%s:%d) contains '/': it cannot name a file in the dump directory",
                           g->name, o->trace_path, g->line);
            return 2;
        }
    }
    const mx_gemm **p = malloc(sizeof *p * (tr->n + 1));
    if (!p) { fprintf(stderr, "mxsim run: out of memory\n"); return 2; }
    for (size_t i = 0; i < tr->n; i++) p[i] = &tr->gemms[i];
    qsort(p, tr->n, sizeof *p, dump_cmp);
    for (size_t i = 1; i < tr->n; i++)
        if (!strcmp(p[i - 1]->name, p[i]->name) && p[i - 1]->phase == p[i]->phase) {
            mx_print_error("mxsim run", "option '--dump': GEMM '%s' phase %s appears twice (%s lines %d and %d): both rows would write %s.%s.out.npy",
                           p[i]->name, mx_phase_name(p[i]->phase), o->trace_path, p[i - 1]->line, p[i]->line,
                           p[i]->name, mx_phase_name(p[i]->phase));
            free(p);
            return 2;
        }
    free(p);
    struct stat st;
    if (stat(dir, &st) != 0) {
        if (errno != ENOENT || mkdir_p(dir) != 0) {
            mx_print_error("mxsim run", "option '--dump': cannot create directory '%s': %s", dir, strerror(errno));
            return 2;
        }
    } else if (!S_ISDIR(st.st_mode)) {
        mx_print_error("mxsim run", "option '--dump': '%s' exists and is not a directory", dir);
        return 2;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        mx_print_error("mxsim run", "option '--dump': directory '%s' is not writable", dir);
        return 2;
    }
    return 0;
}

/* Writes DIR/NAME.PHASE.out.npy (the FP32 outputs, M x N) and, when
 * format.out is quantized, .out_codes.npy and .out_scales.npy: the outputs
 * quantized as `mxsim quant` does (mx_block_quantize: E8M0 scales per 1-D
 * block of format.block along N or per format.tile 2-D tile; plain formats:
 * mx_encode per element, saturating, no scales file).  Every file goes to a
 * temporary first; all are renamed only once all are written.  0 or 2. */
static int dump_gemm(const run_opts *o, const mx_arch_config *c, const mx_gemm *g, const uint32_t *out)
{
    const char *ph = mx_phase_name(g->phase);
    const size_t n = (size_t)g->M * (size_t)g->N;
    mx_shape sh = {2, {(size_t)g->M, (size_t)g->N}};
    char path[3][4300], tmp[3][NPY_TMP_PATH_MAX], err[4800];
    npy_dtype dt[3];
    mx_shape shp[3];
    const void *data[3];
    int nf = 0, rc = 2;
    float *y = NULL;
    uint16_t *codes = NULL;
    uint8_t *scales = NULL;
    mx_operand_fmt fo;
    const int quant = mx_operand_fmt_resolve(c, c->out_format, &fo) == 0 && fo.elem.bits < 32;
    snprintf(path[0], sizeof path[0], "%s/%s.%s.out.npy", o->dump_dir, g->name, ph);
    dt[0] = NPY_F32; shp[0] = sh; data[0] = out; nf = 1;
    if (quant) {
        y = malloc(sizeof *y * n + 1);
        codes = malloc(sizeof *codes * n + 1);
        if (!y || !codes) { mx_print_error("mxsim run", "--dump: out of memory (GEMM '%s')", g->name); goto done; }
        memcpy(y, out, sizeof *y * n);
        uint64_t rng = 0;
        mx_encode_opts enc = {c->round, MX_OVERFLOW_SATURATE, &rng};
        if (fo.is_mx) {
            mx_block_spec spec;
            mx_arch_out_block_spec(c, &fo, enc, &spec);
            mx_shape ssh;
            if (mx_block_scale_shape(&spec, &sh, &ssh, err, sizeof err) != 0 ||
                !(scales = malloc(mx_shape_count(&ssh) + 1)) ||
                mx_block_quantize(&spec, &sh, y, codes, scales, NULL, err, sizeof err) != 0) {
                mx_print_error("mxsim run", "--dump: GEMM '%s': re-quantizing the outputs to %s: %s", g->name,
                               c->out_format, scales ? err : "out of memory");
                goto done;
            }
            snprintf(path[2], sizeof path[2], "%s/%s.%s.out_scales.npy", o->dump_dir, g->name, ph);
            dt[2] = NPY_U8; shp[2] = ssh; data[2] = scales;
        } else {
            for (size_t i = 0; i < n; i++) codes[i] = (uint16_t)mx_encode(&fo.elem, y[i], &enc, NULL);
        }
        snprintf(path[1], sizeof path[1], "%s/%s.%s.out_codes.npy", o->dump_dir, g->name, ph);
        dt[1] = NPY_U16; shp[1] = sh; data[1] = codes;
        if (fo.elem.bits <= 8) { /* codes as uint8, as `mxsim quant --codes` writes them */
            uint8_t *c8 = (uint8_t *)codes;
            for (size_t i = 0; i < n; i++) c8[i] = (uint8_t)codes[i];
            dt[1] = NPY_U8;
        }
        nf = fo.is_mx ? 3 : 2;
    }
    for (int i = 0; i < nf; i++)
        if (npy_write_tmp(path[i], dt[i], &shp[i], data[i], tmp[i], err, sizeof err) != 0) {
            for (int j = 0; j < i; j++) npy_discard(tmp[j]);
            mx_print_error("mxsim run", "--dump: %s", err);
            goto done;
        }
    for (int i = 0; i < nf; i++)
        if (npy_commit(tmp[i], path[i], err, sizeof err) != 0) {
            for (int j = i + 1; j < nf; j++) npy_discard(tmp[j]);
            mx_print_error("mxsim run", "--dump: %s", err);
            goto done;
        }
    rc = 0;
done:
    free(y);
    free(codes);
    free(scales);
    return rc;
}

/* simulate's rows, timing mode through memo. */
static int simulate_rows(const run_opts *o, const char *config_path, const mx_trace *tr, run_result *r,
                         mx_gemm_memo *memo)
{
    char err[600];
    int bar = o->progress == 1 || (o->progress == -1 && isatty(2) && (o->functional || tr->n > 200));
    for (size_t i = 0; i < tr->n; i++) {
        const mx_gemm *g = &tr->gemms[i];
        mx_stats one;
        int rc;
        if (o->functional) {
            float *da = NULL, *db = NULL;
            if (load_operand(o, g, "a", g->M, g->K, &da) || load_operand(o, g, "b", g->K, g->N, &db)) {
                free(da);
                progress_bar(bar, tr->n, tr->n, "");
                return 2;
            }
            mx_func_data d = {o->seed + i, da, db};
            /* --dump: a full output buffer, except for a row that would be
             * sampled (an output buffer turns sampling off, mx_func.c: the
             * report stays the one without --dump) */
            uint32_t *out = NULL;
            int sampled = (double)g->M * (double)g->N * (double)g->K > (double)r->cfg.functional_max_macs && !da && !db;
            if (o->dump_dir && !sampled && !(out = malloc(sizeof *out * (size_t)g->M * (size_t)g->N + 1))) {
                free(da);
                free(db);
                progress_bar(bar, tr->n, tr->n, "");
                mx_print_error("mxsim run", "--dump: out of memory for the %lld x %lld outputs of GEMM '%s'", g->M, g->N, g->name);
                return 2;
            }
            rc = mx_arch_gemm_functional_mt(&r->cfg, g, &d, &one, out, o->jobs, err, sizeof err);
            free(da);
            free(db);
            if (rc == 1) {
                progress_bar(bar, tr->n, tr->n, "");
                mx_print_error("mxsim run", "note: %s:%d: %s", o->trace_path, g->line, err);
                if (o->dump_dir)
                    mx_print_error("mxsim run", "note: --dump: GEMM '%s' phase %s (%s:%d) not dumped: timing only", g->name,
                                   mx_phase_name(g->phase), o->trace_path, g->line);
                rc = 0;
            } else if (rc == 0 && o->dump_dir && out && one.functional) {
                if (dump_gemm(o, &r->cfg, g, out) != 0) {
                    free(out);
                    progress_bar(bar, tr->n, tr->n, "");
                    return 2;
                }
            } else if (rc == 0 && o->dump_dir) {
                progress_bar(bar, tr->n, tr->n, "");
                mx_print_error("mxsim run", "note: --dump: GEMM '%s' phase %s (%s:%d) not dumped: M*N*K = %.0f is above functional.max_macs = %lld, "
                               "so its outputs are sampled (--set functional.max_macs=%.0f computes them in full)",
                               g->name, mx_phase_name(g->phase), o->trace_path, g->line,
                               (double)g->M * (double)g->N * (double)g->K, r->cfg.functional_max_macs,
                               (double)g->M * (double)g->N * (double)g->K);
            }
            free(out);
        } else {
            rc = mx_arch_gemm_timing_memo(&r->cfg, memo, g, &one, err, sizeof err);
        }
        if (rc != 0) {
            progress_bar(bar, tr->n, tr->n, "");
            gemm_error(o, config_path, g, err);
            return 2;
        }
        if (mx_energy_apply(&r->cfg, &r->energy, &one, err, sizeof err) != 0) {
            progress_bar(bar, tr->n, tr->n, "");
            mx_print_error("mxsim run", "%s (needed by %s)", err, config_path);
            return 2;
        }
        memset(&r->rows[i], 0, sizeof r->rows[i]);
        mx_stats_add(&r->rows[i], &one, g->count);
        mx_stats_add(&r->total, &one, g->count);
        if (r->total.overflow) { /* each row fits (mx_arch_gemm_timing checks row x count), their sum does not */
            progress_bar(bar, tr->n, tr->n, "");
            mx_print_error("mxsim run", "%s:%d: the trace's totals overflow 64-bit counters at GEMM '%s'",
                           o->trace_path, g->line, g->name);
            return 2;
        }
        progress_bar(bar, i + 1, tr->n, r->cfg.name);
    }
    return 0;
}

/* Runs the trace on r's configuration (configure() first). */
static int simulate(const run_opts *o, const char *config_path, const mx_trace *tr, run_result *r)
{
    r->cfg.energy_tab = &r->energy; /* the mapper's energy and EDP objectives */
    r->rows = calloc(tr->n, sizeof *r->rows);
    if (!r->rows) { fprintf(stderr, "mxsim run: out of memory\n"); return 2; }
    memset(&r->total, 0, sizeof r->total);
    double t0 = (double)clock() / CLOCKS_PER_SEC;
    /* rows of one shape timed once: BERT-base repeats 4096x768x768 six
     * times, 768x768x4096 three (mx_arch_gemm_timing_memo) */
    mx_gemm_memo memo;
    memset(&memo, 0, sizeof memo);
    const int rc = simulate_rows(o, config_path, tr, r, &memo);
    mx_gemm_memo_free(&memo);
    if (rc != 0) return rc;
    r->seconds = (double)clock() / CLOCKS_PER_SEC - t0;
    return 0;
}

static double util(const mx_arch_config *c, const mx_stats *s)
{
    return s->cycles ? (double)s->macs / ((double)s->cycles * c->rows * c->cols * c->lanes) : 0;
}

static double bits_of(const mx_arch_config *c)
{
    mx_operand_fmt f;
    return mx_operand_fmt_resolve(c, c->a_format, &f) == 0 ? f.bits_per_elem : 0;
}

static int is_mx(const mx_arch_config *c)
{
    mx_operand_fmt f;
    return mx_operand_fmt_resolve(c, c->a_format, &f) == 0 && f.is_mx;
}

/* The memory system the numbers came from. */
static void print_memory(const mx_arch_config *c)
{
    if (c->ideal_memory) { printf("memory: ideal (no memory stalls)\n"); return; }
    if (c->dram_model)
        printf("memory: DRAM %s (%s), %d channel(s), %.1f GB/s peak, %s page; sustained %.1f B/cycle read, idle read latency %d cycles\n",
               c->dram.name, c->dram_preset, c->dram.channels, mx_dram_peak_gbs(&c->dram),
               c->dram.page_policy == MX_PAGE_OPEN ? "open" : "closed",
               c->dram_cal.read_bytes_per_cycle, c->dram_cal.latency);
    else
        printf("memory: DRAM channel %.1f B/cycle, latency %d cycles (no protocol model: memory.dram unset)\n",
               c->dram_bytes_per_cycle, c->dram_latency);
}

/* What functional mode computed in full and what it sampled (rows above
 * functional.max_macs without --data operands): one line, so a reader of the
 * QSNR knows which outputs it covers. */
static void print_sampling(const mx_trace *tr, const run_result *r)
{
    size_t nfun = 0, nsam = 0;
    double outs = 0, outs_all = 0;
    for (size_t i = 0; i < tr->n; i++) {
        const mx_stats *s = &r->rows[i];
        if (!s->functional) continue;
        nfun++;
        if (!s->sampled) continue;
        nsam++;
        outs += (double)s->checked_outputs;
        outs_all += (double)tr->gemms[i].M * (double)tr->gemms[i].N;
    }
    if (nsam == 0)
        printf("sampling: none (all %zu computed GEMM rows in full; functional.max_macs %lld)\n", nfun,
               r->cfg.functional_max_macs);
    else
        printf("sampling: %zu of %zu computed GEMM rows sampled (M*N*K above functional.max_macs %lld): %.0f of "
               "their %.0f outputs computed; --set functional.max_macs=N raises the limit\n",
               nsam, nfun, r->cfg.functional_max_macs, outs, outs_all);
}

static void print_table(const run_opts *o, const mx_trace *tr, const run_result *r)
{
    const mx_arch_config *c = &r->cfg;
    printf("mxsim %s\n", mxsim_version());
    printf("config %s: %dx%d %s, %d lanes, A %s B %s out %s, %s; trace %s (%zu GEMMs), %s mode, %s engine\n",
           c->name, c->rows, c->cols, mx_dataflow_name(c->dataflow), c->lanes, c->a_format,
           c->b_format, c->out_format,
           !is_mx(c) ? "no block scales" : c->tile_rows ? "2-D tiles" : "1-D blocks",
           o->trace_path, tr->n,
           o->functional ? "functional" : "timing", mx_engine_name(c->engine));
    print_memory(c);
    double min_kib;
    if (mx_arch_analytic_outside_validation(c, &min_kib))
        printf("note: analytic engine with a %g KiB buffer, below the %d KiB its validation against the cycle "
               "engine covers (docs/VALIDATION.md, 'Smaller buffers': errors grow as buffers shrink); --engine cycle "
               "for earned cycles and DRAM energy\n", min_kib, MX_ANALYTIC_VALIDATED_KIB);
    printf("%-20s %-5s %7s %7s %7s %6s %14s %6s %12s %10s", "gemm", "phase", "M", "N", "K", "count",
           "cycles", "util%", "energy_uJ", "requant");
    if (o->functional) printf(" %8s %10s", "qsnr_dB", "max_err");
    printf("\n");
    for (size_t i = 0; i < tr->n; i++) {
        const mx_gemm *g = &tr->gemms[i];
        const mx_stats *s = &r->rows[i];
        printf("%-20.20s %-5s %7lld %7lld %7lld %6lld %14lld %6.1f %12.3f %10lld", g->name,
               mx_phase_name(g->phase), g->M, g->N, g->K, g->count, s->cycles, 100 * util(c, s),
               s->energy_total_pj * 1e-6, s->requant_elements);
        if (o->functional && s->functional)
            printf(" %8.2f %10.3g%s", s->qsnr_db, s->max_abs_err, s->sampled ? " (sampled)" : "");
        else if (o->functional)
            printf(" %8s %10s (timing only)", "-", "-");
        printf("\n");
    }
    const mx_stats *t = &r->total;
    printf("%-20s %-5s %7s %7s %7s %6s %14lld %6.1f %12.3f %10lld\n", "TOTAL", "", "", "", "", "",
           t->cycles, 100 * util(c, t), t->energy_total_pj * 1e-6, t->requant_elements);
    printf("cycles: compute %lld, stalls dram %lld sram %lld drain %lld rqu %lld; %.3f ms at %.2f GHz; "
           "%.3g MACs\n",
           t->compute_cycles, t->stall[MX_STALL_DRAM], t->stall[MX_STALL_SRAM],
           t->stall[MX_STALL_DRAIN], t->stall[MX_STALL_RQU], t->cycles / (c->clock_ghz * 1e6), c->clock_ghz, (double)t->macs);
    printf("energy (uJ):");
    for (int i = 0; i < MX_E_NCOMP; i++)
        printf(" %s %.1f", mx_energy_comp_name((mx_energy_comp)i), t->energy_pj[i] * 1e-6);
    printf("\n");
    if (t->dram_model && c->engine == MX_ENGINE_CYCLE)
        printf("dram (%s): %.1f uJ, %lld activates, %lld precharges, %lld refreshes, row hits %lld misses %lld\n",
               c->dram.name, t->dram_energy_pj * 1e-6, t->dram_act, t->dram_pre, t->dram_ref, t->dram_row_hits,
               t->dram_row_misses);
    else if (t->dram_model)
        printf("dram (%s): %.1f uJ, %lld activates, %lld refreshes (analytic: each tile transfer probed on the "
               "DRAM model alone or after its neighbour, background per rank touched, refreshes by the REF "
               "schedule; row hits and refresh stalls only with --engine cycle)\n",
               c->dram.name, t->dram_energy_pj * 1e-6, t->dram_act, t->dram_ref);
    if (o->functional) {
        printf("numerics: QSNR %.2f dB, max |error| %.4g over %lld checked outputs%s\n", t->qsnr_db,
               t->max_abs_err, t->checked_outputs, t->sampled ? " (some GEMMs sampled)" : "");
        print_sampling(tr, r);
    }
}

/* ---- reports --------------------------------------------------------------- */

static json_t *json_counters(const mx_arch_config *c, const mx_stats *s)
{
    static const char *op[3] = {"a", "b", "out"};
    json_t *j = json_object(), *x;
    json_object_set_new(j, "cycles", json_integer(s->cycles));
    json_object_set_new(j, "energy_pj", mx_jnum(s->energy_total_pj));
    json_object_set_new(j, "compute_cycles", json_integer(s->compute_cycles));
    x = json_object();
    for (int i = 0; i < MX_NSTALL; i++) json_object_set_new(x, mx_stall_name((mx_stall_cause)i), json_integer(s->stall[i]));
    json_object_set_new(j, "stall_cycles", x);
    json_object_set_new(j, "utilization", mx_jnum(util(c, s)));
    json_object_set_new(j, "macs", json_integer(s->macs));
    x = json_object();
    for (int a = MX_SIG_MAX; a >= 0; a--)
        for (int b = MX_SIG_MAX; b >= 0; b--)
            if (s->mul[a][b] > 0) {
                char k[24]; /* two ints: never cut */
                snprintf(k, sizeof k, "%dx%d", a, b);
                json_object_set_new(x, k, mx_jnum(s->mul[a][b]));
            }
    json_object_set_new(j, "macs_by_mode", x);
    json_object_set_new(j, "unit_activations", json_pack("{s:o,s:I,s:I,s:I}", "multiplier", mx_jnum((double)s->macs), "accumulator",
                                                         (json_int_t)s->pe_steps, "scale_adder", (json_int_t)s->scale_adds,
                                                         "rqu", (json_int_t)s->rqu_elements));
    const char *names[4] = {"sram_read_bytes", "sram_write_bytes", "dram_read_bytes", "dram_write_bytes"};
    const long long *arr[4] = {s->sram_read, s->sram_write, s->dram_read, s->dram_write};
    for (int k = 0; k < 4; k++) {
        x = json_object();
        for (int i = 0; i < MX_NOPS; i++) json_object_set_new(x, op[i], json_integer(arr[k][i]));
        json_object_set_new(j, names[k], x);
    }
    json_object_set_new(j, "rqu_elements", json_integer(s->rqu_elements));
    json_object_set_new(j, "requant_elements", json_integer(s->requant_elements));
    json_object_set_new(j, "requant_copies", json_integer(s->requant_copies));
    json_object_set_new(j, "folds", json_integer(s->folds));
    json_object_set_new(j, "tiles", json_integer(s->tiles));
    json_object_set_new(j, "mapping", json_pack("{s:I,s:I,s:I,s:s,s:b}", "mt", (json_int_t)s->map.mt, "nt", (json_int_t)s->map.nt,
                                                "kt", (json_int_t)s->map.kt, "loop_order", s->map.n_outer ? "n,m,k" : "m,n,k",
                                                "double_buffer", s->map.double_buffer ? 1 : 0));
    if (s->dram_model && c->engine == MX_ENGINE_CYCLE)
        json_object_set_new(j, "dram_commands", json_pack("{s:I,s:I,s:I,s:I,s:I}", "act", (json_int_t)s->dram_act, "pre",
                                                          (json_int_t)s->dram_pre, "ref", (json_int_t)s->dram_ref, "row_hits",
                                                          (json_int_t)s->dram_row_hits, "row_misses", (json_int_t)s->dram_row_misses));
    else if (s->dram_model)
        json_object_set_new(j, "dram_commands", json_pack("{s:I,s:b}", "act", (json_int_t)s->dram_act, "estimated", 1));
    if (s->functional) {
        json_object_set_new(j, "qsnr_db", mx_jnum(s->qsnr_db));
        json_object_set_new(j, "max_abs_err", mx_jnum(s->max_abs_err));
        json_object_set_new(j, "checked_outputs", json_integer(s->checked_outputs));
        json_object_set_new(j, "sampled", json_boolean(s->sampled));
    }
    x = json_object();
    for (int i = 0; i < MX_E_NCOMP; i++) json_object_set_new(x, mx_energy_comp_name((mx_energy_comp)i), mx_jnum(s->energy_pj[i]));
    json_object_set_new(j, "energy_by_component_pj", x);
    return j;
}

static void json_kv(void *ctx, const char *key, const char *value) { json_object_set_new(ctx, key, mx_jstr(value)); }

/* report.json (jansson; keys in this order). */
static int write_json(const char *path, const run_opts *o, const mx_trace *tr, const run_result *r)
{
    json_t *j = json_object(), *x;
    json_object_set_new(j, "config", mx_jstr(o->config_path));
    json_object_set_new(j, "config_name", mx_jstr(r->cfg.name));
    json_object_set_new(j, "energy_table", mx_jstr(r->energy.path));
    json_object_set_new(j, "trace", mx_jstr(o->trace_path));
    json_object_set_new(j, "mxsim_version", mx_jstr(mxsim_version()));
    json_object_set_new(j, "mode", json_string(o->functional ? "functional" : "timing"));
    json_object_set_new(j, "engine", json_string(mx_engine_name(r->cfg.engine)));
    /* false: the analytic engine on buffers below the validated size (print_table's note) */
    json_object_set_new(j, "engine_validated", json_boolean(!mx_arch_analytic_outside_validation(&r->cfg, NULL)));
    if (r->cfg.dram_model)
        x = json_pack("{s:o,s:o,s:i,s:o}", "name", mx_jstr(r->cfg.dram.name), "preset", mx_jstr(r->cfg.dram_preset), "channels",
                      r->cfg.dram.channels, "tCK_ns", mx_jnum(r->cfg.dram.tCK_ns));
    else
        x = json_pack("{s:o,s:i}", "bytes_per_cycle", mx_jnum(r->cfg.dram_bytes_per_cycle), "latency", r->cfg.dram_latency);
    json_object_set_new(j, "dram", x);
    /* what produced the numbers: the overrides as given, then every key in effect */
    x = json_array();
    for (int i = 0; i < o->nsets; i++) json_array_append_new(x, mx_jstr(o->sets[i]));
    json_object_set_new(j, "overrides", x);
    x = json_object();
    mx_config_resolved(&r->cfg, json_kv, x);
    json_object_set_new(j, "resolved_config", x);
    x = json_array();
    for (size_t i = 0; i < tr->n; i++) {
        const mx_gemm *g = &tr->gemms[i];
        json_t *gj = json_pack("{s:o,s:s,s:I,s:I,s:I,s:I,s:i}", "name", mx_jstr(g->name), "phase", mx_phase_name(g->phase), "M",
                               (json_int_t)g->M, "N", (json_int_t)g->N, "K", (json_int_t)g->K, "count", (json_int_t)g->count,
                               "line", g->line);
        json_object_update_new(gj, json_counters(&r->cfg, &r->rows[i])); /* the counters after the GEMM's identity */
        json_array_append_new(x, gj);
    }
    json_object_set_new(j, "gemms", x);
    json_object_set_new(j, "total", json_counters(&r->cfg, &r->total));
    const int rc = mx_json_write_file(j, path);
    json_decref(j);
    return rc == 0 ? 0 : -1;
}

static void csv_row(FILE *f, const char *name, const char *phase, const mx_gemm *g,
                    const mx_arch_config *c, const mx_stats *s, const char *overrides)
{
    fprintf(f, "%s,%s,", name, phase);
    if (g) fprintf(f, "%lld,%lld,%lld,%lld,", g->M, g->N, g->K, g->count);
    else fprintf(f, ",,,,");
    fprintf(f, "%lld,%lld,%lld,%lld,%lld,%lld,%.6f,%lld,%.17g,%.17g,%.17g,", s->cycles, s->compute_cycles,
            s->stall[0], s->stall[1], s->stall[2], s->stall[3], util(c, s), s->macs, s->mul[6][6], s->mul[6][3], s->mul[3][3]);
    for (int i = 0; i < MX_NOPS; i++) fprintf(f, "%lld,%lld,", s->sram_read[i] + s->sram_write[i], s->dram_read[i] + s->dram_write[i]);
    fprintf(f, "%lld,%lld,%.17g", s->rqu_elements, s->requant_elements, s->energy_total_pj);
    for (int i = 0; i < MX_E_NCOMP; i++) fprintf(f, ",%.17g", s->energy_pj[i]);
    if (s->functional) fprintf(f, ",%.6f,%.9g", s->qsnr_db, s->max_abs_err);
    else fprintf(f, ",,");
    /* what produced the row: config name, engine, mode, DRAM, version */
    const char *prov[5] = {c->name, mx_engine_name(c->engine), s->functional ? "functional" : "timing",
                           c->dram_model ? c->dram.name : "channel", mxsim_version()};
    for (int i = 0; i < 5; i++) {
        fputc(',', f);
        mx_csv_field(f, prov[i]);
    }
    /* per GEMM the mapper's tile and loop order (the TOTAL row has none), then the --set overrides */
    if (g) fprintf(f, ",%lld,%lld,%lld,\"%s\",%s,", s->map.mt, s->map.nt, s->map.kt, s->map.n_outer ? "n,m,k" : "m,n,k",
                   s->map.double_buffer ? "true" : "false");
    else fprintf(f, ",,,,,,");
    mx_csv_field(f, overrides);
    fputc('\n', f);
}

static int write_csv(const char *path, const run_opts *o, const mx_trace *tr, const run_result *r)
{
    char ov[MAX_SETS * 64 + 1] = "";
    size_t n = 0;
    for (int i = 0; i < o->nsets && n < sizeof ov; i++) /* "k=v;k=v" (shown in full in report.json) */
        n += (size_t)snprintf(ov + n, sizeof ov - n, "%s%s", i ? ";" : "", o->sets[i]);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "name,phase,M,N,K,count,cycles,compute_cycles,stall_dram,stall_sram,stall_drain,stall_rqu,"
               "utilization,macs,macs_6x6,macs_6x3,macs_3x3,sram_a_bytes,dram_a_bytes,sram_b_bytes,"
               "dram_b_bytes,sram_out_bytes,dram_out_bytes,rqu_elements,requant_elements,energy_pj");
    for (int i = 0; i < MX_E_NCOMP; i++) fprintf(f, ",energy_%s_pj", mx_energy_comp_name((mx_energy_comp)i));
    fprintf(f, ",qsnr_db,max_abs_err,config,engine,mode,dram,version,mt,nt,kt,loop_order,double_buffer,overrides\n");
    for (size_t i = 0; i < tr->n; i++) {
        const mx_gemm *g = &tr->gemms[i];
        csv_row(f, g->name, mx_phase_name(g->phase), g, &r->cfg, &r->rows[i], ov);
    }
    csv_row(f, "TOTAL", "", NULL, &r->cfg, &r->total, ov);
    return fclose(f) == 0 ? 0 : -1;
}

static int mkdir_p(const char *dir)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
            *p = '/';
        }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
    return 0;
}

/* Writes both reports to temporaries, then renames: never half-written. */
static int write_reports(const char *dir, const run_opts *o, const mx_trace *tr, const run_result *r)
{
    char j[4200], c[4200], jt[4200], ct[4200];
    if (mkdir_p(dir) != 0) {
        mx_print_error("mxsim run", "option '-o': cannot create directory '%s': %s", dir, strerror(errno));
        return 2;
    }
    snprintf(j, sizeof j, "%s/report.json", dir);
    snprintf(c, sizeof c, "%s/report.csv", dir);
    snprintf(jt, sizeof jt, "%s/.report.json.tmp", dir);
    snprintf(ct, sizeof ct, "%s/.report.csv.tmp", dir);
    if (write_json(jt, o, tr, r) != 0 || write_csv(ct, o, tr, r) != 0 || rename(jt, j) != 0 ||
        rename(ct, c) != 0) {
        mx_print_error("mxsim run", "cannot write the reports in '%s': %s", dir, strerror(errno));
        remove(jt);
        remove(ct);
        return 2;
    }
    return 0;
}

/* One config's side of a comparison: what differs between configs is each
 * one's own (array, lanes, buffers, DRAM, formats), never the first's. */
static json_t *compare_side(const run_opts *o, const char *config_path, const run_result *r)
{
    json_t *j = json_object(), *e = json_object();
    json_object_set_new(j, "config", json_string(config_path));
    json_object_set_new(j, "name", json_string(r->cfg.name));
    json_object_set_new(j, "report", json_sprintf("%s/report.json", r->cfg.name));
    json_object_set_new(j, "cycles", json_integer(r->total.cycles));
    json_object_set_new(j, "energy_pj", json_real(r->total.energy_total_pj));
    for (int i = 0; i < MX_E_NCOMP; i++) json_object_set_new(e, mx_energy_comp_name((mx_energy_comp)i), json_real(r->total.energy_pj[i]));
    json_object_set_new(j, "energy_by_component_pj", e);
    json_object_set_new(j, "array", json_sprintf("%dx%d", r->cfg.rows, r->cfg.cols));
    json_object_set_new(j, "lanes", json_integer(r->cfg.lanes));
    json_object_set_new(j, "buffers_kib", json_pack("{s:f,s:f,s:f}", "a", r->cfg.sram[0].kib, "b", r->cfg.sram[1].kib, "out", r->cfg.sram[2].kib));
    json_object_set_new(j, "dram", json_string(r->cfg.dram_model ? r->cfg.dram.name : "channel"));
    json_object_set_new(j, "formats", json_pack("{s:s,s:s,s:s}", "a", r->cfg.a_format, "b", r->cfg.b_format, "out", r->cfg.out_format));
    json_object_set_new(j, "energy_table", json_string(r->energy.path));
    json_object_set_new(j, "engine", json_string(mx_engine_name(r->cfg.engine)));
    (void)o;
    return j;
}

/* OUTDIR/compare.json: the comparison's ratios and each side's assumptions
 * (what was only on stdout), and OUTDIR/index.html drawn from it
 * (sim/compare_report.c), through temporaries and renames.  0 or 2. */
static int write_compare(const run_opts *o, const run_result *a, const run_result *b)
{
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/compare.json", o->outdir);
    snprintf(tmp, sizeof tmp, "%s/.compare.json.tmp", o->outdir);
    json_t *j = json_object(), *rat = json_object();
    json_object_set_new(j, "mxsim_version", json_string(mxsim_version()));
    json_object_set_new(j, "trace", json_string(o->trace_path));
    json_object_set_new(j, "mode", json_string(o->functional ? "functional" : "timing"));
    json_t *ov = json_array();
    for (int i = 0; i < o->nsets; i++) json_array_append_new(ov, json_string(o->sets[i]));
    json_object_set_new(j, "overrides", ov); /* applied to both configs */
    json_object_set_new(j, "a", compare_side(o, o->config_path, a));
    json_object_set_new(j, "b", compare_side(o, o->compare_path, b));
    const mx_stats *x = &a->total, *y = &b->total;
    double core_x = 0, core_y = 0;
    for (int i = MX_E_MUL; i <= MX_E_SCALE; i++) { core_x += x->energy_pj[i]; core_y += y->energy_pj[i]; }
    json_object_set_new(rat, "energy", json_real(x->energy_total_pj / y->energy_total_pj));
    json_object_set_new(rat, "cycles", json_real((double)x->cycles / (double)y->cycles));
    json_object_set_new(rat, "pe_datapath_energy", json_real(core_x / core_y));
    json_object_set_new(rat, "on_chip_energy", json_real((x->energy_total_pj - x->energy_pj[MX_E_DRAM]) /
                                                         (y->energy_total_pj - y->energy_pj[MX_E_DRAM])));
    json_t *bc = json_object();
    for (int i = 0; i < MX_E_NCOMP; i++)
        json_object_set_new(bc, mx_energy_comp_name((mx_energy_comp)i),
                            y->energy_pj[i] > 0 ? json_real(x->energy_pj[i] / y->energy_pj[i]) : json_null());
    json_object_set_new(rat, "energy_by_component", bc);
    json_object_set_new(j, "ratios_a_over_b", rat);
    /* compare.json and index.html (drawn from the same object) both written
     * before either is renamed into place */
    char html[4300], htmp[4300];
    snprintf(html, sizeof html, "%s/index.html", o->outdir);
    int ok = mx_json_write_file(j, tmp) == 0;
    if (!ok) snprintf(htmp, sizeof htmp, "%s", path);
    else if (mx_compare_html_tmp(o->outdir, j, htmp, sizeof htmp) != 0) { ok = 0; snprintf(htmp, sizeof htmp, "%s", html); }
    else if (rename(tmp, path) != 0) { ok = 0; remove(htmp); snprintf(htmp, sizeof htmp, "%s", path); }
    else if (rename(htmp, html) != 0) { ok = 0; snprintf(htmp, sizeof htmp, "%s", html); }
    json_decref(j);
    if (!ok) {
        remove(tmp);
        mx_print_error("mxsim run", "cannot write '%s': %s", htmp, strerror(errno));
        return 2;
    }
    return 0;
}

static void print_comparison(const run_result *a, const run_result *b)
{
    const mx_stats *x = &a->total, *y = &b->total;
    printf("\n== %s vs %s: energy breakdown (uJ) ==\n", a->cfg.name, b->cfg.name);
    printf("%-10s %14s %14s %8s\n", "component", a->cfg.name, b->cfg.name, "ratio");
    for (int i = 0; i < MX_E_NCOMP; i++)
        printf("%-10s %14.1f %14.1f %8.3f\n", mx_energy_comp_name((mx_energy_comp)i), x->energy_pj[i] * 1e-6,
               y->energy_pj[i] * 1e-6, y->energy_pj[i] > 0 ? x->energy_pj[i] / y->energy_pj[i] : 0.0);
    double ratio = x->energy_total_pj / y->energy_total_pj;
    printf("%-10s %14.1f %14.1f %8.3f\n", "TOTAL", x->energy_total_pj * 1e-6, y->energy_total_pj * 1e-6, ratio);
    printf("cycles     %14lld %14lld %8.3f\n", x->cycles, y->cycles, (double)x->cycles / (double)y->cycles);
    double core_x = 0, core_y = 0;
    for (int i = MX_E_MUL; i <= MX_E_SCALE; i++) { core_x += x->energy_pj[i]; core_y += y->energy_pj[i]; }
    printf("\n%s/%s total energy: %.3f, i.e. %.1f%% %s", a->cfg.name, b->cfg.name, ratio,
           100 * fabs(1 - ratio), ratio <= 1 ? "less" : "more");
    if (!strcmp(b->cfg.a_format, "bf16") && a->cfg.tile_rows && !strcmp(a->cfg.a_format, "mxsf"))
        printf(" (paper, Park et al. DATE 2026: 24.9%% less for MXSF vs BF16)");
    printf("\n");
    printf("PE datapath only (mul+addtree+accum+scale): %.3f, i.e. %.1f%% %s\n", core_x / core_y,
           100 * fabs(1 - core_x / core_y), core_x <= core_y ? "less" : "more");
    double on_x = x->energy_total_pj - x->energy_pj[MX_E_DRAM], on_y = y->energy_total_pj - y->energy_pj[MX_E_DRAM];
    printf("on-chip only (all but DRAM): %.3f, i.e. %.1f%% %s\n", on_x / on_y, 100 * fabs(1 - on_x / on_y),
           on_x <= on_y ? "less" : "more");
    double dram_pj = 0;
    mx_energy_get(&a->energy, "dram_64b", &dram_pj);
    char dram_desc[160];
    if (a->cfg.dram_model)
        snprintf(dram_desc, sizeof dram_desc, "DRAM %s, %d channel(s), energy from its IDD currents (docs/DRAM.md)",
                 a->cfg.dram.name, a->cfg.dram.channels);
    else
        snprintf(dram_desc, sizeof dram_desc, "DRAM %.0f B/cycle, %.0f pJ per 64 bit", a->cfg.dram_bytes_per_cycle, dram_pj);
    /* the hardware line: "same" only when it is (issue 9: it printed the
     * first config's array as both's) */
    const mx_arch_config *ca = &a->cfg, *cb = &b->cfg;
    const int same_hw = ca->rows == cb->rows && ca->cols == cb->cols && ca->lanes == cb->lanes &&
                        ca->sram[0].kib == cb->sram[0].kib && ca->sram[1].kib == cb->sram[1].kib &&
                        ca->sram[2].kib == cb->sram[2].kib && ca->dram_model == cb->dram_model &&
                        (ca->dram_model ? strcmp(ca->dram.name, cb->dram.name) == 0 && ca->dram.channels == cb->dram.channels
                                        : ca->dram_bytes_per_cycle == cb->dram_bytes_per_cycle);
    char hw[400];
    if (same_hw)
        snprintf(hw, sizeof hw, "same %dx%d array, %d lanes, buffers (A %.0f KiB, B %.0f KiB, out %.0f KiB) and DRAM",
                 ca->rows, ca->cols, ca->lanes, ca->sram[0].kib, ca->sram[1].kib, ca->sram[2].kib);
    else
        snprintf(hw, sizeof hw, "different hardware: %s %dx%d array, %d lanes, buffers %.0f/%.0f/%.0f KiB, DRAM %s; "
                 "%s %dx%d, %d lanes, %.0f/%.0f/%.0f KiB, DRAM %s",
                 ca->name, ca->rows, ca->cols, ca->lanes, ca->sram[0].kib, ca->sram[1].kib, ca->sram[2].kib,
                 ca->dram_model ? ca->dram.name : "channel", cb->name, cb->rows, cb->cols, cb->lanes, cb->sram[0].kib,
                 cb->sram[1].kib, cb->sram[2].kib, cb->dram_model ? cb->dram.name : "channel");
    printf("Assumptions behind our figure (docs/ENERGY.md):\n"
           "  - energies: %s (Horowitz ISSCC 2014, 45 nm, 0.9 V, plus documented derivations);\n"
           "  - multipliers scale with significand partial products (6x6 / 6x3 / 3x3 vs 8x8), products exact;\n"
           "  - %s mode mix: %.0f%% of MXSF elements in E2M5 mode (timing mode; functional mode counts codes);\n"
           "  - %s;\n"
           "  - memory traffic per byte: %s stores %s at %.3f bits/element, %s stores %s at %.3f; %s;\n"
           "  - cycles and DRAM energy from the %s engine;\n"
           "  - FP32 accumulation in both; same align width (%d bits); leakage identical per PE;\n"
           "  - no data-dependent toggling; training re-quantization copies: %s;\n"
           "  - tiles chosen by the mapper for %s (memory.tiling).\n",
           a->energy.path, a->cfg.name, 100 * a->cfg.mxsf_wide_fraction, hw,
           a->cfg.name, a->cfg.a_format, bits_of(&a->cfg), b->cfg.name,
           b->cfg.a_format, bits_of(&b->cfg), dram_desc, mx_engine_name(a->cfg.engine), a->cfg.align_width,
           a->cfg.tile_rows ? "none needed (2-D tiles)" : "counted (1-D blocks)",
           a->cfg.tiling_objective == MX_TILING_TRAFFIC ? "least DRAM traffic"
           : a->cfg.tiling_objective == MX_TILING_ENERGY ? "least energy"
           : a->cfg.tiling_objective == MX_TILING_EDP ? "least energy x delay"
                                                      : "time (then least DRAM traffic within 1%)");
}

/* Sensitivity of a --compare: both configs rerun (analytic engine) under
 * each DRAM preset, the flat per-64-bit DRAM energy, and the other mapper
 * objective. */
static void print_sensitivity(const run_opts *o, const mx_trace *tr, const run_result *a)
{
    static const struct { const char *set, *note; } dram[] = {
        {"memory.dram=hbm2", ""},
        {"memory.dram=ddr4_3200", ""},
        {"memory.dram=lpddr4_2400", ""},
        {"memory.dram=none", "  (the flat dram_64b energy per 64 bit instead of the DRAM model)"},
    };
    if (o->nsets >= MAX_SETS) return;
    printf("Sensitivity (analytic engine; each line reruns both configs):\n");
    for (size_t k = 0; k <= sizeof dram / sizeof dram[0]; k++) {
        run_opts o2 = *o;
        o2.progress = 0;
        o2.engine_set = 1;
        o2.engine = MX_ENGINE_ANALYTIC;
        int last = k == sizeof dram / sizeof dram[0];
        const char *set = !last ? dram[k].set : a->cfg.tiling_objective == MX_TILING_TRAFFIC ? "memory.tiling=time" : "memory.tiling=traffic";
        o2.sets[o2.nsets++] = set;
        run_result a2, b2;
        memset(&a2, 0, sizeof a2);
        memset(&b2, 0, sizeof b2);
        if (configure(&o2, o->config_path, &a2) == 0 && simulate(&o2, o->config_path, tr, &a2) == 0 &&
            configure(&o2, o->compare_path, &b2) == 0 && simulate(&o2, o->compare_path, tr, &b2) == 0) {
            double r2 = a2.total.energy_total_pj / b2.total.energy_total_pj;
            printf("  %-24s %s/%s total energy %.3f (%.1f%% %s), cycles ratio %.3f%s\n", set, a2.cfg.name,
                   b2.cfg.name, r2, 100 * fabs(1 - r2), r2 <= 1 ? "less" : "more",
                   (double)a2.total.cycles / (double)b2.total.cycles, last ? "" : dram[k].note);
        }
        free(a2.rows);
        free(b2.rows);
    }
}

int mxsim_cmd_run(int argc, char **argv)
{
    run_opts o;
    int rc = parse_opts(argc, argv, &o);
    if (rc) return rc == 1 ? 0 : rc;
    mx_trace tr;
    char err[600];
    run_result a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    /* both configs first: bad input fails before the first simulation */
    if (configure(&o, o.config_path, &a) || (o.compare_path && configure(&o, o.compare_path, &b))) return 2;
    if (o.compare_path && !strcmp(a.cfg.name, b.cfg.name)) {
        /* the names head the comparison's columns and name the report directories OUTDIR/NAME/ */
        mx_print_error("mxsim run", "option '--compare': %s and %s are both named '%s' (key 'name'): give them different names",
                       o.config_path, o.compare_path, a.cfg.name);
        return 2;
    }
    if (mx_trace_load(o.trace_path, &tr, err, sizeof err) != 0) {
        mx_print_error("mxsim run", "%s", err);
        return 2;
    }
    rc = dump_check(&o, &tr);
    if (!rc) rc = outdir_check(o.outdir);
    if (!rc) rc = simulate(&o, o.config_path, &tr, &a);
    if (!rc && o.compare_path) rc = simulate(&o, o.compare_path, &tr, &b);
    if (!rc) {
        if (!o.quiet) {
            print_table(&o, &tr, &a);
            if (o.compare_path) { printf("\n"); print_table(&o, &tr, &b); }
        }
        if (o.compare_path) {
            print_comparison(&a, &b);
            if (!o.functional && !o.no_sensitivity) print_sensitivity(&o, &tr, &a);
        }
        if (o.outdir) {
            if (o.compare_path) {
                char d[4200];
                snprintf(d, sizeof d, "%s/%s", o.outdir, a.cfg.name);
                rc = write_reports(d, &o, &tr, &a);
                if (!rc) {
                    snprintf(d, sizeof d, "%s/%s", o.outdir, b.cfg.name);
                    run_opts ob = o;
                    ob.config_path = o.compare_path;
                    rc = write_reports(d, &ob, &tr, &b);
                }
                if (!rc) rc = write_compare(&o, &a, &b);
            } else {
                rc = write_reports(o.outdir, &o, &tr, &a);
            }
        }
    }
    free(a.rows);
    free(b.rows);
    mx_trace_free(&tr);
    return rc;
}
