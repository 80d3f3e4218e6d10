/* The .mdl lexer: see lexer.h. Compiled by re2c (re2c -W -o build/mdl/lexer.c mdl/lexer.re). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lexer.h"
#include "parse.h"

void mdl_lex_init(struct mdl_lexer *lx, struct mdl_pctx *ctx, const char *buf, size_t len)
{
	memset(lx, 0, sizeof *lx);
	lx->ctx = ctx;
	lx->start = lx->cur = lx->line_start = buf;
	lx->lim = buf + len;
	lx->line = 1;
}

static struct mdl_loc loc_at(const struct mdl_lexer *lx, const char *p)
{
	struct mdl_loc l = { lx->ctx->file, lx->line, (int)(p - lx->line_start) + 1 };
	if (lx->colmap)
		l.col = lx->colmap[p - lx->start];
	return l;
}

static void newline(struct mdl_lexer *lx, const char *after)
{
	if (!lx->colmap) {
		lx->line++;
		lx->line_start = after;
	}
}

static const struct { const char *s, *quoted; int code; } keywords[] = {
	{ "isa", "'isa'", TK_ISA }, { "field", "'field'", TK_FIELD }, { "table", "'table'", TK_TABLE },
	{ "format", "'format'", TK_FORMAT }, { "slot", "'slot'", TK_SLOT }, { "operand", "'operand'", TK_OPERAND },
	{ "op", "'op'", TK_OP }, { "state", "'state'", TK_STATE }, { "regfile", "'regfile'", TK_REGFILE },
	{ "guard", "'guard'", TK_GUARD }, { "space", "'space'", TK_SPACE }, { "func", "'func'", TK_FUNC },
	{ "hook", "'hook'", TK_HOOK }, { "signed", "'signed'", TK_SIGNED }, { "fields", "'fields'", TK_FIELDS },
	{ "ignore", "'ignore'", TK_IGNORE }, { "slots", "'slots'", TK_SLOTS }, { "default", "'default'", TK_DEFAULT },
	{ "sem", "'sem'", TK_SEM }, { "commit", "'commit'", TK_COMMIT }, { "syntax", "'syntax'", TK_SYNTAX },
	{ "encode", "'encode'", TK_ENCODE }, { "when", "'when'", TK_WHEN }, { "read", "'read'", TK_READ },
	{ "write", "'write'", TK_WRITE }, { "none", "'none'", TK_NONE }, { "latency", "'latency'", TK_LATENCY },
	{ "let", "'let'", TK_LET }, { "if", "'if'", TK_IF }, { "else", "'else'", TK_ELSE },
	{ "returns", "'returns'", TK_RETURNS },
	/* (addition) resources, events and rules (docs/mdl.md "Resources and hazards") */
	{ "resource", "'resource'", TK_RESOURCE }, { "uses", "'uses'", TK_USES }, { "count", "'count'", TK_COUNT },
	{ "event", "'event'", TK_EVENT }, { "forbid", "'forbid'", TK_FORBID }, { "ref", "'ref'", TK_REF },
	{ "min", "'min'", TK_MIN }, { "max", "'max'", TK_MAX }, { "same", "'same'", TK_SAME }, { "at", "'at'", TK_AT },
	{ "in", "'in'", TK_IN }, { "use", "'use'", TK_USE }, { "jump", "'jump'", TK_JUMP }, { "halt", "'halt'", TK_HALT },
	{ "start", "'start'", TK_START }, { "conditional", "'conditional'", TK_CONDITIONAL },
	{ "order", "'order'", TK_ORDER }, { "print", "'print'", TK_PRINT },
	/* (addition) X11 masked writes, the abort statement */
	{ "mask", "'mask'", TK_MASK }, { "abort", "'abort'", TK_ABORT },
	/* (addition) X7 slot scopes */
	{ "with", "'with'", TK_WITH },
	{ "output", "'output'", TK_OUTPUT }, { "asm", "'asm'", TK_ASM },
	/* (addition) X6 forwards */
	{ "forward", "'forward'", TK_FORWARD }, { "age", "'age'", TK_AGE }, { "ages", "'ages'", TK_AGES },
};

