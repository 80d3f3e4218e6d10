/* The simulator emitter: gen_sim (<t>_sim.c: one C function executing a decoded bundle, the fetch/decode/step
 * loop and the struct tsr_sim_desc descriptor).  The header part (gen_sim_header) is gen/emit_sim_header.c, the
 * support functions of <t>_sim.c gen/emit_sim_support.c; semantics are compiled by gen/emit_sim_sem.c; the
 * run-time support is runtime/sim/sim.h, operators and built-ins runtime/sem.h.
 * docs/sim.md describes the generated simulator for its users. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit_sim.h"
#include "eval.h"
#include "gen.h"
#include "sim/sim.h"

/* The locals of format f: declared, or the highest one its statements use. */
static int format_nloc(const struct mdl_format *f)
{
    int n = f->nlocals, k = sg_max_local(f->sem, f->nsem) + 1, k2 = sg_max_local(f->commit, f->ncommit) + 1;
    if (k > n) n = k;
    if (k2 > n) n = k2;
    return n;
}

/* ---- the simulator ---------------------------------------------------------------------------------------- */

/* The locals of op (analysed into vary) that are only bound to an operand all of whose alternatives read: they
 * point to its lanes (lp). */
static bool *op_ptrloc(struct sg *g, const struct mdl_op *op, const struct mdl_slot *sl, const bool *vary, int nloc)
{
    const struct mdl_model *m = g->m;
    bool *ptrloc = tsr_arena_alloc(&g->ar, (size_t)(nloc + 1) * sizeof *ptrloc);
    bool *assigned = tsr_arena_alloc(&g->ar, (size_t)(nloc + 1) * sizeof *assigned);
    memset(ptrloc, 0, (size_t)(nloc + 1) * sizeof *ptrloc);
    memset(assigned, 0, (size_t)(nloc + 1) * sizeof *assigned);
    sg_assigned_locals(op->sem, op->nsem, assigned, nloc);
    sg_assigned_locals(sl->commit, sl->ncommit, assigned, nloc);
    for (int i = 0; i < op->tmpl.nparts; i++) {
        const struct mdl_tpart *p = &op->tmpl.parts[i];
        if (p->kind != MDL_TP_OPND || p->local < 0 || p->local >= nloc || assigned[p->local] || !vary[p->local])
            continue;
        const struct mdl_opnd *o = &m->opnds[p->opnd];
        bool all = o->nalt > 0;
        for (int a = 0; a < o->nalt; a++)
            all = all && o->alt[a].read;
        ptrloc[p->local] = all;
    }
    return ptrloc;
}

static bool expr_reads_ptr(const struct mdl_expr *e, const bool *ptrloc, const struct mdl_expr **inl, int nloc, int i)
{
    if (!e)
        return false;
    if (e->kind == MDL_E_LOCAL && e->index >= 0 && e->index < nloc)
        return e->index == i || (inl[e->index] && expr_reads_ptr(inl[e->index], ptrloc, inl, nloc, i));
    for (int k = 0; k < mdl_expr_arity(e); k++)
        if (expr_reads_ptr(e->a[k], ptrloc, inl, nloc, i))
            return true;
    return false;
}

static bool stmts_read_ptr(struct mdl_stmt **s, int n, const bool *ptrloc, const struct mdl_expr **inl, int nloc, int i)
{
    for (int k = 0; k < n; k++) {
        if (expr_reads_ptr(s[k]->e, ptrloc, inl, nloc, i) || expr_reads_ptr(s[k]->mask, ptrloc, inl, nloc, i) ||
            (s[k]->target && s[k]->target->kind != MDL_E_LOCAL && expr_reads_ptr(s[k]->target, ptrloc, inl, nloc, i)))
            return true;
        for (int j = 0; j < s[k]->nargs; j++)
            if (expr_reads_ptr(s[k]->args[j], ptrloc, inl, nloc, i))
                return true;
        if (stmts_read_ptr(s[k]->body, s[k]->nbody, ptrloc, inl, nloc, i) ||
            stmts_read_ptr(s[k]->elseb, s[k]->nelse, ptrloc, inl, nloc, i))
            return true;
    }
    return false;
}

/* Per local of slot sl: the slot's commit, compiled for some op, reads the operand lanes it points to (lp[i]; read
 * directly or through an inlined definition), or NULL when no local is so.  The compute stage of every other op
 * sets lp[i] to NULL, so that no path through the two switches reads it unset (g->zero_lu's reason). */
static const bool *commit_pointer_reads(struct sg *g, const struct mdl_slot *sl, const bool *fknown, const uint64_t *fkval)
{
    if (!sl->ncommit)
        return NULL;
    int nmax = 0;
    for (int j = 0; j < sl->nops; j++)
        if (sg_op_nloc(&g->m->ops[sl->ops[j]], sl) > nmax)
            nmax = sg_op_nloc(&g->m->ops[sl->ops[j]], sl);
    bool *zp = tsr_arena_alloc(&g->ar, (size_t)(nmax + 1) * sizeof *zp);
    memset(zp, 0, (size_t)(nmax + 1) * sizeof *zp);
    bool any = false;
    for (int j = 0; j < sl->nops; j++) {
        const struct mdl_op *op = &g->m->ops[sl->ops[j]];
        if (op->is_span)
            continue;
        int n = sg_op_nloc(op, sl);
        bool *vary = tsr_arena_alloc(&g->ar, (size_t)(n + 1) * sizeof *vary);
        sg_op_known(g, op, fknown, fkval);
        sg_analyse_op(g, op, sl, vary, n);
        bool *ptrloc = op_ptrloc(g, op, sl, vary, n);
        const struct mdl_expr **inl = tsr_arena_alloc(&g->ar, (size_t)(n + 1) * sizeof *inl);
        memset(inl, 0, (size_t)(n + 1) * sizeof *inl);
        sg_inline_locals(g, op, sl, ptrloc, inl, n);
        for (int i = 0; i < n; i++)
            if (ptrloc[i] && stmts_read_ptr(sl->commit, sl->ncommit, ptrloc, inl, n, i))
                any = zp[i] = true;
    }
    return any ? zp : NULL;
}

