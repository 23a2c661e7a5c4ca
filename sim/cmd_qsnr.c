/*
 * cmd_qsnr.c — `mxsim qsnr`: quantization error (QSNR in dB, SPEC §2.3, and
 * max relative error over x != 0) of many formats on seeded synthetic data.
 *
 * Every distribution is a 1-D tensor of n elements; MX formats quantize it in
 * 1-D blocks of --block elements (BDR formats use their own 16/2 blocks),
 * element formats convert per element, and "NAME/tensor" uses one FP32
 * per-tensor scale (max/amax, mx_scaled).  Each distribution has its own RNG
 * stream derived from --seed, so adding a format never changes the data.
 */
#include "config_yaml.h"
#include "mxsim_cmd.h"

#include "formats/mx_bdr.h"
#include "formats/mx_block.h"
#include "formats/mx_format.h"
#include "formats/mx_rng.h"
#include "formats/mx_scaled.h"
#include "stats/mx_dist.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define QSNR_MAX_FORMATS 64

static const char *const default_formats =
    "mxsf,mxfp8_e4m3,mxfp8_e5m2,mxfp8_e2m5,mxint8,mxfp6_e3m2,mxfp6_e2m3,mxfp4,mx9,mx6,mx4,bf16,"
    "fp8_e4m3/tensor";

typedef enum { QF_ELEMENT, QF_MX, QF_BDR, QF_TENSOR } qsnr_kind;

typedef struct {
    char          label[48];
    qsnr_kind     kind;
    mx_format     elem;
    mx_bdr_format bdr;
} qsnr_format;

typedef struct {
    size_t        n;
    uint64_t      seed;
    int           block;
    mx_round      round;
    mx_scale_rule scale_rule;
    const char   *formats;
    const char   *csv;
} qsnr_args;

static int qsnr_fail(const char *fmt, ...)
{
    /* one line, control characters of echoed names escaped (mx_print_error) */
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    mx_print_error("mxsim qsnr", "%s", msg);
    return 2;
}

static void qsnr_usage(FILE *out)
{
    fprintf(out,
            "usage: mxsim qsnr [--n 1048576] [--seed 0] [--block 32] [--round even]\n"
            "                  [--scale-rule floor] [--formats a,b,c] [--csv FILE]\n"
            "\n"
            "Prints QSNR = -10 log10(||Q(x)-x||^2 / ||x||^2) in dB and the max relative\n"
            "error |Q(x)-x|/|x| over x != 0, per format, on seeded data: gaussian N(0,1),\n"
            "laplace (unit variance), uniform U[-1,1), student_t3 (nu = 3), and\n"
            "block_gaussian (sigma = 10^u per --block elements, u ~ U[-3,3]).\n"
            "\n"
            "formats: any `mxsim quant --format` name (MX block, mx9/mx6/mx4, element);\n"
            "NAME/tensor = element format with one FP32 per-tensor scale.\n"
            "default: %s\n"
            "--csv FILE writes distribution,format,qsnr_db,max_rel_err rows.\n",
            default_formats);
}

static int parse_size(const char *s, unsigned long long lo, unsigned long long hi, unsigned long long *out)
{
    char *end;
    errno = 0;
    if (s[0] == '-') return -1;
    unsigned long long v = strtoull(s, &end, 0);
    if (end == s || *end != '\0' || errno == ERANGE || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

static int parse_qsnr_args(int argc, char **argv, qsnr_args *a)
{
    a->n = 1048576;
    a->seed = 0;
    a->block = 32;
    a->round = MX_ROUND_EVEN;
    a->scale_rule = MX_SCALE_FLOOR;
    a->formats = default_formats;
    a->csv = NULL;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) return 1;
        char name[32];
        const char *eq = strchr(arg, '=');
        size_t nlen = eq ? (size_t)(eq - arg) : strlen(arg);
        if (arg[0] != '-') return qsnr_fail("unexpected argument '%s' (see mxsim qsnr --help)", arg);
        if (nlen >= sizeof name) return qsnr_fail("unknown option '%s' (see mxsim qsnr --help)", arg);
        memcpy(name, arg, nlen);
        name[nlen] = '\0';
        static const char *known[] = {"--n", "--seed", "--block", "--round", "--scale-rule", "--formats", "--csv"};
        int ok = 0;
        for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) ok |= !strcmp(name, known[k]);
        if (!ok) return qsnr_fail("unknown option '%s' (see mxsim qsnr --help)", name);
        const char *val = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
        if (!val || !val[0]) return qsnr_fail("option %s needs a value", name);
        unsigned long long v;
        if (!strcmp(name, "--n")) {
            if (parse_size(val, 1, 1ull << 28, &v) != 0)
                return qsnr_fail("--n: '%s' is not an element count in [1, 2^28]", val);
            a->n = (size_t)v;
        } else if (!strcmp(name, "--seed")) {
            if (parse_size(val, 0, UINT64_MAX, &v) != 0)
                return qsnr_fail("--seed: '%s' is not an unsigned 64-bit integer", val);
            a->seed = v;
        } else if (!strcmp(name, "--block")) {
            if (parse_size(val, 1, 1 << 20, &v) != 0)
                return qsnr_fail("--block: '%s' is not a block size in [1, 2^20]", val);
            a->block = (int)v;
        } else if (!strcmp(name, "--round")) {
            if (mx_round_parse(val, &a->round) != 0)
                return qsnr_fail("--round: unknown mode '%s' (even, nearest, floor, stochastic)", val);
        } else if (!strcmp(name, "--scale-rule")) {
            if (mx_scale_rule_parse(val, &a->scale_rule) != 0)
                return qsnr_fail("--scale-rule: unknown rule '%s' (floor, ceil, even, rceil)", val);
        } else if (!strcmp(name, "--formats")) {
            a->formats = val;
        } else {
            a->csv = val;
        }
    }
    return 0;
}

