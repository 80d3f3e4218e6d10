/* The independent evaluator: one bundle at a time, by walking the model's trees (see eval.h for the
 * semantics it implements; operators and built-ins come from runtime/sem.h). */
#include "eval.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bits.h"
#include "eval_fwd.h"
#include "sem.h"

#define ML TSR_SIM_MAX_LANES

struct wlog { int state, elem; uint32_t mask; uint32_t v[ML]; };
struct memo { int space; uint32_t addr; uint32_t v[ML]; };

/* Locals of one op (with its slot's commit) or of the format. */
struct scope {
    const struct mdl_op *op;   /* NULL in the format's scope */
    uint32_t (*loc)[ML];
    int nloc;
    int *opnd;                 /* per local: the instantiated operand bound to it, or -1 */
    int *alt;                  /* per local: its matching alternative, or -1 */
};

struct ev {
    const struct mdl_model *m;
    struct mdl_evstate *st;
    struct tsr_sim_ctl *ctl;
    const uint64_t *fields;
    const int *ops;
    int format, L;
    uint32_t all, pc;
    uint64_t attrs_any;
    struct wlog *log; int nlog, caplog;
    struct memo *memo; int nmemo, capmemo;
    bool commit;               /* in a commit block: no latency or guard checks */
    struct tsr_fwd_stale *defer; /* (X6) computing a value written into a forward: latency hazards recorded here */
    uint32_t code;             /* `addr`/`code` inside a space entry */
    const uint32_t *value;     /* `value` inside a space write entry */
};

static int ev_expr(struct ev *E, struct scope *S, const struct mdl_expr *e, uint32_t mask, uint32_t *out);
static int ev_stmts(struct ev *E, struct scope *S, struct mdl_stmt **s, int n, uint32_t mask);

/* ---- helpers ---------------------------------------------------------------------------------- */

static uint32_t truthy(const uint32_t *v, int L)
{
    uint32_t t = 0;
    for (int l = 0; l < L && l < ML; l++)
        t |= (uint32_t)(v[l] != 0) << l;
    return t;
}

static void bcast(uint32_t *out, uint32_t x, int L)
{
    for (int l = 0; l < L && l < ML; l++)
        out[l] = x;
}

static int call_hook(struct ev *E, int hook, enum tsr_hook_kind kind, const uint32_t *args, int nargs,
                     uint32_t *v, uint32_t mask)
{
    const char *name = hook >= 0 && hook < E->m->nhooks ? E->m->hooks[hook].name : "?";
    const struct tsr_sim_hooks *h = E->st->hooks;
    if (!h || !h->call)
        return tsr_sim_error(E->ctl, E->pc, "hook %s called at 0x%08" PRIx32 " but no hooks are installed", name,
                             E->pc);
    int rc = h->call(h->ctx, hook, kind, args, nargs, v, mask);
    if (rc < 0)
        return tsr_sim_error(E->ctl, E->pc, "hook %s failed at 0x%08" PRIx32, name, E->pc);
    return rc > 0 ? TSR_SIM_STALL : 0;
}

/* Uniform value (lane 0) of e. */
static int ev_uniform(struct ev *E, struct scope *S, const struct mdl_expr *e, uint32_t mask, uint32_t *x)
{
    uint32_t v[ML];
    int rc = ev_expr(E, S, e, mask, v);
    *x = v[0];
    return rc;
}

/* Reads state s element elem (checked: range, latency, guard) into out (lanes values). */
static int read_state(struct ev *E, int s, uint32_t elem, uint32_t mask, uint32_t *out)
{
    const struct mdl_state *st = &E->m->states[s];
    if (st->count > 0) {
        if (elem >= (uint32_t)st->count)
            return tsr_sim_error(E->ctl, E->pc, "%s index %" PRIu32 " out of range (%d elements) at 0x%08" PRIx32,
                                 st->name, elem, st->count, E->pc);
        if (st->latency > 0 && !E->commit && E->defer)   /* (X6) a value going into a forward: deferred */
            tsr_sim_defer_latency(E->ctl, E->defer, st->name, (int)elem, E->st->wtime[s][elem], st->latency);
        else if (st->latency > 0 && !E->commit) {
            int rc = tsr_sim_check_latency(E->ctl, E->pc, st->name, (int)elem, E->st->wtime[s][elem], st->latency);
            if (rc)
                return rc;
        }
        if (st->guard_elem >= 0 && elem == (uint32_t)st->guard_elem && st->guard_hook >= 0 && !E->commit) {
            int rc = call_hook(E, st->guard_hook, TSR_HOOK_GUARD, NULL, 0, NULL, mask);
            if (rc < 0)
                return rc;
            if (rc > 0) {
                rc = tsr_sim_guard_hazard(E->ctl, E->pc, st->name, (int)elem, E->m->hooks[st->guard_hook].name);
                if (rc)
                    return rc;
            }
        }
    } else
        elem = 0;
    const uint32_t *p = mdl_evstate_elem(E->st, s, (int)elem);
    if (st->vec)
        memcpy(out, p, (size_t)E->L * sizeof *out);
    else
        bcast(out, p[0], E->L);
    return 0;
}

