/* sweep_def.c — see sweep_def.h and sweep_out.h (JSON form). */
#include "sweep_def.h"
#include "sweep_out.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sw_def_init(sw_def *d) { memset(d, 0, sizeof *d); }

void sw_def_free(sw_def *d)
{
    for (size_t i = 0; i < d->nowned; i++) free(d->owned[i]);
    free(d->owned);
    for (int a = 0; a < d->naxes; a++) free((void *)d->axes[a].vals);
    memset(d, 0, sizeof *d);
}

const char *sw_def_strdup(sw_def *d, const char *s)
{
    if (d->nowned == d->capowned) {
        size_t cap = d->capowned ? 2 * d->capowned : 64;
        char **n = realloc(d->owned, cap * sizeof *n);
        if (!n) return NULL;
        d->owned = n;
        d->capowned = cap;
    }
    char *c = strdup(s);
    if (!c) return NULL;
    d->owned[d->nowned++] = c;
    return c;
}

int sw_def_add_trace(sw_def *d, const char *path, char *err, size_t errlen)
{
    if (d->ntraces == SW_MAX_TRACES) { snprintf(err, errlen, "more than %d traces", SW_MAX_TRACES); return -1; }
    if (!*path) { snprintf(err, errlen, "empty trace path"); return -1; }
    d->traces[d->ntraces++] = path;
    return 0;
}

static int nkeys_total(const sw_def *d)
{
    int n = 0;
    for (int a = 0; a < d->naxes; a++) n += d->axes[a].nkeys;
    return n;
}

int sw_def_axis_key(sw_def *d, int a, int zip, const char *key, const char *const *vals, int nvals, char *err,
                    size_t errlen)
{
    if (!*key) { snprintf(err, errlen, "empty key"); return -1; }
    if (strlen(key) >= SW_VALUE_MAX) { snprintf(err, errlen, "key too long"); return -1; }
    if (nvals < 1) { snprintf(err, errlen, "key '%s': empty list of values", key); return -1; }
    if (nvals > SW_MAX_VALUES) { snprintf(err, errlen, "key '%s': more than %d values", key, SW_MAX_VALUES); return -1; }
    for (int v = 0; v < nvals; v++) {
        if (!vals[v][0]) { snprintf(err, errlen, "key '%s': empty value (value %d)", key, v + 1); return -1; }
        if (strlen(vals[v]) >= SW_VALUE_MAX) { snprintf(err, errlen, "key '%s': value too long", key); return -1; }
    }
    if (nkeys_total(d) == SW_MAX_KEYS) { snprintf(err, errlen, "more than %d swept keys", SW_MAX_KEYS); return -1; }
    if (a == d->naxes) {
        if (d->naxes == SW_MAX_AXES) { snprintf(err, errlen, "more than %d axes", SW_MAX_AXES); return -1; }
        size_t np = sw_def_npoints(d);
        if (np * (size_t)nvals > SW_MAX_POINTS) {
            snprintf(err, errlen, "key '%s': the grid would have more than %d points", key, SW_MAX_POINTS);
            return -1;
        }
        sw_axis *ax = &d->axes[d->naxes++];
        memset(ax, 0, sizeof *ax);
        ax->zip = zip;
        ax->nvals = nvals;
    }
    sw_axis *ax = &d->axes[a];
    if (ax->nvals != nvals) {
        snprintf(err, errlen, "key '%s': %d values, but the zipped keys before it have %d (zipped lists advance together)",
                 key, nvals, ax->nvals);
        return -1;
    }
    const char **nv = malloc(sizeof *nv * (size_t)nvals * (size_t)(ax->nkeys + 1));
    if (!nv) { snprintf(err, errlen, "out of memory"); return -1; }
    for (int v = 0; v < nvals; v++) {
        for (int k = 0; k < ax->nkeys; k++) nv[(size_t)v * (size_t)(ax->nkeys + 1) + (size_t)k] = sw_val(ax, v, k);
        const char *s = sw_def_strdup(d, vals[v]);
        if (!s) { free(nv); snprintf(err, errlen, "out of memory"); return -1; }
        nv[(size_t)v * (size_t)(ax->nkeys + 1) + (size_t)ax->nkeys] = s;
    }
    free((void *)ax->vals);
    ax->vals = nv;
    const char *k = sw_def_strdup(d, key);
    if (!k) { snprintf(err, errlen, "out of memory"); return -1; }
    ax->keys[ax->nkeys++] = k;
    return 0;
}

