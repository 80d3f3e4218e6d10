/* The disassembler's generated printer (runtime/text/dis_print.h), appended to <t>_disasm.c by gen_disasm:
 *
 *  - per table used in a `{TABLE:FIELD}` hole, the text of every code, indexed by code (a sorted array for a
 *    sparse table): the name printed, the integer in decimal, the float as tsr_tc_float_text prints it (the
 *    runtime's own function, so both printers agree byte for byte), or no text (a NaN, a code without entry);
 *  - per operand instance a function `po_N` that tries its alternatives in order: the conditions compiled to
 *    C comparisons on the raw fields, then the parts; a part that cannot print gives the alternative up
 *    (the events and labels it added are dropped by moving the event pointer and the label count back; its
 *    text is overwritten); the first parts a run of alternatives prints alike are printed once, before the
 *    run's conditions (opnd_fn);
 *  - per shape (ops whose templates start with a name of at most 15 bytes and go on alike: the 23 binary ops
 *    of an ALU, the signals that print their name alone) a function `ps_N` printing the name given (`pn_[op]`,
 *    one 16-byte block and its length) and the rest of the template; a shape of TSR_TC_SHAPE_INL ops or more
 *    has its operands' printers inlined (`pi_N`, always inline; `po_N` then calls it for the other printers);
 *  - per op a function `pp_N` printing the op's template (for an op of a shape: a call of it), and
 *    `<t>_tc_pops[]`: each op's function and the bounds the engine reserves before calling it (bytes, path
 *    events, labels);
 *  - per format a function `pf_N`: the slots' ops dispatched by op number, the ops of a shape by one call (a
 *    shape of names alone: written there, without a call).
 *
 * Shapes change no text and no event: a shape prints its op's name as the template's first literal part, one
 * event, then the parts after it exactly as the op's own function would (the same generated code: ops are
 * grouped by that code).
 *
 * The rules are print_seq's in runtime/text/dis_engine.c (docs/mdl.md "Syntax templates"); the path events
 * are those of runtime/text/dis_path.h, one per template part, an operand's before its alternative's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit_tc.h"
#include "emit_util.h"
#include "text/dis_print.h"
#include "text/textcodec.h"

/* A shape function (ops printing the same template after their names) of at least this many ops has its operands'
 * printers inlined: the shapes of many ops are those most bundles print; a shape of fewer calls them (code size). */
#define TSR_TC_SHAPE_INL 3

/* How the printer finds a table's text (per table used by a hole). */
struct ptab {
    bool used;
    bool sparse;       /* sorted array + binary search, else indexed by code */
    bool inline16;     /* every text fits struct tsr_tc_ptext16 */
    uint64_t n;        /* entries of the array (dense: max code + 1) */
    int maxlen;        /* longest text */
    bool *ok;          /* dense: per code, has a text */
};

/* An operand's function: its alternatives print at offset o of the bundle's text b, their events go to oe + 1 on,
 * the operand's own event is oe; it returns the end of the text and of the events, or {0, NULL} when no
 * alternative can print.  An op's function (dis_print.h tsr_tc_print_fn) prints at o with its events at ev. */
#define PO_PARAMS "const uint64_t *restrict f, uint64_t pc, char *restrict b, size_t o, struct tsr_dis_ev *restrict oe, " \
                  "struct tsr_tc_pctx *restrict x"
#define PP_PARAMS "const uint64_t *restrict f, uint64_t pc, char *restrict b, size_t o, struct tsr_dis_ev *restrict ev, " \
                  "struct tsr_tc_pctx *restrict x"

struct pgen {
    const struct mdl_model *m;
    const struct tc_layout *L;
    struct tsr_buf *out;
    struct tsr_diag *d;
    struct ptab *tab;
    bool *opnd_used;   /* per operand instance: printed by some op (only those get a function) */
    int *shape;        /* per op: its shape function ps_N (N >= 0), or -1: a function pp_N of its own */
    bool *shape_empty; /* per shape: nothing follows the name (the format printers write it without a call) */
    bool *opnd_inl;    /* per operand instance: a part of a shape's template (its body also as pi_N, inlined there) */
    bool *shape_inl;   /* per shape: its operands' bodies inlined (a shape of TSR_TC_SHAPE_INL ops or more) */
    bool in_shape;     /* seq_code is writing a shape function whose operands' bodies are inlined (pi_N) */
    int rc;
};

/* The text a table's print entry stands for (the name itself, or a number printed into b), or NULL when it
 * has none (a NaN or an infinity).  *len: its length. */
static const char *entry_text(const struct tc_print *p, char b[48], int *len)
{
    if (p->kind == TSR_TC_PRINT_NAME) {
        *len = (int)strlen(p->name);
        return p->name;
    }
    if (p->kind == TSR_TC_PRINT_INT) {
        *len = snprintf(b, 48, "%" PRId32, (int32_t)p->val);
        return b;
    }
    *len = tsr_tc_float_text(p->val, b);
    return *len >= 0 ? b : NULL;
}

static void table_prepare(struct pgen *g, int t)
{
    const struct tc_table *T = &g->L->tables[t];
    struct ptab *P = &g->tab[t];
    if (P->used)
        return;
    P->used = true;
    uint64_t maxcode = T->nprint ? g->L->prints[T->print + T->nprint - 1].code : 0;
    P->n = T->nprint ? maxcode + 1 : 0;
    P->sparse = P->n > 4 * (uint64_t)T->nprint + 64;
    if (P->sparse)
        P->n = (uint64_t)T->nprint;
    P->inline16 = true;
    if (!P->sparse) {
        P->ok = calloc((size_t)P->n + 1, 1);
        if (!P->ok)
            abort();
    }
    for (int i = T->print; i < T->print + T->nprint; i++) {
        char b[48];
        int len;
        if (!entry_text(&g->L->prints[i], b, &len))
            continue;
        if (!P->sparse)
            P->ok[g->L->prints[i].code] = true;
        P->maxlen = len > P->maxlen ? len : P->maxlen;
        if (len > 15)
            P->inline16 = false;
    }
}

