// Tests of eXmY bit-plane packing (SPEC §2.4, models/formats/mx_pack.h).
// Expected bytes come from hand derivations of the layout in mx_pack.h and
// from a bit-at-a-time reference packer written here from that definition.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

extern "C" {
#include "formats/mx_pack.h"
#include "formats/mx_rng.h"
}

namespace {

// Slow reference, straight from the header's definition: planes largest
// first holding the lowest code bits; in a b-bit plane (b <= 8) code i's field
// goes to byte (i mod b), bits b*(i div b)...; the 16-bit plane is little-endian
// per code; the tail is a little-endian bit stream.
std::vector<uint8_t> RefPack(int w, const std::vector<uint16_t> &c)
{
    size_t n = c.size(), groups = n / 8;
    size_t total = (n * (size_t)w + 7) / 8;
    std::vector<uint8_t> out(total, 0);
    auto setbit = [&](size_t byte, int bit, int v) {
        if (v) out[byte] |= (uint8_t)(1u << bit);
    };
    std::vector<int> planes;
    if (w == 16) planes.push_back(16);
    else
        for (int b = 8; b >= 1; b >>= 1)
            if (w & b) planes.push_back(b);
    for (size_t g = 0; g < groups; g++) {
        size_t base = g * (size_t)w;
        int off = 0;
        for (int b : planes) {
            for (int i = 0; i < 8; i++) {
                int code = c[8 * g + i];
                for (int t = 0; t < b; t++) {
                    int v = (code >> (off + t)) & 1;
                    if (b == 16) setbit(base + 2 * i + t / 8, t % 8, v);
                    else setbit(base + i % b, b * (i / b) + t, v);
                }
            }
            base += (size_t)b;
            off += b;
        }
    }
    size_t tail = groups * (size_t)w;
    for (size_t j = 0; j < n % 8; j++)
        for (int t = 0; t < w; t++) {
            size_t bit = j * (size_t)w + (size_t)t;
            setbit(tail + bit / 8, (int)(bit % 8), (c[8 * groups + j] >> t) & 1);
        }
    return out;
}

std::vector<uint16_t> RandomCodes(int w, size_t n, uint64_t seed, bool high_garbage = false)
{
    std::vector<uint16_t> c(n);
    uint64_t s = seed;
    uint32_t mask = (1u << w) - 1;
    for (auto &x : c) {
        uint32_t r = (uint32_t)mx_rng_next(&s);
        x = (uint16_t)(high_garbage ? r : (r & mask));
    }
    return c;
}

std::vector<uint8_t> Pack(int w, const std::vector<uint16_t> &c)
{
    std::vector<uint8_t> out(mx_pack_bytes(w, c.size()));
    mx_pack(w, c.data(), c.size(), out.data());
    return out;
}

std::vector<uint16_t> Unpack(int w, const std::vector<uint8_t> &p, size_t n)
{
    std::vector<uint16_t> c(n);
    mx_unpack(w, p.data(), n, c.data());
    return c;
}

const size_t kLengths[] = {0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 511, 512, 513,
                           1023, 1024, 1031, 4096 + 5};

}  // namespace

TEST(Pack, ByteCountIsExactlyCeilOfBits)
{
    for (int w = 1; w <= 16; w++) {
        for (size_t n : kLengths) EXPECT_EQ(mx_pack_bytes(w, n), (n * (size_t)w + 7) / 8) << w << " " << n;
        EXPECT_EQ(mx_pack_bytes(w, 1000003), (1000003ull * (uint64_t)w + 7) / 8);
    }
    // SPEC §2.4: 8 elements of 7 bits take exactly 7 bytes.
    EXPECT_EQ(mx_pack_bytes(7, 8), 7u);
    EXPECT_EQ(mx_pack_bytes(7, 1), 1u);
    EXPECT_EQ(mx_pack_bytes(7, 9), 8u);
    EXPECT_EQ(mx_pack_bytes(13, 3), 5u);  // 39 bits
    EXPECT_EQ(mx_pack_bytes(0, 8), 0u);   // invalid width
    EXPECT_EQ(mx_pack_bytes(17, 8), 0u);
}

