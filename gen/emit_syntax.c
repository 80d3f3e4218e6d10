/* (addition) The assembly source's declared syntax (mdl `asm { ... }`, mdl/check_asm.c) as the generic front end
 * reads it: `struct tsr_tc_syntax tc_syntax` in <t>_tables.c (runtime/text/textcodec.h, docs/asm.md "Declared
 * syntax"), named by the isa's `.syntax` member.  A description without the block gets neither (the tables of
 * such a description are the same as before the block existed). */
#include "emit_util.h"
#include "gen.h"
#include "model.h"

void gen_tc_syntax(const struct mdl_model *m, struct tsr_buf *out)
{
    const struct mdl_syntax *sx = m->syntax;
    if (!sx)
        return;
    tsr_buf_puts(out, "/* the declared assembly syntax (asm { ... }) */\nstatic const struct tsr_tc_section tc_sections[] = {\n");
    for (int i = 0; i < sx->nsections; i++) {
        const struct mdl_section *s = &sx->sections[i];
        tsr_buf_puts(out, "    {");
        gen_cstring(out, s->name);
        tsr_buf_printf(out, ", %s, ", s->kind == MDL_SEC_CODE ? "TSR_TC_SEC_CODE" : s->kind == MDL_SEC_NAMES
                                                               ? "TSR_TC_SEC_NAMES" : "TSR_TC_SEC_VALUES");
        if (s->state >= 0)
            gen_cstring(out, m->states[s->state].name);
        else
            tsr_buf_puts(out, "NULL");
        tsr_buf_printf(out, ", %du, ", s->state >= 0 ? m->states[s->state].count : 0);
        gen_cstring(out, s->comps);
        tsr_buf_puts(out, "},\n");
    }
    if (!sx->nsections)
        tsr_buf_puts(out, "    {\"\", TSR_TC_SEC_CODE, NULL, 0u, \"\"},\n");
    tsr_buf_puts(out, "};\nstatic const struct tsr_tc_syntax tc_syntax = {\n    .bundle_end = ");
    if (sx->bundle_end)
        gen_cstring(out, sx->bundle_end);
    else
        tsr_buf_puts(out, "NULL");
    tsr_buf_printf(out, ",\n    .ncomments = %d, .comments = {", sx->ncomments);
    for (int i = 0; i < sx->ncomments; i++) {
        tsr_buf_puts(out, i ? ", " : "");
        gen_cstring(out, sx->comments[i]);
    }
    tsr_buf_puts(out, "},\n    .block_open = ");
    if (sx->block_open) {
        gen_cstring(out, sx->block_open);
        tsr_buf_puts(out, ", .block_close = ");
        gen_cstring(out, sx->block_close);
    } else {
        tsr_buf_puts(out, "NULL, .block_close = NULL");
    }
    tsr_buf_printf(out, ",\n    .nsections = %d, .sections = tc_sections,\n};\n\n", sx->nsections);
}
