/* gen_encode and gen_decode: <t>_encode.c and <t>_decode.c, straight-line C per format.
 *
 * The word is handled as 64-bit chunks d0, d1, ... (chunk k = word bits 64k..64k+63, built from
 * w[2k] and w[2k+1]).  Each field is extracted or inserted piece by piece (pieces never cross a
 * chunk; inverted pieces are XORed).  The decoder evaluates the format selectors in declaration
 * order over the selector fields, then picks each slot's op: the first op in declaration order whose
 * encode conditions hold, with a `switch` on the field every op of the slot binds to a constant
 * (when there is one) so only the ops of that value are tested.  Ignore-range bits are copied into
 * inst->ignored in place, so decode then encode reproduces every bit of any word. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "emit_util.h"
#include "gen.h"

static int nchunks(const struct mdl_model *m)
{
    return (m->word_bits + 63) / 64;
}

static void load_chunks(const struct mdl_model *m, struct tsr_buf *out, bool constant)
{
    int nw = m->word_bits / 32;
    for (int k = 0; k < nchunks(m); k++) {
        if (2 * k + 1 < nw)
            tsr_buf_printf(out, "    %suint64_t d%d = (uint64_t)w[%d] | (uint64_t)w[%d] << 32;\n",
                           constant ? "const " : "", k, 2 * k, 2 * k + 1);
        else
            tsr_buf_printf(out, "    %suint64_t d%d = w[%d];\n", constant ? "const " : "", k, 2 * k);
    }
}

/* Ignore mask of chunk k of format f. */
static uint64_t ignore_mask(const struct mdl_format *f, int k)
{
    uint64_t mk = 0;
    for (int i = 0; i < f->nignore; i++)
        for (int b = f->ignore[i].lo; b <= f->ignore[i].hi; b++)
            if (b / 64 == k)
                mk |= (uint64_t)1 << (b % 64);
    return mk;
}

static void field_uses(const struct mdl_expr *e, bool *used)
{
    if (!e)
        return;
    if (e->kind == MDL_E_FIELD)
        used[e->index] = true;
    for (int i = 0; i < e->nargs; i++)
        field_uses(e->a[i], used);
}

/* (addition) X4: whether every bit of derived field i is a bit of one of format F's fields. */
static bool derived_in_format(const struct mdl_model *m, const struct mdl_format *F, int i)
{
    const struct mdl_field *d = &m->fields[i];
    for (int p = 0; p < d->npieces; p++)
        for (int b = d->pieces[p].lo; b <= d->pieces[p].hi; b++) {
            bool in = false;
            for (int j = 0; j < F->nfields && !in; j++) {
                const struct mdl_field *g = &m->fields[F->fields[j]];
                for (int q = 0; q < g->npieces && !in; q++)
                    in = b >= g->pieces[q].lo && b <= g->pieces[q].hi;
            }
            if (!in)
                return false;
        }
    return true;
}

/* ---- encode ------------------------------------------------------------------------------------ */

