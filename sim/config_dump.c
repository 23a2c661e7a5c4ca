/* config_dump.c — see config_dump.h. */
#include "config_dump.h"

#include "formats/mx_format.h"

#include <stdio.h>
#include <stdlib.h>

static int kv(mx_config_kv_fn fn, void *ctx, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#include <stdarg.h>

static int kv(mx_config_kv_fn fn, void *ctx, const char *key, const char *fmt, ...)
{
    char v[MX_ARCH_PATH_MAX + 16];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v, sizeof v, fmt, ap);
    va_end(ap);
    fn(ctx, key, v);
    return 1;
}

static const char *tf(int b) { return b ? "true" : "false"; }

/* The shortest %g spelling that reads back as the same double. */
static const char *num(char *buf, size_t cap, double v)
{
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, cap, "%.*g", p, v);
        if (strtod(buf, NULL) == v) break;
    }
    return buf;
}

int mx_config_resolved(const mx_arch_config *c, mx_config_kv_fn fn, void *ctx)
{
    static const char *scale_rules[] = {"floor", "ceil", "even", "rceil"};
    static const char *ops[MX_NOPS] = {"a", "b", "out"};
    int n = 0;
    char b[40];
    n += kv(fn, ctx, "name", "%s", c->name);
    n += kv(fn, ctx, "engine", "%s", mx_engine_name(c->engine));
    n += kv(fn, ctx, "arch.rows", "%d", c->rows);
    n += kv(fn, ctx, "arch.cols", "%d", c->cols);
    n += kv(fn, ctx, "arch.lanes", "%d", c->lanes);
    n += kv(fn, ctx, "arch.dataflow", "%s", mx_dataflow_name(c->dataflow));
    n += kv(fn, ctx, "arch.pe_pipeline_depth", "%d", c->pe_pipeline_depth);
    n += kv(fn, ctx, "arch.fold_overlap", "%s", tf(c->fold_overlap));
    n += kv(fn, ctx, "arch.scalesim_compat", "%s", tf(c->scalesim_compat));
    n += kv(fn, ctx, "arch.clock_ghz", "%s", num(b, sizeof b, c->clock_ghz));
    n += kv(fn, ctx, "format.a", "%s", c->a_format);
    n += kv(fn, ctx, "format.b", "%s", c->b_format);
    n += kv(fn, ctx, "format.out", "%s", c->out_format);
    n += kv(fn, ctx, "format.block", "%d", c->block_size);
    if (c->tile_rows > 0) n += kv(fn, ctx, "format.tile", "[%d, %d]", c->tile_rows, c->tile_cols);
    else n += kv(fn, ctx, "format.tile", "none");
    n += kv(fn, ctx, "format.scale_rule", "%s", (unsigned)c->scale_rule < 4 ? scale_rules[c->scale_rule] : "?");
    n += kv(fn, ctx, "format.round", "%s", mx_round_name(c->round));
    n += kv(fn, ctx, "format.mxsf_fp5_bias", "%d", c->mxsf_fp5_bias);
    n += kv(fn, ctx, "format.align_width", "%d", c->align_width);
    n += kv(fn, ctx, "format.mxsf_wide_fraction", "%s", num(b, sizeof b, c->mxsf_wide_fraction));
    for (int i = 0; i < MX_NOPS; i++) {
        char k[64];
        snprintf(k, sizeof k, "memory.sram_%s.kib", ops[i]);
        n += kv(fn, ctx, k, "%s", num(b, sizeof b, c->sram[i].kib));
        snprintf(k, sizeof k, "memory.sram_%s.banks", ops[i]);
        n += kv(fn, ctx, k, "%d", c->sram[i].banks);
        snprintf(k, sizeof k, "memory.sram_%s.bytes_per_cycle", ops[i]);
        n += kv(fn, ctx, k, "%d", c->sram[i].bytes_per_cycle);
    }
    n += kv(fn, ctx, "memory.double_buffer", "%s", c->double_buffer == 2 ? "search" : tf(c->double_buffer));
    n += kv(fn, ctx, "memory.dram_bytes_per_cycle", "%s", num(b, sizeof b, c->dram_bytes_per_cycle));
    n += kv(fn, ctx, "memory.dram_latency", "%d", c->dram_latency);
    n += kv(fn, ctx, "memory.dram", "%s", c->dram_preset[0] ? c->dram_preset : "none");
    /* 0 means "the preset's": the number in effect when a DRAM is loaded */
    int ch = c->dram_channels ? c->dram_channels : c->dram_model ? c->dram.channels : 0;
    if (ch) n += kv(fn, ctx, "memory.dram_channels", "%d", ch);
    n += kv(fn, ctx, "memory.tiling", "%s", mx_tiling_objective_name(c->tiling_objective));
    n += kv(fn, ctx, "memory.ideal", "%s", tf(c->ideal_memory));
    n += kv(fn, ctx, "rqu.elements_per_cycle", "%d", c->rqu_elements_per_cycle);
    n += kv(fn, ctx, "rqu.block", "%s", c->rqu_tile ? "tile" : "column");
    n += kv(fn, ctx, "training.requant", "%s", tf(c->train_requant));
    n += kv(fn, ctx, "functional.max_macs", "%lld", c->functional_max_macs);
    n += kv(fn, ctx, "energy.table", "%s", c->energy_table);
    return n;
}
