/*
 * mx_arch.c — configuration defaults, operand formats, the analytic cycle
 * model (folds, tiles, double-buffered DRAM) and the counters of one GEMM.
 * Decisions: docs/ARCH.md.
 */
#include "arch/mx_arch.h"
#include "util/mx_util.h"
#include "arch/mx_cycle.h"

#include <math.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static long long gcd_ll(long long a, long long b)
{
    while (b) { long long t = a % b; a = b; b = t; }
    return a;
}
static long long lcm_ll(long long a, long long b) { return a / gcd_ll(a, b) * b; }

const char *mx_dataflow_name(mx_dataflow d)
{
    switch (d) {
    case MX_DATAFLOW_OS: return "os";
    case MX_DATAFLOW_WS: return "ws";
    case MX_DATAFLOW_IS: return "is";
    }
    return "?";
}

int mx_dataflow_parse(const char *s, mx_dataflow *out)
{
    static const char *names[] = {"os", "ws", "is"};
    for (int i = 0; i < 3; i++)
        if (strcmp(s, names[i]) == 0) { *out = (mx_dataflow)i; return 0; }
    return -1;
}

static const char *const tiling_objective_names[] = {"time", "traffic", "energy", "edp"};

const char *mx_tiling_objective_name(mx_tiling_objective o)
{
    return (unsigned)o <= MX_TILING_EDP ? tiling_objective_names[o] : "?";
}

int mx_tiling_objective_parse(const char *s, mx_tiling_objective *out)
{
    for (int i = 0; i <= MX_TILING_EDP; i++)
        if (!strcmp(s, tiling_objective_names[i])) { *out = (mx_tiling_objective)i; return 0; }
    return -1;
}

const char *mx_engine_name(mx_engine e) { return e == MX_ENGINE_CYCLE ? "cycle" : "analytic"; }

int mx_engine_parse(const char *s, mx_engine *out)
{
    if (!strcmp(s, "analytic")) { *out = MX_ENGINE_ANALYTIC; return 0; }
    if (!strcmp(s, "cycle")) { *out = MX_ENGINE_CYCLE; return 0; }
    return -1;
}

const char *mx_energy_comp_name(mx_energy_comp c)
{
    static const char *names[MX_E_NCOMP] = {"mul", "addtree", "accum", "scale", "sram_a",
                                            "sram_b", "sram_out", "dram", "rqu", "leakage"};
    return (unsigned)c < MX_E_NCOMP ? names[c] : "?";
}

const char *mx_stall_name(mx_stall_cause s)
{
    static const char *names[MX_NSTALL] = {"dram", "sram", "drain", "rqu"};
    return (unsigned)s < MX_NSTALL ? names[s] : "?";
}

void mx_arch_config_default(mx_arch_config *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "mxsf");
    c->rows = 32;
    c->cols = 32;
    c->lanes = 8;
    c->dataflow = MX_DATAFLOW_OS;
    c->analytic_probes = 1;
    c->pe_pipeline_depth = 4; /* S1 decode+mul, S2 align, S3 addtree, S4 accum (mx_pe.h) */
    c->fold_overlap = 1;
    c->scalesim_compat = 0;
    snprintf(c->a_format, sizeof c->a_format, "mxsf");
    snprintf(c->b_format, sizeof c->b_format, "mxsf");
    snprintf(c->out_format, sizeof c->out_format, "mxsf");
    c->block_size = 32;
    c->tile_rows = 8;
    c->tile_cols = 8;
    c->scale_rule = MX_SCALE_FLOOR;
    c->round = MX_ROUND_EVEN;
    c->mxsf_fp5_bias = 8;
    c->align_width = 32;
    c->mxsf_wide_fraction = 0.65;
    for (int i = 0; i < MX_NOPS; i++) {
        c->sram[i].kib = i == MX_OP_OUT ? 512 : 1024;
        c->sram[i].banks = 8;
        c->sram[i].bytes_per_cycle = 64;
    }
    c->double_buffer = 1;
    c->dram_bytes_per_cycle = 128;
    c->dram_latency = 100;
    c->ideal_memory = 0;
    c->rqu_elements_per_cycle = 32;
    c->rqu_tile = 0;
    c->clock_ghz = 1.0;
    c->train_requant = 1;
    c->functional_max_macs = 1LL << 30; /* ~0.3 s per GEMM row at 3.4 G MAC/s (2 cores) */
    snprintf(c->energy_table, sizeof c->energy_table, "energy/horowitz45.yaml");
}

/* ---- operand formats ------------------------------------------------------ */

static int k_extent_of_block(const mx_arch_config *c)
{
    if (c->tile_rows > 0) return (int)lcm_ll(c->tile_rows, c->tile_cols);
    return c->block_size;
}

void mx_arch_out_block_spec(const mx_arch_config *c, const mx_operand_fmt *fo, mx_encode_opts enc,
                            mx_block_spec *spec)
{
    memset(spec, 0, sizeof *spec);
    spec->elem = fo->elem;
    spec->block = c->block_size;
    spec->axis = -1;
    spec->tile_rows = c->tile_rows;
    spec->tile_cols = c->tile_rows > 0 ? c->tile_cols : 0;
    spec->scale_rule = c->scale_rule;
    spec->enc = enc;
}

int mx_operand_fmt_resolve(const mx_arch_config *c, const char *name, mx_operand_fmt *o)
{
    memset(o, 0, sizeof *o);
    int b5 = c->mxsf_fp5_bias;
    char tail;
    int is_mxsf_b = sscanf(name, "mxsf_b%d%c", &b5, &tail) == 1;
    if (is_mxsf_b || mx_block_format_lookup(name, &o->elem) == 0) {
        if (is_mxsf_b && mx_format_mxsf(b5, &o->elem) != 0) return -1;
        o->is_mx = 1;
        if (o->elem.kind == MX_KIND_MXSF) {
            if (mx_format_mxsf(b5, &o->elem) != 0) return -1;
            o->is_mxsf = 1;
        }
        int per_scale = c->tile_rows > 0 ? c->tile_rows * c->tile_cols : c->block_size;
        if (per_scale < 1) return -1;
        o->bits_per_elem = o->elem.bits + 8.0 / per_scale;
    } else if (mx_format_lookup(name, &o->elem) == 0) {
        if (o->elem.kind == MX_KIND_E8M0 || o->elem.kind == MX_KIND_MXSF) return -1;
        o->bits_per_elem = o->elem.bits;
    } else {
        return -1;
    }
    switch (o->elem.kind) {
    case MX_KIND_MXSF:
        o->sig_bits = 6;     /* E2M5: 1.fffff */
        o->fp5_sig_bits = 3; /* FP5 E3M2: 1.nn */
        o->exp_bits = 4;     /* lsb exponent in [-9, -3] */
        break;
    case MX_KIND_INT:
        o->sig_bits = o->elem.bits - 1; /* sign-magnitude view of |v| <= 127 */
        o->exp_bits = 0;
        break;
    default:
        o->sig_bits = o->elem.mbits + 1;
        o->exp_bits = o->elem.ebits;
        break;
    }
    if (o->sig_bits > MX_SIG_MAX) o->sig_bits = MX_SIG_MAX;
    return 0;
}

int mx_arch_config_check(const mx_arch_config *c, char *err, size_t errlen)
{
    mx_operand_fmt f;
    const char *names[3] = {c->a_format, c->b_format, c->out_format};
    const char *keys[3] = {"format.a", "format.b", "format.out"};
    for (int i = 0; i < 3; i++)
        if (mx_operand_fmt_resolve(c, names[i], &f) != 0)
            return mx_fail(err, errlen, "key '%s': unknown format '%s'", keys[i], names[i]);
    int kb = k_extent_of_block(c);
    int any_mx = 0;
    for (int i = 0; i < 2; i++) {
        mx_operand_fmt_resolve(c, names[i], &f);
        any_mx |= f.is_mx;
    }
    if (any_mx && kb % c->lanes != 0) {
        if (c->tile_rows > 0)
            return mx_fail(err, errlen,
                        "key 'arch.lanes': %d lanes must divide the tile extent along K (%d) so a "
                        "cycle's lanes share one scale pair",
                        c->lanes, kb);
        return mx_fail(err, errlen,
                    "key 'arch.lanes': %d lanes must divide format.block (%d) so a cycle's lanes "
                    "share one scale pair",
                    c->lanes, kb);
    }
    return 0;
}

/* ---- folds ------------------------------------------------------------------ */

long long mx_fold_cycles(const mx_arch_config *c, int r, int cc, long long t)
{
    long long p = c->pe_pipeline_depth;
    if (c->scalesim_compat) { r = c->rows; cc = c->cols; p = 1; }
    long long cyc = t + (r - 1) + (cc - 1) + (p - 1);
    if (c->dataflow != MX_DATAFLOW_OS) cyc += r; /* preload the stationary operand */
    return cyc;
}

void mx_fold_geometry(const mx_arch_config *c, long long m, long long n, long long k,
                      long long *sr, long long *sc, long long *t)
{
    long long ks = mx_cdiv(k, c->lanes); /* L lanes consume L elements of K per PE-cycle */
    switch (c->dataflow) {
    case MX_DATAFLOW_WS: *sr = ks; *sc = n; *t = m; break;
    case MX_DATAFLOW_IS: *sr = ks; *sc = m; *t = n; break;
    default:             *sr = m;  *sc = n; *t = ks; break;
    }
}

long long mx_fold_count(const mx_arch_config *c, long long m, long long n, long long k)
{
    long long sr, sc, t;
    mx_fold_geometry(c, m, n, k, &sr, &sc, &t);
    return mx_cdiv(sr, c->rows) * mx_cdiv(sc, c->cols);
}

void mx_fold_at(const mx_arch_config *c, long long m, long long n, long long k, long long f, mx_fold *o)
{
    long long sr, sc, t;
    mx_fold_geometry(c, m, n, k, &sr, &sc, &t);
    const long long R = c->rows, C = c->cols;
    const long long nrf = mx_cdiv(sr, R), ncf = mx_cdiv(sc, C);
    const int rl = (int)(sr - (nrf - 1) * R), cl = (int)(sc - (ncf - 1) * C);
    const long long ci = f / nrf, ri = f % nrf;
    o->index = f;
    o->r0 = ri * R;
    o->c0 = ci * C;
    o->rows = ri == nrf - 1 ? rl : (int)R;
    o->cols = ci == ncf - 1 ? cl : (int)C;
    if (!c->fold_overlap || c->scalesim_compat) {
        /* ci whole column folds, then ri full-height folds of this one's width */
        o->start = ci * ((nrf - 1) * mx_fold_cycles(c, (int)R, (int)C, t) + mx_fold_cycles(c, rl, (int)C, t)) +
                   ri * mx_fold_cycles(c, (int)R, o->cols, t);
        o->end = o->start + mx_fold_cycles(c, o->rows, o->cols, t);
    } else if (c->dataflow == MX_DATAFLOW_OS) {
        const long long n_rl = f / nrf, n_R = f - n_rl; /* folds before f by row extent */
        o->start = n_R * mx_llmax(t, R) + n_rl * mx_llmax(t, rl);
        o->end = o->start + mx_fold_cycles(c, o->rows, o->cols, t);
    } else {
        const long long n_rl = (f + 1) / nrf - (nrf == 1 ? 1 : 0); /* among folds 1..f */
        const long long n_R = f - n_rl;
        o->start = (nrf > 1 ? R : rl) + n_R * mx_llmax(t, R) + n_rl * mx_llmax(t, rl);
        o->end = o->start + mx_fold_cycles(c, o->rows, o->cols, t) - o->rows;
    }
}

long long mx_tile_compute_cycles(const mx_arch_config *c, long long m, long long n, long long k)
{
    long long sr, sc, t;
    mx_fold_geometry(c, m, n, k, &sr, &sc, &t);
    const long long nrf = mx_cdiv(sr, c->rows), ncf = mx_cdiv(sc, c->cols);
    mx_fold fo;
    if (!c->fold_overlap || c->scalesim_compat) {
        mx_fold_at(c, m, n, k, nrf * ncf - 1, &fo);
        return fo.end;
    }
    /* Starts grow with f, so only the last fold of each (rows, cols) class
     * (full or last row fold x full or last column fold) can end last. */
    long long best = 0;
    for (int cls = 0; cls < 4; cls++) {
        const int last_row = cls & 1, last_col = (cls >> 1) & 1;
        if (!last_row && nrf == 1) continue; /* no full-height folds */
        if (!last_col && ncf == 1) continue; /* no full-width folds  */
        const long long ci = last_col ? ncf - 1 : ncf - 2, ri = last_row ? nrf - 1 : nrf - 2;
        mx_fold_at(c, m, n, k, ci * nrf + ri, &fo);
        if (fo.end > best) best = fo.end;
    }
    return best;
}

/* ---- tiling ----------------------------------------------------------------- */

long long mx_arch_tile_bytes(long long rows, long long cols, double bits)
{
    return (long long)ceil((double)rows * (double)cols * bits / 8.0);
}

/* Operand bytes read from DRAM for a tiling and loop order: the operand
 * indexed by the outer loop stays resident across the middle loop when K is
 * not tiled; the other is reloaded for every outer iteration. */
static double tiling_traffic(long long M, long long N, long long K, long long mt, long long nt,
                             long long kt, double ba, double bb, int n_outer)
{
    double A = (double)M * K * ba / 8, B = (double)K * N * bb / 8;
    long long mtl = mx_cdiv(M, mt), ntl = mx_cdiv(N, nt), ktl = mx_cdiv(K, kt);
    if (!n_outer) { /* m outer: A(m, k) reused across n if k_tiles == 1 */
        double a = ktl == 1 ? A : A * ntl;
        double b = (ktl == 1 && ntl == 1) ? B : B * mtl;
        return a + b;
    }
    double b = ktl == 1 ? B : B * mtl;
    double a = (ktl == 1 && mtl == 1) ? A : A * ntl;
    return a + b;
}

#define ANALYTIC_PROBE_FAILED (-2) /* analytic_tiled: a DRAM probe failed (internal error) */
static int analytic_tiled(const mx_arch_config *c, const mx_gemm *g, const mx_operand_fmt *fa,
                          const mx_operand_fmt *fb, const mx_operand_fmt *fo, const mx_tiling *tl,
                          mx_stats *s);

typedef struct {
    mx_tiling t;
    long long tiles;
    double lb, cycles;
    double bytes;       /* DRAM traffic the engine counts (whole bursts), once exact */
    int exact;
} mx_map_cand;

static int cmp_lb(const void *a, const void *b)
{
    double x = ((const mx_map_cand *)a)->lb, y = ((const mx_map_cand *)b)->lb;
    return x < y ? -1 : x > y ? 1 : 0;
}

/* A proven lower bound of the analytic engine's cycles for a mapping: the
 * array computes every tile (pure fold cycles; stalls only add), and the
 * channel moves every operand byte at its read bandwidth before the last
 * tile can start. */
static double map_lower_bound(const mx_arch_config *c, const mx_tiling *t, long long M, long long N,
                              long long K)
{
    long long dm[2] = {t->mt, M - (t->m_tiles - 1) * t->mt}, cm[2] = {t->m_tiles - 1, 1};
    long long dn[2] = {t->nt, N - (t->n_tiles - 1) * t->nt}, cn[2] = {t->n_tiles - 1, 1};
    long long dk[2] = {t->kt, K - (t->k_tiles - 1) * t->kt}, ck[2] = {t->k_tiles - 1, 1};
    double comp = 0;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            for (int k = 0; k < 2; k++) {
                long long n = cm[i] * cn[j] * ck[k];
                if (n) comp += (double)n * (double)mx_tile_compute_cycles(c, dm[i], dn[j], dk[k]);
            }
    double bw = c->dram_bytes_per_cycle;
    if (c->dram_model && c->dram_cal.valid) bw = c->dram_cal.read_bytes_per_cycle;
    double mem = t->dram_bytes / bw;
    return comp > mem ? comp : mem;
}

/* The mapper's candidates (docs/ARCH.md "Mapper"): tile extents of the array
 * granule times powers of two, the whole extent, and the balanced split of
 * each (same tile count, equal tiles); along K the largest extent that fits
 * and the even splits into the fewest tiles that fit up to three more; both
 * loop orders; double-buffered tiles (half of each buffer) when the hardware
 * double buffers, and with memory.double_buffer: search single-buffered ones
 * (the whole buffer) too.  *cand is malloc'd; 0, or -1 out of memory. */
static int map_candidates(const mx_arch_config *c, double ba, double bb, long long M, long long N,
                          long long K, long long mg, long long ng, long long kg, mx_map_cand **cand,
                          size_t *ncand)
{
    long long ext[2][130];
    int next[2] = {0, 0};
    for (int d = 0; d < 2; d++) { /* d = 0: extents along M, 1: along N */
        long long g = d ? ng : mg, X = d ? N : M, R = mx_cdiv(X, g) * g;
        for (long long e = g;; e = e * 2 < R ? e * 2 : R) {
            long long q = mx_cdiv(X, mx_llmin(e, X));
            long long bal = mx_cdiv(mx_cdiv(X, q), g) * g;
            ext[d][next[d]++] = e;
            if (bal != e && next[d] < 129) ext[d][next[d]++] = bal;
            if (e >= R || next[d] >= 128) break;
        }
    }
    const long long Kr = mx_cdiv(K, kg) * kg;
    size_t cap = 0;
    *cand = NULL;
    *ncand = 0;
    for (int db = c->double_buffer ? 1 : 0; db >= (c->double_buffer == 1 ? 1 : 0); db--) {
        double div = db ? 2.0 : 1.0;
        double cap_a = c->sram[MX_OP_A].kib * 1024.0 / div, cap_b = c->sram[MX_OP_B].kib * 1024.0 / div;
        double cap_o = c->sram[MX_OP_OUT].kib * 1024.0 / div;
        for (int i = 0; i < next[0]; i++)
            for (int j = 0; j < next[1]; j++) {
                long long mt = ext[0][i], nt = ext[1][j];
                if ((double)mt * nt * 4.0 > cap_o) continue;
                double ka = cap_a / ((double)mt * ba / 8), kb = cap_b / ((double)nt * bb / 8);
                double kmax_d = ka < kb ? ka : kb;
                long long kmax = kmax_d >= (double)Kr ? Kr : ((long long)kmax_d / kg) * kg;
                if (kmax < kg) continue;
                long long kts[5], qmin = mx_cdiv(K, kmax);
                int nk = 0;
                kts[nk++] = kmax;
                for (long long q = qmin; q < qmin + 4; q++) {
                    long long kt = mx_cdiv(mx_cdiv(K, q), kg) * kg;
                    if (kt <= kmax && kt >= kg && kt != kts[nk - 1]) kts[nk++] = kt;
                }
                for (int kk = 0; kk < nk; kk++)
                    for (int o = 0; o < 2; o++) {
                        if (*ncand == cap) {
                            cap = cap ? cap * 2 : 256;
                            mx_map_cand *nc = realloc(*cand, cap * sizeof *nc);
                            if (!nc) { free(*cand); *cand = NULL; return -1; }
                            *cand = nc;
                        }
                        mx_map_cand *m = &(*cand)[(*ncand)++];
                        memset(m, 0, sizeof *m);
                        m->t.mt = mx_llmin(mt, M); m->t.nt = mx_llmin(nt, N); m->t.kt = mx_llmin(kts[kk], K);
                        m->t.n_outer = o;
                        m->t.double_buffer = db;
                        m->t.m_tiles = mx_cdiv(M, m->t.mt); m->t.n_tiles = mx_cdiv(N, m->t.nt);
                        m->t.k_tiles = mx_cdiv(K, m->t.kt);
                        m->t.dram_bytes = tiling_traffic(M, N, K, m->t.mt, m->t.nt, m->t.kt, ba, bb, o);
                        m->tiles = m->t.m_tiles * m->t.n_tiles * m->t.k_tiles;
                        m->lb = map_lower_bound(c, &m->t, M, N, K);
                    }
            }
    }
    return 0;
}

/* a fewer bytes than b (relative tolerance for the floating traffic sums) */
static int fewer_bytes(double a, double b) { return a < b * (1 - 1e-12); }
static int same_bytes(double a, double b) { return a <= b * (1 + 1e-12); }

/* memory.tiling: traffic -- the least DRAM traffic, then the fewest tiles. */
static int pick_traffic(const mx_map_cand *cand, size_t n)
{
    int best = -1;
    for (size_t i = 0; i < n; i++)
        if (best < 0 || fewer_bytes(cand[i].t.dram_bytes, cand[best].t.dram_bytes) ||
            (same_bytes(cand[i].t.dram_bytes, cand[best].t.dram_bytes) && cand[i].tiles < cand[best].tiles))
            best = (int)i;
    return best;
}

/* memory.tiling: time -- exact cycles (cost cq) of the candidates in order of
 * their lower bound until it exceeds 1.01 x the fastest; among those within
 * 1% of the fastest the least traffic, then the fewest cycles, then tiles. */
static int pick_time(const mx_arch_config *cq, const mx_gemm *g, const mx_operand_fmt *fa,
                     const mx_operand_fmt *fb, const mx_operand_fmt *fo, mx_map_cand *cand, size_t n)
{
    qsort(cand, n, sizeof *cand, cmp_lb);
    double fastest = -1;
    for (size_t i = 0; i < n; i++) {
        if (fastest >= 0 && cand[i].lb > fastest * 1.01) break; /* no later candidate can be within 1% */
        mx_stats st;
        if (analytic_tiled(cq, g, fa, fb, fo, &cand[i].t, &st) != 0) continue; /* its counters overflow */
        cand[i].cycles = (double)st.cycles;
        cand[i].bytes = (double)(st.dram_read[MX_OP_A] + st.dram_read[MX_OP_B] + st.dram_write[MX_OP_OUT]);
        cand[i].exact = 1;
        if (fastest < 0 || cand[i].cycles < fastest) fastest = cand[i].cycles;
    }
    int best = -1;
    for (size_t i = 0; i < n; i++) {
        const mx_map_cand *x = &cand[i], *b = best >= 0 ? &cand[best] : NULL;
        if (!x->exact || x->cycles > fastest * 1.01) continue;
        if (!b || fewer_bytes(x->bytes, b->bytes) ||
            (same_bytes(x->bytes, b->bytes) &&
             (x->cycles < b->cycles || (x->cycles == b->cycles && x->tiles < b->tiles))))
            best = (int)i;
    }
    return best;
}

/* memory.tiling: energy / edp -- exact energy (x cycles) of every candidate
 * whose lower bound does not exceed the best found: the mapping-independent
 * energy (multipliers, adder tree, accumulators, scale adds, RQU: the same
 * counts for every mapping) plus the operand bytes at the cheapest DRAM
 * energy per byte (times the cycle bound for EDP).  -2 on an energy-table
 * error (message in err). */
static int pick_energy(const mx_arch_config *cq, const mx_energy_table *tab, int edp, const mx_gemm *g,
                       const mx_operand_fmt *fa, const mx_operand_fmt *fb, const mx_operand_fmt *fo,
                       mx_map_cand *cand, size_t n, char *err, size_t errlen)
{
    double ppb = -1;
    if (cq->dram_model && cq->dram_cal.valid) ppb = cq->dram_cal.rd_pj_per_byte;
    else if (mx_energy_get(tab, "dram_64b", &ppb) == 0) ppb /= 8;
    else ppb = 0;
    double fixed = 0, best_obj = -1;
    int best = -1;
    for (size_t i = 0; i < n; i++) {
        if (i > 0) {
            double lbe = fixed + cand[i].t.dram_bytes * ppb;
            if (best_obj >= 0 && (edp ? lbe * cand[i].lb : lbe) > best_obj) continue;
        }
        mx_stats st;
        if (analytic_tiled(cq, g, fa, fb, fo, &cand[i].t, &st) != 0) continue; /* its counters overflow */
        if (mx_energy_apply(cq, tab, &st, err, errlen) != 0) return -2;
        if (i == 0) /* the first exact evaluation gives the fixed part */
            fixed = st.energy_pj[MX_E_MUL] + st.energy_pj[MX_E_ADDTREE] + st.energy_pj[MX_E_ACCUM] +
                    st.energy_pj[MX_E_SCALE] + st.energy_pj[MX_E_RQU];
        double obj = edp ? st.energy_total_pj * (double)st.cycles : st.energy_total_pj;
        cand[i].cycles = (double)st.cycles;
        if (best < 0 || obj < best_obj * (1 - 1e-12) ||
            (obj <= best_obj * (1 + 1e-12) && cand[i].cycles < cand[best].cycles)) {
            best = (int)i;
            best_obj = obj;
        }
    }
    return best;
}

int mx_arch_tiling(const mx_arch_config *c, const mx_operand_fmt *fa, const mx_operand_fmt *fb,
                   long long M, long long N, long long K, mx_tiling *t, char *err, size_t errlen)
{
    long long kg = c->lanes;
    if (fa->is_mx || fb->is_mx) kg = lcm_ll(kg, k_extent_of_block(c));
    long long mg = c->rows, ng = c->cols;
    if (c->dataflow == MX_DATAFLOW_IS) { mg = c->cols; ng = 1; }
    if (c->dataflow == MX_DATAFLOW_WS) { mg = 1; }
    memset(t, 0, sizeof *t);
    if (c->ideal_memory) {
        t->double_buffer = c->double_buffer != 0;
        t->mt = M; t->nt = N; t->kt = K;
        t->m_tiles = t->n_tiles = t->k_tiles = 1;
        return 0;
    }
    double ba = fa->bits_per_elem, bb = fb->bits_per_elem;
    mx_map_cand *cand;
    size_t ncand;
    if (map_candidates(c, ba, bb, M, N, K, mg, ng, kg, &cand, &ncand) != 0)
        return mx_fail(err, errlen, "out of memory in the mapper");
    int best = -1;
    int energy = c->tiling_objective == MX_TILING_ENERGY || c->tiling_objective == MX_TILING_EDP;
    if (ncand && c->tiling_objective == MX_TILING_TRAFFIC) {
        best = pick_traffic(cand, ncand);
    } else if (ncand) {
        /* candidates are ranked with the fast cost: calibrated DRAM bandwidth,
         * no probes, SRAM demand stretch (analytic_probes = 0) */
        mx_operand_fmt fo;
        if (mx_operand_fmt_resolve(c, c->out_format, &fo) != 0) {
            free(cand);
            return mx_fail(err, errlen, "unknown output format '%s'", c->out_format);
        }
        mx_gemm g;
        memset(&g, 0, sizeof g);
        g.M = M; g.N = N; g.K = K; g.count = 1; g.phase = MX_PHASE_FWD;
        mx_arch_config cq = *c;
        cq.analytic_probes = 0;
        if (energy && !c->energy_tab) {
            free(cand);
            return mx_fail(err, errlen, "key 'memory.tiling': the energy and edp objectives need the energy table");
        }
        if (energy)
            best = pick_energy(&cq, c->energy_tab, c->tiling_objective == MX_TILING_EDP, &g, fa, fb, &fo, cand, ncand,
                               err, errlen);
        else
            best = pick_time(&cq, &g, fa, fb, &fo, cand, ncand);
        if (best == -2) { free(cand); return -1; }
    }
    if (best >= 0) *t = cand[best].t;
    free(cand);
    if (best < 0) { /* no tile fits the largest share searched: name the buffer too small */
        double div = c->double_buffer == 1 ? 2.0 : 1.0;
        if ((double)mg * ng * 4.0 > c->sram[MX_OP_OUT].kib * 1024.0 / div)
            return mx_fail(err, errlen, "key 'memory.sram_out.kib': output buffer too small for one %lldx%lld FP32 tile", mg, ng);
        if ((double)mg * kg * ba / 8 > c->sram[MX_OP_A].kib * 1024.0 / div)
            return mx_fail(err, errlen, "key 'memory.sram_a.kib': A buffer too small for one %lldx%lld tile", mg, kg);
        return mx_fail(err, errlen, "key 'memory.sram_b.kib': B buffer too small for one %lldx%lld tile", kg, ng);
    }
    return 0;
}

