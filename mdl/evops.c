/* Pure semantics of the description's expressions, shared by the evaluator (eval.c) and its users: arity,
 * table lookups and the unary and binary operators (runtime/sem.h). */
#include "eval.h"

#include "sem.h"

int mdl_expr_arity(const struct mdl_expr *e)
{
    switch (e->kind) {
    case MDL_E_UN: case MDL_E_CAST: case MDL_E_TABLE: return 1;
    case MDL_E_BIN: return 2;
    case MDL_E_COND: return 3;
    case MDL_E_CALL: return e->nargs;
    case MDL_E_STATE: case MDL_E_SPACE: case MDL_E_FWD: return e->a && e->a[0] ? 1 : 0;
    default: return 0;
    }
}

uint32_t mdl_table_value(const struct mdl_table *t, uint32_t c)
{
    for (int i = 0; i < t->nent; i++) {
        const struct mdl_tentry *en = &t->ent[i];
        if (en->is_num && en->vals && en->code_lo <= c && c <= en->code_hi)
            return en->vals[c - en->code_lo];
    }
    return 0;
}

static int dom2(enum mdl_type a, enum mdl_type b)
{
    if (mdl_type_float(a) && mdl_type_float(b))
        return TSR_DOM_F;
    if (a == MDL_T_I32 || b == MDL_T_I32)
        return TSR_DOM_I;
    return TSR_DOM_U;
}

uint32_t mdl_sem_unop(const struct mdl_expr *e, uint32_t x)
{
    switch (e->op) {
    case '-': return mdl_type_float(e->a[0]->type) ? tsr_fneg(x) : 0u - x;
    case '~': return ~x;
    default: return x == 0;
    }
}

uint32_t mdl_sem_binop(const struct mdl_model *m, const struct mdl_expr *e, uint32_t x, uint32_t y)
{
    int d = dom2(e->a[0]->type, e->a[1]->type), fm = m->float_mode;
    int dl = e->a[0]->type == MDL_T_I32 ? TSR_DOM_I : TSR_DOM_U;
    switch (e->op) {
    case '+': return d == TSR_DOM_F ? tsr_sem_fadd(x, y, fm) : x + y;
    case '-': return d == TSR_DOM_F ? tsr_sem_fsub(x, y, fm) : x - y;
    case '*': return d == TSR_DOM_F ? tsr_sem_fmul(x, y, fm) : x * y;
    case '/': return tsr_sem_div(x, y, d);
    case '%': return tsr_sem_rem(x, y, d);
    case '&': return x & y;
    case '|': return x | y;
    case '^': return x ^ y;
    case MDL_OP_SHL: return tsr_sem_shl(x, y);
    case MDL_OP_SHR: return tsr_sem_shr(x, y, dl);
    case MDL_OP_LT: return tsr_sem_cmp(x, y, 0, d, fm);
    case MDL_OP_LE: return tsr_sem_cmp(x, y, 1, d, fm);
    case MDL_OP_GT: return tsr_sem_cmp(x, y, 2, d, fm);
    case MDL_OP_GE: return tsr_sem_cmp(x, y, 3, d, fm);
    case MDL_OP_EQ: return tsr_sem_cmp(x, y, 4, d, fm);
    case MDL_OP_NE: return tsr_sem_cmp(x, y, 5, d, fm);
    case MDL_OP_LAND: return x != 0 && y != 0;
    case MDL_OP_LOR: return x != 0 || y != 0;
    default: return 0;
    }
}
