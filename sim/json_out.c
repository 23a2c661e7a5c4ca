/* json_out.c — see json_out.h. */
#include "json_out.h"

#include <math.h>
#include <string.h>

void mx_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
        else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
        else fputc(ch, f);
    }
    fputc('"', f);
}

void mx_json_num(FILE *f, double v)
{
    if (isfinite(v)) fprintf(f, "%.17g", v);
    else fprintf(f, "null");
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
