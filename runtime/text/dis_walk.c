/* The walk of one bundle part for the disassembler's proof (dis_exact.c, whose comment gives the rules): the part
 * read back along the printed path, by its operands' plans (dis_plan.c, run_plan) or step by step (walk), every
 * earlier choice at each decision ruled out by the facts, through a field (refuted, forces) or on the text.
 */
#include <stdlib.h>
#include <string.h>

#include "asm_match.h"
#include "bits.h"
#include "dis_px.h"

/* Does alternative al bind FIELD to a value other than v? */
static bool binds_other(const struct tsr_tc_isa *isa, const struct tsr_tc_alt *al, unsigned field, uint64_t v)
{
    for (uint32_t d = 0; d < al->ncond; d++) {
        const struct tsr_tc_cond *c = &isa->conds[al->cond + d];
        if (c->kind == TSR_TC_BIND && c->field == field && c->val != v)
            return true;
    }
    return false;
}

/* Does bundle part k pin FIELD to a value other than v on the text alone?  Every op of the format that can
 * match the part (its printed op, and those dis_static.c cannot rule out) must begin with literal text and an
 * operand, and every alternative of that operand that can match the text there, followed by the rest of the
 * op's template, must bind FIELD to a value other than v. */
static bool forces(struct px *P, size_t k, unsigned field, uint64_t v)
{
    const struct tsr_tc_isa *isa = P->isa;
    unsigned a = P->pop[k], b;
    /* on a path through the alternative being decided, the parts up to the current one are matched as printed
     * (ops and slots); a later part takes a later slot */
    struct tsr_dis_opit it = {.t = k > P->cur ? P->sp[P->cur].t + 1 : 0};
    while (tsr_dis_part_op_next(P, k, &it, &b)) {
        const struct tsr_tc_op *op = &isa->ops[b];
        const struct tsr_tc_part *p = isa->parts + op->part, *end = p + op->npart;
        uint32_t pos = P->pi[k].q, e;
        bool lits = true;
        for (; p < end && lits && (p->kind == TSR_TC_TEXT || p->kind == TSR_TC_SPACE); p++) {
            uint32_t q = ws(P, pos);
            if (p->kind == TSR_TC_TEXT)
                lits = lit(P, p->text, p->len, p->bound, q, &e), pos = e;
            else
                lits = space_ok(P, pos, q), pos = q;
        }
        if (!lits)
            continue;   /* this op does not match the part */
        if (p == end || p->kind != TSR_TC_OPND)
            return false;
        const struct tsr_tc_opnd *o = &isa->opnds[p->arg];
        struct tsr_dis_kont rest = {p + 1, end, NULL};
        /* the printed op: its printed alternative, and those the templates cannot rule out (dis_static.c) */
        uint32_t pw = b == a && P->plead[k] != SIZE_MAX ? P->ev[P->plead[k]].what : UINT32_MAX;
        /* the printed alternative matches: unless it binds FIELD to another value, the loop below ends
         * with false when it reaches it (or before) */
        if (pw < o->nalt && !binds_other(isa, &isa->alts[o->alt + pw], field, v))
            return false;
        for (uint32_t i = 0; i < o->nalt; i++) {
            const struct tsr_tc_alt *al = &isa->alts[o->alt + i];
            /* an alternative that binds FIELD to another value passes whether or not it can match: the
             * facts and the text are asked only for the others */
            if (binds_other(isa, al, field, v))
                continue;
            if (pw < o->nalt && i != pw && (tsr_dis_alt_ctx(&P->x->st, p, end, i, pw) == TSR_DIS_NEVER ||
                                            tsr_dis_alt_entry(&P->x->st, p, end, i, pw, P->f) == TSR_DIS_NEVER))
                continue;
            const struct tsr_tc_part *ap = isa->parts + al->part;
            if (i == pw || tsr_dis_possible(P, ap, ap + al->npart, ws(P, pos), &rest, false))
                return false;
        }
    }
    return true;
}