/* One op's case body: its compute (operands and sem) or its commit (the slot's commit in its scope), into
 * body, with temporaries numbered from 0 (so that identical bodies are identical text). */
static void emit_op(struct sg *g, const struct mdl_op *op, int slot, bool commit, const bool *fknown,
                    const uint64_t *fkval, struct tsr_buf *body)
{
    const struct mdl_model *m = g->m;
    const struct mdl_slot *sl = &m->slots[slot];
    if (op->is_span) {   /* (addition) X7: a slot a wide op takes runs nothing, not even its commit */
        struct tsr_buf *so = g->o;
        g->o = body;
        int n = sg_op_nloc(op, sl);
        for (int i = 0; !commit && g->zero_lu && i < n; i++)   /* the other ops' commits read them (never here) */
            if (g->zero_lu[i])
                sg_line(g, "lu_%d[%d] = 0;", slot, i);
        sg_line(g, "break;   /* taken by the wide op of slot %s */", m->slots[m->ops[op->span_of].slot].name);
        g->o = so;
        return;
    }
    int nloc = sg_op_nloc(op, sl);
    bool *vary = tsr_arena_alloc(&g->ar, (size_t)(nloc + 1) * sizeof *vary);
    struct tsr_buf *save_o = g->o;
    int save_ind = g->ind, save_tmp = g->ntmp;
    g->o = body;
    g->ntmp = 0;
    sg_op_known(g, op, fknown, fkval);
    sg_analyse_op(g, op, sl, vary, nloc);
    bool *ptrloc = op_ptrloc(g, op, sl, vary, nloc);
    g->ptrloc = ptrloc;
    const struct mdl_expr **inl = tsr_arena_alloc(&g->ar, (size_t)(nloc + 1) * sizeof *inl);
    sg_inline_locals(g, op, sl, ptrloc, inl, nloc);
    g->inl = inl;
    struct sg_guard *gd = tsr_arena_alloc(&g->ar, (size_t)(nloc + 1) * sizeof *gd);
    sg_guard_locals(g, op, sl, ptrloc, inl, gd, nloc);
    g->gd = commit ? NULL : gd;
    g->lp = sg_fmt(g, "lp_%d", slot);
    g->chk = commit ? "0" : "1";
    g->op = op;
    g->slot = slot;
    g->vary = vary;
    g->nloc = nloc;
    g->lv = sg_fmt(g, "lv_%d", slot);
    g->lu = sg_fmt(g, "lu_%d", slot);
    g->altv = sg_fmt(g, "alt_%d", slot);
    g->mask = NULL;
    if (!commit) {
        bool *need = tsr_arena_alloc(&g->ar, (size_t)(nloc + 1) * sizeof *need);
        sg_need_init_op(g, op, sl, need, nloc);
        for (int i = 0; i < nloc; i++)
            if (need[i] && !ptrloc[i]) {
                if (vary[i])
                    sg_line(g, "memset(%s[%d], 0, sizeof %s[%d]);", g->lv, i, g->lv, i);
                else
                    sg_line(g, "%s[%d] = 0;", g->lu, i);
            }
        for (int i = 0; g->zero_lp && i < nloc; i++)   /* another op's commit reads its lanes through lp[i] */
            if (g->zero_lp[i] && !ptrloc[i])
                sg_line(g, "%s[%d] = NULL; /* read by another op's commit (never on this path) */", g->lp, i);
        for (int i = 0; g->zero_lu && i < nloc; i++)   /* this op keeps it elsewhere (lv, lp, inlined) */
            if (g->zero_lu[i] && (vary[i] || ptrloc[i] || inl[i]) && !(need[i] && !ptrloc[i] && !vary[i]))
                sg_line(g, "%s[%d] = 0; /* read by another op's commit (never on this path) */", g->lu, i);
        sg_bind_operands(g);
        sg_stmts(g, op->sem, op->nsem);
    } else {
        sg_stmts(g, sl->commit, sl->ncommit);
    }
    sg_line(g, "break;");
    g->o = save_o;
    g->ind = save_ind;
    g->ntmp = save_tmp;
}

