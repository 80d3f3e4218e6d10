/* The fast form of the disassembler's exactness proof, generated per op (runtime/text/dis_fx.h), appended to
 * <t>_disasm.c by gen_disasm after the printer:
 *
 *  - per operand used in an op's template, a function `qo_N` that checks the operand's event and, by the
 *    alternative it records, that alternative's parts: the early alternatives (tsr_fx_early), each part that
 *    needs a test (tsr_fx_lit, tsr_fx_table, tsr_fx_int, tsr_fx_opt0), the fields its conditions and holes
 *    bind (conds_shown: the printer printed the alternative because they hold).  It returns the events it
 *    took (0: not shown).  An alternative the full
 *    proof's plans leave to its walk (a label, an operand within the alternative, a binding whose value does
 *    not fit its field, more than 255 parts) answers 0 here;
 *  - per op a function `qc_N` doing the same along the op's own template, calling `qo_N` for its operands: a
 *    body `qs_S` per template shape (the op's checker with its place and pair numbers and its conditions' values
 *    read from a constant array, `qd_N`, so that the ops whose templates differ only in those share it: the
 *    66 ops of the largest description have 23 shapes), called by `qc_N` with the op's constants;
 *  - `<t>_fx`: the checkers, and the places and (operand part, alternative) pairs they number, which tell
 *    the runtime where to look its facts up (dis_fx.h).
 *
 * Places are numbered in one pass: every part of every op's template, op by op; then, op by op and operand
 * part by operand part, every part of every alternative of that operand (alternative by alternative).  A
 * `qo_N` is shared by the ops that use the operand, so it receives the first place and the first pair of
 * its operand part (pb, kb) and adds the alternative's offset.  The tests mirror runtime/text/dis_plan.c and
 * dis_walk.c run_plan one for one (docs/asm.md "Round trips"), less those the printer or the template already
 * decides, each left out where its argument is given: the conditions of what the path says was printed
 * (conds_shown), the events' bounds (opnd_fn), the bound rule before text that cannot continue an identifier
 * (starts_nonident), optional text whose literal cannot match what follows (opt0_never), a table's kind of
 * entry (TSR_FX_T_*); an alternative's bindings are one OR per word (bm_flush).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit_tc.h"
#include "emit_util.h"
#include "text/dis_fx.h"
#include "text/textcodec.h"

struct cgen {
    const struct mdl_model *m;
    const struct tc_layout *L;
    struct tsr_buf *out;
    struct tsr_diag *d;
    unsigned *tflags;    /* per table: TSR_FX_T_* (dis_fx.h), what every entry it prints is */
    uint64_t *bm;        /* the fields bound since the last flush (bm_flush), one bit each */
    int nw;              /* words of bm */
    int rc;
    uint64_t *kv;        /* the constants of the op checker being made (kref), nk of them */
    int nk, ck;
    bool inl;            /* op_body calls the operands' inlined checkers qi_N, not qo_N (a hot body: HOT_USERS) */
};

/* Constant v of the op checker being made, as the C expression that reads it from the op's constants (D[k]): the
 * body then depends on the template's shape only and is shared by the ops of the same shape (op_fns). */
static void kref(struct cgen *g, uint64_t v)
{
    if (g->nk == g->ck) {
        g->ck = g->ck ? 2 * g->ck : 16;
        g->kv = realloc(g->kv, (size_t)g->ck * sizeof *g->kv);
        if (!g->kv)
            abort();
    }
    g->kv[g->nk] = v;
    tsr_buf_printf(g->out, "D[%d]", g->nk++);
}

static bool bound_ident(const struct tc_part *p)
{
    return p->bound && p->len && tsr_asm_isident(p->text[p->len - 1]);   /* dis_plan.c's S_LIT test */
}

static uint64_t fmask(const struct mdl_model *m, int field)
{
    int w = m->fields[field].width;
    return w >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1;
}

static void bm_add(struct cgen *g, int field)
{
    g->bm[field >> 6] |= (uint64_t)1 << (field & 63);
}

/* The binds collected since the last flush, one OR per word of tsr_fx.bound.  Deferring a bind to here is
 * invisible: between a part's test and the flush nothing reads tsr_fx.bound (only tsr_fx_early_slow does, through
 * fx_refuted: at the start of an alternative, before that alternative's parts, and in an operand's checker, which
 * the op's checker calls only after a flush), and a checker that fails makes tsr_dis_fast answer "not shown",
 * whatever it bound. */
