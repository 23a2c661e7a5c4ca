/*
 * mx_cycle.c — the cycle engine: one GEMM stepped by exact events
 * (structure in mx_cycle.h, decisions in docs/ARCH.md "Cycle engine").
 *
 * Time: the memory side runs on the DRAM clock (the protocol model's tCK,
 * or the accelerator clock for the bandwidth + latency channel); the array,
 * RQU and buffers on the accelerator clock.  An accelerator event at cycle a
 * is seen by the DRAM at the first DRAM edge at or after it, a DRAM
 * completion by the accelerator at the first accelerator edge at or after it.
 */
#include "arch/mx_cycle.h"

#include "arch/mx_dma.h"
#include "util/mx_util.h"
#include "mem/mx_dram_probe.h"
#include "mem/mx_sram.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* ---- memory port: the protocol DRAM, or a bandwidth + latency channel ---- */

typedef struct {
    mx_dram *d;            /* protocol model, or NULL                          */
    double ratio;          /* accelerator cycles per memory clock              */
    uint64_t burst;        /* bytes per request                                */
    long long now;         /* memory clock                                     */
    mx_chan chan;          /* without d: the bandwidth + latency channel
                              (memory clock = accelerator clock)             */
} mem_port;

static long long mem_to_acc(const mem_port *p, long long t) { return (long long)ceil((double)t * p->ratio - 1e-9); }
static long long acc_to_mem(const mem_port *p, long long a) { return (long long)ceil((double)a / p->ratio - 1e-9); }

/* The DMA's request if the memory takes it now: 0, or -1 (nothing changed). */
static int mem_try_add(mem_port *p, uint64_t addr, int w, uint64_t id)
{
    if (p->d) return mx_dram_dma_add(p->d, addr, w, id);
    return mx_chan_add(&p->chan, p->now, w, id);
}

/* The bandwidth channel's completions: 1 and the request id, its kind and
 * completion (memory clock), or 0 (the DRAM's: cycle_completions). */
static int mem_pop(mem_port *p, uint64_t *id, int *w, long long *done)
{
    return mx_chan_pop(&p->chan, p->now, id, w, done);
}

/* A refusal's mark: the DRAM's queue epoch + 1 (0: no refusal).  The
 * protocol model refuses again until its queues change, so a mark equal to
 * port_mark() now means "refused, retry pointless" (the simple channel's
 * answer depends on time: never marked). */
static uint64_t port_mark(const mem_port *p, int w) { return p->d ? mx_dram_refusal_epoch(p->d, w) + 1 : 0; }
static int port_still_refuses(const mem_port *p, uint64_t mark, int w) { return mark != 0 && mark == port_mark(p, w); }

/* Earliest memory clock > now at which the port changes by itself. */
static long long mem_next_event(const mem_port *p)
{
    if (p->d) {
        uint64_t e = mx_dram_next_event(p->d);
        return e == UINT64_MAX ? LLONG_MAX : (long long)e;
    }
    return mx_chan_next_event(&p->chan, p->now);
}

static void mem_advance(mem_port *p, long long t)
{
    if (t <= p->now) return;
    if (p->d) mx_dram_run_until(p->d, (uint64_t)t);
    p->now = t;
}

/* ---- SRAM bank conflicts of one tile, memoised by fold shape -------------- */

#define STALL_MEMO 64
typedef struct {
    mx_sram_streams g[2];
    int n;
    long long stall;
} stall_memo_entry;
typedef struct {
    stall_memo_entry e[STALL_MEMO];
    int n, next;
} stall_memo;

static long long fold_stall(stall_memo *memo, mx_sram_streams g[2], int n)
{
    for (int k = 0; k < n; k++) { /* banks repeat every banks * width bytes */
        long long period = (long long)g[k].banks * g[k].bytes_per_cycle;
        g[k].base %= period;
    }
    for (int i = 0; i < memo->n; i++)
        if (memo->e[i].n == n && !memcmp(memo->e[i].g, g, (size_t)n * sizeof *g)) return memo->e[i].stall;
    long long st = mx_sram_fold_stall(g, n);
    stall_memo_entry *e = &memo->e[memo->n < STALL_MEMO ? memo->n++ : (memo->next++ % STALL_MEMO)];
    memset(e, 0, sizeof *e);
    memcpy(e->g, g, (size_t)n * sizeof *g);
    e->n = n;
    e->stall = st;
    return st;
}

static long long bytes_of(long long elems, double bits) { return (long long)ceil((double)elems * bits / 8.0); }

/* Bank-conflict stall cycles of all folds of an m x n x k tile.  Operand
 * tiles sit in their buffer K-contiguous (A as m rows, B as n rows of
 * ceil(k * bits / 8) bytes), as the DMA wrote them. */
static long long tile_sram_stall(const mx_arch_config *c, stall_memo *memo, const mx_operand_fmt *fa,
                                 const mx_operand_fmt *fb, long long m, long long n, long long k)
{
    long long sr, sc, t;
    mx_fold_geometry(c, m, n, k, &sr, &sc, &t);
    const long long L = c->lanes;
    long long pa = bytes_of(k, fa->elem.bits), pb = bytes_of(k, fb->elem.bits);
    long long la = bytes_of(L, fa->elem.bits), lb = bytes_of(L, fb->elem.bits);
    const mx_sram_config *sa = &c->sram[MX_OP_A], *sb = &c->sram[MX_OP_B];
    long long total = 0;
    const long long nf = mx_fold_count(c, m, n, k);
    for (long long f = 0; f < nf; f++) { /* the fold schedule's folds (mx_fold_at) */
        mx_fold fo;
        mx_fold_at(c, m, n, k, f, &fo);
        mx_sram_streams g[2];
        memset(g, 0, sizeof g);
        int ng = 0;
        switch (c->dataflow) {
        case MX_DATAFLOW_OS: /* A rows from the left, B columns from the top */
            g[ng++] = (mx_sram_streams){fo.rows, t, fo.r0 * pa, pa, la, la, sa->banks, sa->bytes_per_cycle};
            g[ng++] = (mx_sram_streams){fo.cols, t, fo.c0 * pb, pb, lb, lb, sb->banks, sb->bytes_per_cycle};
            break;
        case MX_DATAFLOW_WS: /* B stationary; array row i takes lanes i of an A row per step */
            g[ng++] = (mx_sram_streams){fo.rows, t, fo.r0 * la, la, pa, la, sa->banks, sa->bytes_per_cycle};
            break;
        case MX_DATAFLOW_IS: /* A stationary; B rows stream the same way */
            g[ng++] = (mx_sram_streams){fo.rows, t, fo.r0 * lb, lb, pb, lb, sb->banks, sb->bytes_per_cycle};
            break;
        }
        total += fold_stall(memo, g, ng);
    }
    return total;
}

/* ---- the array controller's tile: lead and drain (rtl/mx_array_ctrl.sv) ---- */

/* Cycles from a tile's start to the last block of its re-quantized outputs
 * leaving the array (RTL: start_i in cycle 0 to done_o), without SRAM stalls,
 * for the output-stationary array with fold overlap:
 *   lead 2: descriptor latch, synchronous SRAM read -> first K-step;
 *   folds as the fold schedule (mx_fold_at: col-fold outer, start_{f+1} = start_f + max(t, r_f));
 *   the result of PE (i, j) of fold f reaches the column FIFO head at
 *   2 + start_f + t + i + j + P + 1; the column's collector takes one value a
 *   cycle, in order; a block (rqu.block column: a fold's column; tile: the fold's
 *   c columns, tiles in fold order) is re-quantized combinationally and leaves
 *   the cycle after its last value entered; a full collector takes the next
 *   value only in the cycle its block leaves; done the cycle after the last block.
 * RQU throughput R * C elements per cycle (C column units or one R x C unit);
 * -1 when the shape is outside this model (other dataflows, no overlap). */
long long mx_cycle_tile_done(const mx_arch_config *c, long long m, long long n, long long k)
{
    if (c->dataflow != MX_DATAFLOW_OS || !c->fold_overlap || c->scalesim_compat) return -1;
    const long long C = c->cols, P = c->pe_pipeline_depth, S = 2;
    const long long t = mx_cdiv(k, c->lanes);
    long long *enter = malloc((size_t)(2 * C) * sizeof *enter);
    if (!enter) return -1;
    long long *left = enter + C;
    for (long long j = 0; j < C; j++) enter[j] = left[j] = -1;
    long long prev_tile = -1, last = -1, prev_c = 0;
    const long long nf = mx_fold_count(c, m, n, k);
    for (long long f = 0; f < nf; f++) {
        mx_fold fo;
        mx_fold_at(c, m, n, k, f, &fo);
        long long tile_full = -1;
        for (long long j = 0; j < fo.cols; j++) {
            long long e = enter[j];
            const long long gate = c->rqu_tile ? (j < prev_c ? prev_tile : -1) : left[j];
            for (long long i = 0; i < fo.rows; i++) {
                e = mx_llmax(S + fo.start + t + i + j + P + 1, e + 1);
                if (i == 0) e = mx_llmax(e, gate);
            }
            enter[j] = e;
            if (c->rqu_tile) tile_full = mx_llmax(tile_full, e + 1);
            else { left[j] = e + 1; last = mx_llmax(last, e + 1); }
        }
        if (c->rqu_tile) { prev_tile = tile_full; last = mx_llmax(last, tile_full); prev_c = fo.cols; }
    }
    free(enter);
    return last + 1;
}

/* ---- the engine ----------------------------------------------------------- */

#define LOAD_SLOTS 4 /* loads in flight: tiles t .. t+2 at most */
typedef struct {
    long long tile;
    uint64_t outstanding;
    int all_issued;
    long long max_done; /* memory clock */
} load_slot;

#define STORE_SLOTS 8

/* A DMA stream read ahead: the protocol DRAM takes a refused DMA's next
 * requests from this buffer itself (mx_dram_dma_pend), at the clocks the
 * engine's feed would have added them.  The stream is read only through it
 * (the buffer is empty when its stream ends). */
#define AHEAD 64
typedef struct {
    uint64_t a[AHEAD];
    int i, n;            /* a[i] is next */
    /* Bursts read from the stream and bursts the DRAM model took: taken can
     * never pass read (a take not moving i would re-add the same bursts
     * forever while time advances; cycle_take stops the GEMM instead). */
    uint64_t read, taken;
} ahead_buf;

static int ahead_next(ahead_buf *b, mx_dma_stream *st, uint64_t *addr)
{
    if (b->i == b->n) {
        const int n = (int)mx_dma_stream_fill(st, b->a, AHEAD);
        b->i = 0;
        b->n = n;
        b->read += (uint64_t)n;
        if (!n) return 0;
    }
    *addr = b->a[b->i++];
    return 1;
}

typedef struct {
    long long out_idx;
    long long avail;     /* accelerator cycle the RQU has the codes ready */
    long long avail_mem; /* the same in memory clocks (acc_to_mem, once)    */
    long long rqu_end;
    mx_dma_stream st;
    uint64_t outstanding;
    long long issued_at; /* accelerator cycle the last burst was accepted */
} store_slot;

