/*
 * cmd_validate.c — `mxsim validate`: the analytic engine against the cycle
 * engine over seeded random GEMMs on a grid of configurations (SPEC §4.2:
 * "its error against `cycle` is measured over many GEMMs and published").
 * Prints a Markdown table (docs/VALIDATION.md is this output, `make
 * validate`): relative error of total cycles and of DRAM energy, mean and
 * max, per configuration and overall, and the worst cases with both
 * engines' stall breakdowns.
 */
#include "cli_getopt.h"
#include "config_yaml.h"
#include "mxsim_cmd.h"
#include "version.h"

#include "arch/mx_arch.h"
#include "arch/mx_cycle.h"
#include "formats/mx_rng.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *dram;     /* memory.dram preset, "" = bandwidth + latency channel */
    int rows, cols;
    mx_dataflow df;
    const char *a_format;
} variant;

typedef struct {
    double cyc_err, e_err;  /* relative, signed: (analytic - cycle) / cycle */
    int var;
    uint64_t seed;          /* of the grid it came from */
    mx_gemm g;
    mx_stats an, cy;
} sample;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mxsim validate [-c BASE.yaml] [--gemms N] [--seed S] [--max-dim D] [--holdout H]\n"
            "                      [--holdout-from F] [--csv FILE]\n"
            "  Runs N seeded random GEMMs (default 324, spread over 36 configurations:\n"
            "  DDR4-3200 / LPDDR4-2400 / HBM2 / bandwidth channel, 32x32 and 8x8 arrays,\n"
            "  os/ws/is, MXSF and BF16) through both engines and prints the relative\n"
            "  error of the analytic engine's cycles and DRAM energy against the cycle engine.\n"
            "  --holdout H (default 6; 0: none) reruns the grid with seeds F..F+H-1 (--holdout-from,\n"
            "  default 46): no rule of the analytic engine was looked for in those seeds' rows\n"
            "  (the rules come from seed 13's and, since stop 26, some of seeds 14..45's).\n"
            "  Then the same GEMMs with smaller buffers (256, 64, 16 KiB).\n"
            "  --csv FILE also writes one row per GEMM (both engines' cycles, stalls, DRAM energy).\n");
}

static long long rand_dim(uint64_t *st, long long max)
{
    /* log-uniform in [1, max], then half the time a ragged (non power of two) value */
    double u = (double)(mx_rng_next(st) >> 11) / 9007199254740992.0;
    long long v = (long long)floor(exp(u * log((double)max)));
    if (v < 1) v = 1;
    if (mx_rng_next(st) & 1) v = (v / 16 + 1) * 16; /* array-friendly */
    return v > max ? max : v;
}

/* Mean and max absolute errors of a group of samples. */
typedef struct {
    int n, over;          /* over: GEMMs whose cycles are more than 10% off */
    double sum_c, max_c, sum_e, max_e;
} err_summary;

static void summary_add(err_summary *e, const sample *s);

/* "The goal (mean <= 2%, max <= 10%) <where>: ..." for a group. */
static void goal_line(const char *where, const err_summary *e)
{
    printf("\nThe issue's goal %s: cycles mean %s, max %s; DRAM energy mean %s, max %s.\n", where,
           e->sum_c / e->n <= 0.02 ? "met" : "NOT met", e->max_c <= 0.10 ? "met" : "NOT met",
           e->sum_e / e->n <= 0.02 ? "met" : "NOT met", e->max_e <= 0.10 ? "met" : "NOT met");
}

static void summary_add(err_summary *e, const sample *s)
{
    double a = fabs(s->cyc_err), b = fabs(s->e_err);
    e->n++;
    e->over += a > 0.10;
    e->sum_c += a;
    e->sum_e += b;
    if (a > e->max_c) e->max_c = a;
    if (b > e->max_e) e->max_e = b;
}

/* "| GEMMs | cycles mean | max | DRAM energy mean | max |" cells of a table row. */
static void summary_cells(const err_summary *e)
{
    printf(" %d | %.2f%% | %.2f%% | %.2f%% | %.2f%% |\n", e->n, 100 * e->sum_c / e->n, 100 * e->max_c,
           100 * e->sum_e / e->n, 100 * e->max_e);
}

