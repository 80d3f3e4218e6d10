/* The simulator emitter's helpers: text output, the forms of a compiled value (lane expression, vector
 * expression, array, mask), the analyses of a scope (which locals vary, need zeroing, can be computed where
 * they are read) and constant folding with the fields a scope knows.  gen/emit_sim.h describes the model. */
#include <ctype.h>
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





/* The vector form of v, or NULL: an expression of type sim_v (4 lanes, GNU vector extension) for the lanes
 * 4q..4q+3 of v, evaluated in a loop over the chunks q; arrays load, uniform values broadcast. */
const char *sg_vt(struct sg *g, struct sv v)
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



/* Stores v into the array dst (all lanes, or the lanes of mask when not NULL): as a vector when v has a
 * vector form, else with a lane loop. */
void sg_store(struct sg *g, const char *dst, struct sv v, const char *mask)
{
    const char *vt = sg_vt(g, v);
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
const char *sg_vec(struct sg *g, struct sv v)
{
    if (v.vec)
        return v.vec;
    const char *t = sg_tmp(g, "tv");
    sg_line(g, "uint32_t %s[%d];", t, g->L);
    sg_store(g, t, v, NULL);
    return t;
}

/* The uniform value of v: lane 0 if it varies (mdl/eval.h: indices etc. come from lane 0). */
const char *sg_uni(struct sg *g, struct sv v)
{
    if (!v.vary)
        return v.t;
    return sg_fmt(g, "%s[0]", sg_vec(g, v));
}

/* A lane mask (uint32_t variable) of the lanes of the current mask where v is not zero. */
const char *sg_mask(struct sg *g, struct sv v)
{
    const char *t = sg_tmp(g, "m");
    if (!v.vary) {
        sg_line(g, "const uint32_t %s = (%s) ? %s : 0u;", t, v.t, M(g));
        return t;
    }
    const char *vt = sg_vt(g, v);
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
bool sg_simple_text(const char *t)
{
    for (; *t; t++)
        if (!((*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z') || (*t >= '0' && *t <= '9') || *t == '_' ||
              *t == '[' || *t == ']' || *t == '.' || *t == '>' || *t == '-'))
            return false;
    return true;
}

/* No calls of out-of-line built-ins or tables (evaluating it unconditionally costs a few instructions). */
bool sg_cheap(const struct mdl_expr *e)
{
    if (!e)
        return true;
    if ((e->kind == MDL_E_CALL && e->index != MDL_B_ELEM) || e->kind == MDL_E_TABLE || e->kind == MDL_E_SPACE ||
        e->kind == MDL_E_FWD)
        return false;
    for (int i = 0; i < mdl_expr_arity(e); i++)
        if (!sg_cheap(e->a[i]))
            return false;
    return true;
}

/* A uniform value used inside a lane loop: kept in a scalar first unless it is a plain name. */
struct sv sg_hoist(struct sg *g, struct sv v)
{
    if (v.vary || sg_simple_text(v.t))
        return v;
    const char *t = sg_tmp(g, "h");
    sg_line(g, "const uint32_t %s = %s;", t, v.t);
    return U(t);
}


bool sg_const_index(const struct mdl_expr *e, uint64_t *v)
{
    if (e->kind == MDL_E_INT) {
        *v = e->ival;
        return true;
    }
    return mdl_const_eval(e, v) == 0;
}

/* ---- analyses ----------------------------------------------------------------------------------------- */

bool sg_vary(const struct sg *g, const struct mdl_expr *e, const bool *vary, int nloc)
{
    if (!e)
        return false;
    /* X11: a vec4 value is one value per component (lane), whatever its parts: splat(x) of a uniform x is
       varying once the expression compiler has spread it (a ?: or min/max with a vec4 arm) */
    if (e->type == MDL_T_VEC4)
        return true;
    switch (e->kind) {
    case MDL_E_INT: case MDL_E_FLOAT: case MDL_E_FIELD: case MDL_E_CODE: case MDL_E_ATTR:
        return false;
    case MDL_E_LOCAL:
        return e->index >= 0 && e->index < nloc && vary[e->index];
    case MDL_E_STATE:
        return g->m->states[e->index].vec;
    case MDL_E_FWD:   /* (addition) X6 */
        return g->m->fwds[e->index].vec;
    case MDL_E_SPACE: case MDL_E_VALUE:
        return true;
    case MDL_E_CALL:
        if (e->index == MDL_B_ELEM)
            return true;
        if (e->index == MDL_B_ALL || e->index == MDL_B_ANY || e->index == MDL_B_LANE || e->index == MDL_B_COMP ||
            e->index == MDL_B_SPLAT)
            return false;
        if (e->index == MDL_B_VEC4)
            return true;   /* X11: one value per component */
        break;
    default:
        break;
    }
    for (int i = 0; i < mdl_expr_arity(e); i++)
        if (sg_vary(g, e->a[i], vary, nloc))
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
            set_vary(vary, nloc, st->local, vmask || sg_vary(g, st->e, vary, nloc), ch);
            break;
        case MDL_S_ASSIGN:
            if (st->target && st->target->kind == MDL_E_LOCAL)
                set_vary(vary, nloc, st->target->index, vmask || sg_vary(g, st->e, vary, nloc), ch);
            break;
        case MDL_S_IF: {
            bool c = vmask || sg_vary(g, st->e, vary, nloc);
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
                set_vary(vary, nloc, p->local, sg_vary(g, o->alt[k].read, vary, nloc), &ch);
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
        if (reads_local(s[k]->e, i) || (s[k]->target && s[k]->target->kind != MDL_E_LOCAL && reads_local(s[k]->target, i)) ||
            reads_local(s[k]->mask, i))
            return true;
        for (int j = 0; j < s[k]->nargs; j++)
            if (reads_local(s[k]->args[j], i))
                return true;
        if (stmts_read_local(s[k]->body, s[k]->nbody, i) || stmts_read_local(s[k]->elseb, s[k]->nelse, i))
            return true;
    }
    return false;
}

int sg_op_nloc(const struct mdl_op *op, const struct mdl_slot *sl)
{
    int n = op->nlocals, k = sg_max_local(op->sem, op->nsem) + 1, k2 = sg_max_local(sl->commit, sl->ncommit) + 1;
    if (k > n) n = k;
    if (k2 > n) n = k2;
    for (int i = 0; i < op->tmpl.nparts; i++)
        if (op->tmpl.parts[i].kind == MDL_TP_OPND && op->tmpl.parts[i].local + 1 > n)
            n = op->tmpl.parts[i].local + 1;
    return n;
}

void sg_op_known(struct sg *g, const struct mdl_op *op, const bool *fknown, const uint64_t *fkval)
{
    const struct mdl_model *m = g->m;
    memcpy(g->known, fknown, (size_t)m->nfields * sizeof *fknown);
    memcpy(g->kval, fkval, (size_t)m->nfields * sizeof *fkval);
    for (int i = 0; i < op->ncond; i++) {
        const struct mdl_cond *c = &op->cond[i];
        if (c->binding && c->field >= 0 && c->field < m->nfields && c->field2 < 0) {
            g->known[c->field] = true;
            g->kval[c->field] = c->val;
        }
    }
}

const bool *sg_commit_uniform_reads(struct sg *g, const struct mdl_slot *sl, const bool *fknown, const uint64_t *fkval)
{
    int nmax = 0;
    for (int j = 0; j < sl->nops; j++)
        if (sg_op_nloc(&g->m->ops[sl->ops[j]], sl) > nmax)
            nmax = sg_op_nloc(&g->m->ops[sl->ops[j]], sl);
    bool *reads = tsr_arena_alloc(&g->ar, (size_t)(nmax + 1) * sizeof *reads);
    bool *uni = tsr_arena_alloc(&g->ar, (size_t)(nmax + 1) * sizeof *uni);
    bool *vary = tsr_arena_alloc(&g->ar, (size_t)(nmax + 1) * sizeof *vary);
    memset(uni, 0, (size_t)(nmax + 1) * sizeof *uni);
    for (int i = 0; i < nmax; i++)
        reads[i] = stmts_read_local(sl->commit, sl->ncommit, i);
    bool any = false;
    for (int j = 0; j < sl->nops; j++) {
        const struct mdl_op *op = &g->m->ops[sl->ops[j]];
        int n = sg_op_nloc(op, sl);
        sg_op_known(g, op, fknown, fkval);
        sg_analyse_op(g, op, sl, vary, n);
        for (int i = 0; i < n; i++)
            if (!vary[i] && reads[i])
                any = uni[i] = true;
    }
    return any ? uni : NULL;
}


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
        if (!sg_cheap(st->e) || mdl_expr_has_effects(g->m, st->e) || !locals_ok(st->e, ptrloc, inl, nloc))
            continue;
        inl[k] = st->e;
    }
}

/* ---- guarded locals: a pure definition read only under one condition on fields, computed under it ---- */

#define GD_MAX 32   /* enclosing conditions followed (deeper ones are not guards) */

/* A condition whose value is the same wherever the op's code reads it: constants, fields and attributes under
 * operators, conditions, casts and tables (no locals, no state, no calls). */
static bool field_cond(const struct mdl_expr *e)
{
    if (!e)
        return false;
    switch (e->kind) {
    case MDL_E_INT: case MDL_E_FLOAT: case MDL_E_FIELD: case MDL_E_ATTR:
        return true;
    case MDL_E_UN: case MDL_E_BIN: case MDL_E_COND: case MDL_E_CAST: case MDL_E_TABLE:
        for (int k = 0; k < mdl_expr_arity(e); k++)
            if (!field_cond(e->a[k]))
                return false;
        return true;
    default:
        return false;
    }
}

struct gd_walk {
    int local;
    const struct mdl_expr *stk[GD_MAX];   /* the enclosing conditions on fields (with their polarity) */
    bool pol[GD_MAX];
    int n;
    const struct mdl_expr *cand[GD_MAX];  /* the conditions every read so far is under */
    bool cpol[GD_MAX];
    int nc;
    bool reads, fail;
};

static void gd_read(struct gd_walk *w)
{
    if (!w->reads) {
        w->reads = true;
        for (int k = 0; k < w->n; k++)
            w->cand[k] = w->stk[k], w->cpol[k] = w->pol[k];
        w->nc = w->n;
    } else {
        int nc = 0;
        for (int c = 0; c < w->nc; c++) {
            bool in = false;
            for (int k = 0; k < w->n && !in; k++)
                in = w->pol[k] == w->cpol[c] && sg_expr_eq(w->stk[k], w->cand[c]);
            if (in)
                w->cand[nc] = w->cand[c], w->cpol[nc++] = w->cpol[c];
        }
        w->nc = nc;
    }
    if (!w->nc)
        w->fail = true;
}

static void gd_expr(struct gd_walk *w, const struct mdl_expr *e);

/* e read under condition c holding (pol) */
static void gd_under(struct gd_walk *w, const struct mdl_expr *c, bool pol, const struct mdl_expr *e)
{
    if (!field_cond(c) || w->n == GD_MAX) {
        gd_expr(w, e);
        return;
    }
    w->stk[w->n] = c;
    w->pol[w->n++] = pol;
    gd_expr(w, e);
    w->n--;
}

static void gd_expr(struct gd_walk *w, const struct mdl_expr *e)
{
    if (!e || w->fail)
        return;
    if (e->kind == MDL_E_LOCAL) {
        if (e->index == w->local)
            gd_read(w);
        return;
    }
    if (e->kind == MDL_E_COND) {
        gd_expr(w, e->a[0]);
        gd_under(w, e->a[0], true, e->a[1]);
        gd_under(w, e->a[0], false, e->a[2]);
        return;
    }
    if (e->kind == MDL_E_BIN && (e->op == MDL_OP_LAND || e->op == MDL_OP_LOR)) {
        gd_expr(w, e->a[0]);
        gd_under(w, e->a[0], e->op == MDL_OP_LAND, e->a[1]);
        return;
    }
    for (int k = 0; k < mdl_expr_arity(e); k++)
        gd_expr(w, e->a[k]);
}

static void gd_stmts(struct gd_walk *w, struct mdl_stmt **s, int n);

static void gd_body(struct gd_walk *w, const struct mdl_expr *c, bool pol, struct mdl_stmt **s, int n)
{
    if (!field_cond(c) || w->n == GD_MAX) {
        gd_stmts(w, s, n);
        return;
    }
    w->stk[w->n] = c;
    w->pol[w->n++] = pol;
    gd_stmts(w, s, n);
    w->n--;
}

static void gd_stmts(struct gd_walk *w, struct mdl_stmt **s, int n)
{
    for (int k = 0; k < n && !w->fail; k++) {
        gd_expr(w, s[k]->e);
        if (s[k]->target && s[k]->target->kind != MDL_E_LOCAL)
            gd_expr(w, s[k]->target);
        gd_expr(w, s[k]->mask);
        for (int j = 0; j < s[k]->nargs; j++)
            gd_expr(w, s[k]->args[j]);
        if (s[k]->kind == MDL_S_IF) {
            gd_body(w, s[k]->e, true, s[k]->body, s[k]->nbody);
            gd_body(w, s[k]->e, false, s[k]->elseb, s[k]->nelse);
        } else {
            gd_stmts(w, s[k]->body, s[k]->nbody);
            gd_stmts(w, s[k]->elseb, s[k]->nelse);
        }
    }
}

void sg_guard_locals(struct sg *g, const struct mdl_op *op, const struct mdl_slot *sl, const bool *ptrloc,
                     const struct mdl_expr **inl, struct sg_guard *gd, int nloc)
{
    int *cnt = tsr_arena_alloc(&g->ar, (size_t)(nloc + 1) * sizeof *cnt);
    memset(cnt, 0, (size_t)(nloc + 1) * sizeof *cnt);
    memset(gd, 0, (size_t)nloc * sizeof *gd);
    count_assign(op->sem, op->nsem, cnt, nloc);
    count_assign(sl->commit, sl->ncommit, cnt, nloc);
    struct mdl_stmt **seq = op->sem;   /* the statements the op runs in sequence (`sem { ... }` is one block) */
    int nseq = op->nsem;
    while (nseq == 1 && seq[0]->kind == MDL_S_BLOCK)
        nseq = seq[0]->nbody, seq = seq[0]->body;
    for (int i = 0; i < nseq; i++) {
        const struct mdl_stmt *st = seq[i];
        int k = st->kind == MDL_S_LET ? st->local : -1;
        if (k < 0 || k >= nloc || cnt[k] != 1 || ptrloc[k] || inl[k] || mdl_expr_has_effects(g->m, st->e))
            continue;
        bool bound = false;
        for (int p = 0; p < op->tmpl.nparts; p++)
            bound = bound || (op->tmpl.parts[p].kind == MDL_TP_OPND && op->tmpl.parts[p].local == k);
        if (bound || stmts_read_local(seq, i + 1, k) || stmts_read_local(sl->commit, sl->ncommit, k))
            continue;   /* (read by its own definition or before it, or by the commit, whose scope differs) */
        struct gd_walk w = {.local = k};
        gd_stmts(&w, seq + i + 1, nseq - i - 1);
        if (w.reads && !w.fail && w.nc > 0)
            gd[k] = (struct sg_guard){st, w.cand[0], w.cpol[0]};
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
        if (f->kind == MDL_E_FIELD && c->kind != MDL_E_FIELD && sg_const_index(c, &v)) {
            const struct mdl_field *fd = &g->m->fields[f->index];
            g->known[f->index] = true;
            g->kval[f->index] = v & (fd->width >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << fd->width) - 1));
        }
    }
}

