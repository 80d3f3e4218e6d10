/* mdlc: the machine-description compiler.
 *
 *   mdlc -o OUTDIR FILE.mdl   check FILE.mdl and write OUTDIR/<t>.h, <t>_tables.c, <t>_encode.c,
 *                             <t>_decode.c, <t>_asm.c, <t>_disasm.c, <t>_sim.c, <t>_target.c,
 *                             <t>_validate.c
 *                             (<t> = the isa name); nothing is written if the description has errors
 *                             or an emitter fails; each file is replaced atomically and left
 *                             untouched when its contents did not change (docs/internals.md)
 *   mdlc --name T ...         also check that the isa is named T (the build names a target's outputs after
 *                             its directory, targets/<T>/<T>.mdl; mdlc after the isa): an error at the
 *                             name otherwise, and nothing written
 *   mdlc --dump FILE.mdl      print the checked model (fields, tables, formats, slots, operands, ops,
 *                             resources, rules with their flattened patterns, delay slots)
 *   mdlc --help
 * Exit status: 0 on success, 1 on errors in the description or when writing, 2 on bad usage.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "emit_util.h"
#include "fileout.h"
#include "gen.h"
#include "model.h"

static void usage(FILE *f)
{
    fputs("usage: mdlc -o OUTDIR FILE.mdl   generate the C backend of FILE.mdl into OUTDIR\n"
          "       mdlc --name T ...         also check that the isa is named T\n"
          "       mdlc --dump FILE.mdl      print the checked machine model\n"
          "       mdlc --help               this text\n"
          "Writes <t>.h <t>_tables.c <t>_encode.c <t>_decode.c <t>_asm.c <t>_disasm.c <t>_sim.c <t>_target.c\n"
          "<t>_validate.c"
          "(<t> = the isa name), and nothing at all when the description has errors.\n", f);
}

/* ---- --dump ----------------------------------------------------------------------------------- */

static void put_expr(const struct mdl_model *m, const struct mdl_expr *e, FILE *f)
{
    struct tsr_buf b = {0};
    if (e)
        gen_expr_text(m, e, &b);
    fputs(b.data ? b.data : "", f);
    tsr_buf_free(&b);
}

static void put_conds(const struct mdl_model *m, const struct mdl_cond *c, int n, FILE *f)
{
    for (int i = 0; i < n; i++) {
        fputs(i ? ", " : "", f);
        put_expr(m, c[i].e, f);
        if (c[i].binding)
            fputs(" [bind]", f);
    }
}

static void put_defaults(const struct mdl_model *m, const struct mdl_default *d, int n, FILE *f)
{
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%s = %" PRIu64, i ? ", " : "", m->fields[d[i].field].name, d[i].val);
}

