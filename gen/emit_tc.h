/* The text-codec layout: the model's syntax flattened into the arrays of runtime/text/textcodec.h.
 * gen_tables, gen_asm and gen_disasm each build the same layout (deterministically) and emit their
 * share of it: <t>_tables.c the shared arrays, the check function and `<t>_tc_isa`; <t>_asm.c the
 * sorted name and number arrays the assembler searches; <t>_disasm.c the per-code print arrays. */
#ifndef GEN_EMIT_TC_H
#define GEN_EMIT_TC_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "fileout.h"
#include "model.h"

struct tc_part { int kind; bool bound, pcrel; int field, arg, cond, ncond; uint32_t unit; int64_t pcoff; const char *text; int len; };
struct tc_cond { int kind; int field, field2, id; uint64_t val; const struct mdl_expr *e; char *text; };
struct tc_alt { int part, npart, cond, ncond, verb; };
struct tc_op { int part, npart, cond, ncond, def, ndef, keylen; char *key; bool exact; uint64_t req[2]; };
struct tc_fmt { int slot, nslot, field, nfield, cond, ncond, def, ndef, ign, nign; };
struct tc_table { int name, nname, minlen, maxlen, num, nnum, print, nprint, trie; bool dense; };
struct tc_trie { int ch, nkid, kid; int64_t code; };
struct tc_name { const char *name; uint32_t code; };
struct tc_num { uint32_t code, val; bool fl; };
struct tc_print { uint32_t code; int kind; uint32_t val; const char *name; };
struct tc_def { int field; uint64_t val; };
struct tc_range { int hi, lo; };

#define TC_ARRAY(T, name) T *name; int n##name, c##name
struct tc_layout {
    TC_ARRAY(struct tc_part, parts);
    TC_ARRAY(struct tc_cond, conds);
    TC_ARRAY(struct tc_alt, alts);
    TC_ARRAY(struct tc_op, ops);        /* one per model op */
    TC_ARRAY(struct tc_fmt, fmts);      /* one per model format */
    TC_ARRAY(struct tc_table, tables);  /* one per model table */
    TC_ARRAY(struct tc_name, names);
    TC_ARRAY(struct tc_trie, tries);
    TC_ARRAY(struct tc_num, nums);
    TC_ARRAY(struct tc_print, prints);
    TC_ARRAY(struct tc_def, defs);
    TC_ARRAY(struct tc_range, ranges);
    TC_ARRAY(int, idx);
    int *opnd_alt;                      /* per model operand: first alt */
    int *slot_op;                       /* per model slot: first entry in idx */
    int nchecks;
};

/* Builds the layout.  Returns 0, or -1 after reporting what the text codec cannot express (e.g. a
 * template using the bundle separator ';'). */
int tc_build(const struct mdl_model *m, struct tc_layout *L, struct tsr_diag *d);
void tc_free(struct tc_layout *L);

/* Appends the generated printer (gen/emit_disprint.c, runtime/text/dis_print.h) for the layout to <t>_disasm.c:
 * per op a print function and `<t>_tc_pops[]`.  Returns 0, or -1 after reporting a condition it cannot compile. */
int gen_disprint(const struct mdl_model *m, const struct tc_layout *L, struct tsr_buf *out, struct tsr_diag *d);
/* The fast form of the exactness proof per op (emit_discheck.c; runtime/text/dis_fx.h), appended after it. */
int gen_discheck(const struct mdl_model *m, const struct tc_layout *L, struct tsr_buf *out, struct tsr_diag *d);

#endif
