/* Plans of the exactness proof's walk (dis_exact.h): what dis_exact.c's `walk` does along one operand of an
 * op's template printed with one alternative (and, within it, one choice of optional texts and table entry
 * kinds: the events' `what`), compiled on the first bundle part printed so and kept per thread.  An op's
 * own literals between its operands are taken in dis_exact.c (run_plan); a plan per operand rather than per
 * op keeps them few (a few hundred on the largest description, where the (op, choices) pairs number in the tens of
 * thousands) and their memory warm.
 *
 * The walk follows the printed path over the text and tests, at every template part, that the assembler
 * takes that part the way the printer printed it.  Many of those tests are settled by the template and the
 * choices alone, so a plan keeps only the others, with the facts they ask already looked up:
 *  - a literal (or printed optional text) matches its own print (the printer copied it from the template;
 *    the record's spans are checked to lie within the part); only the bound rule can cut it, when it ends
 *    in an identifier character: that test, on the next character, stays (S_LIT);
 *  - a blank (TSR_TC_SPACE) prints one blank, which the matcher accepts: no step;
 *  - a table hole printed as a name: the walk's short way (the name reads back as its code and no longer
 *    name can match instead) is a fact per (place, code), kept in a row that the step indexes by the
 *    field's value (S_NAME); a code without it: the names and numbers the assembler finds there, on the
 *    text, as the walk (S_TAB);
 *  - a table hole printed as a number that nothing after it can extend (dis_num.c): a row per code says
 *    whether no name can start it and no earlier numeric entry accepts its value (S_NUMROW); a code
 *    without, or a continuation that may extend the number (`-14 >> 2`): on the text (S_TAB), unless the
 *    number is printed last in its bundle part (then nothing follows it: the row decides);
 *  - a `{FIELD}` hole: when the field's print kind reads back as the code for every code (not float) and
 *    nothing after it can extend the number, only the binding (S_FIXINT); else read back by the expression
 *    parser as the walk does (S_INT);
 *  - optional text not printed: the matcher tries it first, so it must fail there, on the text (S_OPT0);
 *  - the conditions of the alternative and of printed optional text, as the walk's conds() (S_CONDS);
 *  - the operand: the alternatives tried before the printed one that the templates do not rule out
 *    (tsr_dis_alt_maybe, tsr_dis_alt_ctx; tsr_dis_alt_opts with the printed alternative's optional texts as the
 *    events record them), each with its rows of tsr_dis_alt_hole answers by the code each
 *    table hole of the printed alternative prints; the survivors are tried on the text and through a field,
 *    as the walk (S_OPND).
 * A plan is a shortcut only: when a step fails, or the path is one the walk rejects or that plans leave out
 * (labels, an operand within an operand's alternative), dis_exact.c runs the walk itself, so what is proven
 * is what the walk proves (TESSERA_DIS_VERIFY cross-checks both with the assembler).
 */
#include <stdlib.h>
#include <string.h>

#include "asm_engine.h"
#include "bits.h"
#include "dis_exact.h"

/* The compiler's state: the plan under construction and the events' choices. */
struct pc {
    struct tsr_dis_static *st;
    const struct tsr_tc_isa *isa;
    struct tsr_dis_plan *pl;
    uint32_t ie, nstep, nearly, ncc, cap, ecap;
    bool ok, full;   /* the walk's path, so far; out of room */
};

static struct tsr_dis_step *add(struct pc *C, uint8_t kind, uint32_t ev, const struct tsr_tc_part *p,
                                const struct tsr_tc_part *end, const struct tsr_dis_kont *k)
{
    if (C->nstep == C->cap) {
        C->ok = false, C->full = true;
        return NULL;
    }
    struct tsr_dis_step *s = &C->pl->step[C->nstep++];
    *s = (struct tsr_dis_step){.kind = kind, .ev = (uint16_t)ev, .p = p, .end = end, .k = k};
    return s;
}

static void conds_step(struct pc *C, uint32_t first, uint32_t n)
{
    const struct tsr_tc_isa *isa = C->isa;
    if (!n)
        return;
    if (C->ncc + n > C->ecap || n > UINT16_MAX) {
        C->ok = false, C->full = true;
        return;
    }
    struct tsr_dis_step *s = add(C, TSR_DIS_S_CONDS, 0, NULL, NULL, NULL);
    if (!s)
        return;
    s->a = C->ncc, s->n = (uint16_t)n;
    for (uint32_t i = 0; i < n; i++) {
        const struct tsr_tc_cond *c = &isa->conds[first + i];
        struct tsr_dis_cc *d = &C->pl->cc[C->ncc++];
        *d = (struct tsr_dis_cc){.kind = c->kind, .id = c->id, .field = c->field, .field2 = c->field2};
        if (c->kind == TSR_TC_BIND) {
            d->val = c->val & tsr_bits_mask(isa->fields[c->field].width);
            if (d->val != c->val)
                C->ok = false;   /* never the field's value (the walk fails on it) */
        }
    }
}

