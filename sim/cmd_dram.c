/*
 * cmd_dram.c — `mxsim dram`: a DRAMsim3-format request trace through the
 * protocol-level DRAM model (models/mem/mx_dram.h) on a DRAM config (our
 * YAML or a DRAMsim3 .ini, sim/dram_config.h); a short table and a JSON
 * report.  The trace is streamed (one pending request in memory), so its
 * length is not bounded by memory.
 */
#include "config_yaml.h"
#include "dram_config.h"
#include "cli_getopt.h"
#include "json_out.h"
#include "mxsim_cmd.h"
#include "version.h"

#include "arch/mx_trace.h"
#include "mem/mx_dram.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRACE_LINE_MAX 256 /* longer trace lines are refused */

typedef struct {
    const char *config_path;
    const char *trace_path;
    const char *out_path;
    uint64_t cycles; /* 0: until every request completed */
    int quiet;
} dram_opts;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mxsim dram -c CONFIG(.yaml|.ini) -t TRACE [--cycles N] [-o OUT.json] [-q]\n"
            "  Runs a DRAMsim3-format request trace ('0xADDR READ|WRITE CYCLE' per line, CYCLE in\n"
            "  DRAM clocks, non-decreasing; one burst per request; blank lines and # comments)\n"
            "  through the DRAM model on CONFIG (configs/dram/*.yaml or a DRAMsim3 .ini preset).\n"
            "  Requests enter at their cycle, in trace order; one that finds its queue full waits\n"
            "  (and holds the ones behind it), as DRAMsim3's trace CPU does.  Runs until every\n"
            "  request has completed, or exactly N clocks with --cycles N (as DRAMsim3's -c).\n"
            "  Prints a summary; -o writes a JSON report; -q prints nothing.\n");
}

static int parse_u64(const char *s, int base, uint64_t *v)
{
    if (!*s || *s == '-' || *s == '+' || isspace((unsigned char)*s)) return -1;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, base);
    if (*end || errno) return -1;
    *v = x;
    return 0;
}

enum { OPT_CYCLES = 256 };
static const struct option dram_longopts[] = {
    {"config", required_argument, NULL, 'c'}, {"trace", required_argument, NULL, 't'},
    {"out", required_argument, NULL, 'o'},    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},         {"cycles", required_argument, NULL, OPT_CYCLES},
    {NULL, 0, NULL, 0}};

static int parse_opts(int argc, char **argv, dram_opts *o)
{
    memset(o, 0, sizeof *o);
    optind = 0; /* a fresh scan; '+': the first operand ends the options */
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, "+:c:t:o:qh", dram_longopts, NULL)) != -1) {
        const char *v = optarg;
        switch (ch) {
        case 'h': usage(stdout); return 1;
        case 'q': o->quiet = 1; break;
        case 'c': o->config_path = v; break;
        case 't': o->trace_path = v; break;
        case 'o': o->out_path = v; break;
        case OPT_CYCLES:
            if (parse_u64(v, 10, &o->cycles) != 0 || o->cycles == 0 || o->cycles > (UINT64_MAX >> 2)) {
                mx_print_error("mxsim dram", "option '--cycles': must be a positive integer, got '%s'", v);
                return 2;
            }
            break;
        default: return mx_getopt_fail("mxsim dram", ch, argv, dram_longopts);
        }
    }
    if (optind < argc) {
        mx_print_error("mxsim dram", "unexpected argument '%s' (see mxsim dram --help)", argv[optind]);
        return 2;
    }
    if (!o->config_path || !o->trace_path) {
        mx_print_error("mxsim dram", "-c CONFIG and -t TRACE are required (see mxsim dram --help)");
        return 2;
    }
    return 0;
}

/* ---- the trace, streamed ------------------------------------------------ */

typedef struct {
    FILE *f;
    const char *path;
    long line;
    int eof;
    uint64_t last_cycle;
    /* the next request */
    int have;
    uint64_t addr, cycle;
    int is_write;
} trace_reader;

