/* gen_validate: <t>_validate.c, the target's part of the hazard validator (runtime/validate/validate.h,
 * docs/validate.md): `const struct tsr_vdesc <t>_vdesc` and `<t>_validate()`.
 *
 * What a bundle does is derived from the description, not declared again: for the format and the op of each
 * slot, the generated code walks the compute stage (the operands the op's template binds, the op's and the
 * format's `sem`) for reads, every stage for writes, jumps and halts, and the `uses` of the format, the op, the
 * selected operand alternatives and the space entries reached.  Conditions are evaluated in three values
 * (0 false, 1 true, 2 depends on machine state): fields, constants, the pc and the executing op's attributes
 * are known, state is not, a local assigned once at the top of `sem` stands for its value.  A branch whose
 * condition is 0 is skipped; events under a 2 are *conditional*.  Addresses, element indices and jump targets
 * are exact when known (`?:` with a known condition and `+` of known parts included), else -1: any.
 *
 * Rules become pattern matchers over those events: gen/emit_validate_rules.c.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit_util.h"
#include "emit_validate.h"
#include "gen.h"

void vg_line(struct vg *g, const char *fmt, ...)
{
    for (int i = 0; i < g->ind; i++)
        tsr_buf_puts(g->out, "    ");
    va_list ap;
    va_start(ap, fmt);
    char buf[4096];
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    tsr_buf_puts(g->out, buf);
    tsr_buf_puts(g->out, "\n");
}

void vg_blank(struct vg *g)
{
    tsr_buf_puts(g->out, "\n");
}

/* ---- events ------------------------------------------------------------------------------------------------ */
static bool has_reads(const struct vg *g, const struct mdl_expr *e)
{
    if (!e)
        return false;
    if (e->kind == MDL_E_SPACE || e->kind == MDL_E_FWD || (e->kind == MDL_E_STATE && e->index != g->m->pc_state))
        return true;
    int n = e->kind == MDL_E_CALL ? e->nargs : e->kind == MDL_E_BIN ? 2 : e->kind == MDL_E_COND ? 3
          : (e->kind == MDL_E_UN || e->kind == MDL_E_CAST || e->kind == MDL_E_TABLE || e->kind == MDL_E_SPACE ||
             e->kind == MDL_E_STATE) ? 1 : 0;
    for (int i = 0; i < n; i++)
        if (has_reads(g, e->a[i]))
            return true;
    return false;
}

/* Opens `{ int gN = tsr_tv_and(g<cur>, <t>); if (gN) {` with t the truth of e (negated if neg). */
static void open_gate(struct vg *g, const struct mdl_expr *e, bool neg, int *saved)
{
    struct tsr_buf t = {0};
    if (neg)
        tsr_buf_puts(&t, "tsr_tv_not(");
    vg_truth(g, e, &t);
    if (neg)
        tsr_buf_puts(&t, ")");
    int n = ++g->ngate;
    vg_line(g, "{");
    g->ind++;
    vg_line(g, "int g%d = tsr_tv_and(g%d, %s);", n, g->gate, t.data ? t.data : "2");
    vg_line(g, "if (g%d) {", n);
    g->ind++;
    tsr_buf_free(&t);
    *saved = g->gate;
    g->gate = n;
}

static void close_gate(struct vg *g, int saved)
{
    g->ind--;
    vg_line(g, "}");
    g->ind--;
    vg_line(g, "}");
    g->gate = saved;
}

/* An address, element index or jump target (a u32) as a C expression of type int64_t, -1 where it depends
 * on machine state: known parts are computed, `?:` with a known condition picks its side at run time, `+`
 * and `-` propagate -1 (a branch target `imm + (rel ? pc + 32 : 0) + (reg ? ra[i] : 0)`). */
static bool partly_known(struct vg *g, const struct mdl_expr *e)
{
    if (vg_known(g, e))
        return true;
    if (e->kind == MDL_E_COND)
        return vg_known(g, e->a[0]) && (partly_known(g, e->a[1]) || partly_known(g, e->a[2]));
    if (e->kind == MDL_E_BIN && (e->op == '+' || e->op == '-'))
        return partly_known(g, e->a[0]) && partly_known(g, e->a[1]);
    if (e->kind == MDL_E_CAST && e->type == MDL_T_U32)
        return partly_known(g, e->a[0]);
    return false;
}

