/* gen_encode and gen_decode: <t>_encode.c and <t>_decode.c, straight-line C per format.
 *
 * The decoder reads the word as 64-bit chunks d0, d1, ... (chunk k = word bits 64k..64k+63, built from
 * w[2k] and w[2k+1]); the encoder composes it as 32-bit words e0, e1, ...  Each field is extracted or
 * inserted piece by piece (pieces never cross a chunk, or a 32-bit word when encoding; inverted pieces
 * are XORed; runs of fields adjacent in f[] may be stored as one packed value: gen/emit_decode_pack.c).  The
 * decoder evaluates the format selectors in declaration
 * order over the selector fields, then picks each slot's op: the first op in declaration order whose
 * encode conditions hold (gen/emit_decode_slot.c).  Ignore-range bits are copied into
 * inst->ignored in place, so decode then encode reproduces every bit of any word. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "emit_decode.h"
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

/* Encoder: the word is composed as 32-bit words e0, e1, ... (a field's piece split at their boundaries), so
 * that every mask and shifted mask is a 32-bit immediate (64-bit chunks needed a 10-byte movabs for each field in
 * a chunk's upper half). */
static void encode_fn(const struct mdl_model *m, bool text, struct tsr_buf *out);
int gen_encode(const struct mdl_model *m, struct tsr_buf *out, struct tsr_diag *d)
{
    (void)d;
    gen_banner(m, out);
    tsr_buf_printf(out, "#include \"%s.h\"\n\n", m->name);
    encode_fn(m, false, out);
    tsr_buf_puts(out, "\n/* The same on the text engine's struct (its f[] of uint64_t). */\n");
    encode_fn(m, true, out);
    return 0;
}

/* <t>_encode, or with text <t>_tencode (struct <t>_tinst): the same statements, which read f[] by value. */
static void encode_fn(const struct mdl_model *m, bool text, struct tsr_buf *out)
{
    const char *lo = gen_lower(m), *t = text ? "t" : "";
    int nw = m->word_bits / 32;
    tsr_buf_printf(out, "int %s_%sencode(const struct %s_%sinst *inst, uint32_t *w)\n{\n", lo, t, lo, t);
    for (int k = 0; k < nw; k++)
        tsr_buf_printf(out, "    uint32_t e%d = 0;\n", k);
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
            for (int j = 0; j < n; j++)
                for (int a = pc[j].lo; a <= pc[j].hi; a = a / 32 * 32 + 32) {   /* word bits a..b: word a / 32 */
                    int b = pc[j].hi < a / 32 * 32 + 31 ? pc[j].hi : a / 32 * 32 + 31;
                    int w = b - a + 1, sh = a % 32, off = pc[j].off + (a - pc[j].lo);
                    uint64_t mk = w >= 32 ? 0xffffffffu : ((uint64_t)1 << w) - 1;
                    tsr_buf_printf(out, "        e%d |= (uint32_t)(", a / 32);
                    if (pc[j].inverted)
                        tsr_buf_puts(out, "(");
                    tsr_buf_puts(out, off ? "(inst->f[" : "inst->f[");
                    gen_field_enum(m, fd, out);
                    tsr_buf_puts(out, "]");
                    if (off)
                        tsr_buf_printf(out, " >> %d)", off);
                    tsr_buf_puts(out, " & ");
                    gen_u64(out, mk);
                    if (pc[j].inverted) {
                        tsr_buf_puts(out, ") ^ ");
                        gen_u64(out, mk);
                    }
                    tsr_buf_puts(out, ")");
                    if (sh)
                        tsr_buf_printf(out, " << %d", sh);
                    tsr_buf_printf(out, ";   /* %s */\n", m->fields[fd].name);
                }
        }
        for (int k = 0; k < nw; k++) {
            uint64_t mk = ignore_mask(F, k / 2);
            uint32_t m32 = (uint32_t)(k % 2 ? mk >> 32 : mk);
            if (m32)
                tsr_buf_printf(out, "        e%d |= inst->ignored[%d] & 0x%08xu;   /* ignored bits */\n", k, k, m32);
        }
        tsr_buf_puts(out, "        break;\n");
    }
    tsr_buf_printf(out, "    default:   /* no format: the raw word */\n"
                        "        for (int i = 0; i < %d; i++)\n"
                        "            w[i] = inst->ignored[i];\n"
                        "        return 0;\n    }\n", nw);
    for (int k = 0; k < nw; k++)
        tsr_buf_printf(out, "    w[%d] = e%d;\n", k, k);
    tsr_buf_puts(out, "    return 0;\n}\n");
}