static int log_write(struct ev *E, int s, uint32_t elem, const uint32_t *v, uint32_t mask)
{
    const struct mdl_state *st = &E->m->states[s];
    if (st->count > 0 && elem >= (uint32_t)st->count)
        return tsr_sim_error(E->ctl, E->pc, "%s index %" PRIu32 " out of range (%d elements) at 0x%08" PRIx32,
                             st->name, elem, st->count, E->pc);
    if (E->nlog == E->caplog) {
        int cap = E->caplog ? 2 * E->caplog : 16;
        struct wlog *n = realloc(E->log, (size_t)cap * sizeof *n);
        if (!n)
            return tsr_sim_error(E->ctl, E->pc, "out of memory");
        E->log = n;
        E->caplog = cap;
    }
    struct wlog *w = &E->log[E->nlog++];
    w->state = s;
    w->elem = st->count > 0 ? (int)elem : 0;
    w->mask = mask;
    memcpy(w->v, v, sizeof w->v);
    return 0;
}

static const struct mdl_sentry *find_entry(const struct mdl_space *sp, uint32_t addr, bool write)
{
    for (int i = 0; i < sp->nent; i++)
        if (sp->ent[i].write == write && sp->ent[i].lo <= addr && addr <= sp->ent[i].hi)
            return &sp->ent[i];
    return NULL;
}

static int entry_args(struct ev *E, struct scope *S, const struct mdl_sentry *en, uint32_t mask, uint32_t *args)
{
    for (int i = 0; i < en->nargs && i < 16; i++) {
        int rc = ev_uniform(E, S, en->args[i], mask, &args[i]);
        if (rc)
            return rc;
    }
    return 0;
}

static int space_read(struct ev *E, struct scope *S, int sp_i, uint32_t addr, uint32_t mask, uint32_t *out)
{
    const struct mdl_space *sp = &E->m->spaces[sp_i];
    const struct mdl_sentry *en = find_entry(sp, addr, false);
    if (!en)
        return tsr_sim_error(E->ctl, E->pc, "space %s has no read entry for address %" PRIu32 " at 0x%08" PRIx32,
                             sp->name, addr, E->pc);
    uint32_t save_code = E->code;
    int rc = 0;
    E->code = addr;
    switch (en->kind) {
    case MDL_SE_NONE:
        memset(out, 0, ML * sizeof *out);
        break;
    case MDL_SE_STATE: {
        uint32_t elem = 0;
        if (en->index)
            rc = ev_uniform(E, S, en->index, mask, &elem);
        if (!rc)
            rc = read_state(E, en->state, elem, mask, out);
        break;
    }
    case MDL_SE_HOOK: {
        for (int i = 0; i < E->nmemo; i++) {
            if (E->memo[i].space == sp_i && E->memo[i].addr == addr) {
                memcpy(out, E->memo[i].v, ML * sizeof *out);
                E->code = save_code;
                return 0;
            }
        }
        uint32_t args[16] = {0};
        rc = entry_args(E, S, en, mask, args);
        if (rc)
            break;
        uint32_t v[ML] = {0};
        rc = call_hook(E, en->hook, TSR_HOOK_READ, args, en->nargs, v, mask);
        if (rc)
            break;
        if (E->nmemo == E->capmemo) {
            int cap = E->capmemo ? 2 * E->capmemo : 8;
            struct memo *n = realloc(E->memo, (size_t)cap * sizeof *n);
            if (!n) {
                rc = tsr_sim_error(E->ctl, E->pc, "out of memory");
                break;
            }
            E->memo = n;
            E->capmemo = cap;
        }
        E->memo[E->nmemo].space = sp_i;
        E->memo[E->nmemo].addr = addr;
        memcpy(E->memo[E->nmemo].v, v, sizeof v);
        E->nmemo++;
        memcpy(out, v, ML * sizeof *out);
        break;
    }
    }
    E->code = save_code;
    return rc;
}

