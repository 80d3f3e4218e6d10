/* Fuzzer: the bundle packer on every target whose packer works, against the original program's results (issue 12
 * point 7; docs/pack.md "Fuzzers").  fuzz_pack.c checks the QPU with programs it writes in the QPU's syntax; this one
 * knows no target: its programs are whole instructions, and every fact comes from the target descriptor, the
 * validator's events and the simulator descriptor (struct tsr_sim_desc).
 *
 * From the input it builds a straight-line program of bundled instructions (below), then:
 *   1. the original runs in the generated simulator through the descriptor (init, state, step) from a random
 *      initial state, with the description's rules checked as it issues (TSR_SIM_F_RULES) and with no platform
 *      behind the hooks: a hook call is an error, except the ready and retire hooks and guards (never busy).  It
 *      must end clean (instructions that did not were left out when the program was built; a failure here is a
 *      bug of this harness);
 *   2. the generated validator (tsr_validate) runs over the original; its report count decides step 6;
 *   3. tsr_unbundle splits it into one operation per line, as `tessera unbundle` does;
 *   4. tsr_pack_text packs that text, as `tessera pack` does;
 *   5. the packed text assembles (t->assemble);
 *   6. tsr_validate reports nothing on the packed program when it reported nothing on the original;
 *   7. the packed program runs like the original (rules checked unless the original broke some) from the same
 *      initial state, and ends the same way (its end reached, or run past its last instruction);
 *   8. every value of every state element, except the program counter `pc` (docs/mdl.md "Machine state"), is the
 *      same at the end, except the elements the packed program writes that no op of the original reads or writes
 *      (the packer's register spills take those: runtime/pack/pack_spill.c), and, on a target that declares some
 *      state `output`, the elements of its other states that the original writes (the packer may drop an input
 *      spill's last store: runtime/pack/pack_unspill.c).  Forwards (values with an age) are not
 *      compared: their rings hold the last instructions' values, which a schedule may change.
 * A program an op of which reads a forward value that no op of the program wrote (a value from before the program,
 * or one the format loads by itself, the Utgard GP's `^reg0@1`) is of no interest: the packer refuses such reads
 * (docs/pack.md "Values through forwards").  The program is built without them (below); minimising may make one.
 * Any failure is minimised (instructions removed one at a time, last first, while the failure keeps its kind and
 * first rule or state) and aborts with a readable dump: the original program (disassembled), its unbundled
 * operations, the packed output and the first difference (or the unbundler's, packer's, assembler's, validator's
 * or simulator's message), for the minimised input and then the original.
 *
 * Input bytes: [0] the target (its index in the registry, runtime/registry.h, modulo their number: the byte fuzz_sim,
 * fuzz_codec and fuzz_asm read; a target not in PACKED below makes the input uninteresting), [1..4] the seed of the
 * initial state, then items until MAX_INSTS instructions are kept or the bytes run out; each item starts with a
 * control byte c:
 *   c % 8 < 4: an instruction given literally: the next nwords * 4 bytes, 32-bit words little-endian, low word first
 *              (the generated seeds, fuzz/seedgen.c, are corpus programs written this way);
 *   c % 8 4-5: a copy of an instruction kept before (the next byte picks which);
 *   c % 8 6-7: a kept instruction (next byte) with one field (next byte, of t->nfields) set to a new value: the next
 *              byte (6) or the next 4 bytes little-endian (7), masked to the field's width (t->inst_set_field).
 * A candidate is kept only when it decodes (a format's selector holds), is no branch (no jump event in the
 * validator's events: straight-line programs only), is no conditional end, each read of a forward by one of its ops
 * reads a value that an op of a kept instruction wrote for that age (reads_routed), and the simulator issues it
 * after the instructions kept before without any error or hazard.  An unconditional end (a halt event: Tegra's end of
 * program) ends the program after its delay slots (the next kept instructions); a program whose input runs out
 * inside them loses its end.  A program without an end is run until it has issued its last instruction.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pack/pack.h"
#include "registry.h"
#include "sim/sim.h"
#include "tsr.h"
#include "validate/validate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The targets whose packer works (tests/test_pack.c, tests/test_tegra_pack.c): a target joins with one line here.
 * Each must also have a validator description and a simulator, checked on first use (an idle bundle it need not
 * have: the packer of value-named programs fills a bundle left empty with a move, docs/pack.md). */
