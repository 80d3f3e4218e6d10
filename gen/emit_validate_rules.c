/* The rules part of <t>_validate.c (gen/emit_validate.c has the events): one C matcher per pattern of each
 * rule (and of the implicit rule of a regfile latency no rule states), the rule, resource and name tables, and
 * `const struct tsr_vdesc <t>_vdesc` with `<t>_validate`.  Matchers test an event's kind, id, element or address
 * codes, slot and `conditional` flag, and the `if` condition over the fields of the event's bundle. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit_util.h"
#include "emit_validate.h"
#include "gen.h"

/* ---- pattern matchers --------------------------------------------------------------------------------------- */
static void term_cond(struct vg *g, const struct mdl_evterm *t, struct tsr_buf *o)
{
    const struct mdl_model *m = g->m;
    switch (t->kind) {
    case MDL_EV_READ:
    case MDL_EV_WRITE:
        if (t->state >= 0)
            tsr_buf_printf(o, "e->kind == %s && e->id == %d", t->kind == MDL_EV_READ ? "TSR_V_RSTATE" : "TSR_V_WSTATE",
                           t->state);
        else if (t->fwd >= 0)   /* (X6) */
            tsr_buf_printf(o, "e->kind == %s && e->id == %d", t->kind == MDL_EV_READ ? "TSR_V_RFWD" : "TSR_V_WFWD",
                           t->fwd);
        else
            tsr_buf_printf(o, "e->kind == %s && e->id == %d", t->kind == MDL_EV_READ ? "TSR_V_RSPACE" : "TSR_V_WSPACE",
                           t->space);
        if (t->ncodes) {
            tsr_buf_puts(o, " && (e->addr < 0");   /* an unknown element may be any */
            for (int i = 0; i < t->ncodes; i++) {
                if (t->lo[i] == t->hi[i])
                    tsr_buf_printf(o, " || e->addr == %u", t->lo[i]);
                else
                    tsr_buf_printf(o, " || (e->addr >= %u && e->addr <= %u)", t->lo[i], t->hi[i]);
            }
            tsr_buf_puts(o, ")");
        }
        break;
    case MDL_EV_USE:
        tsr_buf_printf(o, "e->kind == TSR_V_USE && e->id == %d", t->resource);
        break;
    case MDL_EV_OP:
        tsr_buf_puts(o, "e->kind == TSR_V_OP && (");
        for (int i = 0; i < t->nops; i++)
            tsr_buf_printf(o, "%se->id == %d", i ? " || " : "", t->ops[i]);
        tsr_buf_puts(o, ")");
        break;
    case MDL_EV_JUMP: tsr_buf_puts(o, "e->kind == TSR_V_JUMP"); break;
    case MDL_EV_HALT: tsr_buf_puts(o, "e->kind == TSR_V_HALT"); break;
    case MDL_EV_START: tsr_buf_puts(o, "e->kind == TSR_V_START"); break;
    case MDL_EV_END: tsr_buf_puts(o, "e->kind == TSR_V_END"); break;
    }
    if (t->nslots) {
        tsr_buf_puts(o, " && (");
        for (int i = 0; i < t->nslots; i++)
            tsr_buf_printf(o, "%se->slot == %d", i ? " || " : "", t->slots[i]);
        tsr_buf_puts(o, ")");
    }
    if (t->conditional)
        tsr_buf_puts(o, " && e->cond");
    if (t->cond) {
        int op = g->op;
        g->op = -1;
        g->match = true;
        tsr_buf_puts(o, " && (0 != ");
        if (vg_known(g, t->cond))
            vg_kexpr(g, t->cond, o);
        else
            tsr_buf_puts(o, "0");
        tsr_buf_puts(o, ")");
        g->match = false;
        g->op = op;
    }
    (void)m;
}

