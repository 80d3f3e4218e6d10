/* The packer's dependence facts, taken from the description alone (docs/pack.md "Dependences"): the events
 * of each instruction as the generated validator lists them (struct tsr_vdesc, runtime/validate/validate.h), the
 * `latency` rules and the `order` classes.  Nothing here knows the target. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pack_int.h"
#include "target.h"

int tsr_pack_ev_init(const struct tsr_target *t, const uint32_t *w, struct tsr_pack_ev *e)
{
    const struct tsr_vdesc *D = t->vdesc;
    if (!D)
        return -1;
    if (!e->f) {
        e->f = calloc(D->nfields ? D->nfields : 1, sizeof *e->f);
        if (!e->f)
            abort();
    }
    memset(&e->vb, 0, sizeof e->vb);
    e->vb.f = e->f;
    D->events(w, 0, &e->vb);
    e->ctl = TSR_PACK_CTL_NONE;
    e->delay = 0;
    e->falls = true;
    e->pat[0] = e->pat[1] = D->nrules > 64 ? ~(uint64_t)0 : 0;
    for (int r = 0; r < D->nrules && r < 64; r++)
        for (int p = 0; p < 2 && p < D->rules[r].npat; p++)
            for (int i = 0; i < e->vb.nev; i++)
                if (D->rules[r].pat[p](&e->vb.ev[i], e->vb.f)) {
                    e->pat[p] |= (uint64_t)1 << r;
                    break;
                }
    for (int i = 0; i < e->vb.nev; i++) {
        const struct tsr_vev *x = &e->vb.ev[i];
        if (x->kind != TSR_V_JUMP && x->kind != TSR_V_HALT)
            continue;
        e->ctl = x->kind == TSR_V_JUMP ? TSR_PACK_CTL_JUMP : TSR_PACK_CTL_END;
        e->delay = x->delay > e->delay ? x->delay : e->delay;
        e->falls = x->cond;
    }
    return 0;
}

void tsr_pack_ev_free(struct tsr_pack_ev *e)
{
    free(e->f);
    e->f = NULL;
}

static bool is_read(const struct tsr_vev *e)
{
    return e->kind == TSR_V_RSTATE || e->kind == TSR_V_RSPACE || e->kind == TSR_V_RLATE;
}
static bool is_write(const struct tsr_vev *e) { return e->kind == TSR_V_WSTATE; }

/* The first event of b matching pattern p (and touching the element of `like`, if given), or NULL. */
static const struct tsr_vev *find(const struct tsr_vbundle *b, tsr_vmatch_fn p, const struct tsr_vev *like)
{
    for (int i = 0; i < b->nev; i++)
        if (p(&b->ev[i], b->f) && (!like || tsr_vev_same(&b->ev[i], like)))
            return &b->ev[i];
    return NULL;
}

/* Does some event of a matching pattern p touch the element of some event of b matching q? */
static bool pair(const struct tsr_vbundle *a, tsr_vmatch_fn p, const struct tsr_vbundle *b, tsr_vmatch_fn q,
                 bool same)
{
    for (int j = 0; j < b->nev; j++)
        if (q(&b->ev[j], b->f) && find(a, p, same ? &b->ev[j] : NULL))
            return true;
    return false;
}

int tsr_pack_dep(const struct tsr_vdesc *D, const struct tsr_pack_ev *ea, const struct tsr_pack_ev *eb)
{
    const struct tsr_vbundle *a = &ea->vb, *b = &eb->vb;
    int lat = -1;
    /* state elements (space accesses that reach no state, i.e. hooks, are ordered only by `order` classes) */
    for (int i = 0; i < a->nev; i++) {
        const struct tsr_vev *x = &a->ev[i];
        if (x->kind != TSR_V_RSTATE && x->kind != TSR_V_WSTATE && x->kind != TSR_V_RLATE)
            continue;
        for (int j = 0; j < b->nev; j++) {
            const struct tsr_vev *y = &b->ev[j];
            if ((y->kind != TSR_V_RSTATE && y->kind != TSR_V_WSTATE && y->kind != TSR_V_RLATE) ||
                !tsr_vev_same(x, y))
                continue;
            int l = is_write(x) ? 1 : is_write(y) ? 0 : -1;
            lat = l > lat ? l : lat;
        }
    }
    for (int r = 0; r < D->nrules; r++) {
        const struct tsr_vrule *R = &D->rules[r];
        uint64_t bit = r < 64 ? (uint64_t)1 << r : 0;
        if (bit && !(ea->pat[0] & eb->pat[R->npat > 1 ? 1 : 0] & bit) && !(ea->pat[1] & eb->pat[0] & bit))
            continue;   /* neither direction can match */
        if (R->kind == TSR_VR_LATENCY && R->npat == 2) {
            if (R->lo > lat && pair(a, R->pat[0], b, R->pat[1], R->same))
                lat = R->lo;
            else if (lat < 0 && pair(a, R->pat[1], b, R->pat[0], R->same))
                lat = 0;   /* a reads what b produces: b not before a */
        } else if (R->kind == TSR_VR_ORDER && R->npat == 1 && lat < 1) {
            for (int i = 0; i < a->nev && lat < 1; i++) {
                if (!R->pat[0](&a->ev[i], a->f))
                    continue;
                for (int j = 0; j < b->nev; j++)
                    if (R->pat[0](&b->ev[j], b->f)) {
                        int l = is_read(&a->ev[i]) && !is_read(&b->ev[j]) ? 0 : 1;
                        lat = l > lat ? l : lat;
                    }
            }
        }
    }
    return lat;
}

struct first { char *msg; size_t n; };
static void first_msg(void *p, const struct tsr_vviol *v)
{
    struct first *f = p;
    if (f->n && !f->msg[0])
        snprintf(f->msg, f->n, "rule %s: %s (ref: %s)", v->name, v->text, v->ref);
}

size_t tsr_pack_solo_check(const struct tsr_vdesc *D, const struct tsr_vbundle *b, char *msg, size_t n)
{
    struct first f = { msg, n };
    if (n)
        msg[0] = 0;
    return tsr_validate_hist(D, &b, 1, first_msg, &f);
}

bool tsr_pack_op_idle(const struct tsr_target *t, unsigned op)
{
    return op == TSR_NO_OP || !strcmp(t->op_names[op], "nop") || !strcmp(t->op_names[op], "none") ||
           !strcmp(t->op_names[op], "idle");
}
