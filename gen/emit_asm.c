/* gen_asm: <t>_asm.c, the assembler's share of the text codec (the tables' names sorted for binary
 * search and their numeric entries) and the target's assembler entry points, which run the generic
 * engine (runtime/text/asm_engine.c, runtime/text/asm_program.c) over <t>_tc_isa. */
#include <stdio.h>
#include <string.h>

#include "emit_tc.h"
#include "emit_util.h"
#include "gen.h"

int gen_asm(const struct mdl_model *m, struct tsr_buf *out, struct tsr_diag *d)
{
    struct tc_layout L;
    if (tc_build(m, &L, d) < 0) {
        tc_free(&L);
        return -1;
    }
    const char *lo = gen_lower(m);
    gen_banner(m, out);
    tsr_buf_printf(out, "#include \"%s.h\"\n\n", m->name);
    tsr_buf_printf(out, "/* Table names sorted by strcmp within each table: name, code, len. */\n"
                        "const struct tsr_tc_name %s_tc_names[] = {\n", lo);
    for (int t = 0; t < L.ntables; t++) {
        const struct tc_table *T = &L.tables[t];
        if (T->nname)
            tsr_buf_printf(out, "    /* %s */\n", m->tables[t].name);
        for (int i = T->name; i < T->name + T->nname; i++) {
            tsr_buf_puts(out, "    {");
            gen_cstring(out, L.names[i].name);
            tsr_buf_printf(out, ", %u, %d},\n", (unsigned)L.names[i].code, (int)strlen(L.names[i].name));
        }
    }
    tsr_buf_puts(out, L.nnames ? "};\n\n" : "    {0},\n};\n\n");
    tsr_buf_printf(out, "/* Name tries (runtime/text/textcodec.h struct tsr_tc_trie): ch, term, nkid, kid, code. */\n"
                        "const struct tsr_tc_trie %s_tc_tries[] = {\n", lo);
    for (int t = 0; t < L.ntables; t++) {
        const struct tc_table *T = &L.tables[t];
        int end = t + 1 < L.ntables ? L.tables[t + 1].trie : L.ntries;
        tsr_buf_printf(out, "    /* %s */\n", m->tables[t].name);
        for (int i = T->trie; i < end; i++) {
            const struct tc_trie *n = &L.tries[i];
            if (n->ch >= 32 && n->ch < 127 && n->ch != '\'' && n->ch != '\\')
                tsr_buf_printf(out, "    {'%c', %d, %d, %d, %u},\n", n->ch, n->code >= 0, n->nkid, n->kid,
                               (unsigned)(n->code >= 0 ? n->code : 0));
            else
                tsr_buf_printf(out, "    {%d, %d, %d, %d, %u},\n", n->ch, n->code >= 0, n->nkid, n->kid,
                               (unsigned)(n->code >= 0 ? n->code : 0));
        }
    }
    tsr_buf_puts(out, L.ntries ? "};\n\n" : "    {0},\n};\n\n");
    tsr_buf_printf(out, "/* Numeric table entries in code order: code, value (int32 or binary32 bits), is_float. */\n"
                        "const struct tsr_tc_num %s_tc_nums[] = {\n", lo);
    for (int t = 0; t < L.ntables; t++) {
        const struct tc_table *T = &L.tables[t];
        if (T->nnum)
            tsr_buf_printf(out, "    /* %s */\n", m->tables[t].name);
        for (int i = T->num; i < T->num + T->nnum; i++)
            tsr_buf_printf(out, "    {%u, 0x%08xu, %s},\n", (unsigned)L.nums[i].code, (unsigned)L.nums[i].val,
                           L.nums[i].fl ? "true" : "false");
    }
    tsr_buf_puts(out, L.nnums ? "};\n\n" : "    {0},\n};\n\n");
    tsr_buf_printf(out,
        "int %s_assemble(const char *path, const char *text, size_t len, struct tsr_words *out, struct tsr_diag *d)\n"
        "{\n    return tsr_tc_assemble(&%s_tc_isa, path, text, len, out, d);\n}\n\n"
        "int %s_assemble_one(const char *text, size_t len, uint64_t pc, uint32_t *w, char *err, size_t errlen)\n"
        "{\n    return tsr_tc_assemble_one(&%s_tc_isa, text, len, pc, w, err, errlen);\n}\n",
        lo, lo, lo, lo);
    tc_free(&L);
    return 0;
}
