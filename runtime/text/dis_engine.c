/* Generic disassembler: prints decoded instructions through the syntax templates
 * (docs/mdl.md "Syntax templates") and makes the text exact (docs/mdl.md "Round trips"): a bundle whose
 * printed path (dis_path.h) proves it reads back exactly (dis_exact.c, from facts of the description decided
 * once, dis_static.c) is done; any other is assembled again with the bundle assembler (asm_engine.c) and the
 * fields compared; differing fields are appended as overrides `{field=value, ...}` (and
 * `format=NAME` when the text alone would pick another format), and a bundle no template can print
 * becomes `.word 0x........, 0x........` (low word first).  TESSERA_DIS_VERIFY=1 in the environment runs
 * the check on the proven bundles too and aborts if it finds an override (a bug in the proof).
 *
 * Printing rules: the slots of the format are printed in order, separated by "; ", up to the last
 * slot whose op is not the slot's default (at least the first slot); a slot whose op prints no
 * text is left out.  An operand prints its first alternative whose conditions hold and whose parts
 * can all be printed; a table code without a name or number cannot be printed.  Numbers: `{FIELD}`
 * as the field's print format says (dis_interp.c put_field; decimal by default, signed fields sign-extended); table floats in the shortest form that reads back as
 * the same binary32 and always with a '.' or exponent; labels as `L` + lower-case hex address.
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define XXH_INLINE_ALL   /* the hash of one instruction's words without a call into the library */
#include <xxhash.h>

#include "asm_engine.h"
#include "bits.h"
#include "dis_engine.h"
#include "dis_front.h"
#include "dis_exact.h"
#include "dis_path.h"
#include "fileout.h"
#include "text/dis_print.h"
#include "text/textcodec.h"
#include "tls.h"
#include "xalloc.h"

/* reserve_bundle's growth: out, the labels or the path's events are short of the bounds m. */
static TSR_DIS_COLD void reserve_grow(struct dis *d, const struct fmax *m, struct tsr_buf *out)
{
    tsr_buf_reserve(out, m->len);
    if (d->nlabels + m->lab > d->clabels) {
        while (d->nlabels + m->lab > d->clabels)
            d->clabels = d->clabels ? d->clabels * 2 : 64;
        d->labels = tsr_xrealloc(d->labels, d->clabels * sizeof *d->labels);
    }
    struct tsr_dis_path *P = &d->path;
    if (m->ev > P->cev) {   /* the bundle's events start at 0 */
        while (m->ev > P->cev)
            P->cev = P->cev ? P->cev * 2 : 256;
        P->ev = tsr_xrealloc(P->ev, P->cev * sizeof *P->ev);
    }
}

/* Makes room for what the generated printer may write for a bundle of format fmt (struct fmax): the three
 * comparisons inline, the growth (a few times per run) in reserve_grow. */
static inline void reserve_bundle(struct dis *d, unsigned fmt, struct tsr_buf *out)
{
    const struct fmax *m = &d->fmax[fmt];
    if (m->len >= out->cap - out->len || d->nlabels + m->lab > d->clabels || m->ev > d->path.cev)
        reserve_grow(d, m, out);
}

/* print_bundle's slots 0..last (positions in the format's list sl) through the generated printers (isa->pops),
 * written straight into out's room (reserve_bundle) with the text's end, the events and labels kept in locals
 * until the end.  The same text, path and labels as the interpreted loop. */
static bool print_slots_gen(struct dis *d, const uint16_t *sl, int last, const uint16_t *ops, const uint64_t *f,
                            uint64_t pc, struct tsr_buf *out)
{
    const struct tsr_tc_pop *pops = d->isa->pops;
    struct tsr_dis_path *P = &d->path;
    char *const b = out->data + out->len;
    size_t o = 0;
    struct tsr_dis_ev *ev = P->ev;
    struct tsr_tc_pctx x = {d->labels, d->nlabels};
    bool ok = true;
    for (int t = 0; t <= last; t++) {
        size_t mark = o;
        struct tsr_dis_ev *emark = ev;
        if (o) {
            memcpy(b + o, "; ", 2);
            o += 2;
        }
        struct tsr_tc_pres r = pops[ops[sl[t]]].fn(f, pc, b, o, ev, &x);
        if (!r.ev) {
            ok = false;
            break;
        }
        if (r.o == o) {   /* the op prints no text: left out, with its separator and events */
            o = mark;
            ev = emark;
        } else {
            o = r.o;
            ev = r.ev;
            tsr_dis_path_slot(P, (uint32_t)t, (size_t)(emark - P->ev), P->base + r.o);
        }
    }
    out->len += o;
    out->data[out->len] = 0;   /* also when a printer wrote past it */
    P->nev = (size_t)(ev - P->ev);
    d->nlabels = x.nlab;
    return ok && o > 0;
}

