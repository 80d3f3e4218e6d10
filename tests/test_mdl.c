/* The description language front end (mdl/): negative descriptions give exactly the diagnostics of their
 * .err files (tests/neg), and a small valid description builds the expected model.
 * Run from the repository root (or with TESSERA_ROOT set to it).
 */
#include <criterion/criterion.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "model.h"
#include "opcopy.h"

static void to_root(void)
{
	const char *root = getenv("TESSERA_ROOT");
	if (root && *root)
		cr_assert_eq(chdir(root), 0, "cannot chdir to TESSERA_ROOT=%s", root);
}

/* The lines of a file, without their newlines; NULL if it cannot be read. */
static char **read_lines(const char *path, int *n)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char **v = NULL, buf[1024];
	*n = 0;
	while (fgets(buf, sizeof buf, f)) {
		buf[strcspn(buf, "\n")] = 0;
		v = realloc(v, (size_t)(*n + 1) * sizeof *v);
		v[(*n)++] = strdup(buf);
	}
	fclose(f);
	return v;
}

/* Loads one negative description and compares its diagnostics with the .err file; 0 if equal. */
static int check_neg(const char *mdl)
{
	char err[512];
	snprintf(err, sizeof err, "%.*s.err", (int)(strlen(mdl) - 4), mdl);
	int nexp = 0, bad = 0;
	char **exp = read_lines(err, &nexp);
	cr_expect_not_null(exp, "%s: cannot read %s", mdl, err);
	struct tsr_diag d;
	tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
	d.max_errors = 0;
	struct mdl_model *m = mdl_load(mdl, &d);
	cr_expect_null(m, "%s: loaded without errors", mdl);
	mdl_model_free(m);
	for (int i = 0; i < nexp || i < (int)d.count; i++) {
		const char *want = i < nexp ? exp[i] : "(nothing)";
		const char *got = i < (int)d.count ? d.entries[i].text : "(nothing)";
		if (strcmp(want, got)) {
			cr_log_error("%s: diagnostic %d\n  expected: %s\n       got: %s", mdl, i + 1, want, got);
			bad = 1;
		}
	}
	cr_expect_eq(d.errors, (unsigned)d.count);
	tsr_diag_fini(&d);
	for (int i = 0; i < nexp; i++)
		free(exp[i]);
	free(exp);
	return bad;
}

Test(mdl_neg, every_negative_description)
{
	to_root();
	glob_t g;
	cr_assert_eq(glob("tests/neg/*.mdl", 0, NULL, &g), 0, "no tests/neg/*.mdl (run from the repository root)");
	cr_expect_geq(g.gl_pathc, 16, "only %zu negative descriptions", g.gl_pathc);
	int failed = 0;
	for (size_t i = 0; i < g.gl_pathc; i++)
		failed += check_neg(g.gl_pathv[i]);
	cr_expect_eq(failed, 0, "%d of %zu negative descriptions differ from their .err files", failed, g.gl_pathc);
	globfree(&g);
}

Test(mdl_neg, missing_file)
{
	struct tsr_diag d;
	tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
	cr_expect_null(mdl_load("tests/neg/no-such-file.mdl", &d));
	cr_expect_eq(d.count, 1);
	cr_expect(d.count == 1 && strstr(d.entries[0].text, "tests/neg/no-such-file.mdl: error: cannot open"));
	tsr_diag_fini(&d);
}

/* 100,000 nested parentheses or unary operators in a description: one diagnostic, no stack overflow (the
 * lemon parser's stack is bounded; the checker's recursion over expressions too). */
Test(mdl_neg, deep_nesting_bounded)
{
	static const char *const head = "isa t { word 32; }\nfield op [31:27];\nformat f { fields op; slots s; }\n"
	                                "slot s default nop;\nop nop : s { syntax \"nop\"; encode op == ";
	static const char *const units[] = {"(", "-", "~", "!"};
	for (int u = 0; u < 4; u++) {
		size_t n = 100000, hl = strlen(head);
		char *src = malloc(hl + 2 * n + 64);
		cr_assert_not_null(src);
		memcpy(src, head, hl);
		memset(src + hl, units[u][0], n);
		size_t len = hl + n;
		len += (size_t)sprintf(src + len, "1");
		if (u == 0) {
			memset(src + len, ')', n);
			len += n;
		}
		len += (size_t)sprintf(src + len, "; sem {} }\n");
		struct tsr_diag d;
		tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
		cr_expect_null(mdl_load_buffer("deep.mdl", src, len, &d));
		cr_expect_eq(d.count, 1, "%s: %zu diagnostics", units[u], d.count);
		cr_expect(d.count >= 1 && strstr(d.entries[0].text, "deep.mdl:5:") && strstr(d.entries[0].text, "nested too deeply"),
		          "%s: %s", units[u], d.count ? d.entries[0].text : "");
		tsr_diag_fini(&d);
		free(src);
	}
}

