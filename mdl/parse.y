/* The .mdl grammar (lemon; docs/mdl.md "Grammar" is its EBNF). Actions only build the tree (ast.c);
 * errors go to the context (%extra_argument); after a syntax error the driver (syntax.c) resynchronises at
 * the next declaration, so every declaration with an error is reported once.
 * Build: lemon -q -T/usr/share/lemon/lempar.c -dbuild/mdl mdl/parse.y
 */
%name mdlParse
%token_prefix TK_
%token_type {struct mdl_tok}
%extra_argument {struct mdl_pctx *ctx}
%stack_size 400
%start_symbol input

%include {
#include <assert.h>
#include <stdio.h>
#include <string.h>
#include "ast.h"
#include "lexer.h"
#include "syntax.h"
struct yyParser;
static void report_syntax_error(struct mdl_pctx *ctx, struct yyParser *p, int major, const struct mdl_tok *tok);
}

%syntax_error { report_syntax_error(ctx, yypParser, yymajor, &yyminor); }
%stack_overflow {
	ctx->overflow = true;
	mdl_error(ctx, ctx->tok_loc, "declarations or expressions nested too deeply");
}
%parse_accept { ctx->accepted = true; }
/* Tokens own no memory (the arena does); this only marks ctx and the value as used for -Wextra. */
%token_destructor { (void)ctx; (void)$$; }

/* Keywords: reserved only where the grammar expects them (elsewhere they are names). */
%token ISA FIELD TABLE FORMAT SLOT OPERAND OP STATE REGFILE GUARD SPACE FUNC HOOK SIGNED FIELDS IGNORE SLOTS
       DEFAULT SEM COMMIT SYNTAX ENCODE WHEN READ WRITE NONE LATENCY LET IF ELSE RETURNS.
%token IDENT INT FLOAT STRING DOTDOT ARROW SEMI COMMA LBRACE RBRACE LBRACKET RBRACKET LPAREN RPAREN ASSIGN TCONDS.
/* (addition) resources, events and rules (docs/mdl.md "Resources and hazards") */
%token RESOURCE USES COUNT EVENT FORBID REF MIN MAX SAME AT IN USE JUMP HALT START CONDITIONAL ORDER RARROW.
/* (addition) a field's print format (docs/mdl.md "Fields") */
%token PRINT.
/* (addition) X11 masked writes and the abort statement (docs/mdl.md "Semantics") */
%token MASK ABORT.
/* (addition) X7 slot scopes: `slot NAME with(ALIAS = FIELD, ...)` */
%token WITH.
/* (addition) state, regfile and space attributes: `output`, `print KIND` (docs/mdl.md "Machine state") */
%token OUTPUT.
/* (addition) the assembly source syntax: `asm { bundle_end ";"; section ".asm" code; ... }` (docs/asm.md) */
%token ASM.
/* (addition) X6 forwards: `forward F[n] : T age LO..HI;`, reads `F@A`, writes `F = e ages L..H;` */
%token FORWARD AGE AGES ATSIGN.
%fallback IDENT ISA FIELD TABLE FORMAT SLOT OPERAND OP STATE REGFILE GUARD SPACE FUNC HOOK SIGNED FIELDS IGNORE
       SLOTS DEFAULT SYNTAX ENCODE WHEN READ WRITE NONE LATENCY LET IF ELSE RETURNS
       RESOURCE USES COUNT EVENT FORBID REF MIN MAX SAME AT IN USE JUMP HALT START CONDITIONAL ORDER PRINT
       MASK ABORT WITH OUTPUT ASM FORWARD AGE AGES.

/* C's precedence, lowest first. */
%right QUESTION COLON.
%left LOR.
%left LAND.
%left PIPE.
%left CARET.
%left AMP.
%left EQ NE.
%left LT LE GT GE.
%left SHL SHR.
%left PLUS MINUS.
%left STAR SLASH PERCENT.
%right BANG TILDE.
%nonassoc IFX.
%nonassoc ELSE.

/* The whole file, or (first token TCONDS, never produced by the lexer) a condition list of a template hole. */
input ::= decls.
input ::= TCONDS conds(L). { ctx->conds_out = L; }

decls ::= .
decls ::= decls decl.

decl ::= SEMI.
decl ::= error SEMI.

%type name {struct ast_name}
name(A) ::= IDENT(T). { A = ast_name(T); }

/* isa NAME { word 64; endian little; ... } */
decl ::= isa_head LBRACE isa_items RBRACE.
isa_head ::= ISA(K) name(N). { ast_decl(ctx, AD_ISA, K, N); }
isa_items ::= .
isa_items ::= isa_items isa_item.
isa_item ::= name(K) INT(V) SEMI. { ast_isa_item(ctx, K, &V, NULL); }
isa_item ::= name(K) name(V) SEMI. { ast_isa_item(ctx, K, NULL, &V); }

/* field NAME [63:60, ~8, 3] signed print hex; */
decl ::= FIELD(K) name(N) LBRACKET pieces(P) RBRACKET signed(S) fprint(F) SEMI. { ast_field(ctx, K, N, P, S, &F); }
/* (addition) X4: field NAME = { [~]FIELD[hi:lo], ... } [signed] [print KIND]; */
decl ::= FIELD(K) name(N) ASSIGN LBRACE cpieces(P) RBRACE signed(S) fprint(F) SEMI.
	{ ast_field(ctx, K, N, ast_vec1(ctx, NULL), S, &F); ast_field_composite(ctx, P); }
