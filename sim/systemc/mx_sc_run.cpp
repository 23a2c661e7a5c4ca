/*
 * mx_sc_run.cpp — jobs from a trace, and the report (see header).
 */
#include "mx_sc_run.h"

#include <cstring>

int mx_sc_build_jobs(const char *prog, const mx_arch_config &cfg, const mx_trace &tr, const char *trace_path,
                     uint64_t seed, const char *data_dir, std::vector<mx_sc_job> &jobs,
                     std::vector<std::vector<float>> *a_f32, std::vector<std::vector<float>> *b_f32)
{
    jobs.clear();
    for (size_t i = 0; i < tr.n; i++) {
        const mx_gemm &g = tr.gemms[i];
        mx_sc_job j;
        std::string e = mx_sc_job_from_gemm(cfg, g, j);
        if (e.empty()) e = mx_sc_job_check(cfg, j);
        if (!e.empty()) {
            fprintf(stderr, "%s: %s:%d: %s\n", prog, trace_path, g.line, e.c_str());
            return 2;
        }
        std::vector<float> a, b;
        if (mx_sc_load_operands(prog, data_dir, trace_path, g, seed + i, a, b, nullptr)) return 2;
        e = mx_sc_quantize(cfg, a.data(), b.data(), j);
        if (!e.empty()) {
            fprintf(stderr, "%s: %s:%d: %s\n", prog, trace_path, g.line, e.c_str());
            return 2;
        }
        jobs.push_back(std::move(j));
        if (a_f32) a_f32->push_back(std::move(a));
        if (b_f32) b_f32->push_back(std::move(b));
    }
    return 0;
}

static double util(const mx_arch_config &c, const mx_stats &s)
{
    return s.cycles ? (double)s.macs / ((double)s.cycles * c.rows * c.cols * c.lanes) : 0;
}

void mx_sc_print_report(FILE *f, const mx_arch_config &c, const char *trace_path, const mx_trace &tr,
                        const std::vector<mx_stats> &per_instance, const char *backend)
{
    fprintf(f, "config %s: %dx%d %s, %d lanes, A %s B %s out %s, %s; trace %s (%zu GEMMs), SystemC, %s back-end\n",
            c.name, c.rows, c.cols, mx_dataflow_name(c.dataflow), c.lanes, c.a_format, c.b_format,
            c.out_format, c.tile_rows ? "2-D tiles" : "1-D blocks", trace_path, tr.n, backend);
    /* the platform always times with the cycle engine (mx_sc_timing) */
    if (c.dram_model)
        fprintf(f, "engine cycle; DRAM %s (protocol model, %d channel(s), tCK %.3f ns)\n", c.dram.name, c.dram.channels,
                c.dram.tCK_ns);
    else
        fprintf(f, "engine cycle; DRAM channel %.3g bytes/cycle, latency %d cycles\n", c.dram_bytes_per_cycle,
                c.dram_latency);
    fprintf(f, "%-20s %-5s %7s %7s %7s %6s %14s %6s %12s %10s\n", "gemm", "phase", "M", "N", "K", "count",
            "cycles", "util%", "energy_uJ", "requant");
    mx_stats total;
    memset(&total, 0, sizeof total);
    for (size_t i = 0; i < tr.n && i < per_instance.size(); i++) {
        const mx_gemm &g = tr.gemms[i];
        mx_stats row;
        memset(&row, 0, sizeof row);
        mx_stats_add(&row, &per_instance[i], g.count);
        mx_stats_add(&total, &per_instance[i], g.count);
        fprintf(f, "%-20.20s %-5s %7lld %7lld %7lld %6lld %14lld %6.1f %12.3f %10lld\n", g.name,
                mx_phase_name(g.phase), g.M, g.N, g.K, g.count, row.cycles, 100 * util(c, row),
                row.energy_total_pj * 1e-6, row.requant_elements);
    }
    fprintf(f, "%-20s %-5s %7s %7s %7s %6s %14lld %6.1f %12.3f %10lld\n", "TOTAL", "", "", "", "", "",
            total.cycles, 100 * util(c, total), total.energy_total_pj * 1e-6, total.requant_elements);
    fprintf(f, "cycles: compute %lld, stalls dram %lld sram %lld drain %lld; %.3f ms at %.2f GHz; %.3g MACs\n",
            total.compute_cycles, total.stall[MX_STALL_DRAM], total.stall[MX_STALL_SRAM],
            total.stall[MX_STALL_DRAIN], total.cycles / (c.clock_ghz * 1e6), c.clock_ghz, (double)total.macs);
    fprintf(f, "energy (uJ):");
    for (int i = 0; i < MX_E_NCOMP; i++)
        fprintf(f, " %s %.1f", mx_energy_comp_name((mx_energy_comp)i), total.energy_pj[i] * 1e-6);
    fprintf(f, "\n");
}
