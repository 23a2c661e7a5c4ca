/*
 * cmd_cosim.c — `mxsim cosim`: runs the Verilator co-simulation harness.  The
 * Verilated models live in a separate binary (build/mxsim-cosim, built by
 * `make cosim` from mk/cosim.mk) so that mxsim itself builds quickly; this
 * command execs that sibling with the same arguments.  `--level array` selects
 * the whole-GEMM array co-simulation instead (build/mxsim-cosim-array, built
 * by `make cosim-array` from mk/cosim_array.mk); `--level unit` is the default.
 */
#include "config_yaml.h"
#include "mxsim_cmd.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Removes "--level X" / "--level=X" from argv; returns X ("unit" if absent),
 * or NULL when the value is missing. */
static const char *take_level(int *argc, char **argv)
{
    const char *level = "unit";
    int out = 0;
    for (int i = 0; i < *argc; i++) {
        if (strcmp(argv[i], "--level") == 0) {
            if (i + 1 >= *argc) return NULL;
            level = argv[++i];
        } else if (strncmp(argv[i], "--level=", 8) == 0) {
            level = argv[i] + 8;
        } else {
            argv[out++] = argv[i];
        }
    }
    argv[out] = NULL;
    *argc = out;
    return level;
}

/* Checks what needs no Verilated model, with the helpers the siblings use
 * themselves: the config (array level: -c, as mxsim-cosim-array loads it),
 * --fst's directory and --seed.  So bad input is refused the same way
 * whether or not the sibling is built, and before it starts.  0 or 2. */
static int precheck(int argc, char **argv, int array)
{
    char err[700];
    for (int i = 1; i + 1 < argc; i++) {
        const char *a = argv[i], *v = argv[i + 1];
        if (!strcmp(a, "--fst")) {
            if (mx_check_output_file("--fst", v, err, sizeof err) != 0) {
                mx_print_error("mxsim cosim", "%s", err);
                return 2;
            }
        } else if (!strcmp(a, "--seed")) {
            uint64_t seed;
            if (mx_parse_seed(v, &seed) != 0) {
                mx_print_error("mxsim cosim", "option '--seed': must be an integer 0..18446744073709551615, got '%s'", v);
                return 2;
            }
        } else if (array && !strcmp(a, "-c")) {
            mx_arch_config cfg;
            if (mx_config_load(v, &cfg, NULL, err, sizeof err) != 0 || mx_config_dram(v, &cfg, err, sizeof err) != 0) {
                mx_print_error("mxsim cosim", "%s", err);
                return 2;
            }
        } else {
            continue;
        }
        i++;
    }
    return 0;
}

int mxsim_cmd_cosim(int argc, char **argv)
{
    char self[PATH_MAX], path[PATH_MAX + 32];
    const char *level = take_level(&argc, argv), *tool, *target;
    if (!level) {
        fprintf(stderr, "mxsim cosim: --level needs a value: unit or array\n");
        return 2;
    }
    if (strcmp(level, "unit") == 0) {
        tool = "mxsim-cosim";
        target = "make cosim (or make cosim-build)";
    } else if (strcmp(level, "array") == 0) {
        tool = "mxsim-cosim-array";
        target = "make cosim-array";
    } else {
        mx_print_error("mxsim cosim", "--level '%s': expected unit or array", level);
        return 2;
    }
    if (precheck(argc, argv, strcmp(level, "array") == 0)) return 2;
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr, "mxsim cosim: cannot locate the mxsim binary (/proc/self/exe): %s\n", strerror(errno));
        return 2;
    }
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash) *slash = '\0';
    snprintf(path, sizeof path, "%s/%s", slash ? self : ".", tool);
    if (access(path, X_OK) != 0) {
        fprintf(stderr, "mxsim cosim: %s is not built; run %s\n", path, target);
        return 2;
    }
    argv[0] = path;
    fflush(stdout);
    execv(path, argv);
    fprintf(stderr, "mxsim cosim: cannot run %s: %s\n", path, strerror(errno));
    return 2;
}
