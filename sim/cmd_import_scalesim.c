/*
 * cmd_import_scalesim.c — `mxsim import-scalesim CFG TOPO -o DIR`: converts a
 * SCALE-Sim v2 configuration (.cfg) and topology (.csv, convolution or GEMM
 * M,N,K form) into DIR/config.yaml and DIR/trace.csv.  The config runs in
 * SCALE-Sim-compatible mode: one lane, no fold overlap, ideal memory, its
 * fill/drain conventions (docs/ARCH.md), so that `mxsim run --mode timing`
 * gives SCALE-Sim's "Total Cycles" per layer.
 *
 * Bad input (issue 10): both inputs are read through mx_input_read (regular
 * files, at most 256 KiB, bounded read); the .cfg is parsed by inih with a
 * line reader of ours (whole lines only: a line too long for inih's buffer is
 * an error, never split; NUL/control bytes and continuation lines refused); a
 * key given twice is an error; topology lines go through mx_line_read and
 * every product is checked for overflow; each row must pass the trace
 * reader's own checks (mx_trace_row_check) and the model's M/N/K limit.
 * Everything is validated before DIR is touched; on a failure nothing is left
 * behind (a DIR we created is removed again).
 */
#define _XOPEN_SOURCE 700 /* realpath, fmemopen */
#include "config_yaml.h"
#include "mxsim_cmd.h"

#include "arch/mx_arch.h"
#include "arch/mx_trace.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROG "mxsim import-scalesim"
#define TOPO_LINE_MAX 1024 /* incl. the NUL: longer topology lines are refused */

static char *trim(char *s)
{
    while (isspace((unsigned char)*s)) s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1])) *--e = 0;
    return s;
}

/* ---- the .cfg (inih) ------------------------------------------------------- */

typedef struct {
    long long rows, cols, ifmap_kb, filter_kb, ofmap_kb, banks;
    char dataflow[8];
    char run_name[MX_ARCH_NAME_MAX];
} ss_cfg;

#define CFG_KEYS_MAX 256

typedef struct {
    const char *path;
    const char *text, *end, *p; /* the bounded copy of the file */
    int line;                    /* lines handed to inih = line of the current handler call */
    char error[700];             /* the first error, complete message */
    ss_cfg *c;
    int have_r, have_c, have_df;
    int nkeys;                   /* keys seen: "section\x1fkey" and their lines, for duplicates */
    char keys[CFG_KEYS_MAX][128];
    int key_line[CFG_KEYS_MAX];
} cfg_state;

static void cfg_error(cfg_state *s, const char *fmt, ...)
{
    if (s->error[0]) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->error, sizeof s->error, fmt, ap);
    va_end(ap);
}

/* inih reader: one whole line per call.  A line that does not fit inih's
 * buffer (num - 2 characters with '\n' and NUL; 198 with the Debian build),
 * a NUL or control byte (a bare CR too) or an indented continuation line
 * stops the parse with an error instead of being split or joined. */
static char *cfg_read_line(char *str, int num, void *stream)
{
    cfg_state *s = stream;
    if (s->error[0] || s->p >= s->end) return NULL;
    const char *b = s->p, *nl = memchr(b, '\n', (size_t)(s->end - b));
    const char *e = nl ? nl : s->end;
    s->p = nl ? nl + 1 : s->end;
    s->line++;
    if (e > b && e[-1] == '\r') e--; /* CRLF line end */
    size_t len = (size_t)(e - b);
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)b[i];
        if (ch == 0) { cfg_error(s, "%s:%d: NUL byte in the line (not a text file?)", s->path, s->line); return NULL; }
        if ((ch < 0x20 && ch != '\t') || ch == 0x7f) {
            cfg_error(s, "%s:%d: control character 0x%02x in the line%s", s->path, s->line, ch,
                      ch == '\r' ? " (bare CR line ends are not supported; use LF or CRLF)" : "");
            return NULL;
        }
    }
    if (num < 3 || len > (size_t)num - 2) {
        cfg_error(s, "%s:%d: line longer than %d characters", s->path, s->line, num - 2);
        return NULL;
    }
    size_t lead = 0;
    while (lead < len && (b[lead] == ' ' || b[lead] == '\t')) lead++;
    if (lead > 0 && lead < len && b[lead] != '#' && b[lead] != ';') {
        cfg_error(s, "%s:%d: indented line (continuation lines are not supported; start keys in column 1)",
                  s->path, s->line);
        return NULL;
    }
    memcpy(str, b, len);
    str[len] = '\n';
    str[len + 1] = '\0';
    return str;
}

