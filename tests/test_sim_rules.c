/* The simulator reports the description's hazard rules itself (TSR_SIM_F_RULES, docs/sim.md "Rules"):
 * the generated qpu_sim_step steps every bundle it issues, in issue order, into a stream checker of the
 * generated validator (runtime/validate/validate.h) and turns each violation into a hazard report
 * "hazard: rule NAME at 0x...: ...".  Checked here on real programs, each with and without an injected
 * violation:
 *   - examples/qpu/demo.qasm with a regfile read right after its write (and the simulator's own latency
 *     report without the flag: it stays);
 *   - a uniform read 1 instruction after a unif_addr write, a rule the simulator does not check itself;
 *   - violations only on the taken path of a conditional branch, and after a branch to a register target
 *     (a return), which the whole-program check cannot follow;
 *   - a bundle that stalls (in the ready hook, or inside the bundle) and is retried is checked once;
 *   - the history starts again at a program's start (after a thread end and at qpu_sim_reset);
 *   - qpu_run_flags keeps one checker per QPU;
 *   - GPU_FFT (log2 N = 8..14, forward and inverse) runs with no rule report and correct results. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpufft.h"
#include "qpu.h"
#include "qpu_hooks.h"
#include "tsr.h"
#include "support_qpusim.h"
#include "validate/validate.h"

TestSuite(rules, .init = qs_setup, .fini = qs_teardown);

#define END "    nop; nop; thrend\n    nop\n    nop\n"

/* A fresh simulator (QPU 0, uniforms at 0x100) with the given flags, run until it halts or fails. */
static int run_flags(unsigned flags)
{
    qpu_sim_fini(qs_sim);
    qpu_sim_init(qs_sim);
    cr_assert_eq(qpu_hooks_attach(qs_sim, &qs_hooks, qs_machine, 0, 0x100), 0);
    qs_sim->core.flags = flags;
    return qpu_sim_run(qs_sim, qs_prog.w, qs_prog.count * 2, 100000);
}

static bool has(const char *msg, const char *what)
{
    return strstr(msg, what) != NULL;
}

/* examples/qpu/demo.qasm, with `line` inserted after the line containing `after` (NULL: none). */
static char *demo_text(const char *after, const char *line)
{
    const char *root = getenv("TESSERA_ROOT");
    char path[4096];
    snprintf(path, sizeof path, "%s/examples/qpu/demo.qasm", root && *root ? root : ".");
    struct tsr_buf b = {0};
    cr_assert_eq(tsr_file_read(path, &b, NULL), 0, "cannot read %s", path);
    size_t extra = line ? strlen(line) + 2 : 0;
    char *out = malloc(b.len + extra + 1);
    cr_assert_not_null(out);
    const char *at = after ? strstr(b.data, after) : NULL;
    cr_assert(!after || at, "demo.qasm has no line with '%s'", after);
    size_t cut = at ? (size_t)(strchr(at, '\n') + 1 - b.data) : b.len;
    memcpy(out, b.data, cut);
    size_t n = cut;
    if (line)
        n += (size_t)sprintf(out + n, "%s\n", line);
    memcpy(out + n, b.data + cut, b.len - cut);
    out[n + b.len - cut] = 0;
    tsr_buf_free(&b);
    return out;
}

static void demo_uniforms(void)
{
    float c = 1.0f;
    uint32_t cb;
    memcpy(&cb, &c, 4);
    qs_put32(0x100, cb);
    qs_put32(0x104, 0x2000);
}