static int space_write(struct ev *E, struct scope *S, int sp_i, uint32_t addr, const uint32_t *v, uint32_t mask)
{
    const struct mdl_space *sp = &E->m->spaces[sp_i];
    const struct mdl_sentry *en = find_entry(sp, addr, true);
    if (!en)
        return tsr_sim_error(E->ctl, E->pc, "space %s has no write entry for address %" PRIu32 " at 0x%08" PRIx32,
                             sp->name, addr, E->pc);
    uint32_t save_code = E->code;
    const uint32_t *save_value = E->value;
    int rc = 0;
    E->code = addr;
    E->value = v;
    switch (en->kind) {
    case MDL_SE_NONE:
        break;
    case MDL_SE_STATE: {
        uint32_t elem = 0, w[ML];
        if (en->index)
            rc = ev_uniform(E, S, en->index, mask, &elem);
        if (rc)
            break;
        if (en->value) {
            rc = ev_expr(E, S, en->value, mask, w);
            if (rc)
                break;
        } else
            memcpy(w, v, sizeof w);
        rc = log_write(E, en->state, elem, w, mask);
        break;
    }
    case MDL_SE_HOOK: {
        uint32_t args[16] = {0}, w[ML] = {0};
        rc = entry_args(E, S, en, mask, args);
        if (rc)
            break;
        for (int l = 0; l < E->L; l++)
            w[l] = (mask >> l & 1) ? v[l] : 0;
        rc = call_hook(E, en->hook, TSR_HOOK_WRITE, args, en->nargs, w, mask);
        break;
    }
    }
    E->code = save_code;
    E->value = save_value;
    return rc;
}

/* ---- expressions ------------------------------------------------------------------------------ */

/* Evaluates operand e of a lazy construct: pure operands always, effectful ones iff sub != 0. */
static int ev_lazy(struct ev *E, struct scope *S, const struct mdl_expr *e, uint32_t sub, uint32_t *out)
{
    if (!mdl_expr_has_effects(E->m, e))
        return ev_expr(E, S, e, sub, out);
    if (!sub) {
        memset(out, 0, ML * sizeof *out);
        return 0;
    }
    return ev_expr(E, S, e, sub, out);
}

static int ev_call(struct ev *E, struct scope *S, const struct mdl_expr *e, uint32_t mask, uint32_t *out)
{
    uint32_t a[5][ML];
    int L = E->L, fm = E->m->float_mode, n = e->nargs;
    if (e->index == MDL_B_ELEM) {
        for (int l = 0; l < L; l++)
            out[l] = (uint32_t)l;
        return 0;
    }
    if (n > 5)
        return tsr_sim_error(E->ctl, E->pc, "built-in with %d arguments", n);
    for (int i = 0; i < n; i++) {
        int rc = ev_expr(E, S, e->a[i], mask, a[i]);
        if (rc)
            return rc;
    }
    switch (e->index) {
#define UN1(B, F) case B: for (int l = 0; l < L; l++) out[l] = F(a[0][l]); return 0;
#define UN1M(B, F) case B: for (int l = 0; l < L; l++) out[l] = F(a[0][l], fm); return 0;
#define BI2(B, F) case B: for (int l = 0; l < L; l++) out[l] = F(a[0][l], a[1][l]); return 0;
#define BI2M(B, F) case B: for (int l = 0; l < L; l++) out[l] = F(a[0][l], a[1][l], fm); return 0;
    BI2M(MDL_B_FADD, tsr_sem_fadd)
    BI2M(MDL_B_FSUB, tsr_sem_fsub)
    BI2M(MDL_B_FMUL, tsr_sem_fmul)
    BI2M(MDL_B_FMIN, tsr_sem_fmin)
    BI2M(MDL_B_FMAX, tsr_sem_fmax)
    BI2M(MDL_B_FMINABS, tsr_sem_fminabs)
    BI2M(MDL_B_FMAXABS, tsr_sem_fmaxabs)
    UN1(MDL_B_FABS, tsr_sem_fabs)
    UN1(MDL_B_FNEG, tsr_sem_fneg)
    UN1M(MDL_B_FTOI, tsr_sem_ftoi)
    UN1M(MDL_B_ITOF, tsr_sem_itof)
    BI2M(MDL_B_FGT, tsr_sem_fgt)
    BI2M(MDL_B_FEQ, tsr_sem_feq)
    UN1M(MDL_B_F16TOF32, tsr_sem_f16tof32)
    UN1M(MDL_B_F32TOF16, tsr_sem_f32tof16)
    UN1M(MDL_B_UNORM8TOF, tsr_sem_unorm8tof)
    UN1M(MDL_B_F2UNORM8, tsr_sem_f2unorm8)
    UN1(MDL_B_CLZ, tsr_sem_clz)
    BI2(MDL_B_MUL24, tsr_sem_mul24)
    BI2(MDL_B_SHL, tsr_sem_shlb)
    BI2(MDL_B_SHR, tsr_sem_shrb)
    BI2(MDL_B_ASR, tsr_sem_asr)
    BI2(MDL_B_ROR, tsr_sem_ror)
    BI2(MDL_B_MIN, tsr_sem_min)
    BI2(MDL_B_MAX, tsr_sem_max)
    BI2(MDL_B_SADD_SAT, tsr_sem_sadd_sat)
    BI2(MDL_B_SSUB_SAT, tsr_sem_ssub_sat)
    BI2(MDL_B_V8ADDS, tsr_sem_v8adds)
    BI2(MDL_B_V8SUBS, tsr_sem_v8subs)
    BI2(MDL_B_V8MIN, tsr_sem_v8min)
    BI2(MDL_B_V8MAX, tsr_sem_v8max)
    BI2(MDL_B_V8MULD, tsr_sem_v8muld)
    BI2(MDL_B_BYTE, tsr_sem_byte)
    UN1M(MDL_B_FLOOR, tsr_sem_floor)
    UN1M(MDL_B_ROUND, tsr_sem_round)
    UN1M(MDL_B_FRACT, tsr_sem_fract)
    UN1M(MDL_B_RSQRT, tsr_sem_rsqrt)
    UN1M(MDL_B_RCP, tsr_sem_rcp)
    UN1M(MDL_B_EXP2, tsr_sem_exp2)
    UN1M(MDL_B_LOG2, tsr_sem_log2)
    UN1M(MDL_B_SIN, tsr_sem_sin)
    UN1M(MDL_B_COS, tsr_sem_cos)
#undef UN1
#undef UN1M
#undef BI2
#undef BI2M
    case MDL_B_BYTES:
        for (int l = 0; l < L; l++)
            out[l] = tsr_sem_bytes(a[0][l], a[1][l], a[2][l], a[3][l]);
        return 0;
    case MDL_B_FMA:
        for (int l = 0; l < L; l++)
            out[l] = tsr_sem_fma(a[0][l], a[1][l], a[2][l], fm);
        return 0;
    /* X11: the lanes are the components (a description with vec4 values has 4); scalars are uniform */
    case MDL_B_COMP:
        bcast(out, L >= 4 ? tsr_sem_comp(a[0], a[1][0]) : a[0][0], L);
        return 0;
    case MDL_B_VEC4:
        for (int l = 0; l < L; l++)
            out[l] = a[l & 3][l];
        return 0;
    case MDL_B_SPLAT:
        bcast(out, a[0][0], L);
        return 0;
    case MDL_B_SWIZZLE:
        if (L >= 4)
            tsr_sem_swizzle(out, a[0], a[1][0], a[2][0], a[3][0], a[4][0]);
        else
            memcpy(out, a[0], (size_t)L * sizeof *out);
        return 0;
    case MDL_B_LANE:
        bcast(out, tsr_sem_lane(a[0], a[1][0], L), L);
        return 0;
    case MDL_B_ROTATE:
        tsr_sem_rotate(out, a[0], a[1][0], L);
        return 0;
    case MDL_B_ROTATE_QUAD:
        tsr_sem_rotate_quad(out, a[0], a[1][0], L);
        return 0;
    case MDL_B_QUAD_BCAST:
        tsr_sem_quad_bcast(out, a[0], L);
        return 0;
    case MDL_B_ALL:
        bcast(out, truthy(a[0], L) == E->all, L);
        return 0;
    case MDL_B_ANY:
        bcast(out, truthy(a[0], L) != 0, L);
        return 0;
    default:
        return tsr_sim_error(E->ctl, E->pc, "unknown built-in %d", e->index);
    }
}