static void table_emit(struct pgen *g, int t)
{
    const struct tc_table *T = &g->L->tables[t];
    const struct ptab *P = &g->tab[t];
    struct tsr_buf *o = g->out;
    const char *type = P->sparse ? "struct tsr_tc_ptextc" : P->inline16 ? "struct tsr_tc_ptext16" : "struct tsr_tc_ptext";
    tsr_buf_printf(o, "/* table %s: the text of each code (len, kind, ok) */\nstatic const %s pt_%d[%" PRIu64 "] = {\n",
                   g->m->tables[t].name, type, t, P->n ? P->n : 1);
    int k = T->print;
    for (uint64_t c = 0; c < P->n; c++) {
        const struct tc_print *p = NULL;
        if (P->sparse)
            p = &g->L->prints[T->print + (int)c];
        else if (k < T->print + T->nprint && g->L->prints[k].code == c)
            p = &g->L->prints[k++];
        char b[48];
        int len = 0;
        const char *txt = p ? entry_text(p, b, &len) : NULL;
        bool ok = txt != NULL;
        tsr_buf_puts(o, "    {");
        if (P->sparse)
            tsr_buf_printf(o, "%" PRIu32 ", {", p->code);
        if (ok)
            gen_cstring(o, txt);
        else
            tsr_buf_puts(o, P->inline16 ? "\"\"" : "NULL");
        tsr_buf_printf(o, ", %d, %d, %d}%s,\n", ok ? len : 0, p ? p->kind : 0, ok, P->sparse ? "}" : "");
    }
    tsr_buf_puts(o, "};\n\n");
}

/* Bounds of a part sequence (dis_print.h struct tsr_tc_pop): bytes, events, labels. */
struct bounds { uint64_t len, ev, lab; };

static int int_len(const struct mdl_field *fd)
{
    switch (fd->print) {
    case MDL_PRINT_HEX:
        return 18;
    case MDL_PRINT_FLOAT:
        return fd->width == 32 ? TSR_TC_FLOAT_MAX : 18;
    default:
        return 21;
    }
}

static struct bounds seq_bounds(struct pgen *g, int first, int n);

static struct bounds opnd_bounds(struct pgen *g, int o)
{
    struct bounds b = {0, 0, 0};
    for (int j = 0; j < g->m->opnds[o].nalt; j++) {
        const struct tc_alt *a = &g->L->alts[g->L->opnd_alt[o] + j];
        struct bounds x = seq_bounds(g, a->part, a->npart);
        b.len = x.len > b.len ? x.len : b.len;
        b.ev = x.ev > b.ev ? x.ev : b.ev;
        b.lab = x.lab > b.lab ? x.lab : b.lab;
    }
    return b;
}

static struct bounds seq_bounds(struct pgen *g, int first, int n)
{
    struct bounds b = {0, 0, 0};
    for (int i = first; i < first + n; i++) {
        const struct tc_part *p = &g->L->parts[i];
        b.ev++;
        switch (p->kind) {
        case TSR_TC_TEXT:
        case TSR_TC_OPT:
            b.len += (uint64_t)p->len;
            break;
        case TSR_TC_SPACE:
            b.len += 1;
            break;
        case TSR_TC_TABLE:
            b.len += (uint64_t)g->tab[p->arg].maxlen;
            break;
        case TSR_TC_INT:
            b.len += (uint64_t)int_len(&g->m->fields[p->field]);
            break;
        case TSR_TC_LABEL:
            b.len += 17;
            b.lab++;
            break;
        case TSR_TC_OPND: {
            struct bounds x = opnd_bounds(g, p->arg);
            b.len += x.len;
            b.ev += x.ev;
            b.lab += x.lab;
            break;
        }
        }
    }
    return b;
}

/* A C condition for conds[first .. first+n-1] (all must hold). */
static void cond_code(struct pgen *g, int first, int n)
{
    struct tsr_buf *o = g->out;
    if (n == 0) {
        tsr_buf_puts(o, "1");
        return;
    }
    struct gen_cx cx = {"f[%d]", true, NULL};
    for (int i = first; i < first + n; i++) {
        const struct tc_cond *c = &g->L->conds[i];
        if (i > first)
            tsr_buf_puts(o, " && ");
        if (c->kind == TSR_TC_BIND) {
            tsr_buf_printf(o, "f[%d] == ", c->field);
            gen_u64(o, c->val);
        } else if (c->kind == TSR_TC_BIND2) {
            tsr_buf_printf(o, "f[%d] == f[%d]", c->field, c->field2);
        } else if (!c->e) {
            tsr_buf_puts(o, "1");
        } else {
            tsr_buf_puts(o, "0 != (");
            if (gen_cexpr(g->m, c->e, &cx, o, g->d) < 0)
                g->rc = -1;
            tsr_buf_puts(o, ")");
        }
    }
}

/* Appends the event of a part printed from offset `from` to o (C expressions) with what (a C expression). */
static void ev_code(struct tsr_buf *o, const char *ind, const char *from, const char *to, const char *what)
{
    tsr_buf_printf(o, "%s*ev++ = (struct tsr_dis_ev){(uint32_t)%s, (uint32_t)%s, %s};\n", ind, from, to, what);
}

