/* The simulator emitter's compiler of semantics, statements: assignments to locals, operands, state and
 * spaces, masked and conditional blocks, hook calls and loops of one scope (an op with its slot's commit, or
 * a format) to C, over the expression compiler of emit_sim_sem.c.  The rules it implements are those of the
 * evaluator (mdl/eval.h); the shape of the emitted code is described in gen/emit_sim.h. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bits.h"
#include "emit_sim.h"
#include "emit_util.h"
#include "eval.h"
#include "sem.h"

/* ---- statements ------------------------------------------------------------------------------------- */

static void assign_local(struct sg *g, int i, struct sv v, struct mdl_loc loc)
{
    if (i < 0 || i >= g->nloc) {
        sg_error(g, loc, "local %d out of range", i);
        return;
    }
    if (!g->vary[i]) {
        if (v.vary || g->mask)
            sg_error(g, loc, "internal error: uniform local assigned a varying value");
        sg_line(g, "%s[%d] = %s;", g->lu, i, v.t);
        return;
    }
    /* through a restrict pointer (so the loop vectorises without alias checks) unless the value reads the
     * local itself */
    const char *dst = sg_fmt(g, "%s[%d]", g->lv, i);
    if (sg_vt(g, v)) {
        sg_store(g, dst, v, g->mask);
        return;
    }
    if (strstr(v.t, dst)) {
        if (!g->mask)
            sg_line(g, LOOP "%s[l] = %s;", g->L, dst, v.t);
        else
            sg_line(g, LOOP "%s[l] = (%s & sim_bit[l]) ? %s : %s[l];", g->L, dst, g->mask, v.t, dst);
        return;
    }
    if ((v.vary && v.vec) || sg_vt(g, v)) {
        sg_store(g, dst, v, g->mask);
        return;
    }
    const char *d = sg_tmp(g, "d");
    sg_line(g, "uint32_t *restrict %s = %s;", d, dst);
    if (!g->mask)
        sg_line(g, LOOP "%s[l] = %s;", g->L, d, v.t);
    else
        sg_line(g, LOOP "%s[l] = (%s & sim_bit[l]) ? %s : %s[l];", g->L, d, g->mask, v.t, d);
}

/* The instantiated operand bound to local i of the current op, or -1. */
static int bound_opnd(struct sg *g, int i)
{
    if (!g->op)
        return -1;
    for (int k = 0; k < g->op->tmpl.nparts; k++)
        if (g->op->tmpl.parts[k].kind == MDL_TP_OPND && g->op->tmpl.parts[k].local == i)
            return g->op->tmpl.parts[k].opnd;
    return -1;
}

static void write_operand(struct sg *g, const struct mdl_stmt *s, struct sv v)
{
    int o = bound_opnd(g, s->local);
    if (o < 0) {
        const char *ln = g->op && s->local >= 0 && s->local < g->op->nlocals && g->op->local_names
                         ? g->op->local_names[s->local] : "?";
        fail(g, sg_fmt(g, "tsr_sim_error(&S->core, pc, \"op %s has no operand bound to %s at 0x%%08\" PRIx32, pc)",
                       g->op ? g->op->name : "-", ln));
        return;
    }
    const struct mdl_opnd *op = &g->m->opnds[o];
    const char *val = sg_vec(g, v);
    sg_line(g, "switch (%s[%d]) {", g->altv, s->local);
    for (int k = 0; k < op->nalt; k++) {
        const struct mdl_opnd_alt *alt = &op->alt[k];
        sg_line(g, "case %d: {", k);
        g->ind++;
        const char *save = g->mask;
        if (alt->wmask) { /* X11 `write PLACE mask e`: the components (lanes) of e's set bits, none: no write */
            const char *mk = sg_tmp(g, "mk");
            sg_line(g, "const uint32_t %s = %s & (uint32_t)(%s);", mk, M(g), sg_uni(g, sg_expr(g, alt->wmask)));
            sg_line(g, "if (%s) {", mk);
            g->ind++;
            g->mask = mk;
        }
        if (alt->wspace >= 0) {
            sg_space_write(g, alt->wspace, sg_uni(g, sg_expr(g, alt->waddr)), val);
        } else if (alt->wstate >= 0) {
            const char *idx = alt->windex ? sg_uni(g, sg_expr(g, alt->windex)) : NULL;
            sg_state_write(g, alt->wstate, idx, V(sg_fmt(g, "%s[l]", val), val));
        } else {
            fail(g, sg_fmt(g, "tsr_sim_error(&S->core, pc, \"operand %s has no write target at 0x%%08\" PRIx32, pc)",
                           op->inst_name ? op->inst_name : op->name));
        }
        if (alt->wmask) {
            g->mask = save;
            g->ind--;
            sg_line(g, "}");
        }
        sg_line(g, "break;");
        g->ind--;
        sg_line(g, "}");
    }
    sg_line(g, "default: break;");
    sg_line(g, "}");
}

