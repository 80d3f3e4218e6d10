/* The exactness proof's fast form (dis_exact.h tsr_dis_fast): a bundle whose every decision the facts of the
 * description settle, shown from the printed path, the fields and a few characters of the text, with the facts
 * kept per template place.
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

/* What a place of the walk tests (from its template part's kind). */
enum {
    F_SKIP,   /* a blank, or a literal that cannot be cut by the bound rule */
    F_LIT,    /* a literal ending in an identifier character, bound: the next character is not one */
    F_TABLE,  /* a table hole */
    F_INT,    /* a `{FIELD}` hole */
    F_OPT,    /* optional text */
    F_OPND,   /* an operand (op level only) */
    F_NO,     /* a label, or an operand within an alternative: not shown here */
};

struct falt;

/* One template place the walk must test (a step): its kind and the facts asked there, decided on first use. */
struct fpl {
    uint8_t kind;
    uint8_t ninit, minit;   /* nrow, and mkind with mrow, looked up */
    uint8_t mkind;          /* a number printed here: TSR_DIS_S_FIXINT, _S_NUMROW, or another (not shown) */
    uint16_t field;
    uint16_t j;             /* in an alternative's block: the part's index (its event is the operand's + 1 + j) */
    uint32_t nlen, mlen;    /* the rows' lengths */
    uint8_t *nrow;          /* tsr_dis_name_row (NULL: ask tsr_dis_name_fast) */
    uint8_t *mrow;          /* tsr_dis_num_row (S_NUMROW; NULL: ask tsr_dis_num_entry) */
};

/* A condition of an alternative, compiled (as dis_plan.c conds_step): BIND: f[field] == val (val masked to the
 * field); BIND2: f[field] == f[field2]; CHECK: isa->check(id, f). */
struct fcc { uint64_t val; uint32_t id; uint16_t field, field2; uint8_t kind; };

/* An op-level operand place: its alternatives' blocks, made on first use. */
struct fopnd {
    struct tsr_dis_step step;   /* p, end: the operand's part and its op's template end (for the facts) */
    uint32_t nalt;
    bool lead;                  /* the op's leading operand (dis_spin.c) */
    struct falt **alt;
};

/* An operand printed with alternative k at an op-level place: the early alternatives the templates leave
 * (tsr_dis_alt_maybe, tsr_dis_alt_ctx) with their rows (tsr_dis_alt_entry_rows), as dis_plan.c compiles them;
 * the places of the alternative's parts that need a test (literals that the bound rule cannot cut and blanks
 * need none), followed by the rest of the op's template; its conditions. */
struct falt {
    uint32_t npart;             /* the alternative's parts (its events after the operand's) */
    uint32_t nstep, nearly, ncc;
    bool no;                    /* the plan would leave it to the walk (a nested operand, a label, a value
                                   that does not fit its field) */
    struct tsr_dis_early *early;
    struct fcc *cc;
    struct fpl st[];
};

/* An op's places, one per template part. */
struct fop {
    uint32_t npart;
    struct fopnd **opnd;        /* per part: its operand place (NULL: not an operand) */
    struct fpl pl[];
};

struct tsr_dis_fast {
    struct fop **op;            /* per op, made on first use */
    uint64_t *fmask;            /* per format: its fields, nw words each */
    size_t nw;
};

static void *xcalloc(size_t n, size_t sz)
{
    void *p = calloc(n ? n : 1, sz);
    if (!p)
        abort();
    return p;
}

static uint8_t kind_of(const struct tsr_tc_part *p, bool top)
{
    switch (p->kind) {
    case TSR_TC_TEXT:
        return p->bound && p->len && tsr_asm_isident(p->text[p->len - 1]) ? F_LIT : F_SKIP;
    case TSR_TC_SPACE:
        return F_SKIP;
    case TSR_TC_TABLE:
        return F_TABLE;
    case TSR_TC_INT:
        return F_INT;
    case TSR_TC_OPT:
        return F_OPT;
    case TSR_TC_OPND:
        return top ? F_OPND : F_NO;
    default:
        return F_NO;
    }
}

