/* X4 composite fields and slices (docs/mdl.md "Composite fields and slices") on tests/desc/composite.mdl: the
 * decoder computes a composite and slices from the word, the assembler routes a value bound to one into the fields
 * that hold its bits (an inverted bit stored complemented), conflicts are found bit by bit, and every word
 * round-trips through decode/encode and disassemble/assemble. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "composite.h"
#include "target.h"
#include "tsr.h"
#include "support_san.h"

extern const struct tsr_target composite_target;

static int asm1(const char *text, uint32_t *w, char *err, size_t n)
{
	return composite_target.assemble_one(text, strlen(text), 0, w, err, n);
}

static unsigned fld(const char *name)
{
	for (unsigned f = 0; f < composite_target.nfields; f++)
		if (!strcmp(composite_target.field_names[f], name))
			return f;
	cr_assert_fail("no field %s", name);
	return 0;
}

Test(composite, decoder_computes_composites_and_slices)
{
	/* op 1, m = 0b01110 (kind 3, component 2), lo = 0x0a, hi = 0xc, k bit 5 = 0 */
	uint32_t w = 1u << 28 | 0x0eu << 23 | 0x0au << 16 | 0xcu << 12;
	struct composite_inst inst;
	cr_assert_eq(composite_target.decode(&w, &inst), 0);
	uint64_t imm = composite_target.inst_field(&inst, fld("imm"));
	cr_expect_eq(imm, 0xcu << 5 | 0xau << 1 | 1u, "imm = %#llx", (unsigned long long)imm);
	cr_expect_eq(composite_target.inst_field(&inst, fld("m__4_2")), 3);
	cr_expect_eq(composite_target.inst_field(&inst, fld("m__1_0")), 2);
	struct tsr_buf text = { 0 };
	composite_target.disasm(&w, 0, &text);
	tsr_buf_append(&text, "", 1);
	cr_expect_str_eq(text.data, "li 405, t2");
	/* lo's bits 6:4 are no bit of imm: a word with them set needs an override */
	w |= 0x50u << 16;
	tsr_buf_clear(&text);
	composite_target.disasm(&w, 0, &text);
	tsr_buf_append(&text, "", 1);
	cr_expect_str_eq(text.data, "li 405, t2 {lo=0x5a}");
	tsr_buf_free(&text);
}

Test(composite, assembler_routes_bits)
{
	uint32_t w = 0;
	char err[256];
	/* imm = 0x1fe: hi = 0xf, lo[3:0] = 0xf, k[5] stored inverted: 1; r.z: m = 0b00010 */
	cr_assert_eq(asm1("li 0x1fe, r.z", &w, err, sizeof err), 0, "%s", err);
	cr_expect_eq(w, 1u << 28 | 0x02u << 23 | 0x0fu << 16 | 0xfu << 12 | 1u << 5, "%08x", w);
	cr_assert_eq(asm1("li 1, p20", &w, err, sizeof err), 0, "%s", err);
	cr_expect_eq(w, 1u << 28 | 20u << 23, "%08x", w);
	/* lo = 0x35 and imm's bits of lo[3:0] (0x5) agree; lo[6:4] comes from lo; imm bit 0 = 1: k[5] = 0 */
	cr_assert_eq(asm1("set 0x35, 0xb", &w, err, sizeof err), 0, "%s", err);
	cr_expect_eq(w, 2u << 28 | 21u << 23 | 0x35u << 16, "%08x", w);
	cr_assert_eq(asm1("set 0x35, 0xa", &w, err, sizeof err), 0, "%s", err);
	cr_expect_eq(w, 2u << 28 | 21u << 23 | 0x35u << 16 | 1u << 5, "%08x", w);
	/* a binding slice: lo[6:4] == 5 and nothing else of lo */
	cr_assert_eq(asm1("sub 7", &w, err, sizeof err), 0, "%s", err);
	cr_expect_eq(w, 3u << 28 | 21u << 23 | 0x50u << 16 | 7u, "%08x", w);
}

Test(composite, conflicts_per_bit)
{
	uint32_t w = 0;
	char err[256];
	/* lo = 3 (low bits 0011) against imm = 0x1e (its lo[3:0] = 1111) */
	cr_assert_eq(asm1("set 3, 0x1e", &w, err, sizeof err), -1);
	cr_expect(strstr(err, "lo is already used by '3'"), "%s", err);
	/* k = 0x20 sets word bit 5, which imm's bit 0 holds inverted: imm must be even */
	cr_assert_eq(asm1("kim 0x20, 1", &w, err, sizeof err), -1);
	cr_expect(strstr(err, "k is already used by '0x20'"), "%s", err);
	cr_assert_eq(asm1("kim 0x20, 0x40", &w, err, sizeof err), 0, "%s", err);
	cr_expect_eq(w, 4u << 28 | 21u << 23 | 2u << 12 | 0x20u, "%08x", w);
	cr_assert_eq(asm1("kim 0, 0x41", &w, err, sizeof err), 0, "%s", err);
	cr_expect_eq(w, 4u << 28 | 21u << 23 | 2u << 12, "%08x", w);
}

Test(composite, random_words_round_trip)
{
	uint64_t x = 0x2545f4914f6cdd1du;
	struct tsr_buf text = { 0 };
	char err[256];
	unsigned n = 0, ok = 0;
	const int count = (int)test_random_count("composite random words", 200000);
	for (int i = 0; i < count; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		uint32_t w = (uint32_t)(x >> 11), back = 0, again = 0;
		w = (w & 0x0fffffffu) | (uint32_t)(i % 5) << 28;
		struct composite_inst inst;
		composite_target.decode(&w, &inst);
		composite_target.encode(&inst, &back);
		cr_assert_eq(back, w);
		tsr_buf_clear(&text);
		composite_target.disasm(&w, 0, &text);
		int rc = composite_target.assemble_one(text.data, text.len, 0, &again, err, sizeof err);
		n++;
		ok += !rc && again == w;
		cr_expect(!rc && again == w, "%08x '%.*s': %s", w, (int)text.len, text.data, rc ? err : "different bits");
		if (!(!rc && again == w))
			break;
	}
	printf("composite random: %u words, %u disassemble->assemble exact\n", n, ok);
	cr_assert_eq(ok, n);
	tsr_buf_free(&text);
}
