/*
 * npy.h — reading and writing NumPy .npy files (format versions 1.0, 2.0, 3.0).
 *
 * Read: dtype '<f4' or '<f8' (float64 is converted to float32 with
 * round-to-nearest-even; magnitudes beyond FP32 become +-Inf), C order only,
 * rank 0..MX_MAX_DIMS, any dimension may be 0.  Everything else is rejected
 * with one error line "FILE: problem": missing/unreadable file, bad magic,
 * unsupported version, unsupported dtype (incl. big-endian), fortran_order
 * True, malformed header dict (unknown/missing/duplicate key, bad value),
 * bad shape, truncated data, and bytes after the data (rejected rather than
 * ignored: a mismatch between header and size means the file is not what it
 * claims to be).
 *
 * Write: float32 ('<f4'), uint8 ('|u1'), uint16 ('<u2'), uint32 ('<u4'), as
 * version 1.0 (the header of rank <= 8 always fits), padded to 64 bytes.
 * Writes go to a temporary file in the destination's directory; the caller
 * commits it with npy_commit() (rename) or drops it with npy_discard(), so a
 * half-written output never appears under the destination name.
 */
#ifndef MXSIM_NPY_H
#define MXSIM_NPY_H

#include "formats/mx_block.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { NPY_F32 = 0, NPY_U8, NPY_U16, NPY_U32 } npy_dtype;

#define NPY_TMP_PATH_MAX 4096

/* Longest header dict accepted (numpy's own reader refuses headers over 10000
 * bytes by default; a rank-8 header is about 150).  Bounds what a hostile
 * header length can make us read. */
#define NPY_HEADER_MAX 65536

/* Parses an in-memory .npy image.  On success *data is a malloc'ed float array
 * (at least one element allocated even when the shape has none) that the
 * caller frees.  `name` is used in messages.  Returns 0, or -1 with err set. */
int npy_parse_f32(const unsigned char *buf, size_t len, const char *name,
                  mx_shape *shape, float **data, char *err, size_t errlen);

/* Reads a .npy file (as npy_parse_f32), never more than the format allows:
 * the preamble, a header of at most NPY_HEADER_MAX bytes, then exactly the
 * data size of the shape.  A regular file's size is checked against the shape
 * before the data is allocated; a stream (pipe, FIFO, device such as
 * /dev/zero) is read as the data arrives, and one byte beyond the data is an
 * error.  A directory is refused. */
int npy_read_f32(const char *path, mx_shape *shape, float **data, char *err, size_t errlen);

/* ---- streaming reader (used by `mxsim quant` to process a tensor in chunks) ----
 * npy_open_f32 reads and checks the preamble and header exactly as
 * npy_read_f32 does (same bounds, same messages), including the size check of
 * a regular file, and leaves the file positioned at the data. */
typedef struct {
    int         fd;
    const char *path;
    int         itemsize;   /* 4 (<f4) or 8 (<f8) */
    int         regular;    /* regular file: size already checked against the shape */
    size_t      count;      /* elements of the shape */
    size_t      done;       /* elements read so far */
    unsigned char *raw;     /* conversion buffer for <f8 chunks */
    size_t      rawcap;
    long long   data_off;   /* file offset of the first element */
    void       *map;        /* npy_map_f32's mapping (NULL: none) */
    size_t      maplen;
} npy_reader;

int npy_open_f32(const char *path, npy_reader *r, mx_shape *shape, char *err, size_t errlen);

/* The rest of the data (all of it unless chunks were read) as one malloc'ed
 * float array, with npy_read_f32's rules: a stream is read as it arrives and
 * one byte beyond the data is an error. */
int npy_read_all_f32(npy_reader *r, float **data, char *err, size_t errlen);

/* The next `count` elements of a regular file into dst (count <= what is
 * left).  A short read ("file shrank while read") is an error. */
int npy_read_chunk_f32(npy_reader *r, float *dst, size_t count, char *err, size_t errlen);

/* Elements [first, first + count) of a regular file into dst, by pread (the
 * file position is not used, so threads may call it concurrently). */
int npy_pread_f32(const npy_reader *r, size_t first, float *dst, size_t count, char *err, size_t errlen);

/* All elements of a regular little-endian float32 file, mapped read-only
 * (mmap: no copy, no buffer), valid until npy_close.  NULL when the data
 * cannot be used in place (a stream, float64, a big-endian host, mmap
 * failing): the caller then reads it. */
const float *npy_map_f32(npy_reader *r);

void npy_close(npy_reader *r);

/* ---- streaming writer: header once, then the data in large blocks ---------
 * npy_writer_open creates the temporary file next to `path` and writes the
 * header of (dtype, shape); npy_writer_put appends `count` elements;
 * npy_writer_close closes it and leaves it for npy_commit (w->tmp) or, on a
 * write error, removes it.  npy_writer_abort closes and removes it. */
typedef struct {
    int         fd;
    const char *path;
    size_t      item;
    long long   data_off;   /* file offset of the first element */
    char        tmp[NPY_TMP_PATH_MAX];
} npy_writer;

int  npy_writer_open(npy_writer *w, const char *path, npy_dtype dtype, const mx_shape *shape,
                     char *err, size_t errlen);
int  npy_writer_put(npy_writer *w, const void *data, size_t count, char *err, size_t errlen);
/* Writes count elements as elements [first, first + count) of the data, by
 * pwrite (threads may call it concurrently on disjoint ranges).  On error the
 * file is left for the caller to abort. */
int  npy_writer_pwrite(const npy_writer *w, const void *data, size_t count, size_t first, char *err,
                       size_t errlen);
int  npy_writer_close(npy_writer *w, char *err, size_t errlen);
void npy_writer_abort(npy_writer *w);

/* Writes shape/data of the given dtype to a new temporary file next to `path`
 * and stores its name in tmp (NPY_TMP_PATH_MAX bytes).  Returns 0, or -1 with
 * err set (no temporary file is left behind then). */
int npy_write_tmp(const char *path, npy_dtype dtype, const mx_shape *shape, const void *data,
                  char *tmp, char *err, size_t errlen);

/* Renames tmp onto path.  Returns 0, or -1 with err set (tmp is removed). */
int npy_commit(const char *tmp, const char *path, char *err, size_t errlen);

/* Removes an uncommitted temporary file. */
void npy_discard(const char *tmp);

/* npy_write_tmp + npy_commit. */
int npy_write(const char *path, npy_dtype dtype, const mx_shape *shape, const void *data,
              char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
