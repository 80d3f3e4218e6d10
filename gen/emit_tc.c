/* Builds the text-codec layout (gen/emit_tc.h) from the checked model. */
#include <stdlib.h>
#include <string.h>

#include "emit_tc.h"
#include "emit_util.h"
#include "text/textcodec.h"

#define GROW(L, name)                                                                         \
    do {                                                                                      \
        if ((L)->n##name == (L)->c##name) {                                                   \
            (L)->c##name = (L)->c##name ? (L)->c##name * 2 : 64;                              \
            (L)->name = realloc((L)->name, (size_t)(L)->c##name * sizeof *(L)->name);         \
            if (!(L)->name)                                                                   \
                abort();                                                                      \
        }                                                                                     \
    } while (0)
#define APPEND(L, name, ...)                                                                  \
    do {                                                                                      \
        GROW(L, name);                                                                        \
        (L)->name[(L)->n##name++] = (__VA_ARGS__);                                            \
    } while (0)

static bool isident(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static uint64_t fmask(const struct mdl_model *m, int f)
{
    int w = m->fields[f].width;
    return w >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1;
}

static char *expr_text(const struct mdl_model *m, const struct mdl_expr *e)
{
    struct tsr_buf b = {0};
    gen_expr_text(m, e, &b);
    tsr_buf_puts(&b, "");
    return b.data;
}

/* Value of a constant integer expression (no fields). */
static int const_eval(const struct mdl_expr *e, uint64_t *v)
{
    uint64_t a, b;
    switch (e->kind) {
    case MDL_E_INT:
    case MDL_E_FLOAT:
        *v = e->ival;
        return 0;
    case MDL_E_UN:
        if (const_eval(e->a[0], &a) < 0)
            return -1;
        *v = e->op == '-' ? 0 - a : e->op == '~' ? ~a : !a;
        return 0;
    case MDL_E_BIN:
        if (const_eval(e->a[0], &a) < 0 || const_eval(e->a[1], &b) < 0)
            return -1;
        switch (e->op) {
        case '+': *v = a + b; return 0;
        case '-': *v = a - b; return 0;
        case '*': *v = a * b; return 0;
        case '&': *v = a & b; return 0;
        case '|': *v = a | b; return 0;
        case '^': *v = a ^ b; return 0;
        case MDL_OP_SHL: *v = b >= 64 ? 0 : a << b; return 0;
        case MDL_OP_SHR: *v = b >= 64 ? 0 : a >> b; return 0;
        default: return -1;
        }
    default:
        return -1;
    }
}

/* A condition from an expression (selector conjuncts): binding when FIELD == constant or
 * FIELD == FIELD. */
static void cond_from_expr(const struct mdl_model *m, struct tc_layout *L, const struct mdl_expr *e)
{
    struct tc_cond c = {TSR_TC_CHECK, 0, 0, 0, 0, e, expr_text(m, e)};
    uint64_t v;
    if (e->kind == MDL_E_BIN && e->op == MDL_OP_EQ) {
        const struct mdl_expr *x = e->a[0], *y = e->a[1];
        if (x->kind != MDL_E_FIELD && y->kind == MDL_E_FIELD) {
            const struct mdl_expr *t = x;
            x = y;
            y = t;
        }
        if (x->kind == MDL_E_FIELD && y->kind == MDL_E_FIELD) {
            c.kind = TSR_TC_BIND2;
            c.field = x->index;
            c.field2 = y->index;
        } else if (x->kind == MDL_E_FIELD && const_eval(y, &v) == 0 &&
                   (v & ~fmask(m, x->index)) == 0) {
            c.kind = TSR_TC_BIND;
            c.field = x->index;
            c.val = v;
        }
    }
    if (c.kind == TSR_TC_CHECK)
        c.id = L->nchecks++;
    APPEND(L, conds, c);
}

static void split_and(const struct mdl_model *m, struct tc_layout *L, const struct mdl_expr *e)
{
    if (e->kind == MDL_E_BIN && e->op == MDL_OP_LAND) {
        split_and(m, L, e->a[0]);
        split_and(m, L, e->a[1]);
    } else {
        cond_from_expr(m, L, e);
    }
}

/* Appends n model conditions; returns the first index. */
static int conds(const struct mdl_model *m, struct tc_layout *L, const struct mdl_cond *cs, int n)
{
    int first = L->nconds;
    for (int i = 0; i < n; i++) {
        const struct mdl_cond *c = &cs[i];
        const struct mdl_expr *e = c->e;
        if (c->binding && e && e->kind == MDL_E_BIN && e->op == MDL_OP_EQ && e->a[0]->kind == MDL_E_FIELD &&
            e->a[1]->kind == MDL_E_FIELD) {
            APPEND(L, conds, (struct tc_cond){TSR_TC_BIND2, e->a[0]->index, e->a[1]->index, 0, 0, e, expr_text(m, e)});
        } else if (c->binding && c->field >= 0 && c->field < m->nfields) {
            APPEND(L, conds, (struct tc_cond){TSR_TC_BIND, c->field, 0, 0, c->val & fmask(m, c->field), e,
                                              e ? expr_text(m, e) : NULL});
        } else {
            APPEND(L, conds, (struct tc_cond){TSR_TC_CHECK, 0, 0, L->nchecks++, 0, e, expr_text(m, e)});
        }
    }
    return first;
}

static bool all_blank(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t')
            return false;
    return true;
}

/* Appends a template's parts; returns the first index. */
static int tmpl(const struct mdl_model *m, struct tc_layout *L, const struct mdl_template *t, struct tsr_diag *d,
                int *rc)
{
    int first = L->nparts;
    for (int i = 0; i < t->nparts; i++) {
        const struct mdl_tpart *p = &t->parts[i];
        struct tc_part q = {0};
        q.field = p->field < 0 ? 0 : p->field;
        q.arg = 0;
        switch (p->kind) {
        case MDL_TP_TEXT:
            q.kind = p->text && !all_blank(p->text) ? TSR_TC_TEXT : TSR_TC_SPACE;
            q.text = p->text;
            break;
        case MDL_TP_SPACE:
            q.kind = TSR_TC_SPACE;
            break;
        case MDL_TP_TABLE:
            q.kind = TSR_TC_TABLE;
            q.arg = p->table;
            break;
        case MDL_TP_INT:
            q.kind = TSR_TC_INT;
            break;
        case MDL_TP_OPND:
            q.kind = TSR_TC_OPND;
            q.arg = p->opnd;
            break;
        case MDL_TP_OPT:
            q.kind = TSR_TC_OPT;
            q.text = p->text;
            q.cond = conds(m, L, p->cond, p->ncond);
            q.ncond = p->ncond;
            break;
        case MDL_TP_LABEL:
            q.kind = TSR_TC_LABEL;
            q.pcrel = p->pcrel;
            q.pcoff = p->pcoff;
            q.unit = p->unit;
            break;
        }
        if (q.kind == TSR_TC_TEXT || q.kind == TSR_TC_OPT) {
            if (!q.text)
                q.text = "";
            q.len = (int)strlen(q.text);
            if (strchr(q.text, ';') || strchr(q.text, '{') || strchr(q.text, '}') || strchr(q.text, '#')) {
                *rc = tsr_diag_error(d, p->loc.file, (unsigned)p->loc.line, (unsigned)p->loc.col,
                                     "template text '%s' cannot contain ';', '{', '}' or '#' (the assembler's bundle "
                                     "separator, override braces and comment character)", q.text);
            }
        }
        if (q.kind != TSR_TC_TEXT && q.kind != TSR_TC_OPT)
            q.text = NULL;
        APPEND(L, parts, q);
    }
    int n = L->nparts - first;
    for (int i = 0; i < n; i++) {
        struct tc_part *q = &L->parts[first + i];
        int next = i + 1 < n ? L->parts[first + i + 1].kind : -1;
        q->bound = next < 0 || next == TSR_TC_TEXT || next == TSR_TC_SPACE;
    }
    return first;
}

static int cmp_name(const void *x, const void *y)
{
    const struct tc_name *a = x, *b = y;
    int c = strcmp(a->name, b->name);
    return c ? c : (a->code > b->code) - (a->code < b->code);
}

/* Builds the trie of the sorted names[first .. first+n-1] breadth first, so that the children of a
 * node are consecutive; returns the root's index. */
static int trie(struct tc_layout *L, int first, int n)
{
    struct job { int node, lo, hi, depth; } *q = malloc(sizeof *q * (size_t)(n + 1) * 2 + sizeof *q * 64);
    size_t cap = (size_t)(n + 1) * 2 + 64, head = 0, tail = 0;
    if (!q)
        abort();
    int root = L->ntries;
    APPEND(L, tries, (struct tc_trie){0, 0, 0, -1});
    q[tail++] = (struct job){root, first, first + n, 0};
    while (head < tail) {
        struct job j = q[head++];
        int lo = j.lo;
        /* a name ending at this depth */
        while (lo < j.hi && (int)strlen(L->names[lo].name) == j.depth) {
            if (L->tries[j.node].code < 0)
                L->tries[j.node].code = L->names[lo].code;
            lo++;
        }
        L->tries[j.node].kid = L->ntries;
        int nk = 0;
        for (int i = lo; i < j.hi;) {
            unsigned char c = (unsigned char)L->names[i].name[j.depth];
            int k = i;
            while (k < j.hi && (unsigned char)L->names[k].name[j.depth] == c)
                k++;
            APPEND(L, tries, (struct tc_trie){c, 0, 0, -1});
            if (tail == cap) {
                cap *= 2;
                q = realloc(q, cap * sizeof *q);
                if (!q)
                    abort();
            }
            q[tail++] = (struct job){L->ntries - 1, i, k, j.depth + 1};
            nk++;
            i = k;
        }
        L->tries[j.node].nkid = nk;
    }
    free(q);
    return root;
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

static void table(struct tc_layout *L, const struct mdl_table *t)
{
    struct tc_table T = {0};
    T.name = L->nnames;
    T.minlen = 1 << 30;
    for (int i = 0; i < t->nent; i++) {
        const struct mdl_tentry *e = &t->ent[i];
        if (e->is_num || !e->name)
            continue;
        APPEND(L, names, (struct tc_name){e->name, e->code_lo});
        int len = (int)strlen(e->name);
        T.minlen = len < T.minlen ? len : T.minlen;
        T.maxlen = len > T.maxlen ? len : T.maxlen;
    }
    T.nname = L->nnames - T.name;
    if (!T.nname)
        T.minlen = 0;
    qsort(L->names + T.name, (size_t)T.nname, sizeof *L->names, cmp_name);
    T.trie = trie(L, T.name, T.nname);
    T.num = L->nnums;
    for (int i = 0; i < t->nent; i++) {
        const struct mdl_tentry *e = &t->ent[i];
        if (!e->is_num)
            continue;
        for (uint32_t c = e->code_lo; c <= e->code_hi; c++) {
            APPEND(L, nums, (struct tc_num){c, e->vals ? e->vals[c - e->code_lo] : 0, e->is_float});
            if (c == UINT32_MAX)
                break;
        }
    }
    T.nnum = L->nnums - T.num;
    /* print entries: codes in order; canonical name, else the first name, else the first number */
    uint32_t *codes = NULL;
    size_t nc = 0, cc = 0;
    for (int i = 0; i < t->nent; i++) {
        const struct mdl_tentry *e = &t->ent[i];
        uint32_t hi = e->is_num ? e->code_hi : e->code_lo;
        for (uint32_t c = e->code_lo; c <= hi; c++) {
            if (nc == cc) {
                cc = cc ? cc * 2 : 64;
                codes = realloc(codes, cc * sizeof *codes);
                if (!codes)
                    abort();
            }
            codes[nc++] = c;
            if (c == UINT32_MAX)
                break;
        }
    }
    if (nc)
        qsort(codes, nc, sizeof *codes, cmp_u32);
    T.print = L->nprints;
    for (size_t i = 0; i < nc; i++) {
        if (i && codes[i] == codes[i - 1])
            continue;
        uint32_t c = codes[i];
        const struct mdl_tentry *canon = NULL, *first = NULL, *num = NULL;
        for (int j = 0; j < t->nent; j++) {
            const struct mdl_tentry *e = &t->ent[j];
            if (e->is_num) {
                if (!num && c >= e->code_lo && c <= e->code_hi)
                    num = e;
            } else if (e->name && e->code_lo == c) {
                if (!first)
                    first = e;
                if (!canon && e->canonical)
                    canon = e;
            }
        }
        struct tc_print p = {c, TSR_TC_PRINT_NAME, 0, NULL};
        if (canon || first)
            p.name = (canon ? canon : first)->name;
        else {
            p.kind = num->is_float ? TSR_TC_PRINT_FLOAT : TSR_TC_PRINT_INT;
            p.val = num->vals ? num->vals[c - num->code_lo] : 0;
        }
        APPEND(L, prints, p);
    }
    free(codes);
    T.nprint = L->nprints - T.print;
    T.dense = true;
    for (int i = 0; i < T.nprint; i++)
        if (L->prints[T.print + i].code != (uint32_t)i)
            T.dense = false;
    APPEND(L, tables, T);
}

/* The characters every text matching parts[first .. first+n-1] contains (see tsr_tc_op.req). */
static void req_seq(const struct mdl_model *m, const struct tc_layout *L, int first, int n, uint64_t req[2]);

static void req_part(const struct mdl_model *m, const struct tc_layout *L, const struct tc_part *p, uint64_t r[2])
{
    r[0] = r[1] = 0;
    switch (p->kind) {
    case TSR_TC_TEXT:
        for (int i = 0; i < p->len; i++) {
            unsigned char c = (unsigned char)p->text[i];
            if (c < 128 && c != ' ')
                r[c >> 6] |= (uint64_t)1 << (c & 63);
        }
        break;
    case TSR_TC_TABLE: {
        const struct tc_table *T = &L->tables[p->arg];
        if (T->nnum || !T->nname)
            break;
        r[0] = r[1] = ~(uint64_t)0;
        for (int i = T->name; i < T->name + T->nname; i++) {
            uint64_t x[2] = {0, 0};
            for (const char *c = L->names[i].name; *c; c++)
                if ((unsigned char)*c < 128)
                    x[(unsigned char)*c >> 6] |= (uint64_t)1 << (*c & 63);
            r[0] &= x[0];
            r[1] &= x[1];
        }
        break;
    }
    case TSR_TC_OPND: {
        const struct mdl_opnd *o = &m->opnds[p->arg];
        r[0] = r[1] = ~(uint64_t)0;
        for (int j = 0; j < o->nalt; j++) {
            const struct tc_alt *a = &L->alts[L->opnd_alt[p->arg] + j];
            uint64_t x[2];
            req_seq(m, L, a->part, a->npart, x);
            r[0] &= x[0];
            r[1] &= x[1];
        }
        if (o->nalt == 0)
            r[0] = r[1] = 0;
        break;
    }
    default:
        break;
    }
}

static void req_seq(const struct mdl_model *m, const struct tc_layout *L, int first, int n, uint64_t req[2])
{
    req[0] = req[1] = 0;
    for (int i = first; i < first + n; i++) {
        uint64_t r[2];
        req_part(m, L, &L->parts[i], r);
        req[0] |= r[0];
        req[1] |= r[1];
    }
}

int tc_build(const struct mdl_model *m, struct tc_layout *L, struct tsr_diag *d)
{
    int rc = 0;
    memset(L, 0, sizeof *L);
    for (int i = 0; i < m->ntables; i++)
        table(L, &m->tables[i]);
    /* operands: alternatives */
    L->opnd_alt = calloc((size_t)m->nopnds + 1, sizeof *L->opnd_alt);
    L->slot_op = calloc((size_t)m->nslots + 1, sizeof *L->slot_op);
    if (!L->opnd_alt || !L->slot_op)
        abort();
    for (int i = 0; i < m->nopnds; i++) {
        const struct mdl_opnd *o = &m->opnds[i];
        L->opnd_alt[i] = L->nalts;
        for (int j = 0; j < o->nalt; j++) {
            const struct mdl_opnd_alt *a = &o->alt[j];
            struct tc_alt t = {0};
            t.part = tmpl(m, L, &a->tmpl, d, &rc);
            t.npart = L->nparts - t.part;
            t.cond = conds(m, L, a->cond, a->ncond);
            t.ncond = a->ncond;
            t.verb = a->read ? TSR_TC_READ : (a->wspace >= 0 || a->wstate >= 0) ? TSR_TC_WRITE : TSR_TC_USE;
            APPEND(L, alts, t);
        }
    }
    for (int i = 0; i < m->nops; i++) {
        const struct mdl_op *op = &m->ops[i];
        struct tc_op t = {0};
        t.part = tmpl(m, L, &op->tmpl, d, &rc);
        t.npart = L->nparts - t.part;
        t.cond = conds(m, L, op->cond, op->ncond);
        t.ncond = op->ncond;
        t.def = L->ndefs;
        for (int j = 0; j < op->ndef; j++)
            APPEND(L, defs, (struct tc_def){op->def[j].field, op->def[j].val & fmask(m, op->def[j].field)});
        t.ndef = op->ndef;
        if (t.npart > 0 && L->parts[t.part].kind == TSR_TC_TEXT) {
            const struct tc_part *p = &L->parts[t.part];
            int k = 0;
            while (k < p->len && isident(p->text[k]))
                k++;
            if (k > 0) {
                t.key = malloc((size_t)k + 1);
                if (!t.key)
                    abort();
                memcpy(t.key, p->text, (size_t)k);
                t.key[k] = 0;
                t.keylen = k;
                t.exact = k < p->len || p->bound;
            }
        }
        req_seq(m, L, t.part, t.npart, t.req);
        APPEND(L, ops, t);
    }
    for (int s = 0; s < m->nslots; s++) {
        L->slot_op[s] = L->nidx;
        for (int j = 0; j < m->slots[s].nops; j++)
            APPEND(L, idx, m->slots[s].ops[j]);
    }
    for (int i = 0; i < m->nformats; i++) {
        const struct mdl_format *F = &m->formats[i];
        struct tc_fmt t = {0};
        t.slot = L->nidx;
        for (int j = 0; j < F->nslots; j++)
            APPEND(L, idx, F->slots[j]);
        t.nslot = F->nslots;
        t.field = L->nidx;
        for (int j = 0; j < F->nfields; j++)
            APPEND(L, idx, F->fields[j]);
        t.nfield = F->nfields;
        t.cond = L->nconds;
        if (F->selector)
            split_and(m, L, F->selector);
        t.ncond = L->nconds - t.cond;
        t.def = L->ndefs;
        for (int j = 0; j < F->ndef; j++)
            APPEND(L, defs, (struct tc_def){F->def[j].field, F->def[j].val & fmask(m, F->def[j].field)});
        t.ndef = F->ndef;
        t.ign = L->nranges;
        for (int j = 0; j < F->nignore; j++) {
            int hi = F->ignore[j].hi, lo = F->ignore[j].lo;
            while (hi >= lo) {
                int plo = hi - lo + 1 > 64 ? hi - 63 : lo;
                APPEND(L, ranges, (struct tc_range){hi, plo});
                hi = plo - 1;
            }
        }
        t.nign = L->nranges - t.ign;
        APPEND(L, fmts, t);
    }
    return rc;
}

void tc_free(struct tc_layout *L)
{
    for (int i = 0; i < L->nconds; i++)
        free(L->conds[i].text);
    for (int i = 0; i < L->nops; i++)
        free(L->ops[i].key);
    free(L->parts);
    free(L->conds);
    free(L->alts);
    free(L->ops);
    free(L->fmts);
    free(L->tables);
    free(L->names);
    free(L->tries);
    free(L->nums);
    free(L->prints);
    free(L->defs);
    free(L->ranges);
    free(L->idx);
    free(L->opnd_alt);
    free(L->slot_op);
    memset(L, 0, sizeof *L);
}
