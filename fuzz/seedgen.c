/* seedgen: writes the generated half of the fuzzers' seed corpora (fuzz/README.md), for every target of
 * the registry (runtime/registry.h), at build time.
 *
 *     seedgen -o OUTDIR [-r ROOT] [-c CORPUS]
 *
 * ROOT (default ".") is the repository root: each target's description is read from
 * ROOT/targets/<t>/<t>.mdl.  CORPUS is the shared corpus directory (../shared/corpus); its part for a
 * target, CORPUS/<t>/ and CORPUS/<t>-NAME/ (utgard-gp for utgard), is read recursively in byte order of
 * the names when it exists (a missing CORPUS or part gives no program seeds, not an error).  Written, per fuzzer (fuzz/fuzz_<name>.c), into
 * OUTDIR/<name>/, the target's index in tsr_all_targets as the first byte where the fuzzer reads one:
 *   mdl    the description itself; the description without all its declarations of one kind, for each
 *          kind it uses (`op`, `func`, `forbid`, ...: the checks' errors for whatever refers to them);
 *          the description cut before each run of same-kind declarations and in the middle of the run's
 *          first declaration (a model missing its later parts; a declaration cut short); and, once
 *          for all targets, the negative tests' descriptions, the files ROOT/tests/neg/NAME.mdl;
 *   codec  one instruction per distinct decoded shape (format and the op of every slot) found in the
 *          CORPUS/<t>/ programs (`*.hex` hex text, `*.bin` raw binary, runtime/hexio.h);
 *   asm    the same instructions, and the disassembly (t->disasm_program) of the DIS_CHUNK instructions
 *          from each of them, as text; the assembly sources (`*.qasm`, `*.s`, `*.asm`, the names
 *          `tessera asm` takes for assembly): their lines not seen before, TEXT_LINES to a seed;
 *   sim    the same instructions as inputs of mdl_diffsim_one (mdl/diffsim.h; see sim_seed): one bundle,
 *          and four bundles (the instruction and the 3 after it) with recent writes for the hazard checks;
 *   repack the same instructions, each with the REPACK_RUN - 1 after it, and the last REPACK_RUN instructions of
 *          each program (its end), as programs of fuzz_repack (see repack_seed).
 * Files are named <t>-<what>[-<n>], with no timestamps: the output depends only on the inputs.
 * OUTDIR/index.txt lists every seed with its size and source.  Everything is written into OUTDIR.tmp,
 * which then replaces OUTDIR, so a failed run leaves the previous seeds (or none), never a part.
 *
 * Exit status: 0; 1 when an input cannot be read or parsed (`file:line:col: error: ...`, nothing
 * replaced); 2 usage error.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "registry.h"
#include "tsr.h"

/* Instructions of a disassembly text seed and lines of an assembly text seed: fuzz_asm also takes its
 * text as instruction words, each disassembled and assembled again, so a text seed costs about as much
 * as that many words (a 1 KB piece some 30 ms): small pieces keep the fuzzer's start quick. */
#define DIS_CHUNK 8
#define TEXT_LINES 32
/* Instructions of a fuzz_repack seed: a piece of a corpus program, packed and simulated on every run. */
#define REPACK_RUN 12
/* Declarations of a description that get variants (the QPU's has 239). */
#define MAX_DECLS 4096
/* Directory levels read below CORPUS/<t>/ (a guard against symbolic link loops). */
#define MAX_DEPTH 16

static struct tsr_diag diag;

/* ---- small helpers ------------------------------------------------------------------------------ */

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

static char *path_join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *p = malloc(n);
	if (!p) {
		fputs("seedgen: out of memory\n", stderr);
		abort();
	}
	snprintf(p, n, "%s/%s", a, b);
	return p;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A growable list of malloc'd strings. */
struct strlist { char **v; size_t n, cap; };

static void strlist_push(struct strlist *l, char *s)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		char **v = realloc(l->v, l->cap * sizeof *v);
		if (!v) {
			fputs("seedgen: out of memory\n", stderr);
			abort();
		}
		l->v = v;
	}
	l->v[l->n++] = s;
}