%type cpieces {struct ast_vec *}
cpieces(A) ::= cpiece(P). { A = ast_vec1(ctx, P); }
cpieces(A) ::= cpieces(B) COMMA cpiece(P). { A = ast_vadd(ctx, B, P); }
%type cpiece {struct ast_cpiece *}
cpiece(A) ::= cslice(P). { A = P; }
cpiece(A) ::= TILDE cslice(P). { A = P; A->inverted = true; }
%type cslice {struct ast_cpiece *}
cslice(A) ::= name(G). { A = ast_cpiece(ctx, G, NULL, NULL, false, G.loc); }
cslice(A) ::= name(G) LBRACKET INT(H) RBRACKET. { A = ast_cpiece(ctx, G, &H, NULL, false, G.loc); }
cslice(A) ::= name(G) LBRACKET INT(H) COLON INT(L) RBRACKET. { A = ast_cpiece(ctx, G, &H, &L, false, G.loc); }
/* `print KIND`: the kind is an identifier (or `signed`), checked in ast_field */
%type fprint {struct ast_fprint}
fprint(A) ::= . { A = (struct ast_fprint){0}; }
fprint(A) ::= PRINT name(K). { A = (struct ast_fprint){ true, K }; }
fprint(A) ::= PRINT SIGNED(K). { A = (struct ast_fprint){ true, { "signed", K.loc } }; }
%type signed {bool}
signed(A) ::= . { A = false; }
signed(A) ::= SIGNED. { A = true; }
%type pieces {struct ast_vec *}
pieces(A) ::= piece(P). { A = ast_vec1(ctx, P); }
pieces(A) ::= pieces(B) COMMA piece(P). { A = ast_vadd(ctx, B, P); }
%type piece {struct ast_piece *}
piece(A) ::= INT(H). { A = ast_piece(ctx, H, NULL, false, H.loc); }
piece(A) ::= INT(H) COLON INT(L). { A = ast_piece(ctx, H, &L, false, H.loc); }
piece(A) ::= TILDE(T) INT(H). { A = ast_piece(ctx, H, NULL, true, T.loc); }
piece(A) ::= TILDE(T) INT(H) COLON INT(L). { A = ast_piece(ctx, H, &L, true, T.loc); }

/* table NAME { a | b = 1; r{0..3} = 32; 5 = x; 0..15, 20 => code; } */
decl ::= table_head LBRACE tentries RBRACE.
table_head ::= TABLE(K) name(N). { ast_decl(ctx, AD_TABLE, K, N); }
tentries ::= .
tentries ::= tentries tentry.
tentry ::= tnames(L) ASSIGN expr(E) SEMI. { ast_tentry_names(ctx, L, E); }
tentry ::= INT(C) ASSIGN tnames(L) SEMI. { ast_tentry_names(ctx, L, ast_int(ctx, C)); }
tentry ::= codes(L) ARROW expr(E) SEMI. { ast_tentry_num(ctx, L, E); }
%type tnames {struct ast_vec *}
tnames(A) ::= tname(N). { A = ast_vec1(ctx, N); }
tnames(A) ::= tnames(B) PIPE tname(N). { A = ast_vadd(ctx, B, N); }
%type tname {struct ast_tname *}
tname(A) ::= IDENT(S). { A = ast_tname(ctx, S, NULL, NULL); }
tname(A) ::= STRING(S). { A = ast_tname(ctx, S, NULL, NULL); }
tname(A) ::= IDENT(S) LBRACE INT(L) DOTDOT INT(H) RBRACE. { A = ast_tname(ctx, S, &L, &H); }
tname(A) ::= STRING(S) LBRACE INT(L) DOTDOT INT(H) RBRACE. { A = ast_tname(ctx, S, &L, &H); }
/* (addition, X11) generated tables: table NAME swizzle(x = 7:6, ...); table NAME mask(x = 3, ..., blank "*"); */
decl ::= table_head name(G) LPAREN gitems(L) RPAREN SEMI. { ast_table_gen(ctx, G, L); }
%type gitems {struct ast_vec *}
gitems(A) ::= gitem(I). { A = ast_vec1(ctx, I); }
gitems(A) ::= gitems(B) COMMA gitem(I). { A = ast_vadd(ctx, B, I); }
%type gitem {struct ast_gitem *}
gitem(A) ::= name(C) ASSIGN INT(H). { A = ast_gitem(ctx, C, &H, NULL, NULL); }
gitem(A) ::= name(C) ASSIGN INT(H) COLON INT(L). { A = ast_gitem(ctx, C, &H, &L, NULL); }
gitem(A) ::= name(K) STRING(S). { A = ast_gitem(ctx, K, NULL, NULL, &S); }
%type codes {struct ast_vec *}
codes(A) ::= range(R). { A = ast_vec1(ctx, R); }
codes(A) ::= codes(B) COMMA range(R). { A = ast_vadd(ctx, B, R); }
%type range {struct ast_range *}
range(A) ::= INT(L). { A = ast_range(ctx, L, NULL); }
range(A) ::= INT(L) DOTDOT INT(H). { A = ast_range(ctx, L, &H); }

