/* The simulator emitter's access to the machine: regfile reads with their range, latency and guard checks,
 * logged state writes, the per-space read/write functions (sim_rd_N / sim_wr_N), hook calls, and the operand
 * functions that choose an alternative and read its lanes (sim_opnd_N).  Rules: mdl/eval.h. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bits.h"
#include "emit_sim.h"
#include "eval.h"
#include "sem.h"

/* ---- state and space access ------------------------------------------------------------------------- */

static const char *hook_name(struct sg *g, int h)
{
    return h >= 0 && h < g->m->nhooks ? g->m->hooks[h].name : "?";
}

/* Emits a hook call; kind is a TSR_HOOK_* name; args uniform texts; v a C array or "NULL".  Guards report a
 * hazard on a positive answer, the others stall. */
void sg_hook_call(struct sg *g, int h, const char *kind, const char **args, int nargs, const char *v,
                      const char *guard_state, const char *guard_elem)
{
    sg_open(g);
    tsr_buf_printf(g->o, "%*suint32_t ha[%d] = {", 4 * g->ind, "", nargs > 0 ? nargs : 1);
    for (int i = 0; i < nargs; i++)
        tsr_buf_printf(g->o, "%s%s", i ? ", " : "", args[i]);
    tsr_buf_puts(g->o, nargs ? "};\n" : "0};\n");
    sg_line(g, "int hr = hk_%s(S, %s, ha, %s, %s);", hook_name(g, h), kind, v, M(g));
    sg_line(g, "if (hr < 0) { rc = tsr_sim_error(&S->core, pc, \"hook %s failed at 0x%%08\" PRIx32, pc); goto out; }",
            hook_name(g, h));
    if (guard_state)
        sg_line(g, "if (hr > 0 && (rc = tsr_sim_guard_hazard(&S->core, pc, \"%s\", (int)%s, \"%s\")) != 0) goto out;",
                guard_state, guard_elem, hook_name(g, h));
    else
        sg_line(g, "if (hr > 0) { rc = TSR_SIM_STALL; goto out; }");
    sg_close(g);
}

/* Checks of a read of regfile s at uniform index text idx: range, latency, guard (eval.c read_state). */
static void read_checks(struct sg *g, int s, const char *idx)
{
    const struct mdl_state *st = &g->m->states[s];
    sg_line(g, "if (%s >= %du) { rc = tsr_sim_error(&S->core, pc, \"%s index %%\" PRIu32 \" out of range (%d elements) "
            "at 0x%%08\" PRIx32, %s, pc); goto out; }", idx, st->count, st->name, st->count, idx);
    /* hazards concern the compute stage, where instructions read their inputs (mdl/eval.h) */
    const char *chk = g->chk ? g->chk : "1";
    if (!strcmp(chk, "0"))
        return;
    const char *and = !strcmp(chk, "1") ? "" : sg_fmt(g, "%s && ", chk);
    if (st->latency > 0 && g->defer)   /* (addition) X6: a value going into a forward, its hazard deferred */
        sg_line(g, "if (%s1) tsr_sim_defer_latency(&S->core, &%s, \"%s\", (int)%s, S->wt_%s[%s], %d);", and, g->defer,
                st->name, idx, st->name, idx, st->latency);
    else if (st->latency > 0)
        sg_line(g, "if (%s(rc = tsr_sim_check_latency(&S->core, pc, \"%s\", (int)%s, S->wt_%s[%s], %d)) != 0) goto out;",
                and, st->name, idx, st->name, idx, st->latency);
    if (st->guard_elem >= 0 && st->guard_hook >= 0) {
        sg_line(g, "if (%s%s == %du)", and, idx, st->guard_elem);
        sg_hook_call(g, st->guard_hook, "TSR_HOOK_GUARD", NULL, 0, "NULL", st->name, idx);
    }
}