typedef struct {
    long long mi, ni, ki;
    long long m, n, k;
    int load_a, load_b, last_k, first_k;
    long long out_idx;
} tile_info;

typedef struct {
    const mx_arch_config *c;
    mx_tiling tl;
    long long dims_m[2], dims_n[2], dims_k[2];
    long long outer_n, inner_n, ntiles;
} tile_walk;

/* Tile t of the loop (outer, inner, k), with the previous tile's operand ids
 * to know whether A or B stays resident. */
static void tile_at(const tile_walk *w, long long t, tile_info *ti)
{
    const mx_tiling *tl = &w->tl;
    long long ki = t % tl->k_tiles, r = t / tl->k_tiles;
    long long ii = r % w->inner_n, oi = r / w->inner_n;
    ti->mi = tl->n_outer ? ii : oi;
    ti->ni = tl->n_outer ? oi : ii;
    ti->ki = ki;
    ti->m = w->dims_m[ti->mi == tl->m_tiles - 1];
    ti->n = w->dims_n[ti->ni == tl->n_tiles - 1];
    ti->k = w->dims_k[ki == tl->k_tiles - 1];
    ti->first_k = ki == 0;
    ti->last_k = ki == tl->k_tiles - 1;
    ti->out_idx = r;
    if (t == 0) { ti->load_a = ti->load_b = 1; return; }
    long long pk = (t - 1) % tl->k_tiles, pr = (t - 1) / tl->k_tiles;
    long long pii = pr % w->inner_n, poi = pr / w->inner_n;
    long long pmi = tl->n_outer ? pii : poi, pni = tl->n_outer ? poi : pii;
    ti->load_a = !(pmi == ti->mi && pk == ki);
    ti->load_b = !(pni == ti->ni && pk == ki);
}

static uint64_t align_up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

static void matrix_layout(const mx_arch_config *c, const mx_operand_fmt *f, long long rows,
                          long long cols, uint64_t *base, mx_dma_matrix *m)
{
    memset(m, 0, sizeof *m);
    const uint64_t region = 1u << 20;
    m->base = *base;
    m->bits = f->elem.bits;
    m->row_bytes = (uint64_t)bytes_of(cols, f->elem.bits);
    *base = align_up(*base + m->row_bytes * (uint64_t)rows, region);
    if (f->is_mx) {
        m->has_scales = 1;
        m->scale_rows_per = c->tile_rows > 0 ? c->tile_rows : 1;
        m->scale_cols_per = c->tile_rows > 0 ? c->tile_cols : c->block_size;
        m->scale_base = *base;
        m->scale_row_bytes = (uint64_t)mx_cdiv(cols, m->scale_cols_per);
        *base = align_up(*base + m->scale_row_bytes * (uint64_t)mx_cdiv(rows, m->scale_rows_per), region);
    }
}

/* The GEMM's regions in mx_dma.h's order (A, B, out, from address 0);
 * returns where the next region (the second copies) starts. */
static uint64_t gemm_layout(const mx_arch_config *c, const mx_operand_fmt *fa, const mx_operand_fmt *fb,
                            const mx_operand_fmt *fo, long long M, long long N, long long K, mx_dma_matrix *ma,
                            mx_dma_matrix *mb, mx_dma_matrix *mo)
{
    uint64_t base = 0;
    matrix_layout(c, fa, M, K, &base, ma);
    matrix_layout(c, fb, N, K, &base, mb);
    matrix_layout(c, fo, M, N, &base, mo);
    return base;
}

/* Bytes per DMA request: the DRAM model's burst, or the bandwidth
 * channel's. */
static uint64_t dma_burst(const mx_arch_config *c)
{
    return c->dram_model ? (uint64_t)mx_dram_burst_bytes(&c->dram) : MX_CHAN_BURST_BYTES;
}

static int port_init(const mx_arch_config *c, mem_port *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    p->burst = dma_burst(c);
    if (c->dram_model) {
        p->d = mx_dram_new(&c->dram, err, errlen);
        if (!p->d) return -1;
        p->ratio = c->dram.tCK_ns * c->clock_ghz;
    } else {
        p->ratio = 1.0;
        mx_chan_init(&p->chan, c->dram_bytes_per_cycle, c->dram_latency);
    }
    return 0;
}

/* One GEMM on the cycle engine: the constant context (config, formats,
 * tiling, operand layout) and everything the event loop carries. */
typedef struct {
    const mx_arch_config *c;
    const mx_gemm *g;
    mx_stats *s;
    mx_cycle_tile *rec;
    long long cap;
    mx_operand_fmt fa, fb, fo;
    tile_walk w;
    long long ntiles, nouts;
    mem_port port;
    uint64_t burst;
    mx_dma_matrix ma, mb, mo;  /* operand layout (mx_dma.h) */
    uint64_t copies_base;      /* second copies: whole bursts after the operands */
    long long extra_per_out, extra_rem, rqu_extra_elems, rqu_extra_per_out;
    stall_memo *memo;
    /* per tile shape (edge or not in m, n, k): fold cycles, bank stalls and
     * the drain path's start-to-done (-2 not yet computed, -1 not on that path) */
    long long shape_stall[2][2][2], shape_cyc[2][2][2], shape_done[2][2][2];
    load_slot loads[LOAD_SLOTS];
    store_slot stores[STORE_SLOTS];
    long long ld;              /* next tile whose load is issued             */
    int ld_active;             /* its stream is set up                        */
    mx_dma_stream ld_st[2];    /* A and B streams of tile ld                  */
    int ld_which;
    ahead_buf ldb, stb;        /* ld_st[ld_which]'s and stores[st_issue]'s addresses read ahead */
    uint64_t ld_refused, st_refused; /* port_mark() of the last refusal     */
    long long cp;              /* next tile to compute                        */
    tile_info cp_ti;           /* tile_at(cp), computed once per tile          */
    long long cp_ti_of;        /* the tile cp_ti describes (-1: none)          */
    long long ends[3];         /* compute end of tiles t-1, t-2 (ring by t % 3) */
    long long ends_mem[3];     /* the same in memory clocks (acc_to_mem, once)  */
    long long end_prev, pure, stall_dram, stall_sram, stall_rqu;
    long long st_head, st_issue, st_tail; /* stores in the ring: [head, tail); those
                                * before st_issue have every burst in the controller
                                * (issued in order: the oldest first) */
    long long out_free[2];     /* output half free from (accelerator cycle)   */
    int out_free_known[2];
    long long rqu_free, last_write_done, last_rqu_end;
    uint64_t read_bursts[2], write_bursts, copy_bursts;
    int take_bad;              /* cycle_take saw more taken than read (internal error) */
} cycle_run;

/* A finished output tile's store: its RQU end (on the drain path, fold by
 * fold as the RTL, when the RQU keeps up with the array; else after the
 * tile), then its DMA stream (the tile and its share of second copies). */
static void cycle_queue_store(cycle_run *r, const tile_info *ti, long long start, long long end, long long sst)
{
    const mx_arch_config *c = r->c;
    const mx_tiling *tl = &r->w.tl;
    const int em = ti->mi == tl->m_tiles - 1, en = ti->ni == tl->n_tiles - 1, ek = ti->last_k;
    store_slot *ss = &r->stores[r->st_tail % STORE_SLOTS];
    memset(ss, 0, sizeof *ss);
    ss->out_idx = ti->out_idx;
    long long elems = ti->m * ti->n + r->rqu_extra_per_out +
                      (ti->out_idx == r->nouts - 1 ? r->rqu_extra_elems - r->rqu_extra_per_out * r->nouts : 0);
    if (r->shape_done[em][en][ek] == -2)
        r->shape_done[em][en][ek] = c->rqu_elements_per_cycle >= c->rows * c->cols
                                        ? mx_cycle_tile_done(c, ti->m, ti->n, ti->k) : -1;
    long long done = r->shape_done[em][en][ek];
    if (done >= 0) { /* RQU on the drain path, fold by fold (the RTL) */
        long long extra = elems - ti->m * ti->n; /* second copies after the tile */
        ss->rqu_end = mx_llmax(start + sst + done, r->rqu_free) +
                      (extra > 0 ? mx_cdiv(extra, c->rqu_elements_per_cycle) : 0);
    } else {
        long long rs = mx_llmax(end, r->rqu_free);
        ss->rqu_end = rs + mx_cdiv(elems, c->rqu_elements_per_cycle);
    }
    r->rqu_free = ss->rqu_end;
    r->last_rqu_end = ss->rqu_end;
    if (r->cp < r->cap && r->rec) r->rec[r->cp].rqu_end = ss->rqu_end;
    ss->avail = ss->rqu_end;
    ss->avail_mem = acc_to_mem(&r->port, ss->avail);
    mx_dma_stream_init(&ss->st, r->burst);
    mx_dma_stream_add_tile(&ss->st, &r->mo, ti->mi * tl->mt, ti->m, ti->ni * tl->nt, ti->n);
    long long xb = r->extra_per_out + (ti->out_idx == r->nouts - 1 ? r->extra_rem : 0);
    if (xb > 0) {
        mx_dma_stream_add_linear(&ss->st, r->copies_base, (uint64_t)xb);
        r->copy_bursts += ((uint64_t)xb + r->burst - 1) / r->burst;
        r->copies_base = align_up(r->copies_base + (uint64_t)xb, r->burst);
    }
    r->st_tail++;
}

/* Compute: tile cp once its load is in and its output half is free.
 * 1 when it started, 0 when it waits, -1 out of memory. */
