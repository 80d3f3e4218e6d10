/* The bundle-level tail of the proof's fast form (dis_fast.c tsr_dis_fast), kept per bundle shape: private to
 * dis_fast.c and dis_fshape.c (runtime/text/).
 *
 * After each part's checker has passed, what is left of the fast form's tail (the format's conditions, the slots
 * not printed holding their default ops and those ops' conditions, FIELD == FIELD pairs, the fields nothing bound
 * at their first default or 0) reads the description on the bundle's shape only, and compares ops and fields
 * with constants.  The shape is
 *   - the format,
 *   - the slot positions printed (which parts there are; the others must hold their slot's default op),
 *   - the op printed at each position whose op has defaults (an op without defaults adds nothing to the tail),
 *   - the fields the checkers bound (one 64-bit word: the tail is kept only for isas of at most 64 fields),
 *   - the FIELD == FIELD pairs the checkers met, in order.
 * Each of those is in the key, and nothing else the tail reads depends on the bundle (the description is fixed
 * for the isa; a slot not printed is taken to hold its default op, which the entry compares).  So an entry keeps,
 * once per shape, the verdict of the shape alone (a pair nothing binds) and what is left to compare: the slots not
 * printed (each to hold its default op); each field with the constant it must hold (a binding among the format's or
 * a default op's conditions; the first default of a field nothing bound, ops' in slot order then the format's; 0
 * for the format's other fields); the other conditions of the format and the default ops (isa->check; none of the
 * format's where its decoder tested them, tsr_tc_format.sel_decoded: the bundle is the decoder's).  A shape
 * outside what the key can hold (more than 8 slots, 4 pairs, 64 fields, or a FIELD == FIELD condition among the
 * format's or a default op's, or a constant of more than 56 bits) is not kept: dis_fast.c runs the tail step by
 * step.  The formats the assembler tries before the printed one depend on the printed ops: dis_fast.c asks them
 * per op.
 *
 * Layout (a bundle touches few cache lines): an index of 64-bit words (the key's hash's top 32 bits, the entry's
 * number + 1; open addressing, at most half full) finds the entry; entries are 128 bytes on 128-byte boundaries,
 * kept in the order made, with their comparisons inside when they fit (TSR_FX_SHAPE_IN; nearly all shapes), so a
 * bundle reads one index word and one entry: of an isa without op defaults, a key without pairs and at most 8
 * comparisons, its first cache line only.
 */
#ifndef TSR_DIS_FSHAPE_H
#define TSR_DIS_FSHAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "textcodec.h"

/* The key: fields bound, printed ops with defaults at slot positions 0..3 and 4..7 (16 bits each, 0 where none),
 * the pairs' fields (8 bits each, in the order met), and fmt | printed positions << 16 | pair entries << 24. */
struct tsr_fx_skey { uint64_t bound, ops0, ops1, pairs, meta; };

/* The comparisons an entry holds in itself (the rest: TSR_FX_SHAPES' chk[]); a comparison is one word, val << 8 |
 * field (f[field] == val, field below 64), or a check id << 8 (isa->check(id, f)): in an entry a 32-bit word
 * (val below 2^24), in chk[] a 64-bit one (val below 2^56). */
#define TSR_FX_SHAPE_IN 18
#define TSR_FX_SHAPE_CHK UINT32_MAX   /* tsr_fx_shape.off of an entry whose comparisons are inside */

enum { TSR_FX_SHAPE_CMP, TSR_FX_SHAPE_FAILS, TSR_FX_SHAPE_STEPS };

/* An entry: what a bundle of the usual shapes reads (the key's bound and meta, the counts, the slots not printed
 * and up to 8 comparisons) lies in its first 64 bytes; the key's ops and pairs, which the lookup compares only for
 * isas with op defaults or keys with pairs, and comparisons 9 to 18 in the second. */
