/* Known-answer tests of the generated QPU simulator (build/gen/qpu/qpu_sim.c) with the peripheral hooks
 * (targets/qpu/qpu_hooks.c): small programs assembled with the generated assembler, run with qpu_sim_run
 * or the multi-QPU qpu_run, and checked lane by lane.  Hardware facts: ../shared/isa/qpu.md (cited as
 * [QPU section]); the last test runs the fragment shader the seed notes captured from the blob
 * (../shared/seeds/003_d3a94b40d2ad3247.txt, `gl_FragColor = c1 + c2`, 11 bundles).  Suite sim_tool: a
 * run-time failure of `tessera sim` is reported at its file and source line. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qpu.h"
#include "qpu_hooks.h"
#include "arith.h"
#include "tsr.h"
#include "support_qpusim.h"
#include "tools.h"

TestSuite(sim, .init = qs_setup, .fini = qs_teardown);

static uint32_t f2u(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* Runs the program until it halts (or fails); returns the last step's code. */
static int run(void)
{
    return qpu_sim_run(qs_sim, qs_prog.w, qs_prog.count * 2, 10000);
}

static void set_lanes(uint32_t *v, uint32_t base, uint32_t step)
{
    for (int l = 0; l < 16; l++)
        v[l] = base + step * (uint32_t)l;
}

#define END "    nop; nop; thrend\n    nop\n    nop\n"

Test(sim, add_and_mul_in_one_bundle)
{
    set_lanes(qs_sim->acc[1], 10, 3);
    for (int l = 0; l < 16; l++) {
        qs_sim->acc[2][l] = 100 + (uint32_t)l;
        qs_sim->ra[1][l] = f2u(0.5f * (float)l);
        qs_sim->rb[2][l] = f2u(4.0f);
    }
    qs_asm("    add r0, r1, r2; fmul r3, ra1, rb2\n" END);
    cr_assert_eq(run(), TSR_SIM_HALTED, "%s", qs_sim->core.msg);
    for (int l = 0; l < 16; l++) {
        cr_expect_eq(qs_sim->acc[0][l], 110 + 4 * (uint32_t)l, "lane %d", l);
        cr_expect_eq(qs_sim->acc[3][l], f2u(2.0f * (float)l), "lane %d", l);
    }
    cr_expect_eq(qs_sim->core.icount, 4u);
    cr_expect_eq(qs_sim->pc, 4u * 8u);
}

Test(sim, two_stage_order)
{
    /* both ALUs read r0 before either writes: the add's new r0 is not the mul's input */
    set_lanes(qs_sim->acc[0], 5, 0);
    qs_asm("    add r0, r0, r0; mov r1, r0\n" END);
    cr_assert_eq(run(), TSR_SIM_HALTED, "%s", qs_sim->core.msg);
    cr_expect_eq(qs_sim->acc[0][0], 10u);
    cr_expect_eq(qs_sim->acc[1][0], 5u);
}

Test(sim, conditional_writes_with_flags)
{
    /* N set in lanes 0..7 (elem_num - 8 < 0), Z in lane 3 [QPU Flags] */
    qs_asm("    sub.setf -, elem_num, 8\n"
             "    mov.ifn r0, 1\n"
             "    mov.ifnn r0, 2\n"
             "    sub.setf -, elem_num, 3\n"
             "    mov.ifz r1, 7\n"
             "    mov.ifnz r2, 9\n" END);
    cr_assert_eq(run(), TSR_SIM_HALTED, "%s", qs_sim->core.msg);
    for (int l = 0; l < 16; l++) {
        cr_expect_eq(qs_sim->acc[0][l], l < 8 ? 1u : 2u, "lane %d", l);
        cr_expect_eq(qs_sim->acc[1][l], l == 3 ? 7u : 0u, "lane %d", l);
        cr_expect_eq(qs_sim->acc[2][l], l == 3 ? 0u : 9u, "lane %d", l);
        cr_expect_eq(qs_sim->z[l], l == 3 ? 1u : 0u);
        cr_expect_eq(qs_sim->n[l], l < 3 ? 1u : 0u);
    }
}

