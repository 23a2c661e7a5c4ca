/*
 * mx_array_ctrl.c — register model of rtl/mx_array_ctrl.sv (see mx_array.h):
 * descriptor, fold sequencer, credits, SRAM addresses, output stage.
 */
#include "array/mx_array.h"

#include <stdlib.h>
#include <string.h>

#include "units/mx_requant.h"
#include "util/mx_util.h"

/* DW + 1 = 33-bit saturating cycle counters of the sequencer */
#define SINCE_MAX ((1LL << 33) - 1)

int mx_array_ctrl_regs_alloc(const mx_array_config *a, mx_array_ctrl_regs *q)
{
    memset(q, 0, sizeof *q);
    const size_t R = (size_t)a->rows, C = (size_t)a->cols;
    q->inflight = calloc(C, sizeof *q->inflight);
    q->iss_rowv = calloc(R, sizeof *q->iss_rowv);
    q->iss_colv = calloc(C, sizeof *q->iss_colv);
    q->vals = calloc(C * R, sizeof *q->vals);
    q->full = calloc(C, sizeof *q->full);
    q->crf = calloc(C, sizeof *q->crf);
    q->blk_rl = calloc(C, sizeof *q->blk_rl);
    if (!q->inflight || !q->iss_rowv || !q->iss_colv || !q->vals || !q->full || !q->crf || !q->blk_rl ||
        mx_array_regs_alloc(a, &q->arr) != 0) {
        mx_array_ctrl_regs_free(q);
        return -1;
    }
    mx_array_ctrl_reset(a, q);
    return 0;
}

void mx_array_ctrl_regs_free(mx_array_ctrl_regs *q)
{
    free(q->inflight); free(q->iss_rowv); free(q->iss_colv); free(q->vals); free(q->full); free(q->crf);
    free(q->blk_rl);
    mx_array_regs_free(&q->arr);
    memset(q, 0, sizeof *q);
}

void mx_array_ctrl_reset(const mx_array_config *a, mx_array_ctrl_regs *q)
{
    const size_t R = (size_t)a->rows, C = (size_t)a->cols;
    mx_array_ctrl_regs keep = *q; /* the arrays */
    memset(q, 0, sizeof *q);
    q->inflight = keep.inflight; q->iss_rowv = keep.iss_rowv; q->iss_colv = keep.iss_colv; q->vals = keep.vals;
    q->full = keep.full; q->crf = keep.crf; q->blk_rl = keep.blk_rl; q->arr = keep.arr;
    memset(q->inflight, 0, C * sizeof *q->inflight);
    memset(q->iss_rowv, 0, R * sizeof *q->iss_rowv);
    memset(q->iss_colv, 0, C * sizeof *q->iss_colv);
    memset(q->vals, 0, C * R * sizeof *q->vals);
    memset(q->full, 0, C * sizeof *q->full);
    memset(q->crf, 0, C * sizeof *q->crf);
    memset(q->blk_rl, 0, C * sizeof *q->blk_rl);
    q->since_start = q->since_last = SINCE_MAX;
    mx_array_reset(a, &q->arr);
}

int mx_array_ctrl_out_alloc(const mx_array_config *a, mx_array_ctrl_out *o)
{
    memset(o, 0, sizeof *o);
    const size_t R = (size_t)a->rows, C = (size_t)a->cols;
    o->blk_valid = calloc(C, sizeof *o->blk_valid);
    o->vals = calloc(C * R, sizeof *o->vals);
    o->codes = calloc(C * R, sizeof *o->codes);
    o->scales = calloc(C * (size_t)mx_array_scales_per_col(a), sizeof *o->scales);
    o->arr_a_scales = calloc(R, sizeof *o->arr_a_scales);
    o->arr_b_scales = calloc(C, sizeof *o->arr_b_scales);
    o->arr_ready = calloc(C, sizeof *o->arr_ready);
    o->emit = calloc(C, sizeof *o->emit);
    if (!o->blk_valid || !o->vals || !o->codes || !o->scales || !o->arr_a_scales || !o->arr_b_scales ||
        !o->arr_ready || !o->emit || mx_array_out_alloc(a, &o->arr) != 0) {
        mx_array_ctrl_out_free(o);
        return -1;
    }
    return 0;
}

