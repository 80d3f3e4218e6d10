/* gen_disasm: <t>_disasm.c, the disassembler's share of the text codec (what to print for each
 * code of each table, and the printer generated per op: gen/emit_disprint.c) and the target's
 * disassembler entry points, which run the generic engine (runtime/text/dis_engine.c) over <t>_tc_isa. */
#include <stdio.h>

#include "emit_tc.h"
#include "emit_util.h"
#include "gen.h"
#include "text/textcodec.h"

int gen_disasm(const struct mdl_model *m, struct tsr_buf *out, struct tsr_diag *d)
{
    struct tc_layout L;
    if (tc_build(m, &L, d) < 0) {
        tc_free(&L);
        return -1;
    }
    const char *lo = gen_lower(m);
    gen_banner(m, out);
    tsr_buf_printf(out, "#include \"%s.h\"\n\n#include <string.h>\n\n#include \"bits.h\"\n#include \"text/dis_fx.h\"\n\n",
                   m->name);
    tsr_buf_printf(out, "/* Per table, what each code prints as, sorted by code: code, kind, value, name. */\n"
                        "const struct tsr_tc_print %s_tc_prints[] = {\n", lo);
    static const char *const kind[] = {"TSR_TC_PRINT_NAME", "TSR_TC_PRINT_INT", "TSR_TC_PRINT_FLOAT"};
    for (int t = 0; t < L.ntables; t++) {
        const struct tc_table *T = &L.tables[t];
        if (T->nprint)
            tsr_buf_printf(out, "    /* %s */\n", m->tables[t].name);
        for (int i = T->print; i < T->print + T->nprint; i++) {
            const struct tc_print *p = &L.prints[i];
            tsr_buf_printf(out, "    {%u, %s, 0x%08xu, ", (unsigned)p->code, kind[p->kind], (unsigned)p->val);
            gen_cstring(out, p->name);
            tsr_buf_puts(out, "},\n");
        }
    }
    tsr_buf_puts(out, L.nprints ? "};\n\n" : "    {0},\n};\n\n");
    tsr_buf_printf(out,
        "int %s_disasm(const uint32_t *w, uint64_t pc, struct tsr_buf *out)\n"
        "{\n    return tsr_tc_disasm(&%s_tc_isa, w, pc, out);\n}\n\n"
        "int %s_disasm_program(const uint32_t *w, size_t n, uint64_t base, struct tsr_buf *out)\n"
        "{\n    return tsr_tc_disasm_program(&%s_tc_isa, w, n, base, out);\n}\n",
        lo, lo, lo, lo);
    tsr_buf_puts(out, "\n");
    int rc = gen_disprint(m, &L, out, d);
    if (rc == 0)
        rc = gen_discheck(m, &L, out, d);
    tc_free(&L);
    return rc;
}
