/* The generated hazard validator of the QPU (build/gen/qpu/qpu_validate.c, runtime/validate/validate.c), beyond the
 * verdicts on real and mutated programs (tests/test_validate.c):
 *  - the resources the packer relies on (read ports, pack, unpack, write swap) appear with their values;
 *  - control flow (branches, far targets) and repeated bundles;
 *  - the whole-program check's memo, kept by the thread, changes no verdict (programs in turn, a call from a
 *    report callback);
 *  - the engine's latency `max`, windows at distance 0 and the stream check (bundles in issue order, here fed
 *    by the simulator's ready hook) behave as runtime/validate/validate.h says.
 * Run from the repository root (or with TESSERA_ROOT set); ../shared or $TESSERA_SHARED holds the corpus.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qpu.h"
#include "qpu_hooks.h"
#include "support_qpuval.h"
#include "tsr.h"
#include "validate/validate.h"

/* ---- events and resources --------------------------------------------------------------------------------- */
static struct tsr_vbundle *bundle_of(const char *text, uint64_t *f)
{
    static struct tsr_vbundle b;
    uint32_t w[2];
    char err[256];
    cr_assert_eq(qpu_assemble_one(text, strlen(text), 0, w, err, sizeof err), 0, "'%s': %s", text, err);
    memset(&b, 0, sizeof b);
    b.f = f;
    qpu_vdesc.events(w, 0, &b);
    return &b;
}

static int res_index(const char *name)
{
    for (int r = 0; r < qpu_vdesc.nres; r++)
        if (!strcmp(qpu_vdesc.res[r].name, name))
            return r;
    cr_assert_fail("no resource %s", name);
    return -1;
}

/* The value of the first use of resource `name` in the bundle, TSR_V_NOVAL if plain, -2 if none. */
static int64_t use_value(const struct tsr_vbundle *b, const char *name)
{
    int r = res_index(name);
    for (int i = 0; i < b->nev; i++)
        if (b->ev[i].kind == TSR_V_USE && b->ev[i].id == r)
            return b->ev[i].val;
    return -2;
}

Test(validate, packer_resources)
{
    uint64_t f[QPU_NFIELDS];
    struct tsr_vbundle *b = bundle_of("fadd r0, ra1, rb2", f);
    cr_expect_eq(use_value(b, "rport_a"), 1);
    cr_expect_eq(use_value(b, "rport_b"), 2);
    cr_expect_eq(use_value(b, "wswap"), 0);
    cr_expect_eq(use_value(b, "pack_unit"), -2);
    b = bundle_of("fadd r0, ra1, 3", f);
    cr_expect_eq(use_value(b, "rport_b"), 64 + 3);      /* the small immediate takes port B */
    b = bundle_of("nop; mov r2, r0 << 1", f);
    cr_expect_eq(use_value(b, "rport_b"), 64 + 63);     /* so does a rotation */
    b = bundle_of("fadd r0, ra1.16a, r1", f);
    cr_expect_eq(use_value(b, "unpack_unit"), 1);
    b = bundle_of("fadd ra1.16b, r0, r1", f);
    cr_expect_eq(use_value(b, "pack_unit"), 2);
    b = bundle_of("nop; fmul r0.8c, r1, r2", f);
    cr_expect_eq(use_value(b, "pack_unit"), 16 + 6);
    b = bundle_of("mov t0s, r0", f);
    cr_expect_eq(use_value(b, "periph"), TSR_V_NOVAL);
    b = bundle_of("mov tlbc, r0; nop; loadc", f);   /* a colour load with a colour write: one access */
    cr_expect_eq(use_value(b, "periph"), 1);
    uint32_t w[6];
    struct prog p = {w, 3, "loadc+tlbc"};
    prog_put(&p, 0, "nop");
    prog_put(&p, 1, "nop");
    prog_put(&p, 2, "mov tlbc, r0; nop; loadc");
    struct found fd;
    cr_expect_eq(prog_validate(&p, &fd), 0);
    found_log(&p, &fd);
    /* events of a branch: always taken, constant target, 3 delay slots */
    b = bundle_of("brr -, 0x40", f);
    bool jump = false;
    for (int i = 0; i < b->nev; i++)
        if (b->ev[i].kind == TSR_V_JUMP) {
            jump = true;
            cr_expect_eq(b->ev[i].cond, 0);
            cr_expect_eq(b->ev[i].delay, 3);
            cr_expect_eq(b->ev[i].val, 0x40);
        }
    cr_expect(jump);
    b = bundle_of("brr.anyz -, 0x40", f);
    for (int i = 0; i < b->nev; i++)
        if (b->ev[i].kind == TSR_V_JUMP)
            cr_expect_eq(b->ev[i].cond, 1);
}