// Width 7, codes c0..c7 = 0x01 0x12 0x23 0x34 0x45 0x56 0x67 0x7F.
// 4-bit plane (bits 3:0), byte j = c_{j+4}[3:0] << 4 | c_j[3:0]:
//   B0 = 5<<4|1 = 0x51, B1 = 0x62, B2 = 0x73, B3 = 0xF<<4|4 = 0xF4.
// 2-bit plane (bits 5:4): fields c0..c7 = 0,1,2,3,0,1,2,3;
//   B4 = c6<<6|c4<<4|c2<<2|c0 = 2<<6|0|2<<2|0 = 0x88,
//   B5 = c7<<6|c5<<4|c3<<2|c1 = 3<<6|1<<4|3<<2|1 = 0xDD.
// 1-bit plane (bit 6): fields 0,0,0,0,1,1,1,1 -> B6 = 0xF0.
TEST(Pack, HandDerivedWidth7Group)
{
    std::vector<uint16_t> c = {0x01, 0x12, 0x23, 0x34, 0x45, 0x56, 0x67, 0x7F};
    std::vector<uint8_t> want = {0x51, 0x62, 0x73, 0xF4, 0x88, 0xDD, 0xF0};
    EXPECT_EQ(Pack(7, c), want);
    EXPECT_EQ(Unpack(7, want, 8), c);
}

// Width 3, codes 0..7 in a group, then a tail of 3 codes {5, 2, 7}.
// 2-bit plane (bits 1:0): fields 0,1,2,3,0,1,2,3 -> 0x88, 0xDD (as above).
// 1-bit plane (bit 2): 0,0,0,0,1,1,1,1 -> 0xF0.
// Tail, little-endian bit stream: 5 = 101b at bits 0-2, 2 = 010b at bits 3-5,
// 7 = 111b at bits 6-8: byte 0 = 1|1<<2|1<<4|1<<6|1<<7 = 0xD5, byte 1 = 0x01.
TEST(Pack, HandDerivedWidth3GroupAndTail)
{
    std::vector<uint16_t> c = {0, 1, 2, 3, 4, 5, 6, 7, 5, 2, 7};
    std::vector<uint8_t> want = {0x88, 0xDD, 0xF0, 0xD5, 0x01};
    EXPECT_EQ(Pack(3, c), want);
    EXPECT_EQ(Unpack(3, want, c.size()), c);
}

// Width 16: one plane, code i little-endian at bytes 2i, 2i+1.
// Width 8: one plane, code i at byte i.  Width 1: bit i of byte 0.
TEST(Pack, HandDerivedSinglePlaneWidths)
{
    std::vector<uint16_t> c16 = {0x1234, 0xABCD, 0, 0xFFFF, 1, 0x8000, 0x00FF, 0xFF00};
    std::vector<uint8_t> w16 = {0x34, 0x12, 0xCD, 0xAB, 0, 0, 0xFF, 0xFF,
                                1, 0, 0, 0x80, 0xFF, 0, 0, 0xFF};
    EXPECT_EQ(Pack(16, c16), w16);
    std::vector<uint16_t> c8 = {9, 8, 7, 6, 5, 4, 3, 255};
    EXPECT_EQ(Pack(8, c8), std::vector<uint8_t>({9, 8, 7, 6, 5, 4, 3, 255}));
    std::vector<uint16_t> c1 = {1, 0, 1, 1, 0, 0, 0, 1, 1};
    EXPECT_EQ(Pack(1, c1), std::vector<uint8_t>({0x8D, 0x01}));
}

// Width 13 = 8 + 4 + 1 with code i = 0x1000 | i << 8 | (0x10 + i) for even i,
// 0x0000 | i << 8 | (0x10 + i) for odd i.
// 8-bit plane: bytes 0x10..0x17.  4-bit plane (bits 11:8 = i):
// byte j = (j+4) << 4 | j -> 0x40 0x51 0x62 0x73.  1-bit plane (bit 12):
// 1,0,1,0,1,0,1,0 -> 0x55.
TEST(Pack, HandDerivedWidth13Group)
{
    std::vector<uint16_t> c(8);
    for (int i = 0; i < 8; i++) c[i] = (uint16_t)((i % 2 == 0 ? 0x1000 : 0) | i << 8 | (0x10 + i));
    std::vector<uint8_t> want = {0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
                                 0x40, 0x51, 0x62, 0x73, 0x55};
    EXPECT_EQ(Pack(13, c), want);
    EXPECT_EQ(Unpack(13, want, 8), c);
}

