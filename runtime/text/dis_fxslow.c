/* The exactness proof's fast form (dis_fast.c), what the generated checkers (dis_fx.h, gen/emit_discheck.c) ask
 * when their inline tests cannot decide: the facts of a template place looked up on first use (a table hole's
 * name row, a number's kind and row), and an operand part's early alternatives ruled out by their rows or
 * refuted through the facts (dis_spin.c, dis_fpin.c), with what settles them kept for the next bundle.
 */
#include <stdlib.h>
#include <string.h>

#include "asm_engine.h"
#include "bits.h"
#include "dis_fast.h"
#include "dis_px.h"
#include "xalloc.h"

/* The facts of place pl: its part, the end of its sequence and its continuation (the op's template after the
 * operand, for an alternative's part). */
static void place_of(const struct tsr_tc_isa *isa, uint32_t pl, const struct tsr_tc_part **p,
                     const struct tsr_tc_part **end, struct tsr_dis_kont *k)
{
    const struct tsr_fx_pinfo *pi = &isa->fx->places[pl];
    *p = isa->parts + pi->part, *end = isa->parts + pi->end;
    *k = pi->cpart == UINT32_MAX ? (struct tsr_dis_kont){NULL, NULL, NULL}
                                 : (struct tsr_dis_kont){isa->parts + pi->cpart, isa->parts + pi->cend, NULL};
}

/* Looks up the facts of place pl (dis_plan.c plan_seq, dis_walk.c run_plan): the name row of a table hole
 * printed as a name; the kind of a number printed there and its row. */
static void place_init(struct tsr_fx *X, uint32_t pl)
{
    struct tsr_dis_static *st = &X->x->st;
    struct tsr_fx_pl *d = &X->pl[pl];
    const struct tsr_tc_part *p, *end;
    struct tsr_dis_kont k;
    place_of(X->isa, pl, &p, &end, &k);
    d->init = 1;
    if (p->kind != TSR_TC_TABLE && p->kind != TSR_TC_INT)
        return;
    d->mkind = k.p ? tsr_dis_num_kind(st, p, end, &k) : tsr_dis_num_opkind(st, p, end);
    d->tabnum = p->kind == TSR_TC_TABLE && X->isa->tables[p->arg].nnums;
    if (d->mkind == TSR_DIS_S_NUMROW || d->tabnum) {
        uint32_t len;
        d->mrow = tsr_dis_num_row(st, p->arg, &len);
        d->mlen = d->mrow ? len : 0;
    }
    if (p->kind == TSR_TC_TABLE) {
        uint32_t len;
        d->nrow = tsr_dis_name_row(st, p, end, k.p, k.end, &len);
        d->nlen = d->nrow ? len : 0;   /* set last: a row is read only when nlen says so */
    }
}

/* dis_fx.h tsr_fx_table, every case: S_NAME (the short way by the code's row, decided here on first use), or a
 * number (tsr_fx_num_slow). */
bool tsr_fx_table_slow(struct tsr_fx *X, uint32_t pl, unsigned field, bool bound, const struct tsr_dis_ev *ev)
{
    if (!tsr_fx_in(X, ev))
        return false;
    if (ev->what != TSR_TC_PRINT_NAME)
        return tsr_fx_num_slow(X, pl, field, ev);
    uint64_t c = X->f[field];
    uint32_t lp = ev->end - ev->pos;
    if (tsr_fx_name_slow(X, pl, c) != TSR_DIS_NEVER || (lp && tsr_asm_isblank(X->s[ev->pos])) ||
        (bound && lp && tsr_asm_isident(X->s[ev->end - 1]) && ev->end < X->lim && tsr_asm_isident(X->s[ev->end])))
        return false;
    return true;   /* the checker binds the field */
}