/* The switch over the ops of a slot, identical case bodies merged. */
static void emit_slot_switch(struct sg *g, int k, bool commit, const bool *fknown, const uint64_t *fkval)
{
    const struct mdl_model *m = g->m;
    const struct mdl_slot *sl = &m->slots[k];
    struct tsr_buf *bodies = calloc((size_t)sl->nops + 1, sizeof *bodies);
    bool *done = calloc((size_t)sl->nops + 1, sizeof *done);
    g->zero_lu = commit ? NULL : sg_commit_uniform_reads(g, sl, fknown, fkval);
    g->zero_lp = commit ? NULL : commit_pointer_reads(g, sl, fknown, fkval);
    sg_line(g, "/* slot %s: %s */", sl->name, commit ? "commit" : "compute");
    sg_line(g, "switch (I->op[%d]) {", k);
    g->ind++;
    for (int j = 0; j < sl->nops; j++)
        emit_op(g, &m->ops[sl->ops[j]], k, commit, fknown, fkval, &bodies[j]);
    for (int j = 0; j < sl->nops; j++) {
        if (done[j])
            continue;
        for (int j2 = j; j2 < sl->nops; j2++) {
            if (done[j2] || bodies[j2].len != bodies[j].len || memcmp(bodies[j2].data, bodies[j].data, bodies[j].len))
                continue;
            done[j2] = true;
            sg_line(g, "case %d: /* %s */", sl->ops[j2], m->ops[sl->ops[j2]].name);
        }
        if (sl->ops[j] >= 0 && m->ops[sl->ops[j]].is_span) {   /* `break;` alone */
            sg_line(g, "{");
            tsr_buf_append(g->o, bodies[j].data, bodies[j].len);
            sg_line(g, "}");
            continue;
        }
        const char *args;
        int part = sg_part(g, &bodies[j], g->ind, sg_fmt(g, "slot %s, %s: %s", sl->name, commit ? "commit" : "compute",
                                                          m->ops[sl->ops[j]].name), &args);
        sg_line(g, "if ((rc = sim_part_%d(S, I, pc%s%s)) != TSR_SIM_OK) goto out;", part, g->jarg, args);
        sg_line(g, "break;");
    }
    sg_line(g, "default: { rc = tsr_sim_error(&S->core, pc, \"no operation in slot %s at 0x%%08\" PRIx32, pc); "
            "goto out; }", sl->name);
    g->zero_lu = NULL;
    g->zero_lp = NULL;
    g->ind--;
    sg_line(g, "}");
    for (int j = 0; j < sl->nops; j++)
        tsr_buf_free(&bodies[j]);
    free(bodies);
    free(done);
}

/* The C condition that the op of *I in slot k is one of that slot's (an op index the description has, declared for
 * slot k): the check before an op runs (sim_exec) and the decode cache's once per bundle (sim_ops_ok). */
static const char *slot_ok(struct sg *g, int k)
{
    return sg_fmt(g, "I->op[%d] < %d && sim_op_slot[I->op[%d]] == %d", k, g->m->nops, k, k);
}

static void emit_format(struct sg *g, int fi)
{
    const struct mdl_model *m = g->m;
    const struct mdl_format *f = &m->formats[fi];
    bool *fknown = tsr_arena_alloc(&g->ar, (size_t)(m->nfields + 1) * sizeof *fknown);
    uint64_t *fkval = tsr_arena_alloc(&g->ar, (size_t)(m->nfields + 1) * sizeof *fkval);
    memset(g->known, 0, (size_t)m->nfields * sizeof *g->known);
    sg_learn_fields(g, f->selector);
    memcpy(fknown, g->known, (size_t)m->nfields * sizeof *fknown);
    memcpy(fkval, g->kval, (size_t)m->nfields * sizeof *fkval);
    sg_line(g, "case %d: { /* format %s */", fi, f->name);
    g->ind++;
    /* the slots' locals: values (lv), uniform values (lu), pointers to operand lanes (lp) and their
     * buffers (lb), chosen operand alternatives (alt) */
    for (int i = 0; i < f->nslots; i++) {
        int k = f->slots[i];
        const struct mdl_slot *sl = &m->slots[k];
        int n = 1;
        for (int j = 0; j < sl->nops; j++) {
            int x = sg_op_nloc(&m->ops[sl->ops[j]], sl);
            if (x > n)
                n = x;
        }
        sg_line(g, "uint32_t lv_%d[%d][%d], lu_%d[%d], lb_%d[%d][%d];", k, n, g->L, k, n, k, n, g->L);
        sg_line(g, "const uint32_t *lp_%d[%d];", k, n);
        sg_line(g, "int alt_%d[%d] = {0};", k, n);
        sg_line(g, "(void)lv_%d;", k);
        sg_line(g, "(void)lu_%d;", k);
        sg_line(g, "(void)lb_%d;", k);
        sg_line(g, "(void)lp_%d;", k);
        sg_line(g, "(void)alt_%d;", k);
    }
    sg_line(g, "uint64_t attrs_any = 0;");
    sg_line(g, "(void)attrs_any;");
    /* every op in its slot before any runs; a bundle of the decode cache had it checked once (sim_ops_ok) */
    sg_line(g, "if (!checked) {");
    for (int i = 0; i < f->nslots; i++) {
        int k = f->slots[i];
        sg_line(g, "    if (!(%s)) { rc = tsr_sim_error(&S->core, pc, \"no operation in slot %s at 0x%%08\" PRIx32, pc); "
                "goto out; }", slot_ok(g, k), m->slots[k].name);
    }
    sg_line(g, "}");
    for (int i = 0; i < f->nslots; i++)
        sg_line(g, "attrs_any |= sim_op_attrs[I->op[%d]];", f->slots[i]);
    /* format scope */
    int nf = format_nloc(f);
    bool *vary = tsr_arena_alloc(&g->ar, (size_t)(nf + 1) * sizeof *vary);
    bool *need = tsr_arena_alloc(&g->ar, (size_t)(nf + 1) * sizeof *need);
    sg_analyse_format(g, f, vary, nf);
    sg_need_init_format(g, f, need, nf);
    sg_line(g, "uint32_t fv[%d][%d], fu[%d];", nf > 0 ? nf : 1, g->L, nf > 0 ? nf : 1);
    sg_line(g, "(void)fv;");
    sg_line(g, "(void)fu;");
    for (int i = 0; i < nf; i++)
        if (need[i])
            sg_line(g, vary[i] ? "memset(fv[%d], 0, sizeof fv[%d]);" : "fu[%d] = 0;", i, i);
    g->op = NULL;
    g->ptrloc = NULL;
    g->inl = NULL;
    g->gd = NULL;
    g->vary = vary;
    g->nloc = nf;
    g->lv = "fv";
    g->lu = "fu";
    g->altv = "NULL";
    g->mask = NULL;
    g->chk = "1";
    if (f->nsem) {
        sg_line(g, "/* format sem */");
        sg_stmts(g, f->sem, f->nsem);
    }
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < f->nslots; i++) {
            if (pass == 1 && m->slots[f->slots[i]].ncommit == 0)
                continue;
            emit_slot_switch(g, f->slots[i], pass == 1, fknown, fkval);
        }
    if (f->ncommit) {
        memcpy(g->known, fknown, (size_t)m->nfields * sizeof *fknown);
        memcpy(g->kval, fkval, (size_t)m->nfields * sizeof *fkval);
        g->op = NULL;
        g->ptrloc = NULL;
        g->inl = NULL;
        g->vary = vary;
        g->nloc = nf;
        g->lv = "fv";
        g->lu = "fu";
        g->altv = "NULL";
        g->mask = NULL;
        g->chk = "0";
        sg_line(g, "/* format commit */");
        sg_stmts(g, f->commit, f->ncommit);
    }
    sg_line(g, "break;");
    g->ind--;
    sg_line(g, "}");
}

