/* Test support: the Tegra vertex programs of the shared corpus (support_tegra.h). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "corpus.h"
#include "registry.h"
#include "support_tegra.h"
#include "tsr.h"

#define MAXPROG 64

static struct tegra_prog progs[MAXPROG];
static int nprogs;

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct tegra_prog *)a)->path, ((const struct tegra_prog *)b)->path);
}

struct tegra_prog *tegra_corpus(int *n)
{
	if (nprogs) {
		*n = nprogs;
		return progs;
	}
	const struct tsr_target *t = tsr_find_target("tegra");
	cr_assert_not_null(t);
	char shared[512], dir[600];
	corpus_shared_dir(shared, sizeof shared);
	static const char *const sets[] = { "grate_examples", "opentegra", "opentegra_history" };
	for (size_t s = 0; s < sizeof sets / sizeof *sets; s++) {
		snprintf(dir, sizeof dir, "%s/corpus/tegra/grate/vertex/%s", shared, sets[s]);
		DIR *dp = opendir(dir);
		cr_assert_not_null(dp, "cannot open %s", dir);
		struct dirent *e;
		while ((e = readdir(dp))) {
			size_t len = strlen(e->d_name);
			if (len < 5 || strcmp(e->d_name + len - 4, ".hex"))
				continue;
			cr_assert_lt(nprogs, MAXPROG);
			struct tegra_prog *p = &progs[nprogs++];
			snprintf(p->path, sizeof p->path, "%s/%.*s", dir, (int)(len - 4), e->d_name);
			snprintf(p->name, sizeof p->name, "%s/%s", sets[s], e->d_name);
		}
		closedir(dp);
	}
	qsort(progs, (size_t)nprogs, sizeof *progs, by_path);
	for (int i = 0; i < nprogs; i++) {
		char path[720];
		struct tsr_diag d;
		tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
		tsr_words_init(&progs[i].w, t->word_bits);
		progs[i].w.msw_first = t->word_msw_first;
		snprintf(path, sizeof path, "%.700s.hex", progs[i].path);
		cr_assert_eq(tsr_words_read(&progs[i].w, path, TSR_WORDS_HEX, &d), 0, "cannot read %s", path);
		tsr_diag_fini(&d);
	}
	cr_assert_eq(nprogs, TEGRA_NPROGS);
	*n = nprogs;
	return progs;
}
