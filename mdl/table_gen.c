/* Generated tables (docs/mdl.md "Generated tables", extension X11): `table T swizzle(x = 7:6, y = 5:4, z = 3:2,
 * w = 1:0);` names every code of a vector swizzle, and `table T mask(x = 3, y = 2, z = 1, w = 0, blank "*");` every
 * code of a write mask. The parser calls ast_table_gen with the items; it checks them and adds ordinary name
 * entries (one name per code) to the table being declared, so the checker, the assembler and the disassembler
 * see an ordinary table (a vec4 ISA's source swizzles and destination write masks: docs/mdl.md names its users).
 */
#include <inttypes.h>
#include <string.h>
#include "ast.h"

#define MAX_SWIZZLE 4    /* components of a swizzle table: 4^4 = 256 names */
#define MAX_MASK 8       /* components of a mask table */
#define MASK_BITS 16     /* a mask table's codes: at most 2^16 */
#define SWIZZLE_BITS 32  /* a swizzle table's codes fit 32 bits */

struct ast_gitem *ast_gitem(struct mdl_pctx *c, struct ast_name n, struct mdl_tok *hi, struct mdl_tok *lo,
                            struct mdl_tok *text)
{
	struct ast_gitem *g = tsr_arena_alloc(c->arena, sizeof *g);
	memset(g, 0, sizeof *g);
	g->name = n;
	g->loc = n.loc;
	if (text) {
		g->is_blank = true;
		g->text = ast_str(*text);
	} else {
		g->hi = hi->ival > 1000000 ? 1000000 : (int64_t)hi->ival;
		g->lo = lo ? (lo->ival > 1000000 ? 1000000 : (int64_t)lo->ival) : g->hi;
	}
	return g;
}

/* Adds the entry NAME = code (one name, the text of len bytes) to table d. */
static void add_entry(struct mdl_pctx *c, struct ast_decl *d, const char *text, size_t len, uint64_t code,
                      struct mdl_loc loc)
{
	struct ast_tname *n = tsr_arena_alloc(c->arena, sizeof *n);
	memset(n, 0, sizeof *n);
	n->str.s = tsr_arena_strndup(c->arena, text, len);
	n->str.len = (int)len;
	n->str.loc = loc;
	struct ast_tentry *e = tsr_arena_alloc(c->arena, sizeof *e);
	memset(e, 0, sizeof *e);
	ast_push(c->arena, &e->names, n);
	e->code = ast_int(c, (struct mdl_tok){ .ival = code, .loc = loc });
	e->loc = loc;
	ast_push(c->arena, &d->items, e);
}

/* Checks the components (items other than `blank`): 1..max of them, distinct names, HI >= LO, bits below
 * `bits`, no two overlapping. Returns their number, or -1 after reporting. */
static int check_comps(struct mdl_pctx *c, struct ast_gitem **g, int n, int max, int bits, const char *what)
{
	for (int i = 0; i < n; i++) {
		if (g[i]->hi < g[i]->lo)
			return mdl_error(c, g[i]->loc, "bits %" PRId64 ":%" PRId64 " of component '%s': write the high bit first",
			                 g[i]->hi, g[i]->lo, g[i]->name.s);
		if (g[i]->hi >= bits)
			return mdl_error(c, g[i]->loc, "bit %" PRId64 " of component '%s' is outside a %s table's codes (bits 0 to %d)",
			                 g[i]->hi, g[i]->name.s, what, bits - 1);
		for (int j = 0; j < i; j++) {
			if (g[j]->name.s == g[i]->name.s)
				return mdl_error(c, g[i]->loc, "component '%s' named twice in a %s table", g[i]->name.s, what);
			if (g[i]->lo <= g[j]->hi && g[j]->lo <= g[i]->hi)
				return mdl_error(c, g[i]->loc, "bits of component '%s' overlap those of '%s'", g[i]->name.s,
				                 g[j]->name.s);
		}
	}
	if (n < 1 || n > max)
		return mdl_error(c, n ? g[n - 1]->loc : c->cur->name.loc, "a %s table has 1 to %d components, not %d", what,
		                 max, n);
	return n;
}

/* swizzle: position i (component i's bits) holds the number of the source component it selects (0 = the first
 * component named). Every choice is named by the components' names in position order: 4^4 names for xyzw. */
