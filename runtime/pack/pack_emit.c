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
#include "text/textcodec.h"

/* The line of bundle b without its labels and indentation, in the default syntax (parts separated by "; "). */
static void bundle_line(const struct prog *P, const struct obundle *b, struct tsr_buf *out)
{
    if (b->ctl == TSR_PACK_CTL_NONE) {
        /* the words are the truth (the parts were checked to mean the same joined): print them */
        P->t->disasm(b->w, 0, out);
    } else if (!b->k) {   /* an empty bundle (tsr_pack_schedule checked that the target has an idle one) */
        tsr_buf_puts(out, tsr_pack_idle_bundle(P->t));
    } else {   /* a branch keeps its label; the parts' overrides end the text, as when the scheduler joined them */
        struct tsr_buf j = { 0 }, ov = { 0 };
        tsr_pack_join_text(&j, &ov, (const char *const *)b->parts, b->k - 1, b->parts[b->k - 1], b->k - 1);
        tsr_buf_append(out, j.data, j.len);
        tsr_buf_free(&j);
        tsr_buf_free(&ov);
    }
}

/* The line of bundle b without its labels and indentation, in the target's source syntax (tsr_pack_decl_text). */
static void bundle_text(const struct prog *P, const struct obundle *b, struct tsr_buf *out)
{
    if (!P->t->text || !P->t->text->syntax || !P->t->text->syntax->bundle_end) {
        bundle_line(P, b, out);
        return;
    }
    struct tsr_buf one = { 0 };
    bundle_line(P, b, &one);
    tsr_pack_decl_text(P->t, one.data ? one.data : "", one.len, out);
    tsr_buf_free(&one);
}

/* (pack_sched.h) */
void tsr_pack_emit(const struct prog *P, struct tsr_buf *out)
{
    for (size_t i = 0; i < P->n; i++) {
        const struct obundle *b = &P->b[i];
        for (int l = 0; l < b->nlabels; l++)
            tsr_buf_printf(out, "%s:\n", b->labels[l]);
        tsr_buf_puts(out, "    ");
        bundle_text(P, b, out);
        tsr_buf_puts(out, "\n");
    }
}

/* ---- the words of the output --------------------------------------------------------------------- */

/* The assembler's instructions, in order, into w (room for cap of nwords each); n counts them all. */
struct collect { uint32_t *w; size_t n, cap; unsigned nwords; };
static void collect(void *ctx, const uint32_t *w, const char *comment, unsigned line)
{
    (void)comment;
    (void)line;
    struct collect *c = ctx;
    if (c->n < c->cap)
        memcpy(c->w + c->n * c->nwords, w, c->nwords * sizeof *w);
    c->n++;
}

/* The line [lb, le) to the program's assembler in pass 1 or 2. */
static void feed(struct tsr_tc_asm *A, int pass, const char *lb, const char *le)
{
    if (pass == 1)
        tsr_tc_asm_labels(A, lb, le);
    else
        tsr_tc_asm_line(A, lb, le);
}

/* The words the target's assembler makes of the output's text (prefix, plen bytes, then tsr_pack_emit's lines:
 * t->assemble is tsr_tc_assemble over t->text, gen/emit_asm.c), P->n instructions into w; false if the text
 * does not assemble to P->n instructions.  The text is not printed: its lines go to the line interface of the
 * assembler (runtime/text/textcodec.h) one by one, in both passes, as tsr_tc_assemble would give them, except
 * that a bundle whose line rt knows to mean its words (tsr_pack_rt_known; rt is NULL when there are
 * directives) is skipped in both passes and its words are taken as they are.  The others (branches, which name
 * labels; a bundle whose disassembly does not assemble alone back to its words) are assembled in their place:
 * at their address, after the same labels and directives.  What is checked is so the text that is output. */
static bool output_words(const struct prog *P, const char *prefix, size_t plen, struct tsr_pack_rt *rt,
                         const char *path, uint32_t *w)
{
    const struct tsr_target *t = P->t;
    struct tsr_diag q;
    tsr_diag_init(&q, TSR_DIAG_STORE, NULL);
    struct tsr_tc_asm *A = tsr_tc_asm_begin(t->text, path, 0, &q);
    struct collect c = { w, 0, P->n, t->nwords };
    bool *known = calloc(P->n + 1, sizeof *known);
    if (!known)
        abort();
    struct tsr_buf line = { 0 };
    for (int pass = 1; pass <= 2; pass++) {
        if (pass == 2)
            tsr_tc_asm_pass2(A, collect, &c);
        for (const char *lb = prefix, *end = prefix + plen; lb < end;) {
            const char *le = memchr(lb, '\n', (size_t)(end - lb));
            if (!le)
                le = end;
            feed(A, pass, lb, le);
            lb = le < end ? le + 1 : end;
        }
        for (size_t i = 0; i < P->n; i++) {
            const struct obundle *b = &P->b[i];
            for (int l = 0; l < b->nlabels; l++) {
                tsr_buf_clear(&line);
                tsr_buf_printf(&line, "%s:", b->labels[l]);
                feed(A, pass, line.data, line.data + line.len);
            }
            if (pass == 1)
                known[i] = rt && b->ctl == TSR_PACK_CTL_NONE && tsr_pack_rt_known(rt, b->w);
            if (known[i]) {
                if (pass == 2)
                    collect(&c, b->w, NULL, 0);
                tsr_tc_asm_skip(A, 1);
                continue;
            }
            tsr_buf_clear(&line);
            tsr_buf_puts(&line, "    ");
            bundle_text(P, b, &line);
            feed(A, pass, line.data, line.data + line.len);
        }
    }
    int rc = tsr_tc_asm_end(A);
    tsr_buf_free(&line);
    free(known);
    tsr_diag_fini(&q);
    return !rc && c.n == P->n;
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
     * whose disassembly round-trips are taken as their words (output_words) */
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
    uint32_t *ws = NULL;
    for (int iter = 0; iter < 100000; iter++) {
        ws = realloc(ws, (P->n + 1) * t->nwords * sizeof *ws);
        if (!ws)
            abort();
        if (!output_words(P, prefix, plen, rtp, path, ws)) {
            rc = tsr_diag_error(d, path, 0, 0, "internal error: the packed program does not assemble");
            break;
        }
        struct firstv f = { false, { 0 } };
        if (P->n)
            tsr_validate(P->D, ws, P->n, 0, keep_first, &f);
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
    free(ws);
    return rc;
}
