/* (addition, X6) The simulator emitter's forwards (docs/mdl.md "Forwards", docs/sim.md): the rings and staging entries
 * in struct <t>_sim, their reads (`F@A`) and writes (`F = e ages L..H`, latency hazards of e deferred into the entry),
 * the bundle's start and end, and the descriptor's view.  Nothing is emitted for a description without forwards.
 * The history's rules are runtime/sim/fwd.c's, which the evaluator (mdl/eval_fwd.c) calls too. */
#include <inttypes.h>
#include <string.h>

#include "emit_sim.h"
#include "eval.h"

static int nelem(const struct mdl_fwd *f) { return f->count > 0 ? f->count : 1; }

static bool stmts_write_fwd(struct mdl_stmt **s, int n, int f)
{
    for (int i = 0; i < n; i++) {
        if (s[i]->kind == MDL_S_ASSIGN && s[i]->target && s[i]->target->kind == MDL_E_FWD && s[i]->target->index == f)
            return true;
        if (stmts_write_fwd(s[i]->body, s[i]->nbody, f) || stmts_write_fwd(s[i]->elseb, s[i]->nelse, f))
            return true;
    }
    return false;
}

/* Forward f is written by a commit block (a slot's or a format's commit).  Only then can the bundle's compute-stage
 * writes (staging entry c0, what age-0 reads take) differ from all its writes (c1): otherwise both entries receive
 * the same writes in the same order and stay equal, so the simulator keeps one, the ring slot of the bundle
 * (fr_F[e][J->F[0]], struct sim_fj), and age-0 reads take it.
 * (Space entries have no statements; the compute stage is the ops' and formats' `sem`.) */
static bool commit_writes(const struct mdl_model *m, int f)
{
    for (int i = 0; i < m->nslots; i++)
        if (stmts_write_fwd(m->slots[i].commit, m->slots[i].ncommit, f))
            return true;
    for (int i = 0; i < m->nformats; i++)
        if (stmts_write_fwd(m->formats[i].commit, m->formats[i].ncommit, f))
            return true;
    return false;
}

void sg_fwd_members(const struct mdl_model *m, struct tsr_buf *o)
{
    for (int i = 0; i < m->nfwds; i++) {
        const struct mdl_fwd *f = &m->fwds[i];
        tsr_buf_printf(o, "    struct tsr_fwd_ent fr_%s[%d][%d]; /* forward %s: the last %d instructions' values; the "
                       "bundle's own at fr_%s[e][J->%s[0]] (sim_fj) */\n", f->name, nelem(f), f->hi + 1, f->name, f->hi + 1,
                       f->name, f->name);
        if (commit_writes(m, i))
            tsr_buf_printf(o, "    struct tsr_fwd_ent f0_%s[%d]; /* this bundle's compute stage (what age 0 reads) */\n",
                           f->name, nelem(f));
    }
}

