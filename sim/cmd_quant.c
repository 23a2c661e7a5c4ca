/*
 * cmd_quant.c — `mxsim quant`: quantize a .npy tensor in any format and write
 * the dequantized FP32 tensor (plus, on request, the raw element codes and the
 * scales) as .npy, so results can be compared with numpy/PyTorch tools.
 *
 * Four kinds of format, resolved in this order (the name "mxsf" is both an
 * element and an MX format; it means the MX block format here):
 *   MX block formats (mx_block_format_lookup)  mxfp8_e4m3 ... mxsf
 *   BDR formats (mx_bdr_lookup)                mx9 mx6 mx4
 *   element formats (mx_format_lookup)         fp8_e4m3, bf16, e3m3, ...:
 *        per-element conversion, no scale; with --per-tensor or
 *        --per-channel AXIS an FP32 scale (mx_scaled).
 * Every error is one line on stderr naming the option or file, exit status 2,
 * and no output file is created (outputs are written to temporary files and
 * renamed into place only once all of them are written).
 */
#include "config_yaml.h"
#include "mxsim_cmd.h"
#include "npy.h"

#include "formats/mx_bdr.h"
#include "formats/mx_block.h"
#include "formats/mx_format.h"
#include "formats/mx_policy.h"
#include "formats/mx_scaled.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

typedef enum { QK_ELEMENT, QK_MX, QK_BDR, QK_SCALED } quant_kind;

typedef struct {
    const char   *format, *in, *out, *codes_path, *scales_path;
    const char   *block_text;
    int           block, tile_rows, tile_cols;
    int           axis, axis_set;
    const char   *scale_rule_text;
    mx_scale_rule scale_rule;
    mx_round      round;
    int           round_set;
    uint64_t      seed;
    mx_overflow   overflow;
    int           overflow_set;
    int           fp5_bias, fp5_set;
    int           per_tensor, per_channel, channel_axis;
} quant_args;

static void quant_usage(FILE *out)
{
    fputs(
        "usage: mxsim quant --format F [options] IN.npy OUT.npy\n"
        "\n"
        "Quantizes IN.npy (float32 or float64, C order) to format F and writes the\n"
        "dequantized tensor to OUT.npy (float32).\n"
        "\n"
        "formats F:\n"
        "  MX block:  mxfp8_e4m3 mxfp8_e5m2 mxfp6_e3m2 mxfp6_e2m3 mxfp4 mxint8\n"
        "             mxfp8_e2m5 mxsf        (E8M0 scale per block or tile)\n"
        "  BDR:       mx9 mx6 mx4            (16-element blocks, 2-element microexponents)\n"
        "  element:   fp32 bf16 fp16 fp8_e5m2 fp8_e4m3 fp8_e3m4 fp8_e2m5 fp6_e3m2\n"
        "             fp6_e2m3 fp4_e2m1 int8 e8m0 and any eXmY (1+X+Y <= 16, X <= 7):\n"
        "             per-element conversion, no scale, unless --per-tensor/--per-channel\n"
        "\n"
        "options:\n"
        "  --block K | RxC       MX block size along --axis (default 32), or RxC 2-D\n"
        "                        tiles over the last two axes (e.g. 8x8)\n"
        "  --axis A              axis of 1-D blocks, negative from the end (default -1)\n"
        "  --scale-rule R        floor (OCP, default) | ceil | even | rceil\n"
        "  --round M             even (default) | nearest | floor | stochastic\n"
        "  --seed S              seed of stochastic rounding (default 0)\n"
        "  --overflow O          saturate (default) | inf_nan (element and per-tensor/\n"
        "                        per-channel formats; MX and BDR blocks always saturate)\n"
        "  --fp5-bias B          FP5 bias of mxsf (default 8, range 5..16)\n"
        "  --per-tensor          element format with one FP32 scale (max/amax)\n"
        "  --per-channel AXIS    element format with one FP32 scale per index of AXIS\n"
        "  --codes FILE.npy      raw element codes (uint8 if <= 8 bits, else uint16;\n"
        "                        uint32 for fp32)\n"
        "  --scales FILE.npy     E8M0 scales (uint8; BDR: shared exponents) or FP32\n"
        "                        scales (per-tensor/per-channel)\n"
        "  --help                this text\n"
        "\n"
        "exit status: 0 success, 2 bad usage or input (one error line, no output written)\n",
        out);
}

static int quant_fail(const char *fmt, ...)
{
    /* one line, control characters of echoed names escaped (mx_print_error) */
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    mx_print_error("mxsim quant", "%s", msg);
    return 2;
}

static int parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

static int parse_block(const char *s, quant_args *a)
{
    const char *x = strchr(s, 'x');
    long r, c;
    if (!x) {
        if (parse_int(s, 1, 1 << 24, &r) != 0) return -1;
        a->block = (int)r;
        a->tile_rows = a->tile_cols = 0;
        return 0;
    }
    char rows[32];
    size_t n = (size_t)(x - s);
    if (n == 0 || n >= sizeof rows) return -1;
    memcpy(rows, s, n);
    rows[n] = '\0';
    if (parse_int(rows, 1, 1 << 12, &r) != 0 || parse_int(x + 1, 1, 1 << 12, &c) != 0) return -1;
    a->tile_rows = (int)r;
    a->tile_cols = (int)c;
    return 0;
}