int gen_encode(const struct mdl_model *m, struct tsr_buf *out, struct tsr_diag *d)
{
    (void)d;
    const char *lo = gen_lower(m);
    int nw = m->word_bits / 32;
    gen_banner(m, out);
    tsr_buf_printf(out, "#include \"%s.h\"\n\n", m->name);
    tsr_buf_printf(out, "int %s_encode(const struct %s_inst *inst, uint32_t *w)\n{\n", lo, lo);
    for (int k = 0; k < nchunks(m); k++)
        tsr_buf_printf(out, "    uint64_t d%d = 0;\n", k);
    tsr_buf_puts(out, "    switch (inst->format) {\n");
    for (int fi = 0; fi < m->nformats; fi++) {
        const struct mdl_format *F = &m->formats[fi];
        tsr_buf_puts(out, "    case ");
        gen_format_enum(m, fi, out);
        tsr_buf_puts(out, ":\n");
        for (int i = 0; i < F->nfields; i++) {
            int fd = F->fields[i];
            struct gen_piece pc[130];
            int n = gen_pieces(&m->fields[fd], pc, 130);
            for (int j = 0; j < n; j++) {
                int w = pc[j].hi - pc[j].lo + 1, sh = pc[j].lo % 64;
                uint64_t mk = w >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1;
                tsr_buf_printf(out, "        d%d |= ", pc[j].lo / 64);
                if (pc[j].inverted)
                    tsr_buf_puts(out, "(");
                tsr_buf_puts(out, pc[j].off ? "((inst->f[" : "(inst->f[");
                gen_field_enum(m, fd, out);
                tsr_buf_puts(out, "]");
                if (pc[j].off)
                    tsr_buf_printf(out, " >> %d)", pc[j].off);
                if (w < 64) {
                    tsr_buf_puts(out, " & ");
                    gen_u64(out, mk);
                }
                tsr_buf_puts(out, ")");
                if (pc[j].inverted) {
                    tsr_buf_puts(out, " ^ ");
                    gen_u64(out, mk);
                    tsr_buf_puts(out, ")");
                }
                if (sh)
                    tsr_buf_printf(out, " << %d", sh);
                tsr_buf_printf(out, ";   /* %s */\n", m->fields[fd].name);
            }
        }
        for (int k = 0; k < nchunks(m); k++) {
            uint64_t mk = ignore_mask(F, k);
            if (!mk)
                continue;
            if (2 * k + 1 < nw)
                tsr_buf_printf(out, "        d%d |= ((uint64_t)inst->ignored[%d] | (uint64_t)inst->ignored[%d] << 32) & ",
                               k, 2 * k, 2 * k + 1);
            else
                tsr_buf_printf(out, "        d%d |= (uint64_t)inst->ignored[%d] & ", k, 2 * k);
            gen_u64(out, mk);
            tsr_buf_puts(out, ";   /* ignored bits */\n");
        }
        tsr_buf_puts(out, "        break;\n");
    }
    tsr_buf_printf(out, "    default:   /* no format: the raw word */\n"
                        "        for (int i = 0; i < %d; i++)\n"
                        "            w[i] = inst->ignored[i];\n"
                        "        return 0;\n    }\n", nw);
    for (int i = 0; i < nw; i++)
        tsr_buf_printf(out, i % 2 ? "    w[%d] = (uint32_t)(d%d >> 32);\n" : "    w[%d] = (uint32_t)d%d;\n", i, i / 2);
    tsr_buf_puts(out, "    return 0;\n}\n");
    return 0;
}

/* ---- decode ------------------------------------------------------------------------------------ */

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

static void set_op(const struct mdl_model *m, int slot, int op, const char *ind, struct tsr_buf *out)
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

static int decode_slot_table(const struct mdl_model *m, int fi, int s, int key, const bool *avail,
                             struct tsr_buf *pre, struct tsr_buf *out, struct tsr_diag *d)
{
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
    tsr_buf_printf(pre, "/* format %s, slot %s: op by %s (0xffff no op, 0x%x: other fields decide) */\n"
                        "static const uint16_t dec_%s_%s[%d] = {", m->formats[fi].name, sl->name,
                   m->fields[key].name, TC_SPECIAL, m->formats[fi].name, sl->name, n);
    for (int v = 0; v < n; v++)
        tsr_buf_printf(pre, "%s%s%u,", v % 16 ? "" : "\n   ", " ", (unsigned)tab[v]);
    tsr_buf_puts(pre, "\n};\n\n");
    tsr_buf_printf(out, "        /* slot %s: by %s */\n        {\n            uint16_t o = dec_%s_%s[v_%s];\n",
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

static int decode_slot(const struct mdl_model *m, int fi, int s, const bool *avail, struct tsr_buf *pre,
                       struct tsr_buf *out, struct tsr_diag *d)
{
    const struct mdl_slot *sl = &m->slots[s];
    int tkey = slot_key(m, sl, avail);
    if (tkey >= 0)
        return decode_slot_table(m, fi, s, tkey, avail, pre, out, d);
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
                set_op(m, s, sl->ops[i], n ? "            " : "        ", out);
                tsr_buf_puts(out, "\n");
                closed = true;
            } else {
                tsr_buf_printf(out, "        %sif (%s)\n", n ? "else " : "", c.data);
                set_op(m, s, sl->ops[i], "            ", out);
                tsr_buf_puts(out, "\n");
            }
            n++;
            tsr_buf_free(&c);
        }
        if (!closed) {
            tsr_buf_puts(out, n ? "        else\n" : "");
            set_op(m, s, -1, n ? "            " : "        ", out);
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
                set_op(m, s, sl->ops[j], "            ", out);
                tsr_buf_puts(out, "\n            break;\n");
                closed = true;
            } else {
                tsr_buf_printf(out, "            if (%s) {\n", c.data);
                set_op(m, s, sl->ops[j], "                ", out);
                tsr_buf_puts(out, "\n                break;\n            }\n");
            }
            tsr_buf_free(&c);
        }
        if (!closed) {
            set_op(m, s, -1, "            ", out);
            tsr_buf_puts(out, "\n            break;\n");
        }
    }
    free(done);
    tsr_buf_puts(out, "        default:\n");
    set_op(m, s, -1, "            ", out);
    tsr_buf_puts(out, "\n            break;\n        }\n");
    return 0;
}

