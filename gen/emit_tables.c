/* gen_tables: <t>_tables.c, the shared tables of the text codec (runtime/text/textcodec.h), the compiled
 * check conditions, the entity names, and `const struct tsr_tc_isa <t>_tc_isa`.
 * gen_asm and gen_disasm emit the assembler's name/number arrays and the disassembler's print
 * arrays from the same layout (gen/emit_tc.h). */
#include <inttypes.h>
#include <stdio.h>

#include "emit_tc.h"
#include "emit_util.h"
#include "gen.h"
#include "text/textcodec.h"

static void names_array(struct tsr_buf *out, const char *lo, const char *what, const char *count, int n,
                        const char *(*name)(const struct mdl_model *, int), const struct mdl_model *m)
{
    tsr_buf_printf(out, "const char *const %s_%s_names[%s + 1] = {\n", lo, what, count);
    for (int i = 0; i < n; i++) {
        tsr_buf_puts(out, "    ");
        gen_cstring(out, name(m, i));
        tsr_buf_puts(out, ",\n");
    }
    tsr_buf_puts(out, "    NULL,\n};\n\n");
}

/* tsr_tc_format.sel_decoded for format F's selector (or a part e of it): 1 when it reads nothing but F's own
 * fields and constants.  The generated decoder (gen/emit_codec.c, <t>_decode and <t>_decode_next) sets
 * inst->format to F only inside `if (selector)` evaluated on the fields' codes v_<field>, and stores each of F's
 * fields as f[field] = v_<field>; so the selector, and each of its top-level && parts (F's cond[]), holds on the
 * decoded f[].  A field outside F (stored as 0, not the code tested), or a read of state, space or locals, makes
 * it 0.  A format without a selector has no conditions: 0. */
static int sel_decoded(const struct mdl_format *F, const struct mdl_expr *e)
{
    if (!e)
        return 0;
    switch (e->kind) {
    case MDL_E_INT:
    case MDL_E_FLOAT:
        return 1;
    case MDL_E_FIELD:
        for (int i = 0; i < F->nfields; i++)
            if (F->fields[i] == e->index)
                return 1;
        return 0;
    case MDL_E_UN:
    case MDL_E_BIN:
    case MDL_E_COND:
    case MDL_E_CAST:
    case MDL_E_TABLE:
        for (int i = 0; i < e->nargs; i++)
            if (!sel_decoded(F, e->a[i]))
                return 0;
        return 1;
    default:
        return 0;
    }
}

static const char *nm_format(const struct mdl_model *m, int i) { return m->formats[i].name; }
static const char *nm_slot(const struct mdl_model *m, int i) { return m->slots[i].name; }
static const char *nm_field(const struct mdl_model *m, int i) { return m->fields[i].name; }
static const char *nm_op(const struct mdl_model *m, int i) { return m->ops[i].name; }

static void open_array(struct tsr_buf *out, const char *type, const char *name, const char *legend)
{
    if (legend)
        tsr_buf_printf(out, "/* %s */\n", legend);
    tsr_buf_printf(out, "static const %s %s[] = {\n", type, name);
}

static void close_array(struct tsr_buf *out, int n)
{
    if (n == 0)
        tsr_buf_puts(out, "    {0},\n");
    tsr_buf_puts(out, "};\n\n");
}