static const char *const PACKED[] = {
    "qpu",
    "tegra",
    "utgard",
};

#define X(t) extern const struct tsr_sim_desc t##_sim_desc;
TSR_TARGETS
#undef X

static const struct fuzz_target { const struct tsr_target *t; const struct tsr_sim_desc *d; } fuzz_targets[] = {
#define X(t) { &t##_target, &t##_sim_desc },
    TSR_TARGETS
#undef X
};
#define NTARGETS (sizeof fuzz_targets / sizeof *fuzz_targets)

#define MAX_INSTS 24                    /* instructions of a program */
#define MAX_STEPS 10000                 /* steps of one run (stalls included: no hook stalls) */
#define MAX_WORDS (MAX_INSTS * TSR_PACK_MAX_NWORDS)

/* ---- the target and its machine ----------------------------------------------------------------------- */

struct tgt {
    const struct tsr_target *t;
    const struct tsr_sim_desc *D;
    int pc;                 /* the state index of `pc`, -1 if none */
    size_t nvals;           /* 32-bit values of the whole state, pc left out */
    void *sim;              /* D->sim_size bytes; live: initialised (fini before init again) */
    bool live;
    void *inst;             /* t->inst_size bytes */
    uint64_t *vf;           /* t->vdesc->nfields values for the validator's events */
    int *vstate;            /* per simulator state: the validator's state of the same name, -1 if none */
    size_t *ebase;          /* per simulator state: the index of its first element among all elements */
    size_t nelem;           /* elements of every state */
    unsigned char *touch;   /* per element: bit 0 the original's ops read or write it, bit 1 the packed program
                               writes it, bit 2 the original writes it (scan) */
    bool outputs;           /* the simulator declares some state `output` (the others' final values are no one's) */
};

/* 32-bit values one element of state s holds (tools/sim_generic.c elem_values). */
static size_t elem_values(const struct tsr_sim_desc *D, int s)
{
    return (size_t)(D->state_vec[s] ? D->lanes : 1) * D->state_ncomp[s];
}
static int elems(const struct tsr_sim_desc *D, int s) { return D->state_count[s] > 0 ? D->state_count[s] : 1; }

static bool packed_target(const struct tsr_target *t)
{
    for (size_t i = 0; i < sizeof PACKED / sizeof *PACKED; i++)
        if (!strcmp(PACKED[i], t->name))
            return true;
    return false;
}

/* The harness of registry target k, made on first use; NULL when it is not a packed target. */
static struct tgt *target(size_t k)
{
    static struct tgt tg[NTARGETS ? NTARGETS : 1];
    static bool made[NTARGETS ? NTARGETS : 1];
    struct tgt *g = &tg[k];
    if (made[k])
        return g->t ? g : NULL;
    made[k] = true;
    const struct tsr_target *t = fuzz_targets[k].t;
    if (!packed_target(t))
        return NULL;
    if (!t->vdesc || !fuzz_targets[k].d) {
        fprintf(stderr, "fuzz_repack: target '%s' is listed as packed but has no %s\n", t->name,
                !t->vdesc ? "validator description" : "simulator");
        abort();
    }
    g->t = t;
    g->D = fuzz_targets[k].d;
    g->pc = -1;
    for (int s = 0; s < g->D->nstates; s++) {
        if (!strcmp(g->D->state_names[s], "pc"))
            g->pc = s;
        else
            g->nvals += (size_t)elems(g->D, s) * elem_values(g->D, s);
    }
    g->sim = calloc(1, g->D->sim_size);
    g->inst = calloc(1, t->inst_size);
    g->vf = calloc(t->vdesc->nfields + 1, sizeof *g->vf);
    g->vstate = calloc((size_t)g->D->nstates + 1, sizeof *g->vstate);
    g->ebase = calloc((size_t)g->D->nstates + 1, sizeof *g->ebase);
    if (!g->sim || !g->inst || !g->vf || !g->vstate || !g->ebase)
        abort();
    for (int s = 0; s < g->D->nstates; s++) {
        g->ebase[s] = g->nelem;
        g->nelem += (size_t)elems(g->D, s);
        g->vstate[s] = -1;
        for (int v = 0; v < t->vdesc->nstates; v++)
            if (!strcmp(t->vdesc->state_names[v], g->D->state_names[s]) &&
                (t->vdesc->state_count[v] > 0 ? t->vdesc->state_count[v] : 1) == elems(g->D, s))
                g->vstate[s] = v;
    }
    for (int s = 0; s < g->D->nstates; s++)
        g->outputs |= g->D->state_output[s];
    if (!(g->touch = calloc(g->nelem + 1, 1)))
        abort();
    return g;
}

