/* The exactness proof's state on one bundle and the text-only matcher it asks (dis_match.c): private to
 * dis_exact.c, dis_walk.c and the files of the checks they ask (runtime/text/). */
#ifndef TSR_DIS_PX_H
#define TSR_DIS_PX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "asm_engine.h"
#include "bits.h"
#include "dis_exact.h"

#define TSR_DIS_BUDGET 20000   /* text-only matcher steps per bundle before the proof gives up */

/* The proof of one bundle (dis_exact.c tsr_dis_exact): the text, the printed record and where the walk is. */
struct px {
    const struct tsr_tc_isa *isa;
    struct tsr_dis_exact *x;
    const char *s;
    uint32_t lim;                  /* end of the current part */
    uint32_t pos;                  /* walk: where the assembler is */
    const uint64_t *f;             /* the instruction's fields */
    const struct tsr_dis_ev *ev;
    struct tsr_dis_partinfo *pi;
    size_t ie, iend;               /* walk: next event, end of the part's events */
    size_t top;                    /* walk: the event of the op-level operand being walked (SIZE_MAX: none) */
    size_t cur;                    /* walk: the bundle part being walked */
    const struct tsr_tc_part *opbase;   /* walk: the first part of its op's template */
    unsigned fmt;                  /* the printed format, its parts, their ops and their first events */
    size_t np, nev;                /* nev: the printed path's events */
    const unsigned *pop;
    const struct tsr_dis_slotp *sp;
    uint8_t (*lalt)[TSR_DIS_LALT];   /* x->lalt */
    const size_t *plead;           /* the event of the part's leading operand (SIZE_MAX: none) */
    const uint8_t (*olalt)[TSR_DIS_LALT];   /* tsr_dis_ops_lalt of this state as it is (NULL: not made; dis_fast.c
                                               fx_refuted makes it once for both questions it asks) */
    uint32_t ban_field;            /* the text-only matcher drops every way that binds this field to a value
                                      other than ban_val (TSR_DIS_NOBAN: none; dis_pin.c) */
    uint64_t ban_val;              /* masked to the field's width */
};

#define TSR_DIS_NOBAN UINT32_MAX

static inline uint32_t ws(const struct px *P, uint32_t pos)
{
    while (pos < P->lim && tsr_asm_isblank(P->s[pos]))
        pos++;
    return pos;
}

