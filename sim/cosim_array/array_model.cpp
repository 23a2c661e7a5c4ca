/*
 * array_model.cpp — C++ cycle model of rtl/mx_array.sv (see header).
 */
#include "array_model.h"

#include <cstring>

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
                uint32_t v = pe_out_[i].out_o;
                if (r == fault_r_ && c == fault_c_ && !fault_done_) { v ^= 1u; fault_done_ = 1; }
                shadow_[i] = v;
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