/* No platform behind the hooks: the ready and retire hooks agree, guards are never busy, every other call (a
 * peripheral read or write, a signal) fails, so the simulator reports "hook NAME failed" at that bundle. */
static int no_platform(void *ctx, int hook, enum tsr_hook_kind kind, const uint32_t *args, int nargs, uint32_t *v,
                       uint32_t lanemask)
{
    (void)ctx, (void)args, (void)nargs, (void)v, (void)lanemask;
    return hook < 0 || kind == TSR_HOOK_GUARD ? 0 : -1;
}
static const struct tsr_sim_hooks NO_PLATFORM = { no_platform, NULL };

/* xorshift32. */
static uint32_t rng_next(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

/* A value biased to the interesting ones: 0, 1, -1, small integers, float edge cases and small floats, random. */
static uint32_t rng_value(uint32_t *s)
{
    static const uint32_t special[] = { 0, 1, 0xffffffffu, 2, 0x80000000u, 0x7fffffffu, 0x3f800000u, 0xbf800000u,
                                        0x40490fdbu, 0x7f800000u, 0xff800000u, 0x00400000u, 0x3effffffu,
                                        0x4b000000u, 0x7fc00000u, 0x000000ffu };
    uint32_t r = rng_next(s);
    switch (r & 3) {
    case 0: return special[(r >> 2) & 15];
    case 1: return (r >> 8) & 0x3f;
    case 2: {   /* a float of a few bits: -64..64 in steps of 1/8 */
        float f = (float)((int)((r >> 8) & 1023) - 512) / 8.0f;
        uint32_t u;
        memcpy(&u, &f, 4);
        return u;
    }
    default: return rng_next(s);
    }
}

/* The initial values of every state but pc, in state and element order (g->nvals of them). */
static void make_init(const struct tgt *g, uint32_t seed, uint32_t *vals)
{
    uint32_t s = seed ? seed : 0x9e3779b9u;
    for (size_t i = 0; i < g->nvals; i++)
        vals[i] = rng_value(&s);
}

/* Initialises the simulator (no platform, the rules checked unless rules is false) and loads the initial values;
 * pc starts at 0. */
static void sim_start(struct tgt *g, const uint32_t *vals, bool rules)
{
    const struct tsr_sim_desc *D = g->D;
    if (g->live)
        D->fini(g->sim);
    D->init(g->sim);
    g->live = true;
    D->set_hooks(g->sim, &NO_PLATFORM);
    D->ctl(g->sim)->flags = rules ? TSR_SIM_F_RULES : 0;
    size_t at = 0;
    for (int s = 0; s < D->nstates; s++) {
        if (s == g->pc) {
            *D->state(g->sim, s, 0) = 0;
            continue;
        }
        size_t nv = elem_values(D, s);
        for (int e = 0; e < elems(D, s); e++, at += nv)
            memcpy(D->state(g->sim, s, e), vals + at, nv * sizeof *vals);
    }
}

/* Saves every state but pc into vals (g->nvals values). */
static void sim_save(const struct tgt *g, uint32_t *vals)
{
    const struct tsr_sim_desc *D = g->D;
    size_t at = 0;
    for (int s = 0; s < D->nstates; s++) {
        if (s == g->pc)
            continue;
        size_t nv = elem_values(D, s);
        for (int e = 0; e < elems(D, s); e++, at += nv)
            memcpy(vals + at, D->state(g->sim, s, e), nv * sizeof *vals);
    }
}

/* How a run ends. */
enum { RUN_HALTED = 1, RUN_FELL_OFF = 2 };

/* Runs the n instructions at w from vals (rules: check the description's rules as they issue) until the program
 * ends or has issued its last instruction (straight line: pc then points past it); saves the state into out.
 * Returns RUN_HALTED or RUN_FELL_OFF, or -1 with the simulator's message in msg. */
static int run(struct tgt *g, const uint32_t *w, size_t n, const uint32_t *vals, bool rules, uint32_t *out,
               char *msg, size_t mlen)
{
    const struct tsr_sim_desc *D = g->D;
    sim_start(g, vals, rules);
    int ret = n ? -1 : RUN_FELL_OFF;   /* no instructions (the packer drops idle ones): nothing runs */
    size_t issued = 0;
    for (int step = 0; step < MAX_STEPS && n; step++) {
        int rc = D->step(g->sim, w, n * g->t->nwords);
        if (rc == TSR_SIM_HALTED) {
            ret = RUN_HALTED;
            break;
        }
        if (rc < 0) {
            const struct tsr_sim_ctl *c = D->ctl(g->sim);
            snprintf(msg, mlen, "simulator at 0x%08x: %s", (unsigned)c->err_pc, c->msg);
            break;
        }
        if (rc == TSR_SIM_OK && ++issued == n) {   /* straight line: pc is past the last instruction */
            ret = RUN_FELL_OFF;
            break;
        }
    }
    if (ret < 0 && !*msg)
        snprintf(msg, mlen, "did not end in %d steps", MAX_STEPS);
    if (ret > 0)
        sim_save(g, out);
    return ret;
}

/* ---- what a program touches (the validator's events) ----------------------------------------------------- */

/* The events of the instruction at w (byte address pc) into vb. */
static void events(struct tgt *g, const uint32_t *w, uint32_t pc, struct tsr_vbundle *vb)
{
    vb->f = g->vf;
    vb->nev = 0;
    vb->overflow = false;
    g->t->vdesc->events(w, pc, vb);
}

/* Sets bit in g->touch for element a of the validator's state v (a unknown: every element of it). */
static void mark(struct tgt *g, int v, int64_t a, unsigned char bit)
{
    for (int s = 0; s < g->D->nstates; s++) {
        if (g->vstate[s] != v)
            continue;
        int ne = elems(g->D, s);
        for (int e = 0; e < ne; e++)
            if (a < 0 || a >= ne || a == e)
                g->touch[g->ebase[s] + (size_t)e] |= bit;
    }
}

/* Does an op of the instruction at w write element a of forward f readable at age `age`? */
static bool writes_fwd(struct tgt *g, const uint32_t *w, uint32_t pc, int f, int64_t a, int64_t age)
{
    static struct tsr_vbundle vb;
    events(g, w, pc, &vb);
    for (int k = 0; k < vb.nev; k++) {
        const struct tsr_vev *e = &vb.ev[k];
        if (e->kind == TSR_V_WFWD && e->slot >= 0 && e->id == f && e->addr == a && (e->val & 0xff) <= age &&
            ((e->val >> 8) & 0xff) >= age)
            return true;
    }
    return false;
}

/* Does every read of a forward by an op of bundle i (its events vb; the bundles before it at w) read a value that
 * an op of the instruction that many back wrote for that age? */
static bool reads_routed(struct tgt *g, const uint32_t *w, size_t i, const struct tsr_vbundle *vb)
{
    const unsigned nw = g->t->nwords;
    for (int k = 0; k < vb->nev; k++) {
        const struct tsr_vev *e = &vb->ev[k];
        if (e->kind != TSR_V_RFWD || e->slot < 0)
            continue;
        if (e->addr < 0 || e->val < 0 || (int64_t)i < e->val)
            return false;
        size_t j = i - (size_t)e->val;
        if (!writes_fwd(g, w + j * nw, (uint32_t)(j * g->t->pc_step), e->id, e->addr, e->val))
            return false;
    }
    return true;
}

/* Marks in g->touch the elements of state the n instructions at w access: `bit` for every write, and also for
 * every read of an op (slot >= 0; the format's own loads, which every instruction makes, do not count) when
 * reads is true.  Returns false when reads is true and an op reads a forward value that no op of the program wrote
 * for that age (a value from before the program, or the format's own load such as the Utgard GP's `^reg0@1`):
 * the packer refuses those reads (docs/pack.md "Values through forwards"), so the program is of no interest. */
static bool scan(struct tgt *g, const uint32_t *w, size_t n, unsigned char bit, bool reads)
{
    static struct tsr_vbundle vb;
    const unsigned nw = g->t->nwords;
    const uint32_t step = g->t->pc_step;
    bool routable = true;
    for (size_t i = 0; i < n; i++) {
        events(g, w + i * nw, (uint32_t)(i * step), &vb);
        for (int k = 0; k < vb.nev; k++) {
            const struct tsr_vev *e = &vb.ev[k];
            bool rd = e->kind == TSR_V_RSTATE || e->kind == TSR_V_RLATE || e->kind == TSR_V_RDEFER;
            if (e->kind == TSR_V_WSTATE || (reads && rd && e->slot >= 0))
                mark(g, e->id, e->addr, bit);
            if (e->kind == TSR_V_WSTATE && bit == 1)
                mark(g, e->id, e->addr, 4);
        }
        routable = routable && (!reads || reads_routed(g, w, i, &vb));
    }
    return routable;
}

/* ---- building the program --------------------------------------------------------------------------- */

struct gen { const uint8_t *p; size_t n, i; };

static bool more(const struct gen *r) { return r->i < r->n; }
static unsigned byte(struct gen *r) { return r->i < r->n ? r->p[r->i++] : 0; }
static bool bytes(struct gen *r, void *out, size_t k)
{
    if (r->n - r->i < k)
        return false;
    memcpy(out, r->p + r->i, k);
    r->i += k;
    return true;
}

/* What the validator's events say of the instruction at w (byte address pc): 1 a jump or a conditional end (not
 * taken), 2 an unconditional end (*delay: its delay slots), 0 neither. */
static int control(struct tgt *g, const uint32_t *w, uint32_t pc, int *delay)
{
    static struct tsr_vbundle vb;
    vb.f = g->vf;
    vb.nev = 0;
    vb.overflow = false;
    g->t->vdesc->events(w, pc, &vb);
    int kind = 0;
    for (int i = 0; i < vb.nev; i++) {
        const struct tsr_vev *e = &vb.ev[i];
        if (e->kind == TSR_V_JUMP || (e->kind == TSR_V_HALT && e->cond))
            return 1;
        if (e->kind == TSR_V_HALT) {
            kind = 2;
            *delay = e->delay;
        }
    }
    return kind;
}

/* Builds the program from the items (see the header) into w; returns its instruction count. */
static size_t build(struct tgt *g, struct gen *r, const uint32_t *vals, uint32_t *w)
{
    const struct tsr_target *t = g->t;
    const unsigned nw = t->nwords;
    size_t n = 0, end = SIZE_MAX;   /* end: index of the kept end, SIZE_MAX if none */
    int left = -1;                  /* delay slots of the end still to come (-1: no end yet) */
    uint32_t c[TSR_PACK_MAX_NWORDS];
    sim_start(g, vals, true);
    while (n < MAX_INSTS && more(r) && left != 0) {
        unsigned k = byte(r) % 8;
        if (k < 4) {
            if (!bytes(r, c, nw * 4))
                break;
        } else {
            unsigned from = byte(r);
            if (!n)
                continue;
            memcpy(c, w + (size_t)(from % n) * nw, nw * 4);
            if (k >= 6 && t->nfields) {
                unsigned f = byte(r) % t->nfields;
                uint32_t v = 0;
                if (k == 6)
                    v = byte(r);
                else if (!bytes(r, &v, 4))
                    break;
                memset(g->inst, 0, t->inst_size);
                t->decode(c, g->inst);
                t->inst_set_field(g->inst, f, v);
                t->encode(g->inst, c);
            }
        }
        memset(g->inst, 0, t->inst_size);
        if (t->decode(c, g->inst))
            continue;   /* no format's selector holds */
        int delay = 0, kind = control(g, c, (uint32_t)(n * t->pc_step), &delay);
        if (kind == 1 || (kind == 2 && left > 0))
            continue;   /* a branch, a conditional end, an end in delay slots */
        static struct tsr_vbundle vb;
        events(g, c, (uint32_t)(n * t->pc_step), &vb);
        if (!reads_routed(g, w, n, &vb))
            continue;   /* a read of a forward value no kept instruction wrote (scan) */
        memcpy(w + n * nw, c, nw * 4);
        int rc = g->D->step(g->sim, w, (n + 1) * nw);
        bool halts = (kind == 2 && delay == 0) || left == 1;
        if (rc == (halts ? TSR_SIM_HALTED : TSR_SIM_OK)) {
            if (kind == 2) {
                end = n;
                left = delay;
            } else if (left > 0) {
                left--;
            }
            n++;
        } else {   /* left out: replay the program kept so far */
            sim_start(g, vals, true);
            for (size_t i = 0; i < n; i++)
                g->D->step(g->sim, w, n * nw);
        }
    }
    if (left > 0)   /* the input ran out in the end's delay slots: no end */
        n = end;
    return n;
}

/* ---- one check ------------------------------------------------------------------------------------------ */

enum fail { OK, ORIG_SIM, UNBUNDLE, PACK_ERROR, PACK_ASM, PACK_VALIDATE, PACK_SIM, PACK_END, MISMATCH };
static const char *const FAIL_NAMES[] = {
    "ok", "harness bug: the original does not run clean", "the unbundler rejects the program",
    "the packer rejects the unbundled program", "the packed program does not assemble",
    "the validator reports on the packed program but not on the original",
    "the packed program fails in the simulator", "the packed program ends differently", "final states differ",
};

struct result {
    int fail;           /* enum fail */
    char sig[96];       /* the failure's kind for minimisation: the enum, the first rule broken or state differing */
    char first[64];     /* that rule or state */
    char msg[1024];
    size_t reports;     /* validator reports on the original */
    struct tsr_buf orig, ops, packed;   /* the original disassembled, the unbundled text, the packer's output */
};

/* Appends the first diagnostics of d to r->msg. */
static void add_diags(struct result *r, const struct tsr_diag *d)
{
    for (size_t i = 0; i < d->count && i < 4; i++) {
        size_t len = strlen(r->msg);
        snprintf(r->msg + len, sizeof r->msg - len, "%s%s", len ? "\n" : "", d->entries[i].text);
    }
}

struct vctx { struct result *r; int count; };
static void on_violation(void *ctx, const struct tsr_vviol *v)
{
    struct vctx *c = ctx;
    size_t len = strlen(c->r->msg);
    if (c->count++ == 0)
        snprintf(c->r->first, sizeof c->r->first, "%s", v->name);
    if (c->count <= 4 && len < sizeof c->r->msg)
        snprintf(c->r->msg + len, sizeof c->r->msg - len, "%s0x%08x: %s %s: %s", len ? "\n" : "", v->pc,
                 tsr_vviol_kind(v), v->name, v->text);
}

/* The differences of the final states a (original) and b (packed) into r->msg, the first one's state into
 * r->first; returns the number of differing elements. */
static int compare(const struct tgt *g, const uint32_t *a, const uint32_t *b, struct result *r)
{
    const struct tsr_sim_desc *D = g->D;
    size_t at = 0;
    int ndiff = 0;
    for (int s = 0; s < D->nstates; s++) {
        if (s == g->pc)
            continue;
        size_t nv = elem_values(D, s);
        for (int e = 0; e < elems(D, s); e++, at += nv)
            for (size_t v = 0; v < nv; v++) {
                unsigned char tb = g->touch[g->ebase[s] + (size_t)e];
                if (a[at + v] == b[at + v] || tb == 2)
                    continue;   /* (written by the packed program only: a register spill's) */
                if ((tb & 4) && g->outputs && !D->state_output[s])
                    continue;   /* (a state not `output` of a target that declares its outputs, written by the
                                   original: its last store may be an input spill the packer undid, pack_unspill.c) */
                char name[64];
                if (D->state_count[s] > 0)
                    snprintf(name, sizeof name, "%s[%d]", D->state_names[s], e);
                else
                    snprintf(name, sizeof name, "%s", D->state_names[s]);
                if (!ndiff)
                    snprintf(r->first, sizeof r->first, "%s", name);
                size_t len = strlen(r->msg);
                if (ndiff < 6 && len < sizeof r->msg)
                    snprintf(r->msg + len, sizeof r->msg - len, "%s%s value %zu: original 0x%08x, packed 0x%08x%s",
                             len ? "\n" : "", name, v, a[at + v], b[at + v], ndiff == 5 ? "\n..." : "");
                ndiff++;
                break;   /* one line per element */
            }
    }
    return ndiff;
}

/* Runs every check on the n instructions at w from the initial values vals; r gets the texts and the outcome.
 * Returns r->fail. */
static int check(struct tgt *g, const uint32_t *w, size_t n, const uint32_t *vals, struct result *r)
{
    const struct tsr_target *t = g->t;
    tsr_buf_clear(&r->orig);
    tsr_buf_clear(&r->ops);
    tsr_buf_clear(&r->packed);
    r->msg[0] = r->first[0] = 0;
    r->reports = 0;
    t->disasm_program(w, n, 0, &r->orig);
    uint32_t *fo = calloc(g->nvals + 1, sizeof *fo), *fp = calloc(g->nvals + 1, sizeof *fp);
    if (!fo || !fp)
        abort();
    struct tsr_words pw;
    tsr_words_init(&pw, t->word_bits);
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    int fail = OK, eo = run(g, w, n, vals, true, fo, r->msg, sizeof r->msg), ep = 0;
    if (eo < 0)
        fail = ORIG_SIM;
    memset(g->touch, 0, g->nelem);
    bool routable = fail || scan(g, w, n, 1, true);
    if (!fail && routable) {
        r->reports = tsr_validate(t->vdesc, w, n, 0, NULL, NULL);
        unsigned pinned = 0;
        if (tsr_unbundle(t, "original", w, NULL, n, 0, &r->ops, &pinned, &d))
            fail = UNBUNDLE;
        else if (tsr_pack_text(t, "unbundled", r->ops.data ? r->ops.data : "", r->ops.len, &r->packed, NULL, &d))
            fail = PACK_ERROR;
        else if (t->assemble("packed", r->packed.data ? r->packed.data : "", r->packed.len, &pw, &d))
            fail = PACK_ASM;
        add_diags(r, &d);
    }
    if (!fail && routable && !r->reports) {
        struct vctx c = { r, 0 };
        if (tsr_validate(t->vdesc, pw.w, pw.count, 0, on_violation, &c))
            fail = PACK_VALIDATE;
    }
    if (!fail && routable && (ep = run(g, pw.w, pw.count, vals, r->reports == 0, fp, r->msg, sizeof r->msg)) < 0)
        fail = PACK_SIM;
    if (!fail && routable && ep != eo) {
        fail = PACK_END;
        snprintf(r->msg, sizeof r->msg, "the original %s, the packed program %s",
                 eo == RUN_HALTED ? "ends" : "runs past its last instruction",
                 ep == RUN_HALTED ? "ends" : "runs past its last instruction");
    }
    if (!fail && routable) {
        scan(g, pw.w, pw.count, 2, false);
        if (compare(g, fo, fp, r))
            fail = MISMATCH;
    }
    if (fail == UNBUNDLE || fail == PACK_ERROR || fail == PACK_ASM)
        snprintf(r->first, sizeof r->first, "%s", d.count ? d.entries[0].message : "");
    snprintf(r->sig, sizeof r->sig, "%d:%.60s", fail, fail == ORIG_SIM || fail == PACK_SIM || fail == PACK_END
                                                         ? "" : r->first);
    tsr_diag_fini(&d);
    tsr_words_free(&pw);
    free(fo);
    free(fp);
    return r->fail = fail;
}

/* Removes instructions one at a time (last first) while the failure keeps its signature; returns the new count. */
static size_t minimise(struct tgt *g, uint32_t *w, size_t n, const uint32_t *vals, const char *sig)
{
    static struct result r;
    static uint32_t tmp[MAX_WORDS];
    const size_t nw = g->t->nwords;
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t i = n; i-- > 0;) {
            memcpy(tmp, w, i * nw * sizeof *w);
            memcpy(tmp + i * nw, w + (i + 1) * nw, (n - i - 1) * nw * sizeof *w);
            if (n > 1 && check(g, tmp, n - 1, vals, &r) != OK && !strcmp(r.sig, sig)) {
                memcpy(w, tmp, (n - 1) * nw * sizeof *w);
                n--;
                changed = true;
            }
        }
    }
    tsr_buf_free(&r.orig);
    tsr_buf_free(&r.ops);
    tsr_buf_free(&r.packed);
    return n;
}

