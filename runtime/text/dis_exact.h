/* The disassembler's proof that a printed bundle is exact without assembling it again (dis_exact.c).
 * Not a public interface: used by dis_engine.c only.
 *
 * The printer logs what it printed (one event per template part, in print order) and the prover
 * shows, from the text and that log alone, that the assembler (asm_engine.c) would read the text back
 * to the same fields with no override: see dis_exact.c for the argument.  When it cannot show it, the
 * disassembler runs the full round-trip check as before, so the output never depends on the proof.
 */
#ifndef TSR_DIS_EXACT_H
#define TSR_DIS_EXACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "text/textcodec.h"

/* One printed template part: its text is [pos, end) of the bundle's text (byte offsets from the start of the
 * bundle).  what: OPND the index of the alternative printed (within the operand), OPT 1 when the optional
 * text was printed, TABLE the enum tsr_tc_pkind of the entry printed; 0 otherwise. */
struct tsr_dis_ev {
    uint32_t pos, end;
    uint32_t what;
};

/* One printed slot (a `;`-separated part of the bundle's text): the slot's position t in its format and
 * its events ev[first ..]. */
struct tsr_dis_slotp {
    uint32_t t;
    uint32_t first;
};

/* A table's names found at a place of the current bundle (dis_exact.c names_memo). */
#define TSR_DIS_NMEMO 16
#define TSR_DIS_NNAMES 8
struct tsr_dis_names {
    uint32_t key, pos;    /* table index << 1 | bound; byte offset */
    int n;                /* names found (len, code), or -1: more than TSR_DIS_NNAMES */
    uint32_t len[TSR_DIS_NNAMES], code[TSR_DIS_NNAMES];
};

/* Scratch of the prover (zeroed, then reused; tsr_dis_exact_free releases it). */
struct tsr_dis_exact {
    struct tsr_dis_names memo[TSR_DIS_NMEMO];
    unsigned nmemo, nmemo_next;
    uint8_t *bound;       /* per field: set by the text or a binding condition */
    uint32_t *root;       /* per table and ASCII character: the trie node of the root's child, or 0 */
    uint16_t *eq;         /* FIELD == FIELD pairs met on the way (2 entries each) */
    size_t neq, ceq;
    unsigned steps;       /* budget of the text-only matcher for one bundle */
};

/* Whether the assembler, given text[0..len) (the bundle printed from inst, a decoded struct <t>_inst),
 * returns inst's format and exactly its fields and ignored bits; false when that is not certain.  ev[0..nev)
 * and sp[0..nsp) are the printer's log.  Never reads outside text[0..len). */
bool tsr_dis_exact(const struct tsr_tc_isa *isa, struct tsr_dis_exact *x, const void *inst, const char *text,
                   size_t len, const struct tsr_dis_ev *ev, size_t nev, const struct tsr_dis_slotp *sp, size_t nsp);

void tsr_dis_exact_free(struct tsr_dis_exact *x);

#endif
