/* The generated hazard validator of the QPU (build/gen/qpu/qpu_validate.c, runtime/validate/validate.c; the rules are
 * targets/qpu/qpu.mdl's "Resources, latencies and hazards"):
 *  - every real program passes: the 16 GPU_FFT programs (12,112 words of Broadcom-assembler output) and the
 *    three 'shader code' listings of the blob in seed 003;
 *  - mutations of real programs (an instruction moved, a nop replaced by a conflicting access, a delay slot
 *    dropped, a field flipped) break each rule, and the validator names that rule at that instruction;
 *  - the same mutations against the independent hand-written audit of tools/gpufft.c (gpufft_audit_bundle,
 *    8 rules on the raw bits);
 * (the resources, control flow, the memo, the engine alone and the stream check: tests/test_validate_engine.c).
 * Run from the repository root (or with TESSERA_ROOT set); ../shared or $TESSERA_SHARED holds the corpus.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "gpufft.h"
#include "qpu.h"
#include "support_qpuval.h"
#include "tsr.h"
#include "validate/validate.h"

/* ---- clean programs ---------------------------------------------------------------------------------------- */
Test(validate, gpufft_corpus_passes)
{
    char shared[4096], dir[4200], err[4400];
    corpus_shared_dir(shared, sizeof shared);
    snprintf(dir, sizeof dir, "%s/corpus/qpu/gpu_fft_r3/hex", shared);
    char *names[64];
    int nf = corpus_hex_names(dir, names, 64, err, sizeof err);
    cr_assert_geq(nf, 0, "%s (set TESSERA_SHARED)", err);
    size_t words = 0, bad = 0;
    for (int i = 0; i < nf; i++) {
        struct prog p;
        struct found f;
        prog_read_hex(&p, names[i]);
        size_t n = prog_validate(&p, &f);
        if (n) {
            found_log(&p, &f);
            bad++;
        }
        words += p.n;
        /* the target descriptor's entry point agrees */
        struct tsr_diag dg;
        tsr_diag_init(&dg, TSR_DIAG_STORE, NULL);
        cr_expect_eq(qpu_target.validate(p.w, p.n, 0, &dg, names[i]), n ? -1 : 0);
        cr_expect_eq(dg.count, n);
        tsr_diag_fini(&dg);
        prog_free(&p);
        free(names[i]);
    }
    cr_expect_eq(nf, 16);
    cr_expect_eq(words, 12112);
    cr_expect_eq(bad, 0, "%zu of %d GPU_FFT programs break a rule", bad, nf);
}

Test(validate, blob_programs_pass)
{
    size_t want[3] = {11, 13, 9};
    for (int k = 0; k < 3; k++) {
        struct prog p;
        struct found f;
        prog_read_blob(&p, k);
        cr_expect_eq(p.n, want[k]);
        cr_expect_eq(prog_validate(&p, &f), 0, "blob listing %d breaks a rule", k + 1);
        found_log(&p, &f);
        prog_free(&p);
    }
}

/* ---- mutations --------------------------------------------------------------------------------------------- */
/* A mutation of a real program: what it does, the rule it must break and where (instruction index), and the
 * audit rule of tools/gpufft.c that covers it (-1: none). */
struct mutation {
    const char *rule;
    const char *how;
    size_t at;
    int audit;
};

/* Feeds the straight-line bundles before p->w[at] (at most 3) and at itself to the audit; its hit mask. */
static unsigned audit(const struct prog *p, size_t at)
{
    struct gpufft_audit a = {0};
    unsigned hit = 0;
    for (size_t i = at >= 3 ? at - 3 : 0; i <= at; i++)
        hit = gpufft_audit_bundle(&a, (uint64_t)p->w[2 * i] | (uint64_t)p->w[2 * i + 1] << 32);
    return hit;
}