int tsr_fx_name_slow(struct tsr_fx *X, uint32_t pl, uint64_t c)
{
    struct tsr_fx_pl *d = &X->pl[pl];
    if (!d->init)
        place_init(X, pl);
    int v = c < d->nlen ? d->nrow[c] : TSR_DIS_UNKNOWN;
    if (v == TSR_DIS_UNKNOWN) {
        const struct tsr_tc_part *p, *end;
        struct tsr_dis_kont k;
        place_of(X->isa, pl, &p, &end, &k);
        v = tsr_dis_name_fast(&X->x->st, p, end, k.p, k.end, c);
    }
    if (v == TSR_DIS_NEVER && c < 64)
        X->nm[pl] |= (uint64_t)1 << c;
    return v;
}

/* The bundle's parts' leading operands (tsr_fx.plead) and the alternatives printed there (tsr_fx.pw), for the
 * slow halves only (dis_spin.c, dis_fpin.c ask them; the checkers' inline tests do not): worked out on the first
 * question in a bundle, from the parts' ops (tsr_fx.pop, which tsr_dis_fast fills before any checker runs) and
 * the path. */
static void fx_leads(struct tsr_fx *X)
{
    struct tsr_dis_fast *F0 = X->x->fast;
    if (F0->leads)
        return;
    const int32_t *oplead = X->x->oplead;
    for (size_t k = 0; k < X->np; k++) {
        unsigned a = X->pop[k];
        size_t pl = oplead[a] < 0 ? SIZE_MAX : X->sp[k].first + (size_t)oplead[a];
        F0->plead[k] = pl;
        F0->pw[k] = pl < X->nev && X->ev0[pl].what < 0xff ? (uint8_t)X->ev0[pl].what : 0xff;
    }
    F0->leads = true;
}

/* A proof state (dis_px.h) for the questions dis_fpin.c asks of the facts, over the bundle the checkers walk:
 * the operand whose event is top (SIZE_MAX: none) is the one being decided. */
static struct px fx_px(struct tsr_fx *X, size_t top)
{
    fx_leads(X);
    return (struct px){.isa = X->isa, .x = X->x, .s = X->s, .lim = X->lim, .f = X->f, .ev = X->ev0, .top = top,
                       .cur = X->cur, .fmt = X->fmt, .np = X->np, .nev = X->nev, .pop = X->pop, .sp = X->sp,
                       .lalt = X->x->lalt, .plead = X->plead, .ban_field = TSR_DIS_NOBAN};
}

bool tsr_fx_num_slow(struct tsr_fx *X, uint32_t pl, unsigned field, const struct tsr_dis_ev *ev)
{
    struct tsr_fx_pl *d = &X->pl[pl];
    if (!d->init)
        place_init(X, pl);
    /* S_TAB: a number the continuation may extend, read alone only when printed last in its part (dis_exact.c
     * run_step); S_INT and other S_TAB: the text decides */
    bool alone = d->mkind == TSR_DIS_S_NUMROW || (d->mkind == TSR_DIS_S_TAB && d->tabnum && ev->end == X->lim);
    if (d->mkind != TSR_DIS_S_FIXINT && !alone)
        return false;
    /* dis_exact.c num_run */
    uint64_t c = X->f[field];
    unsigned w = X->isa->fields[field].width;
    if (ev->pos >= ev->end || (w < 64 && c >> w))
        return false;
    bool kept = d->mkind != TSR_DIS_S_TAB;   /* the verdict depends on c (below) and a non-empty print only */
    if (d->mkind != TSR_DIS_S_FIXINT) {
        const struct tsr_fx_pinfo *pi = &X->isa->fx->places[pl];
        int v = c < d->mlen ? d->mrow[c] : TSR_DIS_UNKNOWN;
        if (v == TSR_DIS_UNKNOWN)
            v = tsr_dis_num_entry(&X->x->st, X->isa->parts[pi->part].arg, c);
        if (v != TSR_DIS_NEVER) {
            /* dis_exact.c step_hole: the entries before the printed one of the same value pinned by the facts */
            struct tsr_dis_step st = {.p = X->isa->parts + pi->part, .field = (uint32_t)field, .kind = d->mkind};
            struct px P = fx_px(X, pi->cpart == UINT32_MAX ? SIZE_MAX : (size_t)(X->top - X->ev0));
            if (!tsr_dis_num_pinned(&P, &st, ev))
                return false;
            kept = false;   /* the rest of the bundle showed it */
        }
    }
    /* Kept as bit c of mm[pl] (dis_fx.h tsr_fx_int, tsr_fx_table): S_FIXINT and S_NUMROW are the place's kind
     * (place_init, fixed per place); what was asked of the print is that it lies in the part and is not empty,
     * which the inline tests ask again; the field (and its width) is the place's part's; a row entry once decided
     * never changes.  S_TAB read alone is left out: it also asks that the print ends the part. */
    if (kept && c < 64)
        X->mm[pl] |= (uint64_t)1 << c;
    return true;   /* the checker binds the field */
}

