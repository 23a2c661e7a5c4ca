/*
 * cmd_cosim.c — `mxsim cosim`: runs the Verilator co-simulation harness.  The
 * Verilated models live in a separate binary (build/mxsim-cosim, built by
 * `make cosim` from mk/cosim.mk) so that mxsim itself builds quickly; this
 * command execs that sibling with the same arguments.  `--level array` selects
 * the whole-GEMM array co-simulation instead; `--level unit` is the default.
 *
 * Array level, any configuration the RTL implements: the harness is compiled
 * per array size (rows x cols x lanes, Verilator -G parameters).  mxsim loads
 * the config, refuses what the RTL cannot do (one line, exit 2), and runs
 * BUILD/cosim_array/mxsim-cosim-array-RxCxL, where BUILD is the directory of
 * this mxsim binary.  If that binary is missing or out of date and the source
 * tree mxsim was built from (MXSIM_SRC_DIR) is present, it is built first by
 * `make -C SRC BUILD=... BUILD/cosim_array/mxsim-cosim-array-RxCxL` (the
 * generic pattern rules of mk/cosim_array.mk), once, under a lock, with a
 * progress line and a time estimate on stderr and make's output in
 * BUILD/cosim_array/build-RxCxL.log (docs/DECISIONS.md).
 *
 * Unit level, `--unit pe --lanes L` for a lane count mxsim-cosim has no model
 * of (it has 8 for every unit and 4 for the PE): the same way, once, under a
 * lock, BUILD/cosim/mxsim-cosim-pe-LL (mk/cosim.mk), L = 1..64 as arch.lanes.
 */
#include "array/mx_array.h"
#include "config_yaml.h"
#include "cosim_array/cosim_opts.h"
#include "mxsim_cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MXSIM_SRC_DIR
#define MXSIM_SRC_DIR ""
#endif

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
static int precheck(int argc, char **argv, int array, mx_arch_config *cfg, const char **cpath)
{
    char err[700];
    long long count;
    if (array && argc > 1 && ca_count_option(argv[argc - 1], "1", &count) != 0) {
        mx_print_error("mxsim cosim", "option '%s': missing value (%s)", argv[argc - 1], ca_count_range(argv[argc - 1]));
        return 2;
    }
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
            if (mx_config_load(v, cfg, NULL, err, sizeof err) != 0 || mx_config_dram(v, cfg, err, sizeof err) != 0) {
                mx_print_error("mxsim cosim", "%s", err);
                return 2;
            }
            *cpath = v;
        } else if (array && ca_count_option(a, v, &count) != 0) {
            if (ca_count_option(a, v, &count) < 0) {
                mx_print_error("mxsim cosim", "option '%s': %s, got '%s'", a, ca_count_range(a), v);
                return 2;
            }
        } else {
            continue;
        }
        i++;
    }
    return 0;
}

/* What rtl/mx_array_ctrl.sv implements: the array model's config check
 * (mx_array_config_from_arch: output stationary, folds overlapped, a
 * re-quantization tile dividing the array), the PE's four stages (the RTL
 * has no extra result registers) and the 32-bit aligned sum; any rows,
 * columns and lanes.  0, or 2 after one error line naming the config key. */
static int rtl_can_do(const char *cpath, const mx_arch_config *c)
{
    char err[400];
    mx_array_config a;
    if (mx_array_config_from_arch(c, &a, err, sizeof err) != 0) {
        mx_print_error("mxsim cosim", "%s: %s", cpath, err);
        return 2;
    }
    if (a.pipeline_depth != MX_ARRAY_PE_STAGES) {
        mx_print_error("mxsim cosim", "%s: key 'arch.pe_pipeline_depth': the RTL PE has %d stages, got %d", cpath,
                       MX_ARRAY_PE_STAGES, a.pipeline_depth);
        return 2;
    }
    if (c->align_width != 32) {
        mx_print_error("mxsim cosim", "%s: key 'format.align_width': the RTL is built with 32, got %d", cpath,
                       c->align_width);
        return 2;
    }
    return 0;
}

/* Seconds a Verilator build of R x C x L is expected to take: the last
 * measured build's seconds per PE-lane (of sizes with >= 64 PE-lanes) in
 * BUILD/cosim_array/build_times (appended after each build), else 0.25 s per
 * PE-lane + 40 s (16x16 L = 8 took 8-10 minutes on 2 loaded cores). */