/* A lane mask (a C variable) of the lanes of the current mask where e holds, computed without materialising
 * boolean vectors where the structure allows: uniform parts of && || ! ?: decide with C ifs (and skip the
 * rest), lane-wise parts combine as masks.  Laziness as sg_expr (mdl/eval.h). */
static const char *mask_expr(struct sg *g, const struct mdl_expr *e)
{
    uint32_t k;
    if (sg_fold(g, e, &k)) {
        const char *t = sg_tmp(g, "m");
        sg_line(g, "const uint32_t %s = %s;", t, k ? M(g) : "0u");
        return t;
    }
    if (!sg_vary(g, e, g->vary, g->nloc) || mdl_expr_has_effects(g->m, e)) {
        /* uniform, or effects (keep sg_expr's evaluation order exactly) */
        return sg_mask(g, sg_expr(g, e));
    }
    if (e->kind == MDL_E_BIN && (e->op == MDL_OP_LAND || e->op == MDL_OP_LOR)) {
        bool and = e->op == MDL_OP_LAND;
        const char *t = sg_tmp(g, "m");
        if (!sg_vary(g, e->a[0], g->vary, g->nloc)) {
            struct sv a = sg_expr(g, e->a[0]);
            sg_line(g, "uint32_t %s;", t);
            sg_line(g, "if (%s(%s)) {", and ? "" : "!", a.t);
            g->ind++;
            const char *mb = mask_expr(g, e->a[1]);
            sg_line(g, "%s = %s;", t, mb);
            g->ind--;
            sg_line(g, "} else {");
            sg_line(g, "    %s = %s;", t, and ? "0u" : M(g));
            sg_line(g, "}");
            return t;
        }
        const char *ma = mask_expr(g, e->a[0]);
        const char *mb = mask_expr(g, e->a[1]);
        sg_line(g, "const uint32_t %s = %s %s %s;", t, ma, and ? "&" : "|", mb);
        return t;
    }
    if (e->kind == MDL_E_UN && e->op == '!') {
        const char *ma = mask_expr(g, e->a[0]), *t = sg_tmp(g, "m");
        sg_line(g, "const uint32_t %s = %s & ~%s;", t, M(g), ma);
        return t;
    }
    if (e->kind == MDL_E_COND && !sg_vary(g, e->a[0], g->vary, g->nloc)) {
        struct sv c = sg_expr(g, e->a[0]);
        const char *t = sg_tmp(g, "m");
        sg_line(g, "uint32_t %s;", t);
        sg_line(g, "if (%s) {", c.t);
        g->ind++;
        const char *ma = mask_expr(g, e->a[1]);
        sg_line(g, "%s = %s;", t, ma);
        g->ind--;
        sg_line(g, "} else {");
        g->ind++;
        const char *mb = mask_expr(g, e->a[2]);
        sg_line(g, "%s = %s;", t, mb);
        g->ind--;
        sg_line(g, "}");
        return t;
    }
    if (e->kind == MDL_E_CAST && e->type != MDL_T_F16 && e->a[0]->type != MDL_T_F16)
        return mask_expr(g, e->a[0]);  /* reinterpreting casts and bool(): the same lanes are non-zero */
    if (e->kind == MDL_E_CALL && e->index == MDL_B_LANE && e->nargs == 2) {
        struct sv v = sg_expr(g, e); /* uniform */
        return sg_mask(g, v);
    }
    return sg_mask(g, sg_expr(g, e));
}

/* Computes e into the array dst (all lanes): a condition on a uniform value whose arms need statements
 * becomes a C if with each arm stored straight into dst (no temporary, no copy). */
static void into(struct sg *g, const struct mdl_expr *e, const char *dst)
{
    uint32_t k;
    while (e->kind == MDL_E_CAST && e->type != MDL_T_BOOL && e->type != MDL_T_F16 && e->a[0]->type != MDL_T_F16 &&
           !sg_cse_entry(g, e))
        e = e->a[0]; /* reinterpreting casts keep the bits */
    if (e->kind == MDL_E_COND && !sg_fold(g, e->a[0], &k) && !sg_vary(g, e->a[0], g->vary, g->nloc) &&
        sg_vary(g, e, g->vary, g->nloc) && !sg_cse_entry(g, e)) {
        struct sv c = sg_expr(g, e->a[0]);
        sg_line(g, "if (%s) {", c.t);
        g->ind++;
        into(g, e->a[1], dst);
        g->ind--;
        sg_line(g, "} else {");
        g->ind++;
        into(g, e->a[2], dst);
        g->ind--;
        sg_line(g, "}");
        return;
    }
    sg_store(g, dst, sg_expr(g, e), NULL);
}

