/* The lockstep walk of two template sequences that decides the exactness proof's facts (dis_lockstep.c; the
 * method is described at the top of dis_static.c): private to dis_static.c and dis_lockstep.c. */
#ifndef TSR_DIS_LOCKSTEP_H
#define TSR_DIS_LOCKSTEP_H

#include <stdbool.h>
#include <stdint.h>

#include "dis_exact.h"

#define TSR_DIS_QBUDGET 20000UL   /* lockstep steps per question */

/* A place in a template: pending literal characters str[0..slen), then parts [p, end), then *next. */
struct cur {
    const char *str;
    uint32_t slen;
    const struct tsr_tc_part *p, *end;
    const struct cur *next;
};

enum { A_END, A_CHAR, A_PART };

/* Per table (tsr_dis_static tflags): */
enum {
    TF_NUMS = 1,         /* numeric entries: reads numbers */
    TF_EMPTY = 2,        /* a name "" (matches no text) */
    TF_NAME_NUM = 4,     /* a name a printed number or label could start (a digit, '-', 'L') */
    TF_PNUM = 8,         /* prints a number for some code */
    TF_PEMPTY = 16,      /* prints "" for some code */
    TF_PNAME_EXPR = 32,  /* prints a name a constant expression could start */
};

struct q {
    struct tsr_dis_static *st;
    bool jopen;   /* J may end anywhere (an operand alternative: what follows is not J's) */
    bool kopen;   /* K's text goes on after K ends, unknown (an operand alternative) */
    /* A table hole of K that prints one known entry, kpr (else NULL): the hole kfix reached with continuation
     * knext, i.e. in K's own alternative, not in a later use of the same operand. */
    const struct tsr_tc_part *kfix;
    const struct cur *knext;
    const struct tsr_tc_print *kpr;
    /* K's op-level operands that print one known alternative: kalts[i] for part kbase + i (0xff: any) */
    const struct tsr_tc_part *kbase;
    uint32_t nk;
    const uint8_t *kalts;
    /* K's own optional texts printed or not as known: kopt[i] (0: not printed) for its part kobase + i, where K
     * is at it with continuation konext (kopt NULL: every way) */
    const struct tsr_tc_part *kobase;
    uint32_t nko;
    const uint8_t *kopt;
    const struct cur *konext;
    bool kept;       /* J's operand branches go through the memo (dis_walkmemo.c): questions whose walks repeat
                        (tsr_dis_op_alts, tsr_dis_ask) */
    uint32_t wctx;   /* the memo's number for these choices (0: not yet) */
    uint32_t wctx0;  /* the same without kalts (for K past every part it fixes; 0: not yet) */
};

/* An entry of the walk's memo being decided (dis_walkmemo.c); h 0: none. */
struct tsr_dis_wslot {
    uint64_t h;
    uint32_t off;
};

/* The memo's answer for the branch at J, K (onj: J is at the optional part or operand, else K), the steps it took
 * from Q->st->budget taken as the walk would: 0 (false) or 1 (true); -1 when unknown: then *slot is to be given,
 * with the answer and the steps the branch took, to tsr_dis_wm_put. */
int tsr_dis_wm_look(struct q *Q, const struct cur *J, const struct cur *K, bool onj, struct tsr_dis_wslot *slot);
void tsr_dis_wm_put(struct q *Q, const struct tsr_dis_wslot *slot, bool v, unsigned long steps);
/* Frees the memo of st (none: nothing). */
void tsr_dis_wm_free(struct tsr_dis_static *st);

/* Can J (read by the matcher) match a text that K (printed) prints?  false is a proof that it cannot; true
 * is none (also when Q->st->budget runs out). */
bool tsr_dis_ov(struct q *Q, struct cur J, struct cur K);
/* J = parts jp[0..jn) and K = kp[0..kn), each followed by the parts [rest, rend) (none: NULL), then by the end
 * of the bundle part (open: by unknown text, and J may end anywhere): TSR_DIS_NEVER or TSR_DIS_MAYBE. */
int tsr_dis_ask(struct tsr_dis_static *st, const struct tsr_tc_part *jp, uint32_t jn, const struct tsr_tc_part *kp,
                uint32_t kn, const struct tsr_tc_part *rest, const struct tsr_tc_part *rend, bool open);
/* tsr_dis_ask without open ends, K's optional texts among kp[0..kn) printed as kopt[i] says for kp[i] (0: not
 * printed; other parts' entries ignored). */
int tsr_dis_ask_opts(struct tsr_dis_static *st, const struct tsr_tc_part *jp, uint32_t jn, const struct tsr_tc_part *kp,
                     uint32_t kn, const struct tsr_tc_part *rest, const struct tsr_tc_part *rend, const uint8_t *kopt);
/* Makes st->jfirst and st->kfirst (dis_exact.h struct tsr_dis_first) for every table of st->isa; the walk's loops over
 * a table's names visit only those whose first byte can match.  Freed by tsr_dis_first_free. */
void tsr_dis_first_init(struct tsr_dis_static *st);
/* The names of table t (the matcher's) that start with s[0..n), n > 0: their indices into the table's names are
 * sorted[*lo .. *hi) of st->jfirst[t] (in byte order, not table order). */
void tsr_dis_prefixed(const struct tsr_dis_static *st, unsigned t, const char *s, uint32_t n, uint32_t *lo, uint32_t *hi);
void tsr_dis_first_free(struct tsr_dis_static *st);
/* Can a constant expression start with c (the round trip check has no symbols: only `L<hex>` names)? */
bool tsr_dis_expr_start(unsigned char c);
/* Can a constant expression (asm_expr.c: numbers, names, `.` of a float, parentheses, unary and binary
 * operators, blanks) hold the character c anywhere?  false for `,`, `;`, `[`, `]`, `{`, `}`, `:` and `=`. */
bool tsr_dis_expr_char(unsigned char c);
/* Can a number the printer prints (a `{FIELD}`, a table's integer or float entry) start with c? */
bool tsr_dis_num_print_start(unsigned char c);

#endif