/* The walk (dis_exact.c) over parts [p, stop) of a sequence ending at end, followed by k. */
static void plan_seq(struct pc *C, const struct tsr_tc_part *p, const struct tsr_tc_part *stop,
                     const struct tsr_tc_part *end, const struct tsr_dis_kont *k)
{
    const struct tsr_tc_isa *isa = C->isa;
    for (; p < stop && C->ok; p++) {
        if (C->ie >= C->pl->nev) {
            C->ok = false;   /* more parts than events: the walk rejects the path (or an operand within) */
            return;
        }
        uint32_t e = C->ie++, what = C->pl->what[e];
        switch (p->kind) {
        case TSR_TC_TEXT:
            if (p->bound && p->len && tsr_asm_isident(p->text[p->len - 1]))
                add(C, TSR_DIS_S_LIT, e, p, end, k);
            break;
        case TSR_TC_SPACE:
            break;
        case TSR_TC_TABLE: {
            if (what != TSR_TC_PRINT_NAME) {   /* a number: decided per code when nothing can extend it */
                uint8_t kind = tsr_dis_num_kind(C->st, p, end, k);
                struct tsr_dis_step *s = add(C, kind, e, p, end, k);
                if (s) {   /* S_TAB too: its row decides a number printed last in the part (dis_exact.c) */
                    s->field = p->field;
                    s->row = tsr_dis_num_row(C->st, p->arg, &s->len);
                }
                break;
            }
            if (k && k->next) {
                add(C, TSR_DIS_S_TAB, e, p, end, k);   /* not the walk's short way */
                break;
            }
            struct tsr_dis_step *s = add(C, TSR_DIS_S_NAME, e, p, end, k);
            if (s) {
                s->field = p->field;
                s->row = tsr_dis_name_row(C->st, p, end, k ? k->p : NULL, k ? k->end : NULL, &s->len);
            }
            break;
        }
        case TSR_TC_INT: {
            struct tsr_dis_step *s = add(C, tsr_dis_num_kind(C->st, p, end, k), e, p, end, k);
            if (s)
                s->field = p->field;
            break;
        }
        case TSR_TC_OPT:
            if (what) {
                if (p->bound && p->len && tsr_asm_isident(p->text[p->len - 1]))
                    add(C, TSR_DIS_S_LIT, e, p, end, k);
                conds_step(C, p->cond, p->ncond);
            } else {
                add(C, TSR_DIS_S_OPT0, e, p, end, k);
            }
            break;
        case TSR_TC_OPND: {
            const struct tsr_tc_opnd *o = &isa->opnds[p->arg];
            if (what >= o->nalt || k) {
                C->ok = false;   /* a path the walk rejects; an operand within an operand: the walk */
                return;
            }
            struct tsr_dis_step *s = add(C, TSR_DIS_S_OPND, e, p, end, k);
            if (!s)
                return;
            s->a = C->nearly;
            uint64_t maybe = tsr_dis_alt_maybe(C->st, p, end, what);
            /* the printed alternative's events follow the operand's: whether each optional text was printed */
            const struct tsr_tc_alt *pa = &isa->alts[o->alt + what];
            bool opts = false;
            for (uint32_t i = 0; i < pa->npart && C->ie + pa->npart <= C->pl->nev && !opts; i++)
                opts = isa->parts[pa->part + i].kind == TSR_TC_OPT;
            for (uint32_t i = 0; i < what && C->ok; i++) {
                if ((i < 63 && !(maybe >> i & 1)) || tsr_dis_alt_ctx(C->st, p, end, i, what) == TSR_DIS_NEVER ||
                    (opts && tsr_dis_alt_opts(C->st, p, end, i, what, C->pl->what + C->ie) == TSR_DIS_NEVER))
                    continue;
                if (C->nearly == C->ecap) {
                    C->ok = false, C->full = true;
                    return;
                }
                struct tsr_dis_early *y = &C->pl->early[C->nearly++];
                *y = (struct tsr_dis_early){.alt = i};
                y->nrow = tsr_dis_alt_entry_rows(C->st, p, end, i, what, y->r, TSR_DIS_EHOLES);
            }
            s->n = (uint16_t)(C->nearly - s->a);
            C->pl->rest = (struct tsr_dis_kont){p + 1, end, NULL};
            const struct tsr_tc_alt *alt = &isa->alts[o->alt + what];
            const struct tsr_tc_part *ap = isa->parts + alt->part;
            plan_seq(C, ap, ap + alt->npart, ap + alt->npart, &C->pl->rest);
            conds_step(C, alt->cond, alt->ncond);
            break;
        }
        default:   /* TSR_TC_LABEL: the walk does not prove it */
            C->ok = false;
            return;
        }
    }
}

/* Lays out a plan with room for cap steps, ecap early alternatives and conditions, and nev events in the
 * block at pl (NULL: only its size). */