/* ---- one GEMM ----------------------------------------------------------------- */

static void add_mul(mx_stats *s, int wa, int wb, double count)
{
    if (wa < wb) { int x = wa; wa = wb; wb = x; }
    s->mul[wa][wb] += count;
}

/* Multiplies split by significand widths; MXSF in timing mode splits by the
 * configured fraction of E2M5-mode elements (functional mode counts codes). */
void mx_arch_count_muls(const mx_arch_config *c, const mx_operand_fmt *fa, const mx_operand_fmt *fb,
                       double macs, mx_stats *s)
{
    int wa[2] = {fa->sig_bits, fa->fp5_sig_bits}, wb[2] = {fb->sig_bits, fb->fp5_sig_bits};
    double pa[2] = {1, 0}, pb[2] = {1, 0};
    if (fa->is_mxsf) { pa[0] = c->mxsf_wide_fraction; pa[1] = 1 - pa[0]; }
    if (fb->is_mxsf) { pb[0] = c->mxsf_wide_fraction; pb[1] = 1 - pb[0]; }
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            if (pa[i] * pb[j] > 0) add_mul(s, wa[i], wb[j], macs * pa[i] * pb[j]);
}

static int sram_bw(const mx_sram_config *s) { return s->banks * s->bytes_per_cycle; }

/* Array demand on the SRAM ports (bytes/cycle) relative to their width;
 * >1 stretches compute (docs/ARCH.md). */
static double sram_slowdown(const mx_arch_config *c, const mx_operand_fmt *fa,
                            const mx_operand_fmt *fb)
{
    double da = 0, db = 0, dout = 0;
    double L = c->lanes;
    switch (c->dataflow) {
    case MX_DATAFLOW_OS:
        da = c->rows * L * fa->bits_per_elem / 8;
        db = c->cols * L * fb->bits_per_elem / 8;
        break;
    case MX_DATAFLOW_WS:
        da = c->rows * L * fa->bits_per_elem / 8;
        dout = c->cols * 4.0;
        break;
    case MX_DATAFLOW_IS:
        db = c->rows * L * fb->bits_per_elem / 8;
        dout = c->cols * 4.0;
        break;
    }
    double f = 1.0;
    if (da / sram_bw(&c->sram[MX_OP_A]) > f) f = da / sram_bw(&c->sram[MX_OP_A]);
    if (db / sram_bw(&c->sram[MX_OP_B]) > f) f = db / sram_bw(&c->sram[MX_OP_B]);
    if (dout / sram_bw(&c->sram[MX_OP_OUT]) > f) f = dout / sram_bw(&c->sram[MX_OP_OUT]);
    return f;
}

/* A transfer timed on the rows the previous one left open (after_of):
 * cycles from its start to its last and first completion, its activates
 * and command energy; `have` says which kinds were probed. */
typedef struct {
    long long cyc, lat;   /* issued once the first one's data is all in; 0: no probe */
    /* issued as its last request left the queue, times from then; issued
     * long after it, times from its issue (after_at_gap; 0: no probe); the
     * latter's activates and command energy */
    long long cyc_issue, lat_issue, cyc_idle, lat_idle, act;
    double pj;
    int have;             /* bits: which of the two kinds were probed */
    int row_conflict;     /* b's writes all wait for a's rows (mx_cycle_xfer_row_conflict; b a store) */
} after_probe;

/* b's cycles to its last (*cyc) and first (*lat) completion when it arrives
 * g cycles after a's last request left the controller's queue: bound by
 * what a's commands still impose (the timeline probed from that moment on,
 * shifted by g) or by its own time on a's rows (probed long after a). */
static void after_at_gap(const after_probe *f, long long g, long long *cyc, long long *lat)
{
    *cyc = mx_llmax(1, mx_llmax(f->cyc_issue - g, f->cyc_idle));
    *lat = mx_llmax(1, mx_llmin(*cyc, mx_llmax(f->lat_issue - g, f->lat_idle)));
}

/* Output writes waiting for the DRAM channel, oldest first.  A batch (an
 * output tile's store) exists from the cycle its tile finished computing:
 * it may only use channel time from then on, never idle time before it.
 * When the ring is full the newest batch joins the last one at the later
 * time (delays writes, never retires them early). */
#define WR_QUEUE_MAX 64
typedef struct {
    long long t, cyc;     /* ready time, channel cycles */
    long long cyc_follow; /* channel cycles right behind another store */
    long long follow_base; /* of them, what is not the pair probe's marginal (-1: no probe) */
    long long cyc_after_st; /* on an idle DRAM whose rows the previous store left */
    long long lat, lat_after_st; /* to its first write */
    long long rest;       /* channel cycles beyond its probe (second copies, refresh); -1: no probe */
    const after_probe *ald; /* on the rows the last load left (NULL: none, cyc and lat as queued) */
    long long block;      /* cycles its first write comes later than an idle write's */
    long long cyc_full;   /* its channel cycles as started */
    uint64_t full_ch;     /* held: the channels it fills (its DMA waits there for a drain) */
    int ld_shares;        /* the last load before it touched one of them */
    int blk_ld;           /* block is the delay that load's rows impose (wr_queue_start) */
    int blk_row;          /* and it was a row conflict (ld_conf): its last write is `block` late too */
    int ld_conf;          /* the last load's rows are open in every bank it writes, and only there
                             (mx_cycle_xfer_row_conflict): every write waits for a PRE */
    int started;
    long long mi, ni;     /* its output tile */
    int cls;
    uint64_t ranks;
    int halves;           /* output buffer halves (bits) its store releases */
    long long bursts;
    long long ch_bursts;  /* of them in its busiest channel */
    long long tail;       /* channel cycles after its last burst is accepted (probe; -1: none) */
    long long cyc_alone;  /* its channel cycles probed alone: the context tail was measured in */
    long long *start_out, *end_out; /* set to when it began and ended service (walk_chain_pj; NULL: none) */
} wr_batch;
/* A store's marginal channel cycles behind the previous one (q's last_mi,
 * last_ni, last_cls) when it arrives `offset` cycles after that one's
 * channel time ended (negative: before; wr_queue_start); 0: not available. */
struct wr_queue;
typedef long long (*wr_follow_fn)(void *ctx, const struct wr_queue *q, const wr_batch *b, long long offset);
typedef struct wr_queue {
    wr_batch b[WR_QUEUE_MAX];
    wr_follow_fn follow;        /* NULL: cyc_follow as queued (issued together) */
    void *follow_ctx;
    long long last_start;       /* the last batch began service then */
    int last_whole;             /* and was served in one piece, from then to last_end */
    long long queued_bursts;    /* of all queued batches */
    long long last_end;         /* the last write left the channel */
    long long ld_end;           /* the last load left the channel */
    long long ld_issue;         /* its last request left the controller's queue */
    long long last_lat;         /* the last write's latency after its channel time */
    long long last_block;       /* its writes' issue ends that much after last_end */
    int last_blk_row;           /* its drain began behind a load's row conflict (wr_batch.blk_row) */
    /* background energy: when the DRAM was last busy (-1: never), and the
     * expected cycles each rank spends with every bank closed (before its
     * first access; after a REF until the next access: open-page banks
     * stay open otherwise) */
    long long busy_end;
    double closed;
    uint64_t touched;           /* ranks accessed so far (mx_tile_probe.ranks) */
    double first_touch_sum;     /* the sum of their first access times */
    double refi;                /* tREFI in accelerator cycles; 0: no refresh */
    long long drain_start;      /* the writes up to it started then */
    long long last_mi, last_ni; /* its output tile */
    int last_cls;               /* its shape class (edge in m) * 2 + (edge in n); -1 none yet */
    int head, n;
    /* while a held store's drain is served: reads of the next load are
     * queued from cut_at (-1: none) in the channels cut_ch */
    long long cut_at;
    uint64_t cut_ch;
    long long cut_occ;          /* that load's channel cycles (0: none) */
    long long cut_res;          /* out: the drain was split, the load's slot begins then (-1: not split) */
    long long cut_load_end;     /* and ends then */
    long long split_rest;       /* the last batch popped was split: its rest's channel cycles, from split_rest_at (0: not) */
    long long split_rest_at;
    long long split_rest_bursts, split_bursts;
    int split_short;            /* split, where the walk jumps, by a load shorter than the drain (its rest fits the room) */
    int cut_long;               /* a walk with jumps: only a load at least as long as the drain cuts it */
    int enter_next;             /* a held store behind a drain enters as it ends (wr_queue_pop) */
    long long rd_at;            /* while batches are served: the next load's reads are queued from then (-1: none) */
    long long cut_fit_end;      /* split with a rest that fits the room: the unsplit drain's end (-1: not) */
    long long ref_extra;        /* the last load's exact REFs beyond its charge: they shorten the next drain's room (cut_at) */
    long long room;             /* bursts the store DMA keeps queued in one controller (0: no DRAM model) */
    /* the output halves: held by a queued store (held), else free from out_free */
    long long out_free[2];
    int held[2];
} wr_queue;

static void wr_queue_push(wr_queue *q, const wr_batch *nb)
{
    for (int h = 0; h < 2; h++)
        if (nb->halves >> h & 1) q->held[h] = 1;
    q->queued_bursts += nb->bursts;
    if (q->n == WR_QUEUE_MAX) {
        wr_batch *l = &q->b[(q->head + q->n - 1) % WR_QUEUE_MAX];
        l->t = mx_llmax(l->t, nb->t);
        l->cyc += nb->cyc_follow;
        l->cyc_follow += nb->cyc_follow;
        l->cyc_after_st += nb->cyc_follow;
        l->follow_base = -1;
        l->bursts += nb->bursts;
        l->ch_bursts += nb->ch_bursts;
        l->halves |= nb->halves;
        l->mi = nb->mi;
        l->ni = nb->ni;
        l->cls = nb->cls;
        l->ranks |= nb->ranks;
        l->full_ch |= nb->full_ch;
        l->tail = nb->tail; /* its halves free as the newest store's last burst enters */
        l->rest = -1; /* a merged batch keeps the contexts it has */
        l->ald = NULL;
        return;
    }
    q->b[(q->head + q->n++) % WR_QUEUE_MAX] = *nb;
}

/* Expected closed time of one rank over an idle gap of g cycles: a REF
 * (period P, uniform phase) closes its banks until the gap ends. */
static double closed_in_gap(double g, double P)
{
    if (P <= 0 || g <= 0) return 0;
    return g <= P ? g * g / (2 * P) : g - P / 2;
}

/* The DRAM is busy over [s, e) with a transfer touching `ranks`. */
static void dram_busy(wr_queue *q, long long s, long long e, uint64_t ranks)
{
    const uint64_t fresh = ranks & ~q->touched;
    q->first_touch_sum += (double)__builtin_popcountll(fresh) * (double)s;
    q->touched |= fresh;
    if (q->busy_end >= 0 && s > q->busy_end) q->closed += closed_in_gap((double)(s - q->busy_end), q->refi);
    if (e > q->busy_end) q->busy_end = e;
}

/* The head batch has left at `end`: its output halves are free. */
static void wr_queue_pop(wr_queue *q, long long end)
{
    int i = q->head;
    q->last_end = end;
    if (q->b[i].end_out) *q->b[i].end_out = end;
    q->split_rest = 0;
    q->last_whole = end - q->last_start == q->b[i].cyc_full;
    q->last_lat = q->b[i].lat;
    q->last_block = q->b[i].block;
    q->last_blk_row = q->b[i].blk_row;
    q->last_mi = q->b[i].mi;
    q->last_ni = q->b[i].ni;
    q->last_cls = q->b[i].cls;
    /* a held half is free once the store's last burst is in the
     * controllers' write queues: what its probe did after that (channels
     * the DMA filled before the last one drain on), else the last `room`
     * bursts per channel are still queued */
    const long long rend = q->cut_fit_end >= 0 ? q->cut_fit_end : end; /* the halves free as unsplit */
    long long release = rend;
    if (q->b[i].tail >= 0) { /* measured: the store probed alone, issued as the DMA does */
        /* its writes began `block` later than its probe's (the rows the last
         * load left in a channel it fills): so did the drain there that
         * makes room for its last bursts */
        release = mx_llmax(q->b[i].t, rend - mx_llmin(q->b[i].tail, q->b[i].cyc_full) +
                                          (q->b[i].blk_ld && q->b[i].ld_shares ? q->b[i].block : 0));
        /* Reads queued after it began (last_start: the batch popped is the
         * one started last) and before its last burst entered, in a channel it
         * fills: the DMA stops feeding a drain that reads wait for
         * (mx_dram_write_below_drain), the drain runs on to write_low, and
         * the store's last bursts enter only once it has emptied the queue:
         * the end of the store's channel time. */
        if (q->cut_res >= 0 && q->cut_fit_end < 0) /* split around the load (wr_queue_serve_half): its last bursts enter after it */
            release = mx_llmax(release, q->cut_load_end);
        else if (q->b[i].halves && (q->b[i].full_ch & q->cut_ch) && q->cut_at >= q->last_start && q->cut_at < release)
            release = mx_llmax(release, rend);
    } else if (q->room > 0 && q->b[i].bursts > 0) {
        const long long tail = mx_llmin(q->b[i].bursts, q->room * q->b[i].bursts / mx_llmax(1, q->b[i].ch_bursts));
        release = mx_llmax(q->b[i].t, end - q->b[i].cyc_full * tail / q->b[i].bursts);
    }
    for (int h = 0; h < 2; h++)
        if (q->b[i].halves >> h & 1) { q->held[h] = 0; q->out_free[h] = release; }
    q->queued_bursts -= q->b[i].bursts;
    q->head = (q->head + 1) % WR_QUEUE_MAX;
    q->n--;
    /* The next store, held because this one filled the write queue: reads
     * queued during this drain stop the DMA feeding it, the drain runs to
     * empty, and the held store then enters whole (it fits the room); it
     * stays queued behind those reads, but its output half is free from
     * here (DDR4 8x8 is MXSF 176x32x192: store 1 enters at 3,206 clocks as
     * store 0's drain ends, and is written only after two more loads).
     * Tile-by-tile walks on one-channel DRAMs (enter_next). */
    if (q->enter_next && q->n > 0 && q->rd_at >= 0 && q->rd_at < end) {
        wr_batch *nb = &q->b[q->head];
        if (nb->halves && !nb->started && nb->t <= end && nb->ch_bursts <= q->room) {
            for (int h = 0; h < 2; h++)
                if (nb->halves >> h & 1) { q->held[h] = 0; q->out_free[h] = end; }
            nb->halves = 0;
        }
    }
}

/* The head batch starts service at s: right behind the previous store
 * (the controller merges both into one stream of row hits) it takes its
 * marginal time, else its time alone. */
static void wr_queue_start(wr_queue *q, long long s)
{
    int i = q->head;
    if (q->b[i].started) return;
    q->b[i].started = 1;
    if (q->b[i].start_out) *q->b[i].start_out = s;
    if (s <= q->last_end) { /* streams on behind the previous one */
        q->b[i].cyc = q->b[i].cyc_follow;
        /* arriving after the previous one began, it no longer shares the
         * rows that one has finished with: probed at its own offset.  That
         * one's writes issue `last_block` later than its probe's (they
         * waited for the rows a load left): the offset counts from its
         * writes' end, not its channel time's, so a store queued while the
         * drain still writes the rows before it joins them (HBM2 8x8 is
         * 896x2x2: the fourth store, 3 cycles after the third's channel
         * time, 44 before its writes end, joined their row: 58 -> 10 cycles) */
        long long f;
        if (q->follow && q->b[i].follow_base >= 0 && q->last_whole && q->b[i].t >= q->last_end &&
            (f = q->follow(q->follow_ctx, q, &q->b[i], q->b[i].t - q->last_end - q->last_block)) > 0)
            q->b[i].cyc = q->b[i].follow_base + f;
        else if (q->follow && q->b[i].follow_base >= 0 && q->split_rest > 0 && q->b[i].t <= q->split_rest_at &&
                 (f = q->follow(q->follow_ctx, q, &q->b[i], LLONG_MIN)) > 0) {
            /* queued when the rest of a drain split by a load is written
             * after it (wr_queue_serve_half): the rest and this store are
             * one stream of writes, at their own addresses (in other bank
             * groups, they alternate at tCCD_S): its marginal over the
             * rest alone (store_follow_at) */
            q->b[i].cyc = q->b[i].follow_base + f;
        }
        q->b[i].lat = q->last_lat;
        q->b[i].block = q->last_block;
        q->b[i].blk_row = q->last_blk_row;
    }
    else {
        q->drain_start = s;
        if (q->ld_end > q->last_end && q->b[i].ald) { /* the last transfer was a load */
            long long e, l;
            after_at_gap(q->b[i].ald, s - q->ld_issue, &e, &l);
            /* a first write later than an idle one's is the load's
             * commands (tRAS, tRTP, a row switch) holding the writes: the
             * stores queued meanwhile stream on behind this one */
            q->b[i].block = mx_llmax(0, l - q->b[i].lat);
            q->b[i].blk_ld = 1;
            q->b[i].blk_row = q->b[i].ld_conf;
            q->b[i].cyc = q->b[i].rest + mx_llmax(1, e - l);
            q->b[i].lat = l;
        } else if (q->last_cls >= 0) {
            q->b[i].cyc = q->b[i].cyc_after_st;
            q->b[i].lat = q->b[i].lat_after_st;
        }
    }
    q->b[i].cyc_full = q->b[i].cyc;
    q->last_start = s;
}

/* The bursts still queued at `at` when the controller serves the queued
 * batches in order from `from` on, reads first: the loads wanted at ld_want[k]
 * (ld_occ[k] channel cycles; < 0: reads from then on past `at`) go before a
 * batch that could start only after they were wanted, and a drain, once
 * begun in a gap between reads, runs to its end: what the write queue holds
 * when a new store arrives.  Nothing is served here. */
static long long wr_queue_bursts_at(const wr_queue *q, long long from, long long at, const long long *ld_want,
                                    const long long *ld_occ, int nld)
{
    long long cur = from, left = q->queued_bursts;
    int l = 0;
    for (int k = 0; k < q->n; k++) {
        const int i = (q->head + k) % WR_QUEUE_MAX;
        while (l < nld && ld_want[l] <= mx_llmax(cur, q->b[i].t)) {
            if (ld_occ[l] < 0) return left;
            cur = mx_llmax(cur, ld_want[l]) + ld_occ[l];
            l++;
        }
        cur = mx_llmax(cur, q->b[i].t) + q->b[i].cyc;
        if (cur > at) break;
        left -= q->b[i].bursts;
    }
    return left;
}

/* When batch i can start with the channel free from cur: its ready time,
 * or at once if the previous store is still issuing its writes then. */
static long long wr_queue_at(const wr_queue *q, long long cur, int i)
{
    if (q->last_cls >= 0 && cur == q->last_end && q->b[i].t <= q->last_end + q->last_block) return cur;
    return mx_llmax(cur, q->b[i].t);
}

/* Serves, in order, every queued batch that was ready before `before`,
 * completely; returns when the channel is free again. */
static long long wr_queue_serve_ready(wr_queue *q, long long from, long long before)
{
    long long cur = from;
    while (q->n > 0 && q->b[q->head].t < before) {
        int i = q->head;
        cur = wr_queue_at(q, cur, i);
        wr_queue_start(q, cur);
        dram_busy(q, cur, cur + q->b[i].cyc, q->b[i].ranks);
        cur += q->b[i].cyc;
        wr_queue_pop(q, cur);
    }
    return cur;
}

/* Serves, in order, the batches up to the one releasing output half h;
 * returns when the channel is free again. */
static long long wr_queue_serve_half(wr_queue *q, long long from, int h)
{
    long long cur = from;
    q->cut_res = -1;
    q->cut_fit_end = -1;
    while (q->n > 0 && q->held[h]) {
        int i = q->head;
        cur = wr_queue_at(q, cur, i);
        wr_queue_start(q, cur);
        const wr_batch *b = &q->b[i];
        /* The next load's reads arrive (cut_at) while the store holding h
         * drains, in a channel it fills.  The DMA stops feeding a drain
         * that reads wait for; the drain runs down what the write queue
         * holds (the probed tail), then the load's reads go, all of them
         * (the read queue empties only after its last request).  Meanwhile
         * the DMA refills the emptied write queue, up to a tail's worth:
         * a rest that fits enters during the load (wr_queue_pop's rule);
         * a larger one is written after the load, and its last bursts
         * enter a tail before it ends.  A rest that fits the room but is at
         * least an eighth of it is split too (the load still goes first; the
         * halves free as unsplit, cut_fit_end): the rest is written after the
         * load in one stream with the next store (wr_queue_start, split_rest). */
        long long tail = mx_llmin(b->tail, b->cyc);
        /* A store larger than the room drains its queued tail at the rate it
         * drains as started: behind another store's split rest faster than
         * alone (DDR4 32x32 os MXSF 626x128x16: the two stores' rows in two
         * bank groups alternate at tCCD_S), so the load comes sooner. */
        if (b->cyc < b->cyc_alone && b->ch_bursts > q->room) tail = tail * b->cyc / b->cyc_alone;
        const long long before = q->cut_at - cur + tail - q->ref_extra;
        /* With jumps (cut_long), a short load cut into a long drain whose
         * rest outgrows the room turns every next store into one streaming
         * on behind that rest (ResNet-50 6272x2304x256 on LPDDR4, 296-burst
         * stores: +6% -> +14%): such drains stay whole.  A rest that fits
         * the room enters at once after the load and streams with the next
         * store (store_follow_at's class sample). */
        if (q->cut_occ > 0 && b->tail >= 0 && (b->halves >> h & 1) && (b->full_ch & q->cut_ch) &&
            (!q->cut_long || q->cut_occ >= b->cyc || b->ch_bursts * (b->cyc - before) <= q->room * b->cyc) &&
            q->cut_at >= cur && b->cyc - before > 0 && 8 * (b->cyc - before) >= tail) {
            if (b->cyc - before <= tail) q->cut_fit_end = cur + b->cyc;
            dram_busy(q, cur, cur + before, b->ranks);
            q->cut_res = cur + before;
            q->cut_load_end = q->cut_res + q->cut_occ;
            dram_busy(q, q->cut_load_end, q->cut_load_end + b->cyc - before, b->ranks);
            cur = q->cut_load_end + b->cyc - before;
            wr_queue_pop(q, cur);
            q->split_rest = b->cyc - before;
            q->split_rest_at = q->cut_load_end;
            q->split_bursts = b->bursts;
            q->split_rest_bursts = mx_llmin(b->bursts, (b->bursts * (b->cyc - before) + b->cyc / 2) / mx_llmax(1, b->cyc));
            q->split_short = q->cut_long && q->cut_occ < b->cyc;
            continue;
        }
        dram_busy(q, cur, cur + b->cyc, b->ranks);
        cur += b->cyc;
        wr_queue_pop(q, cur);
    }
    return cur;
}

/* Serves queued writes in the channel's idle window [from, until) (until < 0:
 * no end, drain everything); returns the cycle the channel is free again. */
static long long wr_queue_serve(wr_queue *q, long long from, long long until)
{
    long long cur = from;
    while (q->n > 0) {
        int i = q->head;
        long long s = wr_queue_at(q, cur, i);
        if (until >= 0 && s >= until) break;
        wr_queue_start(q, s);
        long long used = until < 0 ? q->b[i].cyc : mx_llmin(q->b[i].cyc, until - s);
        q->b[i].cyc -= used;
        dram_busy(q, s, s + used, q->b[i].ranks);
        cur = s + used;
        q->last_end = cur;
        q->last_lat = q->b[i].lat;
        q->last_block = q->b[i].block;
        q->last_blk_row = q->b[i].blk_row;
        q->last_mi = q->b[i].mi;
        q->last_ni = q->b[i].ni;
        q->last_cls = q->b[i].cls;
        if (q->b[i].cyc > 0) break;
        wr_queue_pop(q, cur);
    }
    return cur;
}

/* Channel cycles to move `bytes`: the configured bandwidth, or with a DRAM
 * preset the calibrated sustained read / write bandwidth. */
static long long dram_cycles(const mx_arch_config *c, long long bytes, int is_write)
{
    if (bytes <= 0) return 0;
    double bw = c->dram_bytes_per_cycle;
    if (c->dram_model && c->dram_cal.valid)
        bw = is_write ? c->dram_cal.write_bytes_per_cycle : c->dram_cal.read_bytes_per_cycle;
    return (long long)ceil((double)bytes / bw);
}

static int dram_latency(const mx_arch_config *c)
{
    return c->dram_model && c->dram_cal.valid ? c->dram_cal.latency : c->dram_latency;
}

/* The bandwidth channel (no DRAM model, mx_cycle.c's simple port): the
 * cycles of transfers it queues ahead (its window), and what a stream of
 * reads leaves of the window to writes: the DMA keeps at most MX_CHAN_RING
 * reads outstanding, which span the latency and what is queued ahead. */
static double chan_window(const mx_arch_config *c)
{
    return (double)(MX_CHAN_WINDOW_BURSTS * MX_CHAN_BURST_BYTES) / c->dram_bytes_per_cycle;
}

static double chan_ring(const mx_arch_config *c)
{
    return (double)(MX_CHAN_RING * MX_CHAN_BURST_BYTES) / c->dram_bytes_per_cycle;
}

/* Cycles from a read's CAS to its last data (AL + CL + BL/2 clocks). */
static long long read_lag(const mx_arch_config *c)
{
    const mx_dram_config *d = &c->dram;
    return (long long)ceil((double)(d->t.AL + d->t.CL + d->BL / 2) * d->tCK_ns * c->clock_ghz);
}

/* The engines read a GEMM's phase only in mx_arch_train_copies, and only
 * where this holds (1-D blocks, copies on): elsewhere a dgrad or wgrad row
 * times as the fwd row of its shape (mx_arch_gemm_timing_memo keys on it). */
static int phase_counts(const mx_arch_config *c) { return c->train_requant && c->tile_rows == 0; }

/* Training second quantized copies (SPEC §4): counters into s; returns the
 * bytes written to DRAM for them. */
long long mx_arch_train_copies(const mx_arch_config *c, const mx_gemm *g, const mx_operand_fmt *fa,
                               const mx_operand_fmt *fb, mx_stats *s)
{
    long long extra_bytes = 0;
    const long long M = g->M, N = g->N, K = g->K;
    if (phase_counts(c)) {
        if (g->phase == MX_PHASE_DGRAD && fb->is_mx) { /* W^T: W was blocked along its other axis */
            s->requant_elements += K * N;
            s->requant_copies += 1;
            long long b = mx_arch_tile_bytes(K, N, fb->bits_per_elem);
            s->dram_write[MX_OP_B] += b;
            extra_bytes += b;
        }
        if (g->phase == MX_PHASE_WGRAD) {
            if (fa->is_mx) { /* X^T: X was blocked along features, needed along tokens */
                s->requant_elements += M * K;
                s->requant_copies += 1;
                long long b = mx_arch_tile_bytes(M, K, fa->bits_per_elem);
                s->dram_write[MX_OP_A] += b;
                extra_bytes += b;
            }
            if (fb->is_mx) { /* dY: blocked along outputs for dgrad, needed along tokens */
                s->requant_elements += K * N;
                s->requant_copies += 1;
                long long b = mx_arch_tile_bytes(K, N, fb->bits_per_elem);
                s->dram_write[MX_OP_B] += b;
                extra_bytes += b;
            }
        }
    }
    return extra_bytes;
}