Test(rules, demo_clean_and_with_regfile_read_after_write)
{
    char *text = demo_text(NULL, NULL);
    qs_asm(text);
    free(text);
    demo_uniforms();
    cr_assert_eq(run_flags(TSR_SIM_F_RULES), TSR_SIM_HALTED, "%s", qs_sim->core.msg);
    cr_expect_eq(qs_sim->core.nhazards, 0);
    cr_expect_eq(qs_get32(0x2000), 0x3f800000u, "y[0] = 1/(0 + 1) = 1.0f");

    /* `mov r3, out_addr` reads ra0 one instruction after `mov out_addr, unif` wrote it */
    text = demo_text("mov out_addr, unif", "        mov r3, out_addr");
    qs_asm(text);
    free(text);
    demo_uniforms();
    cr_assert_eq(run_flags(TSR_SIM_F_RULES), TSR_SIM_HAZARD, "%s", qs_sim->core.msg);
    cr_expect_eq(qs_sim->core.err_pc, 0x10u);
    cr_expect(has(qs_sim->core.msg, "hazard: rule regfile_raw at 0x00000010: reads ra[0]"), "%s", qs_sim->core.msg);
    cr_expect(has(qs_sim->core.msg, "(0x00000008)"), "%s", qs_sim->core.msg);
    cr_expect_eq(qs_sim->core.icount, 2u, "the bundle with the violation did not execute");
    /* warning mode: the rule and the simulator's own latency report are both counted, and the run ends */
    cr_assert_eq(run_flags(TSR_SIM_F_RULES | TSR_SIM_F_HAZARD_WARN), TSR_SIM_HALTED, "%s", qs_sim->core.msg);
    cr_expect_eq(qs_sim->core.nhazards, 2);
    cr_expect(has(qs_sim->core.msg, "hazard: rule regfile_raw at 0x00000010"), "%s", qs_sim->core.msg);
    /* without the flag: the simulator's own regfile latency report, as before */
    cr_assert_eq(run_flags(0), TSR_SIM_HAZARD);
    cr_expect(has(qs_sim->core.msg, "hazard: ra0 read at 0x00000010: written by the previous instruction"), "%s",
              qs_sim->core.msg);
}

/* qpu.mdl rule 4 (unif_addr): no uniform read in the 2 instructions after a unif_addr write.  The
 * simulator itself has no such check: only the rules find it. */
static void unif_prog(const char *between)
{
    char text[1024];
    snprintf(text, sizeof text,
             "    mov ra0, unif\n"       /* 0x00: the new uniform stream's address */
             "    nop\n"                 /* 0x08 */
             "    mov unif_addr, ra0\n"  /* 0x10 */
             "%s"
             "    mov r1, unif\n" END,   /* 0x18 without the nops */
             between);
    qs_asm(text);
    qs_put32(0x100, 0x200);
    qs_put32(0x200, 42);
}

Test(rules, uniform_read_after_unif_addr_write)
{
    unif_prog("");
    cr_assert_eq(run_flags(0), TSR_SIM_HALTED, "%s", qs_sim->core.msg);
    cr_expect_eq(qs_sim->core.nhazards, 0, "the simulator alone does not check this rule");
    cr_assert_eq(run_flags(TSR_SIM_F_RULES), TSR_SIM_HAZARD, "%s", qs_sim->core.msg);
    cr_expect_eq(qs_sim->core.err_pc, 0x18u);
    cr_expect(has(qs_sim->core.msg, "hazard: rule unif_addr at 0x00000018"), "%s", qs_sim->core.msg);

    unif_prog("    nop\n    nop\n");
    cr_assert_eq(run_flags(TSR_SIM_F_RULES), TSR_SIM_HALTED, "%s", qs_sim->core.msg);
    cr_expect_eq(qs_sim->core.nhazards, 0, "%s", qs_sim->core.msg);
    for (int l = 0; l < 16; l++)
        cr_expect_eq(qs_sim->acc[1][l], 42u, "lane %d", l);
}

/* The last delay slot of a conditional branch writes ra2; the branch target reads it at once.  The
 * fall-through path never reads ra2. */
static const char branch_prog[] =
    "    mov r0, unif\n"              /* 0x00: 0 -> taken, 1 -> not taken */
    "    and.setf -, r0, 1\n"         /* 0x08 */
    "    brr.allz -, r:target\n"      /* 0x10 */
    "    nop\n"                       /* 0x18 */
    "    nop\n"                       /* 0x20 */
    "    mov ra2, 5\n"                /* 0x28: last delay slot */
    END                               /* 0x30..0x40: the fall-through path ends */
    "target:\n"
    "    mov r1, ra2\n" END;          /* 0x48 */