static void strlist_free(struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	*l = (struct strlist){ 0 };
}

/* Appends the regular files under dir (recursively; names starting with '.' skipped) to out, each
 * directory's entries in byte order of their names.  Returns 0, or -1 (reported). */
static int list_files(const char *dir, int depth, struct strlist *out)
{
	DIR *dp = opendir(dir);
	if (!dp)
		return tsr_diag_error(&diag, dir, 0, 0, "cannot read directory: %s", strerror(errno));
	struct strlist names = { 0 };
	struct dirent *e;
	while ((e = readdir(dp)))
		if (e->d_name[0] != '.')
			strlist_push(&names, path_join(dir, e->d_name));
	closedir(dp);
	if (names.n)   /* qsort needs a non-NULL array even for 0 items */
		qsort(names.v, names.n, sizeof *names.v, cmp_str);
	int rc = 0;
	for (size_t i = 0; i < names.n && !rc; i++) {
		struct stat st;
		if (stat(names.v[i], &st))
			continue;   /* a dangling link */
		if (S_ISDIR(st.st_mode)) {
			if (depth >= MAX_DEPTH)
				rc = tsr_diag_error(&diag, names.v[i], 0, 0, "directories nested too deep (%d levels)",
						    MAX_DEPTH);
			else
				rc = list_files(names.v[i], depth + 1, out);
		} else if (S_ISREG(st.st_mode)) {
			strlist_push(out, names.v[i]);
			names.v[i] = NULL;
		}
	}
	strlist_free(&names);
	return rc;
}

/* Removes path and, for a directory, everything in it (levels: how deep to go).  Returns 0 or -1. */
static int remove_tree(const char *path, int levels)
{
	struct stat st;
	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(path);
	DIR *dp = opendir(path);
	if (!dp || levels <= 0) {
		if (dp)
			closedir(dp);
		return -1;
	}
	int rc = 0;
	struct dirent *e;
	while ((e = readdir(dp)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			char *p = path_join(path, e->d_name);
			rc |= remove_tree(p, levels - 1);
			free(p);
		}
	closedir(dp);
	return rc | rmdir(path);
}

/* May path be removed and written again?  Yes when it does not exist, is an empty directory or holds
 * index.txt (an earlier seedgen output): never some other folder given by mistake. */
static int replaceable(const char *path)
{
	struct stat st;
	if (lstat(path, &st))
		return errno == ENOENT;
	if (!S_ISDIR(st.st_mode))
		return 0;
	char *index = path_join(path, "index.txt");
	int ok = !stat(index, &st);
	free(index);
	DIR *dp = opendir(path);
	if (!ok && dp) {
		struct dirent *e;
		ok = 1;
		while ((e = readdir(dp)))
			ok &= !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
	}
	if (dp)
		closedir(dp);
	return ok;
}

/* The base name of path without its extension. */
static void base_name(const char *path, char *out, size_t n)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	const char *dot = strrchr(b, '.');
	size_t len = dot && dot != b ? (size_t)(dot - b) : strlen(b);
	snprintf(out, n, "%.*s", (int)(len < n ? len : n - 1), b);
}

/* ---- output ------------------------------------------------------------------------------------- */

struct out {
	const char *dir;      /* OUTDIR.tmp */
	struct tsr_buf index; /* index.txt */
	int failed;
};

/* Writes one seed: OUTDIR/<fuzzer>/<name>, the target byte tbyte (or none if < 0) then n bytes at p. */
static void seed(struct out *o, const char *fuzzer, const char *name, int tbyte, const void *p, size_t n,
		 const char *source)
{
	struct tsr_buf b = { 0 };
	if (tbyte >= 0) {
		unsigned char c = (unsigned char)tbyte;
		tsr_buf_append(&b, &c, 1);
	}
	tsr_buf_append(&b, p, n);
	char *dir = path_join(o->dir, fuzzer), *path = path_join(dir, name);
	if (tsr_mkdir_p(dir, &diag) || tsr_file_commit(path, b.data, b.len, &diag))
		o->failed = 1;
	tsr_buf_printf(&o->index, "%s/%s %zu %s\n", fuzzer, name, b.len, source);
	free(dir);
	free(path);
	tsr_buf_free(&b);
}

