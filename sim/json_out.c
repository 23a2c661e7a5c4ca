/* json_out.c — see json_out.h. */
#include "json_out.h"

#include <math.h>

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
