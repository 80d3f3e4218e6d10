/* The operation-list API of the packer (runtime/pack/pack.h tsr_packer_*): a thin layer over tsr_pack_text
 * that keeps the list as text, one operation or label per line, so both interfaces pack identically. */
#include <stdlib.h>
#include <string.h>
#include "pack/pack.h"
#include "diag.h"
#include "fileout.h"
#include "hexio.h"
#include "target.h"

struct tsr_packer {
    const struct tsr_target *t;
    struct tsr_buf src;           /* the list: one line per operation or label */
    struct tsr_buf out;           /* bundled text of the last run */
    struct tsr_words words;
    struct tsr_pack_stats st;
    enum tsr_pack_effort effort;
};

struct tsr_packer *tsr_packer_new(const struct tsr_target *t)
{
    struct tsr_packer *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->t = t;
    tsr_words_init(&p->words, t->word_bits);
    return p;
}

static void clear_results(struct tsr_packer *p)
{
    tsr_buf_free(&p->out);
    tsr_words_free(&p->words);
    tsr_pack_stats_free(&p->st);
    memset(&p->st, 0, sizeof p->st);
}

void tsr_packer_free(struct tsr_packer *p)
{
    if (!p)
        return;
    clear_results(p);
    tsr_buf_free(&p->src);
    free(p);
}

/* One line: newlines inside the text would shift every later line number, so they become spaces. */
static void add_line(struct tsr_packer *p, const char *pre, const char *text, const char *post)
{
    tsr_buf_puts(&p->src, pre);
    for (const char *c = text; *c; c++)
        tsr_buf_append(&p->src, *c == '\n' || *c == '\r' ? " " : c, 1);
    tsr_buf_puts(&p->src, post);
}

void tsr_packer_effort(struct tsr_packer *p, enum tsr_pack_effort effort)
{
    p->effort = effort;
}

void tsr_packer_op(struct tsr_packer *p, const char *text)
{
    add_line(p, "", text, "\n");
}

void tsr_packer_label(struct tsr_packer *p, const char *name)
{
    add_line(p, "", name, ":\n");
}

int tsr_packer_run(struct tsr_packer *p, struct tsr_diag *d)
{
    clear_results(p);
    const char *src = p->src.data ? p->src.data : "";
    int rc = tsr_pack_text_effort(p->t, "<ops>", src, p->src.len, p->effort, &p->out, &p->st, d);
    if (!rc)
        rc = p->t->assemble("<packed>", p->out.data ? p->out.data : "", p->out.len, &p->words, d);
    if (rc)
        clear_results(p);
    return rc ? -1 : 0;
}

size_t tsr_packer_count(const struct tsr_packer *p) { return p->words.count; }
const uint32_t *tsr_packer_words(const struct tsr_packer *p) { return p->words.w; }
const char *tsr_packer_text(const struct tsr_packer *p) { return p->out.data ? p->out.data : ""; }
const struct tsr_pack_stats *tsr_packer_stats(const struct tsr_packer *p) { return &p->st; }
