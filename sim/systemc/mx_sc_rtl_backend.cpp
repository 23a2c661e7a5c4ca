/*
 * mx_sc_rtl_backend.cpp — the Verilated RTL back-end of the SystemC
 * accelerator: rtl/mx_array_ctrl.sv (controller + mx_array + re-quantizing
 * output stage) as a Verilated C++ model (not verilator --sc) inside an
 * SC_MODULE clocked by an sc_clock with the accelerator's period.
 *
 * run() (called from the accelerator's worker thread) packs the job into the
 * banked operand SRAM image (tile_pack), programs the controller's descriptor
 * and waits; on every rising edge of the clock the module evaluates one RTL
 * cycle (start pulse, synchronous SRAM reads, output blocks placed into the
 * output matrix) until the controller reports done.  The GEMM runs as one
 * tile on the array (all of K), so the values are the RTL's.
 *
 * Cycles: the RTL has no DRAM or buffer model, so the counters are the arch
 * model's (mx_arch_gemm_timing, as the C back-end), and the RTL vouches for
 * their compute part: the whole GEMM's measured compute cycles (first K-step
 * into the array to the last PE result) must equal the fold schedule
 * (tile_schedule_cycles) and mx_tile_compute_cycles, and every distinct buffer-tile shape of the arch
 * model's tiling (mx_arch_tiling) is run on the same RTL in zero simulated
 * time (direct evaluation between jobs) and must equal mx_tile_compute_cycles
 * of that shape (and the fold schedule), which is what mx_arch_gemm_timing
 * sums.  A difference is a back-end error.  Built for ARR_R x ARR_C, ARR_L lanes (mk/systemc.mk: 4x4, L = 4).
 */
/* Verilator's headers first: with SystemC's already seen they would take the
 * verilator --sc time source (sc_time_stamp), which a plain C++ model has not. */
#include "rtl_tile.h"

#include <deque>
#include <memory>
#include <set>
#include <tuple>

#include "mx_sc_accel.h"

using namespace sc_core;

namespace {

/* One RTL array run: the descriptor, the SRAM image, the cycle loop. */
struct rtl_run {
    tile_desc d;
    tile_sram sram;
    tile_cycle_in in;
    tile_cycle_out o;
    long long M = 0, N = 0, cyc = 0, first_issue = -1, last_pe_done = -1;
    std::vector<std::deque<std::pair<long long, long long>>> colq; /* per column: (r0, c0) of its next block */
    std::vector<uint32_t> *out = nullptr;
    std::vector<uint8_t> *codes = nullptr, *scales = nullptr; /* the output stage's, when wanted */
    bool finished = false;
    std::string err;

    void begin(const tile_desc &desc, std::vector<uint32_t> *outp)
    {
        d = desc;
        M = d.M;
        N = d.N;
        out = outp;
        if (out) out->assign((size_t)(M * N), 0);
        in = tile_cycle_in();
        in.d = d;
        in.a_rdata.assign(ARR_R * ARR_L, 0);
        in.b_rdata.assign(ARR_C * ARR_L, 0);
        in.as_rdata.assign(ARR_R, 0);
        in.bs_rdata.assign(ARR_C, 0);
        in.blk_ready.assign(ARR_C, 1);
        colq.assign(ARR_C, {});
        for (long long c0 = 0; c0 < N; c0 += ARR_C)
            for (long long r0 = 0; r0 < M; r0 += ARR_R)
                for (long long c = 0; c < std::min<long long>(ARR_C, N - c0); c++) colq[(size_t)c].push_back({r0, c0});
        cyc = 0;
        first_issue = last_pe_done = -1;
        finished = false;
        err.clear();
    }

    /* One clock cycle of the RTL. */
    void cycle(Vmx_array_ctrl *top)
    {
        in.start = cyc == 0;
        rtl_tile::drive(top, in);
        top->clk_i = 0;
        top->eval();
        rtl_tile::read(top, o);
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
            if (scales) (*scales)[(size_t)((r0 / ARR_R) * N + n)] = o.scales[(size_t)c];
        }
        top->clk_i = 1;
        top->eval();
        tile_sram_respond(sram, o, in);
        cyc++;
        if (cyc > 1000000000LL) { err = "RTL did not finish (deadlock)"; finished = true; }
    }

    long long compute() const { return last_pe_done - first_issue; }
};

