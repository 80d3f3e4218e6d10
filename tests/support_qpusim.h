/* The fixture of the QPU simulator tests (tests/test_sim.c, tests/test_sim_rules.c), in libtestsupport:
 * a machine with 1 MiB of memory and 4 QPUs, the generated simulator of QPU 0 attached to it with its
 * uniforms at byte address 0x100, and the program under test.  Criterion suites name qs_setup and
 * qs_teardown as their .init and .fini. */
#ifndef TESTS_SUPPORT_QPUSIM_H
#define TESTS_SUPPORT_QPUSIM_H
#include <stdint.h>
#include "hexio.h"
#include "qpu.h"
#include "qpu_hooks.h"

extern struct qpu_machine *qs_machine;
extern struct qpu_sim *qs_sim;
extern struct qpu_hooks_ctx qs_hooks;
extern struct tsr_words qs_prog;   /* 64-bit instructions */

void qs_setup(void);
void qs_teardown(void);
/* Little-endian 32-bit access to the machine's memory at byte address addr. */
void qs_put32(uint32_t addr, uint32_t v);
uint32_t qs_get32(uint32_t addr);
/* Assembles text into qs_prog (a test failure, with the text, if it does not assemble). */
void qs_asm(const char *text);
#endif