struct tsr_fx_shape {
    uint64_t bound, meta;   /* the key's (tsr_fx_skey) */
    uint32_t off;           /* TSR_FX_SHAPE_CHK: the comparisons are in[0 .. nf + nc); else chk[off .. off + nf + nc) */
    uint8_t nf, nc;         /* comparisons f[field] == val, then checks */
    uint8_t state;          /* CMP: holds when the comparisons do; FAILS: the shape alone fails; STEPS: not kept */
    uint8_t nd;             /* the slots not printed, each to hold its default op: dslot[0 .. nd) */
    uint8_t dslot[8];       /* slot numbers below 256 (a shape with another is not kept) */
    uint32_t in[TSR_FX_SHAPE_IN];   /* the comparisons, when they fit */
    uint64_t ops0, ops1, pairs;     /* the key's */
};
_Static_assert(sizeof(struct tsr_fx_shape) == 128 && offsetof(struct tsr_fx_shape, in) + 8 * sizeof(uint32_t) == 64,
               "an entry is two cache lines, its usual part the first");

struct tsr_fx_shapes {
    uint64_t *idx;              /* cap words: hash >> 32 << 32 | entry + 1, 0 empty */
    uint32_t cap, shift;        /* shift: 64 - log2(cap) */
    struct tsr_fx_shape *ent;   /* n of cent, 128-byte aligned (raw: the allocation) */
    void *raw;
    uint32_t n, cent;
    bool opdefs;                /* some op has defaults (else the key holds no op) */
    uint64_t *chk;              /* comparisons of entries with more than TSR_FX_SHAPE_IN */
    uint32_t nchk, cchk;
};

#define TSR_FX_SHAPES_MAX (1u << 18)

/* The hash of a key: the high bits of a product depend on every bit of its factor (bound's fields and the ops'
 * numbers sit anywhere in their words).  The index slot is its top log2(cap) bits.  (tsr_fx_shape writes it out
 * without the ops' and pairs' terms for keys where they are 0: keep the two alike.) */
static inline uint64_t tsr_fx_shape_hash(const struct tsr_fx_skey *k)
{
    return (k->bound ^ k->meta * UINT64_C(0xc2b2ae3d27d4eb4f) ^ k->pairs * UINT64_C(0x165667b19e3779f9) ^
            (k->ops0 + k->ops1 * UINT64_C(0xd6e8feb86659fd93))) *
           UINT64_C(0x9e3779b97f4a7c15);
}

/* The key of a bundle's shape (the arguments as for tsr_fx_shape; ops: S->opdefs). */
static inline struct tsr_fx_skey tsr_fx_skey_of(const struct tsr_tc_isa *isa, bool opdefs, unsigned fmt,
                                                const uint16_t *ops, uint64_t printed, uint64_t bound,
                                                const uint16_t *eq, uint32_t neq)
{
    const struct tsr_tc_format *F = &isa->formats[fmt];
    struct tsr_fx_skey k = {.bound = bound, .meta = fmt | printed << 16 | (uint64_t)neq << 24};
    for (uint32_t t = 0; opdefs && t < F->nslot; t++) {
        unsigned a = ops[isa->idx[F->slot + t]];
        if (!(printed >> t & 1) || !isa->ops[a].ndef)
            continue;   /* a slot not printed holds its default op; an op without defaults adds nothing */
        uint64_t o = (uint64_t)a << (16 * (t & 3));
        if (t < 4)
            k.ops0 |= o;
        else
            k.ops1 |= o;
    }
    for (uint32_t i = 0; i < neq; i++)
        k.pairs |= (uint64_t)(eq[i] & 0xff) << (8 * i);
    return k;
}

/* Makes the entry of a shape not in the table (dis_fshape.c), the arguments as for tsr_fx_shape. */
const struct tsr_fx_shape *tsr_fx_shape_new(struct tsr_fx_shapes **S, const struct tsr_tc_isa *isa, unsigned fmt,
                                            const uint16_t *ops, uint64_t printed, uint64_t bound,
                                            const uint16_t *eq, uint32_t neq);

/* The entry of key k in the index, whose hash is h (NULL: none); full: compare the key's ops and pairs too (else
 * the caller knows them 0 in k and in every entry of the same meta: an isa without op defaults has no ops in any
 * key, and a key's pairs are 0 when its meta says it has none). */