/* Reads the next request into t (have = 1), or sets eof.  0, or 2 after
 * printing "TRACE:LINE: ..." on a bad line. */
static int trace_next(trace_reader *t)
{
    char buf[TRACE_LINE_MAX + 1];
    while (!t->have && !t->eof) {
        int bad_char;
        int r = mx_line_read(t->f, buf, sizeof buf, &bad_char); /* bounded: never reads past a bad byte */
        if (r == MX_LINE_EOF) {
            t->eof = 1;
            break;
        }
        t->line++;
        if (r != MX_LINE_OK) {
            char why[160];
            mx_line_error(r, sizeof buf, bad_char, why, sizeof why);
            mx_print_error("mxsim dram", "%s:%ld: %s", t->path, t->line, why);
            return 2;
        }
        char *hash = strchr(buf, '#');
        if (hash) *hash = 0;
        char *tok[4];
        int nt = 0;
        for (char *s = strtok(buf, " \t\r,"); s && nt < 4; s = strtok(NULL, " \t\r,")) tok[nt++] = s;
        if (nt == 0) continue;
        if (nt < 3) {
            mx_print_error("mxsim dram", "%s:%ld: truncated line: expected '0xADDR READ|WRITE CYCLE', got %d field%s",
                    t->path, t->line, nt, nt == 1 ? "" : "s");
            return 2;
        }
        if (nt > 3) {
            mx_print_error("mxsim dram", "%s:%ld: extra field '%s' after '0xADDR READ|WRITE CYCLE'", t->path,
                    t->line, tok[3]);
            return 2;
        }
        const char *a = tok[0];
        if (a[0] == '0' && (a[1] == 'x' || a[1] == 'X')) a += 2;
        if (parse_u64(a, 16, &t->addr) != 0) {
            mx_print_error("mxsim dram", "%s:%ld: address: not a hexadecimal number: '%s'", t->path, t->line, tok[0]);
            return 2;
        }
        if (!strcmp(tok[1], "READ")) t->is_write = 0;
        else if (!strcmp(tok[1], "WRITE")) t->is_write = 1;
        else {
            mx_print_error("mxsim dram", "%s:%ld: request type must be READ or WRITE, got '%s'", t->path, t->line, tok[1]);
            return 2;
        }
        if (parse_u64(tok[2], 10, &t->cycle) != 0 || t->cycle > (UINT64_MAX >> 2)) {
            mx_print_error("mxsim dram", "%s:%ld: cycle: not a non-negative integer: '%s'", t->path, t->line, tok[2]);
            return 2;
        }
        if (t->cycle < t->last_cycle) {
            mx_print_error("mxsim dram", "%s:%ld: cycle %" PRIu64 " is before the previous request's cycle %" PRIu64
                            " (cycles must not decrease)",
                    t->path, t->line, t->cycle, t->last_cycle);
            return 2;
        }
        t->last_cycle = t->cycle;
        t->have = 1;
    }
    return 0;
}

/* ---- simulation ------------------------------------------------------------ */

typedef struct {
    mx_dram_stats s;
    uint64_t fed;        /* requests handed to the model */
    uint64_t completed;  /* completions popped */
    uint64_t unissued;   /* with --cycles: requests of the trace not yet fed */
} dram_result;