static void bm_flush(struct cgen *g, const char *ind)
{
    for (int w = 0; w < g->nw; w++)
        if (g->bm[w]) {
            tsr_buf_printf(g->out, "%sX->bound[%d] |= ", ind, w);
            gen_u64(g->out, g->bm[w]);
            tsr_buf_puts(g->out, ";\n");
            g->bm[w] = 0;
        }
}

/* Does the text printed from part i of a template sequence ending at part `end` on start with a character that
 * cannot continue an identifier (a blank, punctuation), in every way it can print?  tail: the answer when the
 * sequence prints nothing more (its continuation's).  A TEXT part prints its literal, a SPACE one blank, an OPT
 * part its literal or nothing; anything else (a name, a number, an operand) may start with an identifier
 * character.  The printers put the parts' texts one after the other (dis_engine.c print_seq,
 * gen/emit_disprint.c), so the character after a part's text is this one. */
static bool starts_nonident(struct cgen *g, int i, int end, bool tail)
{
    for (; i < end; i++) {
        const struct tc_part *p = &g->L->parts[i];
        if (p->kind == TSR_TC_SPACE)
            return true;
        if (p->kind == TSR_TC_TEXT && p->len)
            return !tsr_asm_isident(p->text[0]);
        if ((p->kind != TSR_TC_TEXT && p->kind != TSR_TC_OPT) || (p->len && tsr_asm_isident(p->text[0])))
            return false;
        /* an empty literal, or optional text (not printed: what follows it is next) */
    }
    return tail;
}

/* What follows an op's template: when its part's text holds anything after the op's last event, tsr_dis_fast
 * answers "not shown" (it asks that only blanks follow X->end, the end of the op's last event, which is the end
 * of the last text the op printed), so a hole or literal printed last needs no test of the character after it. */
#define OP_TAIL true

/* Does what follows operand oi in every op's template that uses it start with a non-identifier character (as
 * starts_nonident)?  The tail of an operand's alternative, shared by those ops. */
static bool opnd_tail_nonident(struct cgen *g, int oi)
{
    for (int i = 0; i < g->m->nops; i++) {
        const struct tc_op *op = &g->L->ops[i];
        for (int j = op->part; j < op->part + op->npart; j++)
            if (g->L->parts[j].kind == TSR_TC_OPND && g->L->parts[j].arg == oi &&
                !starts_nonident(g, j + 1, op->part + op->npart, OP_TAIL))
                return false;
    }
    return true;
}

/* The first character other than a blank (tsr_asm_isblank) of the text printed from part i of a template
 * sequence ending at part `end` on, whatever it prints, into set[] (true per character); tail: also what follows
 * the sequence, when the parts can print nothing but blanks (opnd_tail_chars; none after an op's end: OP_TAIL).
 * False when that is not known (a number, a label, an operand, a table printing a number). */
static bool first_chars(struct cgen *g, int i, int end, int tail_opnd, bool set[256]);

/* The same for what follows operand oi in every op's template that uses it. */
static bool opnd_tail_chars(struct cgen *g, int oi, bool set[256])
{
    for (int i = 0; i < g->m->nops; i++) {
        const struct tc_op *op = &g->L->ops[i];
        for (int j = op->part; j < op->part + op->npart; j++)
            if (g->L->parts[j].kind == TSR_TC_OPND && g->L->parts[j].arg == oi &&
                !first_chars(g, j + 1, op->part + op->npart, -1, set))
                return false;
    }
    return true;
}

/* The first non-blank character of s[0..len) into set[]; false when there is none. */
static bool text_first(const char *s, size_t len, bool set[256])
{
    for (size_t k = 0; k < len; k++)
        if (!tsr_asm_isblank((unsigned char)s[k])) {
            set[(unsigned char)s[k]] = true;
            return true;
        }
    return false;
}

/* tail_opnd: the operand whose alternative the sequence is (what follows it: opnd_tail_chars), or -1 for an op's
 * own template (after its end only blanks may follow in the part: OP_TAIL, nothing to add). */
