/* The packer's legality pre-test of candidate bundles (runtime/pack/pack_legal.c; docs/pack.md "Algorithm",
 * step 3): the matches of one bundle part that it compares (runtime/text/asm_paths.h), and its soundness: with
 * TESSERA_PACK_VERIFY=1 every bundle it refuses is given to the assembler too, and the process aborts if the
 * assembler accepts one (a crash fails the test), over every GPU_FFT program and the blobs at both efforts and a
 * generated block of 1,000 operations (bench/packgen.h). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "corpus.h"
#include "qpu.h"
#include "tsr.h"
#include "pack/pack.h"
#include "text/asm_paths.h"
#include "../bench/packgen.h"

/* The paths of part s; returns tsr_asm_part_paths's result. */
static int paths(const char *s, struct tsr_asm_paths *p)
{
    struct tsr_asm *a = tsr_asm_paths_scratch_new(qpu_target.text);
    int rc = tsr_asm_part_paths(a, s, strlen(s), p);
    tsr_asm_paths_scratch_free(a);
    return rc;
}

static unsigned field_index(const char *name)
{
    const struct tsr_tc_isa *isa = qpu_target.text;
    for (unsigned f = 0; f < isa->nfields; f++)
        if (!strcmp(isa->fields[f].name, name))
            return f;
    cr_assert_fail("no field %s", name);
    return 0;
}

/* Does every path of p bind field fd to v? */
static bool every_path_binds(const struct tsr_asm_paths *p, unsigned fd, uint64_t v)
{
    for (size_t i = 0; i < p->n; i++) {
        bool found = false;
        for (uint32_t j = p->p[i].first; j < p->p[i].first + p->p[i].n; j++)
            found |= p->field[j] == fd && p->val[j] == v;
        if (!found)
            return false;
    }
    return p->n > 0;
}

/* A regfile-A read can only be encoded in raddr_a, so two parts reading different regfile-A registers bind it
 * to two values on every choice of paths, and the assembler refuses their bundle (the pre-test's case). */
Test(asm_paths, regfile_a_reads_bind_raddr_a)
{
    struct tsr_asm_paths p = { 0 }, q = { 0 };
    cr_assert_eq(paths("add r0, ra1, r1", &p), 0);
    cr_assert_eq(paths("fmul r2, ra2, r3", &q), 0);
    unsigned ra = field_index("raddr_a");
    cr_expect(every_path_binds(&p, ra, 1));
    cr_expect(every_path_binds(&q, ra, 2));
    uint32_t w[2];
    const char *both = "add r0, ra1, r1; fmul r2, ra2, r3";
    cr_expect_neq(qpu_target.assemble_one(both, strlen(both), 0, w, NULL, 0), 0, "the assembler accepts '%s'", both);
    tsr_asm_paths_free(&p);
    tsr_asm_paths_free(&q);
}

/* A `mov` either ALU can do has paths in two slots of one format; each path names a slot of its format. */
Test(asm_paths, mov_has_a_path_on_each_alu)
{
    const struct tsr_tc_isa *isa = qpu_target.text;
    struct tsr_asm_paths p = { 0 };
    cr_assert_eq(paths("mov r0, r1", &p), 0);
    cr_assert_gt(p.n, 0);
    uint64_t slots = 0;
    for (size_t i = 0; i < p.n; i++) {
        const struct tsr_tc_format *F = &isa->formats[p.p[i].format];
        bool in = false;
        for (uint32_t t = 0; t < F->nslot; t++)
            in |= isa->idx[F->slot + t] == p.p[i].slot;
        cr_expect(in, "path %zu: slot %u is not in format %s", i, p.p[i].slot, F->name);
        if (!strcmp(F->name, "alu"))
            slots |= (uint64_t)1 << p.p[i].slot;
    }
    cr_expect_geq(__builtin_popcountll(slots), 2, "a mov goes to one ALU only");
    tsr_asm_paths_free(&p);
}

/* Texts whose paths are not listed, and one that matches nothing. */
Test(asm_paths, unknown_and_unmatched_texts)
{
    struct tsr_asm_paths p = { 0 };
    cr_expect_eq(paths("add r0, r1, r2; fmul r3, r1, r2", &p), -1);
    cr_expect_eq(paths("mov r2, unif {ws=1}", &p), -1);
    cr_expect_eq(paths(".word 0x1, 0x2", &p), -1);
    cr_expect_eq(paths("frobnicate r0", &p), 0);
    cr_expect_eq(p.n, 0);
    tsr_asm_paths_free(&p);
}

