/* Constant evaluation of checked expressions at check time: constants (mdl_const_eval), table entries (`code`), space
 * entries (`addr`, `value`) and selectors over given field values (mdl_ceval, check.h).
 *
 * Values are uint64_t holding the expression's type (mdl_cnorm): u32 zero-extended, i32 sign-extended from bit
 * 31, f32 as its binary32 bits, bool 0/1. Float arithmetic is done in C `float` (binary32, round to nearest).
 * Shifts by 32 or more give 0 (>> of an i32: 0 or -1). Lane operations (elem, lane, rotate, ...), state, locals
 * and space reads are not constant.
 */
#include <math.h>
#include <string.h>
#include "check.h"

uint64_t mdl_cnorm(uint64_t v, enum mdl_type t)
{
	switch (t) {
	case MDL_T_I32: return (uint64_t)(int64_t)(int32_t)(uint32_t)v;
	case MDL_T_BOOL: return v != 0;
	case MDL_T_F16: return v & 0xffff;
	case MDL_T_VOID: return v;
	default: return v & 0xffffffffu;
	}
}

static float tof(uint64_t v)
{
	uint32_t b = (uint32_t)v;
	float f;
	memcpy(&f, &b, sizeof f);
	return f;
}

static uint64_t fromf(float f)
{
	uint32_t b;
	memcpy(&b, &f, sizeof b);
	return b;
}

static int64_t sx(uint64_t v) { return (int64_t)(int32_t)(uint32_t)v; }

static uint64_t ftoi(float f)
{
	if (isnan(f))
		return 0;
	if (f >= 2147483648.0f)
		return 0x7fffffff;
	if (f < -2147483648.0f)
		return (uint64_t)(int64_t)INT32_MIN;
	return (uint64_t)(int64_t)(int32_t)f;
}

static int eval_call(const struct mdl_expr *e, const uint64_t *v, uint64_t *out)
{
	float a = e->nargs > 0 ? tof(v[0]) : 0, b = e->nargs > 1 ? tof(v[1]) : 0;
	uint32_t x = e->nargs > 0 ? (uint32_t)v[0] : 0, y = e->nargs > 1 ? (uint32_t)v[1] : 0;
	switch (e->index) {
	case MDL_B_FADD: *out = fromf(a + b); break;
	case MDL_B_FSUB: *out = fromf(a - b); break;
	case MDL_B_FMUL: *out = fromf(a * b); break;
	case MDL_B_FMIN: *out = fromf(fminf(a, b)); break;
	case MDL_B_FMAX: *out = fromf(fmaxf(a, b)); break;
	case MDL_B_FABS: *out = x & 0x7fffffffu; break;
	case MDL_B_FNEG: *out = x ^ 0x80000000u; break;
	case MDL_B_FTOI: *out = ftoi(a); break;
	case MDL_B_ITOF: *out = fromf((float)(int32_t)x); break;
	case MDL_B_FGT: *out = a > b; break;
	case MDL_B_FEQ: *out = a == b; break;
	case MDL_B_CLZ: {
		int n = 0;
		while (n < 32 && !(x & (0x80000000u >> n)))
			n++;
		*out = (uint64_t)n;
		break;
	}
	case MDL_B_MUL24: *out = (uint32_t)((x & 0xffffffu) * (y & 0xffffffu)); break;
	case MDL_B_SHL: *out = (uint32_t)(x << (y & 31)); break;
	case MDL_B_SHR: *out = x >> (y & 31); break;
	case MDL_B_ASR: *out = (uint32_t)((int32_t)x >> (y & 31)); break;
	case MDL_B_ROR: *out = (y & 31) ? (uint32_t)((x >> (y & 31)) | (x << (32 - (y & 31)))) : x; break;
	case MDL_B_MIN: *out = (uint32_t)((int32_t)x < (int32_t)y ? x : y); break;
	case MDL_B_MAX: *out = (uint32_t)((int32_t)x > (int32_t)y ? x : y); break;
	case MDL_B_SADD_SAT: case MDL_B_SSUB_SAT: {
		int64_t r = e->index == MDL_B_SADD_SAT ? sx(x) + sx(y) : sx(x) - sx(y);
		r = r > INT32_MAX ? INT32_MAX : r < INT32_MIN ? INT32_MIN : r;
		*out = (uint32_t)(int32_t)r;
		break;
	}
	case MDL_B_BYTE: *out = (x >> (8 * (y & 3))) & 0xff; break;
	case MDL_B_BYTES:
		*out = ((uint32_t)(v[0] & 0xff) << 24) | ((uint32_t)(v[1] & 0xff) << 16) | ((uint32_t)(v[2] & 0xff) << 8) |
		       (uint32_t)(v[3] & 0xff);
		break;
	default:
		return -1;
	}
	*out = mdl_cnorm(*out, e->type);
	return 0;
}

