/* The simulator emitter: gen_sim_header (the simulator's part of <t>.h: state struct, prototypes of the
 * simulator and of the hand-written hooks) and gen_sim (<t>_sim.c: one C function executing a decoded
 * bundle, the fetch/decode/step loop and the struct tsr_sim_desc descriptor).  Semantics are compiled
 * by gen/emit_sim_sem.c; the run-time support is runtime/sim/sim.h, operators and built-ins runtime/sem.h.
 * docs/sim.md describes the generated simulator for its users. */
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

static void upper(char *dst, const char *src, size_t n)
{
    size_t i = 0;
    for (; src[i] && i + 1 < n; i++)
        dst[i] = (char)(src[i] >= 'a' && src[i] <= 'z' ? src[i] - 32 : src[i]);
    dst[i] = 0;
}

static int check_names(const struct mdl_model *m, struct tsr_diag *d)
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


static int format_nloc(const struct mdl_format *f)
{
    int n = f->nlocals, k = sg_max_local(f->sem, f->nsem) + 1, k2 = sg_max_local(f->commit, f->ncommit) + 1;
    if (k > n) n = k;
    if (k2 > n) n = k2;
    return n;
}

/* ---- hooks ------------------------------------------------------------------------------------------------ */

/* 1: the hook's typed prototype has a vector parameter; *in / *out: written / read by it. */
static bool hook_vec(const struct mdl_model *m, int h, bool *in, bool *out)
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
    if (hook_vec(m, h, &in, &out))
        tsr_buf_printf(o, ", %suint32_t %s[%d]", in && !out ? "const " : "", in && out ? "v" : in ? "value" : "out",
                       mdl_sim_lanes(m));
    tsr_buf_puts(o, ", uint32_t lanemask)");
}

/* ---- the header part -------------------------------------------------------------------------------------- */