/* ---- decode ------------------------------------------------------------------------------------ */

static int decode_body(const struct mdl_model *m, bool next, bool text, bool *put, struct gen_dectab *pre,
                       struct tsr_buf *out, struct tsr_diag *d);

/* A field whose v_<field> can be computed from another's: a slice (a derived field of one piece) of a field of one
 * piece, neither inverted, whose v_ is declared (done): that field's index, else -1. */
static int slice_of(const struct mdl_model *m, int i, const bool *done)
{
    const struct mdl_field *f = &m->fields[i];
    if (!f->derived || f->npieces != 1 || f->pieces[0].inverted)
        return -1;
    for (int g = 0; g < m->nfields; g++) {
        const struct mdl_field *G = &m->fields[g];
        if (g != i && done[g] && !G->derived && G->npieces == 1 && !G->pieces[0].inverted &&
            G->pieces[0].lo <= f->pieces[0].lo && f->pieces[0].hi <= G->pieces[0].hi)
            return g;
    }
    return -1;
}

/* `inst->f[<field i>] = v_<field>;`, after the declaration of v_<field> when extract: from the word, or from the
 * v_ of the field it is a slice of (one instruction less than from the word; that value is still in a register). */
static void decode_store(const struct mdl_model *m, int i, bool extract, bool *done, const bool *packed,
                         struct tsr_buf *out)
{
    if (extract) {
        tsr_buf_printf(out, "        const uint64_t v_%s = ", m->fields[i].name);
        int g = slice_of(m, i, done);
        if (g >= 0) {
            const struct mdl_piece *p = &m->fields[i].pieces[0], *q = &m->fields[g].pieces[0];
            tsr_buf_printf(out, p->lo > q->lo ? "(v_%s >> %d)" : "v_%s", m->fields[g].name, p->lo - q->lo);
            if (p->hi < q->hi) {
                tsr_buf_puts(out, " & ");
                gen_u64(out, ((uint64_t)1 << (p->hi - p->lo + 1)) - 1);
            }
        } else {
            gen_extract(m, i, out);
        }
        tsr_buf_puts(out, ";\n");
    }
    done[i] = true;
    if (packed[i]) {   /* stored with its group (gen_decode_pack_emit); the value may serve a slot or nothing */
        tsr_buf_printf(out, "        (void)v_%s;\n", m->fields[i].name);
        return;
    }
    tsr_buf_puts(out, "        inst->f[");
    gen_field_enum(m, i, out);
    tsr_buf_printf(out, "] = v_%s;\n", m->fields[i].name);
}

/* rd[f] |= the op conditions of slot s read field f. */
static void slot_reads(const struct mdl_model *m, int s, bool *rd)
{
    const struct mdl_slot *sl = &m->slots[s];
    for (int j = 0; j < sl->nops; j++) {
        const struct mdl_op *op = &m->ops[sl->ops[j]];
        for (int k = 0; k < op->ncond; k++) {
            const struct mdl_cond *c = &op->cond[k];
            field_uses(c->e, rd);
            if (c->binding && c->field >= 0)
                rd[c->field] = true;
            if (c->binding && c->field2 >= 0)
                rd[c->field2] = true;
        }
    }
}

static int low_bit(const struct mdl_field *f)
{
    int lo = f->pieces[0].lo;
    for (int p = 1; p < f->npieces; p++)
        lo = f->pieces[p].lo < lo ? f->pieces[p].lo : lo;
    return lo;
}

static bool overlap(const struct mdl_field *a, const struct mdl_field *b)
{
    for (int p = 0; p < a->npieces; p++)
        for (int q = 0; q < b->npieces; q++)
            if (a->pieces[p].lo <= b->pieces[q].hi && b->pieces[q].lo <= a->pieces[p].hi)
                return true;
    return false;
}

/* Extracts and stores the fields of the format not stored yet (avail: the format's and its derived fields; done: v_
 * declared; not the selector's, sel), in the order of their lowest word bit: those a slot reads (rd) and those
 * sharing a bit with one (a slice and its field: the compiler computes their common shift once, and it must not
 * stay live across the slots' code), or all of them when rd is NULL. */
