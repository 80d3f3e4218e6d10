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
#include "asm_match.h"
#include "bits.h"
#include "dis_exact.h"
#include "dis_fshape.h"
#include "dis_fx.h"
#include "dis_px.h"
#include "xalloc.h"

/* What a bundle rarely or never runs is kept out of tsr_dis_fast's body (its code and its registers stay small). */
#if defined(__GNUC__) || defined(__clang__)
#define FAST_OUTLINE __attribute__((noinline))
#else
#define FAST_OUTLINE
#endif

_Static_assert(TSR_DIS_NEVER == TSR_FX_NEVER && TSR_DIS_UNKNOWN == TSR_FX_UNKNOWN, "row values (dis_fx.h)");
_Static_assert(TSR_DIS_LALT == TSR_FX_LALT, "alternatives recorded per part (dis_fx.h)");

/* An (operand part, alternative) pair's early alternatives: those the templates leave (tsr_dis_alt_maybe,
 * tsr_dis_alt_ctx) with their rows (tsr_dis_alt_entry_rows), as dis_plan.c compiles them for the plan. */
struct fpk {
    uint32_t nearly, k;
    uint32_t alt;               /* the operand's first alternative (isa->alts) */
    bool opts;                  /* the printed alternative has optional text (tsr_dis_alt_opts may rule more out) */
    uint8_t ncf, kf;            /* the fields on which every early alternative has a row, cf[0..ncf), and the one
                                   tsr_fx.pkf holds, cf[kf] */
    uint16_t cf[TSR_DIS_EHOLES];
    uint32_t settled[TSR_DIS_EHOLES];   /* times the rows on cf[m] alone ruled every early alternative out */
    struct fopt { uint8_t j, ans, what[14]; } om[8];   /* alt_opts_never's answers for early alternative j and the
                                   printed alternative's events what[0..its npart), nom of them (om[nom % 8] next) */
    uint32_t nom;
    uint8_t rule[16];           /* per early alternative j (the 16th: those from it on): the rule of fx_refuted that
                                   refuted it last */
    uint64_t bknown, bnever;    /* bit i: op i of the op's slot (before it) cannot match what the op prints with
                                   alternative k at this operand part, whatever its others (tsr_dis_op_alts with
                                   this one fixed); asked once bknown has bit i */
    struct tsr_dis_step step;   /* p, end: the operand's part and its op's template end (for the facts) */
    struct tsr_dis_early early[];
};

/* What the bundle-level tests ask of an op (or, for defaults, a format), looked up on first use. */
struct fop {
    bool init;
    int32_t lead;               /* dis_exact.c oplead: the template index of the leading operand, or -1 */
    bool c0known;
    uint64_t cands0;            /* dis_cand.c's set for its own slot before it, without alternatives (c0known) */
    uint64_t fknown;            /* bit g: tsr_dis_fmt_never for format g (g < 64) asked (the answers: fnever) */
    uint64_t snever, sknown;    /* bit s: tsr_dis_slot_never for slot s (s < 64), asked (sknown) */
    uint64_t *defmask;          /* the fields it has a default for (nw words), and per field the first default's
                                   value masked to the field (nfields values) */
    uint64_t *defval;
};

struct tsr_dis_fast {
    struct fop *op;             /* per op */
    struct fop *fd;             /* per format: its defaults only */
    /* per op, what every bundle part reads, apart from the larger records (16 bytes an op: 66 ops fit
     * in 17 cache lines, their records in 75; cachegrind: 5 % fewer first-level data misses, first sight) */
    struct fhot {
        uint64_t fnever;        /* bit g: tsr_dis_fmt_never for format g (g < 64), where fop.fknown has bit g */
        uint8_t bnever;         /* tsr_dis_before_never + 1 (0: not asked yet) */
    } *hot;
    struct tsr_fx_pl *pl;       /* per place (isa->fx->nplaces) */
    void **pk;                  /* per pair (isa->fx->npks): struct fpk, made on first use */
    uint16_t *pkf;              /* per pair: dis_fx.h tsr_fx.pkf, pkm */
    uint64_t *pkm;
    uint64_t *nm, *mm;          /* per place: dis_fx.h tsr_fx.nm, mm */
    uint16_t *opk;              /* per op, per template part j < TSR_FX_LALT: the pair of the operand there with its
                                   first alternative (dis_fx.h: pairs numbered op by op, operand part by operand part,
                                   alternative by alternative); TSR_FX_PK_NONE: not an operand, or one whose pairs
                                   fslot leaves out (of more than 255 alternatives, which lalt[] cannot tell apart,
                                   or numbered past 16 bits) */
    uint64_t *fmask;            /* per format: its fields, nw words each */
    size_t nw;
    uint64_t before[64];        /* per format g < 64: bit h for each format h < g */
    uint64_t few[MAX_PARTS + 1];   /* per count of parts: bit g for each format g < 64 of fewer slots */
    struct tsr_fx_shapes *sh;   /* the tail per bundle shape (dis_fshape.h), made on first use */
    bool semi_free;             /* no bundle part's text can hold ';' (semi_free()) */
    /* the checkers' state and the arrays it points to, their bundle-independent members set once */
    struct tsr_fx X;
    uint64_t bound[16];
    uint16_t eq[64];
    unsigned pop[MAX_PARTS];
    uint8_t pw[MAX_PARTS];
    size_t plead[MAX_PARTS];
    bool leads;                 /* pw[], plead[] hold the current bundle's (fx_leads) */
};

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

/* Looks up the facts of place pl (dis_plan.c plan_seq, dis_exact.c run_plan): the name row of a table hole
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

/* fpk.bnever for pair pk of op a (of slot S), decided for the ops of mask m (positions in S) not yet asked. */
static uint64_t pk_bnever(struct tsr_fx *X, uint32_t pk, unsigned a, const struct tsr_tc_slot *S, uint64_t m)
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

/* dis_exact.c refuted() from the facts, after tsr_dis_spin_alt: early alternative alt of the operand printed with
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
                m &= ~pk_bnever(X, kb[j] + la[j], printed, S, m);
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