static int decode_body(const struct mdl_model *m, bool next, struct tsr_buf *pre, struct tsr_buf *out,
                       struct tsr_diag *d);

/* The start of a decoding function: the chunks, and v_<field> of every field a format selector reads (marked
 * in sel). */
static void selector_fields(const struct mdl_model *m, bool *sel, struct tsr_buf *out)
{
    load_chunks(m, out, true);
    for (int fi = 0; fi < m->nformats; fi++)
        field_uses(m->formats[fi].selector, sel);
    for (int i = 0; i < m->nfields; i++) {
        if (!sel[i])
            continue;
        tsr_buf_printf(out, "    const uint64_t v_%s = ", m->fields[i].name);
        gen_extract(m, i, out);
        tsr_buf_puts(out, ";\n");
    }
    /* A chunk may be read by no selector field (one format without a selector; a 128-bit word's half without
     * selector bits) and, in decode_format, by nothing else: -Wunused-variable otherwise.  One place for every
     * caller and every path after it. */
    for (int k = 0; k < nchunks(m); k++)
        tsr_buf_printf(out, "    (void)d%d;\n", k);
}

/* The format table: when the selector fields (sel) are at most FSEL_MAX_BITS bits together, the format each
 * combination of their codes picks (the first whose selector holds, as the tests in order would; nformats:
 * none) is decided here, and decode_format looks it up instead of testing the selectors one by one (no branch
 * on words of mixed formats).  decode and decode_next keep the tests in order: for a few formats with disjoint
 * selectors a switch on the table's entry, or the most frequent format tested first, cost as many
 * instructions (the compiler extracts that format's fields before the test).  The key is the fields' codes
 * concatenated (the first selector field in the high bits); a selector is evaluated by the description's own
 * evaluator (mdl_ceval, as the checks do).  Returns the table's size (1 << bits) and the table in *tab, or 0
 * when the fields are wider or a selector cannot be evaluated here (then the tests in order are emitted). */
#define FSEL_MAX_BITS 10
static int fsel_size(const struct mdl_model *m, const bool *sel, uint8_t **tab)
{
    int bits = 0;
    for (int i = 0; i < m->nfields; i++)
        bits += sel[i] ? m->fields[i].width : 0;
    if (bits > FSEL_MAX_BITS || m->nformats >= 255)
        return 0;
    uint64_t *fv = calloc((size_t)m->nfields + 1, sizeof *fv);
    uint8_t *t = calloc((size_t)1 << bits, 1);
    if (!fv || !t)
        abort();
    for (uint32_t key = 0; key < (1u << bits); key++) {
        int sh = bits;
        for (int i = 0; i < m->nfields; i++)
            if (sel[i]) {
                sh -= m->fields[i].width;
                fv[i] = key >> sh & ((1u << m->fields[i].width) - 1);
            }
        struct mdl_cenv env = {fv, false, 0, false, 0, m};
        t[key] = (uint8_t)m->nformats;
        for (int fi = 0; fi < m->nformats; fi++) {
            uint64_t v = 1;
            if (m->formats[fi].selector && mdl_ceval(m->formats[fi].selector, &env, &v) != 0) {
                free(fv);
                free(t);
                return 0;
            }
            if (v) {
                t[key] = (uint8_t)fi;
                break;
            }
        }
    }
    free(fv);
    *tab = t;
    return 1 << bits;
}

