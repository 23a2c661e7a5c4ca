/*
 * array_model.cpp — C++ cycle model of rtl/mx_array.sv (see header).
 */
#include "array_model.h"

#include <algorithm>
#include <cstring>

#include "systemc/mx_sc_gemm.h"

extern "C" {
#include "arch/mx_cycle.h"
#include "units/mx_requant.h"
}

array_model::array_model(int R, int C, const mx_pe_config &pe, int fifo_d)
    : R_(R), C_(C), L_(pe.lanes), D_(fifo_d), pe_(pe)
{
    reset();
}

void array_model::reset()
{
    astream za;
    za.codes.assign((size_t)L_, 0);
    bstream zb;
    zb.codes.assign((size_t)L_, 0);
    askew_.assign((size_t)R_, {});
    for (int r = 0; r < R_; r++) askew_[(size_t)r].assign((size_t)r, za);
    bskew_.assign((size_t)C_, {});
    for (int c = 0; c < C_; c++) bskew_[(size_t)c].assign((size_t)c, zb);
    apass_.assign((size_t)(R_ * C_), za);
    ain_.assign((size_t)(R_ * C_), za);
    bpass_.assign((size_t)(R_ * C_), zb);
    bin_.assign((size_t)(R_ * C_), zb);
    q_.assign((size_t)(R_ * C_), mx_pe_regs());
    d_.assign((size_t)(R_ * C_), mx_pe_regs());
    for (auto &q : q_) mx_pe_reset(&q);
    shadow_.assign((size_t)(R_ * C_), 0);
    shadow_v_.assign((size_t)(R_ * C_), 0);
    fifo_d_.assign((size_t)C_, std::vector<uint32_t>((size_t)D_, 0));
    fifo_r_.assign((size_t)C_, std::vector<int>((size_t)D_, 0));
    rd_.assign((size_t)C_, 0);
    wr_.assign((size_t)C_, 0);
    count_.assign((size_t)C_, 0);
    pe_out_.assign((size_t)(R_ * C_), mx_pe_out());
    head_row_.assign((size_t)C_, 0);
    head_val_.assign((size_t)C_, 0);
    overrun_ = 0;
    fault_done_ = 0;
}

