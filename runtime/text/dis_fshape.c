/* The bundle-level tail of the proof's fast form, kept per bundle shape (dis_fshape.h): the table and the
 * making of an entry, which asks, once per shape, what dis_fast.c's tail asks of every bundle (the same steps in
 * the same terms: the default ops and their conditions, the FIELD == FIELD pairs, the first defaults, the
 * format's other fields at 0, the formats before the printed one by tsr_dis_fmt_never) and keeps what is left
 * to compare on the fields.
 */
#include <stdlib.h>
#include <string.h>

#include "bits.h"
#include "dis_fshape.h"
#include "xalloc.h"

/* The index at twice its capacity, its entries placed again by their keys' hashes. */
static void grow(struct tsr_fx_shapes *S)
{
    uint32_t cap = S->cap ? S->cap * 2 : 1024;
    uint64_t *idx = tsr_xcalloc(cap, sizeof *idx);
    uint32_t shift = 64;
    for (uint32_t c = cap; c > 1; c >>= 1)
        shift--;
    for (uint32_t i = 0; i < S->n; i++) {
        const struct tsr_fx_shape *e = &S->ent[i];
        struct tsr_fx_skey k = {
            .bound = e->bound, .ops0 = e->ops0, .ops1 = e->ops1, .pairs = e->pairs, .meta = e->meta};
        uint64_t h = tsr_fx_shape_hash(&k);
        uint32_t j = (uint32_t)(h >> shift);
        while (idx[j])
            j = (j + 1) & (cap - 1);
        idx[j] = h >> 32 << 32 | (i + 1);
    }
    free(S->idx);
    S->idx = idx, S->cap = cap, S->shift = shift;
}

/* Room for one more entry (entries on 128-byte boundaries: an entry spans two cache lines, not three, and its usual
 * part lies in the first). */
static void room(struct tsr_fx_shapes *S)
{
    if (S->n < S->cent)
        return;
    uint32_t cent = S->cent ? S->cent * 2 : 256;
    void *raw = tsr_xcalloc((size_t)cent + 1, sizeof *S->ent);
    struct tsr_fx_shape *ent = (struct tsr_fx_shape *)(((uintptr_t)raw + 127) & ~(uintptr_t)127);
    if (S->n)
        memcpy(ent, S->ent, (size_t)S->n * sizeof *ent);
    free(S->raw);
    S->raw = raw, S->ent = ent, S->cent = cent;
}

/* A comparison kept (f[fd] == val), or check id (fd 0); false when val has more than 56 bits. */
static bool push(struct tsr_fx_shapes *S, uint32_t fd, uint64_t val)
{
    if (val >> 56)
        return false;
    if (S->nchk == S->cchk) {
        S->cchk = S->cchk ? S->cchk * 2 : 4096;
        S->chk = tsr_xrealloc(S->chk, (size_t)S->cchk * sizeof *S->chk);
    }
    S->chk[S->nchk++] = val << 8 | fd;
    return true;
}

/* dis_fast.c defaults_hold for one default list d[0 .. nd): each field *B leaves unset, at its first default in
 * the list (each must be the field's value: kept as a comparison); binds them. */
static bool defaults(struct tsr_fx_shapes *S, const struct tsr_tc_isa *isa, const struct tsr_tc_default *d,
                     uint32_t nd, uint64_t *B)
{
    uint64_t seen = 0;
    for (uint32_t i = 0; i < nd; i++) {
        unsigned fd = d[i].field;
        uint64_t b = (uint64_t)1 << fd;
        if (seen & b)
            continue;
        seen |= b;
        if (!(*B & b) && !push(S, fd, d[i].val & tsr_bits_mask(isa->fields[fd].width)))
            return false;
    }
    *B |= seen;
    return true;
}

/* Conditions conds[first .. first + n) (dis_fast.c fconds): a binding is a comparison and binds the field; a
 * check is kept in cid[] (*nc of at most 64), unless `decoded` (a format's selector that holds on every bundle the
 * decoder gives that format: textcodec.h tsr_tc_format.sel_decoded); false for a FIELD == FIELD condition or a
 * constant of more than 56 bits (not kept). */
static bool conds(struct tsr_fx_shapes *S, const struct tsr_tc_isa *isa, uint32_t first, uint32_t n, uint64_t *B,
                  uint32_t *cid, uint32_t *nc, bool decoded)
{
    for (uint32_t i = 0; i < n; i++) {
        const struct tsr_tc_cond *c = &isa->conds[first + i];
        if (c->kind == TSR_TC_BIND) {
            if (!push(S, c->field, c->val & tsr_bits_mask(isa->fields[c->field].width)))
                return false;
            *B |= (uint64_t)1 << c->field;
        } else if (c->kind != TSR_TC_BIND2 && decoded) {
            continue;
        } else if (c->kind != TSR_TC_BIND2 && *nc < 64) {
            cid[(*nc)++] = c->id;
        } else {
            return false;
        }
    }
    return true;
}

/* The entry of shape k (fmt's slots' ops in `ops`, parts printed at positions `printed`, fields bound B, pairs
 * eq): dis_fast.c's tail after the parts, for every bundle of this shape.  A slot not printed is read as its
 * default op (tsr_fx_shape_holds compares the op there first: the entry is never made from, nor kept for, another
 * op there). */