static int ev_expr(struct ev *E, struct scope *S, const struct mdl_expr *e, uint32_t mask, uint32_t *out)
{
    int L = E->L, rc;
    uint32_t a[ML], b[ML];
    switch (e->kind) {
    case MDL_E_INT:
    case MDL_E_FLOAT:
        bcast(out, (uint32_t)e->ival, L);
        return 0;
    case MDL_E_FIELD: {
        const struct mdl_field *f = &E->m->fields[e->index];
        uint64_t v = E->fields[e->index];
        if (f->is_signed)
            v = (uint64_t)tsr_bits_sext(v, (unsigned)f->width);
        bcast(out, (uint32_t)v, L);
        return 0;
    }
    case MDL_E_LOCAL:
        if (e->index < 0 || e->index >= S->nloc)
            return tsr_sim_error(E->ctl, E->pc, "local %d out of range", e->index);
        memcpy(out, S->loc[e->index], (size_t)L * sizeof *out);
        return 0;
    case MDL_E_STATE: {
        uint32_t elem = 0;
        if (E->m->states[e->index].count > 0 && e->a && e->a[0]) {
            rc = ev_uniform(E, S, e->a[0], mask, &elem);
            if (rc)
                return rc;
        }
        return read_state(E, e->index, elem, mask, out);
    }
    case MDL_E_SPACE: {
        uint32_t addr;
        rc = ev_uniform(E, S, e->a[0], mask, &addr);
        if (rc)
            return rc;
        return space_read(E, S, e->index, addr, mask, out);
    }
    case MDL_E_FWD: {   /* (X6) */
        uint32_t elem = 0;
        if (e->a && e->a[0] && (rc = ev_uniform(E, S, e->a[0], mask, &elem)))
            return rc;
        return mdl_evfwd_read(E->st, e->index, elem, (int)e->ival, E->pc, L, out);
    }
    case MDL_E_CODE:
        bcast(out, E->code, L);
        return 0;
    case MDL_E_VALUE:
        if (E->value)
            memcpy(out, E->value, (size_t)L * sizeof *out);
        else
            memset(out, 0, (size_t)L * sizeof *out);
        return 0;
    case MDL_E_UN:
        if ((rc = ev_expr(E, S, e->a[0], mask, a)))
            return rc;
        for (int l = 0; l < L; l++)
            out[l] = mdl_sem_unop(e, a[l]);
        return 0;
    case MDL_E_BIN: {
        if ((rc = ev_expr(E, S, e->a[0], mask, a)))
            return rc;
        if (e->op == MDL_OP_LAND || e->op == MDL_OP_LOR) {
            uint32_t t = truthy(a, L);
            uint32_t sub = mask & (e->op == MDL_OP_LAND ? t : ~t);
            if ((rc = ev_lazy(E, S, e->a[1], sub, b)))
                return rc;
            for (int l = 0; l < L; l++)
                out[l] = e->op == MDL_OP_LAND ? (a[l] != 0 && b[l] != 0) : (a[l] != 0 || b[l] != 0);
            return 0;
        }
        if ((rc = ev_expr(E, S, e->a[1], mask, b)))
            return rc;
        for (int l = 0; l < L; l++)
            out[l] = mdl_sem_binop(E->m, e, a[l], b[l]);
        return 0;
    }
    case MDL_E_COND: {
        uint32_t c[ML];
        if ((rc = ev_expr(E, S, e->a[0], mask, c)))
            return rc;
        uint32_t t = truthy(c, L);
        if ((rc = ev_lazy(E, S, e->a[1], mask & t, a)))
            return rc;
        if ((rc = ev_lazy(E, S, e->a[2], mask & ~t, b)))
            return rc;
        for (int l = 0; l < L; l++)
            out[l] = c[l] ? a[l] : b[l];
        return 0;
    }
    case MDL_E_CALL:
        return ev_call(E, S, e, mask, out);
    case MDL_E_ATTR: {
        uint64_t attrs = S->op ? S->op->attrs : E->attrs_any;
        bcast(out, e->index >= 0 && e->index < 64 ? (uint32_t)(attrs >> e->index & 1) : 0, L);
        return 0;
    }
    case MDL_E_CAST:
        if ((rc = ev_expr(E, S, e->a[0], mask, a)))
            return rc;
        for (int l = 0; l < L; l++)
            out[l] = tsr_sem_cast(a[l], (int)e->a[0]->type, (int)e->type);
        return 0;
    case MDL_E_TABLE:
        if ((rc = ev_expr(E, S, e->a[0], mask, a)))
            return rc;
        for (int l = 0; l < L; l++)
            out[l] = e->index >= 0 && e->index < E->m->ntables ? mdl_table_value(&E->m->tables[e->index], a[l]) : 0;
        return 0;
    }
    return tsr_sim_error(E->ctl, E->pc, "unknown expression kind %d", (int)e->kind);
}

