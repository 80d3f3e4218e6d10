/* The QPU simulator test fixture (tests/support_qpusim.h). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "support_qpusim.h"
#include "tsr.h"

struct qpu_machine *qs_machine;
struct qpu_sim *qs_sim;
struct qpu_hooks_ctx qs_hooks;
struct tsr_words qs_prog;

void qs_setup(void)
{
    qs_machine = qpu_machine_new(1u << 20, 4);
    cr_assert_not_null(qs_machine);
    qs_sim = malloc(sizeof *qs_sim);
    cr_assert_not_null(qs_sim);
    qpu_sim_init(qs_sim);
    cr_assert_eq(qpu_hooks_attach(qs_sim, &qs_hooks, qs_machine, 0, 0x100), 0);
    tsr_words_init(&qs_prog, 64);
}

void qs_teardown(void)
{
    qpu_sim_fini(qs_sim);
    free(qs_sim);
    qpu_machine_free(qs_machine);
    tsr_words_free(&qs_prog);
}

void qs_put32(uint32_t addr, uint32_t v)
{
    uint8_t *m = qpu_machine_mem(qs_machine) + addr;
    for (int i = 0; i < 4; i++)
        m[i] = (uint8_t)(v >> (8 * i));
}

uint32_t qs_get32(uint32_t addr)
{
    const uint8_t *m = qpu_machine_mem(qs_machine) + addr;
    return (uint32_t)m[0] | (uint32_t)m[1] << 8 | (uint32_t)m[2] << 16 | (uint32_t)m[3] << 24;
}

void qs_asm(const char *text)
{
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
    tsr_words_free(&qs_prog);
    tsr_words_init(&qs_prog, 64);
    cr_assert_eq(qpu_assemble("test.qasm", text, strlen(text), &qs_prog, &d), 0, "does not assemble:\n%s", text);
    tsr_diag_fini(&d);
}
