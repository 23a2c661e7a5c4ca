/*
 * mx_dram.c — protocol-level DRAM model (see mx_dram.h and docs/DRAM.md).
 *
 * Structure, per channel: a controller (read queue, write queue, FR-FCFS,
 * write draining, per-rank refresh) in front of rank / bank-group / bank
 * state.  Every piece of state keeps "earliest clock" values per command
 * kind (ACT, PRE, RD, WR, REF); a command is issuable at the max over its
 * bank, bank group and rank, plus the four-activate window.  Issuing a
 * command raises those values by the constraints of the timing table
 * (struct dram_tm), as DRAMsim3's same-bank / same-group / same-rank /
 * other-rank lists do.
 *
 * Speed: the scheduler's choice only changes when its state changes (a
 * command issues, a request arrives, a refresh falls due), so after each
 * change one pass over the banks with requests in the active queue (each
 * queue keeps a list per bank, oldest first) finds the best candidate of
 * each class and the clock it becomes issuable (ch->next); clocks before it
 * are skipped in O(1).  The same code runs for tick() and run_until(), so
 * both give identical results.
 */
#include "mem/mx_dram.h"
#include "util/mx_util.h"

#include <stdlib.h>
#include <string.h>

/* ---- timing table --------------------------------------------------------- */
#define TF(n, m) { #n, offsetof(mx_dram_timing, n), m }
const mx_dram_timing_field mx_dram_timing_table[] = {
    TF(CL, 1),     TF(CWL, 1),    TF(AL, 0),     TF(tRCD, 1),  TF(tRP, 1),
    TF(tRAS, 1),   TF(tRC, 1),    TF(tRRD_S, 1), TF(tRRD_L, 1), TF(tCCD_S, 1),
    TF(tCCD_L, 1), TF(tFAW, 1),   TF(tWTR_S, 1), TF(tWTR_L, 1), TF(tWR, 1),
    TF(tRTP, 1),   TF(tRTRS, 0),  TF(tRFC, 1),   TF(tREFI, 1), TF(tCKE, 0),
    TF(tXP, 0),
};
#undef TF
const size_t mx_dram_timing_table_n = sizeof mx_dram_timing_table / sizeof mx_dram_timing_table[0];

static const char *const energy_names[MX_DRAM_E_N] = {"act", "pre", "rd", "wr", "ref", "bg_act", "bg_pre"};

const char *mx_dram_energy_name(mx_dram_energy e)
{
    return (unsigned)e < MX_DRAM_E_N ? energy_names[e] : "?";
}

/* ---- small helpers -------------------------------------------------------- */
static int is_pow2(long v) { return v > 0 && (v & (v - 1)) == 0; }
static int log2i(long v)
{
    int n = 0;
    while (v > 1) { v >>= 1; n++; }
    return n;
}
/* int, for derive_timing's int fields (mx_llmax would need a cast back). */
static int imax(int a, int b) { return a > b ? a : b; }

int mx_dram_burst_bytes(const mx_dram_config *c) { return c->bus_bits / 8 * c->BL; }

double mx_dram_peak_gbs(const mx_dram_config *c)
{
    return (double)c->channels * mx_dram_burst_bytes(c) / ((double)c->BL / 2.0 * c->tCK_ns);
}

/* Address fields, DRAMsim3 letters.  Index order used everywhere below. */
enum { F_CH, F_RA, F_BG, F_BA, F_RO, F_CO, F_N };
static const char *const field_letters[F_N] = {"ch", "ra", "bg", "ba", "ro", "co"};

typedef mx_dram_addr_map addr_map;
_Static_assert(sizeof ((addr_map *)0)->pos / sizeof(int) == F_N, "mx_dram_addr_map's fields are F_N");

/* Field positions: letters MSB first, so the last pair takes the lowest bits. */
static int build_map(const mx_dram_config *c, addr_map *m, char *err, size_t errlen)
{
    const char *s = c->address_mapping;
    size_t n = strnlen(s, sizeof c->address_mapping);
    if (n != 2 * F_N)
        return mx_fail(err, errlen, "key 'address_mapping': '%.*s' must be 6 two-letter fields "
                    "(ro ch ra bg ba co, each once), e.g. rochrababgco", (int)n, s);
    m->shift = log2i(mx_dram_burst_bytes(c));
    m->width[F_CH] = log2i(c->channels);
    m->width[F_RA] = log2i(c->ranks);
    m->width[F_BG] = log2i(c->bankgroups);
    m->width[F_BA] = log2i(c->banks_per_group);
    m->width[F_RO] = log2i(c->rows);
    m->width[F_CO] = log2i(c->columns) - log2i(c->BL);
    int seen[F_N] = {0};
    int pos = 0;
    for (int i = F_N - 1; i >= 0; i--) {
        int f = -1;
        for (int k = 0; k < F_N; k++)
            if (s[2 * i] == field_letters[k][0] && s[2 * i + 1] == field_letters[k][1]) f = k;
        if (f < 0)
            return mx_fail(err, errlen, "key 'address_mapping': unknown field '%.2s' in '%s' "
                        "(fields: ro ch ra bg ba co)", s + 2 * i, s);
        if (seen[f]++)
            return mx_fail(err, errlen, "key 'address_mapping': field '%s' named twice in '%s'",
                        field_letters[f], s);
        m->pos[f] = pos;
        m->mask[f] = (UINT64_C(1) << m->width[f]) - 1;
        pos += m->width[f];
    }
    if (pos + m->shift > 64)
        return mx_fail(err, errlen, "key 'address_mapping': %d address bits exceed 64", pos + m->shift);
    return 0;
}

static void map_addr(const addr_map *m, uint64_t addr, int f[F_N])
{
    uint64_t a = addr >> m->shift;
    for (int k = 0; k < F_N; k++)
        f[k] = (int)((a >> m->pos[k]) & m->mask[k]);
}

/* What a request needs: its channel, its flat bank in the channel (rank,
 * bank group, bank) and its row, without the column (every request's path). */
typedef struct { int ch, bank, row; } req_place;

/* The flat bank's fields, decoded once: (ra * bankgroups + bg) *
 * banks_per_group + ba with power-of-two counts is (ra << (wbg + wba)) |
 * (bg << wba) | ba, and one shift and mask when the mapping keeps ra, bg,
 * ba adjacent in that order (HBM2's rorabgbachco). */
typedef struct {
    int contig;                      /* ra bg ba adjacent: bank = (a >> pos) & mask */
    int pos;                         /* ba's position */
    uint64_t mask;                   /* all three fields' width */
    int ra_sh, bg_sh;                /* otherwise: ra, bg shifted into place */
} bank_map;

static void bank_map_build(const addr_map *m, bank_map *bm)
{
    bm->contig = m->pos[F_BG] == m->pos[F_BA] + m->width[F_BA] && m->pos[F_RA] == m->pos[F_BG] + m->width[F_BG];
    bm->pos = m->pos[F_BA];
    bm->mask = (UINT64_C(1) << (m->width[F_RA] + m->width[F_BG] + m->width[F_BA])) - 1;
    bm->bg_sh = m->width[F_BA];
    bm->ra_sh = m->width[F_BA] + m->width[F_BG];
}

static inline req_place map_place(const addr_map *m, const bank_map *bm, uint64_t addr)
{
    const uint64_t a = addr >> m->shift;
#define FIELD(k) ((int)((a >> m->pos[k]) & m->mask[k]))
    const int bank = bm->contig ? (int)((a >> bm->pos) & bm->mask)
                                : (FIELD(F_RA) << bm->ra_sh) | (FIELD(F_BG) << bm->bg_sh) | FIELD(F_BA);
    req_place p = {FIELD(F_CH), bank, FIELD(F_RO)};
#undef FIELD
    return p;
}