/* Reads state s at element text idx (NULL for scalars) after the checks; returns the value. */
static struct sv state_value(struct sg *g, int s, const char *idx)
{
    const struct mdl_state *st = &g->m->states[s];
    const char *base = idx ? sg_fmt(g, "S->%s[%s]", st->name, idx) : sg_fmt(g, "S->%s", st->name);
    if (st->vec)
        return VS(sg_fmt(g, "%s[l]", base), base);
    return U(base);
}

/* The fields e reads: g->fidx. */
static void mark_fields(struct sg *g, const struct mdl_expr *e)
{
    if (!e)
        return;
    if (e->kind == MDL_E_FIELD && e->index >= 0 && e->index < g->m->nfields && g->fidx)
        g->fidx[e->index] = true;
    for (int k = 0; k < mdl_expr_arity(e); k++)
        mark_fields(g, e->a[k]);
}

struct sv sg_read_state(struct sg *g, int s, const struct mdl_expr *index)
{
    const struct mdl_state *st = &g->m->states[s];
    if (st->count == 0)
        return state_value(g, s, NULL);
    uint64_t k = 0;
    bool isconst = !index || sg_const_index(index, &k);
    if (isconst && k < (uint64_t)st->count && st->latency == 0 &&
        !(st->guard_elem >= 0 && k == (uint64_t)st->guard_elem))
        return state_value(g, s, sg_fmt(g, "%" PRIu64, k));
    const char *i = index ? sg_uni(g, sg_expr(g, index)) : "0u";
    if (index && st->latency == 0 && st->guard_elem < 0 && mdl_index_bound(g->m, index, &k) && k < (uint64_t)st->count)
    {
        /* an index its range keeps within the regfile (fields hold values within their widths): no check, and
           no effect (mdl_expr_has_effects says the same) */
        mark_fields(g, index);
        return state_value(g, s, sg_fmt(g, "(%s)", i));
    }
    const char *t = sg_tmp(g, "ti");
    sg_line(g, "const uint32_t %s = %s;", t, i);
    read_checks(g, s, t);
    return state_value(g, s, t);
}

static const char *range_cond(struct sg *g, const char *a, uint32_t lo, uint32_t hi)
{
    if (lo == hi)
        return sg_fmt(g, "%s == %" PRIu32 "u", a, lo);
    if (lo == 0 && hi == 0xffffffffu)
        return "1";
    if (lo == 0)
        return sg_fmt(g, "%s <= %" PRIu32 "u", a, hi);
    if (hi == 0xffffffffu)
        return sg_fmt(g, "%s >= %" PRIu32 "u", a, lo);
    return sg_fmt(g, "%s >= %" PRIu32 "u && %s <= %" PRIu32 "u", a, lo, a, hi);
}

/* Body of `static int sim_rd_N(S, I, pc, ta, mask, tb, tp)`: reads space N at address ta; *tp = the lanes
 * (pointing into the state, a memo entry, or tb). */
