/* The simulator emitter's header part: gen_sim_header (the simulator's part of <t>.h: state struct, prototypes of
 * the simulator and of the hand-written hooks), the checks of the names the simulator's C struct takes, the static
 * bounds (write log, hook memo) and the hooks' typed prototypes.  gen/emit_sim.c generates <t>_sim.c. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit_sim.h"
#include "eval.h"
#include "gen.h"
#include "sim/sim.h"

#define SIM_MAX_MEMO 64

static const char *const c_keywords[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
    "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
    "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "bool",
    "true", "false", "NULL", "uint32_t", "int64_t",
};
/* Members of struct <t>_sim besides the states. */
static const char *const sim_members[] = {
    "core", "hooks", "hookfns", "in_bundle", "nlog", "nmemo", "log", "memo", "dc_words", "dc_n", "dc", "dc_state",
};

void sg_upper(char *dst, const char *src, size_t n)
{
    size_t i = 0;
    for (; src[i] && i + 1 < n; i++)
        dst[i] = (char)(src[i] >= 'a' && src[i] <= 'z' ? src[i] - 32 : src[i]);
    dst[i] = 0;
}

int sg_check_names(const struct mdl_model *m, struct tsr_diag *d)
{
    int bad = 0;
    for (int s = 0; s < m->nstates; s++) {
        const char *n = m->states[s].name;
        bool clash = strncmp(n, "wt_", 3) == 0;
        for (size_t i = 0; i < sizeof c_keywords / sizeof *c_keywords; i++)
            clash = clash || strcmp(n, c_keywords[i]) == 0;
        for (size_t i = 0; i < sizeof sim_members / sizeof *sim_members; i++)
            clash = clash || strcmp(n, sim_members[i]) == 0;
        if (clash) {
            tsr_diag_error(d, m->states[s].loc.file, (unsigned)m->states[s].loc.line, (unsigned)m->states[s].loc.col,
                           "state name '%s' cannot be a member of the simulator's C struct (a C keyword or a "
                           "member the simulator uses itself)", n);
            bad = 1;
        }
    }
    if (m->pc_state < 0 || m->pc_state >= m->nstates || m->states[m->pc_state].count != 0 ||
        m->states[m->pc_state].vec) {
        tsr_diag_error(d, m->path, 0, 0, "the simulator needs a scalar u32 state `pc`");
        bad = 1;
    }
    if (m->lanes < 1 || m->lanes > 32) {
        tsr_diag_error(d, m->path, 0, 0, "the simulator supports 1 to 32 lanes, not %d", m->lanes);
        bad = 1;
    }
    if (m->word_bits < 32 || m->word_bits % 32 != 0 || m->pc_step <= 0) {
        tsr_diag_error(d, m->path, 0, 0, "the simulator needs whole 32-bit words and a positive pc_step");
        bad = 1;
    }
    return bad ? -1 : 0;
}

/* ---- static bounds ------------------------------------------------------------------------------------ */

static int count_space_expr(const struct mdl_expr *e)
{
    if (!e)
        return 0;
    int n = e->kind == MDL_E_SPACE;
    for (int i = 0; i < mdl_expr_arity(e); i++)
        n += count_space_expr(e->a[i]);
    return n;
}

static int count_space_stmts(struct mdl_stmt **s, int n)
{
    int c = 0;
    for (int i = 0; i < n; i++) {
        c += count_space_expr(s[i]->e) + count_space_expr(s[i]->target);
        for (int j = 0; j < s[i]->nargs; j++)
            c += count_space_expr(s[i]->args[j]);
        c += count_space_stmts(s[i]->body, s[i]->nbody) + count_space_stmts(s[i]->elseb, s[i]->nelse);
    }
    return c;
}

static int max_memo(const struct mdl_model *m)
{
    int c = 0;
    for (int i = 0; i < m->nops; i++)
        c += count_space_stmts(m->ops[i].sem, m->ops[i].nsem);
    for (int i = 0; i < m->nslots; i++)
        c += count_space_stmts(m->slots[i].commit, m->slots[i].ncommit);
    for (int i = 0; i < m->nformats; i++)
        c += count_space_stmts(m->formats[i].sem, m->formats[i].nsem) +
             count_space_stmts(m->formats[i].commit, m->formats[i].ncommit);
    for (int i = 0; i < m->nopnds; i++)
        for (int k = 0; k < m->opnds[i].nalt; k++)
            c += count_space_expr(m->opnds[i].alt[k].read) + count_space_expr(m->opnds[i].alt[k].waddr);
    return c < 1 ? 1 : c > SIM_MAX_MEMO ? SIM_MAX_MEMO : c;
}