int mx_dram_config_check(const mx_dram_config *c, char *err, size_t errlen)
{
    const struct { const char *name; int v; } p2[] = {
        {"channels", c->channels}, {"ranks", c->ranks}, {"bankgroups", c->bankgroups},
        {"banks_per_group", c->banks_per_group}, {"rows", c->rows}, {"columns", c->columns},
        {"device_width", c->device_width}, {"bus_bits", c->bus_bits}, {"BL", c->BL},
    };
    for (size_t i = 0; i < sizeof p2 / sizeof p2[0]; i++)
        if (!is_pow2(p2[i].v))
            return mx_fail(err, errlen, "key '%s': must be a power of two >= 1 (got %d)", p2[i].name, p2[i].v);
    if (c->BL < 2)
        return mx_fail(err, errlen, "key 'BL': must be >= 2 (got %d)", c->BL);
    if (c->bus_bits < 8)
        return mx_fail(err, errlen, "key 'bus_bits': must be >= 8 (got %d)", c->bus_bits);
    if (c->device_width > c->bus_bits)
        return mx_fail(err, errlen, "key 'device_width': %d exceeds the bus width %d", c->device_width, c->bus_bits);
    if (c->columns < c->BL)
        return mx_fail(err, errlen, "key 'columns': %d is less than BL %d", c->columns, c->BL);
    if (!(c->tCK_ns > 0.0))
        return mx_fail(err, errlen, "key 'tCK': must be > 0 (got %g)", c->tCK_ns);
    for (size_t i = 0; i < mx_dram_timing_table_n; i++) {
        const mx_dram_timing_field *f = &mx_dram_timing_table[i];
        int v = *(const int *)((const char *)&c->t + f->offset);
        if (v < f->min || v > 1000000000)
            return mx_fail(err, errlen, "key '%s': must be >= %d (got %d)", f->name, f->min, v);
    }
    const mx_dram_timing *t = &c->t;
    if (t->tRC < t->tRAS + t->tRP)
        return mx_fail(err, errlen, "key 'tRC': must be >= tRAS + tRP = %d + %d = %d (got %d)",
                    t->tRAS, t->tRP, t->tRAS + t->tRP, t->tRC);
    if (c->refresh && t->tREFI <= t->tRFC)
        return mx_fail(err, errlen, "key 'tREFI': must exceed tRFC = %d (got %d)", t->tRFC, t->tREFI);
    if (c->refresh && t->tREFI / c->ranks < 1)
        return mx_fail(err, errlen, "key 'tREFI': %d is less than the rank count %d", t->tREFI, c->ranks);
    const struct { const char *name; double v; } pw[] = {
        {"VDD", c->p.VDD}, {"IDD0", c->p.IDD0}, {"IDD2N", c->p.IDD2N}, {"IDD3N", c->p.IDD3N},
        {"IDD4R", c->p.IDD4R}, {"IDD4W", c->p.IDD4W}, {"IDD5", c->p.IDD5},
    };
    for (size_t i = 0; i < sizeof pw / sizeof pw[0]; i++)
        if (!(pw[i].v >= 0.0))
            return mx_fail(err, errlen, "key '%s': must be >= 0 (got %g)", pw[i].name, pw[i].v);
    if (c->page_policy != MX_PAGE_OPEN && c->page_policy != MX_PAGE_CLOSED)
        return mx_fail(err, errlen, "key 'page_policy': must be open or closed");
    if (c->queue_size < 1 || c->queue_size > 65536)
        return mx_fail(err, errlen, "key 'queue_size': must be in 1..65536 (got %d)", c->queue_size);
    if (c->write_high < 1 || c->write_high > c->queue_size)
        return mx_fail(err, errlen, "key 'write_high': must be in 1..queue_size=%d (got %d)", c->queue_size, c->write_high);
    if (c->write_low < 0 || c->write_low >= c->write_high)
        return mx_fail(err, errlen, "key 'write_low': must be in 0..write_high-1=%d (got %d)", c->write_high - 1, c->write_low);
    addr_map m;
    return build_map(c, &m, err, errlen);
}

int mx_dram_map_build(const mx_dram_config *c, mx_dram_addr_map *m)
{
    if (build_map(c, m, NULL, 0) == 0) return 0;
    memset(m, 0, sizeof *m); /* every field of every address 0 */
    return -1;
}

void mx_dram_map(const mx_dram_config *c, uint64_t addr, mx_dram_addr *a)
{
    addr_map m;
    mx_dram_map_build(c, &m);
    mx_dram_map_with(&m, addr, a);
}

void mx_dram_energy_per_command(const mx_dram_config *c, double pj[MX_DRAM_E_N])
{
    const mx_dram_power *p = &c->p;
    const double dev = (double)c->bus_bits / c->device_width, tck = c->tCK_ns;
    const double k = p->VDD * tck * dev; /* mA * V * ns = pJ */
    pj[MX_DRAM_E_ACT] = k * (p->IDD0 - p->IDD3N) * c->t.tRAS;
    pj[MX_DRAM_E_PRE] = k * (p->IDD0 - p->IDD2N) * c->t.tRP;
    pj[MX_DRAM_E_RD] = k * (p->IDD4R - p->IDD3N) * (c->BL / 2);
    pj[MX_DRAM_E_WR] = k * (p->IDD4W - p->IDD3N) * (c->BL / 2);
    pj[MX_DRAM_E_REF] = k * (p->IDD5 - p->IDD3N) * c->t.tRFC;
    pj[MX_DRAM_E_BG_ACT] = k * p->IDD3N;
    pj[MX_DRAM_E_BG_PRE] = k * p->IDD2N;
}

/* ---- the model ------------------------------------------------------------ */

/* Derived command-to-command delays (clocks), DRAMsim3's timing.cc names. */
typedef struct {
    int burst;                       /* BL/2: data bus clocks of one burst */
    int RL, WL;
    int rd_rd_L, rd_rd_S, rd_rd_O;
    int rd_wr, rd_wr_O;
    int wr_rd_L, wr_rd_S, wr_rd_O;
    int wr_wr_L, wr_wr_S, wr_wr_O;
    int rd_pre, wr_pre;
    int act_cas;                     /* ACT -> RD/WR: tRCD - AL (>= 1) */
    int tRAS, tRC, tRP, tRRD_L, tRRD_S, tFAW, tRFC;
    int ref_step;                    /* tREFI / ranks: staggered refresh, one rank per step */
} dram_tm;

typedef struct {
    int64_t act, pre, rd, wr;        /* earliest clock for the command */
    int32_t row;                     /* open row, -1 closed             */
    uint32_t cas_since_act;          /* CAS commands to the open row    */
    uint8_t conflict_pre;            /* last PRE closed a row for a conflicting request */
    uint8_t act_conflict;            /* the open row was opened after such a PRE         */
} bank_st;

typedef struct { int64_t act, rd, wr; } group_st;

typedef struct {
    int64_t act, rd, wr, ref;
    int64_t faw[4];                  /* last four ACT clocks (ring)     */
    int nfaw, faw_i;
    int open_banks;
    uint64_t bg_since, bg_act_clk, bg_pre_clk; /* background accounting */
    uint64_t ref_due;                /* next clock a REF falls due      */
    int ref_pending;                 /* REFs due, not issued            */
} rank_st;

typedef struct {
    uint64_t addr, id, arrive, seq; /* seq: arrival order, the age tie-break */
    int32_t row;
    int bank;                        /* flat bank index in the channel  */
    int next, prev;                  /* the bank's list, in arrival order */
} req_t;

/* A queue: a pool of slots, each request linked into its bank's list
 * (oldest first); a bit per bank with requests. */
typedef struct {
    req_t *pool;
    int *free_slots, nfree;
    int n;
    int *head, *tail;                /* per bank, -1 if none */
    int *cnt;                        /* per bank: requests in the list */
    int32_t *urow;                   /* per bank: the row of every request in the list, -1 if they
                                        differ (set when a list starts; do_act counts hits from it) */
    uint64_t *mask;                  /* banks with requests  */
} queue_t;

enum { CAND_NONE = 0, CAND_CAS, CAND_ACT, CAND_PRE, CAND_REF, CAND_REFPRE };

typedef struct {
    int kind;
    int idx;                         /* pool slot (CAS/ACT/PRE), rank (REF), bank (REFPRE) */
    uint64_t at;                     /* issuable at (clamped)           */
    uint64_t seq;                    /* age of the request (CAS/ACT/PRE) */
} cand_t;

typedef struct {
    bank_st *bank;                   /* ranks * bankgroups * banks_per_group */
    group_st *group;                 /* ranks * bankgroups                   */
    rank_st *rank;
    queue_t rq, wq;
    uint32_t *nhit[2];               /* per bank: requests of queue [0]=read [1]=write hitting the open row */
    int *ohit[2];                    /* per bank, valid while nhit > 0: the oldest of those (rescan's
                                        CAS candidate, without walking the bank's list) */
    uint64_t *hmask[2];              /* banks with nhit > 0, per queue (rescan_cas visits only those) */
    int64_t gmax[2];                 /* [0] rd, [1] wr: at least every group's earliest clock of that
                                        CAS kind (group times only rise, in do_cas, which keeps these) */
    int draining;
    int ref_pending;                 /* REFs due, not issued, over the ranks */
    uint64_t ref_due;                /* least ref_due of the ranks          */
    cand_t ref, hit, other;
    uint64_t next;                   /* earliest clock this channel acts (>= now) */
} chan_t;

typedef struct {
    mx_dram_done r;                  /* what a pop hands out */
    uint64_t seq;                    /* issue order: ties of equal done clocks */
} inflight_t;

struct mx_dram {
    mx_dram_config c;
    addr_map m;
    bank_map bm;                     /* m's flat bank, for map_place */
    dram_tm tm;
    int nbank, bpr;                  /* banks per channel, per rank */
    int hit_floor;                   /* rescan_cas_hits may use the rank's floor (see there) */
    int rank_sh, group_sh;           /* flat bank >> rank_sh = rank, >> group_sh = flat group */
    chan_t *ch;
    uint64_t now, seq, rseq;         /* clock, completion order, arrival order */
    uint64_t epoch;                  /* queue changes (mx_dram_queue_epoch) */
    uint64_t refusal_epoch[2];       /* [0] reads, [1] writes: mx_dram_refusal_epoch */
    int mask_words;
    /* issued, not popped, by kind: reads (done = issue + RL + burst), writes
     * (+ WL + burst), reads served from the write queue (+ 1).  Each is
     * pushed in issue order with a fixed latency, so each ring is sorted by
     * (done, seq).  A ring's first `due` entries are completed (done <= now)
     * and wait to be popped; pops take the least (done, seq) of the three
     * due heads, the completion order.  Completions are not copied out of
     * the rings: most are popped a few clocks after they complete. */
    struct inflight_ring { inflight_t *v; size_t head, n, due, cap; } fly[3]; /* cap: a power of two */
    uint64_t fly_next;               /* least done not yet due (UINT64_MAX: none) */
    size_t fn;                       /* completed, not popped: the sum of the rings' due */
    struct dma_pend {                /* mx_dram_dma_pend: [0] reads, [1] writes */
        const uint64_t *a;
        size_t n, i;                 /* a[i] is next; n 0: none */
        uint64_t id;
        int placed;                  /* pl is a[i]'s place */
        req_place pl;
    } pend[2];
    mx_dram_stats st;                /* commands and completions (energy filled on read) */
};

