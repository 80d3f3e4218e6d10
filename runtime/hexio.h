/* Programs as lists of instruction words: the corpus hex text format and raw binary.
 *
 * A word of W bits (W = 32, 64 or 128) is stored as W/32 uint32_t, least significant 32-bit
 * word first; a program of n words is one array of n * W/32 uint32_t.
 *
 * Hex text format (the corpus's .hex files, e.g. GPU_FFT's as its assembler writes them, here with
 * 64-bit words):
 *     0x00000040, 0xe00217a7, // mov rb_0x40,    0x40
 *   one instruction per line: W/32 values `0x` + 1..8 hex digits (either case), low word first
 *   (high word first when the program's msw_first is set: `0xBITS127_96, ..., 0xBITS31_0,` for 128 bits),
 *   separated by commas, an optional trailing comma, then an optional `//` comment.  The comment
 *   text (blanks around it trimmed) is kept per instruction.  Blank lines and lines holding only
 *   a comment are skipped; `\r\n` line ends are accepted.  Written back as
 *   `0x%08x, 0x%08x, // text` (no ` // text` when there is no comment), which reproduces the
 *   corpus files byte for byte.
 * Binary format: W/8 bytes per instruction, little-endian, low 32-bit word first (high first with msw_first) (the byte
 *   order of a little-endian instruction memory and of a `uint64_t` array on a little-endian host).
 *
 * Errors: parse functions return 0 or -1; each malformed line gives one
 * `file:line:col: error: ...` (1-based line and byte column) through tsr_diag and parsing goes
 * on with the next line, so every bad line is reported (up to the diag's error limit).
 */
#ifndef TSR_HEXIO_H
#define TSR_HEXIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "arena.h"
#include "diag.h"
#include "fileout.h"

/* File formats for instruction words. */
enum tsr_wordfmt {
    TSR_WORDS_AUTO, /* reading only: decide with tsr_words_detect() */
    TSR_WORDS_HEX,  /* corpus hex text */
    TSR_WORDS_BIN,  /* raw little-endian binary */
    TSR_WORDS_ASM   /* reading only: text that is not hex words, i.e. the target's assembly (the
                       tools assemble it; tsr_words_read reads it as hex text, whose parser reports
                       where it is not) */
};

/* A program: `count` instruction words of `width` bits.  Initialise with tsr_words_init(). */
struct tsr_progmeta;   /* runtime/progmeta.h */
struct tsr_words {
    unsigned width;   /* bits per instruction: 32, 64 or 128 */
    size_t count;     /* number of instructions */
    uint32_t *w;      /* count * width/32 values, instruction i at w + i * width/32 */
    const char **comment; /* per instruction: text after `//`, trimmed; NULL if none */
    unsigned *line;   /* per instruction: 1-based source line (hex input), else 0 */
    size_t cap;       /* allocated instructions */
    struct tsr_arena arena; /* owns the comment strings */
    struct tsr_progmeta *meta; /* (addition) what an assembly source said besides its instructions (sections:
                                  runtime/progmeta.h), or NULL; freed with the words */
    bool lean;        /* set before reading: keep no comments (`comment` stays NULL; 4 + width/8 bytes per
                         instruction), for programs of millions of instructions (tsr_words_stream) */
    bool msw_first;   /* set before reading or writing (from the target's word_msw_first, docs/mdl.md X10
                         `word_order`): the files list each instruction's 32-bit values most significant first
                         (hex lines and binary alike, e.g. a driver that uploads the high word first).
                         In memory `w` stays least significant first whatever the files' order. */
};

/* Initialises an empty program of `width`-bit words.  The width is checked by the parse
 * functions (an unsupported width is reported there). */
void tsr_words_init(struct tsr_words *p, unsigned width);

/* Frees everything; `p` keeps its width and is empty afterwards. */
void tsr_words_free(struct tsr_words *p);

/* Number of uint32_t per instruction (width / 32). */
static inline unsigned tsr_words_per(const struct tsr_words *p)
{
    return p->width / 32;
}

/* The uint32_t values of instruction `i` (low word first). */
static inline const uint32_t *tsr_words_at(const struct tsr_words *p, size_t i)
{
    return p->w + i * tsr_words_per(p);
}

/* Instruction `i` of a program of width >= 64 as one 64-bit value (its low 64 bits). */
static inline uint64_t tsr_words_get64(const struct tsr_words *p, size_t i)
{
    const uint32_t *w = tsr_words_at(p, i);
    return (uint64_t)w[0] | (uint64_t)w[1] << 32;
}

/* Appends one instruction (width/32 values at `word`, low first) with an optional comment
 * (copied; NULL for none) and source line (0 if none). */
void tsr_words_push(struct tsr_words *p, const uint32_t *word, const char *comment, unsigned line);

/* Parses `len` bytes of hex text (need not be NUL-terminated), appending to `p`.  `file` is
 * the name used in diagnostics.  Returns 0, or -1 after reporting every malformed line. */
