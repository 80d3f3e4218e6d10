/* The printed path: what the disassembler's printer chose for one bundle, the record that the exactness proof
 * (dis_exact.c) reads instead of assembling the text again (docs/asm.md "Round trips").
 *
 * The printer (print_seq in dis_engine.c, or a printer generated per op) fills it while it prints a bundle:
 *
 *  - one event per template part it prints, in template order, depth first: a `{NAME=OPERAND}` part's event
 *    comes before the events of the parts of the alternative printed, and its span covers theirs.  An
 *    alternative that was started and given up (a table code with nothing to print) leaves no events: the
 *    printer rolls nev back to the count before it.
 *      pos, end  the part's text: bytes [pos, end) of the bundle's text, counted from its first byte
 *                (`base` in the output buffer); a part that printed nothing has pos == end
 *      what      TSR_TC_OPND: the index of the alternative printed, within the operand (0 .. nalt-1)
 *                TSR_TC_OPT: 1 when the optional text was printed, 0 when not
 *                TSR_TC_TABLE: the enum tsr_tc_pkind of the entry printed (name, integer, float)
 *                any other part: 0
 *  - one slot record per slot whose text is printed (a slot whose op prints no text is left out, its events
 *    rolled back): t, its position in the format's slot list (isa->formats[fmt].slot + t), and first, the
 *    index of its first event.  The slots' events are consecutive: slot k's run ends where slot k+1's begins
 *    (the last at nev).  The "; " between slots belongs to no event.
 *
 * `over` is set when more than TSR_DIS_MAX_SLOTS slots were printed (then the record is incomplete and the
 * proof answers "not proven").  Nothing else about the bundle is recorded: the fields are the decoded
 * instruction's.  The events array grows as needed (tsr_dis_path_free releases it).
 */
#ifndef TSR_DIS_PATH_H
#define TSR_DIS_PATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define TSR_DIS_MAX_SLOTS 64

struct tsr_dis_ev {
    uint32_t pos, end;   /* bytes [pos, end) of the bundle's text */
    uint32_t what;       /* OPND: alternative index; OPT: printed (1) or not (0); TABLE: enum tsr_tc_pkind */
};

struct tsr_dis_slotp {
    uint32_t t;          /* position of the slot in its format's slot list */
    uint32_t first;      /* index of its first event */
    uint32_t end;        /* the end of its text (bytes of the bundle's text; the printer's "; " follows, if any) */
};

struct tsr_dis_path {
    struct tsr_dis_ev *ev;
    size_t nev, cev;                              /* events used, allocated */
    struct tsr_dis_slotp sp[TSR_DIS_MAX_SLOTS];
    size_t nsp;                                   /* slots printed */
    bool over;                                    /* more slots printed than sp holds */
    size_t base;                                  /* offset of the bundle's text in the output buffer */
};

/* Starts a bundle whose text begins at offset base of the output buffer. */
static inline void tsr_dis_path_start(struct tsr_dis_path *p, size_t base)
{
    p->nev = p->nsp = 0;
    p->over = false;
    p->base = base;
}

/* Opens the event of a part whose text starts at output offset at (its end is set by tsr_dis_path_close).
 * Returns the event's index.  Aborts when memory runs out. */
static inline size_t tsr_dis_path_open(struct tsr_dis_path *p, size_t at, uint32_t what)
{
    if (p->nev == p->cev) {
        p->cev = p->cev ? p->cev * 2 : 256;
        p->ev = (struct tsr_dis_ev *)realloc(p->ev, p->cev * sizeof *p->ev);
        if (!p->ev)
            abort();
    }
    p->ev[p->nev].pos = p->ev[p->nev].end = (uint32_t)(at - p->base);
    p->ev[p->nev].what = what;
    return p->nev++;
}

/* Ends event e at output offset at. */
static inline void tsr_dis_path_close(struct tsr_dis_path *p, size_t e, size_t at)
{
    p->ev[e].end = (uint32_t)(at - p->base);
}

/* Records that the slot at position t of the format printed text ending at output offset at, its events starting
 * at event first. */
static inline void tsr_dis_path_slot(struct tsr_dis_path *p, uint32_t t, size_t first, size_t at)
{
    if (p->nsp < TSR_DIS_MAX_SLOTS)
        p->sp[p->nsp++] = (struct tsr_dis_slotp){t, (uint32_t)first, (uint32_t)(at - p->base)};
    else
        p->over = true;
}

static inline void tsr_dis_path_free(struct tsr_dis_path *p)
{
    free(p->ev);
    p->ev = NULL;
    p->nev = p->cev = 0;
}

#endif