static void kval(struct vg *g, const struct mdl_expr *e, struct tsr_buf *o)
{
    if (vg_known(g, e)) {
        tsr_buf_puts(o, "(int64_t)(0xffffffffu & ");
        vg_kexpr(g, e, o);
        tsr_buf_puts(o, ")");
    } else if (e->kind == MDL_E_COND && vg_known(g, e->a[0])) {
        tsr_buf_puts(o, "(");
        vg_kexpr(g, e->a[0], o);
        tsr_buf_puts(o, " ? ");
        if (partly_known(g, e->a[1]))
            kval(g, e->a[1], o);
        else
            tsr_buf_puts(o, "(int64_t)-1");
        tsr_buf_puts(o, " : ");
        if (partly_known(g, e->a[2]))
            kval(g, e->a[2], o);
        else
            tsr_buf_puts(o, "(int64_t)-1");
        tsr_buf_puts(o, ")");
    } else if (e->kind == MDL_E_BIN && (e->op == '+' || e->op == '-') && partly_known(g, e)) {
        tsr_buf_puts(o, e->op == '+' ? "tsr_vadd(" : "tsr_vsub(");
        kval(g, e->a[0], o);
        tsr_buf_puts(o, ", ");
        kval(g, e->a[1], o);
        tsr_buf_puts(o, ")");
    } else if (e->kind == MDL_E_CAST && partly_known(g, e)) {
        kval(g, e->a[0], o);
    } else {
        tsr_buf_puts(o, "(int64_t)-1");
    }
}

/* The value of an address expression as C text ("-1" when it is not known; "0" for none: a scalar). */
static void addr_text(struct vg *g, const struct mdl_expr *e, struct tsr_buf *o)
{
    if (!e)
        tsr_buf_puts(o, "0");
    else
        kval(g, e, o);
}

static void reads(struct vg *g, const struct mdl_expr *e);

static void read_state(struct vg *g, const struct mdl_expr *e)
{
    if (e->a[0])
        reads(g, e->a[0]);
    struct tsr_buf a = {0};
    addr_text(g, e->a[0], &a);
    vg_line(g, "tsr_vb_add(b, %s, %d, g%d, %d, %s);", g->commit ? "TSR_V_RLATE" : "TSR_V_RSTATE", g->slot, g->gate,
            e->index, a.data);
    tsr_buf_free(&a);
}

/* (X6) A read F@A (any stage: the age rule checks commit blocks' age-0 reads too) or a write of a forward with
 * its window (stmt s). */
static void fwd_event(struct vg *g, const struct mdl_expr *e, const struct mdl_stmt *s)
{
    if (e->a[0])
        reads(g, e->a[0]);
    struct tsr_buf a = {0};
    addr_text(g, e->a[0], &a);
    char val[64];
    if (s)
        snprintf(val, sizeof val, "TSR_V_FWDWIN(%d, %d, %d)", s->ages_lo, s->ages_hi, g->commit ? 1 : 0);
    else
        snprintf(val, sizeof val, "%d", (int)e->ival);
    vg_line(g, "{ struct tsr_vev *fe = tsr_vb_add(b, %s, %d, g%d, %d, %s); if (fe) fe->val = %s; }",
            s ? "TSR_V_WFWD" : "TSR_V_RFWD", g->slot, g->gate, e->index, a.data, val);
    tsr_buf_free(&a);
}

static void space_access(struct vg *g, bool write, int space, const struct mdl_expr *addr)
{
    struct tsr_buf a = {0};
    addr_text(g, addr, &a);
    vg_line(g, "v_%s_%d(b, %d, g%d, %s);", write ? "wr" : "rd", space, g->slot, g->gate, a.data);
    tsr_buf_free(&a);
}

/* Read events of expression e under the current gate: in the compute stage state and space reads; in the
 * commit stage state reads only, as TSR_V_RLATE. */
