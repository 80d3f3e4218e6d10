/* The .mdl lexer (lexer.re, compiled by re2c): bytes to tokens (docs/mdl.md "Lexical structure").
 *
 * Token codes are lemon's (TK_* in build/mdl/parse.h). Positions: 1-based line and column, columns count bytes.
 * Lexical errors (bad character, bad number, unterminated string or comment, unknown escape) are reported
 * through mdl_error and the lexer goes on with the next character, so one pass finds them all.
 */
#ifndef MDL_LEXER_H
#define MDL_LEXER_H

#include "ast.h"

struct mdl_lexer {
	struct mdl_pctx *ctx;
	const char *start, *cur, *lim;   /* the buffer: start[lim - start] must be a NUL byte */
	const char *line_start;
	int line;
	const int *colmap;               /* if set: column of each byte (a string being re-lexed); line stays fixed */
};

/* Prepares to lex buf[0..len) (buf[len] must be NUL) from line 1, column 1. */
void mdl_lex_init(struct mdl_lexer *lx, struct mdl_pctx *ctx, const char *buf, size_t len);
/* Returns the next token's code (0 at end of input) and fills *tok. */
int mdl_lex(struct mdl_lexer *lx, struct mdl_tok *tok);
/* The printable name of a token code for "expected ..." messages ("';'", "a name", "'field'"). */
const char *mdl_token_desc(int code);
/* True if code is a keyword that starts a top-level declaration (error recovery resynchronises there). */
bool mdl_token_is_decl_start(int code);

#endif
