/*
 * mx_pack.h — perfect bit packing of eXmY codes (SPEC §2.4, Google eXmY,
 * arXiv 2405.13938): n codes of `width` bits (1..16) take exactly
 * ceil(n * width / 8) bytes, in byte-addressable groups of 8 codes, and pack
 * with whole-byte shifts that the compiler vectorizes.
 *
 * Layout.  Codes go in groups of 8; group g (codes 8g .. 8g+7) occupies the
 * `width` bytes [g*width, g*width + width).  Inside a group the width is split
 * into power-of-two bit planes, largest first, and the largest plane holds the
 * lowest code bits:
 *
 *     width  planes (code bits)                    width  planes
 *       16   16 (15:0)                               8    8 (7:0)
 *       15   8 (7:0) 4 (11:8) 2 (13:12) 1 (14)       7    4 (3:0) 2 (5:4) 1 (6)
 *       13   8 (7:0) 4 (11:8) 1 (12)                 3    2 (1:0) 1 (2)
 *
 * A plane of b bits for 8 codes is b bytes, stored one after the other in plane
 * order.  In a plane with b <= 8, code i's b-bit field goes to
 *
 *     byte (i mod b), bits [b*(i div b), b*(i div b) + b)
 *
 * so every byte of the plane gathers codes with the same stride b.  The
 * 16-bit plane is code i as a little-endian uint16 at bytes 2i, 2i+1.
 * Width 7, group bytes B0..B6, code i = c_i, field bits c_i[hi:lo]:
 *
 *           bit 7..4      bit 3..0
 *     B0 | c4[3:0]     | c0[3:0]      \
 *     B1 | c5[3:0]     | c1[3:0]       | 4-bit plane: bytes 0..3
 *     B2 | c6[3:0]     | c2[3:0]       |
 *     B3 | c7[3:0]     | c3[3:0]      /
 *           bit 7:6      5:4       3:2       1:0
 *     B4 | c6[5:4]   | c4[5:4] | c2[5:4] | c0[5:4]    2-bit plane: bytes 4..5
 *     B5 | c7[5:4]   | c5[5:4] | c3[5:4] | c1[5:4]
 *     B6 | c7[6] c6[6] c5[6] c4[6] c3[6] c2[6] c1[6] c0[6]   1-bit plane: byte 6
 *
 * Planes are built by OR-ing the 8-code word with itself shifted by whole
 * bytes (e.g. the 4-bit plane is (w | w >> 28) & 0xFFFFFFFF over the 8 fields
 * held one per byte), the same fixed shifts for every group.
 *
 * Tail.  When n % 8 != 0 the last n % 8 codes form a tail stored after the
 * full groups as a plain little-endian bit stream: tail code j occupies bits
 * [j*width, (j+1)*width) counted from bit 0 of the tail's first byte; unused
 * bits of its last byte are 0.  The total stays ceil(n * width / 8).
 *
 * Code bits above `width` are ignored by mx_pack; mx_unpack returns codes
 * with them clear.  Widths outside 1..16 are a programming error (no-op).
 */
#ifndef MX_PACK_H
#define MX_PACK_H

#include "util/mx_fp_env.h" /* refuses -ffast-math, excess precision */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes holding n codes of `width` bits: exactly ceil(n * width / 8). */
size_t mx_pack_bytes(int width, size_t n);

/* Packs n codes into out[0 .. mx_pack_bytes(width, n)). */
void mx_pack(int width, const uint16_t *codes, size_t n, uint8_t *out);

/* Unpacks n codes from in[0 .. mx_pack_bytes(width, n)). */
void mx_unpack(int width, const uint8_t *in, size_t n, uint16_t *codes);

#ifdef __cplusplus
}
#endif
#endif