static void decode_stores(const struct mdl_model *m, const bool *avail, const bool *sel, const bool *rd, bool *done,
                          const bool *packed, struct tsr_buf *out)
{
    int *ord = calloc((size_t)m->nfields + 1, sizeof *ord), n = 0;
    if (!ord)
        abort();
    for (int i = 0; i < m->nfields; i++) {
        if (!avail[i] || sel[i] || done[i])
            continue;
        bool e = !rd || rd[i];
        for (int j = 0; j < m->nfields && !e; j++)
            e = avail[j] && rd[j] && overlap(&m->fields[i], &m->fields[j]);
        if (!e)
            continue;
        int k = n++;   /* insertion by lowest bit, stable (field order among equals) */
        while (k > 0 && low_bit(&m->fields[ord[k - 1]]) > low_bit(&m->fields[i])) {
            ord[k] = ord[k - 1];
            k--;
        }
        ord[k] = i;
    }
    for (int k = 0; k < n; k++)
        decode_store(m, ord[k], true, done, packed, out);
    free(ord);
}

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

/* Whether wide op i has its home slot and every slot it spans in format F. */
static bool wide_in_format(const struct mdl_model *m, const struct mdl_format *F, int i)
{
    const struct mdl_op *w = &m->ops[i];
    bool in = false;
    for (int j = 0; j < F->nslots && w->nspan; j++)
        in = in || F->slots[j] == w->slot;
    for (int k = 0; k < w->nspan && in; k++) {
        in = false;
        for (int j = 0; j < F->nslots; j++)
            in = in || F->slots[j] == m->ops[w->span[k]].slot;
    }
    return in;
}

/* (addition) X7 wide ops: after the slots of format fi are decoded, a wide op in its home slot marks its other
 * slots taken (their span ops), whatever their bits decoded to.  When every taken slot is taken from one home slot
 * and no home slot is itself taken (the order of the wide ops then does not matter), each pair of home slot H and
 * taken slot T is one table indexed by H's op + 1 (TSR_NO_OP reads entry 0): the low half the span op, the high
 * half a mask of T's decoded op to keep (0xffff when H's op takes no slot T), so no branch on the word: a test per
 * wide op, as before, is mispredicted on words of mixed ops (3 wide ops of one home slot: 0.29 a random word in
 * callgrind's model).  Otherwise, or with more than SPAN_MAX_OPS ops, the tests in op order. */
#define SPAN_MAX_OPS 1024
static void decode_spans(const struct mdl_model *m, int fi, struct gen_dectab *pre, struct tsr_buf *out)
{
    const struct mdl_format *F = &m->formats[fi];
    int *from = calloc((size_t)m->nslots + 1, sizeof *from);   /* 1 + the home slot taking slot s, -1 several */
    bool *home = calloc((size_t)m->nslots + 1, 1);
    if (!from || !home)
        abort();
    bool table = m->nops < SPAN_MAX_OPS;
    for (int i = 0; i < m->nops; i++) {
        if (!wide_in_format(m, F, i))
            continue;
        home[m->ops[i].slot] = true;
        for (int k = 0; k < m->ops[i].nspan; k++) {
            int t = m->ops[m->ops[i].span[k]].slot;
            from[t] = from[t] == 0 || from[t] == m->ops[i].slot + 1 ? m->ops[i].slot + 1 : -1;
        }
    }
    for (int s = 0; s < m->nslots; s++)
        table = table && from[s] >= 0 && !(from[s] > 0 && home[s]);
    for (int t = 0; t < m->nslots && table; t++) {
        if (from[t] <= 0)
            continue;
        int h = from[t] - 1;
        const char *fn = F->name, *hn = m->slots[h].name, *tn = m->slots[t].name;
        tsr_buf_printf(&pre->init, "    /* format %s: slot %s's op by the op of slot %s + 1 (wide ops): bits 16..31 "
                                   "the mask of its decoded op kept, 0..15 the span op */\n", fn, tn, hn);
        tsr_buf_printf(&pre->decl, "    uint32_t %s_%s_by_%s[%d];\n", fn, tn, hn, m->nops + 1);
        tsr_buf_printf(&pre->init, "    .%s_%s_by_%s = {", fn, tn, hn);
        for (int v = 0; v <= m->nops; v++) {
            uint32_t e = 0xffff0000u;
            const struct mdl_op *w = v ? &m->ops[v - 1] : NULL;
            for (int k = 0; w && w->slot == h && k < w->nspan && wide_in_format(m, F, v - 1); k++)
                if (m->ops[w->span[k]].slot == t)
                    e = (uint32_t)w->span[k];
            tsr_buf_printf(&pre->init, "%s0x%x,", v % 8 ? " " : "\n        ", e);
        }
        tsr_buf_puts(&pre->init, "\n    },\n");
        tsr_buf_printf(out, "        {   /* slot %s taken by a wide op of slot %s */\n"
                            "            const uint32_t k = dec.%s_%s_by_%s[(uint16_t)(inst->op[", tn, hn, fn, tn, hn);
        gen_slot_enum(m, h, out);
        tsr_buf_puts(out, "] + 1u)];\n            inst->op[");
        gen_slot_enum(m, t, out);
        tsr_buf_puts(out, "] = (uint16_t)((inst->op[");
        gen_slot_enum(m, t, out);
        tsr_buf_puts(out, "] & k >> 16) | k);\n        }\n");
    }
    for (int i = 0; i < m->nops && !table; i++) {
        const struct mdl_op *w = &m->ops[i];
        if (!wide_in_format(m, F, i))
            continue;
        tsr_buf_puts(out, "        if (inst->op[");
        gen_slot_enum(m, w->slot, out);
        tsr_buf_puts(out, "] == ");
        gen_op_enum(m, i, out);
        tsr_buf_puts(out, ") {   /* wide op: its other slots are taken */\n");
        for (int k = 0; k < w->nspan; k++) {
            gen_decode_set_op(m, m->ops[w->span[k]].slot, w->span[k], "            ", out);
            tsr_buf_puts(out, "\n");
        }
        tsr_buf_puts(out, "        }\n");
    }
    free(from);
    free(home);
}