static int check(const struct prog *p, const struct mutation *m)
{
    struct found f;
    prog_validate(p, &f);
    bool ok = false;
    for (int i = 0; i < f.n && i < 64; i++)
        ok |= !strcmp(f.v[i].name, m->rule) && f.v[i].pc == 8 * m->at;
    char *t = prog_dis(p, m->at);
    if (!ok) {
        cr_log_error("%s: %s: rule %s not reported at 0x%08zx (%s)", p->name, m->how, m->rule, 8 * m->at, t);
        found_log(p, &f);
    } else {
        cr_log_info("%-16s %-58s caught at 0x%08zx: %s", m->rule, m->how, 8 * m->at, t);
    }
    free(t);
    if (m->audit >= 0) {
        unsigned hit = audit(p, m->at);
        cr_expect(hit >> m->audit & 1, "%s: %s: the audit (%s) does not see it (mask 0x%x)", p->name, m->how,
                  gpufft_audit_rule(m->audit), hit);
    }
    return ok;
}

/* The mutated program breaks exactly one rule, `rule`, at instruction `at`, and the report contains each of the
 * texts (NULL-terminated). */
static void exactly(const struct prog *p, const char *rule, size_t at, const char *const *texts)
{
    struct found f;
    prog_validate(p, &f);
    found_log(p, &f);
    cr_expect_eq(f.n, 1, "%s: %d reports for a mutation that breaks %s only", p->name, f.n, rule);
    if (f.n < 1)
        return;
    cr_expect_str_eq(f.v[0].name, rule);
    cr_expect_eq(f.v[0].pc, 8 * at);
    for (int i = 0; texts[i]; i++)
        cr_expect(strstr(f.v[0].text, texts[i]) != NULL, "'%s' not in '%s'", texts[i], f.v[0].text);
}