/* ---- a small valid description ---------------------------------------------------------------------- */
static const char *const desc =
	"isa mini { word 64; lanes 16; endian little; pc_step 8; }\n"                                  /* 1 */
	"field sig [63:60];\n"
	"field pm [56];\n"
	"field cond_add [51:49];\n"
	"field sf [45];\n"
	"field ws [44];\n"
	"field waddr_add [43:38];\n"
	"field op_add [28:24];\n"
	"field raddr_a [23:18];\n"
	"field raddr_b [17:12];\n"                                                                       /* 10 */
	"field add_a [11:9];\n"
	"field add_b [8:6];\n"
	"field rest [5:0];\n"
	"field split [59:57, 55:52] signed;\n"
	"field target [~48, 47:46];\n"
	"field imm32 [31:0];\n"
	"field br_rest [63:49]; field gap [37:29];\n"
	"table cond { \".never\" = 0; \"\" = 1; \".ifz\" | \".ifzs\" = 2; }\n"
	"table acc { r{0..5} = 0; }\n"
	"table wa { ra{0..31} = 0; r{0..3} = 32; \"-\" | nop = 39; }\n"                                 /* 20 */
	"table smallimm { 0..15 => code; 16..31 => code - 32; 32..39 => float(1 << (code - 32));\n"
	"  40..47 => 1.0 / float(1 << (48 - code)); 48..63 => code - 64; }\n"
	"state pc : u32;\n"
	"regfile r[6] : vec;\n"
	"regfile ra[32] : vec latency 2;\n"
	"state z : vec;\n"
	"guard r[4] : r4_busy;\n"
	"space wr[64] { 0..31 write ra[addr]; 32..35 write r[addr - 32]; 39 write none;\n"
	"  36..38, 40..63 write hook io_write(addr); }\n"
	"space rd[64] { 0..31 read ra[addr]; 32..63 read hook io_read(addr); }\n"                        /* 30 */
	"format alu (sig != 15) {\n"
	"  fields sig split pm cond_add target sf ws waddr_add gap op_add raddr_a raddr_b add_a add_b rest;\n"
	"  slots add; default waddr_add = 39;\n"
	"}\n"
	"format branch (sig == 15) { fields br_rest ws waddr_add target imm32; ignore [45, 37:32]; slots branch; }\n"
	"func cc(code) = code == 1 || (code == 2 && z != 0);\n"
	"operand src(mux) {\n"
	"  \"{acc:mux}\"         when mux <= 5                read r[mux];\n"
	"  \"{wa:raddr_a}\"      when mux == 6                read rd[raddr_a];\n"
	"  \"{smallimm:raddr_b}\" when mux == 7, sig == 13     read smallimm(raddr_b);\n"          /* 40 */
	"}\n"
	"operand dst { \"{wa:waddr_add}\" write wr[waddr_add]; }\n"
	"slot add default nop commit {\n"
	"  if (op_add != 0 && cc(cond_add)) d = result;\n"
	"  if (sf == 1) { z = result == 0; }\n"
	"}\n"
	"slot branch default b;\n"
	"op nop : add { syntax \"nop\"; encode op_add == 0; default cond_add = 0; sem {} }\n"
	"op fadd : add float {\n"
	"  syntax \"fadd{cond:cond_add}{?'.setf' sf == 1} {d=dst}, {a=src(add_a)}, {b=src(add_b)}\";\n" /* 50 */
	"  encode op_add == 1;\n"
	"  sem result = fadd(a, b); if (attr(float)) result = u32(f32(result));\n"
	"}\n"
	"op mov : add { syntax \"mov {d=dst}, {a=src(add_a)}\"; encode op_add == 21, add_b == add_a;\n"
	"  sem { let t = a + 1; result = t; } }\n"
	"op or : add { syntax \"or {d=dst}, {a=src(add_a)}, {b=src(add_b)}\"; encode op_add == 21;\n"
	"  sem result = a | b; }\n"
	"op b : branch { syntax \"b {label:imm32 pcrel 32}\"; sem jump(pc + imm32, 3); }\n";

static struct mdl_model *M;

/* The description `text` loaded as file `name` with diagnostics stored in *d (initialised here; the caller
 * frees it and the model): every diagnostic is logged, and the test stops unless the model loaded. */
static struct mdl_model *load_ok(const char *name, const char *text, struct tsr_diag *d)
{
	tsr_diag_init(d, TSR_DIAG_STORE, NULL);
	struct mdl_model *m = mdl_load_buffer(name, text, strlen(text), d);
	for (size_t i = 0; i < d->count; i++)
		cr_log_error("%s", d->entries[i].text);
	cr_assert_not_null(m);
	return m;
}

static void load_desc(void)
{
	struct tsr_diag d;
	tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
	M = mdl_load_buffer("mini.mdl", desc, strlen(desc), &d);
	for (size_t i = 0; i < d.count; i++)
		cr_log_error("%s", d.entries[i].text);
	tsr_diag_fini(&d);
	cr_assert_not_null(M, "the valid description did not load");
}

static void free_desc(void)
{
	mdl_model_free(M);
	M = NULL;
}