/* print_bundle without a generated format printer (d->pfn[fmt] NULL): the loop over the slots, each op printed
 * by its generated printer (isa->pops) or interpreted. */
static TSR_DIS_NOINLINE bool print_slots(struct dis *d, const void *inst, uint64_t pc, bool all, bool *partial,
                                         struct tsr_buf *out)
{
    const struct tsr_tc_isa *isa = d->isa;
    unsigned fmt = ((const unsigned char *)inst)[0];
    const struct tsr_tc_format *F = &isa->formats[fmt];
    const uint16_t *ops = ops_of(isa, inst), *sl = &isa->idx[F->slot];
    const uint64_t *f = fields_of(isa, inst);
    const struct tsr_tc_slot *slots = isa->slots;
    unsigned nops = isa->nops, nslot = F->nslot;
    int last = 0;
    for (unsigned t = 0; t < nslot; t++) {
        unsigned op = ops[sl[t]];
        if (op >= nops)
            return false;
        if (op != slots[sl[t]].default_op)
            last = (int)t;
    }
    if (all && nslot)
        last = (int)nslot - 1;
    *partial = last + 1 < (int)nslot;
    size_t start = out->len;
    tsr_dis_path_start(&d->path, start);
    if (d->gen) {
        reserve_bundle(d, fmt, out);
        return print_slots_gen(d, sl, last, ops, f, pc, out);
    }
    for (int t = 0; t <= last; t++) {
        unsigned opi = ops[sl[t]];
        size_t mark = out->len, emark = d->path.nev;
        if (out->len > start)
            put(out, "; ", 2);
        size_t body = out->len;
        if (!tsr_dis_print_op(d, opi, f, pc, out))
            return false;
        if (out->len == body) {
            truncate_to(out, mark);
            d->path.nev = emark;
        } else {
            tsr_dis_path_slot(&d->path, (uint32_t)t, emark, out->len);
        }
    }
    return out->len > start;
}

/* Prints the slots of the format up to the last non-default one (all: every slot).  *partial is set
 * when slots were left out that way.  The format's generated printer (print_slots' loops unrolled) is called
 * here without a frame of its own (every bundle of a description with a generated printer). */
TSR_DIS_INLINE bool print_bundle(struct dis *d, const void *inst, uint64_t pc, bool all, bool *partial,
                                struct tsr_buf *out)
{
    unsigned fmt = ((const unsigned char *)inst)[0];
    tsr_tc_pfmt_fn fn = d->pfn[fmt];
    if (!fn)
        return print_slots(d, inst, pc, all, partial, out);
    size_t start = out->len;
    tsr_dis_path_start(&d->path, start);
    reserve_bundle(d, fmt, out);
    struct tsr_tc_pctx x = {d->labels, d->nlabels};
    const struct tsr_tc_isa *isa = d->isa;
    size_t n = fn(ops_of(isa, inst), fields_of(isa, inst), pc, all, out->data + start, &d->path, &x, partial);
    d->nlabels = x.nlab;
    if (n == TSR_TC_PFAIL)
        return false;
    out->len += n;
    out->data[out->len] = 0;   /* also when a printer wrote past it */
    return n > 0;
}

static void put_word(const struct tsr_tc_isa *isa, const uint32_t *w, struct tsr_buf *out)
{
    tsr_buf_puts(out, ".word ");
    for (unsigned i = 0; i < isa->nwords; i++)
        tsr_buf_printf(out, i ? ", 0x%08" PRIx32 : "0x%08" PRIx32, w[i]);
}

static void put_value(struct tsr_buf *out, uint64_t v)
{
    if (v < 10)
        tsr_buf_printf(out, "%" PRIu64, v);
    else
        tsr_buf_printf(out, "0x%" PRIx64, v);
}

/* TESSERA_DIS_VERIFY: the full check disagrees with the proof (a bug in dis_exact.c or dis_static.c). */
static _Noreturn void proof_wrong(const struct tsr_buf *out, size_t start, const char *which)
{
    fprintf(stderr, "tessera: internal error: the %s exactness proof accepted '%.*s'\n", which,
            (int)(out->len - start), out->data + start);
    abort();
}

/* attempt's round trip for a bundle no proof showed (or every bundle with TESSERA_DIS_VERIFY; proven: the proof
 * showed it): the text at start is assembled again and the fields that differ are appended as overrides.  Returns
 * their number, or -1 when the text cannot be made exact. */