/* Control flow: a write in the last delay slot of a branch reaches the branch target one instruction later
 * (the taken edge), and the next instruction only if the branch may fall through. */
Test(validate, control_flow)
{
    static const char *const taken[] = {"brr -, 0x28", "nop", "nop", "mov ra1, r0", "mov r0, ra1", "mov r1, ra1"};
    static const char *const cond[] = {"brr.anyz -, 0x28", "nop", "nop", "mov ra1, r0", "mov r0, ra1", "mov r1, ra1"};
    const char *const *progs[2] = {taken, cond};
    for (int k = 0; k < 2; k++) {
        uint32_t w[12];
        struct prog p = {w, 6, "cfg"};
        for (int i = 0; i < 6; i++)
            prog_put(&p, (size_t)i, progs[k][i]);
        struct found f;
        size_t n = prog_validate(&p, &f);
        found_log(&p, &f);
        /* 0x28 = instruction 5, the target: reached from the last delay slot (3) in both cases */
        int at4 = 0, at5 = 0;
        for (int i = 0; i < f.n; i++) {
            at4 += f.v[i].pc == 0x20 && !strcmp(f.v[i].name, "regfile_raw");
            at5 += f.v[i].pc == 0x28 && !strcmp(f.v[i].name, "regfile_raw");
        }
        cr_expect_eq(at5, 1, "the target is 1 after the write on the taken path");
        cr_expect_eq(at4, k, "fall-through into instruction 4: %s", k ? "conditional branch" : "always taken");
        cr_expect_eq(n, (size_t)(1 + k));
    }
}

/* Taken edges between instructions far apart (more than the engine keeps decoded behind the one checked), both
 * ways: a write in a branch's last delay slot reaches the target, far before or far after the branch. */
Test(validate, control_flow_far)
{
    enum { N = 1000, BACK = 900, FWD = 10, FWD_TARGET = 700 };
    static uint32_t w[2 * N];
    struct prog p = {w, N, "far"};
    for (size_t i = 0; i < N; i++)
        prog_put(&p, i, "nop");
    char t[64];
    prog_put(&p, 1, "mov r0, ra1");                  /* the backward branch's target */
    snprintf(t, sizeof t, "brr -, 0x%x", 8 * 1);
    prog_put(&p, BACK, t);
    prog_put(&p, BACK + 3, "mov ra1, r0");           /* its last delay slot */
    snprintf(t, sizeof t, "brr -, 0x%x", 8 * FWD_TARGET);
    prog_put(&p, FWD, t);
    prog_put(&p, FWD + 3, "mov ra2, r0");
    prog_put(&p, FWD_TARGET, "mov r1, ra2");
    struct found f;
    size_t n = prog_validate(&p, &f);
    found_log(&p, &f);
    int back = 0, fwd = 0;
    for (int i = 0; i < f.n; i++) {
        back += f.v[i].pc == 8 && !strcmp(f.v[i].name, "regfile_raw");
        fwd += f.v[i].pc == 8 * FWD_TARGET && !strcmp(f.v[i].name, "regfile_raw");
    }
    cr_expect_eq(back, 1, "backward taken edge from %d to 1", BACK + 3);
    cr_expect_eq(fwd, 1, "forward taken edge from %d to %d", FWD + 3, FWD_TARGET);
    cr_expect_eq(n, 2u);
}