static int cycle_compute(cycle_run *r)
{
    const mx_arch_config *c = r->c;
    const mx_tiling *tl = &r->w.tl;
    load_slot *ls = &r->loads[r->cp % LOAD_SLOTS];
    if (!(r->cp < r->ntiles && r->st_tail - r->st_head < STORE_SLOTS && ls->tile == r->cp && ls->all_issued &&
          ls->outstanding == 0))
        return 0;
    if (r->cp_ti_of != r->cp) { /* a tile may wait here for many events */
        tile_at(&r->w, r->cp, &r->cp_ti);
        r->cp_ti_of = r->cp;
    }
    const tile_info ti = r->cp_ti;
    int half = (int)(ti.out_idx % 2);
    if (ti.first_k && !r->out_free_known[half]) return 0;
    long long ready = ls->max_done >= 0 ? mem_to_acc(&r->port, ls->max_done) : 0;
    long long need_half = ti.first_k ? r->out_free[half] : 0;
    long long start = mx_llmax(r->end_prev, mx_llmax(ready, need_half));
    if (start > r->end_prev) {
        long long wait_load = mx_llmax(0, ready - r->end_prev);
        long long wait_out = start - r->end_prev - wait_load;
        r->stall_dram += wait_load;
        if (wait_out > 0) { /* held by the RQU up to its end, then by DRAM writes */
            long long by_rqu = mx_llmax(0, mx_llmin(start, r->last_rqu_end) - mx_llmax(r->end_prev, ready));
            if (by_rqu > wait_out) by_rqu = wait_out;
            r->stall_rqu += by_rqu;
            r->stall_dram += wait_out - by_rqu;
        }
    }
    int em = ti.mi == tl->m_tiles - 1, en = ti.ni == tl->n_tiles - 1, ek = ti.last_k;
    if (r->shape_stall[em][en][ek] < 0)
        r->shape_stall[em][en][ek] = tile_sram_stall(c, r->memo, &r->fa, &r->fb, ti.m, ti.n, ti.k);
    long long cyc = r->shape_cyc[em][en][ek], sst = r->shape_stall[em][en][ek];
    if (sst < 0) return -1;
    long long end = start + cyc + sst;
    r->pure += cyc;
    r->stall_sram += sst;
    if (r->cp < r->cap && r->rec) {
        mx_cycle_tile *t = &r->rec[r->cp];
        t->m = ti.m; t->n = ti.n; t->k = ti.k;
        t->load_ready = ready; t->start = start; t->end = end;
        t->sram_stall = sst;
        t->rqu_end = -1;
    }
    r->ends[r->cp % 3] = end;
    r->ends_mem[r->cp % 3] = acc_to_mem(&r->port, end);
    r->end_prev = end;
    mx_arch_tile_counts(c, &r->fa, &r->fb, &r->fo, ti.m, ti.n, ti.k, !ti.first_k, ti.last_k, r->s);
    if (ti.first_k) r->out_free_known[half] = 0; /* held until this output tile is stored */
    if (ti.last_k) cycle_queue_store(r, &ti, start, end, sst);
    r->cp++;
    return 1;
}

/* Loads: tile ld into half ld % 2 once tile ld - 2 (ld - 1 single-buffered)
 * computed, burst by burst as the controller takes them.  1 on progress. */
static int cycle_issue_loads(cycle_run *r)
{
    const mx_tiling *tl = &r->w.tl;
    int progress = 0;
    while (r->ld < r->ntiles) {
        long long dep = r->ld - (tl->double_buffer ? 2 : 1);
        if (r->ld - r->cp >= (tl->double_buffer ? 2 : 1)) break; /* no free half yet */
        if (dep >= 0 && (dep >= r->cp || r->ends_mem[dep % 3] > r->port.now)) break;
        load_slot *ls = &r->loads[r->ld % LOAD_SLOTS];
        if (!r->ld_active) {
            tile_info ti;
            tile_at(&r->w, r->ld, &ti);
            memset(ls, 0, sizeof *ls);
            ls->tile = r->ld;
            ls->max_done = -1;
            mx_dma_stream_init(&r->ld_st[0], r->burst);
            mx_dma_stream_init(&r->ld_st[1], r->burst);
            if (ti.load_a) mx_dma_stream_add_tile(&r->ld_st[0], &r->ma, ti.mi * tl->mt, ti.m, ti.ki * tl->kt, ti.k);
            if (ti.load_b) mx_dma_stream_add_tile(&r->ld_st[1], &r->mb, ti.ni * tl->nt, ti.n, ti.ki * tl->kt, ti.k);
            r->s->sram_write[MX_OP_A] += ti.load_a ? mx_arch_tile_bytes(ti.m, ti.k, r->fa.bits_per_elem) : 0;
            r->s->sram_write[MX_OP_B] += ti.load_b ? mx_arch_tile_bytes(ti.k, ti.n, r->fb.bits_per_elem) : 0;
            r->ld_active = 1;
            r->ld_which = 0;
        }
        uint64_t addr;
        int blocked = 0;
        if (port_still_refuses(&r->port, r->ld_refused, 0)) break;
        while (r->ld_which < 2) {
            mx_dma_stream *st = &r->ld_st[r->ld_which];
            if (!ahead_next(&r->ldb, st, &addr)) { r->ld_which++; continue; }
            if (mem_try_add(&r->port, addr, 0, (uint64_t)r->ld) != 0) {
                r->ldb.i--; /* the refused address comes next */
                r->ld_refused = port_mark(&r->port, 0);
                blocked = 1;
                break;
            }
            ls->outstanding++;
            r->read_bursts[r->ld_which]++;
            progress = 1;
        }
        if (blocked) break;
        ls->all_issued = 1;
        r->ld_active = 0;
        r->ld++;
        progress = 1;
    }
    return progress;
}

/* Stores: oldest first, once the RQU has the codes; a store frees its
 * output half when its last burst is in the controller.  1 on progress. */
static int cycle_issue_stores(cycle_run *r, long long now_a)
{
    int progress = 0;
    for (; r->st_issue < r->st_tail; r->st_issue++) {
        const long long si = r->st_issue;
        store_slot *ss = &r->stores[si % STORE_SLOTS];
        if (ss->avail_mem > r->port.now) break;
        if (port_still_refuses(&r->port, r->st_refused, 1)) break;
        uint64_t addr;
        int blocked = 0;
        for (;;) {
            if (!ahead_next(&r->stb, &ss->st, &addr)) break;
            if (mem_try_add(&r->port, addr, 1, (1ull << 62) | (uint64_t)si) != 0) {
                r->stb.i--; /* the refused address comes next */
                r->st_refused = port_mark(&r->port, 1);
                blocked = 1;
                break;
            }
            ss->outstanding++;
            r->write_bursts++;
            progress = 1;
        }
        if (blocked) break;
        ss->issued_at = mx_llmax(now_a, ss->avail);
        int half = (int)(ss->out_idx % 2);
        r->out_free[half] = ss->issued_at;
        r->out_free_known[half] = 1;
        progress = 1;
    }
    return progress;
}

static void cycle_retire_stores(cycle_run *r)
{
    while (r->st_head < r->st_issue && r->stores[r->st_head % STORE_SLOTS].outstanding == 0)
        r->st_head++;
}

/* Completed requests from the memory.  1 on progress. */
static int cycle_completions(cycle_run *r)
{
    uint64_t id;
    int wr, progress = 0;
    long long done;
    if (r->port.d) { /* a run of one kind at a time: no call and no branch on the kind per completion */
        const mx_dram_done *v;
        size_t n, stride;
        while ((n = mx_dram_take_dones(r->port.d, &v, &stride)) > 0) {
            const char *p = (const char *)v;
            if (v->is_write) {
                for (size_t i = 0; i < n; i++, p += stride) {
                    const mx_dram_done *e = (const mx_dram_done *)p;
                    r->stores[(e->id & ~(1ull << 62)) % STORE_SLOTS].outstanding--;
                    r->last_write_done = mx_llmax(r->last_write_done, (long long)e->done);
                }
            } else {
                for (size_t i = 0; i < n; i++, p += stride) {
                    const mx_dram_done *e = (const mx_dram_done *)p;
                    load_slot *ls = &r->loads[e->id % LOAD_SLOTS];
                    ls->outstanding--;
                    ls->max_done = mx_llmax(ls->max_done, (long long)e->done);
                }
            }
            progress = 1;
        }
        return progress;
    }
    while (mem_pop(&r->port, &id, &wr, &done)) {
        if (wr) {
            store_slot *ss = &r->stores[(id & ~(1ull << 62)) % STORE_SLOTS];
            ss->outstanding--;
            r->last_write_done = mx_llmax(r->last_write_done, done);
        } else {
            load_slot *ls = &r->loads[id % LOAD_SLOTS];
            ls->outstanding--;
            ls->max_done = mx_llmax(ls->max_done, done); /* a max, not a branch: completions come in any order */
        }
        progress = 1;
    }
    return progress;
}

/* The engine's own next event: a buffer half freed by compute, codes out of
 * the RQU (memory clocks; LLONG_MAX: none). */
static long long cycle_own_event(const cycle_run *r)
{
    const mx_tiling *tl = &r->w.tl;
    long long next = LLONG_MAX;
    if (r->ld < r->ntiles) {
        long long dep = r->ld - (tl->double_buffer ? 2 : 1);
        if (dep >= 0 && dep < r->cp) {
            long long t = r->ends_mem[dep % 3];
            if (t > r->port.now) next = mx_llmin(next, t);
        }
    }
    if (r->st_issue < r->st_tail) {
        const long long t = r->stores[r->st_issue % STORE_SLOTS].avail_mem;
        if (t > r->port.now) next = mx_llmin(next, t);
    }
    return next;
}

/* The protocol DRAM's wake conditions for the event loop: the engine acts
 * only at its own events (cycle_own_event), when a
 * transfer may end (fewest completions any slot still waits for) or when a
 * refused DMA may be taken (the queue epoch moves).  At the DRAM's other
 * events it would pop completions and nothing else, and popping them later
 * gives the same counters (outstanding counts, max of done): so the DRAM
 * steps through those alone (mx_dram_run_until_wake). */
static size_t cycle_fewest_outstanding(const cycle_run *r)
{
    uint64_t few = 0;
    for (int i = 0; i < LOAD_SLOTS; i++)
        if (r->loads[i].outstanding && (!few || r->loads[i].outstanding < few)) few = r->loads[i].outstanding;
    for (long long si = r->st_head; si < r->st_tail; si++) {
        const store_slot *ss = &r->stores[si % STORE_SLOTS];
        if (ss->outstanding && (!few || ss->outstanding < few)) few = ss->outstanding;
    }
    return (size_t)few;
}

static int cycle_refused(const cycle_run *r)
{
    return port_still_refuses(&r->port, r->ld_refused, 0) || port_still_refuses(&r->port, r->st_refused, 1);
}

/* The refused DMAs' read-ahead addresses to the DRAM model, which adds
 * them itself as its queues free (mx_dram_dma_pend): a refused load is in
 * mid-tile, a refused store has started (its codes are out), and either
 * adds exactly these next at any retry, with the same id. */
static void cycle_pend(cycle_run *r)
{
    if (port_still_refuses(&r->port, r->ld_refused, 0))
        mx_dram_dma_pend(r->port.d, 0, r->ldb.a + r->ldb.i, (size_t)(r->ldb.n - r->ldb.i), (uint64_t)r->ld);
    if (port_still_refuses(&r->port, r->st_refused, 1))
        mx_dram_dma_pend(r->port.d, 1, r->stb.a + r->stb.i, (size_t)(r->stb.n - r->stb.i),
                         (1ull << 62) | (uint64_t)r->st_issue);
}

/* What the DRAM model took of those, booked as cycle_issue_loads and
 * cycle_issue_stores book their own (the refusal marks go stale: the epochs
 * moved, so the next retry is made). */
static int cycle_take(cycle_run *r)
{
    size_t k = mx_dram_dma_taken(r->port.d, 0);
    if (k) {
        r->ldb.i += (int)k;
        r->ldb.taken += k;
        r->loads[r->ld % LOAD_SLOTS].outstanding += k;
        r->read_bursts[r->ld_which] += k;
    }
    k = mx_dram_dma_taken(r->port.d, 1);
    if (k) {
        r->stb.i += (int)k;
        r->stb.taken += k;
        r->stores[r->st_issue % STORE_SLOTS].outstanding += k;
        r->write_bursts += k;
    }
    /* what was taken past the buffer's position is more than was read */
    return r->ldb.taken + (uint64_t)(r->ldb.n - r->ldb.i) > r->ldb.read ||
                   r->stb.taken + (uint64_t)(r->stb.n - r->stb.i) > r->stb.read
               ? -1
               : 0;
}

