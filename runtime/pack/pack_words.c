/* The packer's questions to the target's assembler about single bundles (docs/pack.md "Algorithm"): the
 * answers to bundle texts, cached.  Nothing here knows the target. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include "pack_int.h"
#include "tls.h"
#include "target.h"
#include "text/textcodec.h"

/* The assembler's answers to bundle texts already tried: a direct-mapped cache keyed by a 128-bit XXH3 hash
 * of the target and the text.  The list scheduler tries the same bundle for a unit in each of its
 * priorities, and the search and the bound ask for the same pairs again.  Allocated on first use (per
 * thread; the first thread's is freed at exit). */
#define ACACHE 65536
struct aent { XXH128_hash_t key; int rc; uint32_t w[4]; };
static _Thread_local struct aent *acache;
static void *acache_first;   /* the first thread's (tsr_thread_table), freed at exit */

static void acache_free(void)
{
    free(acache_first);
    acache_first = NULL;
}

/* (pack_int.h) */
int tsr_pack_assemble_cached(const struct tsr_target *t, const char *text, size_t len, uint32_t *w)
{
    if (t->nwords > 4)
        return t->assemble_one(text, len, 0, w, NULL, 0);
    static atomic_flag registered = ATOMIC_FLAG_INIT;
    if (!acache)
        acache = tsr_thread_table(ACACHE, sizeof *acache, &registered, &acache_first, acache_free);
    XXH128_hash_t k = XXH3_128bits_withSeed(text, len, (XXH64_hash_t)(uintptr_t)t);
    if (!k.low64 && !k.high64)
        k.low64 = 1;   /* (the empty entry's key) */
    struct aent *e = &acache[k.low64 % ACACHE];
    if (XXH128_isEqual(e->key, k)) {
        memcpy(w, e->w, t->nwords * 4);
        return e->rc;
    }
    int rc = t->assemble_one(text, len, 0, w, NULL, 0);
    e->key = k;
    e->rc = rc;
    memcpy(e->w, w, t->nwords * 4);
    return rc;
}

/* ---- joining a bundle ------------------------------------------------------------------------------ */

/* (pack_int.h) */
void tsr_pack_join_text(struct tsr_buf *b, struct tsr_buf *ov, const char *const *parts, int k, const char *add,
                        int pos)
{
    tsr_buf_clear(b);
    tsr_buf_clear(ov);
    for (int i = 0, j = 0; i <= k; i++) {
        const char *s = i == pos ? add : parts[j++];
        const char *o = strstr(s, " {");
        if (i)
            tsr_buf_puts(b, "; ");
        tsr_buf_append(b, s, o ? (size_t)(o - s) : strlen(s));
        if (o) {
            size_t ol = strlen(o + 2);
            if (ol && o[2 + ol - 1] == '}')
                ol--;
            tsr_buf_puts(ov, ov->len ? ", " : "");
            tsr_buf_append(ov, o + 2, ol);
        }
    }
    if (ov->len)
        tsr_buf_printf(b, " {%s}", ov->data);
}

/* (pack_int.h) */
void tsr_pack_decl_text(const struct tsr_target *t, const char *s, size_t n, struct tsr_buf *out)
{
    const struct tsr_tc_syntax *sx = t->text ? t->text->syntax : NULL;
    if (!sx || !sx->bundle_end) {
        tsr_buf_append(out, s, n);
        return;
    }
    /* the parts joined by a blank (the front end starts a part at each op's mnemonic), outside `{ }` */
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '{')
            depth++;
        else if (s[i] == '}' && depth > 0)
            depth--;
        if (!depth && s[i] == ';' && i + 1 < n && s[i + 1] == ' ') {
            tsr_buf_puts(out, " ");
            i++;
            continue;
        }
        tsr_buf_append(out, s + i, 1);
    }
    tsr_buf_puts(out, sx->bundle_end);
}