/* ---- descriptions (fuzz_mdl) -------------------------------------------------------------------- */

/* One top-level declaration of a description: [start, end) bytes, its kind (first word). */
struct decl { size_t start, end; char kind[32]; };

/* Splits text into top-level declarations: a declaration starts at a line that begins with a letter
 * outside braces, comments and strings (the layout of every description: docs/mdl.md); the text before
 * the first one (the leading comment) belongs to none.  Returns the number found (at most max). */
static size_t split_decls(const char *s, size_t n, struct decl *d, size_t max)
{
	size_t nd = 0;
	int depth = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '/' && i + 1 < n && s[i + 1] == '/') {
			while (i < n && s[i] != '\n')
				i++;
		} else if (c == '/' && i + 1 < n && s[i + 1] == '*') {
			for (i += 2; i + 1 < n && !(s[i] == '*' && s[i + 1] == '/'); i++)
				;
			i++;
		} else if (c == '"') {
			for (i++; i < n && s[i] != '"' && s[i] != '\n'; i++)
				if (s[i] == '\\')
					i++;
		} else if (c == '{') {
			depth++;
		} else if (c == '}') {
			depth -= depth > 0;
		} else if (depth == 0 && (i == 0 || s[i - 1] == '\n') &&
			   ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
			if (nd && nd <= max)
				d[nd - 1].end = i;
			if (nd < max) {
				size_t k = 0;
				while (i + k < n && k + 1 < sizeof d[nd].kind &&
				       ((s[i + k] >= 'a' && s[i + k] <= 'z') || (s[i + k] >= 'A' && s[i + k] <= 'Z') ||
					s[i + k] == '_'))
					k++;
				d[nd].start = i;
				d[nd].end = n;
				memcpy(d[nd].kind, s + i, k);
				d[nd].kind[k] = 0;
			}
			nd++;
		}
	}
	return nd < max ? nd : max;
}

static int mdl_seeds(struct out *o, const char *root, const struct tsr_target *t)
{
	char rel[512];
	snprintf(rel, sizeof rel, "targets/%s/%s.mdl", t->name, t->name);
	char *path = path_join(root, rel);
	struct tsr_buf b = { 0 };
	int rc = tsr_file_read(path, &b, &diag);
	if (!rc) {
		char name[600];
		snprintf(name, sizeof name, "%s-mdl", t->name);
		seed(o, "mdl", name, -1, b.data, b.len, rel);
		struct decl *d = calloc(MAX_DECLS, sizeof *d);
		if (!d)
			abort();
		size_t nd = split_decls(b.data, b.len, d, MAX_DECLS);
		struct tsr_buf v = { 0 };
		for (size_t k = 0; k < nd; k++) {
			int seen = 0;
			for (size_t j = 0; j < k; j++)
				seen |= !strcmp(d[j].kind, d[k].kind);
			if (seen || !d[k].kind[0])
				continue;
			tsr_buf_clear(&v);
			size_t at = 0;
			for (size_t j = 0; j < nd; j++)
				if (!strcmp(d[j].kind, d[k].kind)) {
					tsr_buf_append(&v, b.data + at, d[j].start - at);
					at = d[j].end;
				}
			tsr_buf_append(&v, b.data + at, b.len - at);
			snprintf(name, sizeof name, "%s-mdl-without-%s", t->name, d[k].kind);
			char src[700];
			snprintf(src, sizeof src, "%s without its `%s` declarations", rel, d[k].kind);
			seed(o, "mdl", name, -1, v.data, v.len, src);
		}
		/* cut before each run of declarations of one kind, and in the middle of the run's first one */
		for (size_t k = 0; k < nd; k++) {
			if (k && !strcmp(d[k - 1].kind, d[k].kind))
				continue;
			char src[700];
			if (k) {
				snprintf(name, sizeof name, "%s-mdl-cut-%zu", t->name, k);
				snprintf(src, sizeof src, "%s up to declaration %zu (`%s`)", rel, k, d[k].kind);
				seed(o, "mdl", name, -1, b.data, d[k].start, src);
			}
			snprintf(name, sizeof name, "%s-mdl-cut-%zu-mid", t->name, k);
			snprintf(src, sizeof src, "%s up to the middle of declaration %zu (`%s`)", rel, k, d[k].kind);
			seed(o, "mdl", name, -1, b.data, (d[k].start + d[k].end) / 2, src);
		}
		tsr_buf_free(&v);
		free(d);
	}
	tsr_buf_free(&b);
	free(path);
	return rc;
}