/* Parses argv into a; returns 0, 1 for --help, or 2 after printing the error. */
static int parse_quant_args(int argc, char **argv, quant_args *a)
{
    const char *pos[2];
    int npos = 0, options_done = 0;
    memset(a, 0, sizeof *a);
    a->block = 32;
    a->axis = -1;
    a->fp5_bias = MX_MXSF_FP5_BIAS_DEFAULT;

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (options_done || arg[0] != '-' || arg[1] == '\0') {
            if (npos == 2) return quant_fail("unexpected argument '%s' (need exactly IN.npy OUT.npy)", arg);
            pos[npos++] = arg;
            continue;
        }
        if (!strcmp(arg, "--")) { options_done = 1; continue; }
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) return 1;
        if (!strcmp(arg, "--per-tensor")) { a->per_tensor = 1; continue; }

        /* Every other option takes a value: "--opt VALUE" or "--opt=VALUE". */
        char name[40];
        const char *val = NULL;
        const char *eq = strchr(arg, '=');
        size_t nlen = eq ? (size_t)(eq - arg) : strlen(arg);
        if (nlen >= sizeof name) return quant_fail("unknown option '%s'", arg);
        memcpy(name, arg, nlen);
        name[nlen] = '\0';
        static const char *known[] = {"--format", "--block", "--axis", "--scale-rule", "--round",
                                      "--seed", "--overflow", "--fp5-bias", "--codes", "--scales",
                                      "--per-channel"};
        int is_known = 0;
        for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
            if (!strcmp(name, known[k])) is_known = 1;
        if (!is_known) return quant_fail("unknown option '%s' (see mxsim quant --help)", name);
        if (eq) val = eq + 1;
        else if (i + 1 < argc) val = argv[++i];
        else return quant_fail("option %s needs a value", name);
        if (val[0] == '\0') return quant_fail("option %s needs a value", name);

        long v;
        if (!strcmp(name, "--format")) a->format = val;
        else if (!strcmp(name, "--codes")) a->codes_path = val;
        else if (!strcmp(name, "--scales")) a->scales_path = val;
        else if (!strcmp(name, "--block")) {
            a->block_text = val;
            if (parse_block(val, a) != 0)
                return quant_fail("--block: '%s' is not a block size K >= 1 or a tile RxC with R, C >= 1", val);
        } else if (!strcmp(name, "--axis")) {
            if (parse_int(val, -MX_MAX_DIMS, MX_MAX_DIMS - 1, &v) != 0)
                return quant_fail("--axis: '%s' is not an axis (integer in [%d, %d])", val, -MX_MAX_DIMS,
                                  MX_MAX_DIMS - 1);
            a->axis = (int)v;
            a->axis_set = 1;
        } else if (!strcmp(name, "--per-channel")) {
            if (parse_int(val, -MX_MAX_DIMS, MX_MAX_DIMS - 1, &v) != 0)
                return quant_fail("--per-channel: '%s' is not an axis (integer in [%d, %d])", val,
                                  -MX_MAX_DIMS, MX_MAX_DIMS - 1);
            a->per_channel = 1;
            a->channel_axis = (int)v;
        } else if (!strcmp(name, "--scale-rule")) {
            a->scale_rule_text = val;
            if (mx_scale_rule_parse(val, &a->scale_rule) != 0)
                return quant_fail("--scale-rule: unknown rule '%s' (floor, ceil, even, rceil)", val);
        } else if (!strcmp(name, "--round")) {
            a->round_set = 1;
            if (mx_round_parse(val, &a->round) != 0)
                return quant_fail("--round: unknown mode '%s' (even, nearest, floor, stochastic)", val);
        } else if (!strcmp(name, "--overflow")) {
            a->overflow_set = 1;
            if (mx_overflow_parse(val, &a->overflow) != 0)
                return quant_fail("--overflow: unknown policy '%s' (saturate, inf_nan)", val);
        } else if (!strcmp(name, "--fp5-bias")) {
            if (parse_int(val, MX_MXSF_FP5_BIAS_MIN, MX_MXSF_FP5_BIAS_MAX, &v) != 0)
                return quant_fail("--fp5-bias: '%s' is not an integer in [%d, %d]", val,
                                  MX_MXSF_FP5_BIAS_MIN, MX_MXSF_FP5_BIAS_MAX);
            a->fp5_bias = (int)v;
            a->fp5_set = 1;
        } else if (!strcmp(name, "--seed")) {
            char *end;
            errno = 0;
            unsigned long long s = strtoull(val, &end, 0);
            if (val[0] == '-' || end == val || *end != '\0' || errno == ERANGE)
                return quant_fail("--seed: '%s' is not an unsigned 64-bit integer", val);
            a->seed = (uint64_t)s;
        }
    }
    if (!a->format) return quant_fail("missing --format (see mxsim quant --help)");
    if (npos < 2) return quant_fail("need IN.npy and OUT.npy (see mxsim quant --help)");
    a->in = pos[0];
    a->out = pos[1];
    if (a->per_tensor && a->per_channel) return quant_fail("--per-tensor and --per-channel exclude each other");
    return 0;
}

/* Identity of a path for alias checks: the file it names (st_dev/st_ino, so
 * hard links, symlinks and other spellings of one file match) and, for a path
 * that does not exist yet, its directory entry (directory st_dev/st_ino +
 * last component), since two spellings of one new file would be renamed onto
 * the same entry. */
typedef struct {
    int   exists, dir_ok;
    dev_t dev, dir_dev;
    ino_t ino, dir_ino;
    char  base[256];
} path_id;

static void path_identify(const char *path, path_id *id)
{
    struct stat st;
    memset(id, 0, sizeof *id);
    if (stat(path, &st) == 0) {
        id->exists = 1;
        id->dev = st.st_dev;
        id->ino = st.st_ino;
    }
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    char dir[NPY_TMP_PATH_MAX];
    size_t dlen = slash ? (size_t)(slash - path) : 0;
    if (strlen(base) >= sizeof id->base || dlen >= sizeof dir) return;
    if (slash) {
        memcpy(dir, path, dlen);
        dir[dlen] = '\0';
        if (dlen == 0) strcpy(dir, "/");
    } else {
        strcpy(dir, ".");
    }
    if (stat(dir, &st) == 0) {
        id->dir_ok = 1;
        id->dir_dev = st.st_dev;
        id->dir_ino = st.st_ino;
        strcpy(id->base, base);
    }
}

