/* Packer quality (runtime/pack/pack.h, docs/pack.md; issue 4): every GPU_FFT program (the 16 hex files of
 * ../shared/corpus/qpu/gpu_fft_r3/hex, read by gpufft_code_load) and the seed's three blob listings
 * (tools/corpus.h corpus_blob_read) go through
 *   tsr_unbundle (one operation per line; bundles that cannot be split stay whole: "pinned"),
 *   tsr_pack_text (bundles, with per-block statistics: operations, bundles, lower bound),
 *   t->assemble of the packed text, tsr_validate on the packed words (the description's hazard rules;
 *   0 violations expected), and, for GPU_FFT, the repacked shader in the GPU_FFT harness in place of the
 *   original: one forward transform of 2^log2n random points on 8 simulated QPUs (tools/gpufft.h
 *   gpufft_run_random), error within twice GPU_FFT's published figure; shader_trans: a 512 x 512
 *   transpose (gpufft_trans_execute) of random data, which must be a bit-exact copy.
 * Reported per program and per basic block: the original bundle count, ours, the packer's lower bound;
 * totals (ours against the original, the share of blocks within 5 % of their lower bound) and the
 * packer's speed in operations per second (tsr_pack_text over all programs, repeated for at least
 * TESSERA_BENCH_SECONDS, best of TESSERA_BENCH_RUNS, CLOCK_MONOTONIC; as the other benchmarks).
 *
 * Blocks of the original: the packer starts a block at every label and after every branch or thread
 * end of its input (runtime/pack/pack_sched.c); the original is split at the same points: before every
 * instruction that t->disasm_program labels, and after a branch's or thread end's delay slots (the
 * jumps and halts with their delay come from the description's validator events, t->vdesc->events).
 * Blocks of the original that hold no operation (nops only) are merged into the next one.  The split is
 * checked against the packer's: the same number of blocks and, block by block, the same number of
 * operations (each original instruction counted as tsr_unbundle splits it); a program where they differ
 * is reported, and its blocks are left out of the per-block comparison with the original.
 *
 * Options: --blocks (every block), --no-run (no GPU_FFT runs).  Environment: TESSERA_SHARED as for the
 * tests, TESSERA_GPUFFT_MAX_LOG2N (default 22: run the shaders up to that size).  Exit status: 0 whenever
 * the measurement completed, whatever the packer's results (a wrong FFT result, a rule violation or a
 * pack error is reported in the tables: the packer is being rewritten and this benchmark measures it); 1
 * only when the corpus cannot be read or memory runs out. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "corpus.h"
#include "gpufft.h"
#include "pack/pack.h"
#include "bench.h"
#include "registry.h"
#include "tsr.h"
#include "validate/validate.h"

#define MSGLEN (GPUFFT_ERRLEN + 64)

/* One block of the packer's output with its counterpart in the original. */
struct block {
    unsigned line;       /* packer input line of its first operation */
    unsigned ops, ours, lower, basic;
    bool exact;          /* lower is the relaxation's shortest schedule (docs/pack.md "Lower bound") */
    int orig;            /* original bundles; -1: the program's split differs from the packer's */
    uint32_t orig_pc;    /* byte address of its first original instruction */
};

struct prog {
    char name[40];
    int log2n;                  /* GPU_FFT: 8..22, 0 = shader_trans; -1: a blob listing */
    struct gpufft_code code;    /* GPU_FFT: the original */
    struct tsr_words blob;      /* a blob listing */
    const uint32_t *w;          /* the original: n instructions */
    size_t n;
    struct tsr_buf input;       /* tsr_unbundle's output: the packer's input */
    unsigned pinned;
    struct tsr_buf packed;      /* tsr_pack_text's output */
    struct tsr_pack_stats st;
    struct tsr_words pw;        /* the packed program assembled */
    bool packed_ok;             /* unbundled, packed and assembled */
    char err[MSGLEN];           /* the first error of unbundle / pack / assemble */
    size_t viol, viol_orig;     /* tsr_validate violations: packed, original */
    char viol_text[MSGLEN];     /* the first one */
    int run;                    /* 0: not run, 1: ok, 2: wrong / failed */
    double ppm;
    char run_text[MSGLEN];
    struct block *blocks;       /* st.nblocks */
    bool map_ok;
    char map_text[MSGLEN];
};

