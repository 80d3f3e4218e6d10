/* tests/desc/fwd.mdl: forwards, values with an age (docs/mdl.md "Forwards", X6), in the generated simulator and the
 * evaluator:
 *  - values reach readers through ages 1 and 2; a value written in a commit block from the next instruction on;
 *  - an instruction that does not write a forward leaves no value: reading it later is a hazard naming it;
 *  - a read outside the write's window (`ages 2..2` read at age 1) is a hazard;
 *  - the commit block reads the compute stage's value at age 0;
 *  - the stale bit: a load inside a regfile's latency is reported only when the loaded value is read;
 *  - the history follows execution, across a taken branch;
 *  - a vector forward with elements, written under a lane mask;
 *  - warn mode counts the hazards and goes on;
 *  - random bundles from random states and random histories (present, absent, stale, narrowed windows): the
 *    simulator against the evaluator (mdl/diffsim.h);
 *  - the validator: the events read F / write F, the implicit rule F.age, and the deferred reads of a forward's
 *    value (the load's read of R), checked where the forward is read, on every path, by the program check, the
 *    stream check and the simulator's rule check alike. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diffsim.h"
#include "eval.h"
#include "fwd.h"
#include "support_asm.h"
#include "tsr.h"
#include "validate/validate.h"
#include "support_diffsim.h"
#include "support_san.h"

extern const struct tsr_target fwd_target;

/* Assembles text into *w (support_asm.h); asserts it assembles. */
static void assemble(const char *text, struct tsr_words *w)
{
    test_assemble(&fwd_target, text, w);
}

/* Runs text to its end in a fresh simulator S (flags: core.flags); returns the return code. */
static int run(struct fwd_sim *S, const char *text, unsigned flags)
{
    struct tsr_words w;
    assemble(text, &w);
    fwd_sim_init(S);
    S->core.flags = flags;
    int rc = fwd_sim_run(S, w.w, w.count, 100);
    fwd_sim_fini(S);
    tsr_words_free(&w);
    return rc;
}

Test(fwd, values_through_ages_1_and_2)
{
    struct fwd_sim S;
    int rc = run(&S, "addi k7, 5\n"          /* alu = 12 */
                     "addi k8, 1\n"          /* alu = 9 */
                     "add alu@1, alu@2\n"    /* alu = 9 + 12 */
                     "st r1, alu@1\n"
                     "addc k7, k9\n"         /* acc = 16, written by the commit block */
                     "st r2, acc@1\n"
                     "stop\n", 0);
    cr_assert_eq(rc, TSR_SIM_HALTED, "rc %d: %s", rc, S.core.msg);
    cr_expect_eq(S.R[1], 21u);
    cr_expect_eq(S.R[2], 16u);
}

Test(fwd, idle_producer_is_a_hazard)
{
    struct fwd_sim S;
    int rc = run(&S, "nop\naddi k7, 0\nadd alu@2, 0\nstop\n", 0);
    cr_assert_eq(rc, TSR_SIM_HAZARD);
    cr_expect_str_eq(S.core.msg, "hazard: alu@2 at 0x00000008: the instruction at 0x00000000 produced no alu value");
    cr_expect_eq(S.core.err_pc, 8u);
    /* warn mode counts it and goes on; the value read is 0 */
    rc = run(&S, "nop\naddi k7, 0\nadd alu@2, k9\nst r1, alu@1\nstop\n", TSR_SIM_F_HAZARD_WARN);
    cr_assert_eq(rc, TSR_SIM_HALTED, "rc %d: %s", rc, S.core.msg);
    cr_expect_eq(S.core.nhazards, 1u);
    cr_expect_eq(S.R[1], 9u);
    /* before the program's start */
    rc = run(&S, "add alu@1, 0\nstop\n", 0);
    cr_assert_eq(rc, TSR_SIM_HAZARD);
    cr_expect_str_eq(S.core.msg, "hazard: alu@1 at 0x00000000: no instruction 1 before it is known");
}

