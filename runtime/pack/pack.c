/* The target-independent packer (runtime/pack/pack.h, docs/pack.md): parse, dependency graph, list
 * scheduling per basic block with bundle legality decided by the target's assembler, delay-slot
 * filling, output. */
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "pack/pack.h"
#include "pack_int.h"
#include "diag.h"
#include "fileout.h"
#include "hexio.h"
#include "target.h"
#include "text/textcodec.h"

void tsr_pack_stats_free(struct tsr_pack_stats *s)
{
    free(s->blocks);
    s->blocks = NULL;
    s->nblocks = 0;
}

/* ---- units ------------------------------------------------------------------------------------ */

/* Appends text without its parts that are an idle op's text (tsr_pack_idle_text, e.g. `nop`; the idle
 * bundle's text when nothing is left); field overrides (` {ws=1}`, which end a bundle's text) are kept at the end. */
static void strip_nops(const struct tsr_target *t, const char *text, struct tsr_buf *c)
{
    const char *ov = strstr(text, " {");
    size_t body = ov ? (size_t)(ov - text) : strlen(text);
    size_t start = c->len;
    for (const char *p = text; p < text + body;) {
        const char *e = strstr(p, "; ");
        if (e && e > text + body)
            e = NULL;
        size_t n = e ? (size_t)(e - p) : (size_t)(text + body - p);
        if (!tsr_pack_idle_text(t, p, n)) {
            if (c->len > start)
                tsr_buf_puts(c, "; ");
            tsr_buf_append(c, p, n);
        }
        p = e ? e + 2 : text + body;
    }
    if (c->len == start && tsr_pack_idle_bundle(t))
        tsr_buf_puts(c, tsr_pack_idle_bundle(t));
    if (ov)
        tsr_buf_puts(c, ov);
}

/* Canonical text of the instruction at w: its disassembly without the parts that are an idle op's text
 * (e.g. `nop`), checked to assemble back to the same words; NULL if it does not, or if it needs field overrides
 * (the unit is then solo and is printed as its full disassembly, *full). */
char *tsr_pack_canon(const struct tsr_target *t, const uint32_t *w, char **full)
{
    struct tsr_buf b = { 0 }, c = { 0 };
    t->disasm(w, 0, &b);
    *full = strdup(b.data ? b.data : "");
    char *res = NULL;
    if (!strchr(*full, '{')) {
        strip_nops(t, *full, &c);
        uint32_t w2[TSR_PACK_MAX_NWORDS] = { 0 };
        if (!t->assemble_one(c.data, c.len, 0, w2, NULL, 0) && !memcmp(w, w2, t->nwords * 4))
            res = strdup(c.data);
    }
    tsr_buf_free(&b);
    tsr_buf_free(&c);
    return res;
}

/* The text of an instruction without its idle ops' parts (overrides kept), if it assembles; else NULL. */
static char *short_form(const struct tsr_target *t, const char *full)
{
    struct tsr_buf c = { 0 };
    strip_nops(t, full, &c);
    uint32_t w[TSR_PACK_MAX_NWORDS];
    char *r = !t->assemble_one(c.data, c.len, 0, w, NULL, 0) ? strdup(c.data) : NULL;
    tsr_buf_free(&c);
    return r;
}

/* For a unit whose one op has the description's `commutative` attribute: its text with the last two operands
 * swapped (`fadd r0, r1, ra2` -> `fadd r0, ra2, r1`), if that assembles alone to an instruction of the same
 * meaning (checked in the simulator); else NULL.  The scheduler tries it when the unit does not fit as written. */
