/*
 * cmd_cosim.c — `mxsim cosim`: runs the Verilator co-simulation harness.  The
 * Verilated models live in a separate binary (build/mxsim-cosim, built by
 * `make cosim` from mk/cosim.mk) so that mxsim itself builds quickly; this
 * command execs that sibling with the same arguments.
 */
#include "mxsim_cmd.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int mxsim_cmd_cosim(int argc, char **argv)
{
    char self[PATH_MAX], path[PATH_MAX + 16];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    (void)argc;
    if (n <= 0) {
        fprintf(stderr, "mxsim cosim: cannot locate the mxsim binary (/proc/self/exe): %s\n", strerror(errno));
        return 2;
    }
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash) *slash = '\0';
    snprintf(path, sizeof path, "%s/mxsim-cosim", slash ? self : ".");
    if (access(path, X_OK) != 0) {
        fprintf(stderr, "mxsim cosim: %s is not built; run make cosim (or make cosim-build)\n", path);
        return 2;
    }
    argv[0] = path;
    fflush(stdout);
    execv(path, argv);
    fprintf(stderr, "mxsim cosim: cannot run %s: %s\n", path, strerror(errno));
    return 2;
}
