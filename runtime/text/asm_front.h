/* The program-level assembler's front end for a declared source syntax (mdl `asm { ... }`, docs/asm.md "Declared
 * syntax"; struct tsr_tc_syntax): it reads the source a physical line at a time and hands the bundle level
 * (asm_program.c) logical lines in the default syntax: a bundle that runs over several lines until its declared
 * end becomes one line of parts separated by `;`, comments (line and block, across lines) are blanked, and the
 * entries of the declared sections (names, values) become program metadata (runtime/progmeta.h).  Private to
 * runtime/text. */
#ifndef TSR_ASM_FRONT_H
#define TSR_ASM_FRONT_H

#include <stddef.h>
#include <stdint.h>

#include "progmeta.h"
#include "text/textcodec.h"

/* Where the bytes of a logical line came from: bytes off.. (up to the next segment) are the source's line:col.. */
struct tsr_front_seg { uint32_t off; unsigned line, col; };

/* A logical line: len bytes at text, whose first byte is at source line `line`; seg[0..nseg) map every offset
 * back to the source (tsr_front_map). */
typedef void (*tsr_front_logical)(void *ctx, const char *text, size_t len, unsigned line,
                                  const struct tsr_front_seg *seg, size_t nseg);
/* An error of the front end itself, at source line:col (1-based). */
typedef void (*tsr_front_error)(void *ctx, unsigned line, unsigned col, const char *msg);

struct tsr_asm_front;
struct tsr_asm_front *tsr_asm_front_new(const struct tsr_tc_isa *isa);
void tsr_asm_front_free(struct tsr_asm_front *F);
/* Starts a pass over the source (its first line is line 1): logical lines go to out, errors to err (NULL: not
 * reported, as in the labels' pass), section entries to *meta (NULL: not kept). */
void tsr_asm_front_pass(struct tsr_asm_front *F, tsr_front_logical out, tsr_front_error err, void *ctx,
                        struct tsr_progmeta **meta);
/* The next physical line [lb, le) (without its newline). */
void tsr_asm_front_line(struct tsr_asm_front *F, const char *lb, const char *le);
/* The end of the source: a bundle not ended, or a block comment not closed, is an error at its start. */
void tsr_asm_front_finish(struct tsr_asm_front *F);
/* The source line and column of offset x of a logical line. */
void tsr_front_map(const struct tsr_front_seg *seg, size_t nseg, size_t x, unsigned *line, unsigned *col);

#endif
