/* Unit tests of runtime/fileout.c: the growing buffer, atomic commits (whole and streamed), reading in chunks,
 * special files written in place. */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support_capture.h"
#include "tsr.h"

/* ---- fileout ---------------------------------------------------------------------------- */

Test(fileout, buffer_grows_and_stays_terminated)
{
    struct tsr_buf b = {0};
    tsr_buf_puts(&b, "");
    cr_assert_not_null(b.data);
    cr_assert_str_eq(b.data, "");
    for (int i = 0; i < 1000; i++)
        tsr_buf_printf(&b, "%d,", i % 10);
    cr_assert_eq(b.len, 2000);
    cr_assert_eq(b.data[2000], '\0');
    cr_assert_eq(strncmp(b.data, "0,1,2,", 6), 0);
    tsr_buf_append(&b, "x\0y", 3);
    cr_assert_eq(b.len, 2003);
    cr_assert_eq(b.data[2002], 'y');
    tsr_buf_clear(&b);
    cr_assert_eq(b.len, 0);
    cr_assert_str_eq(b.data, "");
    tsr_buf_free(&b);
    cr_assert_null(b.data);
}

Test(fileout, commit_writes_atomically_and_leaves_no_temporary)
{
    char *dir = make_tmpdir();
    char path[4200];
    snprintf(path, sizeof path, "%s/sub/out.c", dir);
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    char sub[4200];
    snprintf(sub, sizeof sub, "%s/sub/deeper", dir);
    cr_assert_eq(tsr_mkdir_p(sub, &d), 0);
    cr_assert_eq(tsr_mkdir_p(sub, &d), 0); /* existing: fine */
    cr_assert_eq(tsr_file_commit(path, "hello\n", 6, &d), 0);
    struct tsr_buf b = {0};
    cr_assert_eq(tsr_file_read(path, &b, &d), 0);
    cr_assert_str_eq(b.data, "hello\n");
    /* identical content: not rewritten, timestamp kept */
    struct timeval old[2] = {{1000000000, 0}, {1000000000, 0}};
    cr_assert_eq(utimes(path, old), 0);
    cr_assert_eq(tsr_file_commit(path, "hello\n", 6, &d), 0);
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    cr_assert_eq(st.st_mtime, 1000000000);
    /* different content replaces it */
    cr_assert_eq(tsr_file_commit(path, "bye\n", 4, &d), 0);
    tsr_buf_clear(&b);
    cr_assert_eq(tsr_file_read(path, &b, &d), 0);
    cr_assert_str_eq(b.data, "bye\n");
    char subdir[4200];
    snprintf(subdir, sizeof subdir, "%s/sub", dir);
    cr_assert_eq(count_entries(subdir, ".tmp."), 0);
    cr_assert_eq(count_entries(subdir, ""), 2); /* out.c and deeper */
    cr_assert_eq(d.count, 0);
    tsr_buf_free(&b);
    tsr_diag_fini(&d);
    rmtree(dir);
}

/* The streaming writer: nothing at the path before the commit, the whole text after it, no temporary left;
 * unchanged bytes keep the file and its timestamp; an abort or a failed rename leaves the old file alone. */