static void reads(struct vg *g, const struct mdl_expr *e)
{
    if (!e || !has_reads(g, e))
        return;
    int saved;
    switch (e->kind) {
    case MDL_E_STATE:
        read_state(g, e);
        return;
    case MDL_E_FWD:
        fwd_event(g, e, NULL);
        return;
    case MDL_E_SPACE:
        reads(g, e->a[0]);
        if (!g->commit)   /* a space read in the commit stage would be a second access: not listed */
            space_access(g, false, e->index, e->a[0]);
        return;
    case MDL_E_COND:
        reads(g, e->a[0]);
        if (has_reads(g, e->a[1])) {
            open_gate(g, e->a[0], false, &saved);
            reads(g, e->a[1]);
            close_gate(g, saved);
        }
        if (has_reads(g, e->a[2])) {
            open_gate(g, e->a[0], true, &saved);
            reads(g, e->a[2]);
            close_gate(g, saved);
        }
        return;
    case MDL_E_BIN:
        if (e->op == MDL_OP_LAND || e->op == MDL_OP_LOR) {
            reads(g, e->a[0]);
            if (has_reads(g, e->a[1])) {
                open_gate(g, e->a[0], e->op == MDL_OP_LOR, &saved);
                reads(g, e->a[1]);
                close_gate(g, saved);
            }
            return;
        }
        reads(g, e->a[0]);
        reads(g, e->a[1]);
        return;
    default: {
        int n = e->kind == MDL_E_CALL ? e->nargs : 1;
        for (int i = 0; i < n; i++)
            reads(g, e->a[i]);
        return;
    }
    }
}

/* `uses` of a declaration: origin = a new site number; addr: the space address (C text) or NULL. */
static void uses(struct vg *g, const struct mdl_use *u, int n, const char *addr, bool link)
{
    for (int i = 0; i < n; i++) {
        int site = g->site++;
        vg_line(g, "{");
        g->ind++;
        vg_line(g, "struct tsr_vev *u = tsr_vb_add(b, TSR_V_USE, %d, g%d, %d, %s);", g->slot, g->gate, u[i].resource,
             addr ? addr : "0");
        vg_line(g, "if (u) {");
        g->ind++;
        vg_line(g, "u->origin = %d;", site);
        if (link)
            vg_line(g, "u->link = (int16_t)(b->nev - 2 - %d);", i);
        if (u[i].value) {
            struct tsr_buf v = {0};
            if (vg_known(g, u[i].value)) {
                tsr_buf_puts(&v, "(int64_t)");
                vg_kexpr(g, u[i].value, &v);
            } else {
                tsr_buf_puts(&v, "-1");
            }
            vg_line(g, "u->val = %s;", v.data);
            tsr_buf_free(&v);
        }
        g->ind--;
        vg_line(g, "}");
        g->ind--;
        vg_line(g, "}");
    }
}

/* The operand bound to local `local` in op `op`, or -1. */
static int opnd_of_local(const struct mdl_model *m, int op, int local)
{
    if (op < 0)
        return -1;
    const struct mdl_template *t = &m->ops[op].tmpl;
    for (int i = 0; i < t->nparts; i++)
        if (t->parts[i].kind == MDL_TP_OPND && t->parts[i].local == local)
            return t->parts[i].opnd;
    return -1;
}

/* `if (<conds of alt 0>) { ... } else if ...` over an operand's alternatives (the decoder's first match);
 * body(g, alt) emits the inside. */
static void alt_chain(struct vg *g, const struct mdl_opnd *o, void (*body)(struct vg *, const struct mdl_opnd_alt *))
{
    int emitted = 0;
    for (int i = 0; i < o->nalt; i++) {
        const struct mdl_opnd_alt *a = &o->alt[i];
        struct tsr_buf c = {0};
        bool ok = true;
        for (int j = 0; j < a->ncond; j++) {
            if (!vg_known(g, a->cond[j].e)) {
                ok = false;
                break;
            }
            if (j)
                tsr_buf_puts(&c, " && ");
            tsr_buf_puts(&c, "(0 != ");
            vg_kexpr(g, a->cond[j].e, &c);
            tsr_buf_puts(&c, ")");
        }
        if (!ok) {
            tsr_buf_free(&c);
            continue;
        }
        vg_line(g, "%sif (%s) {", emitted++ ? "else " : "", a->ncond ? c.data : "1");
        g->ind++;
        body(g, a);
        g->ind--;
        vg_line(g, "}");
        tsr_buf_free(&c);
    }
}

