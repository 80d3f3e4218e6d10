/* Test support for the QPU validator's tests (support_qpuval.h). */
#include "support_qpuval.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "corpus.h"
#include "qpu.h"
#include "tsr.h"

void prog_read_hex(struct prog *p, const char *file)
{
    char shared[4096], path[4400];
    corpus_shared_dir(shared, sizeof shared);
    snprintf(path, sizeof path, "%s/corpus/qpu/gpu_fft_r3/hex/%s", shared, file);
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
void prog_read_blob(struct prog *p, int k)
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

void prog_free(struct prog *p)
{
    free(p->w);
    p->w = NULL;
}

char *prog_dis(const struct prog *p, size_t i)
{
    struct tsr_buf b = {0};
    qpu_disasm(p->w + 2 * i, 8 * i, &b);
    return b.data ? b.data : strdup("");
}

/* First instruction from `from` whose disassembly starts with `prefix` (or contains it, if anywhere). */
size_t prog_find(const struct prog *p, size_t from, const char *prefix, bool anywhere)
{
    for (size_t i = from; i < p->n; i++) {
        char *t = prog_dis(p, i);
        bool hit = anywhere ? strstr(t, prefix) != NULL : strncmp(t, prefix, strlen(prefix)) == 0;
        free(t);
        if (hit)
            return i;
    }
    cr_assert_fail("%s: no instruction %s '%s'", p->name, anywhere ? "containing" : "starting with", prefix);
    return 0;
}

void prog_put(struct prog *p, size_t i, const char *text)
{
    char err[256];
    cr_assert_lt(i, p->n);
    cr_assert_eq(qpu_assemble_one(text, strlen(text), 8 * i, p->w + 2 * i, err, sizeof err), 0, "'%s': %s", text, err);
}

void prog_set_field(struct prog *p, size_t i, int field, uint64_t v)
{
    struct qpu_inst in;
    qpu_decode(p->w + 2 * i, &in);
    in.f[field] = v;
    qpu_encode(&in, p->w + 2 * i);
}

void found_collect(void *ctx, const struct tsr_vviol *v)
{
    struct found *f = ctx;
    if (f->n < 64) {
        snprintf(f->v[f->n].name, sizeof f->v[f->n].name, "%s", v->name);
        f->v[f->n].pc = v->pc;
        snprintf(f->v[f->n].text, sizeof f->v[f->n].text, "%s", v->text);
    }
    f->n++;
}

size_t prog_validate(const struct prog *p, struct found *f)
{
    memset(f, 0, sizeof *f);
    return tsr_validate(&qpu_vdesc, p->w, p->n, 0, found_collect, f);
}

void found_log(const struct prog *p, const struct found *f)
{
    for (int i = 0; i < f->n && i < 64; i++)
        cr_log_info("%s: 0x%08x %s: %s", p->name, (unsigned)f->v[i].pc, f->v[i].name, f->v[i].text);
}