/* The negative tests' descriptions (the files ROOT/tests/neg/NAME.mdl, for every target) as they are. */
static int neg_seeds(struct out *o, const char *root)
{
	char *dir = path_join(root, "tests/neg");
	struct stat st;
	struct strlist files = { 0 };
	int rc = stat(dir, &st) || !S_ISDIR(st.st_mode) ? 0 : list_files(dir, 0, &files);
	for (size_t i = 0; i < files.n && !rc; i++) {
		if (!ends_with(files.v[i], ".mdl"))
			continue;
		struct tsr_buf b = { 0 };
		rc = tsr_file_read(files.v[i], &b, &diag);
		if (!rc) {
			char base[256], name[512];
			base_name(files.v[i], base, sizeof base);
			snprintf(name, sizeof name, "neg-%s", base);
			seed(o, "mdl", name, -1, b.data, b.len, files.v[i] + strlen(root) + 1);
		}
		tsr_buf_free(&b);
	}
	strlist_free(&files);
	free(dir);
	return rc;
}

/* ---- programs (fuzz_codec, fuzz_asm, fuzz_sim) -------------------------------------------------- */

/* A set of keys of klen unsigned values (open addressing): the decoded shapes seen so far (format, the
 * op of each slot), or the hashes of the assembly lines seen so far. */
struct keyset {
	unsigned klen;
	size_t n, cap;        /* cap: a power of two */
	unsigned *keys;       /* cap * klen */
	unsigned char *used;  /* cap */
};

static uint64_t fnv1a(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 0x100000001b3u;
	return h;
}

/* Adds key (klen values); returns 1 if it was new. */
static int keyset_add(struct keyset *s, const unsigned *key)
{
	if (2 * (s->n + 1) > s->cap) {
		struct keyset g = { s->klen, 0, s->cap ? 2 * s->cap : 1024, NULL, NULL };
		g.keys = malloc(g.cap * g.klen * sizeof *g.keys);
		g.used = calloc(g.cap, 1);
		if (!g.keys || !g.used)
			abort();
		for (size_t i = 0; i < s->cap; i++)
			if (s->used[i])
				keyset_add(&g, s->keys + i * s->klen);
		free(s->keys);
		free(s->used);
		*s = g;
	}
	size_t i = (size_t)fnv1a(key, s->klen * sizeof *key) & (s->cap - 1);
	for (; s->used[i]; i = (i + 1) & (s->cap - 1))
		if (!memcmp(s->keys + i * s->klen, key, s->klen * sizeof *key))
			return 0;
	s->used[i] = 1;
	memcpy(s->keys + i * s->klen, key, s->klen * sizeof *key);
	s->n++;
	return 1;
}

/* A mdl_diffsim_one input (mdl/diffsim.c) for nb (1-4) bundles at w: the flags byte (bits 0-1: bundles
 * - 1; 0x10: some state written 1-3 bundles ago, for the hazard checks), 8 seed bytes (a hash of the
 * words, so every seed starts from its own machine state), then the words. */
static void sim_seed(struct out *o, const struct tsr_target *t, int ti, const char *name, const uint32_t *w,
		     size_t nb, unsigned flags, const char *src)
{
	unsigned char run[1 + 8 + 4 * 8 * 4];
	size_t wbytes = nb * t->nwords * 4;
	uint64_t h = fnv1a(w, wbytes);
	run[0] = (unsigned char)(flags | (nb - 1));
	for (int k = 0; k < 8; k++)
		run[1 + k] = (unsigned char)(h >> (56 - 8 * k));
	memcpy(run + 9, w, wbytes);
	seed(o, "sim", name, ti, run, 9 + wbytes, src);
}

