/* The simulator descriptor's view of the machine for tools (struct tsr_sim_desc, runtime/sim/sim.h): which states
 * and spaces the description declares `output` and how their values print (`print float`), how many 32-bit values
 * an element holds per lane, and every address space with its entries and read/write functions, so that
 * `tessera sim` sets initial values and prints outputs of any target through the descriptor (docs/tools.md "sim").
 */
#include <inttypes.h>
#include <string.h>

#include "emit_sim.h"

/* Values per lane of state s: 1 for the 32-bit types u32 and vec.  (A component type such as vec4 holds one value
 * per component: its emitter returns that count here, and sim_state() lays the components of a lane together.) */
static int state_ncomp(const struct mdl_state *s)
{
    (void)s;
    return 1;
}

void sg_emit_io_tables(struct sg *g)
{
    const struct mdl_model *m = g->m;
    struct tsr_buf *o = g->o;
    tsr_buf_puts(o, "static const bool sim_state_output[] = {");
    for (int s = 0; s < m->nstates; s++)
        tsr_buf_printf(o, "%s%d", s ? ", " : "", m->states[s].output);
    tsr_buf_puts(o, "};\nstatic const bool sim_state_float[] = {");
    for (int s = 0; s < m->nstates; s++)
        tsr_buf_printf(o, "%s%d", s ? ", " : "", m->states[s].print == MDL_PRINT_FLOAT);
    tsr_buf_puts(o, "};\nstatic const unsigned char sim_state_ncomp[] = {");
    for (int s = 0; s < m->nstates; s++)
        tsr_buf_printf(o, "%s%d", s ? ", " : "", state_ncomp(&m->states[s]));
    tsr_buf_puts(o, "};\n");
    for (int i = 0; i < m->nspaces; i++) {
        const struct mdl_space *sp = &m->spaces[i];
        tsr_buf_printf(o, "static const struct tsr_sim_sentry sim_space_ent_%d[] = {", i);
        for (int j = 0; j < sp->nent; j++) {
            const struct mdl_sentry *e = &sp->ent[j];
            tsr_buf_printf(o, "%s{%" PRIu32 "u, %" PRIu32 "u, %d, %s, %d}", j ? ", " : "", e->lo, e->hi, e->write,
                           e->kind == MDL_SE_STATE ? "TSR_SIM_SE_STATE" : e->kind == MDL_SE_HOOK ? "TSR_SIM_SE_HOOK"
                                                                                                : "TSR_SIM_SE_NONE",
                           e->kind == MDL_SE_STATE ? e->state : -1);
        }
        if (!sp->nent)
            tsr_buf_puts(o, "{0u, 0u, 0, TSR_SIM_SE_NONE, -1}");
        tsr_buf_puts(o, "};\n");
    }
    tsr_buf_puts(o, "static const struct tsr_sim_space sim_spaces[] = {");
    for (int i = 0; i < m->nspaces; i++) {
        const struct mdl_space *sp = &m->spaces[i];
        tsr_buf_printf(o, "%s{\"%s\", %du, %d, %d, sim_space_ent_%d}", i ? ", " : "", sp->name, sp->size, sp->output,
                       sp->nent, i);
    }
    if (!m->nspaces)
        tsr_buf_puts(o, "{\"\", 0u, 0, 0, NULL}");
    tsr_buf_puts(o, "};\n");
}

void sg_emit_io_funcs(struct sg *g)
{
    const struct mdl_model *m = g->m;
    const char *t = m->name, *pcn = m->states[m->pc_state].name;
    struct tsr_buf *o = g->o;
    /* reads: no hazard check (chk 0), outside any bundle; a hook entry calls its hook as the bundle would */
    tsr_buf_printf(o,
        "static int d_space_read(void *s, int sp, uint32_t addr, uint32_t *v)\n{\n"
        "    struct %s_sim *S = s;\n    uint32_t tb[%d];\n    const uint32_t *tp = tb;\n    int rc = -1;\n"
        "    S->nmemo = 0;\n    switch (sp) {\n", t, g->L);
    for (int i = 0; i < m->nspaces; i++)
        tsr_buf_printf(o, "    case %d:\n        rc = sim_rd_%d(S, NULL, S->%s, 0, addr, %s, tb, &tp);\n        break;\n",
                       i, i, pcn, g->all);
    tsr_buf_printf(o,
        "    default:\n        break;\n    }\n    S->nmemo = 0;\n"
        "    if (rc == 0)\n        memcpy(v, tp, %d * sizeof *v);\n    (void)addr;\n    return rc;\n}\n", g->L);
    /* writes: the entry's state writes applied at once, write times untouched (an initial value, not a write
     * by an instruction) */
    tsr_buf_printf(o,
        "static int d_space_write(void *s, int sp, uint32_t addr, const uint32_t *v)\n{\n"
        "    struct %s_sim *S = s;\n    int rc = -1;\n    S->nlog = 0;\n    S->nmemo = 0;\n    switch (sp) {\n", t);
    for (int i = 0; i < m->nspaces; i++)
        tsr_buf_printf(o, "    case %d:\n        rc = sim_wr_%d(S, NULL, S->%s, 0, addr, v, %s);\n        break;\n",
                       i, i, pcn, g->all);
    tsr_buf_printf(o,
        "    default:\n        break;\n    }\n"
        "    for (int i = 0; rc == 0 && i < S->nlog; i++) {\n"
        "        const struct %s_sim_wlog *w = &S->log[i];\n"
        "        for (int l = 0; l < w->width; l++)\n"
        "            if (w->width == 1 || (w->mask & sim_bit[l]))\n                w->dst[l] = w->v[l];\n"
        "    }\n    S->nlog = 0;\n    S->nmemo = 0;\n    (void)addr;\n    (void)v;\n    return rc;\n}\n\n", t);
}

const char *sg_io_desc_members(struct sg *g)
{
    return sg_fmt(g, "    .state_output = sim_state_output, .state_float = sim_state_float, .state_ncomp = sim_state_ncomp,\n"
                     "    .nspaces = %d, .spaces = sim_spaces, .space_read = d_space_read, .space_write = d_space_write,\n",
                  g->m->nspaces);
}
