/* The bundle assembler's entry points (asm_engine.h tsr_asm_*) and field overrides (`[field=value]` after a
 * bundle, docs/asm.md): set up a bundle, run the matcher of asm_engine.c, report its furthest failure. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm_match.h"
#include "bits.h"

/* ---- overrides ---------------------------------------------------------------------------------- */

static int ovr_fail(struct tsr_asm *a, const char *msg, uint32_t pos, uint32_t len)
{
    snprintf(a->msg, sizeof a->msg, msg, (int)len, a->s + pos);
    a->msgpos = pos;
    return -1;
}

/* Parses `{name=value, ...}` in s[from..to) (braces included).  Sets *pin for `format=NAME`. */
static int parse_overrides(struct tsr_asm *a, uint32_t from, uint32_t to, int *pin)
{
    const struct tsr_tc_isa *isa = a->isa;
    const char *s = a->s;
    uint32_t p = from + 1;
    to--;   /* the closing brace */
    a->lim = to;
    for (;;) {
        p = skip_ws(a, p);
        if (p >= to)
            break;
        uint32_t q = p;
        while (q < to && tsr_asm_isident(s[q]))
            q++;
        if (q == p)
            return ovr_fail(a, "expected a field name in overrides, found '%.*s'", p, 1);
        uint32_t name = p, nlen = q - p;
        int kind = 0;
        unsigned idx = 0;
        q = skip_ws(a, q);
        if (nlen == 6 && memcmp(s + name, "ignore", 6) == 0 && q < to && s[q] == '[') {
            kind = 1;
            q++;
            while (q < to && s[q] >= '0' && s[q] <= '9')
                idx = idx * 10 + (unsigned)(s[q++] - '0');
            if (q >= to || s[q] != ']')
                return ovr_fail(a, "expected 'ignore[N]' in overrides, found '%.*s'", name, q - name);
            q = skip_ws(a, q + 1);
        } else if (nlen == 6 && memcmp(s + name, "format", 6) == 0) {
            kind = 2;
        } else {
            for (idx = 0; idx < isa->nfields; idx++)
                if (strlen(isa->fields[idx].name) == nlen && memcmp(isa->fields[idx].name, s + name, nlen) == 0)
                    break;
            if (idx == isa->nfields)
                return ovr_fail(a, "unknown field '%.*s' in overrides", name, nlen);
        }
        if (q >= to || s[q] != '=')
            return ovr_fail(a, "expected '=' after '%.*s'", name, nlen);
        q = skip_ws(a, q + 1);
        if (kind == 2) {
            uint32_t r = q;
            while (r < to && tsr_asm_isident(s[r]))
                r++;
            unsigned fi;
            for (fi = 0; fi < isa->nformats; fi++)
                if (strlen(isa->formats[fi].name) == r - q && memcmp(isa->formats[fi].name, s + q, r - q) == 0)
                    break;
            if (fi == isa->nformats)
                return ovr_fail(a, "unknown format '%.*s'", q, r > q ? r - q : 1);
            *pin = (int)fi;
            p = r;
        } else {
            struct tsr_asm_val v;
            size_t e, ep, el;
            const char *err;
            int r = tsr_asm_expr(s, q, to, a->syms, &e, &v, &err, &ep, &el);
            if (r > 0 && am_has_name(s, q, e))
                a->env = true;
            if (r < 0)
                return ovr_fail(a, err, (uint32_t)ep, (uint32_t)el);
            if (r == 0 || v.fl)
                return ovr_fail(a, "expected an integer value for '%.*s'", name, nlen);
            PUSH(a->ovr, a->novr, a->covr);
            a->ovr[a->novr++] = (struct ovr){kind, idx, (uint64_t)v.i};
            if (kind == 0 && !am_fits(&isa->fields[idx], v.i, v.u)) {
                snprintf(a->msg, sizeof a->msg, "value '%.*s' does not fit field %s (%u bits)", (int)(e - q), s + q,
                         isa->fields[idx].name, (unsigned)isa->fields[idx].width);
                a->msgpos = q;
                return -1;
            }
            p = (uint32_t)e;
        }
        p = skip_ws(a, p);
        if (p < to && s[p] == ',') {
            p++;
            continue;
        }
        if (p < to)
            return ovr_fail(a, "expected ',' or '}' in overrides, found '%.*s'", p, 1);
    }
    return 0;
}

/* ---- entry points ------------------------------------------------------------------------------- */

