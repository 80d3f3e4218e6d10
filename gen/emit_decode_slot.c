/* The decoder's op selection for one slot of one format (gen_decode_slot, called by gen/emit_codec.c).
 *
 * The op of a slot is the first op in declaration order whose encode conditions hold.  Three ways, by what the
 * description's ops look like:
 * - a narrow key field (an opcode of at most KEY_MAX_BITS bits that most ops bind to a constant): a table indexed
 *   by the key gives the op whenever the key alone decides (decode_slot_table);
 * - where the key leaves the choice to other fields for many of its values: the conditions that remain undecided
 *   (evaluated with the key known, deduplicated; an op's FIELD == constant conditions joined into one masked
 *   compare of the word when they are too many) are computed without branches into a mask of bits, and a second
 *   table indexed by the key's row and the mask gives the op (cond_table): no switch, no branch on the word;
 * - otherwise a `switch` on a field every op binds, or the conditions tested in declaration order. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit_decode.h"
#include "emit_util.h"

/* Opens table `name` (printf format) of n elements of ctype: its member in tb->decl, `.name = {` in tb->init (the
 * caller writes the elements, then tab_close).  The tables are members of one struct, `dec`: the code reaches them
 * all from one base address (separate arrays each need their own `lea` in position-independent code). */
static void tab_open(struct gen_dectab *tb, const char *ctype, int n, const char *name, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, name);
    vsnprintf(buf, sizeof buf, name, ap);
    va_end(ap);
    tsr_buf_printf(&tb->decl, "    %s %s[%d];\n", ctype, buf, n);
    tsr_buf_printf(&tb->init, "    .%s = {", buf);
}

static void tab_close(struct gen_dectab *tb)
{
    tsr_buf_puts(&tb->init, "\n    },\n");
}

/* always[f] = true for each field condition c reads (when always is not NULL). */
static void mark_expr(const struct mdl_expr *e, bool *always)
{
    if (!e || !always)
        return;
    if (e->kind == MDL_E_FIELD && e->index >= 0)
        always[e->index] = true;
    for (int i = 0; i < e->nargs; i++)
        mark_expr(e->a[i], always);
}

static void mark_cond(const struct mdl_cond *c, bool *always)
{
    if (!always || !c)
        return;
    mark_expr(c->e, always);
    if (c->binding && c->field >= 0)
        always[c->field] = true;
    if (c->binding && c->field2 >= 0)
        always[c->field2] = true;
}

/* Appends the C test of one condition (1 if it holds) over v_<field> locals. */
static int cond_c(const struct mdl_model *m, const struct mdl_cond *c, const bool *avail, struct tsr_buf *out,
                  struct tsr_diag *d)
{
    struct gen_cx cx = {"v_%s", false, avail};
    if (c->binding && c->field >= 0 && c->field2 < 0) {
        const struct mdl_field *f = &m->fields[c->field];
        uint64_t v = c->val & (f->width >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << f->width) - 1);
        if (avail[c->field])
            tsr_buf_printf(out, "v_%s == ", f->name);
        else
            tsr_buf_puts(out, "0 == ");
        gen_u64(out, v);
        return 0;
    }
    if (c->binding && c->field >= 0 && c->field2 >= 0) {
        tsr_buf_printf(out, avail[c->field] ? "v_%s" : "0", m->fields[c->field].name);
        tsr_buf_printf(out, avail[c->field2] ? " == v_%s" : " == 0", m->fields[c->field2].name);
        return 0;
    }
    tsr_buf_puts(out, "0 != ");
    return gen_cexpr(m, c->e, &cx, out, d);
}

/* The op's conditions except number `skip` joined with &&; "1" if none. Returns 0 or -1. */
static int conds_c(const struct mdl_model *m, const struct mdl_op *op, int skip, const bool *avail,
                   struct tsr_buf *out, struct tsr_diag *d)
{
    int n = 0;
    for (int i = 0; i < op->ncond; i++) {
        if (i == skip)
            continue;
        tsr_buf_puts(out, n++ ? " && " : "");
        if (op->ncond > 2)
            tsr_buf_puts(out, "(");
        if (cond_c(m, &op->cond[i], avail, out, d) < 0)
            return -1;
        if (op->ncond > 2)
            tsr_buf_puts(out, ")");
    }
    return n;
}

static int key_cond(const struct mdl_op *op, int field)
{
    for (int i = 0; i < op->ncond; i++)
        if (op->cond[i].binding && op->cond[i].field >= 0 && op->cond[i].field2 < 0 &&
            (field < 0 || op->cond[i].field == field))
            return i;
    return -1;
}