/* Packs ops at both efforts (list only for a large block); a refusal the assembler contradicts aborts.  must:
 * the packing must succeed.  (This binary links no simulator, so the packer's same-meaning checks answer "no":
 * the first blob then packs a thread end with two parts that carry field overrides, which must be printed with
 * one override group at the end, as the scheduler joined them: before that fix it read "internal error: the
 * packed program does not assemble".) */
static void pack_both(const char *name, const char *ops, size_t len, bool search, bool must)
{
    for (int e = 0; e < (search ? 2 : 1); e++) {
        struct tsr_buf out = { 0 };
        struct tsr_diag d;
        tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
        int rc = tsr_pack_text_effort(&qpu_target, name, ops, len, e ? TSR_PACK_SEARCH : TSR_PACK_LIST, &out, NULL,
                                      &d);
        if (must)
            cr_expect_eq(rc, 0, "%s: %s", name, d.count ? d.entries[0].text : "");
        tsr_buf_free(&out);
        tsr_diag_fini(&d);
    }
}

static void unbundle_and_pack(const char *name, const struct tsr_words *w, bool must)
{
    struct tsr_buf ops = { 0 };
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    unsigned pinned = 0;
    cr_assert_eq(tsr_unbundle(&qpu_target, name, w->w, NULL, w->count, 0, &ops, &pinned, &d), 0, "%s", name);
    pack_both(name, ops.data, ops.len, true, must);
    tsr_buf_free(&ops);
    tsr_diag_fini(&d);
}

Test(pack_legal, pretest_refuses_only_what_the_assembler_refuses, .timeout = 600)
{
    setenv("TESSERA_PACK_VERIFY", "1", 1);
    struct tsr_words progs[16];
    char err[2600];
    int n = corpus_hex_read("corpus/qpu/gpu_fft_r3/hex", 64, progs, 16, err, sizeof err);
    cr_assert(n > 0, "%s", n < 0 ? err : "no GPU_FFT programs");
    for (int i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "gpu_fft[%d]", i);
        unbundle_and_pack(name, &progs[i], true);
        tsr_words_free(&progs[i]);
    }
    for (int k = 0; k < CORPUS_BLOBS; k++) {
        struct tsr_words w;
        tsr_words_init(&w, 64);
        cr_assert_eq(corpus_blob_read(k, &w, err, sizeof err), 0, "%s", err);
        unbundle_and_pack("blob", &w, true);
        tsr_words_free(&w);
    }
    struct tsr_buf ops = { 0 };
    packgen(1000, 1, &ops);
    pack_both("packgen", ops.data, ops.len, false, true);
    tsr_buf_free(&ops);
}

/* The first part the pre-test is asked about (in this test's own process) is one whose paths are not listed (it
 * carries field overrides): its entry was made by copying from the scratch arrays, not allocated yet, a memcpy
 * from NULL that UBSan reports (found by fuzz/fuzz_repack.c).  The program packs into one bundle of both parts,
 * which assembles and validates. */
Test(pack_legal, first_part_without_paths)
{
    static const char src[] = "    ftoi.never tmu_noswap, r0 {raddr_a=0x1c, raddr_b=3}\n"
                              "    nop; v8subs.never rb0, r0, r0 {raddr_a=0x1c, raddr_b=3}\n";
    struct tsr_buf out = { 0 };
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    cr_assert_eq(tsr_pack_text(&qpu_target, "overrides.s", src, strlen(src), &out, NULL, &d), 0, "%s",
                 d.count ? d.entries[0].text : "");
    struct tsr_words w;
    tsr_words_init(&w, qpu_target.word_bits);
    cr_assert_eq(qpu_target.assemble("packed", out.data, out.len, &w, &d), 0, "%s", out.data);
    cr_expect_eq(w.count, 1, "%s", out.data);
    cr_expect_eq(qpu_target.validate(w.w, w.count, 0, &d, "packed"), 0, "%s", out.data);
    tsr_words_free(&w);
    tsr_buf_free(&out);
    tsr_diag_fini(&d);
}