int gen_sim_header(const struct mdl_model *m, struct tsr_buf *o, struct tsr_diag *d)
{
    if (check_names(m, d))
        return -1;
    char P[64];
    upper(P, m->name, sizeof P);
    const char *t = m->name;
    int L = mdl_sim_lanes(m);
    tsr_buf_printf(o, "\n/* ---- simulator (gen/emit_sim.c; runtime/sim/sim.h; docs/sim.md) ---- */\n#include \"sim/sim.h\"\n\n");
    tsr_buf_printf(o, "#define %s_SIM_LANES %d\n#define %s_SIM_MAXW %d     /* write-log entries per bundle */\n"
                   "#define %s_SIM_MAXMEMO %d  /* peripheral (hook) reads per bundle */\n\n",
                   P, L, P, max_writes(m), P, max_memo(m));
    tsr_buf_printf(o, "/* State indices (declaration order), for %s_sim_write and the descriptor. */\nenum {\n", t);
    for (int s = 0; s < m->nstates; s++) {
        char U[128];
        upper(U, m->states[s].name, sizeof U);
        tsr_buf_printf(o, "    %s_SIM_S_%s = %d,\n", P, U, s);
    }
    tsr_buf_printf(o, "    %s_SIM_NSTATES = %d\n};\n\n", P, m->nstates);
    if (m->nhooks > 0) {
        tsr_buf_printf(o, "/* Hook indices (the `hook` argument of struct tsr_sim_hooks.call). */\nenum {\n");
        for (int h = 0; h < m->nhooks; h++) {
            char U[128];
            upper(U, m->hooks[h].name, sizeof U);
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
                   "    size_t dc_n;\n    struct %s_inst *dc;\n    unsigned char *dc_state;\n};\n\n", t, P, t, P, t);
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

/* ---- the simulator ---------------------------------------------------------------------------------------- */

static void emit_support(struct sg *g)
{
    const struct mdl_model *m = g->m;
    const char *t = m->name;
    struct tsr_buf *o = g->o;
    int L = g->L;
    tsr_buf_puts(o, "static const char *const sim_state_names[] = {");
    for (int s = 0; s < m->nstates; s++)
        tsr_buf_printf(o, "%s\"%s\"", s ? ", " : "", m->states[s].name);
    tsr_buf_puts(o, "};\nstatic const int sim_state_count[] = {");
    for (int s = 0; s < m->nstates; s++)
        tsr_buf_printf(o, "%s%d", s ? ", " : "", m->states[s].count);
    tsr_buf_puts(o, "};\nstatic const bool sim_state_vec[] = {");
    for (int s = 0; s < m->nstates; s++)
        tsr_buf_printf(o, "%s%d", s ? ", " : "", m->states[s].vec);
    tsr_buf_puts(o, "};\nstatic const unsigned short sim_op_slot[] = {");
    for (int i = 0; i < m->nops; i++)
        tsr_buf_printf(o, "%s%d", i ? ", " : "", m->ops[i].slot);
    tsr_buf_puts(o, "};\nstatic const uint64_t sim_op_attrs[] = {");
    for (int i = 0; i < m->nops; i++)
        tsr_buf_printf(o, "%s0x%" PRIx64 "u", i ? ", " : "", m->ops[i].attrs);
    tsr_buf_puts(o, "};\n");
    tsr_buf_printf(o, "__attribute__((unused)) static const uint32_t sim_bit[%d] = {", L);
    for (int l = 0; l < L; l++)
        tsr_buf_printf(o, "%s0x%xu", l ? ", " : "", 1u << l);
    tsr_buf_puts(o, "};\n\n");
    if (g->vec_ok) {
        /* vector forms of element-wise expressions (GNU vector extension, gcc and clang), 4 lanes (one SSE
         * register) per chunk: the compiler emits SIMD instructions whatever it can prove about the arrays */
        tsr_buf_puts(o,
            "/* sim_v: 4 lanes of a value; SIM_* helpers are statement expressions (no vector crosses a call) */\n"
            "typedef uint32_t sim_v __attribute__((vector_size(16)));\n"
            "typedef int32_t sim_vi __attribute__((vector_size(16)));\n"
            "__attribute__((unused)) static const sim_v sim_vbits = {1u, 2u, 4u, 8u};\n"
            "__attribute__((unused)) static const sim_v sim_velem = {0u, 1u, 2u, 3u};\n"
            "#define SIM_VLD(p) ({ sim_v ld_; memcpy(&ld_, (p), sizeof ld_); ld_; })\n"
            "#define SIM_VST(p, v) do { sim_v st_ = (v); memcpy((p), &st_, sizeof st_); } while (0)\n"
            "#define SIM_VS(x) ((sim_v){0u, 0u, 0u, 0u} + (uint32_t)(x))\n"
            "#define SIM_VSEL(c, a, b) ({ sim_v sel_ = (sim_v)((c) != 0u); ((a) & sel_) | ((b) & ~sel_); })\n"
            "#define SIM_MVEC(m) ((sim_v)((sim_vbits & (uint32_t)(m)) != 0u))\n"
            "#if defined(__SSE2__)\n#include <emmintrin.h>\n"
            "#define SIM_VMASK(c) ((uint32_t)_mm_movemask_ps((__m128)(sim_v)((c) != 0u)))\n"
            "#else\n"
            "#define SIM_VMASK(c) ({ sim_v mk_ = (sim_v)((c) != 0u) & sim_vbits; mk_[0] | mk_[1] | mk_[2] | mk_[3]; })\n"
            "#endif\n"
            "#define SIM_VSHL(a, n) ({ sim_v shla_ = (a), shln_ = (n); (shla_ << (shln_ & 31u)) & (sim_v)(shln_ < 32u); })\n"
            "#define SIM_VSHR(a, n) ({ sim_v shra_ = (a), shrn_ = (n); (shra_ >> (shrn_ & 31u)) & (sim_v)(shrn_ < 32u); })\n"
            "#define SIM_VASR(a, n) ({ sim_v asra_ = (a), asrn_ = (n); \\\n"
            "    sim_v asrk_ = SIM_VSEL((sim_v)(asrn_ < 32u), asrn_ & 31u, SIM_VS(31u)); \\\n"
            "    (sim_v)((sim_vi)asra_ >> (sim_vi)asrk_); })\n"
            "#define SIM_VROR(a, n) ({ sim_v rora_ = (a), rork_ = (n) & 31u; \\\n"
            "    (rora_ >> rork_) | (rora_ << ((32u - rork_) & 31u)); })\n"
            "typedef uint8_t sim_b __attribute__((vector_size(16)));\n"
            "#define SIM_V8MIN(a, b) ({ sim_b mna_ = (sim_b)(a), mnb_ = (sim_b)(b), mnm_ = (sim_b)(mna_ < mnb_); \\\n"
            "    (sim_v)((mna_ & mnm_) | (mnb_ & ~mnm_)); })\n"
            "#define SIM_V8MAX(a, b) ({ sim_b mxa_ = (sim_b)(a), mxb_ = (sim_b)(b), mxm_ = (sim_b)(mxa_ > mxb_); \\\n"
            "    (sim_v)((mxa_ & mxm_) | (mxb_ & ~mxm_)); })\n"
            "#define SIM_V8ADDS(a, b) ({ sim_b ada_ = (sim_b)(a), ads_ = ada_ + (sim_b)(b); (sim_v)(ads_ | (sim_b)(ads_ < ada_)); })\n"
            "#define SIM_V8SUBS(a, b) ({ sim_b sba_ = (sim_b)(a), sbs_ = sba_ - (sim_b)(b); (sim_v)(sbs_ & ~(sim_b)(sbs_ > sba_)); })\n"
            "/* float add/sub/mul, 4 lanes at a time: the shortcut of runtime/sem.h (normal operands, exact result in\n"
            " * double, normal result; ftz_rtz: truncated, IEEE: to nearest), lane by lane through tsr_sem_f* otherwise */\n"
            "typedef float sim_vf __attribute__((vector_size(16)));\n"
            "typedef double sim_vd __attribute__((vector_size(32)));\n"
            "typedef uint64_t sim_vq __attribute__((vector_size(32)));\n"
            "#define SIM_VLTU(a, b) ((sim_v)((sim_vi)((a) ^ 0x80000000u) < (sim_vi)((b) ^ 0x80000000u)))\n"
            "#define SIM_VNORMAL(x) SIM_VLTU((((x) >> 23) & 0xffu) - 1u, SIM_VS(254u))\n"
            "#define SIM_VFOP(av, bv, OP, ADDSUB, fm, fn) ({ \\\n"
            "    sim_v fa_ = (av), fb_ = (bv), ok_ = SIM_VNORMAL(fa_) & SIM_VNORMAL(fb_), r_; \\\n"
            "    if (ADDSUB) { \\\n"
            "        sim_vi de_ = (sim_vi)((fa_ >> 23) & 0xffu) - (sim_vi)((fb_ >> 23) & 0xffu); \\\n"
            "        ok_ &= (sim_v)(de_ <= 28) & (sim_v)(de_ >= -28); \\\n"
            "    } \\\n"
            "    sim_vd p_ = __builtin_convertvector((sim_vf)fa_, sim_vd) OP __builtin_convertvector((sim_vf)fb_, sim_vd); \\\n"
            "    if ((fm) == 1) { \\\n"
            "        sim_vq b_ = (sim_vq)p_; \\\n"
            "        sim_v hi_ = __builtin_convertvector(b_ >> 32, sim_v), mt_ = __builtin_convertvector((b_ >> 29) & 0x7fffffu, sim_v); \\\n"
            "        sim_v fe_ = ((hi_ >> 20) & 0x7ffu) - 896u; \\\n"
            "        ok_ &= SIM_VLTU(fe_ - 1u, SIM_VS(254u)); \\\n"
            "        r_ = (hi_ & 0x80000000u) | (fe_ << 23) | mt_; \\\n"
            "    } else { \\\n"
            "        r_ = (sim_v)__builtin_convertvector(p_, sim_vf); \\\n"
            "        ok_ &= SIM_VNORMAL(r_); \\\n"
            "    } \\\n"
            "    if (SIM_VMASK(ok_) != 0xfu) { \\\n"
            "        for (int k_ = 0; k_ < 4; k_++) { if (!ok_[k_]) r_[k_] = fn(fa_[k_], fb_[k_], (fm)); } \\\n"
            "    } \\\n"
            "    r_; })\n\n");
    }

    sg_fwd_support(g);   /* (addition) X6 */
    tsr_buf_printf(o, "void %s_sim_init(struct %s_sim *S)\n{\n    memset(S, 0, sizeof *S);\n"
                   "    tsr_sim_ctl_init(&S->core);\n    S->core.trace_nwords = %d;\n"
                   "    S->core.rules_desc = &%s_vdesc; /* TSR_SIM_F_RULES checks its rules */\n",
                   t, t, m->word_bits / 32, t);
    for (int s = 0; s < m->nstates; s++)
        if (m->states[s].latency > 0)
            tsr_buf_printf(o, "    for (int i = 0; i < %d; i++)\n        S->wt_%s[i] = TSR_SIM_NEVER;\n",
                           m->states[s].count > 0 ? m->states[s].count : 1, m->states[s].name);
    if (m->nfwds)
        tsr_buf_puts(o, "    sim_fwd_init(S);\n");
    tsr_buf_printf(o, "}\n\nvoid %s_sim_fini(struct %s_sim *S)\n{\n    free(S->dc);\n    free(S->dc_state);\n"
                   "    tsr_sim_rules_free(&S->core);\n"
                   "    S->dc = NULL;\n    S->dc_state = NULL;\n    S->dc_words = NULL;\n    S->dc_n = 0;\n}\n\n", t, t);
    tsr_buf_printf(o, "void %s_sim_reset(struct %s_sim *S)\n{\n"
                   "    struct %s_sim keep = *S;\n    %s_sim_init(S);\n"
                   "    S->hooks = keep.hooks;\n    S->hookfns = keep.hookfns;\n"
                   "    S->core.trace = keep.core.trace;\n    S->core.trace_name = keep.core.trace_name;\n"
                   "    S->core.trace_text = keep.core.trace_text;\n    S->core.trace_ctx = keep.core.trace_ctx;\n"
                   "    S->core.flags = keep.core.flags;\n"
                   "    S->dc_words = keep.dc_words;\n    S->dc_n = keep.dc_n;\n    S->dc = keep.dc;\n"
                   "    S->dc_state = keep.dc_state;\n"
                   "    S->core.rules = keep.core.rules; /* the rule checker starts again */\n"
                   "    tsr_sim_rules_reset(&S->core);\n}\n\n", t, t, t, t);

    /* state accessors */
    tsr_buf_printf(o, "static uint32_t *sim_state(struct %s_sim *S, int s, int e)\n{\n    (void)S, (void)e;   /* a description without arrays or state */\n    switch (s) {\n", t);
    for (int s = 0; s < m->nstates; s++) {
        const struct mdl_state *st = &m->states[s];
        if (st->count > 0)
            tsr_buf_printf(o, "    case %d: return e >= 0 && e < %d ? %sS->%s[e] : NULL;\n", s, st->count,
                           st->vec ? "" : "&", st->name);
        else
            tsr_buf_printf(o, "    case %d: return %sS->%s;\n", s, st->vec ? "" : "&", st->name);
    }
    tsr_buf_puts(o, "    default: return NULL;\n    }\n}\n\n");
    tsr_buf_printf(o, "static int64_t *sim_wtime(struct %s_sim *S, int s, int e)\n{\n    (void)S, (void)e;   /* a description without arrays or latencies */\n    switch (s) {\n", t);
    for (int s = 0; s < m->nstates; s++) {
        const struct mdl_state *st = &m->states[s];
        if (st->latency <= 0)
            continue;
        if (st->count > 0)
            tsr_buf_printf(o, "    case %d: return e >= 0 && e < %d ? &S->wt_%s[e] : NULL;\n", s, st->count, st->name);
        else
            tsr_buf_printf(o, "    case %d: return &S->wt_%s[0];\n", s, st->name);
    }
    tsr_buf_puts(o, "    default: (void)S; (void)e; return NULL;\n    }\n}\n\n");

    /* tables (MDL_E_TABLE): the numeric entries' values */
    for (int i = 0; i < m->ntables; i++) {
        const struct mdl_table *tb = &m->tables[i];
        tsr_buf_printf(o, "__attribute__((unused)) static inline uint32_t sim_table_%d(uint32_t c) /* table %s */\n{\n", i, tb->name);
        for (int k = 0; k < tb->nent; k++) {
            const struct mdl_tentry *en = &tb->ent[k];
            if (!en->is_num || !en->vals)
                continue;
            tsr_buf_printf(o, "    static const uint32_t e%d[%" PRIu32 "] = {", k, en->code_hi - en->code_lo + 1);
            for (uint32_t c = 0; c <= en->code_hi - en->code_lo; c++)
                tsr_buf_printf(o, "%s0x%" PRIx32 "u", c ? ", " : "", en->vals[c]);
            tsr_buf_puts(o, "};\n");
            if (en->code_lo > 0)
                tsr_buf_printf(o, "    if (c >= %" PRIu32 "u && c <= %" PRIu32 "u)\n", en->code_lo, en->code_hi);
            else
                tsr_buf_printf(o, "    if (c <= %" PRIu32 "u)\n", en->code_hi);
            tsr_buf_printf(o, "        return e%d[c - %" PRIu32 "u];\n", k, en->code_lo);
        }
        tsr_buf_puts(o, "    (void)c;\n    return 0;\n}\n\n");
    }

    /* write log, memo */
    tsr_buf_printf(o,
        "__attribute__((unused)) SIM_HOT struct %s_sim_wlog *sim_log(struct %s_sim *S, uint32_t *dst, int64_t *wt, int state, int elem,\n"
        "                                          int width, uint32_t mask)\n{\n"
        "    if (S->nlog >= %s_SIM_MAXW)\n        return NULL;\n"
        "    struct %s_sim_wlog *w = &S->log[S->nlog++];\n"
        "    w->dst = dst;\n    w->wt = wt;\n    w->mask = mask;\n    w->state = state;\n    w->elem = elem;\n"
        "    w->width = width;\n    return w;\n}\n\n", t, t, g->UP, t);
    tsr_buf_printf(o,
        "/* Applies the logged writes in order; *pcw: the pc was written. */\n"
        "static void sim_apply(struct %s_sim *S, bool *pcw)\n{\n"
        "    for (int i = 0; i < S->nlog; i++) {\n        struct %s_sim_wlog *w = &S->log[i];\n"
        "        if (w->width == 1)\n            w->dst[0] = w->v[0];\n"
        "        else if (w->mask == %s)\n            memcpy(w->dst, w->v, sizeof w->v);\n"
        "        else\n%s"
        "        if (w->wt)\n            *w->wt = (int64_t)S->core.icount;\n"
        "        if (w->state == %d)\n            *pcw = true;\n"
        "        if (S->core.trace)\n            tsr_sim_trace_write(&S->core, sim_state_names[w->state],\n"
        "                                sim_state_count[w->state] ? w->elem : -1, w->v, w->width, w->mask);\n"
        "    }\n    S->nlog = 0;\n}\n\n", t, t, g->all,
        g->vec_ok ? sg_fmt(g, "            for (int q = 0; q < %d; q++)\n"
                              "                SIM_VST(w->dst + 4 * q, SIM_VSEL(SIM_MVEC(w->mask >> (4 * q)), "
                              "SIM_VLD(w->v + 4 * q), SIM_VLD(w->dst + 4 * q)));\n", L / 4)
                  : sg_fmt(g, "            for (int l = 0; l < %d; l++)\n"
                              "                w->dst[l] = (w->mask & sim_bit[l]) ? w->v[l] : w->dst[l];\n", L),
        m->pc_state);
    tsr_buf_printf(o,
        "__attribute__((unused)) static inline uint32_t *sim_memo_find(struct %s_sim *S, int space, uint32_t addr)\n{\n"
        "    for (int i = 0; i < S->nmemo; i++)\n        if (S->memo[i].space == space && S->memo[i].addr == addr)\n"
        "            return S->memo[i].v;\n    return NULL;\n}\n\n"
        "__attribute__((unused)) static inline uint32_t *sim_memo_new(struct %s_sim *S, int space, uint32_t addr)\n{\n"
        "    if (S->nmemo >= %s_SIM_MAXMEMO)\n        return NULL;\n"
        "    struct %s_sim_memo *e = &S->memo[S->nmemo++];\n    e->space = space;\n    e->addr = addr;\n"
        "    memset(e->v, 0, sizeof e->v);\n    return e->v;\n}\n\n", t, t, g->UP, t);
    tsr_buf_printf(o,
        "int %s_sim_write(struct %s_sim *S, int state, int elem, const uint32_t *v, uint32_t lanemask)\n{\n"
        "    uint32_t *dst = sim_state(S, state, elem);\n    if (!dst)\n        return -1;\n"
        "    int width = sim_state_vec[state] ? %d : 1;\n"
        "    if (!S->in_bundle) {\n        for (int l = 0; l < width; l++)\n"
        "            if (width == 1 || (lanemask >> l & 1))\n                dst[l] = v[l];\n        return 0;\n    }\n"
        "    struct %s_sim_wlog *w = sim_log(S, dst, sim_wtime(S, state, elem), state, elem, width, lanemask);\n"
        "    if (!w)\n        return -1;\n    memset(w->v, 0, sizeof w->v);\n"
        "    memcpy(w->v, v, (size_t)width * sizeof *v);\n    return 0;\n}\n\n", t, t, L, t);

    /* hook wrappers */
    for (int h = 0; h < m->nhooks; h++) {
        const struct mdl_hook *hk = &m->hooks[h];
        bool in, out, vec = hook_vec(m, h, &in, &out);
        tsr_buf_printf(o, "__attribute__((unused)) static int hk_%s(struct %s_sim *S, enum tsr_hook_kind kind, const uint32_t *a, uint32_t *v,"
                       " uint32_t mask)\n{\n    int r;\n    (void)a;\n", hk->name, t);
        tsr_buf_printf(o, "    if (S->hookfns)\n        r = S->hookfns->call(S->hookfns->ctx, %d, kind, a, %d, v, mask);\n"
                       "    else {\n", h, hk->nargs);
        if (vec)
            tsr_buf_printf(o, "        uint32_t sc[%d] = {0};\n", L);
        tsr_buf_printf(o, "        r = %s_hook_%s(S", t, hk->name);
        for (int i = 0; i < hk->nargs; i++)
            tsr_buf_printf(o, ", a[%d]", i);
        if (vec)
            tsr_buf_puts(o, ", v ? v : sc");
        tsr_buf_puts(o, ", mask);\n    }\n");
        tsr_buf_printf(o, "    if (S->core.trace && kind != TSR_HOOK_GUARD)\n"
                       "        tsr_sim_trace_hook(&S->core, \"%s\", a, %d, v, %d, mask);\n    return r;\n}\n\n",
                       hk->name, hk->nargs, L);
    }
}

/* The locals of op (analysed into vary) that are only bound to an operand all of whose alternatives read: they
 * point to its lanes (lp). */
static bool *op_ptrloc(struct sg *g, const struct mdl_op *op, const struct mdl_slot *sl, const bool *vary, int nloc)
{
    const struct mdl_model *m = g->m;
    bool *ptrloc = tsr_arena_alloc(&g->ar, (size_t)(nloc + 1) * sizeof *ptrloc);
    bool *assigned = tsr_arena_alloc(&g->ar, (size_t)(nloc + 1) * sizeof *assigned);
    memset(ptrloc, 0, (size_t)(nloc + 1) * sizeof *ptrloc);
    memset(assigned, 0, (size_t)(nloc + 1) * sizeof *assigned);
    sg_assigned_locals(op->sem, op->nsem, assigned, nloc);
    sg_assigned_locals(sl->commit, sl->ncommit, assigned, nloc);
    for (int i = 0; i < op->tmpl.nparts; i++) {
        const struct mdl_tpart *p = &op->tmpl.parts[i];
        if (p->kind != MDL_TP_OPND || p->local < 0 || p->local >= nloc || assigned[p->local] || !vary[p->local])
            continue;
        const struct mdl_opnd *o = &m->opnds[p->opnd];
        bool all = o->nalt > 0;
        for (int a = 0; a < o->nalt; a++)
            all = all && o->alt[a].read;
        ptrloc[p->local] = all;
    }
    return ptrloc;
}

static bool expr_reads_ptr(const struct mdl_expr *e, const bool *ptrloc, const struct mdl_expr **inl, int nloc, int i)
{
    if (!e)
        return false;
    if (e->kind == MDL_E_LOCAL && e->index >= 0 && e->index < nloc)
        return e->index == i || (inl[e->index] && expr_reads_ptr(inl[e->index], ptrloc, inl, nloc, i));
    for (int k = 0; k < mdl_expr_arity(e); k++)
        if (expr_reads_ptr(e->a[k], ptrloc, inl, nloc, i))
            return true;
    return false;
}

static bool stmts_read_ptr(struct mdl_stmt **s, int n, const bool *ptrloc, const struct mdl_expr **inl, int nloc, int i)
{
    for (int k = 0; k < n; k++) {
        if (expr_reads_ptr(s[k]->e, ptrloc, inl, nloc, i) || expr_reads_ptr(s[k]->mask, ptrloc, inl, nloc, i) ||
            (s[k]->target && s[k]->target->kind != MDL_E_LOCAL && expr_reads_ptr(s[k]->target, ptrloc, inl, nloc, i)))
            return true;
        for (int j = 0; j < s[k]->nargs; j++)
            if (expr_reads_ptr(s[k]->args[j], ptrloc, inl, nloc, i))
                return true;
        if (stmts_read_ptr(s[k]->body, s[k]->nbody, ptrloc, inl, nloc, i) ||
            stmts_read_ptr(s[k]->elseb, s[k]->nelse, ptrloc, inl, nloc, i))
            return true;
    }
    return false;
}

/* Per local of slot sl: the slot's commit, compiled for some op, reads the operand lanes it points to (lp[i]; read
 * directly or through an inlined definition), or NULL when no local is so.  The compute stage of every other op
 * sets lp[i] to NULL, so that no path through the two switches reads it unset (g->zero_lu's reason). */
static const bool *commit_pointer_reads(struct sg *g, const struct mdl_slot *sl, const bool *fknown, const uint64_t *fkval)
{
    if (!sl->ncommit)
        return NULL;
    int nmax = 0;
    for (int j = 0; j < sl->nops; j++)
        if (sg_op_nloc(&g->m->ops[sl->ops[j]], sl) > nmax)
            nmax = sg_op_nloc(&g->m->ops[sl->ops[j]], sl);
    bool *zp = tsr_arena_alloc(&g->ar, (size_t)(nmax + 1) * sizeof *zp);
    memset(zp, 0, (size_t)(nmax + 1) * sizeof *zp);
    bool any = false;
    for (int j = 0; j < sl->nops; j++) {
        const struct mdl_op *op = &g->m->ops[sl->ops[j]];
        if (op->is_span)
            continue;
        int n = sg_op_nloc(op, sl);
        bool *vary = tsr_arena_alloc(&g->ar, (size_t)(n + 1) * sizeof *vary);
        sg_op_known(g, op, fknown, fkval);
        sg_analyse_op(g, op, sl, vary, n);
        bool *ptrloc = op_ptrloc(g, op, sl, vary, n);
        const struct mdl_expr **inl = tsr_arena_alloc(&g->ar, (size_t)(n + 1) * sizeof *inl);
        memset(inl, 0, (size_t)(n + 1) * sizeof *inl);
        sg_inline_locals(g, op, sl, ptrloc, inl, n);
        for (int i = 0; i < n; i++)
            if (ptrloc[i] && stmts_read_ptr(sl->commit, sl->ncommit, ptrloc, inl, n, i))
                any = zp[i] = true;
    }
    return any ? zp : NULL;
}

/* One op's case body: its compute (operands and sem) or its commit (the slot's commit in its scope), into
 * body, with temporaries numbered from 0 (so that identical bodies are identical text). */
static void emit_op(struct sg *g, const struct mdl_op *op, int slot, bool commit, const bool *fknown,
                    const uint64_t *fkval, struct tsr_buf *body)
{
    const struct mdl_model *m = g->m;
    const struct mdl_slot *sl = &m->slots[slot];
    if (op->is_span) {   /* (addition) X7: a slot a wide op takes runs nothing, not even its commit */
        struct tsr_buf *so = g->o;
        g->o = body;
        int n = sg_op_nloc(op, sl);
        for (int i = 0; !commit && g->zero_lu && i < n; i++)   /* the other ops' commits read them (never here) */
            if (g->zero_lu[i])
                sg_line(g, "lu_%d[%d] = 0;", slot, i);
        sg_line(g, "break;   /* taken by the wide op of slot %s */", m->slots[m->ops[op->span_of].slot].name);
        g->o = so;
        return;
    }
    int nloc = sg_op_nloc(op, sl);
    bool *vary = tsr_arena_alloc(&g->ar, (size_t)(nloc + 1) * sizeof *vary);
    struct tsr_buf *save_o = g->o;
    int save_ind = g->ind, save_tmp = g->ntmp;
    g->o = body;
    g->ntmp = 0;
    sg_op_known(g, op, fknown, fkval);
    sg_analyse_op(g, op, sl, vary, nloc);
    bool *ptrloc = op_ptrloc(g, op, sl, vary, nloc);
    g->ptrloc = ptrloc;
    const struct mdl_expr **inl = tsr_arena_alloc(&g->ar, (size_t)(nloc + 1) * sizeof *inl);
    sg_inline_locals(g, op, sl, ptrloc, inl, nloc);
    g->inl = inl;
    struct sg_guard *gd = tsr_arena_alloc(&g->ar, (size_t)(nloc + 1) * sizeof *gd);
    sg_guard_locals(g, op, sl, ptrloc, inl, gd, nloc);
    g->gd = commit ? NULL : gd;
    g->lp = sg_fmt(g, "lp_%d", slot);
    g->chk = commit ? "0" : "1";
    g->op = op;
    g->slot = slot;
    g->vary = vary;
    g->nloc = nloc;
    g->lv = sg_fmt(g, "lv_%d", slot);
    g->lu = sg_fmt(g, "lu_%d", slot);
    g->altv = sg_fmt(g, "alt_%d", slot);
    g->mask = NULL;
    if (!commit) {
        bool *need = tsr_arena_alloc(&g->ar, (size_t)(nloc + 1) * sizeof *need);
        sg_need_init_op(g, op, sl, need, nloc);
        for (int i = 0; i < nloc; i++)
            if (need[i] && !ptrloc[i]) {
                if (vary[i])
                    sg_line(g, "memset(%s[%d], 0, sizeof %s[%d]);", g->lv, i, g->lv, i);
                else
                    sg_line(g, "%s[%d] = 0;", g->lu, i);
            }
        for (int i = 0; g->zero_lp && i < nloc; i++)   /* another op's commit reads its lanes through lp[i] */
            if (g->zero_lp[i] && !ptrloc[i])
                sg_line(g, "%s[%d] = NULL; /* read by another op's commit (never on this path) */", g->lp, i);
        for (int i = 0; g->zero_lu && i < nloc; i++)   /* this op keeps it elsewhere (lv, lp, inlined) */
            if (g->zero_lu[i] && (vary[i] || ptrloc[i] || inl[i]) && !(need[i] && !ptrloc[i] && !vary[i]))
                sg_line(g, "%s[%d] = 0; /* read by another op's commit (never on this path) */", g->lu, i);
        sg_bind_operands(g);
        sg_stmts(g, op->sem, op->nsem);
    } else {
        sg_stmts(g, sl->commit, sl->ncommit);
    }
    sg_line(g, "break;");
    g->o = save_o;
    g->ind = save_ind;
    g->ntmp = save_tmp;
}

/* The switch over the ops of a slot, identical case bodies merged. */
static void emit_slot_switch(struct sg *g, int k, bool commit, const bool *fknown, const uint64_t *fkval)
{
    const struct mdl_model *m = g->m;
    const struct mdl_slot *sl = &m->slots[k];
    struct tsr_buf *bodies = calloc((size_t)sl->nops + 1, sizeof *bodies);
    bool *done = calloc((size_t)sl->nops + 1, sizeof *done);
    g->zero_lu = commit ? NULL : sg_commit_uniform_reads(g, sl, fknown, fkval);
    g->zero_lp = commit ? NULL : commit_pointer_reads(g, sl, fknown, fkval);
    sg_line(g, "/* slot %s: %s */", sl->name, commit ? "commit" : "compute");
    sg_line(g, "switch (I->op[%d]) {", k);
    g->ind++;
    for (int j = 0; j < sl->nops; j++)
        emit_op(g, &m->ops[sl->ops[j]], k, commit, fknown, fkval, &bodies[j]);
    for (int j = 0; j < sl->nops; j++) {
        if (done[j])
            continue;
        for (int j2 = j; j2 < sl->nops; j2++) {
            if (done[j2] || bodies[j2].len != bodies[j].len || memcmp(bodies[j2].data, bodies[j].data, bodies[j].len))
                continue;
            done[j2] = true;
            sg_line(g, "case %d: /* %s */", sl->ops[j2], m->ops[sl->ops[j2]].name);
        }
        if (sl->ops[j] >= 0 && m->ops[sl->ops[j]].is_span) {   /* `break;` alone */
            sg_line(g, "{");
            tsr_buf_append(g->o, bodies[j].data, bodies[j].len);
            sg_line(g, "}");
            continue;
        }
        const char *args;
        int part = sg_part(g, &bodies[j], g->ind, sg_fmt(g, "slot %s, %s: %s", sl->name, commit ? "commit" : "compute",
                                                          m->ops[sl->ops[j]].name), &args);
        sg_line(g, "if ((rc = sim_part_%d(S, I, pc%s)) != TSR_SIM_OK) goto out;", part, args);
        sg_line(g, "break;");
    }
    sg_line(g, "default: { rc = tsr_sim_error(&S->core, pc, \"no operation in slot %s at 0x%%08\" PRIx32, pc); "
            "goto out; }", sl->name);
    g->zero_lu = NULL;
    g->zero_lp = NULL;
    g->ind--;
    sg_line(g, "}");
    for (int j = 0; j < sl->nops; j++)
        tsr_buf_free(&bodies[j]);
    free(bodies);
    free(done);
}

static void emit_format(struct sg *g, int fi)
{
    const struct mdl_model *m = g->m;
    const struct mdl_format *f = &m->formats[fi];
    bool *fknown = tsr_arena_alloc(&g->ar, (size_t)(m->nfields + 1) * sizeof *fknown);
    uint64_t *fkval = tsr_arena_alloc(&g->ar, (size_t)(m->nfields + 1) * sizeof *fkval);
    memset(g->known, 0, (size_t)m->nfields * sizeof *g->known);
    sg_learn_fields(g, f->selector);
    memcpy(fknown, g->known, (size_t)m->nfields * sizeof *fknown);
    memcpy(fkval, g->kval, (size_t)m->nfields * sizeof *fkval);
    sg_line(g, "case %d: { /* format %s */", fi, f->name);
    g->ind++;
    /* the slots' locals: values (lv), uniform values (lu), pointers to operand lanes (lp) and their
     * buffers (lb), chosen operand alternatives (alt) */
    for (int i = 0; i < f->nslots; i++) {
        int k = f->slots[i];
        const struct mdl_slot *sl = &m->slots[k];
        int n = 1;
        for (int j = 0; j < sl->nops; j++) {
            int x = sg_op_nloc(&m->ops[sl->ops[j]], sl);
            if (x > n)
                n = x;
        }
        sg_line(g, "uint32_t lv_%d[%d][%d], lu_%d[%d], lb_%d[%d][%d];", k, n, g->L, k, n, k, n, g->L);
        sg_line(g, "const uint32_t *lp_%d[%d];", k, n);
        sg_line(g, "int alt_%d[%d] = {0};", k, n);
        sg_line(g, "(void)lv_%d;", k);
        sg_line(g, "(void)lu_%d;", k);
        sg_line(g, "(void)lb_%d;", k);
        sg_line(g, "(void)lp_%d;", k);
        sg_line(g, "(void)alt_%d;", k);
    }
    sg_line(g, "uint64_t attrs_any = 0;");
    sg_line(g, "(void)attrs_any;");
    for (int i = 0; i < f->nslots; i++) {
        int k = f->slots[i];
        sg_line(g, "if (I->op[%d] >= %d || sim_op_slot[I->op[%d]] != %d) { rc = tsr_sim_error(&S->core, pc, \"no "
                "operation in slot %s at 0x%%08\" PRIx32, pc); goto out; }", k, m->nops, k, k, m->slots[k].name);
        sg_line(g, "attrs_any |= sim_op_attrs[I->op[%d]];", k);
    }
    /* format scope */
    int nf = format_nloc(f);
    bool *vary = tsr_arena_alloc(&g->ar, (size_t)(nf + 1) * sizeof *vary);
    bool *need = tsr_arena_alloc(&g->ar, (size_t)(nf + 1) * sizeof *need);
    sg_analyse_format(g, f, vary, nf);
    sg_need_init_format(g, f, need, nf);
    sg_line(g, "uint32_t fv[%d][%d], fu[%d];", nf > 0 ? nf : 1, g->L, nf > 0 ? nf : 1);
    sg_line(g, "(void)fv;");
    sg_line(g, "(void)fu;");
    for (int i = 0; i < nf; i++)
        if (need[i])
            sg_line(g, vary[i] ? "memset(fv[%d], 0, sizeof fv[%d]);" : "fu[%d] = 0;", i, i);
    g->op = NULL;
    g->ptrloc = NULL;
    g->inl = NULL;
    g->gd = NULL;
    g->vary = vary;
    g->nloc = nf;
    g->lv = "fv";
    g->lu = "fu";
    g->altv = "NULL";
    g->mask = NULL;
    g->chk = "1";
    if (f->nsem) {
        sg_line(g, "/* format sem */");
        sg_stmts(g, f->sem, f->nsem);
    }
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < f->nslots; i++) {
            if (pass == 1 && m->slots[f->slots[i]].ncommit == 0)
                continue;
            emit_slot_switch(g, f->slots[i], pass == 1, fknown, fkval);
        }
    if (f->ncommit) {
        memcpy(g->known, fknown, (size_t)m->nfields * sizeof *fknown);
        memcpy(g->kval, fkval, (size_t)m->nfields * sizeof *fkval);
        g->op = NULL;
        g->ptrloc = NULL;
        g->inl = NULL;
        g->vary = vary;
        g->nloc = nf;
        g->lv = "fv";
        g->lu = "fu";
        g->altv = "NULL";
        g->mask = NULL;
        g->chk = "0";
        sg_line(g, "/* format commit */");
        sg_stmts(g, f->commit, f->ncommit);
    }
    sg_line(g, "break;");
    g->ind--;
    sg_line(g, "}");
}

/* The space access functions: sim_rd_N (read entries) and sim_wr_N (write entries). */
static void emit_spaces(struct sg *g)
{
    const struct mdl_model *m = g->m;
    const char *t = m->name;
    for (int sp = 0; sp < m->nspaces; sp++) {
        tsr_buf_printf(g->o, "__attribute__((unused)) static int sim_rd_%d(struct %s_sim *S, const struct %s_inst *I, uint32_t pc, int chk, uint32_t ta, "
                       "uint32_t mask, uint32_t *tb, const uint32_t **tp);\n", sp, t, t);
        tsr_buf_printf(g->o, "__attribute__((unused)) static int sim_wr_%d(struct %s_sim *S, const struct %s_inst *I, uint32_t pc, int chk, uint32_t ta, "
                       "const uint32_t *val, uint32_t mask);\n", sp, t, t);
    }
    /* operand functions: every (operand, attributes) an op binds */
    for (int i = 0; i < m->nops; i++)
        for (int k = 0; k < m->ops[i].tmpl.nparts; k++)
            if (m->ops[i].tmpl.parts[k].kind == MDL_TP_OPND && m->ops[i].tmpl.parts[k].local >= 0)
                sg_opnd_fn(g, m->ops[i].tmpl.parts[k].opnd, m->ops[i].attrs);
    for (int i = 0; i < g->nopfn; i++)
        tsr_buf_printf(g->o, "static int sim_opnd_%d(struct %s_sim *S, const struct %s_inst *I, uint32_t pc, "
                       "const char *opname, int *alt, uint32_t *buf, const uint32_t **out);\n", i, t, t);
    g->ptrloc = NULL;
    g->inl = NULL;
    g->gd = NULL;
    for (int sp = 0; sp < m->nspaces; sp++) {
        memset(g->known, 0, (size_t)m->nfields * sizeof *g->known);
        g->op = NULL;
        g->nloc = 0;
        g->ntmp = 0;
        tsr_buf_printf(g->o, "\n/* space %s: reads */\nstatic int sim_rd_%d(struct %s_sim *S, const struct %s_inst *I, "
                       "uint32_t pc, int chk, uint32_t ta, uint32_t mask, uint32_t *tb, const uint32_t **tp)\n{\n",
                       m->spaces[sp].name, sp, t, t);
        sg_space_read_body(g, sp);
        tsr_buf_puts(g->o, "}\n");
        g->ntmp = 0;
        tsr_buf_printf(g->o, "\n/* space %s: writes */\nstatic int sim_wr_%d(struct %s_sim *S, const struct %s_inst *I, "
                       "uint32_t pc, int chk, uint32_t ta, const uint32_t *val, uint32_t mask)\n{\n",
                       m->spaces[sp].name, sp, t, t);
        sg_space_write_body(g, sp);
        tsr_buf_puts(g->o, "}\n");
    }
    memset(g->known, 0, (size_t)m->nfields * sizeof *g->known);
    g->chk = "1"; /* operands are read in the compute stage */
    for (int i = 0; i < g->nopfn; i++) {
        const struct mdl_opnd *o = &m->opnds[g->opfn[i].opnd];
        g->ntmp = 0;
        tsr_buf_printf(g->o, "\n/* operand %s (attributes 0x%" PRIx64 ") */\nstatic int sim_opnd_%d(struct %s_sim *S, "
                       "const struct %s_inst *I, uint32_t pc, const char *opname, int *alt, uint32_t *buf, "
                       "const uint32_t **out)\n{\n",
                       o->inst_name ? o->inst_name : o->name, g->opfn[i].attrs, i, t, t);
        sg_opnd_body(g, i);
        tsr_buf_puts(g->o, "}\n");
    }
    tsr_buf_puts(g->o, "\n");
}

static void emit_exec(struct sg *g)
{
    const struct mdl_model *m = g->m;
    const char *t = m->name;
    struct tsr_buf *save = g->o, exec = {0}, parts = {0};
    g->o = &exec;
    g->parts = &parts;
    tsr_buf_printf(g->o, "int %s_sim_exec(struct %s_sim *S, const struct %s_inst *I)\n{\n", t, t, t);
    g->ind = 1;
    sg_line(g, "const uint32_t pc = S->%s;", m->states[m->pc_state].name);
    sg_line(g, "int rc = TSR_SIM_OK;");
    sg_line(g, "if (S->core.halted)");
    sg_line(g, "    return TSR_SIM_HALTED;");
    sg_line(g, "tsr_sim_bundle_begin(&S->core);");
    sg_line(g, "S->in_bundle = 1;");
    sg_line(g, "S->nlog = 0;");
    sg_line(g, "S->nmemo = 0;");
    if (m->nfwds)
        sg_line(g, "sim_fwd_begin(S);");
    sg_line(g, "switch (I->format) {");
    for (int f = 0; f < m->nformats; f++)
        emit_format(g, f);
    sg_line(g, "default: { rc = tsr_sim_error(&S->core, pc, \"no format matches the bundle at 0x%%08\" PRIx32, pc); "
            "goto out; }");
    sg_line(g, "}");
    sg_line(g, "{");
    sg_line(g, "    bool pcw = false;");
    sg_line(g, "    sim_apply(S, &pcw);");
    if (m->nfwds)
        sg_line(g, "    sim_fwd_end(S, pc);");
    sg_line(g, "    if (!pcw && !S->core.npend && !S->core.req_jump && !S->core.req_halt && !S->core.trace) {");
    sg_line(g, "        S->core.icount++; /* the common case of tsr_sim_bundle_end */");
    sg_line(g, "        S->%s = pc + %du;", m->states[m->pc_state].name, m->pc_step);
    sg_line(g, "    } else {");
    sg_line(g, "        uint32_t npc = S->%s;", m->states[m->pc_state].name);
    sg_line(g, "        rc = tsr_sim_bundle_end(&S->core, &npc, pc, %du, pcw);", m->pc_step);
    sg_line(g, "        if (rc >= 0)");
    sg_line(g, "            S->%s = npc;", m->states[m->pc_state].name);
    sg_line(g, "    }");
    sg_line(g, "}");
    tsr_buf_puts(g->o, "out:\n");
    sg_line(g, "S->in_bundle = 0;");
    sg_line(g, "if (rc == TSR_SIM_STALL)");
    sg_line(g, "    S->core.stalls++;");
    sg_line(g, "if (rc != TSR_SIM_OK && rc != TSR_SIM_HALTED) {");
    sg_line(g, "    S->nlog = 0;");
    sg_line(g, "    tsr_sim_bundle_begin(&S->core);");
    sg_line(g, "}");
    sg_line(g, "return rc;");
    tsr_buf_puts(g->o, "}\n\n");
    g->o = save;
    if (parts.len)
        tsr_buf_append(g->o, parts.data, parts.len);
    tsr_buf_append(g->o, exec.data, exec.len);
    tsr_buf_free(&parts);
    tsr_buf_free(&exec);
    g->parts = NULL;
}

static void emit_step(struct sg *g)
{
    const struct mdl_model *m = g->m;
    const char *t = m->name, *pcn = m->states[m->pc_state].name;
    int W = m->word_bits / 32;
    bool hooks = m->nhooks > 0;
    tsr_buf_printf(g->o,
        "/* Control hooks through the generic interface: hook index TSR_HOOK_READY / TSR_HOOK_RETIRE. */\n"
        "static int sim_ctl_hook(struct %s_sim *S, int which, const struct %s_inst *I, const uint32_t *w)\n{\n"
        "    if (S->hookfns) /* the generic interface gets the bundle's words */\n"
        "        return S->hookfns->call(S->hookfns->ctx, which, TSR_HOOK_STMT, w, %d, NULL, %s);\n",
        t, t, m->word_bits / 32, g->all);
    if (hooks)
        tsr_buf_printf(g->o, "    return which == TSR_HOOK_READY ? %s_hook_ready(S, I) : %s_hook_retire(S, I);\n", t, t);
    else
        tsr_buf_puts(g->o, "    (void)which;\n    (void)I;\n    (void)w;\n    return 0;\n");
    tsr_buf_puts(g->o, "}\n\n");
    tsr_buf_printf(g->o,
        "/* The decoded bundle at byte address pc (cached per program), or NULL with a report.  Instruction i of the\n"
        " * program is at pc i * %d (pc_step) and is words[i * %d .. i * %d + %d) (nwords per instruction). */\n"
        "static const struct %s_inst *sim_fetch(struct %s_sim *S, const uint32_t *words, size_t nwords, uint32_t pc,\n"
        "                                       struct %s_inst *tmp)\n{\n"
        "    if (pc %% %du != 0) {\n"
        "        tsr_sim_error(&S->core, pc, \"pc 0x%%08\" PRIx32 \" is not a multiple of pc_step (%d)\", pc);\n"
        "        return NULL;\n    }\n"
        "    const size_t i = pc / %du;\n"
        "    if (i >= nwords / %du) {\n"
        "        tsr_sim_error(&S->core, pc, \"pc 0x%%08\" PRIx32 \" is outside the program (%%zu words)\", pc, nwords);\n"
        "        return NULL;\n    }\n"
        "    const uint32_t *w = words + i * %du;\n"
        "    if (S->dc_words != words || S->dc_n != nwords) {\n"
        "        free(S->dc);\n        free(S->dc_state);\n"
        "        size_t n = nwords / %du + 1;\n"
        "        S->dc = malloc(n * sizeof *S->dc);\n        S->dc_state = calloc(n, 1);\n"
        "        S->dc_words = words;\n        S->dc_n = nwords;\n"
        "        if (!S->dc || !S->dc_state) {\n            free(S->dc);\n            free(S->dc_state);\n"
        "            S->dc = NULL;\n            S->dc_state = NULL;\n            S->dc_words = NULL;\n        }\n    }\n"
        "    if (!S->dc) {\n        %s_decode(w, tmp);\n        return tmp;\n    }\n"
        "    if (!S->dc_state[i]) {\n        %s_decode(w, &S->dc[i]);\n        S->dc_state[i] = 1;\n    }\n"
        "    return &S->dc[i];\n}\n\n",
        m->pc_step, W, W, W, t, t, t, m->pc_step, m->pc_step, m->pc_step, W, W, W, t, t);
    tsr_buf_printf(g->o,
        "int %s_sim_step(struct %s_sim *S, const uint32_t *words, size_t nwords)\n{\n"
        "    if (S->core.halted)\n        return TSR_SIM_HALTED;\n"
        "    const uint32_t pc = S->%s;\n    struct %s_inst tmp;\n"
        "%s"
        "    const struct %s_inst *I = sim_fetch(S, words, nwords, pc, &tmp);\n"
        "    if (!I)\n        return TSR_SIM_ERROR;\n"
        "    const uint32_t *w = words + (size_t)(pc / %du) * %du; /* the bundle's words (sim_fetch checked pc) */\n"
        "    int r = sim_ctl_hook(S, TSR_HOOK_READY, I, w);\n"
        "    if (r > 0) {\n        S->core.stalls++;\n        return TSR_SIM_STALL;\n    }\n"
        "    if (r < 0)\n        return tsr_sim_error(&S->core, pc, \"hook ready failed at 0x%%08\" PRIx32, pc);\n"
        "    if (S->core.trace)\n        tsr_sim_trace_bundle(&S->core, pc, w);\n"
        "    if (S->core.flags & TSR_SIM_F_RULES) { /* the description's rules, in issue order */\n"
        "        r = tsr_sim_rules_step(&S->core, w, pc, (size_t)(pc / %du) + 1 == nwords / %du);\n"
        "        if (r < 0)\n            return r;\n    }\n"
        "    int rc = %s_sim_exec(S, I);\n"
        "    if (rc == TSR_SIM_OK || rc == TSR_SIM_HALTED) {\n"
        "        if (rc == TSR_SIM_HALTED && S->core.rules)\n            tsr_sim_rules_reset(&S->core); /* the program ended */\n"
        "        r = sim_ctl_hook(S, TSR_HOOK_RETIRE, I, w);\n"
        "        if (r < 0)\n            return tsr_sim_error(&S->core, pc, \"hook retire failed at 0x%%08\" PRIx32, pc);\n"
        "    } else if (rc == TSR_SIM_STALL && S->core.trace)\n        tsr_sim_trace_note(&S->core, \"-> stall\");\n"
        "    return rc;\n}\n\n",
        t, t, pcn, t,
        m->fall_off_halt ? sg_fmt(g, /* `fall_off halt`: the program ends after its last instruction */
                                  "    if (pc == (uint32_t)(nwords / %du) * %du && S->core.npend == 0) {\n"
                                  "        S->core.halted = true;\n        if (S->core.rules)\n"
                                  "            tsr_sim_rules_reset(&S->core);\n        return TSR_SIM_HALTED;\n    }\n",
                                  W, m->pc_step) : "",
        t, m->pc_step, W, m->pc_step, W, t);
    tsr_buf_printf(g->o,
        "int %s_sim_run(struct %s_sim *S, const uint32_t *words, size_t nwords, uint64_t max_steps)\n{\n"
        "    for (uint64_t i = 0; i < max_steps; i++) {\n"
        "        int rc = %s_sim_step(S, words, nwords);\n"
        "        if (rc == TSR_SIM_HALTED || rc < 0)\n            return rc;\n    }\n"
        "    return TSR_SIM_OK;\n}\n\n", t, t, t);
}

/* exec takes fields from a caller: the fields the simulator reads in an index it does not check (sg_read_state: its
 * range keeps it in bounds when fields hold values within their widths) are masked to their widths. */
static const char *fidx_masks(struct sg *g)
{
    const char *r = "";
    for (int f = 0; f < g->m->nfields; f++)
        if (g->fidx[f])
            r = sg_fmt(g, "%s    I.f[%d] &= 0x%" PRIx64 "u; /* an index the simulator does not check */\n", r, f,
                       g->m->fields[f].width >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << g->m->fields[f].width) - 1);
    return r;
}