struct tsr_asm *tsr_asm_new(const struct tsr_tc_isa *isa)
{
    struct tsr_asm *a = am_xrealloc(NULL, sizeof *a);
    memset(a, 0, sizeof *a);
    a->isa = isa;
    a->f = am_xrealloc(NULL, (isa->nfields + 1) * sizeof *a->f);
    a->mask = am_xrealloc(NULL, (isa->nfields + 1) * sizeof *a->mask);
    for (unsigned i = 0; i < isa->nfields; i++)
        a->mask[i] = tsr_bits_mask(isa->fields[i].width);
    a->set = am_xrealloc(NULL, (isa->nfields + 1) * sizeof *a->set);
    memset(a->f, 0, (isa->nfields + 1) * sizeof *a->f);
    memset(a->set, 0, (isa->nfields + 1) * sizeof *a->set);
    a->op = am_xrealloc(NULL, (isa->nslots + 1) * sizeof *a->op);
    a->cand = am_xrealloc(NULL, (size_t)MAX_PARTS * (isa->nops + 1) * sizeof *a->cand);
    a->byfirst = am_xrealloc(NULL, (isa->nops + 1) * sizeof *a->byfirst);
    uint32_t n = 0;
    for (unsigned c = 0; c <= 128; c++) {
        a->byoff[c] = n;
        for (unsigned i = 0; i < isa->nops; i++) {
            const struct tsr_tc_op *op = &isa->ops[i];
            if (c < 128 ? (op->keylen && (unsigned char)op->key[0] == c)
                        : (!op->keylen || (unsigned char)op->key[0] >= 128))
                a->byfirst[n++] = (uint16_t)i;
        }
    }
    a->byoff[129] = n;
    a->root = am_xrealloc(NULL, ((size_t)isa->ntables * 128 + 1) * sizeof *a->root);
    memset(a->root, 0, ((size_t)isa->ntables * 128 + 1) * sizeof *a->root);
    for (unsigned t = 0; t < isa->ntables; t++) {
        const struct tsr_tc_trie *r = &isa->tries[isa->tables[t].trie];
        if (!isa->tables[t].nnames)
            continue;
        for (unsigned i = 0; i < r->nkid; i++)
            if (isa->tries[r->kid + i].ch < 128)
                a->root[t * 128 + isa->tries[r->kid + i].ch] = r->kid + i;
    }
    a->fmt_slot = am_xrealloc(NULL, (size_t)isa->nformats * isa->nslots + 1);
    memset(a->fmt_slot, 0, (size_t)isa->nformats * isa->nslots + 1);
    for (unsigned f = 0; f < isa->nformats; f++)
        for (uint32_t t = 0; t < isa->formats[f].nslot; t++)
            a->fmt_slot[f * isa->nslots + isa->idx[isa->formats[f].slot + t]] = 1;
    am_fast_init(a);
    return a;
}

void tsr_asm_free(struct tsr_asm *a)
{
    if (!a)
        return;
    free(a->f);
    free(a->mask);
    free(a->set);
    free(a->op);
    free(a->trail);
    free(a->chk);
    free(a->eq);
    free(a->ovr);
    free(a->cand);
    free(a->byfirst);
    free(a->fmt_slot);
    free(a->root);
    am_fast_free(a);
    free(a);
}

void tsr_asm_use_syms(struct tsr_asm *a, const struct tsr_asm_syms *syms)
{
    a->syms = syms;
}

bool tsr_asm_env_used(const struct tsr_asm *a)
{
    return a->env;
}

const char *tsr_asm_message(struct tsr_asm *a, size_t *offset)
{
    if (a->pending) {
        /* The fast search prunes (formats whose parts cannot all be its ops, slot placements that leave
         * too few slots for the parts after), so its furthest failure may lie beyond where the text
         * really stops matching (`mov interrupt, 1; nop`: at `nop`, which the load-immediate format has
         * no slot for).  A second search without pruning finds the real one; it is done only for a
         * message (the packer and the disassembler's round trip try many bundles that fail). */
        a->pending = false;
        a->diagnose = true;
        a->exact = true;
        bool ok = am_search(a, true);   /* cannot succeed: pruning only drops what cannot match */
        a->diagnose = false;
        if (ok || a->aborted) {
            /* step limit: the fast search's furthest failure is the message.  That search did not record its
             * failures (nothing else reads them): run it again as it would record them (a->exact). */
            if (am_search(a, false))
                am_restore(a, (struct mark){0, 0, 0});
        }
        a->exact = false;
        am_format_fail(a);
    }
    if (offset)
        *offset = a->msgpos;
    return a->msg;
}