/* One "KEY=V1,V2,..." into axis a (a == naxes: a new one). */
static int add_key_list(sw_def *d, int a, int zip, const char *spec, size_t len, char *err, size_t errlen)
{
    const char *eq = memchr(spec, '=', len);
    if (!eq) { snprintf(err, errlen, "'%.*s' is not KEY=V1,V2,...", (int)len, spec); return -1; }
    char key[SW_VALUE_MAX];
    if ((size_t)(eq - spec) >= sizeof key) { snprintf(err, errlen, "key too long"); return -1; }
    snprintf(key, sizeof key, "%.*s", (int)(eq - spec), spec);
    size_t vlen = len - (size_t)(eq + 1 - spec);
    char *list = strndup(eq + 1, vlen);
    const char **vals = malloc(sizeof *vals * (vlen + 2));
    if (!list || !vals) { free(list); free(vals); snprintf(err, errlen, "out of memory"); return -1; }
    int n = 0;
    if (*list) {
        char *s = list;
        for (;;) {
            char *c = strchr(s, ',');
            if (c) *c = 0;
            vals[n++] = s;
            if (!c) break;
            s = c + 1;
        }
    }
    int rc = sw_def_axis_key(d, a, zip, key, vals, n, err, errlen);
    free(list);
    free(vals);
    return rc;
}

int sw_def_add_axis(sw_def *d, const char *spec, int zip, char *err, size_t errlen)
{
    if (!zip) return add_key_list(d, d->naxes, 0, spec, strlen(spec), err, errlen);
    /* a zip group: KEY=LIST;KEY=LIST;... all in one new axis */
    const int a = d->naxes;
    for (const char *s = spec;;) {
        const char *semi = strchr(s, ';');
        size_t len = semi ? (size_t)(semi - s) : strlen(s);
        if (add_key_list(d, a, 1, s, len, err, errlen) != 0) return -1;
        if (!semi) return 0;
        s = semi + 1;
    }
}

size_t sw_def_npoints(const sw_def *d)
{
    size_t n = 1;
    for (int a = 0; a < d->naxes; a++) n *= (size_t)d->axes[a].nvals;
    return n;
}

int sw_def_point_index(const sw_def *d, size_t p, int a)
{
    for (int b = d->naxes - 1; b > a; b--) p /= (size_t)d->axes[b].nvals;
    return (int)(p % (size_t)d->axes[a].nvals);
}

int sw_def_point(const sw_def *d, size_t p, char buf[][SW_VALUE_MAX * 2 + 4], const char **ov)
{
    int n = 0;
    for (int a = 0; a < d->naxes; a++) {
        int v = sw_def_point_index(d, p, a);
        for (int k = 0; k < d->axes[a].nkeys; k++) {
            snprintf(buf[n], SW_VALUE_MAX * 2 + 4, "%s=%s", d->axes[a].keys[k], sw_val(&d->axes[a], v, k));
            ov[n] = buf[n];
            n++;
        }
    }
    return n;
}

void sw_point_id(size_t p, char *id, size_t cap) { snprintf(id, cap, "p%05zu", p); }