void sg_space_read_body(struct sg *g, int sp_i)
{
    const struct mdl_space *sp = &g->m->spaces[sp_i];
    g->code = "ta";
    g->mask = "mask";
    g->chk = "chk";
    g->ind = 1;
    sg_line(g, "int rc = 0;");
    sg_line(g, "(void)chk;");
    sg_line(g, "*tp = tb;");
    sg_line(g, "(void)I;");
    sg_line(g, "(void)mask;");
    bool first = true;
    for (int i = 0; i < sp->nent; i++) {
        const struct mdl_sentry *en = &sp->ent[i];
        if (en->write)
            continue;
        sg_line(g, "%sif (%s) {", first ? "" : "else ", range_cond(g, "ta", en->lo, en->hi));
        first = false;
        g->ind++;
        switch (en->kind) {
        case MDL_SE_NONE:
            sg_line(g, "memset(tb, 0, %d * sizeof *tb);", g->L);
            break;
        case MDL_SE_STATE: {
            struct sv v = sg_read_state(g, en->state, en->index);
            if (v.vec)
                sg_line(g, "*tp = %s;", v.vec);
            else
                sg_line(g, LOOP "tb[l] = %s;", g->L, v.t);
            break;
        }
        case MDL_SE_HOOK: {
            sg_line(g, "uint32_t *mv = sim_memo_find(S, %d, ta);", sp_i);
            sg_line(g, "if (mv) {");
            sg_line(g, "    *tp = mv;");
            sg_line(g, "    return 0;");
            sg_line(g, "}");
            const char **args = tsr_arena_alloc(&g->ar, sizeof *args * (size_t)(en->nargs + 1));
            for (int j = 0; j < en->nargs; j++)
                args[j] = sg_uni(g, sg_expr(g, en->args[j]));
            sg_line(g, "mv = sim_memo_new(S, %d, ta);", sp_i);
            sg_line(g, "if (!mv) { rc = tsr_sim_error(&S->core, pc, \"too many peripheral reads in one bundle at "
                    "0x%%08\" PRIx32, pc); goto out; }");
            sg_hook_call(g, en->hook, "TSR_HOOK_READ", args, en->nargs, "mv", NULL, NULL);
            sg_line(g, "*tp = mv;");
            break;
        }
        }
        g->ind--;
        sg_line(g, "}");
    }
    sg_line(g, "%s{ rc = tsr_sim_error(&S->core, pc, \"space %s has no read entry for address %%\" PRIu32 \" at "
            "0x%%08\" PRIx32, ta, pc); goto out; }", first ? "" : "else ", sp->name);
    tsr_buf_puts(g->o, "out:\n");
    sg_line(g, "return rc;");
    g->code = NULL;
    g->mask = NULL;
}

struct sv sg_space_read(struct sg *g, int sp_i, const char *addr)
{
    const char *b = sg_tmp(g, "tb"), *p = sg_tmp(g, "tp");
    sg_line(g, "uint32_t %s[%d];", b, g->L);
    sg_line(g, "const uint32_t *%s;", p);
    sg_line(g, "if ((rc = sim_rd_%d(S, I, pc, %s, %s, %s, %s, &%s)) != 0) goto out;", sp_i, g->chk ? g->chk : "1", addr,
            M(g), b, p);
    struct sv v = V(sg_fmt(g, "%s[l]", p), p);
    v.spbuf = b;
    return v;
}

/* Logs a write of v to state s element idx (uniform text; NULL for scalars), with the range check. */
void sg_state_write(struct sg *g, int s, const char *idx, struct sv v)
{
    const struct mdl_state *st = &g->m->states[s];
    const char *dst, *wt = "NULL";
    if (st->count > 0) {
        if (!idx)
            idx = "0u";
        const char *t = sg_tmp(g, "ti");
        sg_line(g, "const uint32_t %s = %s;", t, idx);
        sg_line(g, "if (%s >= %du) { rc = tsr_sim_error(&S->core, pc, \"%s index %%\" PRIu32 \" out of range (%d "
                "elements) at 0x%%08\" PRIx32, %s, pc); goto out; }", t, st->count, st->name, st->count, t);
        dst = st->vec ? sg_fmt(g, "S->%s[%s]", st->name, t) : sg_fmt(g, "&S->%s[%s]", st->name, t);
        if (st->latency > 0)
            wt = sg_fmt(g, "&S->wt_%s[%s]", st->name, t);
        idx = t;
    } else {
        dst = st->vec ? sg_fmt(g, "S->%s", st->name) : sg_fmt(g, "&S->%s", st->name);
        idx = "0";
    }
    const char *w = sg_tmp(g, "w");
    sg_line(g, "struct %s_sim_wlog *%s = sim_log(S, %s, %s, %d, (int)%s, %d, %s);", g->P, w, dst, wt, s, idx,
            st->vec ? g->L : 1, M(g));
    sg_line(g, "if (!%s) { rc = tsr_sim_error(&S->core, pc, \"too many writes in one bundle at 0x%%08\" PRIx32, pc); "
            "goto out; }", w);
    if (st->vec)
        if (v.vary && !v.vec && !sg_vt(g, v)) {
            const char *d = sg_tmp(g, "d");
            sg_line(g, "uint32_t *restrict %s = %s->v;", d, w);
            sg_line(g, LOOP "%s[l] = %s;", g->L, d, v.t);
        } else
            sg_store(g, sg_fmt(g, "%s->v", w), v, NULL);
    else
        sg_line(g, "%s->v[0] = %s;", w, sg_uni(g, v));
}