/* format NAME (selector) { fields ...; ignore [..]; slots ...; default F = V; sem ...; commit ... } */
decl ::= format_head LBRACE fitems RBRACE.
format_head ::= FORMAT(K) name(N) selector(E). { ast_format(ctx, K, N, E); }
%type selector {struct ast_expr *}
selector(A) ::= . { A = NULL; }
selector(A) ::= LPAREN expr(E) RPAREN. { A = E; }
fitems ::= .
fitems ::= fitems fitem.
fitem ::= FIELDS names(L) SEMI. { ast_format_item(ctx, 'f', L); }
fitem ::= IGNORE LBRACKET pieces(L) RBRACKET SEMI. { ast_format_item(ctx, 'i', L); }
fitem ::= SLOTS names(L) SEMI. { ast_format_item(ctx, 's', L); }
fitem ::= DEFAULT name(F) ASSIGN expr(E) SEMI. { ast_default(ctx, F, E); }
fitem ::= SEM(K) stmts(L). { ast_sem(ctx, false, L, K); }
fitem ::= COMMIT(K) stmts(L). { ast_sem(ctx, true, L, K); }
fitem ::= USES uselist(L) SEMI. { ast_uses_item(ctx, L); }
%type names {struct ast_vec *}
names(A) ::= name(N). { A = ast_vec1(ctx, ast_pname(ctx, N)); }
names(A) ::= names(B) name(N). { A = ast_vadd(ctx, B, ast_pname(ctx, N)); }

/* slot NAME default OP [commit { ... }] */
decl ::= SLOT(K) name(N) DEFAULT name(D) SEMI. { ast_slot(ctx, K, N, D, NULL); }
decl ::= SLOT(K) name(N) DEFAULT name(D) COMMIT block(B). { ast_slot(ctx, K, N, D, B); }
/* (addition) X7: slot NAME with(ALIAS = FIELD, ...) default OP [commit { ... }] */
decl ::= SLOT(K) name(N) WITH LPAREN aliases(A) RPAREN DEFAULT name(D) SEMI.
	{ ast_slot(ctx, K, N, D, NULL); ast_slot_aliases(ctx, A); }
decl ::= SLOT(K) name(N) WITH LPAREN aliases(A) RPAREN DEFAULT name(D) COMMIT block(B).
	{ ast_slot(ctx, K, N, D, B); ast_slot_aliases(ctx, A); }
%type aliases {struct ast_vec *}
aliases(A) ::= name(X) ASSIGN name(F). { A = ast_vec1(ctx, ast_alias(ctx, X, F)); }
aliases(A) ::= aliases(B) COMMA name(X) ASSIGN name(F). { A = ast_vadd(ctx, B, ast_alias(ctx, X, F)); }
aliases(A) ::= name(X) ASSIGN INT(V). { A = ast_vec1(ctx, ast_alias_const(ctx, X, V)); }
aliases(A) ::= aliases(B) COMMA name(X) ASSIGN INT(V). { A = ast_vadd(ctx, B, ast_alias_const(ctx, X, V)); }

/* operand NAME[(params)] { "template" when c, ... read e write place; ... } */
decl ::= operand_head LBRACE alts RBRACE.
operand_head ::= OPERAND(K) name(N) oparams(P). { ast_operand(ctx, K, N, P); }
%type oparams {struct ast_vec *}
oparams(A) ::= . { A = ast_vec1(ctx, NULL); }
oparams(A) ::= LPAREN plist(L) RPAREN. { A = L; }
%type plist {struct ast_vec *}
plist(A) ::= . { A = ast_vec1(ctx, NULL); }
plist(A) ::= namelist(L). { A = L; }
%type namelist {struct ast_vec *}
namelist(A) ::= name(N). { A = ast_vec1(ctx, ast_pname(ctx, N)); }
namelist(A) ::= namelist(B) COMMA name(N). { A = ast_vadd(ctx, B, ast_pname(ctx, N)); }
alts ::= .
alts ::= alts alt.
alt ::= STRING(S) when(W) uses(U) SEMI. { ast_alt(ctx, S, W, NULL, NULL); ast_alt_uses(ctx, U); }
alt ::= STRING(S) when(W) READ expr(R) uses(U) SEMI. { ast_alt(ctx, S, W, R, NULL); ast_alt_uses(ctx, U); }
alt ::= STRING(S) when(W) WRITE place(P) uses(U) SEMI. { ast_alt(ctx, S, W, NULL, P); ast_alt_uses(ctx, U); }
alt ::= STRING(S) when(W) READ expr(R) WRITE place(P) uses(U) SEMI.
	{ ast_alt(ctx, S, W, R, P); ast_alt_uses(ctx, U); }
/* (addition) X11: `write PLACE mask e` writes only the components whose bit of e is set */
alt ::= STRING(S) when(W) WRITE place(P) MASK expr(M) uses(U) SEMI.
	{ ast_alt(ctx, S, W, NULL, P); ast_alt_mask(ctx, M); ast_alt_uses(ctx, U); }
alt ::= STRING(S) when(W) READ expr(R) WRITE place(P) MASK expr(M) uses(U) SEMI.
	{ ast_alt(ctx, S, W, R, P); ast_alt_mask(ctx, M); ast_alt_uses(ctx, U); }