/* Whether alternative alt, tried by the assembler before the printed one and matching the text, still fails
 * through a field: it binds FIELD = v, and another bundle part pins FIELD to another value, by the facts
 * (dis_spin.c) or on the text alone (forces).  Every path through alt makes both bindings, so none completes.
 * (The I/O registers are names of both write tables: `t1b` read by the A alternative binds ws = 0, and the
 * other part's `ra28`, a name of the A table only, binds ws = 1 in every alternative that can read it.)  The
 * part being walked counts too, unless alt is an alternative of its leading operand (then that operand is the
 * one being decided). */
static bool refuted(struct px *P, const struct tsr_tc_alt *alt, const struct tsr_tc_alt *pa)
{
    const struct tsr_tc_isa *isa = P->isa;
    /* the facts first (dis_spin.c: a few look-ups); the text only for the pairs (binding, part) they leave open
     * (bit i of open for the i-th pair; bit 63 for all from the 63rd on) */
    uint64_t open;
    uint8_t pw[MAX_PARTS];   /* the alternatives printed at the parts' leading operands */
    tsr_dis_lead_alts(P, pw);
    if (tsr_dis_spin_alt(isa, P->x, P->fmt, P->np, P->pop, P->sp, pw, P->cur, P->plead[P->cur] == P->top, alt, P->f,
                         &open))
        return true;
    uint8_t lalt[MAX_PARTS][TSR_DIS_LALT];
    tsr_dis_ops_lalt(P, lalt);
    if (tsr_dis_spin_ops(isa, P->x, P->fmt, P->np, P->pop, P->sp, P->cur, (const uint8_t (*)[TSR_DIS_LALT])lalt, alt,
                         P->f) ||
        tsr_dis_hole_refuted(P, alt, pa) || tsr_dis_bound_refuted(isa, alt, pa, P->f, P->x->bound, NULL) ||
        tsr_dis_chain_refuted(P, alt))
        return true;
    bool ok = false;
    uint32_t lim = P->lim;
    for (uint32_t c = 0, i = 0; c < alt->ncond && !ok && open; c++) {
        const struct tsr_tc_cond *bc = &isa->conds[alt->cond + c];
        if (bc->kind != TSR_TC_BIND)
            continue;
        for (size_t k = 0; k < P->np && !ok; k++, i++) {
            if ((k == P->cur && P->plead[k] == P->top) || !(open >> (i < 64 ? i : 63) & 1))
                continue;
            P->lim = P->pi[k].end;
            ok = forces(P, k, bc->field, bc->val);
        }
    }
    P->lim = lim;
    return ok;
}

/* A table hole the short way does not show (walk): the names the assembler finds at q, longer ones first,
 * then the numeric entries, must give the printed entry first (ev: its event; q: where the assembler is). */