/* The format table (fsel_size) as `static const uint8_t name[n]`, and the key's C expression. */
static void fsel_emit(const struct mdl_model *m, const bool *sel, const uint8_t *t, int n, const char *name,
                      struct tsr_buf *out)
{
    tsr_buf_printf(out, "    static const uint8_t %s[%d] = {", name, n);
    for (int k = 0; k < n; k++)
        tsr_buf_printf(out, "%s%d", k % 32 ? ", " : k ? ",\n        " : "\n        ", t[k]);
    tsr_buf_puts(out, "\n    };\n    const unsigned fkey = (unsigned)(");
    int sh = 0;
    for (int i = m->nfields - 1; i >= 0; i--)
        if (sel[i]) {
            tsr_buf_printf(out, "%sv_%s << %d", sh ? " | " : "", m->fields[i].name, sh);
            sh += m->fields[i].width;
        }
    tsr_buf_puts(out, sh ? ");\n" : "0);\n");
}

/* <t>_decode_format: the format decode would pick (the format table, fsel_size, or the same selector tests in the
 * same order), nothing else decoded: a pass that needs only the format (the disassembler's label pass) pays a
 * few instructions. */
static int format_body(const struct mdl_model *m, struct tsr_buf *out, struct tsr_diag *d)
{
    const char *lo = gen_lower(m);
    bool *sel = calloc((size_t)m->nfields + 1, 1);
    if (!sel)
        abort();
    tsr_buf_printf(out, "\nint %s_decode_format(const uint32_t *w)\n{\n", lo);
    selector_fields(m, sel, out);
    int rc = 0;
    uint8_t *tab = NULL;
    int n = fsel_size(m, sel, &tab);
    if (n) {   /* the table's entry: a format, or none */
        fsel_emit(m, sel, tab, n, "fsel", out);
        tsr_buf_printf(out, "    return fsel[fkey] < %d ? (int)fsel[fkey] : %s_NO_FORMAT;\n}\n", m->nformats,
                       gen_upper(m));
        free(tab);
        free(sel);
        return 0;
    }
    for (int fi = 0; fi < m->nformats && rc == 0; fi++) {
        const struct mdl_format *F = &m->formats[fi];
        struct gen_cx cx = {"v_%s", false, sel};
        tsr_buf_puts(out, "    if (");
        if (!F->selector) {
            tsr_buf_puts(out, "1");
        } else {
            tsr_buf_puts(out, "0 != ");
            rc = gen_cexpr(m, F->selector, &cx, out, d) < 0 ? -1 : 0;
        }
        tsr_buf_puts(out, ")\n        return ");
        gen_format_enum(m, fi, out);
        tsr_buf_puts(out, ";\n");
    }
    tsr_buf_printf(out, "    return %s_NO_FORMAT;\n}\n", gen_upper(m));
    free(sel);
    return rc;
}

/* (addition) X7 wide ops: the model the decoder's slot code is generated from: m itself, or, when it has span ops
 * (mdl/check_wide.c), a copy whose slots list their ops without them (a span op is never decoded from a slot's
 * bits: decode_body sets it after the home slot).  *ops (NULL or the lists' memory) is for the caller to free. */
static const struct mdl_model *decode_model(const struct mdl_model *m, struct mdl_model *copy, struct mdl_slot **slots,
                                            int **ops)
{
    bool any = false;
    for (int i = 0; i < m->nops && !any; i++)
        any = m->ops[i].is_span;
    *slots = NULL;
    *ops = NULL;
    if (!any)
        return m;
    *copy = *m;
    *slots = calloc((size_t)m->nslots + 1, sizeof **slots);
    *ops = calloc((size_t)m->nops + 1, sizeof **ops);
    if (!*slots || !*ops)
        abort();
    int n = 0;
    for (int s = 0; s < m->nslots; s++) {
        (*slots)[s] = m->slots[s];
        (*slots)[s].ops = *ops + n;
        (*slots)[s].nops = 0;
        for (int i = 0; i < m->slots[s].nops; i++)
            if (!m->ops[m->slots[s].ops[i]].is_span)
                (*ops)[n + (*slots)[s].nops++] = m->slots[s].ops[i];
        n += (*slots)[s].nops;
    }
    copy->slots = *slots;
    return copy;
}