static bool first_chars(struct cgen *g, int i, int end, int tail_opnd, bool set[256])
{
    for (; i < end; i++) {
        const struct tc_part *p = &g->L->parts[i];
        switch (p->kind) {
        case TSR_TC_SPACE:
            continue;
        case TSR_TC_TEXT:
            if (text_first(p->text, (size_t)p->len, set))
                return true;
            continue;
        case TSR_TC_OPT:   /* printed, or not: what follows */
            text_first(p->text, (size_t)p->len, set);
            continue;
        case TSR_TC_TABLE: {
            const struct tc_table *T = &g->L->tables[p->arg];
            bool all = true;   /* every entry prints a non-blank character */
            for (int k = T->print; k < T->print + T->nprint; k++) {
                const struct tc_print *pr = &g->L->prints[k];
                if (pr->kind != TSR_TC_PRINT_NAME)
                    return false;
                all &= text_first(pr->name, strlen(pr->name), set);
            }
            if (all)
                return true;
            continue;
        }
        default:
            return false;
        }
    }
    return tail_opnd < 0 || opnd_tail_chars(g, tail_opnd, set);
}

/* Optional text part i (of a sequence ending at `end`, of operand tail_opnd or -1), when not printed: does its
 * literal fail where the assembler tries it whatever the fields (so tsr_fx_opt0 need not be asked)?  The
 * assembler tries it after the blanks at the event, where the text printed after the part begins (or at the
 * part's end); a literal whose first character is not a blank fails there unless that character is the first
 * non-blank one printed next (first_chars; tsr_asm_lit compares the literal's characters one by one). */
static bool opt0_never(struct cgen *g, int i, int end, int tail_opnd)
{
    const struct tc_part *p = &g->L->parts[i];
    bool set[256] = {false};
    if (!p->len || tsr_asm_isblank((unsigned char)p->text[0]) || !first_chars(g, i + 1, end, tail_opnd, set))
        return false;
    return !set[(unsigned char)p->text[0]];
}

/* The conditions conds[first .. first+n) of an op (tested: the decoder chose the op by its encoding), as statements
 * failing with `fail`; their bindings join bm. */
static void conds_code(struct cgen *g, int first, int n, const char *ind, const char *fail)
{
    struct tsr_buf *o = g->out;
    for (int i = first; i < first + n; i++) {
        const struct tc_cond *c = &g->L->conds[i];
        if (c->kind == TSR_TC_BIND) {
            tsr_buf_printf(o, "%sif (f[%d] != ", ind, c->field);
            kref(g, c->val & fmask(g->m, c->field));
            tsr_buf_printf(o, ")\n%s    %s;\n", ind, fail);
            bm_add(g, c->field);
        } else if (c->kind == TSR_TC_BIND2) {
            tsr_buf_printf(o, "%sif (!tsr_fx_pair(X, %d, %d))\n%s    %s;\n", ind, c->field, c->field2, ind, fail);
        } else if (c->e) {   /* the expression isa->check(id) tests, inline */
            struct gen_cx cx = {"f[%d]", true, NULL};
            tsr_buf_printf(o, "%sif (!(0 != (", ind);
            if (gen_cexpr(g->m, c->e, &cx, o, g->d) < 0)
                g->rc = -1;
            tsr_buf_printf(o, ")))\n%s    %s;\n", ind, fail);
        }
    }
}

/* The conditions conds[first .. first+n) of the alternative (or optional text) the path says was printed: the
 * printers print an alternative, or optional text, only when its conditions hold for the fields (dis_engine.c
 * print_seq cond_holds; gen/emit_disprint.c cond_code: the same tests on the same fields, a binding's value
 * fitting its field, alt_planned), so they hold here and are not tested again: their bindings join bm, a
 * FIELD == FIELD pair is recorded for the end of the bundle. */
static void conds_shown(struct cgen *g, int first, int n, const char *ind, const char *fail)
{
    for (int i = first; i < first + n; i++) {
        const struct tc_cond *c = &g->L->conds[i];
        if (c->kind == TSR_TC_BIND)
            bm_add(g, c->field);
        else if (c->kind == TSR_TC_BIND2)
            tsr_buf_printf(g->out, "%sif (!tsr_fx_eq(X, %d, %d))\n%s    %s;\n", ind, c->field, c->field2, ind, fail);
    }
}