/* mx_dram_feed: at a DRAM event that moved the queues while a DMA was
 * refused, the engine's stages at that clock.  Compute cannot start there
 * (no transfer ended: the DRAM stops for those), so only the DMAs act, in
 * the event loop's order; the engine wakes when one finishes a transfer's
 * issue (a new load tile, a store whose output half is now free). */
static int cycle_feed(void *ctx)
{
    cycle_run *r = ctx;
    r->port.now = (long long)mx_dram_now(r->port.d);
    const long long now_a = mem_to_acc(&r->port, r->port.now);
    if (cycle_take(r) != 0) {
        r->take_bad = 1;
        return MX_DRAM_FEED_WAKE;
    }
    const long long ld0 = r->ld, st0 = r->st_issue;
    /* One round: the event loop's second round could only retry loads
     * after the stores' writes, and a read is refused on its read queue
     * alone (mx_dram_dma_add), which writes do not change. */
    cycle_issue_loads(r);
    cycle_issue_stores(r, now_a);
    if (r->ld != ld0 || r->st_issue != st0) return MX_DRAM_FEED_WAKE;
    if (!cycle_refused(r)) return 0;
    cycle_pend(r);
    return MX_DRAM_FEED_REFUSED;
}

/* The totals into s: cycles (the last store or RQU end if later than the
 * last compute: the drain), stalls, counters, the DMA's bursts, the DRAM
 * model's commands and energy up to the end. */
static void cycle_finish(cycle_run *r)
{
    mx_stats *s = r->s;
    long long total = r->end_prev;
    long long wr_end = mem_to_acc(&r->port, r->last_write_done);
    long long tail = mx_llmax(wr_end, r->last_rqu_end);
    if (tail > total) {
        s->stall[MX_STALL_DRAIN] = tail - total;
        total = tail;
    }
    s->cycles = total;
    s->compute_cycles = r->pure;
    s->stall[MX_STALL_DRAM] = r->stall_dram;
    s->stall[MX_STALL_SRAM] = r->stall_sram;
    s->stall[MX_STALL_RQU] = r->stall_rqu;
    mx_arch_gemm_counts(r->c, &r->fa, &r->fb, r->g, &r->w.tl, s);
    /* what the DMA moved, in whole bursts */
    s->dram_read[MX_OP_A] = (long long)(r->read_bursts[0] * r->burst);
    s->dram_read[MX_OP_B] = (long long)(r->read_bursts[1] * r->burst);
    s->dram_write[MX_OP_OUT] = (long long)((r->write_bursts - r->copy_bursts) * r->burst);
    if (r->port.d) {
        mem_advance(&r->port, acc_to_mem(&r->port, total)); /* background energy up to the end */
        mx_dram_stats ds;
        mx_dram_get_stats(r->port.d, &ds);
        s->dram_model = 1;
        s->dram_act = (long long)ds.act;
        s->dram_pre = (long long)ds.pre;
        s->dram_ref = (long long)ds.ref;
        s->dram_row_hits = (long long)ds.row_hits;
        s->dram_row_misses = (long long)ds.row_misses;
        s->dram_energy_pj = ds.energy_total_pj;
    }
}

/* Sets up the run: formats, the length check, tiling, memory port, operand
 * layout, second copies, shape tables.  0, or -1 with err set. */
static int cycle_setup(cycle_run *r, char *err, size_t errlen)
{
    const mx_arch_config *c = r->c;
    const mx_gemm *g = r->g;
    if (mx_arch_gemm_formats(c, g, &r->fa, &r->fb, &r->fo, err, errlen) != 0) return -1;
    const long long M = g->M, N = g->N, K = g->K;
    /* the engine steps every burst: refuse what would run for hours (the
     * array alone needs M*N*K / (R*C*L) cycles; ~4e7 cycles/s simulated) */
    double min_cycles = (double)M * (double)N * (double)K / ((double)c->rows * c->cols * c->lanes);
    if (min_cycles > MX_CYCLE_MAX_CYCLES)
        return mx_fail(err, errlen,
                       "GEMM '%s' (%lldx%lldx%lld) needs at least %.3g cycles: too long for the cycle engine "
                       "(limit %.0e); use --engine analytic",
                       g->name, M, N, K, min_cycles, (double)MX_CYCLE_MAX_CYCLES);
    tile_walk *w = &r->w;
    w->c = c;
    if (mx_arch_tiling(c, &r->fa, &r->fb, M, N, K, &w->tl, err, errlen) != 0) return -1;
    const mx_tiling *tl = &w->tl;
    w->dims_m[0] = tl->mt; w->dims_m[1] = M - (tl->m_tiles - 1) * tl->mt;
    w->dims_n[0] = tl->nt; w->dims_n[1] = N - (tl->n_tiles - 1) * tl->nt;
    w->dims_k[0] = tl->kt; w->dims_k[1] = K - (tl->k_tiles - 1) * tl->kt;
    w->outer_n = tl->n_outer ? tl->n_tiles : tl->m_tiles;
    w->inner_n = tl->n_outer ? tl->m_tiles : tl->n_tiles;
    w->ntiles = tl->m_tiles * tl->n_tiles * tl->k_tiles;
    r->ntiles = w->ntiles;
    r->nouts = tl->m_tiles * tl->n_tiles;
    /* second copies: their bytes (dram_write of A and B) are written as
     * whole bursts at the end of each output tile's store */
    long long extra_bytes = mx_arch_train_copies(c, g, &r->fa, &r->fb, r->s);
    if (port_init(c, &r->port, err, errlen) != 0) return -1;
    r->burst = r->port.burst;
    r->copies_base = gemm_layout(c, &r->fa, &r->fb, &r->fo, M, N, K, &r->ma, &r->mb, &r->mo);
    r->extra_per_out = r->nouts ? extra_bytes / r->nouts : 0;
    r->extra_rem = extra_bytes - r->extra_per_out * r->nouts;
    r->rqu_extra_elems = r->s->requant_elements;
    r->rqu_extra_per_out = r->nouts ? r->rqu_extra_elems / r->nouts : 0;
    r->memo = calloc(1, sizeof *r->memo);
    if (!r->memo) return mx_fail(err, errlen, "out of memory");
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            for (int k = 0; k < 2; k++) {
                r->shape_stall[i][j][k] = -1;
                r->shape_done[i][j][k] = -2;
                r->shape_cyc[i][j][k] = mx_tile_compute_cycles(c, w->dims_m[i], w->dims_n[j], w->dims_k[k]);
            }
    r->out_free_known[0] = r->out_free_known[1] = 1;
    r->cp_ti_of = -1;
    return 0;
}

static int cycle_gemm(const mx_arch_config *c, const mx_gemm *g, mx_stats *s, mx_cycle_tile *rec, long long cap,
                      int every_event, char *err, size_t errlen)
{
    if (c->ideal_memory) { /* no memory to step: the fold model is the whole story */
        if (mx_arch_gemm_analytic(c, g, s, err, errlen) != 0) return -1;
        return 0;
    }
    memset(s, 0, sizeof *s);
    cycle_run *r = calloc(1, sizeof *r);
    if (!r) return mx_fail(err, errlen, "out of memory");
    r->c = c; r->g = g; r->s = s; r->rec = rec; r->cap = cap;
    int rc = cycle_setup(r, err, errlen);
    /* Events in a row that moved nothing.  A sound run has few: a DRAM with
     * nothing to do for the engine wakes it once per refresh (tREFI), so a
     * tile computing for 1e6 cycles costs ~100.  A million means a livelock
     * (e.g. the DRAM keeps refusing and nothing will change that). */
    long long idle_events = 0;
    /* the event loop: everything that can happen now, then the next event */
    while (rc == 0) {
        const long long now_a = mem_to_acc(&r->port, r->port.now);
        int progress = 1, moved = 0;
        while (progress && rc == 0) {
            const int cps = cycle_compute(r);
            if (cps < 0) { rc = mx_fail(err, errlen, "out of memory"); break; }
            progress = cps;
            progress |= cycle_issue_loads(r);
            progress |= cycle_issue_stores(r, now_a);
            progress |= cycle_completions(r);
            cycle_retire_stores(r); /* only compute, next round, reads st_head */
            moved |= progress;
        }
        if (rc != 0) break;
        idle_events = moved ? 0 : idle_events + 1;
        if (idle_events > MX_DRAM_IDLE_EVENTS_MAX) {
            rc = mx_fail(err, errlen, "cycle engine: GEMM '%s' made no progress in %lld events at tile %lld of %lld, "
                         "memory clock %lld (internal error)",
                         g->name, idle_events, r->cp, r->ntiles, r->port.now);
            break;
        }
        if (r->cp == r->ntiles && r->ld == r->ntiles && r->st_head == r->st_tail) {
            cycle_finish(r);
            break;
        }
        if (r->port.d && !every_event) { /* the DRAM runs alone up to the engine's next need */
            const long long own = cycle_own_event(r);
            cycle_pend(r);
            if (mx_dram_run_until_wake(r->port.d, own == LLONG_MAX ? UINT64_MAX : (uint64_t)own,
                                       cycle_fewest_outstanding(r), cycle_refused(r), cycle_feed, r) != 0) {
                rc = mx_fail(err, errlen, "cycle engine: GEMM '%s' stopped making progress at tile %lld of %lld, "
                             "memory clock %lld: the DRAM model has no later event, or completes nothing in 1e6 "
                             "events (internal error)",
                             g->name, r->cp, r->ntiles, (long long)mx_dram_now(r->port.d));
                break;
            }
            if (r->take_bad || cycle_take(r) != 0) {
                rc = mx_fail(err, errlen, "cycle engine: GEMM '%s' at tile %lld of %lld: the DRAM model took more "
                             "DMA bursts than the DMA read (internal error)",
                             g->name, r->cp, r->ntiles);
                break;
            }
            r->port.now = (long long)mx_dram_now(r->port.d);
            continue;
        }
        const long long next = mx_llmin(mem_next_event(&r->port), cycle_own_event(r));
        /* time must move forward: a next event at or before now (a model
         * that never retires what is due) would spin here forever */
        if (next == LLONG_MAX || next <= r->port.now) {
            rc = mx_fail(err, errlen, "cycle engine: GEMM '%s' stopped making progress at tile %lld of %lld, "
                         "memory clock %lld, next event %s (internal error)",
                         g->name, r->cp, r->ntiles, r->port.now, next == LLONG_MAX ? "none" : "not later");
            break;
        }
        mem_advance(&r->port, next);
    }
    free(r->memo);
    mx_dram_free(r->port.d);
    free(r);
    return rc;
}

int mx_arch_gemm_cycle_tiles(const mx_arch_config *c, const mx_gemm *g, mx_stats *s,
                             mx_cycle_tile *rec, long long cap, char *err, size_t errlen)
{
    return cycle_gemm(c, g, s, rec, cap, 0, err, errlen);
}

