/* Bundle assembler: matches one line of assembly against the syntax templates of every format,
 * backtracking over slots, operations, operand alternatives, table names and optional groups
 * (docs/mdl.md "Syntax templates"), and produces the decoded instruction (struct <t>_tinst).
 *
 * Search: formats in declaration order; the parts of the bundle (separated by ';') fill the
 * format's slots in order, a slot being skipped (its default op) when the part does not match it.
 * Matching is written in continuation-passing style: `match` consumes template parts and calls the
 * continuation (`cont`) when a sequence ends: the rest of an enclosing template (K_SEQ), the end
 * of an operand alternative, whose conditions then bind (K_ALT), or the end of an operation's
 * template, whose encode conditions then bind and the next bundle part is matched (K_OP).  When
 * every part is matched, `finalize` gives the skipped slots their default op, applies defaults
 * (op defaults, then format defaults, then 0) and tests the checks; a failure anywhere undoes the
 * bindings made since (a trail) and tries the next choice.  The first complete match wins.
 * Failures are ranked by how far into the text they happened; the furthest one is reported.  The
 * search prunes (try_format, bundle_part); when a bundle fails and its message is asked for, an
 * unpruned search finds the furthest failure the text really reaches (tsr_asm_message).  The entry points
 * and field overrides are in asm_bundle.c; the shared state (struct tsr_asm) in asm_match.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm_derived.h"
#include "asm_match.h"
#include "bits.h"
#include "xalloc.h"

/* ---- small helpers ------------------------------------------------------------------------------ */

void *am_xrealloc(void *p, size_t n)
{
    return tsr_xrealloc(p, n);
}

static struct span by_of(const struct setrec *r)
{
    return (struct span){r->byp, r->byn};
}

/* The text from .. to without its blanks at either end: what bound a field, for messages only (so the fast
 * search, which records no failure, does not work it out). */
static struct span trimmed(const struct tsr_asm *a, uint32_t from, uint32_t to)
{
    if (!a->exact)
        return (struct span){a->s + from, 0};
    while (from < to && tsr_asm_isblank(a->s[from]))
        from++;
    while (to > from && tsr_asm_isblank(a->s[to - 1]))
        to--;
    return (struct span){a->s + from, to - from};
}

/* A span of a NUL-terminated name; its length is only computed when a message needs it. */
static struct span cspan(const char *s)
{
    return (struct span){s, UINT32_MAX};
}

static struct mark mark(const struct tsr_asm *a)
{
    return (struct mark){a->ntrail, a->nchk, a->neq};
}

void am_restore(struct tsr_asm *a, struct mark m)
{
    while (a->ntrail > m.ntrail) {
        struct trail *t = &a->trail[--a->ntrail];
        a->f[t->field] = t->old;
        a->set[t->field] = t->rec;
    }
    a->nchk = m.nchk;
    a->neq = m.neq;
}

/* ---- failures ---------------------------------------------------------------------------------- */

/* Is the failure (kind at rank) the furthest so far?  Then a->fail is cleared for it.  Only the exact
 * searches record (asm_match.h: nothing reads the fast search's failures). */
static bool record(struct tsr_asm *a, int kind, uint32_t rank)
{
    if (!a->exact)
        return false;
    if (rank < a->fail.rank || (rank == a->fail.rank && kind <= a->fail.kind))
        return false;
    memset(&a->fail, 0, sizeof a->fail);
    a->fail.kind = kind;
    a->fail.rank = rank;
    a->fail.pos = rank > a->n ? a->n : rank;
    return true;
}

static void fail_at(struct tsr_asm *a, int kind, uint32_t pos, const char *text)
{
    if (record(a, kind, pos))
        a->fail.text = text;
}

static void fail_conflict(struct tsr_asm *a, unsigned field, struct span old, struct span by, uint32_t pos)
{
    if (!record(a, F_CONFLICT, pos))
        return;
    a->fail.field = field;
    a->fail.a = old;
    a->fail.b = by;
    a->fail.verb = a->verb;
}

/* ---- bindings ----------------------------------------------------------------------------------- */

static void set_field(struct tsr_asm *a, unsigned field, uint64_t v, int st, struct span by)
{
    PUSH(a->trail, a->ntrail, a->ctrail);
    struct trail *t = &a->trail[a->ntrail++];
    t->old = a->f[field];
    t->rec = a->set[field];
    t->field = field;
    a->f[field] = v;
    a->set[field] = (struct setrec){by.p, by.n, (uint8_t)st, a->verb};
}