/* Whether a part can fail to print. */
static bool part_can_fail(struct pgen *g, const struct tc_part *p)
{
    if (p->kind == TSR_TC_OPND)
        return true;
    if (p->kind != TSR_TC_TABLE)
        return false;
    const struct ptab *P = &g->tab[p->arg];
    int w = g->m->fields[p->field].width;
    if (P->sparse || w >= 32 || ((uint64_t)1 << w) > P->n)
        return true;
    for (uint64_t c = 0; c < ((uint64_t)1 << w); c++)
        if (!P->ok[c])
            return true;
    return false;
}

static bool is_const(const struct tc_part *p)
{
    return p->kind == TSR_TC_TEXT || p->kind == TSR_TC_SPACE;
}

/* The code of parts[first .. first+n-1], printing at offset o of the bundle's text b, its events at ev;
 * fail: the statement giving up.  A run of literal parts is one copy, its events at constant distances. */
static void seq_code(struct pgen *g, int first, int n, const char *ind, const char *fail)
{
    struct tsr_buf *o = g->out;
    const struct mdl_model *m = g->m;
    for (int i = first; i < first + n; i++) {
        const struct tc_part *p = &g->L->parts[i];
        switch (p->kind) {
        case TSR_TC_TEXT:
        case TSR_TC_SPACE: {
            int end = i;
            while (end < first + n && is_const(&g->L->parts[end]))
                end++;
            struct tsr_buf run = {0};
            tsr_buf_puts(&run, "");
            for (int k = i; k < end; k++)
                tsr_buf_append(&run, g->L->parts[k].kind == TSR_TC_TEXT ? g->L->parts[k].text : " ",
                               g->L->parts[k].kind == TSR_TC_TEXT ? (size_t)g->L->parts[k].len : 1);
            if (run.len) {
                tsr_buf_printf(o, "%smemcpy(b + o, ", ind);
                gen_cstring(o, run.data);
                tsr_buf_printf(o, ", %zu);\n", run.len);
            }
            size_t at = 0;
            for (int k = i; k < end; k++) {
                size_t len = g->L->parts[k].kind == TSR_TC_TEXT ? (size_t)g->L->parts[k].len : 1;
                char from[32], to[32];
                snprintf(from, sizeof from, at ? "(o + %zu)" : "o", at);
                snprintf(to, sizeof to, at + len ? "(o + %zu)" : "o", at + len);
                ev_code(o, ind, from, to, "0");
                at += len;
            }
            if (run.len)
                tsr_buf_printf(o, "%so += %zu;\n", ind, run.len);
            tsr_buf_free(&run);
            i = end - 1;
            break;
        }
        case TSR_TC_OPT:
            tsr_buf_printf(o, "%sif (", ind);
            cond_code(g, p->cond, p->ncond);
            tsr_buf_printf(o, ") {\n%s    memcpy(b + o, ", ind);
            gen_cstring(o, p->text);
            tsr_buf_printf(o, ", %d);\n%s    *ev++ = (struct tsr_dis_ev){(uint32_t)o, (uint32_t)(o + %d), 1};\n"
                              "%s    o += %d;\n%s} else {\n%s    *ev++ = (struct tsr_dis_ev){(uint32_t)o, (uint32_t)o, 0};\n%s}\n",
                           p->len, ind, p->len, ind, p->len, ind, ind, ind);
            break;
        case TSR_TC_TABLE: {
            const struct ptab *P = &g->tab[p->arg];
            if (!P->n) {   /* no code has a text */
                tsr_buf_printf(o, "%s%s;\n", ind, fail);
                break;
            }
            tsr_buf_printf(o, "%s{\n", ind);
            if (P->sparse) {
                tsr_buf_printf(o, "%s    const struct tsr_tc_ptext *t = tsr_tc_ptext_find(pt_%d, %" PRIu64 ", f[%d]);\n"
                                  "%s    if (!t || !t->ok)\n%s        %s;\n",
                               ind, p->arg, P->n, p->field, ind, ind, fail);
            } else {
                tsr_buf_printf(o, "%s    const uint64_t c = f[%d];\n", ind, p->field);
                if (part_can_fail(g, p)) {
                    int w = m->fields[p->field].width;
                    if (w >= 32 || ((uint64_t)1 << w) > P->n)   /* codes past the array exist */
                        tsr_buf_printf(o, "%s    if (c >= %" PRIu64 " || !pt_%d[c].ok)\n", ind, P->n, p->arg);
                    else
                        tsr_buf_printf(o, "%s    if (!pt_%d[c].ok)\n", ind, p->arg);
                    tsr_buf_printf(o, "%s        %s;\n", ind, fail);
                }
                tsr_buf_printf(o, "%s    const %s *t = &pt_%d[c];\n", ind,
                               P->inline16 ? "struct tsr_tc_ptext16" : "struct tsr_tc_ptext", p->arg);
            }
            tsr_buf_printf(o, "%s    memcpy(b + o, t->s, %s);\n", ind, P->inline16 && !P->sparse ? "16" : "t->len");
            tsr_buf_printf(o, "%s    *ev++ = (struct tsr_dis_ev){(uint32_t)o, (uint32_t)(o + t->len), t->kind};\n"
                              "%s    o += t->len;\n%s}\n", ind, ind, ind);
            break;
        }
        case TSR_TC_INT: {
            const struct mdl_field *fd = &m->fields[p->field];
            tsr_buf_printf(o, "%s{\n%s    const size_t e = (size_t)(", ind, ind);
            if (fd->print == MDL_PRINT_HEX || (fd->print == MDL_PRINT_FLOAT && fd->width != 32))
                tsr_buf_printf(o, "tsr_tc_fmt_hex(b + o, f[%d])", p->field);
            else if (fd->print == MDL_PRINT_FLOAT)
                tsr_buf_printf(o, "tsr_tc_fmt_float(b + o, f[%d])", p->field);
            else if (fd->print == MDL_PRINT_SIGNED || (fd->print == MDL_PRINT_DEFAULT && fd->is_signed))
                tsr_buf_printf(o, "tsr_tc_fmt_sdec(b + o, f[%d], %d)", p->field, fd->width);
            else
                tsr_buf_printf(o, "tsr_tc_fmt_dec(b + o, f[%d], false)", p->field);
            tsr_buf_puts(o, " - b);\n");
            tsr_buf_printf(o, "%s    *ev++ = (struct tsr_dis_ev){(uint32_t)o, (uint32_t)e, 0};\n%s    o = e;\n%s}\n", ind,
                           ind, ind);
            break;
        }
        case TSR_TC_LABEL: {
            const struct mdl_field *fd = &m->fields[p->field];
            tsr_buf_printf(o, "%s{\n%s    const uint64_t t = ", ind, ind);
            char unit[32] = "";   /* X9: the field counts units (nothing printed for 1: code without units unchanged) */
            if (p->unit > 1)
                snprintf(unit, sizeof unit, " * %uu", (unsigned)p->unit);
            if (p->pcrel) {
                tsr_buf_puts(o, "(pc + ");
                gen_u64(o, (uint64_t)p->pcoff);
                tsr_buf_printf(o, " + (uint64_t)tsr_bits_sext(f[%d], %d)%s) & tsr_bits_mask(%d);\n", p->field, fd->width,
                               unit, fd->width < 32 ? 32 : fd->width);
            } else if (fd->is_signed) {
                tsr_buf_printf(o, "(uint64_t)tsr_bits_sext(f[%d], %d)%s;\n", p->field, fd->width, unit);
            } else {
                tsr_buf_printf(o, "f[%d]%s;\n", p->field, unit);
            }
            tsr_buf_printf(o, "%s    x->lab[x->nlab++] = t;\n%s    const size_t e = (size_t)(tsr_tc_fmt_label(b + o, t) - b);\n",
                           ind, ind);
            tsr_buf_printf(o, "%s    *ev++ = (struct tsr_dis_ev){(uint32_t)o, (uint32_t)e, 0};\n%s    o = e;\n%s}\n", ind,
                           ind, ind);
            break;
        }
        case TSR_TC_OPND:
            tsr_buf_printf(o, "%s{\n%s    const struct tsr_tc_pres r = p%c_%d(f, pc, b, o, ev, x);\n"
                              "%s    if (!r.ev)\n%s        %s;\n%s    o = r.o;\n%s    ev = r.ev;\n%s}\n",
                           ind, ind, g->in_shape ? 'i' : 'o', p->arg, ind, ind, fail, ind, ind, ind);
            break;
        }
    }
}