Test(sim, small_immediates)
{
    /* raddr_b with sig 13: 0..15, -16..-1, 2^0..2^7, 2^-8..2^-1 [QPU Small immediates] */
    set_lanes(qs_sim->acc[1], 100, 1);
    for (int l = 0; l < 16; l++)
        qs_sim->acc[2][l] = f2u(3.0f);
    qs_asm("    add r0, r1, -3\n"
             "    fmul r3, r2, 0.5\n"
             "    add r2, r1, 15\n"
             "    fmul r1, r3, 16.0\n" END);
    cr_assert_eq(run(), TSR_SIM_HALTED, "%s", qs_sim->core.msg);
    for (int l = 0; l < 16; l++) {
        cr_expect_eq(qs_sim->acc[0][l], 97 + (uint32_t)l);
        cr_expect_eq(qs_sim->acc[3][l], f2u(1.5f));
        cr_expect_eq(qs_sim->acc[2][l], 115 + (uint32_t)l);
        cr_expect_eq(qs_sim->acc[1][l], f2u(24.0f));
    }
}

Test(sim, rotations)
{
    /* result[i] = src[(i - n) mod 16] with r0-r3 inputs; per quad (n mod 4) from a regfile [QPU Rotation] */
    qs_asm("    mov r0, elem_num\n"
             "    mov ra0, elem_num\n"
             "    nop; mov r1, r0 >> 1\n"
             "    nop; mov r2, r0 << 2\n"
             "    nop; mov r3, ra0 >> 1\n"
             "    mov r5rep, 3\n"
             "    nop; mov ra1, r0 >> r5\n" END);
    cr_assert_eq(run(), TSR_SIM_HALTED, "%s", qs_sim->core.msg);
    for (int l = 0; l < 16; l++) {
        cr_expect_eq(qs_sim->acc[1][l], (uint32_t)((l + 15) % 16), "lane %d", l);
        cr_expect_eq(qs_sim->acc[2][l], (uint32_t)((l + 2) % 16), "lane %d", l);
        cr_expect_eq(qs_sim->acc[3][l], (uint32_t)((l & ~3) + ((l + 3) & 3)), "lane %d", l);
        cr_expect_eq(qs_sim->ra[1][l], (uint32_t)((l + 13) % 16), "lane %d", l);
    }
}

Test(sim, r5_broadcast)
{
    /* r5rep (B side): element 0 to all; r5quad (A side): elements 0, 4, 8, 12 across their quads
     * [QPU r5 write] */
    qs_asm("    add r0, elem_num, 5\n"
             "    mov r5rep, r0\n"
             "    mov r1, r5\n"
             "    mov r5quad, r0\n"
             "    mov r2, r5\n" END);
    cr_assert_eq(run(), TSR_SIM_HALTED, "%s", qs_sim->core.msg);
    for (int l = 0; l < 16; l++) {
        cr_expect_eq(qs_sim->acc[1][l], 5u, "lane %d", l);
        cr_expect_eq(qs_sim->acc[2][l], (uint32_t)(l & ~3) + 5, "lane %d", l);
    }
}

Test(sim, sfu_result_in_r4_after_two_instructions)
{
    /* recip written at N is readable in r4 from N+3 [QPU Latencies 2] */
    for (int l = 0; l < 16; l++)
        qs_sim->acc[1][l] = f2u(4.0f);
    qs_asm("    mov recip, r1\n"
             "    nop\n"
             "    nop\n"
             "    mov r0, r4\n" END);
    cr_assert_eq(run(), TSR_SIM_HALTED, "%s", qs_sim->core.msg);
    for (int l = 0; l < 16; l++)
        cr_expect_eq(qs_sim->acc[0][l], f2u(0.25f), "lane %d: %08x", l, qs_sim->acc[0][l]);
}

Test(sim, sfu_hazard_reported)
{
    for (int l = 0; l < 16; l++)
        qs_sim->acc[1][l] = f2u(4.0f);
    qs_asm("    mov recip, r1\n"
             "    nop\n"
             "    mov r0, r4\n" END);
    cr_assert_eq(run(), TSR_SIM_HAZARD);
    cr_expect_str_eq(qs_sim->core.msg, "hazard: acc4 read at 0x00000010: r4_busy (guard)");
    cr_expect_eq(qs_sim->core.err_pc, 0x10u);
    cr_expect_eq(qs_sim->acc[0][0], 0u, "the bundle must not have written anything");
}