TEST(Pack, MatchesReferenceEveryWidthAndLength)
{
    for (int w = 1; w <= 16; w++)
        for (size_t n : kLengths) {
            auto c = RandomCodes(w, n, 1000 * (uint64_t)w + n);
            auto p = Pack(w, c);
            ASSERT_EQ(p, RefPack(w, c)) << "width " << w << " n " << n;
            ASSERT_EQ(Unpack(w, p, n), c) << "width " << w << " n " << n;
        }
}

TEST(Pack, RoundTripLargeEveryWidth)
{
    const size_t n = 1000003;  // not a multiple of 8, many chunks
    for (int w = 1; w <= 16; w++) {
        auto c = RandomCodes(w, n, 77 + (uint64_t)w);
        auto p = Pack(w, c);
        ASSERT_EQ(p.size(), (n * (size_t)w + 7) / 8);
        ASSERT_EQ(Unpack(w, p, n), c) << "width " << w;
    }
}

TEST(Pack, BitsAboveWidthIgnored)
{
    for (int w = 1; w <= 15; w++) {
        auto dirty = RandomCodes(w, 1031, 5 + (uint64_t)w, true);
        auto clean = dirty;
        for (auto &x : clean) x = (uint16_t)(x & ((1u << w) - 1));
        auto p = Pack(w, dirty);
        ASSERT_EQ(p, RefPack(w, clean)) << w;
        ASSERT_EQ(Unpack(w, p, clean.size()), clean) << w;
    }
}

// Group g's bytes depend only on group g's codes: changing one group changes
// only bytes [g*w, g*w + w); changing the tail changes only the tail bytes.
TEST(Pack, GroupsAreIndependentAndByteAddressable)
{
    const size_t n = 8 * 200 + 5;
    for (int w = 1; w <= 16; w++) {
        auto c = RandomCodes(w, n, 300 + (uint64_t)w);
        auto base = Pack(w, c);
        uint64_t s = 99 + (uint64_t)w;
        for (size_t g : {size_t(0), size_t(1), size_t(63), size_t(64), size_t(130), size_t(199), size_t(200)}) {
            auto d = c;
            size_t first = 8 * g, last = g < 200 ? 8 * g + 8 : n;
            for (size_t i = first; i < last; i++)
                d[i] = (uint16_t)((d[i] + 1 + (mx_rng_next(&s) % ((1u << w) - 1))) & ((1u << w) - 1));
            auto p = Pack(w, d);
            size_t lo = g * (size_t)w, hi = g < 200 ? lo + (size_t)w : p.size();
            for (size_t k = 0; k < p.size(); k++) {
                if (k < lo || k >= hi) {
                    ASSERT_EQ(p[k], base[k]) << "w " << w << " g " << g << " byte " << k;
                }
            }
            // the group can be decoded from its own bytes alone
            if (g < 200) {
                std::vector<uint8_t> own(p.begin() + (long)lo, p.begin() + (long)hi);
                auto back = Unpack(w, own, 8);
                for (int i = 0; i < 8; i++) ASSERT_EQ(back[i], d[first + i]);
            }
        }
    }
}

TEST(Pack, WritesNothingPastTheEnd)
{
    for (int w = 1; w <= 16; w++)
        for (size_t n : {size_t(8), size_t(64 * 8), size_t(64 * 8 + 8), size_t(64 * 8 * 3), size_t(64 * 8 * 3 + 3)}) {
            auto c = RandomCodes(w, n, 11 + n + (uint64_t)w);
            size_t total = mx_pack_bytes(w, n);
            std::vector<uint8_t> buf(total + 32, 0xA5);
            mx_pack(w, c.data(), n, buf.data());
            for (size_t k = total; k < buf.size(); k++) ASSERT_EQ(buf[k], 0xA5) << w << " " << n;
            std::vector<uint8_t> exact(buf.begin(), buf.begin() + (long)total);
            ASSERT_EQ(exact, RefPack(w, c));
            std::vector<uint16_t> out(n + 8, 0x5A5A);
            mx_unpack(w, exact.data(), n, out.data());
            for (size_t i = n; i < out.size(); i++) ASSERT_EQ(out[i], 0x5A5A);
        }
}