void gen_decode_set_op(const struct mdl_model *m, int slot, int op, const char *ind, struct tsr_buf *out)
{
    tsr_buf_printf(out, "%sinst->op[", ind);
    gen_slot_enum(m, slot, out);
    tsr_buf_puts(out, "] = ");
    if (op < 0)
        tsr_buf_printf(out, "%s_NO_OP", gen_upper(m));
    else
        gen_op_enum(m, op, out);
    tsr_buf_puts(out, ";");
}

/* ---- table-driven op selection --------------------------------------------------------------------
 * When the ops of a slot bind a narrow key field (an opcode or signal field of a few bits), the decoder looks
 * the op up in a table indexed by the key: for each key value the generator evaluates every op's
 * conditions with the key known (three-valued: other fields unknown), so the table holds the op
 * whenever the key alone decides, and TC_SPECIAL when another field must be tested (then the
 * conditions of the remaining candidates are tested in declaration order, as before). */
#define KEY_MAX_BITS 10
#define TC_SPECIAL 0xfffe

/* Value of e with field `key` = v; unavailable fields read 0.  Returns 1 (known, *r) or 0. */
static int eval3(const struct mdl_model *m, const struct mdl_expr *e, int key, uint64_t v, const bool *avail,
                 uint64_t *r)
{
    uint64_t a, b, c;
    int ka, kb;
    switch (e->kind) {
    case MDL_E_INT:
    case MDL_E_FLOAT:
        *r = e->ival;
        return 1;
    case MDL_E_FIELD: {
        const struct mdl_field *f = &m->fields[e->index];
        if (!avail[e->index])
            a = 0;
        else if (e->index == key)
            a = v;
        else
            return 0;
        if (f->is_signed && f->width < 64) {
            uint64_t sign = (uint64_t)1 << (f->width - 1);
            a = (a ^ sign) - sign;
        }
        *r = a;
        return 1;
    }
    case MDL_E_UN:
        if (!eval3(m, e->a[0], key, v, avail, &a))
            return 0;
        *r = e->op == '-' ? 0 - a : e->op == '~' ? ~a : !a;
        return 1;
    case MDL_E_COND:
        if (!eval3(m, e->a[0], key, v, avail, &c)) {
            if (eval3(m, e->a[1], key, v, avail, &a) && eval3(m, e->a[2], key, v, avail, &b) && a == b) {
                *r = a;
                return 1;
            }
            return 0;
        }
        return eval3(m, e->a[c ? 1 : 2], key, v, avail, r);
    case MDL_E_CAST:
        if (!eval3(m, e->a[0], key, v, avail, &a))
            return 0;
        if (e->type == MDL_T_U32)
            *r = a & 0xffffffffu;
        else if (e->type == MDL_T_I32)
            *r = (uint64_t)(int64_t)(int32_t)(uint32_t)a;
        else if (e->type == MDL_T_BOOL)
            *r = a != 0;
        else
            return 0;
        return 1;
    case MDL_E_BIN:
        ka = eval3(m, e->a[0], key, v, avail, &a);
        kb = eval3(m, e->a[1], key, v, avail, &b);
        if (e->op == MDL_OP_LAND) {
            if ((ka && !a) || (kb && !b)) {
                *r = 0;
                return 1;
            }
            if (ka && kb) {
                *r = 1;
                return 1;
            }
            return 0;
        }
        if (e->op == MDL_OP_LOR) {
            if ((ka && a) || (kb && b)) {
                *r = 1;
                return 1;
            }
            if (ka && kb) {
                *r = 0;
                return 1;
            }
            return 0;
        }
        if (!ka || !kb)
            return 0;
        bool sg = gen_expr_signed(m, e->a[0]) || gen_expr_signed(m, e->a[1]);
        int64_t sa = (int64_t)a, sb = (int64_t)b;
        switch (e->op) {
        case '+': *r = a + b; return 1;
        case '-': *r = a - b; return 1;
        case '*': *r = a * b; return 1;
        case '&': *r = a & b; return 1;
        case '|': *r = a | b; return 1;
        case '^': *r = a ^ b; return 1;
        case '/':
            *r = !b ? 0 : sg ? ((sa == INT64_MIN && sb == -1) ? 0 : (uint64_t)(sa / sb)) : a / b;
            return 1;
        case '%':
            *r = !b ? 0 : sg ? (sb == -1 ? 0 : (uint64_t)(sa % sb)) : a % b;
            return 1;
        case MDL_OP_SHL: *r = a << (b & 63); return 1;
        case MDL_OP_SHR: *r = sg ? (uint64_t)(sa >> (b & 63)) : a >> (b & 63); return 1;
        case MDL_OP_EQ: *r = a == b; return 1;
        case MDL_OP_NE: *r = a != b; return 1;
        case MDL_OP_LT: *r = sg ? sa < sb : a < b; return 1;
        case MDL_OP_LE: *r = sg ? sa <= sb : a <= b; return 1;
        case MDL_OP_GT: *r = sg ? sa > sb : a > b; return 1;
        case MDL_OP_GE: *r = sg ? sa >= sb : a >= b; return 1;
        }
        return 0;
    default:
        return 0;
    }
}

