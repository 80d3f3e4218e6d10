/* X4 derived fields in the assembler (asm_derived.c): word-bit images of field values.  Private to runtime/text. */
#ifndef TSR_ASM_DERIVED_H
#define TSR_ASM_DERIVED_H
#include <stdbool.h>
#include <stdint.h>
#include "text/textcodec.h"

#define TSR_DV_CHUNKS 16   /* 1024-bit words (docs/mdl.md "The isa block": word at most 1024) */

/* Writes field's value v into the image img (TSR_DV_CHUNKS chunks, word bit b = bit b%64 of img[b/64]) at the
 * bits of its pieces (inverted pieces complemented) and sets those bits in mask.  isa->fpieces must be set. */
void tsr_dv_image(const struct tsr_tc_isa *isa, unsigned field, uint64_t v, uint64_t *img, uint64_t *mask);
/* The value of field read from the image. */
uint64_t tsr_dv_extract(const struct tsr_tc_isa *isa, unsigned field, const uint64_t *img);
/* Whether fields a = va and b = vb agree on every word bit they share. */
bool tsr_dv_agree(const struct tsr_tc_isa *isa, unsigned a, uint64_t va, unsigned b, uint64_t vb);
/* Whether fields a and b share a word bit. */
bool tsr_dv_overlap(const struct tsr_tc_isa *isa, unsigned a, unsigned b);
/* field's value v with the bits it shares with field `from` (= vfrom) taken from vfrom. */
uint64_t tsr_dv_route(const struct tsr_tc_isa *isa, unsigned field, uint64_t v, unsigned from, uint64_t vfrom);
#endif
