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
