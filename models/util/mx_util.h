/*
 * mx_util.h — the few helpers every model file needs: a one-line error into
 * the caller's buffer, and integer min/max/ceil-div.  No state.
 */
#ifndef MX_UTIL_H
#define MX_UTIL_H

#include "util/mx_fp_env.h" /* refuses -ffast-math, excess precision */

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Formats the message into err (if err and errlen) and returns -1, so that
 * `return mx_fail(err, errlen, "...", ...);` reports and fails in one line. */
int mx_fail(char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static inline long long mx_cdiv(long long a, long long b) { return (a + b - 1) / b; }
static inline long long mx_llmax(long long a, long long b) { return a > b ? a : b; }
static inline long long mx_llmin(long long a, long long b) { return a < b ? a : b; }

#ifdef __cplusplus
}
#endif
#endif