int tsr_hex_parse(struct tsr_words *p, const char *text, size_t len, const char *file,
                  struct tsr_diag *d);

/* Parses raw binary, appending to `p`.  Returns 0, or -1 with
 * `file: error: binary size N is not a multiple of B bytes (W-bit words)`. */
int tsr_bin_parse(struct tsr_words *p, const void *data, size_t len, const char *file,
                  struct tsr_diag *d);

/* Bytes tsr_words_detect() examines at the start of the data. */
#define TSR_DETECT_BYTES 4096

/* Whether data is text: at most a third of its first TSR_DETECT_BYTES bytes are "odd", i.e. neither
 * printable ASCII, tab, LF, VT, FF, CR nor part of a well-formed UTF-8 sequence (the rule of Perl's
 * -T/-B file tests).  Text with a stray NUL or invalid UTF-8 byte stays text (its parser reports the
 * byte with its position); the GPU_FFT shaders as binary are 71-100% odd bytes in any prefix.  Empty
 * data is text. */
int tsr_data_is_text(const void *data, size_t len);

/* The kind of file contents, by content alone (never by name or size): TSR_WORDS_BIN when the data
 * is not text (tsr_data_is_text); for text, TSR_WORDS_HEX when its first line that is neither blank
 * nor a `//` comment starts with `0x` or `0X`, or when there is no such line (empty or comments
 * only: an empty program either way); TSR_WORDS_ASM otherwise. */
enum tsr_wordfmt tsr_words_detect(const void *data, size_t len);

/* Reads the file `path` in format `fmt` (TSR_WORDS_AUTO: detected; TSR_WORDS_ASM is read as hex
 * text, so assembly gives a positioned error), appending to `p`.
 * Returns 0 or -1 (unreadable file, or parse errors as above). */
int tsr_words_read(struct tsr_words *p, const char *path, enum tsr_wordfmt fmt, struct tsr_diag *d);

/* Like tsr_words_read, reading the file in chunks of 64 KiB instead of whole (with p->lean set, memory
 * is the words and their lines only): the same words, lines, comments and diagnostics.  Binary input is
 * read straight into the instruction array, allocated once of the file's size when that is known (a regular
 * file; else grown by doubling), its lines (all 0) calloc'd and not written.  fmt must be TSR_WORDS_HEX or
 * TSR_WORDS_BIN (tsr_words_detect_file tells them from assembly).  Returns 0 or -1. */
int tsr_words_stream(struct tsr_words *p, const char *path, enum tsr_wordfmt fmt, struct tsr_diag *d);

/* What tsr_words_detect() says of the whole file `path` (binary, hex words or assembly), reading only
 * the prefix that settles it (its first TSR_DETECT_BYTES bytes and its first line that is neither blank
 * nor a `//` comment).  Returns 0, or -1 with `path: error: cannot read: <reason>`. */
int tsr_words_detect_file(const char *path, enum tsr_wordfmt *fmt, struct tsr_diag *d);

/* A forward cursor over the comments of a hex file, for messages about a program read with p->lean:
 * tsr_hex_comments_at(c, line) reads on to 1-based `line` (lines asked for must not decrease) and gives
 * that line's comment as tsr_hex_parse keeps it (blanks trimmed; NULL if none or unreadable).  The text
 * stays valid until the next call.  Memory: the longest line. */
struct tsr_hex_comments {
    FILE *f;
    unsigned line;    /* lines read */
    struct tsr_buf text, out;   /* the last line read; the comment given */
};
void tsr_hex_comments_open(struct tsr_hex_comments *c, const char *path);
const char *tsr_hex_comments_at(struct tsr_hex_comments *c, unsigned line);
void tsr_hex_comments_close(struct tsr_hex_comments *c);

/* Appends one instruction (per uint32_t at w, low first) with its comment (NULL or "" for none) as one line
 * of hex text, as tsr_hex_format writes it: its values most significant first when msw_first. */
void tsr_hex_format_one(const uint32_t *w, unsigned per, bool msw_first, const char *comment, struct tsr_buf *out);
/* Appends one instruction (per uint32_t at w, low first) as little-endian bytes (tsr_bin_format's layout):
 * its 32-bit values most significant first when msw_first. */
void tsr_bin_format_one(const uint32_t *w, unsigned per, bool msw_first, struct tsr_buf *out);

/* Appends `p` as hex text, one line per instruction, to `out`. */
void tsr_hex_format(const struct tsr_words *p, struct tsr_buf *out);

/* Appends `p` as raw little-endian binary to `out`. */
void tsr_bin_format(const struct tsr_words *p, struct tsr_buf *out);

/* Writes `p` to `path` in `fmt` (TSR_WORDS_HEX or TSR_WORDS_BIN) with tsr_file_commit().
 * Returns 0 or -1 (reported). */
int tsr_words_write(const struct tsr_words *p, const char *path, enum tsr_wordfmt fmt,
                    struct tsr_diag *d);

#endif
