/* The settings of the bottom-up scheduler of programs with value names (docs/pack.md "Values through forwards"), and
 * the hook that replaces the list the packer tries, for the tool that measures settings on a corpus
 * (bench/bench_routepick.c).  Private to runtime/pack/ and that tool. */
#ifndef TSR_PACK_ROUTE_CFG_H
#define TSR_PACK_ROUTE_CFG_H
#include <stdbool.h>

/* A setting of the scheduler (tsr_route_bu_run, pack_route_bu.c; the list tried: pack_route_set.c): its limits
 * (cf->lim: values waiting; cf->due: values whose farthest read is in one bundle; cf->fit 1: both from the moves'
 * capacity instead, tsr_route_crit_capacity; fit 2: all waiting values within that capacity, and the values that
 * need a feeder at p or p + 1 beyond the slots whose move reaches the farthest age keep as many move slots free at
 * p, lima's reservation) and priority (cf->depth: the longest path from the start, else program order; cf->seed
 * non-zero: equal depths by a hash instead; cf->live: the producers of values waiting before the others; cf->slack
 * >= 0: first the ops at their latest position for a schedule of the critical path's length + slack, which the
 * limits do not hold back; cf->thr > 0: a value at its last chance whose first read placed is more than thr bundles
 * after p goes through a register, pack_spill.c, before a move is tried: lima spills a value that would wait long
 * rather than thread it; cf->pre: the move slots left free at p carry the values that would be at their last chance
 * at p + 1, lima's moves of "next max" values; cf->late 1 or 2: the moves of the values at their last chance go
 * after the operations, which keep as many of the slots whose move reaches the farthest age free as those values
 * need, lima's order: late 1 judges an op by its unit of the input, late 2 by the bundle it forms; cf->direct 1: a
 * reader of an optional value, struct rop.opt, reads its source text where its bundle forms so, and the value is
 * placed only while some read is not direct, lima's load placed in its reader's instruction; 2: also, an op that
 * does not fit a bundle takes the place of the direct reads of the bundle's others, which then read the value,
 * U->flip); cf->press: when the limits on values waiting hold an op back, a value waiting whose reads can all load a
 * register goes through one (pack_spill.c; the lowest priority first, not one the op reads, no optional one) and the
 * op is tried again, lima's spill of a live value to make room for the node it schedules (try_spill_nodes); press 2:
 * the values at their last chance first, as lima spills its "max" nodes first; cf->fifo: step 2 takes the ops by
 * depth (the longest path from the start), then in the order their values began to wait (a reader placed; a move
 * of the value placed counts as a new start), then by the order above: Mesa's gpir scheduler keeps its ready list
 * so (a node goes in after every node of its distance or more when a user of it is scheduled, and a move's source
 * again when the move is); cf->mpri (with cf->late): the producers of the values at their last chance are not
 * placed first (step 1) but take their turn in step 2's order, the values' moves placed after the operations for
 * those not placed: lima's "max" nodes are nodes of its ready list like the others, a move slot reserved for each;
 * cf->optfirst (with cf->pre): step 3 moves the optional values (struct rop.opt: loads) first, then the others, each
 * group the least urgent first: Mesa's gpir scheduler gives the move it makes for a load that could not join its
 * reader the distance 0 of a load, the last place of its ready list, whose end its moves of "next max" nodes take
 * first; cf->score 1: step 2 does not take the first op that fits but, as Mesa's gpir scheduler's try_node, that
 * one and the ops after it in the order with the same depth, each placed on trial, and keeps the one whose bundle
 * leaves the fewest optional values it reads to be placed (struct rop.opt: a load that did not join its reader's
 * bundle needs a move), the first among equals; score 2: the ops after it of any depth (those of the same stage of
 * step 2: urgent, producers of waiting values, others); cf->plc: step 1 also places, where it can go, the producer of
 * a value readable at fewer ages than a move reaches (a unit whose results wait in a FIFO of depth 1: age 1 only)
 * at its last chance to feed the value's nearest read itself (else such a read placed by a move of the value one
 * bundle below could be left with no feeder a bundle later). */
struct tsr_route_cfg {
    int lim, due;
    bool depth, live;
    int slack, fit;
    unsigned seed;
    int thr;
    bool pre;
    int late, direct;
    int press;
    int fifo;
    int mpri;
    bool optfirst;
    int score;
    int plc;
};

/* pack_route_set.c: the packer tries list[0..n) (at most TSR_ROUTE_MAXCFG; copied) instead of its own settings, in
 * every thread, until called again; n 0 (or list NULL): its own again, with the squeaky wheel rounds.  fallback:
 * when none of them schedules a program, its fallback settings are tried as after its own (else the program is not
 * packed: a setting measured alone).  improve: the squeaky wheel rounds run on the best of them as after its own
 * (pack_route_set.c swo; else the list's shortest schedule is the result).  Returns 0, or -1 when n is out of range
 * (nothing changed).  Not for use while another thread packs. */
#define TSR_ROUTE_MAXCFG 64
int tsr_route_settings_use(const struct tsr_route_cfg *list, int n, bool fallback, bool improve);
/* pack_route_set.c: the packer's own settings, *n of them (the ones a build with AddressSanitizer tries first). */
const struct tsr_route_cfg *tsr_route_settings_own(int *n);

#endif