/* The GEMM-level counters both engines fill the same way: tiles, mapping,
 * MACs, PE steps, scale adds, exponent-add bits, RQU elements, multiplies. */
void mx_arch_gemm_counts(const mx_arch_config *c, const mx_operand_fmt *fa, const mx_operand_fmt *fb,
                         const mx_gemm *g, const mx_tiling *tl, mx_stats *s)
{
    const long long M = g->M, N = g->N, K = g->K;
    s->tiles = tl->m_tiles * tl->n_tiles * tl->k_tiles;
    s->map = (mx_tiling_shape){tl->mt, tl->nt, tl->kt, tl->n_outer, tl->double_buffer};
    s->macs = M * N * K;
    s->pe_steps = M * N * mx_cdiv(K, c->lanes);
    s->scale_adds = (fa->is_mx || fb->is_mx) ? s->pe_steps : 0;
    s->exp_add_bits = (double)s->macs * (fa->exp_bits > fb->exp_bits ? fa->exp_bits : fb->exp_bits);
    s->rqu_elements = M * N + s->requant_elements;
    mx_arch_count_muls(c, fa, fb, (double)s->macs, s);
}

/* SRAM and fold counters of one tile, added into *t. */
typedef struct {
    long long folds;
    long long sram_read[MX_NOPS], sram_write[MX_NOPS], dram_read[MX_NOPS], dram_write[MX_NOPS];
} tile_ctr;

static void tile_ctr_add(mx_stats *s, const tile_ctr *t)
{
    s->folds += t->folds;
    for (int i = 0; i < MX_NOPS; i++) {
        s->sram_read[i] += t->sram_read[i];
        s->sram_write[i] += t->sram_write[i];
        s->dram_read[i] += t->dram_read[i];
        s->dram_write[i] += t->dram_write[i];
    }
}

static long long tile_counts(const mx_arch_config *c, const mx_operand_fmt *fa, const mx_operand_fmt *fb,
                             const mx_operand_fmt *fo, long long m, long long n, long long k, int readback,
                             int last_k, tile_ctr *s)
{
    long long sr, sc, tt;
    mx_fold_geometry(c, m, n, k, &sr, &sc, &tt);
    long long nrf = mx_cdiv(sr, c->rows), ncf = mx_cdiv(sc, c->cols);
    s->folds += nrf * ncf;
    long long abytes = mx_arch_tile_bytes(m, k, fa->bits_per_elem);
    long long bbytes = mx_arch_tile_bytes(k, n, fb->bits_per_elem);
    switch (c->dataflow) {
    case MX_DATAFLOW_OS: /* both operands stream: A once per column fold */
        s->sram_read[MX_OP_A] += abytes * ncf;
        s->sram_read[MX_OP_B] += bbytes * nrf;
        break;
    case MX_DATAFLOW_WS: /* B stationary: read once; A streams per column fold */
        s->sram_read[MX_OP_A] += abytes * ncf;
        s->sram_read[MX_OP_B] += bbytes;
        break;
    case MX_DATAFLOW_IS: /* A stationary: read once; B streams per column fold */
        s->sram_read[MX_OP_A] += abytes;
        s->sram_read[MX_OP_B] += bbytes * ncf;
        break;
    }
    s->sram_write[MX_OP_OUT] += m * n * 4;          /* FP32 (partial) sums */
    if (readback) s->sram_read[MX_OP_OUT] += m * n * 4; /* partial sums back in */
    long long store = 0;
    if (last_k) {
        s->sram_read[MX_OP_OUT] += m * n * 4; /* to the RQU */
        store = mx_arch_tile_bytes(m, n, fo->bits_per_elem);
        s->dram_write[MX_OP_OUT] += store;
    }
    return store;
}

/* SRAM and fold counters of one tile (both engines): operand reads into the
 * array, partial sums written (and read back when not the first K tile),
 * outputs read by the RQU after the last K tile.  Returns the bytes the
 * tile stores to DRAM (its finished outputs, 0 if not the last K tile). */
long long mx_arch_tile_counts(const mx_arch_config *c, const mx_operand_fmt *fa,
                          const mx_operand_fmt *fb, const mx_operand_fmt *fo, long long m,
                          long long n, long long k, int readback, int last_k, mx_stats *s)
{
    tile_ctr t;
    memset(&t, 0, sizeof t);
    long long store = tile_counts(c, fa, fb, fo, m, n, k, readback, last_k, &t);
    tile_ctr_add(s, &t);
    return store;
}

static int gemm_overflow(const mx_gemm *g, char *err, size_t errlen)
{
    return mx_fail(err, errlen, "GEMM '%s' (line %d, %lldx%lldx%lld): its counters overflow 64 bits", g->name,
                   g->line, g->M, g->N, g->K);
}

/* analytic_tiled's return as the public functions report it. */
static int analytic_result(int rc, const mx_gemm *g, char *err, size_t errlen)
{
    if (rc == ANALYTIC_PROBE_FAILED)
        return mx_fail(err, errlen, "GEMM '%s' (line %d, %lldx%lldx%lld): a DRAM probe of the analytic engine "
                       "failed (internal error)", g->name, g->line, g->M, g->N, g->K);
    return rc != 0 ? gemm_overflow(g, err, errlen) : 0;
}

int mx_arch_gemm_formats(const mx_arch_config *c, const mx_gemm *g, mx_operand_fmt *fa,
                         mx_operand_fmt *fb, mx_operand_fmt *fo, char *err, size_t errlen)
{
    /* One policy for what the model can count: extents up to 2^48 (tile
     * arithmetic rounds them up to array multiples) and M*N*K plus the
     * operand and output element counts in 64 bits; the walk's own sums are
     * checked where they grow (walk_jump). */
    long long mnk, mn, mk, kn, sum, bytes;
    if (g->M < 1 || g->N < 1 || g->K < 1 || g->M > MX_ARCH_DIM_MAX || g->N > MX_ARCH_DIM_MAX ||
        g->K > MX_ARCH_DIM_MAX)
        return mx_fail(err, errlen, "GEMM '%s' (line %d): M, N and K must be 1..%lld, got %lldx%lldx%lld", g->name,
                       g->line, (long long)MX_ARCH_DIM_MAX, g->M, g->N, g->K);
    if (__builtin_mul_overflow(g->M, g->N, &mn) || __builtin_mul_overflow(mn, g->K, &mnk) ||
        __builtin_mul_overflow(g->M, g->K, &mk) || __builtin_mul_overflow(g->K, g->N, &kn) ||
        __builtin_add_overflow(mn, mk, &sum) || __builtin_add_overflow(sum, kn, &sum) || /* RQU elements */
        __builtin_mul_overflow(mn, (long long)4, &bytes))                                /* FP32 sums    */
        return gemm_overflow(g, err, errlen);
    const char *an = g->a_format[0] ? g->a_format : c->a_format;
    const char *bn = g->b_format[0] ? g->b_format : c->b_format;
    if (mx_operand_fmt_resolve(c, an, fa) != 0)
        return mx_fail(err, errlen, "GEMM '%s' (line %d): unknown A format '%s'", g->name, g->line, an);
    if (mx_operand_fmt_resolve(c, bn, fb) != 0)
        return mx_fail(err, errlen, "GEMM '%s' (line %d): unknown B format '%s'", g->name, g->line, bn);
    if (mx_operand_fmt_resolve(c, c->out_format, fo) != 0)
        return mx_fail(err, errlen, "unknown output format '%s'", c->out_format);
    if ((fa->is_mx || fb->is_mx) && k_extent_of_block(c) % c->lanes != 0)
        return mx_fail(err, errlen, "GEMM '%s': lanes do not divide the block", g->name);
    if (c->dram_preset[0] && !c->dram_model) /* a caller that skipped mx_config_dram would time the wrong memory */
        return mx_fail(err, errlen, "key 'memory.dram': DRAM '%s' named but not loaded", c->dram_preset);
    return 0;
}

/* The row's totals are s's counters times its count: they must fit too. */
static int row_fits(const mx_gemm *g, const mx_stats *s, char *err, size_t errlen)
{
    mx_stats probe;
    memset(&probe, 0, sizeof probe);
    mx_stats_add(&probe, s, g->count > 0 ? g->count : 1);
    if (probe.overflow) return gemm_overflow(g, err, errlen);
    return 0;
}

int mx_arch_gemm_timing(const mx_arch_config *c, const mx_gemm *g, mx_stats *s, char *err,
                        size_t errlen)
{
    int rc = c->engine == MX_ENGINE_CYCLE ? mx_arch_gemm_cycle(c, g, s, err, errlen)
                                          : mx_arch_gemm_analytic(c, g, s, err, errlen);
    if (rc != 0) return rc;
    return row_fits(g, s, err, errlen);
}

void mx_gemm_memo_free(mx_gemm_memo *m)
{
    free(m->e);
    memset(m, 0, sizeof *m);
}

int mx_arch_gemm_timing_memo(const mx_arch_config *c, mx_gemm_memo *m, const mx_gemm *g, mx_stats *s,
                             char *err, size_t errlen)
{
    if (!m) return mx_arch_gemm_timing(c, g, s, err, errlen);
    if (!m->have_cfg || memcmp(&m->cfg, c, sizeof *c) != 0) {
        memcpy(&m->cfg, c, sizeof *c); /* memcpy: the padding too, for memcmp */
        m->have_cfg = 1;
        m->n = 0;
    }
    /* the phase only where it counts: BERT-base's fwd and dgrad rows share
     * shapes (ffn.up fwd is ffn.down dgrad) */
    const mx_phase ph = phase_counts(c) ? g->phase : MX_PHASE_FWD;
    /* a linear search: traces have hundreds of rows, a GEMM takes ~10 ms */
    for (size_t i = 0; i < m->n; i++) {
        const struct mx_gemm_memo_entry *e = &m->e[i];
        if (e->M == g->M && e->N == g->N && e->K == g->K && e->phase == ph &&
            strcmp(e->a_format, g->a_format) == 0 && strcmp(e->b_format, g->b_format) == 0) {
            *s = e->s;
            return row_fits(g, s, err, errlen);
        }
    }
    const int rc = mx_arch_gemm_timing(c, g, s, err, errlen);
    if (rc != 0) return rc;
    if (m->n == m->cap) { /* out of memory: no entry, the result stands */
        const size_t cap = m->cap ? 2 * m->cap : 16;
        struct mx_gemm_memo_entry *e = realloc(m->e, cap * sizeof *e);
        if (!e) return 0;
        m->e = e;
        m->cap = cap;
    }
    struct mx_gemm_memo_entry *e = &m->e[m->n++];
    e->M = g->M;
    e->N = g->N;
    e->K = g->K;
    e->phase = ph;
    snprintf(e->a_format, sizeof e->a_format, "%s", g->a_format);
    snprintf(e->b_format, sizeof e->b_format, "%s", g->b_format);
    e->s = *s;
    return 0;
}

int mx_arch_gemm_analytic(const mx_arch_config *c, const mx_gemm *g, mx_stats *s, char *err,
                          size_t errlen)
{
    memset(s, 0, sizeof *s);
    mx_operand_fmt fa, fb, fo;
    if (mx_arch_gemm_formats(c, g, &fa, &fb, &fo, err, errlen) != 0) return -1;
    const long long M = g->M, N = g->N, K = g->K;
    mx_tiling tl;
    if (mx_arch_tiling(c, &fa, &fb, M, N, K, &tl, err, errlen) != 0) return -1;
    return analytic_result(analytic_tiled(c, g, &fa, &fb, &fo, &tl, s), g, err, errlen);
}

int mx_arch_analytic_outside_validation(const mx_arch_config *c, double *min_kib)
{
    double m = c->sram[0].kib;
    for (int k = 1; k < MX_NOPS; k++) m = c->sram[k].kib < m ? c->sram[k].kib : m;
    if (min_kib) *min_kib = m;
    return c->engine == MX_ENGINE_ANALYTIC && c->dram_model && !c->ideal_memory && m < MX_ANALYTIC_VALIDATED_KIB;
}

int mx_arch_gemm_mapped(const mx_arch_config *c, const mx_gemm *g, const mx_tiling *tl, mx_stats *s,
                        char *err, size_t errlen)
{
    mx_operand_fmt fa, fb, fo;
    if (mx_arch_gemm_formats(c, g, &fa, &fb, &fo, err, errlen) != 0) return -1;
    return analytic_result(analytic_tiled(c, g, &fa, &fb, &fo, tl, s), g, err, errlen);
}

/* Probes of one GEMM's transfers, by shape class (edge or not in m, n, k) and
 * kind (A and/or B load, store). */
#define PROBE_SIG_MAX 256
typedef struct {
    int have[2][2][2][8];
    mx_tile_probe p[2][2][2][8];
    /* by address signature too (mx_cycle_xfer_sig): tiles of one shape
     * class at other bank / row phases */
    struct { uint64_t sig; int cls; mx_tile_probe p; } sp[PROBE_SIG_MAX];
    int nsp;
    int by_sig; /* set for GEMMs of at most PROBE_SIG_TILES tiles (walked without jumps) */
    int class_only; /* but not where the replay times every load (walk_ctx.lite) */
    int failed; /* a probe returned an error (a DRAM model bug): the walk fails */
} probe_memo;
/* Tile phases matter where few tiles leave no room for them to average
 * out; up to this many tiles a GEMM is walked tile by tile (a jump assumes
 * every tile of a shape class takes its class's time). */
#define PROBE_SIG_TILES 32
#define DRAIN_FLOOR_BURSTS 1024 /* drain_floor's probe: at most this many bursts */
/* A load's replay (replay_at) up to this many bursts: twice the final
 * drain's bound.  A load's time comes from the transfers before it and its
 * own, which the walk offered on time; the final drain's replay also takes
 * the held stores as the walk offered them, late where its held-store rules
 * are (seeds 14..19: the loads' bound at 2,048 lowers every mean, the final
 * drain's raises the max 8.18% -> 10.49%; docs/DECISIONS.md, issue 13,
 * stop 32).  The analytic engine's speed is unchanged (BERT-base on HBM2). */
#define REPLAY_LOAD_BURSTS 2048
/* The final drain's replay up to this many bursts where no store was held
 * for a full write queue (walk_state.held_store): every store was then
 * offered when its codes were ready, as the cycle engine's DMA offers it,
 * so the replay inherits no late offer (seeds 13..19 and 26..45: every
 * mean falls, no maximum moves; DECISIONS, issue 13, stop 32).  Else
 * DRAIN_FLOOR_BURSTS: a held store's late offer broke seed 18 DDR4 32x32
 * os MXSF 626x128x16 at 2,048 (+4.94% -> +10.49%).  Also the bound on a
 * whole GEMM's bursts for its stores to be freed by the replay
 * (walk_ctx.replay_all), whose held stores are then offered on time. */
#define FINAL_DRAIN_BURSTS 16384
/* Whole GEMMs replayed (walk_ctx.replay_all): up to this many tiles and
 * bursts.  The replay is carried along the walk (mx_probe_replay: each
 * query runs only what follows its base), so its cost is a few DRAM
 * simulations of the GEMM, not one per query.  65,536 bursts (16,384
 * before): every mean falls, no maximum rises, ResNet-50's analytic step
 * unchanged; 1M: the same aggregates within 0.002 points, ResNet-50 0.59 s
 * -> 0.75 s.  Tiles: up to CHAIN_TILES (the walk records its transfers
 * that far anyway), with the loads of GEMMs over PROBE_SIG_TILES replayed
 * too (walk_load): held-out 46..51 0.168% / 15.42% / 4 over 10% -> 0.090%
 * / 14.39% / 1; raised to 64 or 256 without the loads the held-out max
 * rose to 18.33% (DECISIONS, issue 13, stop 33).  2^18 bursts (stop 34):
 * with the probes skipped there (walk_ctx.lite) and the energy from the
 * replay, the replay is the cheaper way to time a GEMM of up to 256 tiles:
 * ResNet-50's analytic step 0.59 -> 0.45 s on HBM2, 50 studied rows better,
 * none worse; 2^20 took 2048x576x4096 on DDR4 (256 tiles) from 21 to
 * 70 ms (the cycle engine: 34 ms).  -D for experiments. */
#ifndef REPLAY_ALL_TILES
#define REPLAY_ALL_TILES 256
#endif
#ifndef REPLAY_ALL_BURSTS
#define REPLAY_ALL_BURSTS (1LL << 18)
#endif
/* ... and on the bandwidth channel, whose replay steps mx_chan (far cheaper
 * a request than the DRAM model): 2^20 requests.  2^18 left fresh seed 54's
 * 32x32 os BF16 635x1376x1376 to the rules (-13.9%; exact at 2^20), for
 * ResNet-50's analytic step on the channel 0.06 s against 0.17 s at 2^20
 * (the cycle engine's: 0.31 s; DECISIONS, issue 13, stop 34). */
#ifndef CHAN_REPLAY_BURSTS
#define CHAN_REPLAY_BURSTS (1LL << 20)
#endif
/* Up to this many tiles the walk records every transfer for their command
 * energy as one sequence (walk_chain_pj) and so goes without jumps. */
#define CHAIN_TILES 256
/* ... and up to this many bursts in all: the sequence is a DRAM simulation
 * of the whole GEMM (BERT-base's analytic step 0.47 s -> 0.95 s without this
 * bound, 0.63 s with it; the validation sets' aggregates unchanged) */
#define CHAIN_BURSTS_MAX (1LL << 18)
/* replay_all with a DRAM model: the DRAM commands, REFs and energy from the
 * final drain's replay (walk_finish), and the walk without the probes the
 * replay overrides (walk_ctx.lite).  -D...=0 for experiments. */
#ifndef CMDS_FROM_REPLAY
#define CMDS_FROM_REPLAY 1
#endif
#ifndef REPLAY_LITE
#define REPLAY_LITE 1
#endif

static const mx_tile_probe *probe_get(probe_memo *pm, const mx_arch_config *c, const mx_operand_fmt *fa,
                                      const mx_operand_fmt *fb, const mx_operand_fmt *fo, const mx_gemm *g,
                                      const mx_tiling *tl, long long mi, long long ni, long long ki,
                                      long long m, long long n, long long k, int what)
{
    int em = mi == tl->m_tiles - 1, en = ni == tl->n_tiles - 1, ek = ki == tl->k_tiles - 1;
    if (what == MX_PROBE_STORE) ek = 0;
    const mx_probe_xfer f = {mi * tl->mt, m, ni * tl->nt, n, what == MX_PROBE_STORE ? 0 : ki * tl->kt,
                             what == MX_PROBE_STORE ? 0 : k, what, 0, 0};
    if (pm->by_sig && !pm->class_only && pm->have[em][en][ek][what]) {
        /* the class's probe, or this tile's own when its bursts fall on
         * other banks or rows (its address phase) */
        const uint64_t sig = mx_cycle_xfer_sig(c, fa, fb, fo, g->M, g->N, g->K, &f);
        const int cls = ((em * 2 + en) * 2 + ek) * 8 + what;
        if (sig == pm->p[em][en][ek][what].sig) return &pm->p[em][en][ek][what];
        for (int i = 0; i < pm->nsp; i++)
            if (pm->sp[i].sig == sig && pm->sp[i].cls == cls) return &pm->sp[i].p;
        if (pm->nsp < PROBE_SIG_MAX) {
            mx_tile_probe *q = &pm->sp[pm->nsp].p;
            if (mx_cycle_probe_tile(c, fa, fb, fo, g->M, g->N, g->K, f.r0, m, f.n0, n, f.k0, f.k, what, q) != 0) {
                pm->failed = 1;
                return NULL;
            }
            q->sig = sig;
            pm->sp[pm->nsp].sig = sig;
            pm->sp[pm->nsp++].cls = cls;
            return q;
        }
    }
    if (!pm->have[em][en][ek][what]) {
        mx_tile_probe *p = &pm->p[em][en][ek][what];
        if (mx_cycle_probe_tile(c, fa, fb, fo, g->M, g->N, g->K, f.r0, m, f.n0, n, f.k0, f.k, what, p) != 0) {
            pm->failed = 1;
            return NULL;
        }
        p->sig = pm->by_sig && !pm->class_only ? mx_cycle_xfer_sig(c, fa, fb, fo, g->M, g->N, g->K, &f) : 0;
        pm->have[em][en][ek][what] = 1;
    }
    return &pm->p[em][en][ek][what];
}

/* ---- the analytic engine's tile walk -------------------------------------
 *
 * One step per tile in loop order (docs/ARCH.md "Analytic engine").  The
 * walk is a deterministic system whose next state depends only on its state
 * relative to the compute end of the last tile: once the relative state at
 * the start of an iteration of some loop level repeats with period P (P <= 4
 * iterations of identical tile shapes), every later iteration of that level
 * but the edge one repeats it exactly, so the walk jumps over whole periods,
 * adding the period's time and counter deltas (mx_walk_jump).  Cost then
 * follows the distinct tile shapes and the transient, not the tile count,
 * and the result is the one the full walk gives (test_analytic_ff.cpp
 * compares both, counter by counter). */

/* The DRAM's refresh as the analytic engine charges it (mx_dram.c: rank r
 * of every channel refreshes all its banks at (r + 1) tREFI / ranks and
 * then every tREFI, for tRFC), in accelerator cycles; on = 0 without a DRAM
 * model or refresh. */
typedef struct {
    int on;
    double first, share; /* first REF due; tRFC / tREFI */
    double step, rfc;    /* tREFI / ranks between REFs; tRFC */
    double exact_end;    /* loads: first-round REFs placed exactly before, expectation after */
    int ranks, channels;
} ref_sched;

/* Rank r of every channel in a transfer's rank mask (bit channel * ranks +
 * rank, as mx_cycle_xfer_ranks). */
static uint64_t rank_bits(const ref_sched *rs, int r)
{
    uint64_t m = 0;
    for (int ch = 0; ch < rs->channels && ch * rs->ranks + r < 64; ch++) m |= 1ull << (ch * rs->ranks + r);
    return m;
}

static ref_sched ref_sched_of(const mx_arch_config *c, int use_probes)
{
    ref_sched r = {0, 0, 0, 0, 0, 0, 0, 0};
    if (!use_probes || !c->dram.refresh) return r;
    const double ratio = c->dram.tCK_ns * c->clock_ghz;
    r.on = 1;
    r.first = (double)(c->dram.t.tREFI / c->dram.ranks) * ratio;
    r.share = (double)c->dram.t.tRFC / (double)c->dram.t.tREFI;
    r.step = r.first;
    r.rfc = (double)c->dram.t.tRFC * ratio;
    r.ranks = c->dram.ranks;
    r.channels = c->dram.channels;
    r.exact_end = r.step * (r.ranks + 0.5);
    return r;
}

/* Cycles a transfer occupying the DRAM over [start, start + len) and
 * touching `ranks` (bit channel * ranks + rank) loses to refresh.  A store
 * (used NULL: its drain is not on this timeline) in expectation from the
 * first REF, as below.  A load: the first round of REFs (rank r at (r + 1)
 * tREFI / ranks, the last at tREFI) is placed where the cycle engine's
 * falls: one due inside the load on a rank it reads holds that rank's
 * bursts for all of tRFC (the controller closes the rank's banks and
 * serves no request of it until the REF ends); charged once (*used), and
 * not to a load whose own probe, from an idle DRAM, already ran into it.
 * From half a step after tREFI on (the mean phase of the next REF), in
 * expectation: each rank holds its share (1 / ranks) of the transfer for
 * tRFC every tREFI, i.e. tRFC / tREFI of the transfer's length, a function
 * of len alone, so the walk's periods stay periods. */
static long long ref_delay(const ref_sched *rs, long long start, long long len, uint64_t ranks, uint64_t *used)
{
    if (!rs->on || len <= 0) return 0;
    double d = 0;
    if (!used) { /* a store: in expectation from the first REF */
        double after = (double)(start + len) - (start > rs->first ? (double)start : rs->first);
        return after > 0 ? llround(after * rs->share) : 0;
    }
    for (int r = 0; r < rs->ranks && r < 64 && (double)start < rs->exact_end; r++) {
        const uint64_t m = rank_bits(rs, r);
        if (!(ranks & m) || (*used >> r & 1)) continue;
        const double due = rs->step * (r + 1);
        if ((double)len >= rs->first && due < (double)(start + len)) { /* its probe (from an idle DRAM) had a REF */
            *used |= 1ull << r;
            continue;
        }
        if (due < (double)start || due >= (double)(start + len)) continue;
        d += rs->rfc;
        *used |= 1ull << r;
    }
    double after = (double)(start + len) - (start > rs->exact_end ? (double)start : rs->exact_end);
    if (after > 0) d += after * rs->share;
    return llround(d); /* nearest: no bias over many short transfers */
}

/* tRFC for every REF due in [start, end) on the ranks a transfer touches
 * (bit channel * ranks + rank), at its exact phase: rank r at (r + 1) tREFI
 * / ranks, then every tREFI.  Shared by the ranks it reads: a REF holds only
 * its own rank's bursts (LPDDR4's 2 ranks: the full tRFC put 8x8 os BF16
 * 64x2003x576 at +16%). */
static long long ref_exact(const ref_sched *rs, long long start, long long end, uint64_t ranks)
{
    if (!rs->on) return 0;
    double d = 0;
    int n = 0;
    for (int r = 0; r < rs->ranks && r < 64; r++) {
        const uint64_t m = rank_bits(rs, r);
        if (!(ranks & m)) continue;
        n++;
        /* from the first REF due at or after start: a long GEMM has many */
        const double first = rs->step * (r + 1), per = rs->step * rs->ranks;
        const double k0 = (double)start > first ? floor(((double)start - first) / per) : 0;
        for (double due = first + k0 * per; due < (double)end; due += per)
            if (due >= (double)start) d += rs->rfc;
    }
    return n > 0 ? llround(d / n) : 0;
}

/* The ids of the A tile (m, k) and the B tile (k, n) of tile (mi, ni, ki):
 * a tile equal to the previous one's stays resident. */
static void tile_ids(const mx_tiling *tl, long long mi, long long ni, long long ki, long long *a, long long *b)
{
    *a = mi * tl->k_tiles + ki;
    *b = ki * tl->n_tiles + ni;
}

/* A tile transfer: the tile and what it moves (MX_PROBE_*; a store's ki is 0). */
typedef struct {
    long long mi, ni, ki;
    int what;
} xfer_ref;

/* Everything the walk carries from tile to tile. */
typedef struct {
    long long end1, end2;              /* compute end of tiles t-1, t-2      */
    long long dram_free;               /* DRAM busy with reads until         */
    long long rqu_free, last_avail;
    long long oidx, t;
    wr_queue wq;                       /* output writes waiting for DRAM     */
    xfer_ref ld;                       /* the last load                      */
    long long res_at, res_len;         /* channel time reserved for the next load (0: none) */
    int held_store;                    /* a store was held for a full write queue (hold) */
    int st_ci[2];                      /* replay_all: chain index + 1 of each output half's last store (0: none) */
    double chan_cyc[2];                /* the channel: a store's cycles whose half waits for its last request (0: none) */
    long long chan_avail[2];           /* and when it was ready */
    long long gap_cap;                 /* after_at_gap: no gap longer matters (constant)  */
    int ld_cls;                        /* its class (-1 none)                */
    int ld_behind_st;                  /* it was timed behind a draining store */
    long long ovt_next;                /* the next load, served with the last one: its data in then (-1: none) */
    /* counters */
    long long sram_stall, dram_stall, pure_compute, rqu_stall, probe_act;
    long long probe_rd, probe_wr;      /* RD and WR commands in probe_pj (exact_traffic) */
    double probe_pj;
    tile_ctr ctr;
    uint64_t ref_used; /* first-round REFs already charged to a load (ref_delay) */
} walk_state;

