/* The units an operation of a program with value names may go to (docs/pack.md "Values through forwards"): an op
 * declared for several slots (`op mul : m0 | m1`, docs/mdl.md X7) is one op, the same in each slot but for what
 * the slot's aliases name (its fields, the forward element its result goes to), so the packer may place it in any
 * of them, its readers then naming that slot's element.  Its text in another slot is its own with the template's
 * literal texts of that slot (the instances of one declaration differ only there: `{slot}` and the aliases);
 * each alternative must assemble alone to that slot's op.  A `move` of the input that is a plain copy may likewise
 * take the unit of any other move op that is one (docs/mdl.md X12).  Nothing here names a target, a unit or a
 * field. */
#include <stdlib.h>
#include <string.h>
#include "pack_route.h"
#include "target.h"
#include "text/textcodec.h"

/* tmpl (the text of op a) as op b's: each literal text part of a's template that differs from b's, found in
 * order, replaced by b's; NULL when the templates are not of one shape or a literal is not found. */
static char *retext(const struct tsr_tc_isa *I, unsigned a, unsigned b, const char *tmpl)
{
    const struct tsr_tc_op *A = &I->ops[a], *B = &I->ops[b];
    if (A->npart != B->npart)
        return NULL;
    struct tsr_buf o = { 0 };
    size_t at = 0;
    bool changed = false;
    for (uint32_t p = 0; p < A->npart; p++) {
        const struct tsr_tc_part *x = &I->parts[A->part + p], *y = &I->parts[B->part + p];
        if (x->kind != y->kind) {
            tsr_buf_free(&o);
            return NULL;
        }
        if (x->kind != TSR_TC_TEXT || (x->len == y->len && !memcmp(x->text, y->text, x->len)))
            continue;
        const char *f = x->len ? strstr(tmpl + at, x->text) : NULL;
        if (!f) {
            tsr_buf_free(&o);
            return NULL;
        }
        tsr_buf_append(&o, tmpl + at, (size_t)(f - (tmpl + at)));
        tsr_buf_append(&o, y->text, y->len);
        at = (size_t)(f - tmpl) + x->len;
        changed = true;
    }
    tsr_buf_puts(&o, tmpl + at);
    char *r = changed && o.data ? strdup(o.data) : NULL;
    tsr_buf_free(&o);
    return r;
}

/* tmpl (the text of op a) as op b's when both are `move` ops (docs/mdl.md X12: one source, copied): its leading
 * literal text (the mnemonic and unit) replaced by b's; NULL when either template does not start with one. */
static char *retext_move(const struct tsr_tc_isa *I, unsigned a, unsigned b, const char *tmpl)
{
    const struct tsr_tc_op *A = &I->ops[a], *B = &I->ops[b];
    if (!A->npart || !B->npart)
        return NULL;
    const struct tsr_tc_part *x = &I->parts[A->part], *y = &I->parts[B->part];
    if (x->kind != TSR_TC_TEXT || y->kind != TSR_TC_TEXT || !x->len || strncmp(tmpl, x->text, x->len))
        return NULL;
    struct tsr_buf o = { 0 };
    tsr_buf_append(&o, y->text, y->len);
    tsr_buf_puts(&o, tmpl + x->len);
    char *r = o.data ? strdup(o.data) : NULL;
    tsr_buf_free(&o);
    return r;
}

/* (pack_route.h) Is instance w of op `op` a plain copy: the op is one (t->op_copy, mdl/opcopy.c: a copy once its
 * optional parts that set a 1-bit field are absent) and those parts are absent from w (each part's field differs
 * from the value the part sets)?  A converting move, or a copy with its negation written, keeps its unit. */
bool tsr_route_plain_copy(const struct tsr_target *t, unsigned op, const uint32_t *w)
{
    if (!t->op_copy || !t->op_copy[op] || !t->text || op >= t->text->nops)
        return false;
    const struct tsr_tc_isa *I = t->text;
    const struct tsr_tc_op *O = &I->ops[op];
    void *inst = calloc(1, t->inst_size);
    bool ok = inst && !t->decode(w, inst);
    for (uint32_t p = 0; p < O->npart && ok; p++) {
        const struct tsr_tc_part *P = &I->parts[O->part + p];
        if (P->kind != TSR_TC_OPT || P->ncond != 1)
            continue;
        const struct tsr_tc_cond *C = &I->conds[P->cond];
        if (C->kind == TSR_TC_BIND && C->field < t->nfields && t->field_width[C->field] == 1)
            ok = t->inst_field(inst, C->field) != C->val;
    }
    free(inst);
    return ok;
}

