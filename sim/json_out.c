/* json_out.c — see json_out.h. */
#include "json_out.h"

#include <math.h>
#include <string.h>

/* Integral values below 1e17 as JSON integers, others as reals (dumped with
 * JSON_REAL_PRECISION(17): they read back to the same double), not finite
 * ones as null: the tokens the "%.17g" writer gave before jansson
 * (docs/DECISIONS.md). */
json_t *mx_jnum(double v)
{
    if (!isfinite(v)) return json_null();
    if (v == floor(v) && fabs(v) < 1e17) return json_integer((json_int_t)v);
    return json_real(v);
}

json_t *mx_jstr(const char *s) { return json_string_nocheck(s); }

int mx_json_write_file(json_t *j, const char *path)
{
    return json_dump_file(j, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
}

void mx_csv_field(FILE *f, const char *v)
{
    if (!strpbrk(v, ",\"\r\n")) { fputs(v, f); return; }
    fputc('"', f);
    for (; *v; v++) {
        if (*v == '"') fputc('"', f);
        fputc(*v, f);
    }
    fputc('"', f);
}

void mx_html_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default:
            if ((unsigned char)*s >= 0x20 || *s == '\n') fputc(*s, f);
        }
    }
}