/* Whether a binding of conds[first .. first+n) has a value that does not fit its field (the plan's walk). */
static bool conds_unfit(struct cgen *g, int first, int n)
{
    for (int i = first; i < first + n; i++) {
        const struct tc_cond *c = &g->L->conds[i];
        if (c->kind == TSR_TC_BIND && (c->val & fmask(g->m, c->field)) != c->val)
            return true;
    }
    return false;
}

/* The test of part i (of a sequence ending at part `end`, followed by text starting with a non-identifier
 * character when tail; the alternative of operand tail_opnd, or -1: an op's template) whose event is `evx` and
 * place `plx` (C expressions); fail: the statement giving up.  The fields its holes bind join bm.  The bound
 * rule's test (a name or literal ending in an identifier character is not followed by one) is left out where what
 * follows cannot continue an identifier (starts_nonident), optional text's test when not printed where its
 * literal cannot match what follows (opt0_never). */
static void part_code(struct cgen *g, int i, int end, bool tail, int tail_opnd, const char *evx, const char *plx,
                      const char *ind, const char *fail)
{
    struct tsr_buf *o = g->out;
    const struct tc_part *p = &g->L->parts[i];
    bool free_after = starts_nonident(g, i + 1, end, tail);
    switch (p->kind) {
    case TSR_TC_TEXT:
        if (bound_ident(p) && !free_after)
            tsr_buf_printf(o, "%sif (!tsr_fx_lit(X, %s))\n%s    %s;\n", ind, evx, ind, fail);
        break;
    case TSR_TC_SPACE:
        break;
    case TSR_TC_TABLE:
        tsr_buf_printf(o, "%sif (!tsr_fx_table(X, %s, %d, %s, %u, %s))\n%s    %s;\n", ind, plx, p->field,
                       p->bound && !free_after ? "true" : "false",
                       g->tflags[p->arg] | (g->m->fields[p->field].width <= 6 ? TSR_FX_T_SMALL : 0u), evx, ind, fail);
        bm_add(g, p->field);
        break;
    case TSR_TC_INT:
        tsr_buf_printf(o, "%sif (!tsr_fx_int(X, %s, %d, %s))\n%s    %s;\n", ind, plx, p->field, evx, ind, fail);
        bm_add(g, p->field);
        break;
    case TSR_TC_OPT: {
        char ind2[64];
        snprintf(ind2, sizeof ind2, "%s    ", ind);
        /* printed: its literal's bound rule, its conditions (shown by the printer: conds_shown); the bindings
         * only when printed, so flushed here */
        uint64_t *keep = calloc((size_t)g->nw, sizeof *keep);
        if (!keep)
            abort();
        memcpy(keep, g->bm, (size_t)g->nw * sizeof *keep);
        memset(g->bm, 0, (size_t)g->nw * sizeof *keep);
        size_t mark = o->len;
        tsr_buf_printf(o, "%sif ((%s)->what) {\n", ind, evx);
        size_t body = o->len;
        if (bound_ident(p) && !free_after)
            tsr_buf_printf(o, "%sif (!tsr_fx_lit(X, %s))\n%s    %s;\n", ind2, evx, ind2, fail);
        conds_shown(g, p->cond, p->ncond, ind2, fail);
        bm_flush(g, ind2);
        memcpy(g->bm, keep, (size_t)g->nw * sizeof *keep);
        free(keep);
        if (opt0_never(g, i, end, tail_opnd)) {   /* nothing to test when not printed */
            if (o->len == body)
                o->len = mark;
            else
                tsr_buf_printf(o, "%s}\n", ind);
            break;
        }
        if (o->len == body) {   /* nothing to do when printed */
            o->len = mark;
            tsr_buf_printf(o, "%sif (!(%s)->what && !tsr_fx_opt0(X, %s, ", ind, evx, evx);
        } else {
            tsr_buf_printf(o, "%s} else if (!tsr_fx_opt0(X, %s, ", ind, evx);
        }
        gen_cstring(o, p->text);
        tsr_buf_printf(o, ", %d, %s)) {\n%s    %s;\n%s}\n", p->len, p->bound ? "true" : "false", ind, fail, ind);
        break;
    }
    default:   /* a label, an operand: handled by the callers */
        tsr_buf_printf(o, "%s%s;\n", ind, fail);
        break;
    }
}

