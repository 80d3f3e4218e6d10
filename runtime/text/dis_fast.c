/* The exactness proof's fast form (dis_exact.h tsr_dis_fast): a bundle whose every decision the facts of the
 * description settle, shown from the printed path, the fields and a few characters of the text, with the facts
 * kept per template place; each bundle part is walked by its op's generated checker (dis_fx.h,
 * gen/emit_discheck.c), the rest of the bundle here.
 *
 * It shows what tsr_dis_exact (dis_exact.c) shows through its plans (dis_plan.c), step for step, and nothing
 * it would leave to the text: the text splits into the printed parts; each part is read by its printed op
 * along the printed path (run_plan: a literal ending in an identifier character is not followed by one; a
 * printed name has the short way by its code's row; a number reads back by the template (dis_num.c); optional
 * text not printed does not match where the assembler tries it; each early operand alternative is ruled out
 * by the rows of the codes printed, or refuted through a field a leading operand pins (dis_spin.c); the
 * conditions hold); no slot, op or format the assembler tries first can read a part (the facts of
 * dis_static.c and dis_cand.c); the slots not printed hold their default ops; the fields nothing bound hold
 * their defaults, the format's others are 0.  Where the walk would read the text (a table hole without the
 * short way, an expression, optional text whose literal matches, an early alternative the facts leave open,
 * an op the facts do not rule out), the answer is "not shown" and tsr_dis_exact decides.  So this proves a
 * subset of what tsr_dis_exact proves (TESSERA_DIS_VERIFY checks both against the assembler, and that the
 * full proof agrees whenever this one answers yes).
 *
 * Why a form of its own: the plans are kept per (operand place, alternative, choices within it) and found
 * through a list per place; on words never seen before that search and the plans' size cost more than the
 * steps.  Here what a place needs is kept per template place, by position: an op's places in one block per
 * op, an operand alternative's places in one block per (operand place, alternative), each found by index
 * from the printed op and the alternative the path records, so a bundle touches a few small blocks.
 */
#include <stdlib.h>
#include <string.h>

#include "asm_engine.h"
#include "bits.h"
#include "dis_fast.h"
#include "dis_px.h"
#include "xalloc.h"

/* Places and early alternatives, what the checkers ask beyond their inline tests: dis_fxslow.c. */

/* The defaults of d[0 .. nd) as a mask and values (the first default of a field counts). */
static void defaults_of(const struct tsr_tc_isa *isa, size_t nw, const struct tsr_tc_default *d, uint32_t nd,
                        struct fop *o)
{
    o->defmask = tsr_xcalloc(nw, sizeof *o->defmask);
    o->defval = tsr_xcalloc(isa->nfields, sizeof *o->defval);
    for (uint32_t i = 0; i < nd; i++) {
        unsigned fd = d[i].field;
        if (o->defmask[fd >> 6] >> (fd & 63) & 1)
            continue;
        o->defmask[fd >> 6] |= (uint64_t)1 << (fd & 63);
        o->defval[fd] = d[i].val & tsr_bits_mask(isa->fields[fd].width);
    }
}

static inline const struct fop *op_facts(struct tsr_dis_exact *x, const struct tsr_tc_isa *isa, unsigned a)
{
    struct fop *o = &x->fast->op[a];
    if (!o->init) {
        defaults_of(isa, x->fast->nw, isa->defs + isa->ops[a].def, isa->ops[a].ndef, o);
        o->lead = x->oplead[a];
        o->init = true;
    }
    return o;
}

/* A fact ask(st, a, i) about op a and a format or slot i, kept as bit i of *never once bit i of *known is set. */
static bool kept_never(struct tsr_dis_exact *x, unsigned a, unsigned i, uint64_t *never, uint64_t *known,
                       bool (*ask)(struct tsr_dis_static *, unsigned, unsigned))
{
    if (i >= 64)
        return ask(&x->st, a, i);
    uint64_t b = (uint64_t)1 << i;
    if (!(*known & b)) {
        if (ask(&x->st, a, i))
            *never |= b;
        *known |= b;
    }
    return *never & b;
}

