/* sweep_report.c — OUT/plots/ (gnuplot) and OUT/index.html of a sweep. */
#include "sweep_out.h"

void sw_write_extras(const sw_def *d, const char *out, const char *const *dirs, int ndirs)
{
    (void)d; (void)out; (void)dirs; (void)ndirs;
}