Test(sim, regfile_read_after_write_hazard)
{
    /* a register written by N must not be read by N+1 [QPU Latencies 1]; N+2 is fine */
    qs_asm("    mov ra5, 1\n"
             "    nop\n"
             "    mov r0, ra5\n"
             "    mov rb6, 2\n"
             "    mov r1, rb6\n" END);
    cr_assert_eq(run(), TSR_SIM_HAZARD);
    cr_expect_str_eq(qs_sim->core.msg, "hazard: rb6 read at 0x00000020: written by the previous instruction "
                     "(regfile latency 2)");
    cr_expect_eq(qs_sim->acc[0][0], 1u);
    /* in warning mode the hazard is counted and the run goes on */
    qpu_sim_reset(qs_sim);
    qpu_hooks_attach(qs_sim, &qs_hooks, qs_machine, 0, 0x100);
    qs_sim->core.flags = TSR_SIM_F_HAZARD_WARN;
    cr_assert_eq(run(), TSR_SIM_HALTED, "%s", qs_sim->core.msg);
    cr_expect_eq(qs_sim->core.nhazards, 1u);
    cr_expect_eq(qs_sim->acc[1][0], 2u);
}

Test(sim, branch_with_three_delay_slots_and_link)
{
    /* 3 delay slots; link = branch address + 32 [QPU Branch] */
    qs_asm("    brr ra1, r:target\n"
             "    add r0, r0, 1\n"
             "    add r0, r0, 1\n"
             "    add r0, r0, 1\n"
             "    add r0, r0, 15\n"
             "target:\n"
             "    sub.setf -, elem_num, elem_num\n"
             "    brr.anynz -, r:target\n"
             "    nop\n"
             "    nop\n"
             "    nop\n" END);
    cr_assert_eq(run(), TSR_SIM_HALTED, "%s", qs_sim->core.msg);
    for (int l = 0; l < 16; l++) {
        cr_expect_eq(qs_sim->acc[0][l], 3u, "lane %d", l);
        cr_expect_eq(qs_sim->ra[1][l], 0x20u, "lane %d", l);
    }
    cr_expect_eq(qs_sim->core.icount, 4u + 5u + 3u);
}

Test(sim, thread_end_with_two_delay_slots)
{
    qs_asm("    nop; nop; thrend\n"
             "    add r0, r0, 1\n"
             "    add r0, r0, 1\n"
             "    add r0, r0, 1\n");
    cr_assert_eq(run(), TSR_SIM_HALTED, "%s", qs_sim->core.msg);
    cr_expect_eq(qs_sim->acc[0][0], 2u);
    cr_expect_eq(qs_sim->core.icount, 3u);
    cr_expect(qpu_periph_done(qs_hooks.p));
    cr_expect_eq(qpu_sim_step(qs_sim, qs_prog.w, qs_prog.count * 2), TSR_SIM_HALTED);
}

/* The pc selects instruction pc / pc_step: a branch to an address between two instructions is an error, not a
 * decode of the words that straddle them. */
Test(sim, branch_between_instructions_is_an_error)
{
    qs_asm("    bra -, 12\n"
             "    nop\n"
             "    nop\n"
             "    nop\n" END);
    cr_assert_eq(run(), TSR_SIM_ERROR);
    cr_expect(strstr(qs_sim->core.msg, "pc 0x0000000c is not a multiple of pc_step (8)"), "%s", qs_sim->core.msg);
}

Test(sim, uniforms)
{
    /* each unif read pops the next uniform; both ALUs reading unif in one bundle pop once [QPU
     * Uniforms], docs/mdl.md "Address spaces" */
    qs_put32(0x100, 0x11);
    qs_put32(0x104, 0x22);
    qs_put32(0x108, 0x33);
    qs_asm("    mov r0, unif\n"
             "    mov r1, unif\n"
             "    add r2, unif, unif\n" END);
    cr_assert_eq(run(), TSR_SIM_HALTED, "%s", qs_sim->core.msg);
    cr_expect_eq(qs_sim->acc[0][9], 0x11u);
    cr_expect_eq(qs_sim->acc[1][9], 0x22u);
    cr_expect_eq(qs_sim->acc[2][9], 0x66u);
    cr_expect_eq(qpu_periph_unif_addr(qs_hooks.p), 0x10cu);
}