/* The state relative to the last compute end, with values that can no
 * longer matter clamped (a free time before every time it is compared
 * with acts as that time), so that equal vectors mean equal futures. */
#define WALK_KEY_MAX (32 + 12 * WR_QUEUE_MAX) /* walk_key_of's fixed entries, then 12 a queued store */
typedef struct {
    int n;
    long long v[WALK_KEY_MAX];
} walk_key;

static void walk_key_of(const walk_state *w, int double_buffer, walk_key *k)
{
    const long long b = w->end1;
    long long floor_dram = double_buffer ? w->end2 : w->end1; /* the next load waits for this anyway */
    for (int i = 0; i < w->wq.n; i++) floor_dram = mx_llmin(floor_dram, w->wq.b[(w->wq.head + i) % WR_QUEUE_MAX].t);
    int n = 0;
    k->v[n++] = w->end2 - b;
    k->v[n++] = mx_llmax(w->dram_free, floor_dram) - b;
    k->v[n++] = mx_llmax(w->rqu_free, b) - b;  /* used as max(compute end, rqu_free) */
    k->v[n++] = mx_llmax(w->last_avail, b) - b;
    for (int h = 0; h < 2; h++) /* compared with a start >= end1; no time while held */
        k->v[n++] = w->wq.held[h] ? -1 : mx_llmax(w->wq.out_free[h], b) - b;
    k->v[n++] = w->oidx & 1;
    /* a store follows the last one only if it starts by its end; every start is >= dram_free */
    k->v[n++] = w->wq.last_end >= w->dram_free ? w->wq.last_end - b : LLONG_MIN;
    k->v[n++] = w->wq.last_cls; /* a load behind the last store is timed by their shape classes */
    k->v[n++] = w->ld_cls;
    k->v[n++] = w->wq.ld_end > w->wq.last_end;
    /* a load's issue end matters to what starts less than gap_cap after it
     * (after_at_gap); every start is >= floor_dram */
    k->v[n++] = w->wq.ld_issue < floor_dram - w->gap_cap ? LLONG_MIN : w->wq.ld_issue - b;
    k->v[n++] = w->wq.last_end >= w->dram_free ? w->wq.last_block : 0;
    k->v[n++] = w->wq.last_blk_row;
    k->v[n++] = w->wq.last_lat;
    k->v[n++] = w->res_len;
    for (int h = 0; h < 2; h++) { /* compared with a start >= end1 */
        k->v[n++] = w->chan_cyc[h] > 0 ? (long long)(w->chan_cyc[h] * 4096) : -1;
        k->v[n++] = w->chan_cyc[h] > 0 ? w->chan_avail[h] - b : 0;
    }
    k->v[n++] = w->res_len ? w->res_at - b : 0;
    k->v[n++] = w->wq.busy_end < 0 ? LLONG_MIN : w->wq.busy_end - b;
    k->v[n++] = (long long)(w->wq.touched >> 1); /* a new rank's first access is not periodic */
    k->v[n++] = (long long)(w->wq.touched & 1);
    k->v[n++] = w->wq.last_end >= w->dram_free ? mx_llmin(w->wq.drain_start, w->dram_free - 1) - b : LLONG_MIN;
    k->v[n++] = w->wq.last_end >= w->dram_free ? w->wq.last_start - b : LLONG_MIN; /* a follower's offset */
    k->v[n++] = w->wq.last_whole;
    k->v[n++] = w->ld_behind_st;
    k->v[n++] = w->ovt_next < 0 ? LLONG_MIN : w->ovt_next - b;
    k->v[n++] = w->wq.split_rest; /* a store queued behind a split drain's rest streams on behind it */
    k->v[n++] = w->wq.split_rest > 0 ? w->wq.split_rest_at - b : 0;
    k->v[n++] = w->wq.split_rest > 0 ? (w->wq.split_bursts * 65536 + w->wq.split_rest_bursts) * 2 + w->wq.split_short : 0;
    k->v[n++] = w->wq.n;
    for (int i = 0; i < w->wq.n; i++) {
        int j = (w->wq.head + i) % WR_QUEUE_MAX;
        k->v[n++] = w->wq.b[j].t - b;
        k->v[n++] = w->wq.b[j].cyc * 4 + w->wq.b[j].halves;
        k->v[n++] = w->wq.b[j].cyc_follow * 2 + w->wq.b[j].started;
        k->v[n++] = (long long)(uintptr_t)w->wq.b[j].ald; /* one memo entry: one future */
        k->v[n++] = w->wq.b[j].block * 4 + w->wq.b[j].blk_row * 2 + w->wq.b[j].ld_conf;
        k->v[n++] = w->wq.b[j].cyc_after_st;
        k->v[n++] = w->wq.b[j].lat;
        k->v[n++] = w->wq.b[j].lat_after_st;
        k->v[n++] = (long long)(w->wq.b[j].ranks >> 1) * 2 + (long long)(w->wq.b[j].ranks & 1);
        k->v[n++] = w->wq.b[j].bursts * 4 + w->wq.b[j].cls;
        k->v[n++] = w->wq.b[j].rest;
        k->v[n++] = w->wq.b[j].follow_base;
    }
    k->n = n;
}

static int walk_key_eq(const walk_key *a, const walk_key *b)
{
    return a->n == b->n && !memcmp(a->v, b->v, (size_t)a->n * sizeof a->v[0]);
}

/* *x += d * times; sets *ovf when that leaves 64 bits. */
static void add_times(long long *x, long long d, long long times, int *ovf)
{
    long long p;
    if (__builtin_mul_overflow(d, times, &p) || __builtin_add_overflow(*x, p, x)) *ovf = 1;
}

/* Adds `times` the difference (to - from) of the walk's counters and
 * times to *w (every absolute time moves by the period's time); -1 when a
 * counter would overflow 64 bits. */
static int walk_jump(walk_state *w, const walk_state *from, const walk_state *to, long long times)
{
    int ovf = 0;
    const long long d = to->end1 - from->end1;
    add_times(&w->end1, d, times, &ovf);
    add_times(&w->end2, d, times, &ovf);
    add_times(&w->dram_free, d, times, &ovf);
    add_times(&w->rqu_free, d, times, &ovf);
    add_times(&w->last_avail, d, times, &ovf);
    add_times(&w->wq.out_free[0], d, times, &ovf);
    add_times(&w->wq.out_free[1], d, times, &ovf);
    add_times(&w->wq.last_end, d, times, &ovf);
    add_times(&w->wq.last_start, d, times, &ovf);
    add_times(&w->wq.ld_end, d, times, &ovf);
    add_times(&w->wq.ld_issue, d, times, &ovf);
    if (w->res_len) add_times(&w->res_at, d, times, &ovf);
    if (w->ovt_next >= 0) add_times(&w->ovt_next, d, times, &ovf);
    for (int h = 0; h < 2; h++)
        if (w->chan_cyc[h] > 0) add_times(&w->chan_avail[h], d, times, &ovf);
    add_times(&w->wq.drain_start, d, times, &ovf);
    for (int i = 0; i < w->wq.n; i++) add_times(&w->wq.b[(w->wq.head + i) % WR_QUEUE_MAX].t, d, times, &ovf);
#define JUMP(f) add_times(&w->f, to->f - from->f, times, &ovf)
    JUMP(oidx); JUMP(t);
    JUMP(sram_stall); JUMP(dram_stall); JUMP(pure_compute); JUMP(rqu_stall); JUMP(probe_act); JUMP(ctr.folds);
    JUMP(probe_rd); JUMP(probe_wr);
    for (int i = 0; i < MX_NOPS; i++) {
        JUMP(ctr.sram_read[i]); JUMP(ctr.sram_write[i]); JUMP(ctr.dram_read[i]); JUMP(ctr.dram_write[i]);
    }
#undef JUMP
    w->probe_pj += (to->probe_pj - from->probe_pj) * (double)times;
    w->wq.closed += (to->wq.closed - from->wq.closed) * (double)times;
    if (w->wq.busy_end >= 0) add_times(&w->wq.busy_end, d, times, &ovf);
    return ovf ? -1 : 0;
}

/* After a jump of d iterations of the level over tile coordinate `coord`
 * (0: m, 1: n, 2: k): the tiles the state names (queued stores, the last
 * store, the last load) move with it, as they would have in the full walk:
 * the DRAM probes of their transfers depend on where they are. */
static void walk_shift_tiles(walk_state *w, int coord, long long d)
{
    for (int i = 0; i < w->wq.n; i++) {
        const int j = (w->wq.head + i) % WR_QUEUE_MAX;
        if (coord == 0) w->wq.b[j].mi += d;
        if (coord == 1) w->wq.b[j].ni += d;
    }
    if (coord == 0) { w->wq.last_mi += d; w->ld.mi += d; }
    if (coord == 1) { w->wq.last_ni += d; w->ld.ni += d; }
    if (coord == 2) w->ld.ki += d;
}

/* Periodicity detector of one loop level: the keys at the start of its
 * last iterations, and the state saved when a period was seen. */
#define WALK_PERIOD_MAX 4
typedef struct {
    walk_key key[WALK_PERIOD_MAX + 1];
    long long at[WALK_PERIOD_MAX + 1]; /* iteration index of key[i], -1 none */
    int period;                        /* > 0: confirming this period        */
    long long confirm_at;              /* iteration at which to jump         */
    walk_state saved;                  /* state at confirm_at - period       */
} walk_ff;

static void walk_ff_reset(walk_ff *f)
{
    for (int i = 0; i <= WALK_PERIOD_MAX; i++) f->at[i] = -1;
    f->period = 0;
}

/* Called at the start of iteration x of a level whose iterations lo..hi
 * repeat the same tile shapes; may advance x over whole periods.  -1 when
 * the jump overflows a counter. */
static int walk_ff_step(walk_ff *f, walk_state *w, int double_buffer, long long *x, long long lo, long long hi,
                        const ref_sched *rs)
{
    if (*x < lo || *x > hi) return 0;
    if (f->period > 0 && *x == f->confirm_at) { /* one period after the match: jump */
        const int period = f->period;
        long long periods = (hi + 1 - *x) / period;
        walk_state before = *w;
        walk_ff_reset(f);
        if (periods > 0) {
            if (walk_jump(w, &f->saved, &before, periods) != 0) return -1;
            *x += periods * period;
        }
        return 0;
    }
    if (f->period > 0) return 0;
    /* before the expected refresh starts the walk is not time-invariant
     * (ref_delay): no state from then may found a period */
    if (rs->on && (double)w->end2 < rs->exact_end) return 0;
    walk_key k;
    walk_key_of(w, double_buffer, &k);
    int slot = (int)(*x % (WALK_PERIOD_MAX + 1));
    for (int p = 1; p <= WALK_PERIOD_MAX; p++) {
        int j = (int)((*x - p) % (WALK_PERIOD_MAX + 1));
        if (*x - p >= lo && f->at[j] == *x - p && walk_key_eq(&f->key[j], &k)) {
            f->period = p;
            f->confirm_at = *x + p; /* the counters of one whole period from here */
            f->saved = *w;
            break;
        }
    }
    f->key[slot] = k;
    f->at[slot] = *x;
    return 0;
}

/* Iterations of a level worth watching for periods. */
#define WALK_FF_MIN 8

/* REF commands of a GEMM lasting `cycles` from an idle DRAM: every rank of
 * every channel, rank r first due at (r + 1) * tREFI / ranks and then every
 * tREFI (mx_dram.c's staggered schedule), those due before the end; the
 * last store's data is in at wr_end cycles (-1: none) on ranks wr_ranks. */
static long long dram_refs(const mx_arch_config *c, long long cycles, uint64_t touched, long long wr_end,
                           uint64_t wr_ranks)
{
    const mx_dram_config *d = &c->dram;
    if (!d->refresh) return 0;
    const double ratio = d->tCK_ns * c->clock_ghz, end = (double)cycles / ratio;
    const long long step = d->t.tREFI / d->ranks, period = step * d->ranks;
    /* the last store's data is in at wr_end (-1: none left at the walk's
     * end): its last write was issued AL + CWL + BL/2 clocks before.  A REF
     * of a rank it writes falling due after that waits for the write's
     * recovery (tWR) and tRP, past the end; one due before it holds the
     * write and is issued (the cycle engine: LPDDR4 16x1451x25 ends at 4339
     * clocks, a REF due at 4317 or later is not issued, at 4316 it is) */
    const double w_data = (double)wr_end / ratio, w_issue = w_data - (d->t.AL + d->t.CWL + d->BL / 2);
    long long n = 0;
    for (int ch = 0; ch < d->channels; ch++)
        for (int r = 0; r < d->ranks; r++) {
            /* a REF waits for its rank's open banks to precharge: one that
             * falls due within tRP of the end is not issued (open page, a
             * rank the GEMM touched: its rows stay open) */
            const int open = d->page_policy != MX_PAGE_CLOSED && (touched >> ((ch * d->ranks + r) & 63) & 1);
            const double last = end - (open ? d->t.tRP : 0);
            const long long first = step * (r + 1);
            if ((double)first >= last) continue;
            long long k = (long long)ceil((last - (double)first) / (double)period);
            const double due = (double)(first + (k - 1) * period);
            const int wr_last = wr_end >= 0 && (wr_ranks >> ((ch * d->ranks + r) & 63) & 1);
            if (open && wr_last && due >= w_issue && fmax(due, w_data + d->t.tWR) + d->t.tRP >= end) k--;
            n += k;
        }
    return n;
}

/* Bytes the DMA moves for a transfer, in whole bursts (the cycle engine's
 * count), by shape class and kind like the probes; -1 in a slot: not yet. */
typedef struct {
    long long bursts[2][2][2][8];
    uint64_t burst;
} burst_memo;

static long long burst_bytes(burst_memo *bm, const mx_arch_config *c, const mx_operand_fmt *fa,
                             const mx_operand_fmt *fb, const mx_operand_fmt *fo, const mx_gemm *g,
                             const mx_tiling *tl, long long mi, long long ni, long long ki, long long m, long long n,
                             long long k, int what)
{
    int em = mi == tl->m_tiles - 1, en = ni == tl->n_tiles - 1, ek = ki == tl->k_tiles - 1;
    if (what == MX_PROBE_STORE) ek = 0;
    long long *b = &bm->bursts[em][en][ek][what];
    if (*b < 0)
        *b = mx_cycle_tile_bursts(c, fa, fb, fo, g->M, g->N, g->K, mi * tl->mt, m, ni * tl->nt, n, ki * tl->kt, k,
                                  what);
    return *b * (long long)bm->burst;
}

/* a transfer in walk_ctx's sequence (walk_chain_pj) */
typedef struct {
    long long t, end; /* issued (a load) or began draining (a store); its channel time's end */
    long long offer;  /* the DMA offered it (a load: the tile it waits for ended; a store: its
                         codes ready), for drain_floor */
    mx_probe_xfer f;
} chain_xfer;

#define FOLLOW_AT_MAX 256
#define CH_MEMO 64 /* probe_channels' memo (walk_ctx.ch_memo) */
typedef struct {
    mx_probe_xfer f;
    int full, valid;
    uint64_t mask;
} ch_entry;
#define FOLLOW_SAMPLES 4 /* output tile pairs averaged for a split rest's follower where the walk jumps */
#define OVERTAKE_MAX 256
/* What the analytic walk reads while it steps through the tiles of one GEMM
 * on one mapping: the GEMM, its formats and tiling, the distinct tile
 * shapes' compute cycles, and the memos of probes, bursts and SRAM stalls. */
typedef struct {
    const mx_arch_config *c;
    /* c without DRAM refresh: the probes of transfers timed against each
     * other (after_of, load_overtaken); the walk charges refresh on its own
     * timeline (ref_delay) */
    mx_arch_config c_noref;
    const mx_gemm *g;
    const mx_operand_fmt *fa, *fb, *fo;
    const mx_tiling *tl;
    long long ntiles;
    long long dims_m[2], dims_n[2], dims_k[2]; /* tile extents: [edge?] */
    long long shape_cyc[2][2][2];              /* compute cycles: [edge m][edge n][edge k] */
    long long shape_sram[2][2][2];             /* SRAM bank-conflict stalls, -1 not yet */
    double slow;                               /* SRAM demand stretch (fast cost) */
    int use_probes;   /* with a DRAM model, each distinct transfer is probed on it once */
    int sram_walk;    /* the bank model and output-half holds (not in the mapper's fast cost) */
    int burst_exact;  /* DRAM traffic in the DMA's whole bursts */
    ref_sched rs;
    int pair_on;             /* tiles 0 and 1 load together (mx_cycle_probe_pair) */
    mx_tile_probe pair[2];
    mx_probe_xfer pair_xf[2];
    long long follow[2][2][2][2]; /* a store's marginal cycles behind the previous
                                     one, by both shape classes; -1 not yet */
    struct { long long key, cyc; } follow_at[FOLLOW_AT_MAX]; /* the same, arriving later (store_follow_at) */
    int nfollow_at;
    struct { uint64_t key[2]; long long at, delay, next; } overtake[OVERTAKE_MAX]; /* load_overtaken's memo */
    struct { uint64_t key; long long cycles, first, end; } ovt_alone[OVERTAKE_MAX]; /* its loads' tails alone */
    int novt_alone;
    int novertake;
    long long after_store[2][4][2][2][2][4]; /* a load's behind a store: [class mean or
                                                the first pair][store class]
                                                [load edge m, n, k][what]; -1 not yet */
    after_probe after[64][64]; /* a transfer on a DRAM the previous one left idle: [prev][this] class */
    long long st_phase[2][2]; /* a store class's mean time alone over its tiles' address phases
                                 (store_phase_adj): [edge m][edge n]; -1 not yet */
    probe_memo pm;
    burst_memo bm;
    /* probe_channels' answers by transfer, direct-mapped: the walk asks for
     * one tile's channels up to four times (the load, the next load, a held
     * store's drain), each a walk over its bursts */
    ch_entry ch_memo[CH_MEMO];
    /* GEMMs of at most CHAIN_TILES tiles (chain_on, walked without jumps):
     * every transfer with the time it was issued or ready, for their command
     * energy as one sequence (walk_chain_pj); chain_n -1: not usable */
    chain_xfer *chain;
    int chain_on, chain_n, chain_max;
    /* every transfer of the GEMM fits the replay (REPLAY_ALL_TILES tiles,
     * REPLAY_ALL_BURSTS bursts in all): its stores' halves are freed, every load timed
     * and the final drain ended by the replay (walk_tile) */
    int replay_all;
    /* replay_all with a DRAM model: the replay times every load, output
     * half and the final drain, and its model gives the energy, so the walk
     * skips the probes whose answers only its own channel time would use
     * (tile, pair, after_of, load_after_store, load_overtaken probes: the
     * replay's inputs are the compute ends, which the replay's own answers
     * set; docs/DECISIONS.md, issue 13, stop 34) */
    int lite;
    /* replay_end's replays with the GEMM's REFs, carried along the walk
     * (mx_probe_replay): rp_xf, rp_t (DRAM clocks), rp_b (bursts so far)
     * for the chain's first rp_n transfers and the query's f, f2 */
    mx_probe_replay *rp;
    mx_probe_xfer *rp_xf;
    long long *rp_t, *rp_b, *rp_end, *rp_acc;
    int rp_n, rp_cap;
    long long rp_queries, rp_rebuilds; /* MX_REPLAY_CHECK's report */
    /* a query's copy (mx_probe_replay_query_keep: a load's query with the
     * next load, a release one transfer ahead of the chain), which ran on
     * with rp_keep_x offered at rp_keep_t as transfer rp_keep_i: the next
     * base where the walk records that transfer so, maybe behind stores
     * offered later (replay_incr) */
    mx_probe_replay *rp_keep;
    /* the base an adopted copy replaced: the base again where a transfer
     * the walk records later is offered before the copy's clock (a
     * release's copy runs to the store's accept, past later stores'
     * offers), instead of a rebuild from nothing */
    mx_probe_replay *rp_prev;
    mx_probe_xfer rp_keep_x;
    long long rp_keep_t;
    int rp_keep_i;
    /* replay_all: the final drain's replay keeps its DRAM model (rp_fin),
     * whose commands and energy are the GEMM's (walk_finish) */
    mx_dram *rp_fin;
    int rp_want_fin;
    double chain_extra_pj; /* second copies, per byte (not in the sequence) */
    /* second copies: bytes stored and elements re-quantized with each output
     * tile, the remainder with the last (as the cycle engine) */
    long long extra_per_out, extra_rem, rqu_extra_per_out, rqu_extra_rem;
} walk_ctx;

/* Bursts of a transfer that the one before or after it in a context probe
 * can see (after_of): the controller's queues hold 32 requests, so the
 * rows and timing a transfer meets are set well within this */
#define PROBE_EDGE 512

/* what of the first two loads taken together (pair_probe) */
#define XFER_PAIR 8
#define XFER_PAIR_CLS 63 /* above every other class: (4 + 2 + 1) * 8 + MX_PROBE_STORE */

static int xfer_cls(const mx_tiling *tl, const xfer_ref *r)
{
    if (r->what == XFER_PAIR) return XFER_PAIR_CLS;
    return ((r->mi == tl->m_tiles - 1) * 4 + (r->ni == tl->n_tiles - 1) * 2 +
            (r->what != MX_PROBE_STORE && r->ki == tl->k_tiles - 1)) * 8 + r->what;
}

/* The probe descriptor of a transfer: its tile's origin and extents (a
 * store has no K extent). */
static mx_probe_xfer xfer_of(const walk_ctx *x, const xfer_ref *r)
{
    const mx_tiling *tl = x->tl;
    const int st = r->what == MX_PROBE_STORE;
    return (mx_probe_xfer){r->mi * tl->mt, x->dims_m[r->mi == tl->m_tiles - 1], r->ni * tl->nt,
                           x->dims_n[r->ni == tl->n_tiles - 1], st ? 0 : r->ki * tl->kt,
                           st ? 0 : x->dims_k[r->ki == tl->k_tiles - 1], r->what, 0, 0};
}

/* Transfer f, issued (a load) or ready (a store) at t, into x's sequence. */
static void chain_add(walk_ctx *x, long long offer, long long t, long long end, const mx_probe_xfer *f)
{
    if (x->chain_n < 0) return;
    if (x->chain_n >= x->chain_max) { x->chain_n = -1; return; }
    x->chain[x->chain_n].t = t;
    x->chain[x->chain_n].end = end;
    x->chain[x->chain_n].offer = offer;
    x->chain[x->chain_n++].f = *f;
}

/* Where loads and the final drain are timed by the replay (replay_end) in
 * GEMMs walked tile by tile: with every DRAM model.  The replay has each
 * channel's own controller (HBM2: the walk's one channel time stood for
 * eight), the GEMM's REFs and the next load overtaking this one's last
 * bursts (issue 13, stop 32). */
static int chan_replay(const mx_arch_config *c) { return c->dram_model; }

/* The earliest a load offered at `at` (transfer f) has its data in: every
 * transfer of the walk so far, offered as the walk's timeline offered it
 * (a load when the tile it waits for ended, a store when its codes were
 * ready), and this load, run on one DRAM as the cycle engine's DMA issues
 * them (mx_cycle_probe_timed; no refresh: the walk places REFs).  Each
 * channel's controller drains the write queue once its own reads are done,
 * down to write_low, and a read arriving meanwhile waits for the last write
 * and the rows it left: HBM2 puts a small load's scale bursts in channel 0
 * with the stores while its data reads elsewhere, so the stores drain there
 * ahead of the next load, which the walk's one channel time does not see
 * (docs/DECISIONS.md, issue 13, stop 31).  GEMMs walked tile by tile, once
 * a store was offered, up to max_bursts bursts in all (DRAIN_FLOOR_BURSTS;
 * a load's replay with refresh: REPLAY_LOAD_BURSTS; the final drain's
 * where no store was held: FINAL_DRAIN_BURSTS; the replay
 * runs every transfer so far: the rows and tRAS the earlier ones left
 * decide when a channel's reads end); else 0.  f NULL: the last completion
 * of the transfers so far (walk_finish). */
/* ref: the replay with the GEMM's REFs at the cycle engine's phase (its own
 * clock from 0), for a time that replaces the walk's (its REFs with it: a
 * replay without them dropped LPDDR4 32x32 ws MXSF 97x464x10 to -12.6%);
 * drain_floor's floor keeps none (the walk places REFs).  f2 (offered at
 * at2): the next load, which the DMA issues behind f and whose row hits
 * the controller may serve ahead of f's last reads (DDR4 8x8 is MXSF
 * 1x661x16: load 2 in at 1,002 with load 3 in the replay, as in the cycle
 * engine, 842 without it).  acc >= 0: instead, when chain transfer acc's
 * last burst entered the controller (a store's output half is then free,
 * as the cycle engine's DMA frees it); 0 where not replayed. */
static void walk_replay_free(walk_ctx *x)
{
#ifdef MX_REPLAY_CHECK
    if (x->rp_queries) fprintf(stderr, "replay checked: %lld queries, %lld rebuilds, %d transfers\n", x->rp_queries, x->rp_rebuilds, x->rp_n);
    x->rp_queries = x->rp_rebuilds = 0;
#endif
    mx_probe_replay_free(x->rp);
    mx_probe_replay_free(x->rp_keep);
    mx_probe_replay_free(x->rp_prev);
    x->rp_keep = x->rp_prev = NULL;
    mx_dram_free(x->rp_fin);
    x->rp_fin = NULL;
    free(x->rp_xf);
    free(x->rp_t);
    free(x->rp_b);
    free(x->rp_end);
    free(x->rp_acc);
    x->rp = NULL;
    x->rp_xf = NULL;
    x->rp_t = x->rp_b = x->rp_end = x->rp_acc = NULL;
    x->rp_n = x->rp_cap = 0;
}

/* A query's copy kept (x->rp_keep, if any) with transfer i, its last,
 * as the query offered it. */
static void replay_keep_set(walk_ctx *x, int i)
{
    x->rp_keep_x = x->rp_xf[i];
    x->rp_keep_t = x->rp_t[i];
    x->rp_keep_i = i;
}

/* replay_end's incremental replay (ref): the base has the transfers of the
 * walk so far up to its clock; every transfer it has not (the chain's later
 * ones, f, f2) must be offered at or after that clock (then the base is
 * the from-scratch replay's state there), else the base is rebuilt from
 * nothing (mx_probe_replay_fits; the replay's _advance and _query check it
 * themselves too).  The base then runs up to the earliest offer of f, f2,
 * and the query runs from a copy of it.  The walk never rebuilds: the
 * offers it records only rise (a load's is the end of the tile two or one
 * before, a store's at least its own tile's end, and every bound the base
 * ran to is such a load's offer; no rebuild on seeds 13..45 in
 * MX_REPLAY_CHECK's count).  0 or -1. */
