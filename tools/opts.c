/* Values on the command line, for every command (tools.h "Option values"): numbers with their ranges and
 * lists of numbers, each error printed as `tessera: error: OPTION 'VALUE': what is wrong` (the caller
 * exits with TOOL_EXIT_USAGE). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tools.h"

static int digit(char c, unsigned radix)
{
	unsigned v = c >= '0' && c <= '9' ? (unsigned)(c - '0')
		     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
		     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 99u;
	return v < radix ? (int)v : -1;
}

/* [s, s+n) as an unsigned number (decimal, or 0x and hex digits).  Returns 0, -1 when it is not such a
 * number, -2 when it is one but exceeds 2^64-1. */
static int scan_u64(const char *s, size_t n, uint64_t *v)
{
	unsigned radix = 10;
	size_t i = 0;
	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		radix = 16;
		i = 2;
	}
	if (i == n)
		return -1;
	uint64_t x = 0;
	bool over = false;
	for (; i < n; i++) {
		int d = digit(s[i], radix);
		if (d < 0)
			return -1;
		if (x > (UINT64_MAX - (unsigned)d) / radix)
			over = true;
		x = x * radix + (unsigned)d;
	}
	*v = x;
	return over ? -2 : 0;
}

int tool_opt_number(const char *opt, const char *s, size_t n, uint64_t lo, uint64_t hi, uint64_t *v)
{
	uint64_t x = 0;
	int r = scan_u64(s, n, &x);
	if (r == 0 && x >= lo && x <= hi) {
		*v = x;
		return 0;
	}
	if (r == -1 && !(n > 1 && s[0] == '-' && scan_u64(s + 1, n - 1, &x) != -1))
		fprintf(stderr, "tessera: error: %s '%.*s': not a number (decimal, or 0x and hex digits)\n", opt, (int)n, s);
	else
		fprintf(stderr, "tessera: error: %s '%.*s': out of range %" PRIu64 "..%" PRIu64 "\n", opt, (int)n, s, lo,
			hi);
	return -1;
}

int tool_opt_u64(const char *opt, const char *text, uint64_t lo, uint64_t hi, uint64_t *v)
{
	return tool_opt_number(opt, text, strlen(text), lo, hi, v);
}

int tool_word32(const char *s, size_t n, uint32_t *out, const char **why)
{
	char buf[64];
	bool neg = n && s[0] == '-';
	uint64_t x;
	int r = n ? scan_u64(s + neg, n - neg, &x) : -1;
	if (r != -1) {
		if (r == 0 && (neg ? x <= (uint64_t)INT32_MAX + 1 : x <= UINT32_MAX)) {
			*out = neg ? (uint32_t)(0u - (uint32_t)x) : (uint32_t)x;
			return 0;
		}
		*why = "does not fit in 32 bits (-2147483648..4294967295)";
		return -1;
	}
	char *end;
	if (n && n < sizeof buf && !memchr(s, 'x', n) && !memchr(s, 'X', n)) {
		memcpy(buf, s, n);
		buf[n] = 0;
		errno = 0;
		float f = strtof(buf, &end);
		if (end == buf + n && !(errno == ERANGE && isinf(f))) {
			memcpy(out, &f, 4);
			return 0;
		}
		if (end == buf + n) {
			*why = "is too large for a 32-bit float";
			return -1;
		}
	}
	*why = "is neither a 32-bit integer nor a float";
	return -1;
}

/* One --uniforms entry [s, s+n) (blanks trimmed) as a 32-bit word; see tool_opt_words32. */
static int word32(const char *opt, const char *s, size_t n, unsigned k, uint32_t *out)
{
	char buf[64];
	if (n == 0) {
		fprintf(stderr, "tessera: error: %s: entry %u is empty\n", opt, k);
		return -1;
	}
	bool neg = s[0] == '-';
	uint64_t x;
	int r = scan_u64(s + neg, n - neg, &x);
	if (r != -1) {   /* an integer: -2^31 .. 2^32-1 */
		if (r == 0 && (neg ? x <= (uint64_t)INT32_MAX + 1 : x <= UINT32_MAX)) {
			*out = neg ? (uint32_t)(0u - (uint32_t)x) : (uint32_t)x;
			return 0;
		}
		fprintf(stderr, "tessera: error: %s: entry %u '%.*s' does not fit in 32 bits (-2147483648..4294967295)\n",
			opt, k, (int)n, s);
		return -1;
	}
	/* otherwise a decimal float: strtof must take all of it, and its magnitude must fit binary32
	 * (hex floats are not taken: `0x...` is an integer above) */
	char *end;
	bool hexish = memchr(s, 'x', n) || memchr(s, 'X', n);
	if (n < sizeof buf && !hexish) {
		memcpy(buf, s, n);
		buf[n] = 0;
		errno = 0;
		float f = strtof(buf, &end);
		if (end == buf + n && !(errno == ERANGE && isinf(f))) {
			memcpy(out, &f, 4);
			return 0;
		}
		if (end == buf + n) {
			fprintf(stderr, "tessera: error: %s: entry %u '%.*s' is too large for a 32-bit float\n", opt, k,
				(int)n, s);
			return -1;
		}
	}
	fprintf(stderr, "tessera: error: %s: entry %u '%.*s' is neither a 32-bit integer nor a float\n", opt, k,
		(int)(n < 40 ? n : 40), s);
	return -1;
}

int tool_opt_words32(const char *opt, const char *text, uint32_t *out, size_t max, size_t *count)
{
	size_t n = 0;
	const char *p = text;
	for (unsigned k = 1;; k++) {
		const char *c = strchr(p, ','), *e = c ? c : p + strlen(p);
		const char *b = p;
		while (b < e && (*b == ' ' || *b == '\t'))
			b++;
		while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		if (n == max) {
			fprintf(stderr, "tessera: error: %s: more than %zu entries\n", opt, max);
			return -1;
		}
		if (word32(opt, b, (size_t)(e - b), k, &out[n]))
			return -1;
		n++;
		if (!c)
			break;
		p = c + 1;
	}
	*count = n;
	return 0;
}