/* dis_plan.c plan_seq for the operand part and alternative of pair pk: its early alternatives. */
static struct fpk *pk_make(struct tsr_fx *X, uint32_t pk)
{
    const struct tsr_tc_isa *isa = X->isa;
    struct tsr_dis_static *st = &X->x->st;
    const struct tsr_fx_pk *pi = &isa->fx->pks[pk];
    const struct tsr_tc_part *p = isa->parts + pi->part, *end = isa->parts + pi->end;
    unsigned k = pi->k;
    struct fpk *A = tsr_xcalloc(1, sizeof *A + k * sizeof A->early[0]);
    A->step.p = p, A->step.end = end, A->k = k, A->alt = isa->opnds[p->arg].alt;
    const struct tsr_tc_alt *pa = &isa->alts[A->alt + k];
    for (uint32_t i = 0; i < pa->npart; i++)
        A->opts |= isa->parts[pa->part + i].kind == TSR_TC_OPT;
    uint64_t maybe = tsr_dis_alt_maybe(st, p, end, k);
    for (uint32_t i = 0; i < k; i++) {
        if ((i < 63 && !(maybe >> i & 1)) || tsr_dis_alt_ctx(st, p, end, i, k) == TSR_DIS_NEVER)
            continue;
        struct tsr_dis_early *y = &A->early[A->nearly++];
        *y = (struct tsr_dis_early){.alt = i};
        y->nrow = tsr_dis_alt_entry_rows(st, p, end, i, k, y->r, TSR_DIS_EHOLES);
    }
    return A;
}

static struct fpk *pk_new(struct tsr_fx *X, uint32_t pk)
{
    struct fpk *A = X->pk[pk] = pk_make(X, pk);
    /* the fields every early alternative has a row on (each row of alternative j and hole h is indexed by the
     * code of the printed alternative's hole h); tsr_fx.pkf holds the first of them until another settles more
     * (tsr_fx_early_slow); none: pkm stays 0 */
    tsr_dis_early_fields(A->early, A->nearly, A->cf, &A->ncf, TSR_DIS_EHOLES);
    if (!A->nearly)
        X->pkf[pk] = TSR_FX_PK_NONE;   /* not a field: fast_new keeps isas of at most 1024 fields */
    else if (A->ncf)
        X->pkf[pk] = A->cf[0];
    return A;
}

static inline struct fpk *pk_get(struct tsr_fx *X, uint32_t pk)
{
    struct fpk *A = X->pk[pk];
    return A ? A : pk_new(X, pk);
}

