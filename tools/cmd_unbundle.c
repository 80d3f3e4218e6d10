/* `tessera unbundle FILE` (docs/pack.md): a bundled program (hex, binary or assembly) split into one
 * operation per line, the packer's input format; pinned bundles are counted on standard error. */
#include <stdio.h>
#include <string.h>
#include "tools.h"
#include "pack/pack.h"

int cmd_unbundle(struct tool_opts *o)
{
    if (o->nargs != 1) {
        fprintf(stderr, "tessera: error: 'unbundle' takes one input file ('-' for standard input)\n");
        return 2;
    }
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
    struct tsr_words w;
    tool_words_init(o, &w);
    struct tsr_buf out = { 0 };
    unsigned pinned = 0;
    int rc = tool_load_program(o, o->args[0], &w, &d);
    if (!rc)
        rc = tsr_unbundle(o->target, strcmp(o->args[0], "-") ? o->args[0] : "<stdin>", w.w, w.line, w.count, o->base, &out, &pinned, &d);
    if (!rc) {
        rc = tool_write_output(o, &out, &d);
        fprintf(stderr, "%u bundle%s kept whole (pinned: a line holds all %s operations)\n", pinned,
                pinned == 1 ? "" : "s", pinned == 1 ? "its" : "their");
    }
    tsr_buf_free(&out);
    tsr_words_free(&w);
    tsr_diag_fini(&d);
    return rc ? 1 : 0;
}
