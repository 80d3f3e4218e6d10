/* The disassembler's proof that a printed bundle reads back exactly (dis_exact.h), from the printed path
 * (dis_path.h), the decoded fields and the text, without assembling the text again.
 *
 * The assembler (asm_engine.c) returns the first path through formats, slots, ops, operand alternatives,
 * optional groups, table names and numeric entries, in its search order, that matches the text and then
 * completes (defaults, checks).  The printer took one such path P.  The text reads back to the printed
 * instruction with no override when
 *  (1) P itself matches the text as the assembler matches it (`walk`: a literal matches its own print unless
 *      the bound rule cuts it; a printed name reads back as its code; numbers through the expression parser,
 *      each part ending where the printer's record says, except where the template shows that the printed
 *      number reads back: dis_num.c) and completes to the same fields: every value P
 *      binds is the instruction's, and every field P leaves unset gets from the defaults the instruction's
 *      value; then P's checks see the instruction's fields, on which the decoder and printer tested them; and
 *  (2) every choice the assembler tries before P's, at every decision along P, fails:
 *      - by a fact of the description decided once per isa (dis_static.c): the earlier choice cannot match
 *        any text the printed one prints in that place (formats, slots and ops; operand alternatives, for the
 *        printed table entry too; longer table names);
 *      - else through a field (`refuted`): the earlier alternative binds FIELD = v, and another bundle part
 *        can only be read through alternatives that bind FIELD to another value: shown from the facts first
 *        (dis_spin.c: that part's printed op, the alternative it printed at its leading operand and the codes
 *        of the entries printed there, a few look-ups), else on the text (`forces`), asked only for the parts
 *        the facts leave open;
 *      - else on this text: a text-only matcher (dis_match.c `tsr_dis_possible`, the assembler's matcher
 *        without fields) finds no way for it to consume the rest of the part (fields only ever remove
 *        matches);
 *      - else through a field in general form (dis_pin.c): the earlier alternative, longer table name or
 *        numeric entry of the same value binds FIELD = v, and some bundle part has no way through that does
 *        not bind FIELD to another value.
 * Each bundle part is walked first with the plans of its operands (dis_plan.c, `run_plan`: the walk's steps
 * that the template leaves open, the facts looked up once), and by `walk` itself when a plan does not show
 * it, so the plans prove nothing the walk would not.
 * Whatever cannot be shown this way (a label, a FIELD == FIELD pair with no bound side, an earlier choice that
 * survives all three, the text-only matcher over its step budget) answers false, and the caller runs the full
 * round-trip check.  Every test here mirrors one of asm_engine.c's; a change to the matcher's order or rules
 * must be made here, in dis_plan.c, dis_match.c and dis_static.c too (the TESSERA_DIS_VERIFY mode of
 * dis_engine.c cross-checks).
 */
#include <stdlib.h>
#include <string.h>

#include "asm_match.h"
#include "bits.h"
#include "dis_px.h"

/* Each part's walk (run_plan, walk; the checks of (2) along it): dis_walk.c. */

/* asm_engine.c key_ok */
static bool key_ok(const struct tsr_tc_op *op, const char *s, uint32_t run)
{
    if (!op->keylen)
        return true;
    if (run < op->keylen || memcmp(s, op->key, op->keylen) != 0)
        return false;
    return !op->key_exact || run == op->keylen;
}

/* Would the assembler try op on the part starting at q (its candidates() filter), and could it match? */
static bool op_possible(struct px *P, const struct tsr_tc_op *op, uint32_t q, uint32_t run, const uint64_t *have)
{
    if (!key_ok(op, P->s + q, run) || (op->req[0] & ~have[0]) || (op->req[1] & ~have[1]))
        return false;
    return tsr_dis_possible(P, P->isa->parts + op->part, P->isa->parts + op->part + op->npart, q, NULL, false);
}

/* Can part pi, printed by op `printed`, be an op of slot `slot`, among the ops the assembler tries before
 * op `before` (those of lower index, as its candidate list is in op order; all: TSR_TC_NO_OP)?  Decided
 * once per isa where the templates tell (dis_static.c), else on the text. */
