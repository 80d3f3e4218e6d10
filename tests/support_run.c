/* Running the `tessera` driver in a child process with a time limit (support_run.h). */
#include "support_run.h"
#include "support_san.h"   /* TEST_SANITIZED */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RUN_KEEP (1u << 20) /* bytes of each output stream kept */

double run_time_limit(void)
{
	return TEST_SANITIZED ? 30.0 : 10.0;
}

const char *run_tessera_path(void)
{
	static char path[PATH_MAX + 16];
	if (path[0])
		return path;
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0) {
		snprintf(path, sizeof path, "build/tessera");
		return path;
	}
	self[n] = 0;
	char *slash = strrchr(self, '/');   /* .../build/tests/test_x -> .../build/tests */
	if (slash)
		*slash = 0;
	slash = strrchr(self, '/');         /* -> .../build */
	if (slash)
		*slash = 0;
	snprintf(path, sizeof path, "%s/tessera", self);
	return path;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Appends what fd has to read to *buf (keeping the first RUN_KEEP bytes); returns false at its end. */
static bool drain(int fd, char **buf, size_t *len)
{
	char chunk[65536];
	ssize_t n = read(fd, chunk, sizeof chunk);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0)
		return false;
	size_t keep = *len < RUN_KEEP ? RUN_KEEP - *len : 0;
	if (keep > (size_t)n)
		keep = (size_t)n;
	if (keep) {
		char *b = realloc(*buf, *len + keep + 1);
		if (!b)
			abort();
		memcpy(b + *len, chunk, keep);
		*len += keep;
		b[*len] = 0;
		*buf = b;
	}
	return true;
}

int run_tessera(const char *const *argv, const char *stdin_path, struct run_result *r)
{
	return run_program(run_tessera_path(), argv, stdin_path, r);
}

int run_program(const char *prog, const char *const *argv, const char *stdin_path, struct run_result *r)
{
	memset(r, 0, sizeof *r);
	r->status = -1;
	size_t argc = 0;
	while (argv[argc])
		argc++;
	const char **full = calloc(argc + 2, sizeof *full);
	int po[2], pe[2];
	if (!full || pipe(po) || pipe(pe)) {
		free(full);
		return -1;
	}
	full[0] = prog;
	memcpy(full + 1, argv, argc * sizeof *argv);
	double t0 = now();
	pid_t pid = fork();
	if (pid < 0) {
		free(full);
		return -1;
	}
	if (pid == 0) {
		/* a run that blows up its memory is stopped before it takes the machine's: 2 GiB of address
		 * space, or under ASan (which reserves terabytes of shadow) its own RSS limit */
#if TEST_SANITIZED
		const char *ao = getenv("ASAN_OPTIONS");
		char opts[1024];
		snprintf(opts, sizeof opts, "%s%shard_rss_limit_mb=2048", ao ? ao : "", ao && *ao ? ":" : "");
		setenv("ASAN_OPTIONS", opts, 1);
#else
		struct rlimit lim = { (rlim_t)2 << 30, (rlim_t)2 << 30 };
		setrlimit(RLIMIT_AS, &lim);
#endif
		int in = open(stdin_path ? stdin_path : "/dev/null", O_RDONLY);
		if (in < 0 || dup2(in, 0) < 0 || dup2(po[1], 1) < 0 || dup2(pe[1], 2) < 0)
			_exit(126);
		close(po[0]);
		close(pe[0]);
		execv(full[0], (char *const *)full);
		_exit(127);
	}
	free(full);
	close(po[1]);
	close(pe[1]);
	struct pollfd fds[2] = { { po[0], POLLIN, 0 }, { pe[0], POLLIN, 0 } };
	bool open_out = true, open_err = true;
	double limit = run_time_limit();
	while (open_out || open_err) {
		double left = limit - (now() - t0);
		if (left <= 0) {
			r->timed_out = true;
			kill(pid, SIGKILL);
			break;
		}
		fds[0].fd = open_out ? po[0] : -1;
		fds[1].fd = open_err ? pe[0] : -1;
		int k = poll(fds, 2, (int)(left * 1000) + 1);
		if (k < 0 && errno != EINTR)
			break;
		if (open_out && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)))
			open_out = drain(po[0], &r->out, &r->out_len);
		if (open_err && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)))
			open_err = drain(pe[0], &r->err, &r->err_len);
	}
	close(po[0]);
	close(pe[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	r->seconds = now() - t0;
	if (WIFEXITED(st))
		r->status = WEXITSTATUS(st);
	else if (WIFSIGNALED(st))
		r->signal = WTERMSIG(st);
	if (!r->out)
		r->out = calloc(1, 1);
	if (!r->err)
		r->err = calloc(1, 1);
	return 0;
}

void run_result_free(struct run_result *r)
{
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof *r);
}

char *run_mkdtemp(void)
{
	const char *tmp = getenv("TMPDIR");
	char buf[PATH_MAX];
	snprintf(buf, sizeof buf, "%s/tessera-run-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(buf))
		return NULL;
	return strdup(buf);
}

void run_rmtree(const char *dir)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			char p[PATH_MAX];
			struct stat s;
			snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
			if (!lstat(p, &s) && S_ISDIR(s.st_mode))
				run_rmtree(p);
			else
				unlink(p);
		}
		closedir(d);
	}
	rmdir(dir);
}

int run_write_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t w = n ? fwrite(data, 1, n, f) : 0;
	return fclose(f) || w != n ? -1 : 0;
}