/* The first stored diagnostic of d (or `dflt`) into buf. */
static void first_diag(const struct tsr_diag *d, const char *dflt, char *buf, size_t n)
{
    snprintf(buf, n, "%s", d->count ? d->entries[0].text : dflt);
}

/* Lines of text indented by four spaces (instructions or operations). */
static unsigned count_ops(const char *s, size_t len)
{
    unsigned k = 0;
    for (size_t i = 0; i + 4 <= len; i++)
        if ((i == 0 || s[i - 1] == '\n') && !memcmp(s + i, "    ", 4))
            k++;
    return k;
}

/* ---- the original's blocks --------------------------------------------------------------------- */

/* Splits the original at the packer's block boundaries (see the top of the file) and compares with the
 * packer's blocks; fills p->blocks[].orig, orig_pc (or -1 and p->map_text when the splits differ). */
static void map_blocks(const struct tsr_target *t, struct prog *p)
{
    size_t n = p->n;
    unsigned nw = t->nwords;
    bool *label = calloc(n + 1, 1);
    unsigned *ops = calloc(n + 1, sizeof *ops);
    size_t *bstart = calloc(n + 1, sizeof *bstart), nb = 0;
    struct tsr_buf b = {0};
    /* labels: the lines t->disasm_program puts before an instruction */
    t->disasm_program(p->w, n, 0, &b);
    size_t ii = 0;
    bool pending = false;
    for (char *s = b.data; s && *s && ii < n;) {
        char *e = strchr(s, '\n');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len >= 4 && !memcmp(s, "    ", 4)) {
            label[ii++] = pending;
            pending = false;
        } else if (len) {
            pending = true;
        }
        s = e ? e + 1 : s + len;
    }
    /* operations per instruction, as tsr_unbundle splits it */
    for (size_t i = 0; i < n; i++) {
        unsigned pin;
        tsr_buf_clear(&b);
        if (!tsr_unbundle(t, p->name, p->w + i * nw, NULL, 1, i * t->pc_step, &b, &pin, NULL))
            ops[i] = count_ops(b.data ? b.data : "", b.len);
    }
    /* block starts: labels, and after a jump's or halt's delay slots */
    uint64_t *f = calloc(t->vdesc->nfields + 1, sizeof *f);
    struct tsr_vbundle *vb = calloc(1, sizeof *vb);
    size_t next_end = 0;   /* a block must start here (after a control's delay slots), 0: none */
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || label[i] || i == next_end)
            bstart[nb++] = i;
        vb->f = f;
        vb->nev = 0;
        t->vdesc->events(p->w + i * nw, (uint32_t)(i * t->pc_step), vb);
        for (int k = 0; k < vb->nev; k++)
            if (vb->ev[k].kind == TSR_V_JUMP || vb->ev[k].kind == TSR_V_HALT)
                next_end = i + 1 + (size_t)vb->ev[k].delay;
    }
    bstart[nb] = n;
    /* merge blocks without operations into the next one (the last into the previous one) */
    size_t *ms = calloc(nb + 1, sizeof *ms), mb = 0;
    unsigned *mops = calloc(nb + 1, sizeof *mops);
    for (size_t k = 0; k < nb; k++) {
        unsigned o = 0;
        for (size_t i = bstart[k]; i < bstart[k + 1]; i++)
            o += ops[i];
        if (mb && mops[mb - 1] == 0) {   /* the previous one had none: this one takes it over */
            mops[mb - 1] = o;
            continue;
        }
        ms[mb] = bstart[k];
        mops[mb++] = o;
    }
    if (mb > 1 && mops[mb - 1] == 0)
        mb--;
    ms[mb] = n;
    p->map_ok = mb == p->st.nblocks;
    if (!p->map_ok)
        snprintf(p->map_text, sizeof p->map_text, "the original splits into %zu blocks, the packer's input into %u",
                 mb, p->st.nblocks);
    for (size_t k = 0; p->map_ok && k < mb; k++)
        if (mops[k] != p->st.blocks[k].nops) {
            p->map_ok = false;
            snprintf(p->map_text, sizeof p->map_text,
                     "block %zu (original 0x%zx, input line %u): %u operations in the original, %u in the packer's", k,
                     ms[k] * t->pc_step, p->st.blocks[k].line, mops[k], p->st.blocks[k].nops);
        }
    for (unsigned k = 0; k < p->st.nblocks; k++) {
        const struct tsr_pack_block_stat *s = &p->st.blocks[k];
        p->blocks[k] = (struct block){s->line, s->nops, s->bundles, s->lower, s->basic, s->exact, -1, 0};
        if (p->map_ok) {
            p->blocks[k].orig = (int)(ms[k + 1] - ms[k]);
            p->blocks[k].orig_pc = (uint32_t)(ms[k] * t->pc_step);
        }
    }
    free(label);
    free(ops);
    free(bstart);
    free(ms);
    free(mops);
    free(f);
    free(vb);
    tsr_buf_free(&b);
}