static struct fop *op_make(struct tsr_dis_exact *x, const struct tsr_tc_isa *isa, unsigned a)
{
    const struct tsr_tc_op *op = &isa->ops[a];
    struct fop *o = xcalloc(1, sizeof *o + op->npart * sizeof o->pl[0]);
    o->npart = op->npart;
    o->opnd = xcalloc(op->npart, sizeof *o->opnd);
    const struct tsr_tc_part *p0 = isa->parts + op->part;
    for (uint32_t i = 0; i < op->npart; i++) {
        const struct tsr_tc_part *p = p0 + i;
        o->pl[i] = (struct fpl){.kind = kind_of(p, true), .field = p->field};
        if (o->pl[i].kind == F_OPND) {
            struct fopnd *d = xcalloc(1, sizeof *d);
            d->step.p = p, d->step.end = p0 + op->npart;
            d->nalt = isa->opnds[p->arg].nalt;
            d->lead = x->oplead[a] == (int32_t)i;
            d->alt = xcalloc(d->nalt, sizeof *d->alt);
            o->opnd[i] = d;
        }
    }
    return o;
}

/* dis_plan.c plan_seq for an op-level operand printed with alternative k: its early alternatives, the places
 * to test and the conditions. */
static struct falt *alt_make(struct tsr_dis_exact *x, const struct tsr_tc_isa *isa, const struct fopnd *d, unsigned k)
{
    struct tsr_dis_static *st = &x->st;
    const struct tsr_tc_part *p = d->step.p, *end = d->step.end;
    const struct tsr_tc_alt *alt = &isa->alts[isa->opnds[p->arg].alt + k];
    struct falt *A = xcalloc(1, sizeof *A + alt->npart * sizeof A->st[0]);
    A->npart = alt->npart;
    A->early = xcalloc(k, sizeof *A->early);
    A->cc = xcalloc(alt->ncond, sizeof *A->cc);
    uint64_t maybe = tsr_dis_alt_maybe(st, p, end, k);
    for (uint32_t i = 0; i < k; i++) {
        if ((i < 63 && !(maybe >> i & 1)) || tsr_dis_alt_ctx(st, p, end, i, k) == TSR_DIS_NEVER)
            continue;
        struct tsr_dis_early *y = &A->early[A->nearly++];
        *y = (struct tsr_dis_early){.alt = i};
        y->nrow = tsr_dis_alt_entry_rows(st, p, end, i, k, y->r, TSR_DIS_EHOLES);
    }
    const struct tsr_tc_part *ap = isa->parts + alt->part;
    for (uint32_t j = 0; j < alt->npart && j <= UINT16_MAX; j++) {
        uint8_t kind = kind_of(ap + j, false);
        if (kind == F_NO)
            A->no = true;
        else if (kind != F_SKIP)
            A->st[A->nstep++] = (struct fpl){.kind = kind, .field = ap[j].field, .j = (uint16_t)j};
    }
    if (alt->npart > UINT16_MAX)
        A->no = true;
    for (uint32_t c = 0; c < alt->ncond; c++) {
        const struct tsr_tc_cond *cc = &isa->conds[alt->cond + c];
        uint64_t v = cc->kind == TSR_TC_BIND ? cc->val & tsr_bits_mask(isa->fields[cc->field].width) : 0;
        if (cc->kind == TSR_TC_BIND && v != cc->val)
            A->no = true;   /* never the field's value (the plan leaves it to the walk) */
        A->cc[A->ncc++] = (struct fcc){.val = v, .id = cc->id, .field = cc->field, .field2 = cc->field2,
                                       .kind = cc->kind};
    }
    return A;
}