/* Repeated bundles (the program check memoizes what a bundle's words decide): every repetition of a broken pair
 * and of a bundle breaking a resource is reported at its own address, and a relative branch repeated at other
 * addresses still reaches its own target. */
Test(validate, repeated_bundles)
{
    enum { N = 600 };
    static uint32_t w[2 * N];
    struct prog p = {w, N, "repeated"};
    for (size_t i = 0; i < N; i++)
        prog_put(&p, i, i % 3 == 0 ? "mov ra1, r0" : i % 3 == 1 ? "mov r0, ra1" : "mov tmu0_s, r0; mov sfu_recip, r1");
    struct found f;
    size_t n = prog_validate(&p, &f);
    found_log(&p, &f);
    size_t raw = 0, periph = 0;
    for (int i = 0; i < f.n && i < 64; i++) {
        raw += !strcmp(f.v[i].name, "regfile_raw") && f.v[i].pc % 24 == 8;
        periph += !strcmp(f.v[i].name, "periph") && f.v[i].pc % 24 == 16;
    }
    cr_expect_eq(n, 2u * N / 3, "one regfile_raw and one periph per 3 instructions");
    cr_expect_eq(raw + periph, 64u, "the first 64 reports, each at its own instruction");
    /* the same brr word at several addresses: relative targets differ */
    for (size_t i = 0; i < N; i++)
        prog_put(&p, i, "nop");
    for (size_t b = 0; b < 4; b++) {
        size_t at = 100 * b + 10;
        char t[64];
        snprintf(t, sizeof t, "brr -, 0x%zx", 8 * (at + 50));
        prog_put(&p, at, t);
        prog_put(&p, at + 3, b == 2 ? "mov ra2, r0" : "nop");
        prog_put(&p, at + 50, "mov r1, ra2");
    }
    n = prog_validate(&p, &f);
    found_log(&p, &f);
    cr_expect_eq(n, 1u);
    cr_expect_eq(f.v[0].pc, 8u * 260);
}

/* The whole-program check's memo stays with the thread from one tsr_validate to the next (an entry keeps the
 * words it was made from): the verdicts of a program do not depend on what the thread validated before, nor
 * on a tsr_validate called from a report callback (it gets a memo of its own).  The same program is validated
 * after others whose bundles it shares (the first 600 of repeated_bundles' pattern, then with the regfile-A
 * write moved away), and from inside the callback of another. */
struct nested { const struct prog *inner; struct found inner_f; size_t inner_n; int calls; };

static void collect_nested(void *ctx, const struct tsr_vviol *v)
{
    struct nested *x = ctx;
    if (x->calls++ == 0) {
        memset(&x->inner_f, 0, sizeof x->inner_f);
        x->inner_n = tsr_validate(&qpu_vdesc, x->inner->w, x->inner->n, 0, found_collect, &x->inner_f);
    }
    (void)v;
}

Test(validate, memo_kept_across_calls)
{
    enum { N = 300 };
    static uint32_t wa[2 * N], wb[2 * N];
    struct prog a = {wa, N, "a"}, b = {wb, N, "b"};
    for (size_t i = 0; i < N; i++) {
        prog_put(&a, i, i % 3 == 0 ? "mov ra1, r0" : i % 3 == 1 ? "mov r0, ra1" : "nop");
        prog_put(&b, i, i % 3 == 0 ? "mov ra1, r0" : i % 3 == 1 ? "nop" : "mov r0, ra1");
    }
    struct found fa, fb, fb2;
    size_t na = prog_validate(&a, &fa), nb = prog_validate(&b, &fb);
    cr_expect_eq(na, (size_t)N / 3, "a: one regfile_raw per 3 instructions");
    cr_expect_eq(nb, 0u, "b: the read a bundle later");
    size_t na2 = prog_validate(&a, &fa);
    cr_expect_eq(na2, na);
    size_t nb2 = prog_validate(&b, &fb2);
    cr_expect_eq(nb2, nb);
    struct nested x = { &b, { 0 }, 0, 0 };
    size_t outer = tsr_validate(&qpu_vdesc, a.w, a.n, 0, collect_nested, &x);
    cr_expect_eq(outer, na, "a again, with b validated from its first report");
    cr_expect_eq(x.inner_n, nb, "b from inside a's callback");
    memset(&fb, 0, sizeof fb);
    cr_expect_eq(tsr_validate(&qpu_vdesc, a.w, a.n, 0, found_collect, &fb), na, "a after the nested call");
}