int mx_arch_gemm_cycle_every_event(const mx_arch_config *c, const mx_gemm *g, mx_stats *s,
                                   mx_cycle_tile *rec, long long cap, char *err, size_t errlen)
{
    return cycle_gemm(c, g, s, rec, cap, 1, err, errlen);
}

int mx_arch_gemm_cycle(const mx_arch_config *c, const mx_gemm *g, mx_stats *s, char *err,
                       size_t errlen)
{
    return mx_arch_gemm_cycle_tiles(c, g, s, NULL, 0, err, errlen);
}

/* ---- probes for the analytic engine --------------------------------------- */

/* The DMA stream of one tile transfer (what: MX_PROBE_A and/or _B, or
 * _STORE) in the engine's operand layout, with the port's burst. */
static void transfer_stream(const mx_arch_config *c, const mx_operand_fmt *fa, const mx_operand_fmt *fb,
                            const mx_operand_fmt *fo, long long M, long long N, long long K, long long r0,
                            long long m, long long n0, long long n, long long k0, long long k, int what,
                            mx_dma_stream *st)
{
    mx_dma_matrix ma, mb, mo;
    gemm_layout(c, fa, fb, fo, M, N, K, &ma, &mb, &mo);
    mx_dma_stream_init(st, dma_burst(c));
    if (what & MX_PROBE_A) mx_dma_stream_add_tile(st, &ma, r0, m, k0, k);
    if (what & MX_PROBE_B) mx_dma_stream_add_tile(st, &mb, n0, n, k0, k);
    if (what & MX_PROBE_STORE) mx_dma_stream_add_tile(st, &mo, r0, m, n0, n);
}

/* The walks over a stream's bursts below take them STREAM_CHUNK at a time
 * (mx_dma_stream_fill: the same bursts as mx_dma_stream_next, without a
 * call per burst) */
#define STREAM_CHUNK 256

/* The bursts of transfer_stream's stream, counted without walking it
 * (mx_dma_tile_bursts per tile: the regions are 1 MiB apart, so no burst is
 * shared between two tiles' segment groups; a tenth of the analytic BERT
 * step walked streams only to count them). */
static uint64_t transfer_bursts(const mx_arch_config *c, const mx_operand_fmt *fa, const mx_operand_fmt *fb,
                                const mx_operand_fmt *fo, long long M, long long N, long long K, long long r0,
                                long long m, long long n0, long long n, long long k0, long long k, int what)
{
    mx_dma_matrix ma, mb, mo;
    gemm_layout(c, fa, fb, fo, M, N, K, &ma, &mb, &mo);
    const uint64_t b = dma_burst(c);
    uint64_t t = 0;
    if (what & MX_PROBE_A) t += mx_dma_tile_bursts(&ma, r0, m, k0, k, b);
    if (what & MX_PROBE_B) t += mx_dma_tile_bursts(&mb, n0, n, k0, k, b);
    if (what & MX_PROBE_STORE) t += mx_dma_tile_bursts(&mo, r0, m, n0, n, b);
    return t;
}

/* The ranks (bit channel * ranks + rank, mod 64) a stream's bursts touch. */
static uint64_t stream_ranks(const mx_arch_config *c, mx_dma_stream st)
{
    uint64_t mask = 0, buf[STREAM_CHUNK];
    mx_dram_addr a;
    mx_dram_addr_map map;
    mx_dram_map_build(&c->dram, &map);
    for (size_t got; (got = mx_dma_stream_fill(&st, buf, STREAM_CHUNK)) > 0;)
        for (size_t i = 0; i < got; i++) {
            mx_dram_map_with(&map, buf[i], &a);
            mask |= 1ull << ((a.channel * c->dram.ranks + a.rank) & 63);
        }
    return mask;
}

/* Bursts of a stream per channel (mod 64) into n; returns the most. */
static long long stream_ch_counts(const mx_arch_config *c, mx_dma_stream st, long long n[64])
{
    long long most = 0;
    uint64_t buf[STREAM_CHUNK];
    mx_dram_addr a;
    mx_dram_addr_map map;
    mx_dram_map_build(&c->dram, &map);
    memset(n, 0, 64 * sizeof n[0]);
    for (size_t got; (got = mx_dma_stream_fill(&st, buf, STREAM_CHUNK)) > 0;)
        for (size_t i = 0; i < got; i++) {
            mx_dram_map_with(&map, buf[i], &a);
            most = mx_llmax(most, ++n[a.channel & 63]);
        }
    return most;
}

/* The most bursts of a stream that one channel receives. */
static long long stream_ch_bursts(const mx_arch_config *c, mx_dma_stream st)
{
    long long n[64];
    return stream_ch_counts(c, st, n);
}

/* A row (or mark) per bank of the whole DRAM, every one LLONG_MIN: for the
 * walks over a transfer's bursts below.  NULL when out of memory. */
static long long *bank_rows_new(const mx_dram_config *d)
{
    const long long nb = (long long)d->channels * d->ranks * d->bankgroups * d->banks_per_group;
    long long *v = malloc((size_t)nb * sizeof *v);
    if (v)
        for (long long i = 0; i < nb; i++) v[i] = LLONG_MIN;
    return v;
}

/* A burst's bank, flat over channels, ranks, bank groups. */
static long long flat_bank(const mx_dram_config *d, const mx_dram_addr *a)
{
    return ((long long)(a->channel * d->ranks + a->rank) * d->bankgroups + a->bankgroup) * d->banks_per_group + a->bank;
}

uint64_t mx_cycle_xfer_sig(const mx_arch_config *c, const mx_operand_fmt *fa, const mx_operand_fmt *fb,
                           const mx_operand_fmt *fo, long long M, long long N, long long K, const mx_probe_xfer *x)
{
    if (!c->dram_model) return 0;
    const mx_dram_config *d = &c->dram;
    long long *first = bank_rows_new(d);
    if (!first) return 0;
    mx_dma_stream st;
    transfer_stream(c, fa, fb, fo, M, N, K, x->r0, x->m, x->n0, x->n, x->k0, x->k, x->what, &st);
    uint64_t h = 1469598103934665603ull, addr;
    mx_dram_addr a;
    mx_dram_addr_map map;
    mx_dram_map_build(d, &map);
    while (mx_dma_stream_next(&st, &addr)) {
        mx_dram_map_with(&map, addr, &a);
        const long long b = flat_bank(d, &a);
        if (first[b] == LLONG_MIN) first[b] = a.row;
        const uint64_t v[2] = {(uint64_t)b, (uint64_t)(a.row - first[b])};
        for (int i = 0; i < 2; i++) h = (h ^ v[i]) * 1099511628211ull;
    }
    free(first);
    return h;
}

int mx_cycle_probe_tile(const mx_arch_config *c, const mx_operand_fmt *fa, const mx_operand_fmt *fb,
                        const mx_operand_fmt *fo, long long M, long long N, long long K,
                        long long r0, long long m, long long n0, long long n, long long k0, long long k,
                        int what, mx_tile_probe *out)
{
    memset(out, 0, sizeof *out);
    if (!c->dram_model) return -1;
    mx_dma_stream st;
    transfer_stream(c, fa, fb, fo, M, N, K, r0, m, n0, n, k0, k, what, &st);
    out->ranks = stream_ranks(c, st);
    out->ch_bursts = stream_ch_bursts(c, st);
    int is_write = what == MX_PROBE_STORE;
    mx_dram_probe pr;
    char err[200];
    if (mx_dram_probe_run(&c->dram, mx_dma_stream_next_fn, &st, is_write, &pr, err, sizeof err) != 0) return -1;
    const mx_dram_stats *ds = &pr.stats;
    out->bursts = (long long)pr.bursts;
    out->cycles = (long long)ceil((double)pr.end_clock * c->dram.tCK_ns * c->clock_ghz - 1e-9);
    out->cmd_pj = ds->energy_pj[MX_DRAM_E_ACT] + ds->energy_pj[MX_DRAM_E_PRE] + ds->energy_pj[MX_DRAM_E_RD] +
                  ds->energy_pj[MX_DRAM_E_WR];
    out->act = (long long)ds->act;
    out->end_clock = (long long)pr.end_clock;
    out->accept = (long long)ceil((double)pr.accept_clock * c->dram.tCK_ns * c->clock_ghz - 1e-9);
    /* a REF fell due (the first at tREFI / ranks): the same transfer
     * without refresh, for a walk that charges refresh in expectation
     * (the probe's own REFs would count twice) */
    if (c->dram.refresh && pr.end_clock >= (uint64_t)(c->dram.t.tREFI / c->dram.ranks)) {
        mx_dram_config d = c->dram;
        d.refresh = 0;
        transfer_stream(c, fa, fb, fo, M, N, K, r0, m, n0, n, k0, k, what, &st);
        if (mx_dram_probe_run(&d, mx_dma_stream_next_fn, &st, is_write, &pr, err, sizeof err) != 0) return -1;
        out->cycles_noref = (long long)ceil((double)pr.end_clock * c->dram.tCK_ns * c->clock_ghz - 1e-9);
    }
    return 0;
}

/* Up to three streams, one after the other, each cut to left[i] bursts, as
 * one mx_dram_next_addr source. */
typedef struct {
    mx_dma_stream st[3];
    uint64_t left[3];
    int i, n;
} stream_seq;

static int stream_seq_next(void *src, uint64_t *addr)
{
    stream_seq *p = src;
    while (p->i < p->n) {
        if (p->left[p->i] > 0 && mx_dma_stream_next(&p->st[p->i], addr)) {
            p->left[p->i]--;
            return 1;
        }
        p->i++;
    }
    return 0;
}

