/*
 * json_out.h — the two JSON writers every report uses: an escaped string and
 * a number (17 significant digits; null when not finite).
 */
#ifndef MXSIM_JSON_OUT_H
#define MXSIM_JSON_OUT_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

void mx_json_str(FILE *f, const char *s);
void mx_json_num(FILE *f, double v);

#ifdef __cplusplus
}
#endif
#endif
