/*
 * fuzz_util.h — helpers shared by the libFuzzer harnesses in tests/fuzz/.
 *
 * Readers that only take a path get the fuzz input through a file in a
 * per-process scratch directory (created once, under $TMPDIR, else /dev/shm,
 * else /tmp; removed at exit).  A harness must never exit the process on bad input: readers
 * report errors by return value, and the harness only returns.
 */
#ifndef MXSIM_FUZZ_UTIL_H
#define MXSIM_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The scratch directory (created on first use; aborts if it cannot be). */
const char *fuzz_dir(void);

/* Writes len bytes to fuzz_dir()/name and returns the full path (a static
 * buffer per slot 0..3, valid until the next call with the same slot).
 * Aborts on an I/O error: that is the harness's failure, not the reader's. */
const char *fuzz_file(int slot, const char *name, const uint8_t *data, size_t len);

/* Splits data at the first line equal to `marker` (a whole line, without its
 * newline): [data, *head_len) before it and [*tail, *tail + *tail_len) after
 * its newline.  Without the marker the tail is empty (*tail = NULL). */
void fuzz_split(const uint8_t *data, size_t len, const char *marker, size_t *head_len, const uint8_t **tail,
                size_t *tail_len);

/* The repository's root (for shipped configs the harness loads). */
const char *fuzz_src_dir(void);

#ifdef __cplusplus
}
#endif
#endif
