/*
 * cosim_opts.h — the array co-simulation's count options, parsed the same way
 * by `mxsim cosim --level array` (sim/cmd_cosim.c, which checks them before
 * any Verilator build) and by the harness (cosim_array_main.cpp).  C and C++.
 *
 *   --max-cycles N  stop after N simulated cycles in all (1..10^15)
 *   --gemms N       run the trace's first N GEMMs (1..10^9)
 *   --gemm I        run only trace GEMM I (0-based, as reports number them)
 */
#ifndef MX_COSIM_OPTS_H
#define MX_COSIM_OPTS_H

#include <errno.h>
#include <stdlib.h>

#define CA_MAX_CYCLES_MAX 1000000000000000LL
#define CA_GEMMS_MAX 1000000000LL

/* A decimal integer in [lo, hi] (no sign, no spaces, no suffix): 0 and *out
 * set, or -1. */
static inline int ca_parse_count(const char *s, long long lo, long long hi, long long *out)
{
    if (!s || *s < '0' || *s > '9') return -1;
    char *e;
    errno = 0;
    long long v = strtoll(s, &e, 10);
    if (errno || *e || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

/* The error text of a bad count option value (for "PROG: option ...: ..."). */
static inline const char *ca_count_range(const char *opt)
{
    if (opt[2] == 'm') return "must be an integer 1..1000000000000000 (cycles)";
    if (opt[6] == 's') return "must be an integer 1..1000000000 (GEMMs)";
    return "must be a GEMM index 0..999999999 (0-based, as reports number GEMMs)";
}

/* Checks OPT VALUE if OPT is one of the count options: 1 (recognised, *out
 * set), 0 (not a count option), -1 (recognised, bad value). */
static inline int ca_count_option(const char *opt, const char *val, long long *out)
{
    long long lo = 1, hi;
    if (opt[0] != '-' || opt[1] != '-') return 0;
    if (!__builtin_strcmp(opt, "--max-cycles")) hi = CA_MAX_CYCLES_MAX;
    else if (!__builtin_strcmp(opt, "--gemms")) hi = CA_GEMMS_MAX;
    else if (!__builtin_strcmp(opt, "--gemm")) { lo = 0; hi = CA_GEMMS_MAX - 1; }
    else return 0;
    return ca_parse_count(val, lo, hi, out) == 0 ? 1 : -1;
}

#endif
