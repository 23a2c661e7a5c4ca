/*
 * mx_array.c — register model of rtl/mx_array.sv (see mx_array.h).
 */
#include "array/mx_array.h"

#include <stdlib.h>
#include <string.h>

#include "units/mx_requant.h"
#include "util/mx_util.h"

int mx_array_config_from_arch(const mx_arch_config *c, mx_array_config *a, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    if (c->dataflow != MX_DATAFLOW_OS)
        return mx_fail(err, errlen, "key 'arch.dataflow': the array RTL is output-stationary (os) only, got '%s'",
                       mx_dataflow_name(c->dataflow));
    if (!c->fold_overlap)
        return mx_fail(err, errlen, "key 'arch.fold_overlap': the array controller always overlaps folds (true), got false");
    if (c->scalesim_compat)
        return mx_fail(err, errlen, "key 'arch.scalesim_compat': SCALE-Sim conventions are not RTL timing (false), got true");
    if (c->pe_pipeline_depth < MX_ARRAY_PE_STAGES)
        return mx_fail(err, errlen, "key 'arch.pe_pipeline_depth': the PE has %d stages, got %d", MX_ARRAY_PE_STAGES,
                       c->pe_pipeline_depth);
    if (c->lanes > MX_PE_MAX_LANES)
        return mx_fail(err, errlen, "key 'arch.lanes': at most %d, got %d", MX_PE_MAX_LANES, c->lanes);
    a->rows = c->rows;
    a->cols = c->cols;
    a->lanes = c->lanes;
    a->pipeline_depth = c->pe_pipeline_depth;
    a->fifo_depth = 2 * c->rows + c->cols + 8; /* = FIFO_D of rtl/mx_array_ctrl.sv */
    a->align_width = c->align_width;
    a->tile_rows = c->rows;
    a->tile_cols = c->cols;
    a->fault_row = a->fault_col = -1;
    if (c->rqu_tile && c->tile_rows > 0) {
        /* a tile that straddles two folds would need an output buffer (docs/DECISIONS.md) */
        if (c->rows % c->tile_rows || c->cols % c->tile_cols)
            return mx_fail(err, errlen, "key 'format.tile': with rqu.block: tile the %dx%d tile must divide the %dx%d array "
                                        "(a tile may not straddle two folds)",
                           c->tile_rows, c->tile_cols, c->rows, c->cols);
        a->tile_rows = c->tile_rows;
        a->tile_cols = c->tile_cols;
    }
    if (c->rqu_tile && a->tile_rows * a->tile_cols > MX_REQUANT_MAX_N)
        return mx_fail(err, errlen, "key 'rqu.block': a %dx%d re-quantization tile exceeds %d elements", a->tile_rows,
                       a->tile_cols, MX_REQUANT_MAX_N);
    if (!c->rqu_tile && c->rows > MX_REQUANT_MAX_N)
        return mx_fail(err, errlen, "key 'arch.rows': a column block of %d exceeds %d elements", c->rows, MX_REQUANT_MAX_N);
    return 0;
}

/* ---- allocation ------------------------------------------------------------- */

static size_t rc_n(const mx_array_config *a) { return (size_t)a->rows * (size_t)a->cols; }
static size_t extra_stages(const mx_array_config *a) { return (size_t)(a->pipeline_depth - MX_ARRAY_PE_STAGES); }

int mx_array_regs_alloc(const mx_array_config *a, mx_array_regs *q)
{
    memset(q, 0, sizeof *q);
    const size_t R = (size_t)a->rows, C = (size_t)a->cols, n = rc_n(a), D = (size_t)a->fifo_depth;
    const size_t nres = n * extra_stages(a) + 1;
    q->askew = calloc(R * (R - 1) / 2 + 1, sizeof *q->askew);
    q->bskew = calloc(C * (C - 1) / 2 + 1, sizeof *q->bskew);
    q->apass = calloc(n, sizeof *q->apass);
    q->bpass = calloc(n, sizeof *q->bpass);
    q->pe = calloc(n, sizeof *q->pe);
    q->res_valid = calloc(nres, 1);
    q->res_value = calloc(nres, sizeof *q->res_value);
    q->shadow_valid = calloc(n, 1);
    q->shadow = calloc(n, sizeof *q->shadow);
    q->fifo_data = calloc(C * D, sizeof *q->fifo_data);
    q->fifo_row = calloc(C * D, sizeof *q->fifo_row);
    q->rd = calloc(C, sizeof *q->rd);
    q->wr = calloc(C, sizeof *q->wr);
    q->count = calloc(C, sizeof *q->count);
    if (!q->askew || !q->bskew || !q->apass || !q->bpass || !q->pe || !q->res_valid || !q->res_value ||
        !q->shadow_valid || !q->shadow || !q->fifo_data || !q->fifo_row || !q->rd || !q->wr || !q->count) {
        mx_array_regs_free(q);
        return -1;
    }
    mx_array_reset(a, q);
    return 0;
}