/* The space access functions: sim_rd_N (read entries) and sim_wr_N (write entries). */
static void emit_spaces(struct sg *g)
{
    const struct mdl_model *m = g->m;
    const char *t = m->name;
    for (int sp = 0; sp < m->nspaces; sp++) {
        tsr_buf_printf(g->o, "__attribute__((unused)) static int sim_rd_%d(struct %s_sim *S, const struct %s_inst *I, uint32_t pc, int chk, uint32_t ta, "
                       "uint32_t mask, uint32_t *tb, const uint32_t **tp);\n", sp, t, t);
        tsr_buf_printf(g->o, "__attribute__((unused)) static int sim_wr_%d(struct %s_sim *S, const struct %s_inst *I, uint32_t pc, int chk, uint32_t ta, "
                       "const uint32_t *val, uint32_t mask);\n", sp, t, t);
    }
    /* operand functions: every (operand, attributes) an op binds */
    for (int i = 0; i < m->nops; i++)
        for (int k = 0; k < m->ops[i].tmpl.nparts; k++)
            if (m->ops[i].tmpl.parts[k].kind == MDL_TP_OPND && m->ops[i].tmpl.parts[k].local >= 0)
                sg_opnd_fn(g, m->ops[i].tmpl.parts[k].opnd, m->ops[i].attrs);
    for (int i = 0; i < g->nopfn; i++)
        tsr_buf_printf(g->o, "SIM_PART int sim_opnd_%d(struct %s_sim *S, const struct %s_inst *I, uint32_t pc%s, "
                       "const char *opname, int *alt, uint32_t *buf, const uint32_t **out);\n", i, t, t, g->jparm);
    g->ptrloc = NULL;
    g->inl = NULL;
    g->gd = NULL;
    for (int sp = 0; sp < m->nspaces; sp++) {
        memset(g->known, 0, (size_t)m->nfields * sizeof *g->known);
        g->op = NULL;
        g->nloc = 0;
        g->ntmp = 0;
        tsr_buf_printf(g->o, "\n/* space %s: reads */\nstatic int sim_rd_%d(struct %s_sim *S, const struct %s_inst *I, "
                       "uint32_t pc, int chk, uint32_t ta, uint32_t mask, uint32_t *tb, const uint32_t **tp)\n{\n",
                       m->spaces[sp].name, sp, t, t);
        sg_space_read_body(g, sp);
        tsr_buf_puts(g->o, "}\n");
        g->ntmp = 0;
        tsr_buf_printf(g->o, "\n/* space %s: writes */\nstatic int sim_wr_%d(struct %s_sim *S, const struct %s_inst *I, "
                       "uint32_t pc, int chk, uint32_t ta, const uint32_t *val, uint32_t mask)\n{\n",
                       m->spaces[sp].name, sp, t, t);
        sg_space_write_body(g, sp);
        tsr_buf_puts(g->o, "}\n");
    }
    memset(g->known, 0, (size_t)m->nfields * sizeof *g->known);
    g->chk = "1"; /* operands are read in the compute stage */
    for (int i = 0; i < g->nopfn; i++) {
        const struct mdl_opnd *o = &m->opnds[g->opfn[i].opnd];
        g->ntmp = 0;
        tsr_buf_printf(g->o, "\n/* operand %s (attributes 0x%" PRIx64 ") */\nSIM_PART int sim_opnd_%d(struct %s_sim *S, "
                       "const struct %s_inst *I, uint32_t pc%s, const char *opname, int *alt, uint32_t *buf, "
                       "const uint32_t **out)\n{\n%s",
                       o->inst_name ? o->inst_name : o->name, g->opfn[i].attrs, i, t, t, g->jparm,
                       g->m->nfwds ? "    (void)J;\n" : "");
        sg_opnd_body(g, i);
        tsr_buf_puts(g->o, "}\n");
    }
    tsr_buf_puts(g->o, "\n");
}

