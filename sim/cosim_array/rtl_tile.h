/*
 * rtl_tile.h — drives the Verilated rtl/mx_array_ctrl.sv (Vmx_array_ctrl,
 * compiled for ARR_R x ARR_C, ARR_L lanes) from a tile_cycle_in and reads a
 * tile_cycle_out back, for any array size: ports wider than 64 bits are
 * VlWide, narrower ones plain integers; the bit helpers handle both.
 * Shared by the co-simulation harness and the SystemC RTL back-end.
 */
#ifndef MX_RTL_TILE_H
#define MX_RTL_TILE_H

#include <cstdint>
#include <type_traits>

#include "Vmx_array_ctrl.h"
#include "verilated.h"
#include "array_model.h"

namespace rtl_tile {

template <typename T> inline uint32_t getb(const T &v, unsigned lsb, unsigned w)
{
    static_assert(std::is_integral<T>::value, "integral port");
    return lsb >= 64 ? 0u : (uint32_t)(((uint64_t)v >> lsb) & ((1ull << w) - 1));
}
template <std::size_t N> inline uint32_t getb(const VlWide<N> &v, unsigned lsb, unsigned w)
{
    const unsigned wi = lsb / 32, sh = lsb % 32;
    uint64_t x = v[wi];
    if (sh && wi + 1 < N) x |= (uint64_t)v[wi + 1] << 32;
    return (uint32_t)((x >> sh) & ((1ull << w) - 1));
}
template <typename T> inline void clear(T &v) { v = 0; }
template <std::size_t N> inline void clear(VlWide<N> &v) { for (std::size_t i = 0; i < N; i++) v[i] = 0; }
template <typename T> inline void orb(T &v, unsigned lsb, uint32_t x) { v = (T)(v | ((T)x << lsb)); }
template <std::size_t N> inline void orb(VlWide<N> &v, unsigned lsb, uint32_t x)
{
    const unsigned wi = lsb / 32, sh = lsb % 32;
    v[wi] |= x << sh;
    if (sh && wi + 1 < N) v[wi + 1] |= (uint32_t)((uint64_t)x >> (32 - sh));
}

/* Inputs of one cycle (clock low). */
inline void drive(Vmx_array_ctrl *t, const tile_cycle_in &in)
{
    t->start_i = (uint8_t)in.start;
    t->m_i = (uint32_t)in.d.M;
    t->n_i = (uint32_t)in.d.N;
    t->k_i = (uint32_t)in.d.K;
    t->fmt_i = (uint8_t)in.d.fmt;
    t->fmt_b_i = (uint8_t)in.d.fmt_b;
    t->fp5_bias_i = (uint8_t)in.d.fp5_bias;
    t->scaled_i = (uint8_t)in.d.scaled;
    t->sps_i = (uint8_t)in.d.sps;
    t->out_fmt_i = (uint8_t)in.d.out_fmt;
    t->rq_tile_i = (uint8_t)in.d.rq_tile;
    t->a_base_i = (uint32_t)in.d.a_base;
    t->as_base_i = (uint32_t)in.d.as_base;
    t->b_base_i = (uint32_t)in.d.b_base;
    t->bs_base_i = (uint32_t)in.d.bs_base;
    clear(t->a_rdata_i);
    clear(t->b_rdata_i);
    clear(t->as_rdata_i);
    clear(t->bs_rdata_i);
    clear(t->blk_ready_i);
    for (int i = 0; i < ARR_R * ARR_L; i++) orb(t->a_rdata_i, 16u * (unsigned)i, in.a_rdata[(size_t)i]);
    for (int i = 0; i < ARR_C * ARR_L; i++) orb(t->b_rdata_i, 16u * (unsigned)i, in.b_rdata[(size_t)i]);
    for (int r = 0; r < ARR_R; r++) orb(t->as_rdata_i, 8u * (unsigned)r, in.as_rdata[(size_t)r]);
    for (int c = 0; c < ARR_C; c++) orb(t->bs_rdata_i, 8u * (unsigned)c, in.bs_rdata[(size_t)c]);
    for (int c = 0; c < ARR_C; c++) orb(t->blk_ready_i, (unsigned)c, (uint32_t)(in.blk_ready[(size_t)c] & 1));
}

/* Outputs of the current cycle (after the clock-low eval). */
inline void read(const Vmx_array_ctrl *t, tile_cycle_out &o)
{
    o.busy = t->busy_o;
    o.done = t->done_o;
    o.rd = t->rd_o;
    o.issue = t->issue_o;
    o.overrun = t->overrun_o;
    o.a_addr = t->a_addr_o;
    o.as_addr = t->as_addr_o;
    o.b_addr = t->b_addr_o;
    o.bs_addr = t->bs_addr_o;
    o.pe_done.resize((size_t)(ARR_R * ARR_C));
    for (int i = 0; i < ARR_R * ARR_C; i++) o.pe_done[(size_t)i] = (int)getb(t->pe_done_o, (unsigned)i, 1);
    o.blk_valid.resize((size_t)ARR_C);
    o.vals.resize((size_t)(ARR_C * ARR_R));
    o.codes.resize((size_t)(ARR_C * ARR_R));
    o.scales.resize((size_t)(ARR_C * ARR_S));
    for (int c = 0; c < ARR_C; c++) {
        o.blk_valid[(size_t)c] = (int)getb(t->blk_valid_o, (unsigned)c, 1);
        for (int i = 0; i < ARR_S; i++)
            o.scales[(size_t)(c * ARR_S + i)] = (uint8_t)getb(t->blk_scales_o, 8u * (unsigned)(c * ARR_S + i), 8);
        for (int r = 0; r < ARR_R; r++) {
            const unsigned i = (unsigned)(c * ARR_R + r);
            o.vals[i] = getb(t->blk_vals_o, 32u * i, 32);
            o.codes[i] = (uint8_t)getb(t->blk_codes_o, 8u * i, 8);
        }
    }
}

} // namespace rtl_tile

#endif
