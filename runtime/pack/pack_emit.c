/* The packer's output (docs/pack.md "Algorithm", step 5): the program's text, and the check of the whole program
 * that puts a nop before each instruction still breaking a rule on a path that enters through a branch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pack_sched.h"
#include "diag.h"
#include "fileout.h"
#include "hexio.h"
#include "target.h"

/* (pack_sched.h) */
bool tsr_pack_emit(const struct prog *P, struct tsr_buf *out, struct tsr_pack_rt *rt)
{
    for (size_t i = 0; i < P->n; i++) {
        const struct obundle *b = &P->b[i];
        for (int l = 0; l < b->nlabels; l++)
            tsr_buf_printf(out, "%s:\n", b->labels[l]);
        tsr_buf_puts(out, "    ");
        if (b->ctl == TSR_PACK_CTL_NONE && rt) {
            if (!tsr_pack_rt_words(rt, b->w, out))
                return false;
        } else if (b->ctl == TSR_PACK_CTL_NONE) {
            /* the words are the truth (the parts were checked to mean the same joined): print them */
            P->t->disasm(b->w, 0, out);
        } else {   /* a branch keeps its label */
            if (!b->k)
                tsr_buf_puts(out, "nop");
            for (int k = 0; k < b->k; k++)
                tsr_buf_printf(out, "%s%s", k ? "; " : "", b->parts[k]);
        }
        tsr_buf_puts(out, "\n");
    }
    return true;
}

struct firstv { bool any; struct tsr_vviol v; };
static void keep_first(void *p, const struct tsr_vviol *v)
{
    struct firstv *f = p;
    if (!f->any || v->at < f->v.at) {
        f->any = true;
        f->v = *v;
    }
}

/* (pack_sched.h) */
int tsr_pack_mend(struct prog *P, const char *prefix, size_t plen, const char *path, struct tsr_pack_stats *st,
                struct tsr_diag *d)
{
    const struct tsr_target *t = P->t;
    /* without directives before the program (`.set` aliases would change its text's meaning), the bundles
     * whose disassembly round-trips are given to the assembler as their words */
    struct tsr_pack_rt rt, *rtp = NULL;
    const char **names = NULL;
    if (!plen) {
        size_t nn = 0, cn = 16;
        names = malloc(cn * sizeof *names);
        for (size_t i = 0; i < P->n && names; i++)
            for (int l = 0; l < P->b[i].nlabels; l++) {
                if (nn == cn && !(names = realloc(names, (cn *= 2) * sizeof *names)))
                    abort();
                names[nn++] = P->b[i].labels[l];
            }
        if (!names)
            abort();
        tsr_pack_rt_init(&rt, t, names, nn);
        rtp = &rt;
    }
    int rc = 0;
    for (int iter = 0; iter < 100000; iter++) {
        struct tsr_buf txt = { 0 };
        tsr_buf_append(&txt, prefix, plen);
        if (!tsr_pack_emit(P, &txt, rtp)) {   /* a bundle that does not round-trip: the text itself */
            tsr_pack_rt_fini(&rt);
            rtp = NULL;
            tsr_buf_clear(&txt);
            tsr_buf_append(&txt, prefix, plen);
            tsr_pack_emit(P, &txt, NULL);
        }
        struct tsr_words w;
        tsr_words_init(&w, t->word_bits);
        struct tsr_diag q;
        tsr_diag_init(&q, TSR_DIAG_STORE, NULL);
        int arc = t->assemble(path, txt.data ? txt.data : "", txt.len, &w, &q);
        tsr_diag_fini(&q);
        tsr_buf_free(&txt);
        if (arc || w.count != P->n) {
            tsr_words_free(&w);
            rc = tsr_diag_error(d, path, 0, 0, "internal error: the packed program does not assemble");
            break;
        }
        struct firstv f = { false, { 0 } };
        if (w.count)   /* (an empty program has no word array: no pointer into it) */
            tsr_validate(P->D, tsr_words_at(&w, 0), w.count, 0, keep_first, &f);
        tsr_words_free(&w);
        if (!f.any)
            break;
        size_t at = f.v.at, pos = at;
        for (size_t p = at > 8 ? at - 8 : 0; p < at; p++)   /* not inside delay slots */
            if (P->b[p].ctl != TSR_PACK_CTL_NONE && p + (size_t)P->b[p].delay >= at) {
                pos = p;
                break;
            }
        if (f.v.dist == 0 || (f.v.other >= pos && f.v.other < at)) {
            rc = tsr_diag_error(d, path, 0, 0, "internal error: packed instruction %zu breaks rule %s: %s", at,
                                f.v.name, f.v.text);
            break;
        }
        struct obundle *nb = tsr_pack_prog_insert(P, pos);
        struct obundle *old = &P->b[pos + 1];
        tsr_pack_set_words(P, nb, P->nopw);
        nb->labels = old->labels;
        nb->nlabels = old->nlabels;
        nb->block = old->block;
        old->labels = NULL;
        old->nlabels = 0;
        if (st && nb->block >= 0 && (unsigned)nb->block < st->nblocks) {
            st->blocks[nb->block].bundles++;
            st->nbundles++;
        }
        if (iter == 100000 - 1)
            rc = tsr_diag_error(d, path, 0, 0, "internal error: the packer could not mend its output");
    }
    if (rtp)
        tsr_pack_rt_fini(rtp);
    free(names);
    return rc;
}