static void dump(const char *title, const struct result *r)
{
    fprintf(stderr, "==== %s: %s\n%s\n---- original (%zu validator reports):\n%.*s---- unbundled:\n%.*s", title,
            FAIL_NAMES[r->fail], r->msg, r->reports, (int)r->orig.len, r->orig.data ? r->orig.data : "",
            (int)r->ops.len, r->ops.data ? r->ops.data : "");
    if (r->fail >= PACK_ASM)
        fprintf(stderr, "---- packed:\n%.*s", (int)r->packed.len, r->packed.data ? r->packed.data : "");
}

static void copy_result(struct result *to, const struct result *from)
{
    to->fail = from->fail;
    to->reports = from->reports;
    memcpy(to->sig, from->sig, sizeof to->sig);
    memcpy(to->first, from->first, sizeof to->first);
    memcpy(to->msg, from->msg, sizeof to->msg);
    const struct tsr_buf *f[3] = { &from->orig, &from->ops, &from->packed };
    struct tsr_buf *d[3] = { &to->orig, &to->ops, &to->packed };
    for (int i = 0; i < 3; i++) {
        tsr_buf_clear(d[i]);
        tsr_buf_append(d[i], f[i]->data ? f[i]->data : "", f[i]->len);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!NTARGETS || size < 6)
        return 0;
    struct tgt *g = target(data[0] % NTARGETS);
    if (!g)
        return 0;
    static uint32_t w[MAX_WORDS];
    uint32_t seed = (uint32_t)data[1] | (uint32_t)data[2] << 8 | (uint32_t)data[3] << 16 | (uint32_t)data[4] << 24;
    uint32_t *vals = calloc(g->nvals + 1, sizeof *vals);
    if (!vals)
        abort();
    make_init(g, seed, vals);
    struct gen r = { data + 5, size - 5, 0 };
    size_t n = build(g, &r, vals, w);
    static struct result res, orig;
    if (!n || check(g, w, n, vals, &res) == OK) {
        free(vals);
        return 0;
    }
    copy_result(&orig, &res);
    size_t m = minimise(g, w, n, vals, orig.sig);
    check(g, w, m, vals, &res);
    fprintf(stderr, "fuzz_repack: target %s, failure %s; state seed 0x%08x; %zu of %zu instructions after "
            "minimising\n", g->t->name, orig.sig, seed, m, n);
    dump("minimised", &res);
    dump("original", &orig);
    abort();
}