void array_model::comb(const arr_issue &in, const std::vector<int> &out_ready, arr_outputs &o)
{
    in_ = in;
    ready_ = out_ready;
    for (int r = 0; r < R_; r++)
        for (int c = 0; c < C_; c++) {
            const size_t i = (size_t)(r * C_ + c);
            if (c == 0) {
                if (r == 0) {
                    astream a;
                    a.codes.assign(in.a_codes.begin(), in.a_codes.begin() + L_);
                    a.scale = in.a_scales[0];
                    a.valid = in.row_valid[0];
                    a.first = in.first;
                    a.last = in.last;
                    ain_[i] = a;
                } else {
                    ain_[i] = askew_[(size_t)r].back();
                }
            } else {
                ain_[i] = apass_[i];
            }
            if (r == 0) {
                if (c == 0) {
                    bstream b;
                    b.codes.assign(in.b_codes.begin(), in.b_codes.begin() + L_);
                    b.scale = in.b_scales[0];
                    b.valid = in.col_valid[0];
                    bin_[i] = b;
                } else {
                    bin_[i] = bskew_[(size_t)c].back();
                }
            } else {
                bin_[i] = bpass_[i];
            }
            mx_pe_in pi;
            memset(&pi, 0, sizeof pi);
            pi.in_valid_i = ain_[i].valid && bin_[i].valid;
            for (int l = 0; l < L_; l++) {
                pi.a_codes_i[l] = ain_[i].codes[(size_t)l];
                pi.b_codes_i[l] = bin_[i].codes[(size_t)l];
            }
            pi.a_scale_i = ain_[i].scale;
            pi.b_scale_i = bin_[i].scale;
            pi.first_i = ain_[i].first;
            pi.last_i = ain_[i].last;
            pi.acc_i = 0;
            pi.out_ready_i = 1;
            mx_pe_comb(&pe_, &pi, &q_[i], &d_[i], &pe_out_[i]);
            /* the injected fault: PE (r, c)'s first result, bit 0 flipped at its output port */
            if (r == fault_r_ && c == fault_c_ && !fault_done_ && pe_out_[i].out_valid_o) pe_out_[i].out_o ^= 1u;
        }
    o.out_valid.assign((size_t)C_, 0);
    o.out_row.assign((size_t)C_, 0);
    o.out_data.assign((size_t)C_, 0);
    o.free.assign((size_t)C_, 0);
    o.take.assign((size_t)C_, 0);
    o.pe_done.assign((size_t)(R_ * C_), 0);
    for (size_t i = 0; i < pe_out_.size(); i++) o.pe_done[i] = pe_out_[i].out_valid_o;
    for (int c = 0; c < C_; c++) {
        int hv = 0, hr = 0;
        for (int r = 0; r < R_; r++)
            if (shadow_v_[(size_t)(r * C_ + c)]) { hv = 1; hr = r; break; }
        head_row_[(size_t)c] = hr;
        head_val_[(size_t)c] = shadow_[(size_t)(hr * C_ + c)];
        o.take[(size_t)c] = hv && count_[(size_t)c] < D_;
        o.out_valid[(size_t)c] = count_[(size_t)c] != 0;
        o.out_data[(size_t)c] = fifo_d_[(size_t)c][(size_t)rd_[(size_t)c]];
        o.out_row[(size_t)c] = fifo_r_[(size_t)c][(size_t)rd_[(size_t)c]];
        o.free[(size_t)c] = D_ - count_[(size_t)c];
    }
    o.overrun = overrun_;
    o_ = o;
}

void array_model::tick()
{
    /* skew lines and pass registers */
    for (int r = 1; r < R_; r++) {
        astream a;
        a.codes.assign(in_.a_codes.begin() + r * L_, in_.a_codes.begin() + (r + 1) * L_);
        a.scale = in_.a_scales[(size_t)r];
        a.valid = in_.row_valid[(size_t)r];
        a.first = in_.first;
        a.last = in_.last;
        askew_[(size_t)r].pop_back();
        askew_[(size_t)r].push_front(a);
    }
    for (int c = 1; c < C_; c++) {
        bstream b;
        b.codes.assign(in_.b_codes.begin() + c * L_, in_.b_codes.begin() + (c + 1) * L_);
        b.scale = in_.b_scales[(size_t)c];
        b.valid = in_.col_valid[(size_t)c];
        bskew_[(size_t)c].pop_back();
        bskew_[(size_t)c].push_front(b);
    }
    for (int r = 0; r < R_; r++)
        for (int c = C_ - 1; c >= 0; c--) {
            const size_t i = (size_t)(r * C_ + c);
            if (c > 0) apass_[i] = ain_[i - 1];
            if (r > 0) bpass_[i] = bin_[i - (size_t)C_];
        }
    /* shadows, FIFOs */
    int any_over = 0;
    for (int c = 0; c < C_; c++) {
        const int take = o_.take[(size_t)c], pop = o_.out_valid[(size_t)c] && ready_[(size_t)c];
        for (int r = 0; r < R_; r++) {
            const size_t i = (size_t)(r * C_ + c);
            const int taken = take && head_row_[(size_t)c] == r;
            if (pe_out_[i].out_valid_o) {
                if (shadow_v_[i] && !taken) any_over = 1;
                if (r == fault_r_ && c == fault_c_) fault_done_ = 1;
                shadow_[i] = pe_out_[i].out_o;
                shadow_v_[i] = 1;
            } else if (taken) {
                shadow_v_[i] = 0;
            }
        }
        if (take) {
            fifo_d_[(size_t)c][(size_t)wr_[(size_t)c]] = head_val_[(size_t)c];
            fifo_r_[(size_t)c][(size_t)wr_[(size_t)c]] = head_row_[(size_t)c];
            wr_[(size_t)c] = (wr_[(size_t)c] + 1) % D_;
        }
        if (pop) rd_[(size_t)c] = (rd_[(size_t)c] + 1) % D_;
        count_[(size_t)c] += take - pop;
    }
    if (any_over) overrun_ = 1;
    for (size_t i = 0; i < q_.size(); i++) mx_pe_tick(&q_[i], &d_[i]);
}

