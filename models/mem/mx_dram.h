/*
 * mx_dram.h — a protocol-level DRAM model (SPEC §4.1), in the manner of
 * DRAMsim3 / Ramulator: small state machines (bank, rank, channel,
 * controller) stepped by the DRAM clock, timing constraints as data.
 *
 *   channel ─┬─ controller: read queue, write queue, FR-FCFS scheduler
 *            │              (row hits first, then oldest), write draining
 *            │              between watermarks, per-rank refresh
 *            └─ rank[ranks] ── bankgroup[bankgroups] ── bank[banks_per_group]
 *                              (state: closed / open row, earliest clock per command)
 *
 * A request is one burst (BL beats on the channel's data bus, i.e.
 * bus_bits / 8 * BL bytes).  Times are in DRAM clocks (tCK) unless a name
 * says otherwise.  Energy follows the Micron power-calculation method as
 * DRAMPower does (docs/DRAM.md):
 *   E_act = VDD * (IDD0 - IDD3N) * tRAS * tCK * devices       per ACT
 *   E_pre = VDD * (IDD0 - IDD2N) * tRP  * tCK * devices       per PRE
 *   E_rd  = VDD * (IDD4R - IDD3N) * BL/2 * tCK * devices      per RD
 *   E_wr  = VDD * (IDD4W - IDD3N) * BL/2 * tCK * devices      per WR
 *   E_ref = VDD * (IDD5 - IDD3N) * tRFC * tCK * devices       per REF (all-bank)
 *   E_bg  = VDD * IDD3N * tCK * devices per rank-clock with a bank open,
 *           VDD * IDD2N * tCK * devices per rank-clock with all banks closed
 * (mA * V * ns = pJ; devices = devices per rank = bus_bits / device_width).
 *
 * C11, libc only, no global state: every call takes the handle.
 */
#ifndef MX_DRAM_H
#define MX_DRAM_H

#include "util/mx_fp_env.h" /* refuses -ffast-math, excess precision */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MX_DRAM_NAME_MAX 64

typedef enum { MX_PAGE_OPEN = 0, MX_PAGE_CLOSED = 1 } mx_page_policy;

/* The timing parameters, in DRAM clocks.  One table (mx_dram_timing_table)
 * names them for loaders and reports. */
typedef struct {
    int CL, CWL, AL;       /* CAS (read) latency, CAS write latency, additive latency */
    int tRCD, tRP, tRAS, tRC;
    int tRRD_S, tRRD_L;    /* ACT to ACT, other / same bank group                */
    int tCCD_S, tCCD_L;    /* CAS to CAS, other / same bank group                */
    int tFAW;              /* four-activate window                                */
    int tWTR_S, tWTR_L;    /* end of write data to READ, other / same bank group  */
    int tWR;               /* write recovery: end of write data to PRE            */
    int tRTP;              /* READ to PRE                                         */
    int tRTRS;             /* rank to rank switch on the data bus                 */
    int tRFC;              /* all-bank refresh cycle time                         */
    int tREFI;             /* refresh interval                                    */
    int tCKE, tXP;         /* power-down (kept for .ini compatibility; unused)    */
} mx_dram_timing;

/* One entry of the timing table: name as in DRAMsim3's .ini and our YAML,
 * offset into mx_dram_timing, smallest allowed value. */
typedef struct {
    const char *name;
    size_t offset;
    int min;
} mx_dram_timing_field;
extern const mx_dram_timing_field mx_dram_timing_table[];
extern const size_t mx_dram_timing_table_n;

typedef struct {
    double VDD;                            /* V  */
    double IDD0, IDD2N, IDD3N, IDD4R, IDD4W, IDD5; /* mA per device (IDD5 = IDD5B, all-bank refresh) */
} mx_dram_power;

typedef struct {
    char name[MX_DRAM_NAME_MAX];
    /* structure */
    int channels, ranks, bankgroups, banks_per_group;
    int rows, columns;       /* per bank; columns counted in device words */
    int device_width;        /* bits per device (x8, x16, x128)           */
    int bus_bits;            /* channel data bus width                    */
    int BL;                  /* burst length (beats)                      */
    double tCK_ns;
    mx_dram_timing t;
    mx_dram_power p;
    /* controller */
    mx_page_policy page_policy;
    char address_mapping[16]; /* DRAMsim3 letters, MSB first: ro ch ra bg ba co, e.g. "rochrababgco" */
    int queue_size;          /* per channel, each of the read and write queues */
    int write_high, write_low; /* start draining writes at >= high, stop at <= low */
    int refresh;             /* 1 per-rank all-bank refresh every tREFI (default) */
} mx_dram_config;

/* Bytes moved by one request (one burst). */
int mx_dram_burst_bytes(const mx_dram_config *c);
/* Peak bandwidth of all channels, GB/s: channels * burst_bytes / (BL/2 * tCK). */
double mx_dram_peak_gbs(const mx_dram_config *c);
/* Checks ranges and consistency (tRC >= tRAS + tRP, power of two sizes, a
 * mapping naming each field once).  0, or -1 with "key 'NAME': ..." in err. */
