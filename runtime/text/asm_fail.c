/* The bundle assembler's failure messages (asm_match.h am_format_fail): the furthest failure the matcher of
 * asm_engine.c recorded, as the one diagnostic of a bundle that does not assemble (docs/asm.md "Matching a
 * bundle"). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "asm_match.h"

/* A span made by cspan() (length UINT32_MAX: a NUL-terminated name) with its length worked out. */
static struct span resolved(struct span x)
{
    if (x.n == UINT32_MAX)
        x.n = (uint32_t)strlen(x.p);
    return x;
}

/* Length of the token at pos for messages: up to a blank, ',' or ';' (at least one byte). */
static uint32_t toklen(const struct tsr_asm *a, uint32_t pos)
{
    uint32_t q = pos;
    if (q >= a->n)
        return 0;
    if (tsr_asm_isident(a->s[q])) {
        while (q < a->n && tsr_asm_isident(a->s[q]))
            q++;
        return q - pos;
    }
    while (q < a->n && !tsr_asm_isblank(a->s[q]) && a->s[q] != ',' && a->s[q] != ';' && q - pos < 40)
        q++;
    return q > pos ? q - pos : 1;
}

static const char *verb_text(int verb)
{
    return verb == TSR_TC_READ ? "read" : verb == TSR_TC_WRITE ? "write" : "use it for";
}

/* Does p point into the bundle text (rather than at a name in the tables)? */
static bool within(const struct tsr_asm *a, const char *p)
{
    uintptr_t x = (uintptr_t)p, b = (uintptr_t)a->s;
    return x >= b && x <= b + a->n;
}

void am_format_fail(struct tsr_asm *a)
{
    a->fail.a = resolved(a->fail.a);
    a->fail.b = resolved(a->fail.b);
    const struct failrec *fr = &a->fail;
    const struct tsr_tc_isa *isa = a->isa;
    char *m = a->msg;
    size_t cap = sizeof a->msg;
    uint32_t tl = toklen(a, fr->pos);
    const char *tok = a->s + fr->pos;
    a->msgpos = fr->pos;
    switch (fr->kind) {
    case F_UNKNOWN:
        if (tl)
            snprintf(m, cap, "unknown instruction '%.*s'", (int)tl, tok);
        else
            snprintf(m, cap, "empty bundle part");
        break;
    case F_SLOT:
        snprintf(m, cap, "no slot of format '%s' left for '%.*s'", fr->text, (int)tl, tok);
        break;
    case F_TAKEN:   /* (addition) X7 wide ops: fr->text the slot, fr->field the wide op */
        snprintf(m, cap, "slot '%s' is taken by the wide op '%s'", fr->text, isa->ops[fr->field].name);
        break;
    case F_EXPECTED:
        if (tl)
            snprintf(m, cap, "expected '%s' before '%.*s'", fr->text, (int)tl, tok);
        else
            snprintf(m, cap, "expected '%s' at the end of '%.*s'", fr->text, (int)(a->lim - a->pstart[0]), a->s);
        break;
    case F_UNEXPECTED:
        snprintf(m, cap, "unexpected '%.*s'", (int)tl, tok);
        break;
    case F_OPERAND:
        if (tl)
            snprintf(m, cap, "invalid operand '%.*s'", (int)tl, tok);
        else
            snprintf(m, cap, "missing operand");
        break;
    case F_EXPR:
    case F_UNDEF:
        a->msgpos = fr->tpos;
        snprintf(m, cap, fr->text, (int)fr->tlen, a->s + fr->tpos);
        break;
    case F_FIT: {
        const struct tsr_tc_field *fd = &isa->fields[fr->field];
        char num[24], what[160];
        if (fr->valu)
            snprintf(num, sizeof num, "%" PRIu64, (uint64_t)fr->val);
        else
            snprintf(num, sizeof num, "%" PRId64, fr->val);
        int n = (int)(fr->tlen < 100 ? fr->tlen : 100);
        const char *t = a->s + fr->tpos;
        if (fr->rel)
            snprintf(what, sizeof what, "offset %s to '%.*s%s'", fr->huge ? "below -2^63" : num, n, t,
                     fr->tlen > 100 ? "..." : "");
        else if (fr->tlen == strlen(num) && memcmp(t, num, fr->tlen) == 0)
            snprintf(what, sizeof what, "value %s", num);   /* a decimal literal: the value as written */
        else
            snprintf(what, sizeof what, "value '%.*s%s' = %s", n, t, fr->tlen > 100 ? "..." : "", num);
        snprintf(m, cap, "%s does not fit field %s (%u bits%s)", what, fd->name, (unsigned)fd->width,
                 fd->is_signed ? ", signed" : "");
        break;
    }
    case F_PARTS:
        snprintf(m, cap, "too many parts: format '%s' has only %" PRId64 " slot%s", fr->text, fr->val,
                 fr->val == 1 ? "" : "s");
        break;
    case F_CHECK:
        a->msgpos = within(a, fr->a.p) ? (size_t)(fr->a.p - a->s) : 0;
        snprintf(m, cap, "'%.*s' cannot be encoded here: condition '%s' does not hold", (int)fr->a.n, fr->a.p,
                 isa->conds[fr->cond].text);
        break;
    case F_CONFLICT:
        a->msgpos = within(a, fr->b.p) ? (size_t)(fr->b.p - a->s) : fr->pos;
        snprintf(m, cap, "%s is already used by '%.*s'; cannot also %s '%.*s'", isa->fields[fr->field].name,
                 (int)fr->a.n, fr->a.p, verb_text(fr->verb), (int)fr->b.n, fr->b.p);
        break;
    case F_OVERRIDE:
        snprintf(m, cap, "%s", fr->text);
        break;
    case F_AMBIG:
        snprintf(m, cap, "bundle too ambiguous: gave up after %d matching steps", STEP_LIMIT);
        break;
    default:
        snprintf(m, cap, "cannot assemble '%.*s'", (int)a->n, a->s);
        break;
    }
}
