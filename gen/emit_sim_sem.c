/* The simulator emitter's compiler of semantics: expressions of one scope (an op with its slot's commit, or
 * a format) to C, with lazily shared subexpressions (statements: emit_sim_stmt.c).  The rules it implements are those of
 * the evaluator (mdl/eval.h); the shape of the emitted code is described in gen/emit_sim.h. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bits.h"
#include "emit_derived.h"
#include "emit_sim.h"
#include "emit_util.h"
#include "eval.h"
#include "sem.h"

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

bool sg_expr_eq(const struct mdl_expr *a, const struct mdl_expr *b)
{
    return eeq(a, b);
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
    if (sg_fold(g, e, &k))
        return;
    if (e->kind == MDL_E_COND && sg_fold(g, e->a[0], &k)) {
        cse_collect(g, e->a[k ? 1 : 2]);
        return;
    }
    if (e->kind == MDL_E_BIN && (e->op == MDL_OP_LAND || e->op == MDL_OP_LOR) && sg_fold(g, e->a[0], &k)) {
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

void sg_cse_begin(struct sg *g, const struct mdl_expr *const *es, int n)
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

void sg_cse_end(struct sg *g)
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

struct sg_cse *sg_cse_entry(struct sg *g, const struct mdl_expr *e)
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
        sg_store(g, t, v, NULL);
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
    if (mdl_type_float(a) && mdl_type_float(b))
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
    {MDL_B_FLOOR, "tsr_sem_floor", 1, true}, {MDL_B_ROUND, "tsr_sem_round", 1, true},
    {MDL_B_FRACT, "tsr_sem_fract", 1, true}, {MDL_B_RSQRT, "tsr_sem_rsqrt", 1, true},
    {MDL_B_RCP, "tsr_sem_rcp", 1, true}, {MDL_B_EXP2, "tsr_sem_exp2", 1, true},
    {MDL_B_LOG2, "tsr_sem_log2", 1, true}, {MDL_B_SIN, "tsr_sem_sin", 1, true},
    {MDL_B_COS, "tsr_sem_cos", 1, true}, {MDL_B_FMA, "tsr_sem_fma", 3, true},
};

static struct sv call(struct sg *g, const struct mdl_expr *e)
{
    int L = g->L;
    if (e->index == MDL_B_ELEM)
        return g->vec_ok ? VV("((uint32_t)l)", "(sim_velem + 4u * (uint32_t)q)") : V("((uint32_t)l)", NULL);
    struct sv a[5];
    if (e->nargs > 5) {
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
                a[j] = sg_hoist(g, a[j]);
            t = sg_fmt(g, "%s%s%s", t, j ? ", " : "", a[j].t);
        }
        t = sg_fmt(g, b->fm ? "%s, %d)" : "%s)", t, g->m->float_mode);
        if (!vary)
            return U(t);
        /* vector forms of the cheap integer built-ins (the others call arith.h lane by lane) */
        const char *v0 = b->nargs > 0 ? sg_vt(g, a[0]) : NULL, *v1 = b->nargs > 1 ? sg_vt(g, a[1]) : NULL;
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
            if (v0 && v1 && (g->m->float_mode == TSR_FLOAT_FTZ_RTZ || g->m->float_mode == TSR_FLOAT_IEEE))
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
            const char *v2 = sg_vt(g, a[2]), *v3 = sg_vt(g, a[3]);
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
    /* X11 component values: the lanes are the 4 components (mdl_sim_lanes); scalars are uniform */
    case MDL_B_COMP:
        if (e->nargs == 2) {
            if (!a[0].vary)
                return a[0];
            return U(sg_fmt(g, "tsr_sem_comp(%s, %s)", sg_vec(g, a[0]), sg_uni(g, a[1])));
        }
        break;
    case MDL_B_SPLAT:
        if (e->nargs == 1)
            return a[0].vary ? U(sg_uni(g, a[0])) : a[0];
        break;
    case MDL_B_VEC4:
        if (e->nargs == 4) {
            for (int i = 0; i < 4; i++)
                a[i] = sg_hoist(g, a[i]);
            return V(sg_fmt(g, "(l == 0 ? %s : l == 1 ? %s : l == 2 ? %s : %s)", a[0].t, a[1].t, a[2].t, a[3].t), NULL);
        }
        break;
    case MDL_B_SWIZZLE:
        if (e->nargs == 5) {
            if (!a[0].vary)
                return a[0];
            const char *x = sg_vec(g, a[0]), *i0 = sg_uni(g, a[1]), *i1 = sg_uni(g, a[2]), *i2 = sg_uni(g, a[3]);
            const char *i3 = sg_uni(g, a[4]), *t = sg_tmp(g, "tr");
            sg_line(g, "uint32_t %s[%d];", t, L);
            sg_line(g, "tsr_sem_swizzle(%s, %s, %s, %s, %s, %s);", t, x, i0, i1, i2, i3);
            return V(sg_fmt(g, "%s[l]", t), t);
        }
        break;
    case MDL_B_LANE:
        if (e->nargs == 2) {
            if (!a[0].vary)
                return a[0];
            return U(sg_fmt(g, "tsr_sem_lane(%s, %s, %d)", sg_vec(g, a[0]), sg_uni(g, a[1]), L));
        }
        break;
    case MDL_B_ROTATE: case MDL_B_ROTATE_QUAD:
        if (e->nargs == 2) {
            const char *x = sg_vec(g, a[0]), *n = sg_uni(g, a[1]), *t = sg_tmp(g, "tr");
            sg_line(g, "uint32_t %s[%d];", t, L);
            sg_line(g, "%s(%s, %s, %s, %d);", e->index == MDL_B_ROTATE ? "tsr_sem_rotate" : "tsr_sem_rotate_quad", t,
                    x, n, L);
            return V(sg_fmt(g, "%s[l]", t), t);
        }
        break;
    case MDL_B_QUAD_BCAST:
        if (e->nargs == 1) {
            const char *x = sg_vec(g, a[0]), *t = sg_tmp(g, "tr");
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
            const char *v0 = sg_vt(g, a[0]);
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
    sg_store(g, t, v, NULL);
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
    if (sg_fold(g, e, &k))
        return true;
    switch (e->kind) {
    case MDL_E_SPACE: case MDL_E_FWD:
        return false;
    case MDL_E_STATE:
        if (mdl_expr_has_effects(g->m, e))
            return false;
        break;
    case MDL_E_COND:
        if (sg_fold(g, e->a[0], &k))
            return inline_ok(g, e->a[k ? 1 : 2]);
        break;
    case MDL_E_CALL:
        switch (e->index) {
        case MDL_B_LANE: case MDL_B_ALL: case MDL_B_ANY: case MDL_B_COMP: case MDL_B_SPLAT:
            if (e->nargs > 0 && sg_vary(g, e->a[0], g->vary, g->nloc))
                return false;
            break;
        case MDL_B_ROTATE: case MDL_B_ROTATE_QUAD: case MDL_B_QUAD_BCAST: case MDL_B_SWIZZLE:
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
    if (sg_fold(g, e->a[0], &k))
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
            struct sv ch = sg_hoist(g, c);
            struct sv a = sg_expr(g, e->a[1]), b = sg_expr(g, e->a[2]);
            g->ncse = ncse;
            if (a.vary && b.vary && a.vec && b.vec && a.stable && b.stable) {
                sg_line(g, "const uint32_t *%s = (%s) ? %s : %s;", t, ch.t, a.vec, b.vec);
                return VS(sg_fmt(g, "%s[l]", t), t);
            }
            const char *x = sg_fmt(g, "((%s) ? %s : %s)", ch.t, a.t, b.t);
            if (!a.vary && !b.vary)
                return U(x);
            const char *va = sg_vt(g, a), *vb = sg_vt(g, b);
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
        sg_store(g, t, a, NULL);
        g->ind--;
        sg_line(g, "} else {");
        g->ind++;
        struct sv b = sg_expr(g, e->a[2]);
        sg_store(g, t, b, NULL);
        g->ind--;
        sg_line(g, "}");
        return V(sg_fmt(g, "%s[l]", t), t);
    }
    const char *cv = sg_vec(g, c);
    const char *ct = sg_fmt(g, "%s[l]", cv);
    struct sv a, b;
    if (ea || eb) {
        const char *m = sg_mask(g, V(ct, cv));
        a = lazy(g, e->a[1], m);
        const char *nm = sg_tmp(g, "m");
        sg_line(g, "const uint32_t %s = %s & ~%s;", nm, M(g), m);
        b = lazy(g, e->a[2], nm);
    } else {
        a = sg_hoist(g, sg_expr(g, e->a[1]));
        b = sg_hoist(g, sg_expr(g, e->a[2]));
    }
    const char *x = sg_fmt(g, "(%s ? %s : %s)", ct, a.t, b.t);
    const char *vc = sg_vt(g, V(ct, cv)), *va = sg_vt(g, a), *vb = sg_vt(g, b);
    if (vc && va && vb)
        return VV(x, sg_fmt(g, "SIM_VSEL(%s, %s, %s)", vc, va, vb));
    return V(x, NULL);
}

static struct sv logic(struct sg *g, const struct mdl_expr *e)
{
    bool and = e->op == MDL_OP_LAND;
    uint32_t k;
    if (sg_fold(g, e->a[0], &k)) { /* (a && b with a true, a || b with a false: b decides; else folded) */
        struct sv b = sg_expr(g, e->a[1]);
        const char *t = sg_fmt(g, "((uint32_t)((%s) != 0))", b.t);
        if (!b.vary)
            return U(t);
        const char *vb = sg_vt(g, b);
        return vb ? VV(t, sg_fmt(g, "((sim_v)(%s != 0u) & 1u)", vb)) : V(t, NULL);
    }
    struct sv a = sg_expr(g, e->a[0]);
    bool beff = mdl_expr_has_effects(g->m, e->a[1]);
    if (!a.vary && (beff ? !sg_vary(g, e->a[1], g->vary, g->nloc) : !inline_ok(g, e->a[1]))) {
        /* b needs statements (cross-lane values, hoisted conditions), or has effects (a read at a field's index,
           which may be out of range) and is uniform like a: evaluated only when a does not decide, and the
           value stays uniform (a uniform local may take it) */
        const char *t = sg_tmp(g, "tl");
        bool bv = sg_vary(g, e->a[1], g->vary, g->nloc);
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
            a = sg_hoist(g, a);
            b = sg_hoist(g, b);
            /* the bitwise form's operands are cast to uint32_t: clang's -Wbitwise-instead-of-logical takes two
               comparisons that call functions (float compares) for a mistaken || */
            const char *t = sg_cheap(e->a[1])
                ? sg_fmt(g, "((uint32_t)((uint32_t)((%s) != 0) %s (uint32_t)((%s) != 0)))", a.t, and ? "&" : "|", b.t)
                : sg_fmt(g, "((uint32_t)(((%s) != 0) %s ((%s) != 0)))", a.t, and ? "&&" : "||", b.t);
            const char *va = sg_vt(g, a), *vb = sg_vt(g, b);
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
    const char *m = sg_mask(g, a);
    const char *sub = m;
    if (!and) {
        sub = sg_tmp(g, "m");
        sg_line(g, "const uint32_t %s = %s & ~%s;", sub, M(g), m);
    }
    struct sv b = lazy(g, e->a[1], sub);
    const char *t = sg_fmt(g, "((uint32_t)((%s) != 0 %s (%s) != 0))", a.t, and ? "&&" : "||", b.t);
    return V(t, NULL);
}

/* Whether word bits a and b overlap. */
static bool pieces_meet(const struct mdl_piece *a, const struct mdl_piece *b)
{
    return a->lo <= b->hi && b->lo <= a->hi;
}

void sg_mark_field_read(struct sg *g, int i)
{
    const struct mdl_model *m = g->m;
    if (!g->fread || i < 0 || i >= m->nfields)
        return;
    const struct mdl_field *f = &m->fields[i];
    if (!f->derived) {
        g->fread[i] = true;
        return;
    }
    /* a derived field is read through the fields that hold its bits (gen_derived_read): every stored field that
     * shares a word bit with it, in any format (a superset) */
    for (int j = 0; j < m->nfields; j++)
        if (!m->fields[j].derived)
            for (int p = 0; p < f->npieces && !g->fread[j]; p++)
                for (int q = 0; q < m->fields[j].npieces; q++)
                    if (pieces_meet(&f->pieces[p], &m->fields[j].pieces[q]))
                        g->fread[j] = true;
}

struct sv sg_expr(struct sg *g, const struct mdl_expr *e)
{
    uint32_t k;
    struct sv cv;
    if (e->kind != MDL_E_INT && e->kind != MDL_E_FLOAT && sg_fold(g, e, &k))
        return U(sg_fmt(g, "0x%08" PRIx32 "u", k));
    struct sg_cse *ce = sg_cse_entry(g, e);
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
        sg_mark_field_read(g, e->index);
        if (f->derived) {   /* not stored in struct <t>_inst: computed from the fields that hold its bits,
                             * written out (<t>_field is a switch gcc keeps out of line: a call per read) */
            struct tsr_buf b = {0};
            gen_derived_read(m, e->index, "I", &b);
            const char *rd = sg_fmt(g, "%s", b.data);
            tsr_buf_free(&b);
            if (f->is_signed)
                return U(sg_fmt(g, "((uint32_t)tsr_bits_sext(%s, %d))", rd, f->width));
            return U(sg_fmt(g, "((uint32_t)%s)", rd));
        }
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
        return sg_read_state(g, e->index, e->a && e->a[0] ? e->a[0] : NULL);
    case MDL_E_SPACE:
        return sg_space_read(g, e->index, sg_uni(g, sg_expr(g, e->a[0])));
    case MDL_E_FWD:   /* (addition) X6 */
        return sg_fwd_read(g, e);
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
        const char *t = e->op == '-' ? (mdl_type_float(e->a[0]->type) ? sg_fmt(g, "tsr_fneg(%s)", a.t)
                                                                   : sg_fmt(g, "(0u - %s)", a.t))
                      : e->op == '~' ? sg_fmt(g, "((uint32_t)~%s)", a.t)
                      : sg_fmt(g, "((uint32_t)((%s) == 0))", a.t);
        if (!a.vary)
            return U(t);
        const char *va = sg_vt(g, a);
        if (!va)
            return V(t, NULL);
        const char *vt = e->op == '-' ? (mdl_type_float(e->a[0]->type) ? sg_fmt(g, "(%s ^ 0x80000000u)", va)
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
            a = sg_hoist(g, a);
            b = sg_hoist(g, b);
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
        const char *va = sg_vt(g, a), *vb = sg_vt(g, b), *vt = NULL;
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
        const char *va = sg_vt(g, a);
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
