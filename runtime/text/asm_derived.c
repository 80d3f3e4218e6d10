/* X4 in the assembler: derived fields (composites `field F = {G, H[3:0]}` and slices `G[4:2]`) as word-bit
 * images.  A field's value is spread over the word bits its pieces name (an inverted piece stores the
 * complement); two fields that share word bits agree when their images agree on the shared bits.  This is how
 * the assembler detects a conflict bit by bit (`m[4:2] = 7` against `m = 22`) and routes a derived field's
 * value into the fields of the format that hold its bits (asm_engine.c bind and finalize).  Words are at most
 * 1024 bits: an image is 16 64-bit chunks. */
#include <string.h>
#include "asm_derived.h"

void tsr_dv_image(const struct tsr_tc_isa *isa, unsigned field, uint64_t v, uint64_t *img, uint64_t *mask)
{
    uint32_t p0 = isa->fpiece_first[field], p1 = isa->fpiece_first[field + 1];
    unsigned bit = 0;   /* value bit of the current piece's low end: pieces run most significant first */
    for (uint32_t p = p1; p-- > p0;) {
        const struct tsr_tc_fpiece *q = &isa->fpieces[p];
        for (unsigned b = q->lo; b <= q->hi; b++, bit++) {
            uint64_t x = (bit < 64 ? v >> bit : 0) & 1;
            x ^= q->inverted;
            img[b / 64] = (img[b / 64] & ~((uint64_t)1 << (b % 64))) | x << (b % 64);
            mask[b / 64] |= (uint64_t)1 << (b % 64);
        }
    }
}

uint64_t tsr_dv_extract(const struct tsr_tc_isa *isa, unsigned field, const uint64_t *img)
{
    uint32_t p0 = isa->fpiece_first[field], p1 = isa->fpiece_first[field + 1];
    unsigned bit = 0;
    uint64_t v = 0;
    for (uint32_t p = p1; p-- > p0;) {
        const struct tsr_tc_fpiece *q = &isa->fpieces[p];
        for (unsigned b = q->lo; b <= q->hi; b++, bit++) {
            uint64_t x = (img[b / 64] >> (b % 64) & 1) ^ q->inverted;
            if (bit < 64)
                v |= x << bit;
        }
    }
    return v;
}

bool tsr_dv_agree(const struct tsr_tc_isa *isa, unsigned a, uint64_t va, unsigned b, uint64_t vb)
{
    uint64_t ia[TSR_DV_CHUNKS] = { 0 }, ma[TSR_DV_CHUNKS] = { 0 }, ib[TSR_DV_CHUNKS] = { 0 }, mb[TSR_DV_CHUNKS] = { 0 };
    tsr_dv_image(isa, a, va, ia, ma);
    tsr_dv_image(isa, b, vb, ib, mb);
    unsigned n = (isa->word_bits + 63) / 64;
    for (unsigned k = 0; k < n && k < TSR_DV_CHUNKS; k++)
        if ((ia[k] ^ ib[k]) & ma[k] & mb[k])
            return false;
    return true;
}

bool tsr_dv_overlap(const struct tsr_tc_isa *isa, unsigned a, unsigned b)
{
    for (uint32_t p = isa->fpiece_first[a]; p < isa->fpiece_first[a + 1]; p++)
        for (uint32_t q = isa->fpiece_first[b]; q < isa->fpiece_first[b + 1]; q++) {
            const struct tsr_tc_fpiece *x = &isa->fpieces[p], *y = &isa->fpieces[q];
            if (x->lo <= y->hi && y->lo <= x->hi)
                return true;
        }
    return false;
}

uint64_t tsr_dv_route(const struct tsr_tc_isa *isa, unsigned field, uint64_t v, unsigned from, uint64_t vfrom)
{
    uint64_t img[TSR_DV_CHUNKS] = { 0 }, mask[TSR_DV_CHUNKS] = { 0 };
    tsr_dv_image(isa, field, v, img, mask);
    memset(mask, 0, sizeof mask);
    tsr_dv_image(isa, from, vfrom, img, mask);
    return tsr_dv_extract(isa, field, img);
}