static int path_same(const path_id *a, const path_id *b)
{
    if (a->exists && b->exists && a->dev == b->dev && a->ino == b->ino) return 1;
    return a->dir_ok && b->dir_ok && a->dir_dev == b->dir_dev && a->dir_ino == b->dir_ino &&
           strcmp(a->base, b->base) == 0;
}

/* Refuses any two of IN, OUT, --codes, --scales that name one file: an output
 * would overwrite the input or another output (checked before reading). */
static int check_aliases(const quant_args *a)
{
    const char *role[4] = {"IN.npy", "OUT.npy", "--codes", "--scales"};
    const char *path[4] = {a->in, a->out, a->codes_path, a->scales_path};
    path_id id[4];
    for (int i = 0; i < 4; i++)
        if (path[i]) path_identify(path[i], &id[i]);
    for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++)
            if (path[i] && path[j] && (!strcmp(path[i], path[j]) || path_same(&id[i], &id[j])))
                return quant_fail("%s '%s' and %s '%s' are the same file (an output would overwrite %s)",
                                  role[i], path[i], role[j], path[j],
                                  i == 0 ? "the input" : "another output");
    return 0;
}

static npy_dtype code_dtype(int bits)
{
    return bits <= 8 ? NPY_U8 : bits <= 16 ? NPY_U16 : NPY_U32;
}

static size_t shape_count(const mx_shape *sh)
{
    size_t n = 1;
    for (int i = 0; i < sh->ndim; i++) n *= sh->dim[i];
    return n;
}

/* Checks that axis names a dimension of sh. */
static int check_axis(const char *opt, int axis, const mx_shape *sh, const char *in)
{
    if (sh->ndim == 0) return quant_fail("%s: %s is a rank-0 (scalar) tensor: it has no axis to block or scale along", opt, in);
    if (axis < -sh->ndim || axis >= sh->ndim)
        return quant_fail("%s: axis %d is out of range for %s of rank %d", opt, axis, in, sh->ndim);
    return 0;
}

/* ---- chunked processing ------------------------------------------------------
 * The tensor is processed in chunks of whole blocks, in the order of the
 * scale tensor, so that each chunk's outputs are contiguous pieces of the
 * output files: read a chunk, quantize it, append its dequantized values (and
 * codes and scales when asked for), next chunk.  Blocks never straddle a
 * chunk, and the chunks are processed in order, so the outputs (including the
 * sequence of stochastic-rounding draws) are those of one whole-tensor call.
 *   element formats:  any CHUNK elements
 *   1-D blocks along axis a (MX, BDR), tensor seen as (outer, len, inner):
 *     whole outer slices when len*inner <= CHUNK, else, when inner == 1,
 *     runs of whole blocks inside one slice, else one slice per chunk
 *   2-D tiles over (batch, R, C): whole batches when R*C <= CHUNK, else bands
 *     of whole tile rows inside one batch
 *   per-tensor / per-channel scaling: the whole tensor (its scales need it all)
 * A regular input file is read chunk by chunk; a stream (pipe) is read whole
 * first, as npy_read_f32 does, and then processed the same way from memory. */
#define QUANT_CHUNK ((size_t)1 << 18) /* elements: 1 MiB of FP32 */

typedef struct {
    int      mode;          /* 0 element, 1 blocks (1-D), 2 tiles, 3 whole */
    size_t   n;
    size_t   outer, len, inner, k;   /* 1-D */
    size_t   batch, R, C, tr;         /* tiles */
    const mx_shape *sh;
    size_t   cap;           /* largest chunk in elements */
} chunk_plan;

static void plan_init(chunk_plan *p, quant_kind kind, const mx_shape *sh, int block, int axis,
                      int tile_rows)
{
    memset(p, 0, sizeof *p);
    p->sh = sh;
    p->n = shape_count(sh);
    if (kind == QK_ELEMENT) {
        p->mode = 0;
        p->cap = p->n < QUANT_CHUNK ? p->n : QUANT_CHUNK;
    } else if (kind == QK_SCALED) {
        p->mode = 3;
        p->cap = p->n;
    } else if (tile_rows > 0) {
        p->mode = 2;
        p->R = sh->dim[sh->ndim - 2];
        p->C = sh->dim[sh->ndim - 1];
        p->batch = 1;
        for (int d = 0; d < sh->ndim - 2; d++) p->batch *= sh->dim[d];
        p->tr = (size_t)tile_rows;
        size_t per = p->R * p->C, band = p->tr * p->C;
        if (per <= QUANT_CHUNK) p->cap = per * (QUANT_CHUNK / (per ? per : 1));
        else p->cap = band * (band >= QUANT_CHUNK ? 1 : QUANT_CHUNK / band);
    } else {
        p->mode = 1;
        int a = axis < 0 ? axis + sh->ndim : axis;
        p->outer = 1;
        p->inner = 1;
        p->len = sh->dim[a];
        p->k = (size_t)block;
        for (int d = 0; d < a; d++) p->outer *= sh->dim[d];
        for (int d = a + 1; d < sh->ndim; d++) p->inner *= sh->dim[d];
        size_t slice = p->len * p->inner;
        if (slice <= QUANT_CHUNK) p->cap = slice * (QUANT_CHUNK / (slice ? slice : 1));
        else if (p->inner == 1) p->cap = p->k >= QUANT_CHUNK ? p->k : QUANT_CHUNK / p->k * p->k;
        else p->cap = slice;
    }
    if (p->cap > p->n) p->cap = p->n;
}

/* The chunk starting at element pos: its element count and the shape (and
 * 1-D axis) to hand to the kernel. */