/* ---- tile_sram ------------------------------------------------------------ */

void tile_sram::read_a(unsigned addr, std::vector<uint16_t> &out) const
{
    out.assign((size_t)(R * L), 0);
    for (int r = 0; r < R; r++)
        for (int l = 0; l < L; l++) {
            const size_t i = (size_t)addr * (size_t)L + (size_t)l;
            if (i < a[(size_t)r].size()) out[(size_t)(r * L + l)] = a[(size_t)r][i];
        }
}

void tile_sram::read_b(unsigned addr, std::vector<uint16_t> &out) const
{
    out.assign((size_t)(C * L), 0);
    for (int c = 0; c < C; c++)
        for (int l = 0; l < L; l++) {
            const size_t i = (size_t)addr * (size_t)L + (size_t)l;
            if (i < b[(size_t)c].size()) out[(size_t)(c * L + l)] = b[(size_t)c][i];
        }
}

void tile_sram::read_as(unsigned addr, std::vector<uint8_t> &out) const
{
    out.assign((size_t)R, 0);
    for (int r = 0; r < R; r++)
        if (addr < as[(size_t)r].size()) out[(size_t)r] = as[(size_t)r][addr];
}

void tile_sram::read_bs(unsigned addr, std::vector<uint8_t> &out) const
{
    out.assign((size_t)C, 0);
    for (int c = 0; c < C; c++)
        if (addr < bs[(size_t)c].size()) out[(size_t)c] = bs[(size_t)c][addr];
}

tile_cycle_in tile_cycle_in_idle(const tile_desc &d, int R, int C, int L)
{
    tile_cycle_in in;
    in.d = d;
    in.a_rdata.assign((size_t)(R * L), 0);
    in.b_rdata.assign((size_t)(C * L), 0);
    in.as_rdata.assign((size_t)R, 0);
    in.bs_rdata.assign((size_t)C, 0);
    in.blk_ready.assign((size_t)C, 1);
    return in;
}

void tile_sram_respond(const tile_sram &sram, const tile_cycle_out &o, tile_cycle_in &in)
{
    if (o.rd) {
        sram.read_a(o.a_addr, in.a_rdata);
        sram.read_b(o.b_addr, in.b_rdata);
        sram.read_as(o.as_addr, in.as_rdata);
        sram.read_bs(o.bs_addr, in.bs_rdata);
    } else {
        std::fill(in.a_rdata.begin(), in.a_rdata.end(), 0);
        std::fill(in.b_rdata.begin(), in.b_rdata.end(), 0);
        std::fill(in.as_rdata.begin(), in.as_rdata.end(), 0);
        std::fill(in.bs_rdata.begin(), in.bs_rdata.end(), 0);
    }
}

/* ---- array_ctrl_model: twin of rtl/mx_array_ctrl.sv -------------------------- */

static const long long SAT = (1LL << 33) - 1; /* DW + 1 = 33-bit saturating counters */

static mx_pe_config pe_for(int L, int align_width)
{
    mx_pe_config p;
    mx_pe_config_default(MX_PE_MXSF, &p);
    p.lanes = L;
    p.block = L;
    p.align_width = align_width;
    return p;
}

array_ctrl_model::array_ctrl_model(int R, int C, int L, int align_width)
    : R_(R), C_(C), L_(L), pe_(pe_for(L, align_width)), arr_(R, C, pe_, 2 * R + C + 8) /* = FIFO_D of mx_array_ctrl */
{
    reset();
}