Test(rules, violation_only_on_the_taken_path)
{
    qs_asm(branch_prog);
    qs_put32(0x100, 1); /* not taken */
    cr_assert_eq(run_flags(TSR_SIM_F_RULES), TSR_SIM_HALTED, "%s", qs_sim->core.msg);
    cr_expect_eq(qs_sim->core.nhazards, 0, "%s", qs_sim->core.msg);
    cr_expect_eq(qs_sim->core.icount, 9u, "the fall-through path: 6 bundles and the thread end's 3");
    qs_put32(0x100, 0); /* taken */
    cr_assert_eq(run_flags(TSR_SIM_F_RULES), TSR_SIM_HAZARD, "%s", qs_sim->core.msg);
    cr_expect_eq(qs_sim->core.err_pc, 0x48u);
    cr_expect(has(qs_sim->core.msg, "hazard: rule regfile_raw at 0x00000048: reads ra[2]; the instruction 1 before "
                               "(0x00000028) writes ra[2]"), "%s", qs_sim->core.msg);
}

/* A branch to a register target (a subroutine return): the whole-program check adds no edge for it and
 * sees nothing; the stream follows the jump. */
Test(rules, violation_after_a_branch_to_a_register)
{
    qs_asm("    mov ra0, 0x48\n"          /* 0x00: the target */
             "    nop\n"                    /* 0x08 */
             "    bra -, ra0\n"             /* 0x10 */
             "    nop\n"                    /* 0x18 */
             "    nop\n"                    /* 0x20 */
             "    mov ra2, 5\n"             /* 0x28: last delay slot */
             END                            /* 0x30..0x40: not reached */
             "    mov r1, ra2\n" END);      /* 0x48 */
    cr_assert_eq(qs_prog.count, 13u);
    cr_expect_eq(tsr_validate(&qpu_vdesc, qs_prog.w, qs_prog.count, 0, NULL, NULL), 0u,
                 "the program check cannot see this violation");
    cr_assert_eq(run_flags(TSR_SIM_F_RULES), TSR_SIM_HAZARD, "%s", qs_sim->core.msg);
    cr_expect_eq(qs_sim->core.err_pc, 0x48u);
    cr_expect(has(qs_sim->core.msg, "hazard: rule regfile_raw at 0x00000048: reads ra[2]; the instruction 1 before "
                               "(0x00000028)"), "%s", qs_sim->core.msg);
    /* the same without the violation: a nop at the target first */
    qs_asm("    mov ra0, 0x48\n    nop\n    bra -, ra0\n    nop\n    nop\n    mov ra2, 5\n" END
             "    nop\n    mov r1, ra2\n" END);
    cr_assert_eq(run_flags(TSR_SIM_F_RULES), TSR_SIM_HALTED, "%s", qs_sim->core.msg);
    cr_expect_eq(qs_sim->core.nhazards, 0);
    cr_expect_eq(qs_sim->acc[1][0], 5u);
}

/* `add ra1, ra1, unif` reads ra1 and writes it: stepped twice into the checker, it would read its own
 * write of the instruction before. */
static const char self_prog[] =
    "    mov ra1, 1\n"
    "    nop\n"
    "    nop\n"
    "    add ra1, ra1, unif\n"          /* 0x18 */
    "    nop\n"
    "    nop\n"
    "    mov r1, ra1\n" END;

/* Generic hooks: the first uniform read stalls the bundle once (inside it, after the ready hook). */
struct stall_once { struct qpu_sim *sim; int stalled; };

static int stall_hook(void *ctx, int hook, enum tsr_hook_kind kind, const uint32_t *args, int nargs, uint32_t *v,
                      uint32_t lanemask)
{
    struct stall_once *s = ctx;
    (void)kind;
    if (hook == QPU_SIM_HOOK_IO_READ && nargs == 2 && args[1] == 32 && !s->stalled) {
        s->stalled = 1;
        return 1;
    }
    return qpu_hooks_dispatch(s->sim, NULL, hook, args, nargs, v, lanemask);
}