static int simulate(const dram_opts *o, const mx_dram_config *cfg, dram_result *r)
{
    char err[600];
    memset(r, 0, sizeof *r);
    trace_reader t;
    memset(&t, 0, sizeof t);
    t.path = o->trace_path;
    t.f = fopen(o->trace_path, "r");
    if (!t.f) {
        mx_print_error("mxsim dram", "%s: cannot open the trace: %s", o->trace_path, strerror(errno));
        return 2;
    }
    mx_dram *d = mx_dram_new(cfg, err, sizeof err);
    if (!d) {
        mx_print_error("mxsim dram", "%s: %s", o->config_path, err);
        fclose(t.f);
        return 2;
    }
    const uint64_t limit = o->cycles ? o->cycles : UINT64_MAX;
    /* Watchdog against a model that stops making progress: far longer than
     * any legitimate wait (a refresh, a full queue draining). */
    const uint64_t stall_max = 1000000 + 64 * ((uint64_t)cfg->t.tREFI + (uint64_t)cfg->t.tRFC);
    uint64_t last_progress = 0;
    int rc = 0;
    for (;;) {
        if ((rc = trace_next(&t)) != 0) break;
        uint64_t now = mx_dram_now(d);
        mx_dram_done dn; /* retired by the last tick or run_until (mx_dram_add retires nothing) */
        while (mx_dram_pop_done(d, &dn)) { r->completed++; last_progress = now; }
        if (now >= limit) break;
        int blocked = 0;
        while (t.have && t.cycle <= now) {
            if (!mx_dram_can_accept(d, t.addr, t.is_write) || mx_dram_add(d, t.addr, t.is_write, r->fed) != 0) {
                blocked = 1;
                break;
            }
            r->fed++;
            t.have = 0;
            last_progress = now;
            if ((rc = trace_next(&t)) != 0) break;
        }
        if (rc) break;
        if (r->completed == r->fed) last_progress = now; /* idle is not a stall */
        int all_done = !t.have && t.eof && r->completed == r->fed;
        if (all_done && !o->cycles) break;
        if (now - last_progress > stall_max) {
            mx_print_error("mxsim dram", "the DRAM model made no progress for %" PRIu64 " clocks at clock %" PRIu64
                            " (%" PRIu64 " of %" PRIu64 " requests completed)",
                    now - last_progress, now, r->completed, r->fed);
            rc = 1;
            break;
        }
        if (blocked) {
            mx_dram_tick(d); /* a queue may free up in any clock */
        } else {
            uint64_t target = mx_dram_next_event(d);
            if (t.have && t.cycle < target) target = t.cycle;
            if (limit < target) target = limit;
            if (target == UINT64_MAX || target <= now + 1) mx_dram_tick(d);
            else mx_dram_run_until(d, target);
        }
    }
    if (!rc) {
        mx_dram_get_stats(d, &r->s);
        /* with --cycles: requests left in the trace (counted, not simulated) */
        while (!rc && o->cycles && (t.have || !t.eof)) {
            if (t.have) { r->unissued++; t.have = 0; }
            rc = trace_next(&t);
        }
    }
    mx_dram_free(d);
    fclose(t.f);
    return rc;
}

static double avg_read_latency(const dram_result *r)
{
    return r->s.reads_done ? (double)r->s.read_latency_sum / (double)r->s.reads_done : 0.0;
}

static double bandwidth_gbs(const mx_dram_config *c, const dram_result *r)
{
    if (!r->s.cycles) return 0.0;
    double bytes = (double)(r->s.reads_done + r->s.writes_done) * mx_dram_burst_bytes(c);
    return bytes / ((double)r->s.cycles * c->tCK_ns); /* bytes per ns = GB/s */
}