Test(sim, tmu_read)
{
    /* a lone t0s write reads memory at the lane's address; ldtmu0 pops it into r4 [QPU TMU] */
    for (int l = 0; l < 16; l++)
        qs_put32(0x1000 + 4 * (uint32_t)l, 0xabc00 + (uint32_t)l);
    qs_asm("    shl r0, elem_num, 2\n"
             "    add t0s, r0, r1\n"
             "    nop\n"
             "    nop; nop; ldtmu0\n"
             "    mov r2, r4\n" END);
    set_lanes(qs_sim->acc[1], 0x1000, 0);
    cr_assert_eq(run(), TSR_SIM_HALTED, "%s", qs_sim->core.msg);
    for (int l = 0; l < 16; l++)
        cr_expect_eq(qs_sim->acc[2][l], 0xabc00u + (uint32_t)l, "lane %d", l);
}

Test(sim, vpm_write_and_vdw_dma)
{
    /* two horizontal 32-bit VPM rows, then a VDW DMA of 2 rows x 16 words to 0x2000 (setup words:
     * targets/qpu/qpu_vpm.c tables 32/34/35) */
    qs_asm("    mov vw_setup, 0x00001a00\n"
             "    mov vpm, elem_num\n"
             "    add vpm, elem_num, 15\n"
             "    mov vw_setup, 0x81104000\n"
             "    mov vw_setup, 0xc0000000\n"
             "    mov vw_addr, 0x2000\n"
             "    mov -, vw_wait\n" END);
    cr_assert_eq(run(), TSR_SIM_HALTED, "%s", qs_sim->core.msg);
    for (uint32_t l = 0; l < 16; l++) {
        cr_expect_eq(qs_get32(0x2000 + 4 * l), l, "word %u", l);
        cr_expect_eq(qs_get32(0x2040 + 4 * l), l + 15, "word %u", 16 + l);
    }
}

Test(sim, semaphores_across_two_qpus)
{
    /* QPU 0 acquires semaphore 0 and waits until QPU 1, after some work, releases it [QPU Other rules] */
    qs_asm("    mov r0, qpu_num\n"
             "    and.setf -, r0, 1\n"
             "    brr.allz -, r:q0\n"
             "    nop\n"
             "    nop\n"
             "    nop\n"
             "    mov r1, 1\n"
             "    add r1, r1, r1\n"
             "    add r1, r1, r1\n"
             "    add r1, r1, r1\n"
             "    mov -, srel(0)\n"
             "    nop; nop; thrend\n"
             "    nop\n"
             "    nop\n"
             "q0:\n"
             "    mov r2, sacq(0)\n"
             "    mov r1, 42\n" END);
    uint32_t unif[2] = {0x100, 0x200};
    struct qpu_run_result res;
    int rc = qpu_run(qs_machine, qs_prog.w, qs_prog.count * 2, 2, unif, 10000, NULL, &res);
    cr_assert_eq(rc, TSR_SIM_HALTED, "%s", res.msg);
    cr_expect_gt(res.stalls[0], 0u, "QPU 0 must have waited for the release");
    cr_expect_eq(res.stalls[1], 0u);
    cr_expect_eq(qpu_machine_semaphore(qs_machine, 0), 0u);
    /* deadlock: acquiring a semaphore nobody releases */
    qs_asm("    mov -, sacq(1)\n" END);
    rc = qpu_run(qs_machine, qs_prog.w, qs_prog.count * 2, 1, unif, 1u << 20, NULL, &res);
    cr_expect_eq(rc, TSR_SIM_STALL, "%s", res.msg);
    cr_expect(strstr(res.msg, "deadlock") != NULL, "%s", res.msg);
}

Test(sim, trace_prints_bundles_and_writes)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    qs_sim->core.trace = f;
    qs_sim->core.trace_text = qpu_trace_text;
    qs_asm("    add r0, elem_num, 1\n" END);
    cr_assert_eq(run(), TSR_SIM_HALTED, "%s", qs_sim->core.msg);
    fclose(f);
    cr_expect(strstr(buf, "0x00000000:") != NULL, "%s", buf);
    cr_expect(strstr(buf, "add r0, elem_num, 1") != NULL, "%s", buf);
    cr_expect(strstr(buf, "acc0 = 1 2 3 4 5 6 7 8 9 a b c d e f 10") != NULL, "%s", buf);
    cr_expect(strstr(buf, "-> halt after 2") != NULL, "%s", buf);
    free(buf);
}