static int max_writes(const struct mdl_model *m)
{
    int best = 0;
    for (int f = 0; f < m->nformats; f++) {
        const struct mdl_format *F = &m->formats[f];
        int c = sg_count_writes(F->sem, F->nsem) + sg_count_writes(F->commit, F->ncommit);
        for (int i = 0; i < F->nslots; i++) {
            const struct mdl_slot *sl = &m->slots[F->slots[i]];
            int most = 0;
            for (int k = 0; k < sl->nops; k++) {
                const struct mdl_op *op = &m->ops[sl->ops[k]];
                int w = sg_count_writes(op->sem, op->nsem) + sg_count_writes(sl->commit, sl->ncommit);
                if (w > most)
                    most = w;
            }
            c += most;
        }
        if (c > best)
            best = c;
    }
    return best + 8; /* room for the hooks' own writes (<t>_sim_write) */
}


/* ---- hooks ------------------------------------------------------------------------------------------------ */

/* (emit_sim.h) */
bool sg_hook_vec(const struct mdl_model *m, int h, bool *in, bool *out)
{
    *in = false;
    *out = m->hooks[h].returns_value;
    for (int s = 0; s < m->nspaces; s++)
        for (int i = 0; i < m->spaces[s].nent; i++) {
            const struct mdl_sentry *en = &m->spaces[s].ent[i];
            if (en->kind == MDL_SE_HOOK && en->hook == h) {
                if (en->write)
                    *in = true;
                else
                    *out = true;
            }
        }
    return *in || *out;
}

static void hook_proto(const struct mdl_model *m, struct tsr_buf *o, int h)
{
    bool in, out;
    tsr_buf_printf(o, "int %s_hook_%s(struct %s_sim *sim", m->name, m->hooks[h].name, m->name);
    for (int i = 0; i < m->hooks[h].nargs; i++)
        tsr_buf_printf(o, ", uint32_t a%d", i);
    if (sg_hook_vec(m, h, &in, &out))
        tsr_buf_printf(o, ", %suint32_t %s[%d]", in && !out ? "const " : "", in && out ? "v" : in ? "value" : "out",
                       mdl_sim_lanes(m));
    tsr_buf_puts(o, ", uint32_t lanemask)");
}

/* ---- the header part -------------------------------------------------------------------------------------- */

