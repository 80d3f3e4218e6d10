/* Test support for the QPU validator's tests (tests/test_validate.c, test_validate_engine.c): programs of the
 * shared corpus as 64-bit instruction words (low word first) to read, disassemble and mutate, and the reports of
 * the generated validator on them (qpu_vdesc, runtime/validate/validate.h). */
#ifndef TESTS_SUPPORT_QPUVAL_H
#define TESTS_SUPPORT_QPUVAL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "validate/validate.h"

/* A program: n instructions, 2n words (low word first), named for messages. */
struct prog { uint32_t *w; size_t n; char name[64]; };

/* Reads corpus/qpu/gpu_fft_r3/hex/FILE of the shared directory (a failure fails the calling test). */
void prog_read_hex(struct prog *p, const char *file);
/* Reads the k-th (0..2) 'shader code' listing of the blob in seed 003 (tools/corpus.h corpus_blob_read). */
void prog_read_blob(struct prog *p, int k);
void prog_free(struct prog *p);
/* Instruction i's disassembly (malloc'd). */
char *prog_dis(const struct prog *p, size_t i);
/* The first instruction from `from` on whose disassembly starts with `prefix` (or contains it, if anywhere); none
 * fails the calling test. */
size_t prog_find(const struct prog *p, size_t from, const char *prefix, bool anywhere);
/* Assembles text as instruction i (a text that does not assemble fails the calling test). */
void prog_put(struct prog *p, size_t i, const char *text);
/* Sets field `field` (an index of struct qpu_inst's f[]) of instruction i to v. */
void prog_set_field(struct prog *p, size_t i, int field, uint64_t v);

/* The reports of one validation: n of them, the first 64 kept. */
struct found { int n; struct { char name[48]; uint32_t pc; char text[300]; } v[64]; };
/* The report callback (tsr_vreport_fn) that appends to the struct found at ctx. */
void found_collect(void *ctx, const struct tsr_vviol *v);
/* Validates p with the QPU's rules into *f (cleared first); returns the number of reports. */
size_t prog_validate(const struct prog *p, struct found *f);
/* Logs f's reports (cr_log_info), named after p. */
void found_log(const struct prog *p, const struct found *f);
#endif
