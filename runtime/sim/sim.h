/* Target-independent parts of the generated simulators (and of the independent evaluator,
 * mdl/eval.c): control flow with delay slots, hazard and error reports that name the bundle
 * address, the generic hook interface the differential fuzzer plugs fake peripherals into, the
 * per-target simulator descriptor, and the trace printer.
 *
 * Time: a simulator counts issued bundles (`icount`, starting at 0; a stalled step does not count).
 * Register elements with a `latency` carry the icount of the bundle that last wrote them (their
 * write time); a read at icount N of an element written at W is a hazard when N - W < latency
 * (docs/mdl.md "Machine state"; e.g. a regfile of latency 2: written by N, readable from N+2).
 *
 * Control: `jump(target, delay)` and `halt(delay)` executed by the bundle at icount N take effect
 * after `delay` more bundles: the bundles N+1..N+delay (the delay slots) still issue, at the
 * addresses following N, and N+delay+1 issues at `target` (or the machine halts).  Requests issued
 * inside the delay slots of an earlier one queue behind it (up to TSR_SIM_MAX_PENDING).
 *
 * Return codes of every step/exec function: TSR_SIM_OK (issued), TSR_SIM_STALL (a hook asked to
 * retry; nothing changed), TSR_SIM_HALTED, or a negative error (TSR_SIM_ERROR, TSR_SIM_HAZARD) with
 * the message and the bundle address in the `struct tsr_sim_ctl`.
 */
#ifndef TSR_SIM_H
#define TSR_SIM_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <stdio.h>

enum {
    TSR_SIM_OK = 0,
    TSR_SIM_STALL = 1,
    TSR_SIM_HALTED = 2,
    TSR_SIM_ERROR = -1,  /* bad bundle, bad address, a hook's error, ...: see ctl.msg */
    TSR_SIM_HAZARD = -2, /* a latency or guard rule was broken: see ctl.msg */
    TSR_SIM_ABORT = -3,  /* (addition) the program did what the machine aborts on: an `abort "message";` statement
                            of the description ran (docs/mdl.md "Semantics"); ctl.msg "abort: message" */
};

#define TSR_SIM_MAX_LANES 32   /* lane masks are uint32_t, bit i = lane i */
#define TSR_SIM_MAX_PENDING 8  /* queued jumps/halts (nested delay slots) */
#define TSR_SIM_MSG 256        /* bytes of a report message, NUL included */
#define TSR_SIM_NEVER (-((int64_t)1 << 60)) /* write time of an element never written */

/* Flags of struct tsr_sim_ctl. */
enum {
    TSR_SIM_F_HAZARD_WARN = 1u << 0, /* count hazards (first one kept in msg) but keep running */
    TSR_SIM_F_RULES = 1u << 1,       /* check every issued bundle against the description's resources and
                                        rules (the validator's stream check, tsr_sim_rules_step) */
};

/* How a hook is called (the generic interface below passes it; typed hooks know it statically). */
enum tsr_hook_kind {
    TSR_HOOK_STMT,  /* `hook name(args);` statement; v == NULL unless the hook returns a value */
    TSR_HOOK_READ,  /* space read entry: fill v[lanes] */
    TSR_HOOK_WRITE, /* space write entry: v[lanes] holds the value written (masked lanes: 0) */
    TSR_HOOK_GUARD, /* `guard R[e] : hook`: nonzero return = the element must not be read now */
};

/* Generic hooks: when a simulator's (or evaluator's) `hookfns` is set, every hook call goes here
 * instead of the target's typed <t>_hook_NAME functions.  `hook` is the model's hook index,
 * args[0..nargs-1] the (lane-uniform) arguments, v a vector of `lanes` values (see kind; NULL for
 * guards and value-less statement hooks), lanemask the lanes active at the call.  Return 0, > 0 to
 * stall the bundle, < 0 for an error (then set a message with tsr_sim_error on the ctl you get). */
