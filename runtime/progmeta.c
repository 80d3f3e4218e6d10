/* Program metadata (progmeta.h). */
#include <stdlib.h>
#include <string.h>

#include "progmeta.h"
#include "xalloc.h"

void tsr_progmeta_add(struct tsr_progmeta **mp, const struct tsr_progmeta_ent *e)
{
    struct tsr_progmeta *m = *mp;
    if (!m) {
        m = *mp = tsr_xrealloc(NULL, sizeof *m);
        memset(m, 0, sizeof *m);
    }
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 16;
        m->e = tsr_xrealloc(m->e, m->cap * sizeof *m->e);
    }
    struct tsr_progmeta_ent *x = &m->e[m->n++];
    *x = *e;
    if (e->name)
        x->name = tsr_arena_strndup(&m->arena, e->name, strlen(e->name));
}

void tsr_progmeta_free(struct tsr_progmeta *m)
{
    if (!m)
        return;
    free(m->e);
    tsr_arena_free_all(&m->arena);
    free(m);
}
