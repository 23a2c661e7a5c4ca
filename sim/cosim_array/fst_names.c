/*
 * fst_names.c — lists the signals of an FST waveform, one full name a line
 * (scopes joined by '.', a vector's range appended without the space
 * Verilator's FST writer puts before it: "TOP.a.b.out_o[31:0]"), the way
 * gtkwave names them in a save file (.gtkw).  Built on the FST reader that
 * ships with Verilator (include/gtkwave/fstapi.c).  Used by `make
 * cosim-array` to check that the mismatch report's .gtkw names signals that
 * exist in the waveform it points at.
 *
 *   fst_names FILE.fst    exit 0; 2 if the file cannot be read as FST
 */
#include <stdio.h>
#include <string.h>

#include "fstapi.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: fst_names FILE.fst\n");
        return 2;
    }
    void *f = fstReaderOpen(argv[1]);
    if (!f) {
        fprintf(stderr, "fst_names: %s: cannot read as FST\n", argv[1]);
        return 2;
    }
    char scope[4096] = "";
    size_t depth_len[256];
    int depth = 0;
    struct fstHier *h;
    while ((h = fstReaderIterateHier(f))) {
        if (h->htyp == FST_HT_SCOPE) {
            size_t n = strlen(scope);
            if (depth < 256) depth_len[depth] = n;
            depth++;
            snprintf(scope + n, sizeof scope - n, "%s%s", n ? "." : "", h->u.scope.name);
        } else if (h->htyp == FST_HT_UPSCOPE) {
            if (depth > 0) depth--;
            if (depth < 256) scope[depth_len[depth]] = '\0';
        } else if (h->htyp == FST_HT_VAR) {
            char name[1024];
            size_t o = 0;
            for (const char *p = h->u.var.name; *p && o + 1 < sizeof name; p++)
                if (!(*p == ' ' && p[1] == '[')) name[o++] = *p;
            name[o] = '\0';
            printf("%s%s%s\n", scope, *scope ? "." : "", name);
        }
    }
    fstReaderClose(f);
    return 0;
}
