/* The encoder-versus-simulator differential check (ARCHITECTURE.md "Verification" 2): random bundles,
 * executed by a target's generated simulator and by the independent evaluator (mdl/eval.h) from the same
 * random machine state, with the same deterministic fake peripherals on both sides; every difference in
 * return code, report, machine state, control state or peripheral traffic is a bug in one of them (or in
 * the decoder/encoder the simulator's path goes through).
 *
 * Per bundle, from the fuzzer's bytes: the words are decoded (t->decode) into format/ops/fields, which the
 * evaluator executes; the simulator executes the same instruction after encode and decode again
 * (t->encode, then the simulator descriptor's decode), so the encoder and decoder are in its path; that
 * encode gives back the original words is checked too.
 *
 * Usage (a libFuzzer harness):
 *     static struct mdl_diffsim ds;     // once: mdl_diffsim_init(&ds, model, &qpu_target, &qpu_sim_desc)
 *     int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {
 *         if (mdl_diffsim_one(&ds, d, n)) { fprintf(stderr, "%s\n", ds.report); abort(); }
 *         return 0;
 *     }
 * or mdl_diffsim_fuzz_one(), which loads the description itself the first time.
 */
#ifndef MDL_DIFFSIM_H
#define MDL_DIFFSIM_H

#include <stddef.h>
#include <stdint.h>

#include "eval.h"
#include "sim/sim.h"
#include "target.h"

/* Deterministic fake peripherals: every call's result depends only on the seed and the calls before it,
 * and every call is recorded (running hash plus the first calls in full) for comparison. */
#define MDL_FAKE_LOG 32
struct mdl_fake_call {
    int hook, kind, nargs;
    uint32_t args[4];
    uint32_t mask;
    uint32_t vhash;  /* hash of the values passed (masked lanes) or returned */
    int rc;
};
struct mdl_fakehooks {
    uint64_t seed;
    int lanes;
    unsigned stall_per_256, error_per_256, busy_per_256;  /* rates of stalls, errors, busy guards */
    uint64_t ncalls, hash;
    int nlog;
    struct mdl_fake_call log[MDL_FAKE_LOG];
};
/* The tsr_sim_hooks callback (ctx = struct mdl_fakehooks *). */
int mdl_fakehooks_call(void *ctx, int hook, enum tsr_hook_kind kind, const uint32_t *args, int nargs, uint32_t *v,
                       uint32_t lanemask);
void mdl_fakehooks_reset(struct mdl_fakehooks *f, uint64_t seed, int lanes);
/* 0 if both saw the same calls; else 1 and the first difference in report. */
int mdl_fakehooks_compare(const struct mdl_fakehooks *a, const struct mdl_fakehooks *b, const struct mdl_model *m,
                          char *report, size_t n);

struct mdl_diffsim {
    const struct mdl_model *m;
    const struct tsr_target *t;
    const struct tsr_sim_desc *d;
    void *sim;
    void *inst, *inst2;              /* t->inst_size each */
    struct mdl_evstate ev;
    struct mdl_fakehooks fs, fe;     /* the simulator's and the evaluator's peripherals */
    struct tsr_sim_hooks hs, he;
    char report[1024];
    /* statistics (bundles) */
    uint64_t runs, ok, halted, stalled, hazards, errors, undecodable;
};

/* Prepares a harness for model m (the checked description the target was generated from), target t and
 * its simulator descriptor d (NULL: t->sim; pass &<t>_sim_desc explicitly: t->sim is a weak reference that
 * is NULL unless something else pulls the simulator out of the static library).  Returns 0, or -1 with a
 * message in ds->report (different shapes, no memory). */
int mdl_diffsim_init(struct mdl_diffsim *ds, const struct mdl_model *m, const struct tsr_target *t,
                     const struct tsr_sim_desc *d);
void mdl_diffsim_fini(struct mdl_diffsim *ds);

/* One differential run driven by size bytes of data (any bytes: missing ones are derived from a
 * seed): a random state and 1 to 4 bundles executed in sequence.  Returns 0 if simulator and evaluator
 * agreed on everything, 1 otherwise (ds->report says what and where). */
int mdl_diffsim_one(struct mdl_diffsim *ds, const uint8_t *data, size_t size);

/* mdl_diffsim_one with a harness made on first use from the description at mdl_path (a relative path is
 * also tried under $TESSERA_ROOT).  Returns 0 agree, 1 differ (report printed to stderr), -1 setup
 * failure (printed). */
int mdl_diffsim_fuzz_one(const struct tsr_target *t, const struct tsr_sim_desc *d, const char *mdl_path,
                         const uint8_t *data, size_t size);

#endif
