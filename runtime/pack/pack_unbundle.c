/* Unbundling (runtime/pack/pack.h tsr_unbundle): one operation per line, delay-slot operations moved before
 * their control operation where they do not depend on it (else kept after it as `.delay` operations),
 * inseparable bundles kept whole (pinned). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pack_int.h"
#include "diag.h"
#include "fileout.h"
#include "target.h"
#include "text/textcodec.h"

/* Dependence of b on a (a first) for instructions at wa, wb: -1 none, else the least distance. */
static int dep_words(const struct tsr_target *t, const uint32_t *wa, const uint32_t *wb)
{
    struct tsr_pack_ev a = { 0 }, b = { 0 };
    tsr_pack_ev_init(t, wa, &a);
    tsr_pack_ev_init(t, wb, &b);
    int l = tsr_pack_dep(t->vdesc, &a, &b);
    tsr_pack_ev_free(&a);
    tsr_pack_ev_free(&b);
    return l;
}

/* Whether a part's events (alone) read, write and use nothing: all it can do is change what the other parts of
 * its bundle do (an instruction's options: export, predicate, saturation) or end the program. */
static bool modifier(const struct tsr_pack_ev *e)
{
    if (!e->vb)
        return false;
    for (int i = 0; i < e->vb->nev; i++) {
        int kd = e->vb->ev[i].kind;
        if (kd != TSR_V_OP && kd != TSR_V_JUMP && kd != TSR_V_HALT && kd != TSR_V_START)
            return false;
    }
    return true;
}

/* Cuts pb back to at and appends the fields f0[j] (fn[j] bytes) kept by keep[] as ` {f=v, g=w}`, nothing when none
 * is kept (pb's text then ends at at). */
static void put_overrides(struct tsr_buf *pb, size_t at, const char *const *f0, const size_t *fn, const bool *keep,
                          int nf)
{
    pb->len = at;
    bool any = false;
    for (int j = 0; j < nf; j++)
        if (keep[j]) {
            tsr_buf_puts(pb, any ? ", " : " {");
            tsr_buf_append(pb, f0[j], fn[j]);
            any = true;
        }
    if (any)
        tsr_buf_puts(pb, "}");
    else if (pb->data)
        pb->data[at] = 0;
}

/* Puts after the part text pb holds the overrides of the bundle's ov (` {f=v, g=w}`) that the part needs: each field
 * is left out in turn, for good when the part assembles without it to an instruction of the same meaning as with
 * all of them (tsr_pack_same_meaning).  So a field of the word that no op of the part owns (a store unit's address
 * where the part stores nothing: bits the decoder kept and the disassembler printed as an override) is not written
 * on the part's line, while a field that changes what the part does stays.  ov as it is when the part with all of
 * them does not assemble. */
static void needed_overrides(const struct tsr_target *t, struct tsr_buf *pb, const char *ov)
{
    size_t at = pb->len;
    tsr_buf_puts(pb, ov);
    uint32_t all[TSR_PACK_MAX_NWORDS], w[TSR_PACK_MAX_NWORDS];
    const char *open = strchr(ov, '{'), *close = open ? strrchr(open, '}') : NULL;
    if (!close || t->assemble_one(pb->data, pb->len, 0, all, NULL, 0))
        return;
    /* the fields: [f0, f0 + fn) ..., split at the commas */
    const char *f0[32];
    size_t fn[32];
    int nf = 0;
    for (const char *p = open + 1; p < close && nf < 32;) {
        const char *c = memchr(p, ',', (size_t)(close - p));
        const char *e = c ? c : close;
        while (p < e && *p == ' ')
            p++;
        f0[nf] = p;
        fn[nf++] = (size_t)(e - p);
        p = c ? c + 1 : close;
    }
    if (nf == 32)
        return;
    bool keep[32];
    for (int i = 0; i < nf; i++)
        keep[i] = true;
    for (int i = 0; i < nf; i++) {
        keep[i] = false;
        put_overrides(pb, at, f0, fn, keep, nf);
        if (!pb->data || t->assemble_one(pb->data, pb->len, 0, w, NULL, 0) || !tsr_pack_same_meaning(t, all, w))
            keep[i] = true;
    }
    put_overrides(pb, at, f0, fn, keep, nf);
}

/* The text of the bundle's parts a and b alone (each at its position, the idle texts before them, the bundle's
 * overrides), canonical when that assembles to the same words (as split_bundle prints a part); NULL if it does
 * not assemble. */