/* The walk's state over one bundle. */
struct fw {
    const struct tsr_tc_isa *isa;
    struct tsr_dis_exact *x;
    const char *s;
    uint32_t lim;
    const uint64_t *f;
    uint64_t *bound;            /* one bit per field */
    uint16_t *eq;               /* FIELD == FIELD pairs, neq entries (2 each) of ceq */
    uint32_t neq, ceq;
    /* for dis_spin.c: the bundle's parts, their ops and the alternatives at their leading operands */
    unsigned fmt;
    size_t np, cur;
    const unsigned *pop;
    const struct tsr_dis_slotp *sp;
    const uint8_t *pw;
};

static inline uint32_t fws(const struct fw *W, uint32_t pos)
{
    while (pos < W->lim && tsr_asm_isblank(W->s[pos]))
        pos++;
    return pos;
}

static inline void set_bound(struct fw *W, unsigned field)
{
    W->bound[field >> 6] |= (uint64_t)1 << (field & 63);
}

/* dis_exact.c conds() */
static bool fconds(struct fw *W, uint32_t first, uint32_t n)
{
    const struct tsr_tc_isa *isa = W->isa;
    for (uint32_t i = 0; i < n; i++) {
        const struct tsr_tc_cond *c = &isa->conds[first + i];
        if (c->kind == TSR_TC_BIND) {
            if ((c->val & tsr_bits_mask(isa->fields[c->field].width)) != W->f[c->field])
                return false;
            set_bound(W, c->field);
        } else if (c->kind != TSR_TC_BIND2) {
            if (!isa->check(c->id, W->f))
                return false;
        } else {
            if (W->f[c->field] != W->f[c->field2] || W->neq + 2 > W->ceq)
                return false;
            W->eq[W->neq++] = c->field;
            W->eq[W->neq++] = c->field2;
        }
    }
    return true;
}

/* The compiled conditions cc[0 .. n) (as fconds). */
static inline bool fcc_run(struct fw *W, const struct fcc *cc, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        const struct fcc *c = &cc[i];
        if (c->kind == TSR_TC_BIND) {
            if (W->f[c->field] != c->val)
                return false;
            set_bound(W, c->field);
        } else if (c->kind != TSR_TC_BIND2) {
            if (!W->isa->check(c->id, W->f))
                return false;
        } else {
            if (W->f[c->field] != W->f[c->field2] || W->neq + 2 > W->ceq)
                return false;
            W->eq[W->neq++] = c->field;
            W->eq[W->neq++] = c->field2;
        }
    }
    return true;
}

/* A number printed at place d (S_FIXINT, S_NUMROW: dis_exact.c num_run), from the facts. */
static bool fnum(struct fw *W, struct fpl *d, const struct tsr_tc_part *p, const struct tsr_tc_part *end,
                 const struct tsr_dis_kont *k, const struct tsr_dis_ev *ev)
{
    struct tsr_dis_static *st = &W->x->st;
    if (!d->minit) {
        d->mkind = k ? tsr_dis_num_kind(st, p, end, k) : tsr_dis_num_opkind(st, p, end);
        if (d->mkind == TSR_DIS_S_NUMROW)
            d->mrow = tsr_dis_num_row(st, p->arg, &d->mlen);
        d->minit = 1;
    }
    if (d->mkind != TSR_DIS_S_FIXINT && d->mkind != TSR_DIS_S_NUMROW)
        return false;
    uint64_t c = W->f[d->field];
    unsigned w = W->isa->fields[d->field].width;
    if (ev->pos >= ev->end || (w < 64 && c >> w))
        return false;
    if (d->mkind == TSR_DIS_S_NUMROW) {
        int v = d->mrow && c < d->mlen ? d->mrow[c] : TSR_DIS_UNKNOWN;
        if (v == TSR_DIS_UNKNOWN)
            v = tsr_dis_num_entry(st, p->arg, c);
        if (v != TSR_DIS_NEVER)
            return false;
    }
    set_bound(W, d->field);
    return true;
}