int gen_decode(const struct mdl_model *m0, struct tsr_buf *out, struct tsr_diag *d)
{
    struct mdl_model copy;
    struct mdl_slot *slots;
    int *ops;
    const struct mdl_model *m = decode_model(m0, &copy, &slots, &ops);
    struct gen_dectab pre = {{0}, {0}};
    struct tsr_buf body = {0};
    gen_banner(m, out);
    tsr_buf_printf(out, "#include <string.h>\n\n#include \"%s.h\"\n\n", m->name);
    /* gcc's SLP vectorizer joins adjacent 8- and 16-bit field stores into a vector built with movd/pinsrw/punpck,
     * more instructions than the stores it saves (+12 and +28 per word on the two 16-bit descriptions at 80372bd,
     * docs/PERFORMANCE.md "Per target"); with 32-bit fields it saves one.  clang's code is not affected. */
    if (gen_field_bits(m) < 32)
        tsr_buf_puts(out, "#if defined(__GNUC__) && !defined(__clang__)\n#pragma GCC optimize(\"no-tree-slp-vectorize\")\n"
                          "#endif\n\n");
    bool put = false;
    int rc = decode_body(m, false, false, &put, &pre, &body, d);
    if (put)
        gen_decode_pack_helper(m, out);
    /* the same again as <t>_decode_next, then both on struct <t>_tinst (the text engine's: <t>_tdecode,
     * <t>_tdecode_next); their op tables are decode's: pre2 is dropped */
    for (int k = 1; k < 4 && rc == 0; k++) {
        struct gen_dectab pre2 = {{0}, {0}};
        if (k == 2)
            tsr_buf_puts(&body, "\n\n/* The same on the text engine's struct (its f[] of uint64_t). */\n");
        rc = decode_body(m, k & 1, k >= 2, &put, &pre2, &body, d);
        tsr_buf_free(&pre2.decl);
        tsr_buf_free(&pre2.init);
    }
    if (rc == 0)
        rc = format_body(m, &body, d);
    if (pre.decl.len) {   /* the lookup tables (struct gen_dectab) */
        tsr_buf_puts(out, "/* The op selection's lookup tables (gen/emit_decode_slot.c). */\nstatic const struct {\n");
        tsr_buf_append(out, pre.decl.data, pre.decl.len);
        tsr_buf_puts(out, "} dec = {\n");
        tsr_buf_append(out, pre.init.data, pre.init.len);
        tsr_buf_puts(out, "};\n\n");
    }
    if (body.len)
        tsr_buf_append(out, body.data, body.len);
    tsr_buf_free(&pre.decl);
    tsr_buf_free(&pre.init);
    tsr_buf_free(&body);
    free(slots);
    free(ops);
    return rc;
}

/* <t>_decode (with text: <t>_tdecode, on struct <t>_tinst), or with next <t>_decode_next: the same result, but the stores that only clear what is not in the
 * format (fields, ignore words, ops of other slots) are skipped when *inst already holds a decode of the same
 * format (they hold 0 and NO_OP then).  A disassembler going through words, most of one format, saves them. */
