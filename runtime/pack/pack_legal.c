/* The legality pre-test of candidate bundles (docs/pack.md "Algorithm", step 3): before the packer builds a
 * candidate bundle's text and asks the target's assembler, it asks whether the parts' matches can agree at
 * all.  Per part text, the assembler's matcher lists once every way the part matches alone (a path: format,
 * slot, and the fields it binds with their values: runtime/text/asm_paths.h); a bundle assembles only if some
 * choice of one path per part has one format, distinct slots and no field bound to two values.  Where slots
 * share read-address and signal fields this is what refuses most candidates: two reads of one register file
 * at different addresses, a small immediate against a register read through the same field, a load immediate
 * against an ALU op (the format), two signals.  The paths are a superset of those a whole bundle can use, so the test refuses only what the
 * assembler refuses; TESSERA_PACK_VERIFY=1 makes every refusal ask the assembler too and abort if it accepts.
 * Nothing here knows the target. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tls.h"
#include "pack_int.h"
#include "target.h"
#include "text/asm_paths.h"

/* The paths of part texts seen before, per thread: a two-way set-associative table of texts (the isa's, whose
 * paths the table holds), found by a hash and compared whole.  The first thread's is freed at exit. */
#define LMEMO 8192
struct lent {
    uint64_t h;                 /* the text's hash */
    uint32_t len, id;           /* its length; a number no other filling of an entry had (0: empty; the
                                   verdicts' key) */
    int np;                     /* paths; -1: not known (the test then assumes nothing) */
    struct tsr_asm_path *p;     /* np paths, then their values, fields and the text (NUL-terminated), in one
                                   allocation */
    const uint16_t *field;
    const uint64_t *val;
    const char *text;
};
/* Verdicts on sets of part texts (the ids of their entries, ascending), direct-mapped. */
#define VMEMO 16384
struct vent { uint32_t id[TSR_PACK_MAXPARTS]; uint8_t n; bool may; };
/* A front table by the text's address (the packer asks about the same unit texts over and over): where the
 * entry of the text last seen there is; a hit is still compared with the text (an address is reused). */
#define FRONT 1024
struct front { const char *s; struct lent *e; uint32_t id; };
struct lstate {
    const struct tsr_tc_isa *isa;   /* whose paths the table holds */
    uint32_t serial;                /* the last id given (a verdict names texts by id: 2^32 fillings, each a
                                       part's whole enumeration, before an id could come again) */
    struct front f[FRONT];
    struct vent v[VMEMO];
    struct tsr_asm *a;              /* the matcher's scratch for isa */
    struct tsr_asm_paths scratch;
    struct lent e[LMEMO];
};
static _Thread_local struct lstate *ls;
static void *ls_first;   /* the first thread's (tsr_thread_table), freed at exit */

static void ls_flush(struct lstate *s)
{
    for (size_t i = 0; i < LMEMO; i++) {
        free(s->e[i].p);
        memset(&s->e[i], 0, sizeof s->e[i]);
    }
    memset(s->v, 0, sizeof s->v);
    memset(s->f, 0, sizeof s->f);
    tsr_asm_paths_scratch_free(s->a);
    tsr_asm_paths_free(&s->scratch);
    s->a = NULL;
    s->isa = NULL;
}

static void ls_free(void)
{
    if (ls_first)
        ls_flush(ls_first);
    free(ls_first);
    ls_first = NULL;
}

/* A hash of s[0..n) (for the table's slot; texts are compared whole). */
static uint64_t text_hash(const char *s, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15u ^ n, x;
    for (; n >= 8; s += 8, n -= 8) {
        memcpy(&x, s, 8);
        h = (h ^ x) * 0xff51afd7ed558ccdu;
        h ^= h >> 29;
    }
    if (n) {
        x = 0;
        for (size_t i = 0; i < n; i++)
            x |= (uint64_t)(unsigned char)s[i] << 8 * i;
        h = (h ^ x) * 0xff51afd7ed558ccdu;
    }
    h ^= h >> 32;
    h *= 0xc4ceb9fe1a85ec53u;
    return h ^ h >> 29;
}

/* The entry of text s[0..n): its paths, listed now if they were not. */
static struct lent *paths_of(struct lstate *S, const char *s, size_t n)
{
    uint64_t h = text_hash(s, n);
    struct lent *e = &S->e[h % (LMEMO / 2) * 2];   /* two ways: e[0] the newer, e[1] the older */
    for (int w = 0; w < 2; w++)
        if (e[w].id && e[w].h == h && e[w].len == n && !memcmp(e[w].text, s, n))
            return &e[w];
    free(e[1].p);
    e[1] = e[0];
    memset(e, 0, sizeof *e);
    struct tsr_asm_paths *o = &S->scratch;
    int rc = n < UINT32_MAX ? tsr_asm_part_paths(S->a, s, n, o) : -1;
    if (rc < 0)
        o->n = o->nfix = 0;
    size_t bytes = o->n * sizeof *o->p + o->nfix * (sizeof *o->val + sizeof *o->field) + n;
    e->p = malloc(bytes + 1);
    if (!e->p)
        abort();
    uint64_t *val = (uint64_t *)(void *)(e->p + o->n);   /* (paths are 8-byte aligned: a uint64_t member) */
    uint16_t *field = (uint16_t *)(void *)(val + o->nfix);
    char *text = (char *)(field + o->nfix);
    if (o->n)   /* none listed: the scratch arrays may not exist yet (NULL, which memcpy must not get) */
        memcpy(e->p, o->p, o->n * sizeof *o->p);
    if (o->nfix) {
        memcpy(val, o->val, o->nfix * sizeof *val);
        memcpy(field, o->field, o->nfix * sizeof *field);
    }
    memcpy(text, s, n);
    text[n] = 0;
    e->val = val;
    e->field = field;
    e->text = text;
    e->np = rc < 0 ? -1 : (int)o->n;
    e->h = h;
    e->len = (uint32_t)n;
    e->id = ++S->serial ? S->serial : ++S->serial;   /* (0: empty) */
    return e;
}