static double build_estimate(const char *cadir, int R, int C, int L)
{
    char p[PATH_MAX + 16], line[128];
    double per = 0.25, base = 40;
    snprintf(p, sizeof p, "%s/build_times", cadir);
    FILE *f = fopen(p, "r");
    if (f) {
        int r, c, l;
        double s;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "%d %d %d %lf", &r, &c, &l, &s) == 4 && r > 0 && c > 0 && l > 0 && s > base &&
                (double)r * c * l >= 64) /* small builds are mostly the fixed part */
                per = (s - base) / ((double)r * c * l);
        fclose(f);
    }
    return base + per * (double)R * C * L;
}

/* snprintf without -Wformat-truncation's guesses: paths here are bounded by
 * PATH_MAX; a truncated one fails the access() that follows. */
static void fmt(char *dst, size_t n, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    vsnprintf(dst, n, f, ap);
    va_end(ap);
}

static int find_in_path(const char *name)
{
    const char *path = getenv("PATH");
    char buf[PATH_MAX];
    if (!path) return 0;
    while (*path) {
        const char *e = strchr(path, ':');
        size_t n = e ? (size_t)(e - path) : strlen(path);
        if (n > 0 && n + strlen(name) + 2 < sizeof buf) {
            memcpy(buf, path, n);
            buf[n] = '/';
            strcpy(buf + n + 1, name);
            if (access(buf, X_OK) == 0) return 1;
        }
        path += n;
        if (*path == ':') path++;
    }
    return 0;
}

/* Runs make in src with BUILD=build and the target; output to log (NULL:
 * /dev/null).  query: make -q (0 up to date, 1 not).  Returns make's exit
 * status, or -1 if it could not run.  Inherited MAKEFLAGS (a parent make's
 * jobserver, -s, ...) are dropped. */
static int run_make(const char *src, const char *build, const char *target, int query, const char *log, int jobs,
                    double estimate, const char *what)
{
    char jarg[32], barg[PATH_MAX + 8];
    snprintf(jarg, sizeof jarg, "-j%d", jobs);
    snprintf(barg, sizeof barg, "BUILD=%s", build);
    const char *mk = getenv("MXSIM_MAKE");
    if (!mk || !*mk) mk = "make";
    char *args[12];
    int n = 0;
    args[n++] = (char *)mk;
    args[n++] = (char *)"-C";
    args[n++] = (char *)src;
    args[n++] = query ? (char *)"-q" : jarg;
    args[n++] = barg;
#if defined(__SANITIZE_ADDRESS__)
    args[n++] = (char *)"SAN=1"; /* this mxsim is the ASan+UBSan build (make test-san): so is its harness */
    args[n++] = (char *)"OPT=-O1";
#endif
    args[n++] = (char *)target;
    args[n] = NULL;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        /* make (and with it the build) ends when mxsim is killed (timeout, kill) */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() == 1) _exit(127);
        int fd = open(log ? log : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        unsetenv("MAKEFLAGS");
        unsetenv("MFLAGS");
        unsetenv("MAKELEVEL");
        execvp(mk, args);
        _exit(127);
    }
    const int tty = !query && isatty(2);
    const time_t t0 = time(NULL);
    int st = 0;
    for (;;) {
        pid_t w = waitpid(pid, &st, tty ? WNOHANG : 0);
        if (w == pid) break;
        if (w < 0 && errno != EINTR) return -1;
        if (tty) {
            fprintf(stderr, "\rmxsim cosim: building %s: %ld s of about %.0f s ", what, (long)(time(NULL) - t0), estimate);
            sleep(1);
        }
    }
    if (tty) fprintf(stderr, "\n");
    if (!WIFEXITED(st)) return -1;
    return WEXITSTATUS(st) == 127 && !query ? -1 : WEXITSTATUS(st);
}

/* What an on-demand build makes: BUILD/DIR/BIN from the make target of that
 * name, KEY naming its lock (DIR/.lock-KEY) and log (DIR/build-KEY.log),
 * CACHE the model directory under DIR the progress line names. */
typedef struct {
    const char *dir, *bin, *key, *cache, *what;
    double estimate; /* seconds with 2+ jobs */
    int R, C, L;     /* array size for BUILD/cosim_array/build_times (R = 0: none) */
} ondemand;

/* Makes sure BUILD/DIR/BIN exists and is up to date (building it if the
 * source tree is here), and puts its path in bin.  0, or 2 after one error
 * line. */