static int decode_body(const struct mdl_model *m, bool next, bool text, bool *put, struct gen_dectab *pre,
                       struct tsr_buf *out, struct tsr_diag *d)
{
    const char *lo = gen_lower(m), *t = text ? "t" : "";
    int nw = m->word_bits / 32, rc = 0, npacks = 0;

    bool *sel = calloc((size_t)m->nfields + 1, 1), *avail = calloc((size_t)m->nfields + 1, 1);
    if (!sel || !avail)
        abort();
    if (next)
        tsr_buf_puts(out, "\n");
    tsr_buf_printf(out, "int %s_%sdecode%s(const uint32_t *w, struct %s_%sinst *inst)\n{\n", lo, t, next ? "_next" : "", lo,
                   t);
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
        /* avail: the format's fields and (addition, X4) the derived fields (composite, slice) whose bits they hold */
        memset(avail, 0, (size_t)m->nfields + 1);
        for (int i = 0; i < F->nfields; i++)
            avail[F->fields[i]] = true;
        for (int i = 0; i < m->nfields; i++)
            avail[i] = avail[i] || (m->fields[i].derived && !sel[i] && derived_in_format(m, F, i));
        /* every field: the format's, each stored where it is extracted; 0 for the others below (explicit stores
         * measured faster than a memset; decode_next clears the others only when the struct held another format).
         * The selector fields (extracted above) come first, each slot's op after the fields its conditions read
         * (slot_reads) and the other fields last: few values are live at a time (extracting every field before
         * the stores and the ops kept dozens live, spilled to the stack). */
        bool *rd = calloc((size_t)m->nfields + 1, 1), *done = calloc((size_t)m->nfields + 1, 1);
        bool *store = calloc((size_t)m->nfields + 1, 1), *packed = calloc((size_t)m->nfields + 1, 1);
        struct gen_pack *packs = calloc((size_t)m->nfields + 1, sizeof *packs);
        if (!rd || !done || !store || !packed || !packs)
            abort();
        /* fields stored below (not the selector's), the values the slots' code reads on every path (their code
         * generated once more, aside), and the groups stored packed */
        for (int i = 0; i < F->nslots && rc == 0; i++) {
            struct gen_dectab p2 = {{0}, {0}};
            struct tsr_buf o2 = {0};
            rc = gen_decode_slot(m, fi, F->slots[i], avail, &p2, &o2, rd, d);
            tsr_buf_free(&p2.decl);
            tsr_buf_free(&p2.init);
            tsr_buf_free(&o2);
        }
        /* The narrow struct does not store derived fields (<t>_field computes them: gen/emit_derived.c): marked
         * packed, so that decode_store declares their v_ (a slot may read it) and stores nothing. */
        for (int i = 0; i < m->nfields; i++) {
            store[i] = avail[i] && !sel[i] && (text || !m->fields[i].derived);
            rd[i] = rd[i] || sel[i];
        }
        npacks = gen_decode_pack_plan(m, store, rd, sel, text ? 64 : gen_field_bits(m), packs, m->nfields, packed);
        for (int i = 0; i < m->nfields && !text; i++)
            packed[i] = packed[i] || m->fields[i].derived;
        *put = *put || npacks > 0;
        for (int i = 0; i < m->nfields; i++)
            if (avail[i] && sel[i])
                decode_store(m, i, false, done, packed, out);
        for (int i = 0; i < npacks; i++)
            gen_decode_pack_emit(m, &packs[i], out);
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
            if (avail[i] || (!text && m->fields[i].derived))
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
                gen_decode_set_op(m, s, -1, ind, out);
                tsr_buf_puts(out, "\n");
            }
        free(inf);
        if (next)
            tsr_buf_puts(out, "        }\n");
        tsr_buf_puts(out, "        inst->format = ");
        gen_format_enum(m, fi, out);
        tsr_buf_puts(out, ";\n");
        for (int i = 0; i < F->nslots && rc == 0; i++) {   /* each slot after the fields it reads */
            memset(rd, 0, (size_t)m->nfields + 1);
            slot_reads(m, F->slots[i], rd);
            decode_stores(m, avail, sel, rd, done, packed, out);
            rc = gen_decode_slot(m, fi, F->slots[i], avail, pre, out, NULL, d);
        }
        decode_spans(m, fi, pre, out);
        decode_stores(m, avail, sel, NULL, done, packed, out);
        free(rd);
        free(done);
        free(store);
        free(packed);
        free(packs);
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
