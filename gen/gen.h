/* Emitters: one function per generated artefact. Each appends C text to `out` and returns 0, or reports
 * through diag and returns -1. mdlc (gen/mdlc.c) runs all of them into memory first and writes the files
 * only when every emitter succeeded (no partial output). Output is deterministic: no dates, no versions,
 * no pointer values, iteration in declaration order. */
#ifndef GEN_GEN_H
#define GEN_GEN_H
#include "model.h"
#include "fileout.h"
#include "diag.h"

/* <t>.h: the typed bundle (instruction) structure, format/slot/op/field enums, the simulator state struct
 * (gen_sim_header appends it), and prototypes of everything below.  The header is guarded by
 * `#pragma once` and has no closing #endif, so mdlc simply appends gen_sim_header's text to the same
 * buffer. */
int gen_header(const struct mdl_model *m, struct tsr_buf *out, struct tsr_diag *d);
int gen_sim_header(const struct mdl_model *m, struct tsr_buf *out, struct tsr_diag *d);  /* emit_sim_header.c */
int gen_tables(const struct mdl_model *m, struct tsr_buf *out, struct tsr_diag *d);   /* <t>_tables.c */
int gen_encode(const struct mdl_model *m, struct tsr_buf *out, struct tsr_diag *d);   /* <t>_encode.c */
int gen_decode(const struct mdl_model *m, struct tsr_buf *out, struct tsr_diag *d);   /* <t>_decode.c */
int gen_asm(const struct mdl_model *m, struct tsr_buf *out, struct tsr_diag *d);      /* <t>_asm.c */
int gen_disasm(const struct mdl_model *m, struct tsr_buf *out, struct tsr_diag *d);   /* <t>_disasm.c */
int gen_sim(const struct mdl_model *m, struct tsr_buf *out, struct tsr_diag *d);      /* <t>_sim.c */
int gen_target(const struct mdl_model *m, struct tsr_buf *out, struct tsr_diag *d);   /* <t>_target.c */
/* <t>_validate.c: the hazard validator's events and rules (gen/emit_validate.c, runtime/validate/validate.h). */
int gen_validate(const struct mdl_model *m, struct tsr_buf *out, struct tsr_diag *d);

/* (addition) emit_syntax.c: the declared assembly syntax `static const struct tsr_tc_syntax tc_syntax` (nothing
 * when the description declares none; <t>_tables.c's isa then has no `.syntax`). */
void gen_tc_syntax(const struct mdl_model *m, struct tsr_buf *out);

#endif
