/* The shared directory and the seed's blob listings (tools/corpus.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "corpus.h"

void corpus_shared_dir(char *buf, size_t n)
{
    const char *shared = getenv("TESSERA_SHARED"), *root = getenv("TESSERA_ROOT");
    if (shared && *shared)
        snprintf(buf, n, "%s", shared);
    else
        snprintf(buf, n, "%s%s../shared", root && *root ? root : "", root && *root ? "/" : "");
}

int corpus_blob_read(int k, struct tsr_words *out, char *err, size_t errlen)
{
    char dir[2048], path[2200], line[512];
    corpus_shared_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/%s", dir, CORPUS_BLOB_SEED);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot open %s (set TESSERA_SHARED to the shared directory)", path);
        return -1;
    }
    int block = -1;
    size_t n = 0;
    bool in = false;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "('shader code'", 14)) {
            block++;
            in = true;
            continue;
        }
        unsigned addr, lo, hi;
        int used = 0;
        if (!in || sscanf(line, "%x: %x %x %n", &addr, &lo, &hi, &used) != 3 || !used) {
            in = in && line[0] == '0';
            continue;
        }
        if (block == k && n < CORPUS_BLOB_MAX) {
            char *text = line + used;
            text[strcspn(text, "\r\n")] = 0;
            uint32_t w[2] = {lo, hi};
            tsr_words_push(out, w, text, 0);
            n++;
        }
    }
    fclose(f);
    if (!n) {
        snprintf(err, errlen, "%s: no instructions in blob listing %d", path, k + 1);
        return -1;
    }
    return 0;
}