/* Every rule of the description (and resource periph) is broken by at least one mutation. */
Test(validate, mutations_break_each_rule)
{
    struct prog fft, blob;
    struct mutation m;
    int caught = 0, total = 0;
    const char *rules_hit[64];
    int nhit = 0;
#define MUT(prog_, rule_, how_, at_, audit_)                                                                       \
    do {                                                                                                            \
        m = (struct mutation){rule_, how_, at_, audit_};                                                            \
        total++;                                                                                                    \
        if (check(&prog_, &m)) {                                                                                    \
            caught++;                                                                                               \
            rules_hit[nhit++] = rule_;                                                                              \
        }                                                                                                           \
    } while (0)
#define FRESH(prog_, src_)                                                                                         \
    do {                                                                                                            \
        prog_free(&prog_);                                                                                          \
        src_;                                                                                                       \
    } while (0)
    fft.w = blob.w = NULL;
    size_t i, j, t;
    char text[128], reg[16];

    /* regfile_raw: the nop after a regfile-A write now reads the register (A side), and the same on B */
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    i = prog_find(&fft, 0, "mov ra", false);
    {
        char *s = prog_dis(&fft, i);
        sscanf(s, "mov %15[a-z0-9]", reg);
        free(s);
    }
    snprintf(text, sizeof text, "mov r0, %s", reg);
    prog_put(&fft, i + 1, text);
    MUT(fft, "regfile_raw", "read of a regfile-A register right after its write", i + 1, -1);
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    i = prog_find(&fft, 0, "mov rb", false);
    {
        char *s = prog_dis(&fft, i);
        sscanf(s, "mov %15[a-z0-9]", reg);
        free(s);
    }
    snprintf(text, sizeof text, "fadd r0, r1, %s", reg);
    prog_put(&fft, i + 1, text);
    MUT(fft, "regfile_raw", "read of a regfile-B register right after its write", i + 1, -1);

    /* SFU: three delay-slot nops after a branch become an SFU write and an early r4 read / r4 load */
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    i = prog_find(&fft, 0, "brr", false) + 1;
    prog_put(&fft, i, "mov recip, r0");
    prog_put(&fft, i + 2, "fadd r1, r4, r1");
    MUT(fft, "sfu_result", "r4 read 2 instructions after an SFU write", i + 2, -1);
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    j = prog_find(&fft, 0, "ldtmu0", true);
    prog_put(&fft, j - 1, "mov exp, r0");
    MUT(fft, "sfu_r4", "ldtmu0 right after an SFU write", j, GPUFFT_AUDIT_SFU);

    /* tmu_noswap: the instruction before a TMU write writes tmu_noswap */
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    j = prog_find(&fft, 0, "add t0s", false);
    prog_put(&fft, j - 1, "mov tmu_noswap, r0");
    MUT(fft, "tmu_noswap", "TMU write 1 instruction after tmu_noswap", j, GPUFFT_AUDIT_NOSWAP);

    /* unif_addr: a uniform read right after a unif_addr write */
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    j = prog_find(&fft, 1, "unif", true);
    prog_put(&fft, j - 1, "mov unif_addr, r0");
    MUT(fft, "unif_addr", "uniform read 1 instruction after unif_addr", j, GPUFFT_AUDIT_UNIF);

    /* VPM setups: both setups in one instruction; a setup with a VPM write */
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    i = prog_find(&fft, 0, "mov vw_setup", false);
    prog_put(&fft, i, "mov vr_setup, r0; mov vw_setup, r1");
    MUT(fft, "vpm_setups", "vr_setup and vw_setup in one instruction", i, GPUFFT_AUDIT_VPM);
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    i = prog_find(&fft, 0, "mov vpm, r0", false);
    prog_put(&fft, i, "mov vpm, r0; mov vw_setup, r2");
    MUT(fft, "vpm_setup_access", "VPM write with vw_setup in one instruction", i, GPUFFT_AUDIT_VPM);

    /* thread end: the thrend instruction writes ra0; its delay slots read a uniform, read ra14, write tlbz */
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    t = prog_find(&fft, 0, "nop; nop; thrend", false);
    prog_put(&fft, t, "mov ra0, r0; nop; thrend");
    MUT(fft, "thrend_regfile", "thrend instruction writes ra0", t, GPUFFT_AUDIT_THREND);
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    prog_put(&fft, t + 1, "mov r0, unif");
    MUT(fft, "thrend_io", "uniform read in the first thrend delay slot", t + 1, GPUFFT_AUDIT_THREND);
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    prog_put(&fft, t + 2, "mov vw_setup, r0");
    MUT(fft, "thrend_io", "vw_setup in the last thrend delay slot", t + 2, GPUFFT_AUDIT_THREND);
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    prog_put(&fft, t + 2, "mov r0, ra14");
    MUT(fft, "thrend_r14", "ra14 read in the last thrend delay slot", t + 2, -1);
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    prog_put(&fft, t + 1, "mov rb14, r0");
    MUT(fft, "thrend_r14", "rb14 write in the first thrend delay slot", t + 1, -1);
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    prog_put(&fft, t + 2, "mov tlbz, r0");
    MUT(fft, "thrend_tlbz", "TLB Z write in the last thrend delay slot", t + 2, -1);

    /* peripheral writes: a TMU write made conditional (cond_add 1 -> 2), a VPM write packed to 16a */
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    i = prog_find(&fft, 0, "add t0s", false);
    prog_set_field(&fft, i, QPU_F_COND_ADD, 2);
    MUT(fft, "periph_cond", "TMU write made conditional (.ifz)", i, -1);
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    i = prog_find(&fft, 0, "mov vpm, r0", false);
    prog_set_field(&fft, i, QPU_F_PM, 0);
    prog_set_field(&fft, i, QPU_F_PACK, 1);
    MUT(fft, "periph_partial", "VPM write through the 16a pack", i, -1);
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    i = prog_find(&fft, 0, "mov vw_setup", false);
    prog_put(&fft, i, "nop; mov vw_setup.8b, r0");
    MUT(fft, "periph_partial", "vw_setup written through the MUL pack 8b", i, -1);

    /* one peripheral access per instruction: a TMU write with an SFU write; a semaphore with a TMU write */
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    i = prog_find(&fft, 0, "add t0s", false);
    prog_put(&fft, i, "add t0s, r0, r1; mov recip, r2");
    MUT(fft, "periph", "TMU write and SFU write in one instruction", i, GPUFFT_AUDIT_ONE_UNIT);
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    i = prog_find(&fft, 0, "mov -, sacq", false);
    prog_put(&fft, i, "mov t0s, sacq(9)");
    MUT(fft, "periph", "semaphore acquire writing t0s", i, GPUFFT_AUDIT_ONE_UNIT);

    /* branches: a copy of a branch in its own second delay slot */
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    i = prog_find(&fft, 0, "brr", false);
    fft.w[2 * (i + 2)] = fft.w[2 * i];
    fft.w[2 * (i + 2) + 1] = fft.w[2 * i + 1];
    MUT(fft, "branch_gap", "branch in the second delay slot of a branch", i + 2, GPUFFT_AUDIT_BRANCH);

    /* rotation: the instruction before a rotation writes the rotated accumulator; or r5 before a >> r5 */
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    i = prog_find(&fft, 0, "r1 >> 1", true);
    prog_put(&fft, i - 1, "mov r1, r0");
    MUT(fft, "rotate_src", "rotated accumulator r1 written just before", i, GPUFFT_AUDIT_ROTATE);
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    prog_set_field(&fft, i, QPU_F_RADDR_B, 48);   /* the same rotation by r5 */
    prog_put(&fft, i - 1, "mov r5rep, r0");
    MUT(fft, "rotate_src", "rotation by r5 right after an r5 write", i, GPUFFT_AUDIT_ROTATE);

    /* fragment shader start and TLB (the blob's fragment shader) */
    FRESH(blob, prog_read_blob(&blob, 0));
    {   /* move the sbwait of instruction 1 to instruction 0 (swap them) */
        uint32_t a = blob.w[0], b = blob.w[1];
        blob.w[0] = blob.w[2];
        blob.w[1] = blob.w[3];
        blob.w[2] = a;
        blob.w[3] = b;
    }
    MUT(blob, "sbwait_start", "sbwait moved into the first instruction", 0, -1);
    FRESH(blob, prog_read_blob(&blob, 0));
    j = prog_find(&blob, 0, "mov tlbc", false);
    memcpy(blob.w + 2, blob.w + 2 * j, 8);   /* the colour write moved to the second instruction */
    MUT(blob, "tlb_start", "TLB colour write moved into the second instruction", 1, -1);
    FRESH(blob, prog_read_blob(&blob, 0));
    prog_put(&blob, 4, "mov tlbz, r0");
    prog_put(&blob, 5, "fadd r1, ms_flags, r2");
    MUT(blob, "tlbz_ms_flags", "ms_flags read right after a TLB Z write", 5, -1);

    /* vc4asm's checks.  dual_write: `mov r2, ra13; mov r3, rb13` with both halves writing r2; both ALUs
     * writing host_int under inverse conditions (fine for an accumulator, not for an I/O register) */
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    i = prog_find(&fft, 0, "mov r2, ra13; mov r3, rb13", false);
    prog_set_field(&fft, i, QPU_F_WADDR_MUL, 34);
    MUT(fft, "dual_write", "both ALUs write r2", i, -1);
    exactly(&fft, "dual_write", i, (const char *const[]){"writes wr_a[34] and writes wr_b[34] in one instruction", NULL});
    prog_set_field(&fft, i, QPU_F_COND_ADD, 2);
    prog_set_field(&fft, i, QPU_F_COND_MUL, 3);
    {
        struct found f;
        cr_expect_eq(prog_validate(&fft, &f), 0, "r2 written by both ALUs under inverse conditions (.ifz / .ifnz) is fine");
        found_log(&fft, &f);
    }
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    i = prog_find(&fft, 0, "mov host_int, rb3", false);
    prog_put(&fft, i, "mov.ifz host_int, rb3; mov.ifnz host_int, r0");
    MUT(fft, "dual_write", "both ALUs write host_int under inverse conditions", i, -1);
    exactly(&fft, "dual_write", i,
            (const char *const[]){"writes wr_a[38] (conditionally) and writes wr_b[38] (conditionally)", NULL});

    /* apack_acc: `fsub r1, r0, r1` through the regfile-A pack 16a */
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    i = prog_find(&fft, 0, "fsub r1, r0, r1", false);
    prog_set_field(&fft, i, QPU_F_PACK, 1);
    MUT(fft, "apack_acc", "regfile-A pack 16a on an accumulator destination", i, -1);
    exactly(&fft, "apack_acc", i, (const char *const[]){"writes acc[1]", NULL});

    /* unpack_mixed: `fadd r2, r0, r2; fmul r3, r3, ra9` with both ALUs reading ra9.16a, the mul as mul24 */
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    i = prog_find(&fft, 0, "fadd r2, r0, r2; fmul r3, r3, ra9", false);
    prog_put(&fft, i, "fadd r2, r0, ra9.16a; mul24 r3, r3, ra9.16a");
    MUT(fft, "unpack_mixed", "ra9.16a read by fadd (float) and mul24 (integer)", i, -1);
    exactly(&fft, "unpack_mixed", i, (const char *const[]){"reads ra[9] and reads ra[9] in one instruction", NULL});
    prog_put(&fft, i, "fadd r2, r0, ra9.16a; fmul r3, r3, ra9.16a");
    {
        struct found f;
        cr_expect_eq(prog_validate(&fft, &f), 0, "ra9.16a read as float by both ALUs is fine");
        found_log(&fft, &f);
    }

    /* tmu_noswap_late: the first TMU load after two TMU requests also writes tmu_noswap */
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    i = prog_find(&fft, prog_find(&fft, 0, "add t0s", false), "nop; nop; ldtmu0", false);
    prog_put(&fft, i, "mov tmu_noswap, r0; nop; ldtmu0");
    MUT(fft, "tmu_noswap_late", "tmu_noswap written after the TMU was used", i, -1);
    exactly(&fft, "tmu_noswap_late", i,
            (const char *const[]){"writes wr_a[36]; the instruction ",
                                  "writes wr_a[56] (forbidden 1 or more instructions apart)", NULL});

    prog_free(&fft);
    prog_free(&blob);
    cr_expect_eq(caught, total, "%d of %d mutations caught", caught, total);
    /* every violable rule of the description is among them */
    static const char *const violable[] = {
        "regfile_raw", "sfu_result", "sfu_r4", "tmu_noswap", "unif_addr", "vpm_setups", "vpm_setup_access",
        "thrend_regfile", "thrend_io", "thrend_r14", "thrend_tlbz", "periph_cond", "periph_partial",
        "tlbz_ms_flags", "sbwait_start", "tlb_start", "branch_gap", "rotate_src", "dual_write", "apack_acc",
        "unpack_mixed", "tmu_noswap_late", "periph",
    };   /* periph is the resource */
    for (size_t r = 0; r < sizeof violable / sizeof *violable; r++) {
        bool hit = false;
        for (int k = 0; k < nhit; k++)
            hit |= !strcmp(rules_hit[k], violable[r]);
        cr_expect(hit, "no mutation caught for rule %s", violable[r]);
    }
    /* and those are all the description's rules but acc_forward, a minimum-1 latency (never violable: a read in
     * the writer's own instruction sees the old value), and the `order` classes (packer facts, not rules) */
    int nrules = 0;
    for (int r = 0; r < qpu_vdesc.nrules; r++) {
        if (qpu_vdesc.rules[r].kind == TSR_VR_ORDER)
            continue;
        bool listed = false;
        for (size_t k = 0; k < sizeof violable / sizeof *violable; k++)
            listed |= !strcmp(qpu_vdesc.rules[r].name, violable[k]);
        if (!listed)
            cr_expect(qpu_vdesc.rules[r].kind == TSR_VR_LATENCY && qpu_vdesc.rules[r].lo == 1,
                      "rule %s has no mutation", qpu_vdesc.rules[r].name);
        nrules++;
    }
    cr_expect_eq(nrules, 23);
#undef MUT
#undef FRESH
}
