/* The differential check of a generated simulator against the evaluator (diffsim.h). */
#include "diffsim.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

/* ---- fake peripherals -------------------------------------------------------------------------------- */

void mdl_fakehooks_reset(struct mdl_fakehooks *f, uint64_t seed, int lanes)
{
    unsigned s = f->stall_per_256, e = f->error_per_256, b = f->busy_per_256;
    memset(f, 0, sizeof *f);
    f->seed = seed;
    f->lanes = lanes;
    f->stall_per_256 = s;
    f->error_per_256 = e;
    f->busy_per_256 = b;
}

int mdl_fakehooks_call(void *ctx, int hook, enum tsr_hook_kind kind, const uint32_t *args, int nargs, uint32_t *v,
                       uint32_t lanemask)
{
    struct mdl_fakehooks *f = ctx;
    uint64_t h = mix64(f->seed ^ mix64(f->ncalls * 0x100 + (uint64_t)(hook + 8) * 8 + (uint64_t)kind));
    for (int i = 0; i < nargs; i++)
        h = mix64(h ^ args[i]);
    int rc = 0;
    if (hook < 0) /* ready / retire */
        rc = 0;
    else if (kind == TSR_HOOK_GUARD)
        rc = (h & 0xff) < f->busy_per_256;
    else if ((h & 0xff) < f->stall_per_256)
        rc = 1;
    else if (((h >> 8) & 0xff) < f->error_per_256)
        rc = -1;
    uint64_t vh = 0;
    if (v && rc == 0) {
        for (int l = 0; l < f->lanes; l++) {
            if (kind == TSR_HOOK_WRITE) {
                if (lanemask >> l & 1)
                    vh = mix64(vh ^ v[l] ^ (uint64_t)l << 32);
            } else {
                v[l] = (uint32_t)mix64(h + (uint64_t)l);
                /* some small values and float-ish values too */
                if ((h >> 16 & 3) == 0)
                    v[l] &= 0xf;
                else if ((h >> 16 & 3) == 1)
                    v[l] = (v[l] & 0x807fffffu) | 0x3f000000u;
                vh = mix64(vh ^ v[l]);
            }
        }
    }
    struct mdl_fake_call c = {hook, (int)kind, nargs, {0}, lanemask, (uint32_t)vh, rc};
    for (int i = 0; i < nargs && i < 4; i++)
        c.args[i] = args[i];
    if (f->nlog < MDL_FAKE_LOG)
        f->log[f->nlog++] = c;
    f->hash = mix64(f->hash ^ mix64(((uint64_t)(uint32_t)hook << 32 | (uint32_t)kind) ^ vh ^
                                    (uint64_t)lanemask << 17 ^ (uint64_t)(rc + 2)));
    for (int i = 0; i < nargs; i++)
        f->hash = mix64(f->hash ^ args[i]);
    f->ncalls++;
    return rc;
}

static const char *hook_name(const struct mdl_model *m, int h)
{
    return h >= 0 && h < m->nhooks ? m->hooks[h].name : h == TSR_HOOK_READY ? "ready" : h == TSR_HOOK_RETIRE ? "retire" : "?";
}

static int call_str(char *buf, size_t n, const struct mdl_model *m, const struct mdl_fake_call *c)
{
    int k = snprintf(buf, n, "%s(", hook_name(m, c->hook));
    for (int i = 0; i < c->nargs && i < 4 && k > 0 && (size_t)k < n; i++)
        k += snprintf(buf + k, n - (size_t)k, "%s%" PRIu32, i ? ", " : "", c->args[i]);
    if (k > 0 && (size_t)k < n)
        k += snprintf(buf + k, n - (size_t)k, ") kind %d mask 0x%" PRIx32 " values #%08" PRIx32 " -> %d", c->kind,
                      c->mask, c->vhash, c->rc);
    return k;
}

int mdl_fakehooks_compare(const struct mdl_fakehooks *a, const struct mdl_fakehooks *b, const struct mdl_model *m,
                          char *report, size_t n)
{
    if (a->ncalls == b->ncalls && a->hash == b->hash)
        return 0;
    int k = a->nlog < b->nlog ? a->nlog : b->nlog, i;
    for (i = 0; i < k; i++)
        if (memcmp(&a->log[i], &b->log[i], sizeof a->log[i]) != 0)
            break;
    char x[160] = "(none)", y[160] = "(none)";
    if (i < a->nlog)
        call_str(x, sizeof x, m, &a->log[i]);
    if (i < b->nlog)
        call_str(y, sizeof y, m, &b->log[i]);
    snprintf(report, n, "hook calls differ (evaluator %" PRIu64 " calls, simulator %" PRIu64 "); call %d: "
             "evaluator %s, simulator %s", a->ncalls, b->ncalls, i, x, y);
    return 1;
}