/* tsr_dis_fmt_never(a, g) and tsr_dis_slot_never(a, s), kept per op (hot[a].fnever, the op's record). */
static bool fmt_never(struct tsr_dis_exact *x, unsigned a, unsigned g)
{
    struct fop *o = &x->fast->op[a];
    return kept_never(x, a, g, &x->fast->hot[a].fnever, &o->fknown, tsr_dis_fmt_never);
}

static bool slot_never(struct tsr_dis_exact *x, unsigned a, unsigned s)
{
    struct fop *o = &x->fast->op[a];
    return kept_never(x, a, s, &o->snever, &o->sknown, tsr_dis_slot_never);
}

/* The defaults for the fields bound[] leaves unset, by o's table: each must be the field's value; binds them. */
static bool defaults_hold(const struct fop *o, size_t nw, uint64_t *bound, const uint64_t *f)
{
    for (size_t w = 0; w < nw; w++) {
        uint64_t m = o->defmask[w] & ~bound[w];
        for (uint64_t u = m; u; u &= u - 1) {
            unsigned fd = (unsigned)(w * 64) + (unsigned)__builtin_ctzll(u);
            if (o->defval[fd] != f[fd])
                return false;
        }
        bound[w] |= m;
    }
    return true;
}

/* dis_exact.c conds() */
static bool fconds(struct tsr_fx *X, uint32_t first, uint32_t n)
{
    const struct tsr_tc_isa *isa = X->isa;
    for (uint32_t i = 0; i < n; i++) {
        const struct tsr_tc_cond *c = &isa->conds[first + i];
        if (c->kind == TSR_TC_BIND) {
            if ((c->val & tsr_bits_mask(isa->fields[c->field].width)) != X->f[c->field])
                return false;
            tsr_fx_bind(X, c->field);
        } else if (c->kind != TSR_TC_BIND2) {
            if (!isa->check(c->id, X->f))
                return false;
        } else if (!tsr_fx_pair(X, c->field, c->field2)) {
            return false;
        }
    }
    return true;
}

/* dis_exact.c slot_possible, from the facts only: 0 when no op of the slot (before `before`) can read part k,
 * 1 when the text would have to decide. */
static int fslot(struct tsr_fx *X, unsigned slot, unsigned before, unsigned printed, size_t k)
{
    struct tsr_dis_exact *x = X->x;
    const struct tsr_tc_isa *isa = X->isa;
    const struct tsr_tc_slot *S = &isa->slots[slot];
    struct fop *o = &x->fast->op[printed];
    uint8_t *bn = &x->fast->hot[printed].bnever;
    if (before == printed && !*bn)
        *bn = (uint8_t)(1 + tsr_dis_before_never(&x->st, printed));
    if (before == TSR_TC_NO_OP ? slot_never(x, printed, slot)
                               : (before == printed ? *bn == 2 : tsr_dis_before_never(&x->st, before)))
        return 0;
    bool alts = isa->ops[printed].npart <= TSR_DIS_LALT;   /* as dis_exact.c slot_possible */
    if (S->nop > 64)
        return 1;
    if (before == printed && alts && k == X->cur) {
        /* dis_cand.c with alts: the ops tsr_dis_op_alts does not rule out, which is NEVER when it is with one
         * operand part fixed: the ops before the printed one less those each printed pair rules out */
        if (!o->c0known) {   /* its key holds no alternatives: one per op, kept here */
            o->cands0 = tsr_dis_cands(&x->cands, &x->st, slot, before, printed, false, x->lalt[k]);
            o->c0known = true;
        }
        uint64_t m = o->cands0;
        /* the pairs printed at the op's operand parts recorded in lalt (opk: each one's first pair) */
        const uint8_t *la = x->lalt[k];
        const uint16_t *kb = x->fast->opk + (size_t)printed * TSR_FX_LALT;
        for (uint32_t j = 0; j < isa->ops[printed].npart && m; j++)   /* alts: npart <= TSR_FX_LALT */
            if (kb[j] != TSR_FX_PK_NONE && la[j] != 0xff)
                m &= ~tsr_fx_pk_bnever(X, kb[j] + la[j], printed, S, m);
        return m != 0;
    }
    return tsr_dis_cands(&x->cands, &x->st, slot, before, printed, alts, x->lalt[k]) != 0;
}