int mx_cycle_probe_seq(const mx_arch_config *c, const mx_operand_fmt *fa, const mx_operand_fmt *fb,
                       const mx_operand_fmt *fo, long long M, long long N, long long K, const mx_probe_xfer *x,
                       int n, long long second_at, mx_tile_probe out[2])
{
    memset(out, 0, 2 * sizeof *out);
    if (!c->dram_model || n < 1 || n > 3) return -1;
    stream_seq sp;
    memset(&sp, 0, sizeof sp);
    sp.n = n;
    uint64_t first = 0;
    for (int i = 0; i < n; i++) {
        transfer_stream(c, fa, fb, fo, M, N, K, x[i].r0, x[i].m, x[i].n0, x[i].n, x[i].k0, x[i].k, x[i].what,
                        &sp.st[i]);
        const uint64_t total = transfer_bursts(c, fa, fb, fo, M, N, K, x[i].r0, x[i].m, x[i].n0, x[i].n, x[i].k0,
                                               x[i].k, x[i].what),
                       skip = (uint64_t)mx_llmax(0, x[i].skip);
        uint64_t buf[STREAM_CHUNK];
        for (uint64_t k = 0, left = skip < total ? skip : total; k < left;)
            k += mx_dma_stream_fill(&sp.st[i], buf, (size_t)(left - k < STREAM_CHUNK ? left - k : STREAM_CHUNK));
        sp.left[i] = total > skip ? total - skip : 0;
        if (x[i].limit > 0 && sp.left[i] > (uint64_t)x[i].limit) sp.left[i] = (uint64_t)x[i].limit;
        if (i < n - 1 || n == 1) {
            first += sp.left[i];
            out[0].ranks |= stream_ranks(c, sp.st[i]);
        }
    }
    out[1].ranks = out[0].ranks | stream_ranks(c, sp.st[n - 1]);
    if (n == 1) first = 0; /* one transfer: no split, all in out[1] */
    mx_dram_probe pr;
    char err[200];
    /* the first group is all loads or one transfer; cut to nothing, the
     * whole sequence is the last transfer's kind */
    const int w1 = (x[n - 1].what & MX_PROBE_STORE) != 0, w0 = first > 0 ? (x[0].what & MX_PROBE_STORE) != 0 : w1;
    if (second_at < 0) second_at = w0 != w1 ? 1 : 0;
    if (mx_dram_probe_run_split(&c->dram, stream_seq_next, &sp, w0, first, w1, (uint64_t)second_at, &pr, err,
                                sizeof err) != 0)
        return -1;
    const double ratio = c->dram.tCK_ns * c->clock_ghz;
    const mx_dram_stats *ds = &pr.stats;
    out[0].bursts = (long long)first;
    out[0].cycles = (long long)ceil((double)pr.split_end * ratio - 1e-9);
    out[0].end_clock = (long long)pr.split_end;
    out[1].bursts = (long long)(pr.bursts - first);
    out[1].first = (long long)ceil((double)pr.second_first * ratio - 1e-9);
    out[1].cycles = (long long)ceil((double)pr.end_clock * ratio - 1e-9);
    out[1].end_clock = (long long)pr.end_clock;
    out[1].cmd_pj = ds->energy_pj[MX_DRAM_E_ACT] + ds->energy_pj[MX_DRAM_E_PRE] + ds->energy_pj[MX_DRAM_E_RD] +
                    ds->energy_pj[MX_DRAM_E_WR];
    out[1].act = (long long)ds->act;
    return 0;
}

int mx_cycle_probe_chain(const mx_arch_config *c, const mx_operand_fmt *fa, const mx_operand_fmt *fb,
                         const mx_operand_fmt *fo, long long M, long long N, long long K, const mx_probe_xfer *x,
                         const int *join, int n, double *cmd_pj, long long *act, long long *rd, long long *wr,
                         double *closed)
{
    if (!c->dram_model) return -1;
    char err[200];
    mx_dram *d = mx_dram_new(&c->dram, err, sizeof err);
    if (!d) return -1;
    uint64_t issued = 0, done = 0, addr, seen = 0;
    double first_sum = 0; /* each rank's first access clock */
    for (int i = 0; i <= n; i++) {
        /* a transfer not issued with the one before: once all is done */
        while ((i == n || !join[i]) && done < issued) {
            while (mx_dram_take_done(d) != NULL) done++;
            if (done == issued) break;
            if (mx_dram_run_until_wake(d, UINT64_MAX, (size_t)(issued - done), 0, NULL, NULL) != 0) {
                mx_dram_free(d);
                return -1;
            }
        }
        if (i == n) break;
        mx_dma_stream st;
        transfer_stream(c, fa, fb, fo, M, N, K, x[i].r0, x[i].m, x[i].n0, x[i].n, x[i].k0, x[i].k, x[i].what, &st);
        const uint64_t rk = stream_ranks(c, st), fresh = rk & ~seen;
        first_sum += (double)__builtin_popcountll(fresh) * (double)mx_dram_now(d);
        seen |= rk;
        const int w = x[i].what == MX_PROBE_STORE;
        int have = mx_dma_stream_next(&st, &addr);
        for (;;) {
            while (have && mx_dram_dma_add(d, addr, w, issued) == 0) {
                issued++;
                have = mx_dma_stream_next(&st, &addr);
            }
            while (mx_dram_take_done(d) != NULL) done++;
            if (!have) break;
            if (mx_dram_run_until_wake(d, UINT64_MAX, 0, 1, NULL, NULL) != 0) {
                mx_dram_free(d);
                return -1;
            }
        }
    }
    mx_dram_stats ds;
    mx_dram_get_stats(d, &ds);
    const double now = (double)mx_dram_now(d);
    mx_dram_free(d);
    double pj[MX_DRAM_E_N];
    mx_dram_energy_per_command(&c->dram, pj);
    /* closed clocks of the ranks accessed, from their first access on:
     * each PRE that closes a rank's last open bank until the next ACT */
    const int ranks = c->dram.channels * c->dram.ranks;
    const double pre_clk = pj[MX_DRAM_E_BG_PRE] > 0 ? ds.energy_pj[MX_DRAM_E_BG_PRE] / pj[MX_DRAM_E_BG_PRE] : 0;
    *closed = pre_clk - (double)(ranks - __builtin_popcountll(seen)) * now - first_sum;
    if (*closed < 0) *closed = 0;
    *cmd_pj = ds.energy_pj[MX_DRAM_E_ACT] + ds.energy_pj[MX_DRAM_E_PRE] + ds.energy_pj[MX_DRAM_E_RD] +
              ds.energy_pj[MX_DRAM_E_WR];
    *act = (long long)ds.act;
    *rd = (long long)ds.rd;
    *wr = (long long)ds.wr;
    return 0;
}

#define TIMED_RECENT 64
#define TIMED_AHEAD 64

/* The timed replay's feeder: the DRAM model and, per kind (0 loads, 1
 * stores), the transfer being offered and its stream position. */
typedef struct {
    mx_dram *d;            /* NULL: the bandwidth channel below            */
    mx_chan ch;            /* without d (accelerator clock = its clock)     */
    long long now;         /* the channel's clock                          */
    mx_dma_stream st[2];
    int cur[2], have[2];
    uint64_t addr[2], issued, done;
    /* The DRAM's request ids: kind << 62 | the transfer's ordinal among
     * its kind, not its index (a kept query's copy may see its last load
     * move to a later index: mx_probe_replay_shift); ord[w] transfers of
     * kind w started, the index of each recent ordinal in recent[][]. */
    uint64_t ord[2];
    struct { uint64_t ord; int idx; } recent[2][TIMED_RECENT];
    /* Addresses read ahead of addr[w] (pb[w][pi[w]..pn[w])), for the DRAM
     * model to take a refused kind's next ones itself (mx_dram_dma_pend),
     * as the cycle engine feeds it; where pending, addr[w] is
     * pb[w][pi[w] - 1]. */
    uint64_t pb[2][TIMED_AHEAD];
    int pi[2], pn[2];
} timed_feed;

/* Kind w's next address into addr[w]: 1, or 0 at its transfer's end. */
static int feed_next(timed_feed *s, int w)
{
    if (s->pi[w] < s->pn[w]) {
        s->addr[w] = s->pb[w][s->pi[w]++];
        return 1;
    }
    return mx_dma_stream_next(&s->st[w], &s->addr[w]);
}

/* Kind w's remaining addresses from addr[w] on to the DRAM model, which
 * adds them itself while its queues take them (addr[w] was refused). */
static void feed_pend(timed_feed *s, int w)
{
    if (s->pi[w] == s->pn[w]) {
        s->pb[w][0] = s->addr[w];
        s->pn[w] = 1 + (int)mx_dma_stream_fill(&s->st[w], s->pb[w] + 1, TIMED_AHEAD - 1);
        s->pi[w] = 1;
    }
    mx_dram_dma_pend(s->d, w, s->pb[w] + s->pi[w] - 1, (size_t)(s->pn[w] - s->pi[w] + 1),
                     (uint64_t)w << 62 | (s->ord[w] - 1));
}

/* What the DRAM model took of the pending lists, booked as timed_run books
 * its own adds (the lists cleared). */
static void feed_take(timed_feed *s, long long *accept, long long *left)
{
    for (int w = 0; w < 2; w++) {
        const size_t k = mx_dram_dma_taken(s->d, w);
        if (!k) continue;
        s->issued += k;
        left[s->cur[w]] += (long long)k;
        const int nx = s->pi[w] - 1 + (int)k;
        if (nx < s->pn[w]) {
            s->addr[w] = s->pb[w][nx];
            s->pi[w] = nx + 1;
        } else {
            s->pi[w] = s->pn[w];
            s->have[w] = feed_next(s, w);
            if (!s->have[w]) accept[s->cur[w]] = (long long)mx_dram_now(s->d);
        }
    }
}

typedef struct {
    timed_feed *s;
    long long *accept, *left;
} feed_ctx;

/* mx_dram_feed: a pending list ran out (or the run stops): booked, and
 * timed_run goes on from there */
static int feed_wake(void *ctx)
{
    feed_ctx *f = ctx;
    feed_take(f->s, f->accept, f->left);
    return MX_DRAM_FEED_WAKE;
}

/* The index of request id's transfer (timed_feed.ord). */
static int feed_index(const timed_feed *s, const mx_probe_xfer *x, uint64_t id)
{
    const int w = (int)(id >> 62);
    const uint64_t o = id & ((UINT64_C(1) << 62) - 1);
    const int k = (int)(o % TIMED_RECENT);
    if (s->recent[w][k].ord == o) return s->recent[w][k].idx;
    /* older: counted back from the current one */
    int j = s->cur[w];
    for (uint64_t c = s->ord[w] - 1; c > o; c--)
        do j--;
        while (((x[j].what & MX_PROBE_STORE) != 0) != w);
    return j;
}

static uint64_t feed_now(const timed_feed *s) { return s->d ? mx_dram_now(s->d) : (uint64_t)s->now; }

/* Whether transfer `want` has been offered whole (all its requests handed
 * to the memory), and whether it is over: its accept with want_acc, else
 * offered with nothing in flight. */
static int feed_offered(const timed_feed *s, const mx_probe_xfer *x, int want)
{
    const int w = (x[want].what & MX_PROBE_STORE) != 0;
    return s->cur[w] > want || (s->cur[w] == want && !s->have[w]);
}

static int feed_over(const timed_feed *s, const mx_probe_xfer *x, int want, int want_acc, const long long *accept,
                     const long long *left)
{
    return want_acc ? accept[want] >= 0 : feed_offered(s, x, want) && left[want] == 0;
}

/* The feed's next transfer of kind w (0 loads, 1 stores) after cur, looked
 * up once per transfer (*nj, -1: not yet), not once per event. */
static int next_of_kind(const mx_probe_xfer *x, int n, int cur, int *nj, int w)
{
    if (*nj < 0) {
        int j = cur + 1;
        while (j < n && ((x[j].what & MX_PROBE_STORE) != 0) != w) j++;
        *nj = j;
    }
    return *nj;
}

/* timed_run on the bandwidth channel: the cycle engine's event loop
 * (cycle_gemm) at its memory's events, offers and completions: loads, then
 * stores, then completions, again while any moved (a read the ring refused
 * enters after the completions that free it, behind the stores taken
 * before them). */