Test(rules, bundle_stalled_inside_is_checked_once)
{
    qs_asm(self_prog);
    qs_put32(0x100, 10);
    qpu_sim_fini(qs_sim);
    qpu_sim_init(qs_sim);
    cr_assert_eq(qpu_hooks_attach(qs_sim, &qs_hooks, qs_machine, 0, 0x100), 0);
    struct stall_once st = {qs_sim, 0};
    struct tsr_sim_hooks fns = {stall_hook, &st};
    qs_sim->hookfns = &fns;
    qs_sim->core.flags = TSR_SIM_F_RULES;
    cr_assert_eq(qpu_sim_run(qs_sim, qs_prog.w, qs_prog.count * 2, 1000), TSR_SIM_HALTED, "%s", qs_sim->core.msg);
    cr_expect_eq(st.stalled, 1);
    cr_expect_eq(qs_sim->core.stalls, 1u);
    cr_expect_eq(qs_sim->core.nhazards, 0, "%s", qs_sim->core.msg);
    cr_expect_eq(qs_sim->acc[1][0], 11u);
}

Test(rules, bundle_stalled_by_ready_is_checked_once)
{
    /* a VDW DMA of one row, then the self-updating read of vw_wait, which stalls until the DMA is done */
    qs_asm("    mov ra1, 1\n"
             "    mov vw_setup, 0x00001a00\n"
             "    mov vpm, elem_num\n"
             "    mov vw_setup, 0x80904000\n"
             "    mov vw_addr, 0x2000\n"
             "    add ra1, ra1, vw_wait\n"
             "    nop\n"
             "    nop\n"
             "    mov r1, ra1\n" END);
    qpu_machine_set_dma_latency(qs_machine, 20);
    cr_assert_eq(run_flags(TSR_SIM_F_RULES), TSR_SIM_HALTED, "%s", qs_sim->core.msg);
    cr_expect_gt(qs_sim->core.stalls, 0u, "the vw_wait read must have waited");
    cr_expect_eq(qs_sim->core.nhazards, 0, "%s", qs_sim->core.msg);
    cr_expect_eq(qs_get32(0x2000 + 4 * 5), 5u);
}

/* qpu.mdl sbwait_start: no explicit scoreboard wait in a program's first instruction.  The history starts
 * again after a thread end (the next program on the core) and at qpu_sim_reset. */
Test(rules, history_restarts_with_each_program)
{
    qs_asm("    nop; nop; sbwait\n"
             "    mov r0, 1\n" END);
    cr_assert_eq(run_flags(TSR_SIM_F_RULES | TSR_SIM_F_HAZARD_WARN), TSR_SIM_HALTED, "%s", qs_sim->core.msg);
    cr_expect_eq(qs_sim->core.nhazards, 1);
    cr_expect(has(qs_sim->core.msg, "hazard: rule sbwait_start at 0x00000000"), "%s", qs_sim->core.msg);
    /* the core starts the program again after its thread end */
    qs_sim->core.halted = false;
    qs_sim->pc = 0;
    cr_assert_eq(qpu_sim_run(qs_sim, qs_prog.w, qs_prog.count * 2, 1000), TSR_SIM_HALTED, "%s", qs_sim->core.msg);
    cr_expect_eq(qs_sim->core.nhazards, 2, "the second start is a program's first instruction too");
    /* and after qpu_sim_reset (which keeps the flags) */
    qpu_sim_reset(qs_sim);
    cr_assert_eq(qpu_hooks_attach(qs_sim, &qs_hooks, qs_machine, 0, 0x100), 0);
    cr_expect_eq(qs_sim->core.flags, TSR_SIM_F_RULES | TSR_SIM_F_HAZARD_WARN);
    cr_assert_eq(qpu_sim_run(qs_sim, qs_prog.w, qs_prog.count * 2, 1000), TSR_SIM_HALTED, "%s", qs_sim->core.msg);
    cr_expect_eq(qs_sim->core.nhazards, 1);
    /* the instruction moved second: no report */
    qs_asm("    mov r0, 1\n"
             "    nop; nop; sbwait\n" END);
    cr_assert_eq(run_flags(TSR_SIM_F_RULES), TSR_SIM_HALTED, "%s", qs_sim->core.msg);
    cr_expect_eq(qs_sim->core.nhazards, 0);
}

/* Two QPUs round-robin on the program of violation_only_on_the_taken_path: QPU 0 falls through, QPU 1
 * takes the branch.  Each QPU has its own checker, so only QPU 1 reports. */
