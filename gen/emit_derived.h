/* Derived fields in the narrow struct <t>_inst (gen/emit_derived.c). */
#ifndef GEN_EMIT_DERIVED_H
#define GEN_EMIT_DERIVED_H

#include "fileout.h"
#include "model.h"

/* Appends to the header, after struct <t>_inst: `uint64_t <t>_field(const struct <t>_inst *, unsigned i)` and
 * `void <t>_set_field(struct <t>_inst *, unsigned i, uint64_t v)`, static inline, which read and write a derived
 * field (X4 slice or composite; not stored by <t>_decode) through the bits of the format's fields that hold it,
 * and any other field as f[i]. */
void gen_derived_header(const struct mdl_model *m, struct tsr_buf *out);

/* Appends a uint64_t C expression of derived field i (m->fields[i].derived) of the struct <t>_inst that the C
 * expression `in` points to: <t>_field(in, i) written out, so that a reader that knows i (the generated
 * simulator) needs no call and its compiler sees the loads: a test of the format for each format that holds all
 * of i's bits, 0 for the others; no test when every format holds them in the same fields' bits.  So in->format
 * must be one of the description's formats (the simulator reads fields only in its switch on the format). */
void gen_derived_read(const struct mdl_model *m, int i, const char *in, struct tsr_buf *out);

#endif