static bool seq_can_fail(struct pgen *g, int first, int n)
{
    for (int i = first; i < first + n; i++)
        if (part_can_fail(g, &g->L->parts[i]))
            return true;
    return false;
}

/* Whether some printer other than a shape function calls operand oi's function po_N: an op with a function of its
 * own, or an operand's alternative. */
static bool opnd_called(struct pgen *g, int oi)
{
    for (int i = 0; i < g->m->nops; i++)
        for (int k = 0; k < g->L->ops[i].npart && (g->shape[i] < 0 || !g->shape_inl[g->shape[i]]); k++)
            if (g->L->parts[g->L->ops[i].part + k].kind == TSR_TC_OPND && g->L->parts[g->L->ops[i].part + k].arg == oi)
                return true;
    for (int u = 0; u < g->m->nopnds; u++)
        for (int j = 0; j < g->m->opnds[u].nalt && g->opnd_used[u]; j++) {
            const struct tc_alt *a = &g->L->alts[g->L->opnd_alt[u] + j];
            for (int k = a->part; k < a->part + a->npart; k++)
                if (g->L->parts[k].kind == TSR_TC_OPND && g->L->parts[k].arg == oi)
                    return true;
        }
    return false;
}

/* The code seq_code writes for parts [first, first+n) (ind, fail as there), as a string to compare (free it). */
static char *seq_text(struct pgen *g, int first, int n, const char *ind, const char *fail)
{
    struct tsr_buf *save = g->out, t = {0};
    tsr_buf_puts(&t, "");
    g->out = &t;
    seq_code(g, first, n, ind, fail);
    g->out = save;
    return t.data;
}

/* The code seq_code writes for part p alone (the unit prefixes are compared in). */
static char *part_code(struct pgen *g, int p)
{
    return seq_text(g, p, 1, "", "fail");
}

/* Whether part p can be printed ahead of the conditions of the alternatives that start with it: it cannot fail
 * and adds no label (nothing to take back but the offset and the event pointer). */
static bool part_ahead(struct pgen *g, int p)
{
    const struct tc_part *q = &g->L->parts[p];
    return q->kind == TSR_TC_TEXT || q->kind == TSR_TC_SPACE || q->kind == TSR_TC_OPT || q->kind == TSR_TC_INT ||
           (q->kind == TSR_TC_TABLE && !part_can_fail(g, q));
}

/* The number of leading parts alternatives x and y print alike (part_ahead, the same code). */
static int common_prefix(struct pgen *g, const struct tc_alt *x, const struct tc_alt *y)
{
    int n = 0;
    while (n < x->npart && n < y->npart && part_ahead(g, x->part + n)) {
        char *cx = part_code(g, x->part + n), *cy = part_code(g, y->part + n);
        bool same = !strcmp(cx, cy);
        free(cx);
        free(cy);
        if (!same)
            break;
        n++;
    }
    return n;
}