static int find(const char *what, const char *name)
{
	if (!strcmp(what, "field")) {
		for (int i = 0; i < M->nfields; i++)
			if (!strcmp(M->fields[i].name, name))
				return i;
	} else if (!strcmp(what, "table")) {
		for (int i = 0; i < M->ntables; i++)
			if (!strcmp(M->tables[i].name, name))
				return i;
	} else if (!strcmp(what, "op")) {
		for (int i = 0; i < M->nops; i++)
			if (!strcmp(M->ops[i].name, name))
				return i;
	} else if (!strcmp(what, "opnd")) {
		for (int i = 0; i < M->nopnds; i++)
			if (!strcmp(M->opnds[i].inst_name, name))
				return i;
	} else if (!strcmp(what, "state")) {
		for (int i = 0; i < M->nstates; i++)
			if (!strcmp(M->states[i].name, name))
				return i;
	} else if (!strcmp(what, "hook")) {
		for (int i = 0; i < M->nhooks; i++)
			if (!strcmp(M->hooks[i].name, name))
				return i;
	}
	cr_assert_fail("no %s '%s'", what, name);
	return -1;
}

TestSuite(mdl_model, .init = load_desc, .fini = free_desc);

Test(mdl_model, isa_and_counts)
{
	cr_expect_str_eq(M->name, "mini");
	cr_expect_eq(M->word_bits, 64);
	cr_expect_eq(M->lanes, 16);
	cr_expect_eq(M->pc_step, 8);
	cr_expect(M->little_endian);
	cr_expect_eq(M->nformats, 2);
	cr_expect_eq(M->nslots, 2);
	cr_expect_eq(M->nops, 5);
	cr_expect_eq(M->pc_state, find("state", "pc"));
	cr_expect_eq(M->nattrs, 1);
	cr_expect_str_eq(M->attrs[0], "float");
	cr_expect_eq(M->ops[find("op", "fadd")].attrs, 1);
}

Test(mdl_model, field_pieces)
{
	const struct mdl_field *f = &M->fields[find("field", "split")];
	cr_expect_eq(f->width, 7);
	cr_expect(f->is_signed);
	cr_expect_eq(f->npieces, 2);
	cr_expect_eq(f->pieces[0].hi, 59);
	cr_expect_eq(f->pieces[0].lo, 57);
	cr_expect_eq(f->pieces[1].hi, 55);
	cr_expect_eq(f->pieces[1].lo, 52);
	f = &M->fields[find("field", "target")];
	cr_expect_eq(f->width, 3);
	cr_expect(f->pieces[0].inverted && f->pieces[0].hi == 48 && f->pieces[0].lo == 48);
	cr_expect(!f->pieces[1].inverted && f->pieces[1].hi == 47 && f->pieces[1].lo == 46);
	cr_expect_eq(M->fields[find("field", "imm32")].width, 32);
}

Test(mdl_model, formats)
{
	const struct mdl_format *f = &M->formats[1];
	cr_expect_str_eq(f->name, "branch");
	cr_expect_eq(f->nfields, 5);
	cr_expect_eq(f->nignore, 2);
	cr_expect(f->ignore[0].hi == 45 && f->ignore[0].lo == 45);
	cr_expect(f->ignore[1].hi == 37 && f->ignore[1].lo == 32);
	cr_expect_eq(f->selector->type, MDL_T_BOOL);
	cr_expect(f->selector->kind == MDL_E_BIN && f->selector->op == MDL_OP_EQ);
	f = &M->formats[0];
	cr_expect_eq(f->ndef, 1);
	cr_expect_eq(f->def[0].field, find("field", "waddr_add"));
	cr_expect_eq(f->def[0].val, 39);
}

Test(mdl_model, table_names)
{
	const struct mdl_table *t = &M->tables[find("table", "wa")];
	int n5 = -1, nop = -1, dash = -1, r3 = -1;
	for (int i = 0; i < t->nent; i++) {
		if (!strcmp(t->ent[i].name, "ra5"))
			n5 = i;
		if (!strcmp(t->ent[i].name, "nop"))
			nop = i;
		if (!strcmp(t->ent[i].name, "-"))
			dash = i;
		if (!strcmp(t->ent[i].name, "r3"))
			r3 = i;
	}
	cr_assert(n5 >= 0 && nop >= 0 && dash >= 0 && r3 >= 0);
	cr_expect_eq(t->ent[n5].code_lo, 5);
	cr_expect_eq(t->ent[r3].code_lo, 35);
	cr_expect_eq(t->ent[dash].code_lo, 39);
	cr_expect_eq(t->ent[nop].code_lo, 39);
	cr_expect(t->ent[dash].canonical && !t->ent[nop].canonical);
	cr_expect_eq(t->nent, 32 + 4 + 2);
	t = &M->tables[find("table", "cond")];
	cr_expect_str_eq(t->ent[1].name, "");
	cr_expect_eq(t->ent[1].code_lo, 1);
}

