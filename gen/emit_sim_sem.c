/* The simulator emitter's compiler of semantics: expressions and statements of one scope (an op with its
 * slot's commit, or a format) to C.  The rules it implements are those of the evaluator (mdl/eval.h);
 * the shape of the emitted code is described in gen/emit_sim.h. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bits.h"
#include "emit_sim.h"
#include "eval.h"
#include "sem.h"

/* ---- text helpers --------------------------------------------------------------------------------- */

char *sg_fmt(struct sg *g, const char *fmt, ...)
{
    va_list ap, aq;
    va_start(ap, fmt);
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = tsr_arena_alloc(&g->ar, (size_t)n + 1);
    vsnprintf(s, (size_t)n + 1, fmt, aq);
    va_end(aq);
    return s;
}

void sg_line(struct sg *g, const char *fmt, ...)
{
    for (int i = 0; i < g->ind; i++)
        tsr_buf_puts(g->o, "    ");
    size_t start = g->o->len;
    va_list ap;
    va_start(ap, fmt);
    tsr_buf_vprintf(g->o, fmt, ap);
    va_end(ap);
    /* C block structure, for the scope of common subexpressions: a line starting with '}' closes a block,
     * a line ending with '{' opens one */
    const char *t = g->o->data + start;
    size_t n = g->o->len - start;
    if (n && t[0] == '}' && g->nblk > 0)
        g->nblk--;
    if (n && t[n - 1] == '{' && g->nblk < (int)(sizeof g->blk / sizeof g->blk[0]))
        g->blk[g->nblk++] = ++g->blkseq;
    tsr_buf_puts(g->o, "\n");
}

int sg_error(struct sg *g, struct mdl_loc loc, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    g->err = 1;
    return tsr_diag_error(g->d, loc.file, (unsigned)(loc.line > 0 ? loc.line : 0),
                          (unsigned)(loc.col > 0 ? loc.col : 0), "%s", msg);
}

const char *sg_tmp(struct sg *g, const char *prefix)
{
    return sg_fmt(g, "%s%d", prefix, g->ntmp++);
}

static struct sv U(const char *t) { return (struct sv){t, NULL, false, false, NULL, NULL}; }
static struct sv V(const char *t, const char *vec) { return (struct sv){t, vec, true, false, NULL, NULL}; }
static struct sv VS(const char *t, const char *vec) { return (struct sv){t, vec, true, true, NULL, NULL}; }
/* A varying value with a vector form. */
static struct sv VV(const char *t, const char *vt) { return (struct sv){t, NULL, true, false, NULL, vt}; }

static const char *M(struct sg *g) { return g->mask ? g->mask : g->all; }

/* Emits `LOOP body` : for (int l = 0; l < L; l++) body */
#define LOOP "for (int l = 0; l < %d; l++) "

static void open(struct sg *g) { sg_line(g, "{"); g->ind++; }
static void close_(struct sg *g) { g->ind--; sg_line(g, "}"); }

/* The vector form of v, or NULL: an expression of type sim_v (4 lanes, GNU vector extension) for the lanes
 * 4q..4q+3 of v, evaluated in a loop over the chunks q; arrays load, uniform values broadcast. */
static const char *vt_of(struct sg *g, struct sv v)
{
    if (!g->vec_ok)
        return NULL;
    if (!v.vary)
        return sg_fmt(g, "SIM_VS(%s)", v.t);
    if (v.vt)
        return v.vt;
    if (v.vec)
        return sg_fmt(g, "SIM_VLD((%s) + 4 * q)", v.vec);
    return NULL;
}

#define QLOOP "for (int q = 0; q < %d; q++) "


/* Stores v into the array dst (all lanes, or the lanes of mask when not NULL): as a vector when v has a
 * vector form, else with a lane loop. */
static void store(struct sg *g, const char *dst, struct sv v, const char *mask)
{
    const char *vt = vt_of(g, v);
    if (!mask && v.vary && v.vec && !v.vt) {
        sg_line(g, "memcpy(%s, %s, %d * sizeof(uint32_t));", dst, v.vec, g->L);
    } else if (vt && !mask) {
        sg_line(g, QLOOP "SIM_VST((%s) + 4 * q, %s);", g->L / 4, dst, vt);
    } else if (vt) {
        sg_line(g, QLOOP "SIM_VST((%s) + 4 * q, SIM_VSEL(SIM_MVEC((%s) >> (4 * q)), %s, SIM_VLD((%s) + 4 * q)));",
                g->L / 4, dst, mask, vt, dst);
    } else if (!mask) {
        sg_line(g, LOOP "%s[l] = %s;", g->L, dst, v.t);
    } else {
        sg_line(g, LOOP "%s[l] = (%s & sim_bit[l]) ? %s : %s[l];", g->L, dst, mask, v.t, dst);
    }
}

/* An array holding v's lanes (materialised into a temporary if needed). */
static const char *vec_of(struct sg *g, struct sv v)
{
    if (v.vec)
        return v.vec;
    const char *t = sg_tmp(g, "tv");
    sg_line(g, "uint32_t %s[%d];", t, g->L);
    store(g, t, v, NULL);
    return t;
}

/* The uniform value of v: lane 0 if it varies (mdl/eval.h: indices etc. come from lane 0). */
static const char *uni(struct sg *g, struct sv v)
{
    if (!v.vary)
        return v.t;
    return sg_fmt(g, "%s[0]", vec_of(g, v));
}

/* A lane mask (uint32_t variable) of the lanes of the current mask where v is not zero. */
static const char *mask_of(struct sg *g, struct sv v)
{
    const char *t = sg_tmp(g, "m");
    if (!v.vary) {
        sg_line(g, "const uint32_t %s = (%s) ? %s : 0u;", t, v.t, M(g));
        return t;
    }
    const char *vt = vt_of(g, v);
    if (vt) {
        sg_line(g, "uint32_t %s = 0;", t);
        sg_line(g, QLOOP "%s |= SIM_VMASK(%s) << (4 * q);", g->L / 4, t, vt);
    } else {
        sg_line(g, "uint32_t %s = 0;", t);
        sg_line(g, LOOP "%s |= (uint32_t)-(int32_t)((%s) != 0) & sim_bit[l];", g->L, t, v.t);
    }
    if (g->mask)
        sg_line(g, "%s &= %s;", t, g->mask);
    return t;
}