int mx_dram_config_check(const mx_dram_config *c, char *err, size_t errlen);

/* Decoded address (after dropping the burst offset bits).  column is the
 * mapping's co field, as DRAMsim3: the burst within the row (0 ..
 * columns/BL - 1), not the device-word column. */
typedef struct {
    int channel, rank, bankgroup, bank;
    int row, column;
} mx_dram_addr;
void mx_dram_map(const mx_dram_config *c, uint64_t addr, mx_dram_addr *a);

/* The mapping decoded once, for callers that map many addresses of one
 * config (mx_dram_map parses address_mapping at every call).  Fields in the
 * order channel, rank, bank group, bank, row, column. */
typedef struct {
    int shift;                       /* burst offset bits dropped first */
    int pos[6], width[6];
    uint64_t mask[6];                /* (1 << width) - 1 */
} mx_dram_addr_map;
/* 0, or -1 (config fails mx_dram_config_check's mapping rules: then every
 * address maps to all zeros, as mx_dram_map does). */
int mx_dram_map_build(const mx_dram_config *c, mx_dram_addr_map *m);
/* inline: the probes map every burst of their transfers (stream_ch_counts,
 * stream_ranks), and a call per burst was a fifth of the analytic BERT step */
static inline void mx_dram_map_with(const mx_dram_addr_map *m, uint64_t addr, mx_dram_addr *a)
{
    const uint64_t x = addr >> m->shift;
    a->channel = (int)((x >> m->pos[0]) & m->mask[0]);
    a->rank = (int)((x >> m->pos[1]) & m->mask[1]);
    a->bankgroup = (int)((x >> m->pos[2]) & m->mask[2]);
    a->bank = (int)((x >> m->pos[3]) & m->mask[3]);
    a->row = (int)((x >> m->pos[4]) & m->mask[4]);
    a->column = (int)((x >> m->pos[5]) & m->mask[5]);
}

/* ---- the model ------------------------------------------------------------ */
typedef struct mx_dram mx_dram;

/* NULL on allocation failure or a config that fails mx_dram_config_check
 * (message in err). */
mx_dram *mx_dram_new(const mx_dram_config *c, char *err, size_t errlen);
void mx_dram_free(mx_dram *d);
/* A deep copy of d (its queues, banks and completion rings): it runs on as d
 * would, independently (the analytic walk's replay carries one model along
 * and clones it per query).  Pending DMA lists (mx_dram_dma_pend) are the
 * caller's arrays and are shared.  NULL when out of memory. */
mx_dram *mx_dram_clone(const mx_dram *d);

/* The clock the model is at (clocks ticked so far). */
uint64_t mx_dram_now(const mx_dram *d);

/* 1 if the channel of addr has room in its read (or write) queue. */
int mx_dram_can_accept(const mx_dram *d, uint64_t addr, int is_write);
/* 1 if one more write to addr's channel leaves its write queue below the
 * drain watermark (write_high) and does not lengthen a drain while reads
 * wait: a writer that waits for this never delays reads beyond the writes
 * already buffered (the cycle engine's store DMA). */
int mx_dram_write_below_drain(const mx_dram *d, uint64_t addr);
/* A count that changes whenever a read or write queue gains or loses a
 * request.  mx_dram_dma_add's answer depends only on the queues (and the
 * drain mode they set), so a DMA refused at one count is refused again
 * until the count changes: the cycle engine skips those retries. */
uint64_t mx_dram_queue_epoch(const mx_dram *d);
/* The same for one kind of request: changes whenever mx_dram_dma_add's
 * answer for a read (is_write 0: a read queue's length) or a write (1: a
 * write queue's length, its drain mode, whether reads wait) may change.  A
 * refused write need not be retried when only reads moved in a queue. */
uint64_t mx_dram_refusal_epoch(const mx_dram *d, int is_write);
/* Enqueues one burst request arriving at the current clock; id is returned
 * with its completion.  0, or -1 if the queue is full. */
int mx_dram_add(mx_dram *d, uint64_t addr, int is_write, uint64_t id);
/* The accelerator DMA's request (the cycle engine's and the probes' one
 * rule): a read if its queue has room, a write if mx_dram_write_below_drain.
 * 0 added, or -1 and nothing changed. */
int mx_dram_dma_add(mx_dram *d, uint64_t addr, int is_write, uint64_t id);

/* One DRAM clock: refresh, scheduling (at most one command per channel per
 * clock), completions. */
void mx_dram_tick(mx_dram *d);
/* Ticks up to clock `until` but skips clocks in which nothing can happen
 * (same result as ticking one by one; faster when idle). */
void mx_dram_run_until(mx_dram *d, uint64_t until);
/* Events in a row that complete nothing before a stepping loop calls the
 * model stuck (a bug: e.g. completions that never retire while refresh
 * keeps time moving).  Sound runs have few: an idle DRAM acts once per
 * tREFI.  The one bound of mx_dram_run_until_wake, the probes and the
 * cycle engine's event loop. */
#define MX_DRAM_IDLE_EVENTS_MAX 1000000LL