void mx_array_regs_free(mx_array_regs *q)
{
    free(q->askew); free(q->bskew); free(q->apass); free(q->bpass); free(q->pe);
    free(q->res_valid); free(q->res_value); free(q->shadow_valid); free(q->shadow);
    free(q->fifo_data); free(q->fifo_row); free(q->rd); free(q->wr); free(q->count);
    memset(q, 0, sizeof *q);
}

void mx_array_reset(const mx_array_config *a, mx_array_regs *q)
{
    const size_t R = (size_t)a->rows, C = (size_t)a->cols, n = rc_n(a), D = (size_t)a->fifo_depth;
    memset(q->askew, 0, (R * (R - 1) / 2 + 1) * sizeof *q->askew);
    memset(q->bskew, 0, (C * (C - 1) / 2 + 1) * sizeof *q->bskew);
    memset(q->apass, 0, n * sizeof *q->apass);
    memset(q->bpass, 0, n * sizeof *q->bpass);
    for (size_t i = 0; i < n; i++) mx_pe_reset(&q->pe[i]);
    memset(q->res_valid, 0, n * extra_stages(a) + 1);
    memset(q->res_value, 0, (n * extra_stages(a) + 1) * sizeof *q->res_value);
    memset(q->shadow_valid, 0, n);
    memset(q->shadow, 0, n * sizeof *q->shadow);
    memset(q->fifo_data, 0, C * D * sizeof *q->fifo_data);
    memset(q->fifo_row, 0, C * D * sizeof *q->fifo_row);
    memset(q->rd, 0, C * sizeof *q->rd);
    memset(q->wr, 0, C * sizeof *q->wr);
    memset(q->count, 0, C * sizeof *q->count);
    q->overrun = q->fault_done = 0;
}

int mx_array_out_alloc(const mx_array_config *a, mx_array_out *o)
{
    memset(o, 0, sizeof *o);
    const size_t C = (size_t)a->cols, n = rc_n(a);
    o->out_valid = calloc(C, sizeof *o->out_valid);
    o->out_row = calloc(C, sizeof *o->out_row);
    o->free = calloc(C, sizeof *o->free);
    o->take = calloc(C, sizeof *o->take);
    o->out_data = calloc(C, sizeof *o->out_data);
    o->pe_done = calloc(n, sizeof *o->pe_done);
    o->pe_valid = calloc(n, sizeof *o->pe_valid);
    o->pe_value = calloc(n, sizeof *o->pe_value);
    if (!o->out_valid || !o->out_row || !o->free || !o->take || !o->out_data || !o->pe_done || !o->pe_valid ||
        !o->pe_value) {
        mx_array_out_free(o);
        return -1;
    }
    return 0;
}

void mx_array_out_free(mx_array_out *o)
{
    free(o->out_valid); free(o->out_row); free(o->free); free(o->take); free(o->out_data);
    free(o->pe_done); free(o->pe_valid); free(o->pe_value);
    memset(o, 0, sizeof *o);
}

/* ---- comb / tick -------------------------------------------------------------- */

static void stream_set(mx_array_stream *s, const uint16_t *codes, int L, uint8_t scale, int valid, int first, int last)
{
    memcpy(s->codes, codes, (size_t)L * sizeof *codes);
    s->scale = scale;
    s->valid = (uint8_t)valid;
    s->first = (uint8_t)first;
    s->last = (uint8_t)last;
}

/* Row r's A stream at PE (r, 0): row 0 straight from the issue port, row r
 * after r skew registers. */
static mx_array_stream a_at_col0(const mx_array_in *in, const mx_array_regs *q, int r, int L)
{
    mx_array_stream s;
    if (r > 0) return q->askew[(size_t)(r * (r - 1) / 2 + r - 1)];
    memset(&s, 0, sizeof s);
    stream_set(&s, in->a_codes, L, in->a_scales[0], in->row_valid[0], in->first, in->last);
    return s;
}

static mx_array_stream b_at_row0(const mx_array_in *in, const mx_array_regs *q, int c, int L)
{
    mx_array_stream s;
    if (c > 0) return q->bskew[(size_t)(c * (c - 1) / 2 + c - 1)];
    memset(&s, 0, sizeof s);
    stream_set(&s, in->b_codes, L, in->b_scales[0], in->col_valid[0], 0, 0);
    return s;
}

