/*
 * mx_sram.h — banked on-chip SRAM ports (SPEC §4.1): which cycles the
 * array's operand reads lose to bank conflicts.
 *
 *   address a  ->  word w = a / bytes_per_cycle,  bank = w % banks
 *   each bank: one read port, one word per cycle (DMA fills use a separate
 *   write port: 1R1W banks, docs/ARCH.md "Cycle engine")
 *
 * The array reads an operand as `streams` skewed streams (one per array row
 * or column): stream i needs `bytes` bytes at address base + i*pitch_i +
 * s*pitch_s in cycle s + i, for s = 0 .. steps-1.  A stream fetches whole
 * words into a one-word prefetch register: a word is requested `lead`
 * cycles before its first use (the word period of a sequential stream,
 * 1 otherwise), banks serve requests oldest first, one per cycle, and data
 * read in cycle x can be used from x + 1; a request for a word read within
 * the last streams + lead cycles is served by that read (the word is still
 * in the skew registers and is broadcast to every stream that wants it, as
 * when the rows of a weight-stationary array take consecutive lanes of one
 * A row).  A late word stalls the whole
 * array (every stream) for the missing cycles.  The function walks the
 * fold cycle by cycle: exact for this port model, not an estimate.
 */
#ifndef MX_SRAM_H
#define MX_SRAM_H

#include "util/mx_fp_env.h" /* refuses -ffast-math, excess precision */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    long long streams, steps;     /* array rows (or cols) fed, steps of the fold  */
    long long base, pitch_i, pitch_s; /* bytes                                   */
    long long bytes;              /* per access (lanes x element bytes)           */
    int banks, bytes_per_cycle;   /* of the buffer                                */
} mx_sram_streams;

/* Stall cycles of one fold whose operands are read as the n (1 or 2) stream
 * groups g[] (e.g. A rows and B columns of an output-stationary fold); both
 * groups see the same stalls.  0 when no bank is oversubscribed. */
long long mx_sram_fold_stall(const mx_sram_streams *g, int n);

#ifdef __cplusplus
}
#endif
#endif