bool mdl_token_is_decl_start(int code)
{
	switch (code) {
	case TK_ISA: case TK_FIELD: case TK_TABLE: case TK_FORMAT: case TK_SLOT: case TK_OPERAND: case TK_OP:
	case TK_STATE: case TK_REGFILE: case TK_GUARD: case TK_SPACE: case TK_FUNC: case TK_HOOK:
	case TK_RESOURCE: case TK_EVENT: case TK_FORBID:
	case TK_ASM: case TK_FORWARD:
		return true;
	default:
		return false;
	}
}

const char *mdl_token_desc(int code)
{
	static const struct { int code; const char *s; } punct[] = {
		{ TK_DOTDOT, "'..'" }, { TK_ARROW, "'=>'" }, { TK_RARROW, "'->'" }, { TK_EQ, "'=='" }, { TK_NE, "'!='" }, { TK_LE, "'<='" },
		{ TK_GE, "'>='" }, { TK_SHL, "'<<'" }, { TK_SHR, "'>>'" }, { TK_LAND, "'&&'" }, { TK_LOR, "'||'" },
		{ TK_TILDE, "'~'" }, { TK_BANG, "'!'" }, { TK_QUESTION, "'?'" }, { TK_COLON, "':'" },
		{ TK_SEMI, "';'" }, { TK_COMMA, "','" }, { TK_LBRACE, "'{'" }, { TK_RBRACE, "'}'" },
		{ TK_LBRACKET, "'['" }, { TK_RBRACKET, "']'" }, { TK_LPAREN, "'('" }, { TK_RPAREN, "')'" },
		{ TK_PIPE, "'|'" }, { TK_ASSIGN, "'='" }, { TK_PLUS, "'+'" }, { TK_MINUS, "'-'" }, { TK_STAR, "'*'" },
		{ TK_SLASH, "'/'" }, { TK_PERCENT, "'%'" }, { TK_AMP, "'&'" }, { TK_CARET, "'^'" }, { TK_LT, "'<'" },
		{ TK_GT, "'>'" }, { TK_IDENT, "a name" }, { TK_INT, "an integer" }, { TK_FLOAT, "a number" },
		{ TK_STRING, "a string" }, { TK_ATSIGN, "'@'" }, { 0, "end of input" },
	};
	for (size_t i = 0; i < sizeof punct / sizeof punct[0]; i++)
		if (punct[i].code == code)
			return punct[i].s;
	for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
		if (keywords[i].code == code)
			return keywords[i].quoted;
	return "a token";
}

/* A string literal starting at p (the opening quote). Decodes escapes into the arena; records columns. */
static int lex_string(struct mdl_lexer *lx, const char *p, struct mdl_tok *tok)
{
	struct mdl_pctx *c = lx->ctx;
	const char *q = p + 1;
	size_t n = 0;
	bool esc = false;
	while (q < lx->lim && *q != '"' && *q != '\n') {
		if (*q == '\\' && q + 1 < lx->lim && q[1] != '\n') {
			esc = true;
			q++;
		}
		q++;
		n++;
	}
	char *s = tsr_arena_alloc(c->arena, n + 1);
	int *cols = esc || lx->colmap ? tsr_arena_alloc(c->arena, (n + 1) * sizeof *cols) : NULL;
	size_t k = 0;
	for (const char *r = p + 1; r < q; r++, k++) {
		if (cols)
			cols[k] = loc_at(lx, r).col;
		if (*r != '\\') {
			s[k] = *r;
			continue;
		}
		r++;
		switch (*r) {
		case '"': s[k] = '"'; break;
		case '\\': s[k] = '\\'; break;
		case 'n': s[k] = '\n'; break;
		case 't': s[k] = '\t'; break;
		default:
			if ((unsigned char)*r >= 0x20 && (unsigned char)*r < 0x7f)
				mdl_error(c, loc_at(lx, r - 1), "unknown escape '\\%c' in string", *r);
			else
				mdl_error(c, loc_at(lx, r - 1), "unknown escape in string");
			s[k] = *r;
		}
	}
	if (cols)
		cols[n] = loc_at(lx, q).col;
	tok->s = s;
	tok->len = (int)n;
	tok->cols = cols;
	if (q >= lx->lim || *q != '"') {
		mdl_error(c, loc_at(lx, p), "unterminated string");
		lx->cur = q;
	} else {
		lx->cur = q + 1;
	}
	return TK_STRING;
}