/* ---- the engine alone: latency max, windows at distance 0, streams ------------------------------------------ */
/* A toy target: bundle word 0 = event kind code (1 write x, 2 read x, 3 both; 4 an always-taken jump to byte
 * address word 1, without delay slots). */
static int toy_events(const uint32_t *w, uint32_t pc, struct tsr_vbundle *b)
{
    b->pc = pc;
    b->nev = 0;
    b->format = 0;
    if (w[0] & 1)
        tsr_vb_add(b, TSR_V_WSTATE, 0, 1, 0, 7);
    if (w[0] & 2)
        tsr_vb_add(b, TSR_V_RSTATE, 0, 1, 0, 7);
    if (w[0] & 4) {
        struct tsr_vev *j = tsr_vb_add(b, TSR_V_JUMP, 0, 1, 0, 0);
        j->val = w[1];
    }
    return 0;
}
static bool toy_w(const struct tsr_vev *e, const uint64_t *f)
{
    (void)f;
    return e->kind == TSR_V_WSTATE;
}
static bool toy_r(const struct tsr_vev *e, const uint64_t *f)
{
    (void)f;
    return e->kind == TSR_V_RSTATE;
}
static const tsr_vmatch_fn toy_pat[] = {toy_w, toy_r};
static const char *const toy_states[] = {"x"};
static const int toy_count[] = {8};

static size_t toy_run(const struct tsr_vrule *r, const uint32_t *codes, size_t n, struct found *f)
{
    struct tsr_vdesc D = {.name = "toy", .nwords = 2, .nfields = 1, .pc_step = 8, .events = toy_events, .nrules = 1,
                          .rules = r, .lookback = TSR_V_MAXDIST, .nstates = 1, .state_names = toy_states,
                          .state_count = toy_count};
    uint32_t w[32] = {0};
    for (size_t i = 0; i < n; i++)
        w[2 * i] = codes[i];
    memset(f, 0, sizeof *f);
    return tsr_validate(&D, w, n, 0, found_collect, f);
}

Test(validate, engine_latency_window)
{
    struct found f;
    /* forwarding age window 1..2 (a Utgard-style value readable 1 or 2 instructions later) */
    struct tsr_vrule lat = {"fwd", "toy", TSR_VR_LATENCY, 2, toy_pat, true, 1, 2};
    uint32_t ok[] = {1, 0, 2};          /* read 2 after the write */
    uint32_t late[] = {1, 0, 0, 2};     /* read 3 after: expired */
    uint32_t renew[] = {1, 0, 1, 0, 2}; /* the nearest write is 2 before */
    uint32_t later[] = {1, 0, 0, 0, 0, 0, 2}; /* 6 after: expired too */
    cr_expect_eq(toy_run(&lat, ok, 3, &f), 0);
    cr_expect_eq(toy_run(&lat, late, 4, &f), 1);
    cr_expect(f.n == 1 && f.v[0].pc == 24 && strstr(f.v[0].text, "at most 2 apart"), "%s", f.v[0].text);
    cr_expect_eq(toy_run(&lat, renew, 5, &f), 0);
    cr_expect_eq(toy_run(&lat, later, 7, &f), 1);
    /* minimum 3 */
    struct tsr_vrule min3 = {"min3", "toy", TSR_VR_LATENCY, 2, toy_pat, true, 3, -1};
    uint32_t early[] = {1, 0, 2};
    cr_expect_eq(toy_run(&min3, early, 3, &f), 1);
    cr_expect_eq(toy_run(&min3, late, 4, &f), 0);
    /* a window including distance 0: the same bundle, but never an event with itself */
    struct tsr_vrule win = {"win", "toy", TSR_VR_WINDOW, 2, toy_pat, false, 0, 1};
    uint32_t same[] = {3};
    uint32_t next[] = {1, 2};
    uint32_t far[] = {1, 0, 2};
    cr_expect_eq(toy_run(&win, same, 1, &f), 1);
    cr_expect_eq(toy_run(&win, next, 2, &f), 1);
    cr_expect_eq(toy_run(&win, far, 3, &f), 0);
    const tsr_vmatch_fn self[] = {toy_w, toy_w};
    struct tsr_vrule selfwin = {"self", "toy", TSR_VR_WINDOW, 2, self, false, 0, 0};
    uint32_t one[] = {1};
    cr_expect_eq(toy_run(&selfwin, one, 1, &f), 0);
    struct tsr_vrule both = {"both", "toy", TSR_VR_BUNDLE, 2, self, false, 0, 0};
    cr_expect_eq(toy_run(&both, one, 1, &f), 0, "two patterns need two distinct events");
}

