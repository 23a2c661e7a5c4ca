/*
 * cmd_import_scalesim.c — `mxsim import-scalesim CFG TOPO -o DIR`: converts a
 * SCALE-Sim v2 configuration (.cfg) and topology (.csv, convolution or GEMM
 * M,N,K form) into DIR/config.yaml and DIR/trace.csv.  The config runs in
 * SCALE-Sim-compatible mode: one lane, no fold overlap, ideal memory, its
 * fill/drain conventions (docs/ARCH.md), so that `mxsim run --mode timing`
 * gives SCALE-Sim's "Total Cycles" per layer.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "mxsim_cmd.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char *trim(char *s)
{
    while (isspace((unsigned char)*s)) s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1])) *--e = 0;
    return s;
}

typedef struct {
    long long rows, cols, ifmap_kb, filter_kb, ofmap_kb, banks;
    char dataflow[8];
    char run_name[64];
} ss_cfg;

static int parse_cfg(const char *path, ss_cfg *c)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "mxsim import-scalesim: %s: cannot open: %s\n", path, strerror(errno));
        return 2;
    }
    memset(c, 0, sizeof *c);
    c->banks = 1;
    snprintf(c->run_name, sizeof c->run_name, "scalesim");
    char buf[1024];
    int line = 0, rc = 0;
    int have_r = 0, have_c = 0, have_df = 0;
    while (fgets(buf, sizeof buf, f)) {
        line++;
        char *s = trim(buf);
        if (!*s || *s == '#' || *s == ';' || *s == '[') continue;
        char *sep = strpbrk(s, ":=");
        if (!sep) {
            fprintf(stderr, "mxsim import-scalesim: %s:%d: expected 'Key: value'\n", path, line);
            rc = 2;
            break;
        }
        *sep = 0;
        char *k = trim(s), *v = trim(sep + 1);
        long long *num = NULL;
        if (!strcmp(k, "ArrayHeight")) { num = &c->rows; have_r = 1; }
        else if (!strcmp(k, "ArrayWidth")) { num = &c->cols; have_c = 1; }
        else if (!strcmp(k, "IfmapSramSzkB")) num = &c->ifmap_kb;
        else if (!strcmp(k, "FilterSramSzkB")) num = &c->filter_kb;
        else if (!strcmp(k, "OfmapSramSzkB")) num = &c->ofmap_kb;
        else if (!strcmp(k, "MemoryBanks")) num = &c->banks;
        else if (!strcmp(k, "Dataflow")) {
            if (strcmp(v, "os") && strcmp(v, "ws") && strcmp(v, "is")) {
                fprintf(stderr, "mxsim import-scalesim: %s:%d: key 'Dataflow': must be os, ws or is, got '%s'\n", path, line, v);
                rc = 2;
                break;
            }
            snprintf(c->dataflow, sizeof c->dataflow, "%s", v);
            have_df = 1;
        } else if (!strcmp(k, "run_name")) {
            snprintf(c->run_name, sizeof c->run_name, "%s", v);
        }
        /* other keys (offsets, Bandwidth, InterfaceBandwidth, ...) do not
         * affect compute cycles under ideal memory */
        if (num) {
            char *end;
            errno = 0;
            long long x = strtoll(v, &end, 10);
            if (!*v || *end || errno || x < 1 || x > 1048576) {
                fprintf(stderr, "mxsim import-scalesim: %s:%d: key '%s': must be a positive integer, got '%s'\n", path, line, k, v);
                rc = 2;
                break;
            }
            *num = x;
        }
    }
    fclose(f);
    if (!rc && (!have_r || !have_c || !have_df)) {
        fprintf(stderr, "mxsim import-scalesim: %s: missing key '%s'\n", path,
                !have_r ? "ArrayHeight" : !have_c ? "ArrayWidth" : "Dataflow");
        rc = 2;
    }
    if (!rc && (c->rows > 1024 || c->cols > 1024)) {
        fprintf(stderr, "mxsim import-scalesim: %s: key 'ArrayHeight/ArrayWidth': must be 1..1024\n", path);
        rc = 2;
    }
    return rc;
}