static void emit_desc(struct sg *g)
{
    const struct mdl_model *m = g->m;
    const char *t = m->name;
    struct tsr_buf *o = g->o;
    tsr_buf_printf(o,
        "static void d_init(void *s) { %s_sim_init(s); }\n"
        "static void d_fini(void *s) { %s_sim_fini(s); }\n"
        "static int d_decode(const uint32_t *w, int *format, int *ops, uint64_t *fields)\n{\n"
        "    struct %s_inst I;\n    memset(&I, 0, sizeof I);\n    int r = %s_decode(w, &I);\n"
        "    *format = I.format == TSR_NO_FORMAT ? -1 : (int)I.format;\n"
        "    for (int k = 0; k < %d; k++)\n        ops[k] = I.op[k] == TSR_NO_OP ? -1 : (int)I.op[k];\n"
        "    for (int f = 0; f < %d; f++)\n        fields[f] = I.f[f];\n    return r;\n}\n"
        "static int d_exec(void *s, int format, const int *ops, const uint64_t *fields)\n{\n"
        "    struct %s_inst I; /* every member the simulator reads is set below */\n"
        "    memset(I.ignored, 0, sizeof I.ignored);\n"
        "    I.format = format < 0 || format >= %d ? TSR_NO_FORMAT : (unsigned)format;\n"
        "    for (int k = 0; k < %d; k++)\n        I.op[k] = ops[k] < 0 || ops[k] >= %d ? TSR_NO_OP : (unsigned)ops[k];\n"
        "    for (int f = 0; f < %d; f++)\n        I.f[f] = fields[f];\n"
        "%s"
        "    return %s_sim_exec(s, &I);\n}\n"
        "static int d_step(void *s, const uint32_t *w, size_t n) { return %s_sim_step(s, w, n); }\n"
        "static uint32_t *d_state(void *s, int st, int e) { return sim_state(s, st, e); }\n"
        "static int64_t *d_wtime(void *s, int st, int e) { return sim_wtime(s, st, e); }\n"
        "static struct tsr_sim_ctl *d_ctl(void *s) { return &((struct %s_sim *)s)->core; }\n"
        "static void d_set_hooks(void *s, const struct tsr_sim_hooks *h) { ((struct %s_sim *)s)->hookfns = h; }\n\n",
        t, t, t, t, m->nslots, m->nfields, t, m->nformats, m->nslots, m->nops, m->nfields, fidx_masks(g), t, t, t, t);
    sg_emit_io_tables(g);   /* outputs, print formats, spaces (emit_sim_io.c) */
    sg_emit_io_funcs(g);
    sg_fwd_desc_tables(g);
    tsr_buf_printf(o,
        "const struct tsr_sim_desc %s_sim_desc = {\n"
        "    .name = \"%s\", .lanes = %d, .nstates = %d, .nslots = %d, .nfields = %d, .nformats = %d, .nhooks = %d,\n"
        "    .bundle_words = %d, .pc_step = %du, .sim_size = sizeof(struct %s_sim),\n"
        "    .init = d_init, .fini = d_fini, .decode = d_decode, .exec = d_exec, .step = d_step,\n"
        "    .state = d_state, .wtime = d_wtime, .ctl = d_ctl, .set_hooks = d_set_hooks,\n"
        "    .state_names = sim_state_names, .state_count = sim_state_count, .state_vec = sim_state_vec,\n%s%s%s};\n",
        t, t, mdl_sim_lanes(m), m->nstates, m->nslots, m->nfields, m->nformats, m->nhooks, m->word_bits / 32, m->pc_step, t,
        m->vec4 ? "    .comps = 4, /* the lanes are the components of vec4 values */\n" : "", sg_io_desc_members(g),
        sg_fwd_desc_members(g));
}