static void dump(const struct mdl_model *m, FILE *f)
{
    fprintf(f, "isa %s: word %d bits, %d lanes, pc_step %d, %s endian%s\n", m->name, m->word_bits, m->lanes,
            m->pc_step, m->little_endian ? "little" : "big", m->word_msw_first ? ", words msw first" : "");
    fprintf(f, "\nfields (%d):\n", m->nfields);
    for (int i = 0; i < m->nfields; i++) {
        const struct mdl_field *fd = &m->fields[i];
        fprintf(f, "  %3d %-16s [", i, fd->name);
        for (int j = 0; j < fd->npieces; j++) {
            const struct mdl_piece *p = &fd->pieces[j];
            fprintf(f, "%s%s%d", j ? ", " : "", p->inverted ? "~" : "", p->hi);
            if (p->lo != p->hi)
                fprintf(f, ":%d", p->lo);
        }
        static const char *const prints[] = { "", " print signed", " print unsigned", " print hex", " print float" };
        fprintf(f, "] width %d%s%s\n", fd->width, fd->is_signed ? " signed" : "", prints[fd->print]);
    }
    fprintf(f, "\ntables (%d):\n", m->ntables);
    for (int i = 0; i < m->ntables; i++) {
        const struct mdl_table *t = &m->tables[i];
        fprintf(f, "  %s:", t->name);
        for (int j = 0; j < t->nent; j++) {
            const struct mdl_tentry *e = &t->ent[j];
            if (e->is_num) {
                fprintf(f, " %u..%u=>%s", e->code_lo, e->code_hi, e->is_float ? "float" : "int");
            } else {
                fprintf(f, " \"%s\"=%u%s", e->name ? e->name : "", e->code_lo, e->canonical ? "*" : "");
            }
        }
        fputc('\n', f);
    }
    fprintf(f, "\nformats (%d):\n", m->nformats);
    for (int i = 0; i < m->nformats; i++) {
        const struct mdl_format *F = &m->formats[i];
        fprintf(f, "  %s (", F->name);
        put_expr(m, F->selector, f);
        fputs(")\n    fields:", f);
        for (int j = 0; j < F->nfields; j++)
            fprintf(f, " %s", m->fields[F->fields[j]].name);
        fputs("\n    slots:", f);
        for (int j = 0; j < F->nslots; j++)
            fprintf(f, " %s", m->slots[F->slots[j]].name);
        if (F->nignore) {
            fputs("\n    ignore:", f);
            for (int j = 0; j < F->nignore; j++)
                fprintf(f, " [%d:%d]", F->ignore[j].hi, F->ignore[j].lo);
        }
        if (F->ndef) {
            fputs("\n    defaults: ", f);
            put_defaults(m, F->def, F->ndef, f);
        }
        fputc('\n', f);
    }
    fprintf(f, "\nslots (%d):\n", m->nslots);
    for (int i = 0; i < m->nslots; i++) {
        const struct mdl_slot *s = &m->slots[i];
        fprintf(f, "  %s: default %s, %d ops\n", s->name,
                s->default_op >= 0 && s->default_op < m->nops ? m->ops[s->default_op].name : "?", s->nops);
    }
    fprintf(f, "\noperands (%d):\n", m->nopnds);
    for (int i = 0; i < m->nopnds; i++) {
        const struct mdl_opnd *o = &m->opnds[i];
        fprintf(f, "  %s:\n", o->inst_name ? o->inst_name : o->name);
        for (int j = 0; j < o->nalt; j++) {
            const struct mdl_opnd_alt *a = &o->alt[j];
            fprintf(f, "    \"%s\" when ", a->tmpl.src ? a->tmpl.src : "");
            put_conds(m, a->cond, a->ncond, f);
            fprintf(f, "%s\n", a->read ? "  (read)" : (a->wspace >= 0 || a->wstate >= 0) ? "  (write)" : "");
        }
    }
    fprintf(f, "\nops (%d):\n", m->nops);
    for (int i = 0; i < m->nops; i++) {
        const struct mdl_op *op = &m->ops[i];
        fprintf(f, "  %3d %s : %s  \"%s\"\n      encode ", i, op->name,
                op->slot >= 0 && op->slot < m->nslots ? m->slots[op->slot].name : "?", op->tmpl.src ? op->tmpl.src : "");
        put_conds(m, op->cond, op->ncond, f);
        if (op->ndef) {
            fputs("; default ", f);
            put_defaults(m, op->def, op->ndef, f);
        }
        fputc('\n', f);
    }
}

static void put_pattern(const struct mdl_model *m, const struct mdl_pattern *p, FILE *f)
{
    static const char *const kind[] = {"read", "write", "use", "op", "jump", "halt", "start", "end"};
    for (int i = 0; i < p->nterms; i++) {
        const struct mdl_evterm *t = &p->terms[i];
        fprintf(f, "%s%s", i ? " | " : "", kind[t->kind]);
        if (t->kind == MDL_EV_READ || t->kind == MDL_EV_WRITE)
            fprintf(f, " %s", t->state >= 0 ? m->states[t->state].name : t->fwd >= 0 ? m->fwds[t->fwd].name
                                                                                      : m->spaces[t->space].name);
        for (int c = 0; c < t->ncodes; c++) {
            fprintf(f, "%s%u", c ? ", " : "[", t->lo[c]);
            if (t->hi[c] != t->lo[c])
                fprintf(f, "..%u", t->hi[c]);
            if (c + 1 == t->ncodes)
                fputc(']', f);
        }
        if (t->kind == MDL_EV_USE)
            fprintf(f, " %s", m->resources[t->resource].name);
        if (t->kind == MDL_EV_OP)
            fprintf(f, " %s", m->ops[t->ops[0]].name);
        for (int sl = 0; sl < t->nslots; sl++)
            fprintf(f, "%s%s", sl ? ", " : " in ", m->slots[t->slots[sl]].name);
        if (t->cond) {
            fputs(" if (", f);
            put_expr(m, t->cond, f);
            fputc(')', f);
        }
        if (t->conditional)
            fputs(" conditional", f);
    }
}

