/* The fast form of the disassembler's exactness proof, generated per op (runtime/text/dis_fx.h), appended to
 * <t>_disasm.c by gen_disasm after the printer:
 *
 *  - per operand used in an op's template, a function `qo_N` that checks the operand's event and, by the
 *    alternative it records, that alternative's parts: the early alternatives (tsr_fx_early), each part that
 *    needs a test (tsr_fx_lit, tsr_fx_table, tsr_fx_int, tsr_fx_opt0), the conditions compiled to
 *    comparisons with constants.  It returns the events it took (0: not shown).  An alternative the full
 *    proof's plans leave to its walk (a label, an operand within the alternative, a binding whose value does
 *    not fit its field, more than 255 parts) answers 0 here;
 *  - per op a function `qc_N` doing the same along the op's own template, calling `qo_N` for its operands;
 *  - `<t>_fx`: the checkers, and the places and (operand part, alternative) pairs they number, which tell
 *    the runtime where to look its facts up (dis_fx.h).
 *
 * Places are numbered in one pass: every part of every op's template, op by op; then, op by op and operand
 * part by operand part, every part of every alternative of that operand (alternative by alternative).  A
 * `qo_N` is shared by the ops that use the operand, so it receives the first place and the first pair of
 * its operand part (pb, kb) and adds the alternative's offset.  The tests mirror runtime/text/dis_plan.c and
 * dis_exact.c run_plan one for one (docs/asm.md "Round trips").
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
    bool *used;          /* per operand: at an op's template part (gets a qo_N) */
    int rc;
};

static bool bound_ident(const struct tc_part *p)
{
    return p->bound && p->len && tsr_asm_isident(p->text[p->len - 1]);   /* dis_plan.c's S_LIT test */
}

static uint64_t fmask(const struct mdl_model *m, int field)
{
    int w = m->fields[field].width;
    return w >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1;
}

