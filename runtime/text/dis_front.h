/* The program printers in a declared source syntax (docs/asm.md "Declared syntax"): each instruction line
 * `    A; B; C` becomes the bundle over lines, one part a line, ended by the declared bundle end, which the
 * assembler's front end (asm_front.c) reads back to the same words.  Private to runtime/text. */
#ifndef TSR_DIS_FRONT_H
#define TSR_DIS_FRONT_H

#include <stddef.h>

#include "fileout.h"
#include "text/textcodec.h"

/* Appends the whole lines in[0..n) to out, rewritten: an instruction line (four spaces, then not `.word`) as
 * `    A` / `        B` ... / `    END`; label lines and `.word` lines as they are. */
void tsr_dis_front_rewrite(const struct tsr_tc_syntax *sx, const char *in, size_t n, struct tsr_buf *out);

/* A tsr_tc_sink that rewrites the text given to it (pieces cut anywhere) and passes it on to sink. */
struct tsr_dis_front_sink {
    const struct tsr_tc_syntax *sx;
    tsr_tc_sink sink;
    void *ctx;
    struct tsr_buf pend, out;   /* a line not ended yet; the rewritten piece */
};
int tsr_dis_front_put(void *ctx, const char *data, size_t len);
/* The last line (if not ended by a newline) and the buffers freed.  Returns the sink's answer (0 or -1). */
int tsr_dis_front_flush(struct tsr_dis_front_sink *s);

#endif
