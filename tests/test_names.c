/* "A target is its description": no target's name in mdl/, gen/, runtime/ or tools/.  The check of the rule,
 * `git grep -n -i -w -e qpu -e tegra -e utgard -- mdl gen runtime tools`, done here without git: every file under
 * those folders (hidden ones skipped) is searched, case-insensitively, for the name of every registered target
 * (runtime/registry.h tsr_all_targets) as a whole word (not preceded or followed by a letter, digit or `_`, as
 * grep -w), except in the files that may name targets:
 *  - runtime/registry.h, which configure.py's target list (TSR_TARGETS, TSR_PLATFORMS) fills in;
 *  - the target-specific command named as such, `tessera gpu-fft`: tools/cmd_gpufft.c and tools/gpufft*.c/h.
 * A target fact belongs in its description or its targets/<t>/ files (a platform: runtime/sim/platform.h). */
#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "registry.h"
#include "sim/platform.h"

static const char *const dirs[] = { "mdl", "gen", "runtime", "tools" };

/* The files allowed to name targets (paths from the repository root). */
static bool allowed(const char *path)
{
	if (!strcmp(path, "runtime/registry.h") || !strcmp(path, "tools/cmd_gpufft.c"))
		return true;
	size_t n = strlen(path);
	return !strncmp(path, "tools/gpufft", 12) && n >= 14 && !strchr(path + 6, '/') &&
	       (!strcmp(path + n - 2, ".c") || !strcmp(path + n - 2, ".h"));
}

static bool word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Whether line [s, s+n) holds `name` as a whole word, in any case; *col gets its 1-based column. */
static bool has_word(const char *s, size_t n, const char *name, size_t *col)
{
	size_t k = strlen(name);
	for (size_t i = 0; i + k <= n; i++)
		if (!strncasecmp(s + i, name, k) && (i == 0 || !word_char(s[i - 1])) && (i + k == n || !word_char(s[i + k]))) {
			*col = i + 1;
			return true;
		}
	return false;
}

struct hits {
	unsigned files, count;
	char report[4096];
	size_t len;
};

/* Searches one file; each line naming a target goes into h (the first ones into its report). */
static void scan_file(const char *path, struct hits *h)
{
	FILE *f = fopen(path, "rb");
	cr_assert_not_null(f, "cannot read %s", path);
	h->files++;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	for (unsigned ln = 1; (len = getline(&line, &cap, f)) >= 0; ln++)
		for (size_t t = 0; tsr_all_targets[t]; t++) {
			size_t col;
			if (!has_word(line, (size_t)len, tsr_all_targets[t]->name, &col))
				continue;
			h->count++;
			if (h->len + 200 < sizeof h->report)
				h->len += (size_t)snprintf(h->report + h->len, sizeof h->report - h->len, "  %s:%u:%zu: %s\n", path,
							   ln, col, tsr_all_targets[t]->name);
			break;
		}
	free(line);
	fclose(f);
}

static void scan_dir(const char *dir, struct hits *h)
{
	DIR *d = opendir(dir);
	cr_assert_not_null(d, "cannot open %s (run from the repository root or set TESSERA_ROOT)", dir);
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		struct stat st;
		cr_assert_eq(stat(path, &st), 0, "cannot stat %s", path);
		if (S_ISDIR(st.st_mode))
			scan_dir(path, h);
		else if (S_ISREG(st.st_mode) && !allowed(path))
			scan_file(path, h);
	}
	closedir(d);
}

Test(names, no_target_name_outside_the_registry_and_gpu_fft)
{
	const char *root = getenv("TESSERA_ROOT");
	if (root && *root)
		cr_assert_eq(chdir(root), 0, "cannot chdir to TESSERA_ROOT=%s", root);
	cr_assert_not_null(tsr_all_targets[0], "no target built: nothing to look for");
	struct hits h = { 0 };
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
		scan_dir(dirs[i], &h);
	cr_expect_geq(h.files, 100, "only %u files searched under mdl/ gen/ runtime/ tools/", h.files);
	cr_expect_eq(h.count, 0, "%u lines name a target (move the fact into the description or targets/<t>/, or "
		     "describe the behaviour):\n%s", h.count, h.report);
}

/* The matcher is grep -w's: a name inside an identifier or a longer word is not the name. */
Test(names, whole_words_in_any_case)
{
	size_t col;
	const char *yes[] = { "the QPU's regfiles", "qpu", "x = tegra;", "(Utgard)", "corpus/qpu/gpu_fft" };
	const char *no[] = { "--qpus N", "TSR_NAN_QPU", "qpu_machine", "tegra2", "a utgardx" };
	for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
		cr_expect(has_word(yes[i], strlen(yes[i]), "qpu", &col) || has_word(yes[i], strlen(yes[i]), "tegra", &col) ||
			  has_word(yes[i], strlen(yes[i]), "utgard", &col), "'%s' names a target", yes[i]);
	for (size_t i = 0; i < sizeof no / sizeof *no; i++)
		cr_expect(!has_word(no[i], strlen(no[i]), "qpu", &col) && !has_word(no[i], strlen(no[i]), "tegra", &col) &&
			  !has_word(no[i], strlen(no[i]), "utgard", &col), "'%s' does not name a target", no[i]);
	cr_expect(has_word("a QPU b", 7, "qpu", &col) && col == 3);
	cr_expect(allowed("runtime/registry.h") && allowed("tools/cmd_gpufft.c") && allowed("tools/gpufft_diag.c") &&
		  allowed("tools/gpufft.h"));
	cr_expect(!allowed("tools/cmd_sim.c") && !allowed("tools/gpufft.txt") && !allowed("runtime/sim/registry.h") &&
		  !allowed("tools/gpufft/x.c"));
}

/* A target's platform is a registry fact: tsr_target_platform() gives one exactly for the targets whose folder has
 * <t>_platform.c (configure.py's TSR_PLATFORMS), and a platform names its processors and bounds their number. */
Test(names, platforms_come_from_the_registry)
{
	const char *root = getenv("TESSERA_ROOT");
	if (root && *root)
		cr_assert_eq(chdir(root), 0, "cannot chdir to TESSERA_ROOT=%s", root);
	for (size_t i = 0; tsr_all_targets[i]; i++) {
		const struct tsr_target *t = tsr_all_targets[i];
		char path[512];
		snprintf(path, sizeof path, "targets/%s/%s_platform.c", t->name, t->name);
		const struct tsr_platform *p = tsr_target_platform(t);
		cr_expect_eq(p != NULL, access(path, F_OK) == 0, "%s: platform %s, %s %s", t->name, p ? "registered" : "none",
			     path, access(path, F_OK) ? "absent" : "present");
		if (p)
			cr_expect(p->noun && *p->noun && p->prefix && *p->prefix && p->max_procs >= 1 && p->machine_new &&
				  p->machine_free && p->mem && p->run, "%s: incomplete platform", t->name);
	}
}