static int lex_number(struct mdl_lexer *lx, const char *p, const char *end, int base, struct mdl_tok *tok)
{
	uint64_t v = 0;
	bool overflow = false;
	for (const char *q = p; q < end; q++) {
		int d;
		if (*q == '_')
			continue;
		if (*q >= '0' && *q <= '9')
			d = *q - '0';
		else if (*q >= 'a' && *q <= 'f')
			d = *q - 'a' + 10;
		else
			d = *q - 'A' + 10;
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			overflow = true;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	if (overflow)
		mdl_error(lx->ctx, tok->loc, "integer '%.*s' does not fit 64 bits", tok->textlen, tok->text);
	tok->ival = overflow ? 0 : v;
	return TK_INT;
}

int mdl_lex(struct mdl_lexer *lx, struct mdl_tok *tok)
{
	struct mdl_pctx *c = lx->ctx;
	const unsigned char *YYMARKER = NULL, *YYLIMIT = (const unsigned char *)lx->lim;
	for (;;) {
		const char *p = lx->cur;
		const unsigned char *YYCURSOR = (const unsigned char *)p;
		memset(tok, 0, sizeof *tok);
		tok->loc = loc_at(lx, p);
		tok->text = p;
/*!re2c
	re2c:define:YYCTYPE = "unsigned char";
	re2c:yyfill:enable = 0;
	re2c:eof = 0;

	dec   = [0-9][0-9_]*;
	hex   = "0" [xX] [0-9a-fA-F_]* [0-9a-fA-F] [0-9a-fA-F_]*;
	bin   = "0" [bB] [01_]* [01] [01_]*;
	ident = [A-Za-z_][A-Za-z0-9_]*;
	exp   = [eE] [+-]? [0-9]+;

	$ { lx->cur = (const char *)YYCURSOR; tok->textlen = 0; return 0; }
	[ \t\r\f\v]+ { lx->cur = (const char *)YYCURSOR; continue; }
	"\n" { lx->cur = (const char *)YYCURSOR; newline(lx, lx->cur); continue; }
	"//" [^\n\x00]* { lx->cur = (const char *)YYCURSOR; continue; }
	"/*" {
		const char *q = (const char *)YYCURSOR;
		while (q + 1 < lx->lim && !(q[0] == '*' && q[1] == '/')) {
			if (*q == '\n')
				newline(lx, q + 1);
			q++;
		}
		if (q + 1 >= lx->lim) {
			mdl_error(c, tok->loc, "unterminated comment");
			c->eof_reported = true;
			lx->cur = lx->lim;
			continue;
		}
		lx->cur = q + 2;
		continue;
	}
	"\"" {
		int code = lex_string(lx, p, tok);
		tok->textlen = (int)(lx->cur - p);
		return code;
	}
	hex {
		lx->cur = (const char *)YYCURSOR;
		tok->textlen = (int)(lx->cur - p);
		return lex_number(lx, p + 2, lx->cur, 16, tok);
	}
	bin {
		lx->cur = (const char *)YYCURSOR;
		tok->textlen = (int)(lx->cur - p);
		return lex_number(lx, p + 2, lx->cur, 2, tok);
	}
	dec {
		lx->cur = (const char *)YYCURSOR;
		tok->textlen = (int)(lx->cur - p);
		return lex_number(lx, p, lx->cur, 10, tok);
	}
	[0-9]+ "." [0-9]+ exp? | [0-9]+ exp {
		lx->cur = (const char *)YYCURSOR;
		tok->textlen = (int)((const char *)YYCURSOR - p);
		char buf[64];
		int n = tok->textlen < 63 ? tok->textlen : 63;
		memcpy(buf, p, (size_t)n);
		buf[n] = 0;
		tok->fval = strtod(buf, NULL);
		return TK_FLOAT;
	}
	[0-9][0-9A-Za-z_]* {
		lx->cur = (const char *)YYCURSOR;
		tok->textlen = (int)((const char *)YYCURSOR - p);
		mdl_error(c, tok->loc, "invalid number '%.*s'", tok->textlen, p);
		return TK_INT;
	}
	ident {
		lx->cur = (const char *)YYCURSOR;
		tok->textlen = (int)((const char *)YYCURSOR - p);
		for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
			if ((int)strlen(keywords[i].s) == tok->textlen && !memcmp(keywords[i].s, p, (size_t)tok->textlen)) {
				tok->s = tsr_intern(c->intern, p, (size_t)tok->textlen);
				return keywords[i].code;
			}
		tok->s = tsr_intern(c->intern, p, (size_t)tok->textlen);
		return TK_IDENT;
	}
	".." { lx->cur = (const char *)YYCURSOR; tok->textlen = 2; return TK_DOTDOT; }
	"=>" { lx->cur = (const char *)YYCURSOR; tok->textlen = 2; return TK_ARROW; }
	"->" { lx->cur = (const char *)YYCURSOR; tok->textlen = 2; return TK_RARROW; }
	"==" { lx->cur = (const char *)YYCURSOR; tok->textlen = 2; return TK_EQ; }
	"!=" { lx->cur = (const char *)YYCURSOR; tok->textlen = 2; return TK_NE; }
	"<=" { lx->cur = (const char *)YYCURSOR; tok->textlen = 2; return TK_LE; }
	">=" { lx->cur = (const char *)YYCURSOR; tok->textlen = 2; return TK_GE; }
	"<<" { lx->cur = (const char *)YYCURSOR; tok->textlen = 2; return TK_SHL; }
	">>" { lx->cur = (const char *)YYCURSOR; tok->textlen = 2; return TK_SHR; }
	"&&" { lx->cur = (const char *)YYCURSOR; tok->textlen = 2; return TK_LAND; }
	"||" { lx->cur = (const char *)YYCURSOR; tok->textlen = 2; return TK_LOR; }
	"~" { lx->cur = (const char *)YYCURSOR; tok->textlen = 1; return TK_TILDE; }
	"!" { lx->cur = (const char *)YYCURSOR; tok->textlen = 1; return TK_BANG; }
	"?" { lx->cur = (const char *)YYCURSOR; tok->textlen = 1; return TK_QUESTION; }
	":" { lx->cur = (const char *)YYCURSOR; tok->textlen = 1; return TK_COLON; }
	";" { lx->cur = (const char *)YYCURSOR; tok->textlen = 1; return TK_SEMI; }
	"," { lx->cur = (const char *)YYCURSOR; tok->textlen = 1; return TK_COMMA; }
	"{" { lx->cur = (const char *)YYCURSOR; tok->textlen = 1; return TK_LBRACE; }
	"}" { lx->cur = (const char *)YYCURSOR; tok->textlen = 1; return TK_RBRACE; }
	"[" { lx->cur = (const char *)YYCURSOR; tok->textlen = 1; return TK_LBRACKET; }
	"]" { lx->cur = (const char *)YYCURSOR; tok->textlen = 1; return TK_RBRACKET; }
	"(" { lx->cur = (const char *)YYCURSOR; tok->textlen = 1; return TK_LPAREN; }
	")" { lx->cur = (const char *)YYCURSOR; tok->textlen = 1; return TK_RPAREN; }
	"|" { lx->cur = (const char *)YYCURSOR; tok->textlen = 1; return TK_PIPE; }
	"=" { lx->cur = (const char *)YYCURSOR; tok->textlen = 1; return TK_ASSIGN; }
	"+" { lx->cur = (const char *)YYCURSOR; tok->textlen = 1; return TK_PLUS; }
	"-" { lx->cur = (const char *)YYCURSOR; tok->textlen = 1; return TK_MINUS; }
	"*" { lx->cur = (const char *)YYCURSOR; tok->textlen = 1; return TK_STAR; }
	"/" { lx->cur = (const char *)YYCURSOR; tok->textlen = 1; return TK_SLASH; }
	"%" { lx->cur = (const char *)YYCURSOR; tok->textlen = 1; return TK_PERCENT; }
	"&" { lx->cur = (const char *)YYCURSOR; tok->textlen = 1; return TK_AMP; }
	"^" { lx->cur = (const char *)YYCURSOR; tok->textlen = 1; return TK_CARET; }
	"<" { lx->cur = (const char *)YYCURSOR; tok->textlen = 1; return TK_LT; }
	">" { lx->cur = (const char *)YYCURSOR; tok->textlen = 1; return TK_GT; }
	"@" { lx->cur = (const char *)YYCURSOR; tok->textlen = 1; return TK_ATSIGN; }
	* {
		lx->cur = (const char *)YYCURSOR;
		unsigned char ch = (unsigned char)*p;
		if (ch >= 0x21 && ch < 0x7f)
			mdl_error(c, tok->loc, "unexpected character '%c'", ch);
		else
			mdl_error(c, tok->loc, "unexpected character '\\x%02x'", ch);
		continue;
	}
*/
	}
}