static size_t plan_chunk(const chunk_plan *p, size_t pos, mx_shape *sub, int *sub_axis)
{
    size_t left = p->n - pos;
    memset(sub, 0, sizeof *sub);
    *sub_axis = 0;
    if (p->mode == 0) {
        size_t c = left < p->cap ? left : p->cap;
        sub->ndim = 1;
        sub->dim[0] = c;
        return c;
    }
    if (p->mode == 3) {
        *sub = *p->sh;
        return left;
    }
    if (p->mode == 2) {
        size_t per = p->R * p->C;
        sub->ndim = 3;
        sub->dim[2] = p->C;
        if (per <= QUANT_CHUNK) {
            size_t b = p->cap / per;
            if (b > left / per) b = left / per;
            sub->dim[0] = b;
            sub->dim[1] = p->R;
            return b * per;
        }
        size_t row = (pos % per) / p->C, rows = p->cap / p->C;
        if (rows > p->R - row) rows = p->R - row;
        sub->dim[0] = 1;
        sub->dim[1] = rows;
        return rows * p->C;
    }
    size_t slice = p->len * p->inner;
    sub->ndim = 3;
    *sub_axis = 1;
    sub->dim[1] = p->len;
    sub->dim[2] = p->inner;
    if (slice <= QUANT_CHUNK || p->inner != 1) {
        size_t o = p->cap / slice;
        if (o > left / slice) o = left / slice;
        sub->dim[0] = o;
        return o * slice;
    }
    size_t at = pos % p->len, c = p->cap;
    if (c > p->len - at) c = p->len - at;
    sub->dim[0] = 1;
    sub->dim[1] = c;
    return c;
}

/* Narrows codes in place (element i moves down to its place in the
 * narrower array; forward order never overwrites an unread element) to the
 * --codes dtype t: from uint32 (element formats) or uint16 (the kernels). */
static void narrow_codes32(uint32_t *c, size_t n, npy_dtype t)
{
    if (t == NPY_U8) for (size_t i = 0; i < n; i++) ((uint8_t *)c)[i] = (uint8_t)c[i];
    else if (t == NPY_U16) for (size_t i = 0; i < n; i++) ((uint16_t *)c)[i] = (uint16_t)c[i];
}

static void narrow_codes16(uint16_t *c, size_t n, npy_dtype t)
{
    if (t == NPY_U8) for (size_t i = 0; i < n; i++) ((uint8_t *)c)[i] = (uint8_t)c[i];
}

/* What one chunk needs to be quantized (shared, read-only, by all threads). */
typedef struct {
    quant_kind     kind;
    const quant_args *a;
    mx_block_spec  spec;    /* MX (and the block shape of BDR) */
    mx_bdr_format  bdr;
    mx_format      elem;
    const mx_shape *sh;     /* the whole tensor (per-tensor/per-channel scaling) */
    npy_dtype      codes_dtype; /* the --codes file's: quant_chunk's codes come out in it */
} quant_job;

/* Bytes per element of quant_chunk's codes buffer: what the kernel writes
 * before any narrowing (element formats: uint32 from mx_encode; MX with byte
 * codes: bytes; the other kernels: uint16). */
static size_t codes_item(quant_kind kind, npy_dtype codes_dtype)
{
    if (kind == QK_ELEMENT) return sizeof(uint32_t);
    return kind == QK_MX && codes_dtype == NPY_U8 ? 1 : sizeof(uint16_t);
}

/* Quantizes cnt elements of src (shape sub, 1-D blocks along sub_axis) into
 * deq, codes (may be NULL: the kernels then skip the codes; else cnt times
 * codes_item() bytes, filled with cnt codes of j->codes_dtype) and scales
 * (MX, BDR: *ns E8M0 codes; scaled: the FP32 scales).  enc carries the
 * rounding and the RNG state.  Returns 0, or -1 with the one-line message in
 * msg. */
static int quant_chunk(const quant_job *j, const mx_encode_opts *enc, const float *src, size_t cnt,
                       const mx_shape *sub, int sub_axis, void *codes, void *scales, float *deq,
                       size_t *ns, size_t *invalid, char *msg, size_t msglen)
{
    char err[512];
    const quant_args *a = j->a;
    *ns = 0;
    if (j->kind == QK_ELEMENT) {
        uint32_t *c = codes;
        size_t bad = 0;
        for (size_t i = 0; i < cnt; i++) {
            uint32_t code = mx_encode(&j->elem, src[i], enc, NULL);
            if (c) c[i] = code;
            deq[i] = mx_decode_f32(&j->elem, code);
            if ((isnan(src[i]) && !isnan(deq[i])) || (isinf(src[i]) && !isinf(deq[i]))) bad++;
        }
        *invalid += bad;
        if (c) narrow_codes32(c, cnt, j->codes_dtype);
        return 0;
    }
    if (j->kind == QK_MX) {
        mx_block_spec cs = j->spec;
        cs.enc.rng = enc->rng;
        if (!cs.tile_rows) cs.axis = sub_axis;
        mx_shape ssub;
        /* byte codes straight from the kernel, without a uint16 pass */
        const int bytes = j->codes_dtype == NPY_U8;
        if (mx_block_scale_shape(&cs, sub, &ssub, err, sizeof err) != 0 ||
            mx_block_quantize_ex(&cs, sub, src, bytes ? NULL : codes, bytes ? codes : NULL, scales, deq, MX_SIMD_AUTO,
                                 err, sizeof err) != 0) {
            snprintf(msg, msglen, "--block %s: %s: %s", a->block_text ? a->block_text : "32", a->in, err);
            return -1;
        }
        *ns = shape_count(&ssub);
        return 0;
    }
    if (j->kind == QK_BDR) {
        mx_block_spec cs = j->spec;
        cs.axis = sub_axis;
        mx_shape ssub;
        if (mx_block_scale_shape(&cs, sub, &ssub, err, sizeof err) != 0 ||
            mx_bdr_quantize(&j->bdr, sub_axis, a->round, sub, src, codes, scales, NULL, deq, err, sizeof err) != 0) {
            snprintf(msg, msglen, "%s: %s: %s", a->format, a->in, err);
            return -1;
        }
        *ns = shape_count(&ssub);
        if (codes) narrow_codes16(codes, cnt, j->codes_dtype);
        return 0;
    }
    if (mx_scaled_quantize(&j->elem, enc, a->per_tensor, a->channel_axis, j->sh, src, codes, scales, deq,
                           err, sizeof err) != 0) {
        snprintf(msg, msglen, "%s: %s", a->in, err);
        return -1;
    }
    if (codes) narrow_codes16(codes, cnt, j->codes_dtype);
    return 0;
}