/* The formats before fmt: each has too few slots for the np parts (ops pop[]), or a part that fits none of its
 * slots. */
static bool formats_before(struct tsr_fx *X, unsigned fmt, size_t np, const unsigned *pop)
{
    const struct tsr_tc_isa *isa = X->isa;
    for (unsigned g = 0; g < fmt; g++) {
        const struct tsr_tc_format *G = &isa->formats[g];
        bool fails = np > G->nslot;
        for (size_t k = 0; k < np && !fails; k++)
            fails = fmt_never(X->x, pop[k], g);
        for (size_t k = 0; k < np && !fails; k++) {
            bool any = false;
            for (uint32_t t = 0; t < G->nslot && !any; t++)
                any = fslot(X, isa->idx[G->slot + t], TSR_TC_NO_OP, pop[k], k) != 0;
            fails = !any;
        }
        if (!fails)
            return false;
    }
    return true;
}

/* Can no op's printed text hold the part separator ';'?  Then the first ';' at or after a part's start is the
 * one the printer put after it (dis_engine.c: parts joined by "; "), at the part's end the path records
 * (dis_path.h tsr_dis_slotp.end), and none follows the last part: the split tsr_asm_bundle makes at every ';'
 * needs no search.  What a part prints: its template's literal text (TEXT, and OPT when printed: mdlc rejects a
 * ';' in them, gen/emit_tc.c, tested here again), one blank per SPACE, table names (isa->prints, tested here),
 * and numbers (dis_print.h: decimal with '-', 0x + hex digits, L + hex digits for labels, the %g form of a
 * binary32 with '.', 'e', '+' or '-'), none of which is ';'. */
static bool semi_free(const struct tsr_tc_isa *isa)
{
    for (unsigned a = 0; a < isa->nops; a++)
        for (uint32_t i = 0; i < isa->ops[a].npart; i++) {
            const struct tsr_tc_part *p = &isa->parts[isa->ops[a].part + i];
            if ((p->kind == TSR_TC_TEXT || p->kind == TSR_TC_OPT) && memchr(p->text, ';', p->len))
                return false;
        }
    for (unsigned o = 0; o < isa->nopnds; o++)
        for (uint32_t j = 0; j < isa->opnds[o].nalt; j++) {
            const struct tsr_tc_alt *al = &isa->alts[isa->opnds[o].alt + j];
            for (uint32_t i = 0; i < al->npart; i++) {
                const struct tsr_tc_part *p = &isa->parts[al->part + i];
                if ((p->kind == TSR_TC_TEXT || p->kind == TSR_TC_OPT) && memchr(p->text, ';', p->len))
                    return false;
            }
        }
    for (unsigned t = 0; t < isa->ntables; t++)
        for (uint32_t i = 0; i < isa->tables[t].nprint; i++) {
            const struct tsr_tc_print *pr = &isa->prints[isa->tables[t].print_first + i];
            if (pr->kind == TSR_TC_PRINT_NAME && strchr(pr->name, ';'))
                return false;
        }
    return true;
}

static inline uint32_t fws(const char *s, uint32_t lim, uint32_t pos)
{
    while (pos < lim && tsr_asm_isblank(s[pos]))
        pos++;
    return pos;
}