static int cmp_abs_cyc(const void *a, const void *b)
{
    double x = fabs(((const sample *)a)->cyc_err), y = fabs(((const sample *)b)->cyc_err);
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Runs n seeded GEMMs over the variants on `base` (with A, B and output
 * buffers of `kib` KiB each when kib > 0) through both engines.  The same
 * seed gives the same shapes for any kib, so buffer sizes compare GEMM for
 * GEMM. */
static int run_grid(const char *base, int kib, const variant *vars, int nv, long long n, uint64_t seed,
                    long long max_dim, sample *smp, char *err, size_t errlen)
{
    mx_arch_config *cfgs = calloc((size_t)nv, sizeof *cfgs);
    if (!cfgs) { snprintf(err, errlen, "out of memory"); return -1; }
    char epath[MX_ARCH_PATH_MAX];
    for (int v = 0; v < nv; v++) {
        mx_arch_config *c = &cfgs[v];
        char set[160];
        if (mx_config_load(base, c, epath, err, errlen) != 0) goto bad;
        snprintf(set, sizeof set, "memory.dram=%s", vars[v].dram[0] ? vars[v].dram : "none");
        if (mx_config_override(c, set, err, errlen) != 0) goto bad;
        for (int b = 0; kib > 0 && b < 3; b++) {
            static const char *const buf[3] = {"sram_a", "sram_b", "sram_out"};
            snprintf(set, sizeof set, "memory.%s.kib=%d", buf[b], kib);
            if (mx_config_override(c, set, err, errlen) != 0) goto bad;
        }
        c->rows = vars[v].rows;
        c->cols = vars[v].cols;
        c->dataflow = vars[v].df;
        snprintf(c->a_format, sizeof c->a_format, "%s", vars[v].a_format);
        snprintf(c->b_format, sizeof c->b_format, "%s", vars[v].a_format);
        snprintf(c->out_format, sizeof c->out_format, "%s", vars[v].a_format);
        if (mx_arch_config_check(c, err, errlen) != 0 || mx_config_dram(base, c, err, errlen) != 0) goto bad;
    }
    uint64_t st = seed;
    for (long long i = 0; i < n; i++) {
        sample *s = &smp[i];
        s->var = (int)(i % nv);
        s->seed = seed;
        mx_arch_config *c = &cfgs[s->var];
        memset(&s->g, 0, sizeof s->g);
        snprintf(s->g.name, sizeof s->g.name, "g%lld", i);
        s->g.M = rand_dim(&st, max_dim);
        s->g.N = rand_dim(&st, max_dim);
        s->g.K = rand_dim(&st, max_dim);
        s->g.count = 1;
        s->g.phase = MX_PHASE_FWD;
        s->g.line = (int)i + 1;
        if (mx_arch_gemm_analytic(c, &s->g, &s->an, err, errlen) != 0 ||
            mx_arch_gemm_cycle(c, &s->g, &s->cy, err, errlen) != 0)
            goto bad;
        s->cyc_err = ((double)s->an.cycles - (double)s->cy.cycles) / (double)s->cy.cycles;
        double ea = s->an.dram_model ? s->an.dram_energy_pj : 0, ec = s->cy.dram_model ? s->cy.dram_energy_pj : 0;
        if (!s->cy.dram_model) { /* bandwidth channel: bytes moved stand in for energy */
            ea = ec = 0;
            for (int k = 0; k < MX_NOPS; k++) {
                ea += (double)(s->an.dram_read[k] + s->an.dram_write[k]);
                ec += (double)(s->cy.dram_read[k] + s->cy.dram_write[k]);
            }
        }
        s->e_err = ec > 0 ? (ea - ec) / ec : 0;
    }
    free(cfgs);
    return 0;
bad:
    free(cfgs);
    return -1;
}

/* The Markdown table of the worst samples (sorted, most off first). */
static void print_worst(const sample *smp, long long n, const variant *vars, int with_seed)
{
    printf("|%s DRAM | array | df | fmt | M | N | K | analytic | cycle | error | "
           "stalls analytic (dram/sram/drain/rqu) | stalls cycle |\n|%s---|---|---|---|---|---|---|---|---|---|---|---|\n",
           with_seed ? " seed |" : "", with_seed ? "---|" : "");
    for (long long i = 0; i < n; i++) {
        const sample *s = &smp[i];
        const variant *v = &vars[s->var];
        if (with_seed) printf("| %llu ", (unsigned long long)s->seed);
        printf("| %s | %dx%d | %s | %s | %lld | %lld | %lld | %lld | %lld | %+.2f%% | %lld/%lld/%lld/%lld | %lld/%lld/%lld/%lld |\n",
               v->dram[0] ? v->dram : "channel", v->rows, v->cols, mx_dataflow_name(v->df), v->a_format,
               s->g.M, s->g.N, s->g.K, s->an.cycles, s->cy.cycles, 100 * s->cyc_err,
               s->an.stall[0], s->an.stall[1], s->an.stall[2], s->an.stall[3],
               s->cy.stall[0], s->cy.stall[1], s->cy.stall[2], s->cy.stall[3]);
    }
}

#define HOLDOUT_MAX 64

enum { OPT_CSV = 256, OPT_GEMMS, OPT_SEED, OPT_MAX_DIM, OPT_HOLDOUT, OPT_HOLDOUT_FROM };

int mxsim_cmd_validate(int argc, char **argv)
{
    const char *base = MXSIM_SRC_DIR "/configs/mxsf.yaml", *csv = NULL;
    long long n = 324, max_dim = 2048;
    uint64_t seed = 13;
    int holdout = 6;
    /* Seeds 14..19 had rows studied for rules since stop 26, 20..45 since
     * stops 32 and 33 (docs/DECISIONS.md): 46.. were never looked at. */
    long long holdout_from = 46;
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},          {"csv", required_argument, NULL, OPT_CSV},
        {"gemms", required_argument, NULL, OPT_GEMMS}, {"seed", required_argument, NULL, OPT_SEED},
        {"max-dim", required_argument, NULL, OPT_MAX_DIM}, {"holdout", required_argument, NULL, OPT_HOLDOUT},
        {"holdout-from", required_argument, NULL, OPT_HOLDOUT_FROM}, {NULL, 0, NULL, 0}};
    optind = 0; /* a fresh scan; '+': the first operand ends the options */
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, "+:c:h", longopts, NULL)) != -1) {
        const char *v = optarg;
        char *end;
        long long x = 0;
        switch (ch) {
        case 'h': usage(stdout); return 0;
        case 'c': base = v; break;
        case OPT_CSV: csv = v; break;
        case OPT_GEMMS: case OPT_SEED: case OPT_MAX_DIM: case OPT_HOLDOUT_FROM:
            errno = 0;
            x = strtoll(v, &end, 10);
            if (!*v || *end || errno || x < 1 || x > 1000000) {
                mx_print_error("mxsim validate", "option '--%s': must be 1..1000000, got '%s'",
                               ch == OPT_GEMMS ? "gemms" : ch == OPT_SEED ? "seed" : ch == OPT_MAX_DIM ? "max-dim"
                                                                                        : "holdout-from", v);
                return 2;
            }
            if (ch == OPT_GEMMS) n = x;
            else if (ch == OPT_SEED) seed = (uint64_t)x;
            else if (ch == OPT_MAX_DIM) max_dim = x;
            else holdout_from = x;
            break;
        case OPT_HOLDOUT:
            errno = 0;
            x = strtoll(v, &end, 10);
            if (!*v || *end || errno || x < 0 || x > HOLDOUT_MAX) {
                mx_print_error("mxsim validate", "option '--holdout': must be 0..%d, got '%s'", HOLDOUT_MAX, v);
                return 2;
            }
            holdout = (int)x;
            break;
        default: return mx_getopt_fail("mxsim validate", ch, argv, longopts);
        }
    }
    if (optind < argc) {
        mx_print_error("mxsim validate", "unexpected argument '%s' (see mxsim validate --help)", argv[optind]);
        return 2;
    }
    if (csv) { /* checked before the GEMMs run, not after */
        char cerr[600];
        if (mx_check_output_file("--csv", csv, cerr, sizeof cerr) != 0) {
            mx_print_error("mxsim validate", "%s", cerr);
            return 2;
        }
    }
    static const char *drams[4] = {"ddr4_3200", "lpddr4_2400", "hbm2", ""};
    static const int sizes[2] = {32, 8};
    static const char *fmts[2] = {"mxsf", "bf16"};
    variant vars[48];
    int nv = 0;
    for (int d = 0; d < 4; d++)
        for (int sz = 0; sz < 2; sz++)
            for (int df = 0; df < 3; df++)
                for (int f = 0; f < 2; f++) {
                    if (f == 1 && df != 0) continue; /* BF16 on os only */
                    vars[nv++] = (variant){drams[d], sizes[sz], sizes[sz], (mx_dataflow)df, fmts[f]};
                }
    sample *smp = calloc((size_t)n, sizeof *smp);
    if (!smp) { fprintf(stderr, "mxsim validate: out of memory\n"); return 2; }
    char err[700];
    if (run_grid(base, 0, vars, nv, n, seed, max_dim, smp, err, sizeof err) != 0) goto bad;
    /* held-out seeds: per seed and all together, DRAM presets and channel */
    enum { HO_WORST = 10 };
    sample ho_worst[2 * HO_WORST];
    long long ho_nworst = 0;
    err_summary ho[HOLDOUT_MAX + 1];
    memset(ho, 0, sizeof ho);
    if (holdout > 0) {
        sample *sh = calloc((size_t)n, sizeof *sh);
        if (!sh) { snprintf(err, sizeof err, "out of memory"); goto bad; }
        for (int h = 0; h < holdout; h++) {
            if (run_grid(base, 0, vars, nv, n, (uint64_t)holdout_from + (uint64_t)h, max_dim, sh, err, sizeof err) != 0) {
                free(sh);
                goto bad;
            }
            for (long long i = 0; i < n; i++) {
                summary_add(&ho[h], &sh[i]);
                summary_add(&ho[holdout], &sh[i]);
            }
            /* keep the HO_WORST most off so far */
            qsort(sh, (size_t)n, sizeof *sh, cmp_abs_cyc);
            for (long long i = 0; i < n && i < HO_WORST; i++) ho_worst[ho_nworst++] = sh[i];
            qsort(ho_worst, (size_t)ho_nworst, sizeof *ho_worst, cmp_abs_cyc);
            if (ho_nworst > HO_WORST) ho_nworst = HO_WORST;
        }
        free(sh);
    }
    double base_kib[MX_NOPS];
    {
        mx_arch_config bc;
        char epath[MX_ARCH_PATH_MAX];
        if (mx_config_load(base, &bc, epath, err, sizeof err) != 0) goto bad;
        for (int k = 0; k < MX_NOPS; k++) base_kib[k] = bc.sram[k].kib;
    }
    if (csv) {
        char tmp[4200];
        snprintf(tmp, sizeof tmp, "%s.tmp", csv);
        FILE *f = fopen(tmp, "w");
        if (!f) { snprintf(err, sizeof err, "option '--csv': cannot write '%s'", csv); goto bad; }
        fprintf(f, "dram,rows,cols,dataflow,format,M,N,K,cycles_analytic,cycles_cycle,cycles_err,"
                   "dram_analytic,sram_analytic,drain_analytic,rqu_analytic,dram_cycle,sram_cycle,drain_cycle,rqu_cycle,"
                   "dram_pj_analytic,dram_pj_cycle,dram_err,dram_bytes_analytic,dram_bytes_cycle\n");
        for (long long i = 0; i < n; i++) {
            const sample *p = &smp[i];
            const variant *v = &vars[p->var];
            long long bytes[2] = {0, 0}; /* DRAM traffic, reads and writes: analytic, cycle */
            for (int k = 0; k < MX_NOPS; k++) {
                bytes[0] += p->an.dram_read[k] + p->an.dram_write[k];
                bytes[1] += p->cy.dram_read[k] + p->cy.dram_write[k];
            }
            fprintf(f, "%s,%d,%d,%s,%s,%lld,%lld,%lld,%lld,%lld,%.6f,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%.6g,%.6g,%.6f,%lld,%lld\n",
                    v->dram[0] ? v->dram : "channel", v->rows, v->cols, mx_dataflow_name(v->df), v->a_format, p->g.M,
                    p->g.N, p->g.K, p->an.cycles, p->cy.cycles, p->cyc_err, p->an.stall[0], p->an.stall[1], p->an.stall[2],
                    p->an.stall[3], p->cy.stall[0], p->cy.stall[1], p->cy.stall[2], p->cy.stall[3], p->an.dram_energy_pj,
                    p->cy.dram_energy_pj, p->e_err, bytes[0], bytes[1]);
        }
        if (fclose(f) != 0 || rename(tmp, csv) != 0) {
            remove(tmp);
            snprintf(err, sizeof err, "option '--csv': cannot write '%s'", csv);
            goto bad;
        }
    }
    printf("<!-- generated by `make validate`: mxsim validate --gemms %lld --seed %llu --max-dim %lld --holdout %d "
           "--holdout-from %lld; mxsim %s -->\n",
           n, (unsigned long long)seed, max_dim, holdout, holdout_from, mxsim_version());
    printf("# Analytic vs cycle engine\n\n");
    printf("%lld random GEMMs (M, N, K log-uniform in 1..%lld, half of them rounded to multiples of 16, "
           "seed %llu) over %d configurations derived from `%s`. Error = (analytic - cycle) / cycle; "
           "DRAM energy from the DRAM model (the bandwidth channel compares DRAM bytes instead).\n\n",
           n, max_dim, (unsigned long long)seed, nv, "configs/mxsf.yaml");
    printf("| DRAM | array | dataflow | format | GEMMs | cycles mean abs | cycles max abs | DRAM energy mean abs | DRAM energy max abs |\n");
    printf("|---|---|---|---|---|---|---|---|---|\n");
    err_summary all = {0};
    for (int v = 0; v < nv; v++) {
        err_summary e = {0};
        for (long long i = 0; i < n; i++)
            if (smp[i].var == v) summary_add(&e, &smp[i]);
        if (!e.n) continue;
        printf("| %s | %dx%d | %s | %s |", vars[v].dram[0] ? vars[v].dram : "channel", vars[v].rows, vars[v].cols,
               mx_dataflow_name(vars[v].df), vars[v].a_format);
        summary_cells(&e);
    }
    for (long long i = 0; i < n; i++) summary_add(&all, &smp[i]);
    printf("\nsummary: %lld GEMMs, cycles mean %.2f%% max %.2f%%, DRAM energy mean %.2f%% max %.2f%%\n",
           n, 100 * all.sum_c / n, 100 * all.max_c, 100 * all.sum_e / n, 100 * all.max_e);
    printf("\n| DRAM | GEMMs | cycles mean abs | cycles max abs | DRAM energy mean abs | DRAM energy max abs |\n|---|---|---|---|---|---|\n");
    for (int d = 0; d < 4; d++) {
        err_summary e = {0};
        for (long long i = 0; i < n; i++)
            if (!strcmp(vars[smp[i].var].dram, drams[d])) summary_add(&e, &smp[i]);
        if (!e.n) continue;
        printf("| %s |", drams[d][0] ? drams[d] : "channel (bytes)");
        summary_cells(&e);
    }
    /* by GEMM length on the protocol DRAMs: fixed latencies weigh most in
     * short GEMMs, while a trace's time sits mostly in long ones */
    static const long long edges[5] = {0, 1000, 10000, 100000, LLONG_MAX};
    static const char *const bucket[4] = {"< 10^3", "10^3 .. 10^4", "10^4 .. 10^5", ">= 10^5"};
    printf("\n| GEMM length (cycle engine, DRAM presets) | GEMMs | cycles mean abs | cycles max abs | DRAM energy mean abs "
           "| DRAM energy max abs |\n|---|---|---|---|---|---|\n");
    for (int b = 0; b < 4; b++) {
        err_summary e = {0};
        for (long long i = 0; i < n; i++)
            if (vars[smp[i].var].dram[0] && smp[i].cy.cycles >= edges[b] && smp[i].cy.cycles < edges[b + 1])
                summary_add(&e, &smp[i]);
        if (!e.n) continue;
        printf("| %s cycles |", bucket[b]);
        summary_cells(&e);
    }
    goal_line("(mean <= 2%, max <= 10%) on this table", &all);
    /* the stalls by cause: both engines name the same cause for a wait */
    double st_sum = 0, st_max = 0;
    for (long long i = 0; i < n; i++) {
        double d = 0;
        for (int k = 0; k < MX_NSTALL; k++) d += fabs((double)(smp[i].an.stall[k] - smp[i].cy.stall[k]));
        d /= (double)smp[i].cy.cycles;
        st_sum += d;
        if (d > st_max) st_max = d;
    }
    long long same_bytes = 0; /* both engines count the DMA's whole bursts of every tile */
    for (long long i = 0; i < n; i++) {
        int same = 1;
        for (int k = 0; k < MX_NOPS; k++)
            same &= smp[i].an.dram_read[k] == smp[i].cy.dram_read[k] && smp[i].an.dram_write[k] == smp[i].cy.dram_write[k];
        same_bytes += same;
    }
    printf("\nDRAM traffic: the analytic engine's bytes read and written per operand equal the cycle engine's on "
           "%lld of the %lld GEMMs.\n", same_bytes, n);
    /* Say how many agree to the cycle: on small GEMMs the analytic engine
     * replays its transfers on the DRAM model, so its closed forms are
     * measured by the rest (and by the held-out seeds) */
    long long same_cycles = 0;
    for (long long i = 0; i < n; i++) same_cycles += smp[i].an.cycles == smp[i].cy.cycles;
    printf("\nSame cycles: the two engines' totals are equal on %lld of the %lld GEMMs, mostly ones whose DRAM "
           "times the analytic engine takes from a replay of its own transfers on the DRAM model or the channel (below).\n",
           same_cycles, n);
    printf("\nStalls by cause (dram/sram/drain/rqu): the analytic engine's four counts differ from the cycle "
           "engine's by %.2f%% of the cycle engine's cycles on average (the sum of the four absolute "
           "differences; max %.2f%%).\n",
           100 * st_sum / (double)n, 100 * st_max);
    if (holdout > 0) {
        const err_summary *a = &ho[holdout];
        printf("\n## Held-out seeds\n\n"
               "The rules of the analytic walk were found by following this table's worst GEMMs (seed %llu), so the "
               "table above is its tuning set; since stop 26 some were found on rows of seeds 14..19 and, since stops "
               "32 and 33, of seeds 20..45, the held-out seeds until then (docs/DECISIONS.md). The same grid with "
               "seeds no rule was looked for in:\n\n"
               "| seed | GEMMs | cycles mean abs | cycles max abs | DRAM energy mean abs | DRAM energy max abs "
               "| cycles > 10%% |\n|---|---|---|---|---|---|---|\n",
               (unsigned long long)seed);
        for (int h = 0; h <= holdout; h++) {
            const err_summary *e = &ho[h];
            if (h < holdout) printf("| %llu |", (unsigned long long)holdout_from + (unsigned long long)h);
            else printf("| all |");
            printf(" %d | %.2f%% | %.2f%% | %.2f%% | %.2f%% | %d |\n", e->n, 100 * e->sum_c / e->n, 100 * e->max_c,
                   100 * e->sum_e / e->n, 100 * e->max_e, e->over);
        }
        printf("\nheld-out: %d GEMMs, cycles mean %.2f%% max %.2f%%, DRAM energy mean %.2f%% max %.2f%%\n", a->n,
               100 * a->sum_c / a->n, 100 * a->max_c, 100 * a->sum_e / a->n, 100 * a->max_e);
        goal_line("on the held-out seeds", a);
    }
    printf("\n## Where the analytic engine differs\n\n"
           "- **GEMMs replayed on the DRAM model.** In a GEMM walked tile by tile (at most 256 tiles) whose DMA "
           "bursts fit 65,536 in all, the analytic engine takes every load's data time, each output half's release "
           "(when the store's last burst is in the controllers) and the final drain's end from a replay of the "
           "transfers it has offered so far, at the times it offered them, on the same DRAM model the cycle engine "
           "steps, carried along the walk (`mx_probe_replay`); in other GEMMs of at most 32 tiles, loads up to "
           "2,048 bursts and the final drain up to 16,384 (1,024 where the walk held a store for a full write "
           "queue). Those GEMMs mostly agree with the cycle engine to the cycle (the count above); what is left is "
           "the cycles the walk keeps (compute, RQU, output drain). Every other GEMM is timed by the closed-form "
           "rules below; in this grid they are the few larger GEMMs, so this table measures the replay more than "
           "the rules (`make validate-traces` measures whole networks, mostly timed by the rules).\n"
           "- **Reads and writes on one DRAM.** The controller turns to writes only when no read waits (the "
           "store DMA never fills its write queue to the watermark), and a drain, once begun, runs down to "
           "`write_low` (0 on the presets) before the next read. The analytic engine: a store that fits the room "
           "left in its channel's write queue (its bursts spread over the channels as its addresses spread them) "
           "frees its output half at once; a larger one holds it until a drain has taken all but what the "
           "store's probe still had queued when its last burst entered (the probe issues writes as the DMA does, "
           "in address order and below the watermark, so a store that fills one channel waits for that channel's "
           "drain before the next; later than the probe by as much as the rows the last load left in that "
           "channel delay the drain). Writes ready before a load is wanted go first, except when that load was "
           "wanted before the previous load's requests had all left the read queue (it never empties then, so no "
           "write goes between the two), and except for a load issued in the slot reserved ahead of a held "
           "store's drain. A held store whose filled channels neither the last load nor the next one reads "
           "drains beside them from when it is ready (each channel's controller writes when no read waits in "
           "it), and the loads do not wait for it; otherwise the walk keeps one channel time for all channels. "
           "A drain that the next load's reads cut short in a channel the store fills (the DMA "
           "stops feeding it; the held store's last bursts enter when the queue has emptied, or, when more of the "
           "store is left than the queue's room or at least an eighth of it, the load goes first and the rest "
           "after it, one stream with the next store queued by then, probed together at their own addresses) "
           "is seen in GEMMs "
           "walked tile by tile (at most 32 tiles, where each tile's channels are known), and in longer ones "
           "only when the load takes at least the store's channel time (the class's first tile stands for its "
           "channels); "
           "nor is a drain that runs on into stores queued after the one it was for, nor what the rest of a cut "
           "store costs the loads after it.\n"
           "- **Transfers probed alone or with their neighbour.** Each distinct tile transfer is timed on the DRAM "
           "model alone, and in context where the cycle engine showed the neighbour matters (docs/ARCH.md): the "
           "first two loads issued together (with the third, when it arrives before the second's last reads); a store behind a store (issued together, or at its own offset when it arrives after the previous one's channel time); a load behind a draining store; a store or "
           "load after a load, timed by the gap since that load's last request left the controller's queue (the "
           "later of what the load's commands still impose and its own time on the load's rows); a load the next "
           "one reaches before its last bursts are read (FR-FCFS may serve the next one's row hits first); what follows "
           "the first two loads, on the rows they left. Only the last and first 512 bursts of the two are probed "
           "together. Older transfers' rows, bank-group and refresh state are not seen. GEMMs of at most 32 "
           "tiles probe every tile at its own address phase (which banks, bank groups and rows its bursts hit: "
           "streaming one bank group costs tCCD_L a burst, two tCCD_S); longer ones charge each tile its shape "
           "class's first tile, and walk with jumps.\n"
           "- **The bandwidth channel.** In a GEMM of at most 256 tiles and 2^20 requests the analytic engine "
           "replays its transfers, as it offered them, on the channel the cycle engine steps (`mx_chan`), for "
           "every load's data, output half's release and the final drain, as on the DRAM presets above. In "
           "larger ones: the DMA offers loads before stores, so while loads stream a store "
           "enters only the part of the channel's window the reads leave (a read stream is held back by the "
           "256 reads it may have outstanding) and, a ring period later, what its own writes freed; the analytic "
           "engine frees the output half when the store's last request is in by that rule, but books the store's "
           "channel time before the next load, where the cycle engine spreads it over the loads.\n"
           "- **Small GEMMs** (a few hundred cycles): fixed latencies (DRAM read latency, write latency, RQU and "
           "drain path) are most of the time, so one latency counted differently is tens of percent.\n"
           "- **Refresh**: the analytic engine counts the REF commands of the cycle engine's schedule (rank r "
           "first due at (r + 1) tREFI / ranks, then every tREFI) for their energy. A REF of the first round "
           "(up to tREFI) due inside a load on a rank it reads holds that load for tRFC, once (a load whose own "
           "probe ran into a REF is not charged again); stores, and every transfer from half a REF step after "
           "tREFI on, are stretched by tRFC / tREFI (in expectation; such a load timed by its probe without refresh, "
           "so its probe's own REFs are not counted again), where the cycle engine's transfers wait for the REFs "
           "that actually fall inside them; a first-round REF inside a store's drain, or one that a load the walk "
           "placed a little early or late misses or meets, is charged where the cycle engine does not.\n"
           "- Both engines count DRAM traffic in the DMA's whole bursts (the bandwidth channel's column compares "
           "those bytes). Background energy: the analytic engine charges each rank active standby from the first "
           "transfer that touches it, less the expected closed time after REFs in idle gaps; the cycle engine counts "
           "each rank's open banks clock by clock.\n");
    printf("\n## What the worst rows are\n\n"
           "- **Overlapping loads** (analytic too slow or too fast, memory-bound): a load queued while the previous "
           "one streams is interleaved with it by FR-FCFS across banks and bank groups; the first of the two "
           "finishes later and the second sooner than in sequence. Pair probes cover the first two loads (with the third when it overtakes the second) and a load the next one overtakes; "
           "timing every load as the marginal time behind its predecessor was tried (stop 20) and overcharged "
           "more rows than it fixed.\n"
           "- **Drains cut short or run on** (analytic too fast; the rqu and drain columns): a held store whose "
           "drain the next load's reads cut short frees its half only once the queue has emptied, and its last "
           "bursts then wait for the next gap, so the cycle engine leaves more stores for the final drain than "
           "the analytic walk, which serves them in gaps. Modelling the cut and the run-on of a drain in the walk "
           "was tried (stop 21, before the reserved-slot fix): cycles mean 1.21%% -> 1.32%%, max 17%%; it fixed "
           "these rows and misplaced drains in others.\n"
           "- **Writes behind reads in small GEMMs** (tens of cycles): a store issued while reads are queued "
           "waits for their data and the bus turnaround.\n");
    qsort(smp, (size_t)n, sizeof *smp, cmp_abs_cyc);
    printf("\n## Worst cases (cycles)\n\n");
    print_worst(smp, n < 10 ? n : 10, vars, 0);
    if (holdout > 0) {
        printf("\n## Worst held-out cases (cycles)\n\n");
        print_worst(ho_worst, ho_nworst, vars, 1);
    }
    /* Outside the grid: the same GEMMs with small buffers, where a
     * GEMM is many small tiles and the DRAM controller's queue dynamics
     * (held output halves, overlapping loads) dominate. */
    static const int kibs[3] = {MX_ANALYTIC_VALIDATED_KIB, 64, 16};
    printf("\n## Smaller buffers (outside the issue's grid)\n\n"
           "The same %lld GEMMs and configurations with the A, B and output buffers all set to %d, 64 and 16 KiB "
           "(the grid above: A %g KiB, B %g KiB, output %g KiB). Small buffers make many small tiles; their loads "
           "overlap in the controller and their stores fill the write queue, which is where the analytic walk's "
           "rules (above) are approximate. Use `--engine cycle` for cycles and DRAM energy of such "
           "configurations; `mxsim run` says so when it runs the analytic engine on one.\n\n"
           "| buffers | DRAM | GEMMs | cycles mean abs | cycles max abs | DRAM energy mean abs | DRAM energy max abs "
           "| cycles > 10%% |\n|---|---|---|---|---|---|---|---|\n",
           n, MX_ANALYTIC_VALIDATED_KIB, base_kib[MX_OP_A], base_kib[MX_OP_B], base_kib[MX_OP_OUT]);
    sample *sb = calloc((size_t)n, sizeof *sb);
    if (!sb) { snprintf(err, sizeof err, "out of memory"); goto bad; }
    for (int b = 0; b < 3; b++) {
        if (run_grid(base, kibs[b], vars, nv, n, seed, max_dim, sb, err, sizeof err) != 0) { free(sb); goto bad; }
        for (int d = 0; d < 4; d++) {
            err_summary e = {0};
            for (long long i = 0; i < n; i++)
                if (!strcmp(vars[sb[i].var].dram, drams[d])) summary_add(&e, &sb[i]);
            if (!e.n) continue;
            printf("| %d KiB | %s | %d | %.2f%% | %.2f%% | %.2f%% | %.2f%% | %d |\n", kibs[b],
                   drams[d][0] ? drams[d] : "channel (bytes)", e.n, 100 * e.sum_c / e.n, 100 * e.max_c,
                   100 * e.sum_e / e.n, 100 * e.max_e, e.over);
        }
    }
    free(sb);
    free(smp);
    return 0;
bad:
    mx_print_error("mxsim validate", "%s", err);
    free(smp);
    return 2;
}