static bool table_hole(struct px *P, const struct tsr_tc_part *p, const struct tsr_tc_part *end,
                       const struct tsr_dis_kont *k, const struct tsr_dis_ev *ev, uint32_t q)
{
    const struct tsr_tc_isa *isa = P->isa;
    const struct tsr_tc_table *T = &isa->tables[p->arg];
    uint64_t want = P->f[p->field];
    uint32_t lp = ev->end - ev->pos;
    const uint32_t *len, *code;
    int nn = tsr_dis_names_memo(P, p, q, &len, &code);
    /* the printed entry is ev->end - ev->pos characters from q (an empty name may be printed before
     * blanks that the assembler skips first) */
    if (nn < 0 || (lp && q != ev->pos))
        return false;
    bool found = false;
    for (int i = 0; i < nn; i++) {
        if (ev->what == TSR_TC_PRINT_NAME && len[i] == lp) {
            if (code[i] != want)
                return false;
            found = true;
        } else if (ev->what != TSR_TC_PRINT_NAME || len[i] > lp) {
            /* tried before the printed entry (longer names first, names before numbers): fails on the text,
             * or through its code (dis_pin.c) */
            if (tsr_dis_possible(P, p + 1, end, q + len[i], k, false) && !tsr_dis_pinned(P, p->field, code[i]))
                return false;
        }
    }
    if (ev->what != TSR_TC_PRINT_NAME) {
        struct tsr_asm_val v;
        size_t ee;
        if (tsr_dis_expr_at(P, q, &ee, &v) <= 0 || ee != ev->end)
            return false;
        for (uint32_t i = 0; i < T->nnums && !found; i++) {
            const struct tsr_tc_num *nu = &isa->nums[T->num_first + i];
            if (!tsr_dis_num_ok(nu, &v))
                continue;
            if (nu->code != want) {
                /* another entry of the same value comes first: the assembler binds its code and reads on
                 * (asm_engine.c table_hole), and backtracks to the next entry when that path fails: by the
                 * facts (a rotation `>> 2` after the last source pins raddr_b), else on the text */
                uint64_t c = nu->code;
                if (!tsr_dis_pinned_facts(P, p->field, &c, 1) && !tsr_dis_pinned(P, p->field, nu->code))
                    return false;
                continue;
            }
            found = true;
        }
    }
    return found && tsr_px_bind_field(P, p->field, want);
}

/* Follows the printed path through parts [p, end) along the log, showing (1) and (2) of the top comment
 * for every decision on it; k is what follows in the template (for the text-only matcher). */