%type when {struct ast_vec *}
when(A) ::= . { A = ast_vec1(ctx, NULL); }
when(A) ::= WHEN conds(L). { A = L; }
%type conds {struct ast_vec *}
conds(A) ::= expr(E). { A = ast_vec1(ctx, E); }
conds(A) ::= conds(B) COMMA expr(E). { A = ast_vadd(ctx, B, E); }
%type place {struct ast_expr *}
place(A) ::= name(N). { A = ast_ename(ctx, N); }
place(A) ::= name(N) LBRACKET expr(I) RBRACKET. { A = ast_index(ctx, N, I); }

/* op NAME : SLOT ATTR... { syntax "..."; encode c, ...; default F = V; sem s... } */
decl ::= op_head LBRACE oitems RBRACE.
op_head ::= OP(K) name(N) COLON name(S) attrs(L). { ast_op(ctx, K, N, S, L); }
/* (addition) X7: op NAME : S1 | S2 ... ATTR... (one instance per slot) */
op_head ::= OP(K) name(N) COLON name(S) PIPE oslots(O) attrs(L).
	{ ast_op(ctx, K, N, S, L); ast_op_slots(ctx, S, O); }
/* (addition) X7 wide op: op NAME : S1 + S2 ... ATTR... (one op that takes every listed slot; home S1) */
op_head ::= OP(K) name(N) COLON name(S) PLUS wslots(O) attrs(L).
	{ ast_op(ctx, K, N, S, L); ast_op_slots(ctx, S, O); ast_op_wide(ctx); }
%type wslots {struct ast_vec *}
wslots(A) ::= name(N). { A = ast_vec1(ctx, ast_pname(ctx, N)); }
wslots(A) ::= wslots(B) PLUS name(N). { A = ast_vadd(ctx, B, ast_pname(ctx, N)); }
%type oslots {struct ast_vec *}
oslots(A) ::= name(N). { A = ast_vec1(ctx, ast_pname(ctx, N)); }
oslots(A) ::= oslots(B) PIPE name(N). { A = ast_vadd(ctx, B, ast_pname(ctx, N)); }
%type attrs {struct ast_vec *}
attrs(A) ::= . { A = ast_vec1(ctx, NULL); }
attrs(A) ::= attrs(B) name(N). { A = ast_vadd(ctx, B, ast_pname(ctx, N)); }
oitems ::= .
oitems ::= oitems oitem.
oitem ::= SYNTAX STRING(S) SEMI. { ast_op_syntax(ctx, S); }
oitem ::= ENCODE conds(L) SEMI. { ast_op_encode(ctx, L); }
oitem ::= DEFAULT name(F) ASSIGN expr(E) SEMI. { ast_default(ctx, F, E); }
oitem ::= SEM(K) stmts(L). { ast_sem(ctx, false, L, K); }
oitem ::= USES uselist(L) SEMI. { ast_uses_item(ctx, L); }

/* machine state */
decl ::= STATE(K) name(N) COLON name(T) SEMI. { ast_state(ctx, K, N, T); }
decl ::= REGFILE(K) name(N) LBRACKET INT(C) RBRACKET COLON name(T) latency(L) SEMI. { ast_regfile(ctx, K, N, C, T, L); }
%type latency {struct ast_expr *}
latency(A) ::= . { A = NULL; }
latency(A) ::= LATENCY INT(V). { A = ast_int(ctx, V); }
decl ::= GUARD(K) name(N) LBRACKET expr(E) RBRACKET COLON name(H) SEMI. { ast_guard(ctx, K, N, E, H); }
/* (addition) `state S : T output print float;`, `regfile R[N] : T [latency L] output;`: what `tessera sim` prints
 * after a run and how (ast_state_attrs) */
decl ::= STATE(K) name(N) COLON name(T) sattrs(A) SEMI. { ast_state(ctx, K, N, T); ast_state_attrs(ctx, &A); }
decl ::= REGFILE(K) name(N) LBRACKET INT(C) RBRACKET COLON name(T) latency(L) sattrs(A) SEMI.
	{ ast_regfile(ctx, K, N, C, T, L); ast_state_attrs(ctx, &A); }
%type sattrs {struct ast_sattrs}
sattrs(A) ::= sattr(B). { A = B; }
sattrs(A) ::= sattrs(B) sattr(C). { A = ast_sattrs_join(ctx, B, C); }
%type sattr {struct ast_sattrs}
sattr(A) ::= OUTPUT(K). { A = (struct ast_sattrs){ .output = true, .output_loc = K.loc }; }
sattr(A) ::= PRINT name(K). { A = (struct ast_sattrs){ .print = true, .kind = K }; }

/* (addition) X6: forward NAME[N], NAME ... : TYPE age LO..HI; (one declaration per name) */
decl ::= FORWARD(K) fwdnames(L) COLON name(T) AGE INT(LO) DOTDOT INT(HI) SEMI. { ast_forward(ctx, K, L, T, LO, HI); }
%type fwdnames {struct ast_vec *}
fwdnames(A) ::= fwdname(N). { A = ast_vec1(ctx, N); }
fwdnames(A) ::= fwdnames(B) COMMA fwdname(N). { A = ast_vadd(ctx, B, N); }
%type fwdname {struct ast_fwdname *}
fwdname(A) ::= name(N). { A = ast_fwdname(ctx, N, NULL); }
fwdname(A) ::= name(N) LBRACKET INT(C) RBRACKET. { A = ast_fwdname(ctx, N, &C); }