static void emit_exec(struct sg *g)
{
    const struct mdl_model *m = g->m;
    const char *t = m->name;
    struct tsr_buf *save = g->o, exec = {0}, parts = {0};
    g->o = &exec;
    g->parts = &parts;
    /* one function, called by <t>_sim_exec (checked false), the step (the decode cache's mark) and the descriptor's
     * exec: inlined or cloned per caller it would be two or three copies of the instruction set's code */
    tsr_buf_printf(g->o,
        "/* Executes *I at pc (<t>_sim_exec).  checked: every op of *I is known to be one of its slot's (sim_ops_ok),\n"
        " * so that the per-slot checks before the first op runs are skipped. */\n"
        "static SIM_ONE int sim_exec(struct %s_sim *S, const struct %s_inst *I, bool checked)\n{\n", t, t);
    g->ind = 1;
    sg_line(g, "(void)checked;");
    sg_line(g, "const uint32_t pc = S->%s;", m->states[m->pc_state].name);
    sg_line(g, "int rc = TSR_SIM_OK;");
    sg_line(g, "if (S->core.halted)");
    sg_line(g, "    return TSR_SIM_HALTED;");
    sg_line(g, "tsr_sim_bundle_begin(&S->core);");
    sg_line(g, "S->in_bundle = 1;");
    sg_line(g, "S->nlog = 0;");
    sg_line(g, "S->nmemo = 0;");
    if (m->nfwds) {
        sg_line(g, "const uint64_t ic0 = S->core.icount; /* a bundle that fails before it counts: sim_fwd_fail */");
        sg_line(g, "struct sim_fj Jl;");
        sg_line(g, "const struct sim_fj *const J = &Jl;");
        sg_line(g, "(void)J;");
        sg_line(g, "sim_fwd_begin(S, pc, &Jl);");
    }
    sg_line(g, "switch (I->format) {");
    for (int f = 0; f < m->nformats; f++)
        emit_format(g, f);
    sg_line(g, "default: { rc = tsr_sim_error(&S->core, pc, \"no format matches the bundle at 0x%%08\" PRIx32, pc); "
            "goto out; }");
    sg_line(g, "}");
    sg_line(g, "{");
    sg_line(g, "    bool pcw = false;");
    sg_line(g, "    sim_apply(S, &pcw);");
    sg_line(g, "    if (!pcw && !S->core.npend && !S->core.req_jump && !S->core.req_halt && !S->core.trace) {");
    sg_line(g, "        S->core.icount++; /* the common case of tsr_sim_bundle_end */");
    sg_line(g, "        S->%s = pc + %du;", m->states[m->pc_state].name, m->pc_step);
    sg_line(g, "    } else {");
    sg_line(g, "        uint32_t npc = S->%s;", m->states[m->pc_state].name);
    sg_line(g, "        rc = tsr_sim_bundle_end(&S->core, &npc, pc, %du, pcw);", m->pc_step);
    sg_line(g, "        if (rc >= 0)");
    sg_line(g, "            S->%s = npc;", m->states[m->pc_state].name);
    sg_line(g, "    }");
    sg_line(g, "}");
    tsr_buf_puts(g->o, "out:\n");
    sg_line(g, "S->in_bundle = 0;");
    sg_line(g, "if (rc == TSR_SIM_STALL)");
    sg_line(g, "    S->core.stalls++;");
    sg_line(g, "if (rc != TSR_SIM_OK && rc != TSR_SIM_HALTED) {");
    sg_line(g, "    S->nlog = 0;");
    sg_line(g, "    tsr_sim_bundle_begin(&S->core);");
    if (m->nfwds) {
        sg_line(g, "    if (S->core.icount == ic0)");
        sg_line(g, "        sim_fwd_fail(S, pc);");
    }
    sg_line(g, "}");
    sg_line(g, "return rc;");
    tsr_buf_puts(g->o, "}\n\n");
    tsr_buf_printf(g->o, "int %s_sim_exec(struct %s_sim *S, const struct %s_inst *I)\n{\n"
                   "    return sim_exec(S, I, false);\n}\n\n", t, t, t);
    g->o = save;
    if (parts.len)
        tsr_buf_append(g->o, parts.data, parts.len);
    tsr_buf_append(g->o, exec.data, exec.len);
    tsr_buf_free(&parts);
    tsr_buf_free(&exec);
    g->parts = NULL;
}

