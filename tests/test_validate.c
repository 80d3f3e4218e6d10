/* The generated hazard validator of the QPU (build/gen/qpu/qpu_validate.c, runtime/validate/validate.c; the rules are
 * targets/qpu/qpu.mdl's "Resources, latencies and hazards"):
 *  - every real program passes: the 16 GPU_FFT programs (12,112 words of Broadcom-assembler output) and the
 *    three 'shader code' listings of the blob in seed 003;
 *  - mutations of real programs (an instruction moved, a nop replaced by a conflicting access, a delay slot
 *    dropped, a field flipped) break each rule, and the validator names that rule at that instruction;
 *  - the same mutations against the independent hand-written audit of tools/gpufft.c (gpufft_audit_bundle,
 *    8 rules on the raw bits);
 *  - the resources the packer relies on (read ports, pack, unpack, write swap) appear with their values;
 *  - the whole-program check's memo, kept by the thread, changes no verdict (programs in turn, a call from a
 *    report callback);
 *  - the engine's latency `max`, windows at distance 0 and the stream check (bundles in issue order, here fed
 *    by the simulator's ready hook) behave as runtime/validate/validate.h says.
 * Run from the repository root (or with TESSERA_ROOT set); ../shared or $TESSERA_SHARED holds the corpus.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "gpufft.h"
#include "qpu.h"
#include "qpu_hooks.h"
#include "tsr.h"
#include "validate/validate.h"

static const char *shared_dir(void)
{
    static char buf[4096];
    const char *s = getenv("TESSERA_SHARED");
    if (s && *s)
        return s;
    const char *root = getenv("TESSERA_ROOT");
    snprintf(buf, sizeof buf, "%s/../shared", root && *root ? root : ".");
    return buf;
}

/* ---- programs ------------------------------------------------------------------------------------------- */
struct prog { uint32_t *w; size_t n; char name[64]; };

static void prog_read_hex(struct prog *p, const char *file)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/corpus/qpu/gpu_fft_r3/hex/%s", shared_dir(), file);
    struct tsr_words w;
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
    tsr_words_init(&w, 64);
    cr_assert_eq(tsr_words_read(&w, path, TSR_WORDS_HEX, &d), 0, "cannot read %s", path);
    p->n = w.count;
    p->w = malloc(2 * w.count * sizeof *p->w);
    memcpy(p->w, w.w, 2 * w.count * sizeof *p->w);
    snprintf(p->name, sizeof p->name, "%s", file);
    tsr_words_free(&w);
    tsr_diag_fini(&d);
}

/* The seed's three blob listings ("('shader code'" blocks of seed 003), k = 0, 1, 2 (tools/corpus.h). */
static void prog_read_blob(struct prog *p, int k)
{
    char err[512];
    struct tsr_words w;
    tsr_words_init(&w, 64);
    cr_assert_eq(corpus_blob_read(k, &w, err, sizeof err), 0, "%s", err);
    p->n = w.count;
    p->w = malloc(2 * w.count * sizeof *p->w);
    memcpy(p->w, w.w, 2 * w.count * sizeof *p->w);
    snprintf(p->name, sizeof p->name, "blob %d", k + 1);
    tsr_words_free(&w);
}

static void prog_free(struct prog *p)
{
    free(p->w);
    p->w = NULL;
}

static char *dis(const struct prog *p, size_t i)
{
    struct tsr_buf b = {0};
    qpu_disasm(p->w + 2 * i, 8 * i, &b);
    return b.data ? b.data : strdup("");
}

/* First instruction from `from` whose disassembly starts with `prefix` (or contains it, if anywhere). */
static size_t find(const struct prog *p, size_t from, const char *prefix, bool anywhere)
{
    for (size_t i = from; i < p->n; i++) {
        char *t = dis(p, i);
        bool hit = anywhere ? strstr(t, prefix) != NULL : strncmp(t, prefix, strlen(prefix)) == 0;
        free(t);
        if (hit)
            return i;
    }
    cr_assert_fail("%s: no instruction %s '%s'", p->name, anywhere ? "containing" : "starting with", prefix);
    return 0;
}

static void put(struct prog *p, size_t i, const char *text)
{
    char err[256];
    cr_assert_lt(i, p->n);
    cr_assert_eq(qpu_assemble_one(text, strlen(text), 8 * i, p->w + 2 * i, err, sizeof err), 0, "'%s': %s", text, err);
}

static void set_field(struct prog *p, size_t i, int field, uint64_t v)
{
    struct qpu_inst in;
    qpu_decode(p->w + 2 * i, &in);
    in.f[field] = v;
    qpu_encode(&in, p->w + 2 * i);
}

/* ---- validation --------------------------------------------------------------------------------------- */
struct found { int n; struct { char name[48]; uint32_t pc; char text[300]; } v[64]; };

static void collect(void *ctx, const struct tsr_vviol *v)
{
    struct found *f = ctx;
    if (f->n < 64) {
        snprintf(f->v[f->n].name, sizeof f->v[f->n].name, "%s", v->name);
        f->v[f->n].pc = v->pc;
        snprintf(f->v[f->n].text, sizeof f->v[f->n].text, "%s", v->text);
    }
    f->n++;
}

static size_t run(const struct prog *p, struct found *f)
{
    memset(f, 0, sizeof *f);
    return tsr_validate(&qpu_vdesc, p->w, p->n, 0, collect, f);
}