/* Body of `static int sim_wr_N(S, I, pc, ta, val, mask)`: writes val to space N at address ta. */
void sg_space_write_body(struct sg *g, int sp_i)
{
    const struct mdl_space *sp = &g->m->spaces[sp_i];
    g->code = "ta";
    g->value = "val";
    g->mask = "mask";
    g->chk = "chk";
    g->ind = 1;
    sg_line(g, "int rc = 0;");
    sg_line(g, "(void)chk;");
    sg_line(g, "(void)I;");
    sg_line(g, "(void)val;");
    sg_line(g, "(void)mask;");
    bool first = true;
    for (int i = 0; i < sp->nent; i++) {
        const struct mdl_sentry *en = &sp->ent[i];
        if (!en->write)
            continue;
        sg_line(g, "%sif (%s) {", first ? "" : "else ", range_cond(g, "ta", en->lo, en->hi));
        first = false;
        g->ind++;
        switch (en->kind) {
        case MDL_SE_NONE:
            sg_line(g, "/* none */");
            break;
        case MDL_SE_STATE: {
            const char *idx = en->index ? sg_uni(g, sg_expr(g, en->index)) : NULL;
            struct sv v = en->value ? sg_expr(g, en->value) : VS("val[l]", "val");
            sg_state_write(g, en->state, idx, v);
            break;
        }
        case MDL_SE_HOOK: {
            const char **args = tsr_arena_alloc(&g->ar, sizeof *args * (size_t)(en->nargs + 1));
            for (int j = 0; j < en->nargs; j++)
                args[j] = sg_uni(g, sg_expr(g, en->args[j]));
            sg_line(g, "uint32_t hv[%d];", g->L);
            sg_line(g, LOOP "hv[l] = (mask >> l & 1) ? val[l] : 0u;", g->L);
            sg_hook_call(g, en->hook, "TSR_HOOK_WRITE", args, en->nargs, "hv", NULL, NULL);
            break;
        }
        }
        g->ind--;
        sg_line(g, "}");
    }
    sg_line(g, "%s{ rc = tsr_sim_error(&S->core, pc, \"space %s has no write entry for address %%\" PRIu32 \" at "
            "0x%%08\" PRIx32, ta, pc); goto out; }", first ? "" : "else ", sp->name);
    tsr_buf_puts(g->o, "out:\n");
    sg_line(g, "return rc;");
    g->code = NULL;
    g->value = NULL;
    g->mask = NULL;
}

void sg_space_write(struct sg *g, int sp_i, const char *addr, const char *val)
{
    sg_line(g, "if ((rc = sim_wr_%d(S, I, pc, %s, %s, %s, %s)) != 0) goto out;", sp_i, g->chk ? g->chk : "1", addr, val,
            M(g));
}

/* The operand functions: one per (instantiated operand, attribute set of the binding op), since the
 * alternatives' reads may test attr().  sg_opnd_fn finds (or adds) the function of op's part. */
static uint64_t attrs_used(const struct mdl_expr *e)
{
    if (!e)
        return 0;
    uint64_t m = e->kind == MDL_E_ATTR && e->index >= 0 && e->index < 64 ? (uint64_t)1 << e->index : 0;
    for (int i = 0; i < mdl_expr_arity(e); i++)
        m |= attrs_used(e->a[i]);
    return m;
}