void array_ctrl_model::reset()
{
    arr_.reset();
    t_ = nkb_ = nrf_ = ncf_ = rl_last_ = cl_last_ = blocks_left_ = 0;
    fmt_ = fmt_b_ = out_fmt_ = b5_ = scaled_ = rq_tile_ = 0;
    orf_ = ocf_ = 0;
    tile_emit_ = 0;
    sps_ = 0;
    a_base_ = as_base_ = b_base_ = bs_base_ = 0;
    busy_ = done_ = all_issued_ = 0;
    rf_ = cf_ = step_ = q_ = sc_cnt_ = 0;
    a_fb_ = as_fb_ = b_fb_ = bs_fb_ = 0;
    since_start_ = since_last_ = SAT;
    gap_ = lastgap_ = 0;
    inflight_.assign((size_t)C_, 0);
    iss_v_ = iss_first_ = iss_last_ = 0;
    iss_rowv_.assign((size_t)R_, 0);
    iss_colv_.assign((size_t)C_, 0);
    vals_.assign((size_t)C_, std::vector<uint32_t>((size_t)R_, 0));
    full_.assign((size_t)C_, 0);
    crf_.assign((size_t)C_, 0);
    blk_rl_.assign((size_t)C_, 0);
    sync_pe();
}

void array_ctrl_model::sync_pe()
{
    pe_.fmt = (mx_pe_fmt)fmt_;
    pe_.fmt_b = (mx_pe_fmt)fmt_b_;
    pe_.fp5_bias = b5_;
    pe_.block = L_ * (sps_ > 0 ? sps_ : 1);
    arr_.set_pe_config(pe_);
}