/* Can the plan of alternative a be compiled (dis_plan.c: no label, no operand within it, bindings that fit,
 * at most 255 parts)? */
static bool alt_planned(struct cgen *g, const struct tc_alt *a)
{
    if (a->npart > 255 || conds_unfit(g, a->cond, a->ncond))
        return false;
    for (int j = a->part; j < a->part + a->npart; j++) {
        const struct tc_part *p = &g->L->parts[j];
        if (p->kind == TSR_TC_LABEL || p->kind == TSR_TC_OPND ||
            (p->kind == TSR_TC_OPT && conds_unfit(g, p->cond, p->ncond)))
            return false;
    }
    return true;
}

/* An operand's checker.  Its event and its alternative's events lie within the part and in order: the printers
 * make them so (dis_path.h; every event of a part ends by the part's recorded end, which tsr_dis_fast takes as
 * the part's end or tests against it), so no test of an event's bounds is made here (tsr_fx_in). */
/* inl: the copy inlined into the op checkers' bodies shared by many ops (qi_N, HOT_USERS), else the function
 * the others call (qo_N). */
static void opnd_fn(struct cgen *g, int oi, bool inl)
{
    struct tsr_buf *o = g->out;
    const struct mdl_opnd *od = &g->m->opnds[oi];
    tsr_buf_printf(o, "/* operand %s */\n%s_%d(struct tsr_fx *X, const struct tsr_dis_ev *ev, size_t avail, "
                      "uint32_t pb, uint32_t kb, bool lead)\n{\n    const uint64_t *f = X->f;\n"
                      "    (void)f;\n    (void)pb;\n    (void)kb;\n    (void)lead;\n    (void)avail;\n"
                      "    X->top = ev;\n    switch (ev->what) {\n",
                   od->inst_name ? od->inst_name : od->name, inl ? "TSR_FX_INLINE size_t qi" : "TSR_FX_NOINLINE static size_t qo",
                   oi);
    bool tail = opnd_tail_nonident(g, oi);
    int off = 0;
    for (int k = 0; k < od->nalt; k++) {
        const struct tc_alt *a = &g->L->alts[g->L->opnd_alt[oi] + k];
        tsr_buf_printf(o, "    case %d:\n", k);
        if (!alt_planned(g, a)) {
            tsr_buf_puts(o, "        return 0;\n");
            off += a->npart;
            continue;
        }
        tsr_buf_printf(o, "        if (avail < %d)\n            return 0;\n", 1 + a->npart);
        if (k > 0)
            tsr_buf_printf(o, "        if (!tsr_fx_early(X, kb + %d, lead, ev))\n            return 0;\n", k);
        for (int j = 0; j < a->npart; j++) {
            char evx[32], plx[32];
            snprintf(evx, sizeof evx, "&ev[%d]", 1 + j);
            snprintf(plx, sizeof plx, "pb + %d", off + j);
            part_code(g, a->part + j, a->part + a->npart, tail, oi, evx, plx, "        ", "return 0");
        }
        conds_shown(g, a->cond, a->ncond, "        ", "return 0");
        bm_flush(g, "        ");
        tsr_buf_printf(o, "        return %d;\n", 1 + a->npart);
        off += a->npart;
    }
    tsr_buf_puts(o, "    }\n    return 0;\n}\n\n");
}

/* The body of op i's checker, into g->out, its constants (place and pair numbers, the conditions' values) read
 * from D (kref, g->kv); *place, *pk: the next free place and pair numbers of the operand blocks (op-level places
 * are opbase + part index).  The events are counted once per run of op-level parts up to the next operand (whose
 * checker counts its alternative's), not once per part. */