int gen_sim(const struct mdl_model *m, struct tsr_buf *out, struct tsr_diag *d)
{
    if (check_names(m, d))
        return -1;
    struct sg g;
    memset(&g, 0, sizeof g);
    g.m = m;
    g.d = d;
    g.L = mdl_sim_lanes(m);
    g.P = m->name;
    struct tsr_buf body = {0};
    g.o = &body;
    g.all = sg_fmt(&g, "0x%" PRIx32 "u", tsr_sim_all_lanes(mdl_sim_lanes(m)));
    char P[64];
    upper(P, m->name, sizeof P);
    g.UP = sg_fmt(&g, "%s", P);

    tsr_buf_printf(out, "/* Generated by mdlc from %s. Do not edit. */\n", m->path ? m->path : "?");
    tsr_buf_printf(out, "#include <inttypes.h>\n#include <stdbool.h>\n#include <stdlib.h>\n#include <string.h>\n\n"
                   "#include \"bits.h\"\n#include \"sem.h\"\n#include \"target.h\"\n#include \"%s.h\"\n\n", m->name);
    /* The op bodies of <t>_sim_exec are functions (sg_part), so that no compiled function is the size of the
     * instruction set: clang with AddressSanitizer and libFuzzer's coverage spends most of a simulator's compile
     * time on such a function.  In those builds (sem.h's TSR_SEM_NO_FORCED_INLINE) they stay functions;
     * elsewhere they and the write log's sim_log are always inlined: the one function of before, at the same
     * speed (gcc -O2 otherwise keeps sim_log out of line). */
    tsr_buf_puts(out, "#ifdef TSR_SEM_NO_FORCED_INLINE\n#define SIM_PART static __attribute__((noinline))\n"
                 "#define SIM_HOT static inline\n#else\n#define SIM_PART static inline __attribute__((always_inline))\n"
                 "#define SIM_HOT static inline __attribute__((always_inline))\n#endif\n\n");
    g.known = tsr_arena_alloc(&g.ar, (size_t)(m->nfields + 1) * sizeof *g.known);
    g.fidx = tsr_arena_alloc(&g.ar, (size_t)(m->nfields + 1) * sizeof *g.fidx);
    memset(g.fidx, 0, (size_t)(m->nfields + 1) * sizeof *g.fidx);
    g.kval = tsr_arena_alloc(&g.ar, (size_t)(m->nfields + 1) * sizeof *g.kval);
    g.vec_ok = mdl_sim_lanes(m) >= 4 && mdl_sim_lanes(m) % 4 == 0;
    emit_support(&g);
    emit_spaces(&g);
    emit_exec(&g);
    emit_step(&g);
    emit_desc(&g);
    int rc = g.err ? -1 : 0;
    if (!rc)
        tsr_buf_append(out, body.data, body.len);
    tsr_buf_free(&body);
    tsr_arena_free_all(&g.ar);
    return rc;
}
