/*
 * mx_pack.c — perfect bit packing of eXmY codes; the layout is defined and
 * drawn in mx_pack.h.
 *
 * Speed: one function per width (PACK_WIDTH below), so every shift and mask
 * is a constant.  Bulk data goes through chunk_pack / chunk_unpack: codes are
 * narrowed to bytes, the planes are computed in 16-bit lanes (8 groups per
 * SSE2 operation, vectorized by gcc -O2), and each group is written with one
 * 8-byte store that the next group overwrites (little-endian hosts).  The
 * last groups, big-endian hosts and short inputs take the per-group path
 * (group_pack: 64-bit words holding one field per byte, folded with
 * whole-byte shifts).  The tail is a plain bit stream.
 */
#include "formats/mx_pack.h"

#include <string.h>

#define ALWAYS_INLINE static inline __attribute__((always_inline))

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define MX_PACK_LE 1
#else
#define MX_PACK_LE 0
#endif

#define REP8(b) (0x0101010101010101ull * (uint64_t)(b))

size_t mx_pack_bytes(int width, size_t n)
{
    if (width < 1 || width > 16) return 0;
    /* n / 8 full groups of `width` bytes, then ceil((n % 8) * width / 8). */
    return (n / 8) * (size_t)width + ((n % 8) * (size_t)width + 7) / 8;
}

/* ---- one group: 8 fields, one per byte of a 64-bit word <-> planes ------- */

/* Plane of b bits (1, 2, 4, 8) from field bits [off, off + b) of the 8 fields
 * in x; returns the plane's b bytes, little-endian. */
ALWAYS_INLINE uint64_t plane_pack(uint64_t x, int off, int b)
{
    uint64_t m = (x >> off) & REP8((1u << b) - 1);
    switch (b) {
    case 8:
        return m;
    case 4: /* byte j = f_j | f_{j+4} << 4 */
        return (m | m >> 28) & 0xFFFFFFFFull;
    case 2: /* byte j = f_j | f_{j+2} << 2 | f_{j+4} << 4 | f_{j+6} << 6 */
        m = (m | m >> 14) & 0x0000FFFF0000FFFFull;
        return (m | m >> 28) & 0xFFFFull;
    default: /* 1: bit i = f_i */
        m = (m | m >> 7) & 0x00FF00FF00FF00FFull;
        m = (m | m >> 14) & 0x000000FF000000FFull;
        return (m | m >> 28) & 0xFFull;
    }
}

/* Inverse of plane_pack: the b plane bytes in p -> 8 b-bit fields, one per
 * byte. */
ALWAYS_INLINE uint64_t plane_unpack(uint64_t p, int b)
{
    switch (b) {
    case 8:
        return p;
    case 4:
        return (p | p << 28) & REP8(0x0F);
    case 2:
        p = (p | p << 28) & 0x00000F0F00000F0Full;
        return (p | p << 14) & REP8(0x03);
    default:
        p = (p | p << 28) & 0x0000000F0000000Full;
        p = (p | p << 14) & 0x0003000300030003ull;
        return (p | p << 7) & REP8(0x01);
    }
}

/* Byte k of each code (k = 0 low, 1 high) of c[0..7], one per byte. */
ALWAYS_INLINE uint64_t narrow8(const uint16_t *c, int k)
{
    uint64_t x = 0;
    _Pragma("GCC unroll 16")
    for (int i = 0; i < 8; i++) x |= (uint64_t)((c[i] >> (8 * k)) & 0xFF) << (8 * i);
    return x;
}

ALWAYS_INLINE void store_le(uint8_t *o, uint64_t v, int nbytes)
{
    if (MX_PACK_LE && nbytes == 8) { memcpy(o, &v, 8); return; }
    _Pragma("GCC unroll 16")
    for (int k = 0; k < nbytes; k++) o[k] = (uint8_t)(v >> (8 * k));
}

ALWAYS_INLINE uint64_t load_le(const uint8_t *p, int nbytes)
{
    uint64_t v = 0;
    if (MX_PACK_LE && nbytes == 8) { memcpy(&v, p, 8); return v; }
    _Pragma("GCC unroll 16")
    for (int k = 0; k < nbytes; k++) v |= (uint64_t)p[k] << (8 * k);
    return v;
}

/* The sub-byte planes (4, 2, 1 as present in r = width mod 8) of the fields
 * in x, packed into r bytes.  Written out without a loop so that nothing but
 * straight-line code reaches the vectorizer. */