/* An open window (`forbid A -> B at LO..`): every A on a path back to the program's start counts, however far
 * (beyond TSR_V_MAXDIST, around a loop); the stream check remembers the first A since its reset; a scheduler's
 * history (tsr_validate_hist) shows only what it holds. */
static size_t toy_prog(const struct tsr_vrule *r, const uint32_t *w, size_t n, struct found *f)
{
    struct tsr_vdesc D = {.name = "toy", .nwords = 2, .nfields = 1, .pc_step = 8, .events = toy_events, .nrules = 1,
                          .rules = r, .lookback = r->lo, .nstates = 1, .state_names = toy_states,
                          .state_count = toy_count};
    memset(f, 0, sizeof *f);
    return tsr_validate(&D, w, n, 0, found_collect, f);
}

Test(validate, engine_open_window)
{
    struct found f;
    struct tsr_vrule open1 = {"open", "toy", TSR_VR_WINDOW, 2, toy_pat, false, 1, TSR_V_OPEN};
    static uint32_t w[2 * 200];
    /* straight line: a read 150 instructions after the write */
    memset(w, 0, sizeof w);
    w[0] = 1;
    w[2 * 150] = 2;
    cr_expect_eq(toy_prog(&open1, w, 151, &f), 1);
    cr_expect(f.n == 1 && f.v[0].pc == 8 * 150, "at 0x%x", f.n ? f.v[0].pc : 0);
    cr_expect(f.n == 1 && strstr(f.v[0].text, "the instruction 150 before (0x00000000)") &&
              strstr(f.v[0].text, "(forbidden 1 or more instructions apart)"), "%s", f.v[0].text);
    /* the read first: nothing */
    uint32_t before[] = {2, 0, 0, 0, 1, 0};
    cr_expect_eq(toy_prog(&open1, before, 3, &f), 0);
    /* around a loop: read, nop, write, jump back to the read: the write is 2 before the read on the back edge */
    uint32_t loop[] = {2, 0, 0, 0, 1, 0, 4, 0};
    cr_expect_eq(toy_prog(&open1, loop, 4, &f), 1);
    cr_expect(f.n == 1 && f.v[0].pc == 0 && strstr(f.v[0].text, "the instruction 2 before (0x00000010)"), "%s",
              f.v[0].text);
    /* an always-taken jump after the write, over the read: no path from the write to it */
    uint32_t over[] = {1, 0, 4, 24, 2, 0, 0, 0};
    cr_expect_eq(toy_prog(&open1, over, 4, &f), 0);
    /* LO 2: the next instruction is allowed, the one after not; LO 0: the same instruction too */
    struct tsr_vrule open2 = {"open2", "toy", TSR_VR_WINDOW, 2, toy_pat, false, 2, TSR_V_OPEN};
    uint32_t next[] = {1, 0, 2, 0}, gap[] = {1, 0, 0, 0, 2, 0}, same[] = {3, 0};
    cr_expect_eq(toy_prog(&open2, next, 2, &f), 0);
    cr_expect_eq(toy_prog(&open2, gap, 3, &f), 1);
    struct tsr_vrule open0 = {"open0", "toy", TSR_VR_WINDOW, 2, toy_pat, false, 0, TSR_V_OPEN};
    cr_expect_eq(toy_prog(&open0, same, 1, &f), 1);
    cr_expect(f.n == 1 && strstr(f.v[0].text, "in one instruction (forbidden 0 or more instructions apart)"), "%s",
              f.v[0].text);
    cr_expect_eq(toy_prog(&open1, same, 1, &f), 0);

    /* the stream: the first write since the reset, 150 bundles back */
    struct tsr_vdesc D = {.name = "toy", .nwords = 2, .nfields = 1, .pc_step = 8, .events = toy_events, .nrules = 1,
                          .rules = &open1, .lookback = 1, .nstates = 1, .state_names = toy_states,
                          .state_count = toy_count};
    struct tsr_vstream *st = tsr_vstream_new(&D);
    cr_assert_not_null(st);
    memset(&f, 0, sizeof f);
    size_t n = 0;
    for (int i = 0; i <= 150; i++)
        n += tsr_vstream_step(st, w + 2 * i, 8u * (unsigned)i, found_collect, &f);
    cr_expect_eq(n, 1);
    cr_expect(f.n == 1 && f.v[0].pc == 8 * 150 && strstr(f.v[0].text, "the instruction 150 before (0x00000000)"),
              "%s", f.v[0].text);
    tsr_vstream_reset(st);
    cr_expect_eq(tsr_vstream_step(st, w + 2 * 150, 0, found_collect, &f), 0, "the reset forgets the write");
    tsr_vstream_free(st);

    /* a scheduler's history: only the bundles it holds */
    uint64_t fld[3][1];
    struct tsr_vbundle hb[3];
    const struct tsr_vbundle *h[3] = {&hb[0], &hb[1], &hb[2]};
    uint32_t codes[3][2] = {{2, 0}, {0, 0}, {1, 0}};
    for (int k = 0; k < 3; k++) {
        memset(&hb[k], 0, sizeof hb[k]);
        hb[k].f = fld[k];
        toy_events(codes[k], 0, &hb[k]);
    }
    cr_expect_eq(tsr_validate_hist(&D, h, 3, NULL, NULL), 1);
    cr_expect_eq(tsr_validate_hist(&D, h, 2, NULL, NULL), 0);
}