/* ---- one program -------------------------------------------------------------------------------- */

struct vctx { size_t n; char *text; size_t len; };
static void on_viol(void *ctx, const struct tsr_vviol *v)
{
    struct vctx *c = ctx;
    if (!c->n++ && c->text)
        snprintf(c->text, c->len, "0x%04x: rule %s: %s", (unsigned)v->pc, v->name, v->text);
}

/* Unbundles, packs, assembles and validates p.  Returns 0, or -1 when memory runs out. */
static int pack_one(const struct tsr_target *t, struct prog *p)
{
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    tsr_words_init(&p->pw, t->word_bits);
    struct vctx vo = {0, NULL, 0}, vp = {0, p->viol_text, sizeof p->viol_text};
    tsr_validate(t->vdesc, p->w, p->n, 0, on_viol, &vo);
    p->viol_orig = vo.n;
    if (tsr_unbundle(t, p->name, p->w, NULL, p->n, 0, &p->input, &p->pinned, &d))
        first_diag(&d, "unbundle failed", p->err, sizeof p->err);
    else if (tsr_pack_text(t, p->name, p->input.data ? p->input.data : "", p->input.len, &p->packed, &p->st, &d))
        first_diag(&d, "pack failed", p->err, sizeof p->err);
    else if (t->assemble(p->name, p->packed.data ? p->packed.data : "", p->packed.len, &p->pw, &d))
        first_diag(&d, "the packed text does not assemble", p->err, sizeof p->err);
    else if (p->pw.count != p->st.nbundles)
        snprintf(p->err, sizeof p->err, "the packed text assembles to %zu instructions, the packer counted %u",
                 p->pw.count, p->st.nbundles);
    else
        p->packed_ok = true;
    tsr_diag_fini(&d);
    if (!p->packed_ok)
        return 0;
    p->viol = tsr_validate(t->vdesc, p->pw.w, p->pw.count, 0, on_viol, &vp);
    p->blocks = calloc(p->st.nblocks + 1, sizeof *p->blocks);
    if (!p->blocks)
        return -1;
    map_blocks(t, p);
    return 0;
}

/* Round limit of a repacked shader's run (a wrong branch could loop): the originals take fewer than 8
 * rounds per point (bench_gpufft), so 16 per point plus a million is a generous bound. */
static uint64_t max_rounds(int log2n)
{
    return 16 * ((uint64_t)1 << log2n) + 1000000;
}

/* The repacked GPU_FFT shader p in the harness (see the top of the file); rows: the original
 * shader_512 (its batches are laid out for the transpose but never run). */
