/*
 * mx_dma.h — operand layout in DRAM and the DMA engine's address streams
 * (SPEC §4.1; docs/ARCH.md "Operand layout in DRAM").
 *
 * Per GEMM (M x N x K), regions start at 1 MiB-aligned bases in this order:
 *
 *   A codes    M rows x ceil(K * bits_a / 8) bytes, row-major (K contiguous)
 *   A scales   MX only: one E8M0 byte per block, row-major over the block grid
 *              (1-D: M x ceil(K / block); 2-D tiles r x c: ceil(M/r) x ceil(K/c))
 *   B codes    N rows x ceil(K * bits_b / 8) bytes: B stored transposed
 *              (K contiguous, the layout of an nn.Linear weight), so both
 *              operands stream along the reduction axis and an MX block is
 *              contiguous
 *   B scales   as A's, over N x K
 *   out codes  M rows x ceil(N * bits_out / 8) bytes, row-major
 *   out scales over M x N
 *   copies     training second quantized copies, written sequentially
 *
 * A tile load or store is a list of strided segments (one per tile row and
 * one per scale row); the DMA turns them into whole bursts in address order
 * and does not move a burst again when the next segment starts inside the
 * burst it just moved (rows narrower than a burst, contiguous rows, scale
 * rows of a few bytes); bursts shared by segments further apart move again.
 */
#ifndef MX_DMA_H
#define MX_DMA_H

#include "util/mx_fp_env.h" /* refuses -ffast-math, excess precision */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* `count` segments of `len` bytes, segment j at base + j * stride. */
typedef struct {
    uint64_t base, stride, len, count;
} mx_dma_seg;

#define MX_DMA_MAX_SEGS 4

/* The bursts of up to MX_DMA_MAX_SEGS segment groups, in order. */
typedef struct {
    mx_dma_seg seg[MX_DMA_MAX_SEGS];
    int nseg;
    uint64_t burst;        /* bytes per burst (power of two)   */
    /* position */
    int g;                 /* current group                    */
    uint64_t j;            /* segment within the group          */
    uint64_t next;         /* next burst address in the segment */
    uint64_t end;          /* end of the segment (bytes)         */
    uint64_t last;         /* the burst moved last               */
    int emitted;
    int held;              /* mx_dma_stream_unget: `hold` comes next */
    uint64_t hold;
} mx_dma_stream;

/* A matrix stored as rows x (cols * bits / 8) bytes at base, with its scale
 * grid (scale_rows x scale_cols bytes at scale_base; scale_rows 0 = none). */
typedef struct {
    uint64_t base, row_bytes;
    double bits;              /* element bits (codes only)          */
    uint64_t scale_base, scale_row_bytes;
    long long scale_rows_per, scale_cols_per; /* elements per scale along rows / cols */
    int has_scales;
} mx_dma_matrix;

void mx_dma_stream_init(mx_dma_stream *s, uint64_t burst);
/* Adds the bursts of the sub-matrix rows [r0, r0+nr) x cols [c0, c0+nc)
 * (codes, then scales).  Empty extents add nothing. */
void mx_dma_stream_add_tile(mx_dma_stream *s, const mx_dma_matrix *m, long long r0, long long nr,
                            long long c0, long long nc);
/* Adds `count` segments of `len` bytes, segment j at base + j * stride. */
void mx_dma_stream_add_segments(mx_dma_stream *s, uint64_t base, uint64_t stride, uint64_t len, uint64_t count);
/* Adds `bytes` contiguous bytes at base. */
void mx_dma_stream_add_linear(mx_dma_stream *s, uint64_t base, uint64_t bytes);
/* Next burst address: 1 and *addr, or 0 when the stream is exhausted. */
int mx_dma_stream_next(mx_dma_stream *s, uint64_t *addr);
/* Up to max next burst addresses into out, as mx_dma_stream_next one by
 * one would give them (the stream's state in locals: faster per burst).
 * The count; less than max only when the stream is exhausted. */
size_t mx_dma_stream_fill(mx_dma_stream *s, uint64_t *out, size_t max);
/* Puts back the address the last mx_dma_stream_next returned (the memory
 * did not take it): the next call returns it again. */
void mx_dma_stream_unget(mx_dma_stream *s, uint64_t addr);
/* mx_dma_stream_next with the signature of mx_dram_next_addr
 * (mem/mx_dram_probe.h), so a stream can be probed alone on the DRAM. */
int mx_dma_stream_next_fn(void *s, uint64_t *addr);
/* Bursts the stream moves in total (from its start; s is not advanced). */
uint64_t mx_dma_stream_bursts(const mx_dma_stream *s);

/* The same counts without stepping a stream, for the analytic engine's
 * traffic counters (a GEMM may have 2^48 rows).  UINT64_MAX when the count
 * leaves 64 bits. */
/* Bursts of mx_dma_stream_add_segments(base, stride, len, count) in a
 * stream of their own. */
uint64_t mx_dma_segments_bursts(uint64_t base, uint64_t stride, uint64_t len, uint64_t count, uint64_t burst);
/* Bursts of mx_dma_stream_add_tile(m, r0, nr, c0, nc) in a stream of its
 * own. */
uint64_t mx_dma_tile_bursts(const mx_dma_matrix *m, long long r0, long long nr, long long c0, long long nc,
                            uint64_t burst);
/* The sum of mx_dma_tile_bursts over a grid of tiles covering rows x cols of
 * m: tiles rt x ct from (0, 0), the last row and column of tiles cut at the
 * matrix's edge; each tile once. */
uint64_t mx_dma_grid_bursts(const mx_dma_matrix *m, long long rows, long long rt, long long cols, long long ct,
                            uint64_t burst);

#ifdef __cplusplus
}
#endif
#endif
