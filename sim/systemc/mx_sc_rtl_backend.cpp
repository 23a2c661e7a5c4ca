/*
 * mx_sc_rtl_backend.cpp — the Verilated RTL back-end of the SystemC
 * accelerator: rtl/mx_array_ctrl.sv (controller + mx_array + re-quantizing
 * output stage) Verilated with `verilator --sc` (Vmx_array_ctrl_sc, an
 * sc_module with sc_in/sc_out ports), instantiated inside mx_sc_rtl_array,
 * which binds every port to an sc_signal, clk_i included.
 *
 * run() (called from the accelerator's worker thread) packs the job into the
 * banked operand SRAM image (tile_pack), drives the controller's descriptor
 * with a start pulse and toggles the clock signal, one accelerator period per
 * cycle, until the job is done (no clock while idle, so idle simulated time
 * costs nothing).  On every rising clock edge an SC_METHOD of
 * mx_sc_rtl_array reads the RTL's outputs of the ending cycle (SRAM read
 * addresses, output blocks, which it places into the output matrix) and
 * writes the inputs of the next (the synchronous SRAM's read data, blk_ready),
 * until the controller reports done.  The GEMM runs as one tile on the array
 * (all of K), so the values are the RTL's; simulated time advances one clock
 * period per RTL cycle.
 *
 * Cycles: the RTL has no DRAM or buffer model, so the counters (CYCLES) are
 * the cycle engine's (mx_sc_timing, as the C back-end); the RTL's own clock
 * is kept for simulated time (one period per RTL cycle inside run(), and the
 * accelerator raises the interrupt no earlier than its end), and the RTL vouches for
 * their compute part: the GEMM's measured compute cycles (first K-step into
 * the array to the last PE result) must equal the fold schedule
 * (mx_tile_compute_cycles), else the back-end
 * reports an error.  (That every buffer-tile shape of the arch model's tiling
 * takes mx_tile_compute_cycles on the RTL is the array co-simulation's
 * check: make cosim-array, 100-shape sweep.)  Built for ARR_R x ARR_C,
 * ARR_L lanes (mk/systemc.mk: 4x4, L = 4).
 */
#include <systemc>

#include <deque>
#include <memory>
#include <type_traits>

#include "Vmx_array_ctrl_sc.h"
#include "array_model.h"
#include "mx_sc_accel.h"

using namespace sc_core;

