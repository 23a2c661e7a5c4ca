/*
 * sweep_def.h — the definition of a `mxsim sweep` (sim/cmd_sweep.c): base
 * config, traces, axes of config overrides, engine and mode; the points are
 * the cartesian product of the axes (the first axis slowest), the keys of a
 * zipped axis advancing together.  Written to and read from DIR/sweep.json.
 */
#ifndef MXSIM_SWEEP_DEF_H
#define MXSIM_SWEEP_DEF_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SW_MAX_TRACES 16
#define SW_MAX_AXES 16
#define SW_MAX_KEYS 32     /* over all axes */
#define SW_MAX_VALUES 1000 /* per axis */
#define SW_MAX_POINTS 1000000
#define SW_MAX_DIRS 256
#define SW_VALUE_MAX 512
#define SW_MAX_FILTERS 16

typedef struct {
    int zip;
    int nkeys;
    const char *keys[SW_MAX_KEYS];
    int nvals;
    const char **vals; /* nvals * nkeys: value v of key k at vals[v * nkeys + k] */
} sw_axis;

typedef struct {
    const char *base;
    const char *traces[SW_MAX_TRACES];
    int ntraces;
    sw_axis axes[SW_MAX_AXES];
    int naxes;
    const char *filters[SW_MAX_FILTERS]; /* "KEY OP VALUE" or "KEY OP KEY": points kept */
    int nfilters;
    const char *engine; /* NULL: the config's */
    const char *mode;   /* NULL: timing */
    char **owned;       /* strings this definition allocated */
    size_t nowned, capowned;
} sw_def;

void sw_def_init(sw_def *d);
void sw_def_free(sw_def *d);
const char *sw_def_strdup(sw_def *d, const char *s);
int sw_def_add_trace(sw_def *d, const char *path, char *err, size_t errlen);
/* A new axis: "KEY=V1,V2,..." (a grid axis, zip=0) or a zip group
 * "KEY=V1,V2,...;KEY=V1,V2,..." whose keys advance together (zip=1; each
 * call one more group, crossed with the others).  0 or -1 with err set. */
int sw_def_add_axis(sw_def *d, const char *spec, int zip, char *err, size_t errlen);
/* Adds key with values to axis a (a == naxes: a new axis).  0 or -1. */
int sw_def_axis_key(sw_def *d, int a, int zip, const char *key, const char *const *vals, int nvals, char *err,
                    size_t errlen);
static inline const char *sw_val(const sw_axis *a, int v, int k) { return a->vals[(size_t)v * (size_t)a->nkeys + (size_t)k]; }
size_t sw_def_npoints(const sw_def *d);
/* The overrides "key=value" of point p into buf (ov[i] points into buf[i]);
 * returns their number. */
int sw_def_point(const sw_def *d, size_t p, char buf[][SW_VALUE_MAX * 2 + 4], const char **ov);
/* The value index of axis a at point p. */
int sw_def_point_index(const sw_def *d, size_t p, int a);
void sw_point_id(size_t p, char *id, size_t cap);
/* Adds a filter "KEY OP VALUE" or "KEY OP KEY" (OP: == != < <= > >=; both
 * sides numbers: compared as numbers, else as strings, == and != only); the
 * keys must be swept.  Call after the axes.  0 or -1 with err set. */
int sw_def_add_filter(sw_def *d, const char *f, char *err, size_t errlen);
/* Whether point p passes every filter. */
int sw_def_keep(const sw_def *d, size_t p);
size_t sw_def_nkept(const sw_def *d);
/* Loads a sweep YAML (sim/sweep_yaml.cpp); *out: its `out` key or NULL. */
int sw_def_load_yaml(const char *path, sw_def *d, const char **out, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