enum { T_FALSE, T_TRUE, T_UNKNOWN };

/* Does the op's encode condition list hold when field key = v? */
static int op_holds(const struct mdl_model *m, const struct mdl_op *op, int key, uint64_t v, const bool *avail)
{
    int st = T_TRUE;
    for (int i = 0; i < op->ncond; i++) {
        const struct mdl_cond *c = &op->cond[i];
        uint64_t r;
        if (!c->e || !eval3(m, c->e, key, v, avail, &r)) {
            st = T_UNKNOWN;
            continue;
        }
        if (!r)
            return T_FALSE;
    }
    return st;
}

/* The key field for slot s: the field most of its ops bind to a constant (available, narrow). */
static int slot_key(const struct mdl_model *m, const struct mdl_slot *sl, const bool *avail)
{
    int best = -1, bestn = 0;
    for (int f = 0; f < m->nfields; f++) {
        if (!avail[f] || m->fields[f].width > KEY_MAX_BITS)
            continue;
        int n = 0;
        for (int i = 0; i < sl->nops; i++)
            n += key_cond(&m->ops[sl->ops[i]], f) >= 0;
        if (n > bestn) {
            best = f;
            bestn = n;
        }
    }
    return best;
}

/* ---- op selection by the key and a mask of conditions ---------------------------------------------------
 * Where the key leaves the op to other fields for RES_MIN_ROWS values or more (a switch on it would be a jump
 * table indexed by the word: a mispredicted indirect jump on words of mixed ops), the conditions that stay
 * undecided once the key is known (T_UNKNOWN under eval3; the same C text is one condition) are all evaluated,
 * without branches, into bits of a mask c, and a table indexed by the key value's row and c gives the first op
 * whose conditions hold: a known condition by its value, an undecided one by its bit.  Up to RES_MAX_CONDS
 * conditions and RES_MAX_ENTRIES entries; beyond that, or with fewer rows (a switch of a few cases is a few
 * compares), the switch of decode_slot_table is kept.
 * The direct form: one table indexed by the key and c for every key value (the entries of a key value that
 * decides alone are its op whatever c), no branch at all: taken when every key value needs the conditions, and
 * when the index is at most DIRECT_MAX_BITS bits, each condition comes from a field's table (one load) and at
 * least 1 key value in DIRECT_MIN_SHARE needs the conditions.  The test on the key's row (or the switch) is then
 * taken for that share of words of mixed ops, and mispredicted about as often, where the direct form costs a few
 * loads on every word; with rarer rows the predictor is right nearly always and the loads would cost more (keys
 * with 2 of 8, 31 of 32 or 15 of 16 such values take the direct form; one with 1 of 32 keeps its test). */
#define RES_MIN_ROWS 4
#define RES_MAX_CONDS 6
#define RES_MAX_ENTRIES 1024
#define DIRECT_MAX_BITS 12
#define DIRECT_MIN_SHARE 8
#define ROW_BASE 0x8000u   /* first-table entry of a row: ROW_BASE + row (ops are below it, 0xffff no op) */

static int cond_state(const struct mdl_model *m, const struct mdl_cond *c, int key, uint64_t v, const bool *avail)
{
    uint64_t r;
    if (!c->e || !eval3(m, c->e, key, v, avail, &r))
        return T_UNKNOWN;
    return r ? T_TRUE : T_FALSE;
}

/* A binding FIELD == constant on a declared field of the word's own bits (not derived): join_c tests it. */
static bool plain_binding(const struct mdl_model *m, const struct mdl_cond *c, const bool *avail)
{
    return c->binding && c->field >= 0 && c->field2 < 0 && avail[c->field] && !m->fields[c->field].derived;
}

