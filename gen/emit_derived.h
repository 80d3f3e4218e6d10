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

#endif