/* The blob's fragment shader for `gl_FragColor = c1 + c2` (seed 003, first 'shader code' listing: 11
 * bundles, low word first).  It reads 8 uniforms and adds them in pairs, (u0+u1) (u2+u3) (u4+u5)
 * (u6+u7), packs each sum with the MUL pack into one byte of r0 (8a = u2+u3, 8b = u0+u1, 8c = u4+u5,
 * 8d = u6+u7: float [0,1] -> unorm8, [QPU Packs]) and writes r0 to tlbc in the first delay slot of its
 * thread end; sbwait/sbdone are scoreboard signals. */
static const uint32_t blob[] = {
    0x15827d80, 0x10020827, 0x01827c00, 0x40020867, 0x15827d80, 0x10020827, 0x01827c00, 0x10020827,
    0x95827d80, 0x114258a0, 0x81827c89, 0x11525860, 0x95827d89, 0x11625860, 0x01827c40, 0x10020867,
    0x809e7009, 0x317059e0, 0x159e7000, 0x10020ba7, 0x009e7000, 0x500009e7,
};

static uint32_t unorm8(float f)
{
    return f <= 0 ? 0 : f >= 1 ? 255 : (uint32_t)lrintf(f * 255.0f);
}

/* A recording wrapper around the QPU hooks (the generic interface, sim->hookfns): keeps the last value
 * written to tlbc (write address 46) and passes every call on to the peripherals. */
struct recorder { struct qpu_sim *sim; uint32_t tlbc[16]; unsigned tlbc_writes, calls; };

static int record(void *ctx, int hook, enum tsr_hook_kind kind, const uint32_t *args, int nargs, uint32_t *v,
                  uint32_t lanemask)
{
    struct recorder *r = ctx;
    r->calls++;
    if (hook == QPU_SIM_HOOK_IO_WRITE && kind == TSR_HOOK_WRITE && nargs == 2 && args[1] == 46) {
        memcpy(r->tlbc, v, sizeof r->tlbc);
        r->tlbc_writes++;
    }
    return qpu_hooks_dispatch(r->sim, NULL, hook, args, nargs, v, lanemask);
}

Test(sim, seed_blob_fragment_shader)
{
    struct recorder rec = {qs_sim, {0}, 0, 0};
    struct tsr_sim_hooks fns = {record, &rec};
    qs_sim->hookfns = &fns;
    /* c1 and c2 interleaved as the shader consumes them */
    const float c1[4] = {0.25f, 0.5f, 0.125f, 1.0f}, c2[4] = {0.5f, 0.25f, 0.125f, 0.0f};
    for (int i = 0; i < 4; i++) {
        qs_put32(0x100 + 8 * (uint32_t)i, f2u(c1[i]));
        qs_put32(0x104 + 8 * (uint32_t)i, f2u(c2[i]));
    }
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
    cr_assert_eq(qpu_sim_run(qs_sim, blob, sizeof blob / sizeof blob[0], 100), TSR_SIM_HALTED, "%s", qs_sim->core.msg);
    tsr_diag_fini(&d);
    cr_expect_eq(qs_sim->core.icount, 11u);
    unsigned count = 0;
    const uint32_t *tlbc = qpu_periph_tlb(qs_hooks.p, 46, &count);
    cr_assert_not_null(tlbc);
    cr_expect_eq(count, 1u);
    uint32_t want = unorm8(c1[1] + c2[1]) | unorm8(c1[0] + c2[0]) << 8 | unorm8(c1[2] + c2[2]) << 16 |
                    unorm8(c1[3] + c2[3]) << 24;
    cr_expect_eq(want, 0xff40bfbfu);
    for (int l = 0; l < 16; l++) {
        cr_expect_eq(tlbc[l], want, "lane %d: tlbc %08x, want %08x", l, tlbc[l], want);
        cr_expect_eq(rec.tlbc[l], want, "lane %d: the hook saw %08x, want %08x", l, rec.tlbc[l], want);
    }
    cr_expect_eq(rec.tlbc_writes, 1u);
    cr_expect_gt(rec.calls, 20u); /* unif reads, signals, ready/retire of every bundle */
    cr_expect_eq(qpu_periph_unif_addr(qs_hooks.p), 0x120u);
    cr_expect(qpu_periph_done(qs_hooks.p));
}

