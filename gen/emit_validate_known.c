/* The validator emitter's known values (gen/emit_validate.h): which expressions of a bundle's semantics are
 * known from its fields, constants, the pc and the executing op's attributes, their values as C expressions, and
 * the three-valued truth of conditions (0 false, 1 true, 2 depends on machine state). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "emit_util.h"
#include "emit_validate.h"
#include "gen.h"

/* ---- known values: fields, constants, the pc, attributes of the executing op ------------------------------- */
static bool is_builtin(const struct mdl_expr *e, int b)
{
    return e->kind == MDL_E_CALL && e->index == b;
}

static const struct mdl_expr *local_def(const struct vg *g, const struct mdl_expr *e)
{
    return e->kind == MDL_E_LOCAL && e->index >= 0 && e->index < g->ndef && g->depth < 8 ? g->def[e->index] : NULL;
}

bool vg_known(const struct vg *g, const struct mdl_expr *e)
{
    if (!e)
        return false;
    switch (e->kind) {
    case MDL_E_LOCAL: {
        const struct mdl_expr *d = local_def(g, e);
        if (!d)
            return false;
        ((struct vg *)g)->depth++;
        bool k = vg_known(g, d);
        ((struct vg *)g)->depth--;
        return k;
    }
    case MDL_E_INT:
    case MDL_E_FLOAT:
    case MDL_E_FIELD:
        return true;
    case MDL_E_CODE:
        return g->addr != NULL;
    case MDL_E_STATE:
        return e->index == g->m->pc_state && !e->a[0];
    case MDL_E_ATTR:
        return g->op >= 0 || g->match;
    case MDL_E_UN:
    case MDL_E_CAST:
    case MDL_E_TABLE:
        return vg_known(g, e->a[0]);
    case MDL_E_BIN:
        return vg_known(g, e->a[0]) && vg_known(g, e->a[1]);
    case MDL_E_COND:
        return vg_known(g, e->a[0]) && vg_known(g, e->a[1]) && vg_known(g, e->a[2]);
    case MDL_E_CALL:
        return (is_builtin(e, MDL_B_LANE) || is_builtin(e, MDL_B_ALL) || is_builtin(e, MDL_B_ANY)) && vg_known(g, e->a[0]);
    default:
        return false;
    }
}

static bool is_signed(const struct mdl_expr *e)
{
    return e->type == MDL_T_I32;
}


static void knorm_open(const struct mdl_expr *e, struct tsr_buf *o)
{
    if (e->type == MDL_T_I32)
        tsr_buf_puts(o, "(uint64_t)(int64_t)(int32_t)(uint32_t)(");
    else if (e->type == MDL_T_BOOL)
        tsr_buf_puts(o, "(uint64_t)(0 != (");
    else
        tsr_buf_puts(o, "(0xffffffffu & (");
}

static void knorm_close(const struct mdl_expr *e, struct tsr_buf *o)
{
    tsr_buf_puts(o, e->type == MDL_T_I32 ? ")" : "))");
}

static void kbin(struct vg *g, const struct mdl_expr *e, struct tsr_buf *o, const char *pre, const char *mid,
                 const char *post)
{
    tsr_buf_puts(o, pre);
    vg_kexpr(g, e->a[0], o);
    tsr_buf_puts(o, mid);
    vg_kexpr(g, e->a[1], o);
    tsr_buf_puts(o, post);
}

