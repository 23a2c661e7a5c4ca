/*
 * json_out.h — the writers every report uses: a JSON escaped string, a JSON
 * number (17 significant digits; null when not finite), a CSV field, HTML text.
 */
#ifndef MXSIM_JSON_OUT_H
#define MXSIM_JSON_OUT_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

void mx_json_str(FILE *f, const char *s);
void mx_json_num(FILE *f, double v);
/* One CSV field, quoted (RFC 4180) when it holds a comma, a quote or a line break. */
void mx_csv_field(FILE *f, const char *v);
/* Text (or an attribute value) in HTML: < > & " escaped, control characters
 * but line breaks dropped. */
void mx_html_text(FILE *f, const char *s);

#ifdef __cplusplus
}
#endif
#endif
