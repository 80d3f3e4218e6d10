/* Bit access helpers for instruction words and fields.
 *
 * Bit numbering: bit 0 is the least significant bit; a field `[hi:lo]` holds bits hi..lo
 * inclusive (hi >= lo), as in the ISA documents under ../shared/isa (e.g. `[63:60]` is the
 * top four bits of a 64-bit word), and its value is (word >> lo) masked to hi-lo+1 bits.
 * Words wider than 64 bits are arrays of uint32_t, least significant 32-bit word first (the
 * layout of runtime/hexio.h): bit b lives in w[b / 32] at position b % 32.
 * All helpers are total for their documented argument ranges (no undefined shifts, including
 * 64-bit wide fields); arguments outside those ranges are programming errors and give
 * unspecified results, never undefined behaviour.
 */
#ifndef TSR_BITS_H
#define TSR_BITS_H

#include <stdbool.h>
#include <stdint.h>

/* The low `width` bits set, width 0..64 (0 -> 0, 64 -> all ones). */
static inline uint64_t tsr_bits_mask(unsigned width)
{
    return width >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << width) - 1;
}

/* Field [hi:lo] of `w`, 0 <= lo <= hi <= 63, right-aligned (zero-extended). */
static inline uint64_t tsr_bits_extract(uint64_t w, unsigned hi, unsigned lo)
{
    return (w >> (lo & 63)) & tsr_bits_mask(hi - lo + 1);
}

/* `w` with field [hi:lo] (0 <= lo <= hi <= 63) replaced by the low hi-lo+1 bits of `v`;
 * higher bits of `v` are ignored (check with tsr_bits_fits_*() first where it matters). */
static inline uint64_t tsr_bits_insert(uint64_t w, unsigned hi, unsigned lo, uint64_t v)
{
    uint64_t m = tsr_bits_mask(hi - lo + 1) << (lo & 63);
    return (w & ~m) | ((v << (lo & 63)) & m);
}

/* Sign-extends the low `width` bits of `v` (width 1..64) to int64_t; width 0 gives 0.
 * Example: tsr_bits_sext(0x1f, 5) == -1, tsr_bits_sext(0x0f, 5) == 15. */
static inline int64_t tsr_bits_sext(uint64_t v, unsigned width)
{
    if (width == 0)
        return 0;
    uint64_t sign = (uint64_t)1 << ((width - 1) & 63);
    uint64_t x = v & tsr_bits_mask(width);
    /* (x ^ sign) - sign is the two's-complement value; the conversion to int64_t is modular on
     * gcc and clang (implementation-defined in C11, documented by both). */
    return (int64_t)((x ^ sign) - sign);
}

/* True if `v` fits in an unsigned field of `width` bits (0..64). */
static inline bool tsr_bits_fits_unsigned(uint64_t v, unsigned width)
{
    return (v & ~tsr_bits_mask(width)) == 0;
}

/* True if `v` fits in a two's-complement field of `width` bits (1..64). */
static inline bool tsr_bits_fits_signed(int64_t v, unsigned width)
{
    return width > 0 && tsr_bits_sext((uint64_t)v, width) == v;
}

/* Number of set bits in `v` (0..64). */
static inline unsigned tsr_bits_popcount(uint64_t v)
{
    return (unsigned)__builtin_popcountll(v);
}

/* `v` with all 64 bits in reverse order (bit 0 <-> bit 63). */
static inline uint64_t tsr_bits_reverse64(uint64_t v)
{
    v = ((v >> 1) & 0x5555555555555555u) | ((v & 0x5555555555555555u) << 1);
    v = ((v >> 2) & 0x3333333333333333u) | ((v & 0x3333333333333333u) << 2);
    v = ((v >> 4) & 0x0f0f0f0f0f0f0f0fu) | ((v & 0x0f0f0f0f0f0f0f0fu) << 4);
    v = ((v >> 8) & 0x00ff00ff00ff00ffu) | ((v & 0x00ff00ff00ff00ffu) << 8);
    v = ((v >> 16) & 0x0000ffff0000ffffu) | ((v & 0x0000ffff0000ffffu) << 16);
    return (v >> 32) | (v << 32);
}

/* The low `width` bits of `v` (width 0..64) in reverse order (bit 0 <-> bit width-1);
 * the result has no bits above width-1.  Example: tsr_bits_reverse(0x1, 9) == 0x100. */
static inline uint64_t tsr_bits_reverse(uint64_t v, unsigned width)
{
    if (width == 0)
        return 0;
    return tsr_bits_reverse64(v & tsr_bits_mask(width)) >> ((64 - width) & 63);
}

/* Field [hi:lo] of a multi-word value (uint32_t array, low word first), at any bit position,
 * hi - lo + 1 <= 64.  Example: bits [95:32] of a 128-bit word are w[1] | (uint64_t)w[2] << 32. */
static inline uint64_t tsr_wide_extract(const uint32_t *w, unsigned hi, unsigned lo)
{
    unsigned width = hi - lo + 1, got = 0;
    uint64_t v = 0;
    while (got < width) {
        unsigned bit = lo + got, shift = bit % 32, take = 32 - shift;
        if (take > width - got)
            take = width - got;
        v |= (uint64_t)((w[bit / 32] >> shift) & (uint32_t)tsr_bits_mask(take)) << (got & 63);
        got += take;
    }
    return v;
}

/* Replaces field [hi:lo] (hi - lo + 1 <= 64) of a multi-word value (low word first) by the low
 * hi-lo+1 bits of `v`; no other bit of `w` changes. */
static inline void tsr_wide_insert(uint32_t *w, unsigned hi, unsigned lo, uint64_t v)
{
    unsigned width = hi - lo + 1, done = 0;
    while (done < width) {
        unsigned bit = lo + done, shift = bit % 32, take = 32 - shift;
        if (take > width - done)
            take = width - done;
        uint32_t m = (uint32_t)tsr_bits_mask(take) << shift;
        uint32_t part = (uint32_t)((v >> (done & 63)) & tsr_bits_mask(take)) << shift;
        w[bit / 32] = (w[bit / 32] & ~m) | part;
        done += take;
    }
}

#endif