/* A C expression (uint64_t) for a known expression: u32 values as 0..2^32-1, i32 values sign-extended, bools 0/1. */
void vg_kexpr(struct vg *g, const struct mdl_expr *e, struct tsr_buf *o)
{
    const struct mdl_model *m = g->m;
    const struct mdl_expr *def = local_def(g, e);
    if (def) {
        g->depth++;
        vg_kexpr(g, def, o);
        g->depth--;
        return;
    }
    switch (e->kind) {
    case MDL_E_INT:
    case MDL_E_FLOAT:
        gen_u64(o, e->kind == MDL_E_INT && e->type == MDL_T_I32 ? (uint64_t)(int64_t)(int32_t)(uint32_t)e->ival
                                                                : e->ival);
        return;
    case MDL_E_FIELD: {
        const struct mdl_field *f = &m->fields[e->index];
        if (f->is_signed && f->width < 64) {
            uint64_t sign = (uint64_t)1 << (f->width - 1);
            tsr_buf_printf(o, "((f[%d] ^ ", e->index);
            gen_u64(o, sign);
            tsr_buf_puts(o, ") - ");
            gen_u64(o, sign);
            tsr_buf_puts(o, ")");
        } else {
            tsr_buf_printf(o, "f[%d]", e->index);
        }
        return;
    }
    case MDL_E_CODE:
        tsr_buf_printf(o, "(uint64_t)%s", g->addr);
        return;
    case MDL_E_STATE:
        tsr_buf_puts(o, "(uint64_t)pc");
        return;
    case MDL_E_ATTR:
        if (g->op < 0 && g->match) {   /* the op behind the event, known when the matcher runs */
            g->attr_used = true;
            tsr_buf_printf(o, "(uint64_t)(e->op >= 0 && (v_op_attrs[e->op] >> %d & 1))", e->index);
            return;
        }
        tsr_buf_puts(o, (g->op >= 0 && (m->ops[g->op].attrs >> e->index & 1)) ? "UINT64_C(1)" : "UINT64_C(0)");
        return;
    case MDL_E_TABLE:
        g->tab_used[e->index] = true;
        tsr_buf_printf(o, "v_tab_%d(", e->index);
        vg_kexpr(g, e->a[0], o);
        tsr_buf_puts(o, ")");
        return;
    case MDL_E_CALL:
        if (is_builtin(e, MDL_B_LANE)) {
            vg_kexpr(g, e->a[0], o);
        } else {
            tsr_buf_puts(o, "(uint64_t)(0 != ");
            vg_kexpr(g, e->a[0], o);
            tsr_buf_puts(o, ")");
        }
        return;
    case MDL_E_CAST:
        knorm_open(e, o);
        vg_kexpr(g, e->a[0], o);
        knorm_close(e, o);
        return;
    case MDL_E_UN:
        if (e->op == '!') {
            tsr_buf_puts(o, "(uint64_t)!(");
            vg_kexpr(g, e->a[0], o);
            tsr_buf_puts(o, ")");
            return;
        }
        knorm_open(e, o);
        tsr_buf_puts(o, e->op == '-' ? "0 - " : "~");
        vg_kexpr(g, e->a[0], o);
        knorm_close(e, o);
        return;
    case MDL_E_COND:
        tsr_buf_puts(o, "(");
        vg_kexpr(g, e->a[0], o);
        tsr_buf_puts(o, " ? ");
        vg_kexpr(g, e->a[1], o);
        tsr_buf_puts(o, " : ");
        vg_kexpr(g, e->a[2], o);
        tsr_buf_puts(o, ")");
        return;
    case MDL_E_BIN: {
        bool sg = is_signed(e->a[0]) || is_signed(e->a[1]);
        const char *cmp = NULL;
        switch (e->op) {
        case MDL_OP_EQ: cmp = " == "; break;
        case MDL_OP_NE: cmp = " != "; break;
        case MDL_OP_LT: cmp = " < "; break;
        case MDL_OP_LE: cmp = " <= "; break;
        case MDL_OP_GT: cmp = " > "; break;
        case MDL_OP_GE: cmp = " >= "; break;
        case MDL_OP_LAND: kbin(g, e, o, "(uint64_t)(", " && ", ")"); return;
        case MDL_OP_LOR: kbin(g, e, o, "(uint64_t)(", " || ", ")"); return;
        default: break;
        }
        if (cmp) {
            if (sg && e->op != MDL_OP_EQ && e->op != MDL_OP_NE) {
                tsr_buf_puts(o, "(uint64_t)((int64_t)");
                vg_kexpr(g, e->a[0], o);
                tsr_buf_printf(o, "%s(int64_t)", cmp);
                vg_kexpr(g, e->a[1], o);
                tsr_buf_puts(o, ")");
            } else {
                kbin(g, e, o, "(uint64_t)(", cmp, ")");
            }
            return;
        }
        knorm_open(e, o);
        switch (e->op) {
        case '+': kbin(g, e, o, "", " + ", ""); break;
        case '-': kbin(g, e, o, "", " - ", ""); break;
        case '*': kbin(g, e, o, "", " * ", ""); break;
        case '&': kbin(g, e, o, "", " & ", ""); break;
        case '|': kbin(g, e, o, "", " | ", ""); break;
        case '^': kbin(g, e, o, "", " ^ ", ""); break;
        case '/': kbin(g, e, o, sg ? "tsr_gen_sdiv(" : "tsr_gen_udiv(", ", ", ")"); break;
        case '%': kbin(g, e, o, sg ? "tsr_gen_smod(" : "tsr_gen_umod(", ", ", ")"); break;
        case MDL_OP_SHL: kbin(g, e, o, "tsr_vshl(", ", ", ")"); break;
        case MDL_OP_SHR: kbin(g, e, o, is_signed(e->a[0]) ? "tsr_vasr(" : "tsr_vshr(", ", ", ")"); break;
        default: tsr_buf_puts(o, "0"); break;
        }
        knorm_close(e, o);
        return;
    }
    default:
        tsr_buf_puts(o, "0");
        return;
    }
}