static void make(struct tsr_fx_shapes *S, struct tsr_fx_shape *e, const struct tsr_tc_isa *isa, unsigned fmt,
                 const uint16_t *ops, uint64_t printed, uint64_t B, const uint16_t *eq, uint32_t neq)
{
    const struct tsr_tc_format *F = &isa->formats[fmt];
    uint32_t off = S->nchk;
    e->state = TSR_FX_SHAPE_CMP;
    uint32_t cid[64], nc = 0;   /* the checks, kept after the comparisons */
    /* the format's conditions (its selector: dis_fast.c asks them of no other shape), then the conditions of the
     * slots not printed's default ops; a FIELD == FIELD condition in either is not kept */
    if (!conds(S, isa, F->cond, F->ncond, &B, cid, &nc, F->sel_decoded)) {
        e->state = TSR_FX_SHAPE_STEPS;
        goto done;
    }
    for (uint32_t t = 0; t < F->nslot; t++) {
        if (printed >> t & 1)
            continue;
        if (isa->idx[F->slot + t] > 0xff) {   /* dslot[] holds bytes */
            e->state = TSR_FX_SHAPE_STEPS;
            goto done;
        }
        e->dslot[e->nd++] = (uint8_t)isa->idx[F->slot + t];
        const struct tsr_tc_op *d = &isa->ops[isa->slots[isa->idx[F->slot + t]].default_op];
        if (!conds(S, isa, d->cond, d->ncond, &B, cid, &nc, false)) {
            e->state = TSR_FX_SHAPE_STEPS;
            goto done;
        }
    }
    /* FIELD == FIELD: a bound side binds the other; each pair needs one.  The values need no comparison: the
     * checkers record a pair only when the two fields are equal (dis_fx.h tsr_fx_pair). */
    for (bool changed = neq > 0; changed;) {
        changed = false;
        for (uint32_t i = 0; i + 1 < neq; i += 2) {
            uint64_t a = (uint64_t)1 << eq[i], b = (uint64_t)1 << eq[i + 1];
            if (!(B & a) != !(B & b)) {
                B |= a | b;
                changed = true;
            }
        }
    }
    for (uint32_t i = 0; i < neq; i += 2)
        if (!(B >> eq[i] & 1)) {
            e->state = TSR_FX_SHAPE_FAILS;
            goto done;
        }
    /* the fields nothing bound: the first default for them (ops' in slot order, then the format's), else 0 */
    for (uint32_t t = 0; t < F->nslot; t++) {
        unsigned slot = isa->idx[F->slot + t];
        const struct tsr_tc_op *o = &isa->ops[printed >> t & 1 ? ops[slot] : isa->slots[slot].default_op];
        if (!defaults(S, isa, isa->defs + o->def, o->ndef, &B)) {
            e->state = TSR_FX_SHAPE_STEPS;
            goto done;
        }
    }
    if (!defaults(S, isa, isa->defs + F->def, F->ndef, &B)) {
        e->state = TSR_FX_SHAPE_STEPS;
        goto done;
    }
    for (uint32_t i = 0; i < F->nfield; i++) {
        unsigned fd = isa->idx[F->field + i];
        if (!(B >> fd & 1)) {
            push(S, fd, 0);
            B |= (uint64_t)1 << fd;
        }
    }
    uint32_t nf = S->nchk - off;
    for (uint32_t i = 0; i < nc; i++)
        push(S, 0, cid[i]);
    if (nf > 0xff || nc > 0xff) {
        e->state = TSR_FX_SHAPE_STEPS;
        goto done;
    }
    e->nf = (uint8_t)nf, e->nc = (uint8_t)nc;
    bool narrow = nf + nc <= TSR_FX_SHAPE_IN;   /* inside the entry (values below 2^24); chk[] keeps the others */
    for (uint32_t i = 0; i < nf + nc && narrow; i++)
        narrow = S->chk[off + i] >> 32 == 0;
    e->off = off;
    if (narrow) {
        for (uint32_t i = 0; i < nf + nc; i++)
            e->in[i] = (uint32_t)S->chk[off + i];
        S->nchk = off;
        e->off = TSR_FX_SHAPE_CHK;
    }
    return;
done:
    S->nchk = off, e->nf = e->nc = 0;
}

const struct tsr_fx_shape *tsr_fx_shape_new(struct tsr_fx_shapes **Sp, const struct tsr_tc_isa *isa, unsigned fmt,
                                            const uint16_t *ops, uint64_t printed, uint64_t bound,
                                            const uint16_t *eq, uint32_t neq)
{
    struct tsr_fx_shapes *S = *Sp;
    if (!S) {
        S = *Sp = tsr_xcalloc(1, sizeof *S);
        for (unsigned a = 0; a < isa->nops; a++)
            S->opdefs |= isa->ops[a].ndef > 0;
        grow(S);
    }
    struct tsr_fx_skey key = tsr_fx_skey_of(isa, S->opdefs, fmt, ops, printed, bound, eq, neq), *k = &key;
    if (S->n >= TSR_FX_SHAPES_MAX)
        return NULL;
    if (2 * (S->n + 1) > S->cap)
        grow(S);
    room(S);
    uint64_t h = tsr_fx_shape_hash(k);
    uint32_t j = (uint32_t)(h >> S->shift);
    while (S->idx[j])
        j = (j + 1) & (S->cap - 1);
    struct tsr_fx_shape *e = &S->ent[S->n];
    memset(e, 0, sizeof *e);
    e->bound = k->bound, e->meta = k->meta, e->ops0 = k->ops0, e->ops1 = k->ops1, e->pairs = k->pairs;
    S->idx[j] = h >> 32 << 32 | (S->n + 1);
    S->n++;
    make(S, e, isa, fmt, ops, printed, bound, eq, neq);
    return e;
}

void tsr_fx_shapes_free(struct tsr_fx_shapes *S)
{
    if (!S)
        return;
    free(S->idx);
    free(S->raw);
    free(S->chk);
    free(S);
}