/* (addition) X4: a field that shares word bits with a derived field agrees with it bit by bit (asm_derived.c). */
static bool derived_agree(struct tsr_asm *a, unsigned field, uint64_t v, struct span by, uint32_t pos)
{
    const struct tsr_tc_isa *isa = a->isa;
    for (unsigned g = 0; g < isa->nfields; g++) {
        if (g == field || a->set[g].st == ST_UNSET || !(isa->fderived[field] || isa->fderived[g]) ||
            !tsr_dv_overlap(isa, field, g) || tsr_dv_agree(isa, field, v, g, a->f[g]))
            continue;
        a->nconflict++;
        fail_conflict(a, g, by_of(&a->set[g]), by, pos);
        return false;
    }
    return true;
}

static bool bind(struct tsr_asm *a, unsigned field, uint64_t v, struct span by, uint32_t pos)
{
    v &= fmask(a, field);
    if (a->set[field].st != ST_UNSET) {
        if (a->f[field] == v)
            return true;
        a->nconflict++;
        fail_conflict(a, field, by_of(&a->set[field]), by, pos);
        return false;
    }
    if (a->isa->fderived && !derived_agree(a, field, v, by, pos))
        return false;
    set_field(a, field, v, ST_BOUND, by);
    return true;
}

/* (addition) X4, after the defaults: each derived field bound in the bundle gives its bits to the format's fields
 * that hold them; then every derived field the format holds reads its value from them (the checks and the
 * encoder see one consistent bundle). */
static void derived_route(struct tsr_asm *a, const struct tsr_tc_format *F)
{
    const struct tsr_tc_isa *isa = a->isa;
    for (unsigned d = 0; d < isa->nfields; d++) {
        if (!isa->fderived[d] || a->set[d].st == ST_UNSET)
            continue;
        for (uint32_t j = 0; j < F->nfield; j++) {
            unsigned c = isa->idx[F->field + j];
            if (!tsr_dv_overlap(isa, c, d))
                continue;
            uint64_t nv = tsr_dv_route(isa, c, a->f[c], d, a->f[d]) & fmask(a, c);
            if (nv != a->f[c] || a->set[c].st == ST_UNSET)
                set_field(a, c, nv, a->set[c].st == ST_UNSET ? ST_BOUND : a->set[c].st, by_of(&a->set[d]));
        }
    }
    uint64_t img[TSR_DV_CHUNKS] = { 0 }, have[TSR_DV_CHUNKS] = { 0 };
    for (uint32_t j = 0; j < F->nfield; j++) {
        unsigned c = isa->idx[F->field + j];
        tsr_dv_image(isa, c, a->f[c], img, have);
    }
    for (unsigned d = 0; d < isa->nfields; d++) {
        if (!isa->fderived[d] || a->set[d].st != ST_UNSET)
            continue;
        uint64_t mine[TSR_DV_CHUNKS] = { 0 }, mask[TSR_DV_CHUNKS] = { 0 };
        tsr_dv_image(isa, d, 0, mine, mask);
        bool inside = true;
        for (unsigned k = 0; k < TSR_DV_CHUNKS; k++)
            inside = inside && !(mask[k] & ~have[k]);
        if (inside)
            set_field(a, d, tsr_dv_extract(isa, d, img), ST_DEFAULT, cspan(F->name));
    }
}

static bool bind_conds(struct tsr_asm *a, uint32_t first, uint32_t n, struct span by, uint32_t pos)
{
    const struct tsr_tc_cond *c = a->isa->conds + first;
    for (uint32_t i = 0; i < n; i++, c++) {
        switch (c->kind) {
        case TSR_TC_BIND:
            if (!bind(a, c->field, c->val, by, pos))
                return false;
            break;
        case TSR_TC_BIND2: {
            bool sa = a->set[c->field].st != ST_UNSET, sb = a->set[c->field2].st != ST_UNSET;
            if (sa && !bind(a, c->field2, a->f[c->field], by, pos))
                return false;
            if (!sa && sb && !bind(a, c->field, a->f[c->field2], by, pos))
                return false;
            if (!sa && !sb) {
                PUSH(a->eq, a->neq, a->ceq);
                a->eq[a->neq++] = (struct eqc){c->field, c->field2, a->verb, by};
            }
            break;
        }
        default:
            PUSH(a->chk, a->nchk, a->cchk);
            a->chk[a->nchk++] = (struct chk){(uint32_t)(c - a->isa->conds), by};
            break;
        }
    }
    return true;
}

/* Copies values along the pending FIELD == FIELD equalities until nothing changes. */
static bool propagate(struct tsr_asm *a, uint32_t pos)
{
    bool changed = true;
    while (changed) {
        changed = false;
        for (size_t i = 0; i < a->neq; i++) {
            struct eqc *e = &a->eq[i];
            bool sa = a->set[e->a].st != ST_UNSET, sb = a->set[e->b].st != ST_UNSET;
            if (sa == sb) {
                if (sa && ((a->f[e->a] ^ a->f[e->b]) & fmask(a, e->a) & fmask(a, e->b))) {
                    uint8_t v = a->verb;
                    a->verb = e->verb;
                    fail_conflict(a, e->b, by_of(&a->set[e->b]), e->by, pos);
                    a->verb = v;
                    return false;
                }
                continue;
            }
            unsigned from = sa ? e->a : e->b, to = sa ? e->b : e->a;
            set_field(a, to, a->f[from] & fmask(a, to), a->set[from].st, e->by);
            changed = true;
        }
    }
    return true;
}