/* One place d (template part p of a sequence ending at end; continuation [cp, cend) and kont k, NULL at op
 * level) on its event ev: run_step's test for the step dis_plan.c compiles there, from the facts alone. */
static inline bool fplace(struct fw *W, struct fpl *d, const struct tsr_tc_part *p, const struct tsr_tc_part *end,
                   const struct tsr_dis_kont *k, const struct tsr_dis_ev *ev)
{
    struct tsr_dis_static *st = &W->x->st;
    if (ev->pos > ev->end || ev->end > W->lim)
        return false;
    switch (d->kind) {
    case F_LIT:   /* S_LIT */
        return !(ev->end < W->lim && tsr_asm_isident(W->s[ev->end]));
    case F_TABLE:
        if (ev->what == TSR_TC_PRINT_NAME) {   /* S_NAME: the short way, by the code's row */
            uint64_t c = W->f[d->field];
            if (!d->ninit) {
                d->nrow = tsr_dis_name_row(st, p, end, k ? k->p : NULL, k ? k->end : NULL, &d->nlen);
                d->ninit = 1;
            }
            int v = c < d->nlen && d->nrow ? d->nrow[c] : TSR_DIS_UNKNOWN;
            if (v == TSR_DIS_UNKNOWN)
                v = tsr_dis_name_fast(st, p, end, k ? k->p : NULL, k ? k->end : NULL, c);
            uint32_t lp = ev->end - ev->pos;
            if (v != TSR_DIS_NEVER || (lp && ev->pos < W->lim && tsr_asm_isblank(W->s[ev->pos])) ||
                (p->bound && lp && tsr_asm_isident(W->s[ev->end - 1]) && ev->end < W->lim &&
                 tsr_asm_isident(W->s[ev->end])))
                return false;
            set_bound(W, d->field);
            return true;
        }
        return fnum(W, d, p, end, k, ev);
    case F_INT:
        return fnum(W, d, p, end, k, ev);
    case F_OPT:
        if (ev->what) {   /* S_LIT when it ends in an identifier character, then S_CONDS */
            if (p->bound && p->len && tsr_asm_isident(p->text[p->len - 1]) && ev->end < W->lim &&
                tsr_asm_isident(W->s[ev->end]))
                return false;
            return fconds(W, p->cond, p->ncond);
        } else {   /* S_OPT0: its literal fails where the assembler tries it (else the text decides) */
            uint32_t e;
            return ev->end == ev->pos && !tsr_asm_lit(W->s, W->lim, p->text, p->len, p->bound, fws(W, ev->pos), &e);
        }
    default:
        return false;
    }
}

/* The op-level operand place d printed at event ev (its alternative's events follow): S_OPND and the plan of
 * the alternative.  *nev: the events it took. */
static bool fopnd(struct fw *W, struct fopnd *d, const struct tsr_dis_ev *ev, size_t avail, size_t *nev)
{
    const struct tsr_tc_isa *isa = W->isa;
    struct tsr_dis_exact *x = W->x;
    const struct tsr_tc_opnd *o = &isa->opnds[d->step.p->arg];
    unsigned k = ev->what;
    if (k >= d->nalt || ev->pos > ev->end || ev->end > W->lim)
        return false;
    struct falt *A = d->alt[k];
    if (!A)
        A = d->alt[k] = alt_make(x, isa, d, k);
    if (A->no || 1 + (size_t)A->npart > avail)
        return false;
    /* S_OPND: the early alternatives, by their rows, else refuted through a field by the facts */
    for (uint32_t j = 0; j < A->nearly; j++) {
        const struct tsr_dis_early *y = &A->early[j];
        if (tsr_dis_early_never(&x->st, &d->step, y, k, W->f))
            continue;
        if (!tsr_dis_spin_alt(isa, x, W->fmt, W->np, W->pop, W->sp, W->pw, W->cur, d->lead,
                              &isa->alts[o->alt + y->alt], W->f, NULL))
            return false;
    }
    const struct tsr_tc_alt *alt = &isa->alts[o->alt + k];
    const struct tsr_tc_part *ap = isa->parts + alt->part, *aend = ap + alt->npart;
    const struct tsr_dis_kont rest = {d->step.p + 1, d->step.end, NULL};
    for (uint32_t i = 0; i < A->nstep; i++) {
        struct fpl *st = &A->st[i];
        if (!fplace(W, st, ap + st->j, aend, &rest, ev + 1 + st->j))
            return false;
    }
    if (!fcc_run(W, A->cc, A->ncc))
        return false;
    *nev = 1 + A->npart;
    return true;
}