static char *pair_text(const struct tsr_target *t, const char *ov, unsigned format, const char *const *raw,
                       const size_t *rawn, const int *rpos, int a, int b, uint32_t *w)
{
    struct tsr_buf pb = { 0 };
    int hi = rpos[a] > rpos[b] ? rpos[a] : rpos[b];
    for (int q = 0; q <= hi; q++) {
        if (q)
            tsr_buf_puts(&pb, "; ");
        if (q == rpos[a] || q == rpos[b]) {
            int x = q == rpos[a] ? a : b;
            tsr_buf_append(&pb, raw[x], rawn[x]);
            continue;
        }
        const char *idle = tsr_pack_idle_at(t, format, (unsigned)q);
        if (!idle) {
            tsr_buf_free(&pb);
            return NULL;
        }
        tsr_buf_puts(&pb, idle);
    }
    if (ov)
        needed_overrides(t, &pb, ov);
    char *r = NULL, *full = NULL;
    if (!t->assemble_one(pb.data, pb.len, 0, w, NULL, 0)) {
        r = tsr_pack_canon(t, w, &full);
        if (!r)
            r = full;
        else
            free(full);
    }
    tsr_buf_free(&pb);
    return r;
}

/* A part that only modifies the others (modifier(): an instruction's options, docs/pack.md "Unbundling") would
 * lose what it does if it stood alone, and the part it modifies would do something else alone.  So it goes with
 * the first other part with which the split still does what the bundle does (tsr_pack_merge_same: the generated
 * simulator runs the bundle and the parts alone); one that also ends the program or branches stays alone when the
 * split does the same without grouping.  No such grouping: *ok false (the bundle stays whole).  Returns the new
 * number of parts (parts, raw and info updated: the group takes the other part's place). */
static int group_modifiers(const struct tsr_target *t, const char *text, const char *ov, unsigned format,
                           char **parts, const char **raw, size_t *rawn, int *rpos, struct tsr_pack_ev *info, int k,
                           bool *ok)
{
    int m = -1;
    for (int i = 0; i < k && m < 0; i++)
        if (modifier(&info[i]))
            m = i;
    if (m < 0)
        return k;
    uint32_t bw[TSR_PACK_MAX_NWORDS], pw[8][TSR_PACK_MAX_NWORDS];
    const uint32_t *pp[8];
    if (t->assemble_one(text, strlen(text), 0, bw, NULL, 0)) {
        *ok = false;
        return k;
    }
    for (int i = 0; i < k; i++) {
        if (t->assemble_one(parts[i], strlen(parts[i]), 0, pw[i], NULL, 0)) {
            *ok = false;
            return k;
        }
        pp[i] = pw[i];
    }
    if (info[m].ctl != TSR_PACK_CTL_NONE && tsr_pack_merge_same(t, bw, pp, k))
        return k;
    for (int j = 0; j < k; j++) {
        if (j == m)
            continue;
        uint32_t gw[TSR_PACK_MAX_NWORDS];
        char *g = pair_text(t, ov, format, raw, rawn, rpos, m, j, gw);
        if (!g)
            continue;
        const uint32_t *qq[8];
        int nq = 0;
        for (int i = 0; i < k; i++)
            if (i != m)
                qq[nq++] = i == j ? gw : pw[i];
        if (!tsr_pack_merge_same(t, bw, qq, nq)) {
            free(g);
            continue;
        }
        /* the group replaces part j; part m goes */
        free(parts[j]);
        parts[j] = g;
        tsr_pack_ev_free(&info[j]);
        memset(&info[j], 0, sizeof info[j]);
        tsr_pack_ev_init(t, gw, &info[j]);
        free(parts[m]);
        tsr_pack_ev_free(&info[m]);
        for (int i = m; i + 1 < k; i++) {
            parts[i] = parts[i + 1];
            raw[i] = raw[i + 1];
            rawn[i] = rawn[i + 1];
            rpos[i] = rpos[i + 1];
            info[i] = info[i + 1];
        }
        memset(&info[k - 1], 0, sizeof info[k - 1]);
        return k - 1;
    }
    if (!tsr_pack_merge_same(t, bw, pp, k))
        *ok = false;
    return k;
}