/* Are the n bytes at a those at b (short runs: a loop, no call)? */
static inline bool same(const char *a, const char *b, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

/* Are the n bytes at t exactly the NUL-terminated name nm? */
static inline bool is_name(const char *t, const char *nm, uint32_t n)
{
    uint32_t i = 0;
    while (i < n && nm[i] && nm[i] == t[i])
        i++;
    return i == n && !nm[n];
}

/* asm_engine.c lit_match */
static inline bool lit(const struct px *P, const char *text, unsigned len, bool bound, uint32_t pos, uint32_t *end)
{
    return tsr_asm_lit(P->s, P->lim, text, len, bound, pos, end);
}

/* asm_engine.c match, TSR_TC_SPACE: the blanks from pos to q are acceptable */
static inline bool space_ok(const struct px *P, uint32_t pos, uint32_t q)
{
    return !(q == pos && pos > 0 && pos < P->lim && tsr_asm_isident(P->s[pos - 1]) && tsr_asm_isident(P->s[pos]));
}

/* Do the conditions [first, first + n) bind field to a value other than v (v masked to the field)? */
static inline bool tsr_dis_binds_other(const struct tsr_tc_isa *isa, uint32_t first, uint32_t n, uint32_t field,
                                       uint64_t v)
{
    for (uint32_t d = 0; d < n; d++) {
        const struct tsr_tc_cond *c = &isa->conds[first + d];
        if (c->kind == TSR_TC_BIND && c->field == field && (c->val & tsr_bits_mask(isa->fields[field].width)) != v)
            return true;
    }
    return false;
}

/* The ops the assembler can read bundle part k with, on a path through the choice being decided at the current
 * part (P->cur): up to the current part its printed op (the parts before it are read by their printed ops and
 * slots), after it the ops of the later slots that dis_static.c does not rule out for the printed one.  Start
 * with it zeroed and it->t = k > P->cur ? P->sp[P->cur].t + 1 : 0; each call gives the next op in *b (false:
 * no more). */
struct tsr_dis_opit { uint32_t t, n, nb; const uint32_t *bs; };

static inline bool tsr_dis_part_op_next(struct px *P, size_t k, struct tsr_dis_opit *it, unsigned *b)
{
    const struct tsr_tc_format *F = &P->isa->formats[P->fmt];
    unsigned a = P->pop[k];
    for (;;) {
        while (it->n < it->nb) {
            unsigned o = it->bs[it->n++];
            if (o == a || k > P->cur) {
                *b = o;
                return true;
            }
        }
        if (it->t >= F->nslot)
            return false;
        it->bs = tsr_dis_slot_ops(&P->x->st, a, P->isa->idx[F->slot + it->t++], &it->nb);
        it->n = 0;
    }
}

/* ---- the text-only matcher (dis_match.c) -------------------------------------------------------------- */

/* names_at through the bundle's memo: the names of table p->arg (bound rule p->bound) that the assembler
 * accepts at pos (asm_engine.c table_hole); *len and *code point at their lengths and codes.  Returns the
 * count, or -1 when there are too many (then nothing is proven). */
int tsr_dis_names_memo(struct px *P, const struct tsr_tc_part *p, uint32_t pos, const uint32_t **len,
                       const uint32_t **code);
/* asm_engine.c table_hole: does numeric entry nu accept the value v? */
bool tsr_dis_num_ok(const struct tsr_tc_num *nu, const struct tsr_asm_val *v);
/* The constant expression at pos (no symbols), as tsr_asm_expr: > 0 when one was read, ending at *e. */
int tsr_dis_expr_at(const struct px *P, uint32_t pos, size_t *e, struct tsr_asm_val *v);
/* asm_engine.c number_hole for a `{FIELD}` hole of field fd: the value stored (*x), or false when it fails. */
bool tsr_dis_int_value(const struct tsr_tc_field *fd, const struct tsr_asm_val *v, int64_t *x);
/* Can parts [p, end) followed by the continuation k match the text from pos to the end of the part, fields
 * aside (open: and stop anywhere)?  true also when the step budget is spent (then nothing is proven).  With
 * P->ban_field set, the ways that bind that field to another value than P->ban_val (an alternative's or
 * optional text's FIELD = value, a table entry's code, a `{FIELD}` hole's number) are dropped. */
bool tsr_dis_possible(struct px *P, const struct tsr_tc_part *p, const struct tsr_tc_part *end, uint32_t pos,
                      const struct tsr_dis_kont *k, bool open);

/* ---- a field pinned by the text (dis_pin.c) ------------------------------------------------------------ */

/* Does every way the assembler can read some bundle part bind FIELD to a value other than v (masked to the
 * field)?  Then no path that binds FIELD = v completes.  false proves nothing. */
bool tsr_dis_pinned(struct px *P, unsigned field, uint64_t v);
/* Does every path through alternative alt, read at q of the current part, fail through a field: for one of
 * its FIELD = value conditions, or for every code its leading table hole can read at q, tsr_dis_pinned? */
bool tsr_dis_alt_pinned(struct px *P, const struct tsr_tc_alt *alt, uint32_t q);

/* ---- a field pinned, asked of the facts from the walk (dis_fpin.c) -------------------------------------- */

/* The alternatives printed at the parts' leading operands (pw[k] for part k; 0xff: none), for tsr_dis_spin. */
void tsr_dis_lead_alts(const struct px *P, uint8_t *pw);
/* The alternatives tsr_dis_spin_ops asks for an alternative of the op-level operand of the current part whose
 * event is P->top, into lalt (P->np rows of TSR_DIS_LALT): the parts before it as the walk recorded them (P->lalt),
 * the current part and the later ones from their events; the operand being decided left out (P->top SIZE_MAX: the
 * whole current part). */
void tsr_dis_ops_lalt(struct px *P, uint8_t (*lalt)[TSR_DIS_LALT]);
/* Is FIELD pinned to values other than each of codes[0..n) by the facts, some part's leading operand (tsr_dis_spin)
 * or anchored operand (tsr_dis_spin_ops_field) being read only with another value?  The op-level operand at
 * P->top, in which the choice being decided lies, is left out (SIZE_MAX: the current part). */
bool tsr_dis_pinned_facts(struct px *P, unsigned field, const uint64_t *codes, unsigned n);
/* refuted() through the leading table hole of alt, an early alternative of the op-level operand being decided
 * (P->top; pa: its printed alternative, NULL when alt is nested): every code the hole can read where pa printed a
 * name (tsr_dis_lead_codes) is pinned to another value (tsr_dis_pinned_facts). */
bool tsr_dis_hole_refuted(struct px *P, const struct tsr_tc_alt *alt, const struct tsr_tc_alt *pa);
/* refuted() through a second field (dis_chain.c): alt, tried before the printed alternative of an operand of the
 * current part (P->top as for tsr_dis_pinned_facts), binds FIELD = v; a later part, read with FIELD = v, can only be
 * read binding another field G = w (its leading operand's alternatives that can be read there all bind it), and G
 * is pinned to another value by the facts (tsr_dis_pinned_facts).  false proves nothing. */
bool tsr_dis_chain_refuted(struct px *P, const struct tsr_tc_alt *alt);
/* Does alternative alt, tried before the printed alternative pa of an op-level operand (NULL: nested, its leading
 * hole not asked), fail through a field the printed path has bound before that operand (bound8[field] != 0, or bit
 * field of bound64 when bound8 is NULL), to the instruction's value f[field]: one of its FIELD = value conditions
 * binds another value, or its leading table hole can only read codes other than f[field] where pa printed a name
 * (tsr_dis_lead_codes)?  On every path through alt the parts, operands and conditions before it are read as printed
 * (earlier choices were decided first), so that binding is made too, and asm_engine.c bind fails at the second of
 * two disagreeing bindings, whichever comes first.  `nop; v8max r0, vpm, mutex`: `mutex` read from regfile A binds
 * raddr_a = 51, but `vpm`, read from regfile A as printed, bound raddr_a = 48. */
bool tsr_dis_bound_refuted(const struct tsr_tc_isa *isa, const struct tsr_tc_alt *alt, const struct tsr_tc_alt *pa,
                           const uint64_t *f, const uint8_t *bound8, const uint64_t *bound64);
/* Step st, a table hole printed as a number that the reader reads alone (S_NUMROW, or S_TAB printed last in its
 * part) at event ev: as dis_num.c's row (no name can start it, it reads back whole), and every numeric entry before
 * the printed code that accepts its value is pinned to another value by the facts; then binds the field.  P->top:
 * as for tsr_dis_pinned_facts.  false proves nothing. */
bool tsr_dis_num_pinned(struct px *P, const struct tsr_dis_step *st, const struct tsr_dis_ev *ev);

/* ---- one bundle part read back along the printed path (dis_walk.c), and what the proof asks on the way ---- */

/* The walk of bundle part P->cur, printed by op a (dis_exact.c (1)): with its operands' plans (dis_plan.c), else
 * the walk itself, every earlier choice at each decision ruled out ((2)).  false: not shown. */
bool tsr_dis_walk_part(struct px *P, unsigned a);

/* FIELD = v (masked to the field) agrees with the instruction: then the field is marked bound. */
static inline bool tsr_px_bind_field(struct px *P, unsigned field, uint64_t v)
{
    if ((v & tsr_bits_mask(P->isa->fields[field].width)) != P->f[field])
        return false;
    P->x->bound[field] = 1;
    return true;
}

/* Records a FIELD == FIELD pair met on the way (checked at the end of tsr_dis_exact). */
static inline bool tsr_px_eq_pair(struct tsr_dis_exact *x, unsigned a, unsigned b)
{
    if (x->neq + 2 > x->ceq) {
        x->ceq = x->ceq ? x->ceq * 2 : 64;
        x->eq = realloc(x->eq, x->ceq * sizeof *x->eq);
        if (!x->eq)
            abort();
    }
    x->eq[x->neq++] = (uint16_t)a;
    x->eq[x->neq++] = (uint16_t)b;
    return true;
}

/* The conditions of a chosen path element: each must hold on the instruction (bindings then agree with it,
 * and the checks the assembler tests at the end see the same fields). */
static inline bool tsr_px_conds(struct px *P, uint32_t first, uint32_t n)
{
    struct tsr_dis_exact *x = P->x;
    for (uint32_t i = 0; i < n; i++) {
        const struct tsr_tc_cond *c = &P->isa->conds[first + i];
        if (c->kind == TSR_TC_BIND) {
            if (!tsr_px_bind_field(P, c->field, c->val))
                return false;
        } else if (c->kind != TSR_TC_BIND2) {
            if (!P->isa->check(c->id, P->f))
                return false;
        } else {
            if (P->f[c->field] != P->f[c->field2] || !tsr_px_eq_pair(x, c->field, c->field2))
                return false;
        }
    }
    return true;
}

#endif