class mx_sc_rtl_array : public sc_module {
public:
    sc_in<bool> clk;

    SC_HAS_PROCESS(mx_sc_rtl_array);
    explicit mx_sc_rtl_array(sc_module_name nm) : sc_module(nm), clk("clk"), ctx_(new VerilatedContext)
    {
        top_.reset(new Vmx_array_ctrl(ctx_.get()));
        /* reset at elaboration, outside simulated time */
        rtl_run idle;
        tile_desc d;
        idle.begin(d, nullptr);
        top_->rst_ni = 0;
        rtl_tile::drive(top_.get(), idle.in);
        for (int k = 0; k < 2; k++) {
            top_->clk_i = 0; top_->eval();
            top_->clk_i = 1; top_->eval();
        }
        top_->rst_ni = 1;
        SC_METHOD(on_clock);
        sensitive << clk.pos();
        dont_initialize();
    }
    ~mx_sc_rtl_array() override { top_->final(); }

    /* Runs a job on the clocked RTL; returns when the controller is done. */
    void run_clocked(rtl_run &r)
    {
        cur_ = &r;
        wait(done_ev_);
        cur_ = nullptr;
    }
    /* Runs a job by direct evaluation, in zero simulated time (no job may be
     * running on the clock). */
    void run_direct(rtl_run &r)
    {
        while (!r.finished) r.cycle(top_.get());
    }

private:
    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Vmx_array_ctrl> top_;
    rtl_run *cur_ = nullptr;
    sc_event done_ev_;

    void on_clock()
    {
        if (!cur_ || cur_->finished) return;
        cur_->cycle(top_.get());
        if (cur_->finished) done_ev_.notify(SC_ZERO_TIME);
    }
};

class mx_sc_rtl_backend : public mx_sc_backend {
public:
    explicit mx_sc_rtl_backend(const mx_arch_config &cfg)
        : clock_(sc_gen_unique_name("rtl_clk"), sc_time(1.0 / (cfg.clock_ghz > 0 ? cfg.clock_ghz : 1.0), SC_NS)),
          array_(sc_gen_unique_name("rtl_array"))
    {
        array_.clk(clock_);
    }
    const char *name() const override { return "rtl"; }