static void run_one(struct prog *p, const struct prog *rows)
{
    char err[GPUFFT_ERRLEN], name[64];
    struct gpufft_code code;
    snprintf(name, sizeof name, "%s (packed)", p->name);
    if (gpufft_code_from_words(&code, name, p->pw.w, p->pw.count, p->pw.comment, err)) {
        p->run = 2;
        snprintf(p->run_text, sizeof p->run_text, "%s", err);
        return;
    }
    struct gpufft_cost c = {0};
    int rc;
    if (p->log2n) {
        struct gpufft_run_opts o = {.max_rounds = max_rounds(p->log2n)};
        double pub = gpufft_published_ppm(p->log2n);
        rc = gpufft_run_random(&code, p->log2n, 0, 1000 + (uint64_t)p->log2n, &o, &p->ppm, &c, err);
        if (!rc && !c.warnings && p->ppm <= 2 * pub)
            snprintf(p->run_text, sizeof p->run_text, "ok %.3f ppm (limit %.2f)", p->ppm, 2 * pub);
        else if (!rc && !c.warnings)
            snprintf(p->run_text, sizeof p->run_text, "WRONG %.3f ppm (limit %.2f)", p->ppm, 2 * pub);
        p->run = !rc && !c.warnings && p->ppm <= 2 * pub ? 1 : 2;
    } else if (!rows) {
        rc = -1;
        snprintf(err, sizeof err, "shader_512 (the rows of the transpose) is not loaded");
    } else {
        /* hello_fft_2d.c's transpose: 512 rows of 512 points */
        enum { L = 9, N = 1 << L };
        struct gpufft_mem mm;
        struct gpufft f1, f2;
        struct gpufft_trans tr;
        rc = gpufft_mem_init(&mm, 2 * gpufft_prepare_bytes(L, N, &rows->code) + gpufft_trans_bytes(), err) ||
             gpufft_prepare(&f1, &mm, &rows->code, L, 0, N, err) || gpufft_prepare(&f2, &mm, &rows->code, L, 0, N, err) ||
             gpufft_trans_prepare(&tr, &mm, &code, &f1, &f2, err);
        for (int y = 0; !rc && y < N; y++)
            gpufft_random(gpufft_out(&f1, y), N, 7000 + (uint64_t)y);
        struct gpufft_run_opts o = {.max_rounds = max_rounds(2 * L)};
        if (!rc)
            rc = gpufft_trans_execute(&tr, &o, &c, err);
        long bad = 0;
        for (int y = 0; !rc && y < N; y++)
            for (int x = 0; x < N; x++)
                bad += memcmp(gpufft_in(&f2, x) + 2 * y, gpufft_out(&f1, y) + 2 * x, 8) != 0;
        if (!rc && !c.warnings)
            snprintf(p->run_text, sizeof p->run_text, "%s: 512 x 512 transpose, %ld elements differ", bad ? "WRONG" : "ok",
                     bad);
        p->run = !rc && !c.warnings && !bad ? 1 : 2;
        gpufft_mem_fini(&mm);
    }
    if (rc)
        snprintf(p->run_text, sizeof p->run_text, "FAILED: %s", err);
    else if (c.warnings)
        snprintf(p->run_text, sizeof p->run_text, "FAILED: peripheral warning on %u QPUs: %s", c.warnings, c.warning);
    gpufft_code_free(&code);
}

static void prog_free(struct prog *p)
{
    gpufft_code_free(&p->code);
    tsr_words_free(&p->blob);
    tsr_words_free(&p->pw);
    tsr_buf_free(&p->input);
    tsr_buf_free(&p->packed);
    if (p->packed_ok)
        tsr_pack_stats_free(&p->st);
    free(p->blocks);
}

/* ---- speed -------------------------------------------------------------------------------------- */

/* Bundles in packed text: the words t->assemble makes of it (0 if it does not assemble). */
static size_t count_bundles(const struct tsr_target *t, const struct tsr_buf *text)
{
    struct tsr_words w;
    struct tsr_diag d;
    tsr_words_init(&w, t->word_bits);
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    size_t n = t->assemble("<packed>", text->data ? text->data : "", text->len, &w, &d) ? 0 : w.count;
    tsr_diag_fini(&d);
    tsr_words_free(&w);
    return n;
}

/* tsr_pack_text_effort over every program that packed, at one effort: the operations per second of the
 * best of `runs` runs of at least min_s seconds each, printed as one row; *bundles gets the bundles of
 * one pass.  Every timed pass must give what the first (warm-up) pass gave, and at TSR_PACK_SEARCH what the
 * quality pass above gave (p->packed).  Returns 0, or 1 (no row; the message on stderr) otherwise. */