int gen_sim_header(const struct mdl_model *m, struct tsr_buf *o, struct tsr_diag *d)
{
    if (sg_check_names(m, d))
        return -1;
    char P[64];
    sg_upper(P, m->name, sizeof P);
    const char *t = m->name;
    int L = mdl_sim_lanes(m);
    tsr_buf_printf(o, "\n/* ---- simulator (gen/emit_sim.c; runtime/sim/sim.h; docs/sim.md) ---- */\n#include \"sim/sim.h\"\n\n");
    tsr_buf_printf(o, "#define %s_SIM_LANES %d\n#define %s_SIM_MAXW %d     /* write-log entries per bundle */\n"
                   "#define %s_SIM_MAXMEMO %d  /* peripheral (hook) reads per bundle */\n\n",
                   P, L, P, max_writes(m), P, max_memo(m));
    tsr_buf_printf(o, "/* State indices (declaration order), for %s_sim_write and the descriptor. */\nenum {\n", t);
    for (int s = 0; s < m->nstates; s++) {
        char U[128];
        sg_upper(U, m->states[s].name, sizeof U);
        tsr_buf_printf(o, "    %s_SIM_S_%s = %d,\n", P, U, s);
    }
    tsr_buf_printf(o, "    %s_SIM_NSTATES = %d\n};\n\n", P, m->nstates);
    if (m->nhooks > 0) {
        tsr_buf_printf(o, "/* Hook indices (the `hook` argument of struct tsr_sim_hooks.call). */\nenum {\n");
        for (int h = 0; h < m->nhooks; h++) {
            char U[128];
            sg_upper(U, m->hooks[h].name, sizeof U);
            tsr_buf_printf(o, "    %s_SIM_HOOK_%s = %d,\n", P, U, h);
        }
        tsr_buf_printf(o, "    %s_SIM_NHOOKS = %d\n};\n\n", P, m->nhooks);
    }
    tsr_buf_printf(o, "/* One logged write: applied after the bundle's last commit (reads see the old state). */\n"
                   "struct %s_sim_wlog {\n    uint32_t *dst;   /* the element's values */\n"
                   "    int64_t *wt;     /* its write time, or NULL */\n    uint32_t mask;   /* lanes written */\n"
                   "    int state, elem, width;\n    uint32_t v[%d];\n};\n", t, L);
    tsr_buf_printf(o, "struct %s_sim_memo { int space; uint32_t addr; uint32_t v[%d]; };\n\n", t, L);
    tsr_buf_printf(o, "struct %s_inst;\n\n/* The simulator: the machine state of the description, then bookkeeping. */\n"
                   "struct %s_sim {\n", t, t);
    for (int s = 0; s < m->nstates; s++) {
        const struct mdl_state *st = &m->states[s];
        tsr_buf_printf(o, "    uint32_t %s", st->name);
        if (st->count > 0)
            tsr_buf_printf(o, "[%d]", st->count);
        if (st->vec)
            tsr_buf_printf(o, "[%d]", L);
        tsr_buf_printf(o, ";%*s/* %s %s", 1, "", st->count ? "regfile" : "state", st->name);
        if (st->count)
            tsr_buf_printf(o, "[%d]", st->count);
        tsr_buf_printf(o, " : %s", st->vec4 ? "vec4" : st->vec ? "vec" : "u32");
        if (st->latency)
            tsr_buf_printf(o, " latency %d", st->latency);
        tsr_buf_puts(o, " */\n");
    }
    for (int s = 0; s < m->nstates; s++)
        if (m->states[s].latency > 0)
            tsr_buf_printf(o, "    int64_t wt_%s[%d];  /* write time (icount) of each element */\n",
                           m->states[s].name, m->states[s].count > 0 ? m->states[s].count : 1);
    sg_fwd_members(m, o);   /* (addition) X6 */
    tsr_buf_printf(o,
                   "    struct tsr_sim_ctl core;            /* time, pending jumps/halts, reports, trace */\n"
                   "    void *hooks;                        /* context of the hand-written hooks */\n"
                   "    const struct tsr_sim_hooks *hookfns; /* when set, every hook call goes here instead */\n"
                   "    int in_bundle, nlog, nmemo;\n"
                   "    struct %s_sim_wlog log[%s_SIM_MAXW];\n"
                   "    struct %s_sim_memo memo[%s_SIM_MAXMEMO];\n"
                   "    const uint32_t *dc_words;           /* decode cache: program it belongs to */\n"
                   "    size_t dc_n;\n    struct %s_inst *dc;\n"
                   "    unsigned char *dc_state;            /* per instruction: 0 not decoded, 1 decoded, 2 decoded and\n"
                   "                                           its ops in their slots (sim_ops_ok) */\n};\n\n",
                   t, P, t, P, t);
    tsr_buf_printf(o,
        "/* Resets everything: state 0, write times \"never\", no pending control, no report, no hooks. */\n"
        "void %s_sim_init(struct %s_sim *sim);\n"
        "/* Frees the decode cache and the rule checker (call before dropping or re-initialising a simulator\n"
        " * that stepped). */\n"
        "void %s_sim_fini(struct %s_sim *sim);\n"
        "/* Back to the state of %s_sim_init, keeping the hooks, the trace settings, the flags and the decode cache;\n"
        " * the rule checker's history starts again. */\n"
        "void %s_sim_reset(struct %s_sim *sim);\n"
        "/* Fetches the bundle at sim->pc from the program (nwords 32-bit words, low word first), decodes it\n"
        " * (cached per program), asks %s_hook_ready, checks the description's rules when core.flags has\n"
        " * TSR_SIM_F_RULES (tsr_sim_rules_step), executes it, calls %s_hook_retire.  Returns TSR_SIM_OK,\n"
        " * TSR_SIM_STALL (nothing happened; step again), TSR_SIM_HALTED, or a negative error/hazard with the\n"
        " * message and the bundle address in sim->core (msg, err_pc). */\n"
        "int %s_sim_step(struct %s_sim *sim, const uint32_t *words, size_t nwords);\n"
        "/* Executes one decoded bundle at sim->pc (no ready/retire hooks, no rules).  Same return codes.  inst as\n"
        " * %s_decode gives it: every field within its width (a regfile index that range keeps in bounds is not\n"
        " * checked). */\n"
        "int %s_sim_exec(struct %s_sim *sim, const struct %s_inst *inst);\n"
        "/* Steps until halted, an error, or max_steps steps (then TSR_SIM_OK). */\n"
        "int %s_sim_run(struct %s_sim *sim, const uint32_t *words, size_t nwords, uint64_t max_steps);\n"
        "/* For hooks: writes v to state `state` element `elem` (lanes in lanemask); inside a bundle the write is\n"
        " * logged like the bundle's own (applied after its commits), outside it is immediate.  0 or -1. */\n"
        "int %s_sim_write(struct %s_sim *sim, int state, int elem, const uint32_t *v, uint32_t lanemask);\n"
        "extern const struct tsr_sim_desc %s_sim_desc;\n\n",
        t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t);
    if (m->nhooks > 0) {
        tsr_buf_printf(o, "/* Hooks, written by hand in targets/%s/ (docs/mdl.md \"Hooks\"): return 0, > 0 to stall the\n"
                       " * bundle, < 0 for an error (set a message with tsr_sim_error(&sim->core, ...)).  Arguments\n"
                       " * are those of the description's call, lanemask the lanes active at the call. */\n", t);
        for (int h = 0; h < m->nhooks; h++) {
            hook_proto(m, o, h);
            tsr_buf_puts(o, ";\n");
        }
        tsr_buf_printf(o, "/* Asked before a bundle issues (> 0: stall) and told after it issued (its writes done). */\n"
                       "int %s_hook_ready(struct %s_sim *sim, const struct %s_inst *inst);\n"
                       "int %s_hook_retire(struct %s_sim *sim, const struct %s_inst *inst);\n", t, t, t, t, t, t);
    }
    return 0;
}