static int timed_run_chan(const mx_probe_replay_in *in, timed_feed *s, const mx_probe_xfer *x, const long long *at,
                          int n, long long *end, long long *accept, long long *left, uint64_t until, int want,
                          int want_acc)
{
    const mx_arch_config *c = in->c;
    int nj[2] = {-1, -1}; /* the next transfer of each kind after cur[] (-1: not looked up): one scan per transfer, not per event */
    for (;;) {
        if ((uint64_t)s->now >= until) return 0;
        long long next_at = LLONG_MAX;
        for (int progress = 1; progress;) {
            progress = 0;
            for (int w = 0; w < 2; w++) {
                for (;;) {
                    if (!s->have[w]) {
                        const int j = next_of_kind(x, n, s->cur[w], &nj[w], w);
                        if (j >= n) break;
                        if (mx_llmax(0, at[j]) > s->now) {
                            next_at = mx_llmin(next_at, at[j]);
                            break;
                        }
                        s->cur[w] = j;
                        nj[w] = -1;
                        transfer_stream(c, in->fa, in->fb, in->fo, in->M, in->N, in->K, x[j].r0, x[j].m, x[j].n0,
                                        x[j].n, x[j].k0, x[j].k, x[j].what, &s->st[w]);
                        s->have[w] = mx_dma_stream_next(&s->st[w], &s->addr[w]);
                        if (!s->have[w]) continue;
                    }
                    if (mx_chan_add(&s->ch, s->now, w, (uint64_t)s->cur[w]) != 0) break;
                    s->issued++;
                    left[s->cur[w]]++;
                    progress = 1;
                    s->have[w] = mx_dma_stream_next(&s->st[w], &s->addr[w]);
                    if (!s->have[w]) accept[s->cur[w]] = s->now;
                }
            }
            uint64_t id;
            int wr;
            long long done;
            while (mx_chan_pop(&s->ch, s->now, &id, &wr, &done)) {
                s->done++;
                left[id]--;
                if (done > end[id]) end[id] = done;
                progress = 1;
            }
        }
        if (want >= 0 && feed_over(s, x, want, want_acc, accept, left)) return 0;
        if (!s->have[0] && !s->have[1] && next_at == LLONG_MAX && s->done == s->issued && until == UINT64_MAX) break;
        long long t = mx_llmin(mx_chan_next_event(&s->ch, s->now), next_at);
        if (until != UINT64_MAX && (long long)until < t) t = (long long)until;
        if (t == LLONG_MAX) return -1; /* waiting with nothing to wait for */
        s->now = t > s->now ? t : s->now + 1;
    }
    return 0;
}

/* Runs the feed loop of transfers x[0..n) (offered from DRAM clock at[i])
 * on s: end[i], accept[i] and left[i] (bursts in flight) kept per transfer.
 * It stops at the top of the loop once the DRAM clock reaches `until` (the
 * base of an incremental replay: nothing later than x[n-1] is offered before
 * it, so every step so far is the from-scratch replay's), when transfer
 * `want` is over (its end, or with want_acc its accept: what comes after
 * cannot change either), or when all is done.  0, or -1 on a model error. */
static int timed_run(const mx_probe_replay_in *in, timed_feed *s, const mx_probe_xfer *x, const long long *at, int n,
                     long long *end, long long *accept, long long *left, uint64_t until, int want, int want_acc)
{
    if (!s->d) return timed_run_chan(in, s, x, at, n, end, accept, left, until, want, want_acc);
    const mx_arch_config *c = in->c;
    mx_dram *d = s->d;
    int nj[2] = {-1, -1}; /* the next transfer of each kind after cur[] (-1: not looked up): one scan per transfer, not per wake */
    feed_ctx fc = {s, accept, left};
    for (;;) {
        if (mx_dram_now(d) >= until) return 0;
        int blocked = 0, refused[2] = {0, 0};
        uint64_t next_at = UINT64_MAX;
        for (int w = 0; w < 2; w++) {
            for (;;) {
                if (!s->have[w]) { /* the next transfer of this kind, once it is offered */
                    const int j = next_of_kind(x, n, s->cur[w], &nj[w], w);
                    if (j >= n) break;
                    if ((uint64_t)mx_llmax(0, at[j]) > mx_dram_now(d)) {
                        if ((uint64_t)at[j] < next_at) next_at = (uint64_t)at[j];
                        break;
                    }
                    s->cur[w] = j;
                    nj[w] = -1;
                    s->recent[w][s->ord[w] % TIMED_RECENT].ord = s->ord[w];
                    s->recent[w][s->ord[w] % TIMED_RECENT].idx = j;
                    s->ord[w]++;
                    transfer_stream(c, in->fa, in->fb, in->fo, in->M, in->N, in->K, x[j].r0, x[j].m, x[j].n0,
                                    x[j].n, x[j].k0, x[j].k, x[j].what, &s->st[w]);
                    s->pi[w] = s->pn[w] = 0;
                    s->have[w] = feed_next(s, w);
                    if (!s->have[w]) continue;
                }
                if (mx_dram_dma_add(d, s->addr[w], w, (uint64_t)w << 62 | (s->ord[w] - 1)) != 0) {
                    blocked = refused[w] = 1;
                    break;
                }
                s->issued++;
                left[s->cur[w]]++;
                s->have[w] = feed_next(s, w);
                if (!s->have[w]) accept[s->cur[w]] = (long long)mx_dram_now(d);
            }
        }
        for (const mx_dram_done *r; (r = mx_dram_take_done(d)) != NULL;) {
            s->done++;
            const int i = feed_index(s, x, r->id);
            left[i]--;
            if ((long long)r->done > end[i]) end[i] = (long long)r->done;
        }
        /* the refused kinds' next requests handed to the model (as the
         * cycle engine's), which then wakes this loop only when one runs
         * out: not while `want` waits for completions, which this loop
         * checks at every wake (a base's stop clock must stay) */
        int pend = blocked;
        if (want >= 0) {
            if (feed_over(s, x, want, want_acc, accept, left)) return 0;
            if (!want_acc && feed_offered(s, x, want)) pend = 0;
        }
        if (!s->have[0] && !s->have[1] && next_at == UINT64_MAX && s->done == s->issued && until == UINT64_MAX) break;
        const int all_in = !s->have[0] && !s->have[1] && next_at == UINT64_MAX && until == UINT64_MAX;
        if (until < next_at) next_at = until;
        if (pend) {
            for (int w = 0; w < 2; w++)
                if (refused[w]) feed_pend(s, w);
            const int rc = mx_dram_run_until_wake(d, next_at, 0, 1, feed_wake, &fc);
            feed_take(s, accept, left);
            if (rc != 0) return -1;
            continue;
        }
        if (mx_dram_run_until_wake(d, next_at, all_in ? (size_t)(s->issued - s->done) : 0, blocked, NULL, NULL) != 0)
            return -1;
    }
    return 0;
}

/* A feeder on a fresh model (without a DRAM model, the bandwidth channel),
 * before any transfer (as mx_cycle_probe_timed's). */
static int timed_fresh(const mx_probe_replay_in *in, timed_feed *s)
{
    char err[200];
    memset(s, 0, sizeof *s);
    s->cur[0] = s->cur[1] = -1;
    if (!in->c->dram_model) {
        mx_chan_init(&s->ch, in->c->dram_bytes_per_cycle, in->c->dram_latency);
        return 0;
    }
    s->d = mx_dram_new(&in->c->dram, err, sizeof err);
    return s->d ? 0 : -1;
}

/* Transfers x[0..n) on one fresh DRAM (or bandwidth channel), each offered from DRAM clock at[i]
 * on as the cycle engine's DMA offers them: loads one after another in
 * index order, stores likewise (writes only below the drain watermark),
 * the two kinds side by side.  end[i]: the DRAM clock of transfer i's last
 * completion.  0, or -1 on a model error. */
int mx_cycle_probe_timed(const mx_arch_config *c, const mx_operand_fmt *fa, const mx_operand_fmt *fb,
                         const mx_operand_fmt *fo, long long M, long long N, long long K, const mx_probe_xfer *x,
                         const long long *at, int n, long long *end, long long *accept)
{
    if (n < 1) return -1;
    const mx_probe_replay_in in = {c, fa, fb, fo, M, N, K};
    timed_feed s;
    const int ok = timed_fresh(&in, &s) == 0;
    long long *left = calloc((size_t)n, sizeof *left), *acc = accept ? accept : malloc((size_t)n * sizeof *acc);
    int rc = -1;
    if (ok && left && acc) {
        for (int i = 0; i < n; i++) end[i] = acc[i] = -1;
        rc = timed_run(&in, &s, x, at, n, end, acc, left, UINT64_MAX, -1, 0);
    }
    mx_dram_free(s.d);
    free(left);
    if (acc != accept) free(acc);
    return rc;
}

/* The incremental replay (mx_cycle.h): a base feeder and its per-transfer
 * records for the known transfers. */
struct mx_probe_replay {
    mx_probe_replay_in in;
    timed_feed s;
    int known, cap;
    long long *end, *accept, *left;
};

mx_probe_replay *mx_probe_replay_new(const mx_probe_replay_in *in)
{
    mx_probe_replay *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->in = *in;
    if (timed_fresh(in, &r->s) != 0) { free(r); return NULL; }
    return r;
}

void mx_probe_replay_free(mx_probe_replay *r)
{
    if (!r) return;
    mx_dram_free(r->s.d);
    free(r->end);
    free(r->accept);
    free(r->left);
    free(r);
}

int mx_probe_replay_known(const mx_probe_replay *r) { return r->known; }
uint64_t mx_probe_replay_now(const mx_probe_replay *r) { return feed_now(&r->s); }

/* Room for n transfers' records, the new ones -1 (end, accept) and 0. */
static int replay_room(long long **end, long long **accept, long long **left, int *cap, int had, int n)
{
    if (n > *cap) {
        const int nc = n > 2 * *cap ? n : 2 * *cap;
        long long *e = realloc(*end, (size_t)nc * sizeof *e);
        if (e) *end = e;
        long long *a = realloc(*accept, (size_t)nc * sizeof *a);
        if (a) *accept = a;
        long long *l = realloc(*left, (size_t)nc * sizeof *l);
        if (l) *left = l;
        if (!e || !a || !l) return -1;
        *cap = nc;
    }
    for (int i = had; i < n; i++) { (*end)[i] = (*accept)[i] = -1; (*left)[i] = 0; }
    return 0;
}

int mx_probe_replay_fits(const mx_probe_replay *r, const long long *at, int n)
{
    if (n < r->known) return 0;
    const uint64_t now = feed_now(&r->s);
    for (int i = r->known; i < n; i++)
        if ((uint64_t)mx_llmax(0, at[i]) < now) return 0;
    return 1;
}

/* Where the base ran past an offer it did not have (mx_probe_replay_fits),
 * it is rebuilt from nothing; then it has room for n transfers. */
