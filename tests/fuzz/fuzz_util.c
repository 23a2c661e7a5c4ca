/* fuzz_util.c — see fuzz_util.h. */
#define _XOPEN_SOURCE 700 /* mkdtemp, nftw */
#include "fuzz_util.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir_path[4096];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void cleanup(void)
{
    if (dir_path[0]) nftw(dir_path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

const char *fuzz_dir(void)
{
    if (!dir_path[0]) {
        /* tmpfs if there is one: on ext4, truncating or renaming over a file
         * just written forces its write-back (auto_da_alloc), which cost up
         * to 8 ms an input on a busy disk */
        const char *t = getenv("TMPDIR");
        if (!t || !*t) t = access("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(dir_path, sizeof dir_path, "%s/mxsim-fuzz-XXXXXX", t);
        if (!mkdtemp(dir_path)) {
            perror("fuzz_dir: mkdtemp");
            abort();
        }
        atexit(cleanup);
    }
    return dir_path;
}

const char *fuzz_file(int slot, const char *name, const uint8_t *data, size_t len)
{
    static char paths[4][4200];
    if (slot < 0 || slot > 3) abort();
    char *p = paths[slot];
    snprintf(p, sizeof paths[slot], "%s/%s", fuzz_dir(), name);
    remove(p); /* a new file, not a truncated one (see fuzz_dir) */
    FILE *f = fopen(p, "wb");
    if (!f || (len && fwrite(data, 1, len, f) != len) || fclose(f) != 0) {
        perror(p);
        abort();
    }
    return p;
}

void fuzz_split(const uint8_t *data, size_t len, const char *marker, size_t *head_len, const uint8_t **tail,
                size_t *tail_len)
{
    const size_t ml = strlen(marker);
    for (size_t i = 0; i + ml <= len; i++) {
        if ((i == 0 || data[i - 1] == '\n') && !memcmp(data + i, marker, ml) &&
            (i + ml == len || data[i + ml] == '\n')) {
            *head_len = i;
            const size_t after = i + ml < len ? i + ml + 1 : len;
            *tail = data + after;
            *tail_len = len - after;
            return;
        }
    }
    *head_len = len;
    *tail = NULL;
    *tail_len = 0;
}

const char *fuzz_src_dir(void)
{
    return MXSIM_SRC_DIR;
}