Test(mdl_model, table_numbers)
{
	const struct mdl_table *t = &M->tables[find("table", "smallimm")];
	uint32_t want[64];
	for (int c = 0; c < 64; c++)
		want[c] = c < 16 ? (uint32_t)c : c < 32 ? (uint32_t)(c - 32) : c >= 48 ? (uint32_t)(c - 64) : 0;
	want[32] = 0x3f800000;  /* 1.0 */
	want[39] = 0x43000000;  /* 128.0 */
	want[40] = 0x3b800000;  /* 1/256 */
	want[47] = 0x3f000000;  /* 0.5 */
	cr_expect_eq(t->nent, 5);
	for (int i = 0; i < t->nent; i++) {
		const struct mdl_tentry *e = &t->ent[i];
		cr_expect(e->is_num && !e->name);
		cr_expect_eq(e->is_float, e->code_lo >= 32 && e->code_lo < 48);
		for (uint32_t c = e->code_lo; c <= e->code_hi; c++)
			if (c == 32 || c == 39 || c == 40 || c == 47 || c < 32 || c >= 48)
				cr_expect_eq(e->vals[c - e->code_lo], want[c], "code %u: 0x%08x", c, e->vals[c - e->code_lo]);
	}
}

Test(mdl_model, op_template_parts)
{
	const struct mdl_op *o = &M->ops[find("op", "fadd")];
	static const enum mdl_tkind kinds[] = { MDL_TP_TEXT, MDL_TP_TABLE, MDL_TP_OPT, MDL_TP_SPACE, MDL_TP_OPND,
	                                        MDL_TP_TEXT, MDL_TP_SPACE, MDL_TP_OPND, MDL_TP_TEXT, MDL_TP_SPACE,
	                                        MDL_TP_OPND };
	cr_assert_eq(o->tmpl.nparts, 11);
	for (int i = 0; i < 11; i++)
		cr_expect_eq(o->tmpl.parts[i].kind, kinds[i], "part %d", i);
	cr_expect_str_eq(o->tmpl.parts[0].text, "fadd");
	cr_expect_eq(o->tmpl.parts[1].table, find("table", "cond"));
	cr_expect_eq(o->tmpl.parts[1].field, find("field", "cond_add"));
	const struct mdl_tpart *opt = &o->tmpl.parts[2];
	cr_expect_str_eq(opt->text, ".setf");
	cr_assert_eq(opt->ncond, 1);
	cr_expect(opt->cond[0].binding && opt->cond[0].field == find("field", "sf") && opt->cond[0].val == 1);
	cr_expect_str_eq(o->tmpl.parts[5].text, ",");
	cr_expect_eq(o->tmpl.parts[4].opnd, find("opnd", "dst"));
	cr_expect_eq(o->tmpl.parts[7].opnd, find("opnd", "src(add_a)"));
	cr_expect_eq(o->tmpl.parts[10].opnd, find("opnd", "src(add_b)"));
	cr_expect_str_eq(o->local_names[o->tmpl.parts[4].local], "d");
	cr_expect_str_eq(o->local_names[o->tmpl.parts[7].local], "a");
	cr_expect_str_eq(o->local_names[o->tmpl.parts[10].local], "b");
	cr_expect_eq(o->tmpl.loc.line, 50);
	cr_expect_eq(o->tmpl.parts[1].loc.col, 15);   /* the '{' of {cond:cond_add} */
	const struct mdl_op *b = &M->ops[find("op", "b")];
	cr_assert_eq(b->tmpl.nparts, 3);
	cr_expect(b->tmpl.parts[2].kind == MDL_TP_LABEL && b->tmpl.parts[2].pcrel && b->tmpl.parts[2].pcoff == 32);
	cr_expect_eq(b->tmpl.parts[2].field, find("field", "imm32"));
}

Test(mdl_model, binding_conditions)
{
	const struct mdl_op *mov = &M->ops[find("op", "mov")], *or = &M->ops[find("op", "or")];
	cr_assert_eq(mov->ncond, 2);
	cr_expect(mov->cond[0].binding && mov->cond[0].field == find("field", "op_add") && mov->cond[0].field2 < 0);
	cr_expect_eq(mov->cond[0].val, 21);
	cr_expect(mov->cond[1].binding && mov->cond[1].field == find("field", "add_b") &&
	          mov->cond[1].field2 == find("field", "add_a"));
	cr_expect_eq(mov->cond[1].e->type, MDL_T_BOOL);
	cr_assert_eq(or->ncond, 1);
	cr_expect(or->cond[0].binding && or->cond[0].val == 21);
	const struct mdl_op *nop = &M->ops[find("op", "nop")];
	cr_expect(nop->ndef == 1 && nop->def[0].field == find("field", "cond_add") && nop->def[0].val == 0);
}