namespace {

/* ---- values of Verilated SystemC ports as little-endian 32-bit words ----
 * verilator --sc types a port by its width: 1 bit bool, 2..32 uint32_t,
 * 33..64 uint64_t, wider sc_bv<W>. */
using words = std::vector<uint32_t>;
inline void from_words(const words &w, bool &v) { v = !w.empty() && (w[0] & 1u); }
inline void from_words(const words &w, uint32_t &v) { v = w.empty() ? 0u : w[0]; }
inline void from_words(const words &w, uint64_t &v)
{
    v = (w.empty() ? 0u : w[0]) | (uint64_t)(w.size() > 1 ? w[1] : 0u) << 32;
}
template <int W> inline void from_words(const words &w, sc_dt::sc_bv<W> &v)
{
    for (int i = 0; i < (W + 31) / 32; i++) v.set_word(i, (size_t)i < w.size() ? w[(size_t)i] : 0u);
}
inline void to_words(bool v, words &w) { w.assign(1, v ? 1u : 0u); }
inline void to_words(uint32_t v, words &w) { w.assign(1, v); }
inline void to_words(uint64_t v, words &w) { w = {(uint32_t)v, (uint32_t)(v >> 32)}; }
template <int W> inline void to_words(const sc_dt::sc_bv<W> &v, words &w)
{
    w.resize((W + 31) / 32);
    for (int i = 0; i < (W + 31) / 32; i++) w[(size_t)i] = (uint32_t)v.get_word(i);
}
/* the width-w field at bit lsb */
inline uint32_t field(const words &w, unsigned lsb, unsigned width)
{
    const size_t wi = lsb / 32, sh = lsb % 32;
    uint64_t x = wi < w.size() ? w[wi] : 0u;
    if (sh && wi + 1 < w.size()) x |= (uint64_t)w[wi + 1] << 32;
    return (uint32_t)((x >> sh) & ((1ull << width) - 1));
}
inline void put(words &w, unsigned lsb, unsigned width, uint32_t x)
{
    const size_t wi = lsb / 32, sh = lsb % 32;
    if (w.size() < (lsb + width + 31) / 32) w.resize((lsb + width + 31) / 32, 0u);
    const uint64_t m = (uint64_t)(width < 32 ? (1u << width) - 1 : 0xFFFFFFFFu);
    w[wi] |= (uint32_t)(((uint64_t)x & m) << sh);
    if (sh + width > 32) w[wi + 1] |= (uint32_t)(((uint64_t)x & m) >> (32 - sh));
}
/* Inputs are written by the caller's thread (the start pulse) and by the
 * clock method (every later cycle), never in the same delta. */
template <class T> using in_signal = sc_signal<T, SC_MANY_WRITERS>;

template <class T, sc_writer_policy P> inline void write_words(sc_signal<T, P> &s, const words &w)
{
    T v;
    from_words(w, v);
    s.write(v);
}
template <class T> inline words read_words(const sc_signal<T> &s)
{
    words w;
    to_words(s.read(), w);
    return w;
}
template <class T, sc_writer_policy P> inline void write_u(sc_signal<T, P> &s, uint64_t x) { write_words(s, words{(uint32_t)x, (uint32_t)(x >> 32)}); }

template <class P> using port_data_t = typename std::remove_reference<P>::type::data_type;

/* The ports of rtl/mx_array_ctrl.sv besides clk_i. */
#define MX_CTRL_INPUTS(X)                                                                                        \
    X(rst_ni) X(start_i) X(m_i) X(n_i) X(k_i) X(fmt_i) X(fmt_b_i) X(fp5_bias_i) X(scaled_i) X(sps_i) X(out_fmt_i) X(rq_tile_i)           \
    X(a_base_i) X(as_base_i) X(b_base_i) X(bs_base_i) X(a_rdata_i) X(as_rdata_i) X(b_rdata_i) X(bs_rdata_i)     \
    X(blk_ready_i)
#define MX_CTRL_OUTPUTS(X)                                                                                       \
    X(busy_o) X(done_o) X(rd_o) X(a_addr_o) X(as_addr_o) X(b_addr_o) X(bs_addr_o) X(blk_valid_o)               \
    X(blk_vals_o) X(blk_codes_o) X(blk_scales_o) X(issue_o) X(pe_done_o) X(overrun_o)

/* One GEMM on the RTL array: the job's SRAM image and descriptor, and the
 * bookkeeping of the RTL's outputs cycle by cycle. */
struct rtl_run {
    tile_sram sram;
    tile_cycle_in in;
    long long M = 0, N = 0, cyc = 0, first_issue = -1, last_pe_done = -1;
    std::vector<std::deque<std::pair<long long, long long>>> colq; /* per column: (r0, c0) of its next block */
    std::vector<uint32_t> *out = nullptr;
    std::vector<uint8_t> *codes = nullptr, *scales = nullptr; /* the output stage's, when wanted */
    const mx_sc_job *job = nullptr;
    bool finished = false;
    std::string err;

    void begin(const mx_arch_config &cfg, const tile_desc &d, std::vector<uint32_t> *outp)
    {
        M = d.M;
        N = d.N;
        out = outp;
        if (out) out->assign((size_t)(M * N), 0);
        in = tile_cycle_in_idle(d, ARR_R, ARR_C, ARR_L);
        in.start = 1;
        colq.assign(ARR_C, {});
        for (long long f = 0, nf = mx_fold_count(&cfg, M, N, d.K); f < nf; f++) { /* the fold schedule's order */
            mx_fold fo;
            mx_fold_at(&cfg, M, N, d.K, f, &fo);
            for (int c = 0; c < fo.cols; c++) colq[(size_t)c].push_back({fo.r0, fo.c0});
        }
    }

