/*
 * operand_data.c — functional-mode GEMM operands from .npy files (see
 * operand_data.h).
 */
#include "operand_data.h"
#include "config_yaml.h"
#include "npy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int mx_operand_load(const char *prog, const char *dir, const char *trace_path, const mx_gemm *g,
                    const char *which, long long rows, long long cols, float **out)
{
    *out = NULL;
    if (!dir) return 0;
    char path[4200];
    int n = snprintf(path, sizeof path, "%s/%s.%s.%s.npy", dir, g->name, mx_phase_name(g->phase), which);
    if (n < 0 || (size_t)n >= sizeof path) {
        /* a cut path would name another file */
        mx_print_error(prog, "option '--data': directory name too long (%zu characters)", strlen(dir));
        return 2;
    }
    if (access(path, F_OK) != 0) return 0;
    mx_shape sh;
    char err[4800];
    if (npy_read_f32(path, &sh, out, err, sizeof err) != 0) {
        mx_print_error(prog, "%s", err);
        return 2;
    }
    if (sh.ndim != 2 || (long long)sh.dim[0] != rows || (long long)sh.dim[1] != cols) {
        mx_print_error(prog, "%s: shape must be (%lld, %lld) for GEMM '%s' (%s:%d)", path, rows, cols,
                g->name, trace_path, g->line);
        free(*out);
        *out = NULL;
        return 2;
    }
    for (long long i = 0; i < rows * cols; i++)
        if (!isfinite((*out)[i])) {
            mx_print_error(prog, "%s: element %lld is not finite", path, i);
            free(*out);
            *out = NULL;
            return 2;
        }
    return 0;
}