static void alt_bind(struct vg *g, const struct mdl_opnd_alt *a)
{
    reads(g, a->read);
    uses(g, a->uses, a->nuses, NULL, false);
    vg_line(g, "(void)0;");
}

/* The event of a write of state `state` at element addr (C text); mask: its `mask m` (NULL: none), whose value,
 * when the fields give it, is the event's val (validate.h TSR_V_WSTATE: the components written). */
static void wstate_event(struct vg *g, int state, const char *addr, const struct mdl_expr *mask)
{
    if (!mask || !vg_known(g, mask)) {
        vg_line(g, "tsr_vb_add(b, TSR_V_WSTATE, %d, g%d, %d, %s);", g->slot, g->gate, state, addr);
        return;
    }
    struct tsr_buf mk = {0};
    vg_kexpr(g, mask, &mk);
    vg_line(g, "{ struct tsr_vev *we = tsr_vb_add(b, TSR_V_WSTATE, %d, g%d, %d, %s); if (we) we->val = (int64_t)(0xfu "
            "& %s); }", g->slot, g->gate, state, addr, mk.data);
    tsr_buf_free(&mk);
}

static void alt_write(struct vg *g, const struct mdl_opnd_alt *a)
{
    if (a->wspace >= 0) {
        space_access(g, true, a->wspace, a->waddr);
    } else if (a->wstate >= 0) {
        struct tsr_buf t = {0};
        addr_text(g, a->windex, &t);
        wstate_event(g, a->wstate, t.data, a->wmask);
        tsr_buf_free(&t);
    }
    vg_line(g, "(void)0;");
}

static void stmts(struct vg *g, struct mdl_stmt *const *s, int n);

static void stmt(struct vg *g, const struct mdl_stmt *s)
{
    const struct mdl_model *m = g->m;
    int saved;
    struct tsr_buf t = {0};
    switch (s->kind) {
    case MDL_S_LET:
        reads(g, s->e);
        break;
    case MDL_S_ASSIGN:
        if (s->target->kind == MDL_E_FWD && !g->commit && has_reads(g, s->e)) {
            /* (X6) the value's state reads are deferred to a read of the forward (validate.h TSR_V_RDEFER) */
            vg_line(g, "{");
            g->ind++;
            vg_line(g, "const int dv = b->nev;");
            reads(g, s->e);
            addr_text(g, s->target->a[0], &t);
            vg_line(g, "tsr_vb_defer(b, dv, %d, %s);", s->target->index, t.data);
            g->ind--;
            vg_line(g, "}");
            tsr_buf_free(&t);
        } else {
            reads(g, s->e);
        }
        if (s->target->kind == MDL_E_STATE && s->target->index != m->pc_state) {
            reads(g, s->target->a[0]);
            addr_text(g, s->target->a[0], &t);
            wstate_event(g, s->target->index, t.data, s->mask);
        } else if (s->target->kind == MDL_E_SPACE) {
            reads(g, s->target->a[0]);
            space_access(g, true, s->target->index, s->target->a[0]);
        } else if (s->target->kind == MDL_E_FWD) {
            fwd_event(g, s->target, s);
        }
        break;
    case MDL_S_WRITE: {
        reads(g, s->e);
        int o = opnd_of_local(m, g->op, s->local);
        if (o >= 0)
            alt_chain(g, &m->opnds[o], alt_write);
        break;
    }
    case MDL_S_IF:
        reads(g, s->e);
        if (s->nbody) {
            open_gate(g, s->e, false, &saved);
            stmts(g, s->body, s->nbody);
            close_gate(g, saved);
        }
        if (s->nelse) {
            open_gate(g, s->e, true, &saved);
            stmts(g, s->elseb, s->nelse);
            close_gate(g, saved);
        }
        break;
    case MDL_S_HOOK:
        for (int i = 0; i < s->nargs; i++)
            reads(g, s->args[i]);
        break;
    case MDL_S_ABORT: /* (X11) no event: the program stops */
        break;
    case MDL_S_JUMP:
    case MDL_S_HALT: {
        if (s->kind == MDL_S_JUMP) {
            reads(g, s->e);
            addr_text(g, s->e, &t);
        }
        const struct mdl_expr *dl = s->kind == MDL_S_JUMP ? (s->nargs > 0 ? s->args[0] : NULL)
                                                            : (s->nargs > 0 ? s->args[0] : NULL);
        int delay = dl && dl->kind == MDL_E_INT ? (int)dl->ival : 0;
        vg_line(g, "{");
        g->ind++;
        vg_line(g, "struct tsr_vev *j = tsr_vb_add(b, %s, %d, g%d, 0, 0);",
             s->kind == MDL_S_JUMP ? "TSR_V_JUMP" : "TSR_V_HALT", g->slot, g->gate);
        vg_line(g, "if (j) {");
        g->ind++;
        vg_line(g, "j->delay = %d;", delay);
        if (s->kind == MDL_S_JUMP)
            vg_line(g, "j->val = %s;", t.data);
        g->ind--;
        vg_line(g, "}");
        g->ind--;
        vg_line(g, "}");
        break;
    }
    case MDL_S_BLOCK:
        stmts(g, s->body, s->nbody);
        break;
    }
    tsr_buf_free(&t);
}