/* (addition) X7 wide ops: after the slots of format fi are decoded, a wide op in its home slot marks its other
 * slots taken (their span ops), whatever their bits decoded to. */
static void decode_spans(const struct mdl_model *m, int fi, struct tsr_buf *out)
{
    const struct mdl_format *F = &m->formats[fi];
    for (int i = 0; i < m->nops; i++) {
        const struct mdl_op *w = &m->ops[i];
        bool in = false;
        for (int j = 0; j < F->nslots && w->nspan; j++)
            in = in || F->slots[j] == w->slot;
        for (int k = 0; k < w->nspan && in; k++) {
            in = false;
            for (int j = 0; j < F->nslots; j++)
                in = in || F->slots[j] == m->ops[w->span[k]].slot;
        }
        if (!in)
            continue;
        tsr_buf_puts(out, "        if (inst->op[");
        gen_slot_enum(m, w->slot, out);
        tsr_buf_puts(out, "] == ");
        gen_op_enum(m, i, out);
        tsr_buf_puts(out, ") {   /* wide op: its other slots are taken */\n");
        for (int k = 0; k < w->nspan; k++) {
            set_op(m, m->ops[w->span[k]].slot, w->span[k], "            ", out);
            tsr_buf_puts(out, "\n");
        }
        tsr_buf_puts(out, "        }\n");
    }
}

int gen_decode(const struct mdl_model *m0, struct tsr_buf *out, struct tsr_diag *d)
{
    struct mdl_model copy;
    struct mdl_slot *slots;
    int *ops;
    const struct mdl_model *m = decode_model(m0, &copy, &slots, &ops);
    struct tsr_buf pre = {0}, body = {0};
    gen_banner(m, out);
    tsr_buf_printf(out, "#include \"%s.h\"\n\n", m->name);
    int rc = decode_body(m, false, &pre, &body, d);
    if (rc == 0) {   /* the same again as <t>_decode_next (its op tables are decode's: pre2 is dropped) */
        struct tsr_buf pre2 = {0};
        rc = decode_body(m, true, &pre2, &body, d);
        tsr_buf_free(&pre2);
    }
    if (rc == 0)
        rc = format_body(m, &body, d);
    if (pre.len)
        tsr_buf_append(out, pre.data, pre.len);
    if (body.len)
        tsr_buf_append(out, body.data, body.len);
    tsr_buf_free(&pre);
    tsr_buf_free(&body);
    free(slots);
    free(ops);
    return rc;
}

/* <t>_decode, or with next <t>_decode_next: the same result, but the stores that only clear what is not in the
 * format (fields, ignore words, ops of other slots) are skipped when *inst already holds a decode of the same
 * format (they hold 0 and NO_OP then).  A disassembler going through words, most of one format, saves them. */
static int decode_body(const struct mdl_model *m, bool next, struct tsr_buf *pre, struct tsr_buf *out,
                       struct tsr_diag *d)
{
    const char *lo = gen_lower(m);
    int nw = m->word_bits / 32, rc = 0;