static void gen_swizzle(struct mdl_pctx *c, struct ast_decl *d, struct ast_gitem **g, int n)
{
	for (int i = 0; i < n; i++) {
		int w = (int)(g[i]->hi - g[i]->lo + 1);
		if (w < 31 && (n - 1) >> w) {
			mdl_error(c, g[i]->loc, "swizzle position '%s' has %d bit%s: %d components need %d", g[i]->name.s, w,
			          w == 1 ? "" : "s", n, n > 2 ? 2 : 1);
			return;
		}
	}
	int total = 1;
	for (int i = 0; i < n; i++)
		total *= n;
	for (int k = 0; k < total; k++) {
		char name[256];
		size_t len = 0;
		uint64_t code = 0;
		for (int i = 0, r = k; i < n; i++) {   /* digit i of k in base n, most significant first */
			int div = 1;
			for (int j = i + 1; j < n; j++)
				div *= n;
			int v = r / div;
			r %= div;
			size_t l = strlen(g[v]->name.s);
			if (len + l >= sizeof name) {
				mdl_error(c, g[v]->loc, "swizzle names longer than %zu characters", sizeof name - 1);
				return;
			}
			memcpy(name + len, g[v]->name.s, l);
			len += l;
			code |= (uint64_t)v << g[i]->lo;
		}
		add_entry(c, d, name, len, code, d->name.loc);
	}
}

/* mask: a code whose every component's bits are all set or all clear (and no other bit set) is named by the
 * set components' names in declaration order, a clear one written as the blank text (when given). */
static void gen_mask(struct mdl_pctx *c, struct ast_decl *d, struct ast_gitem **g, int n, const struct ast_gitem *blank)
{
	uint64_t used = 0;
	int top = 0;
	for (int i = 0; i < n; i++) {
		used |= ((((uint64_t)1 << (g[i]->hi - g[i]->lo + 1)) - 1) << g[i]->lo);
		if (g[i]->hi + 1 > top)
			top = (int)g[i]->hi + 1;
	}
	for (uint64_t code = 0; code < (uint64_t)1 << top; code++) {
		if (code & ~used)
			continue;
		char name[512];
		size_t len = 0;
		bool ok = true;
		for (int i = 0; i < n && ok; i++) {
			uint64_t m = ((((uint64_t)1 << (g[i]->hi - g[i]->lo + 1)) - 1) << g[i]->lo);
			const char *t = (code & m) == m ? g[i]->name.s : (code & m) == 0 && blank ? blank->text.s : "";
			size_t l = (code & m) == m ? strlen(t) : (code & m) == 0 && blank ? (size_t)blank->text.len : 0;
			ok = (code & m) == m || (code & m) == 0;
			if (len + l >= sizeof name) {
				mdl_error(c, g[i]->loc, "mask names longer than %zu characters", sizeof name - 1);
				return;
			}
			memcpy(name + len, t, l);
			len += l;
		}
		if (ok)
			add_entry(c, d, name, len, code, d->name.loc);
	}
}

void ast_table_gen(struct mdl_pctx *c, struct ast_name kind, struct ast_vec *items)
{
	struct ast_decl *d = c->cur && c->cur->kind == AD_TABLE ? c->cur : NULL;
	if (!d)
		return;
	bool sw = !strcmp(kind.s, "swizzle"), mask = !strcmp(kind.s, "mask");
	if (!sw && !mask) {
		mdl_error(c, kind.loc, "unknown generated table '%s' (swizzle or mask)", kind.s);
		return;
	}
	struct ast_gitem **g = tsr_arena_alloc(c->arena, (size_t)items->n * sizeof *g);
	const struct ast_gitem *blank = NULL;
	int n = 0;
	for (int i = 0; i < items->n; i++) {
		struct ast_gitem *x = items->v[i];
		if (!x->is_blank) {
			if (blank) {
				mdl_error(c, x->loc, "'blank' comes after the components");
				return;
			}
			g[n++] = x;
		} else if (strcmp(x->name.s, "blank")) {
			mdl_error(c, x->loc, "expected 'NAME = BITS' or 'blank \"TEXT\"', found '%s' and a string", x->name.s);
			return;
		} else if (sw) {
			mdl_error(c, x->loc, "'blank' is for mask tables, not swizzle tables");
			return;
		} else if (blank) {
			mdl_error(c, x->loc, "'blank' given twice");
			return;
		} else {
			blank = x;
		}
	}
	if (check_comps(c, g, n, sw ? MAX_SWIZZLE : MAX_MASK, sw ? SWIZZLE_BITS : MASK_BITS, kind.s) < 0)
		return;
	if (sw)
		gen_swizzle(c, d, g, n);
	else
		gen_mask(c, d, g, n, blank);
}