static bool eval_cond(const struct tsr_tc_isa *isa, const struct tsr_tc_cond *c, const uint64_t *f)
{
    switch (c->kind) {
    case TSR_TC_BIND: return f[c->field] == c->val;
    case TSR_TC_BIND2: return f[c->field] == f[c->field2];
    default: return isa->check(c->id, f);
    }
}

/* ---- the matcher -------------------------------------------------------------------------------- */

static bool match(struct tsr_asm *a, const struct tsr_tc_part *p, const struct tsr_tc_part *end, uint32_t pos,
                  const struct frame *k);
static bool bundle_part(struct tsr_asm *a, int k, int t);

/* Literal text at pos; a blank in the literal matches any white space (none only where it does not
 * separate two identifier characters). */
static bool lit_match(const struct tsr_asm *a, const char *text, unsigned len, bool bound, uint32_t pos,
                      uint32_t *end)
{
    return tsr_asm_lit(a->s, a->lim, text, len, bound, pos, end);
}

/* Does s[from..to) name a symbol (a letter or '_' outside a number)? */
bool am_has_name(const char *s, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++) {
        if (s[i] >= '0' && s[i] <= '9') {
            while (i < to && tsr_asm_isident(s[i]))
                i++;   /* 0x1f, 1e5: not names */
            continue;
        }
        if (tsr_asm_isident(s[i]))
            return true;
    }
    return false;
}

/* Does v (an integer; u: read as uint64_t, 2^63 .. 2^64-1) fit field fd: -2^(w-1) .. 2^w-1 (docs/asm.md)? */
bool am_fits(const struct tsr_tc_field *fd, int64_t v, bool u)
{
    if (fd->width >= 64)
        return true;
    return !u && v >= -((int64_t)1 << (fd->width - 1)) && v <= (int64_t)tsr_bits_mask(fd->width);
}

static bool cont(struct tsr_asm *a, uint32_t pos, const struct frame *k)
{
    switch (k->kind) {
    case K_SEQ:
        return match(a, k->p, k->end, pos, k->next);
    case K_ALT: {
        struct mark m = mark(a);
        a->naltdone++;
        uint8_t inner = a->verb;
        if (bind_conds(a, k->alt->cond, k->alt->ncond, trimmed(a, k->start, pos), pos)) {
            a->verb = k->verb;
            if (cont(a, pos, k->next))
                return true;
            a->verb = inner;
        }
        am_restore(a, m);
        return false;
    }
    default: {
        uint32_t q = skip_ws(a, pos);
        if (q != a->lim) {
            /* nothing of the part consumed: it is not this op at all */
            fail_at(a, q == skip_ws(a, a->pstart[k->k]) ? F_UNKNOWN : F_UNEXPECTED, q, NULL);
            return false;
        }
        const struct tsr_tc_op *op = &a->isa->ops[k->op];
        struct mark m = mark(a);
        uint32_t lim = a->lim;
        if (bind_conds(a, op->cond, op->ncond, trimmed(a, a->pstart[k->k], a->pend[k->k]), q) &&
            bundle_part(a, k->k + 1, k->t + 1))
            return true;
        a->lim = lim;
        am_restore(a, m);
        return false;
    }
    }
}