static int parse_format(const char *name, qsnr_format *f)
{
    memset(f, 0, sizeof *f);
    size_t len = strlen(name);
    if (len >= sizeof f->label) return -1;
    memcpy(f->label, name, len + 1);
    const char *slash = strchr(name, '/');
    if (slash) {
        char base[sizeof f->label];
        memcpy(base, name, (size_t)(slash - name));
        base[slash - name] = '\0';
        if (strcmp(slash, "/tensor") != 0 || mx_format_lookup(base, &f->elem) != 0) return -1;
        f->kind = QF_TENSOR;
        return 0;
    }
    if (mx_block_format_lookup(name, &f->elem) == 0) f->kind = QF_MX;
    else if (mx_bdr_lookup(name, &f->bdr) == 0) f->kind = QF_BDR;
    else if (mx_format_lookup(name, &f->elem) == 0) f->kind = QF_ELEMENT;
    else return -1;
    return 0;
}

/* Q(x) for one format on a 1-D tensor of n elements. */
static int quantize(const qsnr_format *f, const qsnr_args *a, uint64_t *rng, const float *x, size_t n,
                    float *q, char *err, size_t errlen)
{
    mx_shape sh = {1, {n}};
    mx_encode_opts enc = {a->round, MX_OVERFLOW_SATURATE, rng};
    switch (f->kind) {
    case QF_ELEMENT:
        for (size_t i = 0; i < n; i++) q[i] = mx_decode_f32(&f->elem, mx_encode(&f->elem, x[i], &enc, NULL));
        return 0;
    case QF_MX: {
        mx_block_spec s;
        memset(&s, 0, sizeof s);
        s.elem = f->elem;
        s.block = a->block;
        s.axis = -1;
        s.scale_rule = a->scale_rule;
        s.enc = enc;
        return mx_block_quantize(&s, &sh, x, NULL, NULL, q, err, errlen);
    }
    case QF_BDR:
        return mx_bdr_quantize(&f->bdr, -1, a->round, &sh, x, NULL, NULL, NULL, q, err, errlen);
    case QF_TENSOR: {
        float scale;
        return mx_scaled_quantize(&f->elem, &enc, 1, 0, &sh, x, NULL, &scale, q, err, errlen);
    }
    }
    return -1;
}