ALWAYS_INLINE uint64_t small_planes_pack(uint64_t x, int r)
{
    uint64_t out = 0;
    int off = 0;
    if (r & 4) { out = plane_pack(x, 0, 4); off = 4; }
    if (r & 2) { out |= plane_pack(x, off, 2) << (8 * off); off += 2; }
    if (r & 1) out |= plane_pack(x, off, 1) << (8 * off);
    return out;
}

ALWAYS_INLINE uint64_t small_planes_unpack(uint64_t p, int r)
{
    uint64_t x = 0;
    int off = 0;
    if (r & 4) { x = plane_unpack(p & 0xFFFFFFFFull, 4); off = 4; }
    if (r & 2) { x |= plane_unpack((p >> (8 * off)) & 0xFFFFull, 2) << off; off += 2; }
    if (r & 1) x |= plane_unpack((p >> (8 * off)) & 0xFFull, 1) << off;
    return x;
}

/* Packs one group of 8 codes into o[0 .. w).  wide != 0: 8 bytes may be
 * written at o + w - (w & 7) (the following group overwrites them). */
ALWAYS_INLINE void group_pack(int w, const uint16_t *c, uint8_t *o, int wide)
{
    if (w == 16) {
        _Pragma("GCC unroll 16")
    for (int i = 0; i < 8; i++) {
            o[2 * i] = (uint8_t)c[i];
            o[2 * i + 1] = (uint8_t)(c[i] >> 8);
        }
        return;
    }
    int r = w & 7;
    uint64_t lo = narrow8(c, 0);
    if (w >= 8) {
        store_le(o, lo, 8);
        if (r) store_le(o + 8, small_planes_pack(narrow8(c, 1), r), wide ? 8 : r);
    } else {
        store_le(o, small_planes_pack(lo, r), wide ? 8 : r);
    }
}

ALWAYS_INLINE void group_unpack(int w, const uint8_t *p, uint16_t *c, int wide)
{
    if (w == 16) {
        _Pragma("GCC unroll 16")
    for (int i = 0; i < 8; i++) c[i] = (uint16_t)(p[2 * i] | p[2 * i + 1] << 8);
        return;
    }
    int r = w & 7;
    uint64_t lo, hi = 0;
    if (w >= 8) {
        lo = load_le(p, 8);
        if (r) hi = small_planes_unpack(load_le(p + 8, wide ? 8 : r), r);
    } else {
        lo = small_planes_unpack(load_le(p, wide ? 8 : r), r);
    }
    _Pragma("GCC unroll 16")
    for (int i = 0; i < 8; i++)
        c[i] = (uint16_t)(((lo >> (8 * i)) & 0xFF) | ((hi >> (8 * i)) & 0xFF) << 8);
}

/* ---- chunks of CHUNK groups, in 16-bit lanes ------------------------------
 * The same planes computed 8 groups per SSE2 operation.  After narrowing the
 * codes to bytes, the 16-bit word q[m] (m = 0..3) of a group holds the fields
 * of codes 2m (low byte) and 2m+1 (high byte); with F_m the plane's fields
 * masked out of q[m], the plane layout of mx_pack.h becomes
 *   4-bit plane: words F0 | F2 << 4,  F1 | F3 << 4      (bytes 0..3)
 *   2-bit plane: word  F0 | F1 << 2 | F2 << 4 | F3 << 6 (bytes 0..1)
 *   1-bit plane: S = F0 | F1 << 2 | F2 << 4 | F3 << 6, byte (S | S >> 7) & 0xFF
 * Passes: narrow (vectorized), planes (vectorized, stride-4 words), one
 * overlapping 8-byte store per group; unpack runs them backwards. */

#define CHUNK 64

/* The sub-byte planes of r = width mod 8 from the 4 field words q, as 4
 * output words (unused words 0). */
ALWAYS_INLINE void planes16_pack(const uint16_t *q, uint16_t *out, int r)
{
    unsigned w0 = 0, w1 = 0, w2 = 0, w3 = 0, f0, f1, f2, f3;
    int off = 0, word = 0;
#define FIELDS(sh, mask)                                                       \
    (f0 = (unsigned)(q[0] >> (sh)) & (mask), f1 = (unsigned)(q[1] >> (sh)) & (mask), \
     f2 = (unsigned)(q[2] >> (sh)) & (mask), f3 = (unsigned)(q[3] >> (sh)) & (mask))
#define PUT(k, v) (k == 0 ? (w0 = (v)) : k == 1 ? (w1 = (v)) : k == 2 ? (w2 = (v)) : (w3 = (v)))
    if (r & 4) {
        FIELDS(0, 0x0F0Fu);
        w0 = f0 | f2 << 4;
        w1 = f1 | f3 << 4;
        off = 4;
        word = 2;
    }
    if (r & 2) {
        FIELDS(off, 0x0303u);
        PUT(word, f0 | f1 << 2 | f2 << 4 | f3 << 6);
        off += 2;
        word++;
    }
    if (r & 1) {
        FIELDS(off, 0x0101u);
        unsigned sw = f0 | f1 << 2 | f2 << 4 | f3 << 6;
        PUT(word, (sw | sw >> 7) & 0xFFu);
    }
#undef FIELDS
#undef PUT
    out[0] = (uint16_t)w0;
    out[1] = (uint16_t)w1;
    out[2] = (uint16_t)w2;
    out[3] = (uint16_t)w3;
}