/* ---- statements ------------------------------------------------------------------------------- */

static void set_local(struct ev *E, struct scope *S, int i, const uint32_t *v, uint32_t mask)
{
    for (int l = 0; l < E->L; l++)
        if (mask >> l & 1)
            S->loc[i][l] = v[l];
}

static bool conds_hold(struct ev *E, struct scope *S, const struct mdl_cond *c, int n, int *rc)
{
    for (int i = 0; i < n; i++) {
        uint32_t x;
        *rc = ev_uniform(E, S, c[i].e, E->all, &x);
        if (*rc || !x)
            return false;
    }
    return true;
}

/* Writes v through the operand bound to local i (an op's write operand). */
static int write_operand(struct ev *E, struct scope *S, int i, const uint32_t *v, uint32_t mask)
{
    if (i < 0 || i >= S->nloc || S->opnd[i] < 0)
        return tsr_sim_error(E->ctl, E->pc, "op %s has no operand bound to %s at 0x%08" PRIx32,
                             S->op ? S->op->name : "-", S->op && i >= 0 && i < S->op->nlocals && S->op->local_names
                             ? S->op->local_names[i] : "?", E->pc);
    const struct mdl_opnd *o = &E->m->opnds[S->opnd[i]];
    const struct mdl_opnd_alt *alt = &o->alt[S->alt[i]];
    uint32_t idx = 0;
    int rc;
    if (alt->wmask) { /* X11 `write PLACE mask e`: only the components (lanes) of e's set bits */
        uint32_t wm;
        if ((rc = ev_uniform(E, S, alt->wmask, mask, &wm)))
            return rc;
        if (!(mask &= wm))
            return 0;
    }
    if (alt->wspace >= 0) {
        if ((rc = ev_uniform(E, S, alt->waddr, mask, &idx)))
            return rc;
        return space_write(E, S, alt->wspace, idx, v, mask);
    }
    if (alt->wstate >= 0) {
        if (alt->windex && (rc = ev_uniform(E, S, alt->windex, mask, &idx)))
            return rc;
        return log_write(E, alt->wstate, idx, v, mask);
    }
    return tsr_sim_error(E->ctl, E->pc, "operand %s has no write target at 0x%08" PRIx32,
                         o->inst_name ? o->inst_name : o->name, E->pc);
}