Test(mdl_model, instantiated_operands)
{
	cr_expect_eq(M->nopnds, 3);
	const struct mdl_opnd *o = &M->opnds[find("opnd", "src(add_b)")];
	cr_expect_str_eq(o->name, "src");
	cr_assert_eq(o->nalt, 3);
	/* `mux <= 5` became `add_b <= 5` */
	const struct mdl_expr *c = o->alt[0].cond[0].e;
	cr_expect(c->kind == MDL_E_BIN && c->op == MDL_OP_LE && c->a[0]->kind == MDL_E_FIELD);
	cr_expect_eq(c->a[0]->index, find("field", "add_b"));
	cr_expect(!o->alt[0].cond[0].binding);
	cr_expect(o->alt[1].cond[0].binding && o->alt[1].cond[0].field == find("field", "add_b") &&
	          o->alt[1].cond[0].val == 6);
	cr_expect_eq(o->alt[0].tmpl.parts[0].field, find("field", "add_b"));
	cr_expect_eq(o->alt[0].read->kind, MDL_E_STATE);
	cr_expect_eq(o->alt[0].read->index, find("state", "r"));
	cr_expect_eq(o->alt[1].read->kind, MDL_E_SPACE);
	cr_expect_eq(o->alt[2].read->kind, MDL_E_TABLE);
	cr_expect_eq(o->alt[2].read->index, find("table", "smallimm"));
	cr_expect_eq(o->alt[2].read->type, MDL_T_U32);
	cr_expect_eq(o->alt[0].wspace, -1);
	const struct mdl_opnd *d = &M->opnds[find("opnd", "dst")];
	cr_expect_eq(d->alt[0].read, NULL);
	cr_expect_eq(d->alt[0].wstate, -1);
	cr_expect(d->alt[0].wspace >= 0 && d->alt[0].waddr && d->alt[0].waddr->kind == MDL_E_FIELD);
}

Test(mdl_model, semantics_types_and_locals)
{
	const struct mdl_op *o = &M->ops[find("op", "fadd")];
	/* slot outputs first (commit order: d, result), then a, b */
	cr_assert_geq(o->nlocals, 4);
	cr_expect_str_eq(o->local_names[0], "d");
	cr_expect_str_eq(o->local_names[1], "result");
	cr_assert_eq(o->nsem, 2);
	const struct mdl_stmt *s = o->sem[0];
	cr_expect_eq(s->kind, MDL_S_ASSIGN);
	cr_expect(s->target->kind == MDL_E_LOCAL && s->target->index == 1);
	cr_expect(s->e->kind == MDL_E_CALL && s->e->index == MDL_B_FADD && s->e->type == MDL_T_F32);
	cr_expect(s->e->a[0]->kind == MDL_E_LOCAL && s->e->a[0]->type == MDL_T_U32);
	s = o->sem[1];
	cr_expect_eq(s->kind, MDL_S_IF);
	cr_expect(s->e->kind == MDL_E_ATTR && s->e->type == MDL_T_BOOL);
	cr_expect(s->body[0]->e->kind == MDL_E_CAST && s->body[0]->e->type == MDL_T_U32);
	cr_expect_eq(s->body[0]->e->a[0]->type, MDL_T_F32);
	const struct mdl_op *mov = &M->ops[find("op", "mov")];
	const struct mdl_stmt *let = mov->sem[0]->body[0];
	cr_expect_eq(let->kind, MDL_S_LET);
	cr_expect_str_eq(mov->local_names[let->local], "t");
	cr_expect(let->e->kind == MDL_E_BIN && let->e->op == '+' && let->e->type == MDL_T_U32);
	cr_expect(let->e->a[1]->kind == MDL_E_INT && let->e->a[1]->ival == 1);
	/* the commit: `d = result` writes through the operand, `z = result == 0` assigns a bool */
	const struct mdl_slot *add = &M->slots[0];
	cr_expect_eq(add->default_op, find("op", "nop"));
	cr_expect_eq(add->nops, 4);
	cr_assert_eq(add->ncommit, 2);
	const struct mdl_stmt *w = add->commit[0]->body[0];
	cr_expect(w->kind == MDL_S_WRITE && w->local == 0);
	cr_expect(add->commit[0]->e->kind == MDL_E_BIN && add->commit[0]->e->op == MDL_OP_LAND);
	const struct mdl_stmt *z = add->commit[1]->body[0]->body[0];
	cr_expect(z->kind == MDL_S_ASSIGN && z->target->kind == MDL_E_STATE && z->target->index == find("state", "z"));
	cr_expect_eq(z->e->type, MDL_T_BOOL);
	for (int i = 0; i < add->nops; i++)
		cr_expect_eq(M->ops[add->ops[i]].nlocals, M->ops[add->ops[0]].nlocals);
	const struct mdl_op *b = &M->ops[find("op", "b")];
	cr_expect(b->nsem == 1 && b->sem[0]->kind == MDL_S_JUMP && b->sem[0]->nargs == 1 && b->sem[0]->args[0]->ival == 3);
}

Test(mdl_model, states_spaces_hooks)
{
	const struct mdl_state *r = &M->states[find("state", "r")];
	cr_expect(r->vec && r->count == 6 && r->latency == 0);
	cr_expect_eq(r->guard_elem, 4);
	cr_expect_eq(r->guard_hook, find("hook", "r4_busy"));
	cr_expect_eq(M->states[find("state", "ra")].latency, 2);
	cr_expect(!M->states[find("state", "pc")].vec);
	const struct mdl_hook *rd = &M->hooks[find("hook", "io_read")], *wr = &M->hooks[find("hook", "io_write")];
	cr_expect(rd->returns_value && !rd->takes_value && rd->nargs == 1);
	cr_expect(!wr->returns_value && wr->takes_value && wr->nargs == 1);
	const struct mdl_space *sp = &M->spaces[0];
	cr_expect_str_eq(sp->name, "wr");
	cr_expect_eq(sp->size, 64);
	cr_assert_eq(sp->nent, 5);
	cr_expect(sp->ent[1].write && sp->ent[1].kind == MDL_SE_STATE && sp->ent[1].lo == 32 && sp->ent[1].hi == 35);
	cr_expect(sp->ent[1].index->kind == MDL_E_BIN && sp->ent[1].index->a[0]->kind == MDL_E_CODE);
	cr_expect_eq(sp->ent[2].kind, MDL_SE_NONE);
	cr_expect(sp->ent[3].kind == MDL_SE_HOOK && sp->ent[3].lo == 36 && sp->ent[3].hi == 38);
	cr_expect(sp->ent[4].kind == MDL_SE_HOOK && sp->ent[4].lo == 40 && sp->ent[4].hi == 63);
}