Test(fwd, read_outside_the_window)
{
    struct fwd_sim S;
    int rc = run(&S, "mull k7, k8\nst r1, late@1\nstop\n", 0);
    cr_assert_eq(rc, TSR_SIM_HAZARD);
    cr_expect_str_eq(S.core.msg, "hazard: late@1 at 0x00000004: written at 0x00000000 for ages 2..2, read at age 1");
    rc = run(&S, "mull k7, k8\nnop\nst r1, late@2\nstop\n", 0);
    cr_assert_eq(rc, TSR_SIM_HALTED, "rc %d: %s", rc, S.core.msg);
    cr_expect_eq(S.R[1], 56u);
}

Test(fwd, age_0_in_a_commit_block)
{
    struct fwd_sim S;
    int rc = run(&S, "li r3, 42\nnop\nnop\nnop\nkeep r2, r3\nst r1, ld@1\nstop\n", 0);
    cr_assert_eq(rc, TSR_SIM_HALTED, "rc %d: %s", rc, S.core.msg);
    cr_expect_eq(S.R[2], 42u, "the commit block's ld@0 is the load of its own instruction");
    cr_expect_eq(S.R[1], 42u);
}

Test(fwd, stale_load_matters_only_when_read)
{
    struct fwd_sim S;
    /* vfw loads R[3] one instruction after li wrote it (latency 3): stale, but nothing reads it */
    int rc = run(&S, "li r3, 42\nvfw f0, v3\nnop\nstop\n", 0);
    cr_assert_eq(rc, TSR_SIM_HALTED, "rc %d: %s", rc, S.core.msg);
    cr_expect_eq(S.core.nhazards, 0u);
    /* read at age 1: reported at the reader, naming the regfile read at the loader */
    rc = run(&S, "li r3, 42\nvfw f0, v3\nst r1, ld@1\nstop\n", 0);
    cr_assert_eq(rc, TSR_SIM_HAZARD);
    cr_expect_str_eq(S.core.msg, "hazard: R3 read at 0x00000004: written by the previous instruction (regfile latency 3); "
                                 "the value reached ld, read as ld@1 at 0x00000008");
    cr_expect_eq(S.core.err_pc, 8u);
    /* read at age 0 by the commit block */
    rc = run(&S, "li r3, 42\nnop\nkeep r2, r3\nstop\n", 0);
    cr_assert_eq(rc, TSR_SIM_HAZARD);
    cr_expect_str_eq(S.core.msg, "hazard: R3 read at 0x00000008: written 2 instructions before (regfile latency 3); "
                                 "the value reached ld, read as ld@0 at 0x00000008");
}

Test(fwd, history_follows_execution_across_a_branch)
{
    struct fwd_sim S;
    int rc = run(&S, "    addi k7, 1\n"      /* 0x00: alu = 8 */
                     "    jmp there\n"       /* 0x04: writes no alu */
                     "    addi k9, 0\n"      /* 0x08: skipped */
                     "there:\n"
                     "    add alu@2, 0\n"    /* 0x0c: two instructions executed before: 0x00, not 0x04 */
                     "    st r1, alu@1\n"
                     "    stop\n", 0);
    cr_assert_eq(rc, TSR_SIM_HALTED, "rc %d: %s", rc, S.core.msg);
    cr_expect_eq(S.R[1], 8u);
    /* the instruction executed just before is the branch, which wrote none */
    rc = run(&S, "    addi k7, 1\n    jmp there\n    addi k9, 0\nthere:\n    add alu@1, 0\n    stop\n", 0);
    cr_assert_eq(rc, TSR_SIM_HAZARD);
    cr_expect_str_eq(S.core.msg, "hazard: alu@1 at 0x0000000c: the instruction at 0x00000004 produced no alu value");
}

