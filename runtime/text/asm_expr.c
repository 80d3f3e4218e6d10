/* Constant expressions and the symbol table of the generic assembler (asm_engine.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "asm_engine.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

/* ---- symbols ------------------------------------------------------------------------------------ */

/* The symbol table's hash: XXH3, the project's hash (intern.c), inlined for short names. */
static uint64_t hash_name(const char *s, size_t n)
{
    return XXH3_64bits(s, n);
}

struct tsr_asm_sym *tsr_asm_sym_find(const struct tsr_asm_syms *t, const char *name, size_t len)
{
    if (!t || !t->cap)
        return NULL;
    size_t m = t->cap - 1;
    for (size_t i = hash_name(name, len) & m;; i = (i + 1) & m) {
        struct tsr_asm_sym *e = &t->e[i];
        if (!e->name)
            return NULL;
        if (e->len == len && memcmp(e->name, name, len) == 0)
            return e;
    }
}

static void grow(struct tsr_asm_syms *t)
{
    size_t ncap = t->cap ? t->cap * 2 : 64;
    struct tsr_asm_sym *ne = calloc(ncap, sizeof *ne);
    if (!ne)
        abort();
    for (size_t i = 0; i < t->cap; i++) {
        struct tsr_asm_sym *e = &t->e[i];
        if (!e->name)
            continue;
        size_t j = hash_name(e->name, e->len) & (ncap - 1);
        while (ne[j].name)
            j = (j + 1) & (ncap - 1);
        ne[j] = *e;
    }
    free(t->e);
    t->e = ne;
    t->cap = ncap;
}

struct tsr_asm_sym *tsr_asm_sym_add(struct tsr_asm_syms *t, const char *name, size_t len, bool *created)
{
    struct tsr_asm_sym *e = tsr_asm_sym_find(t, name, len);
    *created = false;
    if (e)
        return e;
    if ((t->count + 1) * 4 > t->cap * 3)
        grow(t);
    size_t m = t->cap - 1, i = hash_name(name, len) & m;
    while (t->e[i].name)
        i = (i + 1) & m;
    e = &t->e[i];
    memset(e, 0, sizeof *e);
    e->name = name;
    e->len = (uint32_t)len;
    e->kind = TSR_SYM_LABEL;
    t->count++;
    *created = true;
    return e;
}

void tsr_asm_syms_free(struct tsr_asm_syms *t)
{
    free(t->e);
    memset(t, 0, sizeof *t);
}

/* ---- expressions -------------------------------------------------------------------------------- */

struct px {
    const char *s;
    size_t pos, lim;
    const struct tsr_asm_syms *syms;
    const char *err;
    size_t errpos, errlen;
    unsigned depth;            /* open parentheses and unary operators around the current point */
};

static int peek(struct px *x)
{
    while (x->pos < x->lim && tsr_asm_isblank(x->s[x->pos]))
        x->pos++;
    return x->pos < x->lim ? (unsigned char)x->s[x->pos] : -1;
}