/* TESSERA_PACK_VERIFY: the pre-test refused the bundle; the assembler must refuse it at every position. */
static void verify_refused(const struct tsr_target *t, const char *const *parts, int k, const char *add)
{
    struct tsr_buf b = { 0 }, ov = { 0 };
    uint32_t w[TSR_PACK_MAX_NWORDS];
    for (int pos = 0; pos <= k; pos++) {
        tsr_pack_join_text(&b, &ov, parts, k, add, pos);
        if (!t->assemble_one(b.data, b.len, 0, w, NULL, 0)) {
            fprintf(stderr, "tessera: TESSERA_PACK_VERIFY: the legality pre-test refused '%s', which assembles\n",
                    b.data);
            abort();
        }
    }
    tsr_buf_free(&b);
    tsr_buf_free(&ov);
}

/* The scratch texts of tsr_pack_try_merge_at, kept per thread (a candidate bundle's text was two allocations
 * and two frees); the first thread's are freed at exit. */
struct jbufs { struct tsr_buf b, ov; };
static _Thread_local struct jbufs *jb;
static void *jb_first;

static void jb_free(void)
{
    struct jbufs *j = jb_first;
    if (j) {
        tsr_buf_free(&j->b);
        tsr_buf_free(&j->ov);
    }
    free(jb_first);
    jb_first = NULL;
}

/* (pack_int.h) */
int tsr_pack_try_merge_at(const struct tsr_target *t, const char **parts, const uint32_t **pw, int k, const char *add,
                          const uint32_t *addw, uint32_t *w, uint64_t at)
{
    if (!tsr_pack_legal_may(t, parts, k, add)) {
        if (tsr_pack_legal_verify())
            verify_refused(t, parts, k, add);
        return 0;
    }
    static atomic_flag registered = ATOMIC_FLAG_INIT;
    if (!jb)
        jb = tsr_thread_table(1, sizeof *jb, &registered, &jb_first, jb_free);
    for (int pos = 0; pos <= k; pos++) {
        if (pos < 64 && !(at >> pos & 1))
            continue;
        tsr_pack_join_text(&jb->b, &jb->ov, parts, k, add, pos);
        if (!tsr_pack_assemble_cached(t, jb->b.data, jb->b.len, w)) {
            const uint32_t *all[TSR_PACK_MAXPARTS];
            for (int i = 0, j = 0; i <= k; i++)
                all[i] = i == pos ? addw : pw[j++];
            if (!tsr_pack_merge_same(t, w, all, k + 1))
                continue;
            memmove(parts + pos + 1, parts + pos, (size_t)(k - pos) * sizeof *parts);
            memmove(pw + pos + 1, pw + pos, (size_t)(k - pos) * sizeof *pw);
            parts[pos] = add;
            pw[pos] = addw;
            return 1;
        }
    }
    return 0;
}

int tsr_pack_try_merge(const struct tsr_target *t, const char **parts, const uint32_t **pw, int k, const char *add,
                       const uint32_t *addw, uint32_t *w)
{
    return tsr_pack_try_merge_at(t, parts, pw, k, add, addw, w, ~(uint64_t)0);
}

/* ---- the order of a bundle's parts ---------------------------------------------------------------- */

/* Per format of the target's text tables, its slots in issue order (the order an assembler gives the parts of
 * a bundle's text: each part goes to a slot after the one before it; runtime/text/asm_engine.c bundle_part).
 * Worked out once per target (per thread). */
struct fmt_tab { const struct tsr_tc_isa *isa; unsigned nf; uint32_t *first, *n; uint8_t *slot; };
static _Thread_local struct fmt_tab fmts;
static struct fmt_tab fmts_first;   /* the first thread's, freed at exit */

static void fmt_free(struct fmt_tab *f)
{
    free(f->first);
    free(f->n);
    free(f->slot);
}

static void fmts_free(void)
{
    fmt_free(&fmts_first);
}