static TSR_DIS_COLD int round_trip(struct dis *d, unsigned fmt, uint64_t pc, size_t start, bool proven,
                                       struct tsr_buf *out)
{
    const struct tsr_tc_isa *isa = d->isa;
    bool pinned = false;
    if (tsr_asm_bundle(d->a, out->data + start, out->len - start, pc, -1, d->inst2) < 0 ||
        ((unsigned char *)d->inst2)[0] != fmt) {
        if (tsr_asm_bundle(d->a, out->data + start, out->len - start, pc, (int)fmt, d->inst2) < 0) {
            if (proven)
                proof_wrong(out, start, "full");
            return -1;
        }
        pinned = true;
    }
    const struct tsr_tc_format *F = &isa->formats[fmt];
    const uint64_t *f1 = fields_of(isa, d->inst), *f2 = fields_of(isa, d->inst2);
    const uint32_t *i1 = ign_of(isa, d->inst), *i2 = ign_of(isa, d->inst2);
    int n = 0;
    if (pinned)
        tsr_buf_printf(out, " {format=%s", F->name), n++;
    for (uint32_t i = 0; i < F->nfield; i++) {
        unsigned fd = isa->idx[F->field + i];
        if (f1[fd] == f2[fd])
            continue;
        tsr_buf_printf(out, n ? ", %s=" : " {%s=", isa->fields[fd].name);
        put_value(out, f1[fd]);
        n++;
    }
    for (uint32_t i = 0; i < F->nign; i++) {
        const struct tsr_tc_range *r = &isa->ranges[F->ign + i];
        uint64_t v1 = tsr_wide_extract(i1, r->hi, r->lo), v2 = tsr_wide_extract(i2, r->hi, r->lo);
        if (v1 == v2)
            continue;
        tsr_buf_printf(out, n ? ", ignore[%u]=" : " {ignore[%u]=", (unsigned)i);
        put_value(out, v1);
        n++;
    }
    if (n)
        tsr_buf_puts(out, "}");
    if (proven && n)
        proof_wrong(out, start, "full");
    return n;
}

/* Prints the bundle (all: every slot) and the overrides its text needs.  Returns the number of
 * overrides, or -1 when the text cannot be made exact (then the caller prints `.word`). */
TSR_DIS_INLINE int attempt(struct dis *d, unsigned fmt, uint64_t pc, bool all, bool *partial, struct tsr_buf *out)
{
    size_t start = out->len;
    if (!print_bundle(d, d->inst, pc, all, partial, out))
        return -1;
    /* most bundles: shown exact from the printed path, without assembling the text (dis_exact.c); the facts
     * it rests on cost about as much to decide as a thousand checks, so the proof starts once the thread has
     * printed TSR_DIS_WARMUP bundles (at once with TESSERA_DIS_VERIFY, or for a program of many different
     * words: warmup_for) */
    struct tsr_dis_exact *X = d->exact;
    bool proven = false;
    if (X->nprinted >= TSR_DIS_WARMUP || d->verify) {
        /* the fast form first (dis_fast.c: the facts alone, kept per template place), then the full proof;
         * with TESSERA_DIS_VERIFY the full proof must agree with every bundle the fast form shows */
        const char *txt = out->data + start;
        size_t tl = out->len - start;
        bool fast = tsr_dis_fast(d->isa, X, d->inst, txt, tl, &d->path);
        if (fast && !d->verify)
            return 0;
        proven = tsr_dis_exact(d->isa, X, d->inst, txt, tl, &d->path);
        if (fast && !proven)
            proof_wrong(out, start, "fast");
    }
    if (X->nprinted < TSR_DIS_WARMUP)
        X->nprinted++;
    if (proven && !d->verify)
        return 0;
    return round_trip(d, fmt, pc, start, proven, out);
}

/* attempt for dis_one's second try (every slot printed): out of the per-bundle path. */
static TSR_DIS_COLD int attempt_all(struct dis *d, unsigned fmt, uint64_t pc, bool *partial, struct tsr_buf *out)
{
    return attempt(d, fmt, pc, true, partial, out);
}

/* dis_one when the first attempt gave overrides (n > 0) or failed (n < 0; also an instruction that does not
 * decode): the second try with every slot printed, or `.word`.  The text starts at start of out, the labels
 * at lstart. */