/* The blob's vertex shader for the same draw (seed 003, second 'shader code' listing, 13 bundles): 16a/16b
 * packs into ra0 from two uniforms (a partial write merges with the old value: not a read hazard, though
 * ra0 was written by the previous instruction), a vw_setup from a uniform, then 7 VPM rows from uniforms,
 * ra0 and an fadd; thread end with 2 delay slots. */
static const uint32_t blob_vs[] = {
    0x15827d80, 0x10120027, 0x15827d80, 0x10220027, 0x15827d80, 0x10021c67, 0x15827d80, 0x10020c27,
    0x15827d80, 0x10020c27, 0x15827d80, 0x10020c27, 0x15827d80, 0x10020c27, 0x95020dbf, 0x10024c20,
    0x01827c00, 0x10020c27, 0x15827d80, 0x10020c27, 0x009e7000, 0x300009e7, 0x009e7000, 0x100009e7,
    0x009e7000, 0x100009e7,
};

Test(sim, seed_blob_vertex_shader)
{
    uint32_t u[10];
    for (uint32_t i = 0; i < 10; i++)
        u[i] = 0x03020100u + 0x04040404u * i;
    u[2] = 0x00001a00; /* vw_setup: horizontal 32-bit rows from row 0, stride 1 */
    for (uint32_t i = 0; i < 10; i++)
        qs_put32(0x100 + 4 * i, u[i]);
    cr_assert_eq(qpu_sim_run(qs_sim, blob_vs, sizeof blob_vs / sizeof blob_vs[0], 100), TSR_SIM_HALTED, "%s",
                 qs_sim->core.msg);
    cr_expect_eq(qs_sim->core.icount, 13u);
    const uint32_t want[7] = {u[3], u[4], u[5], u[6], (u[0] & 0xffff) | (u[1] & 0xffff) << 16,
                              tsr_fadd(u[8], u[7], TSR_FPMODE_FTZ_RTZ), u[9]};
    const uint32_t *vpm = qpu_machine_vpm(qs_machine);
    for (int r = 0; r < 7; r++)
        for (int l = 0; l < 16; l++)
            cr_expect_eq(vpm[r * 16 + l], want[r], "VPM row %d word %d: %08x, want %08x", r, l, vpm[r * 16 + l],
                         want[r]);
}

/* ---- `tessera sim` diagnostics (tools/cmd_sim.c) ------------------------------------------------------------ */

/* Runs `tessera sim NAME` on a file holding text, in a fresh directory (so the file name is just NAME);
 * returns the exit status and the first line written to standard error in line. */
static int sim_file(const char *name, const char *text, char *line, size_t n)
{
    char dir[] = "/tmp/tsr_sim_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    cr_assert_eq(chdir(dir), 0);
    FILE *f = fopen(name, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    char *args[] = {(char *)name};
    struct tool_opts o = {.target = &qpu_target, .qpus = 1, .max_steps = 1000, .rules = true, .nargs = 1,
                          .args = args};
    int rc = cmd_sim(&o);
    fflush(stderr);
    remove(name);
    rmdir(dir);
    FILE *err = cr_get_redirected_stderr();
    if (!fgets(line, (int)n, err))
        line[0] = 0;
    line[strcspn(line, "\n")] = 0;
    return rc;
}

/* A run-time failure (here a hazard the rules catch) names the file and the source line of the bundle. */
Test(sim_tool, runtime_error_at_source_line, .init = cr_redirect_stderr)
{
    char line[512];
    cr_expect_eq(sim_file("h.s", "# hazard\nmov ra0, 1\nmov r0, ra0\nnop; nop; thrend\nnop\nnop\n", line, sizeof line), 1);
    cr_expect(strncmp(line, "h.s:3: error: qpu0 at 0x00000008: ", 34) == 0, "%s", line);
    cr_expect(strstr(line, "regfile_raw") != NULL, "%s", line);
}