int tsr_asm_bundle(struct tsr_asm *a, const char *s, size_t n, uint64_t pc, int pin, void *inst)
{
    const struct tsr_tc_isa *isa = a->isa;
    if (n > UINT32_MAX / 2)
        n = UINT32_MAX / 2;
    a->s = s;
    a->n = (uint32_t)n;
    a->lim = a->n;
    a->pc = pc;
    a->novr = 0;
    a->env = false;
    a->msg[0] = 0;
    a->msgpos = 0;
    a->pending = false;
    /* a trailing override group */
    uint32_t e = a->n;
    while (e > 0 && tsr_asm_isblank(s[e - 1]))
        e--;
    if (e > 0 && s[e - 1] == '}') {
        uint32_t b = e - 1;
        while (b > 0 && s[b - 1] != '{')
            b--;
        if (b == 0)
            return ovr_fail(a, "unbalanced '%.*s'", e - 1, 1);
        b--;
        if (parse_overrides(a, b, e, &pin) < 0)
            return -1;
        a->n = b;
        a->lim = b;
    }
    /* parts */
    a->nparts = 0;
    for (uint32_t st = 0;;) {
        uint64_t lo = 0, hi = 0;   /* characters 0..63 and 64..127 of the part */
        const char *semi = memchr(s + st, ';', a->n - st);
        uint32_t i = semi ? (uint32_t)(semi - s) : a->n;
        for (uint32_t j = st; j < i; j++) {
            lo |= a->chbit[(unsigned char)s[j]][0];
            hi |= a->chbit[(unsigned char)s[j]][1];
        }
        if (a->nparts == MAX_PARTS)
            return ovr_fail(a, "too many bundle parts (more than 64) at '%.*s'", i, 1);
        uint32_t q = st;
        while (q < i && tsr_asm_isblank(s[q]))
            q++;
        if (q == i)
            return ovr_fail(a, i == a->n && a->nparts == 0 ? "empty bundle%.*s" : "empty bundle part%.*s",
                            i, 0);
        a->pstart[a->nparts] = st;
        a->pend[a->nparts] = i;
        a->have[a->nparts][0] = lo;
        a->have[a->nparts][1] = hi;
        a->nparts++;
        if (i == a->n)
            break;
        st = i + 1;
    }
    for (int k = 0; k < a->nparts; k++)
        am_candidates(a, k);
    a->pin = pin;
    if (!am_search(a, false)) {
        a->pending = !a->aborted;   /* the message is worked out when asked for (tsr_asm_message) */
        if (a->aborted)
            am_format_fail(a);
        return -1;
    }
    /* the result */
    const struct tsr_tc_format *F = &isa->formats[a->fmt];
    unsigned char *ib = inst;
    memset(ib, 0, isa->inst_size);
    ib[0] = (unsigned char)a->fmt;
    uint16_t *ops = (uint16_t *)(void *)(ib + isa->off_op);
    uint32_t *ign = (uint32_t *)(void *)(ib + isa->off_ignored);
    uint64_t *f = (uint64_t *)(void *)(ib + isa->off_f);
    for (unsigned i = 0; i < isa->nslots; i++)
        ops[i] = TSR_TC_NO_OP;
    for (uint32_t t = 0; t < F->nslot; t++) {
        unsigned slot = isa->idx[F->slot + t];
        ops[slot] = a->op[slot];
    }
    for (uint32_t i = 0; i < F->nfield; i++) {
        unsigned fd = isa->idx[F->field + i];
        f[fd] = a->f[fd];
    }
    am_restore(a, (struct mark){0, 0, 0});
    for (size_t i = 0; i < a->novr; i++) {
        const struct ovr *o = &a->ovr[i];
        if (o->kind == 0) {
            bool in = false;
            for (uint32_t j = 0; j < F->nfield && !in; j++)
                in = isa->idx[F->field + j] == o->idx;
            if (!in) {
                snprintf(a->msg, sizeof a->msg, "field %s is not part of format '%s'", isa->fields[o->idx].name,
                         F->name);
                a->msgpos = a->n;
                return -1;
            }
            f[o->idx] = o->val & fmask(a, o->idx);
        } else {
            if (o->idx >= F->nign) {
                snprintf(a->msg, sizeof a->msg, "format '%s' has %u ignore range%s; no ignore[%u]", F->name,
                         (unsigned)F->nign, F->nign == 1 ? "" : "s", o->idx);
                a->msgpos = a->n;
                return -1;
            }
            const struct tsr_tc_range *r = &isa->ranges[F->ign + o->idx];
            tsr_wide_insert(ign, r->hi, r->lo, o->val);
        }
    }
    return 0;
}