static void stmts(struct vg *g, struct mdl_stmt *const *s, int n)
{
    for (int i = 0; i < n; i++)
        if (s[i])
            stmt(g, s[i]);
}

/* Counts assignments to each local in s (nested ones count twice: they are not definitions). */
static void count_defs(struct mdl_stmt *const *s, int n, int *cnt, const struct mdl_expr **def, int nloc, bool top)
{
    for (int i = 0; i < n; i++) {
        const struct mdl_stmt *x = s[i];
        if (!x)
            continue;
        int l = -1;
        if (x->kind == MDL_S_LET || x->kind == MDL_S_WRITE)
            l = x->local;
        else if (x->kind == MDL_S_ASSIGN && x->target->kind == MDL_E_LOCAL)
            l = x->target->index;
        if (l >= 0 && l < nloc) {
            cnt[l] += top && x->kind != MDL_S_WRITE ? 1 : 2;
            def[l] = x->e;
        }
        count_defs(x->body, x->nbody, cnt, def, nloc, top && x->kind == MDL_S_BLOCK);   /* a block is no condition */
        count_defs(x->elseb, x->nelse, cnt, def, nloc, false);
    }
}

static void set_defs(struct vg *g, struct mdl_stmt *const *s, int n, int nloc)
{
    g->ndef = 0;
    if (nloc <= 0)
        return;
    int *cnt = calloc((size_t)nloc, sizeof *cnt);
    const struct mdl_expr **def = calloc((size_t)nloc, sizeof *def);
    if (!cnt || !def) {
        free(cnt);
        free(def);
        return;
    }
    count_defs(s, n, cnt, def, nloc, true);
    for (int i = 0; i < nloc; i++)
        if (cnt[i] != 1)
            def[i] = NULL;
    free(cnt);
    free((void *)g->def);
    g->def = def;
    g->ndef = nloc;
}