static bool table_hole(struct tsr_asm *a, const struct tsr_tc_part *p, const struct tsr_tc_part *end,
                       uint32_t pos, const struct frame *k)
{
    const struct tsr_tc_isa *isa = a->isa;
    const struct tsr_tc_table *T = &isa->tables[p->arg];
    const char *s = a->s;
    uint32_t avail = a->lim - pos;
    unsigned maxl = T->maxlen < avail ? T->maxlen : avail;
    if (T->nnames) {
        /* the names that end on the trie's walk along the text */
        uint32_t cl[72], cc[72];
        unsigned nc = am_table_names(a, p->arg, pos, maxl, cl, cc);
        while (nc--) {   /* longest first */
            unsigned L = cl[nc];
            if (p->bound && L && tsr_asm_isident(s[pos + L - 1]) && pos + L < a->lim && tsr_asm_isident(s[pos + L]))
                continue;
            struct mark m = mark(a);
            if (bind(a, p->field, cc[nc], (struct span){s + pos, L}, pos + L) && match(a, p + 1, end, pos + L, k))
                return true;
            am_restore(a, m);
            if (a->aborted)
                return false;
        }
    }
    if (T->nnums) {
        struct tsr_asm_val v;
        size_t e, ep, el;
        const char *err;
        int r = tsr_asm_expr(s, pos, a->lim, a->syms, &e, &v, &err, &ep, &el);
        if (r > 0 && am_has_name(s, pos, e))
            a->env = true;
        /* (a term alone first where the expression goes on: the template's own text after the number wins over
         * folding it into the number, `-12 >> 4` a small immediate and a rotation; the whole expression then) */
        struct tsr_asm_val cv[2];
        size_t ce[2];
        int nc = 0;
        if (r > 0 && tsr_asm_term(s, pos, a->lim, a->syms, &ce[0], &cv[0]) && ce[0] < e)
            nc++;
        if (r > 0) {
            cv[nc] = v;
            ce[nc++] = e;
        }
        bool any = false;
        for (int c = 0; c < nc; c++) {
            v = cv[c];
            e = ce[c];
            const struct tsr_tc_num *nu = isa->nums + T->num_first;
            for (uint32_t i = 0; i < T->nnums; i++) {
                bool ok;
                if (nu[i].is_float) {
                    float fv = (float)(v.fl ? v.d : 0.0);
                    uint32_t bits;
                    memcpy(&bits, &fv, 4);
                    ok = v.fl && bits == nu[i].val;
                } else {
                    ok = tsr_asm_int_in(&v, INT32_MIN, (int64_t)UINT32_MAX) && (uint32_t)v.i == nu[i].val;
                }
                if (!ok)
                    continue;
                any = true;
                struct mark m = mark(a);
                if (bind(a, p->field, nu[i].code, trimmed(a, pos, (uint32_t)e), (uint32_t)e) &&
                    match(a, p + 1, end, (uint32_t)e, k))
                    return true;
                am_restore(a, m);
                if (a->aborted)
                    return false;
            }
        }
        if (r > 0 && !any) {
            fail_at(a, F_OPERAND, pos, NULL);
        } else if (r < 0 && err && strncmp(err, "undefined", 9) != 0 && record(a, F_EXPR, pos)) {
            a->fail.text = err;
            a->fail.tpos = (uint32_t)ep;
            a->fail.tlen = (uint32_t)el;
        }
    }
    fail_at(a, F_OPERAND, pos, NULL);
    return false;
}

static bool number_hole(struct tsr_asm *a, const struct tsr_tc_part *p, const struct tsr_tc_part *end,
                        uint32_t pos, const struct frame *k)
{
    const struct tsr_tc_field *fd = &a->isa->fields[p->field];
    struct tsr_asm_val v;
    size_t e, ep, el;
    const char *err;
    int r = tsr_asm_expr(a->s, pos, a->lim, a->syms, &e, &v, &err, &ep, &el);
    if (r == 0) {
        fail_at(a, F_OPERAND, pos, NULL);
        return false;
    }
    if (r < 0) {
        if (record(a, p->kind == TSR_TC_LABEL && strncmp(err, "undefined", 9) == 0 ? F_UNDEF : F_EXPR, pos)) {
            a->fail.text = p->kind == TSR_TC_LABEL && strncmp(err, "undefined", 9) == 0 ? "undefined label '%.*s'" : err;
            a->fail.tpos = (uint32_t)ep;
            a->fail.tlen = (uint32_t)el;
        }
        return false;
    }
    if (am_has_name(a->s, pos, e) || (p->kind == TSR_TC_LABEL && p->pcrel))
        a->env = true;
    int64_t x;
    bool u = false;
    if (v.fl) {
        if (fd->width < 32 || p->kind == TSR_TC_LABEL) {
            if (record(a, F_EXPR, pos)) {
                a->fail.text = "'%.*s' is not an integer";
                a->fail.tpos = pos;
                a->fail.tlen = (uint32_t)e - pos;
            }
            return false;
        }
        float fv = (float)v.d;
        uint32_t bits;
        memcpy(&bits, &fv, 4);
        x = bits;
    } else {
        x = v.i;
        u = v.u;
    }
    bool rel = p->kind == TSR_TC_LABEL && p->pcrel;
    bool huge = false;   /* a pc-relative offset below -2^63 */
    if (rel) {           /* offset = target - (pc + pcoff), exactly */
        uint64_t from = a->pc + (uint64_t)p->pcoff, t = (uint64_t)x;
        if (u ? t >= from : (x >= 0 && t >= from)) {
            x = (int64_t)(t - from);
            u = (t - from) >> 63 != 0;
        } else {   /* negative: magnitude from - target */
            uint64_t mag = u || x >= 0 ? from - t : from + (0 - t);
            huge = (!u && x < 0 && mag < from) || mag > (uint64_t)1 << 63;
            x = (int64_t)(0 - mag);
            u = false;
        }
    }
    if (p->kind == TSR_TC_LABEL && p->unit > 1 && !huge) {   /* X9: the field counts units of p->unit */
        uint64_t mag = u || x >= 0 ? (uint64_t)x : 0 - (uint64_t)x;
        if (mag % p->unit) {
            if (record(a, F_EXPR, pos)) {
                a->fail.text = rel ? "offset to '%.*s' is not a multiple of the label's unit"
                                   : "label target '%.*s' is not a multiple of the label's unit";
                a->fail.tpos = pos;
                a->fail.tlen = (uint32_t)e - pos;
            }
            return false;
        }
        mag /= p->unit;
        x = u || x >= 0 ? (int64_t)mag : -(int64_t)mag;
        u = false;
    }
    if (huge || !am_fits(fd, x, u)) {
        if (record(a, F_FIT, pos)) {
            a->fail.field = p->field;
            a->fail.val = x;
            a->fail.valu = u;
            a->fail.rel = rel;
            a->fail.huge = huge;
            a->fail.tpos = pos;
            a->fail.tlen = (uint32_t)e - pos;
        }
        return false;
    }
    struct mark m = mark(a);
    if (bind(a, p->field, (uint64_t)x, trimmed(a, pos, (uint32_t)e), (uint32_t)e) &&
        match(a, p + 1, end, (uint32_t)e, k))
        return true;
    am_restore(a, m);
    return false;
}

