/* test_note.c - synth/note.c, the .note.jitprof reader beside its writer: what synth_build
 * writes reads back field for field; text that is not ours, or is cut, is refused. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "tests/unit/synth/st.h"

Test(note, written_note_reads_back)
{
	struct st_load l;
	struct synth_elf e;
	struct synth_note n;
	char err[256];

	st_load_init(&l, 0);
	l.in.generation = 3;
	l.in.tier = JD_TIER_C2;
	l.in.load_flags = 2;
	l.in.pid = 4321;
	l.in.code_index = 77;
	l.in.timestamp = 123456789;
	l.in.name = "Lcom/acme/Foo;bar with spaces(I)I";
	cr_assert_eq(synth_build(&l.in, &e, JP_ERRBUF_LOG(err)), 0, "%s", err);
	cr_assert_eq(synth_note_read(e.data, e.size, &n), 1);
	cr_assert_eq(n.generation, 3);
	cr_assert_eq(n.tier, JD_TIER_C2);
	cr_assert_eq(n.flags, 2);
	cr_assert_eq(n.pid, 4321);
	cr_assert_eq(n.code_index, 77);
	cr_assert_eq(n.timestamp, 123456789);
	cr_assert_eq(n.code_addr, ST_CODE_ADDR);
	cr_assert_str_eq(n.name, "Lcom/acme/Foo;bar with spaces(I)I");
	synth_elf_free(&e);
}

Test(note, foreign_or_cut_text_refused)
{
	struct synth_note n;
	static const char ok[] = SYNTH_NOTE_PREFIX "generation=2 newkey=9 tier=1 name=x";
	cr_assert_eq(synth_note_parse(ok, sizeof(ok), &n), 0);
	cr_assert_eq(n.generation, 2, "a key a later writer adds is skipped");
	cr_assert_eq(n.tier, 1);
	cr_assert_str_eq(n.name, "x");
	static const char other[] = "GNU";
	cr_assert_eq(synth_note_parse(other, sizeof(other), &n), -EINVAL);
	cr_assert_eq(synth_note_parse(ok, 12, &n), -EINVAL, "no NUL inside: cut");
	static const char bad[] = SYNTH_NOTE_PREFIX "generation=two name=x";
	cr_assert_eq(synth_note_parse(bad, sizeof(bad), &n), -EINVAL);
	static const char junk[] = "not an elf";
	cr_assert_eq(synth_note_read(junk, sizeof(junk), &n), 0);
}