/* A fuzz_repack input (fuzz/fuzz_repack.c) for the nb instructions at w: 4 seed bytes of the initial state (a
 * hash of the words), then each instruction as a literal item: the control byte 0 and its words. */
static void repack_seed(struct out *o, const struct tsr_target *t, int ti, const char *name, const uint32_t *w,
			size_t nb, const char *src)
{
	unsigned char run[4 + REPACK_RUN * (1 + 4 * 8)];
	size_t wbytes = t->nwords * 4, len = 4;
	uint64_t h = fnv1a(w, nb * wbytes);
	for (int k = 0; k < 4; k++)
		run[k] = (unsigned char)(h >> (56 - 8 * k));
	for (size_t i = 0; i < nb; i++) {
		run[len++] = 0;
		memcpy(run + len, w + i * t->nwords, wbytes);
		len += wbytes;
	}
	seed(o, "repack", name, ti, run, len, src);
}

/* Seeds from one program (n instructions at w) of file path: codec, asm, sim and repack seeds for each
 * instruction of a new shape (sh: the shapes seen), its disassembly in pieces for asm, and its last instructions
 * for repack unless they were a seed already (ends: their hashes). */
static void program_seeds(struct out *o, const struct tsr_target *t, int ti, const char *path,
			  const struct tsr_words *p, struct keyset *sh, struct keyset *ends)
{
	char base[256], name[512];
	base_name(path, base, sizeof base);
	void *inst = calloc(1, t->inst_size);
	unsigned *key = calloc(1 + t->nslots, sizeof *key);
	if (!inst || !key)
		abort();
	size_t wbytes = t->nwords * 4;
	struct tsr_buf text = { 0 };
	for (size_t i = 0; i < p->count; i++) {
		const uint32_t *w = tsr_words_at(p, i);
		memset(inst, 0, t->inst_size);
		t->decode(w, inst);
		key[0] = t->inst_format(inst);
		for (unsigned s = 0; s < t->nslots; s++)
			key[1 + s] = t->inst_op(inst, s);
		if (!keyset_add(sh, key))
			continue;
		char src[600];
		snprintf(src, sizeof src, "%s instruction %zu", path, i);
		snprintf(name, sizeof name, "%s-%s-%zu", t->name, base, i);
		seed(o, "codec", name, ti, w, wbytes, src);
		seed(o, "asm", name, ti, w, wbytes, src);
		size_t nd = p->count - i < DIS_CHUNK ? p->count - i : DIS_CHUNK;
		tsr_buf_clear(&text);
		t->disasm_program(w, nd, (uint64_t)i * t->pc_step, &text);
		snprintf(name, sizeof name, "%s-%s-%zu-dis", t->name, base, i);
		snprintf(src, sizeof src, "%s instructions %zu-%zu disassembled", path, i, i + nd - 1);
		seed(o, "asm", name, ti, text.data, text.len, src);
		snprintf(name, sizeof name, "%s-%s-%zu", t->name, base, i);
		snprintf(src, sizeof src, "%s instruction %zu", path, i);
		if (t->nwords <= 8) {
			sim_seed(o, t, ti, name, w, 1, 0x00, src);
			size_t nb = p->count - i < 4 ? p->count - i : 4;
			snprintf(name, sizeof name, "%s-%s-%zu-run", t->name, base, i);
			snprintf(src, sizeof src, "%s instructions %zu-%zu", path, i, i + nb - 1);
			sim_seed(o, t, ti, name, w, nb, 0x10, src);
			nb = p->count - i < REPACK_RUN ? p->count - i : REPACK_RUN;
			snprintf(name, sizeof name, "%s-%s-%zu", t->name, base, i);
			snprintf(src, sizeof src, "%s instructions %zu-%zu", path, i, i + nb - 1);
			repack_seed(o, t, ti, name, w, nb, src);
		}
	}
	size_t nb = p->count < REPACK_RUN ? p->count : REPACK_RUN, i = p->count - nb;
	uint64_t h = nb ? fnv1a(tsr_words_at(p, i), nb * wbytes) : 0;
	unsigned hk[2] = { (unsigned)h, (unsigned)(h >> 32) };
	if (nb && t->nwords <= 8 && keyset_add(ends, hk)) {   /* the program's end (once: a .hex and its .bin) */
		char src[600];
		snprintf(name, sizeof name, "%s-%s-end", t->name, base);
		snprintf(src, sizeof src, "%s instructions %zu-%zu", path, i, p->count - 1);
		repack_seed(o, t, ti, name, tsr_words_at(p, i), nb, src);
	}
	tsr_buf_free(&text);
	free(inst);
	free(key);
}

