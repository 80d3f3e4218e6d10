/* The syntax driver: runs the lexer into the lemon parser and recovers from syntax errors
 * (docs/mdl.md "What mdlc checks": every declaration with a syntax error is reported).
 */
#ifndef MDL_SYNTAX_H
#define MDL_SYNTAX_H

#include "ast.h"

/* Parses buf[0..len) (buf[len] must be NUL) into c->decls. Returns 0, or -1 after reporting syntax or lexical
 * errors (the tree is then incomplete and must not be checked). */
int mdl_parse(struct mdl_pctx *c, const char *buf, size_t len);

/* Parses the condition list of a template hole, `text` (NUL-terminated, len bytes), which sits on source line
 * `line` with byte i at column cols[i]. Returns the list of ast_expr*, or NULL after reporting an error. */
struct ast_vec *mdl_parse_conds(struct mdl_pctx *c, const char *text, size_t len, int line, const int *cols);

/* lemon's entry points (parse.c) */
void *mdlParseAlloc(void *(*alloc)(size_t));
void mdlParse(void *parser, int major, struct mdl_tok minor, struct mdl_pctx *ctx);
void mdlParseFree(void *parser, void (*dealloc)(void *));
/* Clears lemon's error-recovery countdown so that the next syntax error is reported at once. */
void mdl_parser_clear_error(void *parser);

#endif