static int speed(const struct tsr_target *t, struct prog *ps, int np, enum tsr_pack_effort effort, double min_s,
                 int runs, size_t *bundles)
{
    double best = 0, best_cpu_rate = 0, best_wall = 0, best_cpu = 0;
    uint64_t best_ops = 0;
    struct tsr_buf out = {0}, *first = calloc((size_t)np + 1, sizeof *first);
    int bad = !first;
    *bundles = 0;
    for (int r = 0; r <= runs && !bad; r++) {   /* run 0 warms up (caches, page faults, memos) */
        uint64_t ops = 0;
        double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC), w;
        do {
            for (int i = 0; i < np && !bad; i++) {
                struct prog *p = &ps[i];
                if (!p->packed_ok)
                    continue;
                struct tsr_diag d;
                tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
                tsr_buf_clear(&out);
                /* without statistics (the lower bound is the benchmark's, not the packer's work) */
                /* what this pass must give: the quality pass's text, or this effort's first pass */
                const struct tsr_buf *ref = effort == TSR_PACK_SEARCH ? &p->packed : r > 0 ? &first[i] : NULL;
                if (tsr_pack_text_effort(t, p->name, p->input.data, p->input.len, effort, &out, NULL, &d) ||
                    (ref && (out.len != ref->len || memcmp(out.data, ref->data, out.len)))) {
                    fprintf(stderr, "bench_pack: %s: a timed pass gave another result\n", p->name);
                    bad = 1;
                } else {
                    ops += p->st.nops;
                    if (r == 0 && !first[i].len) {
                        tsr_buf_append(&first[i], out.data, out.len);
                        *bundles += count_bundles(t, &out);
                    }
                }
                tsr_diag_fini(&d);
            }
        } while (!bad && (w = clock_s(CLOCK_MONOTONIC) - w0) < min_s);
        double c = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
        if (bad || r == 0)
            continue;
        if (c > 0 && (double)ops / c > best_cpu_rate)
            best_cpu_rate = (double)ops / c;
        if ((double)ops / w > best) {
            best = (double)ops / w;
            best_ops = ops;
            best_wall = w;
            best_cpu = c;
        }
    }
    tsr_buf_free(&out);
    for (int i = 0; i < np && first; i++)
        tsr_buf_free(&first[i]);
    free(first);
    if (!bad) {
        char name[64];
        snprintf(name, sizeof name, "%s (operations)", effort == TSR_PACK_SEARCH ? "search (default)" : "list only");
        printf("%-28s %12llu %7.3f %5.0f%% %8.0f op/s %8.0f op/s %8zu\n", name, (unsigned long long)best_ops,
               best_wall, best_wall > 0 ? 100 * best_cpu / best_wall : 0, best, best_cpu_rate, *bundles);
    }
    return bad;
}

/* ---- report ------------------------------------------------------------------------------------- */

static double ratio(unsigned a, unsigned b)
{
    return b ? (double)a / b : 0;
}

static void block_header(void)
{
    printf("  %-12s %5s %8s %6s %5s %5s %5s %6s %10s %6s\n", "program", "block", "orig pc", "line", "ops", "orig", "ours",
           "lower", "ours/lower", "basic");
}

static void block_row(const struct prog *p, unsigned k)
{
    const struct block *b = &p->blocks[k];
    char pc[16] = "-", orig[16] = "-";
    if (b->orig >= 0) {
        snprintf(pc, sizeof pc, "0x%04x", (unsigned)b->orig_pc);
        snprintf(orig, sizeof orig, "%d", b->orig);
    }
    printf("  %-12s %5u %8s %6u %5u %5s %5u %5u%s %10.3f %6u%s\n", p->name, k, pc, b->line, b->ops, orig, b->ours,
           b->lower, b->exact ? " " : "+", ratio(b->ours, b->lower), b->basic,
           b->orig >= 0 && (int)b->ours > b->orig ? "  (more than the original)" : "");
}