/* Whether the k parts, each assembled alone, side by side do what the bundle text does (tsr_pack_merge_same). */
static bool split_same(const struct tsr_target *t, const char *text, char *const *parts, int k)
{
    uint32_t bw[TSR_PACK_MAX_NWORDS], pw[8][TSR_PACK_MAX_NWORDS];
    const uint32_t *pp[8];
    if (t->assemble_one(text, strlen(text), 0, bw, NULL, 0))
        return false;
    for (int i = 0; i < k; i++) {
        if (t->assemble_one(parts[i], strlen(parts[i]), 0, pw[i], NULL, 0))
            return false;
        pp[i] = pw[i];
    }
    return tsr_pack_merge_same(t, bw, pp, k);
}

/* Splits the text of one instruction into separately assembled parts in a valid order.  Returns the
 * number of lines appended (1 = kept whole). */
static int split_bundle(const struct tsr_target *t, const char *text, struct tsr_buf *out,
                        bool *pinned)
{
    *pinned = false;
    char *parts[8];
    const char *raw[8];   /* each part's text in the bundle, rawn[i] bytes, at position rpos[i] */
    size_t rawn[8];
    int rpos[8];
    int k = 0;
    const char *p = text;
    /* Each part keeps its position in the bundle (`nop; ` before it) and the bundle's field overrides
     * (`{ws=1}`, docs/asm.md), so it encodes the same op in the same slot with the same fields; it is
     * printed in its short canonical form only when that assembles to the very same words (a `mov r0.8a, r0`
     * alone goes to the add ALU with the regfile-A pack, not to the mul ALU with the colour pack). */
    const char *ov = strstr(text, " {");
    size_t body = ov ? (size_t)(ov - text) : strlen(text);
    int pos = 0;
    bool bad = false;
    /* the bundle's format: the idle texts that keep the positions before a part are its slots' (pack_idle.c) */
    unsigned format = TSR_NO_FORMAT;
    {
        uint32_t bw[TSR_PACK_MAX_NWORDS];
        void *inst = calloc(1, t->inst_size);
        if (!inst)
            abort();
        if (!t->assemble_one(text, strlen(text), 0, bw, NULL, 0) && !t->decode(bw, inst))
            format = t->inst_format(inst);
        free(inst);
    }
    if (!ov || !strchr(ov + 2, '{'))
        while (p < text + body && k < 8) {
            const char *e = strstr(p, "; ");
            if (e && e > text + body)
                e = NULL;
            size_t n = e ? (size_t)(e - p) : (size_t)(text + body - p);
            if (!tsr_pack_idle_text(t, p, n)) {
                struct tsr_buf pb = { 0 };
                for (int q = 0; q < pos; q++) {
                    const char *idle = tsr_pack_idle_at(t, format, (unsigned)q);
                    if (!idle && tsr_pack_idle_bundle(t)) {
                        bad = true;
                        break;
                    }
                    if (!idle || !*idle) {   /* a target whose idle ops print nothing (its ops name their slots):
                                              * no text keeps a position, the part stands alone */
                        tsr_buf_clear(&pb);
                        break;
                    }
                    tsr_buf_puts(&pb, idle);
                    tsr_buf_puts(&pb, "; ");
                }
                tsr_buf_append(&pb, p, n);
                if (ov)
                    needed_overrides(t, &pb, ov);
                uint32_t pw[TSR_PACK_MAX_NWORDS], sw[TSR_PACK_MAX_NWORDS];
                char *full = NULL, *canon = NULL;
                if (!t->assemble_one(pb.data, pb.len, 0, pw, NULL, 0)) {
                    canon = tsr_pack_canon(t, pw, &full);
                    /* the short form alone (other slot, other encoding) when it means the same */
                    if (!canon && !ov && !t->assemble_one(p, n, 0, sw, NULL, 0) && tsr_pack_same_meaning(t, pw, sw)) {
                        char *f2 = NULL;
                        canon = tsr_pack_canon(t, sw, &f2);
                        free(f2);
                    }
                } else {
                    bad = true;
                }
                raw[k] = p;
                rawn[k] = n;
                rpos[k] = pos;
                parts[k++] = canon ? canon : full ? full : strdup(pb.data);
                if (canon)
                    free(full);
                tsr_buf_free(&pb);
            }
            pos++;
            p = e ? e + 2 : text + body;
        }
    if (bad) {   /* a part that cannot stand alone: the bundle stays whole */
        for (int i = 0; i < k; i++)
            free(parts[i]);
        *pinned = true;
        tsr_buf_printf(out, "    %s\n", text);
        return 1;
    }
    /* In one bundle every read sees the state before the bundle; in sequence a later part sees what an
     * earlier one did.  An order of the parts means the same if no later part depends on an earlier one by
     * more than sharing a bundle (tsr_pack_dep <= 0). */
    struct tsr_pack_ev info[8];
    memset(info, 0, sizeof info);
    bool ok = true;
    for (int i = 0; i < k && ok; i++) {
        uint32_t pw[TSR_PACK_MAX_NWORDS];
        if (t->assemble_one(parts[i], strlen(parts[i]), 0, pw, NULL, 0))
            ok = false;
        else
            tsr_pack_ev_init(t, pw, &info[i]);
    }
    /* (the format's own deferred reads, which every part has, are no part's: a load unit that loads whether used
     * or not is read only by a later instruction's source at an age, X6; kept, they would order every write of
     * the element after every other part) */
    for (int i = 0; i < k && ok; i++)
        tsr_pack_ev_drop_format_deferred(&info[i]);
    if (ok && k >= 2)
        k = group_modifiers(t, text, ov, format, parts, raw, rawn, rpos, info, k, &ok);
    /* The parts must do together what the bundle does, else it stays whole: a part that changes what the others
     * do but also reads something is no modifier() (a part that sets a saturation option for the others and
     * exports to an index read from a register: alone, its saturation applies to no op, and the ops alone are not
     * saturated; docs/pack.md "Unbundling"). */
    if (ok && k >= 2 && !split_same(t, text, parts, k))
        ok = false;
    int perm[8];
    for (int i = 0; i < k; i++)
        perm[i] = i;
    bool found = false;
    if (ok) {
        /* try every order (k <= 3 in practice) */
        int c[8] = { 0 };
        for (int it = 0;; it++) {
            bool good = true;
            for (int i = 0; i < k && good; i++)
                for (int j = i + 1; j < k && good; j++) {
                    if (tsr_pack_dep(t->vdesc, &info[perm[i]], &info[perm[j]]) > 0 ||
                        (info[perm[i]].ctl != TSR_PACK_CTL_NONE && info[perm[j]].ctl == TSR_PACK_CTL_NONE))
                        good = false;   /* the later part would see the earlier one's effect, or follow a branch or
                                         * end (which the caller prints last) */
                }
            if (good) {
                found = true;
                break;
            }
            /* next permutation (Heap's algorithm, iterative) */
            int i = 1;
            while (i < k && c[i] >= i) {
                c[i] = 0;
                i++;
            }
            if (i >= k)
                break;
            int s = (i % 2) ? c[i] : 0;
            int tmp = perm[s]; perm[s] = perm[i]; perm[i] = tmp;
            c[i]++;
        }
    }
    for (int i = 0; i < k; i++)
        tsr_pack_ev_free(&info[i]);
    if (found) {
        for (int i = 0; i < k; i++)
            tsr_buf_printf(out, "    %s\n", parts[perm[i]]);
    } else {
        *pinned = true;
        tsr_buf_printf(out, "    %s\n", text);
    }
    for (int i = 0; i < k; i++)
        free(parts[i]);
    return found ? k : 1;
}