static bool walk(struct px *P, const struct tsr_tc_part *p, const struct tsr_tc_part *end, const struct tsr_dis_kont *k)
{
    const struct tsr_tc_isa *isa = P->isa;
    for (; p < end; p++) {
        if (P->ie >= P->iend)
            return false;
        const struct tsr_dis_ev *ev = &P->ev[P->ie++];
        /* the log only names the choices; what is matched is computed from P->pos, the assembler's place */
        if (ev->pos > ev->end || ev->end > P->lim || (ev->pos != P->pos && ws(P, ev->pos) != ws(P, P->pos)))
            return false;
        uint32_t q = ws(P, P->pos), e = q;
        struct tsr_dis_kont rest = {p + 1, end, k};
        switch (p->kind) {
        case TSR_TC_TEXT:
            /* the literal matches its own print (a blank in it matches the printed blank): only the bound
             * rule can reject it, when an identifier character follows */
            if (ev->end - ev->pos != p->len || !same(P->s + ev->pos, p->text, p->len) ||
                (p->bound && p->len && tsr_asm_isident(p->text[p->len - 1]) && ev->end < P->lim &&
                 tsr_asm_isident(P->s[ev->end])))
                return false;
            e = ev->end;
            break;
        case TSR_TC_SPACE:
            if (!space_ok(P, P->pos, q) || q != ws(P, ev->end))
                return false;
            e = q;
            break;
        case TSR_TC_TABLE: {
            uint64_t want = P->f[p->field];
            uint32_t lp = ev->end - ev->pos;
            /* a printed name that reads back as its code, with no longer name that could match instead
             * (decided once per template place, dis_static.c) */
            if (ev->what == TSR_TC_PRINT_NAME && (!k || !k->next) && (!lp || q == ev->pos) &&
                tsr_dis_name_ok(&P->x->st, p->arg, want) &&
                tsr_dis_longer(&P->x->st, p, end, k ? k->p : NULL, k ? k->end : NULL, want) == TSR_DIS_NEVER) {
                const char *nm = tsr_dis_print_of(isa, p->arg, want)->name;   /* the record's text is that name */
                if (!is_name(P->s + q, nm, lp) ||
                    (p->bound && lp && tsr_asm_isident(P->s[q + lp - 1]) && q + lp < P->lim &&
                     tsr_asm_isident(P->s[q + lp])))
                    return false;
                if (!tsr_px_bind_field(P, p->field, want))
                    return false;
                e = q + lp;
                break;
            }
            if (!table_hole(P, p, end, k, ev, q))
                return false;
            e = q + lp;
            break;
        }
        case TSR_TC_INT: {
            struct tsr_asm_val v;
            size_t ee;
            int64_t x;
            if (q != ev->pos || tsr_dis_expr_at(P, q, &ee, &v) <= 0 || ee != ev->end ||
                !tsr_dis_int_value(&isa->fields[p->field], &v, &x) || !tsr_px_bind_field(P, p->field, (uint64_t)x))
                return false;
            e = ev->end;
            break;
        }
        case TSR_TC_OPT: {
            bool m = lit(P, p->text, p->len, p->bound, q, &e);
            if (ev->what) {
                if (!m || ws(P, e) != ws(P, ev->end) || !tsr_px_conds(P, p->cond, p->ncond))
                    return false;
            } else {
                if (ev->end != ev->pos || (m && tsr_dis_possible(P, p + 1, end, e, k, false)))
                    return false;
                e = P->pos;
            }
            break;
        }
        case TSR_TC_OPND: {
            const struct tsr_tc_opnd *o = &isa->opnds[p->arg];
            if (ev->what >= o->nalt)
                return false;
            uint64_t maybe = k ? UINT64_MAX : tsr_dis_alt_maybe(&P->x->st, p, end, ev->what);
            for (uint32_t i = 0; i < ev->what; i++) {
                const struct tsr_tc_alt *alt = &isa->alts[o->alt + i];
                if (i < 63 && !(maybe >> i & 1))
                    continue;   /* cannot match anything the printed alternative prints (dis_static.c) */
                if (k ? tsr_dis_alt_pair(&P->x->st, o->alt + i, o->alt + ev->what) == TSR_DIS_NEVER
                      : (tsr_dis_alt_ctx(&P->x->st, p, end, i, ev->what) == TSR_DIS_NEVER ||
                         tsr_dis_alt_entry(&P->x->st, p, end, i, ev->what, P->f) == TSR_DIS_NEVER))
                    continue;   /* the same, or for the entry printed */
                if (!k)
                    P->top = (size_t)(ev - P->ev);
                /* fails on the text (alone, then with what follows it in the template), or through a field */
                if (tsr_dis_possible(P, isa->parts + alt->part, isa->parts + alt->part + alt->npart, q, NULL, true) &&
                    tsr_dis_possible(P, isa->parts + alt->part, isa->parts + alt->part + alt->npart, q, &rest, false) &&
                    !refuted(P, alt, k ? NULL : &isa->alts[o->alt + ev->what]) && !tsr_dis_alt_pinned(P, alt, q))
                    return false;
            }
            const struct tsr_tc_alt *alt = &isa->alts[o->alt + ev->what];
            if (!k && ev->what < 0xff && (size_t)(p - P->opbase) < TSR_DIS_LALT)
                P->lalt[P->cur][p - P->opbase] = (uint8_t)ev->what;
            P->pos = q;
            if (!k)
                P->top = (size_t)(ev - P->ev);
            bool ok = walk(P, isa->parts + alt->part, isa->parts + alt->part + alt->npart, &rest);
            if (!k)
                P->top = SIZE_MAX;
            if (!ok || ws(P, P->pos) != ws(P, ev->end) || !tsr_px_conds(P, alt->cond, alt->ncond))
                return false;
            e = P->pos;
            break;
        }
        default:   /* TSR_TC_LABEL: depends on the address; not proven here */
            return false;
        }
        P->pos = e;
    }
    return true;
}

/* A step s of kind TSR_DIS_S_FIXINT, TSR_DIS_S_NUMROW, or TSR_DIS_S_TAB at a number printed last in its bundle
 * part, on its event ev and the instruction's fields f, from the facts alone (no text): true when it shows
 * what the walk's reading of the number shows there, and then binds the field (x->bound); false when the facts
 * do not show it (a code whose row says no; the step then runs as S_TAB, on the text). */