/* (addition) asm { KEY ARG...; ... }: the assembly source's syntax (check_asm.c interprets the items) */
decl ::= asm_head LBRACE asm_items RBRACE.
asm_head ::= ASM(K). { ast_asm(ctx, K); }
asm_items ::= .
asm_items ::= asm_items asm_item.
asm_item ::= name(K) asm_args(L) SEMI. { ast_asm_item(ctx, K, L); }
%type asm_args {struct ast_vec *}
asm_args(A) ::= asm_arg(X). { A = ast_vec1(ctx, X); }
asm_args(A) ::= asm_args(L) asm_arg(X). { A = ast_vadd(ctx, L, X); }
%type asm_arg {struct ast_asmarg *}
asm_arg(A) ::= name(N). { A = ast_asmarg(ctx, &N, NULL); }
asm_arg(A) ::= STRING(S). { A = ast_asmarg(ctx, NULL, &S); }

/* space NAME[N] { CODES read|write target; ... } */
decl ::= space_head LBRACE sentries RBRACE.
space_head ::= SPACE(K) name(N) LBRACKET INT(C) RBRACKET. { ast_space(ctx, K, N, C); }
space_head ::= SPACE(K) name(N) LBRACKET INT(C) RBRACKET sattrs(A). { ast_space(ctx, K, N, C); ast_state_attrs(ctx, &A); }
sentries ::= .
sentries ::= sentries sentry.
sentry ::= codes(L) READ place(P) uses(U) SEMI.
	{ ast_sentry(ctx, L, false, ASE_STATE, P, NULL, NULL, NULL); ast_sentry_uses(ctx, U); }
sentry ::= codes(L) READ HOOK name(H) LPAREN args(A) RPAREN uses(U) SEMI.
	{ ast_sentry(ctx, L, false, ASE_HOOK, NULL, NULL, &H, A); ast_sentry_uses(ctx, U); }
sentry ::= codes(L) READ NONE uses(U) SEMI.
	{ ast_sentry(ctx, L, false, ASE_NONE, NULL, NULL, NULL, NULL); ast_sentry_uses(ctx, U); }
sentry ::= codes(L) WRITE place(P) uses(U) SEMI.
	{ ast_sentry(ctx, L, true, ASE_STATE, P, NULL, NULL, NULL); ast_sentry_uses(ctx, U); }
sentry ::= codes(L) WRITE place(P) ASSIGN expr(E) uses(U) SEMI.
	{ ast_sentry(ctx, L, true, ASE_STATE, P, E, NULL, NULL); ast_sentry_uses(ctx, U); }
sentry ::= codes(L) WRITE HOOK name(H) LPAREN args(A) RPAREN uses(U) SEMI.
	{ ast_sentry(ctx, L, true, ASE_HOOK, NULL, NULL, &H, A); ast_sentry_uses(ctx, U); }
sentry ::= codes(L) WRITE NONE uses(U) SEMI.
	{ ast_sentry(ctx, L, true, ASE_NONE, NULL, NULL, NULL, NULL); ast_sentry_uses(ctx, U); }

/* func NAME(params) = expr;   hook NAME(params) [returns]; */
decl ::= FUNC(K) name(N) LPAREN plist(P) RPAREN ASSIGN expr(E) SEMI. { ast_func(ctx, K, N, P, E); }
decl ::= HOOK(K) name(N) LPAREN plist(P) RPAREN returns(R) SEMI. { ast_hookdecl(ctx, K, N, P, R); }
%type returns {bool}
returns(A) ::= . { A = false; }
returns(A) ::= RETURNS. { A = true; }

/* ---- (addition) resources, events and rules (docs/mdl.md "Resources and hazards") ----
 * resource NAME [count N] [ref "..."];          uses R [= e], ... (space entries, alternatives, ops, formats)
 * event NAME = PATTERN;
 * latency NAME: PATTERN -> PATTERN [same] min N [max N] [ref "..."];
 * forbid NAME: PATTERN -> PATTERN at LO..[HI] [ref "..."];
 * forbid NAME: PATTERN [& PATTERN ...] [ref "..."];
 * order NAME: PATTERN [ref "..."];                (accesses that keep their program order: FIFOs, peripherals)
 * PATTERN = TERM { | TERM };  TERM = PRIM { in SLOT, ... | if (e) | conditional };
 * PRIM = read X[codes] | write X[codes] | use R | op NAME | jump | halt | start | EVENT | ( PATTERN ). */
%type uses {struct ast_vec *}
uses(A) ::= . { A = NULL; }
uses(A) ::= USES uselist(L). { A = L; }
%type uselist {struct ast_vec *}
uselist(A) ::= use1(U). { A = ast_vec1(ctx, U); }
uselist(A) ::= uselist(B) COMMA use1(U). { A = ast_vadd(ctx, B, U); }
%type use1 {struct ast_use *}
use1(A) ::= name(N). { A = ast_use(ctx, N, NULL); }
use1(A) ::= name(N) ASSIGN expr(E). { A = ast_use(ctx, N, E); }