/* ---- functions of <t>_validate.c --------------------------------------------------------------------------- */
static void space_fn(struct vg *g, int sp, bool write)
{
    const struct mdl_space *s = &g->m->spaces[sp];
    vg_line(g, "__attribute__((unused)) static void v_%s_%d(struct tsr_vbundle *b, int slot, int gate, int64_t addr)",
            write ? "wr" : "rd", sp);
    vg_line(g, "{");
    g->ind++;
    vg_line(g, "int16_t at = (int16_t)b->nev;");
    vg_line(g, "tsr_vb_add(b, %s, slot, gate, %d, addr);", write ? "TSR_V_WSPACE" : "TSR_V_RSPACE", sp);
    vg_line(g, "(void)at;");
    int saved_slot = g->slot, saved_gate = g->gate;
    g->addr = "addr";
    bool any = false;
    for (int i = 0; i < s->nent; i++) {
        const struct mdl_sentry *en = &s->ent[i];
        if (en->write != write || (en->kind != MDL_SE_STATE && !en->nuses))
            continue;
        any = true;
        vg_line(g, "%sif (addr >= %u && addr <= %u) {", "", en->lo, en->hi);
        g->ind++;
        if (en->kind == MDL_SE_STATE) {
            struct tsr_buf t = {0};
            addr_text(g, en->index, &t);
            vg_line(g, "tsr_vb_add(b, %s, slot, gate, %d, %s);", write ? "TSR_V_WSTATE" : "TSR_V_RSTATE", en->state,
                 t.data);
            tsr_buf_free(&t);
        }
        for (int u = 0; u < en->nuses; u++) {
            int site = g->site++;
            vg_line(g, "{");
            g->ind++;
            vg_line(g, "struct tsr_vev *u = tsr_vb_add(b, TSR_V_USE, slot, gate, %d, addr);", en->uses[u].resource);
            vg_line(g, "if (u) {");
            g->ind++;
            vg_line(g, "u->origin = %d;", site);
            vg_line(g, "u->link = at;");
            if (en->uses[u].value) {
                struct tsr_buf v = {0};
                if (vg_known(g, en->uses[u].value)) {
                    tsr_buf_puts(&v, "(int64_t)");
                    vg_kexpr(g, en->uses[u].value, &v);
                } else {
                    tsr_buf_puts(&v, "-1");
                }
                vg_line(g, "u->val = %s;", v.data);
                tsr_buf_free(&v);
            }
            g->ind--;
            vg_line(g, "}");
            g->ind--;
            vg_line(g, "}");
        }
        g->ind--;
        vg_line(g, "}");
    }
    if (!any)
        vg_line(g, "(void)slot; (void)gate;");
    g->addr = NULL;
    g->slot = saved_slot;
    g->gate = saved_gate;
    g->ind--;
    vg_line(g, "}");
    vg_blank(g);
}

static void op_fn(struct vg *g, int oi)
{
    const struct mdl_model *m = g->m;
    const struct mdl_op *op = &m->ops[oi];
    const struct mdl_slot *sl = &m->slots[op->slot];
    g->op = oi;
    g->slot = op->slot;
    set_defs(g, op->sem, op->nsem, op->nlocals);
    g->gate = 0;
    g->ngate = 0;
    g->commit = false;
    vg_line(g, "/* op %s : %s */", op->name, sl->name);
    vg_line(g, "static void v_op_%d(struct tsr_vbundle *b, const uint64_t *f, uint32_t pc)", oi);
    vg_line(g, "{");
    g->ind++;
    vg_line(g, "const int g0 = 1, ev0 = b->nev;");
    vg_line(g, "(void)f; (void)pc; (void)g0;");
    vg_line(g, "tsr_vb_add(b, TSR_V_OP, %d, 1, %d, 0);", op->slot, oi);
    uses(g, op->uses, op->nuses, NULL, false);
    for (int i = 0; i < op->tmpl.nparts; i++) {
        const struct mdl_tpart *p = &op->tmpl.parts[i];
        if (p->kind != MDL_TP_OPND)
            continue;
        const struct mdl_opnd *o = &m->opnds[p->opnd];
        bool any = false;
        for (int a = 0; a < o->nalt; a++)
            any |= has_reads(g, o->alt[a].read) || o->alt[a].nuses > 0;
        if (!any)
            continue;
        vg_line(g, "/* operand %s */", o->inst_name ? o->inst_name : o->name);
        alt_chain(g, o, alt_bind);
    }
    stmts(g, op->sem, op->nsem);
    g->commit = true;
    if (!op->is_span)   /* (addition) X7: a slot a wide op takes has only the op event (its events are the home's) */
        stmts(g, sl->commit, sl->ncommit);
    g->commit = false;
    vg_line(g, "tsr_vb_op(b, ev0, %d);   /* for attr() in patterns */", oi);
    g->ind--;
    vg_line(g, "}");
    vg_blank(g);
    g->op = -1;
}