static inline bool num_run(struct tsr_dis_exact *x, const struct tsr_dis_step *s, const struct tsr_dis_ev *ev,
                           const uint64_t *f)
{
    uint64_t c = f[s->field];
    unsigned w = x->st.isa->fields[s->field].width;
    if (ev->pos >= ev->end || (w < 64 && c >> w))   /* a number is printed; the decoded code fits the field */
        return false;
    if (s->kind != TSR_DIS_S_FIXINT) {
        int v = s->row && c < s->len ? s->row[c] : TSR_DIS_UNKNOWN;
        if (v == TSR_DIS_UNKNOWN)
            v = tsr_dis_num_entry(&x->st, s->p->arg, c);
        if (v != TSR_DIS_NEVER)
            return false;
    }
    x->bound[s->field] = 1;
    return true;
}

/* table_hole for the table hole of step st on its event ev, with P->top the event of the op-level operand the
 * step lies in (pl: an operand's plan, whose events the steps index from the operand's; NULL: the op's own
 * parts, none), as the walk has it there. */
static bool step_hole(struct px *P, const struct tsr_dis_plan *pl, const struct tsr_dis_step *st,
                      const struct tsr_dis_ev *ev)
{
    P->top = pl ? (size_t)(ev - st->ev - P->ev) : SIZE_MAX;
    /* a number the reader reads alone, its code after entries of the same value: first from the facts */
    bool ok = (ev->what != TSR_TC_PRINT_NAME && (st->kind == TSR_DIS_S_NUMROW || ev->end == P->lim) &&
               tsr_dis_num_pinned(P, st, ev)) ||
              table_hole(P, st->p, st->end, st->k, ev, ws(P, ev->pos));
    P->top = SIZE_MAX;
    return ok;
}

/* One step of a plan (dis_exact.h, dis_plan.c; pl: its plan, for S_CONDS and S_OPND) on its event ev: false
 * when it does not show what the walk shows there. */