    std::string run(const mx_arch_config &cfg, const mx_sc_job &j, std::vector<uint32_t> &out,
                    std::vector<uint8_t> &codes, std::vector<uint8_t> &scales, mx_stats &stats) override
    {
        /* rtl/mx_requant.sv models MXSF with fp5 bias 5..8 only */
        if (j.out_fmt == MX_PE_MXSF && (cfg.mxsf_fp5_bias < 5 || cfg.mxsf_fp5_bias > 8))
            return "the RTL re-quantizer covers MXSF fp5 bias 5..8 (format.mxsf_fp5_bias " +
                   std::to_string(cfg.mxsf_fp5_bias) + ")";
        if (j.M > 65535 - ARR_R || j.N > 65535 - ARR_C || j.K > 65535 - ARR_L)
            return "M, N, K must fit the controller's 16-bit descriptor fields";
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
        if (r.sram.a[0].size() / ARR_L > 65535 || r.sram.b[0].size() / ARR_L > 65535)
            return "operands exceed the controller's 16-bit SRAM address space";
        r.begin(d, &out);
        if (j.out_fmt >= 0) {
            codes.assign((size_t)(j.M * j.N), 0);
            scales.assign((size_t)(((j.M + ARR_R - 1) / ARR_R) * j.N), 0);
            r.codes = &codes;
            r.scales = &scales;
        }
        array_.run_clocked(r);
        if (!r.err.empty()) return r.err;
        const long long whole = tile_schedule_cycles(ARR_R, ARR_C, ARR_L, 4, j.M, j.N, j.K);
        const long long whole_arch = mx_tile_compute_cycles(&cfg, j.M, j.N, j.K);
        if (r.compute() != whole || r.compute() != whole_arch)
            return "RTL compute cycles " + std::to_string(r.compute()) + ", fold schedule " + std::to_string(whole) +
                   ", mx_tile_compute_cycles " + std::to_string(whole_arch);
        /* every buffer-tile shape of the arch model's tiling, in zero time */
        mx_operand_fmt fa, fb;
        if (mx_operand_fmt_resolve(&cfg, mx_sc_fmt_arch_name(j.fmt, j.scaled), &fa) != 0) return "cannot resolve format";
        fb = fa;
        mx_tiling tl;
        char err[256];
        mx_arch_config cc = cfg;
        cc.block_size = j.block;
        cc.tile_rows = j.tile_rows;
        cc.tile_cols = j.tile_cols;
        if (mx_arch_tiling(&cc, &fa, &fb, j.M, j.N, j.K, &tl, err, sizeof err) != 0) return err;
        std::set<std::tuple<long long, long long, long long>> shapes;
        const long long ms[2] = {tl.mt, j.M - (tl.m_tiles - 1) * tl.mt}, ns[2] = {tl.nt, j.N - (tl.n_tiles - 1) * tl.nt},
                        ks[2] = {tl.kt, j.K - (tl.k_tiles - 1) * tl.kt};
        for (int a = 0; a < (tl.m_tiles > 1 ? 2 : 1); a++)
            for (int b = 0; b < (tl.n_tiles > 1 ? 2 : 1); b++)
                for (int c = 0; c < (tl.k_tiles > 1 ? 2 : 1); c++)
                    shapes.insert(std::make_tuple(tl.m_tiles > 1 ? ms[a] : ms[1], tl.n_tiles > 1 ? ns[b] : ns[1],
                                                  tl.k_tiles > 1 ? ks[c] : ks[1]));
        if (shapes.size() == 1 && shapes.count(std::make_tuple(j.M, j.N, j.K))) return ""; /* one tile: done above */
        for (const auto &sh : shapes) {
            mx_sc_job sj;
            sj.M = std::get<0>(sh);
            sj.N = std::get<1>(sh);
            sj.K = std::get<2>(sh);
            sj.fmt = j.fmt;
            sj.scaled = false; /* cycles do not depend on values or scales */
            sj.a_codes.assign((size_t)(sj.M * sj.K), 0);
            sj.b_codes.assign((size_t)(sj.K * sj.N), 0);
            for (long long m = 0; m < sj.M; m++)
                for (long long k = 0; k < sj.K; k++) sj.a_codes[(size_t)(m * sj.K + k)] = j.a_codes[(size_t)(m * j.K + k)];
            for (long long k = 0; k < sj.K; k++)
                for (long long n = 0; n < sj.N; n++) sj.b_codes[(size_t)(k * sj.N + n)] = j.b_codes[(size_t)(k * j.N + n)];
            rtl_run tr;
            tile_desc td;
            tile_pack(sj, ARR_R, ARR_C, ARR_L, cfg.mxsf_fp5_bias, -1, td, tr.sram);
            tr.begin(td, nullptr);
            array_.run_direct(tr);
            if (!tr.err.empty()) return tr.err;
            const long long want = mx_tile_compute_cycles(&cfg, sj.M, sj.N, sj.K);
            const long long sched = tile_schedule_cycles(ARR_R, ARR_C, ARR_L, 4, sj.M, sj.N, sj.K);
            if (tr.compute() != sched || tr.compute() != want)
                return "RTL compute cycles of tile " + std::to_string(sj.M) + "x" + std::to_string(sj.N) + "x" +
                       std::to_string(sj.K) + ": " + std::to_string(tr.compute()) + " != mx_tile_compute_cycles " +
                       std::to_string(want);
        }
        return "";
    }

private:
    sc_clock clock_;
    mx_sc_rtl_array array_;
};

} // namespace

std::unique_ptr<mx_sc_backend> mx_sc_make_rtl_backend(const mx_arch_config &cfg, std::string &err)
{
    if (cfg.rows != ARR_R || cfg.cols != ARR_C || cfg.lanes != ARR_L || cfg.dataflow != MX_DATAFLOW_OS ||
        cfg.pe_pipeline_depth != 4 || cfg.scalesim_compat || !cfg.fold_overlap || cfg.align_width != 32) {
        err = "the Verilated array is built for a " + std::to_string(ARR_R) + "x" + std::to_string(ARR_C) + " os array, " +
              std::to_string(ARR_L) + " lanes, depth 4, fold overlap, align_width 32 (config keys arch.rows/cols/lanes/...)";
        return nullptr;
    }
    return std::unique_ptr<mx_sc_backend>(new mx_sc_rtl_backend(cfg));
}
