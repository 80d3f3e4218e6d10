/* The simulator emitter's run-time support in <t>_sim.c: the state tables, the vector helpers (sim_v), init, fini
 * and reset, the state accessors, the tables' values, the write log and hook memo, <t>_sim_write and the hook
 * wrappers.  gen/emit_sim.c drives. */
#include <inttypes.h>
#include <string.h>

#include "emit_sim.h"
#include "eval.h"

void sg_emit_support(struct sg *g)
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
        bool in, out, vec = sg_hook_vec(m, h, &in, &out);
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