static char *swapped(const struct tsr_target *t, const struct tsr_pack_unit *x)
{
    if (!x->text || strchr(x->text, ';') || strchr(x->text, '{') || !t->op_attrs)
        return NULL;
    int ca = -1;
    for (unsigned a = 0; a < t->nattrs && a < 64; a++)
        if (!strcmp(t->attr_names[a], "commutative"))
            ca = (int)a;
    if (ca < 0)
        return NULL;
    void *inst = calloc(1, t->inst_size);
    t->decode(x->w, inst);
    int nops = 0;
    bool comm = false;
    for (unsigned s = 0; s < t->nslots; s++) {
        unsigned op = t->inst_op(inst, s);
        if (tsr_pack_op_idle(t, op))
            continue;
        nops++;
        comm = t->op_attrs[op] >> ca & 1;
    }
    free(inst);
    if (nops != 1 || !comm)
        return NULL;
    const char *c1 = strstr(x->text, ", "), *c2 = c1 ? strstr(c1 + 2, ", ") : NULL;
    if (!c2 || strstr(c2 + 2, ", ") || strchr(c2 + 2, ' '))
        return NULL;   /* exactly three operands, the last a single word */
    struct tsr_buf b = { 0 };
    tsr_buf_append(&b, x->text, (size_t)(c1 - x->text) + 2);
    tsr_buf_puts(&b, c2 + 2);
    tsr_buf_puts(&b, ", ");
    tsr_buf_append(&b, c1 + 2, (size_t)(c2 - c1 - 2));
    uint32_t w[TSR_PACK_MAX_NWORDS];
    char *r = NULL;
    if (!t->assemble_one(b.data, b.len, 0, w, NULL, 0) && tsr_pack_same_meaning(t, x->w, w))
        r = strdup(b.data);
    tsr_buf_free(&b);
    return r;
}

/* Per op of the target: the slots (the first 64) that have an op of its name, and whether every op of its name
 * is in its slot (a `mov` either ALU can do: not).  Worked out once per target (per thread): the names are
 * compared for every pair of ops. */
struct name_tab { const struct tsr_target *t; uint64_t *slots; bool *only; };
static _Thread_local struct name_tab names;
static struct name_tab names_first;   /* the first thread's, freed at exit */

static void names_free(void)
{
    free(names_first.slots);
    free(names_first.only);
}

static const struct name_tab *name_tab(const struct tsr_target *t)
{
    if (names.t == t)
        return &names;
    static atomic_flag registered = ATOMIC_FLAG_INIT;
    bool first = names.t && names.slots == names_first.slots;
    free(names.slots);
    free(names.only);
    names.t = t;
    names.slots = calloc(t->nops + 1, sizeof *names.slots);
    names.only = calloc(t->nops + 1, sizeof *names.only);
    if (!names.slots || !names.only)
        abort();
    for (unsigned op = 0; op < t->nops; op++) {
        names.only[op] = true;
        for (unsigned o = 0; o < t->nops; o++) {
            if (strcmp(t->op_names[o], t->op_names[op]))
                continue;
            if (t->op_slot[o] < 64)
                names.slots[op] |= (uint64_t)1 << t->op_slot[o];
            names.only[op] &= t->op_slot[o] == t->op_slot[op];
        }
        /* (addition) X7: a wide op and its span ops (text/textcodec.h) take exactly the wide op's slots, all of
         * them: a unit with one has an item for each of those slots (unit_slots), so it needs them all */
        const struct tsr_tc_isa *tx = t->text;
        if (tx && tx->span_of && op < tx->nops && (tx->span_mask[op] || tx->span_of[op] != TSR_TC_NO_OP)) {
            unsigned w = tx->span_mask[op] ? op : tx->span_of[op];
            names.slots[op] = tx->span_mask[w] | (t->op_slot[w] < 64 ? (uint64_t)1 << t->op_slot[w] : 0);
            names.only[op] = true;
        }
    }
    /* the first thread's tables are freed at exit (first: this thread's old ones were) */
    if (first || !atomic_flag_test_and_set(&registered)) {
        if (!first)
            atexit(names_free);
        names_first = names;
    }
    return &names;
}

/* (pack_int.h) */
uint64_t tsr_pack_name_slots(const struct tsr_target *t, unsigned op)
{
    return name_tab(t)->slots[op];
}

/* The slots the unit's ops use alone, those whose op no other slot has, and per op the slots that have an op
 * of its name (x->slots, x->only, x->cand). */
static void unit_slots(const struct tsr_target *t, struct tsr_pack_unit *x)
{
    void *inst = calloc(1, t->inst_size);
    t->decode(x->w, inst);
    x->slots = x->only = 0;
    x->ncand = t->inst_format(inst) != TSR_NO_FORMAT && t->nslots <= 64 ? 0 : -1;
    if (t->inst_format(inst) != TSR_NO_FORMAT)
        for (unsigned s = 0; s < t->nslots && s < 64; s++) {
            unsigned op = t->inst_op(inst, s);
            if (tsr_pack_op_idle(t, op))
                continue;
            uint64_t m = tsr_pack_name_slots(t, op);
            bool only = name_tab(t)->only[op] && t->op_slot[op] == s;
            if (x->ncand >= 0 && x->ncand < TSR_PACK_MAXPARTS)
                x->cand[x->ncand++] = m;
            else
                x->ncand = -1;
            x->slots |= (uint64_t)1 << s;
            x->only |= (uint64_t)only << s;
        }
    free(inst);
}

