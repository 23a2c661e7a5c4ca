/*
 * config_yaml.h — loads accelerator configurations and energy tables
 * (configs/NAME.yaml, configs/energy/NAME.yaml) into the C structs of
 * models/arch/mx_arch.h.  Errors are one line naming the file, the line and
 * the key, e.g. "configs/x.yaml:7: key 'arch.rows': must be 1..1024".
 */
#ifndef MXSIM_CONFIG_YAML_H
#define MXSIM_CONFIG_YAML_H

#include "arch/mx_arch.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- input files and command-line values: one policy for every front-end
 * (mxsim run/validate/dram/cosim, mxsim-cosim-array, mxsim_sc_top). ---- */

/* Upper bound of a config-sized input file (configuration, energy table,
 * DRAM .yaml/.ini).  The shipped ones are a few KiB; the bound keeps the
 * worst case (yaml-cpp builds a node per value) well under a second. */
#define MX_INPUT_MAX_BYTES (256u << 10)
#define MX_INPUT_MAX_TEXT "256 KiB"

/* Reads a config-sized input file into a NUL-terminated malloc'ed buffer
 * (*text, free() it; *len without the NUL).  Refuses, before reading a byte:
 * a directory, anything that is not a regular file (device, FIFO, socket:
 * /dev/zero or a pipe would never end) and files over MX_INPUT_MAX_BYTES; the
 * read itself is bounded too.  `what` names the file's role in messages
 * ("configuration", "energy table").  0, or -1 with err set. */
int mx_input_read(const char *path, const char *what, char **text, size_t *len, char *err,
                  size_t errlen);

/* Prints "PROG: MESSAGE" and a newline to stderr, the message's control
 * characters escaped as \xNN: error lines echo file names, keys and values,
 * which must not drive the terminal. */
void mx_print_error(const char *prog, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The helpers below are inline because mxsim-cosim (mk/cosim.mk) links no
 * sim-layer objects and uses them too. */

/* Copies src to dst (cap bytes, always terminated), control characters
 * (0x00-0x1f, 0x7f and the UTF-8 C1 controls U+0080-U+009F) as \xNN. */
static inline void mx_escape_controls(char *dst, size_t cap, const char *src)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    if (!cap) return;
    for (const unsigned char *p = (const unsigned char *)src; *p; p++) {
        unsigned c = *p;
        int c1 = c == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f;
        if (c1) c = *++p;
        if (c < 0x20 || c == 0x7f || c1) {
            if (o + 4 >= cap) break;
            dst[o++] = '\\';
            dst[o++] = 'x';
            dst[o++] = hex[c >> 4];
            dst[o++] = hex[c & 15];
        } else {
            if (o + 1 >= cap) break;
            dst[o++] = (char)c;
        }
    }
    dst[o] = '\0';
}

/* A seed: decimal digits only (no sign, blank or base prefix), 0..2^64-1.
 * strtoull alone would take "-1" as 2^64-1.  0, or -1. */
static inline int mx_parse_seed(const char *s, uint64_t *out)
{
    if (!s || !*s || strspn(s, "0123456789") != strlen(s)) return -1;
    errno = 0;
    unsigned long long v = strtoull(s, NULL, 10);
    if (errno) return -1;
    *out = (uint64_t)v;
    return 0;
}

/* An output file named by an option (e.g. --fst): its directory must exist
 * and be writable and the path must not be a directory, checked before any
 * work so that a run never reports a file it could not write.  0, or -1
 * with err set ("option '--fst': ..."). */
static inline int mx_check_output_file(const char *option, const char *path, char *err, size_t errlen)
{
    char dir[PATH_MAX];
    struct stat st;
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : 0;
    if (!*path || n >= sizeof dir) {
        snprintf(err, errlen, "option '%s': bad file name '%s'", option, path);
        return -1;
    }
    if (slash) {
        memcpy(dir, path, n ? n : 1); /* "/x": the root */
        dir[n ? n : 1] = '\0';
    } else {
        strcpy(dir, ".");
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "option '%s': cannot write '%s': its directory does not exist", option, path);
        return -1;
    }
    if (access(dir, W_OK) != 0) {
        snprintf(err, errlen, "option '%s': cannot write '%s': its directory is not writable", option, path);
        return -1;
    }
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "option '%s': '%s' is a directory", option, path);
        return -1;
    }
    return 0;
}

/* Starts from mx_arch_config_default(), applies the file.  energy_path (may
 * be NULL, MX_ARCH_PATH_MAX bytes) receives the energy table path resolved
 * relative to the config file's directory (before any override: callers
 * with overrides use mx_config_energy_path).  The key `name` must be safe as
 * one file name (reports go to OUTDIR/NAME/): letters, digits, '_', '-',
 * '.', '+', not starting with '.' or '-'.  0, or -1 with err set. */
int mx_config_load(const char *path, mx_arch_config *c, char *energy_path, char *err,
                   size_t errlen);

/* The energy table path of c (key energy.table) found by mx_data_find from
 * the config file, into out (MX_ARCH_PATH_MAX bytes).  Call after the
 * overrides, which may change the key.  0, or -1 with err set (also when
 * no candidate exists: the message lists them). */
int mx_config_energy_path(const char *config_path, const mx_arch_config *c, char *out, char *err,
                          size_t errlen);

/* Where a relative path REL named in the file FROM (a config's energy.table,
 * memory.dram; a sweep file's base and traces) is: the first that exists of
 *   1. FROM's directory/REL;
 *   2. DATA/configs/REL, then DATA/REL, for DATA the installed data directory
 *      (the binary's directory/../share/mxsim, as `make install` lays it out;
 *      found from /proc/self/exe, so PREFIX and DESTDIR need no rebuild),
 *      then the source tree mxsim was built from (a binary in build/);
 *      a directory that does not exist is skipped.
 * An absolute REL is itself.  0 with out set; -1 when none exists: out gets
 * candidate 1 and looked (may be NULL) every candidate, ", "-separated. */
int mx_data_find(const char *from, const char *rel, char *out, size_t cap, char *looked, size_t lcap);

/* Applies one override "dotted.key=value" (as in the file) to c.  0 or -1. */
int mx_config_override(mx_arch_config *c, const char *assignment, char *err, size_t errlen);

/* Loads the DRAM named by c->dram_preset (memory.dram) into c->dram, applies
 * memory.dram_channels and calibrates the analytic engine; nothing when the
 * key is empty.  Call after the file and every override.  0, or -1. */
int mx_config_dram(const char *config_path, mx_arch_config *c, char *err, size_t errlen);

/* Every entry needs pj, source, node and voltage.  0, or -1 with err set. */
int mx_energy_load(const char *path, mx_energy_table *t, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
