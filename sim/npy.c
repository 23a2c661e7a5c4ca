/*
 * npy.c — .npy reader/writer (see npy.h for what is accepted and why).
 *
 * The header is a Python dict literal, e.g.
 *   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
 * parsed here by a small recursive-descent reader that accepts exactly the
 * three keys numpy writes, each once, with either quote style and any
 * whitespace, and rejects everything else.
 */
#include "npy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err && errlen) vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- header dict parser --------------------------------------------------- */

typedef struct {
    const char *p, *end;
} cursor;

static void skip_ws(cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static int accept_char(cursor *c, char ch)
{
    skip_ws(c);
    if (c->p < c->end && *c->p == ch) { c->p++; return 1; }
    return 0;
}

/* A quoted string without escapes, copied into out (truncation is an error). */
static int parse_string(cursor *c, char *out, size_t outlen)
{
    skip_ws(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"')) return -1;
    char q = *c->p++;
    size_t n = 0;
    while (c->p < c->end && *c->p != q) {
        if (*c->p == '\\' || *c->p == '\n' || n + 1 >= outlen) return -1;
        out[n++] = *c->p++;
    }
    if (c->p >= c->end) return -1;
    c->p++;
    out[n] = '\0';
    return 0;
}

static int parse_word(cursor *c, const char *w)
{
    size_t n = strlen(w);
    skip_ws(c);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, w, n) != 0) return 0;
    const char *after = c->p + n;
    if (after < c->end && ((*after >= 'a' && *after <= 'z') || (*after >= 'A' && *after <= 'Z') ||
                           (*after >= '0' && *after <= '9') || *after == '_'))
        return 0;
    c->p = after;
    return 1;
}

/* shape tuple: "()", "(5,)", "(2, 3)", "(2, 3,)"; "(5)" is accepted too. */
static int parse_shape(cursor *c, mx_shape *sh, const char *name, char *err, size_t errlen)
{
    sh->ndim = 0;
    if (!accept_char(c, '('))
        return fail(err, errlen, "%s: malformed .npy header: 'shape' is not a tuple", name);
    if (accept_char(c, ')')) return 0;
    for (;;) {
        skip_ws(c);
        if (c->p < c->end && *c->p == '-')
            return fail(err, errlen, "%s: bad shape: negative dimension", name);
        if (c->p >= c->end || *c->p < '0' || *c->p > '9')
            return fail(err, errlen, "%s: bad shape: expected a non-negative integer", name);
        uint64_t v = 0;
        while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
            if (v > (UINT64_MAX - 9) / 10)
                return fail(err, errlen, "%s: bad shape: dimension too large", name);
            v = v * 10 + (uint64_t)(*c->p++ - '0');
        }
        if (sh->ndim >= MX_MAX_DIMS)
            return fail(err, errlen, "%s: bad shape: rank above %d is not supported", name,
                        MX_MAX_DIMS);
        if (v > (uint64_t)SIZE_MAX)
            return fail(err, errlen, "%s: bad shape: dimension too large", name);
        sh->dim[sh->ndim++] = (size_t)v;
        if (accept_char(c, ')')) return 0;
        if (!accept_char(c, ','))
            return fail(err, errlen, "%s: bad shape: expected ',' or ')' in the shape tuple", name);
        if (accept_char(c, ')')) return 0;
    }
}

typedef struct {
    int    itemsize;  /* 4 or 8 */
    mx_shape shape;
} npy_header;