/* {NAME=OPERAND} at q: its alternatives in order. */
static bool operand_hole(struct tsr_asm *a, const struct tsr_tc_part *p, const struct tsr_tc_part *end, uint32_t q,
                         const struct frame *k)
{
    const struct tsr_tc_isa *isa = a->isa;
    const struct tsr_tc_opnd *o = &isa->opnds[p->arg];
    struct frame rest = {.kind = K_SEQ, .p = p + 1, .end = end, .next = k};
    for (uint32_t i = 0; i < o->nalt; i++) {
        const struct tsr_tc_alt *alt = &isa->alts[o->alt + i];
        uint32_t key = (o->alt + i) << 12 | q, slot = (key * 2654435761u) >> 22;
        if (q < 4096 && a->memo[slot].gen == a->gen && a->memo[slot].key == key)
            continue;   /* its text does not match here */
        if (am_alt_refuted(a, o->alt + i))
            continue;   /* its conditions cannot bind */
        struct frame fa = {.kind = K_ALT, .verb = a->verb, .start = q, .alt = alt, .next = &rest};
        uint8_t sv = a->verb;
        unsigned long c0 = a->nconflict, d0 = a->naltdone;
        a->verb = alt->verb;
        bool ok = match(a, isa->parts + alt->part, isa->parts + alt->part + alt->npart, q, &fa);
        a->verb = sv;
        if (ok)
            return true;
        if (a->aborted)
            return false;
        if (q < 4096 && a->nconflict == c0 && a->naltdone == d0) {
            a->memo[slot].key = key;
            a->memo[slot].gen = a->gen;
        }
    }
    fail_at(a, F_OPERAND, q, NULL);
    return false;
}

static bool match(struct tsr_asm *a, const struct tsr_tc_part *p, const struct tsr_tc_part *end, uint32_t pos,
                  const struct frame *k)
{
    if (++a->steps > STEP_LIMIT) {
        if (!a->aborted) {
            a->aborted = true;
            memset(&a->fail, 0, sizeof a->fail);
            a->fail.kind = F_AMBIG;
            a->fail.rank = a->n + 2;
            a->fail.pos = a->n;
        }
        return false;
    }
    for (; p < end; p++) {
        switch (p->kind) {
        case TSR_TC_TEXT: {
            uint32_t q = skip_ws(a, pos), e;
            if (!lit_match(a, p->text, p->len, p->bound, q, &e)) {
                fail_at(a, F_EXPECTED, q, p->text);
                return false;
            }
            pos = e;
            break;
        }
        case TSR_TC_SPACE: {
            uint32_t q = skip_ws(a, pos);
            if (q == pos && pos > 0 && pos < a->lim && tsr_asm_isident(a->s[pos - 1]) &&
                tsr_asm_isident(a->s[pos])) {
                fail_at(a, F_EXPECTED, pos, " ");
                return false;
            }
            pos = q;
            break;
        }
        case TSR_TC_TABLE:
            return table_hole(a, p, end, skip_ws(a, pos), k);
        case TSR_TC_INT:
        case TSR_TC_LABEL:
            return number_hole(a, p, end, skip_ws(a, pos), k);
        case TSR_TC_OPT: {
            uint32_t q = skip_ws(a, pos), e;
            if (lit_match(a, p->text, p->len, p->bound, q, &e)) {
                struct mark m = mark(a);
                if (bind_conds(a, p->cond, p->ncond, trimmed(a, q, e), e) && match(a, p + 1, end, e, k))
                    return true;
                am_restore(a, m);
                if (a->aborted)
                    return false;
            }
            break;   /* absent */
        }
        case TSR_TC_OPND:
            return operand_hole(a, p, end, skip_ws(a, pos), k);
        }
    }
    return cont(a, pos, k);
}

