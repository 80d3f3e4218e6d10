/* The syntax driver (syntax.h): lexer into parser, with recovery at declaration boundaries.
 *
 * Recovery: the grammar has one error rule, `decl ::= error SEMI`. When the parser reports an error, this
 * driver stops feeding it and skips tokens, counting braces, up to the end of the broken declaration: a `;` at
 * brace depth 0, or the `}` that closes depth 1 (fed as `;`), or a keyword that starts a new declaration at
 * depth 0 (a `;` is fed before it, so a missing `;` costs nothing). Then lemon's error countdown is cleared,
 * so the next error, however close, is reported too.
 */
#include <stdlib.h>
#include <string.h>
#include "syntax.h"
#include "lexer.h"
#include "parse.h"

static void feed(void *p, struct mdl_pctx *c, int code, struct mdl_tok tok)
{
	c->syntax_error = false;
	c->tok_loc = tok.loc;
	mdlParse(p, code, tok, c);
}

static void feed_semi(void *p, struct mdl_pctx *c, struct mdl_tok at)
{
	at.text = ";";
	at.textlen = 1;
	feed(p, c, TK_SEMI, at);
	mdl_parser_clear_error(p);
}

int mdl_parse(struct mdl_pctx *c, const char *buf, size_t len)
{
	struct mdl_lexer lx;
	struct mdl_tok tok;
	int errors0 = c->errors;
	int depth = 0;
	bool skipping = false;
	void *p = mdlParseAlloc(malloc);

	mdl_lex_init(&lx, c, buf, len);
	c->accepted = false;
	for (;;) {
		int code = mdl_lex(&lx, &tok);
		int before = depth;
		if (code == TK_LBRACE)
			depth++;
		else if (code == TK_RBRACE && depth > 0)
			depth--;
		if (skipping) {
			if (code == 0) {
				feed(p, c, 0, tok);
				break;
			}
			if (before == 0 && mdl_token_is_decl_start(code)) {
				feed_semi(p, c, tok);
				skipping = false;
			} else {
				if ((code == TK_SEMI && before == 0) || (code == TK_RBRACE && before <= 1)) {
					feed_semi(p, c, tok);
					skipping = false;
				}
				continue;
			}
		}
		feed(p, c, code, tok);
		if (c->overflow || code == 0)
			break;
		if (!c->syntax_error)
			continue;
		if (code == TK_SEMI && before == 0) {
			mdl_parser_clear_error(p);        /* the parser took it as the end of `error ;` */
		} else if (code == TK_RBRACE && before <= 1) {
			feed_semi(p, c, tok);
		} else if (before == 0 && mdl_token_is_decl_start(code)) {
			feed_semi(p, c, tok);
			feed(p, c, code, tok);
			if (c->syntax_error)
				skipping = true;
		} else {
			skipping = true;
		}
	}
	mdlParseFree(p, free);
	return c->errors > errors0 || !c->accepted ? -1 : 0;
}

struct ast_vec *mdl_parse_conds(struct mdl_pctx *c, const char *text, size_t len, int line, const int *cols)
{
	struct mdl_lexer lx;
	struct mdl_tok tok;
	int errors0 = c->errors;
	void *p = mdlParseAlloc(malloc);

	mdl_lex_init(&lx, c, text, len);
	lx.line = line;
	lx.colmap = cols;
	c->conds_mode = true;
	c->conds_out = NULL;
	c->accepted = false;
	memset(&tok, 0, sizeof tok);
	tok.loc = (struct mdl_loc){ c->file, line, cols[0] };
	feed(p, c, TK_TCONDS, tok);
	for (;;) {
		int code = mdl_lex(&lx, &tok);
		feed(p, c, code, tok);
		if (c->syntax_error || c->overflow || code == 0)
			break;
	}
	mdlParseFree(p, free);
	c->conds_mode = false;
	if (c->errors > errors0 || !c->accepted)
		return NULL;
	return c->conds_out;
}
