/* test_kallsyms.c - recorder/symbols/kallsyms.c's reader at the edges of a mapped file. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "recorder/symbols/symbols_int.h"
#include "tests/lib/testutil.h"

/* Issue 34 finding 6: a kallsyms file whose last line is only an address, without newline,
 * ending at a page's end: the reader looked at the byte after the address (*p at p == end),
 * one past the mapping. The file is mapped where a PROT_NONE page follows it, so that read
 * faults; the line is skipped and the symbols before it are read. */
Test(kallsyms, last_line_of_digits_at_a_page_end, .timeout = 30)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), len = 2 * pg;
	static const char head[] = "ffffffff81000000 T _text\nffffffff81000100 T ",
			  tail[] = "ffffffff81000600";
	char *text = malloc(len), *dir = tu_tmpdir("sym-kallsyms"), path[4200];
	cr_assert(text && dir);
	memcpy(text, head, sizeof(head) - 1);
	/* the second symbol's name fills the file up to the last line */
	memset(text + sizeof(head) - 1, 'x', len - (sizeof(head) - 1) - sizeof(tail));
	text[len - sizeof(tail)] = '\n';
	memcpy(text + len - (sizeof(tail) - 1), tail, sizeof(tail) - 1);
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	cr_assert_eq(tu_write_file(path, text, len), 0);

	/* a hole of the file's size just below a PROT_NONE page: the next mapping of that size
	 * goes there (the kernel picks the highest gap that fits) */
	char *r = mmap(NULL, len + pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert(r != MAP_FAILED);
	cr_assert_eq(munmap(r, len), 0);
	struct kallsyms k;
	int rc = kallsyms_open(&k, path, "_text", 0);
	cr_assert_eq(rc, 0);
	if (!k.mapped || k.text != r) {
		kallsyms_free(&k);
		cr_skip_test("the file was not mapped before the guard page (%p, hole %p)",
			     (void *)k.text, (void *)r);
	}
	cr_expect_eq(k.n, 2);
	cr_expect_eq(k.v[0].addr, 0xffffffff81000000ull);
	cr_expect_eq(k.v[1].addr, 0xffffffff81000100ull);
	kallsyms_free(&k);
	munmap(r + len, pg);
	tu_rmtree(dir);
	free(dir);
	free(text);
}
