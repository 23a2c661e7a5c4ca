/*
 * cli_getopt.h — the commands' option parsing is getopt_long's (glibc);
 * this turns what it reports ('?': an unknown or ambiguous option, ':' a
 * missing value; opterr off, optstring "+:...") into the one-line error of
 * every mxsim command, naming the option as typed.
 */
#ifndef MXSIM_CLI_GETOPT_H
#define MXSIM_CLI_GETOPT_H

#include <getopt.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Prints "PROG: unknown option 'X' (PROG --help)", "option 'X' needs a
 * value", "option 'X' is ambiguous (...)" or "option 'X' takes no value" for
 * getopt_long's return c ('?' or ':') with its longopts; returns 2. */
int mx_getopt_fail(const char *prog, int c, char *const *argv, const struct option *longopts);
/* Whether the option getopt_long just returned was typed long (--jobs), for
 * messages naming it as typed. */
int mx_getopt_was_long(char *const *argv);

#ifdef __cplusplus
}
#endif
#endif
