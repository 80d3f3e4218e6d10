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

static void grow(struct tsr_fx_shapes *S)
{
    uint32_t cap = S->cap ? S->cap * 2 : 1024;
    struct tsr_fx_shape *tab = tsr_xcalloc(cap, sizeof *tab);
    uint32_t shift = 64;
    for (uint32_t c = cap; c > 1; c >>= 1)
        shift--;
    for (uint32_t i = 0; i < S->cap; i++) {
        if (!S->tab[i].used)
            continue;
        uint32_t j = tsr_fx_shape_slot(&S->tab[i].key, shift);
        while (tab[j].used)
            j = (j + 1) & (cap - 1);
        tab[j] = S->tab[i];
    }
    free(S->tab);
    S->tab = tab, S->cap = cap, S->shift = shift;
}

static void push(struct tsr_fx_shapes *S, uint32_t fd, uint64_t val)
{
    if (S->nchk == S->cchk) {
        S->cchk = S->cchk ? S->cchk * 2 : 4096;
        S->chk = tsr_xrealloc(S->chk, (size_t)S->cchk * sizeof *S->chk);
    }
    S->chk[S->nchk++] = (struct tsr_fx_chk){.val = val, .fd = fd};
}

/* dis_fast.c defaults_hold for one default list d[0 .. nd): each field *B leaves unset, at its first default in
 * the list (each must be the field's value: kept as a comparison); binds them. */
static void defaults(struct tsr_fx_shapes *S, const struct tsr_tc_isa *isa, const struct tsr_tc_default *d,
                     uint32_t nd, uint64_t *B)
{
    uint64_t seen = 0;
    for (uint32_t i = 0; i < nd; i++) {
        unsigned fd = d[i].field;
        uint64_t b = (uint64_t)1 << fd;
        if (seen & b)
            continue;
        seen |= b;
        if (!(*B & b))
            push(S, fd, d[i].val & tsr_bits_mask(isa->fields[fd].width));
    }
    *B |= seen;
}

/* Conditions conds[first .. first + n) (dis_fast.c fconds): a binding is a comparison and binds the field; a
 * check is kept in cid[] (*nc of at most 64); false for a FIELD == FIELD condition (not kept). */
static bool conds(struct tsr_fx_shapes *S, const struct tsr_tc_isa *isa, uint32_t first, uint32_t n, uint64_t *B,
                  uint32_t *cid, uint32_t *nc)
{
    for (uint32_t i = 0; i < n; i++) {
        const struct tsr_tc_cond *c = &isa->conds[first + i];
        if (c->kind == TSR_TC_BIND) {
            push(S, c->field, c->val & tsr_bits_mask(isa->fields[c->field].width));
            *B |= (uint64_t)1 << c->field;
        } else if (c->kind != TSR_TC_BIND2 && *nc < 64) {
            cid[(*nc)++] = c->id;
        } else {
            return false;
        }
    }
    return true;
}

/* The entry of shape k (fmt's slots' ops in `ops`, parts printed at positions `printed`, fields bound B, pairs
 * eq): dis_fast.c's tail after the parts, for every bundle of this shape. */
static void make(struct tsr_fx_shapes *S, struct tsr_fx_shape *e, const struct tsr_tc_isa *isa, unsigned fmt,
                 const uint16_t *ops, uint64_t printed, uint64_t B, const uint16_t *eq, uint32_t neq)
{
    const struct tsr_tc_format *F = &isa->formats[fmt];
    e->off = S->nchk, e->kept = 1, e->fail = 0;
    uint32_t cid[64], nc = 0;   /* the checks, kept after the comparisons */
    /* the format's conditions (its selector: dis_fast.c asks them of no other shape), then the slots not printed
     * hold their default ops (kept: tsr_fx_shape_holds compares), whose conditions hold; a FIELD == FIELD
     * condition in either is not kept */
    e->nd = 0;
    if (!conds(S, isa, F->cond, F->ncond, &B, cid, &nc)) {
        e->kept = 0;
        goto done;
    }
    for (uint32_t t = 0; t < F->nslot; t++) {
        if (printed >> t & 1)
            continue;
        e->dslot[e->nd++] = isa->idx[F->slot + t];
        const struct tsr_tc_op *d = &isa->ops[isa->slots[isa->idx[F->slot + t]].default_op];
        if (!conds(S, isa, d->cond, d->ncond, &B, cid, &nc)) {
            e->kept = 0;
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
            e->fail = 1;
            goto done;
        }
    /* the fields nothing bound: the first default for them (ops' in slot order, then the format's), else 0 */
    for (uint32_t t = 0; t < F->nslot; t++) {
        const struct tsr_tc_op *o = &isa->ops[ops[isa->idx[F->slot + t]]];
        defaults(S, isa, isa->defs + o->def, o->ndef, &B);
    }
    defaults(S, isa, isa->defs + F->def, F->ndef, &B);
    for (uint32_t i = 0; i < F->nfield; i++) {
        unsigned fd = isa->idx[F->field + i];
        if (!(B >> fd & 1)) {
            push(S, fd, 0);
            B |= (uint64_t)1 << fd;
        }
    }
    if (S->nchk - e->off > UINT16_MAX)
        e->kept = 0;
    e->nf = (uint16_t)(S->nchk - e->off), e->nc = (uint16_t)nc;
    for (uint32_t i = 0; i < nc; i++)
        push(S, 0, cid[i]);
done:
    if (e->fail || !e->kept)
        S->nchk = e->off, e->nf = e->nc = 0;
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
    struct tsr_fx_skey k = tsr_fx_skey_of(isa, S->opdefs, fmt, ops, printed, bound, eq, neq);
    if (S->n >= TSR_FX_SHAPES_MAX)
        return NULL;
    if (2 * (S->n + 1) > S->cap)
        grow(S);
    uint32_t j = tsr_fx_shape_slot(&k, S->shift);
    while (S->tab[j].used)
        j = (j + 1) & (S->cap - 1);
    struct tsr_fx_shape *e = &S->tab[j];
    e->key = k, e->used = 1;
    S->n++;
    make(S, e, isa, fmt, ops, printed, bound, eq, neq);
    return e;
}

void tsr_fx_shapes_free(struct tsr_fx_shapes *S)
{
    if (!S)
        return;
    free(S->tab);
    free(S->chk);
    free(S);
}