/* A positive integer: digits only, 1..hi. */
static int parse_count(const char *v, long long hi, long long *out)
{
    if (!*v || strspn(v, "0123456789") != strlen(v) || strlen(v) > 18) return -1;
    long long x = strtoll(v, NULL, 10);
    if (x < 1 || x > hi) return -1;
    *out = x;
    return 0;
}

/* The rule mxsim's config loader applies to `name` (it names report
 * directories), so the imported config always loads. */
static int valid_run_name(const char *v)
{
    if (!isalnum((unsigned char)v[0]) && v[0] != '_') return 0;
    if (strlen(v) >= MX_ARCH_NAME_MAX) return 0;
    return v[strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.+-")] == '\0';
}

static int cfg_handler(void *user, const char *section, const char *name, const char *value)
{
    cfg_state *s = user;
    ss_cfg *c = s->c;
    if (s->error[0]) return 0;
    /* duplicates: configparser (SCALE-Sim's reader) refuses a key twice in a
     * section; the keys we use must be unique in the whole file */
    static const char *const used[] = {"ArrayHeight", "ArrayWidth", "IfmapSramSzkB", "FilterSramSzkB",
                                       "OfmapSramSzkB", "MemoryBanks", "Dataflow", "run_name"};
    int is_used = 0;
    for (size_t i = 0; i < sizeof used / sizeof used[0]; i++)
        if (!strcmp(name, used[i])) is_used = 1;
    char id[128];
    snprintf(id, sizeof id, "%s\x1f%s", is_used ? "" : section, name);
    for (int i = 0; i < s->nkeys; i++)
        if (!strcasecmp(s->keys[i], id)) {
            cfg_error(s, "%s:%d: key '%s': duplicate (first on line %d)", s->path, s->line, name, s->key_line[i]);
            return 0;
        }
    if (s->nkeys == CFG_KEYS_MAX) {
        cfg_error(s, "%s:%d: key '%s': more than %d keys", s->path, s->line, name, CFG_KEYS_MAX);
        return 0;
    }
    snprintf(s->keys[s->nkeys], sizeof s->keys[0], "%s", id);
    s->key_line[s->nkeys++] = s->line;

    long long *num = NULL;
    if (!strcmp(name, "ArrayHeight")) { num = &c->rows; s->have_r = 1; }
    else if (!strcmp(name, "ArrayWidth")) { num = &c->cols; s->have_c = 1; }
    else if (!strcmp(name, "IfmapSramSzkB")) num = &c->ifmap_kb;
    else if (!strcmp(name, "FilterSramSzkB")) num = &c->filter_kb;
    else if (!strcmp(name, "OfmapSramSzkB")) num = &c->ofmap_kb;
    else if (!strcmp(name, "MemoryBanks")) num = &c->banks;
    else if (!strcmp(name, "Dataflow")) {
        if (strcmp(value, "os") && strcmp(value, "ws") && strcmp(value, "is")) {
            cfg_error(s, "%s:%d: key 'Dataflow': must be os, ws or is, got '%s'", s->path, s->line, value);
            return 0;
        }
        snprintf(c->dataflow, sizeof c->dataflow, "%s", value);
        s->have_df = 1;
    } else if (!strcmp(name, "run_name")) {
        if (!valid_run_name(value)) {
            cfg_error(s, "%s:%d: key 'run_name': must be 1..%d letters, digits, '_', '-', '.' or '+' starting with a "
                         "letter, digit or '_' (it becomes the config name), got '%s'",
                      s->path, s->line, MX_ARCH_NAME_MAX - 1, value);
            return 0;
        }
        snprintf(c->run_name, sizeof c->run_name, "%s", value);
    }
    /* other keys (offsets, Bandwidth, InterfaceBandwidth, ...) do not
     * affect compute cycles under ideal memory */
    if (num && parse_count(value, 1048576, num) != 0) {
        cfg_error(s, "%s:%d: key '%s': must be a positive integer, got '%s'", s->path, s->line, name, value);
        return 0;
    }
    if ((num == &c->rows || num == &c->cols) && *num > 1024) {
        cfg_error(s, "%s:%d: key '%s': must be 1..1024, got '%s'", s->path, s->line, name, value);
        return 0;
    }
    return 1;
}

static int parse_cfg(const char *path, ss_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->banks = 1;
    snprintf(c->run_name, sizeof c->run_name, "scalesim");
    char *text = NULL, err[700];
    size_t len = 0;
    if (mx_input_read(path, "SCALE-Sim configuration", &text, &len, err, sizeof err) != 0) {
        mx_print_error(PROG, "%s", err);
        return 2;
    }
    cfg_state *s = calloc(1, sizeof *s);
    if (!s) {
        free(text);
        mx_print_error(PROG, "out of memory");
        return 2;
    }
    s->path = path;
    s->text = s->p = text;
    s->end = text + len;
    s->c = c;
    int rc = ini_parse_stream(cfg_read_line, s, cfg_handler, s);
    int status = 0;
    if (s->error[0]) {
        mx_print_error(PROG, "%s", s->error);
        status = 2;
    } else if (rc > 0) {
        mx_print_error(PROG, "%s:%d: malformed line (expected [section], 'Key: value' or 'Key = value')", path, rc);
        status = 2;
    } else if (rc < 0) {
        mx_print_error(PROG, "%s: cannot parse the file", path);
        status = 2;
    } else if (!s->have_r || !s->have_c || !s->have_df) {
        mx_print_error(PROG, "%s: missing key '%s'", path,
                       !s->have_r ? "ArrayHeight" : !s->have_c ? "ArrayWidth" : "Dataflow");
        status = 2;
    }
    free(s);
    free(text);
    return status;
}

/* ---- the topology ------------------------------------------------------------ */

typedef struct {
    char name[MX_TRACE_NAME_MAX];
    long long M, N, K;
} topo_row;

typedef struct {
    topo_row *rows;
    size_t n, cap;
} topo;

static int parse_ll(const char *s, long long *out)
{
    if (!*s || strspn(s, "0123456789") != strlen(s)) return -1;
    errno = 0;
    long long v = strtoll(s, NULL, 10);
    if (errno || v < 1) return -1;
    *out = v;
    return 0;
}

/* a * b, or -1 if it does not fit a long long (a, b >= 1) */
static int mul_ll(long long a, long long b, long long *out)
{
    if (a > LLONG_MAX / b) return -1;
    *out = a * b;
    return 0;
}

#define TOPO_FIELDS_MAX 64

/* One data row -> M, N, K.  Conv: name, ifmap H, W, filter H, W, channels,
 * filters, stride: M = ofmap H*W, N = filters, K = filter H*W*channels
 * (SCALE-Sim's im2col view, its ofmap size ceil((in - filter + stride) /
 * stride)).  GEMM: name, M, N, K.  0, or 2 after printing the error. */
static int topo_row_parse(const char *path, int line, char **fld, int n, topo_row *r)
{
    long long v[7] = {0};
    if (n == 4) {
        for (int i = 0; i < 3; i++)
            if (parse_ll(fld[i + 1], &v[i])) goto badnum;
        r->M = v[0]; r->N = v[1]; r->K = v[2];
    } else if (n == 8) {
        for (int i = 0; i < 7; i++)
            if (parse_ll(fld[i + 1], &v[i])) goto badnum;
        /* ifmap H W, filter H W, channels, filters, stride */
        if (v[2] > v[0] || v[3] > v[1]) {
            mx_print_error(PROG, "%s:%d: filter larger than the ifmap", path, line);
            return 2;
        }
        /* ceil((in - filter + stride) / stride) = ceil((in - filter) / stride) + 1, without overflow */
        long long dh = v[0] - v[2], dw = v[1] - v[3];
        long long oh = dh / v[6] + (dh % v[6] != 0) + 1, ow = dw / v[6] + (dw % v[6] != 0) + 1;
        if (mul_ll(oh, ow, &r->M)) {
            mx_print_error(PROG, "%s:%d: ofmap size %lld x %lld overflows a 64-bit integer", path, line, oh, ow);
            return 2;
        }
        long long k;
        if (mul_ll(v[2], v[3], &k) || mul_ll(k, v[4], &r->K)) {
            mx_print_error(PROG, "%s:%d: filter H*W*channels (%lld*%lld*%lld) overflows a 64-bit integer", path,
                           line, v[2], v[3], v[4]);
            return 2;
        }
        r->N = v[5];
    } else {
        mx_print_error(PROG, "%s:%d: expected 4 (name,M,N,K) or 8 (conv) columns, got %d", path, line, n);
        return 2;
    }
    const char *name = *fld[0] ? fld[0] : "layer", *column;
    char why[200];
    if (mx_trace_row_check(name, r->M, r->N, r->K, 1, &column, why, sizeof why)) {
        mx_print_error(PROG, "%s:%d: layer '%s': %s %s (as a trace row)", path, line, name, column, why);
        return 2;
    }
    const long long mnk[3] = {r->M, r->N, r->K};
    for (int i = 0; i < 3; i++)
        if (mnk[i] > MX_ARCH_DIM_MAX) {
            mx_print_error(PROG, "%s:%d: layer '%s': %c = %lld is beyond the model's limit %lld", path, line, name,
                           "MNK"[i], mnk[i], (long long)MX_ARCH_DIM_MAX);
            return 2;
        }
    snprintf(r->name, sizeof r->name, "%s", name);
    return 0;
badnum:
    mx_print_error(PROG, "%s:%d: expected positive integers after the layer name", path, line);
    return 2;
}

static int read_topo(const char *path, topo *t)
{
    memset(t, 0, sizeof *t);
    char *text = NULL, err[700];
    size_t len = 0;
    if (mx_input_read(path, "SCALE-Sim topology", &text, &len, err, sizeof err) != 0) {
        mx_print_error(PROG, "%s", err);
        return 2;
    }
    FILE *f = len ? fmemopen(text, len, "r") : fopen("/dev/null", "r");
    if (!f) {
        free(text);
        mx_print_error(PROG, "%s: cannot read: %s", path, strerror(errno));
        return 2;
    }
    char buf[TOPO_LINE_MAX];
    int line = 0, rc = 0, header = 1, r, bad_char;
    while ((r = mx_line_read(f, buf, sizeof buf, &bad_char)) != MX_LINE_EOF) {
        line++;
        if (r != MX_LINE_OK) {
            mx_line_error(r, sizeof buf, bad_char, err, sizeof err);
            mx_print_error(PROG, "%s:%d: %s", path, line, err);
            rc = 2;
            break;
        }
        char *s = trim(buf);
        if (!*s || *s == '#') continue;
        char *fld[TOPO_FIELDS_MAX];
        int n = 0, total = 0;
        for (char *p = s;;) {
            char *comma = strchr(p, ',');
            if (comma) *comma = 0;
            if (n < TOPO_FIELDS_MAX) fld[n++] = trim(p);
            total++;
            if (!comma) break;
            p = comma + 1;
        }
        while (n > 0 && n == total && !*fld[n - 1]) { n--; total--; } /* SCALE-Sim rows end with ',' */
        if (header) { header = 0; continue; }
        if (total != n) {
            mx_print_error(PROG, "%s:%d: expected 4 (name,M,N,K) or 8 (conv) columns, got %d", path, line, total);
            rc = 2;
            break;
        }
        if (t->n == t->cap) {
            size_t ncap = t->cap ? t->cap * 2 : 64;
            topo_row *nr = realloc(t->rows, ncap * sizeof *nr);
            if (!nr) { mx_print_error(PROG, "out of memory"); rc = 2; break; }
            t->rows = nr;
            t->cap = ncap;
        }
        if ((rc = topo_row_parse(path, line, fld, n, &t->rows[t->n])) != 0) break;
        t->n++;
    }
    fclose(f);
    free(text);
    if (!rc && t->n == 0) {
        mx_print_error(PROG, "%s: no layers", path);
        rc = 2;
    }
    if (rc) {
        free(t->rows);
        t->rows = NULL;
        t->n = 0;
    }
    return rc;
}

/* ---- output ------------------------------------------------------------------ */

/* s as a YAML double-quoted scalar: '"' and '\' escaped, control bytes \xNN. */
static void yaml_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f) fprintf(f, "\\x%02x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}

/* A path inside a '#' comment line: control characters escaped so that a
 * newline in a file name cannot end the comment. */
static void comment_path(FILE *f, const char *s)
{
    char esc[3 * 4096];
    mx_escape_controls(esc, sizeof esc, s);
    fputs(esc, f);
}

static int write_trace(const char *tmp, const char *topo_path, const topo *t)
{
    FILE *f = fopen(tmp, "w");
    if (!f) return -1;
    fputs("# Imported from SCALE-Sim topology ", f);
    comment_path(f, topo_path);
    fputs(" by mxsim import-scalesim\nname,M,N,K,phase,count\n", f);
    for (size_t i = 0; i < t->n; i++)
        fprintf(f, "%s,%lld,%lld,%lld,inf,1\n", t->rows[i].name, t->rows[i].M, t->rows[i].N, t->rows[i].K);
    int bad = ferror(f);
    return fclose(f) == 0 && !bad ? 0 : -1;
}

static int write_config(const char *tmp, const char *cfg_path, const ss_cfg *c, const char *epath)
{
    FILE *y = fopen(tmp, "w");
    if (!y) return -1;
    fputs("# Imported from SCALE-Sim config ", y);
    comment_path(y, cfg_path);
    fputs(" by mxsim import-scalesim.\n"
          "# SCALE-Sim conventions (docs/ARCH.md): one lane, no fold overlap, ideal memory.\nname: ", y);
    yaml_quoted(y, c->run_name);
    fprintf(y,
            "\narch:\n  rows: %lld\n  cols: %lld\n  lanes: 1\n  dataflow: %s\n  pe_pipeline_depth: 1\n"
            "  fold_overlap: false\n  scalesim_compat: true\n"
            "format:\n  a: fp8_e4m3\n  b: fp8_e4m3\n  out: fp8_e4m3\n  tile: none\n"
            "memory:\n"
            "  sram_a:   {kib: %lld, banks: %lld, bytes_per_cycle: 64}\n"
            "  sram_b:   {kib: %lld, banks: %lld, bytes_per_cycle: 64}\n"
            "  sram_out: {kib: %lld, banks: %lld, bytes_per_cycle: 64}\n"
            "  ideal: true\n"
            "training:\n  requant: false\n"
            "energy:\n  table: ",
            c->rows, c->cols, c->dataflow, c->ifmap_kb ? c->ifmap_kb : 64, c->banks,
            c->filter_kb ? c->filter_kb : 64, c->banks, c->ofmap_kb ? c->ofmap_kb : 64, c->banks);
    yaml_quoted(y, epath);
    fputc('\n', y);
    int bad = ferror(y);
    return fclose(y) == 0 && !bad ? 0 : -1;
}

int mxsim_cmd_import_scalesim(int argc, char **argv)
{
    const char *cfg = NULL, *topo_path = NULL, *dir = NULL;
    const char *energy = "configs/energy/horowitz45.yaml";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: mxsim import-scalesim CFG TOPOLOGY.csv -o DIR [--energy TABLE.yaml]\n"
                   "  writes DIR/config.yaml (SCALE-Sim-compatible timing) and DIR/trace.csv\n");
            return 0;
        }
        if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--energy")) {
            if (i + 1 >= argc) {
                mx_print_error(PROG, "option '%s' needs a value", argv[i]);
                return 2;
            }
            if (!strcmp(argv[i], "-o")) dir = argv[++i];
            else energy = argv[++i];
        } else if (argv[i][0] == '-') {
            mx_print_error(PROG, "unknown option '%s'", argv[i]);
            return 2;
        } else if (!cfg) cfg = argv[i];
        else if (!topo_path) topo_path = argv[i];
        else {
            mx_print_error(PROG, "unexpected argument '%s'", argv[i]);
            return 2;
        }
    }
    if (!cfg || !topo_path || !dir) {
        mx_print_error(PROG, "need CFG, TOPOLOGY.csv and -o DIR (usage: mxsim import-scalesim CFG TOPOLOGY.csv -o DIR)");
        return 2;
    }
    if (!*dir) {
        mx_print_error(PROG, "option '-o': empty directory name");
        return 2;
    }
    /* everything is read and checked before DIR is touched */
    ss_cfg c;
    int rc = parse_cfg(cfg, &c);
    if (rc) return rc;
    char epath[PATH_MAX];
    struct stat est;
    if (!realpath(energy, epath)) {
        mx_print_error(PROG, "option '--energy': %s: %s", energy, strerror(errno));
        return 2;
    }
    if (stat(epath, &est) != 0 || !S_ISREG(est.st_mode)) {
        mx_print_error(PROG, "option '--energy': %s: not a regular file", energy);
        return 2;
    }
    topo t;
    if ((rc = read_topo(topo_path, &t)) != 0) return rc;

    int created = 0;
    if (mkdir(dir, 0777) == 0) created = 1;
    else if (errno != EEXIST) {
        mx_print_error(PROG, "option '-o': cannot create '%s': %s", dir, strerror(errno));
        free(t.rows);
        return 2;
    }
    char tpath[4200], tmp[4300], cpath[4200], ctmp[4300];
    snprintf(tpath, sizeof tpath, "%s/trace.csv", dir);
    snprintf(tmp, sizeof tmp, "%s/.trace.csv.tmp", dir);
    snprintf(cpath, sizeof cpath, "%s/config.yaml", dir);
    snprintf(ctmp, sizeof ctmp, "%s/.config.yaml.tmp", dir);
    int ok = write_trace(tmp, topo_path, &t) == 0 && write_config(ctmp, cfg, &c, epath) == 0;
    int saved = errno;
    free(t.rows);
    if (ok && rename(tmp, tpath) == 0) {
        if (rename(ctmp, cpath) == 0) {
            printf("wrote %s and %s\n", cpath, tpath);
            return 0;
        }
        saved = errno;
        remove(tpath);
    } else if (ok) {
        saved = errno;
    }
    remove(tmp);
    remove(ctmp);
    if (created) rmdir(dir);
    mx_print_error(PROG, "option '-o': cannot write the outputs in '%s': %s", dir, strerror(saved));
    return 2;
}