/* Seeds from one assembly source (b) of file path: its lines not seen before in this target's sources
 * (blank lines and lines holding only a comment left out), TEXT_LINES to a seed, in their order. */
static void text_seeds(struct out *o, const struct tsr_target *t, int ti, const char *path,
		       const struct tsr_buf *b, struct keyset *seen)
{
	char base[256], name[512], src[700];
	base_name(path, base, sizeof base);
	struct tsr_buf piece = { 0 };
	size_t nlines = 0, first = 0, line = 0, npiece = 0;
	for (const char *p = b->data, *e = b->data + b->len; p < e;) {
		const char *nl = memchr(p, '\n', (size_t)(e - p)), *end = nl ? nl + 1 : e, *q = p;
		line++;
		while (q < end && (*q == ' ' || *q == '\t' || *q == '\r'))
			q++;
		int empty = q == end || *q == '\n' || *q == '#' || (q + 1 < end && q[0] == '/' && q[1] == '/');
		uint64_t h = fnv1a(p, (size_t)(end - p));
		unsigned key[2] = { (unsigned)h, (unsigned)(h >> 32) };
		if (!empty && keyset_add(seen, key)) {
			if (!nlines)
				first = line;
			tsr_buf_append(&piece, p, (size_t)(end - p));
			if (!nl)
				tsr_buf_puts(&piece, "\n");
			nlines++;
		}
		p = end;
		if (nlines == TEXT_LINES || (nlines && p == e)) {
			snprintf(name, sizeof name, "%s-%s-text-%zu", t->name, base, npiece++);
			snprintf(src, sizeof src, "%s lines %zu-%zu, those not seen before", path, first, line);
			seed(o, "asm", name, ti, piece.data, piece.len, src);
			tsr_buf_clear(&piece);
			nlines = 0;
		}
	}
	tsr_buf_free(&piece);
}

/* The target's part of the shared corpus: CORPUS/<t>/ and every CORPUS/<t>-NAME/ (utgard-gp for utgard), in byte
 * order of the names. */
static int corpus_part_files(const char *corpus, const char *t, struct strlist *files)
{
	DIR *d = opendir(corpus);
	if (!d)
		return 0;
	struct strlist names = { 0 };
	size_t tl = strlen(t);
	for (struct dirent *e; (e = readdir(d));)
		if (!strcmp(e->d_name, t) || (!strncmp(e->d_name, t, tl) && e->d_name[tl] == '-'))
			strlist_push(&names, path_join(corpus, e->d_name));
	closedir(d);
	if (names.n)
		qsort(names.v, names.n, sizeof *names.v, cmp_str);
	int rc = 0;
	for (size_t i = 0; i < names.n && !rc; i++) {
		struct stat st;
		if (!stat(names.v[i], &st) && S_ISDIR(st.st_mode))
			rc = list_files(names.v[i], 0, files);
	}
	strlist_free(&names);
	return rc;
}

