/*
 * sweep_out.h — what `mxsim sweep` writes from its points: the definition as
 * JSON (DIR/sweep.json), the rows read back from the points' reports (with
 * jansson), DIR/sweep.csv, the plots and index.html, the Slurm script.
 */
#ifndef MXSIM_SWEEP_OUT_H
#define MXSIM_SWEEP_OUT_H

#include "sweep_def.h"
#include "arch/mx_arch.h"

#include <jansson.h>

#define SW_ERR_MAX 1024

typedef struct {
    size_t p;        /* point index */
    int t;           /* trace index */
    int ok;          /* the trace ran on the point's config */
    const char *dir; /* the sweep directory holding the point */
    long long cycles;
    double energy_pj, comp_pj[MX_E_NCOMP], util, dram_bytes, edp, qsnr_db, max_abs_err;
    int engine_validated; /* report.json's: 0 = analytic engine below its validated buffer size */
    char mapping[160]; /* "mt x nt x kt order" of the trace's largest GEMM */
    char error[SW_ERR_MAX];
} sw_row;

json_t *sw_def_to_json(const sw_def *d);
int sw_def_from_json(sw_def *d, json_t *o, char *err, size_t errlen);

/* Rows (points with p % sn == si, each trace) from the first of dirs that
 * holds the point.  Missing points are counted (first named in miss_id);
 * *rows is malloc'ed.  0, or 2 (a report unreadable: message printed). */
int sw_load_rows(const sw_def *d, const char *const *dirs, int ndirs, int si, int sn, sw_row **rows, size_t *nrows,
                 size_t *missing, char *miss_id, size_t cap);
/* Writes path (atomically) from those rows, and prints a note counting the
 * rows the analytic engine ran outside its validation (engine_validated 0);
 * 1 when points are missing (nothing written). */
int sw_write_csv(const sw_def *d, const char *const *dirs, int ndirs, int si, int sn, const char *path, size_t *nrows,
                 size_t *missing);
/* OUT/plots/ (gnuplot, when found) and OUT/index.html; problems are printed as notes. */
void sw_write_extras(const sw_def *d, const char *out, const char *const *dirs, int ndirs);
/* The Slurm script (also writes OUT/sweep.json).  0 or 2 with err set. */
int sw_emit_slurm(const sw_def *d, const char *out, const char *file, int shards, int jobs, char *err, size_t errlen);

#endif