/* Appends the C test that the n plain bindings conds[] all hold: one masked compare per 64-bit chunk of the word
 * that holds their bits, `(unsigned)((d<k> & M) == V) & ...` (M: the fields' bits; V: the constants' bits, an
 * inverted piece's complemented), no branch and no field extracted. */
static void join_c(const struct mdl_model *m, const struct mdl_cond *const *conds, int n, struct tsr_buf *out)
{
    int nch = (m->word_bits + 63) / 64;
    uint64_t *mk = calloc((size_t)nch + 1, sizeof *mk), *vk = calloc((size_t)nch + 1, sizeof *vk);
    if (!mk || !vk)
        abort();
    for (int i = 0; i < n; i++) {
        const struct mdl_field *f = &m->fields[conds[i]->field];
        uint64_t val = conds[i]->val & (f->width >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << f->width) - 1);
        struct gen_piece pc[130];
        int np = gen_pieces(f, pc, 130);
        for (int j = 0; j < np; j++) {
            int w = pc[j].hi - pc[j].lo + 1, k = pc[j].lo / 64, sh = pc[j].lo % 64;
            uint64_t pm = w >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1, pv = (val >> pc[j].off) & pm;
            if (pc[j].inverted)
                pv = ~pv & pm;
            mk[k] |= pm << sh;
            vk[k] |= pv << sh;
        }
    }
    for (int k = 0, t = 0; k < nch; k++) {
        if (!mk[k])
            continue;
        tsr_buf_printf(out, "%s(unsigned)((d%d & ", t++ ? " & " : "", k);
        gen_u64(out, mk[k]);
        tsr_buf_puts(out, ") == ");
        gen_u64(out, vk[k]);
        tsr_buf_puts(out, ")");
    }
    free(mk);
    free(vk);
}

/* The mask bits op needs when key = v (*fail: a condition is false); the undecided conditions' C text is added to
 * res, the condition to rcond (at most RES_MAX_CONDS: returns -2 beyond).  With join, an op's undecided plain
 * bindings, when 2 or more, are one condition (join_c; rcond NULL).  Returns 0, -1 (diagnostic) or -2. */
static int op_needs(const struct mdl_model *m, const struct mdl_op *op, int key, uint64_t v, const bool *avail,
                    bool join, char **res, const struct mdl_cond **rcond, int *nres, uint32_t *need, bool *fail,
                    struct tsr_diag *d)
{
    *need = 0;
    *fail = false;
    for (int i = 0; i < op->ncond && !*fail; i++)
        *fail = cond_state(m, &op->cond[i], key, v, avail) == T_FALSE;
    const struct mdl_cond **pb = calloc((size_t)op->ncond + 1, sizeof *pb);
    int npb = 0;
    if (!pb)
        abort();
    for (int i = 0; i < op->ncond && !*fail && join; i++)
        if (cond_state(m, &op->cond[i], key, v, avail) == T_UNKNOWN && plain_binding(m, &op->cond[i], avail))
            pb[npb++] = &op->cond[i];
    join = npb >= 2;
    for (int i = -1; i < op->ncond && !*fail; i++) {
        if (i < 0 ? !join : cond_state(m, &op->cond[i], key, v, avail) != T_UNKNOWN ||
                                (join && plain_binding(m, &op->cond[i], avail)))
            continue;
        struct tsr_buf c = {0};
        if (i < 0)
            join_c(m, pb, npb, &c);
        else if (cond_c(m, &op->cond[i], avail, &c, d) < 0) {
            free(pb);
            tsr_buf_free(&c);
            return -1;
        }
        int k = 0;
        while (k < *nres && strcmp(res[k], c.data) != 0)
            k++;
        if (k == *nres) {
            if (*nres == RES_MAX_CONDS) {
                tsr_buf_free(&c);
                free(pb);
                return -2;
            }
            rcond[*nres] = i < 0 ? NULL : &op->cond[i];
            res[(*nres)++] = c.data;
        } else {
            tsr_buf_free(&c);
        }
        *need |= (uint32_t)1 << k;
    }
    free(pb);
    return 0;
}

/* Whether e reads no field but *f (set to the one it reads, if any). */
static bool one_field(const struct mdl_expr *e, int *f)
{
    if (!e)
        return true;
    if (e->kind == MDL_E_FIELD) {
        if (*f >= 0 && *f != e->index)
            return false;
        *f = e->index;
    }
    for (int i = 0; i < e->nargs; i++)
        if (!one_field(e->a[i], f))
            return false;
    return true;
}