/* The units seen so far by their words: an open-addressing table of unit index + 1 (0: empty). */
struct words_set { size_t *tab, cap; };

/* The entry for unit i's words among units u[0..i) of n (0 if none of them has those words: the caller stores
 * i + 1 there). */
static size_t *same_words(struct words_set *s, const struct tsr_target *t, const struct tsr_pack_unit *u, size_t i,
                          size_t n)
{
    if (!s->tab) {
        for (s->cap = 64; s->cap < 2 * n; s->cap *= 2)
            ;
        s->tab = calloc(s->cap, sizeof *s->tab);
        if (!s->tab)
            abort();
    }
    uint64_t h = 0x9e3779b97f4a7c15u;
    for (unsigned k = 0; k < t->nwords; k++)
        h = (h ^ u[i].w[k]) * 0xff51afd7ed558ccdu;
    size_t at = (size_t)(h >> 17) & (s->cap - 1);
    while (s->tab[at] && memcmp(u[s->tab[at] - 1].w, u[i].w, t->nwords * sizeof *u[i].w))
        at = (at + 1) & (s->cap - 1);
    return &s->tab[at];
}

/* ---- input ------------------------------------------------------------------------------------- */

struct label { char *name; unsigned line; };

static bool id_start(int c) { return c == '_' || c == '.' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool id_char(int c) { return id_start(c) || (c >= '0' && c <= '9'); }

/* Scans the lines for labels and directives; records the text and column of each line's bundle, and the
 * column of the `.delay` of each line that is a `.delay` operation (ldelay; 0: not one).  asmtext is a copy
 * of text that the assembler reads: each `.delay` is blanked there (columns kept).  Returns 0, or -1 after
 * reporting a `.delay` without an operation. */
static int scan_lines(const char *text, size_t len, char *asmtext, const char *path, struct tsr_diag *d,
                      struct label **labels, int *nlabels, struct tsr_buf *dirs, char ***ltext, unsigned **lcol,
                      unsigned **ldelay, unsigned *nlines)
{
    unsigned cap = 64, n = 0;
    char **lt = calloc(cap, sizeof *lt);
    unsigned *lc = calloc(cap, sizeof *lc);
    unsigned *ld = calloc(cap, sizeof *ld);
    int nl = 0, capl = 16, rc = 0;
    struct label *lb = malloc((size_t)capl * sizeof *lb);
    size_t i = 0;
    while (i <= len) {
        size_t s = i;
        while (i < len && text[i] != '\n')
            i++;
        size_t e = i;
        i++;
        if (n + 2 >= cap) {
            cap *= 2;
            lt = realloc(lt, cap * sizeof *lt);
            lc = realloc(lc, cap * sizeof *lc);
            ld = realloc(ld, cap * sizeof *ld);
        }
        n++;
        lt[n] = NULL;
        lc[n] = 0;
        ld[n] = 0;
        /* strip comments */
        size_t ce = s;
        while (ce < e && text[ce] != '#' && !(text[ce] == '/' && ce + 1 < e && text[ce + 1] == '/'))
            ce++;
        size_t p = s;
        for (;;) {
            while (p < ce && (text[p] == ' ' || text[p] == '\t' || text[p] == '\r'))
                p++;
            size_t q = p;
            if (q < ce && id_start((unsigned char)text[q]) && text[q] != '.') {
                while (q < ce && id_char((unsigned char)text[q]))
                    q++;
                if (q < ce && text[q] == ':') {
                    if (nl == capl)
                        lb = realloc(lb, (size_t)(capl *= 2) * sizeof *lb);
                    lb[nl].name = strndup(text + p, q - p);
                    lb[nl].line = n;
                    nl++;
                    p = q + 1;
                    continue;
                }
            }
            break;
        }
        size_t q = ce;
        while (q > p && (text[q - 1] == ' ' || text[q - 1] == '\t' || text[q - 1] == '\r'))
            q--;
        if (q - p >= 6 && !memcmp(text + p, ".delay", 6) && (q - p == 6 || text[p + 6] == ' ' || text[p + 6] == '\t')) {
            /* `.delay OP`: OP runs in the delay slots of the branch or thread end before it */
            size_t at = p;
            memset(asmtext + p, ' ', 6);
            ld[n] = (unsigned)(at - s) + 1;
            p += 6;
            while (p < q && (text[p] == ' ' || text[p] == '\t'))
                p++;
            if (p == q || (text[p] == '.' && !(q - p >= 5 && !memcmp(text + p, ".word", 5))))
                rc = tsr_diag_error(d, path, n, (unsigned)(at - s) + 1, "'.delay' needs an operation after it");
        }
        if (q > p && text[p] == '.' && !(q - p >= 5 && !memcmp(text + p, ".word", 5))) {
            if (!ld[n]) {
                tsr_buf_append(dirs, text + p, q - p);
                tsr_buf_puts(dirs, "\n");
            }
        } else if (q > p) {
            lt[n] = strndup(text + p, q - p);
            lc[n] = (unsigned)(p - s) + 1;
        }
    }
    *labels = lb;
    *nlabels = nl;
    *ltext = lt;
    *lcol = lc;
    *ldelay = ld;
    *nlines = n;
    return rc;
}

int tsr_pack_text(const struct tsr_target *t, const char *path, const char *text, size_t len,
                  struct tsr_buf *out, struct tsr_pack_stats *st, struct tsr_diag *d)
{
    return tsr_pack_text_effort(t, path, text, len, TSR_PACK_SEARCH, out, st, d);
}

int tsr_pack_text_effort(const struct tsr_target *t, const char *path, const char *text, size_t len,
                         enum tsr_pack_effort effort, struct tsr_buf *out, struct tsr_pack_stats *st,
                         struct tsr_diag *d)
{
    if (tsr_pack_target_ok(t, path, d))
        return -1;
    /* values named, not aged; or no value named on a target of such values that has no idle bundle, which the
     * packer below needs (the router fills an empty bundle with a move instead): then the assembler's diagnostics
     * first, at their lines, as below */
    bool named = tsr_pack_has_names(text, len);
    if (t->vdesc && t->vdesc->nfwdtexts && (named || !tsr_pack_idle_bundle(t))) {
        if (!named) {
            struct tsr_words aw;
            tsr_words_init(&aw, t->word_bits);
            aw.lean = true;
            int bad = t->assemble(path, text, len, &aw, d);
            tsr_words_free(&aw);
            if (bad)
                return -1;
        }
        return tsr_pack_route(t, path, text, len, effort == TSR_PACK_DEEP, out, st, d);
    }
    struct label *labels;
    int nlabels;
    struct tsr_buf dirs = { 0 };
    char **ltext;
    unsigned *lcol, nlines, *ldelay;
    char *asmtext = malloc(len + 1);
    memcpy(asmtext, text, len);
    int rc = scan_lines(text, len, asmtext, path, d, &labels, &nlabels, &dirs, &ltext, &lcol, &ldelay, &nlines);
    struct tsr_words w;
    tsr_words_init(&w, t->word_bits);
    w.lean = true;   /* (no comments: the units keep their source text, ltext) */
    if (t->assemble(path, asmtext, len, &w, d))
        rc = -1;
    free(asmtext);
    size_t n = rc ? 0 : w.count;
    struct tsr_pack_unit *u = calloc(n ? n : 1, sizeof *u);
    bool *solo = calloc(n ? n : 1, sizeof *solo);   /* unit i breaks a rule by itself */
    struct tsr_pack_ev scratch = { 0 };
    struct words_set seen = { NULL, 0 };
    int li = 0;
    uint32_t nwid = 0;   /* distinct words so far (x->wid) */
    for (size_t i = 0; i < n; i++) {
        struct tsr_pack_unit *x = &u[i];
        memcpy(x->w, tsr_words_at(&w, i), t->nwords * 4);
        x->line = w.line ? w.line[i] : 0;
        x->col = x->line && x->line <= nlines ? lcol[x->line] : 0;
        if (!x->col)
            x->col = 1;
        x->src = x->line && x->line <= nlines ? ltext[x->line] : NULL;   /* (the line's, freed with them) */
        while (li < nlabels && labels[li].line <= x->line) {
            if (x->nlabels < TSR_PACK_MAX_LABELS)
                x->labels[x->nlabels++] = labels[li].name;
            li++;
        }
        /* what depends on the words alone: from the first unit of the same words, if any (a program
         * repeats its operations: GPU_FFT's 1,819-operation shader has 391 distinct ones) */
        size_t *slot = same_words(&seen, t, u, i, n);
        const struct tsr_pack_unit *y = *slot ? &u[*slot - 1] : NULL;
        x->wid = y ? y->wid : ++nwid;
        bool known = false;
        if (y) {
            tsr_pack_ev_copy(&x->ev, &y->ev);
            if (x->ev.ctl == TSR_PACK_CTL_OPAQUE)   /* (set below from y's own source text) */
                x->ev.ctl = TSR_PACK_CTL_JUMP;
            x->text = y->text;   /* (y's, which outlive x's use: freed with the units, x's not) */
            x->full = y->full;
            x->alt = y->alt;
            x->shared = true;
            x->slots = y->slots;
            x->only = y->only;
            memcpy(x->cand, y->cand, sizeof x->cand);
            x->ncand = y->ncand;
        } else if (!(known = tsr_pack_umemo_get(t, x, &solo[i]))) {   /* (else as in an earlier program) */
            *slot = i + 1;
            tsr_pack_ev_unit(t, x->w, &x->ev);
            x->text = tsr_pack_canon(t, x->w, &x->full);
            if (!x->text)   /* an op kept in its slot (`nop; mov r0.8a, r0`): joins others in its short form,
                             * which the scheduler's check of joined bundles holds to the same meaning */
                x->text = short_form(t, x->full);
            x->alt = swapped(t, x);
            unit_slots(t, x);
        }
        x->dslot = x->line && x->line <= nlines && ldelay[x->line];
        if (x->dslot)
            x->col = ldelay[x->line];   /* diagnostics point at the `.delay` */
        char msg[400];
        if (known) {
            *slot = i + 1;
        } else if (!y) {   /* (the validator's verdict on it alone, through its cache: pack_vcache.c) */
            const uint32_t *ww = x->w;
            bool filled;
            solo[i] = tsr_pack_hist_check(t, &scratch, NULL, NULL, &ww, 1, false, &filled) != 0;
            tsr_pack_umemo_put(t, x, solo[i]);
        } else {
            solo[i] = solo[*slot - 1];
        }
        if (solo[i] && tsr_pack_solo_check(t->vdesc, x->ev.vb, msg, sizeof msg))
            rc = tsr_diag_error(d, path, x->line, x->col, "this operation breaks a rule by itself: %s", msg);
        if (x->dslot) {
            /* after a branch or thread end that the packer places, or another `.delay` operation of it */
            int pc = i ? u[i - 1].ev.ctl : TSR_PACK_CTL_NONE;
            const char *why = x->nlabels ? "a label cannot point into delay slots"
                            : x->ev.ctl != TSR_PACK_CTL_NONE ? "a branch or thread end cannot be in delay slots"
                            : pc == TSR_PACK_CTL_OPAQUE ? "a branch in a pinned group keeps nops in its delay slots"
                            : !(i && u[i - 1].dslot) && pc != TSR_PACK_CTL_JUMP && pc != TSR_PACK_CTL_END
                                ? "a '.delay' operation must follow a branch or thread end" : NULL;
            if (why)
                rc = tsr_diag_error(d, path, x->line, x->col, "%s", why);
        }
        if (x->ev.ctl == TSR_PACK_CTL_JUMP && (!x->src || strchr(x->src, ';')))
            x->ev.ctl = TSR_PACK_CTL_OPAQUE;
    }
    if (!rc) {
        struct tsr_buf body = { 0 };
        if (dirs.len)
            tsr_buf_append(&body, dirs.data, dirs.len);
        rc = tsr_pack_schedule(t, u, n, effort, &body, st, path, d);
        /* labels after the last instruction */
        for (; li < nlabels; li++)
            tsr_buf_printf(&body, "%s:\n", labels[li].name);
        if (!rc && body.len)
            tsr_buf_append(out, body.data, body.len);
        tsr_buf_free(&body);
    }
    for (size_t i = 0; i < n; i++) {
        if (!u[i].shared) {
            free(u[i].text);
            free(u[i].full);
            free(u[i].alt);
        }
        tsr_pack_ev_free(&u[i].ev);
    }
    free(u);
    free(solo);
    tsr_pack_ev_free(&scratch);
    free(seen.tab);
    for (int i = 0; i < nlabels; i++)
        free(labels[i].name);
    free(labels);
    for (unsigned i = 0; i <= nlines; i++)
        free(ltext[i]);
    free(ltext);
    free(lcol);
    free(ldelay);
    tsr_buf_free(&dirs);
    tsr_words_free(&w);
    return rc;
}