/* The stream check, fed by the simulator's ready hook (one call per issued bundle, with its words): the blob
 * fragment shader passes; with its sbwait moved to the first instruction it breaks sbwait_start. */
struct streamctx { struct tsr_vstream *s; struct found f; struct qpu_sim *sim; };

static int stream_hook(void *ctx, int hook, enum tsr_hook_kind kind, const uint32_t *args, int nargs, uint32_t *v,
                       uint32_t lanemask)
{
    struct streamctx *c = ctx;
    (void)kind;
    if (hook == TSR_HOOK_READY && nargs == 2)
        tsr_vstream_step(c->s, args, 0, found_collect, &c->f);
    return qpu_hooks_dispatch(c->sim, NULL, hook, args, nargs, v, lanemask);
}

Test(validate, stream_from_simulator)
{
    for (int k = 0; k < 2; k++) {
        struct prog p;
        prog_read_blob(&p, 0);
        if (k) {
            uint32_t a = p.w[0], b = p.w[1];
            p.w[0] = p.w[2];
            p.w[1] = p.w[3];
            p.w[2] = a;
            p.w[3] = b;
        }
        struct qpu_machine *M = qpu_machine_new(1u << 20, 1);
        struct qpu_sim *S = malloc(sizeof *S);
        struct qpu_hooks_ctx C;
        qpu_sim_init(S);
        cr_assert_eq(qpu_hooks_attach(S, &C, M, 0, 0x100), 0);
        struct streamctx c = {tsr_vstream_new(&qpu_vdesc), {0}, S};
        struct tsr_sim_hooks fns = {stream_hook, &c};
        S->hookfns = &fns;
        int rc = qpu_sim_run(S, p.w, 2 * p.n, 100);
        cr_expect_eq(rc, TSR_SIM_HALTED, "%s", S->core.msg);
        if (k == 0) {
            cr_expect_eq(c.f.n, 0);
        } else {
            cr_expect_eq(c.f.n, 1);
            cr_expect(c.f.n >= 1 && !strcmp(c.f.v[0].name, "sbwait_start"), "%s", c.f.v[0].name);
        }
        found_log(&p, &c.f);
        tsr_vstream_free(c.s);
        qpu_sim_fini(S);
        free(S);
        qpu_machine_free(M);
        prog_free(&p);
    }
}