/* (addition) X7 wide ops (textcodec.h span_of, span_mask): the op of format F's bundle so far that takes slot, or
 * TSR_TC_NO_OP (also when the isa has no wide ops). */
static unsigned taken_by(const struct tsr_asm *a, const struct tsr_tc_format *F, unsigned slot)
{
    const struct tsr_tc_isa *isa = a->isa;
    if (!isa->span_mask || slot >= 64)
        return TSR_TC_NO_OP;
    for (uint32_t t = 0; t < F->nslot; t++) {
        unsigned o = a->op[isa->idx[F->slot + t]];
        if (o < isa->nops && (isa->span_mask[o] >> slot & 1))
            return o;
    }
    return TSR_TC_NO_OP;
}

/* Can op opi go into slot of format F's bundle so far: neither is the slot taken by a wide op placed before, nor,
 * opi being a wide op, does a slot it takes hold an op?  A refusal is recorded at pos (F_TAKEN). */
static bool wide_fits(struct tsr_asm *a, const struct tsr_tc_format *F, unsigned slot, unsigned opi, uint32_t pos)
{
    const struct tsr_tc_isa *isa = a->isa;
    unsigned w = taken_by(a, F, slot), where = slot;
    for (uint32_t t = 0; t < F->nslot && w == TSR_TC_NO_OP && isa->span_mask[opi]; t++) {
        unsigned u = isa->idx[F->slot + t];
        if (u < 64 && (isa->span_mask[opi] >> u & 1) && a->op[u] != TSR_TC_NO_OP) {
            w = opi;
            where = u;
        }
    }
    if (w == TSR_TC_NO_OP)
        return true;
    if (record(a, F_TAKEN, pos)) {
        a->fail.text = isa->slots[where].name;
        a->fail.field = w;
    }
    return false;
}

static bool finalize(struct tsr_asm *a)
{
    const struct tsr_tc_isa *isa = a->isa;
    const struct tsr_tc_format *F = &isa->formats[a->fmt];
    struct mark m = mark(a);
    uint8_t sv = a->verb;
    uint32_t rank = a->n + 1;
    unsigned filled[MAX_PARTS + 64], nfilled = 0;
    a->verb = TSR_TC_USE;
    for (uint32_t t = 0; t < F->nslot; t++) {
        unsigned slot = isa->idx[F->slot + t];
        if (a->op[slot] != TSR_TC_NO_OP)
            continue;
        unsigned w = taken_by(a, F, slot);
        if (w != TSR_TC_NO_OP) {   /* X7: a slot a wide op takes gets the op's span op, not its default */
            for (unsigned j = 0; j < isa->nops; j++)
                if (isa->span_of[j] == w && isa->ops[j].slot == slot)
                    a->op[slot] = (uint16_t)j;
            if (nfilled < sizeof filled / sizeof *filled)
                filled[nfilled++] = slot;
            continue;
        }
        const struct tsr_tc_op *op = &isa->ops[isa->slots[slot].default_op];
        a->op[slot] = isa->slots[slot].default_op;
        if (nfilled < sizeof filled / sizeof *filled)
            filled[nfilled++] = slot;
        if (!bind_conds(a, op->cond, op->ncond, cspan(op->name), rank))
            goto fail;
    }
    if (!propagate(a, rank))
        goto fail;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t t = 0; t < (pass ? 1 : F->nslot); t++) {
            const struct tsr_tc_default *d;
            uint32_t nd;
            struct span by;
            if (pass == 0) {
                const struct tsr_tc_op *op = &isa->ops[a->op[isa->idx[F->slot + t]]];
                d = isa->defs + op->def;
                nd = op->ndef;
                by = cspan(op->name);
            } else {
                d = isa->defs + F->def;
                nd = F->ndef;
                by = cspan(F->name);
            }
            for (uint32_t i = 0; i < nd; i++) {
                if (a->set[d[i].field].st != ST_UNSET)
                    continue;
                set_field(a, d[i].field, d[i].val & fmask(a, d[i].field), ST_DEFAULT, by);
                if (a->neq && !propagate(a, rank))
                    goto fail;
            }
        }
    }
    if (isa->fderived)
        derived_route(a, F);
    for (size_t i = 0; i < a->nchk; i++) {
        const struct tsr_tc_cond *c = &isa->conds[a->chk[i].cond];
        if (!eval_cond(isa, c, a->f)) {
            if (record(a, F_CHECK, rank)) {
                a->fail.cond = a->chk[i].cond;
                a->fail.a = a->chk[i].by;
            }
            goto fail;
        }
    }
    a->verb = sv;
    return true;
