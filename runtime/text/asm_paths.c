/* Every match of one bundle part (asm_paths.h): the matcher of asm_engine.c run over every format with a
 * `collect` step in place of its final one, which records the path and answers false so that the search goes
 * on to the next choice. */
#include <stdlib.h>
#include <string.h>

#include "asm_match.h"
#include "text/asm_paths.h"

static bool same_path(const struct tsr_asm_paths *o, const struct tsr_asm_path *x, const struct tsr_asm_path *y)
{
    return x->format == y->format && x->slot == y->slot && x->n == y->n &&
           !memcmp(o->field + x->first, o->field + y->first, x->n * sizeof *o->field) &&
           !memcmp(o->val + x->first, o->val + y->first, x->n * sizeof *o->val);
}

/* Is field fd bound by a selector condition of format F (the same in every path of F: left out)? */
static bool fixed_by_format(const struct tsr_tc_isa *isa, const struct tsr_tc_format *F, uint32_t fd)
{
    for (uint32_t i = 0; i < F->ncond; i++)
        if (isa->conds[F->cond + i].kind == TSR_TC_BIND && isa->conds[F->cond + i].field == fd)
            return true;
    return false;
}

/* The path the matcher has just completed: its slot (the one op placed) and the bound fields. */
static bool collect(struct tsr_asm *a)
{
    struct tsr_asm_paths *o = a->collect_ctx;
    const struct tsr_tc_isa *isa = a->isa;
    const struct tsr_tc_format *F = &isa->formats[a->fmt];
    if (o->n >= TSR_ASM_MAX_PATHS) {
        a->aborted = true;   /* (stops the search; the caller reports the paths unknown) */
        return false;
    }
    unsigned slot = UINT16_MAX;
    for (uint32_t t = 0; t < F->nslot; t++)
        if (a->op[isa->idx[F->slot + t]] != TSR_TC_NO_OP)
            slot = isa->idx[F->slot + t];
    PUSH(o->p, o->n, o->cap);
    struct tsr_asm_path *p = &o->p[o->n];
    *p = (struct tsr_asm_path){ (uint16_t)a->fmt, (uint16_t)slot, (uint32_t)o->nfix, 0, 0 };
    /* every binding is on the trail (one entry per field: a bound field is never set again while matching) */
    for (size_t i = 0; i < a->ntrail; i++) {
        uint32_t fd = a->trail[i].field;
        if (a->set[fd].st != ST_BOUND || fixed_by_format(isa, F, fd))
            continue;
        if (o->nfix == o->cfix) {
            o->cfix = o->cfix ? 2 * o->cfix : 64;
            o->field = am_xrealloc(o->field, o->cfix * sizeof *o->field);
            o->val = am_xrealloc(o->val, o->cfix * sizeof *o->val);
        }
        size_t j = o->nfix++;
        while (j > p->first && o->field[j - 1] > fd) {   /* insertion in field order */
            o->field[j] = o->field[j - 1];
            o->val[j] = o->val[j - 1];
            j--;
        }
        o->field[j] = (uint16_t)fd;
        o->val[j] = a->f[fd];
        p->n++;
        p->sum |= (uint64_t)1 << (fd & 63);
    }
    for (size_t i = 0; i < o->n; i++)
        if (same_path(o, &o->p[i], p)) {
            o->nfix = p->first;
            return false;
        }
    o->n++;
    return false;
}

struct tsr_asm *tsr_asm_paths_scratch_new(const struct tsr_tc_isa *isa)
{
    return tsr_asm_new(isa);
}

void tsr_asm_paths_scratch_free(struct tsr_asm *a)
{
    tsr_asm_free(a);
}

int tsr_asm_part_paths(struct tsr_asm *a, const char *s, size_t n, struct tsr_asm_paths *out)
{
    out->n = out->nfix = 0;
    if (n > 4096 || memchr(s, ';', n) || memchr(s, '{', n))
        return -1;
    uint32_t q = 0;
    while (q < n && tsr_asm_isblank(s[q]))
        q++;
    if (q == n || s[q] == '.')
        return -1;
    a->s = s;
    a->n = a->lim = (uint32_t)n;
    a->pc = 0;
    a->novr = 0;
    a->env = false;
    a->pending = false;
    a->too_many = false;
    a->diagnose = false;
    a->pin = -1;
    a->nparts = 1;
    a->pstart[0] = 0;
    a->pend[0] = (uint32_t)n;
    a->have[0][0] = a->have[0][1] = 0;
    for (size_t j = 0; j < n; j++)
        if ((unsigned char)s[j] < 128)
            a->have[0][(unsigned char)s[j] >> 6] |= (uint64_t)1 << (s[j] & 63);
    am_candidates(a, 0);
    a->collect = collect;
    a->collect_ctx = out;
    am_search(a, false);   /* false: collect refuses every path */
    a->collect = NULL;
    a->collect_ctx = NULL;
    a->msg[0] = 0;
    if (a->aborted || a->env) {
        out->n = out->nfix = 0;
        return -1;
    }
    return 0;
}

void tsr_asm_paths_free(struct tsr_asm_paths *p)
{
    free(p->p);
    free(p->field);
    free(p->val);
    memset(p, 0, sizeof *p);
}