/* ---- parallel chunks --------------------------------------------------------
 * Without stochastic rounding the chunks are independent: each worker takes
 * the next chunk, preads it, quantizes it into its own buffers and pwrites
 * the results at the chunk's offset in the output files; scales go to their
 * place in one tensor-wide buffer, written once at the end.  Every byte lands
 * where the sequential loop puts it, so the files do not depend on the thread
 * count.  MXSIM_QUANT_THREADS=N overrides the thread count (default: online
 * CPUs, at most 8; 1 = the sequential loop). */
#define QUANT_MAX_THREADS 8

typedef struct {
    size_t   pos, cnt, soff;
    mx_shape sub;
    int      sub_axis;
} quant_piece;

typedef struct {
    const quant_job  *job;
    const quant_piece *piece;
    size_t            npiece, cap;
    mx_encode_opts    enc;
    const float      *x;          /* whole tensor in memory, or NULL: pread */
    const npy_reader *rd;
    const npy_writer *w_out, *w_codes;
    uint8_t          *scales;     /* tensor-wide E8M0 scales (MX, BDR) */
    pthread_mutex_t   mu;
    size_t            next, invalid;
    int               failed;
    char              msg[1024];
} par_ctx;

static void *par_worker(void *arg)
{
    par_ctx *c = arg;
    float *in = c->x ? NULL : malloc(c->cap * sizeof *in);
    float *deq = malloc(c->cap * sizeof *deq);
    void *codes = c->w_codes ? malloc(c->cap * codes_item(c->job->kind, c->job->codes_dtype)) : NULL;
    uint8_t *sc = c->scales ? NULL : malloc(c->cap ? c->cap : 1);
    size_t invalid = 0;
    char msg[1024];
    int ok = deq && (c->x || in) && (!c->w_codes || codes);
    if (!ok) snprintf(msg, sizeof msg, "out of memory (%zu elements per chunk)", c->cap);
    for (;;) {
        pthread_mutex_lock(&c->mu);
        if (!ok && !c->failed) { c->failed = 1; snprintf(c->msg, sizeof c->msg, "%s", msg); }
        size_t k = c->failed ? c->npiece : c->next++;
        pthread_mutex_unlock(&c->mu);
        if (k >= c->npiece) break;
        const quant_piece *p = &c->piece[k];
        const float *src = c->x ? c->x + p->pos : in;
        size_t ns = 0;
        ok = (c->x || npy_pread_f32(c->rd, p->pos, in, p->cnt, msg, sizeof msg) == 0) &&
             quant_chunk(c->job, &c->enc, src, p->cnt, &p->sub, p->sub_axis, codes,
                         c->scales ? c->scales + p->soff : sc, deq, &ns, &invalid, msg, sizeof msg) == 0 &&
             npy_writer_pwrite(c->w_out, deq, p->cnt, p->pos, msg, sizeof msg) == 0;
        if (ok && codes) ok = npy_writer_pwrite(c->w_codes, codes, p->cnt, p->pos, msg, sizeof msg) == 0;
    }
    pthread_mutex_lock(&c->mu);
    c->invalid += invalid;
    pthread_mutex_unlock(&c->mu);
    free(in);
    free(deq);
    free(codes);
    free(sc);
    return NULL;
}

/* Runs the pieces on `threads` threads (the caller is one of them).
 * Returns 0, or -1 with the first error in c->msg. */
static int par_run_pieces(par_ctx *c, int threads)
{
    pthread_t tid[QUANT_MAX_THREADS];
    int started[QUANT_MAX_THREADS] = {0};
    pthread_mutex_init(&c->mu, NULL);
    for (int t = 1; t < threads; t++) started[t] = pthread_create(&tid[t], NULL, par_worker, c) == 0;
    par_worker(c);
    for (int t = 1; t < threads; t++)
        if (started[t]) pthread_join(tid[t], NULL);
    pthread_mutex_destroy(&c->mu);
    return c->failed ? -1 : 0;
}

static int quant_threads(void)
{
    const char *e = getenv("MXSIM_QUANT_THREADS");
    long v;
    if (e && *e && parse_int(e, 1, QUANT_MAX_THREADS, &v) == 0) return (int)v;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > QUANT_MAX_THREADS ? QUANT_MAX_THREADS : (int)n;
}

/* Everything one `mxsim quant` run holds, from the parsed options to the
 * output files (mxsim_cmd_quant: resolve, open, plan, run, commit). */
typedef struct {
    quant_args a;
    quant_kind kind;
    mx_format elem;
    mx_bdr_format bdr;
    mx_shape sh, scale_shape;
    size_t n, ns_total, cap;
    npy_reader rd;
    int whole;                 /* the tensor is read completely into x */
    float *x, *inbuf, *deq;    /* x: the tensor read whole (malloc'ed) */
    const float *xin;          /* the whole tensor: x, or the file mapped (npy_map_f32); NULL: by chunks */
    void *codes, *scales;
    uint64_t rng;
    mx_encode_opts enc;
    mx_block_spec spec;
    npy_dtype codes_dtype, scales_dtype;
    chunk_plan plan;
    npy_writer w_out, w_codes, w_scales;
    int have_out, have_codes, have_scales;
    size_t nan_blocks, invalid;
} quant_run;

/* The format's kind, and the options that do not apply to it refused.
 * 0, or the exit status (message printed). */