static void derive_timing(const mx_dram_config *c, dram_tm *m)
{
    const mx_dram_timing *t = &c->t;
    int burst = c->BL / 2;
    int ccdl = c->bankgroups == 1 ? t->tCCD_S : t->tCCD_L;
    int wtrl = c->bankgroups == 1 ? t->tWTR_S : t->tWTR_L;
    int rrdl = c->bankgroups == 1 ? t->tRRD_S : t->tRRD_L;
    m->burst = burst;
    m->RL = t->AL + t->CL;
    m->WL = t->AL + t->CWL;
    m->rd_rd_L = imax(burst, ccdl);
    m->rd_rd_S = imax(burst, t->tCCD_S);
    m->rd_rd_O = burst + t->tRTRS;
    m->rd_wr = m->RL + burst + 2 - m->WL;          /* JEDEC DDR4 read-to-write, 1tCK preambles */
    m->rd_wr_O = m->RL + burst + t->tRTRS - m->WL;
    m->wr_rd_L = m->WL + burst + wtrl;
    m->wr_rd_S = m->WL + burst + t->tWTR_S;
    m->wr_rd_O = m->WL + burst + t->tRTRS - m->RL;
    m->wr_wr_L = imax(burst, ccdl);
    m->wr_wr_S = imax(burst, t->tCCD_S);
    m->wr_wr_O = burst + t->tRTRS;
    m->rd_pre = t->AL + t->tRTP;
    m->wr_pre = m->WL + burst + t->tWR;
    m->act_cas = imax(1, t->tRCD - t->AL);
    m->tRAS = t->tRAS; m->tRC = t->tRC; m->tRP = t->tRP;
    m->tRRD_L = rrdl; m->tRRD_S = t->tRRD_S; m->tFAW = t->tFAW;
    m->tRFC = t->tRFC;
    m->ref_step = t->tREFI / c->ranks;
}

static void free_channels(mx_dram *d)
{
    if (!d->ch) return;
    for (int i = 0; i < d->c.channels; i++) {
        chan_t *ch = &d->ch[i];
        free(ch->bank); free(ch->group); free(ch->rank);
        for (int w = 0; w < 2; w++) {
            queue_t *q = w ? &ch->wq : &ch->rq;
            free(q->pool); free(q->free_slots); free(q->head); free(q->tail); free(q->mask);
            free(q->cnt); free(q->urow);
        }
        free(ch->nhit[0]); free(ch->nhit[1]);
        free(ch->ohit[0]); free(ch->ohit[1]);
        free(ch->hmask[0]); free(ch->hmask[1]);
    }
    free(d->ch);
}

void mx_dram_free(mx_dram *d)
{
    if (!d) return;
    free_channels(d);
    for (int k = 0; k < 3; k++) free(d->fly[k].v);
    free(d);
}

static void rescan(mx_dram *d, chan_t *ch, uint64_t tmin);

static void *dup_n(const void *src, size_t n, size_t size)
{
    if (n == 0 || !src) return NULL;
    void *v = malloc(n * size);
    if (v) memcpy(v, src, n * size);
    return v;
}

mx_dram *mx_dram_clone(const mx_dram *s)
{
    mx_dram *d = malloc(sizeof *d);
    if (!d) return NULL;
    *d = *s;
    /* the copy owns nothing of s's yet: freed as built on failure */
    d->ch = NULL;
    for (int k = 0; k < 3; k++) d->fly[k].v = NULL;
    for (int k = 0; k < 3; k++) {
        if (!s->fly[k].cap) continue;
        d->fly[k].v = dup_n(s->fly[k].v, s->fly[k].cap, sizeof *s->fly[k].v);
        if (!d->fly[k].v) goto oom;
    }
    d->ch = calloc((size_t)s->c.channels, sizeof *d->ch);
    if (!d->ch) goto oom;
    const size_t nb = (size_t)s->nbank, qs = (size_t)s->c.queue_size, mw = (size_t)s->mask_words;
    for (int i = 0; i < s->c.channels; i++) {
        const chan_t *a = &s->ch[i];
        chan_t *b = &d->ch[i];
        *b = *a;
        b->bank = dup_n(a->bank, nb, sizeof *a->bank);
        b->group = dup_n(a->group, (size_t)(s->c.ranks * s->c.bankgroups), sizeof *a->group);
        b->rank = dup_n(a->rank, (size_t)s->c.ranks, sizeof *a->rank);
        int fail = !b->bank || !b->group || !b->rank;
        for (int w = 0; w < 2; w++) {
            const queue_t *qa = w ? &a->wq : &a->rq;
            queue_t *qb = w ? &b->wq : &b->rq;
            qb->pool = dup_n(qa->pool, qs, sizeof *qa->pool);
            qb->free_slots = dup_n(qa->free_slots, qs, sizeof *qa->free_slots);
            qb->head = dup_n(qa->head, nb, sizeof *qa->head);
            qb->tail = dup_n(qa->tail, nb, sizeof *qa->tail);
            qb->mask = dup_n(qa->mask, mw, sizeof *qa->mask);
            qb->cnt = dup_n(qa->cnt, nb, sizeof *qa->cnt);
            qb->urow = dup_n(qa->urow, nb, sizeof *qa->urow);
            fail |= !qb->pool || !qb->free_slots || !qb->head || !qb->tail || !qb->mask || !qb->cnt || !qb->urow;
            b->nhit[w] = dup_n(a->nhit[w], nb, sizeof *a->nhit[w]);
            b->ohit[w] = dup_n(a->ohit[w], nb, sizeof *a->ohit[w]);
            b->hmask[w] = dup_n(a->hmask[w], mw, sizeof *a->hmask[w]);
            fail |= !b->nhit[w] || !b->ohit[w] || !b->hmask[w];
        }
        if (fail) goto oom;
    }
    return d;
oom:
    mx_dram_free(d);
    return NULL;
}

static int queue_init(queue_t *q, int size, int nbank, int words)
{
    q->pool = calloc((size_t)size, sizeof *q->pool);
    q->free_slots = malloc((size_t)size * sizeof *q->free_slots);
    q->head = malloc((size_t)nbank * sizeof *q->head);
    q->tail = malloc((size_t)nbank * sizeof *q->tail);
    q->mask = calloc((size_t)words, sizeof *q->mask);
    q->cnt = calloc((size_t)nbank, sizeof *q->cnt);
    q->urow = calloc((size_t)nbank, sizeof *q->urow);
    if (!q->pool || !q->free_slots || !q->head || !q->tail || !q->mask || !q->cnt || !q->urow) return -1;
    for (int i = 0; i < size; i++) q->free_slots[i] = size - 1 - i;
    q->nfree = size;
    for (int b = 0; b < nbank; b++) q->head[b] = q->tail[b] = -1;
    return 0;
}

/* Fields as arguments, written one by one: a req_t built on the stack and
 * copied in whole stalled store forwarding (perf, HBM2). */
static inline int queue_push(queue_t *q, uint64_t addr, uint64_t id, uint64_t arrive, uint64_t seq, int32_t row, int b)
{
    int s = q->free_slots[--q->nfree];
    req_t *e = &q->pool[s];
    e->addr = addr;
    e->id = id;
    e->arrive = arrive;
    e->seq = seq;
    e->row = row;
    e->bank = b;
    e->next = -1;
    e->prev = q->tail[b];
    if (q->tail[b] >= 0) {
        q->pool[q->tail[b]].next = s;
        q->cnt[b]++;
        if (q->urow[b] != row) q->urow[b] = -1;
    } else {
        q->head[b] = s;
        q->mask[b >> 6] |= UINT64_C(1) << (b & 63);
        q->cnt[b] = 1;
        q->urow[b] = row;
    }
    q->tail[b] = s;
    q->n++;
    return s;
}

static void queue_remove(queue_t *q, int s)
{
    req_t *e = &q->pool[s];
    int b = e->bank;
    if (e->prev >= 0) q->pool[e->prev].next = e->next;
    else q->head[b] = e->next;
    if (e->next >= 0) q->pool[e->next].prev = e->prev;
    else q->tail[b] = e->prev;
    if (q->head[b] < 0) q->mask[b >> 6] &= ~(UINT64_C(1) << (b & 63));
    q->cnt[b]--;
    q->free_slots[q->nfree++] = s;
    q->n--;
}