static int replay_refit(mx_probe_replay *r, const long long *at, int n)
{
    if (!mx_probe_replay_fits(r, at, n)) {
        timed_feed s;
        if (timed_fresh(&r->in, &s) != 0) return -1;
        mx_dram_free(r->s.d);
        r->s = s;
        r->known = 0;
    }
    if (replay_room(&r->end, &r->accept, &r->left, &r->cap, r->known, n) != 0) return -1;
    r->known = n;
    return 0;
}

int mx_probe_replay_advance(mx_probe_replay *r, const mx_probe_xfer *x, const long long *at, int n, uint64_t until)
{
    if (replay_refit(r, at, n) != 0) return -1;
    return timed_run(&r->in, &r->s, x, at, n, r->end, r->accept, r->left, until, -1, 0);
}

int mx_probe_replay_advance_want(mx_probe_replay *r, const mx_probe_xfer *x, const long long *at, int n,
                                 uint64_t until, int want, long long *end)
{
    if (want < 0 || want >= n || replay_refit(r, at, n) != 0) return -1;
    if (timed_run(&r->in, &r->s, x, at, n, r->end, r->accept, r->left, until, want, 0) != 0) return -1;
    if (!feed_over(&r->s, x, want, 0, r->accept, r->left) || r->end[want] < 0) return 0;
    *end = r->end[want];
    return 1;
}

/* A query's records for x[0..n): the base's for its first `known`, the
 * rest not yet seen (-1, -1, none in flight). */
static void replay_records(const mx_probe_replay *r, int known, int n, long long *end, long long *accept,
                           long long *left)
{
    for (int i = 0; i < n; i++) {
        end[i] = i < known ? r->end[i] : -1;
        accept[i] = i < known ? r->accept[i] : -1;
        left[i] = i < known ? r->left[i] : 0;
    }
}

/* A query's run from a copy of the base where it fits x, else from nothing
 * (its state is not the from-scratch replay's: a transfer it has not is
 * offered earlier).  With fin, the run's DRAM model is handed back. */
static int replay_query_run(const mx_probe_replay *r, const mx_probe_xfer *x, const long long *at, int n,
                            long long *end, long long *accept, int want, int want_acc, mx_dram **fin)
{
    if (n < 1) return -1;
    const int fits = mx_probe_replay_fits(r, at, n), known = fits ? r->known : 0;
    timed_feed s = r->s;
    int ok = 1;
    if (!fits) ok = timed_fresh(&r->in, &s) == 0;
    else if (r->s.d) ok = (s.d = mx_dram_clone(r->s.d)) != NULL;
    long long *left = malloc((size_t)n * sizeof *left);
    int rc = -1;
    if (ok && left) {
        replay_records(r, known, n, end, accept, left);
        rc = timed_run(&r->in, &s, x, at, n, end, accept, left, UINT64_MAX, want, want_acc);
    }
    free(left);
    if (fin && rc == 0) *fin = s.d;
    else mx_dram_free(s.d);
    return rc;
}

int mx_probe_replay_query(const mx_probe_replay *r, const mx_probe_xfer *x, const long long *at, int n, long long *end,
                          long long *accept, int want, int want_acc)
{
    return replay_query_run(r, x, at, n, end, accept, want, want_acc, NULL);
}

int mx_probe_replay_query_keep(const mx_probe_replay *r, const mx_probe_xfer *x, const long long *at, int n,
                               long long *end, long long *accept, int want, int want_acc, mx_probe_replay **keep)
{
    *keep = NULL;
    if (n < 1 || !r->s.d || !mx_probe_replay_fits(r, at, n))
        return replay_query_run(r, x, at, n, end, accept, want, want_acc, NULL);
    /* replay_query_run's copy, with records of its own */
    mx_probe_replay *q = calloc(1, sizeof *q);
    if (!q) return -1;
    q->in = r->in;
    q->s = r->s;
    q->s.d = mx_dram_clone(r->s.d);
    if (!q->s.d || replay_room(&q->end, &q->accept, &q->left, &q->cap, 0, n) != 0) {
        mx_probe_replay_free(q);
        return -1;
    }
    replay_records(r, r->known, n, q->end, q->accept, q->left);
    q->known = n;
    if (timed_run(&q->in, &q->s, x, at, n, q->end, q->accept, q->left, UINT64_MAX, want, want_acc) != 0) {
        mx_probe_replay_free(q);
        return -1;
    }
    memcpy(end, q->end, (size_t)n * sizeof *end);
    memcpy(accept, q->accept, (size_t)n * sizeof *accept);
    *keep = q;
    return 0;
}

int mx_probe_replay_shift(mx_probe_replay *r, int i, int by)
{
    if (by < 0 || i != r->known - 1 || !r->s.d) return -1;
    if (by == 0) return 0;
    if (r->s.cur[1] >= i) return -1; /* a store moved */
    if (replay_room(&r->end, &r->accept, &r->left, &r->cap, r->known, i + by + 1) != 0) return -1;
    r->end[i + by] = r->end[i];
    r->accept[i + by] = r->accept[i];
    r->left[i + by] = r->left[i];
    r->end[i] = r->accept[i] = -1;
    r->left[i] = 0;
    for (int k = 0; k < TIMED_RECENT; k++)
        if (r->s.recent[0][k].ord < r->s.ord[0] && r->s.recent[0][k].idx == i) r->s.recent[0][k].idx = i + by;
    if (r->s.cur[0] == i) r->s.cur[0] = i + by;
    r->known = i + by + 1;
    return 0;
}

int mx_probe_replay_query_model(const mx_probe_replay *r, const mx_probe_xfer *x, const long long *at, int n,
                                long long *end, long long *accept, mx_dram **fin)
{
    *fin = NULL;
    if (!r->s.d) return -1;
    return replay_query_run(r, x, at, n, end, accept, -1, 0, fin);
}

int mx_cycle_probe_pair(const mx_arch_config *c, const mx_operand_fmt *fa, const mx_operand_fmt *fb,
                        const mx_operand_fmt *fo, long long M, long long N, long long K,
                        const mx_probe_xfer x[2], long long second_at, mx_tile_probe out[2])
{
    return mx_cycle_probe_seq(c, fa, fb, fo, M, N, K, x, 2, second_at, out);
}

uint64_t mx_cycle_xfer_ranks(const mx_arch_config *c, const mx_operand_fmt *fa, const mx_operand_fmt *fb,
                             const mx_operand_fmt *fo, long long M, long long N, long long K, const mx_probe_xfer *x)
{
    if (!c->dram_model) return 0;
    mx_dma_stream st;
    transfer_stream(c, fa, fb, fo, M, N, K, x->r0, x->m, x->n0, x->n, x->k0, x->k, x->what, &st);
    return stream_ranks(c, st);
}

uint64_t mx_cycle_xfer_channels(const mx_arch_config *c, const mx_operand_fmt *fa, const mx_operand_fmt *fb,
                                const mx_operand_fmt *fo, long long M, long long N, long long K, const mx_probe_xfer *x,
                                long long min_bursts)
{
    if (!c->dram_model) return 0;
    mx_dma_stream st;
    transfer_stream(c, fa, fb, fo, M, N, K, x->r0, x->m, x->n0, x->n, x->k0, x->k, x->what, &st);
    long long n[64];
    const long long most = stream_ch_counts(c, st, n);
    uint64_t mask = 0;
    const long long lim = mx_llmax(1, mx_llmin(min_bursts, most));
    for (int i = 0; i < 64; i++)
        if (n[i] >= lim) mask |= 1ull << i;
    return mask;
}

/* A store behind a load in one bank (LPDDR4 8x8 os BF16 189x32x16: loads
 * and stores all in bank 0, rows 0 and 16) waits for tRTP, PRE and ACT
 * before its first write, and every later write with it. */
int mx_cycle_xfer_row_conflict(const mx_arch_config *c, const mx_operand_fmt *fa, const mx_operand_fmt *fb,
                               const mx_operand_fmt *fo, long long M, long long N, long long K,
                               const mx_probe_xfer *a, int na, const mx_probe_xfer *b)
{
    if (!c->dram_model) return 0;
    const mx_dram_config *d = &c->dram;
    long long *open = bank_rows_new(d);
    if (!open) return 0;
    mx_dram_addr_map map;
    mx_dram_map_build(d, &map);
    mx_dram_addr ad;
    uint64_t addr;
    mx_dma_stream st;
    int conflict = 0;
    for (int i = 0; i <= na; i++) {
        const mx_probe_xfer *x = i < na ? &a[i] : b;
        transfer_stream(c, fa, fb, fo, M, N, K, x->r0, x->m, x->n0, x->n, x->k0, x->k, x->what, &st);
        while (mx_dma_stream_next(&st, &addr)) {
            mx_dram_map_with(&map, addr, &ad);
            const long long bk = flat_bank(d, &ad);
            if (i == na) { /* every burst of b */
                conflict = open[bk] != LLONG_MIN && open[bk] != ad.row;
                if (!conflict) break;
                open[bk] = LLONG_MAX; /* b touches it: never LLONG_MIN, never a row */
                continue;
            }
            open[bk] = ad.row;
        }
    }
    /* and every bank a left open is one b writes to */
    const long long nb = (long long)d->channels * d->ranks * d->bankgroups * d->banks_per_group;
    for (long long i = 0; conflict && i < nb; i++)
        if (open[i] != LLONG_MIN && open[i] != LLONG_MAX) conflict = 0;
    free(open);
    return conflict;
}

long long mx_cycle_tile_bursts(const mx_arch_config *c, const mx_operand_fmt *fa, const mx_operand_fmt *fb,
                               const mx_operand_fmt *fo, long long M, long long N, long long K, long long r0,
                               long long m, long long n0, long long n, long long k0, long long k, int what)
{
    return (long long)transfer_bursts(c, fa, fb, fo, M, N, K, r0, m, n0, n, k0, k, what);
}

long long mx_cycle_grid_bursts(const mx_arch_config *c, const mx_operand_fmt *fa, const mx_operand_fmt *fb,
                               const mx_operand_fmt *fo, long long M, long long N, long long K, const mx_tiling *tl,
                               int what)
{
    mx_dma_matrix ma, mb, mo;
    gemm_layout(c, fa, fb, fo, M, N, K, &ma, &mb, &mo);
    const uint64_t burst = dma_burst(c);
    const uint64_t n = what == MX_PROBE_A   ? mx_dma_grid_bursts(&ma, M, tl->mt, K, tl->kt, burst)
                       : what == MX_PROBE_B ? mx_dma_grid_bursts(&mb, N, tl->nt, K, tl->kt, burst)
                                            : mx_dma_grid_bursts(&mo, M, tl->mt, N, tl->nt, burst);
    return n > (uint64_t)LLONG_MAX ? -1 : (long long)n;
}

long long mx_cycle_tile_sram_stall(const mx_arch_config *c, const mx_operand_fmt *fa,
                                   const mx_operand_fmt *fb, long long m, long long n, long long k)
{
    stall_memo *memo = calloc(1, sizeof *memo);
    if (!memo) return -1;
    long long st = tile_sram_stall(c, memo, fa, fb, m, n, k);
    free(memo);
    return st;
}