Test(fwd, vector_forward_with_elements)
{
    struct fwd_sim S;
    int rc = run(&S, "vset v1, 10\nvfw f1, v1\nvrd v2, f1\nvhalf f0\nvrd v3, f0\nstop\n", 0);
    cr_assert_eq(rc, TSR_SIM_HALTED, "rc %d: %s", rc, S.core.msg);
    for (uint32_t l = 0; l < 4; l++) {
        cr_expect_eq(S.V[2][l], 110u + l, "lane %u", l);
        cr_expect_eq(S.V[3][l], l < 2 ? 7u + l : 0u, "lane %u: lanes not written are 0", l);
    }
}

/* The same programs in the evaluator give the same state and report (one bundle at a time). */
Test(fwd, evaluator_agrees_on_the_programs)
{
    static const char *const progs[] = {
        "addi k7, 5\naddi k8, 1\nadd alu@1, alu@2\nst r1, alu@1\naddc k7, k9\nst r2, acc@1\nstop\n",
        "nop\naddi k7, 0\nadd alu@2, 0\nstop\n",
        "mull k7, k8\nst r1, late@1\nstop\n",
        "li r3, 42\nvfw f0, v3\nst r1, ld@1\nstop\n",
        "li r3, 42\nnop\nkeep r2, r3\nstop\n",
        "addi k7, 1\njmp there\naddi k9, 0\nthere:\nadd alu@2, 0\nst r1, alu@1\nstop\n",
        "vset v1, 10\nvfw f1, v1\nvrd v2, f1\nvhalf f0\nvrd v3, f0\nstop\n",
    };
    char path[4096];
    const char *root = getenv("TESSERA_ROOT");
    snprintf(path, sizeof path, "%s/tests/desc/fwd.mdl", root && *root ? root : ".");
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
    struct mdl_model *M = mdl_load(path, &d);
    tsr_diag_fini(&d);
    cr_assert_not_null(M, "cannot load %s", path);
    for (size_t p = 0; p < sizeof progs / sizeof progs[0]; p++) {
        struct tsr_words w;
        assemble(progs[p], &w);
        struct fwd_sim S;
        struct mdl_evstate EV;
        fwd_sim_init(&S);
        cr_assert_eq(mdl_evstate_init(&EV, M), 0);
        int rs = 0, re = 0;
        for (int step = 0; step < 20; step++) {
            uint32_t pc = mdl_evstate_elem(&EV, M->pc_state, 0)[0];
            int format, ops[8];
            uint64_t fields[16];
            cr_assert_lt(pc / 4, w.count);
            fwd_sim_desc.decode(&w.w[pc / 4], &format, ops, fields);
            re = mdl_eval_bundle(M, &EV, fields, format, ops);
            rs = fwd_sim_step(&S, w.w, w.count);
            cr_assert_eq(rs, re, "program %zu step %d: simulator %d (%s), evaluator %d (%s)", p, step, rs, S.core.msg,
                         re, EV.ctl.msg);
            char diff[512];
            cr_assert_eq(mdl_evstate_compare_sim(&EV, &fwd_sim_desc, &S, diff, sizeof diff), 0, "program %zu step %d: %s",
                         p, step, diff);
            if (rs != TSR_SIM_OK)
                break;
        }
        cr_expect(rs == TSR_SIM_HALTED || rs == TSR_SIM_HAZARD, "program %zu: %d", p, rs);
        mdl_evstate_fini(&EV);
        fwd_sim_fini(&S);
        tsr_words_free(&w);
    }
    mdl_model_free(M);
}

