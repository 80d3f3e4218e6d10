/* Bundles whose printed text is known to mean their words (docs/pack.md "Algorithm", step 5): the check of
 * the whole output (pack_emit.c) takes such a bundle's words as they are instead of assembling its text
 * again.  Nothing here knows the target. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include "pack_int.h"
#include "target.h"
#include "tls.h"

static bool id_start(int c) { return c == '_' || c == '.' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool id_char(int c) { return id_start(c) || (c >= '0' && c <= '9'); }

static uint64_t hash_str(const char *s, size_t n)
{
    return XXH3_64bits(s, n) | 1;   /* (0: an empty slot) */
}

/* (pack_int.h) */
void tsr_pack_rt_init(struct tsr_pack_rt *r, const struct tsr_target *t, const char *const *labels, size_t nlabels)
{
    memset(r, 0, sizeof *r);
    r->t = t;
    for (r->ncap = 16; r->ncap < 2 * nlabels + 2; r->ncap *= 2)
        ;
    r->names = calloc(r->ncap, sizeof *r->names);
    r->nlen = calloc(r->ncap, sizeof *r->nlen);
    r->nstr = calloc(r->ncap, sizeof *r->nstr);
    if (!r->names || !r->nlen || !r->nstr)
        abort();
    for (size_t i = 0; i < nlabels; i++) {
        size_t n = strlen(labels[i]);
        uint64_t h = hash_str(labels[i], n);
        size_t at = (size_t)(h >> 7) & (r->ncap - 1);
        while (r->names[at] && !(r->names[at] == h && r->nlen[at] == n && !memcmp(r->nstr[at], labels[i], n)))
            at = (at + 1) & (r->ncap - 1);
        r->names[at] = h;
        r->nlen[at] = n;
        r->nstr[at] = labels[i];
    }
}

void tsr_pack_rt_fini(struct tsr_pack_rt *r)
{
    free(r->names);
    free(r->nlen);
    free(r->nstr);
    free(r->seen);
    tsr_buf_free(&r->text);
}

/* Is the identifier s[0..n) one of the labels? */
static bool is_label(const struct tsr_pack_rt *r, const char *s, size_t n)
{
    uint64_t h = hash_str(s, n);
    for (size_t at = (size_t)(h >> 7) & (r->ncap - 1); r->names[at]; at = (at + 1) & (r->ncap - 1))
        if (r->names[at] == h && r->nlen[at] == n && !memcmp(r->nstr[at], s, n))
            return true;
    return false;
}

/* What a word's disassembly decides whatever the program (per thread, for the last target): whether it
 * assembles alone back to the words, and the hashes (hash_str) of its identifiers.  Direct-mapped by the words;
 * nid > RT_IDS: more identifiers than kept.  The first thread's is freed at exit (tls.h). */
#define RT_MEMO 4096
#define RT_IDS 10
struct rt_ent { const struct tsr_target *t; uint32_t w[4]; bool alone; uint8_t nid; uint64_t id[RT_IDS]; };
static _Thread_local struct rt_ent *rt_memo;
static void *rt_memo_first;

static void rt_memo_free(void)
{
    free(rt_memo_first);
    rt_memo_first = NULL;
}

/* Is the label set's hash h (hash_str) one of the labels'?  (Two names of different hashes differ.) */
static bool label_hash(const struct tsr_pack_rt *r, uint64_t h)
{
    for (size_t at = (size_t)(h >> 7) & (r->ncap - 1); r->names[at]; at = (at + 1) & (r->ncap - 1))
        if (r->names[at] == h)
            return true;
    return false;
}

/* Does the disassembly of w (key: the words, 4 with zeros past t->nwords) assemble, alone, back to w, and name
 * no label (an identifier the program's assembler could take for one)?  Then the program's assembler makes w
 * of it too: it reads a line that uses no symbol the same way wherever the line stands.  Through the thread's
 * memo: an identifier whose hash is no label's hash is no label; on a shared hash the names are compared. */
static bool round_trips(struct tsr_pack_rt *r, const uint32_t *w, const uint32_t *key)
{
    const struct tsr_target *t = r->t;
    static atomic_flag registered = ATOMIC_FLAG_INIT;
    if (!rt_memo)
        rt_memo = tsr_thread_table(RT_MEMO, sizeof *rt_memo, &registered, &rt_memo_first, rt_memo_free);
    struct rt_ent *e = &rt_memo[XXH3_64bits(key, 4 * sizeof *key) % RT_MEMO];
    if (e->t == t && !memcmp(e->w, key, sizeof e->w) && e->nid <= RT_IDS) {
        if (!e->alone)
            return false;
        bool shared = false;
        for (int k = 0; k < e->nid && !shared; k++)
            shared = label_hash(r, e->id[k]);
        if (!shared)
            return true;
    }
    tsr_buf_clear(&r->text);
    t->disasm(w, 0, &r->text);
    const char *s = r->text.data ? r->text.data : "";
    size_t n = r->text.len;
    uint32_t back[TSR_PACK_MAX_NWORDS] = { 0 };
    e->t = t;
    memcpy(e->w, key, sizeof e->w);
    e->nid = 0;
    e->alone = !tsr_pack_assemble_cached(t, s, n, back) && !memcmp(back, w, t->nwords * sizeof *w);
    bool named = false;
    for (size_t i = 0; i < n;) {
        if (!id_start((unsigned char)s[i]) || (i && id_char((unsigned char)s[i - 1]))) {
            i++;
            continue;
        }
        size_t j = i;
        while (j < n && id_char((unsigned char)s[j]))
            j++;
        if (e->nid <= RT_IDS) {
            if (e->nid < RT_IDS)
                e->id[e->nid] = hash_str(s + i, j - i);
            e->nid++;
        }
        named |= is_label(r, s + i, j - i);
        i = j;
    }
    return e->alone && !named;
}

/* (pack_int.h) */
bool tsr_pack_rt_known(struct tsr_pack_rt *r, const uint32_t *w)
{
    const struct tsr_target *t = r->t;
    if (t->nwords > 4)
        return false;
    /* the words already found to round-trip (an open-addressing set, grown at half full) */
    uint32_t key[4] = { 0 };
    memcpy(key, w, t->nwords * sizeof *w);
    if (2 * (r->nseen + 1) > r->cseen) {
        size_t cap = r->cseen ? 2 * r->cseen : 256;
        struct tsr_pack_rtw *s = calloc(cap, sizeof *s);
        if (!s)
            abort();
        for (size_t i = 0; i < r->cseen; i++)
            if (r->seen[i].used) {
                size_t at = (size_t)XXH3_64bits(r->seen[i].w, sizeof r->seen[i].w) & (cap - 1);
                while (s[at].used)
                    at = (at + 1) & (cap - 1);
                s[at] = r->seen[i];
            }
        free(r->seen);
        r->seen = s;
        r->cseen = cap;
    }
    size_t at = (size_t)XXH3_64bits(key, sizeof key) & (r->cseen - 1);
    while (r->seen[at].used && memcmp(r->seen[at].w, key, sizeof key))
        at = (at + 1) & (r->cseen - 1);
    if (!r->seen[at].used) {
        if (!round_trips(r, w, key))
            return false;
        r->seen[at].used = true;
        memcpy(r->seen[at].w, key, sizeof key);
        r->nseen++;
    }
    return true;
}