static inline const struct tsr_fx_shape *tsr_fx_shape_find(const struct tsr_fx_shapes *S,
                                                           const struct tsr_fx_skey *k, uint64_t h, bool full)
{
    for (uint32_t j = (uint32_t)(h >> S->shift);; j = (j + 1) & (S->cap - 1)) {
        uint64_t w = S->idx[j];
        if (!w)
            return NULL;
        if ((w ^ h) >> 32)
            continue;
        const struct tsr_fx_shape *e = &S->ent[(uint32_t)w - 1];
        if (e->bound == k->bound && e->meta == k->meta &&
            (!full || (e->ops0 == k->ops0 && e->ops1 == k->ops1 && e->pairs == k->pairs)))
            return e;
    }
}

/* The entry of a bundle's shape, made on first use (NULL: the table is full, TSR_FX_SHAPES_MAX entries).  The
 * caller asks only for a shape the key holds: isa of at most 64 fields; fmt: the format (< isa->nformats, below
 * 2^16) of at most 8 slots; at most 4 pairs (neq <= 8);
 * ops: the decoded ops per slot (isa->nslots), the printed ones valid ops (the others are seen by
 * tsr_fx_shape_holds to hold their slot's default op, and not read before);
 * printed: bit t for each slot position t of the format a part was printed in; bound: the fields the checkers
 * bound; eq[0 .. neq): the pairs they met (field numbers, two per pair). */
static inline const struct tsr_fx_shape *tsr_fx_shape(struct tsr_fx_shapes **Sp, const struct tsr_tc_isa *isa,
                                                      unsigned fmt, const uint16_t *ops, uint64_t printed,
                                                      uint64_t bound, const uint16_t *eq, uint32_t neq)
{
    const struct tsr_fx_shapes *S = *Sp;
    const struct tsr_fx_shape *e = NULL;
    if (S && !S->opdefs && !neq) {
        /* the key's ops and pairs are 0: tsr_fx_shape_hash without their terms (the same value) */
        struct tsr_fx_skey k = {.bound = bound, .meta = fmt | printed << 16};
        e = tsr_fx_shape_find(S, &k, (bound ^ k.meta * UINT64_C(0xc2b2ae3d27d4eb4f)) * UINT64_C(0x9e3779b97f4a7c15),
                              false);
    } else if (S) {
        struct tsr_fx_skey k = tsr_fx_skey_of(isa, S->opdefs, fmt, ops, printed, bound, eq, neq);
        e = tsr_fx_shape_find(S, &k, tsr_fx_shape_hash(&k), true);
    }
    return e ? e : tsr_fx_shape_new(Sp, isa, fmt, ops, printed, bound, eq, neq);
}

void tsr_fx_shapes_free(struct tsr_fx_shapes *S);

/* A kept entry (state CMP) holds on the decoded ops (per slot) and fields f: the slots not printed hold their
 * default ops, and the comparisons hold. */
static inline bool tsr_fx_shape_holds(const struct tsr_fx_shapes *S, const struct tsr_fx_shape *e,
                                      const struct tsr_tc_isa *isa, const uint16_t *ops, const uint64_t *f)
{
    for (uint32_t i = 0; i < e->nd; i++)
        if (ops[e->dslot[i]] != isa->slots[e->dslot[i]].default_op)
            return false;
    uint32_t nf = e->nf, n = nf + e->nc;
    uint64_t d = 0;
    if (e->off == TSR_FX_SHAPE_CHK) {
        const uint32_t *c = e->in;
        for (uint32_t i = 0; i < nf; i++)
            d |= f[c[i] & 0xff] ^ c[i] >> 8;
        if (d)
            return false;
        for (uint32_t i = nf; i < n; i++)
            if (!isa->check(c[i] >> 8, f))
                return false;
        return true;
    }
    const uint64_t *c = S->chk + e->off;
    for (uint32_t i = 0; i < nf; i++)
        d |= f[c[i] & 0xff] ^ c[i] >> 8;
    if (d)
        return false;
    for (uint32_t i = nf; i < n; i++)
        if (!isa->check((unsigned)(c[i] >> 8), f))
            return false;
    return true;
}

#endif