/* Runs the bundles of text (to its end, at most 20) in the evaluator state *EV of model M. */
static void eval_program(const struct mdl_model *M, struct mdl_evstate *EV, const char *text)
{
    struct tsr_words w;
    assemble(text, &w);
    for (int step = 0; step < 20; step++) {
        uint32_t pc = mdl_evstate_elem(EV, M->pc_state, 0)[0];
        if (pc / 4 >= w.count)
            break;
        int format, ops[8];
        uint64_t fields[16];
        fwd_sim_desc.decode(&w.w[pc / 4], &format, ops, fields);
        if (mdl_eval_bundle(M, EV, fields, format, ops) != TSR_SIM_OK)
            break;
    }
    tsr_words_free(&w);
}

/* mdl_evstate_compare (two evaluator states) sees the forwards: a ring entry's value, age window and stale bit. */
Test(fwd, evaluator_states_compare_their_forwards)
{
    char path[4096];
    const char *root = getenv("TESSERA_ROOT");
    snprintf(path, sizeof path, "%s/tests/desc/fwd.mdl", root && *root ? root : ".");
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
    struct mdl_model *M = mdl_load(path, &d);
    tsr_diag_fini(&d);
    cr_assert_not_null(M, "cannot load %s", path);
    struct mdl_evstate A, B;
    cr_assert_eq(mdl_evstate_init(&A, M), 0);
    cr_assert_eq(mdl_evstate_init(&B, M), 0);
    /* vfw loads R[3] one instruction after li wrote it: ld's entry is present and stale */
    static const char prog[] = "addi k7, 5\nli r3, 42\nvfw f0, v3\n";
    eval_program(M, &A, prog);
    eval_program(M, &B, prog);
    char diff[512];
    cr_assert_eq(mdl_evstate_compare(&A, &B, diff, sizeof diff), 0, "%s", diff);
    /* the stale entry of ld in B's history */
    int f = -1;
    for (int i = 0; i < M->nfwds; i++)
        if (!strcmp(M->fwds[i].name, "ld"))
            f = i;
    cr_assert_geq(f, 0);
    struct tsr_fwd_ent *ring = mdl_evstate_fwd(&B, f, 0), *e = NULL;
    for (int j = 0; j <= M->fwds[f].hi; j++)
        if (ring[j].present && ring[j].stale.state)
            e = &ring[j];
    cr_assert_not_null(e, "no stale ld entry after %s", prog);
    struct tsr_fwd_ent keep = *e;
    e->v[0] ^= 1;
    cr_assert_eq(mdl_evstate_compare(&A, &B, diff, sizeof diff), 1, "a value differs");
    cr_expect(strstr(diff, "ld[0] ring entry") && strstr(diff, "lane 0"), "%s", diff);
    *e = keep;
    e->lo = (uint8_t)(e->lo + 1);
    cr_assert_eq(mdl_evstate_compare(&A, &B, diff, sizeof diff), 1, "an age window differs");
    cr_expect(strstr(diff, "ages"), "%s", diff);
    *e = keep;
    e->stale.state = NULL;
    cr_assert_eq(mdl_evstate_compare(&A, &B, diff, sizeof diff), 1, "a stale bit differs");
    cr_expect(strstr(diff, "stale R vs no"), "%s", diff);
    *e = keep;
    cr_assert_eq(mdl_evstate_compare(&A, &B, diff, sizeof diff), 0, "%s", diff);
    /* the value of alu, written by addi two instructions back */
    int fa = -1;
    for (int i = 0; i < M->nfwds; i++)
        if (!strcmp(M->fwds[i].name, "alu"))
            fa = i;
    cr_assert_geq(fa, 0);
    ring = mdl_evstate_fwd(&B, fa, 0);
    e = NULL;
    for (int j = 0; j <= M->fwds[fa].hi; j++)
        if (ring[j].present)
            e = &ring[j];
    cr_assert_not_null(e, "no alu entry after %s", prog);
    e->v[0] += 1;
    cr_assert_eq(mdl_evstate_compare(&A, &B, diff, sizeof diff), 1, "alu's value differs");
    cr_expect(strstr(diff, "alu[0] ring entry"), "%s", diff);
    mdl_evstate_fini(&A);
    mdl_evstate_fini(&B);
    mdl_model_free(M);
}