static int replay_incr(walk_ctx *x, int n, int want, int want_acc)
{
    const int nc = x->chain_n;
    /* a load's query: below */
    const int loadq = want == nc && !want_acc && x->replay_all && n == nc + 2 && x->rp_t[nc] <= x->rp_t[nc + 1];
    int adopted = 0; /* 1: the base knows this load query's own load too */
    if (x->rp_keep) {
        /* the query's copy is the base where the walk recorded its next
         * load as the query offered it (it ran that stretch already), past
         * stores the walk put before it, offered at or after the copy's
         * clock (the copy is the from-scratch replay's state for them too:
         * a kind's transfers are offered in order, loads and stores side by
         * side).  Indices below lim have their transfer now: the chain's and
         * a load query's own load. */
        const uint64_t now = mx_probe_replay_now(x->rp_keep);
        const int lim = nc + loadq;
        int p = x->rp_keep_i;
        while (p < lim && (x->rp_xf[p].what & MX_PROBE_STORE) && (uint64_t)mx_llmax(0, x->rp_t[p]) >= now) p++;
        if (p < lim) {
            const mx_probe_xfer *a = &x->rp_xf[p], *b = &x->rp_keep_x;
            if (x->rp_t[p] == x->rp_keep_t && a->r0 == b->r0 && a->m == b->m && a->n0 == b->n0 && a->n == b->n &&
                a->k0 == b->k0 && a->k == b->k && a->what == b->what && a->skip == b->skip && a->limit == b->limit &&
                mx_probe_replay_shift(x->rp_keep, x->rp_keep_i, p - x->rp_keep_i) == 0 &&
                mx_probe_replay_fits(x->rp_keep, x->rp_t, n)) {
                mx_probe_replay_free(x->rp_prev);
                x->rp_prev = x->rp;
                x->rp = x->rp_keep;
                adopted = p == nc;
            } else {
                mx_probe_replay_free(x->rp_keep);
            }
            x->rp_keep = NULL;
        }
    }
    if (x->rp) {
        /* an adopted copy may know this load's query's own load too */
        const int ok = mx_probe_replay_known(x->rp) <= nc + adopted &&
                       mx_probe_replay_fits(x->rp, x->rp_t, n);
        if (!ok) {
            mx_probe_replay_free(x->rp);
            x->rp = NULL;
            if (x->rp_prev && mx_probe_replay_known(x->rp_prev) <= nc && mx_probe_replay_fits(x->rp_prev, x->rp_t, n))
                x->rp = x->rp_prev;
            else {
                x->rp_rebuilds++;
                mx_probe_replay_free(x->rp_prev);
            }
            x->rp_prev = NULL;
        }
    }
    if (!x->rp) {
        const mx_probe_replay_in in = {x->c, x->fa, x->fb, x->fo, x->g->M, x->g->N, x->g->K};
        x->rp = mx_probe_replay_new(&in);
        if (!x->rp) return -1;
    }
    uint64_t until = mx_probe_replay_now(x->rp);
    if (loadq) {
        /* a load's query (replay_all: the walk records it next, at this
         * offer, and nothing after it offered before its data is in: the
         * stores that follow wait for it): the base takes it and runs until
         * its data is in or the next load is offered.  Done first, its end
         * is the base's, with no copy; else the copy runs only from the next
         * load's offer (the queries' copies re-ran each load, a fifth of
         * the analytic step on mid-size GEMMs; docs/DECISIONS.md, issue 13,
         * stop 34).  Only with a next load: without one the run waits for
         * every request in flight (stores too), past later stores' offers */
        const uint64_t u2 = (uint64_t)mx_llmax(0, x->rp_t[nc + 1]);
        long long e;
        const int rc = mx_probe_replay_advance_want(x->rp, x->rp_xf, x->rp_t, nc + 1, u2, nc, &e);
        if (rc < 0) {
            mx_probe_replay_free(x->rp);
            x->rp = NULL;
            return -1;
        }
        if (rc == 1) {
            x->rp_end[nc] = e;
            return 0;
        }
        mx_probe_replay_free(x->rp_keep);
        x->rp_keep = NULL;
        if (mx_probe_replay_query_keep(x->rp, x->rp_xf, x->rp_t, n, x->rp_end, x->rp_acc, want, want_acc,
                                       &x->rp_keep) != 0)
            return -1;
        replay_keep_set(x, nc + 1);
        return 0;
    }
    if (n > nc) {
        long long lo = LLONG_MAX;
        for (int i = nc; i < n; i++) lo = mx_llmin(lo, mx_llmax(0, x->rp_t[i]));
        if ((uint64_t)lo > until) until = (uint64_t)lo;
    }
    if (mx_probe_replay_advance(x->rp, x->rp_xf, x->rp_t, nc, until) != 0) { /* a model error: start over next time */
        mx_probe_replay_free(x->rp);
        x->rp = NULL;
        return -1;
    }
    if (x->rp_want_fin && want < 0 && x->c->dram_model) {
        mx_dram_free(x->rp_fin);
        return mx_probe_replay_query_model(x->rp, x->rp_xf, x->rp_t, n, x->rp_end, x->rp_acc, &x->rp_fin);
    }
    if (n != nc + 1 || want < 0) return mx_probe_replay_query(x->rp, x->rp_xf, x->rp_t, n, x->rp_end, x->rp_acc, want, want_acc);
    /* one transfer ahead of the chain (a store's release waiting on a
     * load): its copy too may be the next base */
    mx_probe_replay_free(x->rp_keep);
    x->rp_keep = NULL;
    if (mx_probe_replay_query_keep(x->rp, x->rp_xf, x->rp_t, n, x->rp_end, x->rp_acc, want, want_acc, &x->rp_keep) != 0)
        return -1;
    replay_keep_set(x, nc);
    return 0;
}

static long long replay_end(walk_ctx *x, long long at, const mx_probe_xfer *f, int ref, long long at2,
                            const mx_probe_xfer *f2, long long max_bursts, int acc)
{
    const int n = x->chain_n + (f != NULL) + (f2 != NULL);
    /* replay_all's queries (ref): any length (the replay is incremental);
     * the others as before */
    const int all = ref && x->replay_all;
    /* lite: also the first load (no probe times it) */
    const int first = x->lite && all && f && x->chain_n == 0;
    if ((!x->pm.by_sig && !all) || !x->chain_on || (x->chain_n <= 0 && !first) || (!all && n > MX_PROBE_TIMED_MAX)) return 0;
    const mx_arch_config *c = ref ? x->c : &x->c_noref;
    const double ratio = c->dram_model ? c->dram.tCK_ns * c->clock_ghz : 1.0; /* the channel runs on the accelerator clock */
    if (n > x->rp_cap) { /* the chain's length and two */
        const int cap = x->chain_max + 2;
        mx_probe_xfer *xf = realloc(x->rp_xf, (size_t)cap * sizeof *xf);
        if (xf) x->rp_xf = xf;
        long long *t = realloc(x->rp_t, (size_t)cap * sizeof *t), *b = realloc(x->rp_b, (size_t)(cap + 1) * sizeof *b),
                  *e = realloc(x->rp_end, (size_t)cap * sizeof *e), *a = realloc(x->rp_acc, (size_t)cap * sizeof *a);
        if (t) x->rp_t = t;
        if (b) x->rp_b = b;
        if (e) x->rp_end = e;
        if (a) x->rp_acc = a;
        if (!xf || !t || !b || !e || !a) return 0;
        if (x->rp_cap == 0) x->rp_b[0] = 0;
        x->rp_cap = cap;
    }
    /* the chain's transfers converted once (their offers and descriptors
     * do not change), the query's f, f2 each time; rp_b[i]: the bursts of
     * the chain's first i */
    long long bursts = 0;
    int stores = 0;
    for (int i = x->rp_n; i <= x->chain_n + 1 && i < n; i++) {
        const int ch = i < x->chain_n;
        x->rp_xf[i] = ch ? x->chain[i].f : i == x->chain_n && f ? *f : *f2;
        x->rp_t[i] = (long long)ceil((double)(ch ? x->chain[i].offer : i == x->chain_n && f ? at : at2) / ratio - 1e-9); /* DRAM clocks */
        const mx_probe_xfer *q = &x->rp_xf[i];
        const long long b = mx_cycle_tile_bursts(c, x->fa, x->fb, x->fo, x->g->M, x->g->N, x->g->K, q->r0, q->m, q->n0,
                                                 q->n, q->k0, q->k, q->what);
        if (ch) {
            x->rp_b[i + 1] = x->rp_b[i] + b;
            x->rp_n = i + 1;
        } else {
            bursts += b;
            stores += (q->what & MX_PROBE_STORE) != 0;
        }
    }
    bursts += x->rp_b[x->chain_n];
    for (int i = 0; !stores && i < x->chain_n; i++) stores += (x->rp_xf[i].what & MX_PROBE_STORE) != 0;
    if (all && !c->dram_model) max_bursts = CHAN_REPLAY_BURSTS;
    if ((!stores && !all) || bursts > max_bursts) return 0;
    const int want = acc >= 0 ? acc : f ? x->chain_n : -1;
    long long *end = x->rp_end, *accept = x->rp_acc;
#ifdef MX_REPLAY_CHECK
    long long *se = malloc((size_t)n * sizeof *se), *sa = malloc((size_t)n * sizeof *sa);
    if (!se || !sa) abort();
    const int src = mx_cycle_probe_timed(c, x->fa, x->fb, x->fo, x->g->M, x->g->N, x->g->K, x->rp_xf, x->rp_t, n, se, sa);
#endif
    if (ref) {
        if (replay_incr(x, n, want, acc >= 0) != 0) return 0;
    } else if (mx_cycle_probe_timed(c, x->fa, x->fb, x->fo, x->g->M, x->g->N, x->g->K, x->rp_xf, x->rp_t, n, end, accept) != 0)
        return 0;
#ifdef MX_REPLAY_CHECK
    if (ref) {
        x->rp_queries++;
        int bad = src != 0;
        for (int i = 0; i < n; i++)
            if (want < 0 || i == want) bad |= acc >= 0 ? sa[i] != accept[i] : se[i] != end[i];
        if (bad) {
            fprintf(stderr, "replay mismatch: n %d want %d acc %d src %d\n", n, want, acc, src);
            for (int i = 0; i < n; i++)
                fprintf(stderr, "  %d what %d t %lld end %lld/%lld acc %lld/%lld\n", i, x->rp_xf[i].what, x->rp_t[i],
                        se[i], end[i], sa[i], accept[i]);
            abort();
        }
    }
    free(se);
    free(sa);
#endif
    if (acc >= 0) return acc < n && accept[acc] >= 0 ? (long long)ceil((double)accept[acc] * ratio - 1e-9) : 0;
    long long e = f ? end[x->chain_n] : -1;
    for (int i = 0; !f && i < n; i++) {
        if (end[i] < 0) return 0;
        e = mx_llmax(e, end[i]);
    }
    return e < 0 ? 0 : (long long)ceil((double)e * ratio - 1e-9);
}
static long long drain_floor(walk_ctx *x, long long at, const mx_probe_xfer *f) { return replay_end(x, at, f, 0, 0, NULL, DRAIN_FLOOR_BURSTS, -1); }

/* The ranks transfer r touches.  Its probe (memoised by shape class) has
 * the ranks of the class's first tile; where tiles of one class fall on
 * other ranks (an address mapping with the channel or rank above the
 * tile's span), the background energy needs this tile's own, until every
 * rank has been touched. */
static uint64_t xfer_ranks(const walk_ctx *x, const wr_queue *q, const xfer_ref *r, uint64_t probe_ranks)
{
    const int nr = x->c->dram.channels * x->c->dram.ranks;
    const uint64_t all = nr >= 64 ? ~0ull : (1ull << nr) - 1;
    if ((q->touched | probe_ranks) == all) return probe_ranks;
    const mx_probe_xfer f = xfer_of(x, r);
    return mx_cycle_xfer_ranks(x->c, x->fa, x->fb, x->fo, x->g->M, x->g->N, x->g->K, &f);
}

/* The channels transfer r touches (full = 0) or, a store, fills (full = 1:
 * at least write_high - 1 of its bursts, or its busiest channel's): this
 * tile's own.  They change from tile to tile of one shape class (the tile's
 * address phase): where the walk jumps, the tiles it walks stand for those
 * it skips, a biased sample, used there only for a held store's drain cut
 * by a load at least as long (wr_queue_serve_half). */
static uint64_t probe_channels(walk_ctx *x, const mx_probe_xfer *f, int full)
{
    const uint64_t h = ((((uint64_t)f->r0 * 31 + (uint64_t)f->n0) * 31 + (uint64_t)f->k0) * 8 + (uint64_t)f->what) * 2 +
                       (uint64_t)full;
    ch_entry *e = &x->ch_memo[h % CH_MEMO];
    if (e->valid && e->full == full && e->f.r0 == f->r0 && e->f.m == f->m && e->f.n0 == f->n0 && e->f.n == f->n &&
        e->f.k0 == f->k0 && e->f.k == f->k && e->f.what == f->what && e->f.skip == f->skip && e->f.limit == f->limit)
        return e->mask;
    const long long min = full ? x->c->dram.write_high - 1 : 1;
    const uint64_t mask = mx_cycle_xfer_channels(x->c, x->fa, x->fb, x->fo, x->g->M, x->g->N, x->g->K, f, min);
    e->f = *f;
    e->full = full;
    e->valid = 1;
    e->mask = mask;
    return mask;
}

static uint64_t xfer_channels(walk_ctx *x, const xfer_ref *r, int full)
{
    const mx_probe_xfer f = xfer_of(x, r);
    return probe_channels(x, &f, full);
}

/* Transfer r probed alone (memoised by shape class). */
static const mx_tile_probe *xfer_alone(walk_ctx *x, const xfer_ref *r)
{
    const mx_probe_xfer f = xfer_of(x, r);
    return probe_get(&x->pm, x->c, x->fa, x->fb, x->fo, x->g, x->tl, r->mi, r->ni,
                     r->what == MX_PROBE_STORE ? 0 : r->ki, f.m, f.n, f.k, r->what);
}

/* A probe's failure is a DRAM model bug: it marks the walk failed, and
 * analytic_tiled reports it instead of a fallback estimate (probe_get
 * likewise).  The walk's probes of request sequences go through these two. */
static int walk_probe_seq(walk_ctx *x, const mx_arch_config *c, const mx_probe_xfer *xf, int n, long long second_at,
                          mx_tile_probe pp[2])
{
    if (mx_cycle_probe_seq(c, x->fa, x->fb, x->fo, x->g->M, x->g->N, x->g->K, xf, n, second_at, pp) == 0) return 0;
    x->pm.failed = 1;
    return -1;
}

/* Transfers a and b probed as one request sequence (mx_cycle_probe_pair;
 * second_at as there).  0, or -1. */
static int xfer_pair(walk_ctx *x, const xfer_ref *a, const xfer_ref *b, long long second_at, mx_tile_probe pp[2])
{
    const mx_probe_xfer xf[2] = {xfer_of(x, a), xfer_of(x, b)};
    if (mx_cycle_probe_pair(x->c, x->fa, x->fb, x->fo, x->g->M, x->g->N, x->g->K, xf, second_at, pp) == 0) return 0;
    x->pm.failed = 1;
    return -1;
}

/* The cycles b adds when queued right behind a (second_at -1) or issued
 * from DRAM clock second_at on: the pair's time less a's alone.  0: not
 * available. */
static long long pair_marginal(walk_ctx *x, const xfer_ref *a, const xfer_ref *b, long long second_at)
{
    const mx_tile_probe *alone = xfer_alone(x, a);
    mx_tile_probe pp[2];
    if (!alone || xfer_pair(x, a, b, second_at, pp) != 0) return 0;
    return mx_llmax(1, pp[1].cycles - alone->cycles);
}

/* Stores of a class probed for its mean time alone (store_phase_adj). */
#define STORE_PHASE_SAMPLES 16

/* Where each transfer has one probe per shape class (more than
 * PROBE_SIG_TILES tiles), the cycles to add to a time probed with store b
 * at b's own address (as: on that probe instead) so that it stands for
 * the class: the class's mean time alone, over up to STORE_PHASE_SAMPLES
 * of its stores spread evenly, less b's.  A store's time depends on where
 * its bursts fall: in DDR4 32x32 os BF16 1517x74x32 a 4,736-byte output
 * tile within one bank group's 8 KiB row is written at tCCD_L (392 cycles
 * alone), one across two bank groups alternates them (244-384), and the
 * tiles take every phase in turn (mean 342).  0 for a tile-by-tile walk,
 * which probes every phase. */
static long long store_phase_adj(walk_ctx *x, const xfer_ref *b, const mx_tile_probe *as)
{
    const mx_tiling *tl = x->tl;
    if (!x->use_probes || x->pm.by_sig || b->what != MX_PROBE_STORE) return 0;
    const int em = b->mi == tl->m_tiles - 1, en = b->ni == tl->n_tiles - 1;
    const long long m = x->dims_m[em], n = x->dims_n[en];
    long long *mean = &x->st_phase[em][en];
    mx_tile_probe p;
    if (*mean < 0) {
        const long long cm = em ? 1 : tl->m_tiles - 1, cn = en ? 1 : tl->n_tiles - 1, cnt = cm * cn;
        const long long ns = mx_llmin(cnt, STORE_PHASE_SAMPLES);
        long long sum = 0;
        for (long long i = 0; i < ns; i++) {
            const long long j = i * cnt / ns, mi = em ? tl->m_tiles - 1 : j / cn, ni = en ? tl->n_tiles - 1 : j % cn;
            if (mx_cycle_probe_tile(x->c, x->fa, x->fb, x->fo, x->g->M, x->g->N, x->g->K, mi * tl->mt, m,
                                    ni * tl->nt, n, 0, 0, MX_PROBE_STORE, &p) != 0) {
                x->pm.failed = 1;
                return 0;
            }
            sum += p.cycles;
        }
        *mean = (sum + ns / 2) / ns;
    }
    if (as) return *mean - as->cycles;
    if (mx_cycle_probe_tile(x->c, x->fa, x->fb, x->fo, x->g->M, x->g->N, x->g->K, b->mi * tl->mt, m, b->ni * tl->nt,
                            n, 0, 0, MX_PROBE_STORE, &p) != 0) {
        x->pm.failed = 1;
        return 0;
    }
    return *mean - p.cycles;
}

/* The store of the output tile before output tile oidx in loop order. */
static xfer_ref prev_output(const walk_ctx *x, long long oidx)
{
    const mx_tiling *tl = x->tl;
    const long long inner_n = tl->n_outer ? tl->m_tiles : tl->n_tiles;
    const long long pr = oidx - 1, pii = pr % inner_n, poi = pr / inner_n;
    return (xfer_ref){tl->n_outer ? pii : poi, tl->n_outer ? poi : pii, 0, MX_PROBE_STORE};
}

/* The marginal channel cycles of store `me` (ch_bursts in its busiest
 * channel) when it follows store `prev` back to back (memoised by both
 * shape classes).  0: not available.
 * A store of at least twice the write queue's room, where tiles are probed
 * at their own address phase, is probed with its own predecessor.  The
 * class's sample is the GEMM's first pair, and the first store starts at
 * its region's base: its time alone may carry a row switch (its scales in
 * the bank its codes fill) that the pair hides, so the sample's marginal
 * (the pair less the first alone) is no other pair's.  In DDR4 ws MXSF
 * 160x1142x16 (146-burst stores, most of each in one bank at tCCD_L):
 * stores 0 and 1 give 455 cycles, every later pair 524-658.  A large
 * store meets its predecessor only over the queue's room (the DMA issues
 * it after that one's last burst), as in the cycle engine whatever comes
 * between them.  A smaller one can be written wholly beside its
 * predecessor's queued tail in the probe, which the loads between them
 * prevent in the cycle engine: its own pair's marginal swings from tile to
 * tile (23-180 cycles for 35-burst stores in DDR4 os MXSF 882x34x4), and
 * the class's sample stays. */
static long long store_follow(walk_ctx *x, const xfer_ref *prev, const xfer_ref *me, long long ch_bursts)
{
    const mx_tiling *tl = x->tl;
    if (x->pm.by_sig && x->c->dram_model && ch_bursts >= 2 * (x->c->dram.write_high - 1))
        return pair_marginal(x, prev, me, -1);
    long long *f = &x->follow[prev->mi == tl->m_tiles - 1][prev->ni == tl->n_tiles - 1][me->mi == tl->m_tiles - 1]
                             [me->ni == tl->n_tiles - 1];
    if (*f < 0) *f = pair_marginal(x, prev, me, -1);
    return *f;
}

/* store_follow for a store arriving `offset` accelerator cycles after the
 * previous one's channel time ended (negative: before): the pair probe with
 * the second issued at that point of the first's time alone.  It meets only
 * the requests that one still has queued, so rows that one has finished
 * with are opened again.  Aligned on the end, not the start: the first may
 * have begun with a precharge its probe alone did not need.  The walk's
 * wr_follow_fn; memoised by both shape classes and the issue clock.  0: not
 * available (issued with the first: store_follow). */
static long long store_follow_at(void *ctx, const wr_queue *q, const wr_batch *me, long long offset)
{
    walk_ctx *x = ctx;
    const mx_tiling *tl = x->tl;
    const mx_dram_config *d = &x->c->dram;
    const xfer_ref prev = {q->last_mi, q->last_ni, 0, MX_PROBE_STORE}, b = {me->mi, me->ni, 0, MX_PROBE_STORE};
    if (offset == LLONG_MIN) { /* the rest of prev (its last split_rest_bursts) and this store, one stream */
        mx_probe_xfer xf[2] = {xfer_of(x, &prev), xfer_of(x, &b)};
        xf[0].skip = q->split_bursts - q->split_rest_bursts;
        mx_tile_probe p1[2], p2[2];
        if (q->split_rest_bursts <= 0) return 0;
        if (x->pm.by_sig) {
            if (walk_probe_seq(x, x->c, xf, 1, -1, p1) != 0 || walk_probe_seq(x, x->c, xf, 2, -1, p2) != 0) return 0;
            return mx_llmax(1, p2[1].cycles - p1[1].cycles);
        }
        /* Where the walk jumps, the pairs at their own addresses differ from
         * period to period (their rows alternate bank groups or not).  Behind
         * a long load's cut, the classes' pair marginal stands (stop 30);
         * behind a short one's, the mean of the GEMM's first FOLLOW_SAMPLES
         * consecutive pairs of the same shape classes, memoised by the
         * classes and the split */
        if (!q->split_short) return 0;
        const int cp = (prev.mi == tl->m_tiles - 1) * 2 + (prev.ni == tl->n_tiles - 1),
                  cb = (b.mi == tl->m_tiles - 1) * 2 + (b.ni == tl->n_tiles - 1);
        const long long key = -1 - ((q->split_bursts * 65536 + q->split_rest_bursts) * 16 + cp * 4 + cb);
        for (int i = 0; i < x->nfollow_at; i++)
            if (x->follow_at[i].key == key) return x->follow_at[i].cyc;
        long long sum = 0, ns = 0;
        const long long nout = tl->m_tiles * tl->n_tiles;
        for (long long j = 1; j < nout && ns < FOLLOW_SAMPLES; j++) {
            const xfer_ref pa = prev_output(x, j), pb = prev_output(x, j + 1); /* output tiles j - 1 and j */
            if ((pa.mi == tl->m_tiles - 1) * 2 + (pa.ni == tl->n_tiles - 1) != cp ||
                (pb.mi == tl->m_tiles - 1) * 2 + (pb.ni == tl->n_tiles - 1) != cb)
                continue;
            mx_probe_xfer sx[2] = {xfer_of(x, &pa), xfer_of(x, &pb)};
            sx[0].skip = xf[0].skip;
            if (walk_probe_seq(x, x->c, sx, 1, -1, p1) != 0 || walk_probe_seq(x, x->c, sx, 2, -1, p2) != 0) return 0;
            sum += mx_llmax(1, p2[1].cycles - p1[1].cycles);
            ns++;
        }
        const long long cyc = ns > 0 ? (sum + ns / 2) / ns : 0;
        if (x->nfollow_at < FOLLOW_AT_MAX) {
            x->follow_at[x->nfollow_at].key = key;
            x->follow_at[x->nfollow_at++].cyc = cyc;
        }
        return cyc;
    }
    const mx_tile_probe *alone = xfer_alone(x, &prev);
    if (!alone) return 0;
    const long long ch_end = mx_llmax(1, alone->cycles - x->c->dram_cal.write_latency);
    const long long at = (long long)floor((double)(ch_end + offset) / (d->tCK_ns * x->c->clock_ghz));
    if (at <= 0) return 0;
    const long long key = at * 16 + (prev.mi == tl->m_tiles - 1) * 8 + (prev.ni == tl->n_tiles - 1) * 4 +
                          (b.mi == tl->m_tiles - 1) * 2 + (b.ni == tl->n_tiles - 1);
    for (int i = 0; i < x->nfollow_at; i++)
        if (x->follow_at[i].key == key) return x->follow_at[i].cyc;
    const long long cyc = pair_marginal(x, &prev, &b, at);
    if (x->nfollow_at < FOLLOW_AT_MAX) {
        x->follow_at[x->nfollow_at].key = key;
        x->follow_at[x->nfollow_at++].cyc = cyc;
    }
    return cyc;
}

/* Transfer b on a DRAM that transfer a has just left idle, with a's rows
 * open (a probe alone starts with every bank closed): both in one probe, b
 * issued once a is done.  Memoised by both shape classes; cyc 0: not
 * available. */
static const after_probe *after_of(walk_ctx *x, const xfer_ref *a, const xfer_ref *b, int gap)
{
    const mx_tiling *tl = x->tl;
    after_probe *f = &x->after[xfer_cls(tl, a)][xfer_cls(tl, b)];
    if (f->have >> gap & 1) return f;
    f->have |= 1 << gap;
    /* without refresh: a REF inside one probe and not another would break
     * the gap model (issued later, done no later) */
    const mx_arch_config *c = &x->c_noref;
    /* a: the pair's requests (issued together), or a alone; then b.  Only
     * a's last and b's first PROBE_EDGE bursts are probed together (what a
     * leaves behind and what b meets); the rest of b takes its time alone */
    mx_probe_xfer xf[3];
    int n = 0;
    if (a->what == XFER_PAIR) {
        xf[n++] = x->pair_xf[0];
        xf[n++] = x->pair_xf[1];
    } else {
        xf[n++] = xfer_of(x, a);
    }
    xf[n] = xfer_of(x, b);
    if (b->what == MX_PROBE_STORE && a->what != MX_PROBE_STORE)
        f->row_conflict = mx_cycle_xfer_row_conflict(c, x->fa, x->fb, x->fo, x->g->M, x->g->N, x->g->K, xf, n, &xf[n]);
    for (int i = 0; i <= n; i++) {
        const long long bursts = mx_cycle_tile_bursts(c, x->fa, x->fb, x->fo, x->g->M, x->g->N, x->g->K, xf[i].r0,
                                                      xf[i].m, xf[i].n0, xf[i].n, xf[i].k0, xf[i].k, xf[i].what);
        if (bursts <= PROBE_EDGE) continue;
        if (i < n) xf[i].skip = bursts - PROBE_EDGE;
        else xf[i].limit = PROBE_EDGE;
    }
    mx_tile_probe base, pp[2], rest = {0};
    const mx_tile_probe *whole = NULL; /* b's time beyond its head stands on it */
    {
        if (walk_probe_seq(x, c, xf, n, n == 2 ? 0 : -1, pp) != 0) return f;
        base = pp[1];
        if (xf[n].limit > 0) { /* b beyond its head: its own time alone */
            whole = xfer_alone(x, b);
            if (!whole || walk_probe_seq(x, c, &xf[n], 1, -1, pp) != 0) return f;
            rest.cycles = whole->cycles - pp[1].cycles;
            rest.act = whole->act - pp[1].act;
            rest.cmd_pj = whole->cmd_pj - pp[1].cmd_pj;
        }
    }
    const mx_dram_config *d = &c->dram;
    const double ratio = d->tCK_ns * c->clock_ghz;
    /* b issued: once a's data is all in (gap 0); or (gap 1) as a's last
     * request leaves the controller's queue (its CAS: the data follows RL or
     * WL + BL/2 later) and long after a (every timing constraint a set has
     * expired) */
    const long long lag = (a->what == MX_PROBE_STORE ? d->t.AL + d->t.CWL : d->t.AL + d->t.CL) + d->BL / 2;
    const long long at[3] = {base.end_clock + 1, mx_llmax(0, base.end_clock + 1 - lag),
                             base.end_clock + 1 + d->t.tRC + d->t.tRP};
    /* A store behind a store stands for its class: this memo is first
     * filled by the GEMM's stores 0 and 1, and store 1 is no sample of the
     * rest (1517x74x32: the walk's stores took 267 cycles, store 1's
     * phase, where the cycle engine's average about 330; -15.1%).  Not the
     * other contexts: there a store behind a load is the class's first
     * store, and where loads cut its drains (DDR4 8x8 os BF16 672x337x5)
     * the cycle engine's stores interleave bank groups less than alone,
     * which the class's mean would hide further (-1.5% -> -5.9%). */
    const long long adj = a->what == MX_PROBE_STORE ? store_phase_adj(x, b, whole) : 0;
    for (int v = gap ? 1 : 0; v <= (gap ? 2 : 0); v++) {
        const long long at_acc = (long long)floor((double)at[v] * ratio);
        if (walk_probe_seq(x, c, xf, n + 1, at[v], pp) != 0) return f;
        const long long cyc = mx_llmax(1, pp[1].cycles - at_acc + rest.cycles + adj);
        const long long lat = mx_llmax(1, mx_llmin(cyc, pp[1].first - at_acc));
        if (v == 0) { f->cyc = cyc; f->lat = lat; }
        if (v == 1) { f->cyc_issue = cyc; f->lat_issue = lat; }
        if (v == 2) {
            f->cyc_idle = cyc;
            f->lat_idle = lat;
            f->act = pp[1].act - base.act + rest.act;
            f->pj = pp[1].cmd_pj - base.cmd_pj + rest.cmd_pj;
        }
    }
    return f;
}