/* True if a C text is a plain name, literal or array element (cheap to repeat inside a loop). */
static bool simple_text(const char *t)
{
    for (; *t; t++)
        if (!((*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z') || (*t >= '0' && *t <= '9') || *t == '_' ||
              *t == '[' || *t == ']' || *t == '.' || *t == '>' || *t == '-'))
            return false;
    return true;
}

/* No calls of out-of-line built-ins or tables (evaluating it unconditionally costs a few instructions). */
static bool cheap(const struct mdl_expr *e)
{
    if (!e)
        return true;
    if ((e->kind == MDL_E_CALL && e->index != MDL_B_ELEM) || e->kind == MDL_E_TABLE || e->kind == MDL_E_SPACE)
        return false;
    for (int i = 0; i < mdl_expr_arity(e); i++)
        if (!cheap(e->a[i]))
            return false;
    return true;
}

/* A uniform value used inside a lane loop: kept in a scalar first unless it is a plain name. */
static struct sv hoist(struct sg *g, struct sv v)
{
    if (v.vary || simple_text(v.t))
        return v;
    const char *t = sg_tmp(g, "h");
    sg_line(g, "const uint32_t %s = %s;", t, v.t);
    return U(t);
}

static void fail(struct sg *g, const char *call)
{
    sg_line(g, "{ rc = %s; goto out; }", call);
}

static bool const_index(const struct mdl_expr *e, uint64_t *v)
{
    if (e->kind == MDL_E_INT) {
        *v = e->ival;
        return true;
    }
    return mdl_const_eval(e, v) == 0;
}

/* ---- analyses ----------------------------------------------------------------------------------------- */

static bool ex_vary(const struct sg *g, const struct mdl_expr *e, const bool *vary, int nloc)
{
    if (!e)
        return false;
    switch (e->kind) {
    case MDL_E_INT: case MDL_E_FLOAT: case MDL_E_FIELD: case MDL_E_CODE: case MDL_E_ATTR:
        return false;
    case MDL_E_LOCAL:
        return e->index >= 0 && e->index < nloc && vary[e->index];
    case MDL_E_STATE:
        return g->m->states[e->index].vec;
    case MDL_E_SPACE: case MDL_E_VALUE:
        return true;
    case MDL_E_CALL:
        if (e->index == MDL_B_ELEM)
            return true;
        if (e->index == MDL_B_ALL || e->index == MDL_B_ANY || e->index == MDL_B_LANE)
            return false;
        break;
    default:
        break;
    }
    for (int i = 0; i < mdl_expr_arity(e); i++)
        if (ex_vary(g, e->a[i], vary, nloc))
            return true;
    return false;
}

static void set_vary(bool *vary, int nloc, int i, bool v, bool *changed)
{
    if (v && i >= 0 && i < nloc && !vary[i]) {
        vary[i] = true;
        *changed = true;
    }
}

static void an_stmts(const struct sg *g, struct mdl_stmt **s, int n, bool vmask, bool *vary, int nloc, bool *ch)
{
    for (int i = 0; i < n; i++) {
        const struct mdl_stmt *st = s[i];
        switch (st->kind) {
        case MDL_S_LET:
            set_vary(vary, nloc, st->local, vmask || ex_vary(g, st->e, vary, nloc), ch);
            break;
        case MDL_S_ASSIGN:
            if (st->target && st->target->kind == MDL_E_LOCAL)
                set_vary(vary, nloc, st->target->index, vmask || ex_vary(g, st->e, vary, nloc), ch);
            break;
        case MDL_S_IF: {
            bool c = vmask || ex_vary(g, st->e, vary, nloc);
            an_stmts(g, st->body, st->nbody, c, vary, nloc, ch);
            an_stmts(g, st->elseb, st->nelse, c, vary, nloc, ch);
            break;
        }
        case MDL_S_BLOCK:
            an_stmts(g, st->body, st->nbody, vmask, vary, nloc, ch);
            break;
        default:
            break;
        }
    }
}

void sg_analyse_op(struct sg *g, const struct mdl_op *op, const struct mdl_slot *sl, bool *vary, int nloc)
{
    memset(vary, 0, (size_t)nloc * sizeof *vary);
    bool ch = true;
    while (ch) {
        ch = false;
        for (int i = 0; i < op->tmpl.nparts; i++) {
            const struct mdl_tpart *p = &op->tmpl.parts[i];
            if (p->kind != MDL_TP_OPND || p->local < 0)
                continue;
            const struct mdl_opnd *o = &g->m->opnds[p->opnd];
            for (int k = 0; k < o->nalt; k++)
                set_vary(vary, nloc, p->local, ex_vary(g, o->alt[k].read, vary, nloc), &ch);
        }
        an_stmts(g, op->sem, op->nsem, false, vary, nloc, &ch);
        an_stmts(g, sl->commit, sl->ncommit, false, vary, nloc, &ch);
    }
}

void sg_analyse_format(struct sg *g, const struct mdl_format *f, bool *vary, int nloc)
{
    memset(vary, 0, (size_t)nloc * sizeof *vary);
    bool ch = true;
    while (ch) {
        ch = false;
        an_stmts(g, f->sem, f->nsem, false, vary, nloc, &ch);
        an_stmts(g, f->commit, f->ncommit, false, vary, nloc, &ch);
    }
}

static void di_expr(const struct mdl_expr *e, const bool *def, bool *need, int nloc)
{
    if (!e)
        return;
    if (e->kind == MDL_E_LOCAL && e->index >= 0 && e->index < nloc && !def[e->index])
        need[e->index] = true;
    for (int i = 0; i < mdl_expr_arity(e); i++)
        di_expr(e->a[i], def, need, nloc);
}

static void di_stmts(struct mdl_stmt **s, int n, bool top, bool *def, bool *need, int nloc)
{
    for (int i = 0; i < n; i++) {
        const struct mdl_stmt *st = s[i];
        di_expr(st->e, def, need, nloc);
        for (int j = 0; j < st->nargs; j++)
            di_expr(st->args[j], def, need, nloc);
        if (st->target && st->target->kind != MDL_E_LOCAL)
            di_expr(st->target, def, need, nloc);
        int assigned = st->kind == MDL_S_LET ? st->local
                     : st->kind == MDL_S_ASSIGN && st->target && st->target->kind == MDL_E_LOCAL ? st->target->index
                     : -1;
        if (st->kind == MDL_S_ASSIGN && assigned < 0 && st->target && st->target->kind == MDL_E_LOCAL)
            assigned = -1;
        if (top && assigned >= 0 && assigned < nloc)
            def[assigned] = true;
        if (st->kind == MDL_S_IF) {
            di_stmts(st->body, st->nbody, false, def, need, nloc);
            di_stmts(st->elseb, st->nelse, false, def, need, nloc);
        }
        if (st->kind == MDL_S_BLOCK)
            di_stmts(st->body, st->nbody, top, def, need, nloc);
    }
}

void sg_need_init_op(struct sg *g, const struct mdl_op *op, const struct mdl_slot *sl, bool *need, int nloc)
{
    bool *def = tsr_arena_alloc(&g->ar, (size_t)(nloc > 0 ? nloc : 1) * sizeof *def);
    memset(need, 0, (size_t)nloc * sizeof *need);
    for (int i = 0; i < op->tmpl.nparts; i++) {
        const struct mdl_tpart *p = &op->tmpl.parts[i];
        if (p->kind != MDL_TP_OPND || p->local < 0 || p->local >= nloc)
            continue;
        const struct mdl_opnd *o = &g->m->opnds[p->opnd];
        bool all = o->nalt > 0;
        for (int k = 0; k < o->nalt; k++)
            all = all && o->alt[k].read;
        if (all)
            def[p->local] = true;
    }
    di_stmts(op->sem, op->nsem, true, def, need, nloc);
    di_stmts(sl->commit, sl->ncommit, true, def, need, nloc);
}

void sg_need_init_format(struct sg *g, const struct mdl_format *f, bool *need, int nloc)
{
    bool *def = tsr_arena_alloc(&g->ar, (size_t)(nloc > 0 ? nloc : 1) * sizeof *def);
    memset(need, 0, (size_t)nloc * sizeof *need);
    di_stmts(f->sem, f->nsem, true, def, need, nloc);
    di_stmts(f->commit, f->ncommit, true, def, need, nloc);
}

static int max_local_expr(const struct mdl_expr *e)
{
    if (!e)
        return -1;
    int m = e->kind == MDL_E_LOCAL ? e->index : -1;
    for (int i = 0; i < mdl_expr_arity(e); i++) {
        int k = max_local_expr(e->a[i]);
        if (k > m)
            m = k;
    }
    return m;
}

int sg_max_local(struct mdl_stmt **s, int n)
{
    int m = -1;
    for (int i = 0; i < n; i++) {
        int k[6] = {s[i]->kind == MDL_S_LET || s[i]->kind == MDL_S_WRITE ? s[i]->local : -1,
                    max_local_expr(s[i]->e), max_local_expr(s[i]->target), sg_max_local(s[i]->body, s[i]->nbody),
                    sg_max_local(s[i]->elseb, s[i]->nelse), -1};
        for (int j = 0; j < s[i]->nargs; j++) {
            int a = max_local_expr(s[i]->args[j]);
            if (a > k[5])
                k[5] = a;
        }
        for (int j = 0; j < 6; j++)
            if (k[j] > m)
                m = k[j];
    }
    return m;
}

void sg_assigned_locals(struct mdl_stmt **s, int n, bool *assigned, int nloc)
{
    for (int i = 0; i < n; i++) {
        int k = s[i]->kind == MDL_S_LET ? s[i]->local
              : s[i]->kind == MDL_S_ASSIGN && s[i]->target && s[i]->target->kind == MDL_E_LOCAL ? s[i]->target->index
              : -1;
        if (k >= 0 && k < nloc)
            assigned[k] = true;
        sg_assigned_locals(s[i]->body, s[i]->nbody, assigned, nloc);
        sg_assigned_locals(s[i]->elseb, s[i]->nelse, assigned, nloc);
    }
}

static void count_assign(struct mdl_stmt **s, int n, int *cnt, int nloc)
{
    for (int i = 0; i < n; i++) {
        int k = s[i]->kind == MDL_S_LET ? s[i]->local
              : s[i]->kind == MDL_S_ASSIGN && s[i]->target && s[i]->target->kind == MDL_E_LOCAL ? s[i]->target->index
              : -1;
        if (k >= 0 && k < nloc)
            cnt[k]++;
        count_assign(s[i]->body, s[i]->nbody, cnt, nloc);
        count_assign(s[i]->elseb, s[i]->nelse, cnt, nloc);
    }
}

static bool reads_local(const struct mdl_expr *e, int i)
{
    if (!e)
        return false;
    if (e->kind == MDL_E_LOCAL && e->index == i)
        return true;
    for (int k = 0; k < mdl_expr_arity(e); k++)
        if (reads_local(e->a[k], i))
            return true;
    return false;
}

static bool stmts_read_local(struct mdl_stmt **s, int n, int i)
{
    for (int k = 0; k < n; k++) {
        if (reads_local(s[k]->e, i) || (s[k]->target && s[k]->target->kind != MDL_E_LOCAL && reads_local(s[k]->target, i)))
            return true;
        for (int j = 0; j < s[k]->nargs; j++)
            if (reads_local(s[k]->args[j], i))
                return true;
        if (stmts_read_local(s[k]->body, s[k]->nbody, i) || stmts_read_local(s[k]->elseb, s[k]->nelse, i))
            return true;
    }
    return false;
}

static bool cheap(const struct mdl_expr *e);

/* Every local e reads is an operand pointer or an already inlined local. */
static bool locals_ok(const struct mdl_expr *e, const bool *ptrloc, const struct mdl_expr **inl, int nloc)
{
    if (!e)
        return true;
    if (e->kind == MDL_E_LOCAL)
        return e->index >= 0 && e->index < nloc && (ptrloc[e->index] || inl[e->index]);
    for (int k = 0; k < mdl_expr_arity(e); k++)
        if (!locals_ok(e->a[k], ptrloc, inl, nloc))
            return false;
    return true;
}

void sg_inline_locals(struct sg *g, const struct mdl_op *op, const struct mdl_slot *sl, const bool *ptrloc,
                      const struct mdl_expr **inl, int nloc)
{
    int *cnt = tsr_arena_alloc(&g->ar, (size_t)(nloc + 1) * sizeof *cnt);
    count_assign(op->sem, op->nsem, cnt, nloc);
    count_assign(sl->commit, sl->ncommit, cnt, nloc);
    for (int i = 0; i < op->nsem; i++) {
        const struct mdl_stmt *st = op->sem[i];
        int k = st->kind == MDL_S_LET ? st->local
              : st->kind == MDL_S_ASSIGN && st->target && st->target->kind == MDL_E_LOCAL ? st->target->index : -1;
        if (k < 0 || k >= nloc || cnt[k] != 1 || ptrloc[k])
            continue;
        /* operand-bound locals are not candidates; nor locals read before this definition */
        bool bound = false;
        for (int p = 0; p < op->tmpl.nparts; p++)
            bound = bound || (op->tmpl.parts[p].kind == MDL_TP_OPND && op->tmpl.parts[p].local == k);
        if (bound || stmts_read_local(op->sem, i, k))
            continue;
        if (!cheap(st->e) || mdl_expr_has_effects(g->m, st->e) || !locals_ok(st->e, ptrloc, inl, nloc))
            continue;
        inl[k] = st->e;
    }
}

int sg_count_writes(struct mdl_stmt **s, int n)
{
    int c = 0;
    for (int i = 0; i < n; i++) {
        if (s[i]->kind == MDL_S_WRITE || (s[i]->kind == MDL_S_ASSIGN && s[i]->target &&
                                          s[i]->target->kind != MDL_E_LOCAL))
            c++;
        c += sg_count_writes(s[i]->body, s[i]->nbody) + sg_count_writes(s[i]->elseb, s[i]->nelse);
    }
    return c;
}

/* ---- state and space access ------------------------------------------------------------------------- */

static const char *hook_name(struct sg *g, int h)
{
    return h >= 0 && h < g->m->nhooks ? g->m->hooks[h].name : "?";
}

/* Emits a hook call; kind is a TSR_HOOK_* name; args uniform texts; v a C array or "NULL".  Guards report a
 * hazard on a positive answer, the others stall. */
static void hook_call(struct sg *g, int h, const char *kind, const char **args, int nargs, const char *v,
                      const char *guard_state, const char *guard_elem)
{
    open(g);
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
    close_(g);
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
    if (st->latency > 0)
        sg_line(g, "if (%s(rc = tsr_sim_check_latency(&S->core, pc, \"%s\", (int)%s, S->wt_%s[%s], %d)) != 0) goto out;",
                and, st->name, idx, st->name, idx, st->latency);
    if (st->guard_elem >= 0 && st->guard_hook >= 0) {
        sg_line(g, "if (%s%s == %du)", and, idx, st->guard_elem);
        hook_call(g, st->guard_hook, "TSR_HOOK_GUARD", NULL, 0, "NULL", st->name, idx);
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

static struct sv read_state(struct sg *g, int s, const struct mdl_expr *index)
{
    const struct mdl_state *st = &g->m->states[s];
    if (st->count == 0)
        return state_value(g, s, NULL);
    uint64_t k = 0;
    bool isconst = !index || const_index(index, &k);
    if (isconst && k < (uint64_t)st->count && st->latency == 0 &&
        !(st->guard_elem >= 0 && k == (uint64_t)st->guard_elem))
        return state_value(g, s, sg_fmt(g, "%" PRIu64, k));
    const char *i = index ? uni(g, sg_expr(g, index)) : "0u";
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
            struct sv v = read_state(g, en->state, en->index);
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
                args[j] = uni(g, sg_expr(g, en->args[j]));
            sg_line(g, "mv = sim_memo_new(S, %d, ta);", sp_i);
            sg_line(g, "if (!mv) { rc = tsr_sim_error(&S->core, pc, \"too many peripheral reads in one bundle at "
                    "0x%%08\" PRIx32, pc); goto out; }");
            hook_call(g, en->hook, "TSR_HOOK_READ", args, en->nargs, "mv", NULL, NULL);
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

static struct sv space_read(struct sg *g, int sp_i, const char *addr)
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
static void state_write(struct sg *g, int s, const char *idx, struct sv v)
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
        if (v.vary && !v.vec && !vt_of(g, v)) {
            const char *d = sg_tmp(g, "d");
            sg_line(g, "uint32_t *restrict %s = %s->v;", d, w);
            sg_line(g, LOOP "%s[l] = %s;", g->L, d, v.t);
        } else
            store(g, sg_fmt(g, "%s->v", w), v, NULL);
    else
        sg_line(g, "%s->v[0] = %s;", w, uni(g, v));
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
            const char *idx = en->index ? uni(g, sg_expr(g, en->index)) : NULL;
            struct sv v = en->value ? sg_expr(g, en->value) : VS("val[l]", "val");
            state_write(g, en->state, idx, v);
            break;
        }
        case MDL_SE_HOOK: {
            const char **args = tsr_arena_alloc(&g->ar, sizeof *args * (size_t)(en->nargs + 1));
            for (int j = 0; j < en->nargs; j++)
                args[j] = uni(g, sg_expr(g, en->args[j]));
            sg_line(g, "uint32_t hv[%d];", g->L);
            sg_line(g, LOOP "hv[l] = (mask >> l & 1) ? val[l] : 0u;", g->L);
            hook_call(g, en->hook, "TSR_HOOK_WRITE", args, en->nargs, "hv", NULL, NULL);
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

static void space_write(struct sg *g, int sp_i, const char *addr, const char *val)
{
    sg_line(g, "if ((rc = sim_wr_%d(S, I, pc, %s, %s, %s, %s)) != 0) goto out;", sp_i, g->chk ? g->chk : "1", addr, val,
            M(g));
}

/* ---- constant folding (known fields of the scope) ------------------------------------------------------ */

void sg_learn_fields(struct sg *g, const struct mdl_expr *e)
{
    if (!e || !g->known)
        return;
    if (e->kind == MDL_E_BIN && e->op == MDL_OP_LAND) {
        sg_learn_fields(g, e->a[0]);
        sg_learn_fields(g, e->a[1]);
        return;
    }
    if (e->kind == MDL_E_BIN && e->op == MDL_OP_EQ) {
        const struct mdl_expr *f = e->a[0], *c = e->a[1];
        if (f->kind != MDL_E_FIELD)
            f = e->a[1], c = e->a[0];
        uint64_t v;
        if (f->kind == MDL_E_FIELD && c->kind != MDL_E_FIELD && const_index(c, &v)) {
            const struct mdl_field *fd = &g->m->fields[f->index];
            g->known[f->index] = true;
            g->kval[f->index] = v & (fd->width >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << fd->width) - 1));
        }
    }
}

/* True and *v if e has the same value in every lane whenever the scope runs (no effects skipped). */
static bool fold(struct sg *g, const struct mdl_expr *e, uint32_t *v)
{
    uint32_t a, b;
    switch (e->kind) {
    case MDL_E_INT:
    case MDL_E_FLOAT:
        *v = (uint32_t)e->ival;
        return true;
    case MDL_E_FIELD: {
        if (!g->known || !g->known[e->index])
            return false;
        const struct mdl_field *f = &g->m->fields[e->index];
        uint64_t x = g->kval[e->index];
        *v = (uint32_t)(f->is_signed ? (uint64_t)tsr_bits_sext(x, (unsigned)f->width) : x);
        return true;
    }
    case MDL_E_ATTR:
        if (!g->op)
            return false;
        *v = e->index >= 0 && e->index < 64 && (g->op->attrs >> e->index & 1);
        return true;
    case MDL_E_UN:
        if (!fold(g, e->a[0], &a))
            return false;
        *v = mdl_sem_unop(e, a);
        return true;
    case MDL_E_BIN:
        if (!fold(g, e->a[0], &a))
            return false;
        if (e->op == MDL_OP_LAND && !a)
            return *v = 0, true;
        if (e->op == MDL_OP_LOR && a)
            return *v = 1, true;
        if (!fold(g, e->a[1], &b))
            return false;
        *v = mdl_sem_binop(g->m, e, a, b);
        return true;
    case MDL_E_COND:
        if (!fold(g, e->a[0], &a))
            return false;
        return fold(g, e->a[a ? 1 : 2], v);
    case MDL_E_CAST:
        if (!fold(g, e->a[0], &a))
            return false;
        *v = tsr_sem_cast(a, (int)e->a[0]->type, (int)e->type);
        return true;
    case MDL_E_TABLE:
        if (!fold(g, e->a[0], &a) || e->index < 0 || e->index >= g->m->ntables)
            return false;
        *v = mdl_table_value(&g->m->tables[e->index], a);
        return true;
    default:
        return false;
    }
}

/* ---- common subexpressions -------------------------------------------------------------------------------- */

static uint64_t ehash(const struct mdl_expr *e)
{
    uint64_t h = 1469598103934665603u;
    h = (h ^ (uint64_t)e->kind) * 1099511628211u;
    h = (h ^ (uint64_t)e->type) * 1099511628211u;
    h = (h ^ (uint64_t)(uint32_t)e->op) * 1099511628211u;
    h = (h ^ (uint64_t)(uint32_t)e->index) * 1099511628211u;
    h = (h ^ e->ival) * 1099511628211u;
    for (int i = 0; i < mdl_expr_arity(e); i++)
        h = (h ^ (e->a[i] ? ehash(e->a[i]) : 7)) * 1099511628211u;
    return h;
}

static bool eeq(const struct mdl_expr *a, const struct mdl_expr *b)
{
    if (a == b)
        return true;
    if (!a || !b || a->kind != b->kind || a->type != b->type || a->op != b->op || a->index != b->index ||
        a->ival != b->ival || mdl_expr_arity(a) != mdl_expr_arity(b))
        return false;
    for (int i = 0; i < mdl_expr_arity(a); i++)
        if (!eeq(a->a[i], b->a[i]))
            return false;
    return true;
}

static bool uses_ctx(const struct mdl_expr *e)
{
    if (!e)
        return false;
    if (e->kind == MDL_E_CODE || e->kind == MDL_E_VALUE)
        return true;
    for (int i = 0; i < mdl_expr_arity(e); i++)
        if (uses_ctx(e->a[i]))
            return true;
    return false;
}

static void cse_collect(struct sg *g, const struct mdl_expr *e)
{
    if (!e)
        return;
    uint32_t k;
    if (fold(g, e, &k))
        return;
    if (e->kind == MDL_E_COND && fold(g, e->a[0], &k)) {
        cse_collect(g, e->a[k ? 1 : 2]);
        return;
    }
    if (e->kind == MDL_E_BIN && (e->op == MDL_OP_LAND || e->op == MDL_OP_LOR) && fold(g, e->a[0], &k)) {
        cse_collect(g, e->a[1]);
        return;
    }
    for (int i = 0; i < mdl_expr_arity(e); i++)
        cse_collect(g, e->a[i]);
    if (e->kind != MDL_E_UN && e->kind != MDL_E_BIN && e->kind != MDL_E_COND && e->kind != MDL_E_CALL &&
        e->kind != MDL_E_CAST && e->kind != MDL_E_TABLE)
        return;
    if (e->kind == MDL_E_CALL && e->index == MDL_B_ELEM)
        return;
    if (mdl_expr_has_effects(g->m, e) || uses_ctx(e))
        return;
    uint64_t h = ehash(e);
    for (int i = 0; i < g->ncse; i++)
        if (g->cse[i].h == h && eeq(g->cse[i].e, e)) {
            g->cse[i].count++;
            return;
        }
    if (g->ncse == g->capcse) {
        int cap = g->capcse ? 2 * g->capcse : 64;
        struct sg_cse *n = tsr_arena_alloc(&g->ar, (size_t)cap * sizeof *n);
        if (g->ncse)
            memcpy(n, g->cse, (size_t)g->ncse * sizeof *n);
        g->cse = n;
        g->capcse = cap;
    }
    g->cse[g->ncse++] = (struct sg_cse){e, h, {NULL, NULL, false, false, NULL, NULL}, false, 1, 0};
}

/* Common subexpressions, lazily: cse_begin counts the pure subexpressions of a statement; the first time one
 * that occurs more than once is compiled, its value is kept in a temporary of the C block it is compiled in
 * (sg_expr), and later occurrences inside that block reuse it.  Nothing is computed that the statement
 * would not compute anyway. */
static int cse_index(struct sg *g, const struct mdl_expr *e)
{
    uint64_t h = ehash(e);
    for (int i = 0; i < g->ncse; i++)
        if (g->cse[i].h == h && eeq(g->cse[i].e, e))
            return i;
    return -1;
}

static void cse_begin(struct sg *g, const struct mdl_expr *const *es, int n)
{
    g->ncse = 0;
    for (int i = 0; i < n; i++)
        cse_collect(g, es[i]);
    /* keep only the largest repeated expressions: a child that occurs exactly as often as its repeated
     * parent is computed inside the parent's one evaluation */
    int *orig = tsr_arena_alloc(&g->ar, (size_t)(g->ncse + 1) * sizeof *orig);
    for (int i = 0; i < g->ncse; i++)
        orig[i] = g->cse[i].count;
    for (int i = 0; i < g->ncse; i++) {
        if (orig[i] < 2)
            continue;
        const struct mdl_expr *p = g->cse[i].e;
        for (int a = 0; a < mdl_expr_arity(p); a++) {
            int c = p->a[a] ? cse_index(g, p->a[a]) : -1;
            if (c >= 0 && orig[c] == orig[i])
                g->cse[c].count = 1;
        }
    }
}

static void cse_end(struct sg *g)
{
    g->ncse = 0;
}

static bool blk_open(const struct sg *g, int id)
{
    for (int i = 0; i < g->nblk; i++)
        if (g->blk[i] == id)
            return true;
    return false;
}

static struct sg_cse *cse_entry(struct sg *g, const struct mdl_expr *e)
{
    if (!g->ncse)
        return NULL;
    uint64_t h = 0;
    bool hashed = false;
    for (int i = 0; i < g->ncse; i++) {
        if (g->cse[i].count < 2)
            continue;
        if (g->cse[i].e == e)
            return &g->cse[i];
        if (!hashed) {
            h = ehash(e);
            hashed = true;
        }
        if (g->cse[i].h == h && eeq(g->cse[i].e, e))
            return &g->cse[i];
    }
    return NULL;
}

static int enodes(const struct mdl_expr *e)
{
    int n = 1;
    for (int i = 0; e && i < mdl_expr_arity(e); i++)
        n += enodes(e->a[i]);
    return n;
}

/* Keeps v, the value of entry c, for the rest of the current block. */
static struct sv cse_bind(struct sg *g, struct sg_cse *c, struct sv v)
{
    c->bound = true;
    c->blkid = g->nblk ? g->blk[g->nblk - 1] : 0;
    if (!v.vary) {
        const char *t = sg_tmp(g, "c");
        sg_line(g, "const uint32_t %s = %s;", t, v.t);
        sg_line(g, "(void)%s;", t);
        c->v = U(t);
    } else if (v.vec) {
        c->v = v; /* already an array that lives as long as this block */
    } else if (enodes(c->e) >= 4 || c->e->kind == MDL_E_CALL || c->e->kind == MDL_E_TABLE) {
        const char *t = sg_tmp(g, "c");
        sg_line(g, "uint32_t %s[%d];", t, g->L);
        store(g, t, v, NULL);
        sg_line(g, "(void)%s;", t);
        c->v = V(sg_fmt(g, "%s[l]", t), t);
    } else {
        c->bound = false; /* cheap: recompute inline */
        return v;
    }
    return c->v;
}

static struct sv sg_expr_nocse(struct sg *g, const struct mdl_expr *e);

/* ---- expressions ------------------------------------------------------------------------------------ */

static int dom2(enum mdl_type a, enum mdl_type b)
{
    if (a == MDL_T_F32 && b == MDL_T_F32)
        return 2;
    if (a == MDL_T_I32 || b == MDL_T_I32)
        return 1;
    return 0;
}

struct bspec { int b; const char *fn; int nargs; bool fm; };
static const struct bspec bspecs[] = {
    {MDL_B_FADD, "tsr_sem_fadd", 2, true}, {MDL_B_FSUB, "tsr_sem_fsub", 2, true},
    {MDL_B_FMUL, "tsr_sem_fmul", 2, true}, {MDL_B_FMIN, "tsr_sem_fmin", 2, true},
    {MDL_B_FMAX, "tsr_sem_fmax", 2, true}, {MDL_B_FMINABS, "tsr_sem_fminabs", 2, true},
    {MDL_B_FMAXABS, "tsr_sem_fmaxabs", 2, true}, {MDL_B_FABS, "tsr_sem_fabs", 1, false},
    {MDL_B_FNEG, "tsr_sem_fneg", 1, false}, {MDL_B_FTOI, "tsr_sem_ftoi", 1, true},
    {MDL_B_ITOF, "tsr_sem_itof", 1, true}, {MDL_B_FGT, "tsr_sem_fgt", 2, true},
    {MDL_B_FEQ, "tsr_sem_feq", 2, true}, {MDL_B_F16TOF32, "tsr_sem_f16tof32", 1, true},
    {MDL_B_F32TOF16, "tsr_sem_f32tof16", 1, true}, {MDL_B_UNORM8TOF, "tsr_sem_unorm8tof", 1, true},
    {MDL_B_F2UNORM8, "tsr_sem_f2unorm8", 1, true}, {MDL_B_CLZ, "tsr_sem_clz", 1, false},
    {MDL_B_MUL24, "tsr_sem_mul24", 2, false}, {MDL_B_SHL, "tsr_sem_shlb", 2, false},
    {MDL_B_SHR, "tsr_sem_shrb", 2, false}, {MDL_B_ASR, "tsr_sem_asr", 2, false},
    {MDL_B_ROR, "tsr_sem_ror", 2, false}, {MDL_B_MIN, "tsr_sem_min", 2, false},
    {MDL_B_MAX, "tsr_sem_max", 2, false}, {MDL_B_SADD_SAT, "tsr_sem_sadd_sat", 2, false},
    {MDL_B_SSUB_SAT, "tsr_sem_ssub_sat", 2, false}, {MDL_B_V8ADDS, "tsr_sem_v8adds", 2, false},
    {MDL_B_V8SUBS, "tsr_sem_v8subs", 2, false}, {MDL_B_V8MIN, "tsr_sem_v8min", 2, false},
    {MDL_B_V8MAX, "tsr_sem_v8max", 2, false}, {MDL_B_V8MULD, "tsr_sem_v8muld", 2, false},
    {MDL_B_BYTE, "tsr_sem_byte", 2, false}, {MDL_B_BYTES, "tsr_sem_bytes", 4, false},
};

static struct sv call(struct sg *g, const struct mdl_expr *e)
{
    int L = g->L;
    if (e->index == MDL_B_ELEM)
        return g->vec_ok ? VV("((uint32_t)l)", "(sim_velem + 4u * (uint32_t)q)") : V("((uint32_t)l)", NULL);
    struct sv a[4];
    if (e->nargs > 4) {
        sg_error(g, e->loc, "built-in with %d arguments", e->nargs);
        return U("0u");
    }
    for (int i = 0; i < e->nargs; i++)
        a[i] = sg_expr(g, e->a[i]);
    for (size_t i = 0; i < sizeof bspecs / sizeof bspecs[0]; i++) {
        const struct bspec *b = &bspecs[i];
        if (b->b != e->index)
            continue;
        if (e->nargs != b->nargs) {
            sg_error(g, e->loc, "built-in %s takes %d arguments", b->fn + 8, b->nargs);
            return U("0u");
        }
        bool vary = false;
        for (int j = 0; j < b->nargs; j++)
            vary = vary || a[j].vary;
        char *t = sg_fmt(g, "%s(", b->fn);
        for (int j = 0; j < b->nargs; j++) {
            if (vary)
                a[j] = hoist(g, a[j]);
            t = sg_fmt(g, "%s%s%s", t, j ? ", " : "", a[j].t);
        }
        t = sg_fmt(g, b->fm ? "%s, %d)" : "%s)", t, g->m->float_mode);
        if (!vary)
            return U(t);
        /* vector forms of the cheap integer built-ins (the others call arith.h lane by lane) */
        const char *v0 = b->nargs > 0 ? vt_of(g, a[0]) : NULL, *v1 = b->nargs > 1 ? vt_of(g, a[1]) : NULL;
        const char *vt = NULL;
        switch (e->index) {
        case MDL_B_FABS: if (v0) vt = sg_fmt(g, "(%s & 0x7fffffffu)", v0); break;
        case MDL_B_FNEG: if (v0) vt = sg_fmt(g, "(%s ^ 0x80000000u)", v0); break;
        case MDL_B_MUL24: if (v0 && v1) vt = sg_fmt(g, "((%s & 0xffffffu) * (%s & 0xffffffu))", v0, v1); break;
        case MDL_B_SHL:
            if (v0 && v1)
                vt = !a[1].vary ? sg_fmt(g, "(%s << ((%s) & 31u))", v0, a[1].t) : sg_fmt(g, "(%s << (%s & 31u))", v0, v1);
            break;
        case MDL_B_SHR:
            if (v0 && v1)
                vt = !a[1].vary ? sg_fmt(g, "(%s >> ((%s) & 31u))", v0, a[1].t) : sg_fmt(g, "(%s >> (%s & 31u))", v0, v1);
            break;
        case MDL_B_ASR:
            if (v0 && v1)
                vt = !a[1].vary ? sg_fmt(g, "((sim_v)((sim_vi)%s >> (int32_t)((%s) & 31u)))", v0, a[1].t)
                                : sg_fmt(g, "((sim_v)((sim_vi)%s >> (sim_vi)(%s & 31u)))", v0, v1);
            break;
        case MDL_B_ROR: if (v0 && v1) vt = sg_fmt(g, "SIM_VROR(%s, %s)", v0, v1); break;
        case MDL_B_MIN: case MDL_B_MAX:
            if (v0 && v1)
                vt = sg_fmt(g, "SIM_VSEL((sim_v)((sim_vi)%s %c (sim_vi)%s), %s, %s)", v0,
                            e->index == MDL_B_MIN ? '<' : '>', v1, v0, v1);
            break;
        case MDL_B_BYTE:
            if (v0 && v1)
                vt = !a[1].vary ? sg_fmt(g, "((%s >> (((%s) & 3u) * 8u)) & 0xffu)", v0, a[1].t)
                                : sg_fmt(g, "((%s >> ((%s & 3u) * 8u)) & 0xffu)", v0, v1);
            break;
        case MDL_B_FADD: case MDL_B_FSUB: case MDL_B_FMUL:
            if (v0 && v1 && (g->m->float_mode == TSR_FLOAT_QPU || g->m->float_mode == TSR_FLOAT_IEEE))
                vt = sg_fmt(g, "SIM_VFOP(%s, %s, %c, %d, %d, %s)", v0, v1,
                            e->index == MDL_B_FADD ? '+' : e->index == MDL_B_FSUB ? '-' : '*', e->index != MDL_B_FMUL,
                            g->m->float_mode, b->fn);
            break;
        case MDL_B_V8ADDS: case MDL_B_V8SUBS: case MDL_B_V8MIN: case MDL_B_V8MAX:
            /* per byte: SIMD on 16 bytes (the same as runtime/intops.c; tests/test_eval.c compares) */
            if (v0 && v1)
                vt = sg_fmt(g, "%s(%s, %s)", e->index == MDL_B_V8ADDS ? "SIM_V8ADDS" : e->index == MDL_B_V8SUBS
                            ? "SIM_V8SUBS" : e->index == MDL_B_V8MIN ? "SIM_V8MIN" : "SIM_V8MAX", v0, v1);
            break;
        case MDL_B_BYTES: {
            const char *v2 = vt_of(g, a[2]), *v3 = vt_of(g, a[3]);
            if (v0 && v1 && v2 && v3)
                vt = sg_fmt(g, "(((%s & 0xffu) << 24) | ((%s & 0xffu) << 16) | ((%s & 0xffu) << 8) | (%s & 0xffu))",
                            v0, v1, v2, v3);
            break;
        }
        default: break;
        }
        return vt ? VV(t, vt) : V(t, NULL);
    }
    switch (e->index) {
    case MDL_B_LANE:
        if (e->nargs == 2) {
            if (!a[0].vary)
                return a[0];
            return U(sg_fmt(g, "tsr_sem_lane(%s, %s, %d)", vec_of(g, a[0]), uni(g, a[1]), L));
        }
        break;
    case MDL_B_ROTATE: case MDL_B_ROTATE_QUAD:
        if (e->nargs == 2) {
            const char *x = vec_of(g, a[0]), *n = uni(g, a[1]), *t = sg_tmp(g, "tr");
            sg_line(g, "uint32_t %s[%d];", t, L);
            sg_line(g, "%s(%s, %s, %s, %d);", e->index == MDL_B_ROTATE ? "tsr_sem_rotate" : "tsr_sem_rotate_quad", t,
                    x, n, L);
            return V(sg_fmt(g, "%s[l]", t), t);
        }
        break;
    case MDL_B_QUAD_BCAST:
        if (e->nargs == 1) {
            const char *x = vec_of(g, a[0]), *t = sg_tmp(g, "tr");
            sg_line(g, "uint32_t %s[%d];", t, L);
            sg_line(g, "tsr_sem_quad_bcast(%s, %s, %d);", t, x, L);
            return V(sg_fmt(g, "%s[l]", t), t);
        }
        break;
    case MDL_B_ALL: case MDL_B_ANY:
        if (e->nargs == 1) {
            if (!a[0].vary)
                return U(sg_fmt(g, "((uint32_t)((%s) != 0))", a[0].t));
            const char *t = sg_tmp(g, "tq");
            const char *v0 = vt_of(g, a[0]);
            if (v0) {
                sg_line(g, "uint32_t %s = 0;", t);
                sg_line(g, QLOOP "%s |= SIM_VMASK(%s) << (4 * q);", g->L / 4, t, v0);
            } else {
                sg_line(g, "uint32_t %s = 0;", t);
                sg_line(g, LOOP "%s |= (uint32_t)-(int32_t)((%s) != 0) & sim_bit[l];", L, t, a[0].t);
            }
            return U(sg_fmt(g, "((uint32_t)(%s %s))", t, e->index == MDL_B_ALL ? sg_fmt(g, "== %s", g->all) : "!= 0"));
        }
        break;
    default:
        sg_error(g, e->loc, "built-in %d is not supported by the simulator", e->index);
        return U("0u");
    }
    sg_error(g, e->loc, "wrong number of arguments of a cross-lane built-in");
    return U("0u");
}

/* A lazily evaluated operand (mdl/eval.h): effectful operands run only under a non-empty sub-mask, in a
 * C block, into a zeroed temporary.  `sub` is a uniform C condition/mask text for "some lane selects it". */
static struct sv lazy(struct sg *g, const struct mdl_expr *e, const char *submask)
{
    if (!mdl_expr_has_effects(g->m, e))
        return sg_expr(g, e);
    const char *t = sg_tmp(g, "tz");
    sg_line(g, "uint32_t %s[%d] = {0};", t, g->L);
    sg_line(g, "if (%s) {", submask);
    g->ind++;
    const char *save = g->mask;
    g->mask = submask;
    struct sv v = sg_expr(g, e);
    store(g, t, v, NULL);
    g->mask = save;
    g->ind--;
    sg_line(g, "}");
    return V(sg_fmt(g, "%s[l]", t), t);
}

/* True if e compiles to an expression text alone, with no statements before it (CSE suspended): no effects,
 * no cross-lane built-ins on varying values, conditions whose arms are such expressions. */
static bool inline_ok(struct sg *g, const struct mdl_expr *e)
{
    uint32_t k;
    if (!e)
        return true;
    if (fold(g, e, &k))
        return true;
    switch (e->kind) {
    case MDL_E_SPACE:
        return false;
    case MDL_E_STATE:
        if (mdl_expr_has_effects(g->m, e))
            return false;
        break;
    case MDL_E_COND:
        if (fold(g, e->a[0], &k))
            return inline_ok(g, e->a[k ? 1 : 2]);
        break;
    case MDL_E_CALL:
        switch (e->index) {
        case MDL_B_LANE: case MDL_B_ALL: case MDL_B_ANY:
            if (e->nargs > 0 && ex_vary(g, e->a[0], g->vary, g->nloc))
                return false;
            break;
        case MDL_B_ROTATE: case MDL_B_ROTATE_QUAD: case MDL_B_QUAD_BCAST:
            return false;
        default:
            break;
        }
        break;
    case MDL_E_BIN:
        if ((e->op == MDL_OP_LAND || e->op == MDL_OP_LOR) && mdl_expr_has_effects(g->m, e->a[1]))
            return false;
        break;
    default:
        break;
    }
    for (int i = 0; i < mdl_expr_arity(e); i++)
        if (!inline_ok(g, e->a[i]))
            return false;
    return true;
}

static struct sv cond(struct sg *g, const struct mdl_expr *e)
{
    uint32_t k;
    if (fold(g, e->a[0], &k))
        return sg_expr(g, e->a[k ? 1 : 2]);
    struct sv c = sg_expr(g, e->a[0]);
    bool ea = mdl_expr_has_effects(g->m, e->a[1]), eb = mdl_expr_has_effects(g->m, e->a[2]);
    if (!c.vary) {
        const char *t = sg_tmp(g, "tc");
        bool inl = inline_ok(g, e->a[1]) && inline_ok(g, e->a[2]);
        size_t l0 = g->o->len;
        int nblk0 = g->nblk, ntmp0 = g->ntmp;
        if (inl) {
            /* a select of two expressions, or a pointer select of two arrays that live long enough (no
             * copy); when only one arm has a vector form, a C if below instead */
            int ncse = g->ncse;
            g->ncse = 0;
            struct sv ch = hoist(g, c);
            struct sv a = sg_expr(g, e->a[1]), b = sg_expr(g, e->a[2]);
            g->ncse = ncse;
            if (a.vary && b.vary && a.vec && b.vec && a.stable && b.stable) {
                sg_line(g, "const uint32_t *%s = (%s) ? %s : %s;", t, ch.t, a.vec, b.vec);
                return VS(sg_fmt(g, "%s[l]", t), t);
            }
            const char *x = sg_fmt(g, "((%s) ? %s : %s)", ch.t, a.t, b.t);
            if (!a.vary && !b.vary)
                return U(x);
            const char *va = vt_of(g, a), *vb = vt_of(g, b);
            if (va && vb)
                return VV(x, sg_fmt(g, "((%s) ? %s : %s)", ch.t, va, vb));
            if (!g->vec_ok)
                return V(x, NULL);
            /* take back what the arms emitted (nothing but hoisted uniform values) */
            g->o->len = l0;
            g->o->data[l0] = 0;
            g->nblk = nblk0;
            g->ntmp = ntmp0;
            t = sg_tmp(g, "tc");
        }
        /* a C if, each arm compiled inside its branch, into a temporary */
        sg_line(g, "uint32_t %s[%d];", t, g->L);
        sg_line(g, "if (%s) {", c.t);
        g->ind++;
        struct sv a = sg_expr(g, e->a[1]);
        store(g, t, a, NULL);
        g->ind--;
        sg_line(g, "} else {");
        g->ind++;
        struct sv b = sg_expr(g, e->a[2]);
        store(g, t, b, NULL);
        g->ind--;
        sg_line(g, "}");
        return V(sg_fmt(g, "%s[l]", t), t);
    }
    const char *cv = vec_of(g, c);
    const char *ct = sg_fmt(g, "%s[l]", cv);
    struct sv a, b;
    if (ea || eb) {
        const char *m = mask_of(g, V(ct, cv));
        a = lazy(g, e->a[1], m);
        const char *nm = sg_tmp(g, "m");
        sg_line(g, "const uint32_t %s = %s & ~%s;", nm, M(g), m);
        b = lazy(g, e->a[2], nm);
    } else {
        a = hoist(g, sg_expr(g, e->a[1]));
        b = hoist(g, sg_expr(g, e->a[2]));
    }
    const char *x = sg_fmt(g, "(%s ? %s : %s)", ct, a.t, b.t);
    const char *vc = vt_of(g, V(ct, cv)), *va = vt_of(g, a), *vb = vt_of(g, b);
    if (vc && va && vb)
        return VV(x, sg_fmt(g, "SIM_VSEL(%s, %s, %s)", vc, va, vb));
    return V(x, NULL);
}

static struct sv logic(struct sg *g, const struct mdl_expr *e)
{
    bool and = e->op == MDL_OP_LAND;
    uint32_t k;
    if (fold(g, e->a[0], &k)) { /* (a && b with a true, a || b with a false: b decides; else folded) */
        struct sv b = sg_expr(g, e->a[1]);
        const char *t = sg_fmt(g, "((uint32_t)((%s) != 0))", b.t);
        if (!b.vary)
            return U(t);
        const char *vb = vt_of(g, b);
        return vb ? VV(t, sg_fmt(g, "((sim_v)(%s != 0u) & 1u)", vb)) : V(t, NULL);
    }
    struct sv a = sg_expr(g, e->a[0]);
    if (!a.vary && !mdl_expr_has_effects(g->m, e->a[1]) && !inline_ok(g, e->a[1])) {
        /* b needs statements (cross-lane values, hoisted conditions): only when a does not decide */
        const char *t = sg_tmp(g, "tl");
        bool bv = ex_vary(g, e->a[1], g->vary, g->nloc);
        if (bv)
            sg_line(g, "uint32_t %s[%d];", t, g->L);
        else
            sg_line(g, "uint32_t %s;", t);
        sg_line(g, "if (%s(%s)) {", and ? "" : "!", a.t);
        g->ind++;
        struct sv b = sg_expr(g, e->a[1]);
        if (bv)
            sg_line(g, LOOP "%s[l] = (uint32_t)((%s) != 0);", g->L, t, b.t);
        else
            sg_line(g, "%s = (uint32_t)((%s) != 0);", t, b.t);
        g->ind--;
        sg_line(g, "} else {");
        if (bv)
            sg_line(g, "    " LOOP "%s[l] = %du;", g->L, t, and ? 0 : 1);
        else
            sg_line(g, "    %s = %du;", t, and ? 0 : 1);
        sg_line(g, "}");
        return bv ? V(sg_fmt(g, "%s[l]", t), t) : U(t);
    }
    if (!mdl_expr_has_effects(g->m, e->a[1])) {
        struct sv b = sg_expr(g, e->a[1]);
        if (a.vary || b.vary) {
            /* in a lane loop: both sides when b is cheap (no calls), so the loop has no branches */
            a = hoist(g, a);
            b = hoist(g, b);
            const char *op = cheap(e->a[1]) ? (and ? "&" : "|") : (and ? "&&" : "||");
            const char *t = sg_fmt(g, "((uint32_t)(((%s) != 0) %s ((%s) != 0)))", a.t, op, b.t);
            const char *va = vt_of(g, a), *vb = vt_of(g, b);
            if (va && vb) {
                if (!a.vary) /* a decides for all lanes: no vector work for it */
                    return VV(t, sg_fmt(g, and ? "((%s) != 0u ? ((sim_v)(%s != 0u) & 1u) : SIM_VS(0u))"
                                               : "((%s) != 0u ? SIM_VS(1u) : ((sim_v)(%s != 0u) & 1u))", a.t, vb));
                if (!b.vary)
                    return VV(t, sg_fmt(g, and ? "((%s) != 0u ? ((sim_v)(%s != 0u) & 1u) : SIM_VS(0u))"
                                               : "((%s) != 0u ? SIM_VS(1u) : ((sim_v)(%s != 0u) & 1u))", b.t, va));
                return VV(t, sg_fmt(g, "((sim_v)((%s != 0u) %c (%s != 0u)) & 1u)", va, and ? '&' : '|', vb));
            }
            return V(t, NULL);
        }
        return U(sg_fmt(g, "((uint32_t)((%s) != 0 %s (%s) != 0))", a.t, and ? "&&" : "||", b.t));
    }
    const char *m = mask_of(g, a);
    const char *sub = m;
    if (!and) {
        sub = sg_tmp(g, "m");
        sg_line(g, "const uint32_t %s = %s & ~%s;", sub, M(g), m);
    }
    struct sv b = lazy(g, e->a[1], sub);
    const char *t = sg_fmt(g, "((uint32_t)((%s) != 0 %s (%s) != 0))", a.t, and ? "&&" : "||", b.t);
    return V(t, NULL);
}

struct sv sg_expr(struct sg *g, const struct mdl_expr *e)
{
    uint32_t k;
    struct sv cv;
    if (e->kind != MDL_E_INT && e->kind != MDL_E_FLOAT && fold(g, e, &k))
        return U(sg_fmt(g, "0x%08" PRIx32 "u", k));
    struct sg_cse *ce = cse_entry(g, e);
    if (ce && ce->bound && blk_open(g, ce->blkid))
        return ce->v;
    if (ce) {
        ce->count = 1; /* compile it once, without finding itself */
        cv = sg_expr_nocse(g, e);
        ce->count = 2;
        return cse_bind(g, ce, cv);
    }
    return sg_expr_nocse(g, e);
}

static struct sv sg_expr_nocse(struct sg *g, const struct mdl_expr *e)
{
    const struct mdl_model *m = g->m;
    switch (e->kind) {
    case MDL_E_INT:
    case MDL_E_FLOAT:
        return U(sg_fmt(g, "0x%08" PRIx32 "u", (uint32_t)e->ival));
    case MDL_E_FIELD: {
        const struct mdl_field *f = &m->fields[e->index];
        if (f->is_signed)
            return U(sg_fmt(g, "((uint32_t)tsr_bits_sext(I->f[%d], %d))", e->index, f->width));
        return U(sg_fmt(g, "((uint32_t)I->f[%d])", e->index));
    }
    case MDL_E_LOCAL:
        if (e->index < 0 || e->index >= g->nloc) {
            sg_error(g, e->loc, "local %d out of range", e->index);
            return U("0u");
        }
        if (g->inl && g->inl[e->index])
            return sg_expr(g, g->inl[e->index]);
        if (g->ptrloc && g->ptrloc[e->index])
            return VS(sg_fmt(g, "%s[%d][l]", g->lp, e->index), sg_fmt(g, "%s[%d]", g->lp, e->index));
        if (g->vary[e->index])
            return VS(sg_fmt(g, "%s[%d][l]", g->lv, e->index), sg_fmt(g, "%s[%d]", g->lv, e->index));
        return U(sg_fmt(g, "%s[%d]", g->lu, e->index));
    case MDL_E_STATE:
        return read_state(g, e->index, e->a && e->a[0] ? e->a[0] : NULL);
    case MDL_E_SPACE:
        return space_read(g, e->index, uni(g, sg_expr(g, e->a[0])));
    case MDL_E_CODE:
        if (!g->code) {
            sg_error(g, e->loc, "`addr` outside a space entry");
            return U("0u");
        }
        return U(g->code);
    case MDL_E_VALUE:
        if (!g->value) {
            sg_error(g, e->loc, "`value` outside a space write entry");
            return U("0u");
        }
        return VS(sg_fmt(g, "%s[l]", g->value), g->value);
    case MDL_E_UN: {
        struct sv a = sg_expr(g, e->a[0]);
        const char *t = e->op == '-' ? (e->a[0]->type == MDL_T_F32 ? sg_fmt(g, "tsr_fneg(%s)", a.t)
                                                                   : sg_fmt(g, "(0u - %s)", a.t))
                      : e->op == '~' ? sg_fmt(g, "((uint32_t)~%s)", a.t)
                      : sg_fmt(g, "((uint32_t)((%s) == 0))", a.t);
        if (!a.vary)
            return U(t);
        const char *va = vt_of(g, a);
        if (!va)
            return V(t, NULL);
        const char *vt = e->op == '-' ? (e->a[0]->type == MDL_T_F32 ? sg_fmt(g, "(%s ^ 0x80000000u)", va)
                                                                    : sg_fmt(g, "(0u - %s)", va))
                       : e->op == '~' ? sg_fmt(g, "(~%s)", va)
                       : sg_fmt(g, "((sim_v)(%s == 0u) & 1u)", va);
        return VV(t, vt);
    }
    case MDL_E_BIN: {
        if (e->op == MDL_OP_LAND || e->op == MDL_OP_LOR)
            return logic(g, e);
        struct sv a = sg_expr(g, e->a[0]), b = sg_expr(g, e->a[1]);
        if (a.vary || b.vary) {
            a = hoist(g, a);
            b = hoist(g, b);
        }
        int d = dom2(e->a[0]->type, e->a[1]->type), fm = m->float_mode;
        int dl = e->a[0]->type == MDL_T_I32 ? 1 : 0;
        const char *t;
        static const char *cmpop[] = {"<", "<=", ">", ">=", "==", "!="};
        int ci = -1;
        switch (e->op) {
        case '+': t = d == 2 ? sg_fmt(g, "tsr_sem_fadd(%s, %s, %d)", a.t, b.t, fm) : sg_fmt(g, "(%s + %s)", a.t, b.t); break;
        case '-': t = d == 2 ? sg_fmt(g, "tsr_sem_fsub(%s, %s, %d)", a.t, b.t, fm) : sg_fmt(g, "(%s - %s)", a.t, b.t); break;
        case '*': t = d == 2 ? sg_fmt(g, "tsr_sem_fmul(%s, %s, %d)", a.t, b.t, fm) : sg_fmt(g, "(%s * %s)", a.t, b.t); break;
        case '/': t = sg_fmt(g, "tsr_sem_div(%s, %s, %d)", a.t, b.t, d); break;
        case '%': t = sg_fmt(g, "tsr_sem_rem(%s, %s, %d)", a.t, b.t, d); break;
        case '&': t = sg_fmt(g, "(%s & %s)", a.t, b.t); break;
        case '|': t = sg_fmt(g, "(%s | %s)", a.t, b.t); break;
        case '^': t = sg_fmt(g, "(%s ^ %s)", a.t, b.t); break;
        case MDL_OP_SHL: t = sg_fmt(g, "tsr_sem_shl(%s, %s)", a.t, b.t); break;
        case MDL_OP_SHR: t = sg_fmt(g, "tsr_sem_shr(%s, %s, %d)", a.t, b.t, dl); break;
        case MDL_OP_LT: ci = 0; break;
        case MDL_OP_LE: ci = 1; break;
        case MDL_OP_GT: ci = 2; break;
        case MDL_OP_GE: ci = 3; break;
        case MDL_OP_EQ: ci = 4; break;
        case MDL_OP_NE: ci = 5; break;
        default:
            sg_error(g, e->loc, "unknown operator %d", e->op);
            return U("0u");
        }
        if (ci >= 0) {
            if (d == 2)
                t = sg_fmt(g, "tsr_sem_cmp(%s, %s, %d, 2, %d)", a.t, b.t, ci, fm);
            else if (d == 1)
                t = sg_fmt(g, "((uint32_t)((int32_t)%s %s (int32_t)%s))", a.t, cmpop[ci], b.t);
            else
                t = sg_fmt(g, "((uint32_t)(%s %s %s))", a.t, cmpop[ci], b.t);
        }
        if (!a.vary && !b.vary)
            return U(t);
        /* the vector form: integer operators only (float ones call arith.h) */
        const char *va = vt_of(g, a), *vb = vt_of(g, b), *vt = NULL;
        if (va && vb && d != 2) {
            switch (e->op) {
            case '+': case '-': case '*': case '&': case '|': case '^':
                vt = sg_fmt(g, "(%s %c %s)", va, e->op, vb);
                break;
            case MDL_OP_SHL:
                vt = !b.vary ? sg_fmt(g, "((%s) >= 32u ? SIM_VS(0u) : %s << (%s))", b.t, va, b.t)
                             : sg_fmt(g, "SIM_VSHL(%s, %s)", va, vb);
                break;
            case MDL_OP_SHR:
                if (!b.vary)
                    vt = dl ? sg_fmt(g, "((sim_v)((sim_vi)%s >> (int32_t)((%s) >= 32u ? 31u : (%s))))", va, b.t, b.t)
                            : sg_fmt(g, "((%s) >= 32u ? SIM_VS(0u) : %s >> (%s))", b.t, va, b.t);
                else
                    vt = sg_fmt(g, dl ? "SIM_VASR(%s, %s)" : "SIM_VSHR(%s, %s)", va, vb);
                break;
            default:
                if (ci >= 0)
                    vt = d == 1 ? sg_fmt(g, "((sim_v)((sim_vi)%s %s (sim_vi)%s) & 1u)", va, cmpop[ci], vb)
                       : ci >= 4 ? sg_fmt(g, "((sim_v)(%s %s %s) & 1u)", va, cmpop[ci], vb)
                       : sg_fmt(g, "((sim_v)((sim_vi)(%s ^ 0x80000000u) %s (sim_vi)(%s ^ 0x80000000u)) & 1u)", va,
                                cmpop[ci], vb);
                break;
            }
        }
        return vt ? VV(t, vt) : V(t, NULL);
    }
    case MDL_E_COND:
        return cond(g, e);
    case MDL_E_CALL:
        return call(g, e);
    case MDL_E_ATTR:
        if (g->op)
            return U(e->index >= 0 && e->index < 64 && (g->op->attrs >> e->index & 1) ? "1u" : "0u");
        return U(sg_fmt(g, "((uint32_t)(attrs_any >> %d & 1))", e->index));
    case MDL_E_CAST: {
        struct sv a = sg_expr(g, e->a[0]);
        const char *t = sg_fmt(g, "tsr_sem_cast(%s, %d, %d)", a.t, (int)e->a[0]->type, (int)e->type);
        if (!a.vary)
            return U(t);
        const char *va = vt_of(g, a);
        if (!va)
            return V(t, NULL);
        struct sv r = VV(t, e->type == MDL_T_BOOL ? sg_fmt(g, "((sim_v)(%s != 0u) & 1u)", va)
                          : e->type == MDL_T_F16 ? sg_fmt(g, "(%s & 0xffffu)", va) : va);
        if (e->type != MDL_T_BOOL && e->type != MDL_T_F16) {
            r.vec = a.vec; /* the same bits */
            r.stable = a.stable;
            r.spbuf = a.spbuf;
            r.vt = a.vt;
        }
        return r;
    }
    case MDL_E_TABLE: {
        struct sv a = sg_expr(g, e->a[0]);
        if (e->index < 0 || e->index >= m->ntables) {
            sg_error(g, e->loc, "table %d out of range", e->index);
            return U("0u");
        }
        const char *t = sg_fmt(g, "sim_table_%d(%s)", e->index, a.t);
        return a.vary ? V(t, NULL) : U(t);
    }
    }
    sg_error(g, e->loc, "unknown expression kind %d", (int)e->kind);
    return U("0u");
}

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
    if (vt_of(g, v)) {
        store(g, dst, v, g->mask);
        return;
    }
    if (strstr(v.t, dst)) {
        if (!g->mask)
            sg_line(g, LOOP "%s[l] = %s;", g->L, dst, v.t);
        else
            sg_line(g, LOOP "%s[l] = (%s & sim_bit[l]) ? %s : %s[l];", g->L, dst, g->mask, v.t, dst);
        return;
    }
    if ((v.vary && v.vec) || vt_of(g, v)) {
        store(g, dst, v, g->mask);
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
    const char *val = vec_of(g, v);
    sg_line(g, "switch (%s[%d]) {", g->altv, s->local);
    for (int k = 0; k < op->nalt; k++) {
        const struct mdl_opnd_alt *alt = &op->alt[k];
        sg_line(g, "case %d: {", k);
        g->ind++;
        if (alt->wspace >= 0) {
            space_write(g, alt->wspace, uni(g, sg_expr(g, alt->waddr)), val);
        } else if (alt->wstate >= 0) {
            const char *idx = alt->windex ? uni(g, sg_expr(g, alt->windex)) : NULL;
            state_write(g, alt->wstate, idx, V(sg_fmt(g, "%s[l]", val), val));
        } else {
            fail(g, sg_fmt(g, "tsr_sim_error(&S->core, pc, \"operand %s has no write target at 0x%%08\" PRIx32, pc)",
                           op->inst_name ? op->inst_name : op->name));
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
    if (fold(g, e, &k)) {
        const char *t = sg_tmp(g, "m");
        sg_line(g, "const uint32_t %s = %s;", t, k ? M(g) : "0u");
        return t;
    }
    if (!ex_vary(g, e, g->vary, g->nloc) || mdl_expr_has_effects(g->m, e)) {
        /* uniform, or effects (keep sg_expr's evaluation order exactly) */
        return mask_of(g, sg_expr(g, e));
    }
    if (e->kind == MDL_E_BIN && (e->op == MDL_OP_LAND || e->op == MDL_OP_LOR)) {
        bool and = e->op == MDL_OP_LAND;
        const char *t = sg_tmp(g, "m");
        if (!ex_vary(g, e->a[0], g->vary, g->nloc)) {
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
    if (e->kind == MDL_E_COND && !ex_vary(g, e->a[0], g->vary, g->nloc)) {
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
        return mask_of(g, v);
    }
    return mask_of(g, sg_expr(g, e));
}

/* Computes e into the array dst (all lanes): a condition on a uniform value whose arms need statements
 * becomes a C if with each arm stored straight into dst (no temporary, no copy). */
static void into(struct sg *g, const struct mdl_expr *e, const char *dst)
{
    uint32_t k;
    while (e->kind == MDL_E_CAST && e->type != MDL_T_BOOL && e->type != MDL_T_F16 && e->a[0]->type != MDL_T_F16 &&
           !cse_entry(g, e))
        e = e->a[0]; /* reinterpreting casts keep the bits */
    if (e->kind == MDL_E_COND && !fold(g, e->a[0], &k) && !ex_vary(g, e->a[0], g->vary, g->nloc) &&
        ex_vary(g, e, g->vary, g->nloc) && !cse_entry(g, e)) {
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
    store(g, dst, sg_expr(g, e), NULL);
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
        open(g);
        es[nes++] = s->e;
        cse_begin(g, es, nes);
        if (!g->mask && s->local >= 0 && s->local < g->nloc && g->vary[s->local] &&
            (s->e->kind == MDL_E_COND || s->e->kind == MDL_E_CAST)) {
            into(g, s->e, sg_fmt(g, "%s[%d]", g->lv, s->local));
            cse_end(g);
            close_(g);
            return;
        }
        struct sv v = sg_expr(g, s->e);
        assign_local(g, s->local, v, s->loc);
        cse_end(g);
        close_(g);
        return;
    }
    case MDL_S_ASSIGN: {
        const struct mdl_expr *t = s->target;
        if (g->inl && t->kind == MDL_E_LOCAL && t->index >= 0 && t->index < g->nloc && g->inl[t->index] == s->e)
            return; /* computed where it is read */
        open(g);
        es[nes++] = s->e;
        if ((t->kind == MDL_E_STATE || t->kind == MDL_E_SPACE) && t->a && t->a[0])
            es[nes++] = t->a[0];
        cse_begin(g, es, nes);
        if (t->kind == MDL_E_LOCAL && !g->mask && t->index >= 0 && t->index < g->nloc && g->vary[t->index] &&
            !(g->ptrloc && g->ptrloc[t->index]) && (s->e->kind == MDL_E_COND || s->e->kind == MDL_E_CAST)) {
            into(g, s->e, sg_fmt(g, "%s[%d]", g->lv, t->index));
            cse_end(g);
            close_(g);
            return;
        }
        struct sv v = sg_expr(g, s->e);
        if (t->kind == MDL_E_LOCAL) {
            assign_local(g, t->index, v, s->loc);
        } else if (t->kind == MDL_E_STATE) {
            const char *idx = g->m->states[t->index].count > 0 && t->a && t->a[0] ? uni(g, sg_expr(g, t->a[0])) : NULL;
            state_write(g, t->index, idx, v);
        } else if (t->kind == MDL_E_SPACE) {
            const char *val = vec_of(g, v);
            space_write(g, t->index, uni(g, sg_expr(g, t->a[0])), val);
        } else {
            sg_error(g, s->loc, "bad assignment target");
        }
        cse_end(g);
        close_(g);
        return;
    }
    case MDL_S_WRITE: {
        open(g);
        es[nes++] = s->e;
        cse_begin(g, es, nes);
        struct sv v = sg_expr(g, s->e);
        write_operand(g, s, v);
        cse_end(g);
        close_(g);
        return;
    }
    case MDL_S_IF: {
        if (fold(g, s->e, &k)) {
            if (k)
                sg_stmts(g, s->body, s->nbody);
            else
                sg_stmts(g, s->elseb, s->nelse);
            return;
        }
        open(g);
        es[nes++] = s->e;
        cse_begin(g, es, nes);
        struct sv c;
        const char *mt = NULL;
        if (ex_vary(g, s->e, g->vary, g->nloc)) {
            c = V("0u", NULL);
            mt = mask_expr(g, s->e);
        } else
            c = sg_expr(g, s->e);
        cse_end(g);
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
        close_(g);
        return;
    }
    case MDL_S_HOOK: {
        open(g);
        for (int j = 0; j < s->nargs && nes < 16; j++)
            es[nes++] = s->args[j];
        cse_begin(g, es, nes);
        const char **args = tsr_arena_alloc(&g->ar, sizeof *args * (size_t)(s->nargs + 1));
        for (int j = 0; j < s->nargs; j++)
            args[j] = uni(g, sg_expr(g, s->args[j]));
        cse_end(g);
        bool rv = s->hook >= 0 && s->hook < g->m->nhooks && g->m->hooks[s->hook].returns_value;
        if (rv)
            sg_line(g, "uint32_t hv[%d] = {0};", g->L);
        hook_call(g, s->hook, "TSR_HOOK_STMT", args, s->nargs, rv ? "hv" : "NULL", NULL, NULL);
        close_(g);
        return;
    }
    case MDL_S_JUMP: case MDL_S_HALT: {
        uint64_t delay = 0;
        if (s->nargs > 0 && !const_index(s->args[0], &delay)) {
            sg_error(g, s->loc, "the delay of %s must be a constant", s->kind == MDL_S_JUMP ? "jump" : "halt");
            return;
        }
        open(g);
        if (s->kind == MDL_S_JUMP) {
            es[nes++] = s->e;
            cse_begin(g, es, nes);
            const char *t = uni(g, sg_expr(g, s->e));
            cse_end(g);
            sg_line(g, "if ((rc = tsr_sim_request_jump(&S->core, pc, %s, %" PRIu64 ")) != 0) goto out;", t, delay);
        } else {
            sg_line(g, "if ((rc = tsr_sim_request_halt(&S->core, pc, %" PRIu64 ")) != 0) goto out;", delay);
        }
        close_(g);
        return;
    }
    case MDL_S_BLOCK:
        sg_stmts(g, s->body, s->nbody);
        return;
    }
    sg_error(g, s->loc, "unknown statement kind %d", (int)s->kind);
}

void sg_stmts(struct sg *g, struct mdl_stmt **s, int n)
{
    for (int i = 0; i < n; i++)
        stmt(g, s[i]);
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
    for (int a = 0; a < o->nalt; a++) {
        sg_line(g, "if (k < 0) {");
        g->ind++;
        const char *c = "1";
        for (int j = 0; j < o->alt[a].ncond; j++)
            c = sg_fmt(g, "%s && %s", c, uni(g, sg_expr(g, o->alt[a].cond[j].e)));
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
        cse_begin(g, &re, 1);
        struct sv v = sg_expr(g, re);
        if (v.vary && v.vec && v.stable) {
            sg_line(g, "*out = %s;", v.vec);
        } else if (v.vary && v.vec && v.spbuf) {
            sg_line(g, "if (%s != %s)", v.vec, v.spbuf);
            sg_line(g, "    *out = %s;", v.vec);
            sg_line(g, "else");
            sg_line(g, "    memcpy(buf, %s, %d * sizeof *buf);", v.spbuf, g->L);
        } else {
            store(g, "buf", v, NULL);
        }
        cse_end(g);
        sg_line(g, "break;");
        g->ind--;
        sg_line(g, "}");
    }
    sg_line(g, "default: break;");
    sg_line(g, "}");
    tsr_buf_puts(g->o, "out:\n");
    sg_line(g, "return rc;");
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
            sg_line(g, "if ((rc = sim_opnd_%d(S, I, pc, \"%s\", &%s[%d], lb_%d[%d], &%s[%d])) != 0) goto out;", fn,
                    op->name, g->altv, p->local, g->slot, p->local, g->lp, p->local);
        } else if (any && g->vary[p->local]) {
            sg_line(g, "const uint32_t *tp;");
            sg_line(g, "if ((rc = sim_opnd_%d(S, I, pc, \"%s\", &%s[%d], lb_%d[%d], &tp)) != 0) goto out;", fn, op->name,
                    g->altv, p->local, g->slot, p->local);
            sg_line(g, "memcpy(%s[%d], tp, sizeof %s[%d]);", g->lv, p->local, g->lv, p->local);
        } else {
            sg_line(g, "uint32_t tb[%d];", g->L);
            sg_line(g, "const uint32_t *tp;");
            sg_line(g, "if ((rc = sim_opnd_%d(S, I, pc, \"%s\", &%s[%d], tb, &tp)) != 0) goto out;", fn, op->name,
                    g->altv, p->local);
            if (any)
                sg_line(g, "%s[%d] = tp[0];", g->lu, p->local);
        }
        g->ind--;
        sg_line(g, "}");
    }
}