static void emit_step(struct sg *g)
{
    const struct mdl_model *m = g->m;
    const char *t = m->name, *pcn = m->states[m->pc_state].name;
    int W = m->word_bits / 32;
    bool hooks = m->nhooks > 0;
    tsr_buf_printf(g->o,
        "/* Control hooks through the generic interface: hook index TSR_HOOK_READY / TSR_HOOK_RETIRE. */\n"
        "static int sim_ctl_hook(struct %s_sim *S, int which, const struct %s_inst *I, const uint32_t *w)\n{\n"
        "    if (S->hookfns) /* the generic interface gets the bundle's words */\n"
        "        return S->hookfns->call(S->hookfns->ctx, which, TSR_HOOK_STMT, w, %d, NULL, %s);\n",
        t, t, m->word_bits / 32, g->all);
    if (hooks)
        tsr_buf_printf(g->o, "    return which == TSR_HOOK_READY ? %s_hook_ready(S, I) : %s_hook_retire(S, I);\n", t, t);
    else
        tsr_buf_puts(g->o, "    (void)which;\n    (void)I;\n    (void)w;\n    return 0;\n");
    tsr_buf_puts(g->o, "}\n\n");
    tsr_buf_printf(g->o,
        "/* Whether every op of *I is one of its slot's, in a format of the description: what sim_exec checks slot by\n"
        " * slot before any op runs (then it skips the checks: done once per bundle of the decode cache). */\n"
        "static bool sim_ops_ok(const struct %s_inst *I)\n{\n    switch (I->format) {\n", t);
    for (int fi = 0; fi < m->nformats; fi++) {
        const struct mdl_format *f = &m->formats[fi];
        tsr_buf_printf(g->o, "    case %d:\n        return true", fi);
        for (int i = 0; i < f->nslots; i++)
            tsr_buf_printf(g->o, " &&\n               %s", slot_ok(g, f->slots[i]));
        tsr_buf_puts(g->o, ";\n");
    }
    tsr_buf_puts(g->o, "    default:\n        return false;\n    }\n}\n\n");
    tsr_buf_printf(g->o,
        "/* The decoded bundle at byte address pc (cached per program), or NULL with a report; *checked: sim_ops_ok\n"
        " * holds for it (a bundle of the cache).  Instruction i of the program is at pc i * %d (pc_step) and is\n"
        " * words[i * %d .. i * %d + %d) (nwords per instruction). */\n"
        "static const struct %s_inst *sim_fetch(struct %s_sim *S, const uint32_t *words, size_t nwords, uint32_t pc,\n"
        "                                       struct %s_inst *tmp, bool *checked)\n{\n"
        "    *checked = false;\n"
        "    if (pc %% %du != 0) {\n"
        "        tsr_sim_error(&S->core, pc, \"pc 0x%%08\" PRIx32 \" is not a multiple of pc_step (%d)\", pc);\n"
        "        return NULL;\n    }\n"
        "    const size_t i = pc / %du;\n"
        "    if (i >= nwords / %du) {\n"
        "        tsr_sim_error(&S->core, pc, \"pc 0x%%08\" PRIx32 \" is outside the program (%%zu words)\", pc, nwords);\n"
        "        return NULL;\n    }\n"
        "    const uint32_t *w = words + i * %du;\n"
        "    if (S->dc_words != words || S->dc_n != nwords) {\n"
        "        free(S->dc);\n        free(S->dc_state);\n"
        "        size_t n = nwords / %du + 1;\n"
        "        S->dc = malloc(n * sizeof *S->dc);\n        S->dc_state = calloc(n, 1);\n"
        "        S->dc_words = words;\n        S->dc_n = nwords;\n"
        "        if (!S->dc || !S->dc_state) {\n            free(S->dc);\n            free(S->dc_state);\n"
        "            S->dc = NULL;\n            S->dc_state = NULL;\n            S->dc_words = NULL;\n        }\n    }\n"
        "    if (!S->dc) {\n        %s_decode(w, tmp);\n        return tmp;\n    }\n"
        "    if (!S->dc_state[i]) {\n        %s_decode(w, &S->dc[i]);\n"
        "        S->dc_state[i] = sim_ops_ok(&S->dc[i]) ? 2 : 1;\n    }\n"
        "    *checked = S->dc_state[i] == 2;\n"
        "    return &S->dc[i];\n}\n\n",
        m->pc_step, W, W, W, t, t, t, m->pc_step, m->pc_step, m->pc_step, W, W, W, t, t);
    tsr_buf_printf(g->o,
        "int %s_sim_step(struct %s_sim *S, const uint32_t *words, size_t nwords)\n{\n"
        "    if (S->core.halted)\n        return TSR_SIM_HALTED;\n"
        "    const uint32_t pc = S->%s;\n    struct %s_inst tmp;\n"
        "%s"
        "    bool checked;\n"
        "    const struct %s_inst *I = sim_fetch(S, words, nwords, pc, &tmp, &checked);\n"
        "    if (!I)\n        return TSR_SIM_ERROR;\n"
        "    const uint32_t *w = words + (size_t)(pc / %du) * %du; /* the bundle's words (sim_fetch checked pc) */\n"
        "    int r = sim_ctl_hook(S, TSR_HOOK_READY, I, w);\n"
        "    if (r > 0) {\n        S->core.stalls++;\n        return TSR_SIM_STALL;\n    }\n"
        "    if (r < 0)\n        return tsr_sim_error(&S->core, pc, \"hook ready failed at 0x%%08\" PRIx32, pc);\n"
        "    if (S->core.trace)\n        tsr_sim_trace_bundle(&S->core, pc, w);\n"
        "    if (S->core.flags & TSR_SIM_F_RULES) { /* the description's rules, in issue order */\n"
        "        r = tsr_sim_rules_step(&S->core, w, pc, (size_t)(pc / %du) + 1 == nwords / %du);\n"
        "        if (r < 0)\n            return r;\n    }\n"
        "    int rc = sim_exec(S, I, checked);\n"
        "    if (rc == TSR_SIM_OK || rc == TSR_SIM_HALTED) {\n"
        "        if (rc == TSR_SIM_HALTED && S->core.rules)\n            tsr_sim_rules_reset(&S->core); /* the program ended */\n"
        "        r = sim_ctl_hook(S, TSR_HOOK_RETIRE, I, w);\n"
        "        if (r < 0)\n            return tsr_sim_error(&S->core, pc, \"hook retire failed at 0x%%08\" PRIx32, pc);\n"
        "    } else if (rc == TSR_SIM_STALL && S->core.trace)\n        tsr_sim_trace_note(&S->core, \"-> stall\");\n"
        "    return rc;\n}\n\n",
        t, t, pcn, t,
        m->fall_off_halt ? sg_fmt(g, /* `fall_off halt`: the program ends after its last instruction */
                                  "    if (pc == (uint32_t)(nwords / %du) * %du && S->core.npend == 0) {\n"
                                  "        S->core.halted = true;\n        if (S->core.rules)\n"
                                  "            tsr_sim_rules_reset(&S->core);\n        return TSR_SIM_HALTED;\n    }\n",
                                  W, m->pc_step) : "",
        t, m->pc_step, W, m->pc_step, W);
    tsr_buf_printf(g->o,
        "int %s_sim_run(struct %s_sim *S, const uint32_t *words, size_t nwords, uint64_t max_steps)\n{\n"
        "    for (uint64_t i = 0; i < max_steps; i++) {\n"
        "        int rc = %s_sim_step(S, words, nwords);\n"
        "        if (rc == TSR_SIM_HALTED || rc < 0)\n            return rc;\n    }\n"
        "    return TSR_SIM_OK;\n}\n\n", t, t, t);
}