    /* The outputs of RTL cycle `cyc` (inputs `in`); sets finished. */
    void observe(const tile_cycle_out &o)
    {
        if (cyc > 0 && o.done && !o.busy) { finished = true; return; }
        if (o.overrun) { err = "RTL shadow overrun"; finished = true; return; }
        if (o.issue && first_issue < 0) first_issue = cyc;
        for (int i = 0; i < ARR_R * ARR_C; i++) if (o.pe_done[(size_t)i]) last_pe_done = cyc;
        for (int c = 0; c < ARR_C; c++) {
            if (!o.blk_valid[(size_t)c]) continue;
            if (colq[(size_t)c].empty()) { err = "RTL emitted an unexpected output block"; finished = true; return; }
            const long long r0 = colq[(size_t)c].front().first, n = colq[(size_t)c].front().second + c;
            colq[(size_t)c].pop_front();
            for (long long r = 0; r < ARR_R && r0 + r < M; r++) {
                if (out) (*out)[(size_t)((r0 + r) * N + n)] = o.vals[(size_t)(c * ARR_R + r)];
                if (codes) (*codes)[(size_t)((r0 + r) * N + n)] = o.codes[(size_t)(c * ARR_R + r)];
            }
            for (int i = 0; i < ARR_S && scales && r0 + i * ARR_TR < M; i++) /* tile row i of the column */
                (*scales)[mx_sc_out_scale_index(ARR_R, ARR_C, *job, r0 + i * ARR_TR, n)] = o.scales[(size_t)(c * ARR_S + i)];
        }
        if (++cyc > 1000000000LL) { err = "RTL did not finish (deadlock)"; finished = true; }
    }

    long long compute() const { return last_pe_done - first_issue; }
};

/* The Verilated controller + array, its port signals and clocking. */
/* The clock is generated by run() itself, one period per RTL cycle, and only
 * while a job runs: a free-running sc_clock would have the Verilated model
 * evaluate every edge of the idle time too (the tops simulate in 1 ms slices,
 * 10^6 cycles at 1 GHz). */
class mx_sc_rtl_array : public sc_module {
public:
    SC_HAS_PROCESS(mx_sc_rtl_array);
    mx_sc_rtl_array(sc_module_name nm, const sc_time &period)
        : sc_module(nm), clk_("clk"), half_(period / 2.0), top_("mx_array_ctrl")
    {
        top_.clk_i(clk_);
#define MX_BIND(p) top_.p(p##_);
        MX_CTRL_INPUTS(MX_BIND)
        MX_CTRL_OUTPUTS(MX_BIND)
#undef MX_BIND
        rst_ni_.write(false); /* held in reset for the first two edges */
        SC_METHOD(on_clock);
        sensitive << clk_.posedge_event();
        dont_initialize();
    }

    /* Runs a job on the RTL, clocking it from the calling thread (the
     * accelerator's worker); returns when the controller is done. */
    void run(rtl_run &r)
    {
        if (!out_of_reset_) {
            for (int k = 0; k < 2; k++) cycle();
            rst_ni_.write(true);
            out_of_reset_ = true;
        }
        cur_ = &r;
        drive(r.in); /* the start pulse with the descriptor, taken at the next edge */
        while (!r.finished) cycle();
        cur_ = nullptr;
    }

private:
    sc_signal<bool> clk_;
    sc_time half_;
    Vmx_array_ctrl_sc top_;
#define MX_IN_SIG(p) in_signal<port_data_t<decltype(Vmx_array_ctrl_sc::p)>> p##_;
#define MX_OUT_SIG(p) sc_signal<port_data_t<decltype(Vmx_array_ctrl_sc::p)>> p##_;
    MX_CTRL_INPUTS(MX_IN_SIG)
    MX_CTRL_OUTPUTS(MX_OUT_SIG)
#undef MX_IN_SIG
#undef MX_OUT_SIG
    bool out_of_reset_ = false;
    rtl_run *cur_ = nullptr;

    /* one clock period: rising edge (on_clock and the RTL's flops), falling edge */
    void cycle()
    {
        clk_.write(true);
        wait(half_);
        clk_.write(false);
        wait(half_);
    }