/* dis_exact.c slot_possible, from the facts only: 0 when no op of the slot (before `before`) can read part k,
 * 1 when the text would have to decide. */
static int fslot(struct tsr_dis_exact *x, const struct tsr_tc_isa *isa, unsigned slot, unsigned before,
                 unsigned printed, size_t k)
{
    const struct tsr_tc_slot *S = &isa->slots[slot];
    if (before == TSR_TC_NO_OP ? tsr_dis_slot_never(&x->st, printed, slot) : tsr_dis_before_never(&x->st, before))
        return 0;
    bool alts = ++x->nslow > TSR_DIS_SLOW && isa->ops[printed].npart <= TSR_DIS_LALT;
    if (S->nop <= 64 && !tsr_dis_cands(&x->cands, &x->st, slot, before, printed, alts, x->lalt[k]))
        return 0;
    return 1;
}

bool tsr_dis_fast(const struct tsr_tc_isa *isa, struct tsr_dis_exact *x, const void *inst, const char *text,
                  size_t len, const struct tsr_dis_path *path)
{
    const struct tsr_dis_ev *ev = path->ev;
    const struct tsr_dis_slotp *sp = path->sp;
    size_t nev = path->nev, np = path->nsp;
    size_t nw = ((size_t)isa->nfields + 63) / 64;
    if (path->over || !x->st.isa || !x->bound || nw > 16)
        return false;   /* the full proof sets up the facts and its arrays on its first bundle */
    const unsigned char *ib = inst;
    unsigned fmt = ib[0];
    if (fmt >= isa->nformats || len > UINT32_MAX / 2 || np == 0 || np > MAX_PARTS)
        return false;
    struct tsr_dis_fast *F0 = x->fast;
    if (!F0) {
        F0 = x->fast = xcalloc(1, sizeof *F0);
        F0->op = xcalloc(isa->nops, sizeof *F0->op);
        F0->nw = nw;
        F0->fmask = xcalloc((size_t)isa->nformats * nw, sizeof *F0->fmask);
        for (unsigned g = 0; g < isa->nformats; g++)
            for (uint32_t i = 0; i < isa->formats[g].nfield; i++) {
                unsigned fd = isa->idx[isa->formats[g].field + i];
                F0->fmask[g * nw + (fd >> 6)] |= (uint64_t)1 << (fd & 63);
            }
    }
    const struct tsr_tc_format *F = &isa->formats[fmt];
    const uint16_t *ops = (const uint16_t *)(const void *)(ib + isa->off_op);
    const uint32_t *ign = (const uint32_t *)(const void *)(ib + isa->off_ignored);
    const uint64_t *f = (const uint64_t *)(const void *)(ib + isa->off_f);
    /* the assembler leaves ignored bits 0 */
    for (uint32_t i = 0; i < F->nign; i++)
        if (tsr_wide_extract(ign, isa->ranges[F->ign + i].hi, isa->ranges[F->ign + i].lo))
            return false;
    /* a trailing `}` would be read as overrides */
    uint32_t n = (uint32_t)len, e = n;
    while (e > 0 && tsr_asm_isblank(text[e - 1]))
        e--;
    if (e > 0 && text[e - 1] == '}')
        return false;
    /* each part's op and the alternative printed at its leading operand (for dis_spin.c) */
    unsigned pop[MAX_PARTS];
    uint8_t pw[MAX_PARTS];
    for (size_t k = 0; k < np; k++) {
        if (sp[k].t >= F->nslot)
            return false;
        unsigned a = ops[isa->idx[F->slot + sp[k].t]];
        if (a >= isa->nops)
            return false;
        pop[k] = a;
        size_t pl = x->oplead[a] < 0 ? SIZE_MAX : sp[k].first + (size_t)x->oplead[a];
        pw[k] = pl < nev && ev[pl].what < 0xff ? (uint8_t)ev[pl].what : 0xff;
    }
    uint64_t bound[16] = {0};
    uint16_t eq[64];
    struct fw W = {.isa = isa, .x = x, .s = text, .f = f, .bound = bound, .eq = eq, .ceq = 64, .fmt = fmt,
                   .np = np, .pop = pop, .sp = sp, .pw = pw};
    if (!fconds(&W, F->cond, F->ncond))
        return false;
    uint32_t s = 0, start = 0;
    uint64_t printed = 0;
    for (size_t k = 0; k < np; k++) {
        /* the part's text: up to the next ';' (asm_engine.c tsr_asm_bundle splits at every ';') */
        const char *semi = memchr(text + start, ';', n - start);
        uint32_t lim = semi ? (uint32_t)(semi - text) : n;
        W.lim = lim;
        uint32_t q = fws(&W, start);
        uint32_t t = sp[k].t;
        size_t ie = sp[k].first, iend = k + 1 < np ? sp[k + 1].first : nev;
        if ((k + 1 < np) != (semi != NULL) || q == lim || t < s || t >= 64 || ie > iend || iend > nev)
            return false;
        unsigned slot = isa->idx[F->slot + t], a = pop[k];
        struct fop *o = F0->op[a];
        if (!o)
            o = F0->op[a] = op_make(x, isa, a);
        const struct tsr_tc_op *op = &isa->ops[a];
        const struct tsr_tc_part *p0 = isa->parts + op->part, *pend = p0 + op->npart;
        W.cur = k;
        memset(x->lalt[k], 0xff, TSR_DIS_LALT);
        /* run_plan: the first event is where the assembler starts */
        if (ie < iend && ev[ie].pos != q && (ev[ie].pos > lim || fws(&W, ev[ie].pos) != q))
            return false;
        const struct tsr_dis_ev *last = NULL;
        for (uint32_t i = 0; i < o->npart; i++) {
            if (ie >= iend)
                return false;
            last = &ev[ie];
            if (o->pl[i].kind == F_OPND) {
                size_t used;
                if (!fopnd(&W, o->opnd[i], last, iend - ie, &used))
                    return false;
                if (i < TSR_DIS_LALT)
                    x->lalt[k][i] = (uint8_t)last->what;
                ie += used;
            } else {
                if (o->pl[i].kind != F_SKIP && !fplace(&W, &o->pl[i], p0 + i, pend, NULL, last))
                    return false;
                ie++;
            }
        }
        uint32_t pos = last ? last->end : q;
        if (ie != iend || pos > lim || fws(&W, pos) != lim || !fconds(&W, op->cond, op->ncond))
            return false;
        /* the slots and ops the assembler tries before this one */
        for (uint32_t u = s; u < t; u++)
            if (fslot(x, isa, isa->idx[F->slot + u], TSR_TC_NO_OP, a, k))
                return false;
        if (fslot(x, isa, slot, a, a, k))
            return false;
        printed |= (uint64_t)1 << t;
        s = t + 1;
        start = lim + 1;
    }
    /* the formats before fmt: each has too few slots, or a part that fits none of its slots */
    for (unsigned g = 0; g < fmt; g++) {
        const struct tsr_tc_format *G = &isa->formats[g];
        bool fails = np > G->nslot;
        for (size_t k = 0; k < np && !fails; k++)
            fails = tsr_dis_fmt_never(&x->st, pop[k], g);
        for (size_t k = 0; k < np && !fails; k++) {
            bool any = false;
            for (uint32_t t = 0; t < G->nslot && !any; t++)
                any = fslot(x, isa, isa->idx[G->slot + t], TSR_TC_NO_OP, pop[k], k) != 0;
            fails = !any;
        }
        if (!fails)
            return false;
    }
    /* the slots not printed hold their default ops */
    for (uint32_t t = 0; t < F->nslot; t++) {
        if (t < 64 && (printed >> t & 1))
            continue;
        unsigned slot = isa->idx[F->slot + t];
        unsigned opi = isa->slots[slot].default_op;
        if (ops[slot] != opi || !fconds(&W, isa->ops[opi].cond, isa->ops[opi].ncond))
            return false;
    }
    /* FIELD == FIELD: a bound side binds the other; each pair needs one (dis_exact.c) */
#define FBIT(fd) (bound[(fd) >> 6] >> ((fd) & 63) & 1)
    for (bool changed = W.neq > 0; changed;) {
        changed = false;
        for (uint32_t i = 0; i < W.neq; i += 2) {
            unsigned a = eq[i], b = eq[i + 1];
            if (FBIT(a) != FBIT(b)) {
                set_bound(&W, FBIT(a) ? b : a);
                changed = true;
            }
        }
    }
    for (uint32_t i = 0; i < W.neq; i += 2)
        if (!FBIT(eq[i]) ||
            ((f[eq[i]] ^ f[eq[i + 1]]) & tsr_bits_mask(isa->fields[eq[i]].width) &
             tsr_bits_mask(isa->fields[eq[i + 1]].width)))
            return false;
    /* the fields nothing bound: the first default for them (ops' in slot order, then the format's), else 0 */
    for (uint32_t t = 0; t <= F->nslot; t++) {
        const struct tsr_tc_default *d;
        uint32_t nd;
        if (t < F->nslot) {
            const struct tsr_tc_op *op = &isa->ops[ops[isa->idx[F->slot + t]]];
            d = isa->defs + op->def, nd = op->ndef;
        } else {
            d = isa->defs + F->def, nd = F->ndef;
        }
        for (uint32_t i = 0; i < nd; i++) {
            unsigned fd = d[i].field;
            if (FBIT(fd))
                continue;
            if ((d[i].val & tsr_bits_mask(isa->fields[fd].width)) != f[fd])
                return false;
            set_bound(&W, fd);
        }
    }
#undef FBIT
    /* the format's fields nothing bound are 0 */
    for (size_t w = 0; w < nw; w++)
        for (uint64_t u = F0->fmask[fmt * nw + w] & ~bound[w]; u; u &= u - 1)
            if (f[w * 64 + (unsigned)__builtin_ctzll(u)])
                return false;
    return true;
}

void tsr_dis_fast_free(struct tsr_dis_exact *x)
{
    struct tsr_dis_fast *F0 = x->fast;
    if (!F0)
        return;
    const struct tsr_tc_isa *isa = x->st.isa;
    for (unsigned a = 0; isa && a < isa->nops; a++) {
        struct fop *o = F0->op[a];
        if (!o)
            continue;
        for (uint32_t i = 0; i < o->npart; i++) {
            struct fopnd *d = o->opnd[i];
            if (!d)
                continue;
            for (uint32_t k = 0; k < d->nalt; k++)
                if (d->alt[k]) {
                    free(d->alt[k]->early);
                    free(d->alt[k]->cc);
                    free(d->alt[k]);
                }
            free(d->alt);
            free(d);
        }
        free(o->opnd);
        free(o);
    }
    free(F0->op);
    free(F0->fmask);
    free(F0);
    x->fast = NULL;
}
