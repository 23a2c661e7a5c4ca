/*
 * json_out.h — what every report writes with: JSON values (jansson) for
 * numbers and strings and the one way reports are dumped, a CSV field, HTML
 * text.
 */
#ifndef MXSIM_JSON_OUT_H
#define MXSIM_JSON_OUT_H

#include <jansson.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A report's number: an integer token when integral below 1e17, else a real
 * of 17 significant digits; null when not finite.  A new reference. */
json_t *mx_jnum(double v);
/* A report's string, as given (paths are not checked for UTF-8). */
json_t *mx_jstr(const char *s);
/* Dumps j to path: 2-space indent, keys in insertion order, reals to 17
 * digits.  0 or -1. */
int mx_json_write_file(json_t *j, const char *path);
/* One CSV field, quoted (RFC 4180) when it holds a comma, a quote or a line break. */
void mx_csv_field(FILE *f, const char *v);
/* Text (or an attribute value) in HTML: < > & " escaped, control characters
 * but line breaks dropped. */
void mx_html_text(FILE *f, const char *s);

#ifdef __cplusplus
}
#endif
#endif