/* The fast form's state, made once the full proof has set up the facts and its arrays (they stay); NULL when the
 * isa has no checkers or more than 16 words of fields. */
static FAST_OUTLINE TSR_FX_COLD struct tsr_dis_fast *fast_new(const struct tsr_tc_isa *isa, struct tsr_dis_exact *x)
{
    size_t nw = ((size_t)isa->nfields + 63) / 64;
    if (!isa->fx || !x->st.isa || !x->bound || nw > 16)
        return NULL;
    struct tsr_dis_fast *F0 = x->fast = tsr_xcalloc(1, sizeof *F0);
    F0->op = tsr_xcalloc(isa->nops, sizeof *F0->op);
    F0->fd = tsr_xcalloc(isa->nformats, sizeof *F0->fd);
    F0->hot = tsr_xcalloc(isa->nops, sizeof *F0->hot);
    F0->pl = tsr_xcalloc(isa->fx->nplaces, sizeof *F0->pl);
    F0->pk = tsr_xcalloc(isa->fx->npks, sizeof *F0->pk);
    F0->pkf = tsr_xcalloc(isa->fx->npks, sizeof *F0->pkf);
    F0->pkm = tsr_xcalloc(isa->fx->npks, sizeof *F0->pkm);
    F0->nm = tsr_xcalloc(isa->fx->nplaces, sizeof *F0->nm);
    F0->mm = tsr_xcalloc(isa->fx->nplaces, sizeof *F0->mm);
    F0->opk = tsr_xcalloc((size_t)isa->nops * TSR_FX_LALT, sizeof *F0->opk);
    uint32_t pk = 0;
    for (uint32_t a = 0; a < isa->nops; a++)
        for (uint32_t j = 0; j < isa->ops[a].npart; j++) {
            const struct tsr_tc_part *p = &isa->parts[isa->ops[a].part + j];
            if (j < TSR_FX_LALT)
                F0->opk[a * TSR_FX_LALT + j] = TSR_FX_PK_NONE;
            if (p->kind != TSR_TC_OPND)
                continue;
            uint32_t nalt = isa->opnds[p->arg].nalt;
            if (j < TSR_FX_LALT && nalt <= 0xff && pk + nalt < TSR_FX_PK_NONE)
                F0->opk[a * TSR_FX_LALT + j] = (uint16_t)pk;
            pk += nalt;
        }
    if (pk != isa->fx->npks)   /* not the numbering of dis_fx.h: fslot asks no pair (fewer exclusions: sound) */
        for (size_t i = 0; i < (size_t)isa->nops * TSR_FX_LALT; i++)
            F0->opk[i] = TSR_FX_PK_NONE;
    F0->nw = nw;
    F0->fmask = tsr_xcalloc((size_t)isa->nformats * nw, sizeof *F0->fmask);
    for (unsigned g = 0; g < 64; g++)
        F0->before[g] = ((uint64_t)1 << g) - 1;
    for (unsigned g = 0; g < isa->nformats && g < 64; g++)
        for (size_t k = 0; k <= MAX_PARTS; k++)
            if (isa->formats[g].nslot < k)
                F0->few[k] |= (uint64_t)1 << g;
    for (unsigned g = 0; g < isa->nformats; g++)
        for (uint32_t i = 0; i < isa->formats[g].nfield; i++) {
            unsigned fd = isa->idx[isa->formats[g].field + i];
            F0->fmask[g * nw + (fd >> 6)] |= (uint64_t)1 << (fd & 63);
        }
    struct tsr_fx *X0 = &F0->X;
    X0->isa = isa, X0->x = x, X0->bound = F0->bound, X0->eq = F0->eq, X0->ceq = 64;
    X0->pl = F0->pl, X0->pk = F0->pk, X0->pkf = F0->pkf, X0->pkm = F0->pkm, X0->nm = F0->nm,
        X0->mm = F0->mm;
    X0->pop = F0->pop, X0->pw = F0->pw, X0->plead = F0->plead;
    F0->semi_free = semi_free(isa);
    return F0;
}