static void print_table(const dram_opts *o, const mx_dram_config *c, const dram_result *r)
{
    const mx_dram_stats *s = &r->s;
    printf("mxsim %s\n", mxsim_version());
    printf("dram %s: %d ch x %d rank x %d bg x %d banks, %d rows x %d cols, x%d on %d bit, BL%d, tCK %.4g ns, %s page; trace %s\n",
           c->name, c->channels, c->ranks, c->bankgroups, c->banks_per_group, c->rows, c->columns,
           c->device_width, c->bus_bits, c->BL, c->tCK_ns, c->page_policy == MX_PAGE_OPEN ? "open" : "closed",
           o->trace_path);
    printf("%-22s %" PRIu64 " (%.3f us)%s\n", "cycles", s->cycles, (double)s->cycles * c->tCK_ns * 1e-3,
           o->cycles ? " (--cycles)" : "");
    printf("%-22s %" PRIu64 " / %" PRIu64, "reads / writes done", s->reads_done, s->writes_done);
    if (r->fed != r->completed || r->unissued)
        printf(" (%" PRIu64 " in flight, %" PRIu64 " not issued)", r->fed - r->completed, r->unissued);
    printf("\n%-22s %.2f clocks (%.2f ns)\n", "avg read latency", avg_read_latency(r),
           avg_read_latency(r) * c->tCK_ns);
    printf("%-22s ACT %" PRIu64 "  PRE %" PRIu64 "  RD %" PRIu64 "  WR %" PRIu64 "  REF %" PRIu64 "\n", "commands",
           s->act, s->pre, s->rd, s->wr, s->ref);
    printf("%-22s %" PRIu64 " / %" PRIu64 " (conflicts %" PRIu64 ")\n", "row hits / misses", s->row_hits,
           s->row_misses, s->row_conflicts);
    printf("%-22s %.3f GB/s (peak %.3f GB/s)\n", "bandwidth", bandwidth_gbs(c, r), mx_dram_peak_gbs(c));
    printf("%-22s", "energy (nJ)");
    for (int i = 0; i < MX_DRAM_E_N; i++)
        printf(" %s %.3f", mx_dram_energy_name((mx_dram_energy)i), s->energy_pj[i] * 1e-3);
    printf("  total %.3f\n", s->energy_total_pj * 1e-3);
}

/* ---- JSON (jansson) ------------------------------------------------------- */

static json_t *json_config(const mx_dram_config *c)
{
    json_t *j = json_object(), *t = json_object(), *p = json_object();
    json_object_set_new(j, "name", mx_jstr(c->name));
    json_object_set_new(j, "channels", json_integer(c->channels));
    json_object_set_new(j, "ranks", json_integer(c->ranks));
    json_object_set_new(j, "bankgroups", json_integer(c->bankgroups));
    json_object_set_new(j, "banks_per_group", json_integer(c->banks_per_group));
    json_object_set_new(j, "rows", json_integer(c->rows));
    json_object_set_new(j, "columns", json_integer(c->columns));
    json_object_set_new(j, "device_width", json_integer(c->device_width));
    json_object_set_new(j, "bus_bits", json_integer(c->bus_bits));
    json_object_set_new(j, "BL", json_integer(c->BL));
    json_object_set_new(j, "tCK_ns", mx_jnum(c->tCK_ns));
    for (size_t i = 0; i < mx_dram_timing_table_n; i++) {
        const mx_dram_timing_field *e = &mx_dram_timing_table[i];
        int v;
        memcpy(&v, (const char *)&c->t + e->offset, sizeof v);
        json_object_set_new(t, e->name, json_integer(v));
    }
    json_object_set_new(j, "timing", t);
    json_object_set_new(p, "VDD", mx_jnum(c->p.VDD));
    const char *pn[6] = {"IDD0", "IDD2N", "IDD3N", "IDD4R", "IDD4W", "IDD5"};
    const double pv[6] = {c->p.IDD0, c->p.IDD2N, c->p.IDD3N, c->p.IDD4R, c->p.IDD4W, c->p.IDD5};
    for (int i = 0; i < 6; i++) json_object_set_new(p, pn[i], mx_jnum(pv[i]));
    json_object_set_new(j, "power", p);
    json_object_set_new(j, "page_policy", json_string(c->page_policy == MX_PAGE_OPEN ? "open" : "closed"));
    json_object_set_new(j, "address_mapping", mx_jstr(c->address_mapping));
    json_object_set_new(j, "queue_size", json_integer(c->queue_size));
    json_object_set_new(j, "write_high", json_integer(c->write_high));
    json_object_set_new(j, "write_low", json_integer(c->write_low));
    json_object_set_new(j, "refresh", json_boolean(c->refresh));
    return j;
}

static json_t *json_u64(uint64_t v) { return json_integer((json_int_t)v); }