void sg_fwd_support(struct sg *g)
{
    const struct mdl_model *m = g->m;
    if (!m->nfwds)
        return;
    const char *t = m->name;
    struct tsr_buf *o = g->o;
    tsr_buf_printf(o, "/* Forwards (runtime/sim/sim.h): every ring entry and staging entry empty. */\n"
                   "static void sim_fwd_init(struct %s_sim *S)\n{\n", t);
    for (int i = 0; i < m->nfwds; i++) {
        const struct mdl_fwd *f = &m->fwds[i];
        tsr_buf_printf(o, "    for (int e = 0; e < %d; e++) {\n        for (int j = 0; j < %d; j++)\n"
                       "            S->fr_%s[e][j].serial = TSR_SIM_NEVER;\n%s    }\n",
                       nelem(f), f->hi + 1, f->name,
                       commit_writes(m, i) ? sg_fmt(g, "        S->f0_%s[e].serial = TSR_SIM_NEVER;\n", f->name) : "");
    }
    /* The ring slot of icount N - A is (N - A) mod (HI + 1): one unsigned remainder a bundle, the ages by subtraction
     * (an age before the start finds an entry of another serial: tsr_sim_fwd_get).  They are kept in a local of
     * <t>_sim_exec, passed to the op and operand functions, so that the compiler need not load them again after
     * each store into the simulator (a member may alias the stores of its type); its address goes to no function
     * that gcc cannot see through (sim_fwd_begin, out of line, only stores into it; sim_fwd_fail finds the slot
     * again).  sim_fwd_begin is out of line: inlined into <t>_sim_exec, whose registers are taken, gcc -O2 spilled
     * and reloaded the serial and pc for every entry it makes absent (12 a bundle in the Mali GP description: 931
     * -> 917 instructions a bundle out of line; the slots computed inline and only the entries out of line: 8
     * more). */
    tsr_buf_puts(o, "}\n\n/* The ring slot of each age of each forward for the bundle being executed (sim_fwd_begin). */\n"
                 "struct sim_fj {\n");
    for (int i = 0; i < m->nfwds; i++)
        tsr_buf_printf(o, "    unsigned %s[%d];\n", m->fwds[i].name, m->fwds[i].hi + 1);
    tsr_buf_printf(o, "};\n\n/* The bundle at pc starts: each age's ring slot; its own entries absent until written (the "
                   "entries they replace are read at no age), its compute-stage entries empty. */\n"
                   "static __attribute__((noinline)) void sim_fwd_begin(struct %s_sim *S, uint32_t pc, struct sim_fj *J)\n{\n"
                   "    const uint64_t now = S->core.icount;\n", t);
    for (int i = 0; i < m->nfwds; i++) {
        const struct mdl_fwd *f = &m->fwds[i];
        int n = f->hi + 1;
        tsr_buf_printf(o, "    {\n        const unsigned j = (unsigned)(now %% %du);\n", n);
        for (int a = 0; a < n; a++)
            tsr_buf_printf(o, a == 0 ? "        J->%s[0] = j;\n" : "        J->%s[%d] = j >= %du ? j - %du : j + %du;\n",
                           f->name, a, a, a, n - a);
        const char *f0 = commit_writes(m, i) ? sg_fmt(g, "S->f0_%s[e].serial = TSR_SIM_NEVER;", f->name) : NULL;
        if (nelem(f) <= 16 && !f0) {   /* written out: gcc kept a loop of 5 instructions an entry */
            for (int e = 0; e < nelem(f); e++)
                tsr_buf_printf(o, "        tsr_sim_fwd_absent(&S->fr_%s[%d][j], pc, (int64_t)now);\n", f->name, e);
            tsr_buf_puts(o, "    }\n");
        } else {
            tsr_buf_printf(o, "        for (int e = 0; e < %d; e++) {\n"
                           "            tsr_sim_fwd_absent(&S->fr_%s[e][j], pc, (int64_t)now);\n%s%s%s        }\n    }\n",
                           nelem(f), f->name, f0 ? "            " : "", f0 ? f0 : "", f0 ? "\n" : "");
        }
    }
    tsr_buf_printf(o, "}\n\n/* The bundle at pc did not complete (not counted): its entries are absent (runtime/sim/sim.h, "
                   "as the evaluator's mdl_evfwd_fail). */\n"
                   "static void sim_fwd_fail(struct %s_sim *S, uint32_t pc)\n{\n"
                   "    const int64_t now = (int64_t)S->core.icount;\n", t);
    for (int i = 0; i < m->nfwds; i++) {
        const struct mdl_fwd *f = &m->fwds[i];
        tsr_buf_printf(o, "    for (int e = 0; e < %d; e++)\n        tsr_sim_fwd_absent(&S->fr_%s[e][now %% %d], pc, now);\n",
                       nelem(f), f->name, f->hi + 1);
    }
    tsr_buf_puts(o, "}\n\n");
}

/* The uniform element index of forward f at index expression idx (NULL: scalar), with its range check. */
static const char *fwd_index(struct sg *g, const struct mdl_fwd *f, const struct mdl_expr *idx)
{
    if (f->count == 0 || !idx)
        return "0u";
    const char *i = sg_uni(g, sg_expr(g, idx));
    const char *t = sg_tmp(g, "ti");
    sg_line(g, "const uint32_t %s = %s;", t, i);
    sg_line(g, "if (%s >= %du) { rc = tsr_sim_error(&S->core, pc, \"%s index %%\" PRIu32 \" out of range (%d elements) "
            "at 0x%%08\" PRIx32, %s, pc); goto out; }", t, f->count, f->name, f->count, t);
    return t;
}