static int ondemand_binary(const char *bindir, const ondemand *od, char *bin, size_t binlen)
{
    const char *what = od->what;
    char dir[PATH_MAX], target[PATH_MAX + 64], build[PATH_MAX], mkfile[PATH_MAX + 32];
    fmt(dir, sizeof dir, "%s/%s", bindir, od->dir);
    fmt(bin, binlen, "%s/%s", dir, od->bin);
    const char *src = MXSIM_SRC_DIR;
    fmt(mkfile, sizeof mkfile, "%s/mk/cosim_array.mk", src);
    if (!*src || access(mkfile, R_OK) != 0) {
        /* an installed or copied mxsim: only what was built beside it */
        if (access(bin, X_OK) == 0) return 0;
        mx_print_error("mxsim cosim", "no co-simulation model of %s (%s not built) and no source tree to build it "
                       "(%s not found)", what, bin, *src ? mkfile : "MXSIM_SRC_DIR");
        return 2;
    }
    /* BUILD as the Makefile named it: relative to the source tree when inside it */
    const size_t sl = strlen(src);
    if (strncmp(bindir, src, sl) == 0 && bindir[sl] == '/')
        fmt(build, sizeof build, "%s", bindir + sl + 1);
    else
        fmt(build, sizeof build, "%s", bindir);
    fmt(target, sizeof target, "%s/%s/%s", build, od->dir, od->bin);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        mx_print_error("mxsim cosim", "cannot create %s: %s", dir, strerror(errno));
        return 2;
    }
    /* one build of a model at a time (two mxsim processes, or mxsim and make) */
    char lockp[PATH_MAX + 32];
    fmt(lockp, sizeof lockp, "%s/.lock-%s", dir, od->key);
    int lk = open(lockp, O_RDWR | O_CREAT, 0644);
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    if (lk >= 0 && fcntl(lk, F_SETLK, &fl) != 0) {
        fprintf(stderr, "mxsim cosim: waiting for another build of %s (%s)\n", what, lockp);
        while (fcntl(lk, F_SETLKW, &fl) != 0 && errno == EINTR) {}
    }
    int rc = 0;
    int q = run_make(src, build, target, 1, NULL, 1, 0, what);
    if (q != 0 || access(bin, X_OK) != 0) {
        if (!find_in_path(getenv("VERILATOR") && *getenv("VERILATOR") ? getenv("VERILATOR") : "verilator")) {
            mx_print_error("mxsim cosim", "building %s needs Verilator, not found in PATH (`make deps` installs it)", what);
            rc = 2;
        } else {
            char log[PATH_MAX + 32];
            fmt(log, sizeof log, "%s/build-%s.log", dir, od->key);
            long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
            const int jobs = ncpu < 1 ? 1 : ncpu > 64 ? 64 : (int)ncpu;
            const double est = od->estimate * (jobs >= 2 ? 1.0 : 1.8);
            fprintf(stderr, "mxsim cosim: building %s (once; cached in %s/%s), about %.0f s with %d jobs; log %s\n",
                    what, dir, od->cache, est, jobs, log);
            const time_t t0 = time(NULL);
            const int st = run_make(src, build, target, 0, log, jobs, est, what);
            if (st != 0 || access(bin, X_OK) != 0) {
                if (st < 0)
                    mx_print_error("mxsim cosim", "building %s: cannot run make (MXSIM_MAKE or make in PATH)", what);
                else
                    mx_print_error("mxsim cosim", "building %s failed (make exit %d); see %s", what, st, log);
                rc = 2;
            } else {
                const long secs = (long)(time(NULL) - t0);
                fprintf(stderr, "mxsim cosim: built %s in %ld s\n", what, secs);
                char tp[PATH_MAX + 16];
                fmt(tp, sizeof tp, "%s/build_times", dir);
                FILE *f = od->R > 0 ? fopen(tp, "a") : NULL;
                if (f) {
                    fprintf(f, "%d %d %d %ld\n", od->R, od->C, od->L, secs);
                    fclose(f);
                }
            }
        }
    }
    if (lk >= 0) close(lk); /* releases the lock */
    return rc;
}

/* BUILD/cosim_array/mxsim-cosim-array-RxCxL (the generic pattern rules of
 * mk/cosim_array.mk).  0 or 2. */