static int parse_ll(const char *s, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || errno || v < 1) return -1;
    *out = v;
    return 0;
}

/* Topology -> trace rows.  Conv: name, ifmap H, W, filter H, W, channels,
 * filters, stride: M = ofmap H*W, N = filters, K = filter H*W*channels
 * (SCALE-Sim's im2col view, its ofmap size ceil((in - filter + stride) /
 * stride)).  GEMM: name, M, N, K. */
static int convert_topo(const char *path, FILE *out)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "mxsim import-scalesim: %s: cannot open: %s\n", path, strerror(errno));
        return 2;
    }
    char buf[2048];
    int line = 0, rc = 0, rows = 0, header = 1;
    while (fgets(buf, sizeof buf, f)) {
        line++;
        char *s = trim(buf);
        if (!*s || *s == '#') continue;
        char *fld[16];
        int n = 0;
        for (char *p = s; n < 16;) {
            char *comma = strchr(p, ',');
            if (comma) *comma = 0;
            fld[n++] = trim(p);
            if (!comma) break;
            p = comma + 1;
        }
        while (n > 0 && !*fld[n - 1]) n--; /* SCALE-Sim rows end with ',' */
        if (header) { header = 0; continue; }
        long long v[7] = {0};
        long long M, N, K;
        if (n == 4) {
            for (int i = 0; i < 3; i++)
                if (parse_ll(fld[i + 1], &v[i])) goto badnum;
            M = v[0]; N = v[1]; K = v[2];
        } else if (n == 8) {
            for (int i = 0; i < 7; i++)
                if (parse_ll(fld[i + 1], &v[i])) goto badnum;
            /* ifmap H W, filter H W, channels, filters, stride */
            if (v[2] > v[0] || v[3] > v[1]) {
                fprintf(stderr, "mxsim import-scalesim: %s:%d: filter larger than the ifmap\n", path, line);
                rc = 2;
                break;
            }
            /* SCALE-Sim's ofmap size: ceil((in - filter + stride) / stride) */
            long long oh = (v[0] - v[2] + 2 * v[6] - 1) / v[6], ow = (v[1] - v[3] + 2 * v[6] - 1) / v[6];
            M = oh * ow; N = v[5]; K = v[2] * v[3] * v[4];
        } else {
            fprintf(stderr, "mxsim import-scalesim: %s:%d: expected 4 (name,M,N,K) or 8 (conv) columns, got %d\n", path, line, n);
            rc = 2;
            break;
        }
        fprintf(out, "%s,%lld,%lld,%lld,inf,1\n", *fld[0] ? fld[0] : "layer", M, N, K);
        rows++;
        continue;
    badnum:
        fprintf(stderr, "mxsim import-scalesim: %s:%d: expected positive integers after the layer name\n", path, line);
        rc = 2;
        break;
    }
    fclose(f);
    if (!rc && rows == 0) {
        fprintf(stderr, "mxsim import-scalesim: %s: no layers\n", path);
        rc = 2;
    }
    return rc;
}