/* Alternative j of operand oi (a), its parts from the skip-th on (the earlier ones printed by its group), ind the
 * indentation: its conditions, then its parts; on failure back to offset `from` and event `efrom` (C names). */
static void alt_code(struct pgen *g, int j, const struct tc_alt *a, int skip, const char *ind, const char *from,
                     const char *efrom)
{
    struct tsr_buf *o = g->out;
    tsr_buf_printf(o, "%sif (", ind);
    cond_code(g, a->cond, a->ncond);
    tsr_buf_puts(o, ") {\n");
    bool can_fail = seq_can_fail(g, a->part + skip, a->npart - skip);
    bool labels = seq_bounds(g, a->part + skip, a->npart - skip).lab > 0;
    if (can_fail && labels)
        tsr_buf_printf(o, "%s    const size_t nlab0 = x->nlab;\n", ind);
    char fail[32], in2[64];
    snprintf(fail, sizeof fail, "goto fail%d", j);
    snprintf(in2, sizeof in2, "%s    ", ind);
    seq_code(g, a->part + skip, a->npart - skip, in2, fail);
    tsr_buf_printf(o, "%s    *oe = (struct tsr_dis_ev){(uint32_t)o0, (uint32_t)o, %d};\n"
                      "%s    return (struct tsr_tc_pres){o, ev};\n", ind, j, ind);
    if (can_fail)
        tsr_buf_printf(o, "%sfail%d:\n%s    o = %s;\n%s    ev = %s;\n", ind, j, ind, from, ind, efrom);
    if (can_fail && labels)
        tsr_buf_printf(o, "%s    x->nlab = nlab0;\n", ind);
    tsr_buf_printf(o, "%s}\n", ind);
}

/* An operand's function: the alternatives in order.  A run of alternatives whose first parts print alike (a
 * register name and its `.setf` before the part that tells them apart) prints those parts once, before the
 * run's conditions: the same text and events as each alternative printing them (they cannot fail and add no
 * label), and when no condition of the run holds the offset and event pointer go back. */
static void opnd_fn(struct pgen *g, int oi)
{
    struct tsr_buf *o = g->out;
    const struct mdl_opnd *od = &g->m->opnds[oi];
    tsr_buf_printf(o, "/* operand %s */\n%s struct tsr_tc_pres p%c_%d(" PO_PARAMS ")\n{\n"
                      "    const size_t o0 = o;\n    struct tsr_dis_ev *ev = oe + 1;\n"
                      "    (void)f;\n    (void)pc;\n    (void)x;\n",
                   od->inst_name ? od->inst_name : od->name, g->opnd_inl[oi] ? "TSR_TC_PINLINE" : "static",
                   g->opnd_inl[oi] ? 'i' : 'o', oi);
    const struct tc_alt *alts = &g->L->alts[g->L->opnd_alt[oi]];
    for (int j = 0; j < od->nalt;) {
        int k = j, plen = INT32_MAX;
        while (k + 1 < od->nalt) {
            int n = common_prefix(g, &alts[j], &alts[k + 1]);
            if (n == 0)
                break;
            plen = n < plen ? n : plen;
            k++;
        }
        if (k == j) {
            alt_code(g, j, &alts[j], 0, "    ", "o0", "oe + 1");
            j++;
            continue;
        }
        tsr_buf_printf(o, "    {   /* alternatives %d-%d: their first %d parts printed once */\n", j, k, plen);
        seq_code(g, alts[j].part, plen, "        ", "return (struct tsr_tc_pres){0, NULL}");
        tsr_buf_puts(o, "        const size_t o1 = o;\n        struct tsr_dis_ev *const ev1 = ev;\n");
        bool used = false;   /* o1 and ev1 are read only where an alternative can fail */
        for (int t = j; t <= k && !used; t++)
            used = seq_can_fail(g, alts[t].part + plen, alts[t].npart - plen);
        if (!used)
            tsr_buf_puts(o, "        (void)o1;\n        (void)ev1;\n");
        for (; j <= k; j++)
            alt_code(g, j, &alts[j], plen, "        ", "o1", "ev1");
        tsr_buf_puts(o, "        o = o0;\n        ev = oe + 1;\n    }\n");
    }
    tsr_buf_puts(o, "    return (struct tsr_tc_pres){0, NULL};\n}\n\n");
    if (g->opnd_inl[oi] && opnd_called(g, oi))   /* the function the other printers call */
        tsr_buf_printf(o, "TSR_TC_PNOINLINE struct tsr_tc_pres po_%d(" PO_PARAMS ")\n{\n"
                          "    return pi_%d(f, pc, b, o, oe, x);\n}\n\n", oi, oi);
}

/* Whether op i's template starts with a name the shapes can print (a literal of at most 15 bytes, copied as
 * one 16-byte block like a table's text). */
static bool op_named(struct pgen *g, int i)
{
    const struct tc_op *op = &g->L->ops[i];
    return op->npart > 0 && g->L->parts[op->part].kind == TSR_TC_TEXT && g->L->parts[op->part].len <= 15;
}

/* The code of op i's template after its name (op_named), as seq_code writes it: ops with the same code share
 * a shape function. */
static char *tail_code(struct pgen *g, int i)
{
    const struct tc_op *op = &g->L->ops[i];
    return seq_text(g, op->part + 1, op->npart - 1, "    ", "return (struct tsr_tc_pres){0, NULL}");
}

