/* The decoder's op selection (gen/emit_decode_slot.c), shared with gen/emit_codec.c's decode functions. */
#ifndef GEN_EMIT_DECODE_H
#define GEN_EMIT_DECODE_H

#include <stdbool.h>

#include "diag.h"
#include "fileout.h"
#include "model.h"

/* Appends `<ind>inst->op[<slot s>] = <op>;` (op < 0: the target's NO_OP). */
void gen_decode_set_op(const struct mdl_model *m, int s, int op, const char *ind, struct tsr_buf *out);

/* Appends the C that sets inst->op[s] for slot s of format fi: the first op of the slot in declaration order
 * whose encode conditions hold over the v_<field> locals (avail[f]: v_<f> is declared; other fields read 0),
 * NO_OP when none does.  Lookup tables go to `pre` (file scope, named dec_<format>_<slot>...).  Returns 0, or -1
 * with a diagnostic in d. */
int gen_decode_slot(const struct mdl_model *m, int fi, int s, const bool *avail, struct tsr_buf *pre,
                    struct tsr_buf *out, struct tsr_diag *d);

#endif