int mxsim_cmd_import_scalesim(int argc, char **argv)
{
    const char *cfg = NULL, *topo = NULL, *dir = NULL;
    const char *energy = "configs/energy/horowitz45.yaml";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: mxsim import-scalesim CFG TOPOLOGY.csv -o DIR [--energy TABLE.yaml]\n"
                   "  writes DIR/config.yaml (SCALE-Sim-compatible timing) and DIR/trace.csv\n");
            return 0;
        }
        if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--energy")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "mxsim import-scalesim: option '%s' needs a value\n", argv[i]);
                return 2;
            }
            if (!strcmp(argv[i], "-o")) dir = argv[++i];
            else energy = argv[++i];
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "mxsim import-scalesim: unknown option '%s'\n", argv[i]);
            return 2;
        } else if (!cfg) cfg = argv[i];
        else if (!topo) topo = argv[i];
        else {
            fprintf(stderr, "mxsim import-scalesim: unexpected argument '%s'\n", argv[i]);
            return 2;
        }
    }
    if (!cfg || !topo || !dir) {
        fprintf(stderr, "usage: mxsim import-scalesim CFG TOPOLOGY.csv -o DIR\n");
        return 2;
    }
    ss_cfg c;
    int rc = parse_cfg(cfg, &c);
    if (rc) return rc;
    char epath[PATH_MAX];
    if (!realpath(energy, epath)) {
        fprintf(stderr, "mxsim import-scalesim: option '--energy': %s: %s\n", energy, strerror(errno));
        return 2;
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "mxsim import-scalesim: option '-o': cannot create '%s': %s\n", dir, strerror(errno));
        return 2;
    }
    char tpath[4200], tmp[4300], cpath[4200], ctmp[4300];
    snprintf(tpath, sizeof tpath, "%s/trace.csv", dir);
    snprintf(tmp, sizeof tmp, "%s/.trace.csv.tmp", dir);
    snprintf(cpath, sizeof cpath, "%s/config.yaml", dir);
    snprintf(ctmp, sizeof ctmp, "%s/.config.yaml.tmp", dir);
    FILE *t = fopen(tmp, "w");
    if (!t) {
        fprintf(stderr, "mxsim import-scalesim: cannot write '%s': %s\n", tmp, strerror(errno));
        return 2;
    }
    fprintf(t, "# Imported from SCALE-Sim topology %s by mxsim import-scalesim\nname,M,N,K,phase,count\n", topo);
    rc = convert_topo(topo, t);
    if (fclose(t) != 0 && !rc) rc = 2;
    if (rc) { remove(tmp); return rc; }
    FILE *y = fopen(ctmp, "w");
    if (!y) { remove(tmp); fprintf(stderr, "mxsim import-scalesim: cannot write '%s'\n", ctmp); return 2; }
    fprintf(y,
            "# Imported from SCALE-Sim config %s by mxsim import-scalesim.\n"
            "# SCALE-Sim conventions (docs/ARCH.md): one lane, no fold overlap, ideal memory.\n"
            "name: %s\n"
            "arch:\n  rows: %lld\n  cols: %lld\n  lanes: 1\n  dataflow: %s\n  pe_pipeline_depth: 1\n"
            "  fold_overlap: false\n  scalesim_compat: true\n"
            "format:\n  a: fp8_e4m3\n  b: fp8_e4m3\n  out: fp8_e4m3\n  tile: none\n"
            "memory:\n"
            "  sram_a:   {kib: %lld, banks: %lld, bytes_per_cycle: 64}\n"
            "  sram_b:   {kib: %lld, banks: %lld, bytes_per_cycle: 64}\n"
            "  sram_out: {kib: %lld, banks: %lld, bytes_per_cycle: 64}\n"
            "  ideal: true\n"
            "training:\n  requant: false\n"
            "energy:\n  table: %s\n",
            cfg, c.run_name, c.rows, c.cols, c.dataflow, c.ifmap_kb ? c.ifmap_kb : 64, c.banks,
            c.filter_kb ? c.filter_kb : 64, c.banks, c.ofmap_kb ? c.ofmap_kb : 64, c.banks, epath);
    if (fclose(y) != 0 || rename(tmp, tpath) != 0 || rename(ctmp, cpath) != 0) {
        remove(tmp);
        remove(ctmp);
        fprintf(stderr, "mxsim import-scalesim: cannot write the outputs in '%s'\n", dir);
        return 2;
    }
    printf("wrote %s and %s\n", cpath, tpath);
    return 0;
}