Test(rules, one_checker_per_qpu)
{
    qs_asm(branch_prog);
    qs_put32(0x100, 1);
    qs_put32(0x200, 0);
    uint32_t unif[2] = {0x100, 0x200};
    struct qpu_run_result res;
    int rc = qpu_run_flags(qs_machine, qs_prog.w, qs_prog.count * 2, 2, unif, 10000, TSR_SIM_F_RULES | TSR_SIM_F_HAZARD_WARN, NULL, &res);
    cr_assert_eq(rc, TSR_SIM_HALTED, "%s", res.msg);
    cr_expect_eq(res.hazards, 2u, "QPU 1's rule and latency reports");
    cr_expect(has(res.hazard, "qpu1: hazard: rule regfile_raw at 0x00000048"), "%s", res.hazard);
    rc = qpu_run_flags(qs_machine, qs_prog.w, qs_prog.count * 2, 2, unif, 10000, TSR_SIM_F_RULES, NULL, &res);
    cr_assert_eq(rc, TSR_SIM_HAZARD, "%s", res.msg);
    cr_expect_eq(res.qpu, 1u);
    cr_expect_eq(res.pc, 0x48u);
    /* both fall through: nothing */
    qs_put32(0x200, 1);
    rc = qpu_run_flags(qs_machine, qs_prog.w, qs_prog.count * 2, 2, unif, 10000, TSR_SIM_F_RULES | TSR_SIM_F_HAZARD_WARN, NULL, &res);
    cr_assert_eq(rc, TSR_SIM_HALTED, "%s", res.msg);
    cr_expect_eq(res.hazards, 0u, "%s", res.hazard);
    /* qpu_run is qpu_run_flags without rules: the taken path's read is the simulator's latency hazard */
    qs_put32(0x200, 0);
    rc = qpu_run(qs_machine, qs_prog.w, qs_prog.count * 2, 2, unif, 10000, NULL, &res);
    cr_assert_eq(rc, TSR_SIM_HAZARD, "%s", res.msg);
    cr_expect(has(res.msg, "qpu1: hazard: ra2 read at 0x00000048"), "%s", res.msg);
}

/* GPU_FFT's own shaders, 8 QPUs, every bundle checked against the rules: no report, correct results. */
Test(rules, gpufft_8_to_14_without_reports, .timeout = 300)
{
    for (int log2n = 8; log2n <= 14; log2n++) {
        char err[GPUFFT_ERRLEN];
        struct gpufft_code code;
        cr_assert_eq(gpufft_code_load(&code, NULL, log2n, err), 0, "%s", err);
        for (int inverse = 0; inverse < 2; inverse++) {
            struct gpufft_mem mm;
            struct gpufft f;
            size_t n = (size_t)1 << log2n;
            cr_assert_eq(gpufft_mem_init(&mm, gpufft_prepare_bytes(log2n, 1, &code), err), 0, "%s", err);
            cr_assert_eq(gpufft_prepare(&f, &mm, &code, log2n, inverse, 1, err), 0, "%s", err);
            float *keep = malloc(2 * n * sizeof *keep);
            double *want = malloc(2 * n * sizeof *want);
            cr_assert(keep && want);
            gpufft_random(keep, n, 7 + (uint64_t)log2n);
            memcpy(gpufft_in(&f, 0), keep, 2 * n * sizeof *keep);
            struct gpufft_run_opts ro = {.sim_flags = TSR_SIM_F_RULES};
            struct gpufft_cost cost = {0};
            cr_assert_eq(gpufft_execute(&f, &ro, &cost, err), 0, "2^%d %s: %s", log2n,
                         inverse ? "inverse" : "forward", err);
            cr_expect_eq(cost.warnings, 0, "%s", cost.warning);
            cr_assert_eq(gpufft_reference(keep, want, log2n, inverse), 0);
            struct gpufft_err e = {0};
            gpufft_err_accumulate(&e, gpufft_out(&f, 0), want, n);
            cr_expect_leq(gpufft_err_value(&e) * 1e6, 2 * gpufft_published_ppm(log2n), "2^%d", log2n);
            free(keep);
            free(want);
            gpufft_mem_fini(&mm);
        }
        gpufft_code_free(&code);
    }
}