    bool *sel = calloc((size_t)m->nfields + 1, 1), *avail = calloc((size_t)m->nfields + 1, 1);
    if (!sel || !avail)
        abort();
    if (next)
        tsr_buf_puts(out, "\n");
    tsr_buf_printf(out, "int %s_decode%s(const uint32_t *w, struct %s_inst *inst)\n{\n", lo, next ? "_next" : "", lo);
    selector_fields(m, sel, out);
    for (int fi = 0; fi < m->nformats && rc == 0; fi++) {
        const struct mdl_format *F = &m->formats[fi];
        struct gen_cx cx = {"v_%s", false, sel};
        tsr_buf_printf(out, "    /* format %s */\n    if (", F->name);
        if (F->selector) {
            tsr_buf_puts(out, "0 != ");
            if (gen_cexpr(m, F->selector, &cx, out, d) < 0) {
                rc = -1;
                break;
            }
        } else {
            tsr_buf_puts(out, "1");
        }
        tsr_buf_puts(out, ") {\n");
        memset(avail, 0, (size_t)m->nfields + 1);
        for (int i = 0; i < F->nfields; i++) {
            int fd = F->fields[i];
            avail[fd] = true;
            if (sel[fd])
                continue;
            tsr_buf_printf(out, "        const uint64_t v_%s = ", m->fields[fd].name);
            gen_extract(m, fd, out);
            tsr_buf_puts(out, ";\n");
        }
        /* (addition) X4: a derived field (composite, slice) whose bits the format's fields hold, from the word */
        for (int i = 0; i < m->nfields; i++) {
            if (!m->fields[i].derived || !derived_in_format(m, F, i) || sel[i])
                continue;
            avail[i] = true;
            tsr_buf_printf(out, "        const uint64_t v_%s = ", m->fields[i].name);
            gen_extract(m, i, out);
            tsr_buf_puts(out, ";\n");
        }
        /* every field: the format's, and 0 for the others (explicit stores measured faster than a memset);
         * decode_next clears the others only when the struct held another format */
        for (int i = 0; i < m->nfields; i++) {
            if (!avail[i])
                continue;
            tsr_buf_puts(out, "        inst->f[");
            gen_field_enum(m, i, out);
            tsr_buf_printf(out, "] = v_%s;\n", m->fields[i].name);
        }
        for (int i = 0; i < nw; i++) {
            uint64_t mk = ignore_mask(F, i / 2);
            uint32_t m32 = (uint32_t)(i % 2 ? mk >> 32 : mk);
            if (m32)
                tsr_buf_printf(out, "        inst->ignored[%d] = w[%d] & 0x%08xu;\n", i, i, m32);
        }
        if (next) {
            tsr_buf_puts(out, "        if (inst->format != ");
            gen_format_enum(m, fi, out);
            tsr_buf_puts(out, ") {\n");
        }
        const char *ind = next ? "            " : "        ";
        for (int i = 0; i < m->nfields; i++) {
            if (avail[i])
                continue;
            tsr_buf_printf(out, "%sinst->f[", ind);
            gen_field_enum(m, i, out);
            tsr_buf_puts(out, "] = 0;\n");
        }
        for (int i = 0; i < nw; i++) {
            uint64_t mk = ignore_mask(F, i / 2);
            if (!(uint32_t)(i % 2 ? mk >> 32 : mk))
                tsr_buf_printf(out, "%sinst->ignored[%d] = 0;\n", ind, i);
        }
        bool *inf = calloc((size_t)m->nslots + 1, 1);
        if (!inf)
            abort();
        for (int i = 0; i < F->nslots; i++)
            inf[F->slots[i]] = true;
        for (int s = 0; s < m->nslots; s++)
            if (!inf[s]) {
                set_op(m, s, -1, ind, out);
                tsr_buf_puts(out, "\n");
            }
        free(inf);
        if (next)
            tsr_buf_puts(out, "        }\n");
        tsr_buf_puts(out, "        inst->format = ");
        gen_format_enum(m, fi, out);
        tsr_buf_puts(out, ";\n");
        for (int i = 0; i < F->nslots && rc == 0; i++)
            rc = decode_slot(m, fi, F->slots[i], avail, pre, out, d);
        decode_spans(m, fi, out);
        tsr_buf_puts(out, "        return 0;\n    }\n");
    }
    tsr_buf_printf(out, "    /* no format: keep the raw word */\n    inst->format = %s_NO_FORMAT;\n", gen_upper(m));
    tsr_buf_printf(out, "    for (int i = 0; i < %d; i++)\n        inst->op[i] = %s_NO_OP;\n",
                   m->nslots > 0 ? m->nslots : 1, gen_upper(m));
    tsr_buf_printf(out, "    for (int i = 0; i < %d; i++)\n        inst->f[i] = 0;\n", m->nfields > 0 ? m->nfields : 1);
    tsr_buf_printf(out, "    for (int i = 0; i < %d; i++)\n        inst->ignored[i] = w[i];\n", nw);
    tsr_buf_puts(out, "    return -1;\n}\n");
    free(sel);
    free(avail);
    return rc;
}