static int corpus_seeds(struct out *o, const char *corpus, const struct tsr_target *t, int ti)
{
	int rc = 0;
	struct strlist files = { 0 };
	rc = corpus_part_files(corpus, t->name, &files);
	struct keyset sh = { 1 + t->nslots, 0, 0, NULL, NULL }, lines = { 2, 0, 0, NULL, NULL }, ends = lines;
	for (size_t i = 0; i < files.n && !rc; i++) {
		const char *f = files.v[i];
		const char *rel = f + strlen(corpus) + 1;
		if (ends_with(f, ".hex") || ends_with(f, ".bin")) {
			struct tsr_words p;
			struct tsr_diag quiet;   /* a file of other words (Tegra's 64-bit linker programs beside its vertex
			                            programs) is not the target's: skipped, said on one line */
			tsr_diag_init(&quiet, TSR_DIAG_STORE, NULL);
			tsr_words_init(&p, t->word_bits);
			p.msw_first = t->word_msw_first;   /* the files' word order (docs/mdl.md X10) */
			if (tsr_words_read(&p, f, ends_with(f, ".hex") ? TSR_WORDS_HEX : TSR_WORDS_BIN, &quiet) == 0)
				program_seeds(o, t, ti, rel, &p, &sh, &ends);
			else
				fprintf(stderr, "seedgen: note: %s: not %s instructions; skipped\n", rel, t->name);
			tsr_words_free(&p);
			tsr_diag_fini(&quiet);
		} else if (ends_with(f, ".qasm") || ends_with(f, ".s") || ends_with(f, ".asm")) {
			struct tsr_buf b = { 0 };
			rc = tsr_file_read(f, &b, &diag);
			if (!rc)
				text_seeds(o, t, ti, rel, &b, &lines);
			tsr_buf_free(&b);
		}
	}
	free(lines.keys);
	free(lines.used);
	free(ends.keys);
	free(ends.used);
	free(sh.keys);
	free(sh.used);
	strlist_free(&files);
	return rc;
}

/* ---- main --------------------------------------------------------------------------------------- */

static int usage(void)
{
	fputs("usage: seedgen -o OUTDIR [-r ROOT] [-c CORPUS]\n", stderr);
	return 2;
}

int main(int argc, char **argv)
{
	const char *outdir = NULL, *root = ".", *corpus = NULL;
	for (int i = 1; i < argc; i++) {
		if (i + 1 < argc && !strcmp(argv[i], "-o"))
			outdir = argv[++i];
		else if (i + 1 < argc && !strcmp(argv[i], "-r"))
			root = argv[++i];
		else if (i + 1 < argc && !strcmp(argv[i], "-c"))
			corpus = argv[++i];
		else
			return usage();
	}
	if (!outdir || !*outdir)
		return usage();
	tsr_diag_init(&diag, TSR_DIAG_PRINT, stderr);
	char *tmp = malloc(strlen(outdir) + 5);
	if (!tmp)
		abort();
	sprintf(tmp, "%s.tmp", outdir);
	struct out o = { tmp, { 0 }, 0 };
	int rc = 0;
	if (!replaceable(outdir) || !replaceable(tmp))
		rc = tsr_diag_error(&diag, replaceable(outdir) ? tmp : outdir, 0, 0,
				    "not a seed folder (no index.txt) and not empty: not replaced");
	else if (remove_tree(tmp, 3) || tsr_mkdir_p(tmp, &diag))
		rc = tsr_diag_error(&diag, tmp, 0, 0, "cannot make an empty directory");
	if (!rc) {   /* an empty index.txt at once marks the folder as ours (replaceable) */
		char *index = path_join(tmp, "index.txt");
		rc = tsr_file_commit(index, "", 0, &diag);
		free(index);
	}
	if (!rc)
		rc = neg_seeds(&o, root);
	for (int ti = 0; !rc && tsr_all_targets[ti]; ti++) {
		const struct tsr_target *t = tsr_all_targets[ti];
		rc = mdl_seeds(&o, root, t);
		if (!rc && corpus)
			rc = corpus_seeds(&o, corpus, t, ti);
	}
	if (!rc && !o.failed) {
		char *index = path_join(tmp, "index.txt");
		if (tsr_file_commit(index, o.index.data ? o.index.data : "", o.index.len, &diag))
			rc = -1;
		free(index);
	}
	if (!rc && !o.failed && (remove_tree(outdir, 3) || rename(tmp, outdir)))
		rc = tsr_diag_error(&diag, outdir, 0, 0, "cannot replace the directory: %s", strerror(errno));
	if ((rc || o.failed) && replaceable(tmp))
		remove_tree(tmp, 3);
	tsr_buf_free(&o.index);
	free(tmp);
	tsr_diag_fini(&diag);
	return rc || o.failed ? 1 : 0;
}