static size_t plan_layout(struct tsr_dis_plan *pl, size_t cap, size_t ecap, size_t nev)
{
    size_t sz = sizeof *pl + cap * sizeof *pl->step + ecap * sizeof *pl->early + ecap * sizeof *pl->cc + nev;
    if (pl) {
        memset(pl, 0, sizeof *pl);
        pl->step = (struct tsr_dis_step *)(pl + 1);
        pl->early = (struct tsr_dis_early *)(pl->step + cap);
        pl->cc = (struct tsr_dis_cc *)(pl->early + ecap);
        pl->what = (uint8_t *)(pl->cc + ecap);
    }
    return sz;
}

/* Compiles the plan into pl (laid out with cap and ecap); used: the steps and the larger of the early
 * alternatives and conditions it took.  False when it did not fit. */
static bool plan_fill(struct tsr_dis_exact *x, const struct tsr_tc_isa *isa, struct tsr_dis_plan *pl,
                      const struct tsr_tc_part *p, const struct tsr_tc_part *end, const uint8_t *what, size_t nev,
                      uint32_t cap, uint32_t ecap, uint32_t *used)
{
    pl->part = (uint32_t)(p - isa->parts), pl->nev = (uint32_t)nev;
    memcpy(pl->what, what, nev);
    struct pc C = {.st = &x->st, .isa = isa, .pl = pl, .cap = cap, .ecap = ecap, .ok = true};
    plan_seq(&C, p, p + 1, end, NULL);
    pl->nstep = C.nstep;
    pl->walk = !C.ok || C.ie != nev;
    used[0] = C.nstep;
    used[1] = C.nearly > C.ncc ? C.nearly : C.ncc;
    return !C.full;
}

/* The plan, compiled in the thread's scratch block with room for the usual cases (at most one step per event
 * and one per condition list; early alternatives and conditions: a few per event; more: no plan), then
 * again in a block of its own size. */
static struct tsr_dis_plan *plan_new(struct tsr_dis_exact *x, const struct tsr_tc_isa *isa,
                                     const struct tsr_tc_part *p, const struct tsr_tc_part *end, const uint8_t *what,
                                     size_t nev)
{
    uint32_t cap = (uint32_t)(2 * nev + 2), ecap = (uint32_t)(nev * (x->st.maxalt + 8) + 64), used[2];
    size_t sz = plan_layout(NULL, cap, ecap, nev);
    if (sz > x->pcap) {
        free(x->pbuf);
        x->pbuf = malloc(sz);
        x->pcap = sz;
        if (!x->pbuf)
            abort();
    }
    struct tsr_dis_plan *pl = x->pbuf;
    plan_layout(pl, cap, ecap, nev);
    plan_fill(x, isa, pl, p, end, what, nev, cap, ecap, used);
    if (pl->walk)
        used[0] = used[1] = 0;   /* the walk's: no steps */
    pl = malloc(plan_layout(NULL, used[0], used[1], nev));
    if (!pl)
        abort();
    plan_layout(pl, used[0], used[1], nev);
    if (!plan_fill(x, isa, pl, p, end, what, nev, used[0], used[1], used))
        pl->walk = true;
    return pl;
}

const struct tsr_dis_plan *tsr_dis_plan_get(struct tsr_dis_exact *x, const struct tsr_tc_isa *isa,
                                            const struct tsr_tc_part *p, const struct tsr_tc_part *end,
                                            const struct tsr_dis_ev *ev, size_t avail)
{
    /* the key: the place, the alternative printed and the choices within it (one byte each) */
    const struct tsr_tc_opnd *o = &isa->opnds[p->arg];
    size_t part = (size_t)(p - isa->parts);
    if (!avail || ev[0].what >= o->nalt || part >= x->st.nparts || ev[0].what >= x->st.maxalt)
        return NULL;
    size_t nev = 1 + isa->alts[o->alt + ev[0].what].npart;
    if (nev > avail || nev > 256)
        return NULL;
    if (!x->plans) {
        x->plans = calloc((size_t)x->st.nparts * x->st.maxalt, sizeof *x->plans);
        if (!x->plans)
            abort();
    }
    struct tsr_dis_plan **head = &x->plans[part * x->st.maxalt + ev[0].what];
    for (struct tsr_dis_plan *pl = *head; pl; pl = pl->next) {
        size_t i = 1;
        while (i < nev && pl->what[i] == ev[i].what)
            i++;
        if (i == nev)
            return pl;
    }
    uint8_t what[256];
    for (size_t i = 0; i < nev; i++) {
        if (ev[i].what > 255)
            return NULL;
        what[i] = (uint8_t)ev[i].what;
    }
    if (x->nplans >= TSR_DIS_PLANS)
        return NULL;   /* enough: the walk */
    x->nplans++;
    struct tsr_dis_plan *pl = plan_new(x, isa, p, end, what, nev);
    pl->next = *head;
    return *head = pl;
}

void tsr_dis_plan_free(struct tsr_dis_exact *x)
{
    for (size_t i = 0; x->plans && i < (size_t)x->st.nparts * x->st.maxalt; i++)
        for (struct tsr_dis_plan *pl = x->plans[i], *nx; pl; pl = nx)
            nx = pl->next, free(pl);
    free(x->plans);
    free(x->pbuf);
    x->plans = NULL;
    x->pbuf = NULL;
    x->nplans = 0;
    x->pcap = 0;
}