static void dump_rules(const struct mdl_model *m, FILE *f)
{
    fprintf(f, "\nresources (%d):\n", m->nresources);
    for (int i = 0; i < m->nresources; i++)
        fprintf(f, "  %s: count %d\n", m->resources[i].name, m->resources[i].count);
    fprintf(f, "\nrules (%d):\n", m->nrules);
    for (int i = 0; i < m->nrules; i++) {
        const struct mdl_rule *r = &m->rules[i];
        fprintf(f, "  %s: %s", r->name, r->kind == MDL_R_ORDER ? "order " : "");
        for (int p = 0; p < r->npat; p++) {
            if (p)
                fputs(r->kind == MDL_R_BUNDLE ? " & " : " -> ", f);
            fputc('(', f);
            put_pattern(m, &r->pat[p], f);
            fputc(')', f);
        }
        if (r->kind == MDL_R_LATENCY)
            fprintf(f, "%s min %d", r->same ? " same" : "", r->lo);
        if (r->kind == MDL_R_LATENCY && r->hi >= 0)
            fprintf(f, " max %d", r->hi);
        if (r->kind == MDL_R_WINDOW && r->hi >= 0)
            fprintf(f, " at %d..%d", r->lo, r->hi);
        else if (r->kind == MDL_R_WINDOW)
            fprintf(f, " at %d..", r->lo);
        fputc('\n', f);
    }
    fputs("\ndelay slots:", f);
    for (int i = 0; i < m->nops; i++) {
        if (m->ops[i].jump_delay >= 0)
            fprintf(f, " %s:%s jump %d", m->ops[i].name, m->slots[m->ops[i].slot].name, m->ops[i].jump_delay);
        if (m->ops[i].halt_delay >= 0)
            fprintf(f, " %s:%s halt %d", m->ops[i].name, m->slots[m->ops[i].slot].name, m->ops[i].halt_delay);
    }
    fputc('\n', f);
}

/* ---- generation ------------------------------------------------------------------------------- */

struct artefact {
    const char *suffix;
    int (*gen)(const struct mdl_model *, struct tsr_buf *, struct tsr_diag *);
};

static const struct artefact artefacts[] = {
    {".h", gen_header},          {"_tables.c", gen_tables}, {"_encode.c", gen_encode}, {"_decode.c", gen_decode},
    {"_asm.c", gen_asm},         {"_disasm.c", gen_disasm}, {"_sim.c", gen_sim},       {"_target.c", gen_target},
    {"_validate.c", gen_validate},
};
#define NART (sizeof artefacts / sizeof *artefacts)

static int generate(const struct mdl_model *m, const char *outdir, struct tsr_diag *d)
{
    struct tsr_buf bufs[NART];
    int rc = 0;
    memset(bufs, 0, sizeof bufs);
    for (size_t i = 0; i < NART && rc == 0; i++) {
        rc = artefacts[i].gen(m, &bufs[i], d);
        if (rc == 0 && artefacts[i].gen == gen_header)
            rc = gen_sim_header(m, &bufs[i], d);
        if (rc == 0)
            tsr_buf_puts(&bufs[i], "");   /* data non-NULL even when empty */
    }
    if (rc == 0 && d->errors == 0)
        rc = tsr_mkdir_p(outdir, d);
    for (size_t i = 0; i < NART && rc == 0 && d->errors == 0; i++) {
        struct tsr_buf path = {0};
        tsr_buf_printf(&path, "%s/%s%s", outdir, m->name, artefacts[i].suffix);
        rc = tsr_file_commit(path.data, bufs[i].data, bufs[i].len, d);
        tsr_buf_free(&path);
    }
    for (size_t i = 0; i < NART; i++)
        tsr_buf_free(&bufs[i]);
    return rc < 0 || d->errors ? -1 : 0;
}

int main(int argc, char **argv)
{
    const char *outdir = NULL, *input = NULL, *want_name = NULL;
    bool want_dump = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            outdir = argv[++i];
        } else if (strncmp(argv[i], "-o", 2) == 0 && argv[i][2]) {
            outdir = argv[i] + 2;
        } else if (strcmp(argv[i], "--name") == 0 && i + 1 < argc) {
            want_name = argv[++i];
        } else if (strcmp(argv[i], "--dump") == 0) {
            want_dump = true;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "mdlc: error: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        } else if (input) {
            fprintf(stderr, "mdlc: error: more than one input file ('%s' and '%s')\n", input, argv[i]);
            return 2;
        } else {
            input = argv[i];
        }
    }
    if (!input || (!outdir && !want_dump)) {
        usage(stderr);
        return 2;
    }
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
    struct mdl_model *m = mdl_load(input, &d);
    int rc = 0;
    if (m && !d.errors && want_name && strcmp(m->name, want_name) != 0)
        tsr_diag_error(&d, m->name_loc.file, (unsigned)m->name_loc.line, (unsigned)m->name_loc.col,
                       "isa '%s' is not named '%s': the build expects the isa of %s.mdl to be named %s (mdlc names its "
                       "outputs after the isa)", m->name, want_name, want_name, want_name);
    if (!m || d.errors) {
        rc = 1;
    } else {
        if (want_dump) {
            dump(m, stdout);
            dump_rules(m, stdout);
        }
        if (outdir && generate(m, outdir, &d) < 0)
            rc = 1;
    }
    if (m)
        mdl_model_free(m);
    tsr_diag_fini(&d);
    return rc;
}
