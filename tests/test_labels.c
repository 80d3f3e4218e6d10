/* Label holes with a unit and a next-relative base (docs/mdl.md X9), generated swizzle and mask tables (X11's text
 * side) and the files' word order (X10) on tests/desc/labels.mdl, a description made for them: 8-byte
 * instructions, `b` counting instructions from the next one, `call` an absolute instruction number, `bp` units of
 * 4 bytes from pc + 4. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "labels.h"
#include "tsr.h"

static unsigned field_index(const char *name)
{
	for (unsigned i = 0; i < labels_target.nfields; i++)
		if (!strcmp(labels_target.field_names[i], name))
			return i;
	cr_assert_fail("no field %s", name);
	return 0;
}

static uint64_t field_of(const uint32_t *w, const char *name)
{
	void *inst = malloc(labels_target.inst_size);
	cr_assert_eq(labels_target.decode(w, inst), 0);
	uint64_t v = labels_target.inst_field(inst, field_index(name));
	free(inst);
	return v;
}

static const char program[] =
	"start:\n"
	"    nop\n"
	"    b start\n"              /* at 8: (0 - 16) / 8 = -2 */
	"    call end\n"             /* end = 32: 4 */
	"    bp start\n"             /* at 24: (0 - (24 + 4)) / 4 = -7 */
	"end:\n"
	"    b end\n"                /* at 32: (32 - 40) / 8 = -1 */
	"    mov r.x*z*, r.wzyx\n";

Test(labels, unit_and_next)
{
	struct tsr_words w;
	struct tsr_diag d;
	tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
	tsr_words_init(&w, 64);
	cr_assert_eq(tsr_tc_assemble(&labels_tc_isa, "p.s", program, strlen(program), &w, &d), 0);
	cr_assert_eq(w.count, 6);
	cr_expect_eq((int32_t)field_of(tsr_words_at(&w, 1), "off"), -2);
	cr_expect_eq(field_of(tsr_words_at(&w, 2), "tgt"), 4);
	cr_expect_eq((int32_t)field_of(tsr_words_at(&w, 3), "off"), -7);
	cr_expect_eq((int32_t)field_of(tsr_words_at(&w, 4), "off"), -1);
	cr_expect_eq(field_of(tsr_words_at(&w, 5), "m"), 0xa, "x*z*: bits 3 and 1");
	cr_expect_eq(field_of(tsr_words_at(&w, 5), "s"), 0xe4, "wzyx: 3, 2, 1, 0 from bits 7:6 down");
	/* the disassembly prints the targets as labels and reads back as the same words */
	struct tsr_buf text = { 0 };
	labels_target.disasm_program(w.w, w.count, 0, &text);
	cr_expect(strstr(text.data, "L0:") && strstr(text.data, "L20:"), "labels at 0 and 0x20:\n%s", text.data);
	cr_expect(strstr(text.data, "b L0") && strstr(text.data, "call L20") && strstr(text.data, "bp L0") &&
		  strstr(text.data, "b L20") && strstr(text.data, "mov r.x*z*, r.wzyx"), "%s", text.data);
	struct tsr_words back;
	tsr_words_init(&back, 64);
	cr_assert_eq(tsr_tc_assemble(&labels_tc_isa, "dis.s", text.data, text.len, &back, &d), 0);
	cr_expect_arr_eq(back.w, w.w, w.count * 8);
	/* the same at another base: labels are addresses, the fields do not change */
	struct tsr_words at;
	tsr_words_init(&at, 64);
	cr_assert_eq(tsr_tc_assemble_at(&labels_tc_isa, "p.s", program, strlen(program), 0x100, &at, &d), 0);
	cr_expect_eq(field_of(tsr_words_at(&at, 2), "tgt"), 0x24, "call's target is absolute: (0x100 + 32) / 8");
	cr_expect_arr_eq(tsr_words_at(&at, 1), tsr_words_at(&w, 1), 8, "b is relative: the same word");
	tsr_buf_free(&text);
	tsr_words_free(&w);
	tsr_words_free(&back);
	tsr_words_free(&at);
	tsr_diag_fini(&d);
}

Test(labels, errors)
{
	static const struct { const char *text, *msg; } bad[] = {
		{ "call 12", "label target '12' is not a multiple of the label's unit" },
		{ "b 4", "offset to '4' is not a multiple of the label's unit" },
		{ "call 0x8000", "does not fit field tgt" },
		{ "bp 3", "not a multiple" },
		{ "mov r.xz**, r.xyzw", "" },
	};
	for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
		uint32_t w[2];
		char err[256] = "";
		cr_expect_neq(labels_target.assemble_one(bad[k].text, strlen(bad[k].text), 0x40, w, err, sizeof err), 0,
			      "'%s' assembled", bad[k].text);
		cr_expect(strstr(err, bad[k].msg), "'%s': message '%s', expected '%s'", bad[k].text, err, bad[k].msg);
	}
	uint32_t w[2];
	char err[256];
	cr_expect_eq(labels_target.assemble_one("bp 0x40", 7, 0x40, w, err, sizeof err), 0, "%s", err);
	cr_expect_eq((int32_t)field_of(w, "off"), -1, "(0x40 - 0x44) / 4");
}

Test(labels, every_mask_and_swizzle_has_a_name)
{
	unsigned named = 0;
	for (unsigned mk = 0; mk < 16; mk++)
		for (unsigned sw = 0; sw < 256; sw++) {
			uint32_t w[2] = { 0, (uint32_t)(4u << 28 | mk << 12 | sw << 4) }, back[2];
			struct tsr_buf text = { 0 };
			char err[256];
			labels_target.disasm(w, 0, &text);
			named += !strchr(text.data, '{') && strncmp(text.data, ".word", 5);
			cr_expect_eq(labels_target.assemble_one(text.data, text.len, 0, back, err, sizeof err), 0, "%s", err);
			cr_expect_arr_eq(back, w, 8, "'%s'", text.data);
			tsr_buf_free(&text);
		}
	cr_expect_eq(named, 16 * 256, "every mask and swizzle prints as a name");
}

Test(labels, files_list_the_high_word_first)
{
	cr_assert(labels_target.word_msw_first);
	struct tsr_words w;
	struct tsr_diag d;
	tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
	tsr_words_init(&w, 64);
	w.msw_first = true;
	static const char hex[] = "0x40000a1b, 0x00000000, // mov\n";
	cr_assert_eq(tsr_hex_parse(&w, hex, strlen(hex), "h.hex", &d), 0);
	cr_expect_eq(w.w[1], 0x40000a1bu, "the first value is the high word");
	cr_expect_eq(w.w[0], 0u);
	struct tsr_buf out = { 0 };
	tsr_hex_format(&w, &out);
	cr_expect_str_eq(out.data, "0x40000a1b, 0x00000000, // mov\n");
	tsr_buf_clear(&out);
	tsr_bin_format(&w, &out);
	static const unsigned char bin[8] = { 0x1b, 0x0a, 0x00, 0x40, 0, 0, 0, 0 };
	cr_expect(out.len == 8 && !memcmp(out.data, bin, 8), "binary: the high word first, each little-endian");
	struct tsr_words b;
	tsr_words_init(&b, 64);
	b.msw_first = true;
	cr_assert_eq(tsr_bin_parse(&b, bin, 8, "h.bin", &d), 0);
	cr_expect_arr_eq(b.w, w.w, 8);
	tsr_buf_free(&out);
	tsr_words_free(&w);
	tsr_words_free(&b);
	tsr_diag_fini(&d);
}