#define MAXKEPT 24   /* delay-slot operations kept after their control operation, at most (then all stay) */

static int unbundle(const struct tsr_target *t, const char *path, const uint32_t *w, const unsigned *line, size_t n,
                    uint64_t base, struct tsr_buf *out, unsigned *pinned, struct tsr_diag *d);

int tsr_unbundle(const struct tsr_target *t, const char *path, const uint32_t *w, const unsigned *line, size_t n,
                 uint64_t base, struct tsr_buf *out, unsigned *pinned, struct tsr_diag *d)
{
    if (!t->text || !t->text->syntax || !t->text->syntax->bundle_end)
        return unbundle(t, path, w, line, n, base, out, pinned, d);
    /* a declared source syntax: each operation's line (indented; `.delay` kept in front) in it */
    struct tsr_buf o = { 0 };
    int rc = unbundle(t, path, w, line, n, base, &o, pinned, d);
    for (size_t i = 0; !rc && i < o.len;) {
        const char *p = o.data + i, *e = memchr(p, '\n', o.len - i);
        size_t len = e ? (size_t)(e - p) : o.len - i;
        if (len > 4 && !memcmp(p, "    ", 4)) {
            size_t skip = 4 + (len >= 11 && !memcmp(p + 4, ".delay ", 7) ? 7 : 0);
            tsr_buf_append(out, p, skip);
            tsr_pack_decl_text(t, p + skip, len - skip, out);
        } else {
            tsr_buf_append(out, p, len);
        }
        tsr_buf_puts(out, "\n");
        i += len + 1;
    }
    tsr_buf_free(&o);
    return rc;
}