static void op_body(struct cgen *g, int i, int opbase, int *place, int *pk)
{
    struct tsr_buf *o = g->out;
    const struct tc_op *op = &g->L->ops[i];
    tsr_buf_puts(o, "    const uint64_t *f = X->f;\n    size_t e = 0, last = 0;\n"
                    "    (void)f;\n    (void)ev;\n    (void)avail;\n    (void)D;\n    (void)last;\n");
    int lead = 0;
    while (lead < op->npart && (g->L->parts[op->part + lead].kind == TSR_TC_TEXT ||
                                g->L->parts[op->part + lead].kind == TSR_TC_SPACE))
        lead++;
    int end = op->part + op->npart;
    for (int j = 0; j < op->npart; j++) {
        const struct tc_part *p = &g->L->parts[op->part + j];
        if (j == 0 || g->L->parts[op->part + j - 1].kind == TSR_TC_OPND) {
            /* a run: the parts up to and including the next operand part take one event each (e <= avail: each
             * operand's checker took at most what it was given) */
            int r = 0;
            while (j + r < op->npart && g->L->parts[op->part + j + r].kind != TSR_TC_OPND)
                r++;
            if (j + r < op->npart)
                r++;
            tsr_buf_printf(o, "    if (avail - e < %d)\n        return false;\n", r);
        }
        if (j == op->npart - 1)
            tsr_buf_puts(o, "    last = e;\n");
        if (p->kind == TSR_TC_OPND) {
            const struct mdl_opnd *od = &g->m->opnds[p->arg];
            bm_flush(g, "    ");   /* its checker's early alternatives may read what is bound before it */
            tsr_buf_printf(o, "    {\n        const uint32_t kb = (uint32_t)");
            kref(g, (uint64_t)*pk);
            tsr_buf_printf(o, ";\n        size_t n = %s_%d(X, ev + e, avail - e, (uint32_t)", g->inl ? "qi" : "qo",
                           p->arg);
            kref(g, (uint64_t)*place);
            tsr_buf_printf(o, ", kb, %s);\n        if (!n)\n            return false;\n", j == lead ? "true" : "false");
            if (j < TSR_FX_LALT)
                tsr_buf_printf(o, "        X->lalt[%d] = (uint8_t)ev[e].what;\n", j);
            tsr_buf_puts(o, "        e += n;\n    }\n");
            for (int k = 0; k < od->nalt; k++)
                *place += g->L->alts[g->L->opnd_alt[p->arg] + k].npart;
            *pk += od->nalt;
            continue;
        }
        struct tsr_buf plx = {0};
        struct tsr_buf *keep = g->out;
        g->out = &plx;
        tsr_buf_puts(&plx, "(uint32_t)");
        if (p->kind == TSR_TC_TABLE || p->kind == TSR_TC_INT)   /* the parts that ask their place's facts */
            kref(g, (uint64_t)(opbase + j));
        g->out = keep;
        part_code(g, op->part + j, end, OP_TAIL, -1, "&ev[e]", plx.data, "    ", "return false");
        tsr_buf_free(&plx);
        tsr_buf_puts(o, "    e++;\n");
    }
    conds_code(g, op->cond, op->ncond, "    ", "return false");
    bm_flush(g, "    ");
    if (op->npart)
        tsr_buf_puts(o, "    X->end = ev[last].end;\n");
    tsr_buf_puts(o, "    *used = e;\n    return true;\n");
}

/* A body shared by this many ops or more calls the operands' checkers inlined (qi_N): those bodies run on most
 * bundles (the ops of two ALU slots: 19 and 7 of them), so the calls' cost is saved where it counts (callgrind:
 * 92 instructions a word fewer on bench_dis's words) for one more copy of those operands' checkers (about 8 KB),
 * and the bodies of fewer ops stay small. */
#define HOT_USERS 4

/* The op checkers: each op's body (op_body) once per distinct text, as qs_S(..., D) shared by the ops whose
 * templates have the same shape (one ALU slot's ops, say, differ only in their place and pair numbers and opcode),
 * and per op its constants qd_N and qc_N calling the body with them. */