static TSR_DIS_COLD void dis_one_rest(struct dis *d, const uint32_t *w, uint64_t pc, struct tsr_buf *out, size_t start,
                                      size_t lstart, unsigned fmt, int n, bool partial)
{
    if (n > 0 && partial) {
        /* the left-out default slots did not come back alike: try printing every slot */
        size_t len1 = out->len, lab1 = d->nlabels;
        char *first = tsr_xrealloc(NULL, len1 - start + 1);
        memcpy(first, out->data + start, len1 - start);
        truncate_to(out, start);
        int n2 = attempt_all(d, fmt, pc, &partial, out);
        if (n2 < 0 || n2 >= n) {   /* keep the first text and its labels */
            truncate_to(out, start);
            put(out, first, len1 - start);
            d->nlabels = lab1;
        } else if (lab1 > lstart) {   /* keep the second text and its labels */
            memmove(d->labels + lstart, d->labels + lab1, (d->nlabels - lab1) * sizeof *d->labels);
            d->nlabels -= lab1 - lstart;
        }
        free(first);
        return;
    }
    if (n >= 0)
        return;
    truncate_to(out, start);
    d->nlabels = lstart;
    put_word(d->isa, w, out);
}

/* Appends the text of the instruction at w (at byte address pc) to out: the bundle with the overrides it needs,
 * or `.word`.  The labels it prints are appended to d->labels.  Inlined into the stream's loop over the words
 * (most of `tessera dis`'s calls); dis_one_call for the others. */
TSR_DIS_INLINE void dis_one(struct dis *d, const uint32_t *w, uint64_t pc, struct tsr_buf *out)
{
    const struct tsr_tc_isa *isa = d->isa;
    size_t start = out->len, lstart = d->nlabels;
    unsigned fmt = 0;
    bool partial = false;
    int n = -1;
    if (isa->decode_next(w, d->inst) >= 0 && (fmt = ((unsigned char *)d->inst)[0]) < isa->nformats) {
        n = attempt(d, fmt, pc, false, &partial, out);
        if (n == 0)
            return;
    }
    dis_one_rest(d, w, pc, out, start, lstart, fmt, n, partial);
}

static TSR_DIS_NOINLINE void dis_one_call(struct dis *d, const uint32_t *w, uint64_t pc, struct tsr_buf *out)
{
    dis_one(d, w, pc, out);
}

/* Whether the parts [first, first+n) can print a label: a `{label:...}` part, directly or in any
 * alternative of an operand (an operand met again while it is being examined adds nothing new). */
static bool seq_label(struct dis *d, uint32_t first, uint32_t n)
{
    const struct tsr_tc_isa *isa = d->isa;
    for (uint32_t i = 0; i < n; i++) {
        const struct tsr_tc_part *p = &isa->parts[first + i];
        if (p->kind == TSR_TC_LABEL)
            return true;
        if (p->kind != TSR_TC_OPND)
            continue;
        uint8_t *st = &d->opnd_label[p->arg];
        if (*st == LBL_UNKNOWN) {
            const struct tsr_tc_opnd *o = &isa->opnds[p->arg];
            bool any = false;
            *st = LBL_VISITING;
            for (uint32_t j = 0; j < o->nalt && !any; j++)
                any = seq_label(d, isa->alts[o->alt + j].part, isa->alts[o->alt + j].npart);
            *st = any ? LBL_YES : LBL_NO;
        }
        if (*st == LBL_YES)
            return true;
    }
    return false;
}

/* Whether the instruction decoded in d->inst can print a label: one of its format's ops can.  When not,
 * its text depends on nothing but its words (a first pass looking for labels can skip it). */
static bool may_label(const struct dis *d)
{
    const struct tsr_tc_isa *isa = d->isa;
    unsigned fmt = ((const unsigned char *)d->inst)[0];
    if (fmt >= isa->nformats)
        return false;   /* printed as `.word` */
    const struct tsr_tc_format *F = &isa->formats[fmt];
    const uint16_t *ops = ops_of(isa, d->inst);
    for (uint32_t t = 0; t < F->nslot; t++) {
        unsigned op = ops[isa->idx[F->slot + t]];
        if (op < isa->nops && d->op_label[op] == LBL_YES)
            return true;
    }
    return false;
}

/* The exactness prover of this thread: what it has decided about the description (dis_static.c) serves every
 * disassembly the thread does of that isa (one-instruction calls and whole programs alike; they never run
 * inside one another).  The first thread's is freed at exit, those of other threads stay allocated until the
 * process ends (like their one-instruction contexts). */
static _Thread_local struct tsr_dis_exact *thread_prover;
static void *main_prover;   /* the first thread's (tls.h) */

static void free_main_prover(void)
{
    if (main_prover) {
        tsr_dis_exact_free(main_prover);
        free(main_prover);
        main_prover = NULL;
    }
}

