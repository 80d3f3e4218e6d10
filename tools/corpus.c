/* The shared directory, a corpus directory's hex programs and the seed's blob listings (tools/corpus.h). */
#include <dirent.h>
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

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int corpus_hex_names(const char *dir, char **names, int max, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "cannot open %s (set TESSERA_SHARED to the shared directory)", dir);
        return -1;
    }
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) && n < max;) {
        size_t l = strlen(e->d_name);
        if (l > 4 && !strcmp(e->d_name + l - 4, ".hex") && (names[n] = strdup(e->d_name)))
            n++;
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_name);
    return n;
}

int corpus_hex_read(const char *rel, unsigned width, struct tsr_words *progs, int max, char *err, size_t errlen)
{
    char dir[2048], path[2400];
    corpus_shared_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    char *names[256];
    int n = corpus_hex_names(path, names, max < 256 ? max : 256, err, errlen), rc = 0;
    if (n < 0)
        return -1;
    struct tsr_diag dg;
    tsr_diag_init(&dg, TSR_DIAG_STORE, NULL);
    for (int i = 0; i < n; i++) {
        char file[4600];
        snprintf(file, sizeof file, "%s/%s", path, names[i]);
        tsr_words_init(&progs[i], width);
        if (!rc && tsr_words_read(&progs[i], file, TSR_WORDS_HEX, &dg) < 0) {
            snprintf(err, errlen, "cannot read %s", file);
            rc = -1;
        }
        free(names[i]);
    }
    tsr_diag_fini(&dg);
    if (rc)
        for (int i = 0; i < n; i++)
            tsr_words_free(&progs[i]);
    return rc ? -1 : n;
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