/* ---- the harness --------------------------------------------------------------------------------------- */

void mdl_diffsim_fini(struct mdl_diffsim *ds)
{
    if (ds->d && ds->sim)
        ds->d->fini(ds->sim);
    free(ds->sim);
    free(ds->inst);
    free(ds->inst2);
    if (ds->ev.val)
        mdl_evstate_fini(&ds->ev);
    memset(ds, 0, sizeof *ds);
}

int mdl_diffsim_init(struct mdl_diffsim *ds, const struct mdl_model *m, const struct tsr_target *t,
                     const struct tsr_sim_desc *d0)
{
    memset(ds, 0, sizeof *ds);
    ds->m = m;
    ds->t = t;
    ds->d = d0 ? d0 : t ? t->sim : NULL;
    if (!m || !t || !ds->d) {
        snprintf(ds->report, sizeof ds->report, "diffsim: no model, target or simulator descriptor");
        return -1;
    }
    const struct tsr_sim_desc *d = ds->d;
    if (d->nstates != m->nstates || d->nslots != m->nslots || d->nfields != m->nfields || d->lanes != mdl_sim_lanes(m) ||
        (unsigned)m->nfields != t->nfields || (unsigned)m->nslots != t->nslots) {
        snprintf(ds->report, sizeof ds->report, "diffsim: the target was not generated from this model");
        return -1;
    }
    ds->sim = calloc(1, d->sim_size);
    ds->inst = calloc(1, t->inst_size);
    ds->inst2 = calloc(1, t->inst_size);
    if (!ds->sim || !ds->inst || !ds->inst2 || mdl_evstate_init(&ds->ev, m)) {
        snprintf(ds->report, sizeof ds->report, "diffsim: out of memory");
        mdl_diffsim_fini(ds);
        return -1;
    }
    d->init(ds->sim);
    ds->hs = (struct tsr_sim_hooks){mdl_fakehooks_call, &ds->fs};
    ds->he = (struct tsr_sim_hooks){mdl_fakehooks_call, &ds->fe};
    return 0;
}

struct rng { uint64_t s; const uint8_t *p; size_t n; };

static uint64_t rnd(struct rng *r)
{
    r->s = mix64(r->s);
    return r->s;
}

/* The next byte of input, or a random one when the input is used up. */
static uint8_t in_byte(struct rng *r)
{
    if (r->n) {
        r->n--;
        return *r->p++;
    }
    return (uint8_t)rnd(r);
}

static uint32_t rnd_value(struct rng *r)
{
    static const uint32_t special[] = {0x3f800000u, 0xbf800000u, 0x80000000u, 0x7f800000u, 0xff800000u,
                                       0x7fffffffu, 0x00000001u, 0x007fffffu, 0x40000000u, 0x3f000000u,
                                       0xffffffffu, 0x7f7fffffu, 0x00800000u, 0x4b000000u, 0xcf000000u, 0x000000ffu};
    uint64_t x = rnd(r);
    switch (x & 7) {
    case 0: return 0;
    case 1: return 1;
    case 2: return (uint32_t)(x >> 8) & 0xff;
    case 3: return special[(x >> 8) & 15];
    default: return (uint32_t)(x >> 32);
    }
}

/* (X6) Random histories of the forwards: for each age of the window an entry that is present (its window the
 * forward's or narrowed, sometimes stale), absent (the instruction wrote none) or unknown (before the start). */
static void random_fwds(struct mdl_diffsim *ds, struct rng *r)
{
    const struct mdl_model *m = ds->m;
    struct mdl_evstate *st = &ds->ev;
    const char *reg = "R";
    for (int s = 0; s < m->nstates; s++)
        if (m->states[s].latency > 0)
            reg = m->states[s].name;
    for (int f = 0; f < m->nfwds; f++) {
        const struct mdl_fwd *fw = &m->fwds[f];
        int n = fw->hi + 1;
        for (int e = 0; e < (fw->count > 0 ? fw->count : 1); e++) {
            struct tsr_fwd_ent *ring = mdl_evstate_fwd(st, f, e);
            for (int j = 0; j < n; j++) {
                memset(&ring[j], 0, sizeof ring[j]);
                ring[j].serial = TSR_SIM_NEVER;
            }
            for (int age = 1; age <= fw->hi; age++) {
                int64_t serial = (int64_t)st->ctl.icount - age;
                struct tsr_fwd_ent *en = &ring[serial % n];
                uint64_t k = rnd(r) & 15;
                if (k == 0)
                    continue;   /* unknown */
                en->serial = serial;
                en->pc = (uint32_t)(rnd(r) % 4096) * (uint32_t)m->pc_step;
                if (k <= 2)
                    continue;   /* absent */
                en->present = true;
                int lo = fw->lo, hi = fw->hi;
                if (k == 3 && lo < hi)   /* a narrowed window (`ages`) */
                    lo = hi = lo + (int)(rnd(r) % (uint64_t)(hi - lo + 1));
                en->lo = (uint8_t)lo;
                en->hi = (uint8_t)hi;
                for (int l = 0; l < (fw->vec ? st->lanes : 1); l++)
                    en->v[l] = rnd_value(r);
                if (k == 4) {   /* stale: its value read a regfile inside its latency */
                    en->stale.state = reg;
                    en->stale.elem = (int32_t)(rnd(r) % 8);
                    en->stale.latency = 3;
                    en->stale.dist = (int64_t)(rnd(r) % 3);
                }
            }
        }
    }
}