/* Groups the named ops whose templates differ only in their name: g->shape (a group of one op keeps its own
 * pp_N).  Returns the number of shapes. */
static int find_shapes(struct pgen *g)
{
    int nops = g->m->nops, ns = 0;
    char **code = calloc((size_t)nops + 1, sizeof *code);
    int *first = calloc((size_t)nops + 1, sizeof *first);   /* per op: the first op with its code */
    if (!code || !first)
        abort();
    for (int i = 0; i < nops; i++) {
        g->shape[i] = -1;
        first[i] = i;
        if (!op_named(g, i))
            continue;
        code[i] = tail_code(g, i);
        for (int k = 0; k < i; k++)
            if (code[k] && !strcmp(code[k], code[i])) {
                first[i] = first[k];
                break;
            }
    }
    for (int i = 0; i < nops; i++) {
        if (!code[i] || first[i] != i)
            continue;
        bool shared = false;
        for (int k = i + 1; k < nops && !shared; k++)
            shared = first[k] == i && code[k];
        if (!shared)
            continue;
        for (int k = i; k < nops; k++)
            if (first[k] == i && code[k])
                g->shape[k] = ns;
        int nop = 0;
        for (int k = i; k < nops; k++)
            nop += g->shape[k] == ns;
        g->shape_empty[ns] = g->L->ops[i].npart == 1;
        g->shape_inl[ns] = nop >= TSR_TC_SHAPE_INL;
        for (int k = 1; k < g->L->ops[i].npart && g->shape_inl[ns]; k++) {   /* its operands: inlined there */
            const struct tc_part *p = &g->L->parts[g->L->ops[i].part + k];
            if (p->kind == TSR_TC_OPND)
                g->opnd_inl[p->arg] = true;
        }
        ns++;
    }
    for (int i = 0; i < nops; i++)
        free(code[i]);
    free(code);
    free(first);
    return ns;
}

/* The shape a format function inlines in slot S's switch (fmt_fn): of the shapes with inlined operands
 * (shape_inl) and text after the name, the one holding most of the slot's ops (the first of those tied), or -1.
 * One per slot bounds the code added (measured on the largest description: inlining its 5-op ALU shape too cost more I1 misses
 * than the calls it saved). */
static int slot_shape(const struct pgen *g, const struct mdl_slot *S)
{
    int best = -1, nbest = 0;
    for (int k = 0; k < S->nops; k++) {
        int sh = g->shape[S->ops[k]], n = 0;
        if (sh < 0 || !g->shape_inl[sh] || g->shape_empty[sh])
            continue;
        for (int j = 0; j < S->nops; j++)
            n += g->shape[S->ops[j]] == sh;
        if (n > nbest)
            best = sh, nbest = n;
    }
    return best;
}

/* Whether some format function inlines shape sh (slot_shape of one of its slots). */
static bool shape_in_fmt(const struct pgen *g, int sh)
{
    for (int fi = 0; fi < g->m->nformats; fi++)
        for (int t = 0; t < g->m->formats[fi].nslots; t++)
            if (slot_shape(g, &g->m->slots[g->m->formats[fi].slots[t]]) == sh)
                return true;
    return false;
}

/* Shape function ps_N: the name at nm (a 16-byte block and its length), then the template its ops share.  A shape
 * some format function inlines (shape_in_fmt) is written as psi_N, inlined into those switches (no call, spills
 * or reloads on most bundles), and ps_N, one out-of-line copy for the ops' own functions (pp_N). */
static void shape_fn(struct pgen *g, int sh)
{
    const bool fin = shape_in_fmt(g, sh);
    struct tsr_buf *o = g->out;
    int i0 = -1;
    tsr_buf_puts(o, "/* ops");
    for (int i = 0; i < g->m->nops; i++)
        if (g->shape[i] == sh) {
            tsr_buf_printf(o, " %s", g->m->ops[i].name);
            i0 = i0 < 0 ? i : i0;
        }
    tsr_buf_printf(o, ": the name, then the template they share */\n"
                      "%s struct tsr_tc_pres ps%s_%d(" PP_PARAMS ", const struct tsr_tc_ptext16 *restrict nm)\n{\n"
                      "    (void)f;\n    (void)pc;\n    (void)x;\n"
                      "    memcpy(b + o, nm->s, 16);\n"
                      "    *ev++ = (struct tsr_dis_ev){(uint32_t)o, (uint32_t)(o + nm->len), 0};\n"
                      "    o += nm->len;\n",
                   fin ? "TSR_TC_PINLINE" : "static", fin ? "i" : "", sh);
    const struct tc_op *op = &g->L->ops[i0];
    g->in_shape = g->shape_inl[sh];
    seq_code(g, op->part + 1, op->npart - 1, "    ", "return (struct tsr_tc_pres){0, NULL}");
    g->in_shape = false;
    tsr_buf_puts(o, "    return (struct tsr_tc_pres){o, ev};\n}\n\n");
    if (fin)
        tsr_buf_printf(o, "TSR_TC_PNOINLINE struct tsr_tc_pres ps_%d(" PP_PARAMS ", const struct tsr_tc_ptext16 *restrict "
                          "nm)\n{\n    return psi_%d(f, pc, b, o, ev, x, nm);\n}\n\n", sh, sh);
}