/* X11 `PLACE = e mask m;`: the write runs under the lanes (components) of the current mask and m's set bits, and
 * not at all when none is left (the evaluator's rule, mdl/eval.c ev_wmask); wmask_close ends it. */
static void wmask_open(struct sg *g, const struct mdl_expr *m)
{
    const char *mk = sg_tmp(g, "mk");
    sg_line(g, "const uint32_t %s = %s & (uint32_t)(%s);", mk, M(g), sg_uni(g, sg_expr(g, m)));
    sg_line(g, "if (%s) {", mk);
    g->ind++;
    g->mask = mk;
}

static void wmask_close(struct sg *g, const char *save)
{
    g->mask = save;
    g->ind--;
    sg_line(g, "}");
}

/* `let local = e;` */
static void let(struct sg *g, const struct mdl_stmt *s)
{
    const struct mdl_expr *es[1] = {s->e};
    sg_open(g);
    sg_cse_begin(g, es, 1);
    if (!g->mask && s->local >= 0 && s->local < g->nloc && g->vary[s->local] &&
        (s->e->kind == MDL_E_COND || s->e->kind == MDL_E_CAST)) {
        into(g, s->e, sg_fmt(g, "%s[%d]", g->lv, s->local));
        sg_cse_end(g);
        sg_close(g);
        return;
    }
    struct sv v = sg_expr(g, s->e);
    assign_local(g, s->local, v, s->loc);
    sg_cse_end(g);
    sg_close(g);
}