static struct tsr_dis_exact *prover_for(const struct tsr_tc_isa *isa)
{
    static atomic_flag registered = ATOMIC_FLAG_INIT;
    struct tsr_dis_exact *x = thread_prover;
    if (!x)
        x = thread_prover = tsr_thread_table(1, sizeof *x, &registered, &main_prover, free_main_prover);
    else if (x->st.isa && x->st.isa != isa)
        tsr_dis_exact_free(x);   /* another isa: start again */
    return x;
}

/* Chooses the generated printer (gen, when isa has one) or the interpreted one: d->gen and d->pfn. */
static void set_gen(struct dis *d, bool gen)
{
    const struct tsr_tc_isa *isa = d->isa;
    d->gen = gen && isa->pops;
    for (unsigned fm = 0; fm < isa->nformats; fm++)
        d->pfn[fm] = d->gen && isa->pfmts ? isa->pfmts[fm].fn : NULL;
}

static void dis_init(struct dis *d, const struct tsr_tc_isa *isa)
{
    memset(d, 0, sizeof *d);
    d->isa = isa;
    d->a = tsr_asm_new(isa);
    d->inst = calloc(1, isa->inst_size + 16);
    d->inst2 = calloc(1, isa->inst_size + 16);
    if (d->inst)   /* no decode yet: decode_next writes every byte the first time */
        *(unsigned char *)d->inst = TSR_TC_NO_FORMAT;
    d->exact = prover_for(isa);
    const char *v = getenv("TESSERA_DIS_VERIFY");
    d->verify = v && *v && strcmp(v, "0") != 0;
    d->op_label = calloc(isa->nops + 1, 1);
    d->opnd_label = calloc(isa->nopnds + 1, 1);
    if (!d->inst || !d->inst2 || !d->op_label || !d->opnd_label)
        abort();
    const char *pr = getenv("TESSERA_DIS_PRINTER");
    d->pfn = calloc(isa->nformats + 1, sizeof *d->pfn);
    if (!d->pfn)
        abort();
    set_gen(d, isa->pops && !(pr && !strcmp(pr, "interp")));
    if (isa->pops) {   /* per format: the sum over its slots of the largest bounds of the slot's ops */
        d->fmax = calloc(isa->nformats + 1, sizeof *d->fmax);
        if (!d->fmax)
            abort();
        for (unsigned fm = 0; fm < isa->nformats; fm++) {
            const struct tsr_tc_format *F = &isa->formats[fm];
            struct fmax *m = &d->fmax[fm];
            for (uint32_t t = 0; t < F->nslot; t++) {
                const struct tsr_tc_slot *S = &isa->slots[isa->idx[F->slot + t]];
                size_t len = 0, ev = 0, lab = 0;
                for (uint32_t k = 0; k < S->nop; k++) {
                    const struct tsr_tc_pop *pp = &isa->pops[isa->idx[S->op + k]];
                    len = pp->maxlen > len ? pp->maxlen : len;
                    ev = pp->maxev > ev ? pp->maxev : ev;
                    lab = pp->maxlab > lab ? pp->maxlab : lab;
                }
                m->len += len + 2;   /* "; " */
                m->ev += ev;
                m->lab += lab;
            }
        }
    }
    for (unsigned i = 0; i < isa->nops; i++)
        d->op_label[i] = seq_label(d, isa->ops[i].part, isa->ops[i].npart) ? LBL_YES : LBL_NO;
    d->fmt_label = calloc(isa->nformats + 1, sizeof *d->fmt_label);
    if (!d->fmt_label)
        abort();
    for (unsigned fm = 0; fm < isa->nformats; fm++) {
        const struct tsr_tc_format *F = &isa->formats[fm];
        for (uint32_t t = 0; t < F->nslot; t++) {
            const struct tsr_tc_slot *S = &isa->slots[isa->idx[F->slot + t]];
            for (uint32_t k = 0; k < S->nop; k++)
                d->fmt_label[fm] |= d->op_label[isa->idx[S->op + k]] == LBL_YES;
        }
    }
}

static void dis_fini(struct dis *d)
{
    tsr_tc_cache_free(&d->cache);
    tsr_asm_free(d->a);
    free(d->inst);
    free(d->inst2);
    free(d->labels);
    free(d->op_label);
    free(d->opnd_label);
    free(d->fmt_label);
    free(d->fmax);
    free(d->pfn);
    tsr_dis_path_free(&d->path);
}

/* One-instruction calls (a simulator's trace prints every bundle) reuse a per-thread context for the
 * last isa, with its memo of the words already printed (those whose text has no label).  The context of the first thread that disassembles is freed at exit; those of other
 * threads stay allocated (about 10 KB each) until the process ends. */