static int unbundle(const struct tsr_target *t, const char *path, const uint32_t *w, const unsigned *line, size_t n,
                    uint64_t base, struct tsr_buf *out, unsigned *pinned, struct tsr_diag *d)
{
    if (tsr_pack_target_ok(t, path, d))
        return -1;
    /* The program's text with labels, split into per-instruction lines.  With a declared source syntax (a bundle
     * over lines up to its end, docs/asm.md) the program printer prints a bundle over lines: there the label lines
     * come from it (a bundle ends at a line that is the bundle end), and each instruction's text is its one-line
     * disassembly (the default syntax, parts separated by "; "), which the output gives back in the declared
     * syntax (tsr_pack_decl_text). */
    const char *bend = t->text && t->text->syntax ? t->text->syntax->bundle_end : NULL;
    struct tsr_buf dis = { 0 };
    t->disasm_program(w, n, base, &dis);
    char **itext = calloc(n + 1, sizeof *itext);
    char **ilabels = calloc(n + 1, sizeof *ilabels);
    struct tsr_buf lab = { 0 };
    size_t ii = 0;
    for (char *p = dis.data; p && *p;) {
        char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        size_t lead = strspn(p, " \t");
        if (bend) {
            if (lead < len && len - lead == strlen(bend) && !memcmp(p + lead, bend, len - lead)) {
                if (ii < n) {
                    struct tsr_buf one = { 0 };
                    t->disasm(w + ii * t->nwords, base + ii * t->pc_step, &one);
                    itext[ii] = strdup(one.data ? one.data : "");
                    tsr_buf_free(&one);
                    ilabels[ii] = lab.len ? strdup(lab.data) : NULL;
                    ii++;
                }
                tsr_buf_clear(&lab);
            } else if (!lead && len && p[len - 1] == ':') {
                tsr_buf_append(&lab, p, len);
                tsr_buf_puts(&lab, "\n");
            }
        } else if (len > 4 && !memcmp(p, "    ", 4)) {
            if (ii < n) {
                itext[ii] = strndup(p + 4, len - 4);
                ilabels[ii] = lab.len ? strdup(lab.data) : NULL;
                ii++;
            }
            tsr_buf_clear(&lab);
        } else if (len) {
            tsr_buf_append(&lab, p, len);
            tsr_buf_puts(&lab, "\n");
        }
        p = e ? e + 1 : p + len;
    }
    unsigned np = 0;
    int rc = 0;
    size_t nw = t->nwords;
    /* a target whose sources name forwarded values by age: each instruction's operations are collected, then
     * written with value names (pack_names.c, docs/pack.md "Values through forwards") */
    struct tsr_buf *ib = t->vdesc && t->vdesc->nfwdtexts > 0 ? calloc(n + 1, sizeof *ib) : NULL;
    bool *done = calloc(n + 1, 1);
    for (size_t i = 0; i < n && !rc; i++) {
        if (done[i])
            continue;
        struct tsr_buf *dst = ib ? &ib[i] : out;   /* (with value names: per instruction, named below) */
        if (ilabels[i])
            tsr_buf_puts(dst, ilabels[i]);
        struct tsr_pack_ev ci = { 0 };
        tsr_pack_ev_init(t, w + i * nw, &ci);
        tsr_pack_ev_free(&ci);
        bool pin = false;
        if (ci.ctl == TSR_PACK_CTL_JUMP || ci.ctl == TSR_PACK_CTL_END) {
            /* The control bundle's other parts first (a thread end is a signal beside ALU ops), then its delay
             * slots (they execute whether or not the branch is taken, after the bundle), then the control
             * operation alone.  A delay slot may move before the control operation when it does not depend on
             * it (on the signal alone, not on the ALU ops of its bundle, which stay before it). */
            struct tsr_buf sb = { 0 };
            const uint32_t *cw = w + i * nw;
            uint32_t sw[TSR_PACK_MAX_NWORDS];
            char *ctext = NULL;
            if (ci.ctl == TSR_PACK_CTL_END && strchr(itext[i], ';')) {
                split_bundle(t, itext[i], &sb, &pin);
                np += pin;
                /* the last line is the signal (or the whole bundle, pinned) */
                size_t end = sb.len, st = end;
                while (st > 0 && sb.data[st - 1] == '\n')
                    st--;
                while (st > 0 && sb.data[st - 1] != '\n')
                    st--;
                ctext = strndup(sb.data + st, end - st);
                sb.len = st;
                const char *p = ctext + strspn(ctext, " ");
                size_t l = strcspn(p, "\n");
                if (!pin && !t->assemble_one(p, l, 0, sw, NULL, 0))
                    cw = sw;
            }
            tsr_buf_append(dst, sb.data, sb.len);
            tsr_buf_free(&sb);
            /* A delay slot runs after the control operation has read its operands (the flags a branch
             * tests, its target).  Each of its operations that does not depend on it, nor on an earlier one kept
             * after it, moves before it; the others stay after it as `.delay` operations, in their order, and the
             * packer keeps them in the delay slots (a slot that sets the flags its branch tests, and the
             * operations that read those flags: GPU_FFT releases 1 and 2). */
            struct tsr_buf after = { 0 };
            size_t e = i + 1 + (size_t)ci.delay, nkept = 0;
            uint32_t kept[MAXKEPT][TSR_PACK_MAX_NWORDS];   /* the words of the operations that stay, alone */
            for (size_t j = i + 1; j < e && j < n; j++) {
                struct tsr_pack_ev di = { 0 };
                tsr_pack_ev_init(t, w + j * nw, &di);
                tsr_pack_ev_free(&di);
                if (ilabels[j] || di.ctl != TSR_PACK_CTL_NONE) {
                    size_t at = ilabels[j] ? j : i;
                    rc = tsr_diag_error(d, path, line ? line[at] : 0, line && line[at] ? 1 : 0,
                                        "instruction 0x%llx: delay slot 0x%llx %s",
                                        (unsigned long long)(base + i * t->pc_step),
                                        (unsigned long long)(base + j * t->pc_step),
                                        ilabels[j] ? "is a branch target (a label inside delay slots)"
                                                   : "holds a branch or thread end");
                    break;
                }
                /* operation by operation, in the order split_bundle gives them */
                struct tsr_buf sp = { 0 };
                split_bundle(t, itext[j], &sp, &pin);
                np += pin;
                done[j] = true;
                for (size_t o = 0; o < sp.len;) {
                    const char *lp = sp.data + o, *le = memchr(lp, '\n', sp.len - o);
                    size_t len = le ? (size_t)(le - lp) + 1 : sp.len - o;
                    const char *op = lp + strspn(lp, " ");
                    uint32_t ow[TSR_PACK_MAX_NWORDS];
                    const uint32_t *opw = ow;
                    if (t->assemble_one(op, strcspn(op, "\n"), 0, ow, NULL, 0))
                        opw = w + j * nw;   /* (split_bundle's lines assemble; else the whole slot's accesses) */
                    bool stay = nkept == MAXKEPT || dep_words(t, cw, opw) >= 0 || dep_words(t, opw, cw) > 0;
                    for (size_t k = 0; k < nkept && !stay; k++)
                        stay = dep_words(t, kept[k], opw) >= 0;
                    if (stay) {
                        tsr_buf_printf(&after, "    .delay %.*s\n", (int)strcspn(op, "\n"), op);
                        if (nkept < MAXKEPT)   /* (past MAXKEPT, every later operation stays too) */
                            memcpy(kept[nkept++], opw, nw * sizeof *opw);
                    } else {
                        tsr_buf_append(dst, lp, len);
                    }
                    o += len;
                }
                tsr_buf_free(&sp);
            }
            if (!rc) {
                if (ctext) {
                    tsr_buf_puts(dst, ctext);
                } else {
                    tsr_buf_printf(dst, "    %s\n", itext[i]);
                    np += strstr(itext[i], "; ") != NULL;   /* a branch bundle with other parts: kept whole */
                }
                tsr_buf_append(dst, after.data, after.len);
            }
            tsr_buf_free(&after);
            free(ctext);
            if (rc)
                break;
            continue;
        }
        split_bundle(t, itext[i], dst, &pin);
        np += pin;
    }
    if (ib) {
        if (!rc) {
            /* the groups it writes one part a line are no longer kept whole */
            unsigned nsplit = tsr_pack_name_values(t, ib, n, out);
            np = nsplit < np ? np - nsplit : 0;
        }
        for (size_t i = 0; i < n; i++)
            tsr_buf_free(&ib[i]);
        free(ib);
    }
    if (pinned)
        *pinned = np;
    for (size_t i = 0; i < n; i++) {
        free(itext[i]);
        free(ilabels[i]);
    }
    free(itext);
    free(ilabels);
    free(done);
    tsr_buf_free(&lab);
    tsr_buf_free(&dis);
    return rc;
}