ALWAYS_INLINE void planes16_unpack(const uint16_t *in, uint16_t *q, int r)
{
    unsigned f0 = 0, f1 = 0, f2 = 0, f3 = 0;
    int off = 0, word = 0;
#define ADD(v, mask)                                                           \
    (f0 |= ((v) & (mask)) << off, f1 |= (((v) >> 2) & (mask)) << off,          \
     f2 |= (((v) >> 4) & (mask)) << off, f3 |= (((v) >> 6) & (mask)) << off)
    if (r & 4) {
        f0 = in[0] & 0x0F0Fu;
        f2 = (unsigned)(in[0] >> 4) & 0x0F0Fu;
        f1 = in[1] & 0x0F0Fu;
        f3 = (unsigned)(in[1] >> 4) & 0x0F0Fu;
        off = 4;
        word = 2;
    }
    if (r & 2) {
        unsigned wd = in[word];
        ADD(wd, 0x0303u);
        off += 2;
        word++;
    }
    if (r & 1) {
        unsigned b = in[word] & 0xFFu, sw = b | b << 7;
        ADD(sw, 0x0101u);
    }
#undef ADD
    q[0] = (uint16_t)f0;
    q[1] = (uint16_t)f1;
    q[2] = (uint16_t)f2;
    q[3] = (uint16_t)f3;
}

ALWAYS_INLINE void chunk_pack(int w, const uint16_t *c, uint8_t *o)
{
    uint16_t lo[4 * CHUNK], hi[4 * CHUNK], pw[4 * CHUNK];
    uint8_t *lo8 = (uint8_t *)lo, *hi8 = (uint8_t *)hi;
    int r = w & 7;
    for (int i = 0; i < 8 * CHUNK; i++) lo8[i] = (uint8_t)c[i];
    if (w > 8)
        for (int i = 0; i < 8 * CHUNK; i++) hi8[i] = (uint8_t)(c[i] >> 8);
    for (int g = 0; g < CHUNK; g++) planes16_pack(w > 8 ? &hi[4 * g] : &lo[4 * g], &pw[4 * g], r);
    for (int g = 0; g < CHUNK; g++) {
        uint8_t *og = o + (size_t)w * (size_t)g;
        if (w > 8) {
            memcpy(og, &lo[4 * g], 8);
            memcpy(og + 8, &pw[4 * g], 8);
        } else {
            memcpy(og, &pw[4 * g], 8);
        }
    }
}

ALWAYS_INLINE void chunk_unpack(int w, const uint8_t *p, uint16_t *c)
{
    uint16_t lo[4 * CHUNK], hi[4 * CHUNK], pw[4 * CHUNK];
    uint8_t *lo8 = (uint8_t *)lo, *hi8 = (uint8_t *)hi;
    int r = w & 7;
    for (int g = 0; g < CHUNK; g++) {
        const uint8_t *pg = p + (size_t)w * (size_t)g;
        if (w > 8) {
            memcpy(&lo[4 * g], pg, 8);
            memcpy(&pw[4 * g], pg + 8, 8);
        } else {
            memcpy(&pw[4 * g], pg, 8);
        }
    }
    for (int g = 0; g < CHUNK; g++) planes16_unpack(&pw[4 * g], w > 8 ? &hi[4 * g] : &lo[4 * g], r);
    if (w > 8)
        for (int i = 0; i < 8 * CHUNK; i++) c[i] = (uint16_t)(lo8[i] | hi8[i] << 8);
    else
        for (int i = 0; i < 8 * CHUNK; i++) c[i] = lo8[i];
}

/* ---- per-width loops --------------------------------------------------------
 * Groups whose 8-byte over-read/over-write stays inside the buffer go through
 * the chunked path (little-endian hosts, widths that are not whole bytes); the
 * rest one group at a time. */