static void random_state(struct mdl_diffsim *ds, struct rng *r, uint8_t flags)
{
    const struct mdl_model *m = ds->m;
    struct mdl_evstate *st = &ds->ev;
    tsr_sim_ctl_init(&st->ctl);
    st->ctl.icount = 16 + rnd(r) % 1000;
    for (int s = 0; s < m->nstates; s++) {
        int ne = mdl_evstate_elems(st, s), w = mdl_evstate_width(st, s);
        for (int e = 0; e < ne; e++) {
            uint32_t *p = mdl_evstate_elem(st, s, e);
            uint64_t style = rnd(r) & 3;
            for (int l = 0; l < w; l++)
                p[l] = style == 0 ? (uint32_t)(rnd(r) & 1) : rnd_value(r);
            if (st->wtime[s]) {
                uint64_t k = rnd(r) & 7;
                /* mostly long ago; sometimes 1..3 bundles ago (hazards) */
                st->wtime[s][e] = (flags & 0x10) && k < 3 ? (int64_t)st->ctl.icount - (int64_t)(k + 1)
                                  : k == 3 ? (int64_t)st->ctl.icount - 100 : TSR_SIM_NEVER;
            }
        }
    }
    if (m->pc_state >= 0)
        mdl_evstate_elem(st, m->pc_state, 0)[0] = (uint32_t)(rnd(r) % 4096) * (uint32_t)m->pc_step;
    if (flags & 0x20) {
        int np = (int)(rnd(r) % 3);
        for (int i = 0; i < np; i++) {
            st->ctl.pend[i].kind = (rnd(r) & 7) == 0;
            st->ctl.pend[i].left = 1 + (int)(rnd(r) % 3);
            st->ctl.pend[i].target = (uint32_t)(rnd(r) % 4096) * (uint32_t)m->pc_step;
        }
        st->ctl.npend = np;
    }
    if (flags & 0x40)
        st->ctl.flags |= TSR_SIM_F_HAZARD_WARN;
    random_fwds(ds, r);
}

static void describe(struct mdl_diffsim *ds, char *buf, size_t n, const uint32_t *w, int format, const int *ops)
{
    const struct mdl_model *m = ds->m;
    int k = snprintf(buf, n, "bundle");
    for (unsigned i = 0; i < ds->t->nwords && k > 0 && (size_t)k < n; i++)
        k += snprintf(buf + k, n - (size_t)k, " %08" PRIx32, w[i]);
    if (k > 0 && (size_t)k < n)
        k += snprintf(buf + k, n - (size_t)k, " (format %s", format >= 0 && format < m->nformats ?
                      m->formats[format].name : "-");
    for (int s = 0; s < m->nslots && k > 0 && (size_t)k < n; s++)
        if (ops[s] >= 0 && ops[s] < m->nops)
            k += snprintf(buf + k, n - (size_t)k, ", %s: %s", m->slots[s].name, m->ops[ops[s]].name);
    if (k > 0 && (size_t)k < n)
        snprintf(buf + k, n - (size_t)k, ")");
}