json_t *sw_def_to_json(const sw_def *d)
{
    json_t *o = json_object(), *tr = json_array(), *axes = json_array();
    json_object_set_new(o, "base", json_string(d->base));
    for (int t = 0; t < d->ntraces; t++) json_array_append_new(tr, json_string(d->traces[t]));
    json_object_set_new(o, "traces", tr);
    for (int a = 0; a < d->naxes; a++) {
        const sw_axis *ax = &d->axes[a];
        json_t *aj = json_object(), *keys = json_array(), *vals = json_array();
        json_object_set_new(aj, "zip", json_boolean(ax->zip));
        for (int k = 0; k < ax->nkeys; k++) json_array_append_new(keys, json_string(ax->keys[k]));
        for (int v = 0; v < ax->nvals; v++) {
            json_t *row = json_array();
            for (int k = 0; k < ax->nkeys; k++) json_array_append_new(row, json_string(sw_val(ax, v, k)));
            json_array_append_new(vals, row);
        }
        json_object_set_new(aj, "keys", keys);
        json_object_set_new(aj, "values", vals);
        json_array_append_new(axes, aj);
    }
    json_object_set_new(o, "axes", axes);
    if (d->nfilters) {
        json_t *fl = json_array();
        for (int i = 0; i < d->nfilters; i++) json_array_append_new(fl, json_string(d->filters[i]));
        json_object_set_new(o, "filters", fl);
    }
    json_object_set_new(o, "engine", d->engine ? json_string(d->engine) : json_null());
    json_object_set_new(o, "mode", d->mode ? json_string(d->mode) : json_null());
    json_object_set_new(o, "points", json_integer((json_int_t)sw_def_npoints(d)));
    return o;
}

int sw_def_from_json(sw_def *d, json_t *o, char *err, size_t errlen)
{
    const char *base = json_string_value(json_object_get(o, "base"));
    json_t *tr = json_object_get(o, "traces"), *axes = json_object_get(o, "axes");
    if (!base || !json_is_array(tr) || !json_is_array(axes)) { snprintf(err, errlen, "not a sweep definition"); return -1; }
    d->base = sw_def_strdup(d, base);
    size_t i;
    json_t *v;
    json_array_foreach(tr, i, v)
    {
        const char *s = json_string_value(v);
        if (!s || sw_def_add_trace(d, sw_def_strdup(d, s), err, errlen)) { snprintf(err, errlen, "bad 'traces'"); return -1; }
    }
    json_array_foreach(axes, i, v)
    {
        json_t *keys = json_object_get(v, "keys"), *vals = json_object_get(v, "values");
        int zip = json_is_true(json_object_get(v, "zip"));
        if (!json_is_array(keys) || !json_is_array(vals) || json_array_size(vals) > SW_MAX_VALUES) { snprintf(err, errlen, "bad 'axes'"); return -1; }
        int a = d->naxes, nv = (int)json_array_size(vals);
        for (size_t k = 0; k < json_array_size(keys); k++) {
            const char *list[SW_MAX_VALUES];
            for (int j = 0; j < nv; j++) {
                list[j] = json_string_value(json_array_get(json_array_get(vals, (size_t)j), k));
                if (!list[j]) { snprintf(err, errlen, "bad 'axes' value"); return -1; }
            }
            const char *key = json_string_value(json_array_get(keys, k));
            if (!key || sw_def_axis_key(d, a, zip, key, list, nv, err, errlen)) return -1;
        }
    }
    json_array_foreach(json_object_get(o, "filters"), i, v)
    {
        const char *f = json_string_value(v);
        if (!f || sw_def_add_filter(d, f, err, errlen)) { if (!f) snprintf(err, errlen, "bad 'filters'"); return -1; }
    }
    const char *e = json_string_value(json_object_get(o, "engine")), *m = json_string_value(json_object_get(o, "mode"));
    d->engine = e ? sw_def_strdup(d, e) : NULL;
    d->mode = m ? sw_def_strdup(d, m) : NULL;
    return 0;
}

/* ---- filters ---------------------------------------------------------------- */