static int write_json(const char *path, const dram_opts *o, const mx_dram_config *c, const dram_result *r)
{
    const mx_dram_stats *s = &r->s;
    json_t *j = json_object(), *e = json_object();
    json_object_set_new(j, "engine", json_string("dram"));
    json_object_set_new(j, "version", mx_jstr(mxsim_version()));
    json_object_set_new(j, "config_path", mx_jstr(o->config_path));
    json_object_set_new(j, "trace", mx_jstr(o->trace_path));
    json_object_set_new(j, "cycles_limit", o->cycles ? json_u64(o->cycles) : json_null());
    json_object_set_new(j, "cycles", json_u64(s->cycles));
    json_object_set_new(j, "requests_issued", json_u64(r->fed));
    json_object_set_new(j, "requests_in_flight", json_u64(r->fed - r->completed));
    json_object_set_new(j, "requests_not_issued", json_u64(r->unissued));
    json_object_set_new(j, "reads_done", json_u64(s->reads_done));
    json_object_set_new(j, "writes_done", json_u64(s->writes_done));
    json_object_set_new(j, "avg_read_latency", mx_jnum(avg_read_latency(r)));
    json_object_set_new(j, "read_latency_sum", json_u64(s->read_latency_sum));
    json_object_set_new(j, "act", json_u64(s->act));
    json_object_set_new(j, "pre", json_u64(s->pre));
    json_object_set_new(j, "rd", json_u64(s->rd));
    json_object_set_new(j, "wr", json_u64(s->wr));
    json_object_set_new(j, "ref", json_u64(s->ref));
    json_object_set_new(j, "row_hits", json_u64(s->row_hits));
    json_object_set_new(j, "row_misses", json_u64(s->row_misses));
    json_object_set_new(j, "row_conflicts", json_u64(s->row_conflicts));
    json_object_set_new(j, "bytes", json_u64((s->reads_done + s->writes_done) * (uint64_t)mx_dram_burst_bytes(c)));
    json_object_set_new(j, "bandwidth_gbs", mx_jnum(bandwidth_gbs(c, r)));
    json_object_set_new(j, "peak_bandwidth_gbs", mx_jnum(mx_dram_peak_gbs(c)));
    for (int i = 0; i < MX_DRAM_E_N; i++)
        json_object_set_new(e, mx_dram_energy_name((mx_dram_energy)i), mx_jnum(s->energy_pj[i]));
    json_object_set_new(e, "total", mx_jnum(s->energy_total_pj));
    json_object_set_new(j, "energy_pj", e);
    json_object_set_new(j, "config", json_config(c));
    const int rc = mx_json_write_file(j, path);
    json_decref(j);
    return rc == 0 ? 0 : -1;
}

/* To a temporary beside OUT, then rename: never half-written. */
static int write_report(const dram_opts *o, const mx_dram_config *c, const dram_result *r)
{
    size_t n = strlen(o->out_path) + 16;
    char *tmp = malloc(n);
    if (!tmp) { mx_print_error("mxsim dram", "out of memory"); return 2; }
    snprintf(tmp, n, "%s.tmp", o->out_path);
    if (write_json(tmp, o, c, r) != 0 || rename(tmp, o->out_path) != 0) {
        mx_print_error("mxsim dram", "option '-o': cannot write '%s': %s", o->out_path, strerror(errno));
        remove(tmp);
        free(tmp);
        return 2;
    }
    free(tmp);
    return 0;
}

int mxsim_cmd_dram(int argc, char **argv)
{
    dram_opts o;
    int rc = parse_opts(argc, argv, &o);
    if (rc) return rc == 1 ? 0 : rc;
    mx_dram_config cfg;
    char err[600];
    if (mx_dram_config_load(o.config_path, &cfg, err, sizeof err) != 0) {
        mx_print_error("mxsim dram", "%s", err);
        return 2;
    }
    dram_result r;
    rc = simulate(&o, &cfg, &r);
    if (rc) return rc;
    if (!o.quiet) print_table(&o, &cfg, &r);
    if (o.out_path) rc = write_report(&o, &cfg, &r);
    return rc;
}