/* exec takes fields from a caller: the fields the simulator reads in an index it does not check (sg_read_state: its
 * range keeps it in bounds when fields hold values within their widths) are masked to their widths. */
static const char *fidx_masks(struct sg *g)
{
    const char *r = "";
    for (int f = 0; f < g->m->nfields; f++)
        if (g->fidx[f])
            r = sg_fmt(g, "%s    I.f[%d] &= 0x%" PRIx64 "u; /* an index the simulator does not check */\n", r, f,
                       g->m->fields[f].width >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << g->m->fields[f].width) - 1);
    return r;
}

/* The number of fields the simulator reads (g->fread). */
static int nread_fields(const struct sg *g)
{
    int n = 0;
    for (int f = 0; f < g->m->nfields; f++)
        n += g->fread[f];
    return n;
}

/* exec's copy of the caller's uint64_t fields into the narrow struct.  When the simulator reads at most 3/4 of
 * them (g->fread; the others are never read: derived fields, fields its ops fix, fields no semantics reads), the
 * fields it reads, one line each: 2 instructions a field (the Mali GP description reads 34 of its 60: 50
 * instructions a bundle fewer than the vectors).  Else all of them, 8 at a time in vectors (about 1.4
 * instructions a field; the scalar loop took about 5; a description that reads all its 40 fields took 18 more
 * one by one). */
static const char *copy_fields(struct sg *g)
{
    const struct mdl_model *m = g->m;
    const char *t = m->name, *r = "";
    if (nread_fields(g) * 4 > m->nfields * 3)
        return sg_fmt(g,
            "    { /* the caller's uint64_t fields to the narrow field type, eight at a time */\n"
            "        typedef uint64_t dx_w __attribute__((vector_size(64)));\n"
            "        typedef %s_field_t dx_n __attribute__((vector_size(8 * sizeof(%s_field_t))));\n"
            "        int f = 0;\n"
            "        for (; f + 8 <= %d; f += 8) {\n"
            "            dx_w w;\n            memcpy(&w, fields + f, sizeof w);\n"
            "            const dx_n n = __builtin_convertvector(w, dx_n);\n"
            "            memcpy(I.f + f, &n, sizeof n);\n        }\n"
            "        for (; f < %d; f++)\n            I.f[f] = (%s_field_t)fields[f];\n    }\n",
            t, t, m->nfields, m->nfields, t);
    for (int f = 0; f < m->nfields; f++)
        if (g->fread[f])
            r = sg_fmt(g, "%s    I.f[%d] = (%s_field_t)fields[%d];\n", r, f, t, f);
    return r;
}

static void emit_desc(struct sg *g)
{
    const struct mdl_model *m = g->m;
    const char *t = m->name;
    struct tsr_buf *o = g->o;
    tsr_buf_printf(o,
        "static void d_init(void *s) { %s_sim_init(s); }\n"
        "static void d_fini(void *s) { %s_sim_fini(s); }\n"
        "static int d_decode(const uint32_t *w, int *format, int *ops, uint64_t *fields)\n{\n"
        "    struct %s_inst I;\n    memset(&I, 0, sizeof I);\n    int r = %s_decode(w, &I);\n"
        "    *format = I.format == TSR_NO_FORMAT ? -1 : (int)I.format;\n"
        "    for (int k = 0; k < %d; k++)\n        ops[k] = I.op[k] == TSR_NO_OP ? -1 : (int)I.op[k];\n"
        "    for (int f = 0; f < %d; f++)   /* derived fields are not stored in f[] */\n        fields[f] = %s_field(&I, (unsigned)f);\n    return r;\n}\n"
        "static int d_exec(void *s, int format, const int *ops, const uint64_t *fields)\n{\n"
        "    struct %s_inst I; /* every member the simulator reads is set below (it reads %d of the %d fields) */\n"
        "    memset(I.ignored, 0, sizeof I.ignored);\n"
        "    I.format = format < 0 || format >= %d ? TSR_NO_FORMAT : (unsigned)format;\n"
        "    for (int k = 0; k < %d; k++)\n        I.op[k] = ops[k] < 0 || ops[k] >= %d ? TSR_NO_OP : (unsigned)ops[k];\n"
        "    (void)fields;\n"
        "%s"
        "%s"
        "    return sim_exec(s, &I, false);\n}\n"
        "static int d_step(void *s, const uint32_t *w, size_t n) { return %s_sim_step(s, w, n); }\n"
        "static uint32_t *d_state(void *s, int st, int e) { return sim_state(s, st, e); }\n"
        "static int64_t *d_wtime(void *s, int st, int e) { return sim_wtime(s, st, e); }\n"
        "static struct tsr_sim_ctl *d_ctl(void *s) { return &((struct %s_sim *)s)->core; }\n"
        "static void d_set_hooks(void *s, const struct tsr_sim_hooks *h) { ((struct %s_sim *)s)->hookfns = h; }\n\n",
        t, t, t, t, m->nslots, m->nfields, t, t, nread_fields(g), m->nfields, m->nformats, m->nslots, m->nops,
        copy_fields(g), fidx_masks(g), t, t, t);
    sg_emit_io_tables(g);   /* outputs, print formats, spaces (emit_sim_io.c) */
    sg_emit_io_funcs(g);
    sg_fwd_desc_tables(g);
    tsr_buf_printf(o,
        "const struct tsr_sim_desc %s_sim_desc = {\n"
        "    .name = \"%s\", .lanes = %d, .nstates = %d, .nslots = %d, .nfields = %d, .nformats = %d, .nhooks = %d,\n"
        "    .bundle_words = %d, .pc_step = %du, .sim_size = sizeof(struct %s_sim),\n"
        "    .init = d_init, .fini = d_fini, .decode = d_decode, .exec = d_exec, .step = d_step,\n"
        "    .state = d_state, .wtime = d_wtime, .ctl = d_ctl, .set_hooks = d_set_hooks,\n"
        "    .state_names = sim_state_names, .state_count = sim_state_count, .state_vec = sim_state_vec,\n%s%s%s};\n",
        t, t, mdl_sim_lanes(m), m->nstates, m->nslots, m->nfields, m->nformats, m->nhooks, m->word_bits / 32, m->pc_step, t,
        m->vec4 ? "    .comps = 4, /* the lanes are the components of vec4 values */\n" : "", sg_io_desc_members(g),
        sg_fwd_desc_members(g));
}