/* Steps the model up to clock `until` through the clocks a caller stepping
 * it event by event (mx_dram_next_event, mx_dram_run_until) would visit,
 * except completions that do not matter: a completion is an event only when
 * it makes `dones` (completions change no scheduler state; the next stop
 * retires them with their own done clocks).  Stops early after the first
 * event that leaves at least `dones` completions waiting (dones > 0), or
 * that changes the queue epoch while watch_epoch is set.  On such an epoch change, a `feed` (if not
 * NULL) is called first, at that clock: a DMA refused before may add
 * requests now.  It returns MX_DRAM_FEED_* bits: WAKE stops the run here,
 * REFUSED keeps watching the epoch (a DMA is still refused).  A caller that
 * acts only at those points (the cycle engine: a transfer's last
 * completion, a refused DMA's retry) skips the events in between.
 * 0, or -1 if the model stops (no event while requests are in flight, or
 * over MX_DRAM_IDLE_EVENTS_MAX events in a row completing nothing: a model
 * bug). */
enum { MX_DRAM_FEED_WAKE = 1, MX_DRAM_FEED_REFUSED = 2 };
/* A refused DMA's next requests of one kind (is_write 0 or 1), in order,
 * all with one id: addr[0] is the refused one.  While
 * mx_dram_run_until_wake watches the epoch before `until`, at each clock it
 * would call `feed` the model first adds these itself, reads then writes,
 * each while mx_dram_dma_add takes them (at the clock feed would have
 * added them: the same arrival clock and order).  It calls feed only when
 * a list runs out (feed continues that DMA's stream), or at `until`.  The
 * caller sets the lists only where its feed would add exactly these
 * requests (a transfer started, refused at addr[0]), and calls
 * mx_dram_dma_taken before reading or changing its stream.  addr stays the
 * caller's, unchanged until then.  n 0: none of that kind. */
void mx_dram_dma_pend(mx_dram *d, int is_write, const uint64_t *addr, size_t n, uint64_t id);
/* How many of the requests of mx_dram_dma_pend's list of that kind the
 * model added since it was set; the list is dropped. */
size_t mx_dram_dma_taken(mx_dram *d, int is_write);
typedef int (*mx_dram_feed)(void *ctx);
int mx_dram_run_until_wake(mx_dram *d, uint64_t until, size_t dones, int watch_epoch, mx_dram_feed feed,
                           void *ctx);
/* Earliest clock > now at which the model's state can change by itself
 * (a command becomes issuable, data completes, a refresh falls due);
 * UINT64_MAX if never. */
uint64_t mx_dram_next_event(const mx_dram *d);

/* Completed requests in completion order: a read when its last data beat
 * has arrived (issue of RD + AL + CL + BL/2), a write when its data has been
 * sent (WR + AL + CWL + BL/2).  1 and the fields, or 0 if none waits. */
typedef struct {
    uint64_t id, addr;
    int is_write;
    uint64_t arrive, done; /* DRAM clocks */
} mx_dram_done;
int mx_dram_pop_done(mx_dram *d, mx_dram_done *out);
/* The same completions in no particular order, without a copy: for callers
 * whose bookkeeping does not depend on the order (counts, maxima, minima:
 * the cycle engine, the probes).  The pointer is valid until the next call
 * on d; NULL if none waits. */
const mx_dram_done *mx_dram_take_done(mx_dram *d);
/* The same, a run at a time: n > 0 completions of one kind (all reads or
 * all writes), the i-th at (const char *)*first + i * *stride, valid until
 * the next call on d; 0 if none waits.  One call per run instead of one per
 * completion (the cycle engine's port). */
size_t mx_dram_take_dones(mx_dram *d, const mx_dram_done **first, size_t *stride);

/* Energy components. */
typedef enum {
    MX_DRAM_E_ACT = 0, MX_DRAM_E_PRE, MX_DRAM_E_RD, MX_DRAM_E_WR, MX_DRAM_E_REF,
    MX_DRAM_E_BG_ACT, MX_DRAM_E_BG_PRE, MX_DRAM_E_N
} mx_dram_energy;
const char *mx_dram_energy_name(mx_dram_energy e);

typedef struct {
    uint64_t cycles;                 /* clocks ticked                       */
    uint64_t reads_done, writes_done;
    uint64_t read_latency_sum;       /* sum over reads of done - arrive     */
    uint64_t act, pre, rd, wr, ref;  /* commands issued (pre: explicit + auto) */
    uint64_t row_hits, row_misses;   /* per CAS: row already open / needed an ACT */
    uint64_t row_conflicts;          /* of the misses: another row was open  */
    double energy_pj[MX_DRAM_E_N];
    double energy_total_pj;
} mx_dram_stats;
/* Statistics so far (background energy up to now()). */
void mx_dram_get_stats(const mx_dram *d, mx_dram_stats *s);

/* Per-command energies of the config (pJ, whole rank), for the analytic model
 * and for hand checks: index by mx_dram_energy; BG_* are per rank-clock. */
void mx_dram_energy_per_command(const mx_dram_config *c, double pj[MX_DRAM_E_N]);

#ifdef __cplusplus
}
#endif
#endif
