/* The matches of one bundle part, for a legality pre-test of bundles that does not build their text
 * (the packer's, runtime/pack/pack_legal.c; docs/pack.md "Algorithm").  A public header of the text engine:
 * it names no private type.
 *
 * A bundle assembles only if each of its parts matches an op in a slot of one format, the parts in distinct
 * slots, and no field is bound to two values (asm_engine.c: `bind` refuses a second, different value).  So
 * for each part alone, the assembler's matcher lists every way it can match (a *path*: the format, the slot,
 * and every field the part's op, operands and optional groups bind, with its value; the fields the format's
 * selector binds are the same in every path of the format and left out), and a bundle none of whose choices of one path per part agree can be refused without asking the
 * assembler.  The paths are a superset of the ones a whole bundle can use: binding is monotone (a bind that
 * succeeds after other parts' bindings succeeds without them), and the checks, field equalities and defaults
 * that the final step adds are left out, so the test can only refuse what the assembler refuses. */
#ifndef TSR_ASM_PATHS_H
#define TSR_ASM_PATHS_H

#include <stddef.h>
#include <stdint.h>

#include "text/textcodec.h"

/* The matcher's scratch for one isa (the bundle assembler's, opaque here): not to be used by two threads at
 * once.  new aborts only when memory runs out. */
struct tsr_asm;
struct tsr_asm *tsr_asm_paths_scratch_new(const struct tsr_tc_isa *isa);
void tsr_asm_paths_scratch_free(struct tsr_asm *a);

/* One way a part matches: format `format` (an index of isa->formats), slot `slot` (of isa->slots), and the
 * fields bound, field[first .. first+n) with val[...] in increasing field order; sum has bit (field % 64)
 * of each (a quick filter: two paths with no common bit share no field). */
struct tsr_asm_path { uint16_t format, slot; uint32_t first, n; uint64_t sum; };
struct tsr_asm_paths {
    struct tsr_asm_path *p;
    size_t n, cap;
    uint16_t *field;
    uint64_t *val;
    size_t nfix, cfix;
};

#define TSR_ASM_MAX_PATHS 1024   /* more paths than this for one part: not listed (returns -1) */

/* Lists into *out (emptied first; its arrays reused) every path of the single bundle part s[0..n) at address
 * 0 without symbols, as the packer assembles its candidate bundles (t->assemble_one).  Identical paths are
 * listed once.  Returns 0 (no path at all: the part assembles in no bundle), or -1 when the paths are not
 * known: a text with `;`, an override group `{...}` or a directive, one whose match depends on the address or
 * on symbols, more than TSR_ASM_MAX_PATHS paths or the matcher's step limit (the caller must then assume
 * nothing).  a: scratch of the same isa (tsr_asm_paths_scratch_new). */
int tsr_asm_part_paths(struct tsr_asm *a, const char *s, size_t n, struct tsr_asm_paths *out);
void tsr_asm_paths_free(struct tsr_asm_paths *p);

#endif