static bool slot_possible(struct px *P, unsigned slot, unsigned before, unsigned printed, size_t k)
{
    const struct tsr_tc_slot *S = &P->isa->slots[slot];
    struct tsr_dis_partinfo *pi = &P->pi[k];
    if (before == TSR_TC_NO_OP ? tsr_dis_slot_never(&P->x->st, printed, slot) : tsr_dis_before_never(&P->x->st, before))
        return false;
    /* the facts per printed alternative (asked only for the ops tsr_dis_op_pair leaves open) */
    bool alts = P->isa->ops[printed].npart <= TSR_DIS_LALT;
    /* the ops the facts do not rule out (dis_cand.c: decided once per slot, op and printed alternatives) */
    uint64_t m = S->nop <= 64 ? tsr_dis_cands(&P->x->cands, &P->x->st, slot, before, printed, alts, P->lalt[k]) : 0;
    if (S->nop <= 64 && !m)
        return false;
    if (!pi->have_set) {
        pi->have[0] = pi->have[1] = 0;
        for (uint32_t j = pi->start; j < pi->end; j++) {
            unsigned char c = (unsigned char)P->s[j];
            if (c < 128)
                pi->have[c >> 6] |= (uint64_t)1 << (c & 63);
        }
        for (pi->run = pi->q; pi->run < pi->end && tsr_asm_isident(P->s[pi->run]);)
            pi->run++;
        pi->run -= pi->q;
        pi->have_set = true;
    }
    for (uint32_t i = 0; i < S->nop; i++) {
        unsigned opi = P->isa->idx[S->op + i];
        if (S->nop <= 64 ? (m >> i & 1) : (opi < before && P->isa->ops[opi].slot == slot &&
                                            tsr_dis_op_pair(&P->x->st, opi, printed) != TSR_DIS_NEVER &&
                                            (!alts || tsr_dis_op_alts(&P->x->st, opi, printed, P->lalt[k]) != TSR_DIS_NEVER)))
            if (op_possible(P, &P->isa->ops[opi], pi->q, pi->run, pi->have))
                return true;
    }
    return false;
}

/* The prover's per-isa arrays, on its first bundle: bound, the tries' roots by first character, and per op
 * the template index of its leading operand (after literal text and blanks only; -1: none). */
static void prover_alloc(const struct tsr_tc_isa *isa, struct tsr_dis_exact *x)
{
    x->bound = calloc(isa->nfields + 1, 1);
    x->root = calloc((size_t)isa->ntables * 128 + 1, sizeof *x->root);
    x->oplead = calloc(isa->nops + 1, sizeof *x->oplead);
    x->memo = calloc(TSR_DIS_NMEMO, sizeof *x->memo);
    if (!x->bound || !x->root || !x->oplead || !x->memo)
        abort();
    for (unsigned t = 0; t < isa->ntables; t++) {
        const struct tsr_tc_trie *r = &isa->tries[isa->tables[t].trie];
        if (isa->tables[t].nnames)
            for (unsigned i = 0; i < r->nkid; i++)
                if (isa->tries[r->kid + i].ch < 128)
                    x->root[t * 128 + isa->tries[r->kid + i].ch] = r->kid + i;
    }
    for (unsigned a = 0; a < isa->nops; a++) {
        const struct tsr_tc_op *op = &isa->ops[a];
        uint32_t i = 0;
        while (i < op->npart && (isa->parts[op->part + i].kind == TSR_TC_TEXT || isa->parts[op->part + i].kind == TSR_TC_SPACE))
            i++;
        x->oplead[a] = i < op->npart && isa->parts[op->part + i].kind == TSR_TC_OPND ? (int32_t)i : -1;
    }
}