int mxsim_cmd_qsnr(int argc, char **argv)
{
    qsnr_args a;
    int rc = parse_qsnr_args(argc, argv, &a);
    if (rc == 1) { qsnr_usage(stdout); return 0; }
    if (rc) return rc;

    qsnr_format fmts[QSNR_MAX_FORMATS];
    int nf = 0;
    {
        const char *p = a.formats;
        while (*p) {
            const char *comma = strchr(p, ',');
            size_t len = comma ? (size_t)(comma - p) : strlen(p);
            char name[64];
            if (len == 0) return qsnr_fail("--formats: empty format name in '%s'", a.formats);
            if (len >= sizeof name) return qsnr_fail("--formats: format name too long");
            if (nf == QSNR_MAX_FORMATS) return qsnr_fail("--formats: more than %d formats", QSNR_MAX_FORMATS);
            memcpy(name, p, len);
            name[len] = '\0';
            const char *exmy = mx_format_exmy_problem(strchr(name, '/') ? "" : name);
            if (exmy) return qsnr_fail("--formats: '%s' is not a format: %s", name, exmy);
            if (parse_format(name, &fmts[nf]) != 0)
                return qsnr_fail("--formats: unknown format '%s' (see mxsim quant --help; NAME/tensor for "
                                 "per-tensor scaling)", name);
            nf++;
            p += len;
            if (*p == ',') {
                p++;
                if (!*p) return qsnr_fail("--formats: empty format name in '%s'", a.formats);
            }
        }
    }

    FILE *csv = NULL;
    char csv_tmp[4096] = "";
    if (a.csv) {
        if (snprintf(csv_tmp, sizeof csv_tmp, "%s.tmp.%ld", a.csv, (long)getpid()) >= (int)sizeof csv_tmp)
            return qsnr_fail("--csv: path too long");
    }

    float *x = malloc(a.n * sizeof *x), *q = malloc(a.n * sizeof *q);
    mx_qerr *res = malloc((size_t)nf * MX_DIST_COUNT * sizeof *res);
    if (!x || !q || !res) {
        free(x); free(q); free(res);
        return qsnr_fail("out of memory (--n %zu)", a.n);
    }
    char err[512];
    for (int d = 0; d < MX_DIST_COUNT; d++) {
        /* Independent streams per distribution and per use. */
        uint64_t data_rng = a.seed ^ (0xD1B54A32D192ED03ull * (uint64_t)(d + 1));
        mx_dist_fill((mx_dist_kind)d, (size_t)a.block, &data_rng, x, a.n);
        for (int f = 0; f < nf; f++) {
            uint64_t round_rng = a.seed ^ (0x8CB92BA72F3D8DD7ull * (uint64_t)(d * QSNR_MAX_FORMATS + f + 1));
            if (quantize(&fmts[f], &a, &round_rng, x, a.n, q, err, sizeof err) != 0) {
                free(x); free(q); free(res);
                return qsnr_fail("%s on %s: %s", fmts[f].label, mx_dist_name((mx_dist_kind)d), err);
            }
            res[f * MX_DIST_COUNT + d] = mx_qerr_compute(x, q, a.n);
        }
    }
    free(x);
    free(q);

    int w = 10;
    for (int f = 0; f < nf; f++) if ((int)strlen(fmts[f].label) > w) w = (int)strlen(fmts[f].label);
    printf("mxsim qsnr: n = %zu, seed = %llu, MX block = %d (BDR mx9/mx6/mx4: 16 with 2-element "
           "microexponents), round = %s, scale rule = %s\n",
           a.n, (unsigned long long)a.seed, a.block, mx_round_name(a.round),
           a.scale_rule == MX_SCALE_FLOOR ? "floor" : a.scale_rule == MX_SCALE_CEIL ? "ceil"
           : a.scale_rule == MX_SCALE_EVEN ? "even" : "rceil");
    printf("block_gaussian: sigma = 10^u per %d elements, u ~ U[-3, 3]; NAME/tensor: one FP32 "
           "per-tensor scale\n", a.block);
    for (int table = 0; table < 2; table++) {
        printf("\n%s\n", table == 0 ? "QSNR (dB), higher is better" : "max relative error over x != 0");
        printf("%-*s", w, "format");
        for (int d = 0; d < MX_DIST_COUNT; d++) printf("  %14s", mx_dist_name((mx_dist_kind)d));
        printf("\n");
        for (int f = 0; f < nf; f++) {
            printf("%-*s", w, fmts[f].label);
            for (int d = 0; d < MX_DIST_COUNT; d++) {
                const mx_qerr *e = &res[f * MX_DIST_COUNT + d];
                if (table == 0) printf("  %14.2f", e->qsnr_db);
                else printf("  %14.3g", e->max_rel);
            }
            printf("\n");
        }
    }

    int status = 0;
    if (a.csv) {
        csv = fopen(csv_tmp, "w");
        if (!csv) status = qsnr_fail("--csv: %s: cannot create: %s", a.csv, strerror(errno));
        else {
            fprintf(csv, "distribution,format,qsnr_db,max_rel_err\n");
            for (int d = 0; d < MX_DIST_COUNT; d++)
                for (int f = 0; f < nf; f++) {
                    const mx_qerr *e = &res[f * MX_DIST_COUNT + d];
                    fprintf(csv, "%s,%s,%.4f,%.6g\n", mx_dist_name((mx_dist_kind)d), fmts[f].label,
                            e->qsnr_db, e->max_rel);
                }
            int bad = ferror(csv);
            if (fclose(csv) != 0) bad = 1;
            if (bad) {
                remove(csv_tmp);
                status = qsnr_fail("--csv: %s: write error", a.csv);
            } else if (rename(csv_tmp, a.csv) != 0) {
                remove(csv_tmp);
                status = qsnr_fail("--csv: %s: cannot rename into place: %s", a.csv, strerror(errno));
            }
        }
    }
    free(res);
    return status;
}