/* Cycles from b's start to its last completion after a (after_of); *lat:
 * to its first.  0: not available. */
static long long after_time(walk_ctx *x, const xfer_ref *a, const xfer_ref *b, long long *lat)
{
    const after_probe *f = after_of(x, a, b, 0);
    *lat = f->lat;
    return f->cyc;
}

/* Pairs of a store and the load behind it sampled for their class's mean
 * (after_store_mean): 16 lowered no maximum further and cost the BERT-base
 * step 20% of its analytic run time (0.20 -> 0.24 s). */
#define AFTER_STORE_SAMPLES 4

/* The mean of load b's marginal behind store a (pair_marginal) over up to
 * AFTER_STORE_SAMPLES pairs at the same tile distance, both moved together
 * along M (else N) across the tiles that are not the edge tile, spread
 * evenly; a and b alone where neither dimension has room.  The GEMM's
 * first pair sits at the regions' bases, where the load's rows and the
 * store's often share a bank: its probe pays a PRE and an ACT that later
 * pairs rarely do.  LPDDR4 8x8 os BF16 752x139x16 (47 tiles): the first
 * two stores write bank 0 row 16, the loads read bank 0 row 0; from tile 2
 * on the stores move through banks 4, 1, 5, 2, ... and each 4-read load
 * follows a 35-write drain by 30 clocks on its open row.  The first pair
 * gives 91 cycles, pairs in the middle 36-47. */
static long long after_store_mean(walk_ctx *x, const xfer_ref *a, const xfer_ref *b)
{
    const mx_tiling *tl = x->tl;
    const long long lo_m = mx_llmin(a->mi, b->mi), hi_m = mx_llmax(a->mi, b->mi);
    const long long lo_n = mx_llmin(a->ni, b->ni), hi_n = mx_llmax(a->ni, b->ni);
    int along_m;
    long long dmin, dmax;
    if (hi_m < tl->m_tiles - 1 && tl->m_tiles - 2 - hi_m + lo_m > 0) {
        along_m = 1;
        dmin = -lo_m;
        dmax = tl->m_tiles - 2 - hi_m;
    } else if (hi_n < tl->n_tiles - 1 && tl->n_tiles - 2 - hi_n + lo_n > 0) {
        along_m = 0;
        dmin = -lo_n;
        dmax = tl->n_tiles - 2 - hi_n;
    } else
        return pair_marginal(x, a, b, -1);
    const long long span = dmax - dmin + 1, ns = mx_llmin(AFTER_STORE_SAMPLES, span);
    long long sum = 0;
    for (long long j = 0; j < ns; j++) {
        const long long d = dmin + j * (span - 1) / (ns - 1);
        xfer_ref sa = *a, sb = *b;
        if (along_m) { sa.mi += d; sb.mi += d; }
        else { sa.ni += d; sb.ni += d; }
        const long long v = pair_marginal(x, &sa, &sb, -1);
        if (v <= 0) return pair_marginal(x, a, b, -1);
        sum += v;
    }
    return (sum + ns / 2) / ns;
}

/* The marginal cycles of tile (mi, ni, ki)'s load (`what`) when it starts
 * right behind the last store: the controller has that store's writes
 * draining and turns around to reads after them (tWTR, rows the writes
 * closed).  Both probed together (the load arriving as the writes drain),
 * less the store alone.  `mean`, where the walk probes by shape class and
 * goes tile by tile (chain_on): the class's mean (after_store_mean).  Not
 * where it jumps (the mean's probes took the BERT-base step's analytic run
 * from 0.21 to 0.31 s), nor for a load in the slot of a held store's split
 * drain (walk_tile), whose `d` the first pair still calibrates (with the
 * mean, DDR4 32x32 os MXSF 1400x112x16 -0.3% -> +3.8%).  0: not available. */
static long long load_after_store(walk_ctx *x, const walk_state *w, long long mi, long long ni, long long ki,
                                  int what, int mean)
{
    const mx_tiling *tl = x->tl;
    const int em = mi == tl->m_tiles - 1, en = ni == tl->n_tiles - 1, ek = ki == tl->k_tiles - 1;
    mean = mean && !x->pm.by_sig && x->chain_on;
    long long *f = &x->after_store[mean][w->wq.last_cls][em][en][ek][what];
    if (*f < 0) {
        const xfer_ref st = {w->wq.last_mi, w->wq.last_ni, 0, MX_PROBE_STORE}, me = {mi, ni, ki, what};
        *f = mean ? after_store_mean(x, &st, &me) : pair_marginal(x, &st, &me, -1);
    }
    return *f;
}

/* Queued batch j's channel time and latency when it starts on an idle DRAM
 * whose rows the last load (w->ld_*) left open.  Computed when the batch is
 * queued and again after each later load: a batch is served behind the
 * loads issued before the channel turns to writes, so the last of them
 * decides which rows its first writes find open. */
static void store_after_load(walk_ctx *x, walk_state *w, int j)
{
    wr_queue *q = &w->wq;
    if (q->b[j].rest < 0 || w->ld_cls < 0 || q->b[j].started || x->lite) return;
    const xfer_ref me = {q->b[j].mi, q->b[j].ni, 0, MX_PROBE_STORE};
    const after_probe *ap = after_of(x, &w->ld, &me, 1);
    q->b[j].ald = ap->cyc_idle > 0 ? ap : NULL;
    q->b[j].ld_conf = ap->row_conflict; /* the classes' first tiles: a walk with jumps */
    if (x->pm.by_sig) { /* at the tiles' own addresses (the probe above is per class) */
        mx_probe_xfer lx[2];
        int nl = 0;
        if (w->ld.what == XFER_PAIR) { lx[nl++] = x->pair_xf[0]; lx[nl++] = x->pair_xf[1]; }
        else lx[nl++] = xfer_of(x, &w->ld);
        const mx_probe_xfer sx = xfer_of(x, &me);
        q->b[j].ld_conf = mx_cycle_xfer_row_conflict(&x->c_noref, x->fa, x->fb, x->fo, x->g->M, x->g->N, x->g->K, lx, nl, &sx);
    }
    if (q->b[j].full_ch) { /* held, in a walk without jumps */
        const uint64_t ch = w->ld.what == XFER_PAIR ? probe_channels(x, &x->pair_xf[0], 0) |
                                                          probe_channels(x, &x->pair_xf[1], 0)
                                                    : xfer_channels(x, &w->ld, 0);
        q->b[j].ld_shares = (ch & q->b[j].full_ch) != 0;
    }
}

/* Load `ld` has left the channel (w->dram_free), its last request the
 * controller's queue at `issue`: the queued stores now follow it. */
static void load_done(walk_ctx *x, walk_state *w, xfer_ref ld, long long issue)
{
    w->ld = ld;
    w->ld_cls = xfer_cls(x->tl, &ld);
    w->wq.ld_end = w->dram_free;
    w->wq.ld_issue = issue;
    for (int i = 0; i < w->wq.n; i++) store_after_load(x, w, (w->wq.head + i) % WR_QUEUE_MAX);
}

static long long next_load_ref(walk_ctx *x, long long mi, long long ni, long long ki, xfer_ref *nx);

/* The cycles load `me`'s last data comes later when the next load's
 * requests reach the controller `at` accelerator cycles after me's first
 * request (stream = 0) or, me streaming right behind the last load
 * (stream = 1), after me's first read (its rows opened while that one
 * read).  Double buffered, the next load is issued when the tile before me
 * ends, often before me is done.  FR-FCFS serves the earliest-ready row hit
 * first: the next load's hits go ahead of me's last bursts when those are
 * a CAS later (on the other rank: tRTRS; a row to open) until the hits run
 * out, and me's data is in only with the next load's.  Both probed as one
 * sequence less me alone (me's last and the next load's first PROBE_EDGE
 * bursts), without refresh (the walk charges it on its own timeline);
 * memoised by both transfers' classes (and address signatures
 * where tiles are probed at their own phase) and the issue clock.  0: not
 * overtaken (or not available).  *next: how long after me's data the next
 * load's is in, served with me (its hits ride the rows me opened: HBM2 8x8
 * ws MXSF 5x5x704, load 3 opens one of its four rows again and is in 50
 * cycles after load 2, not a channel time later); -1 when not overtaken or
 * the next load is longer than the probe's edge. */
static long long load_overtaken(walk_ctx *x, const xfer_ref *me, const mx_tile_probe *pr, long long at, int stream,
                                long long *next)
{
    xfer_ref nx;
    *next = -1;
    if (next_load_ref(x, me->mi, me->ni, me->ki, &nx) <= 0) return 0;
    const mx_arch_config *c = &x->c_noref;
    const double ratio = c->dram.tCK_ns * c->clock_ghz;
    mx_probe_xfer xf[2] = {xfer_of(x, me), xfer_of(x, &nx)};
    long long nb[2];
    for (int i = 0; i < 2; i++) { /* whole bursts, memoised by class (burst_bytes) */
        const xfer_ref *r = i ? &nx : me;
        nb[i] = burst_bytes(&x->bm, c, x->fa, x->fb, x->fo, x->g, x->tl, r->mi, r->ni, r->ki, xf[i].m, xf[i].n,
                            xf[i].k, r->what) / (long long)x->bm.burst;
    }
    if (nb[0] > PROBE_EDGE) xf[0].skip = nb[0] - PROBE_EDGE;
    if (nb[1] > PROBE_EDGE) xf[1].limit = PROBE_EDGE;
    const uint64_t k0 = (uint64_t)xfer_cls(x->tl, me) | (x->pm.by_sig ? pr->sig << 8 : 0);
    /* me's tail alone (memoised): its first data, its end, its last read */
    int ai = -1;
    for (int i = 0; i < x->novt_alone && ai < 0; i++)
        if (x->ovt_alone[i].key == k0) ai = i;
    mx_tile_probe tail[2], pp[2];
    if (ai < 0) {
        if (x->novt_alone == OVERTAKE_MAX || walk_probe_seq(x, c, xf, 1, -1, tail) != 0) return 0;
        ai = x->novt_alone++;
        x->ovt_alone[ai].key = k0;
        x->ovt_alone[ai].cycles = tail[1].cycles;
        x->ovt_alone[ai].first = tail[1].first;
        x->ovt_alone[ai].end = tail[1].end_clock;
    }
    const long long last_cas = x->ovt_alone[ai].end - (c->dram.t.AL + c->dram.t.CL + c->dram.BL / 2);
    /* streaming, me's first read comes where the probe's does after its
     * first request (the probe counts from the request); the tail is
     * aligned on me's end alone */
    const long long lead = stream ? mx_llmax(0, x->ovt_alone[ai].first - read_lag(c)) : 0;
    const long long clk = (long long)floor((double)mx_llmax(0, at + lead) / ratio) -
                          (xf[0].skip > 0 ? mx_llmax(0, pr->end_clock - x->ovt_alone[ai].end) : 0);
    if (clk > last_cas) return 0; /* me's last read went before the next load came */
    const uint64_t k1 = (uint64_t)xfer_cls(x->tl, &nx) |
                        (x->pm.by_sig ? mx_cycle_xfer_sig(c, x->fa, x->fb, x->fo, x->g->M, x->g->N, x->g->K, &xf[1]) << 8
                                      : 0);
    for (int i = 0; i < x->novertake; i++)
        if (x->overtake[i].key[0] == k0 && x->overtake[i].key[1] == k1 && x->overtake[i].at == clk) {
            *next = x->overtake[i].next;
            return x->overtake[i].delay;
        }
    if (walk_probe_seq(x, c, xf, 2, mx_llmax(0, clk), pp) != 0) return 0;
    const long long delay = mx_llmax(0, pp[0].cycles - x->ovt_alone[ai].cycles);
    /* the next load was probed whole: the pair's end is its end */
    *next = nb[1] <= PROBE_EDGE ? mx_llmax(0, pp[1].cycles - pp[0].cycles) : -1;
    if (x->novertake < OVERTAKE_MAX) {
        x->overtake[x->novertake].key[0] = k0;
        x->overtake[x->novertake].key[1] = k1;
        x->overtake[x->novertake].at = clk;
        x->overtake[x->novertake].next = *next;
        x->overtake[x->novertake++].delay = delay;
    }
    return delay;
}

/* The first two loads, issued together, when the third (issued as tile 0
 * ends, end1) arrives before the second's last reads: FR-FCFS serves the
 * third's row hits among them, and the second's data is in only with
 * them, as load_overtaken for later loads.  The three probed as one
 * sequence (the third from its arrival), without refresh; returns how much
 * later the second's data is in (the channel time is unchanged), and sets
 * ovt_next to the third's data time when it was probed whole (at most
 * PROBE_EDGE bursts; a longer one: its head only).  DDR4 8x8 os MXSF
 * 32x16x336: load 2 comes at 873, the pair alone has load 1 in at 1058,
 * the cycle engine at 1268 with load 2's at 1273. */
static long long pair_overtaken(walk_ctx *x, walk_state *w, long long mi, long long ni, long long ki)
{
    xfer_ref nx;
    if (next_load_ref(x, mi, ni, ki, &nx) <= 0) return 0;
    const mx_arch_config *c = &x->c_noref;
    const double ratio = c->dram.tCK_ns * c->clock_ghz;
    mx_probe_xfer xf[3] = {x->pair_xf[0], x->pair_xf[1], xfer_of(x, &nx)};
    const long long nb = mx_cycle_tile_bursts(c, x->fa, x->fb, x->fo, x->g->M, x->g->N, x->g->K, xf[2].r0, xf[2].m,
                                              xf[2].n0, xf[2].n, xf[2].k0, xf[2].k, xf[2].what);
    if (nb > PROBE_EDGE) xf[2].limit = PROBE_EDGE; /* its head meets the pair's tail */
    mx_tile_probe alone[2], pp[2];
    if (walk_probe_seq(x, c, xf, 2, 0, alone) != 0) return 0;
    const long long clk = (long long)floor((double)w->end1 / ratio);
    if (walk_probe_seq(x, c, xf, 3, clk, pp) != 0) return 0;
    const long long delay = mx_llmax(0, pp[0].cycles - alone[1].cycles);
    if (delay > 0 && nb <= PROBE_EDGE) w->ovt_next = pp[1].cycles; /* the probe starts with the GEMM */
    return delay;
}

/* Tile (mi, ni, ki)'s load (if any of its operands is not resident): the
 * cycle its data is in the buffer (0: nothing to load). */
/* DRAM bytes of the load of operand `op` (MX_PROBE_A or MX_PROBE_B) of tile
 * (mi, ni, ki): the DMA's whole bursts when the walk counts them. */
static long long load_dram_bytes(walk_ctx *x, long long mi, long long ni, long long ki, long long m, long long n,
                                 long long k, int op)
{
    if (x->burst_exact) return burst_bytes(&x->bm, x->c, x->fa, x->fb, x->fo, x->g, x->tl, mi, ni, ki, m, n, k, op);
    return op == MX_PROBE_A ? mx_arch_tile_bytes(m, k, x->fa->bits_per_elem) : mx_arch_tile_bytes(k, n, x->fb->bits_per_elem);
}

static int next_load_of(const walk_ctx *x, long long mi, long long ni, long long ki, xfer_ref *nx);

static long long walk_load(walk_ctx *x, walk_state *w, long long mi, long long ni, long long ki, long long m,
                           long long n, long long k, long long la, long long lb)
{
    const mx_arch_config *c = x->c;
    const mx_tiling *tl = x->tl;
    w->ctr.sram_write[MX_OP_A] += la;
    w->ctr.sram_write[MX_OP_B] += lb;
    if (la) la = load_dram_bytes(x, mi, ni, ki, m, n, k, MX_PROBE_A);
    if (lb) lb = load_dram_bytes(x, mi, ni, ki, m, n, k, MX_PROBE_B);
    w->ctr.dram_read[MX_OP_A] += la;
    w->ctr.dram_read[MX_OP_B] += lb;
    if (c->ideal_memory || la + lb == 0) return 0;
    const long long ovt = w->ovt_next; /* its data time, served with the last load (load_overtaken) */
    w->ovt_next = -1;
    w->wq.ref_extra = 0;
    if (x->pair_on && w->t < 2) { /* the first two loads, issued together at the start */
        const mx_tile_probe *p = &x->pair[w->t];
        w->dram_free = mx_llmax(w->dram_free, mx_llmax(1, p->cycles - dram_latency(c)));
        dram_busy(&w->wq, 0, w->dram_free, p->ranks);
        for (int r = 0; x->rs.on && r < x->rs.ranks && r < 64; r++) /* the probe ran on the GEMM's own clock */
            if (x->rs.step * (r + 1) < (double)w->dram_free) w->ref_used |= 1ull << r;
        w->probe_pj += p->cmd_pj;
        /* the third load, issued as tile 0 ends, may overtake the second's
         * last reads.  replay_all: the pair with the third load replayed
         * whole, before this load joins the chain (pair_overtaken probes
         * only the third's head: LPDDR4 8x8 ws MXSF 16x337x265, its 600
         * bursts interleave with the second's last reads, in at 5,049 in
         * the cycle engine, 4,156 by the pair probe) */
        const int overtaken = w->t == 1 && tl->double_buffer && w->end1 < w->dram_free;
        long long replayed = 0;
        xfer_ref nx;
        if (overtaken && x->replay_all && chan_replay(c) && next_load_ref(x, mi, ni, ki, &nx) > 0) {
            const mx_probe_xfer f2 = xfer_of(x, &nx);
            replayed = replay_end(x, 0, &x->pair_xf[1], 1, w->end1, &f2, REPLAY_ALL_BURSTS, -1);
        }
        if (x->chain_on) chain_add(x, 0, 0, w->dram_free, &x->pair_xf[w->t]);
        w->probe_rd += p->bursts;
        w->probe_act += p->act;
        if (w->t == 1) { /* the rows the pair left open, for what follows it */
            load_done(x, w, (xfer_ref){0, 0, 0, XFER_PAIR}, p->cycles - read_lag(c));
            if (replayed > 0) return mx_llmax(p->cycles, replayed);
            if (overtaken) return p->cycles + pair_overtaken(x, w, mi, ni, ki);
        }
        return p->cycles;
    }
    long long want = mx_llmax(w->dram_free, tl->double_buffer ? w->end2 : w->end1);
    const long long wanted = want;
    /* Writes queued before this read was wanted go first, then the read;
     * not when the read was wanted before the last load's requests had
     * left the read queue (it never empties, and the controller turns to
     * writes only then: the store DMA never fills the write queue to the
     * watermark), nor when the read has a slot reserved ahead of a held
     * store's drain (it went before those writes: serving them here again
     * would book their channel time twice).  The last request leaves at
     * its CAS (ld_issue), the read latency less CL + BL/2 after the load's
     * channel time (14 cycles on HBM2): a read wanted in that window also
     * finds the queue busy (HBM2 8x8 is 896x2x2: load 3 wanted at 340,
     * load 2's last read at 341 behind a tRC-bound ACT; its channel time
     * ended at 327).  A load spread over channels may leave the stores'
     * channel first, which then drains them beside its reads elsewhere:
     * that is not the walk's one channel time either.  Not for a load
     * timed behind a draining store (load_after_store): its channel time
     * is the pair probe's marginal, which places its data, not its last
     * request, and its reads waited through the turnaround. */
    {
        const long long raw = tl->double_buffer ? w->end2 : w->end1;
        const int no_gap = w->ld_cls >= 0 && w->wq.ld_end >= w->wq.last_end && raw < w->wq.ld_issue &&
                           (want == w->dram_free || !w->ld_behind_st);
        if (!no_gap && w->res_len == 0) {
            w->wq.rd_at = raw;
            want = mx_llmax(want, wr_queue_serve_ready(&w->wq, w->dram_free, want));
            w->wq.rd_at = -1;
        }
    }
    const mx_tile_probe *pr = x->use_probes && !x->lite ? probe_get(&x->pm, c, x->fa, x->fb, x->fo, x->g, tl, mi, ni, ki, m, n, k,
                                                        (la ? MX_PROBE_A : 0) | (lb ? MX_PROBE_B : 0)) : NULL;
    /* The GEMM's last load has its data in no earlier than the transfers so
     * far, replayed as offered, allow (drain_floor).  Only the last: the
     * walk's later rules read its own channel time, rows and queue, which
     * a floor on one load's data does not move (applied to every load:
     * seeds 14..19 mean 0.942% but a row 4.4% -> 10.1%, and 16 KiB
     * buffers on HBM2 2.98% -> 3.25%; docs/DECISIONS.md, stop 31). */
    /* Every load's data comes when the replay has it (replay_at), where
     * the replay runs (chan_replay).  With more than one channel (HBM2): each
     * channel's controller serves its own reads and drains its own writes,
     * so a load's data comes when its slowest channel serves its last
     * burst, behind the writes queued there, while a drain in the stores'
     * channels leaves the load's reads elsewhere alone.  The walk keeps one
     * channel time for all (HBM2 8x8 ws MXSF 2x555x16: loads 3 and 4 in at
     * 404 and 524 in the walk, 427 and 454 in the cycle engine and the
     * replay; docs/DECISIONS.md, issue 13, stop 32).  The walk's own state
     * (channel time, rows, queue) is not moved: the rules that read it
     * decide when the stores are offered, which the replay takes as given. */
    long long floor_at = 0, replay_at = 0;
    const long long offered = tl->double_buffer ? w->end2 : w->end1; /* the DMA offers it */
    xfer_ref nx;
    /* replay_all: also in GEMMs over PROBE_SIG_TILES (class probes), whose
     * halves and final drain the replay times; their loads left to the
     * walk's rules met stores the replay had offered on time (DDR4 32x32
     * ws MXSF 320x432x16, 40 tiles: -9.4% -> +15.5% with the halves only,
     * 0.00% with the loads too) */
    if (pr && (x->pm.by_sig || x->replay_all)) {
        const int last = !next_load_of(x, mi, ni, ki, &nx);
        /* a reserved slot keeps its own time, unless the replay also freed
         * the held stores it was reserved ahead of (replay_all: then up to
         * the final drain's bound, which the whole GEMM fits) */
        const int rep = chan_replay(c) && (w->res_len == 0 || x->replay_all);
        if (last || rep) {
            const xfer_ref me = {mi, ni, ki, (la ? MX_PROBE_A : 0) | (lb ? MX_PROBE_B : 0)};
            const mx_probe_xfer f = xfer_of(x, &me);
            /* with the next load, offered when the tile before this one
             * ends (end1), if that is after this load's offer */
            if (rep) {
                mx_probe_xfer f2;
                const int next = !last && tl->double_buffer && w->end1 > offered;
                if (next) f2 = xfer_of(x, &nx);
                replay_at = replay_end(x, offered, &f, 1, w->end1, next ? &f2 : NULL, x->replay_all ? REPLAY_ALL_BURSTS : REPLAY_LOAD_BURSTS, -1);
            }
            /* the floor only where the replay's time does not replace it */
            if (last && replay_at <= 0) floor_at = drain_floor(x, offered, &f);
        }
    }
    if (pr && w->res_len > 0) { /* issued before a held store drained: in its reserved slot */
        long long occ = w->res_len;
        long long at = mx_llmax(w->res_at, tl->double_buffer ? w->end2 : w->end1);
        w->dram_free = mx_llmax(w->dram_free, at + occ);
        w->res_len = 0;
        w->ld_behind_st = 1;
        const xfer_ref me = {mi, ni, ki, (la ? MX_PROBE_A : 0) | (lb ? MX_PROBE_B : 0)};
        dram_busy(&w->wq, at, at + occ, xfer_ranks(x, &w->wq, &me, pr->ranks));
        w->probe_pj += pr->cmd_pj;
        if (x->chain_on) { const mx_probe_xfer f = xfer_of(x, &me); chain_add(x, offered, at, at + occ, &f); }
        w->probe_rd += pr->bursts;
        w->probe_act += pr->act;
        if (replay_at > 0) return replay_at;
        return mx_llmax(floor_at, at + occ + dram_latency(c));
    }
    if (pr) { /* the DRAM model ran this very transfer: its time, latency included */
        long long occ = mx_llmax(1, pr->cycles - dram_latency(c));
        /* past the first round, refresh is charged in expectation
         * (ref_delay): a probe that ran into REFs would count them twice */
        if (pr->cycles_noref > 0 && x->rs.on && (double)want >= x->rs.exact_end)
            occ = mx_llmax(1, pr->cycles_noref - dram_latency(c));
        const int what = (la ? MX_PROBE_A : 0) | (lb ? MX_PROBE_B : 0);
        const xfer_ref me = {mi, ni, ki, what};
        /* arrived as a store drained, or soon after the last transfer, a
         * store that drained while it was wanted: the write-to-read
         * turnaround and the store's rows still hold it, less the gap */
        const long long gap = want - w->wq.last_end;
        const int behind = w->wq.last_cls >= 0 && w->wq.drain_start < wanted &&
                           (gap == 0 || (gap > 0 && w->wq.last_end > w->wq.ld_end));
        if (behind) {
            long long f = x->lite ? 0 : load_after_store(x, w, mi, ni, ki, (la ? MX_PROBE_A : 0) | (lb ? MX_PROBE_B : 0), 1);
            /* f counts from an idle store's last write; a drain that began
             * behind a load's row in its bank (last_blk_row) wrote its
             * last one last_lat after its channel time, `block` later */
            const long long wl = w->wq.last_blk_row ? mx_llmax(c->dram_cal.write_latency, w->wq.last_lat)
                                                    : c->dram_cal.write_latency;
            if (f > 0) occ = mx_llmax(occ, wl + f - dram_latency(c) - gap);
        }
        double pj = pr->cmd_pj;
        long long act = pr->act;
        /* caught up with the last load and served with it (no write went
         * between them): its data comes when their pair probe's does */
        if (ovt >= 0 && want == w->dram_free && !behind) occ = mx_llmax(1, ovt - dram_latency(c) - want);
        if (!x->lite && want > w->dram_free && w->ld_cls >= 0 && w->wq.ld_end >= w->wq.last_end) {
            /* on an idle DRAM whose rows the last load left open (stores
             * since then: none) */
            const after_probe *ap = after_of(x, &w->ld, &me, 1);
            if (ap->cyc_idle > 0) {
                long long e, l;
                after_at_gap(ap, want - w->wq.ld_issue, &e, &l);
                occ = mx_llmax(1, e - dram_latency(c));
                pj = ap->pj;
                act = ap->act;
            }
        }
        long long rd = ref_delay(&x->rs, want, occ, xfer_ranks(x, &w->wq, &me, pr->ranks), &w->ref_used);
        /* Walked tile by tile: a REF due inside this load (its phase, past
         * the first round) holds it tRFC, not its expectation.  Charging it
         * to the load's time drifts the walk's phase (REFs the cycle engine
         * hides: DECISIONS); only the next held store's cut decision sees it
         * (wr_queue_serve_half), where one REF decides whether the drain ends
         * before the next load's reads come. */
        w->wq.ref_extra = x->chain_on && (double)want >= x->rs.exact_end
                              ? mx_llmax(0, ref_exact(&x->rs, want, want + occ + rd, xfer_ranks(x, &w->wq, &me, pr->ranks)) - rd)
                              : 0;
        const int stream = w->ld_cls >= 0 && want == w->dram_free; /* right behind the last load */
        const long long prev_issue = w->wq.ld_issue;                /* its last request's CAS */
        w->dram_free = want + occ + rd;
        dram_busy(&w->wq, want, w->dram_free, xfer_ranks(x, &w->wq, &me, pr->ranks));
        load_done(x, w, me, w->dram_free + dram_latency(c) - read_lag(c));
        w->ld_behind_st = behind;
        w->probe_pj += pj;
        if (x->chain_on) { const mx_probe_xfer f = xfer_of(x, &me); chain_add(x, offered, want, w->dram_free, &f); }
        w->probe_rd += pr->bursts;
        w->probe_act += act;
        /* the next load, issued when the previous tile ended (end1), may
         * arrive while this one still reads and overtake its last bursts;
         * streaming, this one's reads follow the last one's last CAS by a
         * burst */
        long long over = 0, next = -1;
        if (!x->lite && tl->double_buffer && w->end1 < w->dram_free) {
            const long long burst = (long long)ceil(c->dram.BL / 2 * c->dram.tCK_ns * c->clock_ghz);
            over = load_overtaken(x, &me, pr, stream ? w->end1 - prev_issue - burst : w->end1 - want, stream, &next);
        }
        /* also behind a draining store: the next load, issued while this
         * one reads, shares the bus with its reads in other bank groups
         * (DDR4 8x8 is MXSF 176x32x192: load 4 in at 2,864, 352 cycles after
         * load 3, where alone it takes 477); the pair probe places it after
         * this one's end as the walk has it */
        if (next >= 0) w->ovt_next = w->dram_free + dram_latency(c) + over + next;
        /* Behind a drain, the next load issued before this one's reads
         * began (its own channel time before the end) waited with it for
         * the drain: both are one stream of row hits (DDR4 8x8 ws MXSF
         * 128x48x1: tile 4's data 5 cycles after tile 3's), probed as
         * issued together */
        if (!x->lite && behind && tl->double_buffer && w->end1 <= w->dram_free - mx_llmax(1, pr->cycles - dram_latency(c))) {
            long long nx2 = -1;
            (void)load_overtaken(x, &me, pr, 0, 0, &nx2);
            if (nx2 >= 0) w->ovt_next = w->dram_free + dram_latency(c) + nx2;
        }
        if (replay_at > 0) return replay_at;
        return mx_llmax(floor_at, w->dram_free + dram_latency(c) + over);
    }
    if (!x->replay_all) {
        x->chain_n = -1;
        w->dram_free = want + dram_cycles(c, la + lb, 0);
        return w->dram_free + dram_latency(c);
    }
    /* The bandwidth channel, or a DRAM model without probes (lite), the
     * whole GEMM replayed (replay_all): the
     * load's data when the channel the cycle engine steps (mx_chan) has
     * it, with every transfer so far and the next load offered as the walk
     * offered them.  The rules above (and chan_release) time a read stream
     * at the channel's rate, a few cycles ahead of the ring-bound one; a
     * store that then seems to fit the gap between two loads may miss it
     * and wait ring periods behind the next load (32x32 os BF16 263x80x752:
     * -10.7% with the rules; DECISIONS, issue 13, stop 34). */
    const xfer_ref me = {mi, ni, ki, (la ? MX_PROBE_A : 0) | (lb ? MX_PROBE_B : 0)};
    const mx_probe_xfer f = xfer_of(x, &me);
    mx_probe_xfer f2;
    /* lite: tile 0's load with tile 1's, which the DMA issues right behind
     * it at the start (the pair probe's pair) */
    const int next = tl->double_buffer && (w->end1 > offered || (x->lite && w->t == 0)) && next_load_of(x, mi, ni, ki, &nx);
    if (next) f2 = xfer_of(x, &nx);
    const long long chan_at = replay_end(x, offered, &f, 1, w->end1, next ? &f2 : NULL, REPLAY_ALL_BURSTS, -1);
    w->dram_free = want + dram_cycles(c, la + lb, 0);
    w->res_len = 0; /* lite: a slot reserved by the closed-form occupancy, taken */
    chain_add(x, offered, want, w->dram_free, &f);
    if (chan_at > 0) return chan_at;
    /* lite: no probe timed it, and the replay always runs there: a model
     * error, not a fallback estimate */
    if (x->lite) x->pm.failed = 1;
    return w->dram_free + dram_latency(c);
}