decl ::= RESOURCE(K) name(N) SEMI. { ast_resource(ctx, K, N, NULL, NULL); }
decl ::= RESOURCE(K) name(N) REF STRING(R) SEMI. { ast_resource(ctx, K, N, NULL, &R); }
decl ::= RESOURCE(K) name(N) COUNT INT(C) SEMI. { ast_resource(ctx, K, N, &C, NULL); }
decl ::= RESOURCE(K) name(N) COUNT INT(C) REF STRING(R) SEMI. { ast_resource(ctx, K, N, &C, &R); }
decl ::= EVENT(K) name(N) ASSIGN pattern(P) SEMI. { ast_event(ctx, K, N, P); }
decl ::= LATENCY(K) name(N) COLON pattern(A) RARROW pattern(B) same(S) MIN INT(L) rmax(X) rref(R) SEMI.
	{ ast_rule(ctx, K, N, ARK_LATENCY, ast_vadd(ctx, ast_vec1(ctx, A), B), S, &L, X, R); }
decl ::= FORBID(K) name(N) COLON pattern(A) RARROW pattern(B) AT INT(L) DOTDOT INT(H) rref(R) SEMI.
	{ ast_rule(ctx, K, N, ARK_WINDOW, ast_vadd(ctx, ast_vec1(ctx, A), B), false, &L, &H, R); }
decl ::= FORBID(K) name(N) COLON pattern(A) RARROW pattern(B) AT INT(L) DOTDOT rref(R) SEMI.
	{ ast_rule(ctx, K, N, ARK_WINDOW, ast_vadd(ctx, ast_vec1(ctx, A), B), false, &L, NULL, R); }
decl ::= FORBID(K) name(N) COLON patlist(P) rref(R) SEMI. { ast_rule(ctx, K, N, ARK_BUNDLE, P, false, NULL, NULL, R); }
decl ::= ORDER(K) name(N) COLON pattern(P) rref(R) SEMI. { ast_rule(ctx, K, N, ARK_ORDER, ast_vec1(ctx, P), false, NULL, NULL, R); }
%type same {bool}
same(A) ::= . { A = false; }
same(A) ::= SAME. { A = true; }
%type rmax {struct mdl_tok *}
rmax(A) ::= . { A = NULL; }
rmax(A) ::= MAX INT(H). { A = tsr_arena_alloc(ctx->arena, sizeof *A); *A = H; }
%type rref {struct mdl_tok *}
rref(A) ::= . { A = NULL; }
rref(A) ::= REF STRING(S). { A = tsr_arena_alloc(ctx->arena, sizeof *A); *A = S; }
%type patlist {struct ast_vec *}
patlist(A) ::= pattern(P). { A = ast_vec1(ctx, P); }
patlist(A) ::= patlist(B) AMP pattern(P). { A = ast_vadd(ctx, B, P); }
%type pattern {struct ast_vec *}
pattern(A) ::= pterm(T). { A = ast_vec1(ctx, T); }
pattern(A) ::= pattern(B) PIPE pterm(T). { A = ast_vadd(ctx, B, T); }
%type pterm {struct ast_evterm *}
pterm(A) ::= pprim(P). { A = P; }
pterm(A) ::= pterm(T) IN slotlist(L). { A = ast_evmod(ctx, T, L, NULL, false); }
pterm(A) ::= pterm(T) IF LPAREN expr(E) RPAREN. { A = ast_evmod(ctx, T, NULL, E, false); }
pterm(A) ::= pterm(T) CONDITIONAL. { A = ast_evmod(ctx, T, NULL, NULL, true); }
%type slotlist {struct ast_vec *}
slotlist(A) ::= name(N). { A = ast_vec1(ctx, ast_pname(ctx, N)); }
slotlist(A) ::= slotlist(B) COMMA name(N). { A = ast_vadd(ctx, B, ast_pname(ctx, N)); }
%type pprim {struct ast_evterm *}
pprim(A) ::= READ(K) name(N). { A = ast_evterm(ctx, AEV_READ, K, &N, NULL, NULL); }
pprim(A) ::= READ(K) name(N) LBRACKET codes(C) RBRACKET. { A = ast_evterm(ctx, AEV_READ, K, &N, C, NULL); }
pprim(A) ::= WRITE(K) name(N). { A = ast_evterm(ctx, AEV_WRITE, K, &N, NULL, NULL); }
pprim(A) ::= WRITE(K) name(N) LBRACKET codes(C) RBRACKET. { A = ast_evterm(ctx, AEV_WRITE, K, &N, C, NULL); }
pprim(A) ::= USE(K) name(N). { A = ast_evterm(ctx, AEV_USE, K, &N, NULL, NULL); }
pprim(A) ::= OP(K) name(N). { A = ast_evterm(ctx, AEV_OP, K, &N, NULL, NULL); }
pprim(A) ::= JUMP(K). { A = ast_evterm(ctx, AEV_JUMP, K, NULL, NULL, NULL); }
pprim(A) ::= HALT(K). { A = ast_evterm(ctx, AEV_HALT, K, NULL, NULL, NULL); }
pprim(A) ::= START(K). { A = ast_evterm(ctx, AEV_START, K, NULL, NULL, NULL); }
pprim(A) ::= name(N). { struct mdl_tok t = { 0 }; t.loc = N.loc; A = ast_evterm(ctx, AEV_NAMED, t, &N, NULL, NULL); }
pprim(A) ::= LPAREN(K) pattern(P) RPAREN. { A = ast_evterm(ctx, AEV_GROUP, K, NULL, NULL, P); }