/* Can path x of part A and path y of part B be in one bundle: one format, two slots, no field bound to two
 * values (both lists are in field order)? */
static bool agree(const struct lent *A, const struct tsr_asm_path *x, const struct lent *B, const struct tsr_asm_path *y)
{
    if (x->format != y->format || x->slot == y->slot)
        return false;
    if (!(x->sum & y->sum))
        return true;
    const uint16_t *fa = A->field + x->first, *fb = B->field + y->first;
    const uint64_t *va = A->val + x->first, *vb = B->val + y->first;
    for (uint32_t i = 0, j = 0; i < x->n && j < y->n;) {
        if (fa[i] < fb[j])
            i++;
        else if (fa[i] > fb[j])
            j++;
        else if (va[i++] != vb[j++])
            return false;
    }
    return true;
}

/* Is there a choice of one path per part E[d..m) that agrees with the chosen ch[0..d) and among itself?  True
 * too when the budget of paths tried runs out (nothing is then known). */
static bool choose(const struct lent *const *E, int m, int d, const struct tsr_asm_path **ch, int *budget)
{
    if (d == m)
        return true;
    const struct lent *e = E[d];
    for (int i = 0; i < e->np; i++) {
        const struct tsr_asm_path *p = &e->p[i];
        bool ok = true;
        for (int j = 0; j < d && ok; j++)
            ok = agree(E[j], ch[j], e, p);
        if (!ok)
            continue;
        if (--*budget < 0)
            return true;
        ch[d] = p;
        if (choose(E, m, d + 1, ch, budget))
            return true;
    }
    return false;
}

/* (pack_int.h) */
bool tsr_pack_legal_may(const struct tsr_target *t, const char *const *parts, int k, const char *add)
{
    if (!t->text || k + 1 > TSR_PACK_MAXPARTS)
        return true;
    static atomic_flag registered = ATOMIC_FLAG_INIT;
    if (!ls)
        ls = tsr_thread_table(1, sizeof *ls, &registered, &ls_first, ls_free);
    if (ls->isa != t->text) {
        ls_flush(ls);
        ls->isa = t->text;
        ls->a = tsr_asm_paths_scratch_new(t->text);
    }
    /* the parts' entries; two texts in one slot of the table (the second would replace the first): unknown */
    const struct lent *E[TSR_PACK_MAXPARTS];
    uint32_t K[TSR_PACK_MAXPARTS];
    int m = k + 1;
    for (int i = 0; i < m; i++) {
        const char *s = i < k ? parts[i] : add;
        struct front *f = &ls->f[(uintptr_t)s / 8 % FRONT];
        if (f->s == s && f->e->id == f->id && !strcmp(f->e->text, s)) {
            E[i] = f->e;
        } else {
            E[i] = paths_of(ls, s, strlen(s));
            *f = (struct front){ s, (struct lent *)E[i], E[i]->id };
        }
        if (E[i]->np < 0)
            return true;
        K[i] = E[i]->id;
    }
    for (int i = 0; i < m; i++)
        if (E[i]->id != K[i])
            return true;
    /* the verdict on this set of texts, if known */
    uint32_t id[TSR_PACK_MAXPARTS];
    for (int i = 0; i < m; i++) {
        int j = i;
        for (; j > 0 && id[j - 1] > E[i]->id; j--)
            id[j] = id[j - 1];
        id[j] = E[i]->id;
    }
    uint64_t h = 0;
    for (int i = 0; i < m; i++)
        h = (h ^ id[i]) * 0x9e3779b97f4a7c15u;
    struct vent *v = &ls->v[(h >> 40) % VMEMO];
    bool hit = v->n == m;
    for (int i = 0; i < m && hit; i++)
        hit = v->id[i] == id[i];
    if (hit)
        return v->may;
    /* the parts with fewest paths first: their conflicts cut the choices soonest */
    for (int i = 1; i < m; i++)
        for (int j = i; j > 0 && E[j]->np < E[j - 1]->np; j--) {
            const struct lent *x = E[j];
            E[j] = E[j - 1];
            E[j - 1] = x;
        }
    const struct tsr_asm_path *ch[TSR_PACK_MAXPARTS];
    int budget = 4096;
    bool may = choose(E, m, 0, ch, &budget);
    memcpy(v->id, id, (size_t)m * sizeof *id);
    v->n = (uint8_t)m;
    v->may = may;
    return may;
}

/* (pack_int.h) */
bool tsr_pack_legal_verify(void)
{
    static atomic_int on = -1;
    int v = atomic_load(&on);
    if (v < 0) {
        const char *s = getenv("TESSERA_PACK_VERIFY");
        v = s && *s && strcmp(s, "0") != 0;
        atomic_store(&on, v);
    }
    return v;
}