static void dump(const struct prog *p, const struct found *f)
{
    for (int i = 0; i < f->n && i < 64; i++)
        cr_log_info("%s: 0x%08x %s: %s", p->name, (unsigned)f->v[i].pc, f->v[i].name, f->v[i].text);
}

/* ---- clean programs ---------------------------------------------------------------------------------------- */
static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

Test(validate, gpufft_corpus_passes)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/corpus/qpu/gpu_fft_r3/hex", shared_dir());
    DIR *d = opendir(dir);
    cr_assert(d, "cannot open %s (set TESSERA_SHARED)", dir);
    char *names[64];
    int nf = 0;
    struct dirent *e;
    while ((e = readdir(d)) && nf < 64)
        if (strstr(e->d_name, ".hex"))
            names[nf++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)nf, sizeof *names, cmp_str);
    size_t words = 0, bad = 0;
    for (int i = 0; i < nf; i++) {
        struct prog p;
        struct found f;
        prog_read_hex(&p, names[i]);
        size_t n = run(&p, &f);
        if (n) {
            dump(&p, &f);
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
        cr_expect_eq(run(&p, &f), 0, "blob listing %d breaks a rule", k + 1);
        dump(&p, &f);
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
    run(p, &f);
    bool ok = false;
    for (int i = 0; i < f.n && i < 64; i++)
        ok |= !strcmp(f.v[i].name, m->rule) && f.v[i].pc == 8 * m->at;
    char *t = dis(p, m->at);
    if (!ok) {
        cr_log_error("%s: %s: rule %s not reported at 0x%08zx (%s)", p->name, m->how, m->rule, 8 * m->at, t);
        dump(p, &f);
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
    run(p, &f);
    dump(p, &f);
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
    i = find(&fft, 0, "mov ra", false);
    {
        char *s = dis(&fft, i);
        sscanf(s, "mov %15[a-z0-9]", reg);
        free(s);
    }
    snprintf(text, sizeof text, "mov r0, %s", reg);
    put(&fft, i + 1, text);
    MUT(fft, "regfile_raw", "read of a regfile-A register right after its write", i + 1, -1);
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    i = find(&fft, 0, "mov rb", false);
    {
        char *s = dis(&fft, i);
        sscanf(s, "mov %15[a-z0-9]", reg);
        free(s);
    }
    snprintf(text, sizeof text, "fadd r0, r1, %s", reg);
    put(&fft, i + 1, text);
    MUT(fft, "regfile_raw", "read of a regfile-B register right after its write", i + 1, -1);

    /* SFU: three delay-slot nops after a branch become an SFU write and an early r4 read / r4 load */
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    i = find(&fft, 0, "brr", false) + 1;
    put(&fft, i, "mov recip, r0");
    put(&fft, i + 2, "fadd r1, r4, r1");
    MUT(fft, "sfu_result", "r4 read 2 instructions after an SFU write", i + 2, -1);
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    j = find(&fft, 0, "ldtmu0", true);
    put(&fft, j - 1, "mov exp, r0");
    MUT(fft, "sfu_r4", "ldtmu0 right after an SFU write", j, GPUFFT_AUDIT_SFU);

    /* tmu_noswap: the instruction before a TMU write writes tmu_noswap */
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    j = find(&fft, 0, "add t0s", false);
    put(&fft, j - 1, "mov tmu_noswap, r0");
    MUT(fft, "tmu_noswap", "TMU write 1 instruction after tmu_noswap", j, GPUFFT_AUDIT_NOSWAP);

    /* unif_addr: a uniform read right after a unif_addr write */
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    j = find(&fft, 1, "unif", true);
    put(&fft, j - 1, "mov unif_addr, r0");
    MUT(fft, "unif_addr", "uniform read 1 instruction after unif_addr", j, GPUFFT_AUDIT_UNIF);

    /* VPM setups: both setups in one instruction; a setup with a VPM write */
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    i = find(&fft, 0, "mov vw_setup", false);
    put(&fft, i, "mov vr_setup, r0; mov vw_setup, r1");
    MUT(fft, "vpm_setups", "vr_setup and vw_setup in one instruction", i, GPUFFT_AUDIT_VPM);
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    i = find(&fft, 0, "mov vpm, r0", false);
    put(&fft, i, "mov vpm, r0; mov vw_setup, r2");
    MUT(fft, "vpm_setup_access", "VPM write with vw_setup in one instruction", i, GPUFFT_AUDIT_VPM);

    /* thread end: the thrend instruction writes ra0; its delay slots read a uniform, read ra14, write tlbz */
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    t = find(&fft, 0, "nop; nop; thrend", false);
    put(&fft, t, "mov ra0, r0; nop; thrend");
    MUT(fft, "thrend_regfile", "thrend instruction writes ra0", t, GPUFFT_AUDIT_THREND);
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    put(&fft, t + 1, "mov r0, unif");
    MUT(fft, "thrend_io", "uniform read in the first thrend delay slot", t + 1, GPUFFT_AUDIT_THREND);
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    put(&fft, t + 2, "mov vw_setup, r0");
    MUT(fft, "thrend_io", "vw_setup in the last thrend delay slot", t + 2, GPUFFT_AUDIT_THREND);
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    put(&fft, t + 2, "mov r0, ra14");
    MUT(fft, "thrend_r14", "ra14 read in the last thrend delay slot", t + 2, -1);
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    put(&fft, t + 1, "mov rb14, r0");
    MUT(fft, "thrend_r14", "rb14 write in the first thrend delay slot", t + 1, -1);
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    put(&fft, t + 2, "mov tlbz, r0");
    MUT(fft, "thrend_tlbz", "TLB Z write in the last thrend delay slot", t + 2, -1);

    /* peripheral writes: a TMU write made conditional (cond_add 1 -> 2), a VPM write packed to 16a */
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    i = find(&fft, 0, "add t0s", false);
    set_field(&fft, i, QPU_F_COND_ADD, 2);
    MUT(fft, "periph_cond", "TMU write made conditional (.ifz)", i, -1);
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    i = find(&fft, 0, "mov vpm, r0", false);
    set_field(&fft, i, QPU_F_PM, 0);
    set_field(&fft, i, QPU_F_PACK, 1);
    MUT(fft, "periph_partial", "VPM write through the 16a pack", i, -1);
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    i = find(&fft, 0, "mov vw_setup", false);
    put(&fft, i, "nop; mov vw_setup.8b, r0");
    MUT(fft, "periph_partial", "vw_setup written through the MUL pack 8b", i, -1);

    /* one peripheral access per instruction: a TMU write with an SFU write; a semaphore with a TMU write */
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    i = find(&fft, 0, "add t0s", false);
    put(&fft, i, "add t0s, r0, r1; mov recip, r2");
    MUT(fft, "periph", "TMU write and SFU write in one instruction", i, GPUFFT_AUDIT_ONE_UNIT);
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    i = find(&fft, 0, "mov -, sacq", false);
    put(&fft, i, "mov t0s, sacq(9)");
    MUT(fft, "periph", "semaphore acquire writing t0s", i, GPUFFT_AUDIT_ONE_UNIT);

    /* branches: a copy of a branch in its own second delay slot */
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    i = find(&fft, 0, "brr", false);
    fft.w[2 * (i + 2)] = fft.w[2 * i];
    fft.w[2 * (i + 2) + 1] = fft.w[2 * i + 1];
    MUT(fft, "branch_gap", "branch in the second delay slot of a branch", i + 2, GPUFFT_AUDIT_BRANCH);

    /* rotation: the instruction before a rotation writes the rotated accumulator; or r5 before a >> r5 */
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    i = find(&fft, 0, "r1 >> 1", true);
    put(&fft, i - 1, "mov r1, r0");
    MUT(fft, "rotate_src", "rotated accumulator r1 written just before", i, GPUFFT_AUDIT_ROTATE);
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    set_field(&fft, i, QPU_F_RADDR_B, 48);   /* the same rotation by r5 */
    put(&fft, i - 1, "mov r5rep, r0");
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
    j = find(&blob, 0, "mov tlbc", false);
    memcpy(blob.w + 2, blob.w + 2 * j, 8);   /* the colour write moved to the second instruction */
    MUT(blob, "tlb_start", "TLB colour write moved into the second instruction", 1, -1);
    FRESH(blob, prog_read_blob(&blob, 0));
    put(&blob, 4, "mov tlbz, r0");
    put(&blob, 5, "fadd r1, ms_flags, r2");
    MUT(blob, "tlbz_ms_flags", "ms_flags read right after a TLB Z write", 5, -1);

    /* vc4asm's checks.  dual_write: `mov r2, ra13; mov r3, rb13` with both halves writing r2; both ALUs
     * writing host_int under inverse conditions (fine for an accumulator, not for an I/O register) */
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    i = find(&fft, 0, "mov r2, ra13; mov r3, rb13", false);
    set_field(&fft, i, QPU_F_WADDR_MUL, 34);
    MUT(fft, "dual_write", "both ALUs write r2", i, -1);
    exactly(&fft, "dual_write", i, (const char *const[]){"writes wr_a[34] and writes wr_b[34] in one instruction", NULL});
    set_field(&fft, i, QPU_F_COND_ADD, 2);
    set_field(&fft, i, QPU_F_COND_MUL, 3);
    {
        struct found f;
        cr_expect_eq(run(&fft, &f), 0, "r2 written by both ALUs under inverse conditions (.ifz / .ifnz) is fine");
        dump(&fft, &f);
    }
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    i = find(&fft, 0, "mov host_int, rb3", false);
    put(&fft, i, "mov.ifz host_int, rb3; mov.ifnz host_int, r0");
    MUT(fft, "dual_write", "both ALUs write host_int under inverse conditions", i, -1);
    exactly(&fft, "dual_write", i,
            (const char *const[]){"writes wr_a[38] (conditionally) and writes wr_b[38] (conditionally)", NULL});

    /* apack_acc: `fsub r1, r0, r1` through the regfile-A pack 16a */
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    i = find(&fft, 0, "fsub r1, r0, r1", false);
    set_field(&fft, i, QPU_F_PACK, 1);
    MUT(fft, "apack_acc", "regfile-A pack 16a on an accumulator destination", i, -1);
    exactly(&fft, "apack_acc", i, (const char *const[]){"writes acc[1]", NULL});

    /* unpack_mixed: `fadd r2, r0, r2; fmul r3, r3, ra9` with both ALUs reading ra9.16a, the mul as mul24 */
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    i = find(&fft, 0, "fadd r2, r0, r2; fmul r3, r3, ra9", false);
    put(&fft, i, "fadd r2, r0, ra9.16a; mul24 r3, r3, ra9.16a");
    MUT(fft, "unpack_mixed", "ra9.16a read by fadd (float) and mul24 (integer)", i, -1);
    exactly(&fft, "unpack_mixed", i, (const char *const[]){"reads ra[9] and reads ra[9] in one instruction", NULL});
    put(&fft, i, "fadd r2, r0, ra9.16a; fmul r3, r3, ra9.16a");
    {
        struct found f;
        cr_expect_eq(run(&fft, &f), 0, "ra9.16a read as float by both ALUs is fine");
        dump(&fft, &f);
    }

    /* tmu_noswap_late: the first TMU load after two TMU requests also writes tmu_noswap */
    FRESH(fft, prog_read_hex(&fft, "shader_256.hex"));
    i = find(&fft, find(&fft, 0, "add t0s", false), "nop; nop; ldtmu0", false);
    put(&fft, i, "mov tmu_noswap, r0; nop; ldtmu0");
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

/* ---- events and resources --------------------------------------------------------------------------------- */
static struct tsr_vbundle *bundle_of(const char *text, uint64_t *f)
{
    static struct tsr_vbundle b;
    uint32_t w[2];
    char err[256];
    cr_assert_eq(qpu_assemble_one(text, strlen(text), 0, w, err, sizeof err), 0, "'%s': %s", text, err);
    memset(&b, 0, sizeof b);
    b.f = f;
    qpu_vdesc.events(w, 0, &b);
    return &b;
}

static int res_index(const char *name)
{
    for (int r = 0; r < qpu_vdesc.nres; r++)
        if (!strcmp(qpu_vdesc.res[r].name, name))
            return r;
    cr_assert_fail("no resource %s", name);
    return -1;
}

/* The value of the first use of resource `name` in the bundle, TSR_V_NOVAL if plain, -2 if none. */
static int64_t use_value(const struct tsr_vbundle *b, const char *name)
{
    int r = res_index(name);
    for (int i = 0; i < b->nev; i++)
        if (b->ev[i].kind == TSR_V_USE && b->ev[i].id == r)
            return b->ev[i].val;
    return -2;
}

Test(validate, packer_resources)
{
    uint64_t f[QPU_NFIELDS];
    struct tsr_vbundle *b = bundle_of("fadd r0, ra1, rb2", f);
    cr_expect_eq(use_value(b, "rport_a"), 1);
    cr_expect_eq(use_value(b, "rport_b"), 2);
    cr_expect_eq(use_value(b, "wswap"), 0);
    cr_expect_eq(use_value(b, "pack_unit"), -2);
    b = bundle_of("fadd r0, ra1, 3", f);
    cr_expect_eq(use_value(b, "rport_b"), 64 + 3);      /* the small immediate takes port B */
    b = bundle_of("nop; mov r2, r0 << 1", f);
    cr_expect_eq(use_value(b, "rport_b"), 64 + 63);     /* so does a rotation */
    b = bundle_of("fadd r0, ra1.16a, r1", f);
    cr_expect_eq(use_value(b, "unpack_unit"), 1);
    b = bundle_of("fadd ra1.16b, r0, r1", f);
    cr_expect_eq(use_value(b, "pack_unit"), 2);
    b = bundle_of("nop; fmul r0.8c, r1, r2", f);
    cr_expect_eq(use_value(b, "pack_unit"), 16 + 6);
    b = bundle_of("mov t0s, r0", f);
    cr_expect_eq(use_value(b, "periph"), TSR_V_NOVAL);
    b = bundle_of("mov tlbc, r0; nop; loadc", f);   /* a colour load with a colour write: one access */
    cr_expect_eq(use_value(b, "periph"), 1);
    uint32_t w[6];
    struct prog p = {w, 3, "loadc+tlbc"};
    put(&p, 0, "nop");
    put(&p, 1, "nop");
    put(&p, 2, "mov tlbc, r0; nop; loadc");
    struct found fd;
    cr_expect_eq(run(&p, &fd), 0);
    dump(&p, &fd);
    /* events of a branch: always taken, constant target, 3 delay slots */
    b = bundle_of("brr -, 0x40", f);
    bool jump = false;
    for (int i = 0; i < b->nev; i++)
        if (b->ev[i].kind == TSR_V_JUMP) {
            jump = true;
            cr_expect_eq(b->ev[i].cond, 0);
            cr_expect_eq(b->ev[i].delay, 3);
            cr_expect_eq(b->ev[i].val, 0x40);
        }
    cr_expect(jump);
    b = bundle_of("brr.anyz -, 0x40", f);
    for (int i = 0; i < b->nev; i++)
        if (b->ev[i].kind == TSR_V_JUMP)
            cr_expect_eq(b->ev[i].cond, 1);
}

/* Control flow: a write in the last delay slot of a branch reaches the branch target one instruction later
 * (the taken edge), and the next instruction only if the branch may fall through. */
Test(validate, control_flow)
{
    static const char *const taken[] = {"brr -, 0x28", "nop", "nop", "mov ra1, r0", "mov r0, ra1", "mov r1, ra1"};
    static const char *const cond[] = {"brr.anyz -, 0x28", "nop", "nop", "mov ra1, r0", "mov r0, ra1", "mov r1, ra1"};
    const char *const *progs[2] = {taken, cond};
    for (int k = 0; k < 2; k++) {
        uint32_t w[12];
        struct prog p = {w, 6, "cfg"};
        for (int i = 0; i < 6; i++)
            put(&p, (size_t)i, progs[k][i]);
        struct found f;
        size_t n = run(&p, &f);
        dump(&p, &f);
        /* 0x28 = instruction 5, the target: reached from the last delay slot (3) in both cases */
        int at4 = 0, at5 = 0;
        for (int i = 0; i < f.n; i++) {
            at4 += f.v[i].pc == 0x20 && !strcmp(f.v[i].name, "regfile_raw");
            at5 += f.v[i].pc == 0x28 && !strcmp(f.v[i].name, "regfile_raw");
        }
        cr_expect_eq(at5, 1, "the target is 1 after the write on the taken path");
        cr_expect_eq(at4, k, "fall-through into instruction 4: %s", k ? "conditional branch" : "always taken");
        cr_expect_eq(n, (size_t)(1 + k));
    }
}

/* Taken edges between instructions far apart (more than the engine keeps decoded behind the one checked), both
 * ways: a write in a branch's last delay slot reaches the target, far before or far after the branch. */
Test(validate, control_flow_far)
{
    enum { N = 1000, BACK = 900, FWD = 10, FWD_TARGET = 700 };
    static uint32_t w[2 * N];
    struct prog p = {w, N, "far"};
    for (size_t i = 0; i < N; i++)
        put(&p, i, "nop");
    char t[64];
    put(&p, 1, "mov r0, ra1");                  /* the backward branch's target */
    snprintf(t, sizeof t, "brr -, 0x%x", 8 * 1);
    put(&p, BACK, t);
    put(&p, BACK + 3, "mov ra1, r0");           /* its last delay slot */
    snprintf(t, sizeof t, "brr -, 0x%x", 8 * FWD_TARGET);
    put(&p, FWD, t);
    put(&p, FWD + 3, "mov ra2, r0");
    put(&p, FWD_TARGET, "mov r1, ra2");
    struct found f;
    size_t n = run(&p, &f);
    dump(&p, &f);
    int back = 0, fwd = 0;
    for (int i = 0; i < f.n; i++) {
        back += f.v[i].pc == 8 && !strcmp(f.v[i].name, "regfile_raw");
        fwd += f.v[i].pc == 8 * FWD_TARGET && !strcmp(f.v[i].name, "regfile_raw");
    }
    cr_expect_eq(back, 1, "backward taken edge from %d to 1", BACK + 3);
    cr_expect_eq(fwd, 1, "forward taken edge from %d to %d", FWD + 3, FWD_TARGET);
    cr_expect_eq(n, 2u);
}

/* Repeated bundles (the program check memoizes what a bundle's words decide): every repetition of a broken pair
 * and of a bundle breaking a resource is reported at its own address, and a relative branch repeated at other
 * addresses still reaches its own target. */
Test(validate, repeated_bundles)
{
    enum { N = 600 };
    static uint32_t w[2 * N];
    struct prog p = {w, N, "repeated"};
    for (size_t i = 0; i < N; i++)
        put(&p, i, i % 3 == 0 ? "mov ra1, r0" : i % 3 == 1 ? "mov r0, ra1" : "mov tmu0_s, r0; mov sfu_recip, r1");
    struct found f;
    size_t n = run(&p, &f);
    dump(&p, &f);
    size_t raw = 0, periph = 0;
    for (int i = 0; i < f.n && i < 64; i++) {
        raw += !strcmp(f.v[i].name, "regfile_raw") && f.v[i].pc % 24 == 8;
        periph += !strcmp(f.v[i].name, "periph") && f.v[i].pc % 24 == 16;
    }
    cr_expect_eq(n, 2u * N / 3, "one regfile_raw and one periph per 3 instructions");
    cr_expect_eq(raw + periph, 64u, "the first 64 reports, each at its own instruction");
    /* the same brr word at several addresses: relative targets differ */
    for (size_t i = 0; i < N; i++)
        put(&p, i, "nop");
    for (size_t b = 0; b < 4; b++) {
        size_t at = 100 * b + 10;
        char t[64];
        snprintf(t, sizeof t, "brr -, 0x%zx", 8 * (at + 50));
        put(&p, at, t);
        put(&p, at + 3, b == 2 ? "mov ra2, r0" : "nop");
        put(&p, at + 50, "mov r1, ra2");
    }
    n = run(&p, &f);
    dump(&p, &f);
    cr_expect_eq(n, 1u);
    cr_expect_eq(f.v[0].pc, 8u * 260);
}

/* The whole-program check's memo stays with the thread from one tsr_validate to the next (an entry keeps the
 * words it was made from): the verdicts of a program do not depend on what the thread validated before, nor
 * on a tsr_validate called from a report callback (it gets a memo of its own).  The same program is validated
 * after others whose bundles it shares (the first 600 of repeated_bundles' pattern, then with the regfile-A
 * write moved away), and from inside the callback of another. */
struct nested { const struct prog *inner; struct found inner_f; size_t inner_n; int calls; };

static void collect_nested(void *ctx, const struct tsr_vviol *v)
{
    struct nested *x = ctx;
    if (x->calls++ == 0) {
        memset(&x->inner_f, 0, sizeof x->inner_f);
        x->inner_n = tsr_validate(&qpu_vdesc, x->inner->w, x->inner->n, 0, collect, &x->inner_f);
    }
    (void)v;
}

Test(validate, memo_kept_across_calls)
{
    enum { N = 300 };
    static uint32_t wa[2 * N], wb[2 * N];
    struct prog a = {wa, N, "a"}, b = {wb, N, "b"};
    for (size_t i = 0; i < N; i++) {
        put(&a, i, i % 3 == 0 ? "mov ra1, r0" : i % 3 == 1 ? "mov r0, ra1" : "nop");
        put(&b, i, i % 3 == 0 ? "mov ra1, r0" : i % 3 == 1 ? "nop" : "mov r0, ra1");
    }
    struct found fa, fb, fb2;
    size_t na = run(&a, &fa), nb = run(&b, &fb);
    cr_expect_eq(na, (size_t)N / 3, "a: one regfile_raw per 3 instructions");
    cr_expect_eq(nb, 0u, "b: the read a bundle later");
    size_t na2 = run(&a, &fa);
    cr_expect_eq(na2, na);
    size_t nb2 = run(&b, &fb2);
    cr_expect_eq(nb2, nb);
    struct nested x = { &b, { 0 }, 0, 0 };
    size_t outer = tsr_validate(&qpu_vdesc, a.w, a.n, 0, collect_nested, &x);
    cr_expect_eq(outer, na, "a again, with b validated from its first report");
    cr_expect_eq(x.inner_n, nb, "b from inside a's callback");
    memset(&fb, 0, sizeof fb);
    cr_expect_eq(tsr_validate(&qpu_vdesc, a.w, a.n, 0, collect, &fb), na, "a after the nested call");
}

/* ---- the engine alone: latency max, windows at distance 0, streams ------------------------------------------ */
/* A toy target: bundle word 0 = event kind code (1 write x, 2 read x, 3 both; 4 an always-taken jump to byte
 * address word 1, without delay slots). */
static int toy_events(const uint32_t *w, uint32_t pc, struct tsr_vbundle *b)
{
    b->pc = pc;
    b->nev = 0;
    b->format = 0;
    if (w[0] & 1)
        tsr_vb_add(b, TSR_V_WSTATE, 0, 1, 0, 7);
    if (w[0] & 2)
        tsr_vb_add(b, TSR_V_RSTATE, 0, 1, 0, 7);
    if (w[0] & 4) {
        struct tsr_vev *j = tsr_vb_add(b, TSR_V_JUMP, 0, 1, 0, 0);
        j->val = w[1];
    }
    return 0;
}
static bool toy_w(const struct tsr_vev *e, const uint64_t *f)
{
    (void)f;
    return e->kind == TSR_V_WSTATE;
}
static bool toy_r(const struct tsr_vev *e, const uint64_t *f)
{
    (void)f;
    return e->kind == TSR_V_RSTATE;
}
static const tsr_vmatch_fn toy_pat[] = {toy_w, toy_r};
static const char *const toy_states[] = {"x"};
static const int toy_count[] = {8};

static size_t toy_run(const struct tsr_vrule *r, const uint32_t *codes, size_t n, struct found *f)
{
    struct tsr_vdesc D = {.name = "toy", .nwords = 2, .nfields = 1, .pc_step = 8, .events = toy_events, .nrules = 1,
                          .rules = r, .lookback = TSR_V_MAXDIST, .nstates = 1, .state_names = toy_states,
                          .state_count = toy_count};
    uint32_t w[32] = {0};
    for (size_t i = 0; i < n; i++)
        w[2 * i] = codes[i];
    memset(f, 0, sizeof *f);
    return tsr_validate(&D, w, n, 0, collect, f);
}

Test(validate, engine_latency_window)
{
    struct found f;
    /* forwarding age window 1..2 (a Utgard-style value readable 1 or 2 instructions later) */
    struct tsr_vrule lat = {"fwd", "toy", TSR_VR_LATENCY, 2, toy_pat, true, 1, 2};
    uint32_t ok[] = {1, 0, 2};          /* read 2 after the write */
    uint32_t late[] = {1, 0, 0, 2};     /* read 3 after: expired */
    uint32_t renew[] = {1, 0, 1, 0, 2}; /* the nearest write is 2 before */
    uint32_t later[] = {1, 0, 0, 0, 0, 0, 2}; /* 6 after: expired too */
    cr_expect_eq(toy_run(&lat, ok, 3, &f), 0);
    cr_expect_eq(toy_run(&lat, late, 4, &f), 1);
    cr_expect(f.n == 1 && f.v[0].pc == 24 && strstr(f.v[0].text, "at most 2 apart"), "%s", f.v[0].text);
    cr_expect_eq(toy_run(&lat, renew, 5, &f), 0);
    cr_expect_eq(toy_run(&lat, later, 7, &f), 1);
    /* minimum 3 */
    struct tsr_vrule min3 = {"min3", "toy", TSR_VR_LATENCY, 2, toy_pat, true, 3, -1};
    uint32_t early[] = {1, 0, 2};
    cr_expect_eq(toy_run(&min3, early, 3, &f), 1);
    cr_expect_eq(toy_run(&min3, late, 4, &f), 0);
    /* a window including distance 0: the same bundle, but never an event with itself */
    struct tsr_vrule win = {"win", "toy", TSR_VR_WINDOW, 2, toy_pat, false, 0, 1};
    uint32_t same[] = {3};
    uint32_t next[] = {1, 2};
    uint32_t far[] = {1, 0, 2};
    cr_expect_eq(toy_run(&win, same, 1, &f), 1);
    cr_expect_eq(toy_run(&win, next, 2, &f), 1);
    cr_expect_eq(toy_run(&win, far, 3, &f), 0);
    const tsr_vmatch_fn self[] = {toy_w, toy_w};
    struct tsr_vrule selfwin = {"self", "toy", TSR_VR_WINDOW, 2, self, false, 0, 0};
    uint32_t one[] = {1};
    cr_expect_eq(toy_run(&selfwin, one, 1, &f), 0);
    struct tsr_vrule both = {"both", "toy", TSR_VR_BUNDLE, 2, self, false, 0, 0};
    cr_expect_eq(toy_run(&both, one, 1, &f), 0, "two patterns need two distinct events");
}

/* An open window (`forbid A -> B at LO..`): every A on a path back to the program's start counts, however far
 * (beyond TSR_V_MAXDIST, around a loop); the stream check remembers the first A since its reset; a scheduler's
 * history (tsr_validate_hist) shows only what it holds. */
static size_t toy_prog(const struct tsr_vrule *r, const uint32_t *w, size_t n, struct found *f)
{
    struct tsr_vdesc D = {.name = "toy", .nwords = 2, .nfields = 1, .pc_step = 8, .events = toy_events, .nrules = 1,
                          .rules = r, .lookback = r->lo, .nstates = 1, .state_names = toy_states,
                          .state_count = toy_count};
    memset(f, 0, sizeof *f);
    return tsr_validate(&D, w, n, 0, collect, f);
}

Test(validate, engine_open_window)
{
    struct found f;
    struct tsr_vrule open1 = {"open", "toy", TSR_VR_WINDOW, 2, toy_pat, false, 1, TSR_V_OPEN};
    static uint32_t w[2 * 200];
    /* straight line: a read 150 instructions after the write */
    memset(w, 0, sizeof w);
    w[0] = 1;
    w[2 * 150] = 2;
    cr_expect_eq(toy_prog(&open1, w, 151, &f), 1);
    cr_expect(f.n == 1 && f.v[0].pc == 8 * 150, "at 0x%x", f.n ? f.v[0].pc : 0);
    cr_expect(f.n == 1 && strstr(f.v[0].text, "the instruction 150 before (0x00000000)") &&
              strstr(f.v[0].text, "(forbidden 1 or more instructions apart)"), "%s", f.v[0].text);
    /* the read first: nothing */
    uint32_t before[] = {2, 0, 0, 0, 1, 0};
    cr_expect_eq(toy_prog(&open1, before, 3, &f), 0);
    /* around a loop: read, nop, write, jump back to the read: the write is 2 before the read on the back edge */
    uint32_t loop[] = {2, 0, 0, 0, 1, 0, 4, 0};
    cr_expect_eq(toy_prog(&open1, loop, 4, &f), 1);
    cr_expect(f.n == 1 && f.v[0].pc == 0 && strstr(f.v[0].text, "the instruction 2 before (0x00000010)"), "%s",
              f.v[0].text);
    /* an always-taken jump after the write, over the read: no path from the write to it */
    uint32_t over[] = {1, 0, 4, 24, 2, 0, 0, 0};
    cr_expect_eq(toy_prog(&open1, over, 4, &f), 0);
    /* LO 2: the next instruction is allowed, the one after not; LO 0: the same instruction too */
    struct tsr_vrule open2 = {"open2", "toy", TSR_VR_WINDOW, 2, toy_pat, false, 2, TSR_V_OPEN};
    uint32_t next[] = {1, 0, 2, 0}, gap[] = {1, 0, 0, 0, 2, 0}, same[] = {3, 0};
    cr_expect_eq(toy_prog(&open2, next, 2, &f), 0);
    cr_expect_eq(toy_prog(&open2, gap, 3, &f), 1);
    struct tsr_vrule open0 = {"open0", "toy", TSR_VR_WINDOW, 2, toy_pat, false, 0, TSR_V_OPEN};
    cr_expect_eq(toy_prog(&open0, same, 1, &f), 1);
    cr_expect(f.n == 1 && strstr(f.v[0].text, "in one instruction (forbidden 0 or more instructions apart)"), "%s",
              f.v[0].text);
    cr_expect_eq(toy_prog(&open1, same, 1, &f), 0);

    /* the stream: the first write since the reset, 150 bundles back */
    struct tsr_vdesc D = {.name = "toy", .nwords = 2, .nfields = 1, .pc_step = 8, .events = toy_events, .nrules = 1,
                          .rules = &open1, .lookback = 1, .nstates = 1, .state_names = toy_states,
                          .state_count = toy_count};
    struct tsr_vstream *st = tsr_vstream_new(&D);
    cr_assert_not_null(st);
    memset(&f, 0, sizeof f);
    size_t n = 0;
    for (int i = 0; i <= 150; i++)
        n += tsr_vstream_step(st, w + 2 * i, 8u * (unsigned)i, collect, &f);
    cr_expect_eq(n, 1);
    cr_expect(f.n == 1 && f.v[0].pc == 8 * 150 && strstr(f.v[0].text, "the instruction 150 before (0x00000000)"),
              "%s", f.v[0].text);
    tsr_vstream_reset(st);
    cr_expect_eq(tsr_vstream_step(st, w + 2 * 150, 0, collect, &f), 0, "the reset forgets the write");
    tsr_vstream_free(st);

    /* a scheduler's history: only the bundles it holds */
    uint64_t fld[3][1];
    struct tsr_vbundle hb[3];
    const struct tsr_vbundle *h[3] = {&hb[0], &hb[1], &hb[2]};
    uint32_t codes[3][2] = {{2, 0}, {0, 0}, {1, 0}};
    for (int k = 0; k < 3; k++) {
        memset(&hb[k], 0, sizeof hb[k]);
        hb[k].f = fld[k];
        toy_events(codes[k], 0, &hb[k]);
    }
    cr_expect_eq(tsr_validate_hist(&D, h, 3, NULL, NULL), 1);
    cr_expect_eq(tsr_validate_hist(&D, h, 2, NULL, NULL), 0);
}

/* The stream check, fed by the simulator's ready hook (one call per issued bundle, with its words): the blob
 * fragment shader passes; with its sbwait moved to the first instruction it breaks sbwait_start. */
struct streamctx { struct tsr_vstream *s; struct found f; struct qpu_sim *sim; };

static int stream_hook(void *ctx, int hook, enum tsr_hook_kind kind, const uint32_t *args, int nargs, uint32_t *v,
                       uint32_t lanemask)
{
    struct streamctx *c = ctx;
    (void)kind;
    if (hook == TSR_HOOK_READY && nargs == 2)
        tsr_vstream_step(c->s, args, 0, collect, &c->f);
    return qpu_hooks_dispatch(c->sim, NULL, hook, args, nargs, v, lanemask);
}

Test(validate, stream_from_simulator)
{
    for (int k = 0; k < 2; k++) {
        struct prog p;
        prog_read_blob(&p, 0);
        if (k) {
            uint32_t a = p.w[0], b = p.w[1];
            p.w[0] = p.w[2];
            p.w[1] = p.w[3];
            p.w[2] = a;
            p.w[3] = b;
        }
        struct qpu_machine *M = qpu_machine_new(1u << 20, 1);
        struct qpu_sim *S = malloc(sizeof *S);
        struct qpu_hooks_ctx C;
        qpu_sim_init(S);
        cr_assert_eq(qpu_hooks_attach(S, &C, M, 0, 0x100), 0);
        struct streamctx c = {tsr_vstream_new(&qpu_vdesc), {0}, S};
        struct tsr_sim_hooks fns = {stream_hook, &c};
        S->hookfns = &fns;
        int rc = qpu_sim_run(S, p.w, 2 * p.n, 100);
        cr_expect_eq(rc, TSR_SIM_HALTED, "%s", S->core.msg);
        if (k == 0) {
            cr_expect_eq(c.f.n, 0);
        } else {
            cr_expect_eq(c.f.n, 1);
            cr_expect(c.f.n >= 1 && !strcmp(c.f.v[0].name, "sbwait_start"), "%s", c.f.v[0].name);
        }
        dump(&p, &c.f);
        tsr_vstream_free(c.s);
        qpu_sim_fini(S);
        free(S);
        qpu_machine_free(M);
        prog_free(&p);
    }
}

/* Any words: every bundle's events fit (no overflow), and whole random programs check without a crash (under
 * the sanitizers) and give the same reports twice. */
Test(validate, random_words)
{
    uint64_t x = 0x9e3779b97f4a7c15u;
    uint64_t f[QPU_NFIELDS];
    int most = 0;
    static uint32_t w[2 * 512];
    for (int round = 0; round < 200; round++) {
        for (int i = 0; i < 2 * 512; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            w[i] = (uint32_t)(x >> 11);
        }
        for (int i = 0; i < 512; i++) {
            struct tsr_vbundle b;
            memset(&b, 0, sizeof b);
            b.f = f;
            qpu_vdesc.events(w + 2 * i, 8u * (unsigned)i, &b);
            cr_assert(!b.overflow, "bundle %08x %08x has more than %d events", w[2 * i], w[2 * i + 1], TSR_V_MAXEV);
            most = b.nev > most ? b.nev : most;
        }
        struct prog p = {w, 512, "random"};
        struct found a, b;
        size_t na = run(&p, &a), nb = run(&p, &b);
        cr_assert_eq(na, nb);
        for (int i = 0; i < a.n && i < 64; i++)
            cr_assert(a.v[i].pc == b.v[i].pc && !strcmp(a.v[i].name, b.v[i].name));
    }
    cr_log_info("at most %d events in one bundle", most);
}

/* The simulator helper: violations become hazards of a struct tsr_sim_ctl (here in warning mode). */
Test(validate, stream_to_sim_hazards)
{
    struct prog p;
    prog_read_blob(&p, 0);
    put(&p, 4, "mov tlbz, r0");
    put(&p, 5, "fadd r1, ms_flags, r2");
    struct tsr_sim_ctl ctl;
    tsr_sim_ctl_init(&ctl);
    ctl.flags = TSR_SIM_F_HAZARD_WARN;
    struct tsr_vstream *s = tsr_vstream_new(&qpu_vdesc);
    for (size_t i = 0; i < p.n; i++)
        cr_expect_eq(tsr_vstream_sim(s, &ctl, p.w + 2 * i, 8u * (unsigned)i, false), 0);
    cr_expect_eq(ctl.nhazards, 1);
    cr_expect(strstr(ctl.msg, "rule tlbz_ms_flags at 0x00000028") != NULL, "%s", ctl.msg);
    /* without the warning flag the first one stops */
    tsr_sim_ctl_init(&ctl);
    tsr_vstream_reset(s);
    int rc = 0;
    for (size_t i = 0; i < p.n && rc == 0; i++)
        rc = tsr_vstream_sim(s, &ctl, p.w + 2 * i, 8u * (unsigned)i, false);
    cr_expect_eq(rc, TSR_SIM_HAZARD);
    cr_expect_eq(ctl.err_pc, 0x28u);
    tsr_vstream_free(s);
    prog_free(&p);
}
