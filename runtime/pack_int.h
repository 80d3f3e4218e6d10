/* Internals shared by runtime/pack*.c (not a public header). */
#ifndef TSR_PACK_INT_H
#define TSR_PACK_INT_H
#include "pack.h"

#define TSR_PACK_MAX_LABELS 8

/* One input line: an operation, or a pinned group written as one bundle. */
struct tsr_pack_unit {
    uint32_t w[4];              /* its words assembled alone */
    unsigned line, col;         /* source position */
    char *text;                 /* canonical text (parts joined by "; "), NULL: cannot share a bundle */
    char *full;                 /* full disassembly */
    char *src;                  /* source text of the line (branches are printed with it: labels) */
    const char *labels[TSR_PACK_MAX_LABELS];
    int nlabels;
    struct tsr_pack_info info;
};

char *tsr_pack_canon(const struct tsr_target *t, const uint32_t *w, char **full);
int tsr_pack_edge(const struct tsr_pack_info *a, const struct tsr_pack_info *b);
int tsr_pack_maxlat(const struct tsr_pack_info *a);
int tsr_pack_schedule(const struct tsr_target *t, struct tsr_pack_unit *u, size_t n, struct tsr_buf *out,
                      struct tsr_pack_stats *st);
#endif