mx_dram *mx_dram_new(const mx_dram_config *c, char *err, size_t errlen)
{
    if (mx_dram_config_check(c, err, errlen)) return NULL;
    mx_dram *d = calloc(1, sizeof *d);
    if (!d) { mx_fail(err, errlen, "out of memory"); return NULL; }
    d->fly_next = UINT64_MAX;
    d->c = *c;
    build_map(c, &d->m, NULL, 0);
    bank_map_build(&d->m, &d->bm);
    derive_timing(c, &d->tm);
    d->hit_floor = c->ranks == 1 && d->tm.rd_rd_L == d->tm.rd_rd_S && d->tm.wr_wr_L == d->tm.wr_wr_S;
    d->bpr = c->bankgroups * c->banks_per_group;
    d->nbank = c->ranks * d->bpr;
    d->rank_sh = log2i(d->bpr);
    d->group_sh = log2i(c->banks_per_group);
    d->mask_words = (d->nbank + 63) / 64;
    d->ch = calloc((size_t)c->channels, sizeof *d->ch);
    if (!d->ch) goto oom;
    for (int i = 0; i < c->channels; i++) {
        chan_t *ch = &d->ch[i];
        ch->bank = calloc((size_t)d->nbank, sizeof *ch->bank);
        ch->group = calloc((size_t)(c->ranks * c->bankgroups), sizeof *ch->group);
        ch->rank = calloc((size_t)c->ranks, sizeof *ch->rank);
        if (queue_init(&ch->rq, c->queue_size, d->nbank, d->mask_words) ||
            queue_init(&ch->wq, c->queue_size, d->nbank, d->mask_words))
            goto oom;
        ch->nhit[0] = calloc((size_t)d->nbank, sizeof(uint32_t));
        ch->nhit[1] = calloc((size_t)d->nbank, sizeof(uint32_t));
        ch->ohit[0] = calloc((size_t)d->nbank, sizeof(int));
        ch->ohit[1] = calloc((size_t)d->nbank, sizeof(int));
        ch->hmask[0] = calloc((size_t)d->mask_words, sizeof(uint64_t));
        ch->hmask[1] = calloc((size_t)d->mask_words, sizeof(uint64_t));
        if (!ch->bank || !ch->group || !ch->rank || !ch->nhit[0] || !ch->nhit[1] || !ch->ohit[0] || !ch->ohit[1] ||
            !ch->hmask[0] || !ch->hmask[1])
            goto oom;
        for (int b = 0; b < d->nbank; b++) ch->bank[b].row = -1;
        /* staggered refresh as DRAMsim3's RANK_LEVEL_STAGGERED: one rank
         * every tREFI/ranks clocks, rank r first at (r+1)*tREFI/ranks */
        for (int r = 0; r < c->ranks; r++)
            ch->rank[r].ref_due = c->refresh ? (uint64_t)d->tm.ref_step * (uint64_t)(r + 1) : UINT64_MAX;
        ch->ref_due = ch->rank[0].ref_due; /* rank 0 falls due first */
        rescan(d, ch, 0);
    }
    return d;
oom:
    mx_fail(err, errlen, "out of memory");
    mx_dram_free(d);
    return NULL;
}

uint64_t mx_dram_now(const mx_dram *d) { return d->now; }

uint64_t mx_dram_queue_epoch(const mx_dram *d) { return d->epoch; }

uint64_t mx_dram_refusal_epoch(const mx_dram *d, int is_write) { return d->refusal_epoch[is_write != 0]; }

/* A request entered (delta 1) or left (-1) one of ch's queues: the epochs.
 * A write's refusal (below_drain) reads the write queue's length, the drain
 * mode and whether reads wait; a read's, its queue's length. */
static void queue_moved(mx_dram *d, const chan_t *ch, int is_write, int delta)
{
    d->epoch++;
    if (is_write) d->refusal_epoch[1]++;
    else {
        d->refusal_epoch[0]++;
        if (ch->rq.n == (delta > 0 ? 1 : 0)) d->refusal_epoch[1]++; /* reads began or stopped waiting */
    }
}

/* ---- scheduler ------------------------------------------------------------ */

static inline uint64_t clampu(int64_t v, uint64_t tmin) { return v < (int64_t)tmin ? tmin : (uint64_t)v; }

static inline int64_t act_ready(const mx_dram *d, const chan_t *ch, int b)
{
    const rank_st *r = &ch->rank[b >> d->rank_sh];
    int64_t e = mx_llmax(ch->bank[b].act, mx_llmax(ch->group[b >> d->group_sh].act, r->act));
    if (r->nfaw == 4) e = mx_llmax(e, r->faw[r->faw_i] + d->tm.tFAW);
    return e;
}

static inline int64_t cas_ready(const mx_dram *d, const chan_t *ch, int b, int is_write)
{
    const rank_st *r = &ch->rank[b >> d->rank_sh];
    const group_st *g = &ch->group[b >> d->group_sh];
    return is_write ? mx_llmax(ch->bank[b].wr, mx_llmax(g->wr, r->wr)) : mx_llmax(ch->bank[b].rd, mx_llmax(g->rd, r->rd));
}

/* The drain mode changes only with a write queue's length or with reads
 * starting or stopping to wait, which queue_moved already counts in the
 * write refusal epoch. */
static void update_mode(const mx_dram *d, chan_t *ch)
{
    int wq = ch->wq.n, rq = ch->rq.n;
    ch->draining = wq > 0 && (rq == 0 || wq >= d->c.write_high || (ch->draining && wq > d->c.write_low));
}

typedef unsigned __int128 cand_key; /* (at, seq): one compare, no branch */
static inline cand_key ckey(uint64_t at, uint64_t seq) { return (cand_key)at << 64 | seq; }

/* Earliest first, then oldest.  Without a branch: which offer wins is data
 * (mispredicted branches were much of rescan's and add's time). */
static inline void offer(cand_t *best, int kind, int idx, uint64_t at, uint64_t seq)
{
    const int t = ckey(at, seq) < ckey(best->at, best->seq);
    best->kind = t ? kind : best->kind;
    best->idx = t ? idx : best->idx;
    best->at = t ? at : best->at;
    best->seq = t ? seq : best->seq;
}

/* c := (kind, idx, at, seq); CAND_NONE with -1, UINT64_MAX, UINT64_MAX. */
static inline void cand_put(cand_t *c, int kind, int idx, uint64_t at, uint64_t seq)
{
    c->kind = kind;
    c->idx = idx;
    c->at = at;
    c->seq = seq;
}

/* A hit on bank b: its CAS time clamped to tmin, or (by_floor) the later
 * of its bank's time and the floor fl (rescan_cas_hits). */
static inline __attribute__((always_inline)) uint64_t hit_at(const mx_dram *d, const chan_t *ch, int b, int w,
                                                             int by_floor, uint64_t fl, uint64_t tmin)
{
    if (by_floor) {
        const int64_t e = w ? ch->bank[b].wr : ch->bank[b].rd;
        return e > (int64_t)fl ? (uint64_t)e : fl;
    }
    return clampu(cas_ready(d, ch, b, w), tmin);
}

static void set_next(chan_t *ch, uint64_t tmin)
{
    uint64_t nx = ch->ref.at;
    if (ch->hit.at < nx) nx = ch->hit.at;
    if (ch->other.at < nx) nx = ch->other.at;
    if (ch->ref_due < nx) nx = ch->ref_due;
    ch->next = nx < tmin ? tmin : nx;
}

/* The hit class's scan, w and by_floor constant: each bank's oldest hit at
 * its CAS time, or (by_floor) at the later of its bank's time and the
 * floor fl; the earliest, then oldest, kept without branches.  Only for
 * three banks or more (rescan_cas_hits takes fewer itself): one bank an
 * iteration, which took fewer instructions there than two (stop 32). */
static inline __attribute__((always_inline)) void scan_hits(const mx_dram *d, chan_t *ch, uint64_t tmin, int w,
                                                            int by_floor, uint64_t fl)
{
    const queue_t *q = w ? &ch->wq : &ch->rq;
    const int *ohit = ch->ohit[w];
    int hidx = -1;
    cand_key best = ckey(UINT64_MAX, UINT64_MAX);
    for (int k = 0; k < d->mask_words; k++)
        for (uint64_t m = ch->hmask[w][k]; m; m &= m - 1) {
            const int b = k * 64 + __builtin_ctzll(m), s = ohit[b];
            const cand_key kb = ckey(hit_at(d, ch, b, w, by_floor, fl, tmin), q->pool[s].seq);
            const int t = kb < best;
            hidx = t ? s : hidx;
            best = t ? kb : best;
        }
    cand_put(&ch->hit, hidx >= 0 ? CAND_CAS : CAND_NONE, hidx, (uint64_t)(best >> 64), (uint64_t)best);
}