/* The bundle-level tail step by step (a shape dis_fshape.h does not keep, or x->fast_steps): the format's
 * conditions, the slots not printed holding their default ops, FIELD == FIELD pairs, the defaults, the format's
 * other fields at 0. */
static FAST_OUTLINE bool tail_steps(struct tsr_fx *X, struct tsr_dis_fast *F0, unsigned fmt, const uint16_t *ops,
                                    uint64_t printed)
{
    const struct tsr_tc_isa *isa = X->isa;
    struct tsr_dis_exact *x = X->x;
    const struct tsr_tc_format *F = &isa->formats[fmt];
    const uint64_t *f = X->f;
    uint64_t *bound = F0->bound;
    const uint16_t *eq = F0->eq;
    size_t nw = F0->nw;
    /* the format's conditions (nothing before reads what they bind) */
    if (!fconds(X, F->cond, F->ncond))
        return false;
    /* the slots not printed hold their default ops */
    for (uint32_t t = 0; t < F->nslot; t++) {
        if (t < 64 && (printed >> t & 1))
            continue;
        unsigned slot = isa->idx[F->slot + t];
        unsigned opi = isa->slots[slot].default_op;
        if (ops[slot] != opi || !fconds(X, isa->ops[opi].cond, isa->ops[opi].ncond))
            return false;
    }
    /* FIELD == FIELD: a bound side binds the other; each pair needs one (dis_exact.c) */
#define FBIT(fd) (bound[(fd) >> 6] >> ((fd) & 63) & 1)
    for (bool changed = X->neq > 0; changed;) {
        changed = false;
        for (uint32_t i = 0; i < X->neq; i += 2) {
            unsigned a = eq[i], b = eq[i + 1];
            if (FBIT(a) != FBIT(b)) {
                tsr_fx_bind(X, FBIT(a) ? b : a);
                changed = true;
            }
        }
    }
    for (uint32_t i = 0; i < X->neq; i += 2)
        if (!FBIT(eq[i]) ||
            ((f[eq[i]] ^ f[eq[i + 1]]) & tsr_bits_mask(isa->fields[eq[i]].width) &
             tsr_bits_mask(isa->fields[eq[i + 1]].width)))
            return false;
    /* the fields nothing bound: the first default for them (ops' in slot order, then the format's), else 0 */
    for (uint32_t t = 0; t < F->nslot; t++)
        if (!defaults_hold(op_facts(x, isa, ops[isa->idx[F->slot + t]]), nw, bound, f))
            return false;
    struct fop *fo = &F0->fd[fmt];
    if (!fo->init) {
        defaults_of(isa, nw, isa->defs + F->def, F->ndef, fo);
        fo->init = true;
    }
    if (!defaults_hold(fo, nw, bound, f))
        return false;
#undef FBIT
    /* the format's fields nothing bound are 0 */
    for (size_t w = 0; w < nw; w++)
        for (uint64_t u = F0->fmask[fmt * nw + w] & ~bound[w]; u; u &= u - 1)
            if (f[w * 64 + (unsigned)__builtin_ctzll(u)])
                return false;
    return true;
}

/* The end of part k's text when a part's text may hold ';' (not semi_free): the next ';' at or after start
 * (asm_engine.c tsr_asm_bundle splits at every one), which a part but the last must have; UINT32_MAX: the split
 * is not the printed one. */
static FAST_OUTLINE TSR_FX_COLD uint32_t part_end_searched(const char *text, uint32_t n, uint32_t start, bool more)
{
    const char *semi = memchr(text + start, ';', n - start);
    if (more != (semi != NULL))
        return UINT32_MAX;
    return semi ? (uint32_t)(semi - text) : n;
}