/* ---- statements ---- */
%type stmts {struct ast_vec *}
stmts(A) ::= stmt(S). { A = ast_vec1(ctx, S); }
stmts(A) ::= stmts(B) stmt(S). { A = ast_vadd(ctx, B, S); }
%type stmtlist {struct ast_vec *}
stmtlist(A) ::= . { A = ast_vec1(ctx, NULL); }
stmtlist(A) ::= stmtlist(B) stmt(S). { A = ast_vadd(ctx, B, S); }
%type block {struct ast_stmt *}
block(A) ::= LBRACE(L) stmtlist(S) RBRACE. { A = ast_block(ctx, L, S); }
%type stmt {struct ast_stmt *}
stmt(A) ::= LET(K) name(N) ASSIGN expr(E) SEMI. { A = ast_let(ctx, K, N, E); }
stmt(A) ::= name(N) ASSIGN expr(E) SEMI. { A = ast_assign(ctx, N, NULL, E); }
stmt(A) ::= name(N) LBRACKET expr(I) RBRACKET ASSIGN expr(E) SEMI. { A = ast_assign(ctx, N, I, E); }
stmt(A) ::= IF(K) LPAREN expr(E) RPAREN stmt(T). [IFX] { A = ast_if(ctx, K, E, T, NULL); }
stmt(A) ::= IF(K) LPAREN expr(E) RPAREN stmt(T) ELSE stmt(F). { A = ast_if(ctx, K, E, T, F); }
stmt(A) ::= HOOK(K) name(N) LPAREN args(L) RPAREN SEMI. { A = ast_hookstmt(ctx, K, N, L); }
stmt(A) ::= name(N) LPAREN args(L) RPAREN SEMI. { A = ast_callstmt(ctx, N, L); }
stmt(A) ::= block(B). { A = B; }
/* (addition) X11 masked writes `PLACE = e mask m;` and `abort "message";` */
stmt(A) ::= name(N) ASSIGN expr(E) MASK expr(M) SEMI. { A = ast_mask(ctx, ast_assign(ctx, N, NULL, E), M); }
stmt(A) ::= name(N) LBRACKET expr(I) RBRACKET ASSIGN expr(E) MASK expr(M) SEMI.
	{ A = ast_mask(ctx, ast_assign(ctx, N, I, E), M); }
stmt(A) ::= ABORT(K) STRING(S) SEMI. { A = ast_abort(ctx, K, S); }
/* (addition) X6: a forward write readable at ages L..H only */
stmt(A) ::= name(N) ASSIGN expr(E) AGES INT(L) DOTDOT INT(H) SEMI. { A = ast_ages(ctx, ast_assign(ctx, N, NULL, E), L, H); }
stmt(A) ::= name(N) LBRACKET expr(I) RBRACKET ASSIGN expr(E) AGES INT(L) DOTDOT INT(H) SEMI.
	{ A = ast_ages(ctx, ast_assign(ctx, N, I, E), L, H); }

/* ---- expressions ---- */
%type expr {struct ast_expr *}
expr(A) ::= INT(T). { A = ast_int(ctx, T); }
expr(A) ::= FLOAT(T). { A = ast_float(ctx, T); }
expr(A) ::= name(N). { A = ast_ename(ctx, N); }
expr(A) ::= name(N) LBRACKET expr(I) RBRACKET. { A = ast_index(ctx, N, I); }
/* (addition) X4: a slice of a field, bits hi..lo of its value */
expr(A) ::= name(N) LBRACKET INT(H) COLON INT(L) RBRACKET. { A = ast_slice(ctx, N, ast_int(ctx, H), ast_int(ctx, L)); }
expr(A) ::= name(N) LPAREN args(L) RPAREN. { A = ast_call(ctx, N, L); }
/* (addition) X6: a forward's value written A instructions before */
expr(A) ::= name(N) ATSIGN INT(G). { A = ast_age(ctx, ast_ename(ctx, N), G); }
expr(A) ::= name(N) LBRACKET expr(I) RBRACKET ATSIGN INT(G). { A = ast_age(ctx, ast_index(ctx, N, I), G); }
expr(A) ::= LPAREN expr(E) RPAREN. { A = E; }
expr(A) ::= MINUS(T) expr(E). [BANG] { A = ast_un(ctx, T, '-', E); }
expr(A) ::= TILDE(T) expr(E). { A = ast_un(ctx, T, '~', E); }
expr(A) ::= BANG(T) expr(E). { A = ast_un(ctx, T, '!', E); }
expr(A) ::= expr(X) STAR(T) expr(Y). { A = ast_bin(ctx, T, '*', X, Y); }
expr(A) ::= expr(X) SLASH(T) expr(Y). { A = ast_bin(ctx, T, '/', X, Y); }
expr(A) ::= expr(X) PERCENT(T) expr(Y). { A = ast_bin(ctx, T, '%', X, Y); }
expr(A) ::= expr(X) PLUS(T) expr(Y). { A = ast_bin(ctx, T, '+', X, Y); }
expr(A) ::= expr(X) MINUS(T) expr(Y). { A = ast_bin(ctx, T, '-', X, Y); }
expr(A) ::= expr(X) SHL(T) expr(Y). { A = ast_bin(ctx, T, MDL_OP_SHL, X, Y); }
expr(A) ::= expr(X) SHR(T) expr(Y). { A = ast_bin(ctx, T, MDL_OP_SHR, X, Y); }
expr(A) ::= expr(X) LT(T) expr(Y). { A = ast_bin(ctx, T, MDL_OP_LT, X, Y); }
expr(A) ::= expr(X) LE(T) expr(Y). { A = ast_bin(ctx, T, MDL_OP_LE, X, Y); }
expr(A) ::= expr(X) GT(T) expr(Y). { A = ast_bin(ctx, T, MDL_OP_GT, X, Y); }
expr(A) ::= expr(X) GE(T) expr(Y). { A = ast_bin(ctx, T, MDL_OP_GE, X, Y); }
expr(A) ::= expr(X) EQ(T) expr(Y). { A = ast_bin(ctx, T, MDL_OP_EQ, X, Y); }
expr(A) ::= expr(X) NE(T) expr(Y). { A = ast_bin(ctx, T, MDL_OP_NE, X, Y); }
expr(A) ::= expr(X) AMP(T) expr(Y). { A = ast_bin(ctx, T, '&', X, Y); }
expr(A) ::= expr(X) CARET(T) expr(Y). { A = ast_bin(ctx, T, '^', X, Y); }
expr(A) ::= expr(X) PIPE(T) expr(Y). { A = ast_bin(ctx, T, '|', X, Y); }
expr(A) ::= expr(X) LAND(T) expr(Y). { A = ast_bin(ctx, T, MDL_OP_LAND, X, Y); }
expr(A) ::= expr(X) LOR(T) expr(Y). { A = ast_bin(ctx, T, MDL_OP_LOR, X, Y); }
expr(A) ::= expr(C) QUESTION(T) expr(X) COLON expr(Y). { A = ast_cond(ctx, T, C, X, Y); }
%type args {struct ast_vec *}
args(A) ::= . { A = ast_vec1(ctx, NULL); }
args(A) ::= arglist(L). { A = L; }
%type arglist {struct ast_vec *}
arglist(A) ::= expr(E). { A = ast_vec1(ctx, E); }
arglist(A) ::= arglist(B) COMMA expr(E). { A = ast_vadd(ctx, B, E); }