int gen_sim(const struct mdl_model *m, struct tsr_buf *out, struct tsr_diag *d)
{
    if (sg_check_names(m, d))
        return -1;
    struct sg g;
    memset(&g, 0, sizeof g);
    g.m = m;
    g.d = d;
    g.L = mdl_sim_lanes(m);
    g.P = m->name;
    struct tsr_buf body = {0};
    g.o = &body;
    g.all = sg_fmt(&g, "0x%" PRIx32 "u", tsr_sim_all_lanes(mdl_sim_lanes(m)));
    char P[64];
    sg_upper(P, m->name, sizeof P);
    g.UP = sg_fmt(&g, "%s", P);

    tsr_buf_printf(out, "/* Generated by mdlc from %s. Do not edit. */\n", m->path ? m->path : "?");
    tsr_buf_printf(out, "#include <inttypes.h>\n#include <stdbool.h>\n#include <stdlib.h>\n#include <string.h>\n\n"
                   "#include \"bits.h\"\n#include \"sem.h\"\n#include \"target.h\"\n#include \"%s.h\"\n\n", m->name);
    /* The op bodies of <t>_sim_exec are functions (sg_part), so that no compiled function is the size of the
     * instruction set: clang with AddressSanitizer and libFuzzer's coverage spends most of a simulator's compile
     * time on such a function.  In those builds (sem.h's TSR_SEM_NO_FORCED_INLINE) they stay functions;
     * elsewhere they and the write log's sim_log are always inlined: the one function of before, at the same
     * speed (gcc -O2 otherwise keeps sim_log out of line).  The operand functions (sim_opnd_N) are SIM_PART too:
     * inlined where an op binds the operand, so that the call, its out-parameters and the copy of a returned
     * pointer go (about 130 instructions a bundle on a description of 10 such operands). */
    tsr_buf_puts(out, "#ifdef TSR_SEM_NO_FORCED_INLINE\n#define SIM_PART static __attribute__((noinline))\n"
                 "#define SIM_HOT static inline\n#else\n#define SIM_PART static inline __attribute__((always_inline))\n"
                 "#define SIM_HOT static inline __attribute__((always_inline))\n#endif\n"
                 "#if defined(__GNUC__) && !defined(__clang__)\n#define SIM_ONE __attribute__((noinline, noclone))\n"
                 "#else\n#define SIM_ONE __attribute__((noinline))\n#endif\n\n");
    g.known = tsr_arena_alloc(&g.ar, (size_t)(m->nfields + 1) * sizeof *g.known);
    g.fread = tsr_arena_alloc(&g.ar, (size_t)(m->nfields + 1) * sizeof *g.fread);
    memset(g.fread, 0, (size_t)(m->nfields + 1) * sizeof *g.fread);
    g.fidx = tsr_arena_alloc(&g.ar, (size_t)(m->nfields + 1) * sizeof *g.fidx);
    memset(g.fidx, 0, (size_t)(m->nfields + 1) * sizeof *g.fidx);
    g.kval = tsr_arena_alloc(&g.ar, (size_t)(m->nfields + 1) * sizeof *g.kval);
    g.vec_ok = mdl_sim_lanes(m) >= 4 && mdl_sim_lanes(m) % 4 == 0;
    /* the ring slots of the forwards' ages (struct sim_fj, emit_sim_fwd.c) go to the op and operand functions */
    g.jparm = m->nfwds ? ", const struct sim_fj *J" : "";
    g.jarg = m->nfwds ? ", J" : "";
    sg_emit_support(&g);
    emit_spaces(&g);
    emit_exec(&g);
    emit_step(&g);
    emit_desc(&g);
    int rc = g.err ? -1 : 0;
    if (!rc)
        tsr_buf_append(out, body.data, body.len);
    tsr_buf_free(&body);
    tsr_arena_free_all(&g.ar);
    return rc;
}