static void matcher(struct vg *g, const char *name, const struct mdl_pattern *p)
{
    vg_line(g, "static bool %s(const struct tsr_vev *e, const uint64_t *f)", name);
    vg_line(g, "{");
    g->ind++;
    vg_line(g, "(void)f;");
    if (!p->nterms)
        vg_line(g, "(void)e;");
    for (int i = 0; i < p->nterms; i++) {
        struct tsr_buf c = {0};
        term_cond(g, &p->terms[i], &c);
        vg_line(g, "if (%s)", c.data);
        vg_line(g, "    return true;");
        tsr_buf_free(&c);
    }
    vg_line(g, "return false;");
    g->ind--;
    vg_line(g, "}");
    vg_blank(g);
}

/* The two matchers of an implicit rule on state or forward `id`: v_<pre>_w<id> (its writes, event kind wk) and
 * v_<pre>_r<id> (its reads, kind rk). */
static void write_read_matchers(struct vg *g, const char *pre, const char *wk, const char *rk, int id)
{
    const char *kind[2] = {wk, rk};
    for (int k = 0; k < 2; k++) {
        vg_line(g, "static bool v_%s_%c%d(const struct tsr_vev *e, const uint64_t *f)", pre, "wr"[k], id);
        vg_line(g, "{");
        vg_line(g, "    (void)f;");
        vg_line(g, "    return e->kind == %s && e->id == %d;", kind[k], id);
        vg_line(g, "}");
    }
}

/* Implicit rule of a regfile latency that no rule states: `write R -> read R same min latency`. */
static void implicit_matchers(struct vg *g, int s)
{
    write_read_matchers(g, "lat", "TSR_V_WSTATE", "TSR_V_RSTATE", s);
    vg_blank(g);
}

/* (X6) The implicit age rule of forward f: its writes, its reads. */
static void age_matchers(struct vg *g, int f)
{
    write_read_matchers(g, "age", "TSR_V_WFWD", "TSR_V_RFWD", f);
    vg_line(g, "static const tsr_vmatch_fn v_age%d[] = { v_age_w%d, v_age_r%d };", f, f, f);
    vg_blank(g);
}

static const char *fwd_name(const struct mdl_model *m, int i) { return m->fwds[i].name; }

static bool implicit(const struct mdl_model *m, int s)
{
    return m->states[s].count > 0 && m->states[s].latency > 1 && m->states[s].latency_rule < 0;
}

static void table_fn(struct vg *g, int ti)
{
    const struct mdl_table *t = &g->m->tables[ti];
    vg_line(g, "static uint64_t v_tab_%d(uint64_t c)", ti);
    vg_line(g, "{");
    g->ind++;
    for (int i = 0; i < t->nent; i++) {
        const struct mdl_tentry *e = &t->ent[i];
        if (!e->is_num)
            continue;
        uint32_t n = e->code_hi - e->code_lo + 1;
        if (e->code_lo == 0)
            vg_line(g, "if (c <= %u) {", e->code_hi);
        else
            vg_line(g, "if (c >= %u && c <= %u) {", e->code_lo, e->code_hi);
        g->ind++;
        struct tsr_buf v = {0};
        for (uint32_t k = 0; k < n; k++)
            tsr_buf_printf(&v, "%s0x%08xu", k ? ", " : "", e->vals[k]);
        vg_line(g, "static const uint32_t v[%u] = {%s};", n, v.data);
        vg_line(g, "return v[c - %u];", e->code_lo);
        tsr_buf_free(&v);
        g->ind--;
        vg_line(g, "}");
    }
    vg_line(g, "return 0;");
    g->ind--;
    vg_line(g, "}");
    vg_blank(g);
}

static void names(struct vg *g, const char *arr, int n, const char *(*get)(const struct mdl_model *, int))
{
    vg_line(g, "static const char *const %s[] = {", arr);
    for (int i = 0; i < n; i++) {
        struct tsr_buf s = {0};
        gen_cstring(&s, get(g->m, i));
        vg_line(g, "    %s,", s.data);
        tsr_buf_free(&s);
    }
    vg_line(g, "    NULL,");
    vg_line(g, "};");
}