struct ref { const struct prog *p; unsigned k; };
static int worse(const void *a, const void *b)
{
    const struct ref *x = a, *y = b;
    const struct block *bx = &x->p->blocks[x->k], *by = &y->p->blocks[y->k];
    double rx = ratio(bx->ours, bx->lower), ry = ratio(by->ours, by->lower);
    if (rx != ry)
        return rx < ry ? 1 : -1;
    return ((int)by->ours - (int)by->lower) - ((int)bx->ours - (int)bx->lower);
}

int main(int argc, char **argv)
{
    bool all_blocks = false, no_run = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--blocks"))
            all_blocks = true;
        else if (!strcmp(argv[i], "--no-run"))
            no_run = true;
        else {
            fprintf(stderr, "usage: bench_pack [--blocks] [--no-run]\n");
            return 2;
        }
    }
    const struct tsr_target *t = tsr_find_target("qpu");
    if (!t || !t->vdesc) {
        fprintf(stderr, "bench_pack: no qpu target (with a validator) in this build\n");
        return 1;
    }
    const char *e = getenv("TESSERA_GPUFFT_MAX_LOG2N");
    int max_log2n = e && *e ? atoi(e) : GPUFFT_MAX_LOG2N;
    const double min_s = env_num("TESSERA_BENCH_SECONDS", 1.0);
    const int runs = (int)env_num("TESSERA_BENCH_RUNS", 3);
    double t0 = clock_s(CLOCK_MONOTONIC);

    /* the programs: GPU_FFT shader_256 .. shader_4096k, shader_trans, then the blob listings */
    enum { NFFT = GPUFFT_MAX_LOG2N - GPUFFT_MIN_LOG2N + 2, NP = NFFT + CORPUS_BLOBS };
    struct prog *ps = calloc(NP, sizeof *ps);
    if (!ps)
        return 1;
    for (int i = 0; i < NP; i++) {
        struct prog *p = &ps[i];
        char err[GPUFFT_ERRLEN];
        tsr_words_init(&p->blob, 64);
        if (i < NFFT) {
            p->log2n = i < NFFT - 1 ? GPUFFT_MIN_LOG2N + i : 0;
            if (gpufft_code_load(&p->code, NULL, p->log2n, err)) {
                fprintf(stderr, "bench_pack: %s\n", err);
                return 1;
            }
            snprintf(p->name, sizeof p->name, "%s", p->code.name);
            p->w = p->code.w;
            p->n = p->code.nwords / t->nwords;
        } else {
            p->log2n = -1;
            if (corpus_blob_read(i - NFFT, &p->blob, err, sizeof err)) {
                fprintf(stderr, "bench_pack: %s\n", err);
                return 1;
            }
            snprintf(p->name, sizeof p->name, "blob_%d", i - NFFT + 1);
            p->w = p->blob.w;
            p->n = p->blob.count;
        }
    }

    printf("Packer quality (bench/bench_pack.c): each program unbundled (tsr_unbundle), packed (tsr_pack_text),\n"
           "assembled and validated (tsr_validate); GPU_FFT shaders then run in the harness in place of the originals.\n"
           "Blocks: the packer starts one at each label and after each branch / thread end; the original is split at\n"
           "the same points (before every instruction t->disasm_program labels, after a branch's 3 and a thread\n"
           "end's 2 delay slots, from the validator's jump/halt events; blocks of nops only merged into the next)\n"
           "and checked against the packer's blocks (same count, same operations per block).\n"
           "Columns: orig = original bundles, ops = operations after unbundling, pinned = bundles kept whole,\n"
           "ours = packed bundles, lower = sum of the blocks' lower bounds (docs/pack.md \"Lower bound\": the larger\n"
           "of the basic bound and the shortest schedule of a relaxation), basic = sum of the basic bounds (the\n"
           "larger of the slot-resource bound and the latency-weighted critical path), viol = validator violations of the packed program, run = the repacked shader in the\n"
           "GPU_FFT harness (forward, random input, error limit 2x the published figure; shader_trans: a bit-exact\n"
           "512 x 512 transpose).\n\n");
    int oom = 0;
    const struct prog *rows = NULL;
    for (int i = 0; i < NP && !oom; i++) {
        oom = pack_one(t, &ps[i]);
        if (ps[i].log2n == 9)
            rows = &ps[i];
    }
    for (int i = 0; i < NP && !oom && !no_run; i++) {
        struct prog *p = &ps[i];
        if (p->log2n < 0 || !p->packed_ok || p->log2n > max_log2n)
            continue;
        run_one(p, rows);
        fprintf(stderr, "bench_pack: %s: %s\n", p->name, p->run_text);
    }
    if (oom) {
        fprintf(stderr, "bench_pack: out of memory\n");
        return 1;
    }

    printf("%-12s %6s %6s %6s %6s %6s %6s %6s %9s %10s %5s  %s\n", "program", "orig", "ops", "pinned", "blocks", "ours",
           "lower", "basic", "ours/orig", "ours/lower", "viol", "run");
    unsigned sum_orig = 0, sum_orig_packed = 0, sum_ours = 0, sum_lower = 0, sum_ops = 0, sum_pinned = 0, nblocks = 0, within = 0;
    unsigned sum_basic = 0, within_basic = 0, nexact = 0, within_exact = 0, searched = 0;
    unsigned mapped = 0, mapped_le = 0, mapped_orig = 0, mapped_ours = 0, packed = 0, runs_ok = 0, runs_done = 0;
    size_t sum_viol = 0, sum_viol_orig = 0;
    for (int i = 0; i < NP; i++) {
        struct prog *p = &ps[i];
        sum_viol_orig += p->viol_orig;
        if (!p->packed_ok) {
            printf("%-12s %6zu %6s %6s %6s %6s %6s %6s %9s %10s %5s  PACK FAILED: %s\n", p->name, p->n, "-", "-", "-",
                   "-", "-", "-", "-", "-", "-", p->err);
            sum_orig += (unsigned)p->n;
            continue;
        }
        packed++;
        const char *run = p->run ? p->run_text
                          : p->log2n < 0 ? "(not GPU_FFT)"
                          : no_run ? "not run (--no-run)"
                                   : "not run (TESSERA_GPUFFT_MAX_LOG2N)";
        printf("%-12s %6zu %6u %6u %6u %6u %6u %6u %8.1f%% %10.3f %5zu  %s\n", p->name, p->n, p->st.nops, p->pinned,
               p->st.nblocks, p->st.nbundles, p->st.lower, p->st.basic, 100 * ratio(p->st.nbundles, (unsigned)p->n),
               ratio(p->st.nbundles, p->st.lower), p->viol, run);
        sum_orig += (unsigned)p->n;
        sum_orig_packed += (unsigned)p->n;
        sum_ours += p->st.nbundles;
        sum_lower += p->st.lower;
        sum_basic += p->st.basic;
        searched += p->st.searched;
        sum_ops += p->st.nops;
        sum_pinned += p->pinned;
        sum_viol += p->viol;
        runs_done += p->run != 0;
        runs_ok += p->run == 1;
        for (unsigned k = 0; k < p->st.nblocks; k++) {
            const struct block *b = &p->blocks[k];
            nblocks++;
            within += 100 * b->ours <= 105 * b->lower;
            within_basic += 100 * b->ours <= 105 * b->basic;
            nexact += b->exact;
            within_exact += b->exact && 100 * b->ours <= 105 * b->lower;
            if (b->orig >= 0) {
                mapped++;
                mapped_le += (int)b->ours <= b->orig;
                mapped_orig += (unsigned)b->orig;
                mapped_ours += b->ours;
            }
        }
    }
    for (int i = 0; i < NP; i++) {
        if (ps[i].packed_ok && !ps[i].map_ok)
            printf("note: %s: block split differs, its blocks are not compared with the original: %s\n", ps[i].name,
                   ps[i].map_text);
        if (ps[i].viol)
            printf("note: %s: %zu validator violations, the first: %s\n", ps[i].name, ps[i].viol, ps[i].viol_text);
    }

    printf("\ntotals:\n");
    printf("  programs packed                  %u of %d\n", packed, NP);
    printf("  bundles, original                %u (all programs); %u in the %u that packed\n", sum_orig,
           sum_orig_packed, packed);
    printf("  bundles, ours                    %u  (%.1f%% of the original's %u; goal <= 100%%: %s)\n", sum_ours,
           100 * ratio(sum_ours, sum_orig_packed), sum_orig_packed, sum_ours <= sum_orig_packed ? "met" : "NOT MET");
    printf("  bundles, lower bound             %u  (ours / lower = %.3f); basic bound %u (ours / basic = %.3f)\n",
           sum_lower, ratio(sum_ours, sum_lower), sum_basic, ratio(sum_ours, sum_basic));
    printf("  operations (after unbundling)    %u, %u pinned bundles\n", sum_ops, sum_pinned);
    printf("  blocks                           %u; ours <= 1.05 x lower in %u = %.1f%% (goal >= 95%%: %s)\n", nblocks,
           within, 100 * ratio(within, nblocks), 100 * within >= 95 * nblocks && nblocks ? "met" : "NOT MET");
    printf("                                   ours <= 1.05 x basic bound in %u = %.1f%%\n", within_basic,
           100 * ratio(within_basic, nblocks));
    printf("  blocks whose bound is exact      %u (the relaxation's shortest schedule; the others, marked +: the\n"
           "                                   search gave up); ours <= 1.05 x lower in %u of them\n",
           nexact, within_exact);
    printf("  blocks from the search           %u (the relaxation's schedule, built and validated, is shorter than\n"
           "                                   list scheduling's; see the speed table for list scheduling alone)\n",
           searched);
    printf("  blocks compared with original    %u; ours <= original in %u = %.1f%%; their bundles %u original, %u "
           "ours\n",
           mapped, mapped_le, 100 * ratio(mapped_le, mapped), mapped_orig, mapped_ours);
    printf("  validator violations             %zu in the packed programs (goal 0), %zu in the originals\n", sum_viol,
           sum_viol_orig);
    printf("  GPU_FFT runs of repacked shaders %u ok of %u run\n", runs_ok, runs_done);

    int nref = 0;
    struct ref *refs = calloc(nblocks + 1, sizeof *refs);
    for (int i = 0; i < NP && refs; i++)
        for (unsigned k = 0; ps[i].packed_ok && k < ps[i].st.nblocks; k++)
            refs[nref++] = (struct ref){&ps[i], k};
    if (all_blocks) {
        printf("\nevery block (line: of the packer's input, i.e. tsr_unbundle's output; orig pc: byte address in the "
               "original):\n");
        block_header();
        for (int r = 0; r < nref; r++)
            block_row(refs[r].p, refs[r].k);
    }
    if (refs)
        qsort(refs, (size_t)nref, sizeof *refs, worse);
    printf("\nthe 10 worst blocks by ours / lower bound (line: of the packer's input; orig pc: in the original):\n");
    block_header();
    for (int r = 0; r < nref && r < 10; r++)
        block_row(refs[r].p, refs[r].k);
    free(refs);

    printf("\npacker speed (tsr_pack_text_effort over every program that packed, without statistics; best of %d "
           "runs of >= %.1f s):\n", runs, min_s);
    printf("%-28s %12s %7s %6s %12s %12s %8s\n", "effort", "count", "wall s", "core", "rate", "cpu rate", "bundles");
    size_t nb_search = 0, nb_list = 0;
    if (speed(t, ps, NP, TSR_PACK_SEARCH, min_s, runs, &nb_search))
        printf("search: NOT MEASURED, a timed pass gave another result than the first (see above)\n");
    if (speed(t, ps, NP, TSR_PACK_LIST, min_s, runs, &nb_list))
        printf("list only: NOT MEASURED, a timed pass gave another result than the first (see above)\n");
    printf("\nbench_pack: %.1f s\n", clock_s(CLOCK_MONOTONIC) - t0);
    for (int i = 0; i < NP; i++)
        prog_free(&ps[i]);
    free(ps);
    return 0;
}