void tsr_route_take_alt(struct rop *x, int a)
{
    if (a < 0 || a >= x->nalt || x->tmpl == x->alt[a])
        return;
    free(x->tmpl);
    x->tmpl = strdup(x->alt[a]);
    x->fwd = x->altfwd[a];
    x->elem = x->altelem[a];
}

void tsr_route_alternatives(struct route *R, struct rop *x)
{
    const struct tsr_target *t = R->t;
    x->nalt = 1;
    x->alt[0] = strdup(x->tmpl);
    x->altfwd[0] = x->fwd;
    x->altelem[0] = x->elem;
    x->altslot[0] = -1;
    unsigned op = 0, slot = 0;
    if (!t->op_decl || !t->text || x->fwd < 0 || tsr_route_real_ops(t, x->w, &op, &slot, NULL) != 1)
        return;
    x->altslot[0] = (int)slot;
    /* the sources at a placeholder of their shape: the root's element at its first readable age */
    const char *texts[ROUTE_MAXREF];
    for (int r = 0; r < x->nref; r++)
        if (!(texts[r] = tsr_pack_fwd_text(R->D, R->o[x->ref[r]].fwd, R->o[x->ref[r]].elem, R->o[x->ref[r]].lo)))
            return;
    struct tsr_buf b = { 0 };
    /* (a move of the input may take another move op's unit when both are plain copies: X12 allows converting
     * moves, and the text carries no conversion the op implies) */
    bool copy = R->move_attr >= 0 && (t->op_attrs[op] >> R->move_attr & 1) && tsr_route_plain_copy(t, op, x->w);
    for (unsigned y = 0; y < t->nops && x->nalt < ROUTE_MAXALT; y++) {
        bool mv = copy && (t->op_attrs[y] >> R->move_attr & 1) && t->op_copy[y];
        if (y == op || (t->op_decl[y] != t->op_decl[op] && !mv) || t->op_slot[y] == slot)
            continue;
        if (t->op_slot[y] < 64 && (x->altslots >> t->op_slot[y] & 1))
            continue;   /* (one alternative a slot) */
        char *m = t->op_decl[y] == t->op_decl[op] ? retext(t->text, op, y, x->tmpl) : retext_move(t->text, op, y, x->tmpl);
        if (!m)
            continue;
        /* it must assemble alone to op y in its slot (either order of a commutative op's sources) */
        bool ok = false;
        uint32_t w[TSR_PACK_MAX_NWORDS];
        for (int sw = 0; sw < (x->comm ? 2 : 1) && !ok; sw++) {
            tsr_route_instantiate(&b, m, x->nref, x->refname, texts, sw == 1);
            unsigned o2 = 0, s2 = 0;
            ok = b.data && !t->assemble_one(b.data, b.len, 0, w, NULL, 0) &&
                 tsr_route_real_ops(t, w, &o2, &s2, NULL) == 1 && o2 == y;
        }
        int fwd = -1, elem = 0, lo = 0, hi = 0;
        if (ok) {
            struct tsr_pack_ev e = { 0 };
            tsr_pack_ev_events(t, w, &e);
            tsr_route_written(&e, &fwd, &elem, &lo, &hi);
            tsr_pack_ev_free(&e);
        }
        /* (the same readable ages: one declaration's semantics) */
        if (!ok || fwd < 0 || lo != x->lo || hi != x->hi) {
            free(m);
            continue;
        }
        if (x->nalt == 1 && slot < 64)
            x->altslots = (uint64_t)1 << slot;
        if (t->op_slot[y] < 64)
            x->altslots |= (uint64_t)1 << t->op_slot[y];
        x->alt[x->nalt] = m;
        x->altfwd[x->nalt] = fwd;
        x->altelem[x->nalt] = elem;
        x->altslot[x->nalt] = t->op_slot[y];
        x->nalt++;
    }
    tsr_buf_free(&b);
}