Test(mdl_model, const_eval)
{
	const struct mdl_expr *sel = M->formats[1].selector;
	uint64_t v;
	cr_expect_eq(mdl_const_eval(sel, &v), -1);   /* depends on a field */
	cr_expect_eq(mdl_const_eval(sel->a[1], &v), 0);
	cr_expect_eq(v, 15);
}

/* Descriptions written in the reference's other spellings load too. */
Test(mdl_load, reference_spellings)
{
	static const char *const text =
		"isa t { word 32; }\n"
		"field op [31:28]; field x [27:0];\n"
		"table rotate { 48 = r5; 49..63 => code - 48; }\n"
		"format f { fields op x; slots s; }\n"
		"slot s default nop commit { if (op != 0) d = result; };\n"
		"regfile r[16] : vec;\n"
		"operand dst { \"r{x}\" write r[x]; }\n"
		"op nop : s { syntax \"nop\"; encode op == 0; sem {} }\n"
		"op mov : s { syntax \"mov {d=dst}, {{{x}}}\"; encode op == 1; sem result = x; result = result + 1; }\n";
	struct tsr_diag d;
	struct mdl_model *m = load_ok("t.mdl", text, &d);
	cr_expect_eq(m->ops[1].nsem, 2);
	cr_assert_eq(m->ops[1].tmpl.nparts, 8);
	cr_expect_str_eq(m->ops[1].tmpl.parts[3].text, ",");
	cr_expect_str_eq(m->ops[1].tmpl.parts[5].text, "{");
	cr_expect_eq(m->ops[1].tmpl.parts[6].kind, MDL_TP_INT);
	cr_expect_str_eq(m->ops[1].tmpl.parts[7].text, "}");
	cr_expect_str_eq(m->tables[0].ent[0].name, "r5");
	cr_expect_eq(m->tables[0].ent[0].code_lo, 48);
	mdl_model_free(m);
	tsr_diag_fini(&d);
}

/* Bad input never crashes: every prefix of a valid description is rejected or accepted cleanly. */
Test(mdl_load, every_prefix)
{
	size_t n = strlen(desc);
	for (size_t len = 0; len <= n; len += 7) {
		struct tsr_diag d;
		tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
		struct mdl_model *m = mdl_load_buffer("p.mdl", desc, len, &d);
		cr_expect(m ? d.errors == 0 : d.errors > 0, "prefix %zu", len);
		mdl_model_free(m);
		tsr_diag_fini(&d);
	}
}

/* A left-associative chain (1+1+...) does not grow the parser's stack but would nest the tree 100000 deep:
 * rejected with one diagnostic instead of overflowing the C stack in the checker. */
Test(mdl_load, deep_expression)
{
	static const char *const head = "isa t { word 32; }\nfunc big(a) = a";
	size_t n = 100000, len = strlen(head);
	char *text = malloc(len + 2 * n + 8);
	memcpy(text, head, len);
	for (size_t i = 0; i < n; i++)
		memcpy(text + len + 2 * i, "+a", 2);
	memcpy(text + len + 2 * n, ";\n", 3);
	struct tsr_diag d;
	tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
	cr_expect_null(mdl_load_buffer("deep.mdl", text, strlen(text), &d));
	cr_assert_eq(d.count, 1);
	cr_expect_str_eq(d.entries[0].text, "deep.mdl:2:526: error: expression nested too deeply (more than 256 levels)");
	tsr_diag_fini(&d);
	free(text);
}

/* Resources, uses, events and rules (docs/mdl.md "Resources and hazards"): the checked model holds flat
 * patterns (named events and groups expanded, their modifiers pushed to every term), the uses of spaces,
 * alternatives, ops and formats, and each op's delay slots. */
