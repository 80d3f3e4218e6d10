/* A target's idle operations and idle bundle, from its description (pack_int.h tsr_pack_op_idle and the
 * tsr_pack_idle_* below), never from op names: an op is idle when it has the attribute `nop` (docs/mdl.md X12:
 * the slot's do-nothing op, whatever its name: `nop`, `none`, `idle`, `pass` ...) or, in a description that gives no
 * op that attribute, when it is its slot's declared default op (`slot NAME default OP`).  The texts come from the
 * ops' own syntax: an idle op whose template is literal text (no holes) prints that text, and the idle bundle is
 * the first such text, in format and slot order, that assembles alone to a bundle of idle ops only.
 *
 * The facts are worked out once per target and thread (a small per-thread table, runtime/tls.h). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "fileout.h"
#include "pack.h"
#include "pack_int.h"
#include "target.h"
#include "text/textcodec.h"
#include "tls.h"

#define IDLE_TARGETS 8
struct idle {
    const struct tsr_target *t;   /* NULL: empty */
    unsigned char *op;            /* per op: 1 when idle */
    char **text;                  /* per op: the literal text of an idle op with a literal template, else NULL */
    char *bundle;                 /* the idle bundle's text, or NULL (the target has none) */
};
static _Thread_local struct idle *idle_tab;
static void *idle_first;   /* the first thread's table (tsr_thread_table), freed at exit */

static void idle_clear(struct idle *e)
{
    if (e->text)
        for (unsigned i = 0; i < e->t->nops; i++)
            free(e->text[i]);
    free(e->text);
    free(e->op);
    free(e->bundle);
    memset(e, 0, sizeof *e);
}

static void idle_free(void)
{
    struct idle *tab = idle_first;
    for (int i = 0; tab && i < IDLE_TARGETS; i++)
        if (tab[i].t)
            idle_clear(&tab[i]);
    free(idle_first);
    idle_first = NULL;
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        abort();
    return p;
}

/* The op's template as text when it is literal (text and blanks only), else NULL. */
static char *literal(const struct tsr_tc_isa *isa, unsigned op)
{
    const struct tsr_tc_op *o = &isa->ops[op];
    struct tsr_buf b = { 0 };
    for (uint32_t i = 0; i < o->npart; i++) {
        const struct tsr_tc_part *p = &isa->parts[o->part + i];
        if (p->kind == TSR_TC_TEXT)
            tsr_buf_append(&b, p->text, p->len);
        else if (p->kind == TSR_TC_SPACE)
            tsr_buf_puts(&b, " ");
        else {
            tsr_buf_free(&b);
            return NULL;
        }
    }
    char *r = strdup(b.data ? b.data : "");
    tsr_buf_free(&b);
    if (!r)
        abort();
    return r;
}

/* The text of slot s's idle op: its default op when that is idle and literal, else the first such op of the slot
 * (NULL: none; an empty template gives no text either). */
static const char *slot_text(const struct idle *e, const struct tsr_tc_isa *isa, unsigned s)
{
    const struct tsr_tc_slot *sl = &isa->slots[s];
    if (sl->default_op < e->t->nops && e->text[sl->default_op] && *e->text[sl->default_op])
        return e->text[sl->default_op];
    for (uint32_t i = 0; i < sl->nop; i++) {
        unsigned op = isa->idx[sl->op + i];
        if (op < e->t->nops && e->text[op] && *e->text[op])
            return e->text[op];
    }
    return NULL;
}