static int eval_bin(const struct mdl_expr *e, uint64_t x, uint64_t y, uint64_t *out)
{
	enum mdl_type ot = e->a[0]->type;
	bool fl = ot == MDL_T_F32, sg = ot == MDL_T_I32;
	uint64_t r;
	switch (e->op) {
	case '+': r = fl ? fromf(tof(x) + tof(y)) : x + y; break;
	case '-': r = fl ? fromf(tof(x) - tof(y)) : x - y; break;
	case '*': r = fl ? fromf(tof(x) * tof(y)) : x * y; break;
	case '/': case '%':
		if (fl) {
			r = fromf(e->op == '/' ? tof(x) / tof(y) : fmodf(tof(x), tof(y)));
			break;
		}
		if ((uint32_t)y == 0)
			return -2;
		if (sg && sx(x) == INT32_MIN && sx(y) == -1)
			r = e->op == '/' ? x : 0;
		else if (sg)
			r = (uint64_t)(e->op == '/' ? sx(x) / sx(y) : sx(x) % sx(y));
		else
			r = e->op == '/' ? (uint32_t)x / (uint32_t)y : (uint32_t)x % (uint32_t)y;
		break;
	case '&': r = x & y; break;
	case '|': r = x | y; break;
	case '^': r = x ^ y; break;
	case MDL_OP_SHL: r = (uint32_t)y >= 32 ? 0 : (uint64_t)((uint32_t)x << (uint32_t)y); break;
	case MDL_OP_SHR:
		if (sg)
			r = (uint64_t)((uint32_t)y >= 32 ? (sx(x) < 0 ? -1 : 0) : sx(x) >> (uint32_t)y);
		else
			r = (uint32_t)y >= 32 ? 0 : (uint32_t)x >> (uint32_t)y;
		break;
	case MDL_OP_EQ: case MDL_OP_NE: case MDL_OP_LT: case MDL_OP_LE: case MDL_OP_GT: case MDL_OP_GE: {
		int c;
		if (fl) {
			float a = tof(x), b = tof(y);
			if (isnan(a) || isnan(b))
				c = 2;
			else
				c = a < b ? -1 : a > b;
		} else if (sg) {
			c = sx(x) < sx(y) ? -1 : sx(x) > sx(y);
		} else {
			c = x < y ? -1 : x > y;
		}
		switch (e->op) {
		case MDL_OP_EQ: r = c == 0; break;
		case MDL_OP_NE: r = c != 0; break;
		case MDL_OP_LT: r = c == -1; break;
		case MDL_OP_LE: r = c == -1 || c == 0; break;
		case MDL_OP_GT: r = c == 1; break;
		default: r = c == 1 || c == 0; break;
		}
		break;
	}
	case MDL_OP_LAND: r = x && y; break;
	case MDL_OP_LOR: r = x || y; break;
	default: return -1;
	}
	*out = mdl_cnorm(r, e->type);
	return 0;
}

int mdl_ceval(const struct mdl_expr *e, const struct mdl_cenv *env, uint64_t *out)
{
	uint64_t v[4], x;
	int r = -1;
	if (!e)
		return -1;
	switch (e->kind) {
	case MDL_E_INT: case MDL_E_FLOAT:
		*out = mdl_cnorm(e->ival, e->type);
		return 0;
	case MDL_E_FIELD:
		if (!env || !env->fields)
			return -1;
		*out = mdl_cnorm(env->fields[e->index], e->type);
		return 0;
	case MDL_E_CODE:
		if (!env || !env->has_code)
			return -1;
		*out = mdl_cnorm(env->code, e->type);
		return 0;
	case MDL_E_VALUE:
		if (!env || !env->has_value)
			return -1;
		*out = mdl_cnorm(env->value, e->type);
		return 0;
	case MDL_E_UN:
		if ((r = mdl_ceval(e->a[0], env, &x)))
			return r;
		if (e->op == '!')
			*out = !x;
		else if (e->op == '~')
			*out = mdl_cnorm(~x, e->type);
		else
			*out = mdl_cnorm(e->type == MDL_T_F32 ? x ^ 0x80000000u : (uint64_t)0 - x, e->type);
		return 0;
	case MDL_E_BIN:
		if ((r = mdl_ceval(e->a[0], env, &v[0])))
			return r;
		if (e->op == MDL_OP_LAND && !v[0]) { *out = 0; return 0; }
		if (e->op == MDL_OP_LOR && v[0]) { *out = 1; return 0; }
		if ((r = mdl_ceval(e->a[1], env, &v[1])))
			return r;
		return eval_bin(e, v[0], v[1], out);
	case MDL_E_COND:
		if ((r = mdl_ceval(e->a[0], env, &x)))
			return r;
		if ((r = mdl_ceval(e->a[x ? 1 : 2], env, out)))
			return r;
		*out = mdl_cnorm(*out, e->type);
		return 0;
	case MDL_E_CAST:
		if ((r = mdl_ceval(e->a[0], env, &x)))
			return r;
		if (e->type == MDL_T_BOOL && e->a[0]->type == MDL_T_F32)
			x &= 0x7fffffffu;   /* -0.0 is false */
		*out = mdl_cnorm(e->type == MDL_T_BOOL ? x != 0 : x, e->type);
		return 0;
	case MDL_E_CALL:
		if (e->nargs > 4)
			return -1;
		for (int i = 0; i < e->nargs; i++)
			if ((r = mdl_ceval(e->a[i], env, &v[i])))
				return r;
		return eval_call(e, v, out);
	case MDL_E_TABLE: {
		if (!env || !env->m)
			return -1;
		if ((r = mdl_ceval(e->a[0], env, &x)))
			return r;
		const struct mdl_table *t = &env->m->tables[e->index];
		*out = 0;
		for (int i = 0; i < t->nent; i++)
			if (t->ent[i].is_num && x >= t->ent[i].code_lo && x <= t->ent[i].code_hi && t->ent[i].vals) {
				*out = t->ent[i].vals[x - t->ent[i].code_lo];
				break;
			}
		*out = mdl_cnorm(*out, e->type);
		return 0;
	}
	default:
		return -1;
	}
}

int mdl_const_eval(const struct mdl_expr *e, uint64_t *out)
{
	return mdl_ceval(e, NULL, out) == 0 ? 0 : -1;
}