/* The conditions conds[first .. first+n) as statements failing with `fail`. */
static void conds_code(struct cgen *g, int first, int n, const char *ind, const char *fail)
{
    struct tsr_buf *o = g->out;
    for (int i = first; i < first + n; i++) {
        const struct tc_cond *c = &g->L->conds[i];
        if (c->kind == TSR_TC_BIND) {
            tsr_buf_printf(o, "%sif (f[%d] != ", ind, c->field);
            gen_u64(o, c->val & fmask(g->m, c->field));
            tsr_buf_printf(o, ")\n%s    %s;\n%stsr_fx_bind(X, %d);\n", ind, fail, ind, c->field);
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

/* The test of part p whose event is `evx` and place `plx` (C expressions); fail: the statement giving up.
 * plan: inside an operand's alternative (dis_plan.c: an unfit binding is left to the walk). */
static void part_code(struct cgen *g, const struct tc_part *p, const char *evx, const char *plx, const char *ind,
                      const char *fail)
{
    struct tsr_buf *o = g->out;
    switch (p->kind) {
    case TSR_TC_TEXT:
        if (bound_ident(p))
            tsr_buf_printf(o, "%sif (!tsr_fx_lit(X, %s))\n%s    %s;\n", ind, evx, ind, fail);
        break;
    case TSR_TC_SPACE:
        break;
    case TSR_TC_TABLE:
        tsr_buf_printf(o, "%sif (!tsr_fx_table(X, %s, %d, %s, %s))\n%s    %s;\n", ind, plx, p->field,
                       p->bound ? "true" : "false", evx, ind, fail);
        break;
    case TSR_TC_INT:
        tsr_buf_printf(o, "%sif (!tsr_fx_int(X, %s, %d, %s))\n%s    %s;\n", ind, plx, p->field, evx, ind, fail);
        break;
    case TSR_TC_OPT: {
        tsr_buf_printf(o, "%sif ((%s)->what) {\n", ind, evx);
        char ind2[64];
        snprintf(ind2, sizeof ind2, "%s    ", ind);
        if (bound_ident(p))
            tsr_buf_printf(o, "%sif (!tsr_fx_lit(X, %s))\n%s    %s;\n", ind2, evx, ind2, fail);
        conds_code(g, p->cond, p->ncond, ind2, fail);
        tsr_buf_printf(o, "%s} else if (!tsr_fx_opt0(X, %s, ", ind, evx);
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

static void opnd_fn(struct cgen *g, int oi)
{
    struct tsr_buf *o = g->out;
    const struct mdl_opnd *od = &g->m->opnds[oi];
    tsr_buf_printf(o, "/* operand %s */\nstatic size_t qo_%d(struct tsr_fx *X, const struct tsr_dis_ev *ev, size_t avail, "
                      "uint32_t pb, uint32_t kb, bool lead)\n{\n    const uint64_t *f = X->f;\n"
                      "    (void)f;\n    (void)pb;\n    (void)kb;\n    (void)lead;\n    (void)avail;\n"
                      "    if (!tsr_fx_in(X, ev))\n        return 0;\n    X->top = (size_t)(ev - X->ev0);\n    switch (ev->what) {\n",
                   od->inst_name ? od->inst_name : od->name, oi);
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
            part_code(g, &g->L->parts[a->part + j], evx, plx, "        ", "return 0");
        }
        conds_code(g, a->cond, a->ncond, "        ", "return 0");
        tsr_buf_printf(o, "        return %d;\n", 1 + a->npart);
        off += a->npart;
    }
    tsr_buf_puts(o, "    }\n    return 0;\n}\n\n");
}

/* The op checker; *place, *pk: the next free place and pair numbers of the operand blocks (op-level places
 * are opbase + part index). */
static void op_fn(struct cgen *g, int i, int opbase, int *place, int *pk)
{
    struct tsr_buf *o = g->out;
    const struct tc_op *op = &g->L->ops[i];
    tsr_buf_printf(o, "/* op %s */\nstatic bool qc_%d(struct tsr_fx *X, const struct tsr_dis_ev *ev, size_t avail, "
                      "size_t *used)\n{\n    const uint64_t *f = X->f;\n    size_t e = 0, last = SIZE_MAX;\n"
                      "    (void)f;\n    (void)ev;\n    (void)avail;\n",
                   g->m->ops[i].name, i);
    int lead = 0;
    while (lead < op->npart && (g->L->parts[op->part + lead].kind == TSR_TC_TEXT ||
                                g->L->parts[op->part + lead].kind == TSR_TC_SPACE))
        lead++;
    for (int j = 0; j < op->npart; j++) {
        const struct tc_part *p = &g->L->parts[op->part + j];
        tsr_buf_puts(o, "    if (e >= avail)\n        return false;\n    last = e;\n");
        if (p->kind == TSR_TC_OPND) {
            const struct mdl_opnd *od = &g->m->opnds[p->arg];
            tsr_buf_printf(o, "    {\n        size_t n = qo_%d(X, ev + e, avail - e, %d, %d, %s);\n"
                              "        if (!n)\n            return false;\n",
                           p->arg, *place, *pk, j == lead ? "true" : "false");
            if (j < TSR_FX_LALT)
                tsr_buf_printf(o, "        X->lalt[%d] = (uint8_t)ev[e].what;\n        X->lpk[X->nlpk++] = %d + ev[e].what;\n",
                               j, *pk);
            tsr_buf_puts(o, "        e += n;\n    }\n");
            for (int k = 0; k < od->nalt; k++)
                *place += g->L->alts[g->L->opnd_alt[p->arg] + k].npart;
            *pk += od->nalt;
            continue;
        }
        char plx[32];
        snprintf(plx, sizeof plx, "%d", opbase + j);
        part_code(g, p, "&ev[e]", plx, "    ", "return false");
        tsr_buf_puts(o, "    e++;\n");
    }
    conds_code(g, op->cond, op->ncond, "    ", "return false");
    tsr_buf_puts(o, "    if (last != SIZE_MAX)\n        X->end = ev[last].end;\n    *used = e;\n    return true;\n}\n\n");
}

int gen_discheck(const struct mdl_model *m, const struct tc_layout *L, struct tsr_buf *out, struct tsr_diag *d)
{
    struct cgen g = {m, L, out, d, calloc((size_t)m->nopnds + 1, sizeof(bool)), 0};
    if (!g.used)
        abort();
    const char *lo = gen_lower(m);
    for (int i = 0; i < m->nops; i++)
        for (int j = L->ops[i].part; j < L->ops[i].part + L->ops[i].npart; j++)
            if (L->parts[j].kind == TSR_TC_OPND)
                g.used[L->parts[j].arg] = true;
    tsr_buf_puts(out, "/* ---- the exactness proof's fast form (runtime/text/dis_fx.h; gen/emit_discheck.c) ---- */\n\n");
    for (int i = 0; i < m->nopnds; i++)
        if (g.used[i])
            opnd_fn(&g, i);
    /* op-level places first, then the operand blocks in op order (the same walk as below) */
    int nplace = 0, npk = 0;
    int *opbase = calloc((size_t)m->nops + 1, sizeof *opbase);
    if (!opbase)
        abort();
    for (int i = 0; i < m->nops; i++)
        opbase[i] = nplace, nplace += L->ops[i].npart;
    for (int i = 0, place = nplace; i < m->nops; i++)
        op_fn(&g, i, opbase[i], &place, &npk);
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
    free(g.used);
    return g.rc;
}