/* True and *v if e has the same value in every lane whenever the scope runs (no effects skipped). */
bool sg_fold(struct sg *g, const struct mdl_expr *e, uint32_t *v)
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
        if (!sg_fold(g, e->a[0], &a))
            return false;
        *v = mdl_sem_unop(e, a);
        return true;
    case MDL_E_BIN:
        if (!sg_fold(g, e->a[0], &a))
            return false;
        if (e->op == MDL_OP_LAND && !a)
            return *v = 0, true;
        if (e->op == MDL_OP_LOR && a)
            return *v = 1, true;
        if (!sg_fold(g, e->a[1], &b))
            return false;
        *v = mdl_sem_binop(g->m, e, a, b);
        return true;
    case MDL_E_COND:
        if (!sg_fold(g, e->a[0], &a))
            return false;
        return sg_fold(g, e->a[a ? 1 : 2], v);
    case MDL_E_CAST:
        if (!sg_fold(g, e->a[0], &a))
            return false;
        *v = tsr_sem_cast(a, (int)e->a[0]->type, (int)e->type);
        return true;
    case MDL_E_TABLE:
        if (!sg_fold(g, e->a[0], &a) || e->index < 0 || e->index >= g->m->ntables)
            return false;
        *v = mdl_table_value(&g->m->tables[e->index], a);
        return true;
    default:
        return false;
    }
}