void mx_array_ctrl_out_free(mx_array_ctrl_out *o)
{
    free(o->blk_valid); free(o->vals); free(o->codes); free(o->scales);
    free(o->arr_a_scales); free(o->arr_b_scales); free(o->arr_ready); free(o->emit);
    mx_array_out_free(&o->arr);
    memset(o, 0, sizeof *o);
}

/* d = q: scalars and the contents of every array (the array's registers are
 * written by mx_array_comb itself) */
static void copy_regs(const mx_array_config *a, const mx_array_ctrl_regs *q, mx_array_ctrl_regs *d)
{
    const size_t R = (size_t)a->rows, C = (size_t)a->cols;
    mx_array_ctrl_regs keep = *d;
    *d = *q;
    d->inflight = keep.inflight; d->iss_rowv = keep.iss_rowv; d->iss_colv = keep.iss_colv; d->vals = keep.vals;
    d->full = keep.full; d->crf = keep.crf; d->blk_rl = keep.blk_rl; d->arr = keep.arr;
    memcpy(d->inflight, q->inflight, C * sizeof *d->inflight);
    memcpy(d->vals, q->vals, C * R * sizeof *d->vals);
    memcpy(d->full, q->full, C * sizeof *d->full);
    memcpy(d->crf, q->crf, C * sizeof *d->crf);
    memcpy(d->blk_rl, q->blk_rl, C * sizeof *d->blk_rl);
}

/* Codes and scales of this cycle's output blocks: column mode one
 * re-quantizer per column (R values, rows >= r are +0, which changes neither
 * amax nor the scale); tile mode one per TR x TC sub-block of the fold,
 * columns outside the fold +0. */
static void requant_blocks(const mx_array_config *a, const mx_array_ctrl_regs *q, long long ocl, mx_array_ctrl_out *o)
{
    const int R = a->rows, C = a->cols, TR = a->tile_rows, TC = a->tile_cols, S = mx_array_scales_per_col(a);
    mx_requant_in rq;
    mx_requant_out rqo;
    rq.fmt_i = q->out_fmt;
    rq.fp5_bias_i = q->b5;
    if (!q->rq_tile) {
        for (int c = 0; c < C; c++) {
            memcpy(rq.vals_i, o->vals + c * R, (size_t)R * sizeof *rq.vals_i);
            mx_requant_comb(R, &rq, &rqo);
            memcpy(o->codes + c * R, rqo.codes_o, (size_t)R);
            for (int i = 0; i < S; i++) o->scales[c * S + i] = rqo.scale_o;
        }
        return;
    }
    for (int c0 = 0; c0 < C; c0 += TC)
        for (int i = 0; i < S; i++) {
            for (int k = 0; k < TC; k++)
                for (int r = 0; r < TR; r++)
                    rq.vals_i[k * TR + r] = c0 + k < ocl ? o->vals[(c0 + k) * R + i * TR + r] : 0u;
            mx_requant_comb(TR * TC, &rq, &rqo);
            for (int k = 0; k < TC; k++) {
                memcpy(o->codes + (c0 + k) * R + i * TR, rqo.codes_o + k * TR, (size_t)TR);
                o->scales[(c0 + k) * S + i] = rqo.scale_o;
            }
        }
}