/* dis_fast.h tsr_fx_pk_bnever's slow half: pair pk not made yet, or an op of m not asked yet. */
uint64_t tsr_fx_pk_bnever_slow(struct tsr_fx *X, uint32_t pk, unsigned a, const struct tsr_tc_slot *S, uint64_t m)
{
    struct fpk *A = pk_get(X, pk);
    uint64_t ask = m & ~A->bknown;
    if (ask) {
        const struct tsr_tc_isa *isa = X->isa;
        uint8_t alts[TSR_DIS_LALT];
        memset(alts, 0xff, sizeof alts);
        size_t j = (size_t)(A->step.p - (isa->parts + isa->ops[a].part));
        if (j < TSR_DIS_LALT && A->k < 0xff) {
            alts[j] = (uint8_t)A->k;
            for (uint64_t u = ask; u; u &= u - 1) {
                unsigned i = (unsigned)__builtin_ctzll(u);
                unsigned b = isa->idx[S->op + i];
                if (i < S->nop && b < a && isa->ops[b].slot == isa->ops[a].slot &&
                    tsr_dis_op_alts(&X->x->st, b, a, alts) == TSR_DIS_NEVER)
                    A->bnever |= (uint64_t)1 << i;
            }
        }
        A->bknown |= ask;
    }
    return A->bnever;
}

/* dis_plan.c: early alternative j cannot match what the printed one prints with its optional texts as printed
 * (the events after the operand's event ev). */
static bool alt_opts_never(struct tsr_fx *X, struct fpk *A, unsigned j, const struct tsr_dis_ev *ev)
{
    const struct tsr_tc_alt *pa = &X->isa->alts[A->alt + A->k];
    uint8_t what[256];
    if (pa->npart > 255)
        return false;
    for (uint32_t i = 0; i < pa->npart; i++) {
        if (ev[1 + i].what > 255)
            return false;
        what[i] = (uint8_t)ev[1 + i].what;
    }
    /* kept per pair: the answer depends on the facts, the pair (operand part, template end, k), j and what[0..npart)
     * only (tsr_dis_ask_opts reads the printed alternative's choices at its own parts) */
    bool keep = pa->npart <= sizeof A->om[0].what && j <= 0xff;
    for (uint32_t i = 0; keep && i < A->nom && i < 8; i++)
        if (A->om[i].j == j && memcmp(A->om[i].what, what, pa->npart) == 0)
            return A->om[i].ans;
    bool r = tsr_dis_alt_opts(&X->x->st, A->step.p, A->step.end, j, A->k, what) == TSR_DIS_NEVER;
    if (keep) {
        struct fopt *m = &A->om[A->nom++ % 8];
        m->j = (uint8_t)j, m->ans = r;
        memcpy(m->what, what, pa->npart);
    }
    return r;
}

/* dis_walk.c refuted() from the facts, after tsr_dis_spin_alt: early alternative alt of the operand printed with
 * alternative pa at event `top` of the current part fails through a field an anchored operand pins
 * (tsr_dis_spin_ops), or through its leading table hole (tsr_dis_hole_refuted), or through a field the path has
 * bound (tsr_dis_bound_refuted), or through a second field (tsr_dis_chain_refuted).  Each rule alone refutes, so
 * the answer is the same in any order: the rule that refuted the same early alternative of the pair last time
 * (*rule: 0 to 3 in the order above) is asked first, and *rule is set to the one that refutes this time.  The
 * alternatives the parts printed (tsr_dis_ops_lalt) are worked out for tsr_dis_spin_ops only (the other rules
 * ask dis_fpin.c, which works them out when it needs them). */