%code {
/* The action of `token` in parser state `state`, without keyword fallback. */
static int direct_action(int token, int state)
{
	if (state > YY_MAX_SHIFT)
		return state;
	int i = yy_shift_ofst[state] + token;
	if (i < 0 || i >= (int)YY_NLOOKAHEAD || yy_lookahead[i] != token)
		return yy_default[state];
	return yy_action[i];
}

/* Would the parser, as it stands, shift `token` (after any reductions)? Simulated on a copy of the stack. */
static bool accepts(const yyParser *p, int token)
{
	YYACTIONTYPE st[YYSTACKDEPTH + 8];
	int n = 0;
	for (const yyStackEntry *e = p->yystack; e <= p->yytos && n < YYSTACKDEPTH; e++)
		st[n++] = e->stateno;
	for (int guard = 0; guard < 10000 && n > 0; guard++) {
		int act = direct_action(token, st[n - 1]);
		if (act <= YY_MAX_SHIFTREDUCE || act == YY_ACCEPT_ACTION)
			return true;
		if (act < YY_MIN_REDUCE || act > YY_MAX_REDUCE)
			return false;
		int rule = act - YY_MIN_REDUCE;
		n += yyRuleInfoNRhs[rule];
		if (n < 1 || n >= YYSTACKDEPTH)
			return false;
		st[n] = yy_find_reduce_action(st[n - 1], yyRuleInfoLhs[rule]);
		n++;
	}
	return false;
}

static void report_syntax_error(struct mdl_pctx *ctx, struct yyParser *p, int major, const struct mdl_tok *tok)
{
	char expect[200] = "";
	int nexp = 0;
	size_t len = 0;
	if (!ctx->conds_mode) {
		const char *list[8];
		for (int t = 1; t < YYNTOKEN && nexp <= 5; t++)
			if (t != TK_TCONDS && accepts(p, t))
				list[nexp++] = mdl_token_desc(t);
		if (nexp > 0 && nexp <= 4) {
			len = (size_t)snprintf(expect, sizeof expect, " (expected %s", list[0]);
			for (int i = 1; i < nexp && len < sizeof expect; i++)
				len += (size_t)snprintf(expect + len, sizeof expect - len, "%s%s", i + 1 < nexp ? ", " : " or ",
				                        list[i]);
			if (len < sizeof expect)
				snprintf(expect + len, sizeof expect - len, ")");
		} else {
			expect[0] = 0;
		}
	}
	ctx->syntax_error = true;
	if (major == 0 && ctx->eof_reported)
		return;
	if (major == 0 && ctx->conds_mode)
		mdl_error(ctx, tok->loc, "incomplete condition in template");
	else if (major == 0)
		mdl_error(ctx, tok->loc, "syntax error at end of input%s", expect);
	else
		mdl_error(ctx, tok->loc, "syntax error near '%.*s'%s", tok->textlen > 20 ? 20 : tok->textlen, tok->text,
		          expect);
}

void mdl_parser_clear_error(void *parser)
{
	((yyParser *)parser)->yyerrcnt = -1;
}
}