int mdl_diffsim_one(struct mdl_diffsim *ds, const uint8_t *data, size_t size)
{
    const struct mdl_model *m = ds->m;
    const struct tsr_target *t = ds->t;
    const struct tsr_sim_desc *d = ds->d;
    struct rng r = {0, data, size};
    uint8_t flags = in_byte(&r);
    uint64_t seed = 0;
    for (int i = 0; i < 8; i++)
        seed = seed << 8 | in_byte(&r);
    r.s = mix64(seed ^ flags);
    ds->report[0] = 0;

    /* the same random state on both sides */
    random_state(ds, &r, flags);
    d->fini(ds->sim);
    d->init(ds->sim);
    d->set_hooks(ds->sim, &ds->hs);
    mdl_evstate_to_sim(&ds->ev, d, ds->sim);
    d->ctl(ds->sim)->flags = ds->ev.ctl.flags;
    ds->ev.hooks = &ds->he;
    unsigned rate = (flags & 0x80) ? 24 : 0;
    ds->fs.stall_per_256 = ds->fe.stall_per_256 = rate;
    ds->fs.error_per_256 = ds->fe.error_per_256 = rate / 3;
    ds->fs.busy_per_256 = ds->fe.busy_per_256 = 32;
    mdl_fakehooks_reset(&ds->fs, seed, mdl_sim_lanes(m));
    mdl_fakehooks_reset(&ds->fe, seed, mdl_sim_lanes(m));

    int nb = 1 + (flags & 3);
    for (int b = 0; b < nb; b++) {
        uint32_t w[8] = {0}, w2[8] = {0};
        unsigned nw = t->nwords < 8 ? t->nwords : 8;
        for (unsigned i = 0; i < nw; i++)
            for (int j = 0; j < 4; j++)
                w[i] |= (uint32_t)in_byte(&r) << (8 * j);
        int ops[64], ops2[64], format = -1, format2 = -1;
        uint64_t fields[256], fields2[256];
        if (m->nslots > 64 || m->nfields > 256) {
            snprintf(ds->report, sizeof ds->report, "diffsim: model too large for the harness");
            return 1;
        }
        /* the evaluator's bundle: the words decoded */
        d->decode(w, &format, ops, fields);
        /* the simulator's: encoded and decoded again */
        memset(ds->inst, 0, t->inst_size);
        t->decode(w, ds->inst);
        t->encode(ds->inst, w2);
        d->decode(w2, &format2, ops2, fields2);
        char what[256];
        describe(ds, what, sizeof what, w, format, ops);
        if (memcmp(w, w2, nw * sizeof *w) != 0) {
            snprintf(ds->report, sizeof ds->report, "%s: encode(decode(w)) gives %08" PRIx32 " %08" PRIx32, what,
                     w2[0], nw > 1 ? w2[1] : 0);
            return 1;
        }
        int re = mdl_eval_bundle(m, &ds->ev, fields, format, ops);
        int rs = d->exec(ds->sim, format2, ops2, fields2);
        ds->runs++;
        char diff[768] = "";
        int bad = 0;
        if (re != rs) {
            snprintf(diff, sizeof diff, "return code: evaluator %d, simulator %d (evaluator: \"%s\"; simulator: \"%s\")",
                     re, rs, ds->ev.ctl.msg, d->ctl(ds->sim)->msg);
            bad = 1;
        } else if (mdl_evstate_compare_sim(&ds->ev, d, ds->sim, diff, sizeof diff)) {
            bad = 1;
        } else if (mdl_fakehooks_compare(&ds->fe, &ds->fs, m, diff, sizeof diff)) {
            bad = 1;
        }
        if (bad) {
            snprintf(ds->report, sizeof ds->report, "%s (%d of %d, flags 0x%02x, seed 0x%016" PRIx64 "): %s", what,
                     b + 1, nb, flags, seed, diff);
            return 1;
        }
        if (re == TSR_SIM_OK)
            ds->ok++;
        else if (re == TSR_SIM_HALTED)
            ds->halted++;
        else if (re == TSR_SIM_STALL)
            ds->stalled++;
        else if (re == TSR_SIM_HAZARD)
            ds->hazards++;
        else
            ds->errors++;
        if (format < 0)
            ds->undecodable++;
        if (re != TSR_SIM_OK)
            break;
    }
    return 0;
}

int mdl_diffsim_fuzz_one(const struct tsr_target *t, const struct tsr_sim_desc *d, const char *mdl_path,
                         const uint8_t *data, size_t size)
{
    static struct mdl_diffsim ds;
    static struct mdl_model *model;
    static int state; /* 0 not set up, 1 ready, -1 failed */
    if (state == 0) {
        struct tsr_diag diag;
        tsr_diag_init(&diag, TSR_DIAG_PRINT, stderr);
        model = mdl_load(mdl_path, &diag);
        const char *root = getenv("TESSERA_ROOT");
        if (!model && root && mdl_path[0] != '/') {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", root, mdl_path);
            model = mdl_load(path, &diag);
        }
        tsr_diag_fini(&diag);
        state = model && mdl_diffsim_init(&ds, model, t, d) == 0 ? 1 : -1;
        if (state < 0)
            fprintf(stderr, "diffsim: setup failed: %s\n", model ? ds.report : "cannot load the description");
    }
    if (state < 0)
        return -1;
    int rc = mdl_diffsim_one(&ds, data, size);
    if (rc)
        fprintf(stderr, "diffsim: %s\n", ds.report);
    return rc;
}