/* The field whose value gives condition c through a table (a uint8_t per value, FTAB_MAX_BITS bits at most): the
 * one field c reads, declared, eval3 deciding c for each of its values; else -1 (c is computed from its C text). */
#define FTAB_MAX_BITS 8
static int cond_field(const struct mdl_model *m, const struct mdl_cond *c, const bool *avail)
{
    int f = -1;
    if (!c || !c->e || !one_field(c->e, &f) || f < 0 || !avail[f] || m->fields[f].width > FTAB_MAX_BITS)
        return -1;
    for (uint64_t v = 0; v < (uint64_t)1 << m->fields[f].width; v++) {
        uint64_t r;
        if (!eval3(m, c->e, f, v, avail, &r))
            return -1;
    }
    return f;
}

/* Emits slot s by its key (tab: decode_slot_table's first table, n entries) and a mask of conditions, when that
 * applies (above).  Returns 1 (emitted), 0 (not applicable: nothing emitted) or -1. */
static int cond_table(const struct mdl_model *m, int fi, int s, int key, const bool *avail, const uint16_t *tab,
                      int n, struct gen_dectab *pre, struct tsr_buf *out, bool *always, struct tsr_diag *d)
{
    const struct mdl_slot *sl = &m->slots[s];
    int nrows = 0;
    for (int v = 0; v < n; v++)
        nrows += tab[v] == TC_SPECIAL;
    bool share = nrows > 0 && nrows * DIRECT_MIN_SHARE >= n;   /* enough rows for the direct form */
    if ((nrows < RES_MIN_ROWS && !share) || m->nops >= (int)ROW_BASE || sl->nops == 0)
        return 0;
    char *res[RES_MAX_CONDS];
    const struct mdl_cond *rcond[RES_MAX_CONDS];
    int nres = 0, rc = 1;
    uint32_t *need = calloc((size_t)nrows * (size_t)sl->nops, sizeof *need);
    bool *fail = calloc((size_t)nrows * (size_t)sl->nops, sizeof *fail);
    if (!need || !fail)
        abort();
    /* too many conditions: again with each op's plain bindings joined into one (one masked compare) */
    for (int join = 0; join < 2; join++) {
        for (int k = 0; k < nres; k++)
            free(res[k]);
        nres = 0;
        rc = 1;
        for (int v = 0, r = 0; v < n && rc == 1; v++) {
            if (tab[v] != TC_SPECIAL)
                continue;
            bool shadow = false;   /* an earlier op holds whatever the other fields: the rest are never picked */
            for (int i = 0; i < sl->nops && rc == 1; i++) {
                size_t at = (size_t)r * (size_t)sl->nops + (size_t)i;
                fail[at] = shadow;
                need[at] = 0;
                if (shadow)
                    continue;
                int e = op_needs(m, &m->ops[sl->ops[i]], key, (uint64_t)v, avail, join, res, rcond, &nres, &need[at],
                                 &fail[at], d);
                rc = e == -1 ? -1 : e == -2 ? 0 : 1;
                shadow = !fail[at] && !need[at];
            }
            r++;
        }
        if (rc != 0)   /* done (1) or a diagnostic (-1) */
            break;
    }
    /* the direct form (above), else the rows' table (enough rows, not too many entries), else the switch; a joined
     * condition (rcond NULL) is a few instructions, as a field's table */
    bool tabled = share && ((size_t)n << nres) <= (size_t)1 << DIRECT_MAX_BITS;
    for (int k = 0; k < nres && tabled; k++)
        tabled = !rcond[k] || cond_field(m, rcond[k], avail) >= 0;
    bool rows = nrows >= RES_MIN_ROWS && ((size_t)nrows << nres) <= RES_MAX_ENTRIES;
    bool direct = tabled || (rows && nrows == n);
    if (!direct && !rows && rc == 1)
        rc = 0;
    if (rc == 1) {
        const char *fn = m->formats[fi].name, *kn = m->fields[key].name;
        if (!direct) {
            tsr_buf_printf(&pre->init, "    /* format %s, slot %s: op by %s (0xffff no op, 0x%x + row: dec.%s_%s_c) */\n",
                           fn, sl->name, kn, ROW_BASE, fn, sl->name);
            tab_open(pre, "uint16_t", n, "%s_%s", fn, sl->name);
            for (int v = 0, r = 0; v < n; v++)
                tsr_buf_printf(&pre->init, "%s%s%u,", v % 16 ? "" : "\n       ", " ",
                               tab[v] == TC_SPECIAL ? ROW_BASE + (unsigned)r++ : (unsigned)tab[v]);
            tab_close(pre);
        }
        tsr_buf_printf(&pre->init, "    /* format %s, slot %s: op by %s%s and the conditions (bit i: condition i holds)",
                       fn, sl->name, direct ? "" : "the row of ", kn);
        for (int k = 0; k < nres; k++)
            tsr_buf_printf(&pre->init, "%s %d: %s", k ? ";" : ":", k, res[k]);
        tsr_buf_puts(&pre->init, " (0xffff no op) */\n");
        tab_open(pre, "uint16_t", (direct ? n : nrows) << nres, "%s_%s%s", fn, sl->name, direct ? "" : "_c");
        for (int v = 0, r = 0, k = 0; v < n; v++) {
            if (tab[v] != TC_SPECIAL) {   /* the key decides: in the direct table only */
                for (uint32_t c = 0; direct && c < (uint32_t)1 << nres; c++, k++)
                    tsr_buf_printf(&pre->init, "%s%s%u,", k % 16 ? "" : "\n       ", " ", (unsigned)tab[v]);
                continue;
            }
            for (uint32_t c = 0; c < (uint32_t)1 << nres; c++, k++) {
                unsigned o = 0xffff;
                for (int i = 0; i < sl->nops; i++) {
                    size_t at = (size_t)r * (size_t)sl->nops + (size_t)i;
                    if (!fail[at] && (need[at] & ~c) == 0) {
                        o = (unsigned)sl->ops[i];
                        break;
                    }
                }
                tsr_buf_printf(&pre->init, "%s%s%u,", k % 16 ? "" : "\n       ", " ", o);
            }
            r++;
        }
        tab_close(pre);
        /* the mask: a table by field for the conditions of one narrow field (cond_field), C text for the others */
        int grp[RES_MAX_CONDS];
        bool later[RES_MAX_CONDS];   /* in the table of an earlier condition's field */
        for (int k = 0; k < nres; k++) {
            grp[k] = cond_field(m, rcond[k], avail);
            later[k] = false;
            for (int j = 0; j < k; j++)
                later[k] = later[k] || (grp[k] >= 0 && grp[j] == grp[k]);
            mark_cond(rcond[k], always);
        }
        struct tsr_buf c = {0};
        tsr_buf_puts(&c, nres ? "" : "0u");
        for (int k = 0, nt = 0; k < nres; k++) {
            if (later[k])
                continue;
            if (nt++)
                tsr_buf_printf(&c, " |\n%*s", direct ? 31 : 35, "");
            if (grp[k] < 0) {
                tsr_buf_printf(&c, k ? "(unsigned)(%s) << %d" : "(unsigned)(%s)", res[k], k);
                continue;
            }
            const char *gn = m->fields[grp[k]].name;
            int nv = 1 << m->fields[grp[k]].width;
            tsr_buf_printf(&pre->init, "    /* format %s, slot %s: the bits of dec.%s_%s%s's conditions on %s, by its value */\n",
                           fn, sl->name, fn, sl->name, direct ? "" : "_c", gn);
            tab_open(pre, "uint8_t", nv, "%s_%s_by_%s", fn, sl->name, gn);
            for (int v = 0; v < nv; v++) {
                unsigned bits = 0;
                for (int j = k; j < nres; j++) {
                    uint64_t r = 0;
                    if (grp[j] == grp[k] && eval3(m, rcond[j]->e, grp[k], (uint64_t)v, avail, &r) && r)
                        bits |= 1u << j;
                }
                tsr_buf_printf(&pre->init, "%s%s%u,", v % 16 ? "" : "\n       ", " ", bits);
            }
            tab_close(pre);
            tsr_buf_printf(&c, "dec.%s_%s_by_%s[v_%s]", fn, sl->name, gn, gn);
        }
        tsr_buf_printf(out, "        /* slot %s: by %s and %d condition%s */\n        {\n", sl->name, kn, nres,
                       nres == 1 ? "" : "s");
        if (direct) {
            tsr_buf_printf(out, "            const unsigned c = %s;\n            inst->op[", c.data);
            gen_slot_enum(m, s, out);
            tsr_buf_printf(out, "] = dec.%s_%s[v_%s << %d | c];\n        }\n", fn, sl->name, kn, nres);
        } else {
            tsr_buf_printf(out, "            uint16_t o = dec.%s_%s[v_%s];\n"
                                "            if ((uint16_t)(o - 0x%xu) < 0x7fffu) {\n"
                                "                const unsigned c = %s;\n"
                                "                o = dec.%s_%s_c[(unsigned)(o - 0x%xu) << %d | c];\n            }\n"
                                "            inst->op[", fn, sl->name, kn, ROW_BASE, c.data, fn, sl->name, ROW_BASE, nres);
            gen_slot_enum(m, s, out);
            tsr_buf_puts(out, "] = o;\n        }\n");
        }
        tsr_buf_free(&c);
    }
    for (int k = 0; k < nres; k++)
        free(res[k]);
    free(need);
    free(fail);
    return rc;
}

