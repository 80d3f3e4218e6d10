/* What a unit's words decide, remembered across programs (pack_int.h: tsr_pack_umemo_get / _put).  Within a
 * program tsr_pack_text_effort works it out once per distinct words; a process that packs many programs (a
 * compiler, a bench's passes, GPU_FFT's 16 shaders, which share most of their operations) repeats the same
 * words from program to program, and the events, the texts (a disassembly and an assembly each) and the slots
 * were a tenth of the packer's instructions on GPU_FFT.  All of them are functions of the target and the words
 * alone, so an entry is used for any program.  Nothing here knows the target. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "pack_int.h"
#include "tls.h"
#include "target.h"

/* A direct-mapped table per thread, allocated on first use (the first thread's freed at exit, as the other
 * per-thread tables of the packer); an entry is replaced by the next words of its slot. */
#define UMEMO 4096
struct uent {
    const struct tsr_target *t;   /* NULL: empty */
    uint32_t w[4];
    struct tsr_pack_ev ev;
    char *text, *full, *alt;
    uint64_t slots, only, cand[TSR_PACK_MAXPARTS];
    int ncand;
    bool solo;
};
static _Thread_local struct uent *umemo;
static void *umemo_first;   /* the first thread's (tsr_thread_table), freed at exit */

static void ent_clear(struct uent *e)
{
    tsr_pack_ev_free(&e->ev);
    free(e->text);
    free(e->full);
    free(e->alt);
    memset(e, 0, sizeof *e);
}

static void umemo_free(void)
{
    if (!umemo_first)
        return;
    struct uent *u = umemo_first;
    for (size_t i = 0; i < UMEMO; i++)
        ent_clear(&u[i]);
    free(umemo_first);
    umemo_first = NULL;
}

static char *dup(const char *s)
{
    if (!s)
        return NULL;
    char *r = strdup(s);
    if (!r)
        abort();
    return r;
}

/* The slot of words w (t->nwords <= 4), allocating the table on first use. */
static struct uent *slot(const struct tsr_target *t, const uint32_t *w)
{
    static atomic_flag registered = ATOMIC_FLAG_INIT;
    if (!umemo)
        umemo = tsr_thread_table(UMEMO, sizeof *umemo, &registered, &umemo_first, umemo_free);
    uint64_t h = (uint64_t)(uintptr_t)t * 0x9e3779b97f4a7c15u;
    for (unsigned k = 0; k < t->nwords; k++)
        h = (h ^ w[k]) * 0xff51afd7ed558ccdu;
    h ^= h >> 33;   /* (the high bits folded down: a product carries a word's bit only upwards) */
    h *= 0xff51afd7ed558ccdu;
    h ^= h >> 33;
    return &umemo[h % UMEMO];
}

/* (pack_int.h) */
bool tsr_pack_umemo_get(const struct tsr_target *t, struct tsr_pack_unit *x, bool *solo)
{
    if (t->nwords > 4)
        return false;
    const struct uent *e = slot(t, x->w);
    if (e->t != t || memcmp(e->w, x->w, t->nwords * sizeof *x->w))
        return false;
    tsr_pack_ev_copy(&x->ev, &e->ev);
    x->text = dup(e->text);
    x->full = dup(e->full);
    x->alt = dup(e->alt);
    x->slots = e->slots;
    x->only = e->only;
    memcpy(x->cand, e->cand, sizeof x->cand);
    x->ncand = e->ncand;
    *solo = e->solo;
    return true;
}

/* (pack_int.h) */
void tsr_pack_umemo_put(const struct tsr_target *t, const struct tsr_pack_unit *x, bool solo)
{
    if (t->nwords > 4)
        return;
    struct uent *e = slot(t, x->w);
    ent_clear(e);
    e->t = t;
    memcpy(e->w, x->w, t->nwords * sizeof *x->w);
    tsr_pack_ev_copy(&e->ev, &x->ev);
    e->text = dup(x->text);
    e->full = dup(x->full);
    e->alt = dup(x->alt);
    e->slots = x->slots;
    e->only = x->only;
    memcpy(e->cand, x->cand, sizeof e->cand);
    e->ncand = x->ncand;
    e->solo = solo;
}