static void op_fn(struct pgen *g, int i)
{
    struct tsr_buf *o = g->out;
    const struct tc_op *op = &g->L->ops[i];
    tsr_buf_printf(o, "/* op %s (slot %s) */\nstatic struct tsr_tc_pres pp_%d(" PP_PARAMS ")\n{\n",
                   g->m->ops[i].name, g->m->slots[g->m->ops[i].slot].name, i);
    if (g->shape[i] >= 0) {
        tsr_buf_printf(o, "    return ps_%d(f, pc, b, o, ev, x, &pn_[%d]);\n}\n\n", g->shape[i], i);
        return;
    }
    tsr_buf_puts(o, "    (void)f;\n    (void)pc;\n    (void)b;\n    (void)x;\n");
    seq_code(g, op->part, op->npart, "    ", "return (struct tsr_tc_pres){0, NULL}");
    tsr_buf_puts(o, "    return (struct tsr_tc_pres){o, ev};\n}\n\n");
}

/* Per format a function `pf_N` (dis_print.h tsr_tc_pfmt_fn): print_bundle's slot loop unrolled over the format's
 * slots, with the slots' default ops as constants and each op's printer called directly. */
static void fmt_fn(struct pgen *g, int fi, const char *lo)
{
    struct tsr_buf *o = g->out;
    const struct mdl_model *m = g->m;
    const struct mdl_format *F = &m->formats[fi];
    int ns = F->nslots;
    tsr_buf_printf(o, "/* format %s */\nstatic size_t pf_%d(const uint16_t *restrict op, const uint64_t *restrict f, "
                      "uint64_t pc, bool all, char *restrict b, struct tsr_dis_path *restrict P, "
                      "struct tsr_tc_pctx *restrict x, bool *partial)\n{\n",
                   F->name, fi);
    for (int t = 0; t < ns; t++)
        tsr_buf_printf(o, "    const unsigned k%d = op[%d];   /* slot %s */\n", t, F->slots[t], m->slots[F->slots[t]].name);
    /* an op number that is not an op (>= nops) fails in its slot's default case: it differs from the slot's
     * default op, so its slot is printed (last below) */
    if (ns == 1) {   /* the one slot is always printed */
        tsr_buf_puts(o, "    (void)all;\n    *partial = false;\n");
    } else {
        tsr_buf_printf(o, "    const int last = all ? %d : ", ns - 1);
        int t = ns - 1;
        for (; t > 0 && m->slots[F->slots[t]].default_op >= 0; t--)
            tsr_buf_printf(o, "k%d != %du ? %d : ", t, m->slots[F->slots[t]].default_op, t);
        tsr_buf_printf(o, "%d;\n    *partial = last < %d;\n", t, ns - 1);   /* t > 0: a slot without default */
    }
    tsr_buf_puts(o, "    size_t o = 0, nsp = 0;\n    struct tsr_dis_ev *const ev0 = P->ev;\n    struct tsr_dis_ev *ev = ev0;\n"
                    "    struct tsr_tc_pres r;\n");
    for (int t = 0; t < ns; t++) {
        const struct mdl_slot *S = &m->slots[F->slots[t]];
        tsr_buf_printf(o, "    /* slot %s */\n", S->name);
        if (t)
            tsr_buf_printf(o, "    if (last < %d)\n        goto done;\n", t);
        tsr_buf_puts(o, "    {\n        const size_t mark = o;\n        struct tsr_dis_ev *const emark = ev;\n");
        if (t)
            tsr_buf_puts(o, "        if (o) {\n            memcpy(b + o, \"; \", 2);\n            o += 2;\n        }\n");
        tsr_buf_printf(o, "        switch (k%d) {\n", t);
        const int inl = slot_shape(g, S);
        for (int k = 0; k < S->nops; k++) {   /* the slot's ops of one shape: one call, the name by op number */
            int sh = g->shape[S->ops[k]];
            if (sh < 0) {
                tsr_buf_printf(o, "        case %d:\n            r = pp_%d(f, pc, b, o, ev, x);\n            break;\n",
                               S->ops[k], S->ops[k]);
                continue;
            }
            bool seen = false;
            for (int j = 0; j < k && !seen; j++)
                seen = g->shape[S->ops[j]] == sh;
            if (seen)
                continue;
            for (int j = k; j < S->nops; j++)
                if (g->shape[S->ops[j]] == sh)
                    tsr_buf_printf(o, "        case %d:\n", S->ops[j]);
            if (g->shape_empty[sh])   /* the name alone: written here */
                tsr_buf_printf(o, "            memcpy(b + o, pn_[k%d].s, 16);\n            ev[0] = (struct tsr_dis_ev)"
                                  "{(uint32_t)o, (uint32_t)(o + pn_[k%d].len), 0};\n"
                                  "            r = (struct tsr_tc_pres){o + pn_[k%d].len, ev + 1};\n"
                                  "            break;\n", t, t, t);
            else
                tsr_buf_printf(o, "            r = ps%s_%d(f, pc, b, o, ev, x, &pn_[k%d]);\n            break;\n",
                               sh == inl ? "i" : "", sh, t);
        }
        tsr_buf_printf(o, "        default:   /* an op of another slot, or not an op */\n            if (k%d >= %du)\n"
                          "                return TSR_TC_PFAIL;\n            r = %s_tc_pops[k%d].fn(f, pc, b, o, ev, x);\n"
                          "            break;\n        }\n", t, m->nops, lo, t);
        tsr_buf_puts(o, "        if (!r.ev)\n            return TSR_TC_PFAIL;\n");
        tsr_buf_puts(o, "        if (r.o == o) {   /* the op prints no text: left out, with its separator and events */\n"
                        "            o = mark;\n            ev = emark;\n        } else {\n");
        if (t < TSR_DIS_MAX_SLOTS)
            tsr_buf_printf(o, "            P->sp[nsp++] = (struct tsr_dis_slotp){%d, (uint32_t)(emark - ev0), (uint32_t)r.o};\n", t);
        else
            tsr_buf_puts(o, "            P->over = true;\n");
        tsr_buf_puts(o, "            o = r.o;\n            ev = r.ev;\n        }\n    }\n");
    }
    if (ns > 1)
        tsr_buf_puts(o, "done:\n");
    tsr_buf_puts(o, "    P->nsp = nsp;\n    P->nev = (size_t)(ev - ev0);\n    return o;\n}\n\n");
}