static inline bool run_step(struct px *P, const struct tsr_dis_plan *pl, const struct tsr_dis_step *st,
                            const struct tsr_dis_ev *ev)
{
    const struct tsr_tc_isa *isa = P->isa;
    struct tsr_dis_exact *x = P->x;
    if (ev->pos > ev->end || ev->end > P->lim)   /* the step reads the text there */
        return false;
    switch (st->kind) {
    case TSR_DIS_S_LIT:
        return !(ev->end < P->lim && tsr_asm_isident(P->s[ev->end]));
    case TSR_DIS_S_NAME: {
        uint64_t c = P->f[st->field];
        int v = c < st->len && st->row ? st->row[c] : TSR_DIS_UNKNOWN;
        if (v == TSR_DIS_UNKNOWN)
            v = tsr_dis_name_fast(&x->st, st->p, st->end, st->k ? st->k->p : NULL, st->k ? st->k->end : NULL, c);
        if (v != TSR_DIS_NEVER)
            return step_hole(P, pl, st, ev);
        uint32_t lp = ev->end - ev->pos;
        if ((lp && ws(P, ev->pos) != ev->pos) || (st->p->bound && lp && tsr_asm_isident(P->s[ev->end - 1]) &&
                                                  ev->end < P->lim && tsr_asm_isident(P->s[ev->end])))
            return false;
        x->bound[st->field] = 1;
        return true;
    }
    case TSR_DIS_S_TAB:
        /* a number that what follows in the template may extend (`-14 >> 2`, dis_num.c (a)) but that is printed
         * last in its part: the reader stops at the part's end, so it reads the number alone, and the code's row
         * decides as for S_NUMROW (dis_num.c (b)) */
        if (ev->what != TSR_TC_PRINT_NAME && ev->end == P->lim && isa->tables[st->p->arg].nnums &&
            num_run(x, st, ev, P->f))
            return true;
        return step_hole(P, pl, st, ev);
    case TSR_DIS_S_INT: {
        struct tsr_asm_val v;
        size_t ee;
        int64_t n;
        return ws(P, ev->pos) == ev->pos && tsr_dis_expr_at(P, ev->pos, &ee, &v) > 0 && ee == ev->end &&
               tsr_dis_int_value(&isa->fields[st->field], &v, &n) && tsr_px_bind_field(P, st->field, (uint64_t)n);
    }
    case TSR_DIS_S_FIXINT:
        return num_run(x, st, ev, P->f);
    case TSR_DIS_S_NUMROW:
        return num_run(x, st, ev, P->f) || step_hole(P, pl, st, ev);
    case TSR_DIS_S_OPT0: {
        uint32_t q = ws(P, ev->pos), e;
        return ev->end == ev->pos &&
               !(lit(P, st->p->text, st->p->len, st->p->bound, q, &e) &&
                 tsr_dis_possible(P, st->p + 1, st->end, e, st->k, false));
    }
    case TSR_DIS_S_CONDS:
        for (uint32_t j = 0; j < st->n; j++) {   /* as tsr_px_conds() */
            const struct tsr_dis_cc *c = &pl->cc[st->a + j];
            if (c->kind == TSR_TC_BIND) {
                if (P->f[c->field] != c->val)
                    return false;
                x->bound[c->field] = 1;
            } else if (c->kind != TSR_TC_BIND2) {
                if (!isa->check(c->id, P->f))
                    return false;
            } else if (P->f[c->field] != P->f[c->field2] || !tsr_px_eq_pair(x, c->field, c->field2)) {
                return false;
            }
        }
        return true;
    case TSR_DIS_S_OPND: {
        const struct tsr_tc_opnd *o = &isa->opnds[st->p->arg];
        struct tsr_dis_kont rest = {st->p + 1, st->end, st->k};
        uint32_t q = ws(P, ev->pos);
        for (uint32_t j = 0; j < st->n; j++) {
            const struct tsr_dis_early *y = &pl->early[st->a + j];
            if (tsr_dis_early_never(&x->st, st, y, ev->what, P->f))
                continue;
            const struct tsr_tc_alt *alt = &isa->alts[o->alt + y->alt];
            P->top = (size_t)(ev - P->ev);
            /* through a field first: mostly lookups (forces), where the text-only matcher would find that
             * the alternative matches (a name of both tables) */
            const struct tsr_tc_part *ap = isa->parts + alt->part;
            bool fails = refuted(P, alt, &isa->alts[o->alt + ev->what]) ||
                         !tsr_dis_possible(P, ap, ap + alt->npart, q, NULL, true) ||
                         !tsr_dis_possible(P, ap, ap + alt->npart, q, &rest, false) || tsr_dis_alt_pinned(P, alt, q);
            P->top = SIZE_MAX;
            if (!fails)
                return false;
        }
        return true;
    }
    }
    return false;
}

/* The steps of plan pl on the events from ev (the operand's). */
static bool run_steps(struct px *P, const struct tsr_dis_plan *pl, const struct tsr_dis_ev *ev)
{
    for (uint32_t i = 0; i < pl->nstep; i++)
        if (!run_step(P, pl, &pl->step[i], ev + pl->step[i].ev))
            return false;
    return true;
}

/* tsr_dis_plan_get, the plans already made found here (most lookups). */
static inline const struct tsr_dis_plan *plan_of(struct px *P, const struct tsr_tc_part *p,
                                                 const struct tsr_tc_part *end, const struct tsr_dis_ev *ev,
                                                 size_t avail)
{
    struct tsr_dis_exact *x = P->x;
    size_t part = (size_t)(p - P->isa->parts);
    if (x->plans && part < x->st.nparts && ev->what < x->st.maxalt)
        for (const struct tsr_dis_plan *pl = x->plans[part * x->st.maxalt + ev->what]; pl; pl = pl->next) {
            if (pl->nev > avail)
                break;   /* the same for every plan of the place and alternative */
            uint32_t i = 1;
            while (i < pl->nev && pl->what[i] == ev[i].what)
                i++;
            if (i == pl->nev)
                return pl;
        }
    return tsr_dis_plan_get(x, P->isa, p, end, ev, avail);
}

