/*
 * compare_report.h — `mxsim run --compare -o OUTDIR`'s OUTDIR/index.html,
 * drawn from the comparison's JSON (the object written to compare.json), so
 * the page and the file cannot disagree: an energy-by-component bar chart
 * (inline SVG, both configs side by side on one scale), the totals, cycles
 * and ratios, each config's own assumptions, and the JSON itself embedded
 * (<script id="compare-data">).  Self-contained: no network, no gnuplot.
 */
#ifndef MXSIM_COMPARE_REPORT_H
#define MXSIM_COMPARE_REPORT_H

#include <jansson.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes the page to OUTDIR/.index.html.tmp (its name into tmp) for the
 * caller to rename once compare.json is written too.  0, or -1 with errno
 * set and nothing left. */
int mx_compare_html_tmp(const char *outdir, const json_t *cmp, char *tmp, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