static void idle_make(struct idle *e, const struct tsr_target *t)
{
    const struct tsr_tc_isa *isa = t->text;
    e->t = t;
    e->op = xcalloc(t->nops, 1);
    e->text = xcalloc(t->nops, sizeof *e->text);
    int nop_attr = -1;
    for (unsigned a = 0; a < t->nattrs && a < 64; a++)
        if (!strcmp(t->attr_names[a], "nop"))
            nop_attr = (int)a;
    for (unsigned op = 0; op < t->nops; op++) {
        e->op[op] = nop_attr >= 0 ? (t->op_attrs[op] >> nop_attr & 1)
                                  : isa && isa->slots[t->op_slot[op]].default_op == op;
        if (e->op[op] && isa)
            e->text[op] = literal(isa, op);
    }
    if (!isa)
        return;
    /* the idle bundle: the first slot's idle text, in format and slot order, that assembles alone to a bundle of
     * idle ops */
    void *inst = xcalloc(1, t->inst_size);
    uint32_t w[64];
    for (unsigned f = 0; f < isa->nformats && !e->bundle && t->nwords <= 64; f++)
        for (uint32_t k = 0; k < isa->formats[f].nslot && !e->bundle; k++) {
            const char *s = slot_text(e, isa, isa->idx[isa->formats[f].slot + k]);
            if (!s || t->assemble_one(s, strlen(s), 0, w, NULL, 0))
                continue;
            t->decode(w, inst);
            bool all = t->inst_format(inst) != TSR_NO_FORMAT;
            for (unsigned sl = 0; sl < t->nslots && all; sl++) {
                unsigned o = t->inst_op(inst, sl);
                all = o == TSR_NO_OP || (o < t->nops && e->op[o]);
            }
            if (all && !(e->bundle = strdup(s)))
                abort();
        }
    free(inst);
}

static const struct idle *idle_of(const struct tsr_target *t)
{
    static atomic_flag registered = ATOMIC_FLAG_INIT;
    if (!idle_tab)
        idle_tab = tsr_thread_table(IDLE_TARGETS, sizeof *idle_tab, &registered, &idle_first, idle_free);
    for (int i = 0; i < IDLE_TARGETS; i++)
        if (idle_tab[i].t == t)
            return &idle_tab[i];
    int i = 0;
    while (i < IDLE_TARGETS - 1 && idle_tab[i].t)
        i++;
    if (idle_tab[i].t)   /* full: the last entry is replaced */
        idle_clear(&idle_tab[i]);
    idle_make(&idle_tab[i], t);
    return &idle_tab[i];
}

/* (pack_int.h) */
bool tsr_pack_op_idle(const struct tsr_target *t, unsigned op)
{
    return op == TSR_NO_OP || (op < t->nops && idle_of(t)->op[op]);
}

/* (pack_int.h) */
bool tsr_pack_idle_text(const struct tsr_target *t, const char *s, size_t n)
{
    const struct idle *e = idle_of(t);
    for (unsigned op = 0; op < t->nops && n; op++)
        if (e->text[op] && strlen(e->text[op]) == n && !memcmp(e->text[op], s, n))
            return true;
    return false;
}

/* (pack_int.h) */
const char *tsr_pack_idle_bundle(const struct tsr_target *t)
{
    return idle_of(t)->bundle;
}

/* (pack_int.h) */
const char *tsr_pack_idle_at(const struct tsr_target *t, unsigned format, unsigned pos)
{
    const struct idle *e = idle_of(t);
    const struct tsr_tc_isa *isa = t->text;
    for (unsigned k = 0; isa && k <= isa->nformats; k++) {
        unsigned f = k == 0 ? format : k - 1;   /* the bundle's format first, then every format in order */
        if (f >= isa->nformats || pos >= isa->formats[f].nslot)
            continue;
        const char *s = slot_text(e, isa, isa->idx[isa->formats[f].slot + pos]);
        if (s)
            return s;
    }
    return e->bundle;
}

/* (pack_int.h) */
int tsr_pack_target_ok(const struct tsr_target *t, const char *path, struct tsr_diag *d)
{
    if (!t->vdesc)
        return tsr_diag_error(d, path, 0, 0, "target '%s' has no hazard description: the packer needs one", t->name);
    if (t->nwords > TSR_PACK_MAX_NWORDS)
        return tsr_diag_error(d, path, 0, 0, "target '%s' has %u-bit instructions: the packer takes at most %d "
                              "(TSR_PACK_MAX_NWORDS, runtime/pack/pack.h)", t->name, t->word_bits,
                              32 * TSR_PACK_MAX_NWORDS);
    return 0;
}