static void op_fns(struct cgen *g, const int *opbase, int *npk)
{
    const struct mdl_model *m = g->m;
    struct tsr_buf *out = g->out;
    struct tsr_buf *body = calloc((size_t)m->nops + 1, sizeof *body);
    uint64_t **kv = calloc((size_t)m->nops + 1, sizeof *kv);
    int *nk = calloc((size_t)m->nops + 1, sizeof *nk), *shape = calloc((size_t)m->nops + 1, sizeof *shape);
    int *users = calloc((size_t)m->nops + 1, sizeof *users);
    if (!body || !kv || !nk || !shape || !users)
        abort();
    int *place0 = calloc((size_t)m->nops + 1, sizeof *place0), *pk0 = calloc((size_t)m->nops + 1, sizeof *pk0);
    if (!place0 || !pk0)
        abort();
    int place = opbase[m->nops];
    for (int i = 0; i < m->nops; i++) {
        g->out = &body[i];
        tsr_buf_puts(&body[i], "");
        g->kv = NULL, g->nk = g->ck = 0;
        place0[i] = place, pk0[i] = *npk;
        op_body(g, i, opbase[i], &place, npk);
        kv[i] = g->kv, nk[i] = g->nk;
        shape[i] = i;
        for (int j = 0; j < i; j++)
            if (shape[j] == j && body[j].len == body[i].len && memcmp(body[j].data, body[i].data, body[i].len) == 0) {
                shape[i] = j;
                break;
            }
        users[shape[i]]++;
    }
    /* a hot body again, calling the inlined checkers (the same text but for those names: the same constants, from
     * the place and pair numbers its op started at) */
    for (int i = 0; i < m->nops; i++)
        if (shape[i] == i && users[i] >= HOT_USERS) {
            int pl = place0[i], pk = pk0[i];
            tsr_buf_free(&body[i]);
            g->out = &body[i], g->inl = true, g->kv = NULL, g->nk = g->ck = 0;
            tsr_buf_puts(&body[i], "");
            op_body(g, i, opbase[i], &pl, &pk);
            free(g->kv);
            g->inl = false;
        }
    free(place0);
    free(pk0);
    g->out = out, g->kv = NULL, g->nk = g->ck = 0;
    /* the operands' checkers: qo_N for the ops of bodies called from their qc_N, qi_N for the hot bodies */
    unsigned char *need = calloc((size_t)m->nopnds + 1, 1);
    if (!need)
        abort();
    for (int i = 0; i < m->nops; i++)
        for (int j = g->L->ops[i].part; j < g->L->ops[i].part + g->L->ops[i].npart; j++)
            if (g->L->parts[j].kind == TSR_TC_OPND)
                need[g->L->parts[j].arg] |= users[shape[i]] >= HOT_USERS ? 2 : 1;
    for (int oi = 0; oi < m->nopnds; oi++) {
        if (need[oi] & 1)
            opnd_fn(g, oi, false);
        if (need[oi] & 2)
            opnd_fn(g, oi, true);
    }
    free(need);
    for (int i = 0; i < m->nops; i++) {
        if (shape[i] != i)
            continue;
        tsr_buf_printf(out, "/* the ops of shape %d:", i);
        for (int j = i; j < m->nops; j++)
            if (shape[j] == i)
                tsr_buf_printf(out, " %s", m->ops[j].name);
        tsr_buf_printf(out, " */\n%sstatic bool qs_%d(struct tsr_fx *X, const struct tsr_dis_ev *ev, size_t avail, "
                            "size_t *used, const uint64_t *D)\n{\n",
                       users[i] > 1 ? "TSR_FX_NOINLINE " : "", i);
        tsr_buf_append(out, body[i].data, body[i].len);
        tsr_buf_puts(out, "}\n\n");
    }
    for (int i = 0; i < m->nops; i++) {
        tsr_buf_printf(out, "/* op %s */\nstatic const uint64_t qd_%d[] = {", m->ops[i].name, i);
        for (int k = 0; k < nk[i]; k++) {
            tsr_buf_puts(out, k ? ", " : "");
            gen_u64(out, kv[i][k]);
        }
        tsr_buf_printf(out, "%s};\nstatic bool qc_%d(struct tsr_fx *X, const struct tsr_dis_ev *ev, size_t avail, "
                            "size_t *used)\n{\n    return qs_%d(X, ev, avail, used, qd_%d);\n}\n\n",
                       nk[i] ? "" : "0", i, shape[i], i);
    }
    for (int i = 0; i < m->nops; i++) {
        tsr_buf_free(&body[i]);
        free(kv[i]);
    }
    free(body);
    free(kv);
    free(nk);
    free(shape);
    free(users);
}

