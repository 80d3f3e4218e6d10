/* Where the shared corpus lives, a directory of hex programs in it, and the seed programs that are not hex
 * files: helpers for the tests and benchmarks (libtools.a), so that each program is read by one piece of code. */
#ifndef TOOLS_CORPUS_H
#define TOOLS_CORPUS_H
#include <stddef.h>
#include "hexio.h"

/* The shared directory (holding corpus/, seeds/, isa/) into buf (n bytes, NUL-terminated, truncated to
 * fit): $TESSERA_SHARED if set and non-empty, else $TESSERA_ROOT/../shared if TESSERA_ROOT is set, else
 * ../shared relative to the working directory (the repository root, where `ninja test` and `ninja bench`
 * run). */
void corpus_shared_dir(char *buf, size_t n);

/* The names of the .hex files of directory `dir` (a path, not relative to the shared directory): the first max
 * that it lists, in file-name order, into names[0 .. n-1] (strdup'ed: the caller frees them).  Returns n, or -1
 * with a one-line message in err (errlen bytes) when the directory cannot be opened. */
int corpus_hex_names(const char *dir, char **names, int max, char *err, size_t errlen);

/* The programs of directory `rel` of the shared directory (its .hex files, low word first: the 16 GPU_FFT
 * programs, say), in file-name order: initialises and reads progs[0 .. n-1] (width bits an instruction; the
 * caller frees them) for n at most max.  Returns n, or -1 with a one-line message in err (errlen bytes) when the
 * directory or a file cannot be read (the programs read so far are freed). */
int corpus_hex_read(const char *rel, unsigned width, struct tsr_words *progs, int max, char *err, size_t errlen);

/* The seed with the blob's shader listings (relative to the shared directory) and their number. */
#define CORPUS_BLOB_SEED "seeds/003_d3a94b40d2ad3247.txt"
#define CORPUS_BLOBS 3
#define CORPUS_BLOB_MAX 64   /* instructions read from one listing at most */

/* Reads the k-th (0-based, k < CORPUS_BLOBS) "('shader code' ADDR BYTES)" listing of the blob in
 * CORPUS_BLOB_SEED: lines `AAAAAAAA: LOW HIGH text`, one 64-bit instruction each (low 32-bit word
 * first), up to the first line that does not start with '0'.  Appends the instructions (at most
 * CORPUS_BLOB_MAX; the listed text becomes each one's comment) to out, which must be initialised with
 * width 64.  Returns 0, or -1 with a one-line message in err (errlen bytes) when the seed cannot be read
 * or the listing is missing or empty. */
int corpus_blob_read(int k, struct tsr_words *out, char *err, size_t errlen);
#endif
