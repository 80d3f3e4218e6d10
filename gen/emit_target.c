/* gen_target: <t>_target.c, `const struct tsr_target <t>_target` (runtime/target.h), the one
 * descriptor through which tools, tests and fuzzers use the target.
 *
 * The simulator descriptor `<t>_sim_desc` (runtime/sim/sim.h) is defined in <t>_sim.c by gen_sim.  The
 * reference is strong, so linking the target links its simulator: a weak one left `sim` NULL for every target
 * whose hooks do not happen to reference the simulator (only one target's did). */
#include <stdio.h>
#include <string.h>

#include "emit_util.h"
#include "opcopy.h"
#include "gen.h"

int gen_target(const struct mdl_model *m, struct tsr_buf *out, struct tsr_diag *d)
{
    (void)d;
    char lo[128], up[128];
    snprintf(lo, sizeof lo, "%s", gen_lower(m));
    snprintf(up, sizeof up, "%s", gen_upper(m));
    gen_banner(m, out);
    tsr_buf_printf(out, "#include \"%s.h\"\n\n", m->name);
    tsr_buf_printf(out,
        "struct tsr_sim_desc;\n"
        "/* Defined by the generated simulator (%s_sim.c). */\n"
        "extern const struct tsr_sim_desc %s_sim_desc;\n\n", lo, lo);
    tsr_buf_printf(out,
        "static int decode(const uint32_t *w, void *inst) { return %s_decode(w, inst); }\n"
        "static int encode(const void *inst, uint32_t *w) { return %s_encode(inst, w); }\n\n"
        "static unsigned inst_format(const void *inst)\n"
        "{\n    return ((const struct %s_inst *)inst)->format;\n}\n\n"
        "static unsigned inst_op(const void *inst, unsigned slot)\n"
        "{\n    return slot < %s_NSLOTS ? ((const struct %s_inst *)inst)->op[slot] : %s_NO_OP;\n}\n\n"
        "static uint64_t inst_field(const void *inst, unsigned field)\n"
        "{\n    return %s_field(inst, field);   /* 0 when field >= %s_NFIELDS */\n}\n\n",
        lo, lo, lo, up, lo, up, lo, up);
    tsr_buf_puts(out, "static const unsigned char field_width[] = {");
    for (int i = 0; i < m->nfields; i++)
        tsr_buf_printf(out, "%s%d", i ? ", " : "", m->fields[i].width);
    tsr_buf_puts(out, m->nfields ? "};\n\n" : "0};\n\n");
    tsr_buf_puts(out, "static const unsigned short op_slot[] = {");
    for (int i = 0; i < m->nops; i++)
        tsr_buf_printf(out, "%s%d", i ? ", " : "", m->ops[i].slot);
    tsr_buf_puts(out, m->nops ? "};\n\n" : "0};\n\n");
    /* (X7) each op's declaration: the first instance of the same `op NAME : S1 | S2 ...` (the instances share the
     * declaration's place); a wide op's span ops and ops declared alone are their own */
    tsr_buf_puts(out, "static const unsigned short op_decl[] = {");
    for (int i = 0; i < m->nops; i++) {
        int f = i;
        for (int j = 0; j < i && f == i && !m->ops[i].is_span; j++)
            if (!m->ops[j].is_span && m->ops[j].loc.line == m->ops[i].loc.line &&
                m->ops[j].loc.col == m->ops[i].loc.col && m->ops[j].loc.file == m->ops[i].loc.file)
                f = j;
        tsr_buf_printf(out, "%s%d", i ? ", " : "", f);
    }
    tsr_buf_puts(out, m->nops ? "};\n\n" : "0};\n\n");
    /* (X12) the plain copies among the `move` ops (mdl/opcopy.c): the packer moves only those to another unit */
    int move_attr = -1;
    for (int a = 0; a < m->nattrs && a < 64; a++)
        if (!strcmp(m->attrs[a], "move"))
            move_attr = a;
    tsr_buf_puts(out, "static const unsigned char op_copy[] = {");
    for (int i = 0; i < m->nops; i++)
        tsr_buf_printf(out, "%s%d", i ? ", " : "", mdl_op_plain_copy(m, i, move_attr) ? 1 : 0);
    tsr_buf_puts(out, m->nops ? "};\n\n" : "0};\n\n");
    tsr_buf_puts(out, "static const uint64_t op_attrs[] = {");
    for (int i = 0; i < m->nops; i++)
        tsr_buf_printf(out, "%s0x%llxu", i ? ", " : "", (unsigned long long)m->ops[i].attrs);
    tsr_buf_puts(out, m->nops ? "};\n\n" : "0};\n\n");
    tsr_buf_puts(out, "static const char *const attr_names[] = {");
    for (int i = 0; i < m->nattrs; i++) {
        struct tsr_buf q = {0};
        gen_cstring(&q, m->attrs[i]);
        tsr_buf_printf(out, "%s%s", i ? ", " : "", q.data);
        tsr_buf_free(&q);
    }
    tsr_buf_puts(out, m->nattrs ? "};\n\n" : "NULL};\n\n");
    tsr_buf_printf(out,
        "static void inst_set_field(void *inst, unsigned field, uint64_t v)\n"
        "{\n"
        "    if (field < %s_NFIELDS)\n"
        "        %s_set_field((struct %s_inst *)inst, field,\n"
        "            field_width[field] >= 64 ? v : v & ((UINT64_C(1) << field_width[field]) - 1));\n"
        "}\n\n", up, lo, lo);
    tsr_buf_printf(out,
        "const struct tsr_target %s_target = {\n"
        "    .name = \"%s\",\n"
        "    .word_bits = %d, .nwords = %d, .lanes = %d, .pc_step = %d, .word_msw_first = %d,\n"
        "    .inst_size = sizeof(struct %s_inst),\n"
        "    .decode = decode, .encode = encode,\n"
        "    .disasm = %s_disasm, .disasm_program = %s_disasm_program,\n"
        "    .assemble = %s_assemble, .assemble_one = %s_assemble_one,\n"
        "    .nformats = %s_NFORMATS, .nslots = %s_NSLOTS, .nops = %s_NOPS, .nfields = %s_NFIELDS,\n"
        "    .format_names = %s_format_names, .slot_names = %s_slot_names,\n"
        "    .op_names = %s_op_names, .op_slot = op_slot, .op_decl = op_decl, .op_copy = op_copy,\n"
        "    .op_attrs = op_attrs, .nattrs = %d, .attr_names = attr_names,\n"
        "    .field_names = %s_field_names, .field_width = field_width,\n"
        "    .inst_format = inst_format, .inst_op = inst_op, .inst_field = inst_field,\n"
        "    .inst_set_field = inst_set_field,\n"
        "    .text = &%s_tc_isa,\n"
        "    .sim = &%s_sim_desc,\n"
        "    .validate = %s_validate,\n"
        "    .vdesc = &%s_vdesc,\n"
        "};\n",
        lo, m->name, m->word_bits, m->word_bits / 32, m->lanes, m->pc_step, m->word_msw_first, lo, lo, lo, lo, lo, up, up, up, up, lo,
        lo, lo, m->nattrs, lo, lo, lo, lo, lo);
    return 0;
}