/* Whether C text `t` (n bytes) names identifier `id` (not as part of a longer identifier). */
static bool names_id(const char *t, size_t n, const char *id)
{
    size_t k = strlen(id);
    for (size_t i = 0; i + k <= n; i++)
        if (!memcmp(t + i, id, k) && (i == 0 || !(isalnum((unsigned char)t[i - 1]) || t[i - 1] == '_')) &&
            (i + k == n || !(isalnum((unsigned char)t[i + k]) || t[i + k] == '_')))
            return true;
    return false;
}

/* sg_part: see emit_sim.h. */
/* One op's case body (emit_op's text, ending in its `break;` at indentation `ind`) as a function sim_part_N of
 * g->parts; returns N.  Its parameters are the locals of the format's scope (emit_format) that the body names,
 * as pointers to their rows (the body's text is unchanged: lv_K[i][l], sizeof lv_K[i]); a `goto out` returns
 * its rc (never TSR_SIM_OK), the end of the body returns TSR_SIM_OK, so the call
 * `if ((rc = sim_part_N(...)) != TSR_SIM_OK) goto out;` does what the body did in place.  *args receives the
 * call's argument list. */
int sg_part(struct sg *g, const struct tsr_buf *body, int ind, const char *what, const char **args)
{
    const struct mdl_model *m = g->m;
    struct tsr_buf *o = g->parts;
    struct tsr_buf params = {0}, call = {0}, voids = {0};
    static const char *const kinds[] = {"lv", "lu", "lb", "lp", "alt"};
    for (int k = -1; k < m->nslots; k++)   /* k = -1: the format's own locals */
        for (int j = 0; j < (k < 0 ? 3 : 5); j++) {
            char id[32];
            const char *type;
            if (k < 0) {
                snprintf(id, sizeof id, "%s", j == 0 ? "fv" : j == 1 ? "fu" : "attrs_any");
                type = j == 0 ? "uint32_t (*%s)[%d]" : j == 1 ? "uint32_t *%s" : "uint64_t %s";
            } else {
                snprintf(id, sizeof id, "%s_%d", kinds[j], k);
                type = j == 0 || j == 2 ? "uint32_t (*%s)[%d]" : j == 1 ? "uint32_t *%s" :
                       j == 3 ? "const uint32_t **%s" : "int *%s";
            }
            if (!names_id(body->data, body->len, id))
                continue;
            tsr_buf_puts(&params, ", ");
            tsr_buf_printf(&params, type, id, g->L);
            tsr_buf_printf(&call, ", %s", id);
            tsr_buf_printf(&voids, "    (void)%s;\n", id);   /* it may be named in a comment only */
        }
    int n = g->nparts++;
    tsr_buf_printf(o, "/* %s */\nSIM_PART int sim_part_%d(struct %s_sim *S, const struct %s_inst *I, uint32_t pc%s%.*s)\n{\n"
                   "    int rc = TSR_SIM_OK;\n    (void)S;\n    (void)I;\n    (void)pc;\n%s%.*s", what, n, m->name, m->name,
                   g->jparm, (int)params.len, params.len ? params.data : "", m->nfwds ? "    (void)J;\n" : "",
                   (int)voids.len, voids.len ? voids.data : "");
    /* the body, one level of indentation deep; a `break;` leaving the op's case returns TSR_SIM_OK */
    size_t cut = (size_t)ind * 4;
    const char *p = body->data, *end = body->data + body->len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        size_t sp = 0;
        while (sp < len && sp < cut && p[sp] == ' ')
            sp++;
        if (sp == cut && len - sp == 6 && !memcmp(p + sp, "break;", 6))
            tsr_buf_puts(o, "    return TSR_SIM_OK;\n");
        else
            tsr_buf_printf(o, "    %.*s\n", (int)(len - sp), p + sp);
        p += len + (nl != NULL);
    }
    tsr_buf_puts(o, "out: __attribute__((unused));\n    return rc;\n}\n\n");
    *args = sg_fmt(g, "%.*s", (int)call.len, call.len ? call.data : "");
    tsr_buf_free(&params);
    tsr_buf_free(&call);
    tsr_buf_free(&voids);
    return n;
}