static void format_fn(struct vg *g, int fi)
{
    const struct mdl_model *m = g->m;
    const struct mdl_format *F = &m->formats[fi];
    g->op = -1;
    g->slot = -1;
    set_defs(g, F->sem, F->nsem, F->nlocals);
    g->gate = 0;
    g->ngate = 0;
    g->commit = false;
    vg_line(g, "/* format %s */", F->name);
    vg_line(g, "static void v_fmt_%d(struct tsr_vbundle *b, const uint64_t *f, uint32_t pc, const uint16_t *ops)", fi);
    vg_line(g, "{");
    g->ind++;
    vg_line(g, "const int g0 = 1;");
    vg_line(g, "(void)f; (void)pc; (void)g0;");
    uses(g, F->uses, F->nuses, NULL, false);
    stmts(g, F->sem, F->nsem);
    for (int s = 0; s < F->nslots; s++) {
        const struct mdl_slot *sl = &m->slots[F->slots[s]];
        vg_line(g, "switch (ops[%d]) {", F->slots[s]);
        for (int j = 0; j < sl->nops; j++)
            vg_line(g, "case %d: v_op_%d(b, f, pc); break;", sl->ops[j], sl->ops[j]);
        vg_line(g, "default: break;");
        vg_line(g, "}");
    }
    g->commit = true;
    stmts(g, F->commit, F->ncommit);
    g->commit = false;
    g->ind--;
    vg_line(g, "}");
    vg_blank(g);
}

int gen_validate(const struct mdl_model *m, struct tsr_buf *out, struct tsr_diag *d)
{
    char lo[128], up[128];
    snprintf(lo, sizeof lo, "%s", gen_lower(m));
    snprintf(up, sizeof up, "%s", gen_upper(m));
    struct tsr_buf body = {0};
    bool *tab_used = calloc((size_t)m->ntables + 1, sizeof *tab_used);
    if (!tab_used)
        return tsr_diag_error(d, NULL, 0, 0, "out of memory");
    struct vg g = { m, &body, d, 0, 0, 0, -1, false, false, -1, false, tab_used, 0, NULL, 0, NULL, 0, 0 };

    /* spaces, ops, formats */
    for (int s = 0; s < m->nspaces; s++) {
        space_fn(&g, s, false);
        space_fn(&g, s, true);
    }
    for (int i = 0; i < m->nops; i++)
        op_fn(&g, i);
    for (int i = 0; i < m->nformats; i++)
        format_fn(&g, i);
    vg_line(&g, "static int v_events(const uint32_t *w, uint32_t pc, struct tsr_vbundle *b)");
    vg_line(&g, "{");
    g.ind++;
    vg_line(&g, "struct %s_tinst in;   /* f[] as uint64_t, as b->f */", lo);
    vg_line(&g, "memset(&in, 0, sizeof in);");
    vg_line(&g, "%s_tdecode(w, &in);", lo);
    vg_line(&g, "b->pc = pc;");
    vg_line(&g, "b->nev = 0;");
    vg_line(&g, "b->overflow = false;");
    vg_line(&g, "b->format = in.format == %s_NO_FORMAT ? -1 : (int)in.format;", up);
    vg_line(&g, "memcpy(b->f, in.f, sizeof in.f);");
    vg_line(&g, "switch (in.format) {");
    for (int i = 0; i < m->nformats; i++)
        vg_line(&g, "case %d: v_fmt_%d(b, b->f, pc, in.op); break;", i, i);
    vg_line(&g, "default: break;");
    vg_line(&g, "}");
    vg_line(&g, "return 0;");
    g.ind--;
    vg_line(&g, "}");
    vg_blank(&g);

    vg_rules(&g, lo);
    if (g.site > INT16_MAX || m->nops > INT16_MAX)   /* struct tsr_vev.origin and .op are int16_t */
        g.err = tsr_diag_error(d, NULL, 0, 0, "%s: more than %d 'uses' sites or ops", m->name, INT16_MAX);

    /* the file: banner, includes, table lookups, then the body */
    gen_banner(m, out);
    tsr_buf_printf(out, "#include <stdbool.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <string.h>\n\n"
                        "#include \"%s.h\"\n#include \"validate/validate.h\"\n\n", m->name);
    tsr_buf_puts(out, "/* What each bundle does (events) and the description's rules: runtime/validate/validate.h. */\n\n");
    struct tsr_buf tabs = {0};
    struct vg gt = g;
    gt.out = &tabs;
    gt.ind = 0;
    vg_tables(&gt);
    if (tabs.len)
        tsr_buf_append(out, tabs.data, tabs.len);
    tsr_buf_append(out, body.data ? body.data : "", body.len);
    tsr_buf_free(&tabs);
    tsr_buf_free(&body);
    free(tab_used);
    free((void *)g.def);
    return g.err ? -1 : 0;
}