struct sv sg_fwd_read(struct sg *g, const struct mdl_expr *e)
{
    const struct mdl_fwd *f = &g->m->fwds[e->index];
    const char *i = fwd_index(g, f, e->a ? e->a[0] : NULL);
    const char *v = sg_tmp(g, "fv"), *r = sg_tmp(g, "fr");
    sg_line(g, "int %s = 0;", r);
    int age = (int)e->ival;
    const char *ent = age == 0 && commit_writes(g->m, e->index) ? sg_fmt(g, "&S->f0_%s[%s]", f->name, i)
                                                                : sg_fmt(g, "&S->fr_%s[%s][J->%s[%d]]", f->name, i, f->name, age);
    sg_line(g, "const uint32_t *%s = tsr_sim_fwd_get(&S->core, pc, \"%s\", %s, %s, %d, &%s);", v, f->name,
            f->count > 0 ? sg_fmt(g, "(int)%s", i) : "-1", ent, age, r);
    sg_line(g, "if (%s) { rc = %s; goto out; }", r, r);
    if (f->vec)
        return VS(sg_fmt(g, "%s[l]", v), v);
    return U(sg_fmt(g, "%s[0]", v));
}

void sg_fwd_write(struct sg *g, const struct mdl_stmt *s)
{
    const struct mdl_expr *t = s->target;
    const struct mdl_fwd *f = &g->m->fwds[t->index];
    bool commit = g->chk && !strcmp(g->chk, "0");
    sg_open(g);
    const char *st = sg_tmp(g, "fs");
    sg_line(g, "struct tsr_fwd_stale %s = {0};", st);
    const struct mdl_expr *es[2] = { s->e, t->a ? t->a[0] : NULL };
    sg_cse_begin(g, es, es[1] ? 2 : 1);
    const char *save_defer = g->defer;
    g->defer = st;   /* latency hazards of the value are recorded into the entry (read_checks) */
    struct sv v = sg_expr(g, s->e);
    g->defer = save_defer;
    const char *mask = M(g);
    if (s->mask) {
        const char *wm = sg_tmp(g, "wm");
        sg_line(g, "const uint32_t %s = %s & (uint32_t)%s;", wm, mask, sg_uni(g, sg_expr(g, s->mask)));
        mask = wm;
    }
    const char *i = fwd_index(g, f, t->a ? t->a[0] : NULL);
    const char *vec = sg_vec(g, v);
    int w = f->vec ? g->L : 1;
    const char *stp = sg_fmt(g, "%s.state ? &%s : NULL", st, st);
    if (!commit && commit_writes(g->m, t->index))
        sg_line(g, "tsr_sim_fwd_write(&S->core, &S->f0_%s[%s], pc, %s, %d, %s, %d, %d, %s);", f->name, i, vec, w,
                f->vec ? mask : sg_fmt(g, "(%s) ? 1u : 0u", mask), s->ages_lo, s->ages_hi, stp);
    sg_line(g, "tsr_sim_fwd_put(&S->fr_%s[%s][J->%s[0]], %s, %d, %s, %d, %d, %s);", f->name, i, f->name, vec, w,
            f->vec ? mask : sg_fmt(g, "(%s) ? 1u : 0u", mask), s->ages_lo, s->ages_hi, stp);
    sg_cse_end(g);
    sg_close(g);
}

void sg_fwd_desc_tables(struct sg *g)
{
    const struct mdl_model *m = g->m;
    if (!m->nfwds)
        return;
    struct tsr_buf *o = g->o;
    tsr_buf_puts(o, "static const struct tsr_sim_fwd sim_fwds[] = {\n");
    for (int i = 0; i < m->nfwds; i++) {
        const struct mdl_fwd *f = &m->fwds[i];
        tsr_buf_printf(o, "    { \"%s\", %d, %d, %d, %s },\n", f->name, f->count, f->lo, f->hi, f->vec ? "true" : "false");
    }
    tsr_buf_printf(o, "};\nstatic struct tsr_fwd_ent *d_fwd_ring(void *s, int f, int e)\n{\n"
                   "    struct %s_sim *S = s;\n    switch (f) {\n", m->name);
    for (int i = 0; i < m->nfwds; i++) {
        const struct mdl_fwd *f = &m->fwds[i];
        if (f->count > 0)
            tsr_buf_printf(o, "    case %d: return e >= 0 && e < %d ? S->fr_%s[e] : NULL;\n", i, f->count, f->name);
        else
            tsr_buf_printf(o, "    case %d: return S->fr_%s[0];\n", i, f->name);
    }
    tsr_buf_puts(o, "    default: return NULL;\n    }\n}\n\n");
}

const char *sg_fwd_desc_members(struct sg *g)
{
    if (!g->m->nfwds)
        return "";
    return sg_fmt(g, "    .nfwds = %d, .fwds = sim_fwds, .fwd_ring = d_fwd_ring,\n", g->m->nfwds);
}
