/* bench_pe.c — C model throughput of the PE: the functional mx_pe_dot()
 * (MAC/s per core, target >= 100 M MAC/s for MXSF) and the cycle model
 * mx_pe_comb/tick (cycles/s).  Co-simulation throughput is printed by
 * `make bench` through mk/cosim.mk (cosim-bench). */
#include "bench.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/mx_rng.h"
#include "units/mx_pe.h"

static uint16_t code_of(mx_pe_fmt f, uint64_t *rng)
{
    uint32_t c = (uint32_t)mx_rng_next(rng);
    if (f == MX_PE_BF16) return (uint16_t)((c & 0x807F) | ((uint32_t)(110 + (c >> 20) % 30) << 7));
    c &= 0xFF;
    if (f == MX_PE_E4M3 && (c & 0x7F) == 0x7F) c--;        /* keep NaN out */
    if (f == MX_PE_E5M2 && (c & 0x7C) == 0x7C) c &= 0xF3;  /* keep Inf/NaN out */
    return (uint16_t)c;
}

MX_BENCH(pe_dot)
{
    enum { K = 4096 };
    static uint16_t a[K], b[K];
    static uint8_t xa[K / 32], xb[K / 32];
    for (int fi = 0; fi < MX_PE_NFMT; fi++) {
        mx_pe_config cfg;
        mx_pe_config_default((mx_pe_fmt)fi, &cfg);
        uint64_t rng = 1;
        for (int i = 0; i < K; i++) { a[i] = code_of(cfg.fmt, &rng); b[i] = code_of(cfg.fmt, &rng); }
        for (int i = 0; i < K / 32; i++) { xa[i] = (uint8_t)(120 + i % 10); xb[i] = (uint8_t)(125 + i % 5); }
        const uint8_t *pa = cfg.fmt == MX_PE_BF16 ? NULL : xa, *pb = cfg.fmt == MX_PE_BF16 ? NULL : xb;
        uint32_t sink = 0;
        long reps = 0;
        double t0 = mx_bench_now(), t;
        do {
            for (int r = 0; r < 16; r++) sink ^= mx_pe_dot(&cfg, a, pa, b, pb, K, sink & 1);
            reps += 16;
            t = mx_bench_now() - t0;
        } while (t < 0.3);
        double macs = (double)reps * K / t;
        printf("  mx_pe_dot %-5s L=8 k=%d: %7.1f M MAC/s per core%s  (sink %08x)\n", mx_pe_fmt_name(cfg.fmt), K,
               macs / 1e6, cfg.fmt == MX_PE_MXSF ? (macs >= 100e6 ? "  [target 100: met]" : "  [target 100: MISSED]") : "",
               (unsigned)sink);
    }
}

MX_BENCH(pe_cycle_model)
{
    for (int fi = 0; fi < MX_PE_NFMT; fi++) {
        mx_pe_config cfg;
        mx_pe_config_default((mx_pe_fmt)fi, &cfg);
        mx_pe_regs *q = malloc(sizeof *q), *d = malloc(sizeof *d);
        mx_pe_in in;
        mx_pe_out out;
        memset(&in, 0, sizeof in);
        mx_pe_reset(q);
        uint64_t rng = 2;
        long cycles = 0;
        uint32_t sink = 0;
        double t0 = mx_bench_now(), t;
        do {
            for (int r = 0; r < 4096; r++) {
                in.in_valid_i = 1;
                in.out_ready_i = 1;
                for (int i = 0; i < cfg.lanes; i++) { in.a_codes_i[i] = code_of(cfg.fmt, &rng); in.b_codes_i[i] = code_of(cfg.fmt, &rng); }
                in.a_scale_i = 127; in.b_scale_i = 127;
                in.first_i = (cycles + r) % 4 == 0;
                in.last_i = (cycles + r) % 4 == 3;
                mx_pe_comb(&cfg, &in, q, d, &out);
                sink ^= out.out_o;
                mx_pe_tick(q, d);
            }
            cycles += 4096;
            t = mx_bench_now() - t0;
        } while (t < 0.3);
        printf("  cycle model %-5s L=8: %6.2f M cycles/s (%6.1f M MAC/s)  (sink %08x)\n", mx_pe_fmt_name(cfg.fmt),
               cycles / t / 1e6, cycles * cfg.lanes / t / 1e6, (unsigned)sink);
        free(q);
        free(d);
    }
}