fail:
    for (unsigned i = 0; i < nfilled; i++)
        a->op[filled[i]] = TSR_TC_NO_OP;
    am_restore(a, m);
    a->verb = sv;
    return false;
}

static bool part_possible(const struct tsr_asm *a, unsigned fi, int k);
static bool part_known(const struct tsr_asm *a, unsigned fi, int k);

static bool key_ok(const struct tsr_tc_op *op, const char *s, uint32_t run)
{
    if (!op->keylen)
        return true;
    if (run < op->keylen)
        return false;
    for (unsigned i = 0; i < op->keylen; i++)
        if (s[i] != op->key[i])
            return false;
    return !op->key_exact || run == op->keylen;
}

static bool bundle_part(struct tsr_asm *a, int k, int s)
{
    const struct tsr_tc_isa *isa = a->isa;
    const struct tsr_tc_format *F = &isa->formats[a->fmt];
    if (k == a->nparts && a->too_many) {   /* try_format: the parts that fit matched; more follow */
        if (record(a, F_PARTS, a->pstart[k])) {
            a->fail.text = F->name;
            a->fail.val = F->nslot;
        }
        return false;
    }
    if (k == a->nparts)
        return a->collect ? a->collect(a) : finalize(a);   /* collect: asm_paths.c */
    /* the fast search leaves a slot for each remaining part; the diagnosing search does not, so that it
     * reaches the part no slot takes (`ldtmu0; frob`: 'frob', not 'ldtmu0') */
    int left = a->diagnose ? 1 : a->nparts - k;
    a->lim = a->pend[k];
    uint32_t q = skip_ws(a, a->pstart[k]);
    if (a->diagnose && part_known(a, a->fmt, k))   /* only the diagnosing search's failures are reported */
        fail_at(a, F_SLOT, q, F->name);
    else
        fail_at(a, F_UNKNOWN, q, NULL);
    const uint16_t *cand = a->cand + (size_t)k * isa->nops;
    for (int t = s; t + left <= (int)F->nslot; t++) {
        unsigned slot = isa->idx[F->slot + t];
        for (uint32_t i = 0; i < a->ncand[k]; i++) {
            unsigned opi = cand[i];
            const struct tsr_tc_op *op = &isa->ops[opi];
            if (op->slot != slot || (isa->span_of && !wide_fits(a, F, slot, opi, q)))
                continue;
            struct frame kop = {.kind = K_OP, .op = opi, .k = k, .t = t};
            a->op[slot] = (uint16_t)opi;
            a->lim = a->pend[k];
            if (match(a, isa->parts + op->part, isa->parts + op->part + op->npart, q, &kop))
                return true;
            a->op[slot] = TSR_TC_NO_OP;
            if (a->aborted)
                return false;
        }
    }
    return false;
}

/* The ops whose mnemonic key fits the leading identifier id[0 .. run) of a part (keyless ones too), merged
 * in declaration order: the ops keyed by id[0] (c, < 128) with the keyless ones.  Into out; returns how many. */
uint32_t am_key_ops(const struct tsr_asm *a, const char *id, uint32_t run, unsigned c, uint16_t *out)
{
    const struct tsr_tc_isa *isa = a->isa;
    uint32_t n = 0;
    uint32_t i = c < 128 ? a->byoff[c] : a->byoff[128], ie = c < 128 ? a->byoff[c + 1] : a->byoff[128];
    uint32_t j = a->byoff[128], je = a->byoff[129];
    while (i < ie || j < je) {
        unsigned opi = (j >= je || (i < ie && a->byfirst[i] < a->byfirst[j])) ? a->byfirst[i++] : a->byfirst[j++];
        if (key_ok(&isa->ops[opi], id, run))
            out[n++] = (uint16_t)opi;
    }
    return n;
}