/* The load of the tile after (mi, ni, ki) in loop order: 1 and *nx, or 0
 * (no tile after it, or it loads nothing). */
static int next_load_of(const walk_ctx *x, long long mi, long long ni, long long ki, xfer_ref *nx)
{
    const mx_tiling *tl = x->tl;
    long long nmi = mi, nni = ni, nki = ki + 1;
    if (nki == tl->k_tiles) {
        nki = 0;
        long long *inner = tl->n_outer ? &nmi : &nni, *outer = tl->n_outer ? &nni : &nmi;
        const long long inner_n = tl->n_outer ? tl->m_tiles : tl->n_tiles, outer_n = tl->n_outer ? tl->n_tiles : tl->m_tiles;
        if (++*inner == inner_n) {
            *inner = 0;
            if (++*outer == outer_n) return 0;
        }
    }
    long long a0, b0, a1, b1;
    tile_ids(tl, mi, ni, ki, &a0, &b0);
    tile_ids(tl, nmi, nni, nki, &a1, &b1);
    const int what = (a1 != a0 ? MX_PROBE_A : 0) | (b1 != b0 ? MX_PROBE_B : 0);
    if (!what) return 0;
    *nx = (xfer_ref){nmi, nni, nki, what};
    return 1;
}

/* The channel cycles of the load of the tile after (mi, ni, ki) in loop
 * order (0: none, or it loads nothing); *nx (unless NULL): that load. */
static long long next_load_ref(walk_ctx *x, long long mi, long long ni, long long ki, xfer_ref *nx)
{
    const mx_tiling *tl = x->tl;
    xfer_ref r;
    if (!next_load_of(x, mi, ni, ki, &r)) return 0;
    if (nx) *nx = r;
    const long long m = x->dims_m[r.mi == tl->m_tiles - 1], n = x->dims_n[r.ni == tl->n_tiles - 1],
                    k = x->dims_k[r.ki == tl->k_tiles - 1];
    if (!x->c->dram_model || x->lite) { /* the bandwidth channel, or lite: its bytes at the channel's rate, as walk_load */
        const long long la = r.what & MX_PROBE_A ? load_dram_bytes(x, r.mi, r.ni, r.ki, m, n, k, MX_PROBE_A) : 0;
        const long long lb = r.what & MX_PROBE_B ? load_dram_bytes(x, r.mi, r.ni, r.ki, m, n, k, MX_PROBE_B) : 0;
        return dram_cycles(x->c, la + lb, 0);
    }
    const mx_tile_probe *p = probe_get(&x->pm, x->c, x->fa, x->fb, x->fo, x->g, tl, r.mi, r.ni, r.ki, m, n, k, r.what);
    return p ? mx_llmax(1, p->cycles - dram_latency(x->c)) : 0;
}

static long long next_load_occupancy(walk_ctx *x, long long mi, long long ni, long long ki)
{
    return next_load_ref(x, mi, ni, ki, NULL);
}

/* After tile (mi, ni, ki) computed: its output tile's store (after the last
 * K tile; partial sums stay on chip), through the RQU, queued for DRAM. */
static void walk_store(walk_ctx *x, walk_state *w, long long mi, long long ni, long long ki, long long m,
                       long long n, long long k)
{
    const mx_arch_config *c = x->c;
    const int ek = ki == x->tl->k_tiles - 1;
    long long store = tile_counts(c, x->fa, x->fb, x->fo, m, n, k, ki > 0, ek, &w->ctr);
    if (store && x->burst_exact) {
        long long sb = burst_bytes(&x->bm, c, x->fa, x->fb, x->fo, x->g, x->tl, mi, ni, 0, m, n, k, MX_PROBE_STORE);
        w->ctr.dram_write[MX_OP_OUT] += sb - store;
        store = sb;
    }
    const int last_out = w->t == x->ntiles - 1;
    long long extra = ek ? x->extra_per_out + (last_out ? x->extra_rem : 0) : 0;
    if (c->ideal_memory || store + extra == 0) return;
    long long wcyc = dram_cycles(c, store + extra, 1);
    const mx_tile_probe *pw = x->use_probes && !x->lite && store
                                  ? probe_get(&x->pm, c, x->fa, x->fb, x->fo, x->g, x->tl, mi, ni, 0, m, n, k, MX_PROBE_STORE)
                                  : NULL;
    if (pw) { /* channel time: the probe's, less the latency of its last write */
        wcyc = mx_llmax(1, pw->cycles - c->dram_cal.write_latency) + dram_cycles(c, extra, 1);
        wcyc += ref_delay(&x->rs, w->end1, wcyc, pw->ranks, NULL);
        w->probe_pj += pw->cmd_pj + (double)extra * c->dram_cal.wr_pj_per_byte;
        w->probe_wr += pw->bursts;
        w->probe_act += pw->act;
    }
    /* the RQU re-quantizes a finished output tile after its last K tile;
     * its store leaves when the codes are ready */
    long long avail = w->end1;
    if (ek && !c->scalesim_compat) {
        long long elems = m * n + x->rqu_extra_per_out + (last_out ? x->rqu_extra_rem : 0);
        avail = mx_llmax(w->end1, w->rqu_free) + mx_cdiv(elems, c->rqu_elements_per_cycle);
        w->rqu_free = avail;
    }
    w->last_avail = mx_llmax(w->last_avail, avail);
    if (x->chain_on && store) {
        const xfer_ref me = {mi, ni, 0, MX_PROBE_STORE};
        const mx_probe_xfer f = xfer_of(x, &me);
        if (pw || (x->replay_all && (!c->dram_model || x->lite))) { /* a probe, or the replay */
            chain_add(x, avail, avail, avail, &f);
            if (ek && x->replay_all) w->st_ci[w->oidx % 2] = x->chain_n;
            if (pw || x->lite) x->chain_extra_pj += (double)extra * c->dram_cal.wr_pj_per_byte;
        } else {
            x->chain_n = -1;
        }
    }
    /* The output half is held until the store has left the buffer.  With a
     * DRAM model: at once when its bursts fit the controllers' write queues
     * below the drain watermark (spread evenly over the channels), else when
     * the queue drains, in a gap between reads (wr_queue_pop).  Without:
     * after its channel time. */
    long long nb = c->dram_model ? mx_cdiv(store + extra, (long long)x->bm.burst) : 0;
    int hold = 0;
    if (ek && c->dram_model) {
        /* the loads that keep reads waiting: the next tile's (double
         * buffered: wanted since the tile before this one finished), then
         * (double buffered) the one after, wanted when this tile finished */
        const long long nocc = x->use_probes ? next_load_occupancy(x, mi, ni, ki) : 0;
        long long lw[2], lo[2];
        int nl = 0;
        if (nocc > 0) {
            /* unless walk_tile reserved its slot ahead of the held stores'
             * drain (res_len): it then ends before dram_free, and the
             * queue drains from there until the load after it is wanted */
            if (w->res_len == 0) {
                lw[nl] = mx_llmax(w->dram_free, x->tl->double_buffer ? w->end2 : w->end1);
                lo[nl++] = nocc;
            }
            if (x->tl->double_buffer && w->t + 2 < x->ntiles) { lw[nl] = w->end1; lo[nl++] = -1; }
        }
        /* spread over the channels as unevenly as this store's bursts
         * (evenly without a probe) */
        const long long queued = wr_queue_bursts_at(&w->wq, w->dram_free, avail, lw, lo, nl) + nb;
        long long per_ch = mx_cdiv(queued, c->dram.channels);
        if (pw && pw->bursts > 0) per_ch = (long long)ceil((double)queued * (double)pw->ch_bursts / (double)pw->bursts);
        if (per_ch < c->dram.write_high) w->wq.out_free[w->oidx % 2] = avail;
        else {
            hold = 1 << (w->oidx % 2);
            w->held_store = 1;
        }
    } else if (ek) {
        w->wq.out_free[w->oidx % 2] = avail + wcyc;
        if (x->sram_walk) { /* its last request may enter much later: walk_tile (chan_release) */
            w->chan_cyc[w->oidx % 2] = (double)(store + extra) / c->dram_bytes_per_cycle;
            w->chan_avail[w->oidx % 2] = avail;
        }
    }
    /* The store's channel time in each context it may start in (wr_queue_start
     * picks): its probe's own part replaced, second copies and refresh kept;
     * and its latency to the last write. */
    const long long wlat = c->dram_cal.write_latency;
    wr_batch nbt = {.t = avail, .cyc = wcyc, .cyc_follow = wcyc, .follow_base = -1, .cyc_after_st = wcyc,
                    .lat = wlat, .lat_after_st = wlat, .rest = pw ? wcyc - pw->cycles + wlat : -1,
                    .mi = mi, .ni = ni, .cls = (mi == x->tl->m_tiles - 1) * 2 + (ni == x->tl->n_tiles - 1),
                    .halves = hold, .bursts = nb,
                    .tail = pw ? mx_llmax(0, pw->cycles - wlat - pw->accept) : -1, .cyc_alone = wcyc,
                    .ch_bursts = !c->dram_model ? nb
                                 : pw && pw->bursts > 0 ? mx_cdiv(nb * pw->ch_bursts, pw->bursts)
                                                        : mx_cdiv(nb, c->dram.channels)};
    if (pw) {
        const xfer_ref me = {mi, ni, 0, MX_PROBE_STORE};
        nbt.ranks = xfer_ranks(x, &w->wq, &me, pw->ranks);
        if (hold) nbt.full_ch = xfer_channels(x, &me, 1);
    }
    if (pw && ek && w->oidx > 0) { /* behind the previous output tile's store */
        const xfer_ref me = {mi, ni, 0, MX_PROBE_STORE}, prev = prev_output(x, w->oidx);
        long long f, lat;
        if ((f = store_follow(x, &prev, &me, nbt.ch_bursts)) > 0) {
            nbt.follow_base = wcyc - mx_llmax(1, pw->cycles - wlat);
            nbt.cyc_follow = nbt.follow_base + f;
        }
        if ((f = after_time(x, &prev, &me, &lat)) > 0) {
            nbt.cyc_after_st = nbt.rest + mx_llmax(1, f - lat);
            nbt.lat_after_st = lat;
        }
    }
    const int full = w->wq.n == WR_QUEUE_MAX;
    if (x->chain_on && pw && x->chain_n > 0) {
        nbt.start_out = &x->chain[x->chain_n - 1].t;
        nbt.end_out = &x->chain[x->chain_n - 1].end;
    }
    wr_queue_push(&w->wq, &nbt);
    if (!full) store_after_load(x, w, (w->wq.head + w->wq.n - 1) % WR_QUEUE_MAX); /* on the rows the last load left open */
    if (ek) w->oidx++;
}

/* The bandwidth channel (no DRAM model): when the last request of the
 * store holding output half h enters the channel, as tile (mi, ni, ki),
 * whose load the walk has just timed, is about to start.  The DMA issues
 * a load's requests before any store's (mx_cycle.c), and keeps at most
 * MX_CHAN_RING reads outstanding: while loads stream, they keep ring -
 * latency cycles queued ahead (`ahead`), and a store fills the rest of the
 * window (`room`) at once; its writes delay the reads behind them, so the
 * ring frees a room's worth again a ring's time later (`period`).  So a
 * store enters a room per period while loads stream, and at the channel's
 * rate between them: between this tile's load (its last request in) and
 * the next one's, wanted once the previous tile finished; the one after
 * that waits for this tile. */
static long long chan_release(walk_ctx *x, const walk_state *w, long long mi, long long ni, long long ki, int h)
{
    const mx_arch_config *c = x->c;
    const double win = chan_window(c), lat = c->dram_latency;
    const double ahead = fmin(win, fmax(0, chan_ring(c) - lat)), room = win - ahead, period = ahead + lat;
    double t = (double)w->chan_avail[h], rem = w->chan_cyc[h];
    /* loads streaming over [s, e): their last requests in by e */
    double s[2] = {-1, 0}, e[2] = {(double)w->dram_free - win, 0};
    int nseg = 1;
    const long long nocc = x->tl->double_buffer ? next_load_ref(x, mi, ni, ki, NULL) : 0;
    if (nocc > 0) {
        s[1] = (double)w->end1;
        e[1] = fmax(s[1], e[0]) + (double)nocc;
        nseg = 2;
    }
    double queued = fmax(0, fmin(win, (double)w->dram_free - t)); /* channel time ahead of it */
    for (int i = 0; i < nseg; i++) {
        if (t < s[i]) { /* a gap: the window's room, then the channel's rate */
            const double need = rem - (win - queued);
            if (need <= s[i] - t) return (long long)ceil(t + fmax(0, need));
            rem -= win - queued + (s[i] - t);
            t = s[i];
            queued = win;
        }
        if (t < e[i]) { /* within the stream: a room per period */
            if (room <= 0) { t = e[i]; queued = ahead; continue; }
            const double rounds = ceil(rem / room);
            if (t + (rounds - 1) * period <= e[i]) return (long long)ceil(t + (rounds - 1) * period);
            rem -= room * (1 + floor((e[i] - t) / period));
            t = e[i];
            queued = ahead;
        }
    }
    return (long long)ceil(t + fmax(0, rem - (win - queued))); /* the loads have stopped */
}

/* Whether the channels the held stores up to the one holding output half h
 * fill (their DMA waits there for a drain) are read by neither the load just
 * timed nor the next one.  Each channel's controller turns to writes when no
 * read waits in it, so such a drain runs beside those loads (HBM2 maps a
 * tile's bursts to few of its 8 channels: a 64x48 MXSF store fills one, the
 * next A tile streams from another), where the walk's one channel time
 * would put it after the loads and the next load after it. */
static int drain_beside(walk_ctx *x, const walk_state *w, long long mi, long long ni, long long ki, int h)
{
    if (!x->use_probes) return 0;
    uint64_t full = 0;
    for (int i = 0; i < w->wq.n; i++) {
        const wr_batch *b = &w->wq.b[(w->wq.head + i) % WR_QUEUE_MAX];
        if (x->pm.by_sig) full |= b->full_ch;
        else if (b->halves) full |= xfer_channels(x, &(xfer_ref){b->mi, b->ni, 0, MX_PROBE_STORE}, 1);
        if (b->halves >> h & 1) break;
    }
    if (!full || w->ld_cls < 0) return 0;
    uint64_t rd = w->ld.what == XFER_PAIR ? probe_channels(x, &x->pair_xf[0], 0) | probe_channels(x, &x->pair_xf[1], 0)
                                          : xfer_channels(x, &w->ld, 0);
    xfer_ref nx;
    if (next_load_of(x, mi, ni, ki, &nx)) rd |= xfer_channels(x, &nx, 0);
    return (rd & full) == 0;
}

/* One step of the walk: tile (mi, ni, ki) loads (what is not resident since
 * the previous tile: *last_a, *last_b), waits for its data and its output
 * half, computes, and stores. */
static void walk_tile(walk_ctx *x, walk_state *w, long long mi, long long ni, long long ki, long long *last_a,
                      long long *last_b)
{
    const mx_tiling *tl = x->tl;
    const int em = mi == tl->m_tiles - 1, en = ni == tl->n_tiles - 1, ek = ki == tl->k_tiles - 1;
    const long long m = x->dims_m[em], n = x->dims_n[en], k = x->dims_k[ek];
    long long aid, bid;
    tile_ids(tl, mi, ni, ki, &aid, &bid);
    long long la = aid != *last_a ? mx_arch_tile_bytes(m, k, x->fa->bits_per_elem) : 0;
    long long lb = bid != *last_b ? mx_arch_tile_bytes(k, n, x->fb->bits_per_elem) : 0;
    *last_a = aid;
    *last_b = bid;
    const long long ready = walk_load(x, w, mi, ni, ki, m, n, k, la, lb);
    long long start = mx_llmax(w->end1, ready);
    w->dram_stall += start - w->end1;
    const int half = (int)(w->oidx % 2);
    if (ki == 0 && x->sram_walk && w->wq.held[half] && drain_beside(x, w, mi, ni, ki, half)) {
        /* its drain runs in channels no load near it reads: from when the
         * store is ready (behind the stores before it), not after the
         * loads' channel time, on rows no load left (ald), and the loads
         * do not wait for it */
        const long long lf = w->dram_free;
        for (int i = 0; i < w->wq.n; i++) {
            wr_batch *b = &w->wq.b[(w->wq.head + i) % WR_QUEUE_MAX];
            b->ald = NULL;
            if (b->halves >> half & 1) break;
        }
        wr_queue_serve_half(&w->wq, mx_llmax(0, w->wq.last_end), half);
        w->wq.cut_fit_end = -1;
        w->wq.cut_res = -1;
        w->dram_free = lf;
    }
    if (ki == 0 && x->sram_walk && w->wq.held[half]) { /* its store waits for the write queue */
        /* The controller serves reads first: when the next tile's load was
         * issued (the previous tile finished computing) before the channel
         * freed, it goes before the store drains (its channel time is
         * reserved here and used by the next walk_load). */
        long long from = w->dram_free;
        const long long nocc = x->use_probes && w->end1 <= from ? next_load_occupancy(x, mi, ni, ki) : 0;
        xfer_ref nx;
        if (nocc > 0) {
            w->res_at = from;
            w->res_len = nocc;
            /* served with this tile's load (load_overtaken): its data then */
            if (w->ovt_next >= 0) w->res_len = mx_llmax(1, mx_llmin(nocc, w->ovt_next - dram_latency(x->c) - from));
            from += nocc;
        } else if (x->use_probes && x->tl->double_buffer && (w->wq.cut_occ = next_load_ref(x, mi, ni, ki, &nx)) > 0) {
            /* else the next load's reads arrive when the previous tile
             * finished (end1), maybe while the store drains
             * (wr_queue_serve_half, wr_queue_pop) */
            w->wq.cut_at = w->end1;
            w->wq.cut_long = !x->pm.by_sig;
            w->wq.cut_ch = xfer_channels(x, &nx, 0);
        }
        w->wq.rd_at = w->wq.cut_at;
        w->dram_free = wr_queue_serve_half(&w->wq, from, half); /* it drains after the loads */
        w->wq.rd_at = -1;
        if (w->wq.cut_res >= 0) { /* the drain was split: the next load goes in its slot */
            /* behind the store's first part, the write-to-read turnaround
             * and the store's rows hold it (as a load behind a drain in
             * walk_load); the store's rest and its release move on with it */
            const long long f = x->lite ? 0 : load_after_store(x, w, nx.mi, nx.ni, nx.ki, nx.what, 0);
            const long long d =
                f > 0 ? mx_llmax(0, x->c->dram_cal.write_latency + f - dram_latency(x->c) - w->wq.cut_occ) : 0;
            w->res_at = w->wq.cut_res;
            w->res_len = w->wq.cut_occ + d;
            w->dram_free += d;
            w->wq.last_end += d;
            w->wq.busy_end += d;
            if (w->wq.cut_fit_end < 0) w->wq.out_free[half] += d;
            w->wq.split_rest_at += d;
        }
        w->wq.cut_fit_end = -1;
        w->wq.cut_at = -1;
        w->wq.cut_ch = 0;
        w->wq.cut_occ = 0;
        w->wq.cut_res = -1;
    }
    /* A store frees its output half when its last burst enters the write
     * queue.  Where the store was held for a full queue, the walk's rules
     * (the drain's channel time, split around the next load with the
     * class's load-after-store sample) place that too late on DDR4 32x32
     * MXSF: 544x108x32, 17 stores of 55 bursts in one bank at tCCD_L, a
     * 17-burst load between drains; the walk's steady state 420 cycles a
     * tile, the cycle engine's 358.  Where every transfer of the GEMM fits
     * the replay (replay_all), the replay of the transfers so far, with the
     * next load (offered as the tile before this one ended), frees it:
     * nothing offered later can enter before it.  It gives the cycle
     * engine's release to the cycle on that row's tiles 2..13; with every
     * load and the final drain replayed too, the GEMM's 6,512 cycles.  Only
     * where the whole GEMM fits: a replay that stops at its bound mid-GEMM
     * hands the walk tiles its own rules did not time (HBM2 32x32 os MXSF
     * 1058x16x144 with a 2,048-burst bound: +8.2% -> +12.1%). */
    if (ki == 0 && x->replay_all && w->st_ci[half] > 0) {
        xfer_ref nx;
        mx_probe_xfer fn, *fp = NULL;
        if (tl->double_buffer && next_load_of(x, mi, ni, ki, &nx)) { fn = xfer_of(x, &nx); fp = &fn; }
        const long long rel = replay_end(x, fp ? w->end1 : 0, fp, 1, 0, NULL, REPLAY_ALL_BURSTS, w->st_ci[half] - 1);
        if (rel > 0) {
            w->wq.out_free[half] = rel;
            w->chan_cyc[half] = 0; /* the channel's replay, not chan_release */
        }
        w->st_ci[half] = 0;
    }
    if (ki == 0 && w->chan_cyc[half] > 0) { /* the channel: when the store's last request went in */
        w->wq.out_free[half] = mx_llmax(w->wq.out_free[half], chan_release(x, w, mi, ni, ki, half));
        w->chan_cyc[half] = 0;
    }
    if (ki == 0 && x->sram_walk && start < w->wq.out_free[half]) { /* output half still held */
        /* by the RQU up to its last end, then by the store's DRAM writes:
         * the cycle engine's split (cycle_compute), so both engines
         * name the same cause */
        const long long wait = w->wq.out_free[half] - start;
        const long long by_rqu = mx_llmin(wait, mx_llmax(0, w->rqu_free - start));
        w->rqu_stall += by_rqu;
        w->dram_stall += wait - by_rqu;
        start = w->wq.out_free[half];
    }
    const long long cyc = x->shape_cyc[em][en][ek];
    long long eff = x->slow > 1.0 ? (long long)ceil((double)cyc * x->slow) : cyc;
    if (x->sram_walk) { /* the bank model the cycle engine uses, once per shape */
        if (x->shape_sram[em][en][ek] < 0)
            x->shape_sram[em][en][ek] = mx_cycle_tile_sram_stall(x->c, x->fa, x->fb, m, n, k);
        eff = cyc + mx_llmax(0, x->shape_sram[em][en][ek]);
    }
    w->sram_stall += eff - cyc;
    w->pure_compute += cyc;
    w->end2 = w->end1;
    w->end1 = start + eff;
    walk_store(x, w, mi, ni, ki, m, n, k);
}