static int decode_slot_table(const struct mdl_model *m, int fi, int s, int key, const bool *avail,
                             struct gen_dectab *pre, struct tsr_buf *out, bool *always, struct tsr_diag *d)
{
    if (always)
        always[key] = true;
    const struct mdl_slot *sl = &m->slots[s];
    int n = 1 << m->fields[key].width;
    uint16_t *tab = calloc((size_t)n, sizeof *tab);
    if (!tab)
        abort();
    int nspecial = 0;
    for (int v = 0; v < n; v++) {
        tab[v] = 0xffff;
        for (int i = 0; i < sl->nops; i++) {
            int st = op_holds(m, &m->ops[sl->ops[i]], key, (uint64_t)v, avail);
            if (st == T_FALSE)
                continue;
            tab[v] = st == T_TRUE ? (uint16_t)sl->ops[i] : TC_SPECIAL;
            nspecial += st != T_TRUE;
            break;
        }
    }
    int ct = cond_table(m, fi, s, key, avail, tab, n, pre, out, always, d);
    if (ct != 0) {
        free(tab);
        return ct < 0 ? -1 : 0;
    }
    tsr_buf_printf(&pre->init, "    /* format %s, slot %s: op by %s (0xffff no op, 0x%x: other fields decide) */\n",
                   m->formats[fi].name, sl->name, m->fields[key].name, TC_SPECIAL);
    tab_open(pre, "uint16_t", n, "%s_%s", m->formats[fi].name, sl->name);
    for (int v = 0; v < n; v++)
        tsr_buf_printf(&pre->init, "%s%s%u,", v % 16 ? "" : "\n       ", " ", (unsigned)tab[v]);
    tab_close(pre);
    tsr_buf_printf(out, "        /* slot %s: by %s */\n        {\n            uint16_t o = dec.%s_%s[v_%s];\n",
                   sl->name, m->fields[key].name, m->formats[fi].name, sl->name, m->fields[key].name);
    if (nspecial) {
        tsr_buf_printf(out, "            if (o == 0x%x) {\n                switch (v_%s) {\n", TC_SPECIAL,
                       m->fields[key].name);
        for (int v = 0; v < n; v++) {
            if (tab[v] != TC_SPECIAL)
                continue;
            tsr_buf_printf(out, "                case %d:\n", v);
            bool closed = false;
            int ncase = 0;
            for (int i = 0; i < sl->nops && !closed; i++) {
                const struct mdl_op *op = &m->ops[sl->ops[i]];
                int st = op_holds(m, op, key, (uint64_t)v, avail);
                if (st == T_FALSE)
                    continue;
                if (st == T_TRUE) {
                    tsr_buf_puts(out, ncase ? "                    else\n    " : "");
                    tsr_buf_puts(out, "                    o = ");
                    gen_op_enum(m, sl->ops[i], out);
                    tsr_buf_puts(out, ";\n");
                    closed = true;
                    break;
                }
                struct tsr_buf c = {0};
                if (conds_c(m, op, -1, avail, &c, d) < 0) {
                    tsr_buf_free(&c);
                    free(tab);
                    return -1;
                }
                tsr_buf_printf(out, "                    %sif (%s)\n                        o = ", ncase ? "else " : "",
                               c.data ? c.data : "1");
                gen_op_enum(m, sl->ops[i], out);
                tsr_buf_puts(out, ";\n");
                tsr_buf_free(&c);
                ncase++;
            }
            if (!closed)
                tsr_buf_printf(out, "                    else\n                        o = %s_NO_OP;\n", gen_upper(m));
            tsr_buf_puts(out, "                    break;\n");
        }
        tsr_buf_puts(out, "                }\n            }\n");
    }
    tsr_buf_puts(out, "            inst->op[");
    gen_slot_enum(m, s, out);
    tsr_buf_puts(out, "] = o;\n        }\n");
    free(tab);
    return 0;
}