static void stmt(struct sg *g, const struct mdl_stmt *s)
{
    const struct mdl_expr *es[18];
    int nes = 0;
    uint32_t k;
    switch (s->kind) {
    case MDL_S_LET: {
        if (g->inl && s->local >= 0 && s->local < g->nloc && g->inl[s->local] == s->e)
            return; /* computed where it is read */
        if (g->gd && s->local >= 0 && s->local < g->nloc && g->gd[s->local].let == s) {
            /* read only under a condition on fields: computed under it */
            const struct sg_guard *gd = &g->gd[s->local];
            if (sg_fold(g, gd->cond, &k)) {
                if (!k == gd->pol)
                    return;   /* never read */
                let(g, s);
                return;
            }
            sg_open(g);
            struct sv c = sg_expr(g, gd->cond);
            sg_line(g, "if (%s(%s)) {", gd->pol ? "" : "!", c.t);
            g->ind++;
            let(g, s);
            g->ind--;
            /* elsewhere a defined value that nothing observes (no read of indeterminate values) */
            if (g->vary[s->local])
                sg_line(g, "} else memset(%s[%d], 0, sizeof %s[%d]);", g->lv, s->local, g->lv, s->local);
            else
                sg_line(g, "} else %s[%d] = 0;", g->lu, s->local);
            sg_close(g);
            return;
        }
        let(g, s);
        return;
    }
    case MDL_S_ASSIGN: {
        const struct mdl_expr *t = s->target;
        if (g->inl && t->kind == MDL_E_LOCAL && t->index >= 0 && t->index < g->nloc && g->inl[t->index] == s->e)
            return; /* computed where it is read */
        if (t->kind == MDL_E_FWD) {   /* (addition) X6 */
            sg_fwd_write(g, s);
            return;
        }
        sg_open(g);
        es[nes++] = s->e;
        if ((t->kind == MDL_E_STATE || t->kind == MDL_E_SPACE) && t->a && t->a[0])
            es[nes++] = t->a[0];
        sg_cse_begin(g, es, nes);
        if (t->kind == MDL_E_LOCAL && !g->mask && t->index >= 0 && t->index < g->nloc && g->vary[t->index] &&
            !(g->ptrloc && g->ptrloc[t->index]) && (s->e->kind == MDL_E_COND || s->e->kind == MDL_E_CAST)) {
            into(g, s->e, sg_fmt(g, "%s[%d]", g->lv, t->index));
            sg_cse_end(g);
            sg_close(g);
            return;
        }
        struct sv v = sg_expr(g, s->e);
        const char *save = g->mask;
        if (s->mask)
            wmask_open(g, s->mask);
        if (t->kind == MDL_E_LOCAL) {
            assign_local(g, t->index, v, s->loc);
        } else if (t->kind == MDL_E_STATE) {
            const char *idx = g->m->states[t->index].count > 0 && t->a && t->a[0] ? sg_uni(g, sg_expr(g, t->a[0])) : NULL;
            sg_state_write(g, t->index, idx, v);
        } else if (t->kind == MDL_E_SPACE) {
            const char *val = sg_vec(g, v);
            sg_space_write(g, t->index, sg_uni(g, sg_expr(g, t->a[0])), val);
        } else {
            sg_error(g, s->loc, "bad assignment target");
        }
        if (s->mask)
            wmask_close(g, save);
        sg_cse_end(g);
        sg_close(g);
        return;
    }
    case MDL_S_WRITE: {
        sg_open(g);
        es[nes++] = s->e;
        sg_cse_begin(g, es, nes);
        struct sv v = sg_expr(g, s->e);
        const char *save = g->mask;
        if (s->mask)
            wmask_open(g, s->mask);
        write_operand(g, s, v);
        if (s->mask)
            wmask_close(g, save);
        sg_cse_end(g);
        sg_close(g);
        return;
    }
    case MDL_S_IF: {
        if (sg_fold(g, s->e, &k)) {
            if (k)
                sg_stmts(g, s->body, s->nbody);
            else
                sg_stmts(g, s->elseb, s->nelse);
            return;
        }
        sg_open(g);
        es[nes++] = s->e;
        sg_cse_begin(g, es, nes);
        struct sv c;
        const char *mt = NULL;
        if (sg_vary(g, s->e, g->vary, g->nloc)) {
            c = V("0u", NULL);
            mt = mask_expr(g, s->e);
        } else
            c = sg_expr(g, s->e);
        sg_cse_end(g);
        if (!c.vary) {
            sg_line(g, "if (%s) {", c.t);
            g->ind++;
            sg_stmts(g, s->body, s->nbody);
            g->ind--;
            if (s->nelse) {
                sg_line(g, "} else {");
                g->ind++;
                sg_stmts(g, s->elseb, s->nelse);
                g->ind--;
            }
            sg_line(g, "}");
        } else {
            const char *save = g->mask;
            const char *mf = NULL;
            if (s->nelse) {
                mf = sg_tmp(g, "m");
                sg_line(g, "const uint32_t %s = %s & ~%s;", mf, M(g), mt);
            }
            sg_line(g, "if (%s) {", mt);
            g->ind++;
            g->mask = mt;
            sg_stmts(g, s->body, s->nbody);
            g->mask = save;
            g->ind--;
            sg_line(g, "}");
            if (s->nelse) {
                sg_line(g, "if (%s) {", mf);
                g->ind++;
                g->mask = mf;
                sg_stmts(g, s->elseb, s->nelse);
                g->mask = save;
                g->ind--;
                sg_line(g, "}");
            }
        }
        sg_close(g);
        return;
    }
    case MDL_S_HOOK: {
        sg_open(g);
        for (int j = 0; j < s->nargs && nes < 16; j++)
            es[nes++] = s->args[j];
        sg_cse_begin(g, es, nes);
        const char **args = tsr_arena_alloc(&g->ar, sizeof *args * (size_t)(s->nargs + 1));
        for (int j = 0; j < s->nargs; j++)
            args[j] = sg_uni(g, sg_expr(g, s->args[j]));
        sg_cse_end(g);
        bool rv = s->hook >= 0 && s->hook < g->m->nhooks && g->m->hooks[s->hook].returns_value;
        if (rv)
            sg_line(g, "uint32_t hv[%d] = {0};", g->L);
        sg_hook_call(g, s->hook, "TSR_HOOK_STMT", args, s->nargs, rv ? "hv" : "NULL", NULL, NULL);
        sg_close(g);
        return;
    }
    case MDL_S_JUMP: case MDL_S_HALT: {
        uint64_t delay = 0;
        if (s->nargs > 0 && !sg_const_index(s->args[0], &delay)) {
            sg_error(g, s->loc, "the delay of %s must be a constant", s->kind == MDL_S_JUMP ? "jump" : "halt");
            return;
        }
        sg_open(g);
        if (s->kind == MDL_S_JUMP) {
            es[nes++] = s->e;
            sg_cse_begin(g, es, nes);
            const char *t = sg_uni(g, sg_expr(g, s->e));
            sg_cse_end(g);
            sg_line(g, "if ((rc = tsr_sim_request_jump(&S->core, pc, %s, %" PRIu64 ")) != 0) goto out;", t, delay);
        } else {
            sg_line(g, "if ((rc = tsr_sim_request_halt(&S->core, pc, %" PRIu64 ")) != 0) goto out;", delay);
        }
        sg_close(g);
        return;
    }
    case MDL_S_BLOCK:
        sg_stmts(g, s->body, s->nbody);
        return;
    case MDL_S_ABORT: {
        struct tsr_buf b = {0};
        gen_cstring(&b, s->msg ? s->msg : "");
        tsr_buf_puts(&b, "");   /* a terminated string even when empty */
        fail(g, sg_fmt(g, "tsr_sim_abort(&S->core, pc, %.*s)", (int)b.len, b.data));
        tsr_buf_free(&b);
        return;
    }
    }
    sg_error(g, s->loc, "unknown statement kind %d", (int)s->kind);
}

void sg_stmts(struct sg *g, struct mdl_stmt **s, int n)
{
    for (int i = 0; i < n; i++)
        stmt(g, s[i]);
}