static _Thread_local struct dis *one_ctx;
static void *main_ctx;   /* the first thread's (tls.h) */

static void free_main_ctx(void)
{
    if (main_ctx) {
        dis_fini(main_ctx);
        free(main_ctx);
        main_ctx = NULL;
    }
}

int tsr_tc_disasm(const struct tsr_tc_isa *isa, const uint32_t *w, uint64_t pc, struct tsr_buf *out)
{
    static atomic_flag registered = ATOMIC_FLAG_INIT;
    struct dis *d = one_ctx;
    if (!d || d->isa != isa) {
        if (d)
            dis_fini(d);
        else
            d = tsr_thread_table(1, sizeof *d, &registered, &main_ctx, free_main_ctx);
        dis_init(d, isa);
        one_ctx = d;
    }
    if (!out->data)
        tsr_buf_puts(out, "");
    size_t klen = isa->nwords * sizeof *w, vlen, start = out->len;
    const char *hit = tsr_tc_cache_get(&d->cache, w, klen, &vlen);
    if (hit) {
        tsr_buf_append(out, hit, vlen);
        return 0;
    }
    d->nlabels = 0;
    dis_one_call(d, w, pc, out);
    if (d->nlabels == 0)   /* the text does not depend on the address: remember it */
        tsr_tc_cache_put(&d->cache, w, klen, out->data + start, out->len - start);
    return 0;
}

/* Whether the program's words w[0..n) hold more than TSR_DIS_EAGER different words, as a bitmap of
 * 2^TSR_DIS_EBITS_LOG2 bits counts them (linear counting: TSR_DIS_ECOUNT bits set), among its first TSR_DIS_ESCAN
 * words; it stops as soon as that is shown (a few thousand words when every word is new).  Then the thread proves
 * from the program's first bundle: the facts it would decide after the warm-up anyway cost less than the warm-up's
 * checks (dis_exact.h). */
static bool many_words(const struct tsr_tc_isa *isa, const uint32_t *w, size_t n)
{
    if (n <= TSR_DIS_EAGER)
        return false;
    uint64_t map[((size_t)1 << TSR_DIS_EBITS_LOG2) / 64] = {0};
    size_t m = n < TSR_DIS_ESCAN ? n : TSR_DIS_ESCAN, c = 0;
    const size_t nw = isa->nwords;
    for (size_t i = 0; i < m; i++, w += nw) {
        uint32_t b = (uint32_t)(XXH3_64bits(w, nw * sizeof *w) >> (64 - TSR_DIS_EBITS_LOG2));
        uint64_t bit = (uint64_t)1 << (b & 63);
        if (!(map[b >> 6] & bit)) {
            map[b >> 6] |= bit;
            if (++c >= TSR_DIS_ECOUNT)
                return true;
        }
    }
    return false;
}