#define TSR_HOOK_READY (-1)  /* hook index of <t>_hook_ready through the generic interface; args = the
                                bundle's words (nargs of them), v = NULL */
#define TSR_HOOK_RETIRE (-2) /* hook index of <t>_hook_retire (args as for TSR_HOOK_READY) */
struct tsr_sim_hooks {
    int (*call)(void *ctx, int hook, enum tsr_hook_kind kind, const uint32_t *args, int nargs,
                uint32_t *v, uint32_t lanemask);
    void *ctx;
};

struct tsr_sim_pending {
    int kind;        /* 0 jump, 1 halt */
    int left;        /* bundles still to issue before it takes effect */
    uint32_t target; /* jump target, bytes */
};

/* Control, time and reports: embedded in every generated simulator (as `core`) and in the
 * evaluator's state. */
struct tsr_sim_ctl {
    uint64_t icount;  /* bundles issued so far */
    uint64_t stalls;  /* steps that stalled */
    unsigned flags;   /* TSR_SIM_F_* */
    bool halted;
    int npend;
    struct tsr_sim_pending pend[TSR_SIM_MAX_PENDING];
    /* requests of the bundle being executed (cleared by tsr_sim_bundle_begin) */
    int req_jump, req_halt;
    uint32_t req_target;
    int req_jump_delay, req_halt_delay;
    /* the first error/hazard: status < 0 once reported */
    int status;
    uint32_t err_pc;
    char msg[TSR_SIM_MSG];
    uint64_t nhazards; /* hazards seen (in TSR_SIM_F_HAZARD_WARN mode, all of them) */
    /* trace: when `trace` is set, every issued bundle is printed with the elements it wrote */
    FILE *trace;
    const char *trace_name; /* prefix, e.g. "qpu1" (NULL: none) */
    /* optional bundle text for the trace (a disassembler): writes at most n bytes into buf */
    void (*trace_text)(void *ctx, uint32_t pc, const uint32_t *words, char *buf, size_t n);
    void *trace_ctx;
    int trace_nwords; /* 32-bit words per bundle to print (set by the simulator) */
    /* the description's rules at run time (TSR_SIM_F_RULES, docs/sim.md "Rules"): the validator's tables
     * (<t>_sim_init sets them to &<t>_vdesc; NULL: none), the stream checker (made on first use, freed by
     * <t>_sim_fini / tsr_sim_rules_free), and 1 + the icount of the bundle last stepped into it (0: none
     * since the last reset), so that a bundle retried after a stall is stepped once */
    const struct tsr_vdesc *rules_desc;
    struct tsr_vstream *rules;
    uint64_t rules_next;
};

/* Zeroes everything: icount 0, no pending control, not halted, no report, no trace, no rules (a stream
 * made before is not freed: tsr_sim_rules_free first). */
void tsr_sim_ctl_init(struct tsr_sim_ctl *c);

/* Clears the requests of the bundle about to execute. */
static inline void tsr_sim_bundle_begin(struct tsr_sim_ctl *c)
{
    c->req_jump = 0;
    c->req_halt = 0;
}

/* Record `jump(target, delay)` / `halt(delay)` for the executing bundle at `pc`.  A second request
 * of the same kind in one bundle is an error (returns TSR_SIM_ERROR with a message). */
int tsr_sim_request_jump(struct tsr_sim_ctl *c, uint32_t pc, uint32_t target, int64_t delay);
int tsr_sim_request_halt(struct tsr_sim_ctl *c, uint32_t pc, int64_t delay);

/* Retires the executed bundle: counts it, advances the pending requests and adds this bundle's,
 * and sets *pc to the next bundle's address (pc + pc_step, or a jump target; if the bundle wrote
 * the pc itself, pc_written is true and *pc already holds that value, which then wins over
 * pc + pc_step but not over a jump taking effect now).  Returns TSR_SIM_OK, TSR_SIM_HALTED, or
 * TSR_SIM_ERROR when the queue overflows (message set, using err_pc = the bundle's address). */