/* A C expression (int) for the three-valued truth of e: 0, 1, or 2 (depends on machine state). */
void vg_truth(struct vg *g, const struct mdl_expr *e, struct tsr_buf *o)
{
    uint64_t v;
    if (mdl_const_eval(e, &v) == 0 && !(e->kind == MDL_E_STATE)) {
        tsr_buf_puts(o, v ? "1" : "0");
        return;
    }
    if (vg_known(g, e)) {
        tsr_buf_puts(o, "(0 != ");
        vg_kexpr(g, e, o);
        tsr_buf_puts(o, ")");
        return;
    }
    const struct mdl_expr *def = local_def(g, e);
    if (def) {
        g->depth++;
        vg_truth(g, def, o);
        g->depth--;
        return;
    }
    switch (e->kind) {
    case MDL_E_BIN:
        if (e->op == MDL_OP_LAND || e->op == MDL_OP_LOR) {
            tsr_buf_puts(o, e->op == MDL_OP_LAND ? "tsr_tv_and(" : "tsr_tv_or(");
            vg_truth(g, e->a[0], o);
            tsr_buf_puts(o, ", ");
            vg_truth(g, e->a[1], o);
            tsr_buf_puts(o, ")");
            return;
        }
        break;
    case MDL_E_UN:
        if (e->op == '!') {
            tsr_buf_puts(o, "tsr_tv_not(");
            vg_truth(g, e->a[0], o);
            tsr_buf_puts(o, ")");
            return;
        }
        break;
    case MDL_E_COND:
        tsr_buf_puts(o, "tsr_tv_sel(");
        vg_truth(g, e->a[0], o);
        tsr_buf_puts(o, ", ");
        vg_truth(g, e->a[1], o);
        tsr_buf_puts(o, ", ");
        vg_truth(g, e->a[2], o);
        tsr_buf_puts(o, ")");
        return;
    case MDL_E_CAST:
        vg_truth(g, e->a[0], o);
        return;
    case MDL_E_CALL:
        if (is_builtin(e, MDL_B_LANE) || is_builtin(e, MDL_B_ALL) || is_builtin(e, MDL_B_ANY)) {
            vg_truth(g, e->a[0], o);
            return;
        }
        break;
    default:
        break;
    }
    tsr_buf_puts(o, "2");
}