/* Any words: every bundle's events fit (no overflow), and whole random programs check without a crash (under
 * the sanitizers) and give the same reports twice. */
Test(validate, random_words)
{
    uint64_t x = 0x9e3779b97f4a7c15u;
    uint64_t f[QPU_NFIELDS];
    int most = 0;
    static uint32_t w[2 * 512];
    for (int round = 0; round < 200; round++) {
        for (int i = 0; i < 2 * 512; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            w[i] = (uint32_t)(x >> 11);
        }
        for (int i = 0; i < 512; i++) {
            struct tsr_vbundle b;
            memset(&b, 0, sizeof b);
            b.f = f;
            qpu_vdesc.events(w + 2 * i, 8u * (unsigned)i, &b);
            cr_assert(!b.overflow, "bundle %08x %08x has more than %d events", w[2 * i], w[2 * i + 1], TSR_V_MAXEV);
            most = b.nev > most ? b.nev : most;
        }
        struct prog p = {w, 512, "random"};
        struct found a, b;
        size_t na = prog_validate(&p, &a), nb = prog_validate(&p, &b);
        cr_assert_eq(na, nb);
        for (int i = 0; i < a.n && i < 64; i++)
            cr_assert(a.v[i].pc == b.v[i].pc && !strcmp(a.v[i].name, b.v[i].name));
    }
    cr_log_info("at most %d events in one bundle", most);
}

/* The simulator helper: violations become hazards of a struct tsr_sim_ctl (here in warning mode). */
Test(validate, stream_to_sim_hazards)
{
    struct prog p;
    prog_read_blob(&p, 0);
    prog_put(&p, 4, "mov tlbz, r0");
    prog_put(&p, 5, "fadd r1, ms_flags, r2");
    struct tsr_sim_ctl ctl;
    tsr_sim_ctl_init(&ctl);
    ctl.flags = TSR_SIM_F_HAZARD_WARN;
    struct tsr_vstream *s = tsr_vstream_new(&qpu_vdesc);
    for (size_t i = 0; i < p.n; i++)
        cr_expect_eq(tsr_vstream_sim(s, &ctl, p.w + 2 * i, 8u * (unsigned)i, false), 0);
    cr_expect_eq(ctl.nhazards, 1);
    cr_expect(strstr(ctl.msg, "rule tlbz_ms_flags at 0x00000028") != NULL, "%s", ctl.msg);
    /* without the warning flag the first one stops */
    tsr_sim_ctl_init(&ctl);
    tsr_vstream_reset(s);
    int rc = 0;
    for (size_t i = 0; i < p.n && rc == 0; i++)
        rc = tsr_vstream_sim(s, &ctl, p.w + 2 * i, 8u * (unsigned)i, false);
    cr_expect_eq(rc, TSR_SIM_HAZARD);
    cr_expect_eq(ctl.err_pc, 0x28u);
    tsr_vstream_free(s);
    prog_free(&p);
}