/* Background energy of a GEMM lasting `cycles`: every rank in precharged
 * standby (IDD2N) or, with a bank open, active standby (IDD3N); open-page
 * banks stay open from a rank's first access on except after a REF until
 * the next access (wr_queue.closed). */
static double background_pj(const mx_arch_config *c, const wr_queue *q, long long cycles, double row_closed)
{
    double pj[MX_DRAM_E_N];
    mx_dram_energy_per_command(&c->dram, pj);
    const double ratio = c->dram.tCK_ns * c->clock_ghz, ranks = (double)c->dram.channels * c->dram.ranks;
    const double T = (double)cycles, touched = (double)__builtin_popcountll(q->touched);
    double gaps = q->closed; /* per touched rank, after REFs */
    if (q->busy_end >= 0 && cycles > q->busy_end) gaps += closed_in_gap((double)(cycles - q->busy_end), q->refi);
    /* open time summed over the ranks: each touched one from its first access, less its REFs' gaps */
    /* less the row switches' closed time (walk_chain_pj; DRAM clocks) */
    double open = touched * T - q->first_touch_sum - touched * gaps - row_closed * ratio;
    if (c->dram.page_policy == MX_PAGE_CLOSED || open < 0) open = 0; /* closed-page: closed after every access */
    return (ranks * T * pj[MX_DRAM_E_BG_PRE] + open * (pj[MX_DRAM_E_BG_ACT] - pj[MX_DRAM_E_BG_PRE])) / ratio;
}

/* After the walk: the drain of the last stores, the RQU's floor, and the
 * counters and DRAM energy into s. */
/* The DMA's whole bursts of the GEMM's A loads, B loads and stores: the
 * walk charges each tile its shape class's first tile (burst_bytes), but a
 * tile whose rows or columns start inside a burst moves more.  -1 when a
 * count (or its bytes) leaves 64 bits. */
static int gemm_bursts(const walk_ctx *x, long long bursts[3])
{
    const mx_tiling *tl = x->tl;
    /* each A tile is loaded once when the loops inside n have one tile each
     * (A stays while n moves), else once per n tile; B likewise with m;
     * each output tile is stored once, after its last K tile */
    const long long inner_a = tl->n_outer ? tl->m_tiles * tl->k_tiles : tl->k_tiles;
    const long long inner_b = tl->n_outer ? tl->k_tiles : tl->n_tiles * tl->k_tiles;
    const long long reloads[3] = {inner_a == 1 ? 1 : tl->n_tiles, inner_b == 1 ? 1 : tl->m_tiles, 1};
    static const int what[3] = {MX_PROBE_A, MX_PROBE_B, MX_PROBE_STORE};
    for (int i = 0; i < 3; i++) {
        long long b = mx_cycle_grid_bursts(x->c, x->fa, x->fb, x->fo, x->g->M, x->g->N, x->g->K, tl, what[i]), by;
        if (b < 0 || __builtin_mul_overflow(b, reloads[i], &bursts[i]) ||
            __builtin_mul_overflow(bursts[i], (long long)x->bm.burst, &by))
            return -1;
    }
    return 0;
}

/* The GEMM's exact DMA bursts (gemm_bursts) into s, whose counters are
 * the walk's already; *rd, *wr: its read and write bursts.  -1: they leave
 * 64 bits. */
static int exact_traffic(const walk_ctx *x, const walk_state *w, mx_stats *s, long long *rd, long long *wr)
{
    long long bursts[3];
    if (gemm_bursts(x, bursts) != 0) return -1;
    long long *field[3] = {&s->dram_read[MX_OP_A], &s->dram_read[MX_OP_B], &s->dram_write[MX_OP_OUT]};
    const long long walked[3] = {w->ctr.dram_read[MX_OP_A], w->ctr.dram_read[MX_OP_B], w->ctr.dram_write[MX_OP_OUT]};
    for (int i = 0; i < 3; i++) *field[i] += bursts[i] * (long long)x->bm.burst - walked[i]; /* no overflow: gemm_bursts */
    *rd = bursts[0] + bursts[1];
    *wr = bursts[2];
    return 0;
}

/* The command energy of the GEMM's transfers as one sequence in the order
 * they were issued (loads) or ready (stores), with the commands in it: a
 * probe alone starts with every bank closed, but in a short GEMM the next
 * tile's A, B or output often lies in the rows the last one of its kind
 * left open.  0, or -1: not available. */
static int walk_chain_pj(walk_ctx *x, double *pj, long long *act, long long *rd, long long *wr, double *closed)
{
    if (!x->chain_on || x->chain_n <= 0) return -1;
    walk_replay_free(x); /* the chain is sorted below: the replay's order is gone */
    for (int i = 1; i < x->chain_n; i++) /* stable: ties keep the walk's order */
        for (int j = i; j > 0 && x->chain[j - 1].t > x->chain[j].t; j--) {
            const chain_xfer tmp = x->chain[j];
            x->chain[j] = x->chain[j - 1];
            x->chain[j - 1] = tmp;
        }
    mx_probe_xfer *f = malloc((size_t)x->chain_n * sizeof *f);
    int *join = malloc((size_t)x->chain_n * sizeof *join);
    if (!f || !join) {
        free(f);
        free(join);
        return -1;
    }
    for (int i = 0; i < x->chain_n; i++) {
        f[i] = x->chain[i].f;
        /* arrived before the one ahead (of its kind) was served: the
         * controller has both queued and serves their row hits together */
        join[i] = i > 0 && (f[i].what == MX_PROBE_STORE) == (f[i - 1].what == MX_PROBE_STORE) &&
                  x->chain[i].t <= x->chain[i - 1].end;
    }
    const int rc = mx_cycle_probe_chain(&x->c_noref, x->fa, x->fb, x->fo, x->g->M, x->g->N, x->g->K, f, join,
                                        x->chain_n, pj, act, rd, wr, closed);
    free(f);
    free(join);
    if (rc != 0) return -1;
    *pj += x->chain_extra_pj;
    return 0;
}

static int walk_finish(walk_ctx *x, walk_state *w, mx_stats *s)
{
    const mx_arch_config *c = x->c;
    tile_ctr_add(s, &w->ctr);
    long long rd_bursts = 0, wr_bursts = 0;
    if (x->burst_exact && exact_traffic(x, w, s, &rd_bursts, &wr_bursts) != 0) return -1;
    long long total = w->end1, last_wr = -1;
    uint64_t last_wr_ranks = 0;
    /* lite: the walk's own queue is not the GEMM's (its probes were
     * skipped); the replay ends the GEMM's stores wherever they are */
    if (!c->ideal_memory && (w->wq.n > 0 || x->lite)) {
        if (w->wq.n > 0) last_wr_ranks = w->wq.b[(w->wq.head + w->wq.n - 1) % WR_QUEUE_MAX].ranks;
        long long wr_end = mx_llmax(w->last_avail, wr_queue_serve(&w->wq, w->dram_free, -1) +
                                                       (x->use_probes ? w->wq.last_lat : 0));
        /* the final drain, per channel: where the loads came from the
         * replay, the stores end when it ends them (each channel drains its
         * own writes after its own last read; HBM2 8x8 os BF16 16x16x1: the
         * two stores write one channel, 156 against the walk's 146), with
         * the GEMM's REFs (LPDDR4 32x32 is MXSF 1338x32x16: the first REF
         * falls in the final drain, 4,485 against the walk's 4,033) */
        if (chan_replay(c) || x->replay_all) {
            /* held stores freed by the replay were offered on time too */
            const long long lim = x->replay_all ? REPLAY_ALL_BURSTS : w->held_store ? DRAIN_FLOOR_BURSTS : FINAL_DRAIN_BURSTS;
            x->rp_want_fin = x->replay_all && c->dram_model && CMDS_FROM_REPLAY;
            const long long re = replay_end(x, 0, NULL, 1, 0, NULL, lim, -1);
            x->rp_want_fin = 0;
            if (re <= 0) { /* not the replay's end: nor its energy */
                mx_dram_free(x->rp_fin);
                x->rp_fin = NULL;
            }
            if (re > 0) wr_end = mx_llmax(w->last_avail, re);
        }
        last_wr = wr_end;
        if (wr_end > total) {
            s->stall[MX_STALL_DRAIN] = wr_end - total;
            total = wr_end;
        }
    }
    /* The GEMM also lasts at least the RQU's whole work (outputs and second
     * copies at its rate); a shortfall beyond that adds cycles. */
    long long rqu_elems = x->g->M * x->g->N + s->requant_elements;
    s->stall[MX_STALL_RQU] = w->rqu_stall;
    if (!c->ideal_memory && !c->scalesim_compat) {
        long long rqu_cyc = mx_cdiv(rqu_elems, c->rqu_elements_per_cycle);
        if (rqu_cyc > total) {
            s->stall[MX_STALL_RQU] += rqu_cyc - total;
            total = rqu_cyc;
        }
    }
    if (c->scalesim_compat) total -= 1; /* SCALE-Sim's per-layer count (docs/ARCH.md) */
    s->cycles = total;
    s->compute_cycles = w->pure_compute - (c->scalesim_compat ? 1 : 0);
    s->stall[MX_STALL_DRAM] = w->dram_stall;
    s->stall[MX_STALL_SRAM] = w->sram_stall;
    mx_arch_gemm_counts(c, x->fa, x->fb, x->g, x->tl, s);
    if (c->dram_model && c->dram_cal.valid && !c->ideal_memory) { /* estimated from the probes */
        double rd = 0, wr = 0;
        for (int i = 0; i < MX_NOPS; i++) { rd += (double)s->dram_read[i]; wr += (double)s->dram_write[i]; }
        s->dram_model = 1;
        if (x->use_probes) {
            if (x->rp_fin) {
                /* replay_all: the final drain's replay ran every transfer
                 * of the GEMM on the DRAM model with its REFs, offered as
                 * the walk offered them, as the cycle engine's DMA does.
                 * Run on to the GEMM's end (background energy), it holds
                 * the GEMM's commands, REFs and energy, as the cycle
                 * engine's model does: no command chain (walk_chain_pj,
                 * which simulated the same bursts again back to back) and
                 * no background estimate. */
                const double ratio = c->dram.tCK_ns * c->clock_ghz;
                const long long end = (long long)ceil((double)s->cycles / ratio - 1e-9);
                if (end > (long long)mx_dram_now(x->rp_fin)) mx_dram_run_until(x->rp_fin, (uint64_t)end);
                mx_dram_stats ds;
                mx_dram_get_stats(x->rp_fin, &ds);
                mx_dram_free(x->rp_fin);
                x->rp_fin = NULL;
                s->dram_act = (long long)ds.act;
                s->dram_ref = (long long)ds.ref;
                /* second copies are not in the replay: per byte, as with the chain */
                s->dram_energy_pj = ds.energy_total_pj + x->chain_extra_pj;
                if (x->burst_exact) { /* the replay ran each tile's own bursts: any difference per command */
                    double pj[MX_DRAM_E_N];
                    mx_dram_energy_per_command(&c->dram, pj);
                    s->dram_energy_pj += (double)(rd_bursts - (long long)ds.rd) * pj[MX_DRAM_E_RD] +
                                         (double)(wr_bursts - (long long)ds.wr) * pj[MX_DRAM_E_WR];
                }
                return 0;
            }
            double cpj, closed = 0;
            long long cact, crd, cwr;
            if (rd_bursts + wr_bursts <= CHAIN_BURSTS_MAX && walk_chain_pj(x, &cpj, &cact, &crd, &cwr, &closed) == 0) {
                w->probe_pj = cpj;
                w->probe_act = cact;
                w->probe_rd = crd;
                w->probe_wr = cwr;
            }
            s->dram_act = w->probe_act;
            s->dram_ref = dram_refs(c, s->cycles, w->wq.touched, last_wr, last_wr_ranks);
            s->dram_energy_pj = w->probe_pj + background_pj(c, &w->wq, s->cycles, closed) +
                                (double)s->dram_ref * c->dram_cal.ref_pj;
            if (x->burst_exact) { /* the probes charged each tile its class's RD and WR commands */
                double pj[MX_DRAM_E_N];
                mx_dram_energy_per_command(&c->dram, pj);
                s->dram_energy_pj += (double)(rd_bursts - w->probe_rd) * pj[MX_DRAM_E_RD] +
                                     (double)(wr_bursts - w->probe_wr) * pj[MX_DRAM_E_WR];
            }
        } else {
            s->dram_act = (long long)llround(rd * c->dram_cal.act_per_byte);
            s->dram_energy_pj = rd * c->dram_cal.rd_pj_per_byte + wr * c->dram_cal.wr_pj_per_byte +
                                (double)s->cycles * c->dram_cal.bg_pj_per_cycle;
        }
    }
    return 0;
}

/* Tile 1 of the loop order and what it loads (tile 0 loads both): sets
 * x->pair_on and x->pair when it loads anything.  -1: the probe failed. */
static int pair_probe(walk_ctx *x)
{
    const mx_tiling *tl = x->tl;
    const long long inner_n = tl->n_outer ? tl->m_tiles : tl->n_tiles;
    long long ki = 1 % tl->k_tiles, r = 1 / tl->k_tiles;
    long long ii = r % inner_n, oi = r / inner_n;
    long long mi = tl->n_outer ? ii : oi, ni = tl->n_outer ? oi : ii;
    long long a0, b0, a1, b1;
    tile_ids(tl, 0, 0, 0, &a0, &b0);
    tile_ids(tl, mi, ni, ki, &a1, &b1);
    const int em = mi == tl->m_tiles - 1, en = ni == tl->n_tiles - 1, ek = ki == tl->k_tiles - 1;
    const int what = (a1 != a0 ? MX_PROBE_A : 0) | (b1 != b0 ? MX_PROBE_B : 0);
    if (!what) return 0;
    const mx_probe_xfer xf[2] = {
        {0, x->dims_m[tl->m_tiles == 1], 0, x->dims_n[tl->n_tiles == 1], 0, x->dims_k[tl->k_tiles == 1],
         MX_PROBE_A | MX_PROBE_B, 0, 0},
        {mi * tl->mt, x->dims_m[em], ni * tl->nt, x->dims_n[en], ki * tl->kt, x->dims_k[ek], what, 0, 0}};
    if (mx_cycle_probe_pair(x->c, x->fa, x->fb, x->fo, x->g->M, x->g->N, x->g->K, xf, -1, x->pair) != 0)
        return -1;
    x->pair_xf[0] = xf[0];
    x->pair_xf[1] = xf[1];
    x->pair_on = 1;
    return 0;
}

/* The analytic engine for a given mapping (the mapper calls it for its
 * candidates); -1 when its counters overflow 64 bits, ANALYTIC_PROBE_FAILED
 * when a DRAM probe failed. */
static int analytic_tiled(const mx_arch_config *c, const mx_gemm *g, const mx_operand_fmt *fa,
                          const mx_operand_fmt *fb, const mx_operand_fmt *fo, const mx_tiling *tl,
                          mx_stats *s)
{
    memset(s, 0, sizeof *s);
    walk_ctx *x = calloc(1, sizeof *x);
    if (!x) return -1;
    x->c = c; x->g = g; x->fa = fa; x->fb = fb; x->fo = fo; x->tl = tl;
    x->c_noref = *c;
    x->c_noref.dram.refresh = 0;
    /* training: second quantized copies (SPEC §4) */
    const long long extra_bytes = mx_arch_train_copies(c, g, fa, fb, s);
    x->slow = c->ideal_memory ? 1.0 : sram_slowdown(c, fa, fb);
    x->ntiles = tl->m_tiles * tl->n_tiles * tl->k_tiles;
    /* the <= 8 distinct tile shapes (edge or not in each dimension) */
    x->dims_m[0] = tl->mt; x->dims_m[1] = g->M - (tl->m_tiles - 1) * tl->mt;
    x->dims_n[0] = tl->nt; x->dims_n[1] = g->N - (tl->n_tiles - 1) * tl->nt;
    x->dims_k[0] = tl->kt; x->dims_k[1] = g->K - (tl->k_tiles - 1) * tl->kt;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            for (int k = 0; k < 2; k++) {
                x->shape_cyc[i][j][k] = mx_tile_compute_cycles(c, x->dims_m[i], x->dims_n[j], x->dims_k[k]);
                x->shape_sram[i][j][k] = -1;
            }
    x->use_probes = c->dram_model && c->dram_cal.valid && c->analytic_probes;
    x->pm.by_sig = x->use_probes && x->ntiles <= PROBE_SIG_TILES;
    /* the command sequence for energy needs every transfer: up to
     * CHAIN_TILES tiles the walk goes without jumps (it then gives the
     * jumping walk's cycles, test_analytic_ff.cpp) */
    x->chain_on = x->use_probes && x->ntiles <= CHAIN_TILES;
    if (x->chain_on) {
        x->chain_max = (int)(2 * x->ntiles + 4);
        x->chain = malloc((size_t)x->chain_max * sizeof *x->chain);
        if (!x->chain) x->chain_on = 0;
    }
    memset(x->follow, 0xff, sizeof x->follow); /* x->after: 0 from calloc (327 KB: zeroing it again was 3% of the BERT step) */
    memset(x->after_store, 0xff, sizeof x->after_store);
    memset(x->st_phase, 0xff, sizeof x->st_phase);
    x->sram_walk = c->analytic_probes && !c->ideal_memory && !c->scalesim_compat;
    x->rs = ref_sched_of(c, x->use_probes);
    /* DRAM traffic in the DMA's whole bursts, as the cycle engine moves it,
     * also in the mapper's fast cost: it ranks mappings by the traffic the
     * engines count (narrow tile rows and MX scale rows round up to bursts:
     * up to 30% more than the operand bytes) */
    x->burst_exact = !c->ideal_memory && !c->scalesim_compat;
    memset(x->bm.bursts, 0xff, sizeof x->bm.bursts);
    x->bm.burst = c->dram_model ? (uint64_t)mx_dram_burst_bytes(&c->dram) : MX_CHAN_BURST_BYTES;
    {
        long long gb[3];
        x->replay_all = x->chain_on && x->use_probes && x->ntiles <= REPLAY_ALL_TILES && chan_replay(c) &&
                        gemm_bursts(x, gb) == 0 && gb[0] + gb[1] + gb[2] <= REPLAY_ALL_BURSTS;
        /* lite needs the replay's energy: the walk's own queue and chain
         * without probes are no basis for it (-10% to -18% on the rows of
         * DramReplay.WholeGemmReplayGivesCyclesAndEnergy) */
        x->lite = x->replay_all && c->dram_model && REPLAY_LITE && CMDS_FROM_REPLAY;
        x->pm.class_only = x->lite;
        /* the bandwidth channel: its replay steps mx_chan (mx_cycle_probe_timed) */
        if (!c->dram_model && x->sram_walk && !x->chain_on && x->ntiles <= REPLAY_ALL_TILES &&
            gemm_bursts(x, gb) == 0 && gb[0] + gb[1] + gb[2] <= CHAN_REPLAY_BURSTS) {
            x->chain_max = (int)(2 * x->ntiles + 4);
            x->chain = malloc((size_t)x->chain_max * sizeof *x->chain);
            x->chain_on = x->replay_all = x->chain != NULL;
        }
    }
    const long long nouts = tl->m_tiles * tl->n_tiles, rqu_extra_elems = s->requant_elements;
    x->extra_per_out = nouts ? extra_bytes / nouts : 0;
    x->extra_rem = extra_bytes - x->extra_per_out * nouts;
    x->rqu_extra_per_out = nouts ? rqu_extra_elems / nouts : 0;
    x->rqu_extra_rem = rqu_extra_elems - x->rqu_extra_per_out * nouts;

    /* Double-buffered, tile 1's load waits for nothing: the DMA issues it
     * right behind tile 0's, and the controller's FR-FCFS scheduler serves
     * both together (row hits first), so the two are probed as one. */
    /* lite: the replay times the first two loads too (walk_load) */
    if (x->use_probes && !x->lite && tl->double_buffer && x->ntiles >= 2 && pair_probe(x) != 0) {
        walk_replay_free(x);
        free(x->chain);
        free(x);
        return ANALYTIC_PROBE_FAILED;
    }
    /* Per-tile double-buffer model (docs/ARCH.md): tile t loads into buffer
     * half t%2, free once tile t-2 has computed; reads have priority on the
     * DRAM channel, output writes fill its idle cycles, and what is left when
     * compute ends is the drain stall. */
    walk_state ws;
    memset(&ws, 0, sizeof ws);
    ws.wq.last_cls = -1;
    ws.ld_cls = -1;
    ws.ovt_next = -1;
    ws.wq.ld_end = ws.wq.last_end = -1;
    ws.wq.busy_end = -1;
    ws.wq.cut_at = -1;
    ws.wq.cut_res = -1;
    ws.wq.cut_fit_end = -1;
    ws.wq.rd_at = -1;
    if (c->dram_model) ws.wq.room = c->dram.write_high - 1;
    ws.wq.enter_next = x->pm.by_sig && c->dram.channels == 1;
    if (x->use_probes) {
        ws.wq.follow = store_follow_at;
        ws.wq.follow_ctx = x;
    }
    { /* issued later by up to this, a transfer cannot end later (after_of) */
        const mx_dram_config *d = &c->dram;
        ws.gap_cap = (long long)ceil((double)(d->t.AL + d->t.CL + d->t.CWL + d->BL / 2 + d->t.tRC + d->t.tRP) *
                                     d->tCK_ns * c->clock_ghz) + 1;
    }
    ws.wq.refi = x->rs.on ? (double)c->dram.t.tREFI * c->dram.tCK_ns * c->clock_ghz : 0;
    walk_state *w = &ws;
    long long last_a = -1, last_b = -1;
    const long long outer_n = tl->n_outer ? tl->n_tiles : tl->m_tiles;
    const long long inner_n = tl->n_outer ? tl->m_tiles : tl->n_tiles;
    /* the levels' periodicity detectors; middle iterations 1 .. n-2 of a
     * level have the same shapes and the same operand reuse; jumps end
     * before n-2, whose last tile looks ahead to the edge iteration
     * (next_load_occupancy) */
    walk_ff *ff = c->analytic_no_jump || x->chain_on ? NULL : malloc(3 * sizeof *ff);
    if (ff) walk_ff_reset(&ff[0]);
    for (long long oi = 0; oi < outer_n; oi++) {
        if (ff && outer_n >= WALK_FF_MIN) {
            long long before = oi;
            if (walk_ff_step(&ff[0], w, tl->double_buffer, &oi, 1, outer_n - 3, &x->rs) != 0) goto overflow;
            if (oi != before) { /* the last tile of the iteration before the new oi */
                walk_shift_tiles(w, tl->n_outer ? 1 : 0, oi - before);
                tile_ids(tl, tl->n_outer ? inner_n - 1 : oi - 1, tl->n_outer ? oi - 1 : inner_n - 1, tl->k_tiles - 1,
                         &last_a, &last_b);
            }
        }
        if (ff) walk_ff_reset(&ff[1]);
        for (long long ii = 0; ii < inner_n; ii++) {
            if (ff && inner_n >= WALK_FF_MIN) {
                long long before = ii;
                if (walk_ff_step(&ff[1], w, tl->double_buffer, &ii, 1, inner_n - 3, &x->rs) != 0) goto overflow;
                if (ii != before) {
                    walk_shift_tiles(w, tl->n_outer ? 0 : 1, ii - before);
                    tile_ids(tl, tl->n_outer ? ii - 1 : oi, tl->n_outer ? oi : ii - 1, tl->k_tiles - 1, &last_a, &last_b);
                }
            }
            const long long mi = tl->n_outer ? ii : oi, ni = tl->n_outer ? oi : ii;
            if (ff) walk_ff_reset(&ff[2]);
            for (long long ki = 0; ki < tl->k_tiles; ki++, w->t++) {
                if (ff && tl->k_tiles >= WALK_FF_MIN) {
                    long long before = ki;
                    if (walk_ff_step(&ff[2], w, tl->double_buffer, &ki, 1, tl->k_tiles - 3, &x->rs) != 0) goto overflow;
                    if (ki != before) {
                        walk_shift_tiles(w, 2, ki - before);
                        tile_ids(tl, mi, ni, ki - 1, &last_a, &last_b);
                    }
                }
                walk_tile(x, w, mi, ni, ki, &last_a, &last_b);
            }
        }
    }
    free(ff);
    ff = NULL; /* overflow: below frees it again */
    if (x->pm.failed) { /* a fallback estimate would be silently wrong */
        walk_replay_free(x);
        free(x->chain);
        free(x);
        return ANALYTIC_PROBE_FAILED;
    }
    if (walk_finish(x, w, s) != 0) goto overflow;
    walk_replay_free(x);
    free(x->chain);
    free(x);
    return 0;
overflow:
    free(ff);
    walk_replay_free(x);
    free(x->chain);
    free(x);
    return -1;
}

void mx_stats_add(mx_stats *a, const mx_stats *b, long long times)
{
    int ovf = 0;
#define ADD(f) add_times(&a->f, b->f, times, &ovf)
    ADD(cycles);
    ADD(compute_cycles);
    for (int i = 0; i < MX_NSTALL; i++) ADD(stall[i]);
    ADD(macs);
    ADD(pe_steps);
    ADD(scale_adds);
    a->exp_add_bits += b->exp_add_bits * (double)times;
    ADD(folds);
    if (!a->map.mt) a->map = b->map; /* a row's own mapping (totals keep the first) */
    ADD(tiles);
    for (int i = 0; i <= MX_SIG_MAX; i++)
        for (int j = 0; j <= MX_SIG_MAX; j++) a->mul[i][j] += b->mul[i][j] * (double)times;
    for (int i = 0; i < MX_NOPS; i++) {
        ADD(sram_read[i]);
        ADD(sram_write[i]);
        ADD(dram_read[i]);
        ADD(dram_write[i]);
    }
    ADD(rqu_elements);
    a->dram_model |= b->dram_model;
    ADD(dram_act);
    ADD(dram_pre);
    ADD(dram_ref);
    ADD(dram_row_hits);
    ADD(dram_row_misses);
    a->dram_energy_pj += b->dram_energy_pj * (double)times;
    ADD(requant_elements);
    ADD(requant_copies);
#undef ADD
    a->overflow |= b->overflow | ovf;
    for (int i = 0; i < MX_E_NCOMP; i++) a->energy_pj[i] += b->energy_pj[i] * (double)times;
    a->energy_total_pj += b->energy_total_pj * (double)times;
    a->functional |= b->functional;
    a->sampled |= b->sampled;
    a->checked_outputs += b->checked_outputs; /* computed once per row */
    a->err_sq += b->err_sq * (double)times;
    a->ref_sq += b->ref_sq * (double)times;
    if (b->max_abs_err > a->max_abs_err) a->max_abs_err = b->max_abs_err;
    a->qsnr_db = a->err_sq > 0 ? -10.0 * log10(a->err_sq / a->ref_sq) : (a->ref_sq > 0 ? INFINITY : 0);
}