    void drive(const tile_cycle_in &in)
    {
        write_u(start_i_, (uint64_t)in.start);
        write_u(m_i_, (uint64_t)in.d.M);
        write_u(n_i_, (uint64_t)in.d.N);
        write_u(k_i_, (uint64_t)in.d.K);
        write_u(fmt_i_, (uint64_t)in.d.fmt);
        write_u(fmt_b_i_, (uint64_t)in.d.fmt_b);
        write_u(fp5_bias_i_, (uint64_t)in.d.fp5_bias);
        write_u(scaled_i_, (uint64_t)in.d.scaled);
        write_u(sps_i_, (uint64_t)in.d.sps);
        write_u(out_fmt_i_, (uint64_t)in.d.out_fmt);
        write_u(rq_tile_i_, (uint64_t)in.d.rq_tile);
        write_u(a_base_i_, in.d.a_base);
        write_u(as_base_i_, in.d.as_base);
        write_u(b_base_i_, in.d.b_base);
        write_u(bs_base_i_, in.d.bs_base);
        words a, b, as, bs, rdy;
        for (int i = 0; i < ARR_R * ARR_L; i++) put(a, 16u * (unsigned)i, 16, in.a_rdata[(size_t)i]);
        for (int i = 0; i < ARR_C * ARR_L; i++) put(b, 16u * (unsigned)i, 16, in.b_rdata[(size_t)i]);
        for (int r = 0; r < ARR_R; r++) put(as, 8u * (unsigned)r, 8, in.as_rdata[(size_t)r]);
        for (int c = 0; c < ARR_C; c++) put(bs, 8u * (unsigned)c, 8, in.bs_rdata[(size_t)c]);
        for (int c = 0; c < ARR_C; c++) put(rdy, (unsigned)c, 1, (uint32_t)(in.blk_ready[(size_t)c] & 1));
        write_words(a_rdata_i_, a);
        write_words(b_rdata_i_, b);
        write_words(as_rdata_i_, as);
        write_words(bs_rdata_i_, bs);
        write_words(blk_ready_i_, rdy);
    }

    void read(tile_cycle_out &o) const
    {
        o.busy = busy_o_.read();
        o.done = done_o_.read();
        o.rd = rd_o_.read();
        o.issue = issue_o_.read();
        o.overrun = overrun_o_.read();
        o.a_addr = field(read_words(a_addr_o_), 0, 32);
        o.as_addr = field(read_words(as_addr_o_), 0, 32);
        o.b_addr = field(read_words(b_addr_o_), 0, 32);
        o.bs_addr = field(read_words(bs_addr_o_), 0, 32);
        const words pe = read_words(pe_done_o_), bv = read_words(blk_valid_o_), sc = read_words(blk_scales_o_),
                    vals = read_words(blk_vals_o_), codes = read_words(blk_codes_o_);
        o.pe_done.resize((size_t)(ARR_R * ARR_C));
        for (int i = 0; i < ARR_R * ARR_C; i++) o.pe_done[(size_t)i] = (int)field(pe, (unsigned)i, 1);
        o.blk_valid.resize((size_t)ARR_C);
        o.vals.resize((size_t)(ARR_C * ARR_R));
        o.codes.resize((size_t)(ARR_C * ARR_R));
        o.scales.resize((size_t)(ARR_C * ARR_S));
        for (int c = 0; c < ARR_C; c++) {
            o.blk_valid[(size_t)c] = (int)field(bv, (unsigned)c, 1);
            for (int i = 0; i < ARR_S; i++)
                o.scales[(size_t)(c * ARR_S + i)] = (uint8_t)field(sc, 8u * (unsigned)(c * ARR_S + i), 8);
            for (int r = 0; r < ARR_R; r++) {
                const unsigned i = (unsigned)(c * ARR_R + r);
                o.vals[i] = field(vals, 32u * i, 32);
                o.codes[i] = (uint8_t)field(codes, 8u * i, 8);
            }
        }
    }