/* X11 `PLACE = e mask m;`: *mask keeps the components (lanes) of m's set bits; a write with none left writes
 * nothing (no write time either). */
static int ev_wmask(struct ev *E, struct scope *S, const struct mdl_stmt *s, uint32_t *mask)
{
    uint32_t wm;
    int rc;
    if (!s->mask)
        return 0;
    if ((rc = ev_uniform(E, S, s->mask, *mask, &wm)))
        return rc;
    *mask &= wm;
    return 0;
}

static int ev_stmt(struct ev *E, struct scope *S, const struct mdl_stmt *s, uint32_t mask)
{
    uint32_t v[ML];
    int rc;
    switch (s->kind) {
    case MDL_S_LET:
        if ((rc = ev_expr(E, S, s->e, mask, v)))
            return rc;
        if (s->local < 0 || s->local >= S->nloc)
            return tsr_sim_error(E->ctl, E->pc, "local %d out of range", s->local);
        set_local(E, S, s->local, v, mask);
        return 0;
    case MDL_S_ASSIGN: {
        const struct mdl_expr *t = s->target;
        struct tsr_fwd_stale stale = {0}, *outer = E->defer;
        if (t->kind == MDL_E_FWD)   /* (X6) its latency hazards are deferred to a read of the entry */
            E->defer = &stale;
        rc = ev_expr(E, S, s->e, mask, v);
        E->defer = outer;
        if (rc)
            return rc;
        if ((rc = ev_wmask(E, S, s, &mask)) || !mask)
            return rc;
        if (t->kind == MDL_E_LOCAL) {
            if (t->index < 0 || t->index >= S->nloc)
                return tsr_sim_error(E->ctl, E->pc, "local %d out of range", t->index);
            set_local(E, S, t->index, v, mask);
            return 0;
        }
        uint32_t idx = 0;
        if (t->kind == MDL_E_STATE) {
            if (E->m->states[t->index].count > 0 && t->a && t->a[0] &&
                (rc = ev_uniform(E, S, t->a[0], mask, &idx)))
                return rc;
            return log_write(E, t->index, idx, v, mask);
        }
        if (t->kind == MDL_E_SPACE) {
            if ((rc = ev_uniform(E, S, t->a[0], mask, &idx)))
                return rc;
            return space_write(E, S, t->index, idx, v, mask);
        }
        if (t->kind == MDL_E_FWD) {
            if (t->a && t->a[0] && (rc = ev_uniform(E, S, t->a[0], mask, &idx)))
                return rc;
            return mdl_evfwd_write(E->st, t->index, idx, E->commit, E->pc, v, E->L, mask, s->ages_lo, s->ages_hi,
                                   &stale);
        }
        return tsr_sim_error(E->ctl, E->pc, "bad assignment target");
    }
    case MDL_S_WRITE:
        if ((rc = ev_expr(E, S, s->e, mask, v)))
            return rc;
        if ((rc = ev_wmask(E, S, s, &mask)) || !mask)
            return rc;
        return write_operand(E, S, s->local, v, mask);
    case MDL_S_ABORT:
        return tsr_sim_abort(E->ctl, E->pc, s->msg);
    case MDL_S_IF: {
        if ((rc = ev_expr(E, S, s->e, mask, v)))
            return rc;
        uint32_t t = truthy(v, E->L) & mask, f = mask & ~t;
        if (t && (rc = ev_stmts(E, S, s->body, s->nbody, t)))
            return rc;
        if (f && s->nelse && (rc = ev_stmts(E, S, s->elseb, s->nelse, f)))
            return rc;
        return 0;
    }
    case MDL_S_HOOK: {
        uint32_t args[16] = {0}, out[ML] = {0};
        for (int i = 0; i < s->nargs && i < 16; i++)
            if ((rc = ev_uniform(E, S, s->args[i], mask, &args[i])))
                return rc;
        bool rv = s->hook >= 0 && s->hook < E->m->nhooks && E->m->hooks[s->hook].returns_value;
        return call_hook(E, s->hook, TSR_HOOK_STMT, args, s->nargs, rv ? out : NULL, mask);
    }
    case MDL_S_JUMP: {
        uint32_t target;
        uint64_t delay = 0;
        if ((rc = ev_uniform(E, S, s->e, mask, &target)))
            return rc;
        if (s->nargs > 0 && !mdl_const_index(s->args[0], &delay))
            return tsr_sim_error(E->ctl, E->pc, "jump delay is not constant");
        return tsr_sim_request_jump(E->ctl, E->pc, target, (int64_t)delay);
    }
    case MDL_S_HALT: {
        uint64_t delay = 0;
        if (s->nargs > 0 && !mdl_const_index(s->args[0], &delay))
            return tsr_sim_error(E->ctl, E->pc, "halt delay is not constant");
        return tsr_sim_request_halt(E->ctl, E->pc, (int64_t)delay);
    }
    case MDL_S_BLOCK:
        return ev_stmts(E, S, s->body, s->nbody, mask);
    }
    return tsr_sim_error(E->ctl, E->pc, "unknown statement kind %d", (int)s->kind);
}