/* Marks the operands and tables the parts [first, first+n) can print, through operands' alternatives. */
static void reach(struct pgen *g, int first, int n)
{
    for (int i = first; i < first + n; i++) {
        const struct tc_part *p = &g->L->parts[i];
        if (p->kind == TSR_TC_TABLE)
            table_prepare(g, p->arg);
        if (p->kind != TSR_TC_OPND || g->opnd_used[p->arg])
            continue;
        g->opnd_used[p->arg] = true;
        for (int j = 0; j < g->m->opnds[p->arg].nalt; j++) {
            const struct tc_alt *a = &g->L->alts[g->L->opnd_alt[p->arg] + j];
            reach(g, a->part, a->npart);
        }
    }
}

int gen_disprint(const struct mdl_model *m, const struct tc_layout *L, struct tsr_buf *out, struct tsr_diag *d)
{
    struct pgen g = {.m = m, .L = L, .out = out, .d = d};
    g.tab = calloc((size_t)L->ntables + 1, sizeof(struct ptab));
    g.opnd_used = calloc((size_t)m->nopnds + 1, sizeof(bool));
    g.opnd_inl = calloc((size_t)m->nopnds + 1, sizeof(bool));
    g.shape = calloc((size_t)m->nops + 1, sizeof(int));
    g.shape_empty = calloc((size_t)m->nops + 1, sizeof(bool));
    g.shape_inl = calloc((size_t)m->nops + 1, sizeof(bool));
    if (!g.tab || !g.opnd_used || !g.shape || !g.shape_empty || !g.opnd_inl || !g.shape_inl)
        abort();
    const char *lo = gen_lower(m);
    for (int i = 0; i < m->nops; i++)
        reach(&g, L->ops[i].part, L->ops[i].npart);
    tsr_buf_puts(out, "/* ---- the generated printer (runtime/text/dis_print.h; gen/emit_disprint.c) ---- */\n\n");
    for (int t = 0; t < L->ntables; t++)
        if (g.tab[t].used && g.tab[t].n)   /* a table without entries has no array: its holes never print */
            table_emit(&g, t);
    int nshapes = find_shapes(&g);
    for (int i = 0; i < m->nopnds; i++)
        if (g.opnd_used[i])
        {
            if (!g.opnd_inl[i] || opnd_called(&g, i))
                tsr_buf_printf(out, "static struct tsr_tc_pres po_%d(" PO_PARAMS ");\n", i);
            if (g.opnd_inl[i])
                tsr_buf_printf(out, "static struct tsr_tc_pres pi_%d(" PO_PARAMS ");\n", i);
        }
    tsr_buf_puts(out, "\n");
    for (int i = 0; i < m->nopnds; i++)
        if (g.opnd_used[i])
            opnd_fn(&g, i);
    if (nshapes) {   /* the names of the ops of a shape, by op number */
        tsr_buf_printf(out, "/* per op of a shape: its name (len, kind, ok) */\n"
                            "static const struct tsr_tc_ptext16 pn_[%d] = {\n", m->nops);
        for (int i = 0; i < m->nops; i++) {
            const struct tc_part *p = &L->parts[L->ops[i].part];
            tsr_buf_puts(out, "    {");
            if (g.shape[i] >= 0) {
                gen_cstring(out, p->text);
                tsr_buf_printf(out, ", %d, 0, 1},\n", p->len);
            } else {
                tsr_buf_puts(out, "\"\", 0, 0, 0},\n");
            }
        }
        tsr_buf_puts(out, "};\n\n");
    }
    for (int sh = 0; sh < nshapes; sh++)
        shape_fn(&g, sh);
    for (int i = 0; i < m->nops; i++)
        op_fn(&g, i);
    tsr_buf_printf(out, "/* Per op: printer, bytes (with TSR_TC_PSLACK), path events, labels at most. */\n"
                        "const struct tsr_tc_pop %s_tc_pops[] = {\n", lo);
    for (int i = 0; i < m->nops; i++) {
        struct bounds b = seq_bounds(&g, L->ops[i].part, L->ops[i].npart);
        tsr_buf_printf(out, "    {pp_%d, %" PRIu64 ", %" PRIu64 ", %" PRIu64 "},\n", i, b.len + TSR_TC_PSLACK, b.ev, b.lab);
    }
    tsr_buf_puts(out, m->nops ? "};\n" : "    {0},\n};\n");
    for (int i = 0; i < m->nformats; i++)
        if (m->formats[i].nslots)
            fmt_fn(&g, i, lo);
    tsr_buf_printf(out, "/* Per format: the bundle printer (NULL for a format without slots: the engine's loop). */\n"
                        "const struct tsr_tc_pfmt %s_tc_pfmts[] = {\n", lo);
    for (int i = 0; i < m->nformats; i++)
        tsr_buf_printf(out, m->formats[i].nslots ? "    {pf_%d},\n" : "    {NULL},\n", i);
    tsr_buf_puts(out, m->nformats ? "};\n" : "    {0},\n};\n");
    for (int t = 0; t < L->ntables; t++)
        free(g.tab[t].ok);
    free(g.tab);
    free(g.opnd_used);
    free(g.shape);
    free(g.shape_empty);
    free(g.opnd_inl);
    free(g.shape_inl);
    return g.rc;
}