int gen_decode_slot(const struct mdl_model *m, int fi, int s, const bool *avail, struct gen_dectab *pre,
                    struct tsr_buf *out, bool *always, struct tsr_diag *d)
{
    const struct mdl_slot *sl = &m->slots[s];
    int tkey = slot_key(m, sl, avail);
    if (tkey >= 0)
        return decode_slot_table(m, fi, s, tkey, avail, pre, out, always, d);
    for (int i = 0; i < sl->nops && always; i++)   /* a switch or tests in order: any condition may be read */
        for (int k = 0; k < m->ops[sl->ops[i]].ncond; k++)
            mark_cond(&m->ops[sl->ops[i]].cond[k], always);
    tsr_buf_printf(out, "        /* slot %s */\n", sl->name);
    /* a key field every op binds to a constant */
    int key = -1;
    if (sl->nops > 0) {
        int k0 = key_cond(&m->ops[sl->ops[0]], -1);
        if (k0 >= 0) {
            key = m->ops[sl->ops[0]].cond[k0].field;
            for (int i = 0; i < sl->nops && key >= 0; i++)
                if (key_cond(&m->ops[sl->ops[i]], key) < 0)
                    key = -1;
            if (key >= 0 && !avail[key])
                key = -1;
        }
    }
    if (key < 0) {
        int n = 0;
        bool closed = false;
        for (int i = 0; i < sl->nops && !closed; i++) {
            const struct mdl_op *op = &m->ops[sl->ops[i]];
            struct tsr_buf c = {0};
            int nc = conds_c(m, op, -1, avail, &c, d);
            if (nc < 0) {
                tsr_buf_free(&c);
                return -1;
            }
            if (nc == 0) {
                tsr_buf_puts(out, n ? "        else\n" : "");
                gen_decode_set_op(m, s, sl->ops[i], n ? "            " : "        ", out);
                tsr_buf_puts(out, "\n");
                closed = true;
            } else {
                tsr_buf_printf(out, "        %sif (%s)\n", n ? "else " : "", c.data);
                gen_decode_set_op(m, s, sl->ops[i], "            ", out);
                tsr_buf_puts(out, "\n");
            }
            n++;
            tsr_buf_free(&c);
        }
        if (!closed) {
            tsr_buf_puts(out, n ? "        else\n" : "");
            gen_decode_set_op(m, s, -1, n ? "            " : "        ", out);
            tsr_buf_puts(out, "\n");
        }
        return 0;
    }
    uint64_t kmask = m->fields[key].width >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << m->fields[key].width) - 1;
    tsr_buf_printf(out, "        switch (v_%s) {\n", m->fields[key].name);
    bool *done = calloc((size_t)sl->nops + 1, 1);
    if (!done)
        abort();
    for (int i = 0; i < sl->nops; i++) {
        if (done[i])
            continue;
        const struct mdl_op *op0 = &m->ops[sl->ops[i]];
        uint64_t val = op0->cond[key_cond(op0, key)].val & kmask;
        tsr_buf_puts(out, "        case ");
        gen_u64(out, val);
        tsr_buf_puts(out, ":\n");
        bool closed = false;
        for (int j = i; j < sl->nops; j++) {
            const struct mdl_op *op = &m->ops[sl->ops[j]];
            int kc = key_cond(op, key);
            if (done[j] || (op->cond[kc].val & kmask) != val)
                continue;
            done[j] = true;
            if (closed)
                continue;   /* shadowed by an unconditional op of the same value */
            struct tsr_buf c = {0};
            int nc = conds_c(m, op, kc, avail, &c, d);
            if (nc < 0) {
                tsr_buf_free(&c);
                free(done);
                return -1;
            }
            if (nc == 0) {
                gen_decode_set_op(m, s, sl->ops[j], "            ", out);
                tsr_buf_puts(out, "\n            break;\n");
                closed = true;
            } else {
                tsr_buf_printf(out, "            if (%s) {\n", c.data);
                gen_decode_set_op(m, s, sl->ops[j], "                ", out);
                tsr_buf_puts(out, "\n                break;\n            }\n");
            }
            tsr_buf_free(&c);
        }
        if (!closed) {
            gen_decode_set_op(m, s, -1, "            ", out);
            tsr_buf_puts(out, "\n            break;\n");
        }
    }
    free(done);
    tsr_buf_puts(out, "        default:\n");
    gen_decode_set_op(m, s, -1, "            ", out);
    tsr_buf_puts(out, "\n            break;\n        }\n");
    return 0;
}
