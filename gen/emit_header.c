/* gen_header: <t>.h, the typed instruction of a target and the prototypes of its generated code.
 *
 * The header uses `#pragma once` (no closing #endif), so gen_sim_header (gen/emit_sim_header.c) can append
 * the simulator's declarations to the same buffer. */
#include <stdio.h>

#include "emit_derived.h"
#include "emit_util.h"
#include "gen.h"

static void field_bits(const struct mdl_field *f, struct tsr_buf *out)
{
    tsr_buf_puts(out, "[");
    for (int i = 0; i < f->npieces; i++) {
        const struct mdl_piece *p = &f->pieces[i];
        tsr_buf_printf(out, "%s%s", i ? ", " : "", p->inverted ? "~" : "");
        if (p->hi == p->lo)
            tsr_buf_printf(out, "%d", p->hi);
        else
            tsr_buf_printf(out, "%d:%d", p->hi, p->lo);
    }
    tsr_buf_printf(out, "]%s", f->is_signed ? " signed" : "");
}

int gen_header(const struct mdl_model *m, struct tsr_buf *out, struct tsr_diag *d)
{
    (void)d;
    char lo[128], up[128];
    snprintf(lo, sizeof lo, "%s", gen_lower(m));
    snprintf(up, sizeof up, "%s", gen_upper(m));
    int nw = m->word_bits / 32;

    gen_banner(m, out);
    tsr_buf_printf(out,
        "/* %s: the decoded instruction (bundle) and the generated encoder, decoder, assembler and\n"
        " * disassembler.  Tools reach the same code through `%s_target` (runtime/target.h). */\n"
        "#pragma once\n\n"
        "#include <stdbool.h>\n#include <stddef.h>\n#include <stdint.h>\n\n"
        "#include \"target.h\"\n#include \"text/textcodec.h\"\n#include \"text/dis_print.h\"\n\n"
        "struct tsr_buf;\nstruct tsr_words;\nstruct tsr_diag;\n\n", m->name, lo);
    tsr_buf_printf(out,
        "#define %s_WORD_BITS %d   /* bits per instruction word */\n"
        "#define %s_NWORDS %d      /* uint32_t per instruction, low word first */\n"
        "#define %s_LANES %d\n"
        "#define %s_PC_STEP %d     /* bytes from one instruction to the next */\n"
        "#define %s_NO_OP TSR_NO_OP\n"
        "#define %s_NO_FORMAT TSR_NO_FORMAT\n\n",
        up, m->word_bits, up, nw, up, m->lanes, up, m->pc_step, up, up);

    /* enums */
    tsr_buf_printf(out, "/* Formats, in declaration order (the order the decoder tries them). */\nenum %s_format {\n", lo);
    for (int i = 0; i < m->nformats; i++) {
        tsr_buf_puts(out, "    ");
        gen_format_enum(m, i, out);
        tsr_buf_printf(out, ",\n");
    }
    tsr_buf_printf(out, "    %s_NFORMATS\n};\n\n", up);

    tsr_buf_printf(out, "/* Issue slots (index of struct %s_inst.op). */\nenum %s_slot {\n", lo, lo);
    for (int i = 0; i < m->nslots; i++) {
        tsr_buf_puts(out, "    ");
        gen_slot_enum(m, i, out);
        tsr_buf_printf(out, ",\n");
    }
    tsr_buf_printf(out, "    %s_NSLOTS\n};\n\n", up);

    tsr_buf_printf(out, "/* Fields (index of struct %s_inst.f), with their word bits. */\nenum %s_field {\n", lo, lo);
    for (int i = 0; i < m->nfields; i++) {
        tsr_buf_puts(out, "    ");
        gen_field_enum(m, i, out);
        tsr_buf_puts(out, ",   /* ");
        field_bits(&m->fields[i], out);
        tsr_buf_puts(out, " */\n");
    }
    tsr_buf_printf(out, "    %s_NFIELDS\n};\n\n", up);

    tsr_buf_printf(out, "/* Operations, in declaration order (the decoder's priority within a slot). */\nenum %s_op {\n", lo);
    for (int i = 0; i < m->nops; i++) {
        tsr_buf_puts(out, "    ");
        gen_op_enum(m, i, out);
        tsr_buf_printf(out, ",   /* %s: %s */\n", m->ops[i].slot >= 0 ? m->slots[m->ops[i].slot].name : "?",
                       m->ops[i].name);
    }
    tsr_buf_printf(out, "    %s_NOPS\n};\n\n", up);

    int wmax = gen_field_wmax(m);
    tsr_buf_printf(out,
        "/* One decoded instruction.  `format` is the format whose selector holds (or %s_NO_FORMAT:\n"
        " * then ignored[] holds the whole word); op[s] the operation decoded in slot s (the first in\n"
        " * declaration order whose encode conditions hold; %s_NO_OP when none does or s is not a slot\n"
        " * of the format); f[i] the raw code of field i (zero-extended; 0 for fields not in the\n"
        " * format); ignored[] the word bits under the format's ignore ranges, in place (other bits 0).\n"
        " * The encoder reads only format, f and ignored, so decode then encode is exact.\n"
        " * f[] is of the narrowest unsigned type that holds the widest field (%d bits), so that decode stores\n"
        " * and encode reads as few bytes as they can.  A derived field (a slice or composite of other fields'\n"
        " * bits) is not stored here (its f[i] is unspecified): %s_field() computes it from the fields that hold\n"
        " * its bits, %s_set_field() writes those; the encoder reads only the format's own fields. */\n"
        "typedef %s %s_field_t;\n"
        "struct %s_inst {\n"
        "    uint8_t format;\n"
        "    uint16_t op[%d];\n"
        "    uint32_t ignored[%s_NWORDS];\n"
        "    %s_field_t f[%d];\n"
        "};\n\n",
        up, up, wmax, lo, lo, gen_field_ctype(m), lo, lo, m->nslots > 0 ? m->nslots : 1, up, lo,
        m->nfields > 0 ? m->nfields : 1);
    tsr_buf_printf(out,
        "/* The same instruction as the text engine reads it (runtime/text: <t>_tc_isa's decode, decode_next and\n"
        " * encode, whose generic code reads fields by index as uint64_t): the members of struct %s_inst, with\n"
        " * f[] as uint64_t. */\n"
        "struct %s_tinst {\n"
        "    uint8_t format;\n"
        "    uint16_t op[%d];\n"
        "    uint32_t ignored[%s_NWORDS];\n"
        "    uint64_t f[%d];\n"
        "};\n\n",
        lo, lo, m->nslots > 0 ? m->nslots : 1, up, m->nfields > 0 ? m->nfields : 1);
    gen_derived_header(m, out);

    tsr_buf_printf(out,
        "/* Helpers of the generated conditions: division and remainder by zero give 0. */\n"
        "static inline uint64_t tsr_gen_udiv(uint64_t a, uint64_t b) { return b ? a / b : 0; }\n"
        "static inline uint64_t tsr_gen_umod(uint64_t a, uint64_t b) { return b ? a %% b : 0; }\n"
        "static inline uint64_t tsr_gen_sdiv(uint64_t a, uint64_t b)\n"
        "{\n    return (int64_t)b == 0 || ((int64_t)a == INT64_MIN && (int64_t)b == -1) ? 0\n"
        "           : (uint64_t)((int64_t)a / (int64_t)b);\n}\n"
        "static inline uint64_t tsr_gen_smod(uint64_t a, uint64_t b)\n"
        "{\n    return (int64_t)b == 0 || (int64_t)b == -1 ? 0 : (uint64_t)((int64_t)a %% (int64_t)b);\n}\n\n");

    tsr_buf_printf(out,
        "/* Decodes %s_NWORDS words (low first) into *inst.  Returns 0, or -1 when no format's selector\n"
        " * holds (format = %s_NO_FORMAT, the word kept in ignored[]). */\n"
        "int %s_decode(const uint32_t *w, struct %s_inst *inst);\n"
        "/* %s_decode's result, into *inst that holds the result of an earlier %s_decode or %s_decode_next (of\n"
        " * any words) or whose format is %s_NO_FORMAT: what is already right for the words' format is not\n"
        " * written again (fields and slots outside it).  Returns as %s_decode. */\n"
        "int %s_decode_next(const uint32_t *w, struct %s_inst *inst);\n"
        "/* The format %s_decode would pick for the words, or %s_NO_FORMAT; nothing else is decoded. */\n"
        "int %s_decode_format(const uint32_t *w);\n"
        "/* Encodes *inst (format, f, ignored) into %s_NWORDS words.  Returns 0. */\n"
        "int %s_encode(const struct %s_inst *inst, uint32_t *w);\n"
        "/* %s_decode, %s_decode_next and %s_encode on the text engine's struct %s_tinst: the same results. */\n"
        "int %s_tdecode(const uint32_t *w, struct %s_tinst *inst);\n"
        "int %s_tdecode_next(const uint32_t *w, struct %s_tinst *inst);\n"
        "int %s_tencode(const struct %s_tinst *inst, uint32_t *w);\n\n",
        up, up, lo, lo, lo, lo, lo, up, lo, lo, lo, lo, up, lo, up, lo, lo, lo, lo, lo, lo, lo, lo, lo, lo, lo, lo);
    tsr_buf_printf(out,
        "/* Text (runtime/target.h describes each): one instruction, a program, and the assembler. */\n"
        "int %s_disasm(const uint32_t *w, uint64_t pc, struct tsr_buf *out);\n"
        "int %s_disasm_program(const uint32_t *w, size_t n, uint64_t base, struct tsr_buf *out);\n"
        "int %s_assemble(const char *path, const char *text, size_t len, struct tsr_words *out,\n"
        "                struct tsr_diag *d);\n"
        "int %s_assemble_one(const char *text, size_t len, uint64_t pc, uint32_t *w, char *err, size_t errlen);\n\n",
        lo, lo, lo, lo);
    tsr_buf_printf(out,
        "/* Names, indexed by the enums above. */\n"
        "extern const char *const %s_format_names[%s_NFORMATS + 1];\n"
        "extern const char *const %s_slot_names[%s_NSLOTS + 1];\n"
        "extern const char *const %s_field_names[%s_NFIELDS + 1];\n"
        "extern const char *const %s_op_names[%s_NOPS + 1];\n\n"
        "/* The assembler/disassembler tables (%s_tables.c) and the target descriptor (%s_target.c). */\n"
        "extern const struct tsr_tc_isa %s_tc_isa;\n"
        "extern const struct tsr_target %s_target;\n"
        "/* Parts of %s_tc_isa: the assembler's names and numbers (%s_asm.c), the disassembler's\n"
        " * print entries and the printer generated per op (%s_disasm.c). */\n"
        "extern const struct tsr_tc_name %s_tc_names[];\n"
        "extern const struct tsr_tc_trie %s_tc_tries[];\n"
        "extern const struct tsr_tc_num %s_tc_nums[];\n"
        "extern const struct tsr_tc_print %s_tc_prints[];\n"
        "extern const struct tsr_tc_pop %s_tc_pops[];\n"
        "extern const struct tsr_tc_pfmt %s_tc_pfmts[];\n"
        "/* The fast form of the exactness proof generated per op (%s_disasm.c; text/dis_fx.h). */\n"
        "struct tsr_fx_desc;\n"
        "extern const struct tsr_fx_desc %s_fx;\n\n",
        lo, up, lo, up, lo, up, lo, up, lo, lo, lo, lo, lo, lo, lo, lo, lo, lo, lo, lo, lo, lo, lo);
    tsr_buf_printf(out,
        "/* The hazard validator (%s_validate.c; runtime/validate/validate.h): the events of a bundle and the\n"
        " * description's resources and rules, and the check of a whole program (%s_target.validate). */\n"
        "struct tsr_vdesc;\n"
        "extern const struct tsr_vdesc %s_vdesc;\n"
        "int %s_validate(const uint32_t *w, size_t n, uint64_t base, struct tsr_diag *d, const char *path);\n\n",
        lo, lo, lo, lo);
    return 0;
}