/* Random bundles from random states and random histories: the simulator against the evaluator. */
Test(fwd, random_bundles_agree)
{
    char path[4096];
    const char *root = getenv("TESSERA_ROOT");
    snprintf(path, sizeof path, "%s/tests/desc/fwd.mdl", root && *root ? root : ".");
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
    struct mdl_model *M = mdl_load(path, &d);
    tsr_diag_fini(&d);
    cr_assert_not_null(M);
    static struct mdl_diffsim DS;
    cr_assert_eq(mdl_diffsim_init(&DS, M, &fwd_target, &fwd_sim_desc), 0, "%s", DS.report);
    diffsim_random(&DS, 7, test_random_count("fwd random bundles", 100000));
    cr_log_info("fwd random: %llu bundles: %llu ok, %llu halted, %llu hazards, %llu errors", (unsigned long long)DS.runs,
                (unsigned long long)DS.ok, (unsigned long long)DS.halted, (unsigned long long)DS.hazards,
                (unsigned long long)DS.errors);
    cr_expect_gt(DS.ok, DS.runs / 8);
    cr_expect_gt(DS.hazards, DS.runs / 100);
    mdl_diffsim_fini(&DS);
    mdl_model_free(M);
}

/* mdlc warns about a forward never written (every read is a hazard) and one never read; the description loads. */
Test(fwd, unused_forwards_are_warned_about)
{
    static const char text[] =
        "isa t { word 32; }\n"
        "field op [31:28];\n"
        "field x [27:0];\n"
        "forward w : u32 age 1..1;\n"
        "forward r : u32 age 1..2;\n"
        "forward used : u32 age 1..1;\n"
        "format f { fields op x; slots s; }\n"
        "slot s default nop;\n"
        "op nop : s { syntax \"nop\"; encode op == 0; sem { w = x; used = r@2 + used@1; } }\n";
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    struct mdl_model *m = mdl_load_buffer("w.mdl", text, sizeof text - 1, &d);
    cr_assert_not_null(m, "%s", d.count ? d.entries[0].text : "");
    cr_assert_eq(d.errors, 0u);
    cr_assert_eq(d.count, 2u);
    cr_expect_str_eq(d.entries[0].text, "w.mdl:4:9: warning: forward 'w' is never read");
    cr_expect_str_eq(d.entries[1].text, "w.mdl:5:9: warning: forward 'r' is never written (every read of it is a hazard)");
    mdl_model_free(m);
    tsr_diag_fini(&d);
}

/* ---- the validator: events `read F` / `write F` and the implicit rule F.age ---- */
struct vio { int n; char first[320]; uint32_t pc; };

static void on_viol(void *ctx, const struct tsr_vviol *v)
{
    struct vio *o = ctx;
    if (o->n++ == 0) {
        snprintf(o->first, sizeof o->first, "%s %s: %s", tsr_vviol_kind(v), v->name, v->text);
        o->pc = v->pc;
    }
}

/* The whole-program check of text's assembly: the number of violations, the first in *o. */
static int validate(const char *text, struct vio *o)
{
    struct tsr_words w;
    assemble(text, &w);
    memset(o, 0, sizeof *o);
    size_t n = tsr_validate(&fwd_vdesc, w.w, w.count, 0, on_viol, o);
    tsr_words_free(&w);
    return (int)n;
}

Test(fwd, validator_passes_the_good_programs)
{
    static const char *const good[] = {
        "addi k7, 5\naddi k8, 1\nadd alu@1, alu@2\nst r1, alu@1\naddc k7, k9\nst r2, acc@1\nstop\n",
        "mull k7, k8\nnop\nst r1, late@2\nstop\n",
        "li r3, 42\nnop\nnop\nnop\nkeep r2, r3\nst r1, ld@1\nstop\n",
        "addi k7, 1\njmp there\naddi k9, 0\nthere:\nadd alu@2, 0\nst r1, alu@1\nstop\n",
        "vset v1, 10\nvfw f1, v1\nvrd v2, f1\nvhalf f0\nvrd v3, f0\nstop\n",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        struct vio o;
        cr_expect_eq(validate(good[i], &o), 0, "program %zu: %s", i, o.first);
    }
}