/* The candidate ops of part k: those whose mnemonic key and required characters fit its text. */
void am_candidates(struct tsr_asm *a, int k)
{
    const struct tsr_tc_isa *isa = a->isa;
    uint32_t q = a->pstart[k], run;
    while (q < a->pend[k] && tsr_asm_isblank(a->s[q]))
        q++;
    for (run = q; run < a->pend[k] && tsr_asm_isident(a->s[run]);)
        run++;
    run -= q;
    unsigned c = q < a->pend[k] ? (unsigned char)a->s[q] : 0;
    uint16_t *out = a->cand + (size_t)k * isa->nops;
    uint32_t nkey;
    const uint16_t *key = am_key_ops_memo(a, a->s + q, run, c, &nkey);
    uint32_t n = 0;
    uint64_t fm = 0;
    for (uint32_t i = 0; i < nkey; i++) {
        const struct tsr_tc_op *op = &isa->ops[key[i]];
        if (isa->span_of && isa->span_of[key[i]] != TSR_TC_NO_OP)
            continue;   /* X7: a span op is never read from text */
        if (!(op->req[0] & ~a->have[k][0]) && !(op->req[1] & ~a->have[k][1])) {
            out[n++] = key[i];
            fm |= a->slotfmt[op->slot];
        }
    }
    a->ncand[k] = n;
    a->candfmt[k] = fm;
}

/* Can part k be an op of some slot of F at all? */
static bool part_possible(const struct tsr_asm *a, unsigned fi, int k)
{
    if (fi < 64)   /* the formats of the candidates' slots, gathered by am_candidates */
        return a->candfmt[k] >> fi & 1;
    const struct tsr_tc_isa *isa = a->isa;
    const uint16_t *cand = a->cand + (size_t)k * isa->nops;
    for (uint32_t i = 0; i < a->ncand[k]; i++)
        if (a->fmt_slot[fi * isa->nslots + isa->ops[cand[i]].slot])
            return true;
    return false;
}

/* Does part k name an op of some slot of F by its mnemonic (a keyed op: not merely one without text)? */
static bool part_known(const struct tsr_asm *a, unsigned fi, int k)
{
    const struct tsr_tc_isa *isa = a->isa;
    const uint16_t *cand = a->cand + (size_t)k * isa->nops;
    for (uint32_t i = 0; i < a->ncand[k]; i++)
        if (isa->ops[cand[i]].keylen && a->fmt_slot[fi * isa->nslots + isa->ops[cand[i]].slot])
            return true;
    return false;
}

/* Tries format fi.  With filter (the fast search), a format one of whose parts can be no op of it, or
 * with more parts than slots, is dropped at once without recording a failure: the parts before were
 * not matched, so how far the text matches is unknown (the diagnosing search finds out). */
static bool try_format(struct tsr_asm *a, unsigned fi, bool filter)
{
    const struct tsr_tc_isa *isa = a->isa;
    const struct tsr_tc_format *F = &isa->formats[fi];
    for (int k = 0; filter && k < a->nparts && (uint32_t)k < F->nslot; k++)
        if (!part_possible(a, fi, k))
            return false;
    /* every field change is on the trail: undoing all of it gives the all-unset state back */
    am_restore(a, (struct mark){0, 0, 0});
    for (unsigned i = 0; i < isa->nslots; i++)
        a->op[i] = TSR_TC_NO_OP;
    a->fmt = fi;
    a->verb = TSR_TC_USE;
    if ((uint32_t)a->nparts > F->nslot) {
        /* too many parts: that is the failure when each of the first nslot parts could be an op of the
         * format; else the first nslot parts are matched to find where they fail */
        if (filter)
            return false;
        bool each = true;
        for (uint32_t k = 0; k < F->nslot && each; k++)
            each = part_known(a, fi, (int)k);
        if (each) {
            if (record(a, F_PARTS, a->pstart[F->nslot])) {
                a->fail.text = F->name;
                a->fail.val = F->nslot;
            }
            return false;
        }
        int np = a->nparts;
        a->nparts = (int)F->nslot;
        a->too_many = true;
        a->lim = a->n;
        if (bind_conds(a, F->cond, F->ncond, cspan(F->name), 0))
            bundle_part(a, 0, 0);
        a->nparts = np;
        a->too_many = false;
        return false;
    }
    a->lim = a->n;
    if (!bind_conds(a, F->cond, F->ncond, cspan(F->name), 0))
        return false;
    return bundle_part(a, 0, 0);
}

/* The search over the formats (pin >= 0: that one only).  Returns whether one matched; else a->fail is
 * the furthest failure.  diagnose: no pruning (tsr_asm_message). */
bool am_search(struct tsr_asm *a, bool diagnose)
{
    const struct tsr_tc_isa *isa = a->isa;
    memset(&a->fail, 0, sizeof a->fail);
    if (++a->gen == 0) {   /* wrapped: forget every entry */
        memset(a->memo, 0, sizeof a->memo);
        a->gen = 1;
    }
    a->steps = 0;
    a->aborted = false;
    bool ok = false;
    for (unsigned fi = 0; fi < isa->nformats && !ok && !a->aborted; fi++)
        if (a->pin < 0 || (unsigned)a->pin == fi)
            ok = try_format(a, fi, !diagnose);
    if (!ok)
        am_restore(a, (struct mark){0, 0, 0});
    return ok;
}