/* rescan_cas's hit class, w constant (the read or write times). */
static inline __attribute__((always_inline)) void rescan_cas_hits(const mx_dram *d, chan_t *ch, uint64_t tmin, int w)
{
    /* One rank, and no group's time of this kind above the rank's (clamped
     * to tmin): a hit's time is its bank's or that floor, so the group and
     * rank times need not be read per bank.  Only where a CAS to another
     * bank group costs as much as one to the same (hit_floor; HBM2: tCCD_S,
     * tCCD_L <= the burst): there it fails only for a few clocks after a
     * read/write turnaround.  Elsewhere (DDR4, LPDDR4) it would fail after
     * most CASes, and the branch, taken now and then, mispredicts. */
    const uint64_t fl = clampu(w ? ch->rank[0].wr : ch->rank[0].rd, tmin);
    const int by_floor = d->hit_floor && clampu(ch->gmax[w], tmin) <= fl;
    /* At most two banks with hits (on BERT with HBM2, 92% of the scans
     * after a read's CAS: the bank a DMA row run ends in and the next one,
     * already open): scan_hits' result without its loops.  One mask word:
     * every preset (at most 64 banks). */
    const uint64_t m = ch->hmask[w][0], m2 = m & (m - 1);
    if (d->mask_words == 1 && !(m2 & (m2 - 1))) {
        if (!m) {
            cand_put(&ch->hit, CAND_NONE, -1, UINT64_MAX, UINT64_MAX);
            return;
        }
        const queue_t *q = w ? &ch->wq : &ch->rq;
        const int b1 = __builtin_ctzll(m), s1 = ch->ohit[w][b1];
        const uint64_t a1 = hit_at(d, ch, b1, w, by_floor, fl, tmin);
        if (!m2) {
            cand_put(&ch->hit, CAND_CAS, s1, a1, q->pool[s1].seq);
            return;
        }
        const int b2 = __builtin_ctzll(m2), s2 = ch->ohit[w][b2];
        const cand_key k1 = ckey(a1, q->pool[s1].seq);
        const cand_key k2 = ckey(hit_at(d, ch, b2, w, by_floor, fl, tmin), q->pool[s2].seq);
        const int t = k2 < k1; /* earliest, then oldest, without a branch */
        const cand_key k = t ? k2 : k1;
        cand_put(&ch->hit, CAND_CAS, t ? s2 : s1, (uint64_t)(k >> 64), (uint64_t)k);
        return;
    }
    if (by_floor) scan_hits(d, ch, tmin, w, 1, fl);
    else scan_hits(d, ch, tmin, w, 0, 0);
}

/* One candidate per class: refresh work, row hit (oldest first among the
 * earliest), other (ACT or PRE, oldest first among the earliest).  Times are
 * clamped to tmin, the first clock a command may use.  rescan_slow: with a
 * refresh pending; rescan below gives the same result without. */
static __attribute__((noinline)) void rescan_slow(mx_dram *d, chan_t *ch, uint64_t tmin)
{
    /* the candidates in locals, stored once at the end: offer() through ch
     * would keep them in memory, and a struct copied into ch then read
     * back at another width stalls store forwarding (a third of rescan's
     * time, measured with perf on HBM2) */
    cand_t ref = {CAND_NONE, -1, UINT64_MAX, UINT64_MAX}, hit = ref, other = ref;
    for (int r = 0; ch->ref_pending && r < d->c.ranks; r++) {
        const rank_st *rk = &ch->rank[r];
        if (!rk->ref_pending) continue;
        if (rk->open_banks) {
            for (int b = r * d->bpr; b < (r + 1) * d->bpr; b++)
                if (ch->bank[b].row >= 0) offer(&ref, CAND_REFPRE, b, clampu(ch->bank[b].pre, tmin), (uint64_t)b);
        } else {
            offer(&ref, CAND_REF, r, clampu(rk->ref, tmin), (uint64_t)r);
        }
    }
    int w = ch->draining;
    const queue_t *q = w ? &ch->wq : &ch->rq;
    const uint32_t *nhit = ch->nhit[w];
    const int *ohit = ch->ohit[w];
    /* per bank with requests: the oldest row hit (CAS); else, for a closed
     * bank an ACT, for an open one a PRE if no request hits its row */
    for (int k = 0; k < d->mask_words; k++)
        for (uint64_t m = q->mask[k]; m; m &= m - 1) {
            int b = k * 64 + __builtin_ctzll(m);
            if (ch->ref_pending && ch->rank[b >> d->rank_sh].ref_pending) continue;
            const bank_st *bk = &ch->bank[b];
            int s = q->head[b];
            if (bk->row < 0) {
                offer(&other, CAND_ACT, s, clampu(act_ready(d, ch, b), tmin), q->pool[s].seq);
            } else if (nhit[b] == 0) {
                offer(&other, CAND_PRE, s, clampu(bk->pre, tmin), q->pool[s].seq);
            } else {
                s = ohit[b];
                offer(&hit, CAND_CAS, s, clampu(cas_ready(d, ch, b, w), tmin), q->pool[s].seq);
            }
        }
    ch->ref = ref;
    ch->hit = hit;
    ch->other = other;
    set_next(ch, tmin);
}

/* rescan without a refresh pending: the hit class over the banks with hits
 * (rescan_cas_hits), the other class over the banks with requests and none,
 * each two at a time with the best kept without branches. */
static inline __attribute__((always_inline)) void rescan_other(const mx_dram *d, chan_t *ch, uint64_t tmin, int w)
{
    const queue_t *q = w ? &ch->wq : &ch->rq;
    const uint64_t m0 = q->mask[0] & ~ch->hmask[w][0];
    if (d->mask_words == 1 && !(m0 & (m0 - 1))) { /* at most one such bank: as below, without the loops */
        if (m0) {
            const int b = __builtin_ctzll(m0), s = q->head[b];
            const int closed = ch->bank[b].row < 0;
            cand_put(&ch->other, closed ? CAND_ACT : CAND_PRE, s,
                     clampu(closed ? act_ready(d, ch, b) : ch->bank[b].pre, tmin), q->pool[s].seq);
        } else {
            cand_put(&ch->other, CAND_NONE, -1, UINT64_MAX, UINT64_MAX);
        }
        return;
    }
    int oidx = -1, okind = CAND_NONE;
    cand_key best = ckey(UINT64_MAX, UINT64_MAX);
    for (int k = 0; k < d->mask_words; k++)
        for (uint64_t m = q->mask[k] & ~ch->hmask[w][k]; m;) {
            const int b1 = k * 64 + __builtin_ctzll(m);
            m &= m - 1;
            const int b2 = m ? k * 64 + __builtin_ctzll(m) : b1;
            m &= m - 1;
            const int s1 = q->head[b1], s2 = q->head[b2];
            /* closed: an ACT; open without hits: a PRE */
            const int c1 = ch->bank[b1].row < 0, c2 = ch->bank[b2].row < 0;
            const int64_t a1 = act_ready(d, ch, b1), p1 = ch->bank[b1].pre;
            const int64_t a2 = act_ready(d, ch, b2), p2 = ch->bank[b2].pre;
            const cand_key k1 = ckey(clampu(c1 ? a1 : p1, tmin), q->pool[s1].seq);
            const cand_key k2 = ckey(clampu(c2 ? a2 : p2, tmin), q->pool[s2].seq);
            const int t1 = k1 < best;
            oidx = t1 ? s1 : oidx;
            okind = t1 ? (c1 ? CAND_ACT : CAND_PRE) : okind;
            best = t1 ? k1 : best;
            const int t2 = k2 < best;
            oidx = t2 ? s2 : oidx;
            okind = t2 ? (c2 ? CAND_ACT : CAND_PRE) : okind;
            best = t2 ? k2 : best;
        }
    ch->other.kind = okind;
    ch->other.idx = oidx;
    ch->other.at = (uint64_t)(best >> 64);
    ch->other.seq = (uint64_t)best;
}

static __attribute__((noinline)) void rescan(mx_dram *d, chan_t *ch, uint64_t tmin)
{
    if (ch->ref_pending) { rescan_slow(d, ch, tmin); return; }
    cand_put(&ch->ref, CAND_NONE, -1, UINT64_MAX, UINT64_MAX);
    if (ch->draining) { rescan_cas_hits(d, ch, tmin, 1); rescan_other(d, ch, tmin, 1); }
    else { rescan_cas_hits(d, ch, tmin, 0); rescan_other(d, ch, tmin, 0); }
    set_next(ch, tmin);
}

/* rescan's result after a CAS on bank cb, without recomputing the other
 * class, which the CAS cannot change: no bank's ACT time moves, only cb's
 * PRE time, and cb (a hit bank before) joins the class only as a PRE if its
 * last hit left.  The caller guarantees no refresh is pending and the kept
 * candidate's time is >= tmin, so every member's time was clamped no lower
 * than tmin: clamping to tmin now changes none of them, nor the winner
 * (earliest, then oldest).  The hit class (rescan_cas_hits): the best kept
 * without branches, since the winner is data (mispredicted branches were
 * most of rescan's cost).  Inlined into chan_step, its one caller: the
 * call's own instructions were 2.8% of an HBM2 run's (callgrind, stop 34). */
static inline __attribute__((always_inline)) void rescan_cas(mx_dram *d, chan_t *ch, uint64_t tmin, int cb)
{
    const int w = ch->draining;
    const queue_t *q = w ? &ch->wq : &ch->rq;
    if (ch->nhit[w][cb] == 0 && q->head[cb] >= 0) { /* cb's last hit left, requests remain: a PRE */
        const int s = q->head[cb];
        offer(&ch->other, CAND_PRE, s, clampu(ch->bank[cb].pre, tmin), q->pool[s].seq);
    }
    if (w) rescan_cas_hits(d, ch, tmin, 1);
    else rescan_cas_hits(d, ch, tmin, 0);
    /* set_next without the refresh candidate: with no refresh pending it
     * is none (rescan cleared it when the last one issued) */
    uint64_t nx = ch->hit.at < ch->other.at ? ch->hit.at : ch->other.at;
    if (ch->ref_due < nx) nx = ch->ref_due;
    ch->next = nx < tmin ? tmin : nx;
}

/* ---- completions ---------------------------------------------------------- */

static inline int fly_less(const inflight_t *a, const inflight_t *b)
{
    return a->r.done < b->r.done || (a->r.done == b->r.done && a->seq < b->seq);
}

