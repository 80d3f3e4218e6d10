/* The decoder's op selection (gen/emit_decode_slot.c), shared with gen/emit_codec.c's decode functions. */
#ifndef GEN_EMIT_DECODE_H
#define GEN_EMIT_DECODE_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "fileout.h"
#include "model.h"

/* Appends `<ind>inst->op[<slot s>] = <op>;` (op < 0: the target's NO_OP). */
void gen_decode_set_op(const struct mdl_model *m, int s, int op, const char *ind, struct tsr_buf *out);

/* The decoder's lookup tables: members of one file-scope `static const struct { <decl> } dec = { <init> };`
 * (gen_decode writes it when decl is not empty), named <format>_<slot>..., read as dec.<name>[...]. */
struct gen_dectab { struct tsr_buf decl, init; };

/* Appends the C that sets inst->op[s] for slot s of format fi: the first op of the slot in declaration order
 * whose encode conditions hold over the v_<field> locals (avail[f]: v_<f> is declared; other fields read 0),
 * NO_OP when none does.  Lookup tables go to `pre`.  always (NULL or
 * one per field): set for the fields the code reads on every path (a table's key and its conditions' fields; any
 * condition's for a switch or tests in order), not for those read only where the key's table leaves the choice to
 * a switch.  Returns 0, or -1 with a diagnostic in d. */
int gen_decode_slot(const struct mdl_model *m, int fi, int s, const bool *avail, struct gen_dectab *pre,
                    struct tsr_buf *out, bool *always, struct tsr_diag *d);

/* Packed field stores (gen/emit_decode_pack.c): fields f[first..first+k) from chunk d<chunk> in one store of `lanes`
 * fields (>= k: the others written 0, their own stores follow), lane j (bits F*j..) =
 * (((d<chunk> >> base) & mask(span)) * M >> R) & K. */
struct gen_pack { int first, k, lanes, chunk, base, span, R; uint64_t M, K; };

/* Plans the packed stores of the fields marked in store (of one format; needed: fields whose value the decoder
 * computes anyway; sel: the selector's fields, stored before the groups) in lanes of F bits: up to max groups into
 * out, by first field, their fields marked in packed[].  The groups' stores must come after sel's and before every
 * other field's.  Returns the number of groups (0 when F is 64). */
int gen_decode_pack_plan(const struct mdl_model *m, const bool *store, const bool *needed, const bool *sel, int F,
                         struct gen_pack *out, int max, bool *packed);
/* Appends the statement that stores group p (`dec_put(inst->f + <first>, <packed value>, k);`). */
void gen_decode_pack_emit(const struct mdl_model *m, const struct gen_pack *p, struct tsr_buf *out);
/* Appends the static inline dec_put the statements call (file scope; the file includes <string.h>). */
void gen_decode_pack_helper(const struct mdl_model *m, struct tsr_buf *out);

#endif