Test(fileout, streamed_output_commits_atomically)
{
    char *dir = make_tmpdir();
    char path[4200];
    snprintf(path, sizeof path, "%s/out.s", dir);
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    struct tsr_fileout o;
    struct tsr_buf want = {0}, got = {0};
    cr_assert_eq(tsr_fileout_open(&o, path, &d), 0);
    for (int i = 0; i < 100000; i++) {
        char line[64];
        int n = snprintf(line, sizeof line, "line %d\n", i);
        tsr_buf_append(&want, line, (size_t)n);
        cr_assert_eq(tsr_fileout_write(&o, line, (size_t)n), 0);
    }
    cr_assert_eq(access(path, F_OK), -1, "the path exists before the commit");
    cr_assert_eq(count_entries(dir, ".tmp."), 1);
    cr_assert_eq(tsr_fileout_commit(&o, &d), 0);
    cr_assert_eq(tsr_file_read(path, &got, &d), 0);
    cr_assert_eq(got.len, want.len);
    cr_assert_eq(memcmp(got.data, want.data, want.len), 0);
    cr_assert_eq(count_entries(dir, ".tmp."), 0);
    /* the same bytes again: not rewritten */
    struct timeval old[2] = {{1000000000, 0}, {1000000000, 0}};
    cr_assert_eq(utimes(path, old), 0);
    cr_assert_eq(tsr_fileout_open(&o, path, &d), 0);
    cr_assert_eq(tsr_fileout_write(&o, want.data, want.len), 0);
    cr_assert_eq(tsr_fileout_commit(&o, &d), 0);
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    cr_assert_eq(st.st_mtime, 1000000000);
    /* a prefix of them: rewritten */
    cr_assert_eq(tsr_fileout_open(&o, path, &d), 0);
    cr_assert_eq(tsr_fileout_write(&o, want.data, 10), 0);
    cr_assert_eq(tsr_fileout_commit(&o, &d), 0);
    tsr_buf_clear(&got);
    cr_assert_eq(tsr_file_read(path, &got, &d), 0);
    cr_assert_eq(got.len, 10);
    /* aborted: the old file stays, no temporary */
    cr_assert_eq(tsr_fileout_open(&o, path, &d), 0);
    cr_assert_eq(tsr_fileout_write(&o, "x", 1), 0);
    tsr_fileout_abort(&o);
    tsr_buf_clear(&got);
    cr_assert_eq(tsr_file_read(path, &got, &d), 0);
    cr_assert_eq(got.len, 10);
    cr_assert_eq(count_entries(dir, ""), 1);
    cr_assert_eq(d.count, 0);
    /* over a directory: the rename fails, reported, the temporary removed; a missing directory: no open */
    char target[4200], want_msg[4400];
    snprintf(target, sizeof target, "%s/isdir", dir);
    cr_assert_eq(mkdir(target, 0777), 0);
    cr_assert_eq(tsr_fileout_open(&o, target, &d), 0);
    cr_assert_eq(tsr_fileout_write(&o, "data", 4), 0);
    cr_assert_eq(tsr_fileout_commit(&o, &d), -1);
    snprintf(want_msg, sizeof want_msg, "%s: error: cannot write: Is a directory", target);
    cr_assert_str_eq(d.entries[0].text, want_msg);
    snprintf(target, sizeof target, "%s/no/such.s", dir);
    cr_assert_eq(tsr_fileout_open(&o, target, &d), -1);
    snprintf(want_msg, sizeof want_msg, "%s: error: cannot write: No such file or directory", target);
    cr_assert_str_eq(d.entries[1].text, want_msg);
    cr_assert_eq(count_entries(dir, ""), 2);   /* out.s and isdir */
    tsr_buf_free(&want);
    tsr_buf_free(&got);
    tsr_diag_fini(&d);
    rmtree(dir);
}

/* tsr_lines: every line of a file with lines across chunks, one longer than three chunks, CRLF kept, NULs, no
 * final newline; the same lines again after a rewind; a missing file reported. */
Test(fileout, lines_read_in_chunks)
{
    char *dir = make_tmpdir();
    char path[4200];
    snprintf(path, sizeof path, "%s/t.s", dir);
    struct tsr_buf want = {0};
    for (int i = 0; i < 30000; i++) {
        tsr_buf_printf(&want, "line %d%s\n", i, i % 3 ? "" : "\r");
        if (i == 777) {
            for (int k = 0; k < 200000; k++) {   /* a NUL every 1000 bytes */
                char c = k % 1000 ? 'x' : '\0';
                tsr_buf_append(&want, &c, 1);
            }
            tsr_buf_append(&want, "\n\n", 2);
        }
    }
    tsr_buf_append(&want, "a\0b", 3);   /* a NUL inside the last line, which has no '\n' */
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    cr_assert_eq(tsr_file_commit(path, want.data, want.len, &d), 0);
    struct tsr_lines r;
    cr_assert_eq(tsr_lines_open(&r, path, &d), 0);
    for (int round = 0; round < 2; round++) {
        struct tsr_buf got = {0};
        const char *b, *e;
        size_t lines = 0;
        while (tsr_lines_next(&r, &b, &e)) {
            tsr_buf_append(&got, b, (size_t)(e - b));
            tsr_buf_append(&got, "\n", 1);
            lines++;
        }
        cr_assert_eq(r.err, 0);
        cr_assert_eq(lines, 30000u + 2u + 1u);
        cr_assert_eq(got.len, want.len + 1);   /* the last line gets its '\n' back here */
        cr_assert_eq(memcmp(got.data, want.data, want.len), 0, "round %d", round);
        tsr_buf_free(&got);
        cr_assert_eq(tsr_lines_rewind(&r), 0);
    }
    tsr_lines_close(&r);
    cr_assert_eq(tsr_lines_open(&r, "/nonexistent/t.s", &d), -1);
    cr_assert_str_eq(d.entries[0].text, "/nonexistent/t.s: error: cannot read: No such file or directory");
    tsr_buf_free(&want);
    tsr_diag_fini(&d);
    rmtree(dir);
}