static const char *state_name(const struct mdl_model *m, int i) { return m->states[i].name; }
static const char *space_name(const struct mdl_model *m, int i) { return m->spaces[i].name; }
static const char *op_name(const struct mdl_model *m, int i) { return m->ops[i].name; }
static const char *slot_name(const struct mdl_model *m, int i) { return m->slots[i].name; }

static int rule_lookback(const struct mdl_rule *r)
{
    if (r->kind == MDL_R_WINDOW)   /* open: what lies beyond LO is the data flow's (runtime/validate/validate.c) */
        return r->hi >= 0 ? r->hi : r->lo;
    if (r->kind == MDL_R_LATENCY)
        return r->hi >= 0 ? TSR_V_MAXDIST_GEN : r->lo - 1;   /* with a max: the nearest producer, however far */
    return 0;
}

/* (X6, the packer's value names: docs/pack.md "Values through forwards") The source text of each forward read an
 * operand alternative makes with a literal template: `"^m0@1" when m == 18 read res[2]@1` gives { res, 2, 1,
 * "^m0@1" }.  Alternatives with holes or a computed element are left out; each (forward, element, age, text)
 * once.  Emits v_fwd_texts and returns its length. */
static int fwd_texts(struct vg *g)
{
    const struct mdl_model *m = g->m;
    struct tsr_buf seen = {0};
    int n = 0;
    for (int o = 0; o < m->nopnds; o++)
        for (int a = 0; a < m->opnds[o].nalt; a++) {
            const struct mdl_opnd_alt *A = &m->opnds[o].alt[a];
            const struct mdl_expr *r = A->read;
            if (!r || r->kind != MDL_E_FWD || (r->a[0] && r->a[0]->kind != MDL_E_INT) || A->tmpl.nparts != 1 ||
                A->tmpl.parts[0].kind != MDL_TP_TEXT || !A->tmpl.parts[0].text || !A->tmpl.parts[0].text[0])
                continue;
            char key[512];
            snprintf(key, sizeof key, "\n%d %d %d %s\n", r->index, r->a[0] ? (int)r->a[0]->ival : 0, (int)r->ival,
                     A->tmpl.parts[0].text);
            if (seen.data && strstr(seen.data, key))
                continue;
            tsr_buf_puts(&seen, key);
            if (!n)
                vg_line(g, "static const struct tsr_vfwdtext v_fwd_texts[] = {");
            struct tsr_buf t = {0};
            gen_cstring(&t, A->tmpl.parts[0].text);
            vg_line(g, "    { %d, %d, %d, %s },", r->index, r->a[0] ? (int)r->a[0]->ival : 0, (int)r->ival, t.data);
            tsr_buf_free(&t);
            n++;
        }
    if (n)
        vg_line(g, "};");
    tsr_buf_free(&seen);
    return n;
}