/* The walk of the current part (P->cur, printed by op `a`, its events from P->ie) with the plans of its
 * operands (dis_plan.c); the op's own parts between them as the walk takes them, the literals matching their
 * own prints.  True when that shows what the walk would show, with the same effects (fields bound,
 * FIELD == FIELD pairs, the alternatives recorded, P->pos and P->ie past the part); false when it does not
 * (the walk then decides). */
static bool run_plan(struct px *P, unsigned a)
{
    const struct tsr_tc_isa *isa = P->isa;
    const struct tsr_tc_op *op = &isa->ops[a];
    const struct tsr_tc_part *p0 = isa->parts + op->part, *end = p0 + op->npart;
    size_t ie = P->ie;
    const struct tsr_dis_ev *ev = NULL;
    if (ie < P->iend && P->ev[ie].pos != P->pos &&
        (P->ev[ie].pos > P->lim || ws(P, P->ev[ie].pos) != ws(P, P->pos)))
        return false;   /* the first event where the assembler starts */
    for (const struct tsr_tc_part *p = p0; p < end; p++) {
        if (ie >= P->iend)
            return false;
        ev = &P->ev[ie];
        struct tsr_dis_step st = {.p = p, .end = end, .field = p->field};
        switch (p->kind) {
        case TSR_TC_TEXT:
            if (p->bound && p->len && tsr_asm_isident(p->text[p->len - 1]) && !run_step(P, NULL, &st, ev))
                return false;
            ie++;
            break;
        case TSR_TC_SPACE:
            ie++;
            break;
        case TSR_TC_TABLE:
            st.kind = ev->what == TSR_TC_PRINT_NAME ? TSR_DIS_S_NAME : tsr_dis_num_opkind(&P->x->st, p, end);
            if (st.kind == TSR_DIS_S_NUMROW)
                st.row = tsr_dis_num_row(&P->x->st, p->arg, &st.len);
            if (!run_step(P, NULL, &st, ev))
                return false;
            ie++;
            break;
        case TSR_TC_INT:
            st.kind = tsr_dis_num_opkind(&P->x->st, p, end);
            if (!run_step(P, NULL, &st, ev))
                return false;
            ie++;
            break;
        case TSR_TC_OPT:
            if (ev->what) {
                st.kind = TSR_DIS_S_LIT;
                if ((p->bound && p->len && tsr_asm_isident(p->text[p->len - 1]) && !run_step(P, NULL, &st, ev)) ||
                    !tsr_px_conds(P, p->cond, p->ncond))
                    return false;
            } else {
                st.kind = TSR_DIS_S_OPT0;
                if (!run_step(P, NULL, &st, ev))
                    return false;
            }
            ie++;
            break;
        case TSR_TC_OPND: {
            const struct tsr_dis_plan *pl = plan_of(P, p, end, ev, P->iend - ie);
            if (!pl || pl->walk || !run_steps(P, pl, ev))
                return false;
            if ((size_t)(p - p0) < TSR_DIS_LALT)
                P->lalt[P->cur][p - p0] = (uint8_t)ev->what;
            ie += pl->nev;
            break;
        }
        default:   /* TSR_TC_LABEL: not proven (walk) */
            return false;
        }
    }
    if (ev) {
        if (ev->end > P->lim)
            return false;
        P->pos = ev->end;
    }
    P->ie = ie;
    return true;
}

bool tsr_dis_walk_part(struct px *P, unsigned a)
{
    const struct tsr_tc_op *op = &P->isa->ops[a];
    uint32_t pos = P->pos;
    size_t ie = P->ie;
    if (run_plan(P, a))
        return true;
    P->pos = pos, P->ie = ie, P->top = SIZE_MAX;
    memset(P->lalt[P->cur], 0xff, TSR_DIS_LALT);
    return walk(P, P->isa->parts + op->part, P->isa->parts + op->part + op->npart, NULL);
}