void array_ctrl_model::comb(const tile_cycle_in &in, tile_cycle_out &o)
{
    in_ = in;
    /* array inputs: the issue registers and this cycle's SRAM data */
    arr_issue ai;
    ai.row_valid.assign((size_t)R_, 0);
    ai.col_valid.assign((size_t)C_, 0);
    for (int r = 0; r < R_; r++) ai.row_valid[(size_t)r] = iss_rowv_[(size_t)r];
    for (int c = 0; c < C_; c++) ai.col_valid[(size_t)c] = iss_colv_[(size_t)c];
    ai.first = iss_first_;
    ai.last = iss_last_;
    ai.a_codes = in.a_rdata;
    ai.b_codes = in.b_rdata;
    ai.a_scales = scaled_ ? in.as_rdata : std::vector<uint8_t>((size_t)R_, 127);
    ai.b_scales = scaled_ ? in.bs_rdata : std::vector<uint8_t>((size_t)C_, 127);
    arr_ready_.assign((size_t)C_, 0);
    emit_.assign((size_t)C_, 0);
    /* tile mode: the fold being collected leaves when its ocl columns are all full and ready */
    const long long ocl = ocf_ == ncf_ - 1 ? cl_last_ : C_;
    int tile_full = rq_tile_, tile_ready = 1;
    for (int c = 0; c < C_ && c < ocl; c++) {
        tile_full = tile_full && full_[(size_t)c];
        tile_ready = tile_ready && in.blk_ready[(size_t)c];
    }
    tile_emit_ = tile_full && tile_ready;
    for (int c = 0; c < C_; c++) {
        emit_[(size_t)c] = rq_tile_ ? tile_emit_ && c < ocl : full_[(size_t)c] && in.blk_ready[(size_t)c];
        arr_ready_[(size_t)c] = !full_[(size_t)c] || emit_[(size_t)c];
    }
    arr_.comb(ai, arr_ready_, ao_);

    /* sequencer decision */
    rl_ = rf_ == nrf_ - 1 ? rl_last_ : R_;
    cl_ = cf_ == ncf_ - 1 ? cl_last_ : C_;
    const bool at_first = step_ == 0, at_last = step_ == t_ - 1;
    int go = busy_ && !all_issued_;
    if (at_first && gap_ > since_start_) go = 0;
    if (at_last) {
        if (lastgap_ > since_last_) go = 0;
        for (int c = 0; c < C_; c++)
            if (c < cl_ && ao_.free[(size_t)c] + (ao_.out_valid[(size_t)c] && arr_ready_[(size_t)c]) <
                               inflight_[(size_t)c] + rl_)
                go = 0;
    }
    go_ = go;

    o.busy = busy_;
    o.done = done_;
    o.rd = go;
    o.a_addr = a_base_ + a_fb_ + (unsigned)step_; /* 32-bit, as AW */
    o.b_addr = b_base_ + b_fb_ + (unsigned)step_; /* 32-bit, as AW */
    o.as_addr = as_base_ + as_fb_ + (unsigned)q_; /* 32-bit, as AW */
    o.bs_addr = bs_base_ + bs_fb_ + (unsigned)q_; /* 32-bit, as AW */
    o.issue = iss_v_;
    o.overrun = ao_.overrun;
    o.pe_done = ao_.pe_done;
    o.blk_valid.assign((size_t)C_, 0);
    o.vals.assign((size_t)(C_ * R_), 0);
    o.codes.assign((size_t)(C_ * R_), 0);
    o.scales.assign((size_t)C_, 0);
    mx_requant_in rq;
    mx_requant_out rqo;
    memset(&rq, 0, sizeof rq);
    rq.fmt_i = out_fmt_;
    rq.fp5_bias_i = b5_;
    for (int c = 0; c < C_; c++) {
        o.blk_valid[(size_t)c] = rq_tile_ ? tile_full && c < ocl : full_[(size_t)c];
        for (int r = 0; r < R_; r++) {
            const uint32_t v = r < blk_rl_[(size_t)c] ? vals_[(size_t)c][(size_t)r] : 0u;
            o.vals[(size_t)(c * R_ + r)] = v;
            rq.vals_i[r] = v;
        }
        /* the RTL re-quantizes all R lanes (rows >= r are +0, which changes
         * neither amax nor the scale) */
        mx_requant_comb(R_, &rq, &rqo);
        for (int r = 0; r < R_; r++) o.codes[(size_t)(c * R_ + r)] = rqo.codes_o[r];
        o.scales[(size_t)c] = rqo.scale_o;
    }
    if (rq_tile_) {
        /* one re-quantizer over the R x C tile; columns outside the fold are +0 */
        for (int c = 0; c < C_; c++)
            for (int r = 0; r < R_; r++) rq.vals_i[c * R_ + r] = c < ocl ? o.vals[(size_t)(c * R_ + r)] : 0u;
        mx_requant_comb(R_ * C_, &rq, &rqo);
        for (int i = 0; i < R_ * C_; i++) o.codes[(size_t)i] = rqo.codes_o[i];
        std::fill(o.scales.begin(), o.scales.end(), rqo.scale_o);
    }
}