Test(mdl_load, rules_model)
{
	static const char *const text =
		"isa t { word 32; pc_step 4; }\n"                                                             /* 1 */
		"field op [31:28]; field a [27:20]; field x [19:0];\n"
		"state pc : u32;\n"
		"regfile r[4] : vec latency 2;\n"
		"space rd[8] { 0..3 read r[addr]; 4..7 read none uses port = addr; }\n"                       /* 5 */
		"space wr[8] { 0..3 write r[addr]; 4..7 write none uses unit; }\n"
		"format f { fields op a x; slots s u; uses unit; }\n"
		"slot s default nop commit { if (op != 0) d = result; }\n"
		"slot u default halt;\n"
		"operand src { \"r{a}\" read rd[a] uses port = a; }\n"                                        /* 10 */
		"operand dst { \"r{a}\" write wr[a]; }\n"
		"op nop : s { syntax \"nop\"; encode op == 0; sem {} }\n"
		"op mov : s { syntax \"mov {d=dst}, {v=src}\"; encode op == 1; uses unit; sem result = v; }\n"
		"op b : s { syntax \"b {x}\"; encode op == 2; sem { if (a == 1) jump(x, 2); } }\n"
		"op halt : u { syntax \"end\"; sem halt(1); }\n"                                              /* 15 */
		"resource port count 2 ref \"toy\";\n"
		"resource unit ref \"toy\";\n"
		"event rw = read r | write wr[4..5, 7];\n"
		"event both = (rw | use port) in s if (x == 1);\n"
		"latency raw: write r -> read r same min 2 max 5 ref \"toy\";\n"                              /* 20 */
		"forbid w: both conditional -> jump | halt at 0..3 ref \"toy\";\n"
		"forbid one: start & op mov & use unit ref \"toy\";\n";
	struct tsr_diag d;
	struct mdl_model *m = load_ok("r.mdl", text, &d);
	cr_expect_eq(m->nresources, 2);
	cr_expect(m->resources[0].count == 2 && !strcmp(m->resources[0].ref, "toy"));
	cr_expect_eq(m->resources[1].count, 1);
	/* uses: the space entry (valued by addr), the alternative, the op, the format */
	const struct mdl_space *rd = &m->spaces[0];
	cr_assert_eq(rd->nent, 2);
	cr_expect(rd->ent[0].nuses == 0 && rd->ent[1].nuses == 1 && rd->ent[1].uses[0].resource == 0);
	cr_expect_eq(rd->ent[1].uses[0].value->kind, MDL_E_CODE);
	cr_expect_eq(m->formats[0].nuses, 1);
	cr_expect(m->ops[1].nuses == 1 && m->ops[1].uses[0].resource == 1 && !m->ops[1].uses[0].value);
	int src = -1;
	for (int i = 0; i < m->nopnds; i++)
		if (!strcmp(m->opnds[i].name, "src"))
			src = i;
	cr_assert_geq(src, 0);
	cr_expect(m->opnds[src].alt[0].nuses == 1 && m->opnds[src].alt[0].uses[0].value->kind == MDL_E_FIELD);
	/* delays */
	cr_expect(m->ops[2].jump_delay == 2 && m->ops[2].halt_delay == -1);
	cr_expect(m->ops[3].halt_delay == 1 && m->ops[3].jump_delay == -1);
	cr_expect(m->ops[0].jump_delay == -1);
	/* events: `both` flattens to 3 terms with slot s and the condition */
	cr_assert_eq(m->nevents, 2);
	const struct mdl_pattern *both = &m->events[1].pat;
	cr_assert_eq(both->nterms, 3);
	cr_expect(both->terms[0].kind == MDL_EV_READ && both->terms[0].state == 1 && both->terms[0].space == -1);
	cr_expect(both->terms[1].kind == MDL_EV_WRITE && both->terms[1].space == 1 && both->terms[1].ncodes == 2);
	cr_expect(both->terms[1].lo[0] == 4 && both->terms[1].hi[0] == 5 && both->terms[1].lo[1] == 7);
	cr_expect(both->terms[2].kind == MDL_EV_USE && both->terms[2].resource == 0);
	for (int i = 0; i < 3; i++) {
		cr_expect(both->terms[i].nslots == 1 && both->terms[i].slots[0] == 0, "term %d", i);
		cr_expect(both->terms[i].cond && both->terms[i].cond->kind == MDL_E_BIN, "term %d", i);
		cr_expect(!both->terms[i].conditional);
	}
	/* rules */
	cr_assert_eq(m->nrules, 3);
	const struct mdl_rule *raw = &m->rules[0], *w = &m->rules[1], *one = &m->rules[2];
	cr_expect(raw->kind == MDL_R_LATENCY && raw->same && raw->lo == 2 && raw->hi == 5 && raw->npat == 2);
	cr_expect_eq(m->states[1].latency_rule, 0);   /* regfile r: stated by rule raw */
	cr_expect(w->kind == MDL_R_WINDOW && w->lo == 0 && w->hi == 3 && w->pat[0].nterms == 3);
	cr_expect(w->pat[0].terms[0].conditional && w->pat[0].terms[2].conditional);
	cr_expect(w->pat[1].nterms == 2 && w->pat[1].terms[0].kind == MDL_EV_JUMP && w->pat[1].terms[1].kind == MDL_EV_HALT);
	cr_expect(one->kind == MDL_R_BUNDLE && one->npat == 3);
	cr_expect(one->pat[0].terms[0].kind == MDL_EV_START);
	cr_expect(one->pat[1].terms[0].kind == MDL_EV_OP && one->pat[1].terms[0].nops == 1 && one->pat[1].terms[0].ops[0] == 1);
	mdl_model_free(m);
	tsr_diag_fini(&d);
}