int sg_opnd_fn(struct sg *g, int opnd, uint64_t attrs)
{
    const struct mdl_opnd *o = &g->m->opnds[opnd];
    uint64_t used = 0;
    for (int a = 0; a < o->nalt; a++) {
        used |= attrs_used(o->alt[a].read) | attrs_used(o->alt[a].waddr) | attrs_used(o->alt[a].windex);
        for (int c = 0; c < o->alt[a].ncond; c++)
            used |= attrs_used(o->alt[a].cond[c].e);
    }
    attrs &= used;
    for (int i = 0; i < g->nopfn; i++)
        if (g->opfn[i].opnd == opnd && g->opfn[i].attrs == attrs)
            return i;
    if (g->nopfn == g->capopfn) {
        int cap = g->capopfn ? 2 * g->capopfn : 32;
        struct sg_opfn *n = tsr_arena_alloc(&g->ar, (size_t)cap * sizeof *n);
        if (g->nopfn)
            memcpy(n, g->opfn, (size_t)g->nopfn * sizeof *n);
        g->opfn = n;
        g->capopfn = cap;
    }
    g->opfn[g->nopfn].opnd = opnd;
    g->opfn[g->nopfn].attrs = attrs;
    return g->nopfn++;
}

/* Body of `static int sim_opnd_N(S, I, pc, opname, alt, out)`: chooses the first alternative whose
 * conditions hold (*alt), reads its value into out[lanes] (all lanes). */
/* True if e reads a field (the operand function's `I`). */
static bool reads_field(const struct mdl_expr *e)
{
    if (!e)
        return false;
    if (e->kind == MDL_E_FIELD)
        return true;
    for (int i = 0; i < mdl_expr_arity(e); i++)
        if (reads_field(e->a[i]))
            return true;
    return false;
}

void sg_opnd_body(struct sg *g, int fn)
{
    const struct mdl_opnd *o = &g->m->opnds[g->opfn[fn].opnd];
    struct mdl_op rep;
    memset(&rep, 0, sizeof rep);
    rep.attrs = g->opfn[fn].attrs;
    rep.name = "?";
    g->op = &rep;
    g->nloc = 0;
    g->mask = NULL;
    g->ind = 1;
    sg_line(g, "int rc = 0, k = -1;");
    sg_line(g, "*out = buf;");
    bool fields = false;   /* an operand of no field (a description's fixed register): I is unused */
    for (int a = 0; a < o->nalt && !fields; a++) {
        const struct mdl_opnd_alt *al = &o->alt[a];
        fields = reads_field(al->read);   /* the body tests conditions and reads; writes are inline */
        for (int j = 0; j < al->ncond && !fields; j++)
            fields = reads_field(al->cond[j].e);
    }
    if (!fields)
        sg_line(g, "(void)I;");
    for (int a = 0; a < o->nalt; a++) {
        sg_line(g, "if (k < 0) {");
        g->ind++;
        const char *c = "1";
        for (int j = 0; j < o->alt[a].ncond; j++)
            c = sg_fmt(g, "%s && %s", c, sg_uni(g, sg_expr(g, o->alt[a].cond[j].e)));
        sg_line(g, "if (%s) k = %d;", c, a);
        g->ind--;
        sg_line(g, "}");
    }
    sg_line(g, "if (k < 0) { rc = tsr_sim_error(&S->core, pc, \"no alternative of operand %s matches at "
            "0x%%08\" PRIx32 \" (op %%s)\", pc, opname); goto out; }", o->inst_name ? o->inst_name : o->name);
    sg_line(g, "*alt = k;");
    sg_line(g, "switch (k) {");
    for (int a = 0; a < o->nalt; a++) {
        if (!o->alt[a].read)
            continue;
        sg_line(g, "case %d: {", a);
        g->ind++;
        const struct mdl_expr *re = o->alt[a].read;
        sg_cse_begin(g, &re, 1);
        struct sv v = sg_expr(g, re);
        if (v.vary && v.vec && v.stable) {
            sg_line(g, "*out = %s;", v.vec);
        } else if (v.vary && v.vec && v.spbuf) {
            sg_line(g, "if (%s != %s)", v.vec, v.spbuf);
            sg_line(g, "    *out = %s;", v.vec);
            sg_line(g, "else");
            sg_line(g, "    memcpy(buf, %s, %d * sizeof *buf);", v.spbuf, g->L);
        } else {
            sg_store(g, "buf", v, NULL);
        }
        sg_cse_end(g);
        sg_line(g, "break;");
        g->ind--;
        sg_line(g, "}");
    }
    /* an alternative without `read` gives 0 (the evaluator leaves the local at its start value, 0); every path
     * then writes buf, which gcc's -Wmaybe-uninitialized needs to see */
    sg_line(g, "default: memset(buf, 0, %d * sizeof *buf); break;", g->L);
    sg_line(g, "}");
    sg_line(g, "return rc;");
    /* the paths that left the switch early: an error (tsr_sim_error's TSR_SIM_ERROR, never 0) or a hook's answer;
     * said so, so that the compiler sees that a caller going on after 0 finds buf written */
    tsr_buf_puts(g->o, "out:\n");
    sg_line(g, "return rc ? rc : TSR_SIM_ERROR;");
    g->op = NULL;
}