static int parse_header(const char *text, size_t len, const char *name, npy_header *h,
                        char *err, size_t errlen)
{
    cursor c = {text, text + len};
    int have_descr = 0, have_order = 0, have_shape = 0;
    char key[32], val[64];

    for (size_t i = 0; i < len; i++)
        if ((unsigned char)text[i] < 0x20 && text[i] != '\n' && text[i] != '\t' && text[i] != '\r')
            return fail(err, errlen, "%s: malformed .npy header: control character", name);
    if (!accept_char(&c, '{'))
        return fail(err, errlen, "%s: malformed .npy header: expected a '{' dict", name);
    while (!accept_char(&c, '}')) {
        if (parse_string(&c, key, sizeof key) != 0)
            return fail(err, errlen, "%s: malformed .npy header: expected a quoted key", name);
        if (!accept_char(&c, ':'))
            return fail(err, errlen, "%s: malformed .npy header: expected ':' after '%s'", name, key);
        if (strcmp(key, "descr") == 0) {
            if (have_descr++) return fail(err, errlen, "%s: malformed .npy header: duplicate key 'descr'", name);
            if (parse_string(&c, val, sizeof val) != 0)
                return fail(err, errlen, "%s: unsupported dtype: 'descr' is not a simple type string "
                            "(need '<f4' or '<f8')", name);
            if (strcmp(val, "<f4") == 0) h->itemsize = 4;
            else if (strcmp(val, "<f8") == 0) h->itemsize = 8;
            else if (val[0] == '>' && (strcmp(val + 1, "f4") == 0 || strcmp(val + 1, "f8") == 0))
                return fail(err, errlen, "%s: unsupported dtype '%s': big-endian (need '<f4' or '<f8')", name, val);
            else
                return fail(err, errlen, "%s: unsupported dtype '%s' (need '<f4' or '<f8')", name, val);
        } else if (strcmp(key, "fortran_order") == 0) {
            if (have_order++) return fail(err, errlen, "%s: malformed .npy header: duplicate key 'fortran_order'", name);
            if (parse_word(&c, "True"))
                return fail(err, errlen, "%s: fortran_order True is not supported (C order only)", name);
            if (!parse_word(&c, "False"))
                return fail(err, errlen, "%s: malformed .npy header: 'fortran_order' is not True/False", name);
        } else if (strcmp(key, "shape") == 0) {
            if (have_shape++) return fail(err, errlen, "%s: malformed .npy header: duplicate key 'shape'", name);
            if (parse_shape(&c, &h->shape, name, err, errlen) != 0) return -1;
        } else {
            return fail(err, errlen, "%s: malformed .npy header: unknown key '%s'", name, key);
        }
        if (accept_char(&c, '}')) break;
        if (!accept_char(&c, ','))
            return fail(err, errlen, "%s: malformed .npy header: expected ',' or '}' after '%s'", name, key);
    }
    skip_ws(&c);
    if (c.p != c.end)
        return fail(err, errlen, "%s: malformed .npy header: text after the dict", name);
    if (!have_descr) return fail(err, errlen, "%s: malformed .npy header: missing key 'descr'", name);
    if (!have_order) return fail(err, errlen, "%s: malformed .npy header: missing key 'fortran_order'", name);
    if (!have_shape) return fail(err, errlen, "%s: malformed .npy header: missing key 'shape'", name);
    return 0;
}