int gen_discheck(const struct mdl_model *m, const struct tc_layout *L, struct tsr_buf *out, struct tsr_diag *d)
{
    struct cgen g = {m, L, out, d, calloc((size_t)m->ntables + 1, sizeof(unsigned)),
                     calloc((size_t)m->nfields / 64 + 1, sizeof(uint64_t)), m->nfields / 64 + 1, 0, NULL, 0, 0, false};
    if (!g.tflags || !g.bm)
        abort();
    for (int t = 0; t < m->ntables; t++) {
        unsigned fl = TSR_FX_T_NAMES | TSR_FX_T_NOBLANK;
        for (int i = L->tables[t].print; i < L->tables[t].print + L->tables[t].nprint; i++) {
            const struct tc_print *pr = &L->prints[i];
            if (pr->kind != TSR_TC_PRINT_NAME)
                fl &= ~(unsigned)TSR_FX_T_NAMES;
            else if (pr->name[0] && tsr_asm_isblank(pr->name[0]))
                fl &= ~(unsigned)TSR_FX_T_NOBLANK;
        }
        g.tflags[t] = fl;
    }
    const char *lo = gen_lower(m);
    tsr_buf_puts(out, "/* ---- the exactness proof's fast form (runtime/text/dis_fx.h; gen/emit_discheck.c) ---- */\n\n");
    /* op-level places first, then the operand blocks in op order (the same walk as below) */
    int nplace = 0, npk = 0;
    int *opbase = calloc((size_t)m->nops + 1, sizeof *opbase);
    if (!opbase)
        abort();
    for (int i = 0; i < m->nops; i++)
        opbase[i] = nplace, nplace += L->ops[i].npart;
    opbase[m->nops] = nplace;
    op_fns(&g, opbase, &npk);
    /* the tables: op-level places, then per operand part its alternatives' places; the pairs */
    tsr_buf_puts(out, "static const struct tsr_fx_pinfo fx_places[] = {\n");
    for (int i = 0; i < m->nops; i++) {
        const struct tc_op *op = &L->ops[i];
        for (int j = 0; j < op->npart; j++)
            tsr_buf_printf(out, "    {%d, %d, UINT32_MAX, UINT32_MAX},\n", op->part + j, op->part + op->npart);
    }
    int nalt_places = 0;
    for (int i = 0; i < m->nops; i++) {
        const struct tc_op *op = &L->ops[i];
        for (int j = 0; j < op->npart; j++) {
            const struct tc_part *p = &L->parts[op->part + j];
            if (p->kind != TSR_TC_OPND)
                continue;
            for (int k = 0; k < m->opnds[p->arg].nalt; k++) {
                const struct tc_alt *a = &L->alts[L->opnd_alt[p->arg] + k];
                for (int jj = 0; jj < a->npart; jj++, nalt_places++)
                    tsr_buf_printf(out, "    {%d, %d, %d, %d},\n", a->part + jj, a->part + a->npart, op->part + j + 1,
                                   op->part + op->npart);
            }
        }
    }
    if (nplace + nalt_places == 0)
        tsr_buf_puts(out, "    {0, 0, 0, 0},\n");
    tsr_buf_puts(out, "};\n\nstatic const struct tsr_fx_pk fx_pks[] = {\n");
    for (int i = 0; i < m->nops; i++) {
        const struct tc_op *op = &L->ops[i];
        for (int j = 0; j < op->npart; j++)
            if (L->parts[op->part + j].kind == TSR_TC_OPND)
                for (int k = 0; k < m->opnds[L->parts[op->part + j].arg].nalt; k++)
                    tsr_buf_printf(out, "    {%d, %d, %d},\n", op->part + j, op->part + op->npart, k);
    }
    if (npk == 0)
        tsr_buf_puts(out, "    {0, 0, 0},\n");
    tsr_buf_puts(out, "};\n\nstatic const tsr_fx_fn fx_ops[] = {\n");
    for (int i = 0; i < m->nops; i++)
        tsr_buf_printf(out, "    qc_%d,\n", i);
    if (!m->nops)
        tsr_buf_puts(out, "    NULL,\n");
    tsr_buf_printf(out, "};\n\nconst struct tsr_fx_desc %s_fx = {fx_ops, fx_places, %d, fx_pks, %d};\n", lo,
                   nplace + nalt_places, npk);
    free(opbase);
    free(g.tflags);
    free(g.bm);
    return g.rc;
}