typedef struct {
    char lhs[SW_VALUE_MAX], rhs[SW_VALUE_MAX];
    int op; /* 0 ==, 1 !=, 2 <, 3 <=, 4 >, 5 >= */
} sw_filter;

static void trim(char *s)
{
    size_t n = strlen(s), a = 0;
    while (n && isspace((unsigned char)s[n - 1])) s[--n] = 0;
    while (isspace((unsigned char)s[a])) a++;
    memmove(s, s + a, n - a + 1);
}

static int parse_filter(const char *f, sw_filter *o)
{
    static const char *ops[] = {"==", "!=", "<=", ">=", "<", ">"};
    static const int code[] = {0, 1, 3, 5, 2, 4};
    for (const char *c = f; *c; c++)
        for (int i = 0; i < 6; i++)
            if (!strncmp(c, ops[i], strlen(ops[i]))) {
                size_t n = (size_t)(c - f);
                if (n >= SW_VALUE_MAX || strlen(c + strlen(ops[i])) >= SW_VALUE_MAX) return -1;
                memcpy(o->lhs, f, n);
                o->lhs[n] = 0;
                strcpy(o->rhs, c + strlen(ops[i]));
                trim(o->lhs);
                trim(o->rhs);
                o->op = code[i];
                return o->lhs[0] && o->rhs[0] ? 0 : -1;
            }
    return -1;
}

/* The axis and key index of a swept key, or -1. */
static int find_key(const sw_def *d, const char *k, int *key)
{
    for (int a = 0; a < d->naxes; a++)
        for (int j = 0; j < d->axes[a].nkeys; j++)
            if (!strcmp(d->axes[a].keys[j], k)) { *key = j; return a; }
    return -1;
}

int sw_def_add_filter(sw_def *d, const char *f, char *err, size_t errlen)
{
    sw_filter x;
    int k;
    if (d->nfilters == SW_MAX_FILTERS) { snprintf(err, errlen, "more than %d filters", SW_MAX_FILTERS); return -1; }
    if (parse_filter(f, &x)) { snprintf(err, errlen, "'%s' is not KEY OP VALUE (OP one of == != < <= > >=)", f); return -1; }
    if (find_key(d, x.lhs, &k) < 0) { snprintf(err, errlen, "'%s': '%s' is not a swept key", f, x.lhs); return -1; }
    const char *s = sw_def_strdup(d, f);
    if (!s) { snprintf(err, errlen, "out of memory"); return -1; }
    d->filters[d->nfilters++] = s;
    return 0;
}

static int is_num(const char *s, double *v)
{
    char *end;
    *v = strtod(s, &end);
    return *s && !*end;
}

int sw_def_keep(const sw_def *d, size_t p)
{
    for (int i = 0; i < d->nfilters; i++) {
        sw_filter x;
        int k;
        if (parse_filter(d->filters[i], &x)) return 0;
        int a = find_key(d, x.lhs, &k);
        if (a < 0) return 0;
        const char *l = sw_val(&d->axes[a], sw_def_point_index(d, p, a), k), *r = x.rhs;
        int b = find_key(d, x.rhs, &k);
        if (b >= 0) r = sw_val(&d->axes[b], sw_def_point_index(d, p, b), k);
        double lv, rv;
        int c;
        if (is_num(l, &lv) && is_num(r, &rv)) c = lv < rv ? -1 : lv > rv;
        else if (x.op <= 1) c = strcmp(l, r) != 0;
        else return 0; /* ordering of non-numbers: refused when added? kept false */
        int ok = x.op == 0 ? c == 0 : x.op == 1 ? c != 0 : x.op == 2 ? c < 0 : x.op == 3 ? c <= 0 : x.op == 4 ? c > 0 : c >= 0;
        if (!ok) return 0;
    }
    return 1;
}

size_t sw_def_nkept(const sw_def *d)
{
    size_t n = 0, np = sw_def_npoints(d);
    for (size_t p = 0; p < np; p++) n += (size_t)sw_def_keep(d, p);
    return n;
}