ALWAYS_INLINE size_t wide_groups(int w, size_t groups, size_t total)
{
    /* group g may touch bytes up to g*w + (w & ~7) + 8 */
    size_t reach = (size_t)(w & ~7) + 8;
    if (total < reach) return 0;
    size_t g = (total - reach) / (size_t)w + 1;
    return g < groups ? g : groups;
}

ALWAYS_INLINE size_t chunked_groups(int w, size_t groups, size_t total)
{
    if (!MX_PACK_LE || (w & 7) == 0) return 0;
    return wide_groups(w, groups, total) / CHUNK * CHUNK;
}

#define PACK_WIDTH(W)                                                          \
    static void pack_w##W(const uint16_t *c, size_t groups, size_t total,      \
                          uint8_t *o)                                          \
    {                                                                          \
        size_t gc = chunked_groups(W, groups, total), g;                       \
        for (g = 0; g < gc; g += CHUNK) chunk_pack(W, c + 8 * g, o + (W) * g); \
        for (; g < groups; g++) group_pack(W, c + 8 * g, o + (W) * g, 0);      \
    }                                                                          \
    static void unpack_w##W(const uint8_t *p, size_t groups, size_t total,     \
                            uint16_t *c)                                       \
    {                                                                          \
        size_t gc = chunked_groups(W, groups, total), g;                       \
        for (g = 0; g < gc; g += CHUNK)                                        \
            chunk_unpack(W, p + (W) * g, c + 8 * g);                           \
        for (; g < groups; g++) group_unpack(W, p + (W) * g, c + 8 * g, 0);    \
    }

PACK_WIDTH(1)  PACK_WIDTH(2)  PACK_WIDTH(3)  PACK_WIDTH(4)
PACK_WIDTH(5)  PACK_WIDTH(6)  PACK_WIDTH(7)  PACK_WIDTH(8)
PACK_WIDTH(9)  PACK_WIDTH(10) PACK_WIDTH(11) PACK_WIDTH(12)
PACK_WIDTH(13) PACK_WIDTH(14) PACK_WIDTH(15) PACK_WIDTH(16)

typedef void (*pack_fn)(const uint16_t *, size_t, size_t, uint8_t *);
typedef void (*unpack_fn)(const uint8_t *, size_t, size_t, uint16_t *);

static const pack_fn pack_fns[17] = {
    0, pack_w1, pack_w2, pack_w3, pack_w4, pack_w5, pack_w6, pack_w7, pack_w8,
    pack_w9, pack_w10, pack_w11, pack_w12, pack_w13, pack_w14, pack_w15, pack_w16};
static const unpack_fn unpack_fns[17] = {
    0, unpack_w1, unpack_w2, unpack_w3, unpack_w4, unpack_w5, unpack_w6, unpack_w7,
    unpack_w8, unpack_w9, unpack_w10, unpack_w11, unpack_w12, unpack_w13, unpack_w14,
    unpack_w15, unpack_w16};

/* ---- public ------------------------------------------------------------- */

void mx_pack(int width, const uint16_t *codes, size_t n, uint8_t *out)
{
    if (width < 1 || width > 16) return;
    size_t groups = n / 8, total = mx_pack_bytes(width, n);
    pack_fns[width](codes, groups, total, out);

    /* Tail: little-endian bit stream. */
    size_t rem = n % 8;
    if (rem == 0) return;
    uint8_t *t = out + groups * (size_t)width;
    size_t tbytes = total - groups * (size_t)width;
    uint32_t mask = (1u << width) - 1;
    memset(t, 0, tbytes);
    for (size_t j = 0; j < rem; j++) {
        uint32_t v = codes[8 * groups + j] & mask;
        size_t bit = j * (size_t)width;
        for (int k = 0; k < width; k++, bit++)
            if (v >> k & 1) t[bit / 8] |= (uint8_t)(1u << (bit % 8));
    }
}

void mx_unpack(int width, const uint8_t *in, size_t n, uint16_t *codes)
{
    if (width < 1 || width > 16) return;
    size_t groups = n / 8, total = mx_pack_bytes(width, n);
    unpack_fns[width](in, groups, total, codes);

    size_t rem = n % 8;
    const uint8_t *t = in + groups * (size_t)width;
    for (size_t j = 0; j < rem; j++) {
        uint32_t v = 0;
        size_t bit = j * (size_t)width;
        for (int k = 0; k < width; k++, bit++)
            v |= (uint32_t)(t[bit / 8] >> (bit % 8) & 1) << k;
        codes[8 * groups + j] = (uint16_t)v;
    }
}