/* Each mutation breaks the age rule of one forward once, found at the reader. */
Test(fwd, validator_finds_each_mutation)
{
    static const struct { const char *prog, *want; uint32_t pc; } mut[] = {
        /* the producer two before became a nop */
        { "nop\naddi k7, 0\nadd alu@2, 0\nstop\n",
          "rule alu.age: reads alu@2; the instruction 2 before (0x00000000) does not write alu", 8 },
        /* the nop between mull and its reader was dropped: read at age 1, written for ages 2..2 */
        { "mull k7, k8\nst r1, late@1\nstop\n",
          "rule late.age: reads late@1; the instruction 1 before (0x00000000) writes late for ages 2..2", 4 },
        /* the first instruction reads a result */
        { "add alu@1, 0\nstop\n", "rule alu.age: reads alu@1; there is no instruction 1 before it (the program's start)", 0 },
        /* after a taken branch the instruction before is the branch: the history follows the control flow */
        { "addi k7, 1\njmp there\naddi k9, 0\nthere:\nadd alu@1, 0\nstop\n",
          "rule alu.age: reads alu@1; the instruction 1 before (0x00000004) does not write alu", 12 },
        /* a rule of the description over forward events: alu read right after a write of late */
        { "addi k7, 0\nmull k7, k8\nadd alu@2, 0\nstop\n",
          "rule late_alu: reads alu@2; the instruction 1 before (0x00000004) writes late (forbidden 1..1 instructions "
          "apart)", 8 },
        /* vf[1] read where vf[0] was written */
        { "vset v1, 10\nvfw f0, v1\nvrd v2, f1\nstop\n",
          "rule vf.age: reads vf[1]@1; the instruction 1 before (0x00000004) does not write vf", 8 },
    };
    for (size_t i = 0; i < sizeof mut / sizeof mut[0]; i++) {
        struct vio o;
        int n = validate(mut[i].prog, &o);
        cr_expect_eq(n, 1, "mutation %zu: %d violations, the first: %s", i, n, o.first);
        cr_expect_str_eq(o.first, mut[i].want, "mutation %zu", i);
        cr_expect_eq(o.pc, mut[i].pc, "mutation %zu at 0x%x", i, o.pc);
    }
}

/* Deferred reads (docs/validate.md "Deferred reads"): the format's `ld = R[ra]` reads R inside its latency as the
 * value of a forward; the implicit rule R.latency checks it only where ld is read, at the reader, counting from the
 * loader. */
