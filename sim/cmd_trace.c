/*
 * cmd_trace.c — `mxsim trace --from-torch MODULE:FACTORY [--batch B] [--seq S]
 * [--train] [-o FILE]`: writes a GEMM trace (docs/TRACES.md) of a PyTorch
 * model by running the Python tracer (sim/python/mxsim/trace.py, forward
 * hooks) in python3.  This file only finds the package and execs it:
 *   python3: $MXSIM_PYTHON, else /usr/bin/python3 (the Debian python3 that
 *            python3-torch installs into);
 *   package: $MXSIM_PYTHONPATH, else the source tree's sim/python, put first
 *            on PYTHONPATH;
 *   library: $MXSIM_LIB, else libmxcore.so next to this binary when present.
 */
#include "config_yaml.h"
#include "mxsim_cmd.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef MXSIM_SRC_DIR
#define MXSIM_SRC_DIR "."
#endif

int mxsim_cmd_trace(int argc, char **argv)
{
    static char pypath[8192], lib[PATH_MAX + 32];
    const char *py = getenv("MXSIM_PYTHON");
    if (!py || !*py) py = "/usr/bin/python3";
    const char *pkg = getenv("MXSIM_PYTHONPATH");
    if (!pkg || !*pkg) pkg = MXSIM_SRC_DIR "/sim/python";
    const char *old = getenv("PYTHONPATH");
    if ((size_t)snprintf(pypath, sizeof pypath, "%s%s%s", pkg, old && *old ? ":" : "", old && *old ? old : "") >=
        sizeof pypath) {
        mx_print_error("mxsim trace", "PYTHONPATH too long");
        return 2;
    }
    setenv("PYTHONPATH", pypath, 1);
    if (!getenv("MXSIM_LIB")) {
        char exe[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (n > 0) {
            exe[n] = '\0';
            char *slash = strrchr(exe, '/');
            if (slash) {
                *slash = '\0';
                snprintf(lib, sizeof lib, "%s/libmxcore.so", exe);
                if (access(lib, R_OK) == 0) setenv("MXSIM_LIB", lib, 1);
            }
        }
    }
    /* argv: "trace" OPTIONS... -> python3 -m mxsim.trace OPTIONS... */
    char **args = calloc((size_t)argc + 3, sizeof *args);
    if (!args) return 2;
    args[0] = (char *)py;
    args[1] = (char *)"-m";
    args[2] = (char *)"mxsim.trace";
    for (int i = 1; i < argc; i++) args[i + 2] = argv[i];
    execv(py, args);
    mx_print_error("mxsim trace", "cannot run %s: %s (set MXSIM_PYTHON; `make deps` installs python3-torch)", py,
                   strerror(errno));
    free(args);
    return 2;
}