static int quant_resolve(quant_run *q)
{
    const quant_args *a = &q->a;
    memset(&q->bdr, 0, sizeof q->bdr);
    if (mx_block_format_lookup(a->format, &q->elem) == 0) q->kind = QK_MX;
    else if (mx_bdr_lookup(a->format, &q->bdr) == 0) q->kind = QK_BDR;
    else if (mx_format_lookup(a->format, &q->elem) == 0) q->kind = (a->per_tensor || a->per_channel) ? QK_SCALED : QK_ELEMENT;
    else if (mx_format_exmy_problem(a->format))
        return quant_fail("--format: '%s' is not a format: %s", a->format, mx_format_exmy_problem(a->format));
    else return quant_fail("--format: unknown format '%s' (see mxsim quant --help)", a->format);
    const quant_kind kind = q->kind;

    if (a->fp5_set) {
        if (kind == QK_BDR || q->elem.kind != MX_KIND_MXSF)
            return quant_fail("--fp5-bias applies only to --format mxsf, not '%s'", a->format);
        if (mx_format_mxsf(a->fp5_bias, &q->elem) != 0)
            return quant_fail("--fp5-bias: %d is outside [%d, %d]", a->fp5_bias, MX_MXSF_FP5_BIAS_MIN,
                              MX_MXSF_FP5_BIAS_MAX);
    }
    if ((a->per_tensor || a->per_channel) && kind != QK_SCALED)
        return quant_fail("--%s applies only to element formats (e.g. fp8_e4m3), not '%s'",
                          a->per_tensor ? "per-tensor" : "per-channel", a->format);
    if (kind == QK_SCALED && q->elem.bits > 16)
        return quant_fail("--%s: '%s' has %d-bit codes; scaled formats take at most 16 bits",
                          a->per_tensor ? "per-tensor" : "per-channel", a->format, q->elem.bits);
    if (kind == QK_ELEMENT || kind == QK_SCALED) {
        const char *what = kind == QK_ELEMENT ? "per-element format" : "per-tensor/per-channel scaling";
        if (a->block_text) return quant_fail("--block does not apply to %s '%s' (no blocks)", what, a->format);
        if (a->axis_set)
            return quant_fail("--axis does not apply to %s '%s'%s", what, a->format,
                              kind == QK_SCALED ? " (use --per-channel AXIS)" : "");
        if (a->scale_rule_text) return quant_fail("--scale-rule does not apply to %s '%s'", what, a->format);
        if (kind == QK_ELEMENT && a->scales_path)
            return quant_fail("--scales: per-element format '%s' has no scales", a->format);
    } else {
        if (a->overflow_set && a->overflow != MX_OVERFLOW_SATURATE)
            return quant_fail("--overflow inf_nan does not apply to '%s': MX and BDR blocks always saturate", a->format);
    }
    if (kind == QK_BDR) {
        if (a->scale_rule_text) return quant_fail("--scale-rule does not apply to '%s' (BDR shared exponent is floor(log2 amax))", a->format);
        if (a->block_text && (a->tile_rows || a->block != q->bdr.k1))
            return quant_fail("--block: '%s' has fixed 1-D blocks of %d", a->format, q->bdr.k1);
        if (a->round == MX_ROUND_STOCHASTIC)
            return quant_fail("--round stochastic is not supported for '%s'", a->format);
    }
    if (kind == QK_MX && a->tile_rows && a->axis_set)
        return quant_fail("--axis does not apply to 2-D tiles (--block %s covers the last two axes)", a->block_text);
    return 0;
}

/* Opens the input: header and (regular file) size checked.  A stream, and
 * the whole-tensor kinds, are read completely before the shape checks; a
 * regular file is then read chunk by chunk.  0 or the exit status. */
static int quant_open_input(quant_run *q)
{
    const quant_args *a = &q->a;
    char err[512];
    if (npy_open_f32(a->in, &q->rd, &q->sh, err, sizeof err) != 0) return quant_fail("%s", err);
    q->whole = !q->rd.regular || q->kind == QK_SCALED;
    /* a float32 file is used in place (no read copy, no input buffer) */
    q->xin = npy_map_f32(&q->rd);
    if (q->xin) q->whole = 1;
    else if (q->whole && npy_read_all_f32(&q->rd, &q->x, err, sizeof err) != 0) return quant_fail("%s", err);
    else q->xin = q->x;
    q->n = shape_count(&q->sh);
    if (q->kind == QK_MX || q->kind == QK_BDR) {
        if (q->kind == QK_MX && a->tile_rows) {
            if (q->sh.ndim < 2)
                return quant_fail("--block %s: 2-D tiles need a tensor of rank >= 2; %s has rank %d", a->block_text,
                                  a->in, q->sh.ndim);
        } else if (check_axis("--axis", a->axis, &q->sh, a->in) != 0) {
            return 2;
        }
    }
    if (q->kind == QK_SCALED && a->per_channel && check_axis("--per-channel", a->channel_axis, &q->sh, a->in) != 0)
        return 2;
    if (q->kind == QK_SCALED)
        for (size_t i = 0; i < q->n; i++)
            if (!isfinite(q->xin[i]))
                return quant_fail("%s: non-finite value (%g) at flat index %zu: per-tensor/per-channel "
                                  "FP32 scaling needs finite data", a->in, (double)q->xin[i], i);
    return 0;
}

/* The block spec, the scale tensor's shape and the output dtypes; then the
 * chunk plan and the buffers the requested outputs need.  0 or the exit
 * status. */
