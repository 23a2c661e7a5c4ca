/*
 * array_model.h — C++ cycle model of rtl/mx_array.sv (skew, PE grid built
 * from the C PE model mx_pe_comb/mx_pe_tick, shadows, column drain and
 * FIFOs).  Same register-level structure as the RTL; comb() computes the
 * outputs of the current cycle from inputs and registers, tick() the edge.
 */
#ifndef MX_ARRAY_MODEL_H
#define MX_ARRAY_MODEL_H

#include <cstdint>
#include <deque>
#include <vector>

extern "C" {
#include "units/mx_pe.h"
}

struct arr_issue {            /* one cycle at the issue port */
    std::vector<int> row_valid, col_valid;
    int first = 0, last = 0;
    std::vector<uint16_t> a_codes; /* R x L */
    std::vector<uint8_t> a_scales; /* R */
    std::vector<uint16_t> b_codes; /* C x L */
    std::vector<uint8_t> b_scales; /* C */
};

struct arr_outputs {
    std::vector<int> out_valid, out_row, free, take;
    std::vector<uint32_t> out_data;
    std::vector<int> pe_done;    /* R*C */
    int overrun = 0;
};

class array_model {
public:
    array_model(int R, int C, const mx_pe_config &pe, int fifo_d);
    void reset();
    /* Outputs of this cycle (before the edge) given the inputs. */
    void comb(const arr_issue &in, const std::vector<int> &out_ready, arr_outputs &o);
    /* Clock edge with the same inputs. */
    void tick();
    /* Fault injection: flip bit 0 of PE (r, c)'s result when it is caught. */
    void inject_fault(int r, int c) { fault_r_ = r; fault_c_ = c; }

private:
    struct astream { std::vector<uint16_t> codes; uint8_t scale = 0; int valid = 0, first = 0, last = 0; };
    struct bstream { std::vector<uint16_t> codes; uint8_t scale = 0; int valid = 0; };
    int R_, C_, L_, D_;
    mx_pe_config pe_;
    std::vector<std::deque<astream>> askew_;
    std::vector<std::deque<bstream>> bskew_;
    std::vector<astream> apass_, ain_;   /* R x C */
    std::vector<bstream> bpass_, bin_;
    std::vector<mx_pe_regs> q_, d_;
    std::vector<uint32_t> shadow_;
    std::vector<int> shadow_v_;
    std::vector<std::vector<uint32_t>> fifo_d_;
    std::vector<std::vector<int>> fifo_r_;
    std::vector<int> rd_, wr_, count_;
    int overrun_ = 0;
    int fault_r_ = -1, fault_c_ = -1, fault_done_ = 0;
    /* latched by comb for tick */
    arr_issue in_;
    std::vector<int> ready_;
    arr_outputs o_;
    std::vector<mx_pe_out> pe_out_;
    std::vector<int> head_row_;
    std::vector<uint32_t> head_val_;
};

#endif
