/* (addition) X12: plain copies among the `move` ops (mdl/opcopy.c; docs/mdl.md X12). */
#ifndef MDL_OPCOPY_H
#define MDL_OPCOPY_H
#include <stdbool.h>
#include "model.h"

/* Is op `op` a plain copy: a `move` op (attribute index move_attr, -1: none) with one source each of whose
 * assignments writes that source unchanged, unmasked, through casts between u32, i32 and f32 only (they reinterpret
 * the bits), once the fields its encode conditions bind and the 1-bit fields its template's optional parts set
 * (`{?'-' n0 == 1}`) take their values, the latter as when the part's text is absent; a conditional the known
 * fields do not decide must be a copy in both arms.  False for any other op and for a converting move (a
 * conversion, a negation, a constant): `u32(n0 == 1 ? fneg(x) : f32(x))` with `{?'-' n0 == 1}` is a copy,
 * `u32(itof(x))` is not. */
bool mdl_op_plain_copy(const struct mdl_model *m, int op, int move_attr);

#endif