/* An open window (`at LO..`: hi -1 in the model) and attr() in a rule condition (the op behind the event). */
Test(mdl_load, open_window_and_attr_condition)
{
	static const char *const text =
		"isa t { word 32; pc_step 4; }\n"
		"field op [31:28]; field a [27:20]; field x [19:0];\n"
		"regfile r[4] : vec;\n"
		"space rd[8] { 0..3 read r[addr]; 4..7 read none; }\n"
		"format f { fields op a x; slots s; }\n"
		"slot s default nop;\n"
		"operand src { \"r{a}\" read rd[a]; }\n"
		"op nop : s { syntax \"nop\"; encode op == 0; sem {} }\n"
		"op fmov : s fl { syntax \"fmov {v=src}\"; encode op == 1; sem {} }\n"
		"op imov : s { syntax \"imov {v=src}\"; encode op == 2; sem {} }\n"
		"forbid late: op fmov -> op imov at 2.. ref \"toy\";\n"
		"forbid mixed: read r if (attr(fl) && x == 0) & read r if (!attr(fl)) ref \"toy\";\n";
	struct tsr_diag d;
	struct mdl_model *m = load_ok("o.mdl", text, &d);
	cr_assert_eq(m->nrules, 2);
	const struct mdl_rule *late = &m->rules[0], *mixed = &m->rules[1];
	cr_expect(late->kind == MDL_R_WINDOW && late->lo == 2 && late->hi == -1);
	cr_expect(mixed->kind == MDL_R_BUNDLE && mixed->npat == 2);
	const struct mdl_expr *c0 = mixed->pat[0].terms[0].cond, *c1 = mixed->pat[1].terms[0].cond;
	cr_assert(c0 && c1);
	cr_expect(c0->kind == MDL_E_BIN && c0->a[0]->kind == MDL_E_ATTR, "attr(fl) && x == 0");
	cr_expect(c1->kind == MDL_E_UN && c1->a[0]->kind == MDL_E_ATTR, "!attr(fl)");
	mdl_model_free(m);
	tsr_diag_fini(&d);
}

/* X12 plain copies (mdl/opcopy.c): a move writing its source through 32-bit casts, or under a negation its
 * optional part sets, is one; a converting move (a conversion, a negation in every case, a constant in one arm
 * no field decides), a masked write and an op without the attribute are not. */
Test(mdl_load, plain_copies)
{
	static const char *const text =
		"isa t { word 32; }\n"
		"field op [31:28]; field a [27:24]; field d [23:20]; field n [19]; field k [18]; field x [17:0];\n"
		"regfile R[16] : u32;\n"
		"format f { fields op a d n k x; slots u; }\n"
		"slot u default nop;\n"
		"operand src(r) { \"r{r}\" read R[r]; }\n"
		"operand dst { \"r{d}\" write R[d]; }\n"
		"func sn(v, m) = m == 1 ? fneg(v) : f32(v);\n"
		"op nop : u nop { syntax \"nop\"; encode op == 0; sem { } }\n"
		"op cp : u move { syntax \"cp {t=dst}, {v=src(a)}\"; encode op == 1; sem t = v; }\n"
		"op cast : u move { syntax \"cast {t=dst}, {v=src(a)}\"; encode op == 2; sem t = u32(f32(v)); }\n"
		"op neg : u move { syntax \"neg {t=dst}, {?'-' n == 1}{v=src(a)}\"; encode op == 3; sem t = u32(sn(v, n)); }\n"
		"op cvt : u move { syntax \"cvt {t=dst}, {v=src(a)}\"; encode op == 4; sem t = u32(itof(v)); }\n"
		"op fixed : u move { syntax \"fixed {t=dst}, {v=src(a)}\"; encode op == 5, n == 1; sem t = u32(sn(v, n)); }\n"
		"op sel : u move { syntax \"sel {t=dst}, {v=src(a)}\"; encode op == 6; sem t = k == 1 ? 0 : v; }\n"
		"op add : u { syntax \"add {t=dst}, {v=src(a)}\"; encode op == 7; sem t = v; }\n";
	struct tsr_diag d;
	struct mdl_model *m = load_ok("c.mdl", text, &d);
	int move = -1;
	for (int a = 0; a < m->nattrs; a++)
		if (!strcmp(m->attrs[a], "move"))
			move = a;
	cr_assert_geq(move, 0);
	static const struct { const char *op; bool copy; } want[] = {
		{ "nop", false }, { "cp", true }, { "cast", true }, { "neg", true }, { "cvt", false }, { "fixed", false },
		{ "sel", false }, { "add", false },
	};
	for (size_t w = 0; w < sizeof want / sizeof *want; w++) {
		int i = -1;
		for (int o = 0; o < m->nops; o++)
			if (!strcmp(m->ops[o].name, want[w].op))
				i = o;
		cr_assert_geq(i, 0, "%s", want[w].op);
		cr_expect_eq(mdl_op_plain_copy(m, i, move), want[w].copy, "op %s: %s", want[w].op,
		             want[w].copy ? "a plain copy" : "not a plain copy");
	}
	mdl_model_free(m);
	tsr_diag_fini(&d);
}