void sg_bind_operands(struct sg *g)
{
    const struct mdl_op *op = g->op;
    for (int i = 0; i < op->tmpl.nparts; i++) {
        const struct mdl_tpart *p = &op->tmpl.parts[i];
        if (p->kind != MDL_TP_OPND || p->local < 0 || p->local >= g->nloc)
            continue;
        const struct mdl_opnd *o = &g->m->opnds[p->opnd];
        int fn = sg_opnd_fn(g, p->opnd, op->attrs);
        bool any = false;
        for (int a = 0; a < o->nalt; a++)
            any = any || o->alt[a].read;
        sg_line(g, "{ /* %s = %s */", op->local_names && p->local < op->nlocals ? op->local_names[p->local] : "?",
                o->inst_name ? o->inst_name : o->name);
        g->ind++;
        if (any && g->ptrloc && g->ptrloc[p->local]) {
            /* the buffer is lb_k (the operand's lanes when they are not in the state): the local arrays
             * lv_k never escape, so loops storing into them need no alias checks */
            sg_line(g, "if ((rc = sim_opnd_%d(S, I, pc%s, \"%s\", &%s[%d], lb_%d[%d], &%s[%d])) != 0) goto out;", fn,
                    g->jarg, op->name, g->altv, p->local, g->slot, p->local, g->lp, p->local);
        } else if (any && g->vary[p->local]) {
            sg_line(g, "const uint32_t *tp;");
            sg_line(g, "if ((rc = sim_opnd_%d(S, I, pc%s, \"%s\", &%s[%d], lb_%d[%d], &tp)) != 0) goto out;", fn, g->jarg, op->name,
                    g->altv, p->local, g->slot, p->local);
            sg_line(g, "memcpy(%s[%d], tp, sizeof %s[%d]);", g->lv, p->local, g->lv, p->local);
        } else {
            sg_line(g, "uint32_t tb[%d];", g->L);
            sg_line(g, "const uint32_t *tp;");
            sg_line(g, "if ((rc = sim_opnd_%d(S, I, pc%s, \"%s\", &%s[%d], tb, &tp)) != 0) goto out;", fn, g->jarg, op->name,
                    g->altv, p->local);
            if (any)
                sg_line(g, "%s[%d] = tp[0];", g->lu, p->local);
        }
        g->ind--;
        sg_line(g, "}");
    }
}