int tsr_sim_bundle_end(struct tsr_sim_ctl *c, uint32_t *pc, uint32_t bundle_pc, uint32_t pc_step,
                       bool pc_written);

/* Reports an error of the bundle at pc: formats the message into c->msg (only the first report is
 * kept), sets c->status and c->err_pc.  Returns TSR_SIM_ERROR. */
int tsr_sim_error(struct tsr_sim_ctl *c, uint32_t pc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int tsr_sim_verror(struct tsr_sim_ctl *c, uint32_t pc, const char *fmt, va_list ap);

/* (addition) The bundle at pc executed `abort "msg";`: keeps "abort: <msg>" (only the first report is kept),
 * sets c->status and c->err_pc.  Returns TSR_SIM_ABORT. */
int tsr_sim_abort(struct tsr_sim_ctl *c, uint32_t pc, const char *msg);

/* Reports a hazard "hazard: <what>" at pc.  Returns TSR_SIM_HAZARD, or 0 (keep going) when
 * TSR_SIM_F_HAZARD_WARN is set; either way nhazards counts it and the first message is kept. */
int tsr_sim_hazard(struct tsr_sim_ctl *c, uint32_t pc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Latency hazard of element state[elem] read at pc, `dist` bundles after its write:
 *   "hazard: ra5 read at 0x00000018: written by the previous instruction (regfile latency 2)"
 *   "hazard: ra5 read at 0x00000018: written 2 instructions before (regfile latency 3)"
 * elem < 0 names a scalar state. */
int tsr_sim_latency_hazard(struct tsr_sim_ctl *c, uint32_t pc, const char *state, int elem,
                           int64_t dist, int latency);
/* Guard hazard: "hazard: acc4 read at 0x00000018: r4_busy (guard)". */
int tsr_sim_guard_hazard(struct tsr_sim_ctl *c, uint32_t pc, const char *state, int elem,
                         const char *hook);

/* Fast check used by the generated code: 0 if state[elem] written at `wtime` may be read now. */
static inline int tsr_sim_check_latency(struct tsr_sim_ctl *c, uint32_t pc, const char *state, int elem,
                                        int64_t wtime, int latency)
{
    int64_t dist = (int64_t)c->icount - wtime;
    if (dist >= latency)
        return 0;
    return tsr_sim_latency_hazard(c, pc, state, elem, dist, latency);
}

/* ---- (addition, X6) forwards: values with an age (docs/mdl.md "Forwards") -----------------------------
 * `forward F[n] : T age LO..HI;` keeps, per element, what the last HI+1 instructions wrote, in a ring of HI+1
 * entries: the instruction with icount N at ring[N % (HI+1)].  Every instruction that completes sets its entry,
 * whether it wrote the element or not (present), so a read `F@A` by the instruction at icount N takes the entry
 * whose serial is N - A: a serial that differs means no instruction A before is known (before the start).
 * Within a bundle, writes go to two staging entries instead (valid while their serial is the bundle's icount):
 * c0 holds the compute stage's writes (what a commit block reads at age 0), c1 every write of the bundle (what
 * tsr_sim_fwd_end puts into the ring).  The generated simulators keep c1 in the ring itself: the bundle's entry is
 * made absent when it starts (the entry it replaces, of icount N - HI - 1, is read at no age) and its writes go
 * there.  A bundle that does not complete (an error, a hazard, a stall: its icount is not counted) leaves its
 * entries absent, in the evaluator too (tsr_sim_fwd_absent); the next bundle at that icount starts from them.
 * The evaluator (mdl/eval_fwd.c) and the generated simulators (gen/emit_sim_fwd.c) share these functions, so
 * their values, reports and return codes are the same. */
#define TSR_SIM_FWD_MAX_AGE 8   /* HI of any forward (mdlc checks 0 <= LO <= HI <= 8) */

/* The deferred latency hazard of a value written into a forward: the first regfile element the value read
 * inside its latency window (state NULL: none), dist instructions after that element's write. */
struct tsr_fwd_stale {
    const char *state;
    int32_t elem;     /* -1: scalar */
    int32_t latency;
    int64_t dist;
};

struct tsr_fwd_ent {
    int64_t serial;   /* icount of the instruction the entry belongs to (TSR_SIM_NEVER: none) */
    uint32_t pc;      /* that instruction's address */
    bool present;     /* it wrote the element (lanes it did not write are 0) */
    uint8_t lo, hi;   /* the ages the value may be read at (the forward's LO..HI, or the write's `ages`) */
    struct tsr_fwd_stale stale;   /* the value's deferred latency hazard (stale.state NULL: none) */
    uint32_t v[TSR_SIM_MAX_LANES];
};

/* Records a latency hazard into *s instead of reporting it (the first one of the value): state[elem] read now,
 * written at wtime, with the regfile's latency. */
static inline void tsr_sim_defer_latency(const struct tsr_sim_ctl *c, struct tsr_fwd_stale *s, const char *state,
                                         int elem, int64_t wtime, int latency)
{
    int64_t dist = (int64_t)c->icount - wtime;
    if (dist >= latency || s->state)
        return;
    s->state = state;
    s->elem = elem;
    s->latency = latency;
    s->dist = dist;
}

/* The entries' values: a forward's `lanes` values per entry (the lanes of a vec forward, 1 for a u32 one) are all
 * any function here writes, copies or clears; the others stay 0 (as every entry starts).  The three functions are
 * always inlined for the generated simulators, which call them with constants (lanes, mask, ages, nring) on every
 * bundle (gcc otherwise keeps one out-of-line copy of tsr_sim_fwd_write for a large <t>_sim_exec); not in
 * AddressSanitizer builds, as runtime/sem.h's TSR_SEM_HOT. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TSR_SIM_NO_FORCED_INLINE 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define TSR_SIM_NO_FORCED_INLINE 1
#endif
#if defined(__GNUC__) && !defined(TSR_SIM_NO_FORCED_INLINE)
#define TSR_SIM_HOT static inline __attribute__((always_inline))
#else
#define TSR_SIM_HOT static inline
#endif

/* Writes v (`lanes` values, the lanes of mask; a u32 forward passes lanes 1) into staging entry e for the bundle at
 * pc, readable at ages lo..hi, with the value's deferred hazard st (NULL: none).  The bundle's first write of the
 * element starts from zeros; a later one keeps the earlier lanes it does not write, and its window and hazard win.
 * An empty mask writes nothing. */
TSR_SIM_HOT void tsr_sim_fwd_put(struct tsr_fwd_ent *e, const uint32_t *v, int lanes, uint32_t mask, int lo, int hi,
                                 const struct tsr_fwd_stale *st);
TSR_SIM_HOT void tsr_sim_fwd_write(const struct tsr_sim_ctl *c, struct tsr_fwd_ent *e, uint32_t pc,
                                   const uint32_t *v, int lanes, uint32_t mask, int lo, int hi,
                                   const struct tsr_fwd_stale *st)
{
    if (!mask)
        return;
    int64_t now = (int64_t)c->icount;
    if (e->serial != now) {
        e->serial = now;
        e->present = false;
    }
    e->pc = pc;
    tsr_sim_fwd_put(e, v, lanes, mask, lo, hi, st);
}

/* The same write into an entry that already belongs to the bundle (its serial and address set: the generated
 * simulators' own ring entries, which sim_fwd_begin makes absent): an absent entry starts from zeros. */
TSR_SIM_HOT void tsr_sim_fwd_put(struct tsr_fwd_ent *e, const uint32_t *v, int lanes, uint32_t mask, int lo, int hi,
                                 const struct tsr_fwd_stale *st)
{
    if (!mask)
        return;
    if (lanes > TSR_SIM_MAX_LANES)
        lanes = TSR_SIM_MAX_LANES;
    /* the lanes an absent entry's zeros are kept in: none when the write covers every lane (a u32 forward's
     * always), so its zeroing folds away for the constant lanes and mask of a generated write */
    const uint32_t all = lanes >= 32 ? ~0u : (1u << lanes) - 1u;
    if (!e->present && (mask & all) != all)
        memset(e->v, 0, (size_t)lanes * sizeof e->v[0]);
    /* lo and hi are adjacent bytes: gcc -O2 stores them as one 16-bit word */
    e->present = true;
    e->lo = (uint8_t)lo;
    e->hi = (uint8_t)hi;
    /* no hazard: its state alone (nothing reads elem, latency or dist of a NULL state: tsr_sim_fwd_get, the
     * report in fwd.c and the rings' comparison in mdl/eval_fwd.c test state first) */
    if (st)
        e->stale = *st;
    else
        e->stale.state = NULL;
    for (int l = 0; l < lanes; l++)
        if (mask >> l & 1)
            e->v[l] = v[l];
}

/* The report of a read tsr_sim_fwd_read does not serve (e: the entry it looked at, NULL: none; want: the serial
 * it looked for); returns the values the read takes. */
const uint32_t *tsr_sim_fwd_read_report(struct tsr_sim_ctl *c, uint32_t pc, const char *name, int elem,
                                        const struct tsr_fwd_ent *e, int64_t want, int age, int *rc);

/* The values (TSR_SIM_MAX_LANES) that a read of forward name[elem] (elem < 0: a scalar forward) at age `age`
 * by the bundle at pc takes.  age >= 1: from ring (nring entries); age 0: from the bundle's c0 staging entry.
 * Hazards, reported with tsr_sim_hazard (*rc its code, 0 in warn mode; *rc is left alone when there is none):
 *   "hazard: mul0_r@2 at 0x00000030: the instruction at 0x00000010 produced no mul0_r value" (absent; its value is 0),
 *   "hazard: mul0_r@2 at 0x00000030: no instruction 2 before it is known" (before the start),
 *   "hazard: mul0_r@1 at 0x00000030: written at 0x00000020 for ages 2..2, read at age 1",
 *   "hazard: R3 read at 0x00000010: written by the previous instruction (regfile latency 3); the value reached
 *    reg0_r, read as reg0_r@1 at 0x00000020" (a stale entry: the deferred latency hazard). */
TSR_SIM_HOT const uint32_t *tsr_sim_fwd_get(struct tsr_sim_ctl *c, uint32_t pc, const char *name, int elem,
                                            const struct tsr_fwd_ent *e, int age, int *rc);
TSR_SIM_HOT const uint32_t *tsr_sim_fwd_read(struct tsr_sim_ctl *c, uint32_t pc, const char *name, int elem,
                                             const struct tsr_fwd_ent *ring, int nring, const struct tsr_fwd_ent *c0,
                                             int age, int *rc)
{
    int64_t want = (int64_t)c->icount - age;
    const struct tsr_fwd_ent *e = age == 0 ? c0 : want >= 0 && nring > 0 ? &ring[want % nring] : NULL;
    if (!e)
        return tsr_sim_fwd_read_report(c, pc, name, elem, e, want, age, rc);
    return tsr_sim_fwd_get(c, pc, name, elem, e, age, rc);
}

/* The same read from the entry e it takes (the generated simulators find the ring slot of each age once a bundle):
 * e is ring[(icount - age) % nring] for age >= 1, where an icount - age below 0 finds an entry whose serial differs
 * (serials are icounts or TSR_SIM_NEVER), hence the same report as no entry; for age 0, the bundle's entry. */
TSR_SIM_HOT const uint32_t *tsr_sim_fwd_get(struct tsr_sim_ctl *c, uint32_t pc, const char *name, int elem,
                                            const struct tsr_fwd_ent *e, int age, int *rc)
{
    int64_t want = (int64_t)c->icount - age;
    if (e->serial == want && e->present && age >= e->lo && age <= e->hi && !e->stale.state)
        return e->v;
    return tsr_sim_fwd_read_report(c, pc, name, elem, e, want, age, rc);
}

/* Entry d belongs to the instruction at pc with icount now, which wrote nothing into it (yet): absent.  Nothing
 * reads an absent entry's window, hazard or values (tsr_sim_fwd_read gives zeros and reports it; the rings'
 * comparison, mdl/eval_fwd.c, stops at `present`), so the hazard and values are left as they were.  pc, present
 * and the window (set to 0..0) are the 8 bytes after serial, stored as one (gcc -O2 made three stores of
 * serial, pc and present; a generated simulator makes every entry of its bundle absent). */
_Static_assert(offsetof(struct tsr_fwd_ent, stale) - offsetof(struct tsr_fwd_ent, pc) == 8,
               "pc, present, lo, hi and the padding are 8 bytes");
static inline void tsr_sim_fwd_absent(struct tsr_fwd_ent *d, uint32_t pc, int64_t now)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    const uint64_t h = (uint64_t)pc << 32;   /* pc, then present false, lo = hi = 0 and the padding: zero bytes */
#else
    const uint64_t h = pc;
#endif
    d->serial = now;
    memcpy((unsigned char *)d + offsetof(struct tsr_fwd_ent, pc), &h, sizeof h);
}

/* The bundle at pc (icount now, before it counts) completed: its entry of the element's ring is staging entry c1
 * if the bundle wrote it, else an absent entry (`lanes` values per entry, as tsr_sim_fwd_write). */
TSR_SIM_HOT void tsr_sim_fwd_end_at(struct tsr_fwd_ent *d, const struct tsr_fwd_ent *c1, uint32_t pc, int64_t now,
                                    int lanes);
static inline void tsr_sim_fwd_end(const struct tsr_sim_ctl *c, struct tsr_fwd_ent *ring, int nring,
                                   const struct tsr_fwd_ent *c1, uint32_t pc, int lanes)
{
    int64_t now = (int64_t)c->icount;
    tsr_sim_fwd_end_at(&ring[now % nring], c1, pc, now, lanes);
}

/* The same with the ring entry d = &ring[now % nring] of the bundle whose icount is now.  (The evaluator's way; the
 * generated simulators write into d itself: tsr_sim_fwd_absent at the bundle's start, tsr_sim_fwd_put.) */
TSR_SIM_HOT void tsr_sim_fwd_end_at(struct tsr_fwd_ent *d, const struct tsr_fwd_ent *c1, uint32_t pc, int64_t now,
                                    int lanes)
{
    if (lanes > TSR_SIM_MAX_LANES)
        lanes = TSR_SIM_MAX_LANES;
    d->serial = now;
    if (c1->serial == now && c1->present) {
        d->pc = c1->pc;
        d->present = true;
        d->lo = c1->lo;
        d->hi = c1->hi;
        d->stale = c1->stale;
        memcpy(d->v, c1->v, (size_t)lanes * sizeof d->v[0]);
        return;
    }
    tsr_sim_fwd_absent(d, pc, now);
}

/* ---- the description's rules (TSR_SIM_F_RULES) ---------------------------------------------------
 * The generated <t>_sim_step calls tsr_sim_rules_step for every bundle it issues, in issue order (after
 * the ready hook agreed and the trace printed the bundle, before it executes), so the validator's rules
 * (runtime/validate/validate.h, docs/validate.md) are checked along the path the program really takes, taken
 * branches and returns included.  Each violation is a hazard "hazard: rule NAME at 0x...: what happened"
 * (or "resource NAME ...") through tsr_sim_hazard, so TSR_SIM_F_HAZARD_WARN counts them and goes on.  The
 * history starts again at tsr_sim_rules_reset: <t>_sim_init / _reset, and after the bundle that halts
 * (a thread end), so the next program run on the core starts afresh (its first bundle is a START). */
struct tsr_vdesc;    /* runtime/validate/validate.h */
struct tsr_vstream;  /* runtime/validate/validate.h */

/* Steps the bundle at pc (words: its rules_desc->nwords words) into c->rules, creating it from
 * c->rules_desc on first use; last: it is the program's last instruction (it ends a basic block: the rule
 * patterns' `end`, tsr_vstream_step_last).  Does nothing (returns 0) when TSR_SIM_F_RULES is not set or when the bundle
 * at this icount was already stepped (a retry after a stall inside the bundle).  Returns 0, TSR_SIM_HAZARD
 * (the first violation's message in c->msg; 0 instead with TSR_SIM_F_HAZARD_WARN), or TSR_SIM_ERROR when
 * the simulator has no rules (rules_desc NULL) or memory runs out. */
int tsr_sim_rules_step(struct tsr_sim_ctl *c, const uint32_t *words, uint32_t pc, bool last);
/* Forgets the history: the next bundle stepped starts a program.  No-op without a stream. */
void tsr_sim_rules_reset(struct tsr_sim_ctl *c);
/* Frees the stream (c->rules = NULL; a later step makes a new one). */
void tsr_sim_rules_free(struct tsr_sim_ctl *c);

/* Lane mask with the low `lanes` bits set (lanes 1..32). */
static inline uint32_t tsr_sim_all_lanes(int lanes)
{
    return lanes >= 32 ? 0xffffffffu : ((uint32_t)1 << lanes) - 1;
}

/* ---- trace ----------------------------------------------------------------------------------- */
/* "[name] 0x00000010: 15827d80 10020827  <text>" (called after the bundle issued). */
void tsr_sim_trace_bundle(struct tsr_sim_ctl *c, uint32_t pc, const uint32_t *words);
/* "    ra5 = 1 2 3 ..." for an element written (vec: `lanes` values, masked-off lanes as "-";
 * all equal and all written: one value; scalar: lanes 0). elem < 0: scalar state. */
void tsr_sim_trace_write(struct tsr_sim_ctl *c, const char *state, int elem, const uint32_t *v, int lanes,
                         uint32_t mask);
/* "    hook io_write(0, 46) value 0x..." for a hook called by the bundle (v may be NULL). */
void tsr_sim_trace_hook(struct tsr_sim_ctl *c, const char *hook, const uint32_t *args, int nargs,
                        const uint32_t *v, int lanes, uint32_t mask);
/* "    -> jump 0x00000040 after 3" / "-> halt after 2" / "-> stall" lines. */
void tsr_sim_trace_note(struct tsr_sim_ctl *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- (addition) the machine as tools see it: spaces, outputs -------------------------------------------
 * What `tessera sim` needs to set initial values and print results of any target (docs/tools.md "sim"): every
 * address space with its entries (docs/mdl.md "Address spaces"), in declaration order. */
enum { TSR_SIM_SE_STATE, TSR_SIM_SE_HOOK, TSR_SIM_SE_NONE };
struct tsr_sim_sentry {
    uint32_t lo, hi;     /* the codes lo..hi of the entry */
    bool write;          /* a write entry (else read) */
    int kind;            /* TSR_SIM_SE_*: a state element (its index computed from the code), a hook, nothing */
    int state;           /* TSR_SIM_SE_STATE: the state's index, else -1 */
};
struct tsr_sim_space {
    const char *name;
    uint32_t size;       /* codes 0..size-1 */
    bool output;         /* declared `output`: its state read entries are printed after a run */
    int nent;
    const struct tsr_sim_sentry *ent;
};

/* (addition, X6) A forward as tools see it (docs/mdl.md "Forwards"). */
struct tsr_sim_fwd {
    const char *name;
    int count;           /* elements (0: scalar) */
    int lo, hi;          /* the ages it may be read at; its ring has hi + 1 entries */
    bool vec;            /* one value per lane (vec and vec4), else one for all */
};

/* ---- per-target descriptor ---------------------------------------------------------------------
 * Every generated simulator exports `const struct tsr_sim_desc <t>_sim_desc`, so tests, fuzzers
 * and tools can run and inspect any target through one interface.  `void *sim` points to a
 * `struct <t>_sim` (sim_size bytes).  ops[] is indexed by the model's slot index (-1: slot not in
 * the format), fields[] by the model's field index (the raw, zero-extended field bits; exec masks each to its
 * field's width, as decode gives them). */
struct tsr_sim_desc {
    const char *name;  /* isa name */
    int lanes, nstates, nslots, nfields, nformats, nhooks;
    int bundle_words;  /* 32-bit words per bundle (fixed-length formats) */
    uint32_t pc_step;
    size_t sim_size;
    void (*init)(void *sim);
    void (*fini)(void *sim);
    /* decode one bundle into format/ops/fields (the generated decoder); 0 or negative */
    int (*decode)(const uint32_t *words, int *format, int *ops, uint64_t *fields);
    /* execute one bundle given as format/ops/fields at the current pc (like <t>_sim_exec) */
    int (*exec)(void *sim, int format, const int *ops, const uint64_t *fields);
    int (*step)(void *sim, const uint32_t *words, size_t nwords);
    /* the values of state `state` element `elem` (lanes values for vec state, 1 for scalars) */
    uint32_t *(*state)(void *sim, int state, int elem);
    /* its write time (NULL if the state has no latency) */
    int64_t *(*wtime)(void *sim, int state, int elem);
    struct tsr_sim_ctl *(*ctl)(void *sim);
    void (*set_hooks)(void *sim, const struct tsr_sim_hooks *h);
    const char *const *state_names;
    const int *state_count;   /* 0 = scalar */
    const bool *state_vec;
    int comps;                /* (addition) 4 in a description with vec4 values (docs/sim.md "Component values"):
                                 its `lanes` (4) are the components x, y, z, w of one thread, and every state
                                 with state_vec set is a vec4; 0 otherwise */
    /* (addition) Per state: declared `output` (printed after `tessera sim`); `print float` (its values print as
     * binary32 beside their hex); values per lane of one element (1 for u32 and vec; a component type such as
     * vec4 holds its components together: lane l component c at [l * ncomp + c] of state()'s pointer, which then
     * holds lanes * ncomp values for vec state, ncomp for one value). */
    const bool *state_output;
    const bool *state_float;
    const unsigned char *state_ncomp;
    /* (addition) Address spaces (nspaces of them).  space_read reads address addr of space sp into v[lanes] as
     * an instruction's read would (a hook entry calls its hook), outside any bundle and without hazard checks;
     * space_write writes v[lanes] there and applies the entry's state writes at once, leaving their write times
     * alone (an initial value, not an instruction's write).  Both return 0, or a negative TSR_SIM_* code with the
     * message in ctl()->msg (an address without an entry of that direction, a hook's failure), -1 for a bad sp. */
    int nspaces;
    const struct tsr_sim_space *spaces;
    int (*space_read)(void *sim, int sp, uint32_t addr, uint32_t *v);
    int (*space_write)(void *sim, int sp, uint32_t addr, const uint32_t *v);
    /* (addition, X6) Forwards (nfwds of them, declaration order) and the ring of hi + 1 entries of forward f
     * element elem (ignored for a scalar; NULL out of range): "forwards" above. */
    int nfwds;
    const struct tsr_sim_fwd *fwds;
    struct tsr_fwd_ent *(*fwd_ring)(void *sim, int f, int elem);
};

/* The index of D's state (regfile or scalar state) whose name is the n bytes at name, or -1 if there is none. */
int tsr_sim_find_state(const struct tsr_sim_desc *D, const char *name, size_t n);

#endif
