/* `tessera pack FILE [--effort list|search|deep] [--trace]` (docs/pack.md): one operation per line in, bundled
 * assembly out; --trace prints each block's operations, bundles and lower bound to standard error. */
#include <stdio.h>
#include <string.h>
#include "tools.h"
#include "pack/pack.h"

/* Whether the packer's output (label lines `name:` and indented bundles) holds a bundle. */
static bool has_bundle(const struct tsr_buf *b)
{
    for (size_t i = 0; i < b->len;) {
        const char *nl = memchr(b->data + i, '\n', b->len - i);
        size_t e = nl ? (size_t)(nl - b->data) : b->len, k = i;
        while (k < e && (b->data[k] == ' ' || b->data[k] == '\t'))
            k++;
        if (k < e && b->data[e - 1] != ':')
            return true;
        i = e + 1;
    }
    return false;
}

int cmd_pack(struct tool_opts *o)
{
    if (o->nargs != 1) {
        fprintf(stderr, "tessera: error: 'pack' takes one input file ('-' for standard input)\n");
        return 2;
    }
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
    struct tsr_buf in = { 0 }, out = { 0 };
    const char *path = strcmp(o->args[0], "-") ? o->args[0] : "<stdin>";
    int rc = tool_read_input(o->args[0], &in, &d);
    if (!rc && !tsr_data_is_text(in.data, in.len))   /* by content, as asm (docs/tools.md) */
        rc = tsr_diag_error(&d, path, 0, 0, "binary data, not assembly text (more than a third of the first %u bytes "
                            "are not text)", TSR_DETECT_BYTES);
    struct tsr_pack_stats st;
    if (!rc)   /* statistics (their lower bounds cost time) only for --trace */
        rc = tsr_pack_text_effort(o->target, path, in.data ? in.data : "", in.len,
                                  o->fast ? TSR_PACK_LIST : o->deep ? TSR_PACK_DEEP : TSR_PACK_SEARCH, &out,
                                  o->trace ? &st : NULL, &d);
    if (!rc && o->trace) {   /* --trace: the blocks, to standard error */
        fprintf(stderr, "%s: %u operations, %u blocks, %u bundles, lower bound %u; %u blocks from the search\n",
                path, st.nops, st.nblocks, st.nbundles, st.lower, st.searched);
        for (unsigned i = 0; i < st.nblocks; i++)
            fprintf(stderr, "  block at line %u: %u operations, %u bundles, lower bound %u%s\n", st.blocks[i].line,
                    st.blocks[i].nops, st.blocks[i].bundles, st.blocks[i].lower, st.blocks[i].exact ? "" : "+");
    }
    if (!rc && o->trace)
        tsr_pack_stats_free(&st);
    if (!rc && !has_bundle(&out))
        rc = tsr_diag_error(&d, path, 0, 0, "no operations (an empty program)");
    if (!rc)
        rc = tool_write_output(o, &out, &d);
    tsr_buf_free(&in);
    tsr_buf_free(&out);
    tsr_diag_fini(&d);
    return rc ? 1 : 0;
}