void array_ctrl_model::tick()
{
    const tile_cycle_in &in = in_;
    const bool at_first = step_ == 0, at_last = step_ == t_ - 1;
    const int go = go_;
    /* output stage (uses this cycle's array outputs and registers) */
    int n_pop = 0;
    if (!busy_ && in.start) {
        orf_ = ocf_ = 0;
    } else if (tile_emit_) {
        if (orf_ == nrf_ - 1) { orf_ = 0; ocf_++; }
        else orf_++;
    }
    for (int c = 0; c < C_; c++) {
        const size_t cc = (size_t)c;
        if (emit_[cc]) n_pop++;
        if (!busy_ && in.start) {
            full_[cc] = 0;
            crf_[cc] = 0;
            blk_rl_[cc] = 0;
            std::fill(vals_[cc].begin(), vals_[cc].end(), 0u);
            continue;
        }
        const long long rl_blk = crf_[cc] == nrf_ - 1 ? rl_last_ : R_;
        if (ao_.out_valid[cc] && arr_ready_[cc]) {
            const int row = ao_.out_row[cc];
            vals_[cc][(size_t)row] = ao_.out_data[cc];
            if (row == rl_blk - 1) {
                full_[cc] = 1;
                blk_rl_[cc] = rl_blk;
                crf_[cc] = crf_[cc] == nrf_ - 1 ? 0 : crf_[cc] + 1;
            } else if (emit_[cc]) {
                full_[cc] = 0;
            }
        } else if (emit_[cc]) {
            full_[cc] = 0;
        }
    }
    /* sequencer registers */
    for (int c = 0; c < C_; c++)
        inflight_[(size_t)c] += -ao_.take[(size_t)c] + ((go && at_last && c < cl_) ? (int)rl_ : 0);
    iss_v_ = go;
    iss_first_ = go && at_first;
    iss_last_ = go && at_last;
    for (int r = 0; r < R_; r++) iss_rowv_[(size_t)r] = go && r < rl_;
    for (int c = 0; c < C_; c++) iss_colv_[(size_t)c] = go && c < cl_;
    since_start_ = (go && at_first) ? 1 : std::min(since_start_ + 1, SAT);
    since_last_ = (go && at_last) ? 1 : std::min(since_last_ + 1, SAT);
    if (!busy_) {
        if (in.start) {
            const tile_desc &d = in.d;
            t_ = (d.K + L_ - 1) / L_;
            nkb_ = (t_ + d.sps - 1) / d.sps;
            nrf_ = (d.M + R_ - 1) / R_;
            ncf_ = (d.N + C_ - 1) / C_;
            rl_last_ = d.M - ((d.M - 1) / R_) * R_;
            cl_last_ = d.N - ((d.N - 1) / C_) * C_;
            blocks_left_ = nrf_ * d.N;
            fmt_ = d.fmt;
            fmt_b_ = d.fmt_b;
            out_fmt_ = d.out_fmt;
            b5_ = d.fp5_bias;
            scaled_ = d.scaled;
            rq_tile_ = d.rq_tile;
            sps_ = d.sps;
            a_base_ = d.a_base; as_base_ = d.as_base; b_base_ = d.b_base; bs_base_ = d.bs_base;
            busy_ = 1; done_ = 0; all_issued_ = 0;
            rf_ = cf_ = step_ = q_ = sc_cnt_ = 0;
            a_fb_ = as_fb_ = b_fb_ = bs_fb_ = 0;
            since_start_ = since_last_ = SAT;
            gap_ = lastgap_ = 0;
        }
    } else {
        blocks_left_ -= n_pop;
        if (all_issued_ && blocks_left_ == 0) {
            busy_ = 0;
            done_ = 1;
        }
        if (go) {
            if (at_last) {
                step_ = q_ = sc_cnt_ = 0;
                gap_ = std::max(t_, rl_);
                lastgap_ = rl_;
                if (rf_ == nrf_ - 1) {
                    rf_ = 0; a_fb_ = 0; as_fb_ = 0;
                    if (cf_ == ncf_ - 1) all_issued_ = 1;
                    else {
                        cf_++;
                        b_fb_ += (unsigned)t_;
                        bs_fb_ += (unsigned)nkb_;
                    }
                } else {
                    rf_++;
                    a_fb_ += (unsigned)t_;
                    as_fb_ += (unsigned)nkb_;
                }
            } else {
                step_++;
                if (sc_cnt_ == sps_ - 1) { sc_cnt_ = 0; q_++; }
                else sc_cnt_++;
            }
        }
    }
    arr_.tick();   /* with the PE format of this cycle (the RTL's fmt_q before the edge) */
    sync_pe();
}

/* ---- tile_pack ---------------------------------------------------------------- */