static int ev_stmts(struct ev *E, struct scope *S, struct mdl_stmt **s, int n, uint32_t mask)
{
    for (int i = 0; i < n; i++) {
        int rc = ev_stmt(E, S, s[i], mask);
        if (rc)
            return rc;
    }
    return 0;
}

/* ---- scopes ------------------------------------------------------------------------------------ */

static int max_local_stmts(struct mdl_stmt **s, int n);

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

static int max_local_stmts(struct mdl_stmt **s, int n)
{
    int m = -1;
    for (int i = 0; i < n; i++) {
        int k = -1;
        if (s[i]->kind == MDL_S_LET || s[i]->kind == MDL_S_WRITE)
            k = s[i]->local;
        int k2 = max_local_expr(s[i]->e), k3 = max_local_expr(s[i]->target);
        int k4 = max_local_stmts(s[i]->body, s[i]->nbody), k5 = max_local_stmts(s[i]->elseb, s[i]->nelse);
        for (int j = 0; j < s[i]->nargs; j++) {
            int k6 = max_local_expr(s[i]->args[j]);
            if (k6 > k)
                k = k6;
        }
        if (k2 > k) k = k2;
        if (k3 > k) k = k3;
        if (k4 > k) k = k4;
        if (k5 > k) k = k5;
        if (k > m)
            m = k;
    }
    return m;
}

static int scope_init(struct scope *S, const struct mdl_op *op, int nloc)
{
    memset(S, 0, sizeof *S);
    S->op = op;
    S->nloc = nloc;
    size_t n = nloc > 0 ? (size_t)nloc : 1;
    S->loc = calloc(n, sizeof *S->loc);
    S->opnd = malloc(n * sizeof *S->opnd);
    S->alt = malloc(n * sizeof *S->alt);
    if (!S->loc || !S->opnd || !S->alt)
        return -1;
    for (int i = 0; i < nloc; i++)
        S->opnd[i] = S->alt[i] = -1;
    return 0;
}

static void scope_fini(struct scope *S)
{
    free(S->loc);
    free(S->opnd);
    free(S->alt);
}

/* Binds the op's operands (template order): chooses each one's alternative and reads its value. */
static int bind_operands(struct ev *E, struct scope *S)
{
    const struct mdl_op *op = S->op;
    for (int i = 0; i < op->tmpl.nparts; i++) {
        const struct mdl_tpart *p = &op->tmpl.parts[i];
        if (p->kind != MDL_TP_OPND || p->local < 0 || p->local >= S->nloc)
            continue;
        const struct mdl_opnd *o = &E->m->opnds[p->opnd];
        int rc = 0, k;
        for (k = 0; k < o->nalt; k++) {
            if (conds_hold(E, S, o->alt[k].cond, o->alt[k].ncond, &rc))
                break;
            if (rc)
                return rc;
        }
        if (k == o->nalt)
            return tsr_sim_error(E->ctl, E->pc, "no alternative of operand %s matches at 0x%08" PRIx32 " (op %s)",
                                 o->inst_name ? o->inst_name : o->name, E->pc, op->name);
        S->opnd[p->local] = p->opnd;
        S->alt[p->local] = k;
        if (o->alt[k].read) {
            uint32_t v[ML];
            if ((rc = ev_expr(E, S, o->alt[k].read, E->all, v)))
                return rc;
            set_local(E, S, p->local, v, E->all);
        }
    }
    return 0;
}

/* ---- the bundle ------------------------------------------------------------------------------- */

static int op_of(const int *ops, int slot)
{
    int o = ops[slot];
    return o < 0 || o == 0xffff ? -1 : o;
}