bool tsr_dis_exact(const struct tsr_tc_isa *isa, struct tsr_dis_exact *x, const void *inst, const char *text,
                   size_t len, const struct tsr_dis_path *path)
{
    const struct tsr_dis_ev *ev = path->ev;
    const struct tsr_dis_slotp *sp = path->sp;
    size_t nev = path->nev, nsp = path->nsp;
    if (path->over)
        return false;
    if (!x->st.isa)
        tsr_dis_static_init(&x->st, isa);
    const unsigned char *ib = inst;
    unsigned fmt = ib[0];
    if (fmt >= isa->nformats || len > UINT32_MAX / 2 || nsp == 0 || nsp > MAX_PARTS)
        return false;
    const struct tsr_tc_format *F = &isa->formats[fmt];
    const uint16_t *ops = (const uint16_t *)(const void *)(ib + isa->off_op);
    const uint32_t *ign = (const uint32_t *)(const void *)(ib + isa->off_ignored);
    struct px P = {.isa = isa, .x = x, .s = text, .f = (const uint64_t *)(const void *)(ib + isa->off_f), .ev = ev,
                   .ban_field = TSR_DIS_NOBAN};
    if (!tsr_dis_plain(isa, F, ign, text, len))
        return false;
    /* asm_engine.c tsr_asm_bundle: parts split at every ';' */
    uint32_t n = (uint32_t)len;
    struct tsr_dis_partinfo *pi = x->pi;
    P.lalt = x->lalt;
    size_t np = 0;
    for (uint32_t st = 0;;) {
        const char *semi = memchr(text + st, ';', n - st);
        uint32_t i = semi ? (uint32_t)(semi - text) : n;   /* the part's end: the next ';' or the text's end */
        if (np == nsp)
            return false;
        struct tsr_dis_partinfo *p = &pi[np++];
        p->start = st, p->end = i;
        p->q = st;
        while (p->q < i && tsr_asm_isblank(text[p->q]))
            p->q++;
        if (p->q == i)
            return false;   /* an empty part: an error */
        p->have_set = false;   /* its characters and leading identifier: when an op is tried on it (slot_possible) */
        if (i == n)
            break;
        st = i + 1;
    }
    if (np != nsp)
        return false;
    /* for refuted: each part's op and the event of its leading operand */
    unsigned pop[MAX_PARTS];
    size_t plead[MAX_PARTS];
    if (!x->bound)
        prover_alloc(isa, x);
    for (size_t k = 0; k < np; k++) {
        unsigned a = ops[isa->idx[F->slot + (sp[k].t < F->nslot ? sp[k].t : 0)]];
        pop[k] = a;
        if (a >= isa->nops)
            return false;
        plead[k] = x->oplead[a] < 0 ? SIZE_MAX : sp[k].first + (size_t)x->oplead[a];
    }
    P.top = SIZE_MAX;
    P.fmt = fmt;
    P.pi = pi;
    P.np = np;
    P.nev = nev;
    P.pop = pop;
    P.sp = sp;
    P.plead = plead;
    memset(x->bound, 0, isa->nfields);
    x->neq = 0;
    x->steps = 0;
    if (++x->mgen == 0) {   /* the generations wrapped: forget every entry */
        for (unsigned i = 0; i < TSR_DIS_NMEMO; i++)
            x->memo[i].gen = 0;
        for (unsigned i = 0; i < TSR_DIS_NPIN; i++)
            x->pin[i].gen = 0;
        x->mgen = 1;
    }

    /* the format: each part at its slot, after the slots and ops the assembler tries first */
    if (!tsr_px_conds(&P, F->cond, F->ncond))
        return false;
    uint32_t s = 0;
    uint64_t printed = 0;
    for (size_t k = 0; k < np; k++) {
        uint32_t t = sp[k].t;
        if (t < s || t >= F->nslot || t >= 64)
            return false;
        P.lim = pi[k].end;
        unsigned slot = isa->idx[F->slot + t], opi = ops[slot];
        if (opi >= isa->nops)
            return false;
        /* the printed path first (it records the alternatives of the op's operands), then the slots and ops the
         * assembler tries before it */
        const struct tsr_tc_op *op = &isa->ops[opi];
        P.pos = pi[k].q;
        P.cur = k;
        P.ie = sp[k].first;
        P.iend = k + 1 < np ? sp[k + 1].first : nev;
        memset(P.lalt[k], 0xff, TSR_DIS_LALT);
        P.opbase = isa->parts + op->part;
        if (P.ie > P.iend || P.iend > nev || !tsr_dis_walk_part(&P, opi) ||
            P.ie != P.iend || ws(&P, P.pos) != P.lim || !tsr_px_conds(&P, op->cond, op->ncond))
            return false;
        for (uint32_t u = s; u < t; u++)
            if (slot_possible(&P, isa->idx[F->slot + u], TSR_TC_NO_OP, opi, k))
                return false;
        if (slot_possible(&P, slot, opi, opi, k))
            return false;
        printed |= (uint64_t)1 << t;
        s = t + 1;
    }
    /* (2) for the formats before fmt: some part fits no op of theirs (or there are too many parts) */
    for (unsigned fi = 0; fi < fmt; fi++) {
        const struct tsr_tc_format *G = &isa->formats[fi];
        bool fails = np > G->nslot;
        for (size_t k = 0; k < np && !fails; k++)
            fails = tsr_dis_fmt_never(&x->st, ops[isa->idx[F->slot + sp[k].t]], fi);
        for (size_t k = 0; k < np && !fails; k++) {
            P.lim = pi[k].end;
            bool any = false;
            unsigned printed = ops[isa->idx[F->slot + sp[k].t]];
            for (uint32_t t = 0; t < G->nslot && !any; t++)
                any = slot_possible(&P, isa->idx[G->slot + t], TSR_TC_NO_OP, printed, k);
            fails = !any;
        }
        if (!fails)
            return false;
    }
    /* the slots not printed get their default ops (asm_engine.c finalize) */
    for (uint32_t t = 0; t < F->nslot; t++) {
        if (t < 64 && (printed >> t & 1))
            continue;
        unsigned slot = isa->idx[F->slot + t];
        unsigned opi = isa->slots[slot].default_op;
        if (ops[slot] != opi || !tsr_px_conds(&P, isa->ops[opi].cond, isa->ops[opi].ncond))
            return false;
    }
    /* FIELD == FIELD: each pair needs a bound side, and the instruction satisfies it */
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t i = 0; i < x->neq; i += 2) {
            unsigned a = x->eq[i], b = x->eq[i + 1];
            if (x->bound[a] && x->bound[b])
                continue;
            if (!x->bound[a] && !x->bound[b])
                continue;
            unsigned from = x->bound[a] ? a : b, to = x->bound[a] ? b : a;
            if (!tsr_px_bind_field(&P, to, P.f[from]))
                return false;
            changed = true;
        }
    }
    for (size_t i = 0; i < x->neq; i += 2) {
        unsigned a = x->eq[i], b = x->eq[i + 1];
        if (!x->bound[a] || !x->bound[b] ||
            ((P.f[a] ^ P.f[b]) & tsr_bits_mask(isa->fields[a].width) & tsr_bits_mask(isa->fields[b].width)))
            return false;
    }
    /* (1) the fields nothing bound: the first default for them (ops' in slot order, then the format's), else
     * 0 (asm_engine.c finalize); bound[] marks 2 the fields a default reached */
    for (uint32_t t = 0; t <= F->nslot; t++) {
        const struct tsr_tc_default *d;
        uint32_t nd;
        if (t < F->nslot) {
            const struct tsr_tc_op *op = &isa->ops[ops[isa->idx[F->slot + t]]];
            d = isa->defs + op->def, nd = op->ndef;
        } else {
            d = isa->defs + F->def, nd = F->ndef;
        }
        for (uint32_t i = 0; i < nd; i++) {
            unsigned fd = d[i].field;
            if (x->bound[fd])
                continue;
            if ((d[i].val & tsr_bits_mask(isa->fields[fd].width)) != P.f[fd])
                return false;
            x->bound[fd] = 2;
        }
    }
    /* the format's fields: the round-trip check compares those and no other (dis_engine.c attempt: the
     * overrides name only the format's fields), so that is what "no override" claims */
    for (uint32_t i = 0; i < F->nfield; i++) {
        unsigned fd = isa->idx[F->field + i];
        if (!x->bound[fd] && P.f[fd])
            return false;
    }
    if (x->steps > TSR_DIS_BUDGET)
        return false;
    return true;
}

void tsr_dis_exact_free(struct tsr_dis_exact *x)
{
    tsr_dis_fast_free(x);
    tsr_dis_plan_free(x);
    tsr_dis_static_free(&x->st);
    tsr_dis_cands_free(&x->cands);
    free(x->spin.e);
    free(x->spin.req);
    free(x->spin.anch);
    free(x->spin.achars);
    free(x->spin.achared);
    free(x->spin.abind);
    free(x->spin.lead);
    free(x->spin.hm);
    free(x->bound);
    free(x->root);
    free(x->oplead);
    free(x->memo);
    free(x->opbinds);
    free(x->eq);
    memset(x, 0, sizeof *x);
}
