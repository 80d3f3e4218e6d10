/* Test support: the disassembler's two printers compared (runtime/text/dis_print.h), for any description.
 *
 * dp_same prints one instruction with the printer mdlc generated per op and with the interpreted one
 * (print_seq), up to the last non-default slot or every slot, and compares all they give: whether it printed,
 * the text, the labels, the printed-path record (events and slots); for the generated printer it also checks
 * the bounds mdlc gives each op (events and bytes of each printed slot).  dp_program_same compares the whole
 * disassembler's output (round-trip check, overrides, labels) with either printer. */
#ifndef TESTS_SUPPORT_DISPRINT_H
#define TESTS_SUPPORT_DISPRINT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tsr.h"

struct dp_tally { size_t words, printed, unprinted, labels, events, slots; };

/* G and I: tsr_tc_printer_new(isa, true) and (isa, false).  Returns true when both agree (and the bounds
 * hold); else false with the first difference described in why (whylen bytes).  Counts into t. */
bool dp_same(const struct tsr_tc_isa *isa, struct tsr_tc_printer *G, struct tsr_tc_printer *I, const uint32_t *w,
             uint64_t pc, bool all, struct dp_tally *t, char *why, size_t whylen);

/* dp_same up to the last non-default slot, and also for every slot when both: the number of differences, each
 * described on standard error. */
size_t dp_check(const struct tsr_tc_isa *isa, struct tsr_tc_printer *G, struct tsr_tc_printer *I, const uint32_t *w,
                uint64_t pc, bool both, struct dp_tally *t);

/* tsr_tc_disasm_program of n instructions at base 0 with the generated printer into a and with the interpreted
 * one (TESSERA_DIS_PRINTER=interp) into b (both cleared first).  True when the texts are identical. */
bool dp_program_same(const struct tsr_tc_isa *isa, const uint32_t *w, size_t n, struct tsr_buf *a, struct tsr_buf *b);

/* xorshift64* step of *s. */
uint64_t dp_rng(uint64_t *s);
#endif