/* A program of many different words skips the proof's warm-up (many_words). */
static void warmup_for(struct dis *d, const uint32_t *w, size_t n)
{
    if (d->exact->nprinted < TSR_DIS_WARMUP && many_words(d->isa, w, n))
        d->exact->nprinted = TSR_DIS_WARMUP;
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* The memo lookups of a program loop, word by word: the next word's entry is prefetched while this one is
 * printed (its hash kept), and the memo's gate is applied (tsr_tc_cache_ask).  After memo_next for word i, h
 * and ask are word i's: its insert needs ask (else the memo is full anyway) and takes h. */
struct memo_walk {
    uint64_t h, hnext;
    bool ask, asknext;
};

static void memo_start(struct dis *d, struct memo_walk *m, const uint32_t *w, size_t n)
{
    memset(m, 0, sizeof *m);
    m->asknext = n && tsr_tc_cache_ask(&d->cache, 0);
    if (m->asknext)
        m->hnext = tsr_tc_cache_prefetch(&d->cache, w, d->isa->nwords * sizeof *w);
}

/* Word i (at wi) of n: its text from the memo (*vlen bytes), or NULL. */
static inline const char *memo_next(struct dis *d, struct memo_walk *m, const uint32_t *wi, size_t i, size_t n,
                                    size_t *vlen)
{
    size_t klen = d->isa->nwords * sizeof *wi;
    m->h = m->hnext;
    m->ask = m->asknext;
    m->asknext = i + 1 < n && tsr_tc_cache_ask(&d->cache, i + 1);
    if (m->asknext)
        m->hnext = tsr_tc_cache_prefetch(&d->cache, wi + d->isa->nwords, klen);
    if (!m->ask)
        return NULL;
    return tsr_tc_cache_get_gated(&d->cache, wi, klen, m->h, vlen);
}

static int program_text(const struct tsr_tc_isa *isa, const uint32_t *w, size_t n, uint64_t base,
                        struct tsr_buf *out);
static int program_stream(const struct tsr_tc_isa *isa, const uint32_t *w, size_t n, uint64_t base, tsr_tc_sink sink,
                          void *ctx);

/* (addition) an isa with a declared bundle end prints each bundle over lines in its syntax (dis_front.c) */
int tsr_tc_disasm_program(const struct tsr_tc_isa *isa, const uint32_t *w, size_t n, uint64_t base,
                          struct tsr_buf *out)
{
    if (!isa->syntax || !isa->syntax->bundle_end)
        return program_text(isa, w, n, base, out);
    struct tsr_buf t = {0};
    int r = program_text(isa, w, n, base, &t);
    tsr_dis_front_rewrite(isa->syntax, t.data ? t.data : "", t.len, out);
    tsr_buf_free(&t);
    return r;
}

int tsr_tc_disasm_program_stream(const struct tsr_tc_isa *isa, const uint32_t *w, size_t n, uint64_t base,
                                 tsr_tc_sink sink, void *ctx)
{
    if (!isa->syntax || !isa->syntax->bundle_end)
        return program_stream(isa, w, n, base, sink, ctx);
    struct tsr_dis_front_sink fs = { isa->syntax, sink, ctx, {0}, {0} };
    int r = program_stream(isa, w, n, base, tsr_dis_front_put, &fs);
    int f = tsr_dis_front_flush(&fs);
    return r ? r : f;
}

static int program_text(const struct tsr_tc_isa *isa, const uint32_t *w, size_t n, uint64_t base,
                        struct tsr_buf *out)
{
    struct dis d;
    dis_init(&d, isa);
    struct tsr_buf text = {0};
    size_t *off = malloc((n + 1) * sizeof *off);
    if (!off)
        abort();
    tsr_buf_puts(&text, "");
    size_t klen = isa->nwords * sizeof *w;
    struct memo_walk m;
    memo_start(&d, &m, w, n);
    warmup_for(&d, w, n);
    for (size_t i = 0; i < n; i++) {
        const uint32_t *wi = w + i * isa->nwords;
        size_t vlen, l0 = d.nlabels;
        off[i] = text.len;
        const char *hit = memo_next(&d, &m, wi, i, n, &vlen);
        if (hit) {
            tsr_buf_append(&text, hit, vlen);
            continue;
        }
        dis_one_call(&d, wi, base + i * isa->pc_step, &text);
        if (m.ask && d.nlabels == l0)   /* the text does not depend on the address */
            tsr_tc_cache_put_hashed(&d.cache, wi, klen, m.h, text.data + off[i], text.len - off[i]);
    }
    off[n] = text.len;
    if (d.nlabels)
        qsort(d.labels, d.nlabels, sizeof *d.labels, cmp_u64);
    size_t li = 0;
    if (!out->data)
        tsr_buf_puts(out, "");
    for (size_t i = 0; i < n; i++) {
        uint64_t pc = base + i * isa->pc_step;
        while (li < d.nlabels && d.labels[li] < pc)
            li++;
        if (li < d.nlabels && d.labels[li] == pc)
            tsr_buf_printf(out, "L%" PRIx64 ":\n", pc);
        tsr_buf_puts(out, "    ");
        tsr_buf_append(out, text.data + off[i], off[i + 1] - off[i]);
        tsr_buf_puts(out, "\n");
    }
    free(off);
    tsr_buf_free(&text);
    dis_fini(&d);
    return 0;
}

static int program_stream(const struct tsr_tc_isa *isa, const uint32_t *w, size_t n, uint64_t base, tsr_tc_sink sink,
                          void *ctx)
{
    struct dis d;
    dis_init(&d, isa);
    warmup_for(&d, w, n);   /* before pass 1, which proves too */
    struct tsr_buf text = {0};
    /* the isa's constants in locals: the loops' stores of text bytes could otherwise change them */
    const size_t nw = isa->nwords, klen = nw * sizeof *w;
    const uint64_t step = isa->pc_step;
    const unsigned nformats = isa->nformats;
    int (*const decode_format)(const uint32_t *) = isa->decode_format;
    size_t vlen;
    tsr_buf_puts(&text, "");
    /* pass 1: the labels every instruction's text prints (only an instruction with an op that can print
     * one is disassembled here; the others are printed, and remembered, in pass 2).  Most words are told
     * apart by their format alone (decode_format: a few instructions), the others by their ops. */
    for (size_t i = 0; i < n; i++) {
        const uint32_t *wi = w + i * nw;
        unsigned fm = (unsigned)decode_format(wi);
        if (fm >= nformats || !d.fmt_label[fm] || isa->decode_next(wi, d.inst) < 0 || !may_label(&d))
            continue;
        uint64_t h = tsr_tc_cache_prefetch(&d.cache, wi, klen);   /* the hash */
        if (tsr_tc_cache_get_hashed(&d.cache, wi, klen, h, &vlen))
            continue;
        size_t l0 = d.nlabels;
        tsr_buf_clear(&text);
        dis_one_call(&d, wi, base + i * step, &text);
        if (d.nlabels == l0)
            tsr_tc_cache_put_hashed(&d.cache, wi, klen, h, text.data, text.len);
    }
    size_t nl = 0;   /* sorted, without repeats */
    if (d.nlabels)
        qsort(d.labels, d.nlabels, sizeof *d.labels, cmp_u64);
    for (size_t k = 0; k < d.nlabels; k++)
        if (!nl || d.labels[nl - 1] != d.labels[k])
            d.labels[nl++] = d.labels[k];
    uint64_t *labels = d.labels;
    d.labels = NULL;
    d.nlabels = d.clabels = 0;
    /* pass 2: the text, as tsr_tc_disasm_program prints it */
    tsr_buf_clear(&text);
    size_t li = 0;
    int rc = 0;
    struct memo_walk m;
    memo_start(&d, &m, w, n);
    for (size_t i = 0; i < n && !rc; i++) {
        const uint32_t *wi = w + i * nw;
        uint64_t pc = base + i * step;
        while (li < nl && labels[li] < pc)
            li++;
        if (li < nl && labels[li] == pc)
            tsr_buf_printf(&text, "L%" PRIx64 ":\n", pc);
        const char *hit = memo_next(&d, &m, wi, i, n, &vlen);
        if (hit) {   /* the line written straight into the buffer: "    " text "\n" */
            tsr_buf_room(&text, vlen + 5);
            char *p = text.data + text.len;
            memcpy(p, "    ", 4);
            memcpy(p + 4, hit, vlen);
            p[4 + vlen] = '\n';
            text.len += vlen + 5;
        } else {
            tsr_buf_room(&text, 4);
            memcpy(text.data + text.len, "    ", 4);
            size_t t0 = text.len += 4;
            text.data[t0] = 0;
            d.nlabels = 0;
            dis_one(&d, wi, pc, &text);
            if (m.ask && d.nlabels == 0)   /* the text does not depend on the address */
                tsr_tc_cache_put_hashed(&d.cache, wi, klen, m.h, text.data + t0, text.len - t0);
            tsr_buf_room(&text, 1);
            text.data[text.len++] = '\n';
        }
        text.data[text.len] = 0;
        if (text.len >= 65536 || i + 1 == n) {
            rc = sink(ctx, text.data, text.len) ? -1 : 0;
            tsr_buf_clear(&text);
        }
    }
    free(labels);
    tsr_buf_free(&text);
    dis_fini(&d);
    return rc;
}

/* ---- the printers alone (text/dis_print.h: tests and benchmarks) ---------------------------------------- */

struct tsr_tc_printer {
    struct dis d;
};

struct tsr_tc_printer *tsr_tc_printer_new(const struct tsr_tc_isa *isa, bool generated)
{
    struct tsr_tc_printer *P = malloc(sizeof *P);
    if (!P)
        abort();
    dis_init(&P->d, isa);
    set_gen(&P->d, generated);
    return P;
}

int tsr_tc_printer_print(struct tsr_tc_printer *P, const uint32_t *w, uint64_t pc, bool all, struct tsr_buf *out)
{
    struct dis *d = &P->d;
    const struct tsr_tc_isa *isa = d->isa;
    bool partial;
    d->nlabels = 0;
    tsr_dis_path_start(&d->path, out->len);
    if (!out->data)
        tsr_buf_puts(out, "");
    if (isa->decode_next(w, d->inst) < 0 || ((unsigned char *)d->inst)[0] >= isa->nformats)
        return -1;
    size_t start = out->len;
    if (!print_bundle(d, d->inst, pc, all, &partial, out)) {
        truncate_to(out, start);
        return -1;
    }
    return 0;
}

const struct tsr_dis_path *tsr_tc_printer_path(const struct tsr_tc_printer *P)
{
    return &P->d.path;
}

const uint64_t *tsr_tc_printer_labels(const struct tsr_tc_printer *P, size_t *n)
{
    *n = P->d.nlabels;
    return P->d.labels;
}

void tsr_tc_printer_free(struct tsr_tc_printer *P)
{
    if (P) {
        dis_fini(&P->d);
        free(P);
    }
}