static uint32_t rd_le32(const unsigned char *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* Checks magic and version of the first bytes (len >= 8 needed to decide) and
 * gives the offset of the header dict and the size of the length field. */
static int parse_preamble(const unsigned char *buf, size_t len, const char *name, size_t *hoff,
                          char *err, size_t errlen)
{
    static const unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
    if (len < 6 || memcmp(buf, magic, 6) != 0)
        return fail(err, errlen, "%s: not an .npy file (bad magic)", name);
    if (len < 8) return fail(err, errlen, "%s: truncated .npy header", name);
    int major = buf[6], minor = buf[7];
    if (!(major >= 1 && major <= 3 && minor == 0))
        return fail(err, errlen, "%s: unsupported .npy version %d.%d (need 1.0, 2.0 or 3.0)", name,
                    major, minor);
    *hoff = major == 1 ? 10 : 12;
    return 0;
}

/* The header length field (buf holds hoff bytes), bounded by NPY_HEADER_MAX. */
static int header_length(const unsigned char *buf, size_t hoff, const char *name, size_t *hlen,
                         char *err, size_t errlen)
{
    uint64_t v = hoff == 10 ? ((uint64_t)buf[8] | (uint64_t)buf[9] << 8) : rd_le32(buf + 8);
    if (v > NPY_HEADER_MAX)
        return fail(err, errlen, "%s: .npy header length %llu exceeds the %d-byte limit", name,
                    (unsigned long long)v, NPY_HEADER_MAX);
    *hlen = (size_t)v;
    return 0;
}

/* Parses the header dict and computes the data size the shape needs. */
static int parse_dict(const unsigned char *text, size_t hlen, const char *name, npy_header *h,
                      size_t *count, size_t *need, char *err, size_t errlen)
{
    memset(h, 0, sizeof *h);
    if (parse_header((const char *)text, hlen, name, h, err, errlen) != 0) return -1;
    size_t n = 1;
    for (int i = 0; i < h->shape.ndim; i++) {
        if (h->shape.dim[i] != 0 && n > SIZE_MAX / 8 / h->shape.dim[i])
            return fail(err, errlen, "%s: bad shape: too many elements", name);
        n *= h->shape.dim[i];
    }
    *count = n;
    *need = n * (size_t)h->itemsize;
    return 0;
}

/* Converts count little-endian items of h->itemsize bytes to a malloc'ed float array. */
static int convert_data(const unsigned char *p, size_t count, const npy_header *h, const char *name,
                        mx_shape *shape, float **data, char *err, size_t errlen)
{
    float *out = malloc((count ? count : 1) * sizeof *out);
    if (!out) return fail(err, errlen, "%s: out of memory (%zu elements)", name, count);
    if (h->itemsize == 4) {
        for (size_t i = 0; i < count; i++) {
            uint32_t b = rd_le32(p + 4 * i);
            memcpy(&out[i], &b, 4);
        }
    } else {
        for (size_t i = 0; i < count; i++) {
            uint64_t b = (uint64_t)rd_le32(p + 8 * i) | (uint64_t)rd_le32(p + 8 * i + 4) << 32;
            double d;
            memcpy(&d, &b, 8);
            out[i] = (float)d;
        }
    }
    *shape = h->shape;
    *data = out;
    return 0;
}

int npy_parse_f32(const unsigned char *buf, size_t len, const char *name,
                  mx_shape *shape, float **data, char *err, size_t errlen)
{
    *data = NULL;
    size_t hoff = 0, hlen = 0, count = 0, need = 0; /* set by the parsers; zero keeps -O3 -Wmaybe-uninitialized quiet */
    if (parse_preamble(buf, len, name, &hoff, err, errlen) != 0) return -1;
    if (len < hoff) return fail(err, errlen, "%s: truncated .npy header", name);
    if (header_length(buf, hoff, name, &hlen, err, errlen) != 0) return -1;
    if (hlen > len - hoff) return fail(err, errlen, "%s: truncated .npy header", name);
    npy_header h;
    if (parse_dict(buf + hoff, hlen, name, &h, &count, &need, err, errlen) != 0) return -1;
    size_t have = len - hoff - hlen;
    if (have < need)
        return fail(err, errlen, "%s: truncated data: the shape needs %zu bytes, the file has %zu",
                    name, need, have);
    if (have > need)
        return fail(err, errlen, "%s: %zu unexpected bytes after the data", name, have - need);
    return convert_data(buf + hoff + hlen, count, &h, name, shape, data, err, errlen);
}

/* Reads up to n bytes (fewer only at end of file); *got is what was read. */
static int read_full(int fd, unsigned char *p, size_t n, size_t *got)
{
    *got = 0;
    while (*got < n) {
        ssize_t r = read(fd, p + *got, n - *got);
        if (r < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (r == 0) break;
        *got += (size_t)r;
    }
    return 0;
}

/* The data of a stream (pipe, FIFO, device): read in growing chunks so that
 * memory follows what actually arrives, never more than need bytes, then one
 * byte more to detect data after the end. */
static int read_stream_data(int fd, size_t need, const char *path, unsigned char **out, char *err,
                            size_t errlen)
{
    size_t cap = need < (1u << 20) ? need : (1u << 20), len = 0;
    unsigned char *buf = malloc(cap ? cap : 1);
    if (!buf) return fail(err, errlen, "%s: out of memory", path);
    while (len < need) {
        if (len == cap) {
            size_t ncap = cap > need / 2 ? need : cap * 2;
            unsigned char *nb = realloc(buf, ncap);
            if (!nb) { free(buf); return fail(err, errlen, "%s: out of memory (%zu bytes)", path, need); }
            buf = nb;
            cap = ncap;
        }
        size_t got;
        if (read_full(fd, buf + len, cap - len, &got) != 0) {
            int saved = errno;
            free(buf);
            return fail(err, errlen, "%s: read error: %s", path, strerror(saved));
        }
        len += got;
        if (got < cap - (len - got)) break; /* end of stream */
    }
    if (len < need) {
        free(buf);
        return fail(err, errlen, "%s: truncated data: the shape needs %zu bytes, the stream ended after %zu",
                    path, need, len);
    }
    unsigned char extra;
    size_t got;
    if (read_full(fd, &extra, 1, &got) != 0 || got != 0) {
        free(buf);
        return fail(err, errlen, "%s: unexpected bytes after the data (the shape needs %zu bytes)", path, need);
    }
    *out = buf;
    return 0;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NPY_HOST_LE 1
#else
#define NPY_HOST_LE 0
#endif

int npy_open_f32(const char *path, npy_reader *r, mx_shape *shape, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->fd = -1;
    r->path = path;
    int fd = open(path, O_RDONLY);
    if (fd < 0) return fail(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) { int e = errno; close(fd); return fail(err, errlen, "%s: cannot stat: %s", path, strerror(e)); }
    if (S_ISDIR(st.st_mode)) { close(fd); return fail(err, errlen, "%s: is a directory, not an .npy file", path); }
    const int regular = S_ISREG(st.st_mode);
    const uint64_t size = regular ? (uint64_t)st.st_size : UINT64_MAX;

    /* Preamble and header, each read only as far as the format allows. */
    unsigned char pre[12];
    size_t got = 0, hoff = 0, hlen = 0, count = 0, need = 0; /* as in npy_parse_f32 */
    int rc = -1;
    unsigned char *text = NULL;
    npy_header h;
    if (read_full(fd, pre, 8, &got) != 0) { fail(err, errlen, "%s: read error: %s", path, strerror(errno)); goto out; }
    if (parse_preamble(pre, got, path, &hoff, err, errlen) != 0) goto out;
    if (read_full(fd, pre + 8, hoff - 8, &got) != 0) { fail(err, errlen, "%s: read error: %s", path, strerror(errno)); goto out; }
    if (got < hoff - 8) { fail(err, errlen, "%s: truncated .npy header", path); goto out; }
    if (header_length(pre, hoff, path, &hlen, err, errlen) != 0) goto out;
    if (hoff + hlen > size) { fail(err, errlen, "%s: truncated .npy header", path); goto out; }
    text = malloc(hlen ? hlen : 1);
    if (!text) { fail(err, errlen, "%s: out of memory", path); goto out; }
    if (read_full(fd, text, hlen, &got) != 0) { fail(err, errlen, "%s: read error: %s", path, strerror(errno)); goto out; }
    if (got < hlen) { fail(err, errlen, "%s: truncated .npy header", path); goto out; }
    if (parse_dict(text, hlen, path, &h, &count, &need, err, errlen) != 0) goto out;

    /* A regular file's size is checked before anything is allocated. */
    if (regular) {
        uint64_t have = size - hoff - hlen;
        if (have < need) {
            fail(err, errlen, "%s: truncated data: the shape needs %zu bytes, the file has %llu", path, need,
                 (unsigned long long)have);
            goto out;
        }
        if (have > need) {
            fail(err, errlen, "%s: %llu unexpected bytes after the data", path, (unsigned long long)(have - need));
            goto out;
        }
    }
    rc = 0;
out:
    free(text);
    if (rc != 0) { close(fd); return -1; }
    r->fd = fd;
    r->data_off = (long long)(hoff + hlen);
    r->itemsize = h.itemsize;
    r->regular = regular;
    r->count = count;
    *shape = h.shape;
    return 0;
}

/* Converts count little-endian items of itemsize bytes at p to floats at out. */
static void convert_into(const unsigned char *p, size_t count, int itemsize, float *out)
{
    if (itemsize == 4) {
        if (NPY_HOST_LE) { memcpy(out, p, count * 4); return; }
        for (size_t i = 0; i < count; i++) {
            uint32_t b = rd_le32(p + 4 * i);
            memcpy(&out[i], &b, 4);
        }
        return;
    }
    for (size_t i = 0; i < count; i++) {
        uint64_t b = (uint64_t)rd_le32(p + 8 * i) | (uint64_t)rd_le32(p + 8 * i + 4) << 32;
        double d;
        memcpy(&d, &b, 8);
        out[i] = (float)d;
    }
}

int npy_read_chunk_f32(npy_reader *r, float *dst, size_t count, char *err, size_t errlen)
{
    if (count > r->count - r->done)
        return fail(err, errlen, "%s: internal error: read beyond the data", r->path);
    size_t got = 0;
    if (r->itemsize == 4 && NPY_HOST_LE) {
        /* <f4 on a little-endian host: the bytes are the floats, read in place */
        if (read_full(r->fd, (unsigned char *)dst, count * 4, &got) != 0 || got != count * 4) {
            int saved = errno;
            return fail(err, errlen, "%s: read error: %s", r->path,
                        got != count * 4 ? "file shrank while read" : strerror(saved));
        }
    } else {
        size_t bytes = count * (size_t)r->itemsize;
        if (bytes > r->rawcap) {
            unsigned char *nb = realloc(r->raw, bytes);
            if (!nb) return fail(err, errlen, "%s: out of memory (%zu bytes)", r->path, bytes);
            r->raw = nb;
            r->rawcap = bytes;
        }
        if (read_full(r->fd, r->raw, bytes, &got) != 0 || got != bytes) {
            int saved = errno;
            return fail(err, errlen, "%s: read error: %s", r->path,
                        got != bytes ? "file shrank while read" : strerror(saved));
        }
        convert_into(r->raw, count, r->itemsize, dst);
    }
    r->done += count;
    return 0;
}

int npy_read_all_f32(npy_reader *r, float **data, char *err, size_t errlen)
{
    *data = NULL;
    size_t count = r->count - r->done;
    if (r->regular) {
        float *out = malloc((count ? count : 1) * sizeof *out);
        if (!out) return fail(err, errlen, "%s: out of memory (%zu elements)", r->path, count);
        if (npy_read_chunk_f32(r, out, count, err, errlen) != 0) { free(out); return -1; }
        *data = out;
        return 0;
    }
    unsigned char *raw = NULL;
    if (read_stream_data(r->fd, count * (size_t)r->itemsize, r->path, &raw, err, errlen) != 0) return -1;
    float *out = malloc((count ? count : 1) * sizeof *out);
    if (!out) { free(raw); return fail(err, errlen, "%s: out of memory (%zu elements)", r->path, count); }
    convert_into(raw, count, r->itemsize, out);
    free(raw);
    r->done = r->count;
    *data = out;
    return 0;
}

int npy_pread_f32(const npy_reader *r, size_t first, float *dst, size_t count, char *err, size_t errlen)
{
    if (first > r->count || count > r->count - first)
        return fail(err, errlen, "%s: internal error: read beyond the data", r->path);
    const size_t bytes = count * (size_t)r->itemsize;
    const int direct = r->itemsize == 4 && NPY_HOST_LE;
    unsigned char *p = direct ? (unsigned char *)dst : malloc(bytes ? bytes : 1);
    if (!p) return fail(err, errlen, "%s: out of memory (%zu bytes)", r->path, bytes);
    off_t off = (off_t)(r->data_off + (long long)(first * (size_t)r->itemsize));
    size_t got = 0;
    int saved = 0;
    while (got < bytes) {
        ssize_t k = pread(r->fd, p + got, bytes - got, off + (off_t)got);
        if (k < 0) {
            if (errno == EINTR) continue;
            saved = errno;
            break;
        }
        if (k == 0) break;
        got += (size_t)k;
    }
    if (got != bytes) {
        if (!direct) free(p);
        return fail(err, errlen, "%s: read error: %s", r->path, saved ? strerror(saved) : "file shrank while read");
    }
    if (!direct) {
        convert_into(p, count, r->itemsize, dst);
        free(p);
    }
    return 0;
}

const float *npy_map_f32(npy_reader *r)
{
    if (!r->regular || r->itemsize != 4 || !NPY_HOST_LE || r->count == 0 || r->data_off % 4 != 0 || r->map)
        return NULL;
    const size_t len = (size_t)r->data_off + r->count * 4;
    void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, r->fd, 0);
    if (m == MAP_FAILED) return NULL;
    r->map = m;
    r->maplen = len;
    return (const float *)((const unsigned char *)m + r->data_off);
}

void npy_close(npy_reader *r)
{
    if (r->map) munmap(r->map, r->maplen);
    r->map = NULL;
    if (r->fd >= 0) close(r->fd);
    r->fd = -1;
    free(r->raw);
    r->raw = NULL;
    r->rawcap = 0;
}

int npy_read_f32(const char *path, mx_shape *shape, float **data, char *err, size_t errlen)
{
    *data = NULL;
    npy_reader r;
    if (npy_open_f32(path, &r, shape, err, errlen) != 0) return -1;
    int rc = npy_read_all_f32(&r, data, err, errlen);
    npy_close(&r);
    return rc;
}

/* ---- writer ---------------------------------------------------------------- */

static int write_all(int fd, const void *p, size_t n)
{
    const unsigned char *b = p;
    while (n) {
        ssize_t w = write(fd, b, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        b += w;
        n -= (size_t)w;
    }
    return 0;
}

static const char *dtype_descr(npy_dtype t, size_t *itemsize)
{
    switch (t) {
    case NPY_F32: *itemsize = 4; return "<f4";
    case NPY_U8:  *itemsize = 1; return "|u1";
    case NPY_U16: *itemsize = 2; return "<u2";
    case NPY_U32: *itemsize = 4; return "<u4";
    }
    *itemsize = 0;
    return NULL;
}

/* The header of (dtype, shape): version 1.0, padded to 64 bytes as np.save. */
static size_t make_header(npy_dtype dtype, const mx_shape *shape, unsigned char *head, size_t headlen)
{
    size_t item;
    const char *descr = dtype_descr(dtype, &item);
    char dict[64 + 24 * MX_MAX_DIMS];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
    for (int i = 0; i < shape->ndim; i++)
        n += snprintf(dict + n, sizeof dict - (size_t)n, "%zu,%s", shape->dim[i],
                      i + 1 < shape->ndim ? " " : "");
    /* numpy writes "(2, 3)" but "(5,)"; the trailing comma only matters for rank 1. */
    if (shape->ndim > 1) n--;
    n += snprintf(dict + n, sizeof dict - (size_t)n, "), }");

    size_t pre = 10;
    size_t total = (pre + (size_t)n + 1 + 63) / 64 * 64; /* +1 for '\n' */
    size_t hlen = total - pre;
    if (total > headlen) return 0;
    memcpy(head, "\x93NUMPY\x01\x00", 8);
    head[8] = (unsigned char)(hlen & 0xFF);
    head[9] = (unsigned char)(hlen >> 8);
    memcpy(head + pre, dict, (size_t)n);
    memset(head + pre + n, ' ', hlen - (size_t)n - 1);
    head[total - 1] = '\n';
    return total;
}

/* count items of `item` bytes (host order) written little-endian. */
static int write_items(int fd, const void *data, size_t count, size_t item)
{
    if (NPY_HOST_LE || item == 1) return write_all(fd, data, count * item);
    unsigned char chunk[65536];
    const unsigned char *src = data;
    size_t per = sizeof chunk / item;
    for (size_t i = 0; i < count; i += per) {
        size_t m = count - i < per ? count - i : per;
        for (size_t j = 0; j < m; j++) {
            const unsigned char *s = src + (i + j) * item;
            uint32_t v = 0;
            if (item == 2) { uint16_t u; memcpy(&u, s, 2); v = u; }
            else memcpy(&v, s, 4);
            for (size_t b = 0; b < item; b++) chunk[j * item + b] = (unsigned char)(v >> (8 * b));
        }
        if (write_all(fd, chunk, m * item) != 0) return -1;
    }
    return 0;
}

int npy_writer_open(npy_writer *w, const char *path, npy_dtype dtype, const mx_shape *shape,
                    char *err, size_t errlen)
{
    memset(w, 0, sizeof *w);
    w->fd = -1;
    w->path = path;
    if (!dtype_descr(dtype, &w->item)) return fail(err, errlen, "%s: internal error: bad dtype", path);
    int fd = -1;
    for (int attempt = 0; attempt < 1000 && fd < 0; attempt++) {
        int n = snprintf(w->tmp, NPY_TMP_PATH_MAX, "%s.tmp.%ld.%d", path, (long)getpid(), attempt);
        if (n < 0 || n >= NPY_TMP_PATH_MAX) { w->tmp[0] = '\0'; return fail(err, errlen, "%s: path too long", path); }
        fd = open(w->tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd < 0 && errno != EEXIST) {
            int saved = errno;
            w->tmp[0] = '\0';
            return fail(err, errlen, "%s: cannot create: %s", path, strerror(saved));
        }
    }
    if (fd < 0) { w->tmp[0] = '\0'; return fail(err, errlen, "%s: cannot create a temporary file", path); }
    w->fd = fd;
    unsigned char head[12 + 64 + 24 * MX_MAX_DIMS + 64];
    size_t total = make_header(dtype, shape, head, sizeof head);
    w->data_off = (long long)total;
    if (total == 0 || write_all(fd, head, total) != 0) {
        int saved = total == 0 ? EINVAL : errno;
        npy_writer_abort(w);
        return fail(err, errlen, "%s: write error: %s", path, strerror(saved));
    }
    return 0;
}

int npy_writer_put(npy_writer *w, const void *data, size_t count, char *err, size_t errlen)
{
    if (count == 0) return 0;
    if (write_items(w->fd, data, count, w->item) != 0) {
        int saved = errno;
        npy_writer_abort(w);
        return fail(err, errlen, "%s: write error: %s", w->path, strerror(saved));
    }
    return 0;
}

int npy_writer_pwrite(const npy_writer *w, const void *data, size_t count, size_t first, char *err,
                      size_t errlen)
{
    const unsigned char *p = data;
    unsigned char buf[65536];
    size_t done = 0;
    while (done < count) {
        /* little-endian host (or bytes): the elements as they are; else swapped in buf */
        size_t m = count - done;
        const unsigned char *src = p + done * w->item;
        if (!(NPY_HOST_LE || w->item == 1)) {
            if (m > sizeof buf / w->item) m = sizeof buf / w->item;
            for (size_t j = 0; j < m; j++) {
                uint32_t v = 0;
                if (w->item == 2) { uint16_t u; memcpy(&u, src + 2 * j, 2); v = u; }
                else memcpy(&v, src + 4 * j, 4);
                for (size_t b = 0; b < w->item; b++) buf[j * w->item + b] = (unsigned char)(v >> (8 * b));
            }
            src = buf;
        }
        size_t bytes = m * w->item, put = 0;
        off_t off = (off_t)(w->data_off + (long long)((first + done) * w->item));
        while (put < bytes) {
            ssize_t k = pwrite(w->fd, src + put, bytes - put, off + (off_t)put);
            if (k < 0) {
                if (errno == EINTR) continue;
                return fail(err, errlen, "%s: write error: %s", w->path, strerror(errno));
            }
            put += (size_t)k;
        }
        done += m;
    }
    return 0;
}

int npy_writer_close(npy_writer *w, char *err, size_t errlen)
{
    int fd = w->fd;
    w->fd = -1;
    if (close(fd) != 0) {
        int saved = errno;
        unlink(w->tmp);
        w->tmp[0] = '\0';
        return fail(err, errlen, "%s: write error: %s", w->path, strerror(saved));
    }
    return 0;
}

void npy_writer_abort(npy_writer *w)
{
    if (w->fd >= 0) close(w->fd);
    w->fd = -1;
    if (w->tmp[0]) unlink(w->tmp);
    w->tmp[0] = '\0';
}

int npy_write_tmp(const char *path, npy_dtype dtype, const mx_shape *shape, const void *data,
                  char *tmp, char *err, size_t errlen)
{
    npy_writer w;
    if (npy_writer_open(&w, path, dtype, shape, err, errlen) != 0) return -1;
    size_t count = 1;
    for (int i = 0; i < shape->ndim; i++) count *= shape->dim[i];
    if (npy_writer_put(&w, data, count, err, errlen) != 0) return -1;
    if (npy_writer_close(&w, err, errlen) != 0) return -1;
    memcpy(tmp, w.tmp, NPY_TMP_PATH_MAX);
    return 0;
}

int npy_commit(const char *tmp, const char *path, char *err, size_t errlen)
{
    if (rename(tmp, path) != 0) {
        int saved = errno;
        unlink(tmp);
        return fail(err, errlen, "%s: cannot rename the temporary file into place: %s", path,
                    strerror(saved));
    }
    return 0;
}

void npy_discard(const char *tmp)
{
    if (tmp && tmp[0]) unlink(tmp);
}

int npy_write(const char *path, npy_dtype dtype, const mx_shape *shape, const void *data,
              char *err, size_t errlen)
{
    char tmp[NPY_TMP_PATH_MAX];
    if (npy_write_tmp(path, dtype, shape, data, tmp, err, errlen) != 0) return -1;
    return npy_commit(tmp, path, err, errlen);
}