static int quant_plan(quant_run *q)
{
    const quant_args *a = &q->a;
    char err[512];
    q->rng = a->seed;
    q->enc = (mx_encode_opts){a->round, a->overflow, &q->rng};
    memset(&q->spec, 0, sizeof q->spec);
    q->scale_shape = (mx_shape){0, {0}};
    q->codes_dtype = q->scales_dtype = NPY_U8;
    if (q->kind == QK_MX) {
        q->spec.elem = q->elem;
        q->spec.block = a->block;
        q->spec.axis = a->axis;
        q->spec.tile_rows = a->tile_rows;
        q->spec.tile_cols = a->tile_cols;
        q->spec.scale_rule = a->scale_rule;
        q->spec.enc = q->enc;
        q->spec.enc.overflow = MX_OVERFLOW_SATURATE;
        if (mx_block_scale_shape(&q->spec, &q->sh, &q->scale_shape, err, sizeof err) != 0)
            return quant_fail("--block %s: %s: %s", a->block_text ? a->block_text : "32", a->in, err);
        q->codes_dtype = code_dtype(q->elem.bits);
    } else if (q->kind == QK_BDR) {
        q->spec.elem = q->elem;
        q->spec.block = q->bdr.k1;
        q->spec.axis = a->axis;
        if (mx_block_scale_shape(&q->spec, &q->sh, &q->scale_shape, err, sizeof err) != 0)
            return quant_fail("%s: %s: %s", a->format, a->in, err);
        q->codes_dtype = code_dtype(q->bdr.mbits + 1);
    } else if (q->kind == QK_SCALED) {
        q->scale_shape.ndim = 1;
        q->scale_shape.dim[0] = a->per_tensor ? 1 : q->sh.dim[a->channel_axis < 0 ? a->channel_axis + q->sh.ndim : a->channel_axis];
        q->scales_dtype = NPY_F32;
        q->codes_dtype = code_dtype(q->elem.bits);
    } else {
        q->codes_dtype = code_dtype(q->elem.bits);
    }

    /* Buffers for one chunk, only those the requested outputs need. */
    plan_init(&q->plan, q->kind, &q->sh, q->kind == QK_BDR ? q->bdr.k1 : a->block, a->axis,
              q->kind == QK_MX ? a->tile_rows : 0);
    q->cap = q->plan.cap ? q->plan.cap : 1;
    q->inbuf = q->whole ? NULL : malloc(q->cap * sizeof *q->inbuf);
    q->deq = malloc(q->cap * sizeof *q->deq);
    /* a codes buffer only with --codes, of the width the kernel writes */
    q->codes = a->codes_path ? malloc(q->cap * codes_item(q->kind, q->codes_dtype)) : NULL;
    q->ns_total = (q->kind == QK_MX || q->kind == QK_BDR || q->kind == QK_SCALED) ? shape_count(&q->scale_shape) : 0;
    if (q->kind == QK_MX || q->kind == QK_BDR) q->scales = malloc(q->cap ? q->cap : 1);
    else if (q->kind == QK_SCALED) q->scales = malloc((q->ns_total ? q->ns_total : 1) * sizeof(float));
    if (!q->deq || (!q->whole && !q->inbuf) || (a->codes_path && !q->codes) || (q->kind != QK_ELEMENT && !q->scales))
        return quant_fail("out of memory (%zu elements)", q->n);
    return 0;
}

/* Temporary outputs with their headers.  0 or the exit status. */
static int quant_open_outputs(quant_run *q)
{
    const quant_args *a = &q->a;
    char err[512];
    if (npy_writer_open(&q->w_out, a->out, NPY_F32, &q->sh, err, sizeof err) != 0) return quant_fail("%s", err);
    q->have_out = 1;
    if (a->codes_path) {
        if (npy_writer_open(&q->w_codes, a->codes_path, q->codes_dtype, &q->sh, err, sizeof err) != 0)
            return quant_fail("%s", err);
        q->have_codes = 1;
    }
    if (a->scales_path) {
        if (npy_writer_open(&q->w_scales, a->scales_path, q->scales_dtype, &q->scale_shape, err, sizeof err) != 0)
            return quant_fail("%s", err);
        q->have_scales = 1;
    }
    return 0;
}

/* The chunks on `threads` threads (par_run_pieces): the pieces in order with
 * the offset of each one's scales, which are written once at the end.  0 or
 * the exit status. */
static int quant_run_parallel(quant_run *q, const quant_job *job, int threads)
{
    char err[512];
    const quant_kind kind = q->kind;
    size_t np = 0, npcap = 16, soff = 0;
    quant_piece *pieces = malloc(npcap * sizeof *pieces);
    uint8_t *all_scales = (kind == QK_MX || kind == QK_BDR) ? malloc(q->ns_total ? q->ns_total : 1) : NULL;
    for (size_t pos = 0; pieces && pos < q->n;) {
        if (np == npcap) {
            quant_piece *g = realloc(pieces, 2 * npcap * sizeof *pieces);
            if (!g) { free(pieces); pieces = NULL; break; }
            pieces = g;
            npcap *= 2;
        }
        quant_piece *p = &pieces[np];
        p->pos = pos;
        p->cnt = plan_chunk(&q->plan, pos, &p->sub, &p->sub_axis);
        p->soff = soff;
        if (p->cnt == 0) { free(pieces); pieces = NULL; break; }
        if (kind != QK_ELEMENT) {
            mx_block_spec cs = q->spec;
            if (!cs.tile_rows) cs.axis = p->sub_axis;
            mx_shape ssub;
            if (mx_block_scale_shape(&cs, &p->sub, &ssub, err, sizeof err) != 0) { free(pieces); pieces = NULL; break; }
            soff += shape_count(&ssub);
        }
        pos += p->cnt;
        np++;
    }
    if (!pieces || (kind != QK_ELEMENT && (!all_scales || soff != q->ns_total))) {
        free(pieces);
        free(all_scales);
        return quant_fail("out of memory (%zu elements)", q->n);
    }
    par_ctx pc;
    memset(&pc, 0, sizeof pc);
    pc.job = job;
    pc.piece = pieces;
    pc.npiece = np;
    pc.cap = q->cap;
    pc.enc = q->enc;
    pc.x = q->xin;
    pc.rd = &q->rd;
    pc.w_out = &q->w_out;
    pc.w_codes = q->a.codes_path ? &q->w_codes : NULL;
    pc.scales = all_scales;
    int prc = par_run_pieces(&pc, threads);
    free(pieces);
    q->invalid = pc.invalid;
    int status = 0;
    if (prc != 0) {
        status = quant_fail("%s", pc.msg);
    } else if (all_scales) {
        for (size_t i = 0; i < q->ns_total; i++) q->nan_blocks += all_scales[i] == 0xFF;
        if (q->have_scales && npy_writer_put(&q->w_scales, all_scales, q->ns_total, err, sizeof err) != 0) {
            q->have_scales = 0;
            status = quant_fail("%s", err);
        }
    }
    free(all_scales);
    return status;
}

