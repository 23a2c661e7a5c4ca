/*
 * mx_energy.c — energy = sum of counts x per-action energies (SPEC §5).
 * Table entries and their sources: configs/energy/ (YAML), docs/ENERGY.md.
 */
#include "arch/mx_arch.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int mx_energy_get(const mx_energy_table *t, const char *key, double *pj)
{
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->e[i].key, key) == 0) { *pj = t->e[i].pj; return 0; }
    return -1;
}

static int need(const mx_energy_table *t, const char *key, const char *what, double *pj, char *err,
                size_t errlen)
{
    if (mx_energy_get(t, key, pj) == 0) return 0;
    if (err && errlen)
        snprintf(err, errlen, "%s: missing entry '%s' (%s)", t->path[0] ? t->path : "energy table",
                 key, what);
    return -1;
}

/* 64-bit SRAM access energy for a bank of `kib` KiB: log-linear between the
 * table's 8 KiB, 32 KiB and 1 MiB anchors (Horowitz), clamped below 8 KiB,
 * extrapolated above 1 MiB along the last segment. */
static double sram_64b(double kib, const double anchor[3])
{
    static const double size[3] = {8, 32, 1024};
    if (kib <= size[0]) return anchor[0];
    int s = kib <= size[1] ? 0 : 1;
    double f = (log2(kib) - log2(size[s])) / (log2(size[s + 1]) - log2(size[s]));
    return exp(log(anchor[s]) + f * (log(anchor[s + 1]) - log(anchor[s])));
}

int mx_energy_apply(const mx_arch_config *c, const mx_energy_table *t, mx_stats *s, char *err,
                    size_t errlen)
{
    double e[MX_E_NCOMP] = {0};
    double products = 0;
    for (int a = 0; a <= MX_SIG_MAX; a++)
        for (int b = 0; b <= MX_SIG_MAX; b++) {
            if (s->mul[a][b] == 0) continue;
            char key[MX_ENERGY_KEY_MAX];
            snprintf(key, sizeof key, "mul_%dx%d", a, b);
            double pj;
            char what[128];
            snprintf(what, sizeof what, "component pe, action %dx%d-bit significand multiply", a, b);
            if (need(t, key, what, &pj, err, errlen)) return -1;
            e[MX_E_MUL] += s->mul[a][b] * pj;
            products += s->mul[a][b];
        }
    double exp_bit, align_bit, tree_bit, fp32_add, scale_add, dram = 0, rqu, leak_pe, leak_kib;
    double anchor[3];
    if (need(t, "exp_add_per_bit", "component pe, action product exponent add (per bit)", &exp_bit, err, errlen) ||
        need(t, "align_per_bit", "component pe, action alignment shift (per bit)", &align_bit, err, errlen) ||
        need(t, "addtree_per_bit", "component pe, action adder-tree add (per bit)", &tree_bit, err, errlen) ||
        need(t, "fp32_add", "component pe, action FP32 accumulate", &fp32_add, err, errlen) ||
        need(t, "scale_add", "component pe, action E8M0 scale add", &scale_add, err, errlen) ||
        need(t, "sram_64b_8kib", "component sram, action 64-bit access, 8 KiB bank", &anchor[0], err, errlen) ||
        need(t, "sram_64b_32kib", "component sram, action 64-bit access, 32 KiB bank", &anchor[1], err, errlen) ||
        need(t, "sram_64b_1mib", "component sram, action 64-bit access, 1 MiB bank", &anchor[2], err, errlen) ||
        need(t, "rqu_per_element", "component rqu, action re-quantize one element", &rqu, err, errlen) ||
        need(t, "leak_pe_cycle", "component leakage, action one PE for one cycle", &leak_pe, err, errlen) ||
        need(t, "leak_sram_kib_cycle", "component leakage, action 1 KiB SRAM for one cycle", &leak_kib, err, errlen))
        return -1;
    e[MX_E_ADDTREE] = s->exp_add_bits * exp_bit + products * c->align_width * (align_bit + tree_bit);
    e[MX_E_ACCUM] = (double)s->pe_steps * fp32_add;
    e[MX_E_SCALE] = (double)s->scale_adds * scale_add;
    double kib_total = 0;
    for (int i = 0; i < MX_NOPS; i++) {
        double per_byte = sram_64b(c->sram[i].kib / c->sram[i].banks, anchor) / 8.0;
        e[MX_E_SRAM_A + i] = (double)(s->sram_read[i] + s->sram_write[i]) * per_byte;
        kib_total += c->sram[i].kib;
    }
    /* DRAM: the protocol model's energy (commands from IDD currents and
     * background, docs/DRAM.md) when memory.dram names a device, else the
     * table's flat energy per 64 bits */
    if (!s->dram_model &&
        need(t, "dram_64b", "component dram, action 64-bit access", &dram, err, errlen))
        return -1;
    double dram_bytes = 0;
    for (int i = 0; i < MX_NOPS; i++) dram_bytes += (double)(s->dram_read[i] + s->dram_write[i]);
    e[MX_E_DRAM] = s->dram_model ? s->dram_energy_pj : dram_bytes / 8.0 * dram;
    e[MX_E_RQU] = (double)s->rqu_elements * rqu;
    e[MX_E_LEAKAGE] = (double)s->cycles * ((double)c->rows * c->cols * leak_pe + kib_total * leak_kib);
    s->energy_total_pj = 0;
    for (int i = 0; i < MX_E_NCOMP; i++) {
        s->energy_pj[i] = e[i];
        s->energy_total_pj += e[i];
    }
    return 0;
}