    /* Rising edge: the signals still hold the ending cycle's values. */
    void on_clock()
    {
        if (!cur_ || cur_->finished) return; /* reset edges */
        tile_cycle_out o;
        read(o);
        cur_->observe(o);
        if (cur_->finished) {
            cur_->in.start = 0;
            drive(cur_->in);
            return;
        }
        tile_sram_respond(cur_->sram, o, cur_->in);
        cur_->in.start = 0;
        drive(cur_->in);
    }
};

class mx_sc_rtl_backend : public mx_sc_backend {
public:
    explicit mx_sc_rtl_backend(const mx_arch_config &cfg)
        : array_(sc_gen_unique_name("rtl_array"), sc_time(1.0 / (cfg.clock_ghz > 0 ? cfg.clock_ghz : 1.0), SC_NS))
    {
    }
    const char *name() const override { return "rtl"; }

    std::string run(const mx_arch_config &cfg, const mx_sc_job &j, std::vector<uint32_t> &out,
                    std::vector<uint8_t> &codes, std::vector<uint8_t> &scales, mx_stats &stats) override
    {
        if (j.M > TILE_FIELD_MAX - ARR_R || j.N > TILE_FIELD_MAX - ARR_C || j.K > TILE_FIELD_MAX - ARR_L)
            return "M, N, K must fit the controller's 32-bit descriptor fields";
        if (j.scaled && mx_sc_k_per_scale(j) / ARR_L > 255) return "block K extent / lanes must fit 8 bits";
        std::string e = mx_sc_timing(cfg, j, stats);
        if (!e.empty()) return e;
        int out_fmt = -1;
        mx_pe_fmt of;
        bool os;
        if (mx_sc_fmt_from_name(cfg.out_format, &of, &os) == 0 && os && of != MX_PE_BF16) out_fmt = of;
        if (j.out_fmt >= 0) out_fmt = j.out_fmt; /* the descriptor's FORMAT.RQ out fmt */
        /* the GEMM as one tile, on the clock */
        rtl_run r;
        tile_desc d;
        tile_pack(j, ARR_R, ARR_C, ARR_L, cfg.mxsf_fp5_bias, out_fmt, d, r.sram);
        if ((long long)(r.sram.a[0].size() / ARR_L) > TILE_FIELD_MAX || (long long)(r.sram.b[0].size() / ARR_L) > TILE_FIELD_MAX)
            return "operands exceed the controller's 32-bit SRAM address space";
        r.begin(cfg, d, &out);
        if (j.out_fmt >= 0) {
            codes.assign((size_t)(j.M * j.N), 0);
            scales.assign(mx_sc_out_scale_count(ARR_R, ARR_C, j), 0);
            r.job = &j;
            r.codes = &codes;
            r.scales = &scales;
        }
        array_.run(r);
        if (!r.err.empty()) return r.err;
        const long long whole = mx_tile_compute_cycles(&cfg, j.M, j.N, j.K);
        if (r.compute() != whole)
            return "RTL compute cycles " + std::to_string(r.compute()) + ", fold schedule (mx_tile_compute_cycles) " +
                   std::to_string(whole);
        return "";
    }

private:
    mx_sc_rtl_array array_;
};

} // namespace

std::unique_ptr<mx_sc_backend> mx_sc_make_rtl_backend(const mx_arch_config &cfg, std::string &err)
{
    mx_array_config a;
    char e[400];
    if (mx_array_config_from_arch(&cfg, &a, e, sizeof e) != 0) { /* what the RTL cannot build */
        err = e;
        return nullptr;
    }
    if (a.rows != ARR_R || a.cols != ARR_C || a.lanes != ARR_L || a.pipeline_depth != MX_ARRAY_PE_STAGES ||
        (cfg.rqu_tile && (a.tile_rows != ARR_TR || a.tile_cols != ARR_TC)) || cfg.align_width != 32) {
        err = "the Verilated array is built for a " + std::to_string(ARR_R) + "x" + std::to_string(ARR_C) + " os array, " +
              std::to_string(ARR_L) + " lanes, depth " + std::to_string(MX_ARRAY_PE_STAGES) + ", re-quantization tile " +
              std::to_string(ARR_TR) + "x" + std::to_string(ARR_TC) + ", align_width 32 (config keys arch.rows/cols/lanes/"
              "pe_pipeline_depth, format.tile; another size: make systemc SC_ARRAY=RxCxL)";
        return nullptr;
    }
    return std::unique_ptr<mx_sc_backend>(new mx_sc_rtl_backend(cfg));
}
