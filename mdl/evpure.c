/* What is known of the description's expressions without evaluating them, shared by the evaluator (eval.c) and
 * the generator: the largest value an index can take (mdl_index_bound: a field's width, a mask, a choice), and
 * whether an expression has an effect (a read that may be a hazard, out of range or of a guarded element).
 * See eval.h for the contracts. */
#include "eval.h"

bool mdl_const_index(const struct mdl_expr *e, uint64_t *v)
{
    if (e->kind == MDL_E_INT) {
        *v = e->ival;
        return true;
    }
    return mdl_const_eval(e, v) == 0;
}

static bool int_operands(const struct mdl_expr *e)
{
    return !mdl_type_float(e->type) && !mdl_type_float(e->a[0]->type) && !mdl_type_float(e->a[1]->type);
}

bool mdl_index_bound(const struct mdl_model *m, const struct mdl_expr *e, uint64_t *max)
{
    uint64_t a, b;
    bool ka, kb;
    if (!e)
        return false;
    if (mdl_const_index(e, &a)) {
        *max = a & 0xffffffffu;   /* an index is a u32 */
        return true;
    }
    switch (e->kind) {
    case MDL_E_FIELD: {
        if (e->index < 0 || e->index >= m->nfields)
            return false;
        const struct mdl_field *f = &m->fields[e->index];
        if (f->is_signed || f->width >= 32)
            return false;
        *max = ((uint64_t)1 << f->width) - 1;
        return true;
    }
    case MDL_E_BIN:
        if (!int_operands(e) || mdl_expr_has_effects(m, e))
            return false;
        ka = mdl_index_bound(m, e->a[0], &a);
        kb = mdl_index_bound(m, e->a[1], &b);
        if (e->op == '&' && (ka || kb)) {
            *max = ka && kb ? (a < b ? a : b) : ka ? a : b;
            return true;
        }
        if (!ka || !kb)
            return false;
        if (e->op == '|' || e->op == '^') {   /* below the next power of two */
            uint64_t x = a | b, p = 1;
            while (p <= x)
                p <<= 1;
            *max = p - 1;
            return true;
        }
        if (e->op == '+' && a + b <= 0xffffffffu) {
            *max = a + b;
            return true;
        }
        return false;
    case MDL_E_COND:
        if (mdl_expr_has_effects(m, e->a[0]) || !mdl_index_bound(m, e->a[1], &a) || !mdl_index_bound(m, e->a[2], &b))
            return false;
        *max = a > b ? a : b;
        return true;
    default:
        return false;
    }
}

bool mdl_expr_has_effects(const struct mdl_model *m, const struct mdl_expr *e)
{
    if (!e)
        return false;
    if (e->kind == MDL_E_SPACE || e->kind == MDL_E_FWD)   /* (X6) a forward read may be a hazard */
        return true;
    if (e->kind == MDL_E_STATE && e->index >= 0 && e->index < m->nstates) {
        const struct mdl_state *s = &m->states[e->index];
        if (s->count > 0) {
            uint64_t k;
            if (s->latency > 0 || !e->a || !e->a[0])
                return true;
            if (mdl_const_index(e->a[0], &k)) {
                if (k >= (uint64_t)s->count || (s->guard_elem >= 0 && k == (uint64_t)s->guard_elem))
                    return true;
            } else if (s->guard_elem >= 0 || !mdl_index_bound(m, e->a[0], &k) || k >= (uint64_t)s->count) {
                return true;   /* a computed index that may be out of range */
            }
        }
    }
    for (int i = 0; i < mdl_expr_arity(e); i++)
        if (mdl_expr_has_effects(m, e->a[i]))
            return true;
    return false;
}