void mx_array_ctrl_comb(const mx_array_config *a, const mx_array_ctrl_in *in, const mx_array_ctrl_regs *q,
                        mx_array_ctrl_regs *d, mx_array_ctrl_out *o)
{
    const int R = a->rows, C = a->cols, L = a->lanes;
    copy_regs(a, q, d);
    /* the array: the issue registers and this cycle's SRAM data, the PEs in the descriptor's formats */
    mx_pe_config pe;
    mx_pe_config_default(MX_PE_MXSF, &pe);
    pe.fmt = (mx_pe_fmt)q->fmt;
    pe.fmt_b = (mx_pe_fmt)q->fmt_b;
    pe.fp5_bias = q->b5;
    pe.lanes = L;
    pe.block = L * (q->sps > 0 ? q->sps : 1);
    pe.align_width = a->align_width;
    for (int r = 0; r < R; r++) o->arr_a_scales[r] = q->scaled ? in->as_rdata[r] : 127;
    for (int c = 0; c < C; c++) o->arr_b_scales[c] = q->scaled ? in->bs_rdata[c] : 127;
    /* output stage: tile mode moves the fold being collected when its ocl columns are all full and ready */
    const long long ocl = q->ocf == q->ncf - 1 ? q->cl_last : C;
    int tile_full = q->rq_tile, tile_ready = 1;
    for (int c = 0; c < C && c < ocl; c++) {
        tile_full = tile_full && q->full[c];
        tile_ready = tile_ready && in->blk_ready[c];
    }
    const int tile_emit = tile_full && tile_ready;
    for (int c = 0; c < C; c++) {
        o->emit[c] = q->rq_tile ? tile_emit && c < ocl : q->full[c] && in->blk_ready[c];
        o->arr_ready[c] = !q->full[c] || o->emit[c];
    }
    const mx_array_in ai = {q->iss_rowv, q->iss_colv, q->iss_first, q->iss_last, in->a_rdata, o->arr_a_scales,
                            in->b_rdata, o->arr_b_scales, o->arr_ready};
    mx_array_comb(a, &pe, &ai, &q->arr, &d->arr, &o->arr);
    const mx_array_out *ao = &o->arr;

    /* sequencer decision: a fold's first K-step max(t, r_prev) after the previous
     * fold's first, its last r_prev after the previous last and with FIFO credits */
    const long long rl = q->rf == q->nrf - 1 ? q->rl_last : R, cl = q->cf == q->ncf - 1 ? q->cl_last : C;
    const int at_first = q->step == 0, at_last = q->step == q->t - 1;
    int go = q->busy && !q->all_issued;
    if (at_first && q->gap > q->since_start) go = 0;
    if (at_last) {
        if (q->lastgap > q->since_last) go = 0;
        for (int c = 0; c < C && c < cl; c++)
            if (ao->free[c] + (ao->out_valid[c] && o->arr_ready[c]) < q->inflight[c] + rl) go = 0;
    }
    o->busy = q->busy;
    o->done = q->done;
    o->rd = go;
    o->a_addr = q->a_base + q->a_fb + (uint32_t)q->step; /* 32-bit, as AW */
    o->b_addr = q->b_base + q->b_fb + (uint32_t)q->step;
    o->as_addr = q->as_base + q->as_fb + (uint32_t)q->q;
    o->bs_addr = q->bs_base + q->bs_fb + (uint32_t)q->q;
    o->issue = q->iss_v;
    o->overrun = ao->overrun;
    for (int c = 0; c < C; c++) {
        o->blk_valid[c] = q->rq_tile ? tile_full && c < ocl : q->full[c];
        for (int r = 0; r < R; r++) o->vals[c * R + r] = r < q->blk_rl[c] ? q->vals[c * R + r] : 0u;
    }
    requant_blocks(a, q, ocl, o);

    /* ---- next state ---- */
    const int starting = !q->busy && in->start;
    int n_pop = 0;
    if (starting) d->orf = d->ocf = 0;
    else if (tile_emit) {
        if (q->orf == q->nrf - 1) { d->orf = 0; d->ocf = q->ocf + 1; }
        else d->orf = q->orf + 1;
    }
    for (int c = 0; c < C; c++) {
        n_pop += o->emit[c];
        if (starting) {
            d->full[c] = 0;
            d->crf[c] = 0;
            d->blk_rl[c] = 0;
            memset(d->vals + c * R, 0, (size_t)R * sizeof *d->vals);
            continue;
        }
        const long long rl_blk = q->crf[c] == q->nrf - 1 ? q->rl_last : R;
        if (ao->out_valid[c] && o->arr_ready[c]) {
            const int row = ao->out_row[c];
            d->vals[c * R + row] = ao->out_data[c];
            if (row == rl_blk - 1) {
                d->full[c] = 1;
                d->blk_rl[c] = rl_blk;
                d->crf[c] = q->crf[c] == q->nrf - 1 ? 0 : q->crf[c] + 1;
            } else if (o->emit[c]) {
                d->full[c] = 0;
            }
        } else if (o->emit[c]) {
            d->full[c] = 0;
        }
    }
    for (int c = 0; c < C; c++)
        d->inflight[c] = q->inflight[c] - ao->take[c] + ((go && at_last && c < cl) ? rl : 0);
    d->iss_v = go;
    d->iss_first = go && at_first;
    d->iss_last = go && at_last;
    for (int r = 0; r < R; r++) d->iss_rowv[r] = go && r < rl;
    for (int c = 0; c < C; c++) d->iss_colv[c] = go && c < cl;
    d->since_start = (go && at_first) ? 1 : mx_llmin(q->since_start + 1, SINCE_MAX);
    d->since_last = (go && at_last) ? 1 : mx_llmin(q->since_last + 1, SINCE_MAX);
    if (!q->busy) {
        if (in->start) {
            const mx_array_desc *ds = &in->desc;
            d->t = mx_cdiv(ds->K, L);
            d->nkb = mx_cdiv(d->t, ds->sps);
            d->nrf = mx_cdiv(ds->M, R);
            d->ncf = mx_cdiv(ds->N, C);
            d->rl_last = ds->M - ((ds->M - 1) / R) * R;
            d->cl_last = ds->N - ((ds->N - 1) / C) * C;
            d->blocks_left = d->nrf * ds->N;
            d->fmt = ds->fmt;
            d->fmt_b = ds->fmt_b;
            d->out_fmt = ds->out_fmt;
            d->b5 = ds->fp5_bias;
            d->scaled = ds->scaled;
            d->rq_tile = ds->rq_tile;
            d->sps = ds->sps;
            d->a_base = ds->a_base; d->as_base = ds->as_base; d->b_base = ds->b_base; d->bs_base = ds->bs_base;
            d->busy = 1; d->done = 0; d->all_issued = 0;
            d->rf = d->cf = d->step = d->q = d->sc_cnt = 0;
            d->a_fb = d->as_fb = d->b_fb = d->bs_fb = 0;
            d->since_start = d->since_last = SINCE_MAX;
            d->gap = d->lastgap = 0;
        }
    } else {
        d->blocks_left = q->blocks_left - n_pop;
        if (q->all_issued && d->blocks_left == 0) {
            d->busy = 0;
            d->done = 1;
        }
        if (go) {
            if (at_last) {
                d->step = d->q = d->sc_cnt = 0;
                d->gap = mx_llmax(q->t, rl);
                d->lastgap = rl;
                if (q->rf == q->nrf - 1) {
                    d->rf = 0; d->a_fb = 0; d->as_fb = 0;
                    if (q->cf == q->ncf - 1) d->all_issued = 1;
                    else {
                        d->cf = q->cf + 1;
                        d->b_fb = q->b_fb + (uint32_t)q->t;
                        d->bs_fb = q->bs_fb + (uint32_t)q->nkb;
                    }
                } else {
                    d->rf = q->rf + 1;
                    d->a_fb = q->a_fb + (uint32_t)q->t;
                    d->as_fb = q->as_fb + (uint32_t)q->nkb;
                }
            } else {
                d->step = q->step + 1;
                if (q->sc_cnt == q->sps - 1) { d->sc_cnt = 0; d->q = q->q + 1; }
                else d->sc_cnt = q->sc_cnt + 1;
            }
        }
    }
}

void mx_array_ctrl_tick(mx_array_ctrl_regs *q, mx_array_ctrl_regs *d)
{
    const mx_array_ctrl_regs t = *q;
    *q = *d;
    *d = t;
}