/* The chunks one after the other, each written as it is done.  0 or the
 * exit status. */
static int quant_run_sequential(quant_run *q, const quant_job *job)
{
    char err[512];
    const quant_kind kind = q->kind;
    for (size_t pos = 0; pos < q->n;) {
        mx_shape sub;
        int sub_axis;
        size_t cnt = plan_chunk(&q->plan, pos, &sub, &sub_axis);
        if (cnt == 0) return quant_fail("internal error: empty chunk at element %zu", pos);
        const float *src = q->xin ? q->xin + pos : q->inbuf;
        if (!q->xin && npy_read_chunk_f32(&q->rd, q->inbuf, cnt, err, sizeof err) != 0) return quant_fail("%s", err);
        size_t ns = 0;
        char msg[1024];
        if (quant_chunk(job, &q->enc, src, cnt, &sub, sub_axis, q->codes, q->scales, q->deq, &ns, &q->invalid, msg,
                        sizeof msg) != 0)
            return quant_fail("%s", msg);
        if (kind == QK_SCALED) ns = q->ns_total;
        if (kind == QK_MX || kind == QK_BDR)
            for (size_t i = 0; i < ns; i++) q->nan_blocks += ((uint8_t *)q->scales)[i] == 0xFF;
        if (npy_writer_put(&q->w_out, q->deq, cnt, err, sizeof err) != 0) { q->have_out = 0; return quant_fail("%s", err); }
        if (q->a.codes_path && npy_writer_put(&q->w_codes, q->codes, cnt, err, sizeof err) != 0) {
            q->have_codes = 0;
            return quant_fail("%s", err);
        }
        if (q->have_scales && npy_writer_put(&q->w_scales, q->scales, ns, err, sizeof err) != 0) {
            q->have_scales = 0;
            return quant_fail("%s", err);
        }
        pos += cnt;
    }
    if (kind == QK_SCALED && q->n == 0 && q->have_scales) {
        /* an empty tensor: every channel's scale is 1 */
        float *sc = q->scales;
        for (size_t i = 0; i < q->ns_total; i++) sc[i] = 1.0f;
        if (npy_writer_put(&q->w_scales, q->scales, q->ns_total, err, sizeof err) != 0) {
            q->have_scales = 0;
            return quant_fail("%s", err);
        }
    }
    return 0;
}

/* Closes every temporary output, then renames them all into place (on a
 * failure none is left).  0 or the exit status. */
static int quant_commit(quant_run *q)
{
    char err[512];
    npy_writer *ws[3];
    const char *paths[3];
    int nw = 0;
    ws[nw] = &q->w_out; paths[nw++] = q->a.out;
    if (q->a.codes_path) { ws[nw] = &q->w_codes; paths[nw++] = q->a.codes_path; }
    if (q->a.scales_path) { ws[nw] = &q->w_scales; paths[nw++] = q->a.scales_path; }
    q->have_out = q->have_codes = q->have_scales = 0;
    for (int i = 0; i < nw; i++) {
        if (npy_writer_close(ws[i], err, sizeof err) != 0) {
            for (int j = 0; j < nw; j++) if (j != i) npy_writer_abort(ws[j]);
            return quant_fail("%s", err);
        }
    }
    for (int i = 0; i < nw; i++) {
        if (npy_commit(ws[i]->tmp, paths[i], err, sizeof err) != 0) {
            for (int j = i + 1; j < nw; j++) npy_discard(ws[j]->tmp);
            for (int j = 0; j < i; j++) remove(paths[j]);
            return quant_fail("%s", err);
        }
    }
    return 0;
}

int mxsim_cmd_quant(int argc, char **argv)
{
    quant_run *q = calloc(1, sizeof *q);
    if (!q) return quant_fail("out of memory");
    int status = parse_quant_args(argc, argv, &q->a);
    if (status == 1) { quant_usage(stdout); free(q); return 0; }
    if (status || (status = check_aliases(&q->a) != 0 ? 2 : 0) || (status = quant_resolve(q))) { free(q); return status; }
    q->rd.fd = -1;
    if ((status = quant_open_input(q)) || (status = quant_plan(q)) || (status = quant_open_outputs(q))) goto done;

    quant_job job;
    memset(&job, 0, sizeof job);
    job.kind = q->kind;
    job.a = &q->a;
    job.spec = q->spec;
    job.bdr = q->bdr;
    job.elem = q->elem;
    job.sh = &q->sh;
    job.codes_dtype = q->codes_dtype;
    const int threads = (q->kind == QK_SCALED || q->a.round == MX_ROUND_STOCHASTIC || q->n < 2 * q->cap)
                            ? 1 : quant_threads();
    status = threads > 1 ? quant_run_parallel(q, &job, threads) : quant_run_sequential(q, &job);
    if (!status) status = quant_commit(q);
    if (!status && q->nan_blocks)
        fprintf(stderr, "mxsim quant: warning: %s: %zu block(s) contain NaN/Inf and were quantized to NaN "
                "(scale 0xFF)\n", q->a.in, q->nan_blocks);
    if (!status && q->invalid)
        fprintf(stderr, "mxsim quant: warning: %s: %zu NaN/Inf value(s) have no such code in %s and were "
                "encoded per mx_policy.h (NaN -> +0 or NaN code, Inf -> +-max or NaN)\n", q->a.in, q->invalid,
                q->elem.name);
done:
    if (q->have_out) npy_writer_abort(&q->w_out);
    if (q->have_codes) npy_writer_abort(&q->w_codes);
    if (q->have_scales) npy_writer_abort(&q->w_scales);
    npy_close(&q->rd);
    free(q->x);
    free(q->inbuf);
    free(q->deq);
    free(q->codes);
    free(q->scales);
    free(q);
    return status;
}