void vg_rules(struct vg *g, const char *lo)
{
    const struct mdl_model *m = g->m;
    int nfwdtexts = 0;
    /* rules (conditions over fields only) */
    g->ndef = 0;
    int lookback = 0, nrules = 0;
    for (int r = 0; r < m->nrules; r++) {
        const struct mdl_rule *R = &m->rules[r];
        for (int p = 0; p < R->npat; p++) {
            char nm[64];
            snprintf(nm, sizeof nm, "v_rule%d_%d", r, p);
            matcher(g, nm, &R->pat[p]);
        }
        vg_line(g, "static const tsr_vmatch_fn v_rule%d[] = {", r);
        for (int p = 0; p < R->npat; p++)
            vg_line(g, "    v_rule%d_%d,", r, p);
        if (!R->npat)
            vg_line(g, "    NULL,");
        vg_line(g, "};");
        vg_blank(g);
        int lb = rule_lookback(R);
        lookback = lb > lookback ? lb : lookback;
        nrules++;
    }
    for (int s = 0; s < m->nstates; s++)
        if (implicit(m, s)) {
            implicit_matchers(g, s);
            vg_line(g, "static const tsr_vmatch_fn v_lat%d[] = { v_lat_w%d, v_lat_r%d };", s, s, s);
            vg_blank(g);
            lookback = m->states[s].latency - 1 > lookback ? m->states[s].latency - 1 : lookback;
            nrules++;
        }
    /* (X6) a read F@A checks the deferred reads of its writer, A back, against the latency rules and finite
     * windows from there (runtime/validate/validate.c check_deferred): the paths reach A + that rule's lookback */
    int reach = 0, agemax = 0;
    for (int r = 0; r < m->nrules; r++)
        if (m->rules[r].kind == MDL_R_LATENCY || (m->rules[r].kind == MDL_R_WINDOW && m->rules[r].hi >= 0))
            reach = rule_lookback(&m->rules[r]) > reach ? rule_lookback(&m->rules[r]) : reach;
    for (int s = 0; s < m->nstates; s++)
        if (implicit(m, s))
            reach = m->states[s].latency - 1 > reach ? m->states[s].latency - 1 : reach;
    for (int f = 0; f < m->nfwds; f++) {   /* (X6) */
        age_matchers(g, f);
        lookback = m->fwds[f].hi > lookback ? m->fwds[f].hi : lookback;
        agemax = m->fwds[f].hi > agemax ? m->fwds[f].hi : agemax;
        nrules++;
    }
    if (m->nfwds && agemax + reach > lookback)
        lookback = agemax + reach > TSR_V_MAXDIST_GEN ? TSR_V_MAXDIST_GEN : agemax + reach;
    vg_line(g, "static const struct tsr_vrule v_rules[] = {");
    g->ind++;
    static const char *const kinds[] = { "TSR_VR_LATENCY", "TSR_VR_WINDOW", "TSR_VR_BUNDLE", "TSR_VR_ORDER" };
    for (int r = 0; r < m->nrules; r++) {
        const struct mdl_rule *R = &m->rules[r];
        struct tsr_buf nm = {0}, ref = {0};
        gen_cstring(&nm, R->name);
        gen_cstring(&ref, R->ref);
        char hi[32];
        snprintf(hi, sizeof hi, R->kind == MDL_R_WINDOW && R->hi < 0 ? "TSR_V_OPEN" : "%d", R->hi);
        vg_line(g, "{ %s, %s, %s, %d, v_rule%d, %s, %d, %s },", nm.data, ref.data, kinds[R->kind], R->npat, r,
             R->same ? "true" : "false", R->lo, hi);
        tsr_buf_free(&nm);
        tsr_buf_free(&ref);
    }
    for (int s = 0; s < m->nstates; s++)
        if (implicit(m, s)) {
            char nmb[256], refb[512];
            snprintf(nmb, sizeof nmb, "%s.latency", m->states[s].name);
            snprintf(refb, sizeof refb, "regfile %s latency %d (%s:%d)", m->states[s].name, m->states[s].latency,
                     m->states[s].loc.file ? m->states[s].loc.file : "", m->states[s].loc.line);
            struct tsr_buf nm = {0}, ref = {0};
            gen_cstring(&nm, nmb);
            gen_cstring(&ref, refb);
            vg_line(g, "{ %s, %s, TSR_VR_LATENCY, 2, v_lat%d, true, %d, -1 },", nm.data, ref.data, s,
                 m->states[s].latency);
            tsr_buf_free(&nm);
            tsr_buf_free(&ref);
        }
    for (int f = 0; f < m->nfwds; f++) {   /* (X6) "F.age" */
        char nmb[256], refb[512];
        snprintf(nmb, sizeof nmb, "%s.age", m->fwds[f].name);
        snprintf(refb, sizeof refb, "forward %s age %d..%d (%s:%d)", m->fwds[f].name, m->fwds[f].lo, m->fwds[f].hi,
                 m->fwds[f].loc.file ? m->fwds[f].loc.file : "", m->fwds[f].loc.line);
        struct tsr_buf nm = {0}, ref = {0};
        gen_cstring(&nm, nmb);
        gen_cstring(&ref, refb);
        vg_line(g, "{ %s, %s, TSR_VR_AGE, 2, v_age%d, true, 0, -1 },", nm.data, ref.data, f);
        tsr_buf_free(&nm);
        tsr_buf_free(&ref);
    }
    if (!nrules)
        vg_line(g, "{ NULL, NULL, 0, 0, NULL, false, 0, 0 },");
    g->ind--;
    vg_line(g, "};");
    vg_blank(g);
    vg_line(g, "static const struct tsr_vresource v_res[] = {");
    for (int r = 0; r < m->nresources; r++) {
        struct tsr_buf nm = {0}, ref = {0};
        gen_cstring(&nm, m->resources[r].name);
        gen_cstring(&ref, m->resources[r].ref);
        vg_line(g, "    { %s, %s, %d },", nm.data, ref.data, m->resources[r].count);
        tsr_buf_free(&nm);
        tsr_buf_free(&ref);
    }
    if (!m->nresources)
        vg_line(g, "    { NULL, NULL, 0 },");
    vg_line(g, "};");
    vg_blank(g);
    names(g, "v_state_names", m->nstates, state_name);
    vg_line(g, "static const int v_state_count[] = {");
    for (int s = 0; s < m->nstates; s++)
        vg_line(g, "    %d,", m->states[s].count);
    vg_line(g, "    0,");
    vg_line(g, "};");
    names(g, "v_space_names", m->nspaces, space_name);
    names(g, "v_op_names", m->nops, op_name);
    names(g, "v_slot_names", m->nslots, slot_name);
    if (m->nfwds) {   /* (X6) */
        names(g, "v_fwd_names", m->nfwds, fwd_name);
        vg_line(g, "static const int v_fwd_count[] = {");
        for (int f = 0; f < m->nfwds; f++)
            vg_line(g, "    %d,", m->fwds[f].count);
        vg_line(g, "};");
        nfwdtexts = fwd_texts(g);
    }
    vg_blank(g);
    vg_line(g, "const struct tsr_vdesc %s_vdesc = {", lo);
    vg_line(g, "    .name = \"%s\", .nwords = %d, .nfields = %d, .pc_step = %d,", m->name, m->word_bits / 32, m->nfields,
            m->pc_step);
    vg_line(g, "    .events = v_events,");
    vg_line(g, "    .nrules = %d, .rules = v_rules, .nres = %d, .res = v_res, .lookback = %d,", nrules, m->nresources,
            lookback);
    vg_line(g, "    .nstates = %d, .nspaces = %d, .nops = %d, .nslots = %d,", m->nstates, m->nspaces, m->nops, m->nslots);
    vg_line(g, "    .state_names = v_state_names, .state_count = v_state_count, .space_names = v_space_names,");
    vg_line(g, "    .op_names = v_op_names, .slot_names = v_slot_names,");
    if (m->nfwds)
        vg_line(g, "    .nfwds = %d, .fwd_names = v_fwd_names, .fwd_count = v_fwd_count,", m->nfwds);
    if (nfwdtexts)
        vg_line(g, "    .nfwdtexts = %d, .fwdtexts = v_fwd_texts,", nfwdtexts);
    vg_line(g, "};");
    vg_blank(g);
    vg_line(g, "int %s_validate(const uint32_t *w, size_t n, uint64_t base, struct tsr_diag *d, const char *path)", lo);
    vg_line(g, "{");
    vg_line(g, "    return tsr_validate_diag(&%s_vdesc, w, n, base, d, path);", lo);
    vg_line(g, "}");

}

void vg_tables(struct vg *g)
{
    for (int t = 0; t < g->m->ntables; t++)
        if (g->tab_used[t])
            table_fn(g, t);
    if (g->attr_used) {   /* attributes of each op, bit i = attribute i, for attr() in patterns */
        vg_line(g, "static const uint64_t v_op_attrs[] = {");
        for (int i = 0; i < g->m->nops; i++)
            vg_line(g, "    UINT64_C(0x%llx),   /* %s */", (unsigned long long)g->m->ops[i].attrs, g->m->ops[i].name);
        vg_line(g, "    0,");
        vg_line(g, "};");
        vg_blank(g);
    }
}