static int array_binary(const char *bindir, const mx_arch_config *c, char *bin, size_t binlen)
{
    const int R = c->rows, C = c->cols, L = c->lanes;
    char size[64], what[128], binname[96], cache[80], cadir[PATH_MAX];
    if (c->rqu_tile && c->tile_rows > 0 && (c->tile_rows != R || c->tile_cols != C)) {
        /* a re-quantization tile smaller than the fold: RxCxLxTRxTC (mk/cosim_array.mk) */
        fmt(size, sizeof size, "%dx%dx%dx%dx%d", R, C, L, c->tile_rows, c->tile_cols);
        fmt(what, sizeof what, "the Verilated %dx%d array, %d lanes, %dx%d re-quantization tiles", R, C, L,
            c->tile_rows, c->tile_cols);
    } else {
        fmt(size, sizeof size, "%dx%dx%d", R, C, L);
        fmt(what, sizeof what, "the Verilated %dx%d array, %d lanes", R, C, L);
    }
    fmt(binname, sizeof binname, "mxsim-cosim-array-%s", size);
    fmt(cache, sizeof cache, "vl_%s", size);
    fmt(cadir, sizeof cadir, "%s/cosim_array", bindir);
    const ondemand od = {"cosim_array", binname, size, cache, what, build_estimate(cadir, c->rows, c->cols, c->lanes),
                         c->rows, c->cols, c->lanes};
    return ondemand_binary(bindir, &od, bin, binlen);
}

/* `--unit pe --lanes L` for a lane count without a prebuilt model (8 and 4
 * are in BUILD/mxsim-cosim): BUILD/cosim/mxsim-cosim-pe-LL, the harness with
 * one more PE model Verilated with LANES = L (mk/cosim.mk).  Sets *path and
 * returns 0; 1 when the prebuilt harness serves (path untouched); 2 after
 * one error line. */
static int unit_lanes_binary(const char *bindir, int argc, char **argv, char *path, size_t pathlen)
{
    const char *unit = NULL, *lanes = NULL;
    int fault = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--fault")) fault = 1;
        else if (i + 1 < argc && !strcmp(argv[i], "--unit")) unit = argv[++i];
        else if (i + 1 < argc && !strcmp(argv[i], "--lanes")) lanes = argv[++i];
    }
    if (!unit || !lanes || strcmp(unit, "pe") != 0 || fault) return 1;
    char *end;
    errno = 0;
    const long L = strtol(lanes, &end, 10);
    if (errno || *end || end == lanes || L == 8 || L == 4) return 1; /* the harness itself refuses bad values */
    if (L < 1 || L > 64) {
        mx_print_error("mxsim cosim", "option '--lanes': the PE takes 1..64 lanes (arch.lanes), got '%s'", lanes);
        return 2;
    }
    char key[32], what[96], binname[64], cache[64];
    fmt(key, sizeof key, "pe-L%ld", L);
    fmt(what, sizeof what, "the Verilated PE with %ld lanes", L);
    fmt(binname, sizeof binname, "mxsim-cosim-pe-L%ld", L);
    fmt(cache, sizeof cache, "pe_lanes_%ld", L);
    /* the harness's compile dominates (about a minute on 2 loaded cores), the PE grows with L */
    const ondemand od = {"cosim", binname, key, cache, what, 60 + 2.0 * (double)L, 0, 0, 0};
    return ondemand_binary(bindir, &od, path, pathlen);
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
        tool = "mxsim-cosim-array"; /* --help only; a run picks the config's size below */
        target = "make cosim-array";
    } else {
        mx_print_error("mxsim cosim", "--level '%s': expected unit or array", level);
        return 2;
    }
    const int array = strcmp(level, "array") == 0;
    mx_arch_config cfg;
    const char *cpath = NULL;
    if (precheck(argc, argv, array, &cfg, &cpath)) return 2;
    int help = 0;
    for (int i = 1; i < argc; i++) help |= !strcmp(argv[i], "-h") || !strcmp(argv[i], "--help");
    if (array && !help) {
        if (!cpath) {
            mx_print_error("mxsim cosim", "--level array: -c CONFIG.yaml is required (it gives the array's size)");
            return 2;
        }
        if (rtl_can_do(cpath, &cfg)) return 2;
    }
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr, "mxsim cosim: cannot locate the mxsim binary (/proc/self/exe): %s\n", strerror(errno));
        return 2;
    }
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash) *slash = '\0';
    fmt(path, sizeof path, "%s/%s", slash ? self : ".", tool);
    int lanes_rc = 1;
    if (array && !help) {
        if (array_binary(slash ? self : ".", &cfg, path, sizeof path)) return 2;
    } else if (!array && !help && (lanes_rc = unit_lanes_binary(slash ? self : ".", argc, argv, path, sizeof path)) == 2) {
        return 2;
    } else if (lanes_rc == 1 && access(path, X_OK) != 0) {
        fprintf(stderr, "mxsim cosim: %s is not built; run %s\n", path, target);
        return 2;
    }
    argv[0] = path;
    fflush(stdout);
    execv(path, argv);
    fprintf(stderr, "mxsim cosim: cannot run %s: %s\n", path, strerror(errno));
    return 2;
}
