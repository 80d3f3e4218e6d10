/* Constant expressions and the symbol table of the generic assembler (asm_engine.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "asm_engine.h"

/* ---- symbols ------------------------------------------------------------------------------------ */

static uint64_t hash_name(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603u;   /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211u;
    return h;
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

/* A number at x->pos (which holds a digit or '.' followed by a digit). */
static int number(struct px *x, struct tsr_asm_val *v)
{
    const char *s = x->s;
    size_t p = x->pos, lim = x->lim;
    v->fl = false;
    v->d = 0;
    if (s[p] == '0' && p + 2 <= lim && p + 1 < lim && (s[p + 1] == 'x' || s[p + 1] == 'X' || s[p + 1] == 'b' ||
                                                       s[p + 1] == 'B')) {
        unsigned base = (s[p + 1] == 'x' || s[p + 1] == 'X') ? 16 : 2;
        size_t q = p + 2;
        uint64_t u = 0;
        int nd = 0;
        for (; q < lim; q++) {
            int c = (unsigned char)s[q], d = hexval(c);
            if (c == '_' && nd)
                continue;
            if (d < 0 || d >= (int)base)
                break;
            u = u * base + (unsigned)d;
            nd++;
        }
        if (!nd)
            return fail(x, "malformed number '%.*s'", p, q - p);
        if (q < lim && tsr_asm_isident(s[q]))
            return fail(x, "malformed number '%.*s'", p, q + 1 - p);
        v->i = (int64_t)u;
        x->pos = q;
        return 1;
    }
    /* decimal integer or float: digits [. digits] [e [+-] digits] */
    size_t q = p;
    bool isf = false;
    char buf[80];
    size_t nb = 0;
    while (q < lim && ((s[q] >= '0' && s[q] <= '9') || (s[q] == '_' && q > p))) {
        if (s[q] != '_' && nb < sizeof buf - 1)
            buf[nb++] = s[q];
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
        } else if (nb && !(r < lim && tsr_asm_isident(s[r]))) {
            /* "2." is a float too */
            isf = true;
            q = r;
        }
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
        v->d = strtod(buf[0] == '.' ? buf : buf, NULL);
    } else {
        uint64_t u = 0;
        for (size_t i = 0; i < nb; i++)
            u = u * 10 + (unsigned)(buf[i] - '0');
        v->i = (int64_t)u;
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
    if (c == '(') {
        size_t open = x->pos;
        x->pos++;
        int r = expr(x, 0, v);
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
        int r = primary(x, v);
        if (r <= 0) {
            x->pos = at;
            return r;
        }
        if (c == '-') {
            if (v->fl)
                v->d = -v->d;
            else
                v->i = (int64_t)(0 - (uint64_t)v->i);
        } else if (c == '~') {
            if (v->fl)
                return fail(x, "'%.*s' needs an integer", at, 1);
            v->i = ~v->i;
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

static int expr(struct px *x, int minprec, struct tsr_asm_val *v)
{
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
            double a = v->fl ? v->d : (double)v->i, b = w.fl ? w.d : (double)w.i;
            switch (op) {
            case '+': a += b; break;
            case '-': a -= b; break;
            case '*': a *= b; break;
            default:  a /= b; break;
            }
            v->fl = true;
            v->d = a;
            continue;
        }
        uint64_t a = (uint64_t)v->i, b = (uint64_t)w.i;
        switch (op) {
        case '|': a |= b; break;
        case '^': a ^= b; break;
        case '&': a &= b; break;
        case '<': a = b >= 64 ? 0 : a << b; break;
        case '>': a = b >= 64 ? (v->i < 0 ? ~(uint64_t)0 : 0) : (uint64_t)(v->i >> b); break;
        case '+': a += b; break;
        case '-': a -= b; break;
        case '*': a *= b; break;
        case '/':
        case '%':
            if (b == 0)
                return fail(x, "division by zero in '%.*s'", oppos, len);
            if (w.i == -1)
                a = op == '/' ? 0 - a : 0;
            else
                a = (uint64_t)(op == '/' ? v->i / w.i : v->i % w.i);
            break;
        }
        v->i = (int64_t)a;
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