int gen_tables(const struct mdl_model *m, struct tsr_buf *out, struct tsr_diag *d)
{
    struct tc_layout L;
    if (tc_build(m, &L, d) < 0) {
        tc_free(&L);
        return -1;
    }
    char lo[128], up[128];
    snprintf(lo, sizeof lo, "%s", gen_lower(m));
    snprintf(up, sizeof up, "%s", gen_upper(m));
    int rc = 0;

    gen_banner(m, out);
    tsr_buf_printf(out, "#include \"%s.h\"\n\n", m->name);

    char cnt[160];
    snprintf(cnt, sizeof cnt, "%s_NFORMATS", up);
    names_array(out, lo, "format", cnt, m->nformats, nm_format, m);
    snprintf(cnt, sizeof cnt, "%s_NSLOTS", up);
    names_array(out, lo, "slot", cnt, m->nslots, nm_slot, m);
    snprintf(cnt, sizeof cnt, "%s_NFIELDS", up);
    names_array(out, lo, "field", cnt, m->nfields, nm_field, m);
    snprintf(cnt, sizeof cnt, "%s_NOPS", up);
    names_array(out, lo, "op", cnt, m->nops, nm_op, m);

    static const char *const prints[] = {
        [MDL_PRINT_DEFAULT] = "TSR_TC_FP_DEFAULT", [MDL_PRINT_SIGNED] = "TSR_TC_FP_SIGNED",
        [MDL_PRINT_UNSIGNED] = "TSR_TC_FP_UNSIGNED", [MDL_PRINT_HEX] = "TSR_TC_FP_HEX",
        [MDL_PRINT_FLOAT] = "TSR_TC_FP_FLOAT",
    };
    open_array(out, "struct tsr_tc_field", "fields", "name, width, is_signed, print");
    for (int i = 0; i < m->nfields; i++) {
        tsr_buf_puts(out, "    {");
        gen_cstring(out, m->fields[i].name);
        tsr_buf_printf(out, ", %d, %s, %s},\n", m->fields[i].width, m->fields[i].is_signed ? "true" : "false",
                       prints[m->fields[i].print]);
    }
    close_array(out, m->nfields);

    open_array(out, "struct tsr_tc_table", "tables",
               "name, name_first, nnames, minlen, maxlen, trie, num_first, nnums, print_first, nprint, print_dense");
    for (int i = 0; i < L.ntables; i++) {
        const struct tc_table *t = &L.tables[i];
        tsr_buf_puts(out, "    {");
        gen_cstring(out, m->tables[i].name);
        tsr_buf_printf(out, ", %d, %d, %d, %d, %d, %d, %d, %d, %d, %s},\n", t->name, t->nname, t->minlen, t->maxlen,
                       t->trie, t->num, t->nnum, t->print, t->nprint, t->dense ? "true" : "false");
    }
    close_array(out, L.ntables);

    static const char *const pk[] = {"TSR_TC_TEXT", "TSR_TC_SPACE", "TSR_TC_TABLE", "TSR_TC_INT",
                                     "TSR_TC_OPND", "TSR_TC_OPT", "TSR_TC_LABEL"};
    open_array(out, "struct tsr_tc_part", "parts", "kind, bound, pcrel, len, field, arg, cond, ncond, unit, pcoff, text");
    for (int i = 0; i < L.nparts; i++) {
        const struct tc_part *p = &L.parts[i];
        tsr_buf_printf(out, "    {%s, %d, %d, %d, %d, %d, %d, %d, %u, %" PRId64 ", ", pk[p->kind], p->bound, p->pcrel,
                       p->len, p->field, p->arg, p->cond, p->ncond, p->kind == TSR_TC_LABEL ? (unsigned)p->unit : 0u,
                       p->pcoff);
        gen_cstring(out, p->text);
        tsr_buf_printf(out, "},   /* %d */\n", i);
    }
    close_array(out, L.nparts);

    static const char *const ck[] = {"TSR_TC_BIND", "TSR_TC_BIND2", "TSR_TC_CHECK"};
    open_array(out, "struct tsr_tc_cond", "conds", "kind, field, field2, id, val, text");
    for (int i = 0; i < L.nconds; i++) {
        const struct tc_cond *c = &L.conds[i];
        tsr_buf_printf(out, "    {%s, %d, %d, %d, ", ck[c->kind], c->field, c->field2, c->id);
        gen_u64(out, c->val);
        tsr_buf_puts(out, ", ");
        gen_cstring(out, c->text);
        tsr_buf_printf(out, "},   /* %d */\n", i);
    }
    close_array(out, L.nconds);

    static const char *const vb[] = {"TSR_TC_USE", "TSR_TC_READ", "TSR_TC_WRITE"};
    open_array(out, "struct tsr_tc_alt", "alts", "part, npart, cond, ncond, verb");
    for (int i = 0; i < L.nalts; i++) {
        const struct tc_alt *a = &L.alts[i];
        tsr_buf_printf(out, "    {%d, %d, %d, %d, %s},\n", a->part, a->npart, a->cond, a->ncond, vb[a->verb]);
    }
    close_array(out, L.nalts);

    open_array(out, "struct tsr_tc_opnd", "opnds", "name, alt, nalt");
    for (int i = 0; i < m->nopnds; i++) {
        tsr_buf_puts(out, "    {");
        gen_cstring(out, m->opnds[i].inst_name ? m->opnds[i].inst_name : m->opnds[i].name);
        tsr_buf_printf(out, ", %d, %d},\n", L.opnd_alt[i], m->opnds[i].nalt);
    }
    close_array(out, m->nopnds);

    open_array(out, "struct tsr_tc_default", "defs", "field, val");
    for (int i = 0; i < L.ndefs; i++) {
        tsr_buf_printf(out, "    {%d, ", L.defs[i].field);
        gen_u64(out, L.defs[i].val);
        tsr_buf_printf(out, "},   /* %s */\n", m->fields[L.defs[i].field].name);
    }
    close_array(out, L.ndefs);

    open_array(out, "struct tsr_tc_op", "ops",
               "name, slot, part, npart, cond, ncond, def, ndef, key, keylen, key_exact, req");
    for (int i = 0; i < m->nops; i++) {
        const struct tc_op *o = &L.ops[i];
        tsr_buf_puts(out, "    {");
        gen_cstring(out, m->ops[i].name);
        tsr_buf_printf(out, ", %d, %d, %d, %d, %d, %d, %d, ", m->ops[i].slot, o->part, o->npart, o->cond, o->ncond,
                       o->def, o->ndef);
        gen_cstring(out, o->key);
        tsr_buf_printf(out, ", %d, %s, {", o->keylen, o->exact ? "true" : "false");
        gen_u64(out, o->req[0]);
        tsr_buf_puts(out, ", ");
        gen_u64(out, o->req[1]);
        tsr_buf_puts(out, "}},\n");
    }
    close_array(out, m->nops);

    open_array(out, "struct tsr_tc_slot", "slots", "name, default_op, op, nop");
    for (int i = 0; i < m->nslots; i++) {
        tsr_buf_puts(out, "    {");
        gen_cstring(out, m->slots[i].name);
        tsr_buf_printf(out, ", %d, %d, %d},\n", m->slots[i].default_op, L.slot_op[i], m->slots[i].nops);
    }
    close_array(out, m->nslots);

    open_array(out, "struct tsr_tc_format", "formats",
               "name, slot, nslot, field, nfield, cond, ncond, def, ndef, ign, nign, sel_decoded");
    for (int i = 0; i < m->nformats; i++) {
        const struct tc_fmt *f = &L.fmts[i];
        tsr_buf_puts(out, "    {");
        gen_cstring(out, m->formats[i].name);
        tsr_buf_printf(out, ", %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d},\n", f->slot, f->nslot, f->field,
                       f->nfield, f->cond, f->ncond, f->def, f->ndef, f->ign, f->nign,
                       sel_decoded(&m->formats[i], m->formats[i].selector));
    }
    close_array(out, m->nformats);

    tsr_buf_puts(out, "static const uint16_t idx[] = {\n   ");
    for (int i = 0; i < L.nidx; i++)
        tsr_buf_printf(out, " %d,%s", L.idx[i], i % 16 == 15 ? "\n   " : "");
    tsr_buf_puts(out, L.nidx ? "\n};\n\n" : " 0\n};\n\n");

    open_array(out, "struct tsr_tc_range", "ranges", "hi, lo");
    for (int i = 0; i < L.nranges; i++)
        tsr_buf_printf(out, "    {%d, %d},\n", L.ranges[i].hi, L.ranges[i].lo);
    close_array(out, L.nranges);

    /* the check conditions */
    tsr_buf_puts(out, "/* The conditions that are not simple bindings, by id (f: raw field codes). */\n"
                      "static bool check(unsigned id, const uint64_t *f)\n{\n    (void)f;\n    switch (id) {\n");
    struct gen_cx cx = {"f[%d]", true, NULL};
    for (int i = 0; i < L.nconds && rc == 0; i++) {
        const struct tc_cond *c = &L.conds[i];
        if (c->kind != TSR_TC_CHECK)
            continue;
        tsr_buf_printf(out, "    case %d:   /* ", c->id);
        /* the text may contain "*" "/" sequences: it is printed with them broken up */
        for (const char *s = c->text ? c->text : ""; *s; s++)
            tsr_buf_printf(out, (s[0] == '*' && s[1] == '/') || (s[0] == '/' && s[1] == '*') ? "%c " : "%c", *s);
        tsr_buf_puts(out, " */\n        return 0 != ");
        if (!c->e) {
            tsr_buf_puts(out, "1");
        } else if (gen_cexpr(m, c->e, &cx, out, d) < 0) {
            rc = -1;
            break;
        }
        tsr_buf_puts(out, ";\n");
    }
    tsr_buf_puts(out, "    default:\n        return false;\n    }\n}\n\n");

    /* (addition) X4: derived fields and every field's word bits, only when the description has derived fields */
    bool any_derived = false;
    for (int i = 0; i < m->nfields; i++)
        any_derived = any_derived || m->fields[i].derived;
    if (any_derived) {
        tsr_buf_puts(out, "static const uint8_t fderived[] = {");
        for (int i = 0; i < m->nfields; i++)
            tsr_buf_printf(out, "%s%d", i ? ", " : " ", m->fields[i].derived ? 1 : 0);
        tsr_buf_puts(out, " };\nstatic const uint32_t fpiece_first[] = {");
        int np = 0;
        for (int i = 0; i <= m->nfields; i++) {
            tsr_buf_printf(out, "%s%d", i ? ", " : " ", np);
            if (i < m->nfields)
                np += m->fields[i].npieces;
        }
        tsr_buf_puts(out, " };\nstatic const struct tsr_tc_fpiece fpieces[] = {\n");
        for (int i = 0; i < m->nfields; i++)
            for (int j = 0; j < m->fields[i].npieces; j++)
                tsr_buf_printf(out, "    {%d, %d, %d},\n", m->fields[i].pieces[j].hi, m->fields[i].pieces[j].lo,
                               m->fields[i].pieces[j].inverted ? 1 : 0);
        tsr_buf_puts(out, "};\n\n");
    }

    tsr_buf_printf(out,
        "/* The text engine's codec: struct %s_tinst, whose f[] it reads by index as uint64_t. */\n"
        "static int decode(const uint32_t *w, void *inst) { return %s_tdecode(w, inst); }\n"
        "static int decode_next(const uint32_t *w, void *inst) { return %s_tdecode_next(w, inst); }\n"
        "static int encode(const void *inst, uint32_t *w) { return %s_tencode(inst, w); }\n\n", lo, lo, lo, lo);

    /* (addition) X7 wide ops: span_of and span_mask (runtime/text/textcodec.h) */
    bool any_span = false;
    for (int i = 0; i < m->nops; i++)
        any_span = any_span || m->ops[i].is_span;
    if (any_span) {
        tsr_buf_puts(out, "static const uint16_t span_of[] = {");
        for (int i = 0; i < m->nops; i++)
            tsr_buf_printf(out, "%s%d,", i % 16 ? " " : "\n    ", m->ops[i].is_span ? m->ops[i].span_of : 0xffff);
        tsr_buf_puts(out, "\n};\nstatic const uint64_t span_mask[] = {");
        for (int i = 0; i < m->nops; i++) {
            uint64_t mk = 0;
            for (int j = 0; j < m->ops[i].nspan; j++)
                mk |= (uint64_t)1 << m->ops[m->ops[i].span[j]].slot;
            tsr_buf_puts(out, i % 8 ? " " : "\n    ");
            gen_u64(out, mk);
            tsr_buf_puts(out, ",");
        }
        tsr_buf_puts(out, "\n};\n\n");
    }
    gen_tc_syntax(m, out);
    tsr_buf_printf(out,
        "const struct tsr_tc_isa %s_tc_isa = {\n"
        "    .name = \"%s\",\n"
        "    .word_bits = %d, .nwords = %d, .pc_step = %d,\n"
        "    .inst_size = sizeof(struct %s_tinst),\n"
        "    .off_op = offsetof(struct %s_tinst, op),\n"
        "    .off_ignored = offsetof(struct %s_tinst, ignored),\n"
        "    .off_f = offsetof(struct %s_tinst, f),\n"
        "    .nfields = %d, .fields = fields,\n"
        "    .ntables = %d, .tables = tables,\n"
        "    .nformats = %d, .formats = formats,\n"
        "    .nslots = %d, .slots = slots,\n"
        "    .nops = %d, .ops = ops,\n"
        "    .nopnds = %d, .opnds = opnds,\n"
        "    .alts = alts, .parts = parts, .conds = conds, .defs = defs, .idx = idx, .ranges = ranges,\n"
        "    .names = %s_tc_names, .tries = %s_tc_tries, .nums = %s_tc_nums, .prints = %s_tc_prints,\n"
        "    .pops = %s_tc_pops, .pfmts = %s_tc_pfmts, .fx = &%s_fx,\n"
        "    .check = check, .decode = decode, .encode = encode, .decode_format = %s_decode_format,\n"
        "    .decode_next = decode_next,\n"
        "%s%s%s"
        "};\n",
        lo, m->name, m->word_bits, m->word_bits / 32, m->pc_step, lo, lo, lo, lo, m->nfields, m->ntables, m->nformats,
        m->nslots, m->nops, m->nopnds, lo, lo, lo, lo, lo, lo, lo, lo,
        any_derived ? "    .fderived = fderived, .fpiece_first = fpiece_first, .fpieces = fpieces,\n" : "",
        m->syntax ? "    .syntax = &tc_syntax,\n" : "", any_span ? "    .span_of = span_of, .span_mask = span_mask,\n" : "");
    tc_free(&L);
    return rc;
}