enum { FLY_RD = 0, FLY_WR = 1, FLY_FWD = 2 };

/* A full ring of n elements of `size` bytes (capacity *cap, a power of two,
 * from *head) doubled, its elements moved to the front. */
static __attribute__((noinline, cold)) void ring_grow(void **v, size_t size, size_t *head, size_t *cap, size_t n)
{
    const size_t nc = *cap ? 2 * *cap : 64;
    char *w = malloc(nc * size);
    if (!w) abort(); /* out of memory mid-simulation: no sane way to go on */
    for (size_t i = 0; i < n; i++) memcpy(w + i * size, (char *)*v + ((*head + i) & (*cap - 1)) * size, size);
    free(*v);
    *v = w;
    *cap = nc;
    *head = 0;
}

/* Fields as arguments, written one by one (as queue_push). */
static inline void fly_push(mx_dram *d, int k, uint64_t id, uint64_t addr, int is_write, uint64_t arrive,
                            uint64_t done)
{
    struct inflight_ring *r = &d->fly[k];
    if (__builtin_expect(r->n == r->cap, 0)) ring_grow((void **)&r->v, sizeof *r->v, &r->head, &r->cap, r->n);
    inflight_t *e = &r->v[(r->head + r->n++) & (r->cap - 1)];
    e->r.id = id;
    e->r.addr = addr;
    e->r.is_write = is_write;
    e->r.arrive = arrive;
    e->r.done = done;
    e->seq = d->seq++;
    if (done < d->fly_next) d->fly_next = done;
}

static inline const inflight_t *ring_at(const struct inflight_ring *r, size_t i)
{
    return &r->v[(r->head + i) & (r->cap - 1)];
}

/* Ring k's completions with done <= now counted as due (k constant: only
 * the read rings sum latencies); lowers *next to its first not due. */
static inline __attribute__((always_inline)) void retire_ring(mx_dram *d, int k, uint64_t now, uint64_t *next)
{
    struct inflight_ring *r = &d->fly[k];
    if (r->due == r->n) return; /* nothing in flight: nothing to count */
    size_t i = r->due;
    uint64_t lat = 0;
    for (; i < r->n; i++) {
        const inflight_t *e = ring_at(r, i);
        if (e->r.done > now) { if (e->r.done < *next) *next = e->r.done; break; }
        if (k != FLY_WR) lat += e->r.done - e->r.arrive;
    }
    /* counted in sums, in registers: a ring holds one kind (fly_push's
     * callers), writes in FLY_WR, reads in the others */
    const size_t c = i - r->due;
    if (k == FLY_WR) d->st.writes_done += c;
    else { d->st.reads_done += c; d->st.read_latency_sum += lat; }
    d->fn += c;
    r->due = i;
}

static __attribute__((noinline)) void retire_due(mx_dram *d)
{
    const uint64_t now = d->now;
    uint64_t next = UINT64_MAX;
    retire_ring(d, FLY_RD, now, &next);
    retire_ring(d, FLY_WR, now, &next);
    retire_ring(d, FLY_FWD, now, &next);
    d->fly_next = next;
}

/* Counts the completions with done <= now as due, in each ring; the test
 * for none due inline (the common case, per clock). */
static inline void retire(mx_dram *d)
{
    if (d->fly_next <= d->now) retire_due(d);
}

/* Ring k's head leaves: its entry (valid until a later CAS reuses the slot). */
static const inflight_t *fly_pop(mx_dram *d, int k)
{
    struct inflight_ring *r = &d->fly[k];
    const inflight_t *e = &r->v[r->head];
    r->head = (r->head + 1) & (r->cap - 1);
    r->n--;
    r->due--;
    d->fn--;
    return e;
}

int mx_dram_pop_done(mx_dram *d, mx_dram_done *out)
{
    if (!d->fn) return 0;
    int k = -1; /* the least (done, seq) of the due heads */
    for (int i = 0; i < 3; i++)
        if (d->fly[i].due && (k < 0 || fly_less(&d->fly[i].v[d->fly[i].head], &d->fly[k].v[d->fly[k].head]))) k = i;
    *out = fly_pop(d, k)->r;
    return 1;
}

const mx_dram_done *mx_dram_take_done(mx_dram *d)
{
    if (!d->fn) return NULL;
    int k = 0;
    while (!d->fly[k].due) k++; /* the first ring with a completion: fn > 0 says one has */
    return &fly_pop(d, k)->r;
}

size_t mx_dram_take_dones(mx_dram *d, const mx_dram_done **first, size_t *stride)
{
    if (!d->fn) return 0;
    int k = 0;
    while (!d->fly[k].due) k++; /* as mx_dram_take_done */
    struct inflight_ring *r = &d->fly[k];
    const size_t n = r->due < r->cap - r->head ? r->due : r->cap - r->head; /* up to the ring's wrap */
    *first = &r->v[r->head].r;
    *stride = sizeof *r->v;
    r->head = (r->head + n) & (r->cap - 1);
    r->n -= n;
    r->due -= n;
    d->fn -= n;
    return n;
}

/* ---- command issue -------------------------------------------------------- */

static void bg_change(rank_st *r, uint64_t at, int delta)
{
    int was = r->open_banks > 0;
    r->open_banks += delta;
    int is = r->open_banks > 0;
    if (was != is) {
        if (was) r->bg_act_clk += at - r->bg_since;
        else r->bg_pre_clk += at - r->bg_since;
        r->bg_since = at;
    }
}

static void close_bank(mx_dram *d, chan_t *ch, int b, int64_t pre_at, uint64_t now)
{
    bank_st *bk = &ch->bank[b];
    rank_st *r = &ch->rank[b >> d->rank_sh];
    bk->act = mx_llmax(bk->act, pre_at + d->tm.tRP);
    r->ref = mx_llmax(r->ref, pre_at + d->tm.tRP);
    bk->row = -1;
    ch->nhit[0][b] = ch->nhit[1][b] = 0;
    ch->hmask[0][b >> 6] &= ~(UINT64_C(1) << (b & 63));
    ch->hmask[1][b >> 6] &= ~(UINT64_C(1) << (b & 63));
    bg_change(r, now, -1);
    d->st.pre++;
}

static void do_act(mx_dram *d, chan_t *ch, int b, int32_t row, uint64_t now)
{
    const dram_tm *tm = &d->tm;
    const int64_t t = (int64_t)now;
    bank_st *bk = &ch->bank[b];
    group_st *g = &ch->group[b >> d->group_sh];
    rank_st *r = &ch->rank[b >> d->rank_sh];
    bk->row = row;
    bk->cas_since_act = 0;
    bk->act_conflict = bk->conflict_pre;
    bk->conflict_pre = 0;
    bk->rd = mx_llmax(bk->rd, t + tm->act_cas);
    bk->wr = mx_llmax(bk->wr, t + tm->act_cas);
    bk->pre = mx_llmax(bk->pre, t + tm->tRAS);
    bk->act = mx_llmax(bk->act, t + tm->tRC);
    g->act = mx_llmax(g->act, t + tm->tRRD_L);
    r->act = mx_llmax(r->act, t + tm->tRRD_S);
    r->faw[r->faw_i] = t;
    r->faw_i = (r->faw_i + 1) & 3;
    if (r->nfaw < 4) r->nfaw++;
    for (int w = 0; w < 2; w++) { /* requests that now hit this row */
        const queue_t *q = w ? &ch->wq : &ch->rq;
        int n = 0;
        if (q->head[b] >= 0 && q->urow[b] >= 0) { /* one row in the list: no walk */
            if (q->urow[b] == row) { n = q->cnt[b]; ch->ohit[w][b] = q->head[b]; }
        } else {
            for (int s = q->head[b]; s >= 0; s = q->pool[s].next)
                if (q->pool[s].row == row && n++ == 0) ch->ohit[w][b] = s;
        }
        ch->nhit[w][b] = (uint32_t)n;
        if (n) ch->hmask[w][b >> 6] |= UINT64_C(1) << (b & 63);
        else ch->hmask[w][b >> 6] &= ~(UINT64_C(1) << (b & 63));
    }
    bg_change(r, now, +1);
    d->st.act++;
}

