/* Fuzzer: decode -> encode -> decode, for every built target.  The input's first byte picks the
 * target; the rest is taken as instruction words.  Checks: encode(decode(w)) == w bit for bit
 * (docs/mdl.md "Round trips": don't-care bits are preserved), and decoding the re-encoded words
 * gives the same format, ops and fields. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "registry.h"
#include "tsr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t ntargets = 0;
	while (tsr_all_targets[ntargets])
		ntargets++;
	if (!ntargets || size < 1)
		return 0;
	const struct tsr_target *t = tsr_all_targets[data[0] % ntargets];
	data++, size--;
	size_t wbytes = t->nwords * 4;
	unsigned char *a = malloc(t->inst_size), *b = malloc(t->inst_size);
	uint32_t w[8], w2[8];
	for (size_t off = 0; off + wbytes <= size && t->nwords <= 8; off += wbytes) {
		memcpy(w, data + off, wbytes);
		memset(a, 0, t->inst_size);
		memset(b, 0, t->inst_size);
		t->decode(w, a);
		t->encode(a, w2);
		if (memcmp(w, w2, wbytes)) {
			fprintf(stderr, "%s: decode/encode changed word %08x %08x -> %08x %08x\n", t->name, w[0],
				t->nwords > 1 ? w[1] : 0, w2[0], t->nwords > 1 ? w2[1] : 0);
			abort();
		}
		t->decode(w2, b);
		if (t->inst_format(a) != t->inst_format(b))
			abort();
		for (unsigned s = 0; s < t->nslots; s++)
			if (t->inst_op(a, s) != t->inst_op(b, s))
				abort();
		for (unsigned f = 0; f < t->nfields; f++)
			if (t->inst_field(a, f) != t->inst_field(b, f))
				abort();
	}
	free(a);
	free(b);
	return 0;
}