/* Reads everything from the FIFO path in a child process; returns its pid (the byte count is its exit
 * status, capped at 255). */
static pid_t drain_fifo(const char *path)
{
    pid_t pid = fork();
    if (pid == 0) {
        FILE *f = fopen(path, "rb");
        size_t n = 0;
        while (f && fgetc(f) != EOF)
            n++;
        _exit(n > 255 ? 255 : (int)n);
    }
    return pid;
}

/* A device or FIFO given as the output is written in place (a rename over it would replace it with a regular
 * file, as `tessera dis -o /dev/full` once did), by tsr_file_commit and by the streamed writer. */
Test(fileout, special_files_written_in_place, .timeout = 30)
{
    char *dir = make_tmpdir();
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    char fifo[4200];
    snprintf(fifo, sizeof fifo, "%s/pipe", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    for (int streamed = 0; streamed < 2; streamed++) {
        pid_t pid = drain_fifo(fifo);
        cr_assert_gt(pid, 0);
        if (streamed) {
            struct tsr_fileout o;
            cr_assert_eq(tsr_fileout_open(&o, fifo, &d), 0);
            cr_assert_eq(tsr_fileout_write(&o, "0123456789", 10), 0);
            cr_assert_eq(tsr_fileout_commit(&o, &d), 0);
        } else {
            cr_assert_eq(tsr_file_commit(fifo, "abcdefg", 7, &d), 0);
        }
        int st = 0;
        cr_assert_eq(waitpid(pid, &st, 0), pid);
        cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == (streamed ? 10 : 7));
        struct stat sb;
        cr_assert_eq(stat(fifo, &sb), 0);
        cr_expect(S_ISFIFO(sb.st_mode), "the FIFO was replaced");
        cr_expect_eq(count_entries(dir, ""), 1);   /* no temporary left */
    }
    cr_expect_eq(d.count, 0);
    tsr_diag_fini(&d);
    remove(fifo);
    rmtree(dir);
}

Test(fileout, failed_commit_leaves_no_file)
{
    char *dir = make_tmpdir();
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    /* The target is a directory: the temporary is written, the rename fails, and the
     * temporary must be gone afterwards. */
    char target[4200], want[4400];
    snprintf(target, sizeof target, "%s/isdir", dir);
    cr_assert_eq(mkdir(target, 0777), 0);
    cr_assert_eq(tsr_file_commit(target, "data", 4, &d), -1);
    cr_assert_eq(count_entries(dir, ""), 1); /* only isdir itself */
    snprintf(want, sizeof want, "%s: error: cannot write: Is a directory", target);
    cr_assert_str_eq(d.entries[0].text, want);
    /* A missing parent directory: nothing is created. */
    char missing[4200];
    snprintf(missing, sizeof missing, "%s/no/such/file.c", dir);
    cr_assert_eq(tsr_file_commit(missing, "data", 4, &d), -1);
    cr_assert_eq(count_entries(dir, ""), 1);
    snprintf(want, sizeof want, "%s: error: cannot write: No such file or directory", missing);
    cr_assert_str_eq(d.entries[1].text, want);
    /* mkdir -p through a regular file fails with a diagnostic */
    char file[4200], through[4300];
    snprintf(file, sizeof file, "%s/plain", dir);
    cr_assert_eq(tsr_file_commit(file, "", 0, &d), 0);
    snprintf(through, sizeof through, "%s/x", file);
    cr_assert_eq(tsr_mkdir_p(through, &d), -1);
    snprintf(want, sizeof want, "%s: error: cannot create directory: Not a directory", file);
    cr_assert_str_eq(d.entries[2].text, want);
    tsr_diag_fini(&d);
    rmtree(dir);
}