void tile_pack(const mx_sc_job &j, int R, int C, int L, int fp5_bias, int out_fmt, tile_desc &d, tile_sram &s)
{
    const long long t = (j.K + L - 1) / L;
    const long long kps = j.scaled ? mx_sc_k_per_scale(j) : L;
    const long long sps = kps / L, nkb = (t + sps - 1) / sps;
    const long long nrf = (j.M + R - 1) / R, ncf = (j.N + C - 1) / C;
    d = tile_desc();
    d.M = (int)j.M; d.N = (int)j.N; d.K = (int)j.K;
    d.fmt = j.fmt;
    d.fmt_b = j.fmt_b;
    d.fp5_bias = fp5_bias;
    d.scaled = j.scaled;
    d.sps = (int)sps;
    d.out_fmt = out_fmt < 0 ? 0 : out_fmt;
    d.rq_tile = j.rq_tile;
    s.R = R; s.C = C; s.L = L;
    s.a.assign((size_t)R, std::vector<uint16_t>((size_t)(nrf * t * L), 0));
    s.as.assign((size_t)R, std::vector<uint8_t>((size_t)(nrf * nkb), 127));
    s.b.assign((size_t)C, std::vector<uint16_t>((size_t)(ncf * t * L), 0));
    s.bs.assign((size_t)C, std::vector<uint8_t>((size_t)(ncf * nkb), 127));
    std::vector<uint8_t> sc((size_t)((j.K + kps - 1) / kps) + 1, 127);
    for (long long m = 0; m < j.M; m++) {
        std::vector<uint16_t> &bank = s.a[(size_t)(m % R)];
        for (long long k = 0; k < j.K; k++) bank[(size_t)(((m / R) * t) * L + k)] = j.a_codes[(size_t)(m * j.K + k)];
        if (j.scaled) {
            mx_sc_row_scales(j, m, sc.data());
            for (long long qq = 0; qq < nkb; qq++) s.as[(size_t)(m % R)][(size_t)((m / R) * nkb + qq)] = sc[(size_t)qq];
        }
    }
    for (long long n = 0; n < j.N; n++) {
        std::vector<uint16_t> &bank = s.b[(size_t)(n % C)];
        for (long long k = 0; k < j.K; k++) bank[(size_t)(((n / C) * t) * L + k)] = j.b_codes[(size_t)(k * j.N + n)];
        if (j.scaled) {
            mx_sc_col_scales(j, n, sc.data());
            for (long long qq = 0; qq < nkb; qq++) s.bs[(size_t)(n % C)][(size_t)((n / C) * nkb + qq)] = sc[(size_t)qq];
        }
    }
}

long long tile_schedule_cycles(int R, int C, int L, int P, long long M, long long N, long long K)
{
    const long long t = (K + L - 1) / L;
    long long start = 0, end = 0;
    for (long long c0 = 0; c0 < N; c0 += C)
        for (long long r0 = 0; r0 < M; r0 += R) {
            const long long r = std::min<long long>(R, M - r0), c = std::min<long long>(C, N - c0);
            end = std::max(end, start + t + (r - 1) + (c - 1) + (P - 1));
            start += std::max(t, r);
        }
    return end;
}

tile_done_sched tile_done_schedule(int R, int C, int L, int P, long long M, long long N, long long K, int rq_tile)
{
    /* the drain schedule is the cycle engine's (mx_cycle_tile_done) on a
     * config of this array; the Verilated RTL is the independent check */
    mx_arch_config c;
    mx_arch_config_default(&c);
    c.rows = R;
    c.cols = C;
    c.lanes = L;
    c.pe_pipeline_depth = P;
    c.dataflow = MX_DATAFLOW_OS;
    c.fold_overlap = 1;
    c.scalesim_compat = 0;
    c.rqu_tile = rq_tile;
    tile_done_sched o;
    o.lead = 2; /* descriptor latch + synchronous SRAM read */
    o.compute = tile_schedule_cycles(R, C, L, P, M, N, K); /* the fold loop's last PE result */
    o.total = mx_cycle_tile_done(&c, M, N, K);
    o.drain = o.total - o.lead - o.compute;
    return o;
}