/* The CAS of request idx; returns its bank. */
static int do_cas(mx_dram *d, chan_t *ch, int w, int idx, uint64_t now)
{
    const dram_tm *tm = &d->tm;
    const int64_t t = (int64_t)now;
    queue_t *q = w ? &ch->wq : &ch->rq;
    const req_t *rq = &q->pool[idx];
    const int b = rq->bank, ri = b >> d->rank_sh, gi = b >> d->group_sh;
    const uint64_t id = rq->id, addr = rq->addr, arrive = rq->arrive; /* the slot is freed below */
    bank_st *bk = &ch->bank[b];
    if (bk->cas_since_act++ > 0) d->st.row_hits++;
    else { d->st.row_misses++; if (bk->act_conflict) d->st.row_conflicts++; }
    group_st *g = &ch->group[gi];
    rank_st *own = &ch->rank[ri];
    own->rd = mx_llmax(own->rd, t + (w ? tm->wr_rd_S : tm->rd_rd_S));
    own->wr = mx_llmax(own->wr, t + (w ? tm->wr_wr_S : tm->rd_wr));
    for (int r = 0; d->c.ranks > 1 && r < d->c.ranks; r++) { /* the other ranks: the data bus turnaround */
        if (r == ri) continue;
        rank_st *rk = &ch->rank[r];
        rk->rd = mx_llmax(rk->rd, t + (w ? tm->wr_rd_O : tm->rd_rd_O));
        rk->wr = mx_llmax(rk->wr, t + (w ? tm->wr_wr_O : tm->rd_wr_O));
    }
    g->rd = mx_llmax(g->rd, t + (w ? tm->wr_rd_L : tm->rd_rd_L));
    g->wr = mx_llmax(g->wr, t + (w ? tm->wr_wr_L : tm->rd_wr));
    ch->gmax[0] = mx_llmax(ch->gmax[0], g->rd);
    ch->gmax[1] = mx_llmax(ch->gmax[1], g->wr);
    bk->pre = mx_llmax(bk->pre, t + (w ? tm->wr_pre : tm->rd_pre));
    const int after = rq->next; /* before the slot is freed */
    queue_remove(q, idx);
    queue_moved(d, ch, w, -1);
    if (--ch->nhit[w][b] == 0) {
        ch->hmask[w][b >> 6] &= ~(UINT64_C(1) << (b & 63));
    } else if (ch->ohit[w][b] == idx) { /* the next hit: after the oldest, as all others */
        int s = after;
        while (q->pool[s].row != bk->row) s = q->pool[s].next;
        ch->ohit[w][b] = s;
    }
    if (d->c.page_policy == MX_PAGE_CLOSED)
        close_bank(d, ch, b, bk->pre, now); /* auto-precharge at the earliest legal PRE */
    if (w) d->st.wr++;
    else d->st.rd++;
    fly_push(d, w ? FLY_WR : FLY_RD, id, addr, w, arrive, now + (uint64_t)(w ? tm->WL : tm->RL) + (uint64_t)tm->burst);
    update_mode(d, ch);
    return b;
}

static void do_ref(mx_dram *d, chan_t *ch, int r, uint64_t now)
{
    rank_st *rk = &ch->rank[r];
    rk->act = mx_llmax(rk->act, (int64_t)now + d->tm.tRFC);
    rk->ref = mx_llmax(rk->ref, (int64_t)now + d->tm.tRFC);
    rk->ref_pending--;
    ch->ref_pending--;
    d->st.ref++;
}

/* One clock of one channel: refresh bookkeeping, then at most one command. */
static void chan_step(mx_dram *d, chan_t *ch, uint64_t now)
{
    if (ch->ref_due <= now) { /* a rank's refresh falls due */
        ch->ref_due = UINT64_MAX;
        for (int r = 0; r < d->c.ranks; r++) {
            rank_st *rk = &ch->rank[r];
            if (rk->ref_due <= now) {
                rk->ref_pending++;
                ch->ref_pending++;
                rk->ref_due += (uint64_t)d->tm.ref_step * (uint64_t)d->c.ranks;
            }
            if (rk->ref_due < ch->ref_due) ch->ref_due = rk->ref_due;
        }
        rescan(d, ch, now);
    }
    const cand_t *c = ch->ref.at <= now ? &ch->ref : ch->hit.at <= now ? &ch->hit
                    : ch->other.at <= now ? &ch->other : NULL;
    if (!c) { set_next(ch, now + 1); return; }
    int w = ch->draining;
    const int kind = c->kind;
    /* CAS first, by branches, not a switch: its indirect jump mispredicted
     * at every ACT or PRE among the CASes */
    if (kind == CAND_CAS) {
        const int b = do_cas(d, ch, w, c->idx, now);
        /* rescan_cas's conditions: same active queue, the bank still open
         * (open page), no refresh pending, the other class not earlier */
        if (ch->draining == w && d->c.page_policy == MX_PAGE_OPEN && !ch->ref_pending && ch->other.at >= now + 1) {
            rescan_cas(d, ch, now + 1, b);
            return;
        }
    } else if (kind == CAND_ACT) {
        const req_t *rq = &(w ? &ch->wq : &ch->rq)->pool[c->idx];
        do_act(d, ch, rq->bank, rq->row, now);
    } else if (kind == CAND_PRE) {
        const req_t *rq = &(w ? &ch->wq : &ch->rq)->pool[c->idx];
        ch->bank[rq->bank].conflict_pre = 1;
        close_bank(d, ch, rq->bank, (int64_t)now, now);
    } else if (kind == CAND_REFPRE) {
        close_bank(d, ch, c->idx, (int64_t)now, now);
    } else if (kind == CAND_REF) {
        do_ref(d, ch, c->idx, now);
    }
    rescan(d, ch, now + 1);
}

/* ---- front end ------------------------------------------------------------ */

int mx_dram_can_accept(const mx_dram *d, uint64_t addr, int is_write)
{
    int f[F_N];
    map_addr(&d->m, addr, f);
    const chan_t *ch = &d->ch[f[F_CH]];
    return (is_write ? ch->wq.n : ch->rq.n) < d->c.queue_size;
}

static int below_drain(const mx_dram *d, const chan_t *ch)
{
    /* below the watermark, and not lengthening a drain that reads wait for
     * (a drain runs down to write_low: a writer feeding it starves reads) */
    return ch->wq.n + 1 < d->c.write_high && ch->wq.n < d->c.queue_size && !(ch->draining && ch->rq.n > 0);
}

int mx_dram_write_below_drain(const mx_dram *d, uint64_t addr)
{
    int f[F_N];
    map_addr(&d->m, addr, f);
    return below_drain(d, &d->ch[f[F_CH]]);
}

static inline __attribute__((always_inline)) int add_mapped(mx_dram *d, req_place p, uint64_t addr, int is_write,
                                                             uint64_t id);

int mx_dram_add(mx_dram *d, uint64_t addr, int is_write, uint64_t id)
{
    return add_mapped(d, map_place(&d->m, &d->bm, addr), addr, is_write, id);
}

/* Whether the DMA's next request of this kind enters ch now: a write only
 * below the drain watermark, a read while the read queue has room
 * (mx_dram_dma_add, and the pending lists of mx_dram_dma_pend). */
static inline int dma_takes(const mx_dram *d, const chan_t *ch, int is_write)
{
    return is_write ? below_drain(d, ch) : ch->rq.n < d->c.queue_size;
}

int mx_dram_dma_add(mx_dram *d, uint64_t addr, int is_write, uint64_t id)
{
    const req_place p = map_place(&d->m, &d->bm, addr);
    const chan_t *ch = &d->ch[p.ch];
    if (!dma_takes(d, ch, is_write)) return -1;
    return add_mapped(d, p, addr, is_write, id);
}

/* Inlined into both callers: req_place passed through the stack and read
 * back at another width stalled store forwarding (perf, HBM2). */
static inline __attribute__((always_inline)) int add_mapped(mx_dram *d, req_place p, uint64_t addr, int is_write,
                                                             uint64_t id)
{
    chan_t *ch = &d->ch[p.ch];
    queue_t *q = is_write ? &ch->wq : &ch->rq;
    if (q->n >= d->c.queue_size) return -1;
    const int b = p.bank;
    if (!is_write && ch->wq.head[b] >= 0) { /* read of a queued write: served from the write queue */
        uint64_t a = addr >> d->m.shift;
        for (int s = ch->wq.head[b]; s >= 0; s = ch->wq.pool[s].next)
            if (ch->wq.pool[s].addr >> d->m.shift == a) {
                fly_push(d, FLY_FWD, id, addr, 0, d->now, d->now + 1);
                return 0;
            }
    }
    const uint64_t seq = d->rseq++;
    int idx = queue_push(q, addr, id, d->now, seq, p.row, b);
    queue_moved(d, ch, is_write, +1);
    bank_st *bk = &ch->bank[b];
    int hit = bk->row == p.row;
    if (hit && ch->nhit[is_write][b]++ == 0) {
        ch->ohit[is_write][b] = idx;
        ch->hmask[is_write][b >> 6] |= UINT64_C(1) << (b & 63);
    }
    int was = ch->draining;
    update_mode(d, ch);
    if (ch->draining != was) { rescan(d, ch, d->now); return 0; } /* the active queue switched */
    if (is_write != ch->draining || ch->rank[b >> d->rank_sh].ref_pending) return 0;
    if (hit && ch->other.kind == CAND_PRE && q->pool[ch->other.idx].bank == b) {
        rescan(d, ch, d->now); /* the chosen PRE lost its right to close a row with pending hits */
        return 0;
    }
    /* the youngest request: it becomes a candidate only by being strictly earlier */
    uint64_t at = UINT64_MAX;
    if (hit) offer(&ch->hit, CAND_CAS, idx, at = clampu(cas_ready(d, ch, b, is_write), d->now), seq);
    else if (bk->row < 0) offer(&ch->other, CAND_ACT, idx, at = clampu(act_ready(d, ch, b), d->now), seq);
    else if (ch->nhit[is_write][b] == 0) offer(&ch->other, CAND_PRE, idx, at = clampu(bk->pre, d->now), seq);
    /* set_next(ch, d->now) in short: every channel's next is >= now between
     * clocks (a tick leaves none below now + 1), so clamping the old least
     * to now gave next, and the offer lowered at most one class to at >= now */
    if (at < ch->next) ch->next = at;
    return 0;
}

