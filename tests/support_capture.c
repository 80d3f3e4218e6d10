/* Test support for the runtime's unit tests (support_capture.h). */
#include "support_capture.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include "corpus.h"

const char *shared_path(const char *rel)
{
	static char path[4096];
	char shared[3000];
	corpus_shared_dir(shared, sizeof shared);
	snprintf(path, sizeof path, "%s/%s", shared, rel);
	return path;
}

void capture_start(struct capture *c)
{
	c->text = NULL;
	c->len = 0;
	c->f = open_memstream(&c->text, &c->len);
	cr_assert_not_null(c->f);
	tsr_diag_init(&c->d, TSR_DIAG_PRINT, c->f);
}

const char *capture_text(struct capture *c)
{
	fflush(c->f);
	return c->text;
}

void capture_end(struct capture *c)
{
	fclose(c->f);
	free(c->text);
	tsr_diag_fini(&c->d);
}

char *make_tmpdir(void)
{
	char *dir = strdup("/tmp/tsr_test_XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	return dir;
}

int count_entries(const char *dir, const char *needle)
{
	DIR *dp = opendir(dir);
	cr_assert_not_null(dp);
	int n = 0;
	for (struct dirent *e; (e = readdir(dp));)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strstr(e->d_name, needle))
			n++;
	closedir(dp);
	return n;
}

void rmtree(char *dir)
{
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
	free(dir);
}