static int run(struct ev *E, const struct mdl_format *f, struct scope *fs, struct scope *os)
{
    const struct mdl_model *m = E->m;
    int rc;
    for (int i = 0; i < f->nslots; i++) {
        int o = op_of(E->ops, f->slots[i]);
        if (o < 0 || o >= m->nops || m->ops[o].slot != f->slots[i])
            return tsr_sim_error(E->ctl, E->pc, "no operation in slot %s at 0x%08" PRIx32,
                                 m->slots[f->slots[i]].name, E->pc);
        E->attrs_any |= m->ops[o].attrs;
        const struct mdl_slot *sl = &m->slots[f->slots[i]];
        int n = m->ops[o].nlocals, k = max_local_stmts(m->ops[o].sem, m->ops[o].nsem);
        int k2 = max_local_stmts(sl->commit, sl->ncommit);
        if (k + 1 > n) n = k + 1;
        if (k2 + 1 > n) n = k2 + 1;
        if (scope_init(&os[i], &m->ops[o], n))
            return tsr_sim_error(E->ctl, E->pc, "out of memory");
    }
    if ((rc = ev_stmts(E, fs, f->sem, f->nsem, E->all)))
        return rc;
    for (int i = 0; i < f->nslots; i++) {
        if ((rc = bind_operands(E, &os[i])))
            return rc;
        if ((rc = ev_stmts(E, &os[i], os[i].op->sem, os[i].op->nsem, E->all)))
            return rc;
    }
    E->commit = true; /* hazards concern the compute stage */
    for (int i = 0; i < f->nslots; i++) {
        const struct mdl_slot *sl = &m->slots[f->slots[i]];
        if (os[i].op->is_span)
            continue;   /* (addition) X7: a slot a wide op takes runs nothing, not even its commit */
        if ((rc = ev_stmts(E, &os[i], sl->commit, sl->ncommit, E->all)))
            return rc;
    }
    return ev_stmts(E, fs, f->commit, f->ncommit, E->all);
}

int mdl_eval_bundle(const struct mdl_model *m, struct mdl_evstate *st, const uint64_t *fields, int format,
                    const int *ops)
{
    struct ev E;
    memset(&E, 0, sizeof E);
    E.m = m;
    E.st = st;
    E.ctl = &st->ctl;
    E.fields = fields;
    E.ops = ops;
    E.format = format;
    E.L = st->lanes;
    E.all = tsr_sim_all_lanes(E.L);
    uint32_t *pcp = m->pc_state >= 0 ? mdl_evstate_elem(st, m->pc_state, 0) : NULL;
    E.pc = pcp ? pcp[0] : 0;
    if (st->ctl.halted)
        return TSR_SIM_HALTED;
    tsr_sim_bundle_begin(E.ctl);
    if (m->nfwds)
        mdl_evfwd_begin(st);
    if (format < 0 || format >= m->nformats) {
        if (m->nfwds)
            mdl_evfwd_fail(st, E.pc);
        return tsr_sim_error(E.ctl, E.pc, "no format matches the bundle at 0x%08" PRIx32, E.pc);
    }
    const struct mdl_format *f = &m->formats[format];
    struct scope fs, *os = calloc(f->nslots > 0 ? (size_t)f->nslots : 1, sizeof *os);
    int nf = f->nlocals, k = max_local_stmts(f->sem, f->nsem), k2 = max_local_stmts(f->commit, f->ncommit);
    if (k + 1 > nf) nf = k + 1;
    if (k2 + 1 > nf) nf = k2 + 1;
    int rc;
    if (!os || scope_init(&fs, NULL, nf)) {
        free(os);
        return tsr_sim_error(E.ctl, E.pc, "out of memory");
    }
    rc = run(&E, f, &fs, os);
    for (int i = 0; os && i < f->nslots; i++)
        scope_fini(&os[i]);
    free(os);
    scope_fini(&fs);
    if (rc == 0) {
        /* commit the logged writes */
        bool pc_written = false;
        for (int i = 0; i < E.nlog; i++) {
            struct wlog *w = &E.log[i];
            const struct mdl_state *s = &m->states[w->state];
            uint32_t *p = mdl_evstate_elem(st, w->state, w->elem);
            if (s->vec) {
                for (int l = 0; l < E.L; l++)
                    if (w->mask >> l & 1)
                        p[l] = w->v[l];
            } else
                p[0] = w->v[0];
            if (st->wtime[w->state])
                st->wtime[w->state][w->elem] = (int64_t)st->ctl.icount;
            if (w->state == m->pc_state)
                pc_written = true;
        }
        if (m->nfwds)
            mdl_evfwd_end(st, E.pc);
        uint32_t pc = pcp ? pcp[0] : 0;
        rc = tsr_sim_bundle_end(E.ctl, &pc, E.pc, (uint32_t)m->pc_step, pc_written);
        if (pcp && rc >= 0)
            pcp[0] = pc;
    } else {
        if (rc == TSR_SIM_STALL)
            st->ctl.stalls++;
        if (m->nfwds)
            mdl_evfwd_fail(st, E.pc);
    }
    if (rc != TSR_SIM_OK && rc != TSR_SIM_HALTED)
        tsr_sim_bundle_begin(E.ctl); /* drop this bundle's jump/halt requests */
    free(E.log);
    free(E.memo);
    return rc;
}