static bool fx_refuted(struct tsr_fx *X, const struct tsr_tc_alt *alt, const struct tsr_tc_alt *pa, size_t top,
                       uint8_t *rule)
{
    struct px P = fx_px(X, top);
    uint8_t lalt[MAX_PARTS][TSR_DIS_LALT];
    unsigned first = *rule < 4 ? *rule : 0;
    for (unsigned i = 0; i < 4; i++) {
        unsigned r = i == 0 ? first : (i <= first ? i - 1 : i);
        bool yes;
        switch (r) {
        case 0:
            if (!P.olalt) {
                tsr_dis_ops_lalt(&P, lalt);
                P.olalt = (const uint8_t (*)[TSR_DIS_LALT])lalt;   /* P is not changed below: each question asks the
                                                                      same */
            }
            yes = tsr_dis_spin_ops(X->isa, X->x, X->fmt, X->np, X->pop, X->sp, X->cur, P.olalt, alt, X->f);
            break;
        case 1:
            yes = tsr_dis_hole_refuted(&P, alt, pa);
            break;
        case 2:
            yes = tsr_dis_bound_refuted(X->isa, alt, pa, X->f, NULL, X->bound);
            break;
        default:
            yes = tsr_dis_chain_refuted(&P, alt);
            break;
        }
        if (yes) {
            *rule = (uint8_t)r;
            return true;
        }
    }
    return false;
}

/* Every early alternative of pair pk ruled out by its rows for the fields X->f: keeps that as bit c of pkm when the
 * rows on one field, cf[m], alone rule them all out at its code c (< 64).  Sound: row entry c of early alternative
 * j and hole h (tsr_dis_alt_hole) depends on the pair's (operand part, template end, printed alternative), j, h
 * and c only, and once decided never changes, so the same code of that field rules them all out in every bundle;
 * pkm holds bits for field pkf only (kept in cf[kf], reset when pkf moves).  pkf moves to the field whose rows
 * settled 16 more times than its own, so that the field which decides for the words met is the one kept. */
static void keep_rows(struct tsr_fx *X, uint32_t pk, struct fpk *A)
{
    bool by[TSR_DIS_EHOLES];
    unsigned best = A->kf;
    for (unsigned m = 0; m < A->ncf; m++) {
        uint64_t c = X->f[A->cf[m]];
        by[m] = c < 64;
        for (uint32_t j = 0; j < A->nearly && by[m]; j++) {
            const struct tsr_dis_early *y = &A->early[j];
            const struct tsr_dis_erow *r = tsr_dis_early_row(y, A->cf[m]);
            by[m] = c < r->len && r->row[c] == TSR_DIS_NEVER;   /* an entry not decided yet: not asked here */
        }
        if (by[m] && ++A->settled[m] > A->settled[best])
            best = m;
    }
    if (best != A->kf && A->settled[best] > A->settled[A->kf] + 16) {
        A->kf = (uint8_t)best;
        X->pkf[pk] = A->cf[best];
        X->pkm[pk] = 0;
    }
    if (A->ncf && by[A->kf])
        X->pkm[pk] |= (uint64_t)1 << X->f[A->cf[A->kf]];
}

bool tsr_fx_early_slow(struct tsr_fx *X, uint32_t pk, bool lead, const struct tsr_dis_ev *ev)
{
    struct fpk *A = pk_get(X, pk);
    /* run_step S_OPND: each early alternative ruled out by its rows, else refuted through a field by the facts
     * (refuted(): dis_spin.c first, which asks the parts' leading operands: fx_leads) */
    bool rows = true;   /* every early alternative ruled out by its rows, so far */
    for (uint32_t j = 0; j < A->nearly; j++) {
        const struct tsr_dis_early *y = &A->early[j];
        if (tsr_dis_early_never(&X->x->st, &A->step, y, A->k, X->f))
            continue;
        rows = false;
        fx_leads(X);
        const struct tsr_tc_alt *alt = &X->isa->alts[A->alt + y->alt];
        if (!tsr_dis_spin_alt(X->isa, X->x, X->fmt, X->np, X->pop, X->sp, X->pw, X->cur, lead, alt, X->f, NULL) &&
            !fx_refuted(X, alt, &X->isa->alts[A->alt + A->k], (size_t)(ev - X->ev0), &A->rule[j < 16 ? j : 15]) &&
            !(A->opts && alt_opts_never(X, A, y->alt, ev)))
            return false;
    }
    if (rows && A->ncf)   /* the same code rules them all out next time, by one bit */
        keep_rows(X, pk, A);
    return true;
}