static const struct fmt_tab *fmt_tab(const struct tsr_tc_isa *isa)
{
    if (fmts.isa == isa)
        return &fmts;
    static atomic_flag registered = ATOMIC_FLAG_INIT;
    bool first = fmts.isa && fmts.first == fmts_first.first;
    fmt_free(&fmts);
    fmts.isa = isa;
    fmts.nf = isa->nformats;
    fmts.first = calloc(fmts.nf + 1, sizeof *fmts.first);
    fmts.n = calloc(fmts.nf + 1, sizeof *fmts.n);
    size_t tot = 0;
    for (unsigned f = 0; f < fmts.nf; f++)
        tot += isa->formats[f].nslot;
    fmts.slot = calloc(tot + 1, sizeof *fmts.slot);
    if (!fmts.first || !fmts.n || !fmts.slot)
        abort();
    tot = 0;
    for (unsigned f = 0; f < fmts.nf; f++) {
        fmts.first[f] = (uint32_t)tot;
        for (uint32_t x = 0; x < isa->formats[f].nslot; x++) {
            unsigned sl = isa->idx[isa->formats[f].slot + x];
            fmts.slot[tot + fmts.n[f]++] = (uint8_t)(sl < 64 ? sl : 64);   /* (64: a slot no mask names) */
        }
        tot += fmts.n[f];
    }
    /* the first thread's tables are freed at exit (first: this thread's old ones were) */
    if (first || !atomic_flag_test_and_set(&registered)) {
        if (!first)
            atexit(fmts_free);
        fmts_first = fmts;
    }
    return &fmts;
}

#define OMEMO 4096
/* tsr_pack_order_positions's answers, per thread: a direct-mapped table keyed by the isa and the masks (an
 * empty entry's isa is NULL), allocated on first use (tls.h); the first thread's is freed at exit. */
struct opos { const struct tsr_tc_isa *isa; int k; uint64_t m[TSR_PACK_MAXPARTS + 1], ok; };
static _Thread_local struct opos *omemo;
static void *omemo_first;

static void omemo_free(void)
{
    free(omemo_first);
    omemo_first = NULL;
}

/* (pack_int.h) */
uint64_t tsr_pack_order_positions(const struct tsr_target *t, const uint64_t *cand, int k, uint64_t add)
{
    if (k >= 63 || !t->text)
        return ~(uint64_t)0;
    for (int i = 0; i < k; i++)
        if (!cand[i])
            return ~(uint64_t)0;
    const struct fmt_tab *F = fmt_tab(t->text);
    /* the answers are kept per thread (the list scheduler asks the same about each ready unit, cycle after
     * cycle): omemo */
    struct opos *e = NULL;
    if (k < TSR_PACK_MAXPARTS) {
        static atomic_flag registered = ATOMIC_FLAG_INIT;
        if (!omemo)
            omemo = tsr_thread_table(OMEMO, sizeof *omemo, &registered, &omemo_first, omemo_free);
        uint64_t h = (uint64_t)(uintptr_t)t->text ^ (uint64_t)k;
        for (int i = 0; i < k; i++)
            h = (h ^ cand[i]) * 0x9e3779b97f4a7c15u;
        h = (h ^ add) * 0x9e3779b97f4a7c15u;
        e = &omemo[(h >> 40) % OMEMO];
        if (e->isa == t->text && e->k == k && e->m[k] == add && !memcmp(e->m, cand, (size_t)k * sizeof *cand))
            return e->ok;
    }
    uint64_t ok = 0;
    for (int pos = 0; pos <= k; pos++)
        for (unsigned f = 0; f < F->nf && !(ok >> pos & 1); f++) {
            const uint8_t *sl = F->slot + F->first[f];
            uint32_t ns = F->n[f], at = 0;
            bool fits = true;
            for (int i = 0, j = 0; i <= k && fits; i++) {
                uint64_t c = i == pos ? add : cand[j++];
                while (at < ns && (sl[at] >= 64 || !(c >> sl[at] & 1)))
                    at++;
                fits = at < ns;
                at++;
            }
            ok |= (uint64_t)fits << pos;
        }
    if (e) {
        e->isa = t->text;
        e->k = k;
        memcpy(e->m, cand, (size_t)k * sizeof *cand);
        e->m[k] = add;
        e->ok = ok;
    }
    return ok;
}