Test(fwd, validator_defers_the_reads_of_a_forward_value)
{
    static const struct { const char *prog, *want; uint32_t pc; } cases[] = {
        /* a stale load that nothing reads: no report (the simulator: no hazard either) */
        { "li r3, 42\nvfw f0, v3\nnop\nstop\n", NULL, 0 },
        /* the same load read at age 1 by the next instruction: one report, at the reader */
        { "li r3, 42\nvfw f0, v3\nst r1, ld@1\nstop\n",
          "rule R.latency: reads ld@1, loaded at 0x00000004 from R[3]; the instruction 1 before it (0x00000000) writes "
          "R[3] (at least 3 apart)", 8 },
        /* read at age 0 by the loader's own commit block */
        { "li r3, 42\nnop\nkeep r2, r3\nstop\n",
          "rule R.latency: reads ld@0, loaded at 0x00000008 from R[3]; the instruction 2 before it (0x00000000) writes "
          "R[3] (at least 3 apart)", 8 },
        /* far enough: 3 apart */
        { "li r3, 42\nnop\nnop\nvfw f0, v3\nst r1, ld@1\nstop\n", NULL, 0 },
        /* through a taken branch: the path 0x10 <- 0x04 <- 0x00 loads 2 after the store (the nops are dead code) */
        { "li r3, 42\njmp there\nnop\nnop\nthere:\nvfw f0, v3\nst r1, ld@1\nstop\n",
          "rule R.latency: reads ld@1, loaded at 0x00000010 from R[3]; the instruction 2 before it (0x00000000) writes "
          "R[3] (at least 3 apart)", 20 },
        /* the same branch, the store far enough before it */
        { "li r3, 42\nnop\nnop\njmp there\nnop\nthere:\nvfw f0, v3\nst r1, ld@1\nstop\n", NULL, 0 },
        /* stale on the branch's path, not read there: the reader is on the other path (after the jump's target) */
        { "li r3, 42\njmp there\nst r1, ld@1\nthere:\nvfw f0, v3\nnop\nstop\n", NULL, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct vio o;
        int n = validate(cases[i].prog, &o);
        if (!cases[i].want) {
            cr_expect_eq(n, 0, "case %zu: %d violations, the first: %s", i, n, o.first);
            continue;
        }
        cr_expect_eq(n, 1, "case %zu: %d violations, the first: %s", i, n, o.first);
        cr_expect_str_eq(o.first, cases[i].want, "case %zu", i);
        cr_expect_eq(o.pc, cases[i].pc, "case %zu at 0x%x", i, o.pc);
        /* the simulator's stream check, in issue order, reports the same first, before its own stale hazard */
        struct fwd_sim S;
        char want[400];
        snprintf(want, sizeof want, "hazard: rule R.latency at 0x%08x: %s", cases[i].pc,
                 cases[i].want + strlen("rule R.latency: "));
        int rc = run(&S, cases[i].prog, TSR_SIM_F_RULES);
        cr_expect_eq(rc, TSR_SIM_HAZARD, "case %zu", i);
        cr_expect_str_eq(S.core.msg, want, "case %zu", i);
    }
    /* a window over the load (late_ld: no load right after a write of late): also checked only where ld is read */
    struct vio o;
    cr_expect_eq(validate("mull k7, k8\nvfw f0, v3\nnop\nstop\n", &o), 0, "%s", o.first);
    cr_expect_eq(validate("mull k7, k8\nvfw f0, v3\nst r1, ld@1\nstop\n", &o), 1, "%s", o.first);
    cr_expect_str_eq(o.first, "rule late_ld: reads ld@1, loaded at 0x00000004 from R[3]; the instruction 1 before it "
                              "(0x00000000) writes late (forbidden 1..1 instructions apart)");
    cr_expect_eq(o.pc, 8u);
    /* the stale loads that nobody reads run clean with the rules on */
    struct fwd_sim S;
    int rc = run(&S, "li r3, 42\nvfw f0, v3\nnop\nstop\n", TSR_SIM_F_RULES);
    cr_expect_eq(rc, TSR_SIM_HALTED, "rc %d: %s", rc, S.core.msg);
}

/* The events: the load's read of R is deferred into ld (no `read R` event), the store's write is a plain write. */
Test(fwd, deferred_read_events)
{
    struct tsr_words w;
    assemble("keep r2, r5\n", &w);
    struct tsr_vbundle b;
    uint64_t f[16];
    memset(&b, 0, sizeof b);
    b.f = f;
    cr_assert_leq(fwd_vdesc.nfields, 16u);
    fwd_vdesc.events(w.w, 0, &b);
    int ndefer = 0, nread = 0;
    for (int i = 0; i < b.nev; i++) {
        const struct tsr_vev *e = &b.ev[i];
        nread += e->kind == TSR_V_RSTATE;
        if (e->kind != TSR_V_RDEFER)
            continue;
        ndefer++;
        cr_expect_eq(e->addr, 5);
        cr_expect_str_eq(fwd_vdesc.state_names[e->id], "R");
        cr_expect_str_eq(fwd_vdesc.fwd_names[e->origin], "ld");
        cr_expect_eq(e->val, 0);
        char t[96];
        tsr_vev_text(&fwd_vdesc, e, t, sizeof t);
        cr_expect_str_eq(t, "reads (deferred) R[5]");
    }
    cr_expect_eq(ndefer, 1);
    cr_expect_eq(nread, 0);
    tsr_words_free(&w);
}

/* The simulator's rule check (TSR_SIM_F_RULES) reports the age rule in issue order, before its own hazard. */
Test(fwd, simulator_rules_report_the_age_rule)
{
    struct fwd_sim S;
    int rc = run(&S, "nop\naddi k7, 0\nadd alu@2, 0\nstop\n", TSR_SIM_F_RULES);
    cr_assert_eq(rc, TSR_SIM_HAZARD);
    cr_expect_str_eq(S.core.msg, "hazard: rule alu.age at 0x00000008: reads alu@2; the instruction 2 before "
                                 "(0x00000000) does not write alu");
    rc = run(&S, "addi k7, 5\naddi k8, 1\nadd alu@1, alu@2\nst r1, alu@1\nstop\n", TSR_SIM_F_RULES);
    cr_expect_eq(rc, TSR_SIM_HALTED, "rc %d: %s", rc, S.core.msg);
}

/* Rule patterns name forwards like state: `read F`, `write F[codes]`. */
Test(fwd, rule_patterns_name_forwards)
{
    static const char text[] =
        "isa t { word 32; }\n"
        "state pc : u32;\n"
        "field op [31:28];\n"
        "field x [27:0];\n"
        "forward v[2] : u32 age 1..2;\n"
        "format f { fields op x; slots s; }\n"
        "slot s default nop;\n"
        "op nop : s { syntax \"nop\"; encode op == 0; sem { } }\n"
        "op w : s { syntax \"w\"; encode op == 1; sem v[1] = x; }\n"
        "op r : s { syntax \"r\"; encode op == 2; sem v[0] = v[1]@1 + v[1]@2; }\n"
        "forbid no_w1: write v[1] -> read v at 1..1 ref \"test\";\n"
        "forbid fwd_pair: read v & write v[0] ref \"test\";\n";
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    struct mdl_model *m = mdl_load_buffer("p.mdl", text, sizeof text - 1, &d);
    cr_assert_not_null(m, "%s", d.count ? d.entries[0].text : "");
    cr_assert_eq(m->nrules, 2);
    cr_expect_eq(m->rules[0].pat[0].terms[0].fwd, 0);
    cr_expect_eq(m->rules[0].pat[0].terms[0].kind, MDL_EV_WRITE);
    cr_expect_eq(m->rules[0].pat[0].terms[0].ncodes, 1);
    cr_expect_eq(m->rules[1].pat[0].terms[0].kind, MDL_EV_READ);
    cr_expect_eq(m->rules[1].pat[0].terms[0].state, -1);
    mdl_model_free(m);
    tsr_diag_fini(&d);
    /* a forward without elements takes no codes */
    static const char bad[] =
        "isa t { word 32; }\nfield op [31:28];\nfield x [27:0];\nforward v : u32 age 1..1;\n"
        "format f { fields op x; slots s; }\nslot s default nop;\n"
        "op nop : s { syntax \"nop\"; encode op == 0; sem v = v@1; }\n"
        "forbid b: write v[0] & read v ref \"test\";\n";
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    cr_expect_null(mdl_load_buffer("b.mdl", bad, sizeof bad - 1, &d));
    cr_assert_geq(d.count, 1u);
    cr_expect_str_eq(d.entries[0].text, "b.mdl:8:17: error: forward 'v' has no elements");
    tsr_diag_fini(&d);
}
