/* The critical path and the move capacity of the bottom-up scheduler (pack_route_bu.c; docs/pack.md "Values through
 * forwards"): each operation's depth (the longest path from the program's start), the priority order it gives, and
 * the number of values the moves' slots can carry towards a bundle (the form of Mesa lima's gpir scheduler's bound
 * on live values and its "max" / "next max" reservations, computed from the description's move ops).  Nothing here
 * names a target, a unit or a field. */
#include "pack_route_bu.h"

/* (pack_route_bu.h) */
int tsr_route_crit_depth(const struct route *R, const int *live, int nl, const struct tsr_pack_elist *succ,
                         bool skip_opt, int *depth)
{
    /* (live is in program order: every producer and predecessor of an op comes before it) */
    int cpl = 0;
    for (int ii = 0; ii < nl; ii++) {
        int i = live[ii];
        for (int r = 0; r < R->o[i].nref; r++) {
            int v = R->o[i].ref[r];
            if (!(skip_opt && R->o[v].opt) && depth[v] + R->o[v].lo > depth[i])
                depth[i] = depth[v] + R->o[v].lo;
        }
        for (int k = 0; k < succ[i].n; k++) {
            int j = succ[i].e[k].to, l = succ[i].e[k].lat > 0 ? succ[i].e[k].lat : 0;
            if (depth[i] + l > depth[j])
                depth[j] = depth[i] + l;
        }
        if (depth[i] + 1 > cpl)
            cpl = depth[i] + 1;
    }
    return cpl;
}

/* A hash of (seed, op) for the ties of a perturbed order: a fixed function, so every run is reproducible. */
static unsigned mix(unsigned seed, int i)
{
    unsigned h = seed * 0x9e3779b9u ^ (unsigned)i * 0x85ebca6bu;
    h ^= h >> 15;
    h *= 0xc2b2ae35u;
    h ^= h >> 13;
    return h;
}

/* (pack_route_bu.h) */
void tsr_route_crit_order(const int *live, int nl, const int *depth, bool by_depth, unsigned seed, int *order)
{
    for (int k = 0; k < nl; k++)
        order[k] = live[nl - 1 - k];   /* (later in program order first among equals) */
    if (!by_depth)
        return;
    /* (insertion sort by depth, deepest first, stable; seed: equal depths by the hash) */
    for (int a = 1; a < nl; a++) {
        int v = order[a], b = a;
        while (b > 0 && (depth[order[b - 1]] < depth[v] ||
                         (seed && depth[order[b - 1]] == depth[v] && mix(seed, order[b - 1]) < mix(seed, v)))) {
            order[b] = order[b - 1];
            b--;
        }
        order[b] = v;
    }
}

/* (pack_route_bu.h) */
void tsr_route_crit_capacity(const uint64_t *mvslot, const int *mvhi, int nmv, int hmove, int *total, int *far)
{
    int reach[64] = { 0 };
    for (int m = 0; m < nmv && m < 64; m++)
        for (uint64_t b = mvslot[m]; b; b &= b - 1)
            if (mvhi[m] > reach[__builtin_ctzll(b)])
                reach[__builtin_ctzll(b)] = mvhi[m];
    *total = *far = 0;
    for (int s = 0; s < 64; s++) {
        *total += reach[s];
        *far += reach[s] > 0 && reach[s] >= hmove;
    }
}