void mx_dram_dma_pend(mx_dram *d, int is_write, const uint64_t *addr, size_t n, uint64_t id)
{
    struct dma_pend *p = &d->pend[is_write != 0];
    p->a = addr;
    p->n = n;
    p->i = 0;
    p->id = id;
    p->placed = 0;
}

size_t mx_dram_dma_taken(mx_dram *d, int is_write)
{
    struct dma_pend *p = &d->pend[is_write != 0];
    const size_t k = p->i;
    p->n = p->i = 0;
    return k;
}

/* The pending lists at a clock the caller's feed would run: each added
 * while mx_dram_dma_add takes it, reads first (as the cycle engine's feed:
 * a write added does not change a read's answer).  1 when a list ran out
 * (the caller's stream goes on: its feed must run now), 0 when every list
 * is refused at its next request. */
static int pend_feed(mx_dram *d)
{
    for (int w = 0; w < 2; w++) {
        struct dma_pend *p = &d->pend[w];
        if (!p->n) continue;
        /* the list's position and place in locals, stored back only when
         * they change: a place stored into p and read back at another
         * width by add_mapped stalled store forwarding (perf, HBM2: 6% of
         * the run's time, stop 34), and most calls add nothing (DDR4) */
        const size_t i0 = p->i;
        size_t i = i0;
        if (i < p->n) {
            req_place pl = p->placed ? p->pl : map_place(&d->m, &d->bm, p->a[i]);
            for (;;) {
                if (!dma_takes(d, &d->ch[pl.ch], w)) { /* refused: a[i] stays placed */
                    if (i != i0 || !p->placed) { p->pl = pl; p->placed = 1; }
                    break;
                }
                (void)add_mapped(d, pl, p->a[i], w, p->id); /* takes it: the queue has room */
                if (++i == p->n) { p->placed = 0; break; }
                pl = map_place(&d->m, &d->bm, p->a[i]);
            }
            if (i != i0) p->i = i;
        }
        if (i == p->n) return 1;
    }
    return 0;
}

/* The passes over the channels below (twice per clock with commands) run
 * unrolled for a count known at compile time: HBM2's 8 channels, and 1.
 * With the count a runtime value, the loop's own instructions were about
 * half of the pass. */
static inline __attribute__((always_inline)) uint64_t min_next_n(const mx_dram *d, int n)
{
    uint64_t nx = UINT64_MAX;
#pragma GCC unroll 8
    for (int i = 0; i < n; i++)
        if (d->ch[i].next < nx) nx = d->ch[i].next;
    return nx;
}

static uint64_t min_next(const mx_dram *d)
{
    return d->c.channels == 8 ? min_next_n(d, 8) : d->c.channels == 1 ? d->ch[0].next : min_next_n(d, d->c.channels);
}

/* The channels among ch[0..n) due now, as a mask (no branch per channel:
 * which ones are due is data, a branch on it mispredicts). */
static inline __attribute__((always_inline)) uint64_t due_mask_n(const mx_dram *d, const chan_t *ch, int n)
{
    uint64_t due = 0;
#pragma GCC unroll 8
    for (int i = 0; i < n; i++) due |= (uint64_t)(ch[i].next <= d->now) << i;
    return due;
}

void mx_dram_tick(mx_dram *d)
{
    /* the channels due now as a mask first, then in order */
    for (int i0 = 0; i0 < d->c.channels; i0 += 64) {
        const int n = d->c.channels - i0 < 64 ? d->c.channels - i0 : 64;
        uint64_t due = n == 8 ? due_mask_n(d, &d->ch[i0], 8) : due_mask_n(d, &d->ch[i0], n);
        for (; due; due &= due - 1) chan_step(d, &d->ch[i0 + __builtin_ctzll(due)], d->now);
    }
    d->now++;
    retire(d);
}

void mx_dram_run_until(mx_dram *d, uint64_t until)
{
    while (d->now < until) {
        uint64_t nx = min_next(d);
        if (nx >= until) { d->now = until; retire(d); break; }
        /* skip the idle clocks; the tick's retire (done <= nx + 1) also takes
         * what was done by nx: its own CAS completes at nx + 2 at the earliest */
        if (nx > d->now) d->now = nx;
        mx_dram_tick(d);
    }
}

uint64_t mx_dram_next_event(const mx_dram *d)
{
    uint64_t nx = min_next(d);
    nx = nx == UINT64_MAX ? UINT64_MAX : nx + 1;
    if (d->fly_next < nx) nx = d->fly_next;
    return nx;
}

/* The clock by which k more completions are due (UINT64_MAX: fewer than k
 * in flight): the k-th least done of the three sorted rings. */
static uint64_t kth_done(const mx_dram *d, size_t k)
{
    const struct inflight_ring *f = d->fly;
    const size_t p0 = f[0].n - f[0].due, p1 = f[1].n - f[1].due, p2 = f[2].n - f[2].due;
    if (k == 0 || p0 + p1 + p2 < k) return UINT64_MAX;
    /* one kind in flight (a load's reads, a store's writes): its k-th */
    const size_t p[3] = {p0, p1, p2};
    for (int r = 0; r < 3; r++)
        if (p[r] == p0 + p1 + p2) return ring_at(&f[r], f[r].due + k - 1)->r.done;
    size_t i[3] = {f[0].due, f[1].due, f[2].due};
    uint64_t t = UINT64_MAX;
    while (k--) {
        int best = -1;
        for (int r = 0; r < 3; r++)
            if (i[r] < f[r].n && (best < 0 || ring_at(&f[r], i[r])->r.done < ring_at(&f[best], i[best])->r.done))
                best = r;
        t = ring_at(&f[best], i[best]++)->r.done;
    }
    return t;
}

int mx_dram_run_until_wake(mx_dram *d, uint64_t until, size_t dones, int watch_epoch, mx_dram_feed feed,
                           void *ctx)
{
    uint64_t epoch0 = d->epoch;
    long long quiet = 0; /* events in a row that completed nothing */
    while (d->now < until) {
        /* the next command clock; a completion is an event only when it
         * makes `dones` (completions change no state of the model: the
         * next stop retires them with their own done clocks) */
        const uint64_t cmd = min_next(d);
        uint64_t nx = cmd == UINT64_MAX ? UINT64_MAX : cmd + 1;
        if (dones > 0 && d->fn < dones) {
            const uint64_t td = kth_done(d, dones - d->fn);
            if (td < nx) nx = td;
        }
        if (nx == UINT64_MAX) { /* idle for good: only the caller's clock moves it */
            if (until == UINT64_MAX) return -1;
            nx = until;
        }
        if (nx <= d->now || quiet > MX_DRAM_IDLE_EVENTS_MAX) return -1;
        const size_t fn0 = d->fn;
        const uint64_t to = nx < until ? nx : until;
        if (to == cmd + 1 && cmd >= d->now) { /* mx_dram_run_until(d, to): one tick at cmd */
            d->now = cmd;
            mx_dram_tick(d);
        } else {
            mx_dram_run_until(d, to);
        }
        if (dones > 0 && d->fn >= dones) break;
        if (watch_epoch && d->epoch != epoch0) {
            if (!feed) break;
            if ((d->pend[0].n | d->pend[1].n) && d->now < until && !pend_feed(d)) {
                epoch0 = d->epoch; /* every DMA still refused: feed would add nothing more */
                quiet = d->fn != fn0 ? 0 : quiet + 1;
                continue;
            }
            const int f = feed(ctx);
            if (f & MX_DRAM_FEED_WAKE) break;
            watch_epoch = f & MX_DRAM_FEED_REFUSED;
            epoch0 = d->epoch;
        }
        quiet = d->fn != fn0 ? 0 : quiet + 1;
    }
    return 0;
}

void mx_dram_get_stats(const mx_dram *d, mx_dram_stats *s)
{
    *s = d->st;
    s->cycles = d->now;
    double pj[MX_DRAM_E_N];
    mx_dram_energy_per_command(&d->c, pj);
    uint64_t act_clk = 0, pre_clk = 0;
    for (int i = 0; i < d->c.channels; i++)
        for (int r = 0; r < d->c.ranks; r++) {
            const rank_st *rk = &d->ch[i].rank[r];
            act_clk += rk->bg_act_clk;
            pre_clk += rk->bg_pre_clk;
            if (rk->open_banks) act_clk += d->now - rk->bg_since;
            else pre_clk += d->now - rk->bg_since;
        }
    s->energy_pj[MX_DRAM_E_ACT] = pj[MX_DRAM_E_ACT] * (double)s->act;
    s->energy_pj[MX_DRAM_E_PRE] = pj[MX_DRAM_E_PRE] * (double)s->pre;
    s->energy_pj[MX_DRAM_E_RD] = pj[MX_DRAM_E_RD] * (double)s->rd;
    s->energy_pj[MX_DRAM_E_WR] = pj[MX_DRAM_E_WR] * (double)s->wr;
    s->energy_pj[MX_DRAM_E_REF] = pj[MX_DRAM_E_REF] * (double)s->ref;
    s->energy_pj[MX_DRAM_E_BG_ACT] = pj[MX_DRAM_E_BG_ACT] * (double)act_clk;
    s->energy_pj[MX_DRAM_E_BG_PRE] = pj[MX_DRAM_E_BG_PRE] * (double)pre_clk;
    s->energy_total_pj = 0;
    for (int e = 0; e < MX_DRAM_E_N; e++) s->energy_total_pj += s->energy_pj[e];
}