static int fail(struct px *x, const char *msg, size_t pos, size_t len)
{
    if (!x->err) {
        x->err = msg;
        x->errpos = pos;
        x->errlen = len;
    }
    return -1;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Exact integer arithmetic on the range -2^63 .. 2^64-1 (the union of int64_t and uint64_t; docs/asm.md
 * "Constant expressions").  A value in sign-magnitude form: neg and m, the value being -m or m. */
struct sm { uint64_t m; bool neg; };

static struct sm to_sm(const struct tsr_asm_val *v)
{
    if (v->u || v->i >= 0)
        return (struct sm){(uint64_t)v->i, false};
    return (struct sm){0 - (uint64_t)v->i, true};
}

/* Stores r in *v; false when it lies outside -2^63 .. 2^64-1. */
static bool from_sm(struct sm r, struct tsr_asm_val *v)
{
    v->fl = false;
    if (r.neg && r.m) {
        if (r.m > (uint64_t)1 << 63)
            return false;
        v->u = false;
        v->i = (int64_t)(0 - r.m);   /* two's complement: -2^63 .. -1 */
        return true;
    }
    v->u = r.m >> 63 != 0;
    v->i = (int64_t)r.m;
    return true;
}

/* a + b for magnitudes with signs; false on a magnitude beyond 2^64-1 (the result is then out of range too). */
static bool sm_add(struct sm a, struct sm b, struct sm *r)
{
    if (a.neg == b.neg) {
        r->m = a.m + b.m;
        r->neg = a.neg;
        return r->m >= a.m;
    }
    if (a.m >= b.m)
        *r = (struct sm){a.m - b.m, a.neg};
    else
        *r = (struct sm){b.m - a.m, b.neg};
    return true;
}

/* The bits of an in-range value as 65-bit two's complement: *top is bit 64 (the sign). */
static uint64_t bits65(const struct tsr_asm_val *v, bool *top)
{
    *top = !v->u && v->i < 0;
    return (uint64_t)v->i;
}

/* The value of 65-bit two's complement bits; false when outside -2^63 .. 2^64-1. */
static bool from_bits65(uint64_t b, bool top, struct tsr_asm_val *v)
{
    v->fl = false;
    v->i = (int64_t)b;
    if (top) {
        v->u = false;
        return b >> 63 != 0;   /* -2^63 .. -1: bit 63 set too */
    }
    v->u = b >> 63 != 0;
    return true;
}

static double as_double(const struct tsr_asm_val *v)
{
    return v->fl ? v->d : v->u ? (double)(uint64_t)v->i : (double)v->i;
}

static const char msg_range[] = "value of '%.*s' does not fit 64 bits (integers are -2^63 .. 2^64-1)";

/* A number at x->pos (which holds a digit or '.' followed by a digit). */
static int number(struct px *x, struct tsr_asm_val *v)
{
    const char *s = x->s;
    size_t p = x->pos, lim = x->lim;
    v->fl = false;
    v->u = false;
    v->d = 0;
    if (s[p] == '0' && p + 2 <= lim && p + 1 < lim && (s[p + 1] == 'x' || s[p + 1] == 'X' || s[p + 1] == 'b' ||
                                                       s[p + 1] == 'B')) {
        unsigned base = (s[p + 1] == 'x' || s[p + 1] == 'X') ? 16 : 2, shift = base == 16 ? 4 : 1;
        size_t q = p + 2;
        uint64_t u = 0;
        int nd = 0;
        bool over = false;
        for (; q < lim; q++) {
            int c = (unsigned char)s[q], d = hexval(c);
            if (c == '_' && nd)
                continue;
            if (d < 0 || d >= (int)base)
                break;
            over |= u >> (64 - shift) != 0;
            u = u << shift | (unsigned)d;
            nd++;
        }
        if (!nd)
            return fail(x, "malformed number '%.*s'", p, q - p);
        if (q < lim && tsr_asm_isident(s[q]))
            return fail(x, "malformed number '%.*s'", p, q + 1 - p);
        if (over)
            return fail(x, "integer '%.*s' does not fit 64 bits", p, q - p);
        v->i = (int64_t)u;
        v->u = u >> 63 != 0;
        x->pos = q;
        return 1;
    }
    /* decimal integer or float: digits [. digits] [e [+-] digits] */
    size_t q = p;
    bool isf = false, over = false;
    uint64_t u = 0;
    char buf[80];
    size_t nb = 0;
    while (q < lim && ((s[q] >= '0' && s[q] <= '9') || (s[q] == '_' && q > p))) {
        if (s[q] != '_') {
            unsigned d = (unsigned)(s[q] - '0');
            over |= u > (UINT64_MAX - d) / 10;
            u = u * 10 + d;
            if (nb < sizeof buf - 1)
                buf[nb++] = s[q];
        }
        q++;
    }
    if (q < lim && s[q] == '.' && q + 1 <= lim) {
        size_t r = q + 1;
        if (r < lim && s[r] >= '0' && s[r] <= '9') {
            isf = true;
            if (nb < sizeof buf - 1)
                buf[nb++] = '.';
            while (r < lim && s[r] >= '0' && s[r] <= '9') {
                if (nb < sizeof buf - 1)
                    buf[nb++] = s[r];
                r++;
            }
            q = r;
        }
        /* else the '.' is not the number's: a float has a digit after its '.' (docs/asm.md: `2.0`, `.5`), so a
         * number hole followed by `.` in a template (`r{r}.{wm:m}` printing `r5.****`, a write mask) reads
         * the integer and leaves the '.' to the template */
    }
    if (nb && q < lim && (s[q] == 'e' || s[q] == 'E')) {
        size_t r = q + 1;
        if (r < lim && (s[r] == '+' || s[r] == '-'))
            r++;
        if (r < lim && s[r] >= '0' && s[r] <= '9') {
            isf = true;
            if (nb < sizeof buf - 1)
                buf[nb++] = 'e';
            if (s[q + 1] == '-' && nb < sizeof buf - 1)
                buf[nb++] = '-';
            while (r < lim && s[r] >= '0' && s[r] <= '9') {
                if (nb < sizeof buf - 1)
                    buf[nb++] = s[r];
                r++;
            }
            q = r;
        }
    }
    if (!nb)
        return fail(x, "malformed number '%.*s'", p, 1);
    if (q < lim && tsr_asm_isident(s[q]))
        return fail(x, "malformed number '%.*s'", p, q + 1 - p);
    buf[nb] = 0;
    if (isf) {
        v->fl = true;
        v->d = strtod(buf, NULL);
    } else {
        if (over)
            return fail(x, "integer '%.*s' does not fit 64 bits", p, q - p);
        v->i = (int64_t)u;
        v->u = u >> 63 != 0;
    }
    x->pos = q;
    return 1;
}

static int expr(struct px *x, int minprec, struct tsr_asm_val *v);

static int primary(struct px *x, struct tsr_asm_val *v)
{
    int c = peek(x);
    if (c < 0)
        return 0;
    if ((c == '(' || c == '-' || c == '+' || c == '~') && x->depth >= TSR_ASM_MAX_NEST)
        return fail(x, "expression nested too deeply (more than " TSR_ASM_MAX_NEST_TEXT " parentheses and unary "
                       "operators) at '%.*s'", x->pos, 1);
    if (c == '(') {
        size_t open = x->pos;
        x->pos++;
        x->depth++;
        int r = expr(x, 0, v);
        x->depth--;
        if (r <= 0)
            return r < 0 ? r : fail(x, "expected an expression after '%.*s'", open, 1);
        if (peek(x) != ')')
            return fail(x, "missing ')' after '%.*s'", open, x->pos - open);
        x->pos++;
        return 1;
    }
    if (c == '-' || c == '+' || c == '~') {
        size_t at = x->pos;
        x->pos++;
        x->depth++;
        int r = primary(x, v);
        x->depth--;
        if (r <= 0) {
            x->pos = at;
            return r;
        }
        if (c == '-') {
            if (v->fl) {
                v->d = -v->d;
            } else {
                struct sm a = to_sm(v);
                a.neg = !a.neg;
                if (!from_sm(a, v))
                    return fail(x, msg_range, at, x->pos - at);
            }
        } else if (c == '~') {
            if (v->fl)
                return fail(x, "'%.*s' needs an integer", at, 1);
            bool top;
            uint64_t b = bits65(v, &top);
            if (!from_bits65(~b, !top, v))   /* ~x = -x - 1 */
                return fail(x, msg_range, at, x->pos - at);
        }
        return 1;
    }
    if ((c >= '0' && c <= '9') ||
        (c == '.' && x->pos + 1 < x->lim && x->s[x->pos + 1] >= '0' && x->s[x->pos + 1] <= '9'))
        return number(x, v);
    if (tsr_asm_isident(c)) {
        size_t p = x->pos, q = p;
        while (q < x->lim && tsr_asm_isident(x->s[q]))
            q++;
        const struct tsr_asm_sym *e = tsr_asm_sym_find(x->syms, x->s + p, q - p);
        if (e && e->kind != TSR_SYM_ALIAS) {
            *v = e->v;
            x->pos = q;
            return 1;
        }
        if (x->s[p] == 'L' && q - p > 1 && q - p <= 17) {
            uint64_t u = 0;
            size_t i;
            for (i = p + 1; i < q && hexval(x->s[i]) >= 0; i++)
                u = u << 4 | (unsigned)hexval(x->s[i]);
            if (i == q) {
                v->fl = false;
                v->i = (int64_t)u;
                v->u = u >> 63 != 0;
                x->pos = q;
                return 1;
            }
        }
        return fail(x, "undefined symbol '%.*s'", p, q - p);
    }
    return 0;
}

static int binprec(struct px *x, int *op, size_t *len)
{
    int c = peek(x);
    if (c < 0)
        return -1;
    char c1 = x->pos + 1 < x->lim ? x->s[x->pos + 1] : 0;
    *len = 1;
    *op = c;
    switch (c) {
    case '|': return c1 == '|' ? -1 : 1;
    case '^': return 2;
    case '&': return c1 == '&' ? -1 : 3;
    case '<':
    case '>':
        if (c1 != c)
            return -1;
        *len = 2;
        return 4;
    case '+': case '-': return 5;
    case '*': case '/': case '%': return 6;
    default: return -1;
    }
}

/* v = v op w on integers, exactly; a message (one %.*s for the operation's text) when the result is out
 * of range or the operation is undefined, else NULL. */
static const char *int_op(int op, struct tsr_asm_val *v, const struct tsr_asm_val *w)
{
    struct sm a = to_sm(v), b = to_sm(w), r;
    switch (op) {
    case '|':
    case '^':
    case '&': {
        bool ta, tb;
        uint64_t x = bits65(v, &ta), y = bits65(w, &tb);
        bool ok = op == '|' ? from_bits65(x | y, ta | tb, v)
                : op == '^' ? from_bits65(x ^ y, ta ^ tb, v)
                            : from_bits65(x & y, ta & tb, v);
        return ok ? NULL : msg_range;
    }
    case '<':
    case '>':
        if (b.neg || b.m > 63)
            return "shift count out of range 0..63 in '%.*s'";
        if (op == '<') {
            if (b.m && a.m >> (64 - b.m))
                return msg_range;
            r = (struct sm){a.m << b.m, a.neg};
        } else {   /* floor(a / 2^b): arithmetic shift */
            r = (struct sm){a.m >> b.m, a.neg};
            if (a.neg && (a.m & (((uint64_t)1 << b.m) - 1)))
                r.m++;
        }
        break;
    case '+':
        if (!sm_add(a, b, &r))
            return msg_range;
        break;
    case '-':
        b.neg = !b.neg;
        if (!sm_add(a, b, &r))
            return msg_range;
        break;
    case '*':
        if (a.m && b.m > UINT64_MAX / a.m)
            return msg_range;
        r = (struct sm){a.m * b.m, a.neg != b.neg};
        break;
    default:   /* '/' and '%' truncate towards zero, as in C */
        if (b.m == 0)
            return "division by zero in '%.*s'";
        r = op == '/' ? (struct sm){a.m / b.m, a.neg != b.neg} : (struct sm){a.m % b.m, a.neg};
        break;
    }
    return from_sm(r, v) ? NULL : msg_range;
}

static int expr(struct px *x, int minprec, struct tsr_asm_val *v)
{
    peek(x);
    size_t start = x->pos;
    int r = primary(x, v);
    if (r <= 0)
        return r;
    for (;;) {
        int op;
        size_t len, at = x->pos;
        int prec = binprec(x, &op, &len);
        if (prec < 0 || prec < minprec) {
            x->pos = at;
            return 1;
        }
        size_t oppos = x->pos;
        x->pos += len;
        struct tsr_asm_val w;
        int r2 = expr(x, prec + 1, &w);
        if (r2 < 0)
            return r2;
        if (r2 == 0) {   /* not an operator after all (e.g. a template's own text follows) */
            x->pos = at;
            return 1;
        }
        bool fl = v->fl || w.fl;
        if (fl && (op == '|' || op == '^' || op == '&' || op == '<' || op == '>' || op == '%'))
            return fail(x, "'%.*s' needs integer operands", oppos, len);
        if (fl) {
            double a = as_double(v), b = as_double(&w);
            switch (op) {
            case '+': a += b; break;
            case '-': a -= b; break;
            case '*': a *= b; break;
            default:  a /= b; break;
            }
            v->fl = true;
            v->u = false;
            v->d = a;
            continue;
        }
        const char *m = int_op(op, v, &w);
        if (m)
            return fail(x, m, start, x->pos - start);
    }
}

int tsr_asm_expr(const char *s, size_t pos, size_t lim, const struct tsr_asm_syms *syms, size_t *end,
                 struct tsr_asm_val *v, const char **err, size_t *errpos, size_t *errlen)
{
    struct px x = {.s = s, .pos = pos, .lim = lim, .syms = syms};
    memset(v, 0, sizeof *v);
    int r = expr(&x, 0, v);
    if (r < 0) {
        *err = x.err;
        *errpos = x.errpos;
        *errlen = x.errlen;
        return -1;
    }
    if (r > 0)
        *end = x.pos;
    return r;
}

/* (asm_engine.h) */
int tsr_asm_term(const char *s, size_t pos, size_t lim, const struct tsr_asm_syms *syms, size_t *end,
                 struct tsr_asm_val *v)
{
    struct px x = {.s = s, .pos = pos, .lim = lim, .syms = syms};
    memset(v, 0, sizeof *v);
    peek(&x);
    int r = primary(&x, v);
    if (r > 0)
        *end = x.pos;
    return r > 0 ? 1 : 0;
}