bool tsr_dis_fast(const struct tsr_tc_isa *isa, struct tsr_dis_exact *x, const void *inst, const char *text,
                  size_t len, const struct tsr_dis_path *path)
{
    const struct tsr_dis_ev *ev = path->ev;
    const struct tsr_dis_slotp *sp = path->sp;
    size_t nev = path->nev, np = path->nsp;
    struct tsr_dis_fast *F0 = x->fast;
    /* the full proof sets up the facts and its arrays on its first bundle; F0 is made once they are */
    if (path->over || (!F0 && !(F0 = fast_new(isa, x))))
        return false;
    size_t nw = F0->nw;
    const unsigned char *ib = inst;
    unsigned fmt = ib[0];
    if (fmt >= isa->nformats || len > UINT32_MAX / 2 || np - 1 >= MAX_PARTS)
        return false;
    const struct tsr_tc_format *F = &isa->formats[fmt];
    const uint16_t *ops = (const uint16_t *)(const void *)(ib + isa->off_op);
    const uint32_t *ign = (const uint32_t *)(const void *)(ib + isa->off_ignored);
    const uint64_t *f = (const uint64_t *)(const void *)(ib + isa->off_f);
    if (!tsr_dis_plain(isa, F, ign, text, len))
        return false;
    uint32_t n = (uint32_t)len;
    /* each part's op (the alternatives printed at the parts' leading operands: fx_leads); the path's shape, as
     * the printers make it (dis_path.h): slot positions rising within the format (below 64, the width of
     * `printed`), first events in order and within the path, so that each part's events [ie, iend) below are in
     * order and within the path */
    unsigned *pop = F0->pop;
    const uint16_t *fsl = isa->idx + F->slot;   /* the format's slots by position */
    const uint32_t nsl = F->nslot < 64 ? F->nslot : 64;
    for (size_t k = 0, e0 = 0, t0 = 0; k < np; k++) {
        uint32_t t = sp[k].t;
        size_t ie = sp[k].first;
        if (t - t0 >= nsl - t0 || ie - e0 > nev - e0)   /* t in [t0, nsl), ie in [e0, nev]: t0 <= nsl, e0 <= nev */
            return false;
        t0 = t + 1, e0 = ie;
        unsigned a = ops[fsl[t]];
        if (a >= isa->nops)
            return false;
        pop[k] = a;
    }
    F0->leads = false;
    uint64_t *bound = F0->bound;
    const uint16_t *eq = F0->eq;
    bound[0] = 0;   /* F0->bound holds 16 words, nw at most 16 */
    for (size_t w = 1; w < nw; w++)
        bound[w] = 0;
    /* the checkers' state: its bundle-independent members were set with F0 */
    struct tsr_fx *X = &F0->X;
    X->s = text, X->f = f, X->neq = 0;   /* lim, cur, lalt, end: per part, before its checker */
    X->fmt = fmt, X->np = np, X->sp = sp, X->ev0 = ev, X->nev = nev, X->top = NULL;
    const tsr_fx_fn *fxop = isa->fx->op;
    uint32_t s = 0, start = 0;
    uint64_t printed = 0;
    const bool semi_free_ = F0->semi_free;
    for (size_t k = 0; k < np; k++) {
        /* the part's text: up to the next ';' (asm_engine.c tsr_asm_bundle splits at every ';'): the part's end
         * the path records when no part's text can hold one (semi_free), else searched */
        uint32_t lim = sp[k].end;
        if (!semi_free_) {
            lim = part_end_searched(text, n, start, k + 1 < np);
            if (sp[k].end > lim)   /* the checkers' events end by lim (dis_fx.h tsr_fx_in) */
                return false;
        } else if (lim < start || (k + 1 < np ? lim >= n || text[lim] != ';' : lim != n))
            return false;
        uint32_t q = fws(text, lim, start);
        if (q >= lim)   /* also lim == UINT32_MAX */
            return false;
        uint32_t t = sp[k].t;
        size_t ie = sp[k].first, iend = k + 1 < np ? sp[k + 1].first : nev;
        unsigned a = pop[k];
        X->lim = lim, X->cur = k, X->lalt = x->lalt[k];
        memset(x->lalt[k], 0xff, TSR_DIS_LALT);
        /* run_plan: the first event is where the assembler starts; the op's checker; the part's text ends
         * after its last event */
        if (ie < iend && ev[ie].pos != q && (ev[ie].pos > lim || fws(text, lim, ev[ie].pos) != q))
            return false;
        size_t used;
        X->end = q;
        size_t avail = iend - ie;
        if (!fxop[a](X, ev + ie, avail, &used) || used != avail)
            return false;
        /* lim, a and t again from where they are kept (the checkers write none of X->lim, pop[], sp[]): values
         * the compiler would otherwise keep across the call, on the stack */
        lim = X->lim, a = pop[k], t = sp[k].t;
        if (X->end > lim || fws(text, lim, X->end) != lim)
            return false;
        /* the slots and ops the assembler tries before this one (fslot's first tests, on the facts kept per op,
         * inline) */
        const struct fop *o = &F0->op[a];
        for (uint32_t u = s; u < t; u++) {
            unsigned us = fsl[u];
            if (!(us < 64 && (o->snever >> us & 1)) && fslot(X, us, TSR_TC_NO_OP, a, k))
                return false;
        }
        if (F0->hot[a].bnever != 2 && fslot(X, fsl[t], a, a, k))
            return false;
        printed |= (uint64_t)1 << t;
        s = t + 1;
        start = lim + 1;
    }
    /* the formats before fmt: each has too few slots, or a part that fits none of its slots; first by the
     * formats each printed op is known to fit no slot of (tsr_dis_fmt_never, kept per op) */
    uint64_t open = fmt < 64 && np <= MAX_PARTS ? F0->before[fmt] & ~F0->few[np] : 1;
    for (size_t k = 0; k < np && open; k++)
        open &= ~F0->hot[pop[k]].fnever;
    if (open && !formats_before(X, fmt, np, pop))
        return false;
    /* the rest reads the bundle's shape and compares ops and fields with constants: kept per shape
     * (dis_fshape.h) */
    if (nw == 1 && nsl <= 8 && X->neq <= 8 && !x->fast_steps) {   /* a shape the key holds (fmt is a byte) */
        const struct tsr_fx_shape *e = tsr_fx_shape(&F0->sh, isa, fmt, ops, printed, bound[0], eq, X->neq);
        if (e && e->state != TSR_FX_SHAPE_STEPS)
            return e->state == TSR_FX_SHAPE_CMP && tsr_fx_shape_holds(F0->sh, e, isa, ops, f);
    }
    return tail_steps(X, F0, fmt, ops, printed);
}

void tsr_dis_fast_free(struct tsr_dis_exact *x)
{
    struct tsr_dis_fast *F0 = x->fast;
    if (!F0)
        return;
    const struct tsr_tc_isa *isa = x->st.isa;
    for (uint32_t i = 0; isa && isa->fx && i < isa->fx->npks; i++)
        free(F0->pk[i]);
    free(F0->pk);
    free(F0->pkf);
    free(F0->pkm);
    free(F0->nm);
    free(F0->opk);
    free(F0->mm);
    for (unsigned a = 0; isa && a < isa->nops; a++)
        free(F0->op[a].defmask), free(F0->op[a].defval);
    for (unsigned g = 0; isa && g < isa->nformats; g++)
        free(F0->fd[g].defmask), free(F0->fd[g].defval);
    free(F0->op);
    free(F0->fd);
    free(F0->hot);
    free(F0->pl);
    free(F0->fmask);
    tsr_fx_shapes_free(F0->sh);
    free(F0);
    x->fast = NULL;
}