void mx_array_comb(const mx_array_config *a, const mx_pe_config *pe, const mx_array_in *in,
                   const mx_array_regs *q, mx_array_regs *d, mx_array_out *o)
{
    const int R = a->rows, C = a->cols, L = a->lanes, D = a->fifo_depth;
    const size_t X = extra_stages(a);
    /* skew lines: row r's stage 0 takes the issue port's row r, stage i stage i-1 */
    for (int r = 1; r < R; r++) {
        mx_array_stream *dl = d->askew + r * (r - 1) / 2;
        const mx_array_stream *ql = q->askew + r * (r - 1) / 2;
        for (int i = r - 1; i > 0; i--) dl[i] = ql[i - 1];
        stream_set(&dl[0], in->a_codes + r * L, L, in->a_scales[r], in->row_valid[r], in->first, in->last);
    }
    for (int c = 1; c < C; c++) {
        mx_array_stream *dl = d->bskew + c * (c - 1) / 2;
        const mx_array_stream *ql = q->bskew + c * (c - 1) / 2;
        for (int i = c - 1; i > 0; i--) dl[i] = ql[i - 1];
        stream_set(&dl[0], in->b_codes + c * L, L, in->b_scales[c], in->col_valid[c], 0, 0);
    }
    /* PEs: A passes right, B down, one register per PE */
    mx_pe_in pi;
    memset(&pi, 0, sizeof pi);
    pi.out_ready_i = 1; /* acc_i = 0: the controller runs all of K in one pass */
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++) {
            const size_t i = (size_t)(r * C + c);
            const mx_array_stream ain = c == 0 ? a_at_col0(in, q, r, L) : q->apass[i];
            const mx_array_stream bin = r == 0 ? b_at_row0(in, q, c, L) : q->bpass[i];
            if (c + 1 < C) d->apass[i + 1] = ain;
            if (r + 1 < R) d->bpass[i + (size_t)C] = bin;
            pi.in_valid_i = ain.valid && bin.valid;
            memcpy(pi.a_codes_i, ain.codes, (size_t)L * sizeof *ain.codes);
            memcpy(pi.b_codes_i, bin.codes, (size_t)L * sizeof *bin.codes);
            pi.a_scale_i = ain.scale;
            pi.b_scale_i = bin.scale;
            pi.first_i = ain.first;
            pi.last_i = ain.last;
            mx_pe_out po;
            mx_pe_comb(pe, &pi, &q->pe[i], &d->pe[i], &po);
            /* the injected fault: the PE's first result, bit 0 flipped at its output port */
            if (r == a->fault_row && c == a->fault_col && !q->fault_done && po.out_valid_o) po.out_o ^= 1u;
            o->pe_valid[i] = po.out_valid_o;
            o->pe_value[i] = po.out_o;
            /* P - 4 result registers between the PE and its shadow */
            const uint8_t *qv = q->res_valid + i * X;
            const uint32_t *qx = q->res_value + i * X;
            uint8_t *dv = d->res_valid + i * X;
            uint32_t *dx = d->res_value + i * X;
            for (size_t s = X; s-- > 1;) { dv[s] = qv[s - 1]; dx[s] = qx[s - 1]; }
            if (X) { dv[0] = (uint8_t)po.out_valid_o; dx[0] = po.out_o; }
            o->pe_done[i] = X ? qv[X - 1] : po.out_valid_o;
        }
    d->fault_done = q->fault_done;
    if (a->fault_row >= 0 && a->fault_col >= 0 && o->pe_valid[a->fault_row * C + a->fault_col]) d->fault_done = 1;
    /* shadows and column FIFOs: the top valid shadow of a column moves into the FIFO when it has room */
    int over = q->overrun;
    for (int c = 0; c < C; c++) {
        int hv = 0, hr = 0;
        for (int r = 0; r < R; r++)
            if (q->shadow_valid[r * C + c]) { hv = 1; hr = r; break; }
        const int take = hv && q->count[c] < D;
        const int pop = q->count[c] != 0 && in->out_ready[c];
        o->take[c] = take;
        o->out_valid[c] = q->count[c] != 0;
        o->out_data[c] = q->fifo_data[c * D + q->rd[c]];
        o->out_row[c] = q->fifo_row[c * D + q->rd[c]];
        o->free[c] = D - q->count[c];
        for (int r = 0; r < R; r++) {
            const size_t i = (size_t)(r * C + c);
            const int taken = take && hr == r;
            const uint32_t res = X ? q->res_value[i * X + X - 1] : o->pe_value[i];
            d->shadow[i] = q->shadow[i];
            d->shadow_valid[i] = q->shadow_valid[i];
            if (o->pe_done[i]) {
                if (q->shadow_valid[i] && !taken) over = 1;
                d->shadow[i] = res;
                d->shadow_valid[i] = 1;
            } else if (taken) {
                d->shadow_valid[i] = 0;
            }
        }
        memcpy(d->fifo_data + c * D, q->fifo_data + c * D, (size_t)D * sizeof *d->fifo_data);
        memcpy(d->fifo_row + c * D, q->fifo_row + c * D, (size_t)D * sizeof *d->fifo_row);
        d->wr[c] = q->wr[c];
        if (take) {
            d->fifo_data[c * D + q->wr[c]] = q->shadow[hr * C + c];
            d->fifo_row[c * D + q->wr[c]] = (uint16_t)hr;
            d->wr[c] = (q->wr[c] + 1) % D;
        }
        d->rd[c] = pop ? (q->rd[c] + 1) % D : q->rd[c];
        d->count[c] = q->count[c] + take - pop;
    }
    o->overrun = q->overrun;
    d->overrun = over;
}

void mx_array_tick(mx_array_regs *q, mx_array_regs *d)
{
    const mx_array_regs t = *q;
    *q = *d;
    *d = t;
}
