/* The growable string: a name of any length comes out whole, formatted or appended, and the
 * buffer is reused after a clear (the views format one name per frame into one buffer). */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "lib/strbuf.h"
#include "tests/lib/failnext.h"

Test(strbuf, a_long_name_is_formatted_whole)
{
	static char name[9000];
	memset(name, 'm', sizeof(name) - 1);
	struct jp_str b = { 0 };
	const char *r = jp_str_printf(&b, "%s_[%c]", name, 'i');
	cr_assert_eq(strlen(r), sizeof(name) - 1 + 4);
	cr_assert_eq(b.len, strlen(r));
	cr_assert(!memcmp(r, name, sizeof(name) - 1));
	cr_assert_str_eq(r + sizeof(name) - 1, "_[i]");
	jp_str_printf(&b, "%d", 42);
	cr_assert_str_eq(b.s, "42", "printf replaces what was there");
	cr_assert_eq(jp_str_free(&b), 0);
	cr_assert_null(b.s);
}

Test(strbuf, appends_grow_past_the_first_room)
{
	struct jp_str b = { 0 };
	for (int i = 0; i < 1000; i++)
		jp_str_appendf(&b, "%03d;", i);
	cr_assert_eq(b.len, 4000);
	cr_assert(!strncmp(b.s + 3996, "999;", 5));
	jp_str_append(&b, "xyz", 2);
	cr_assert_eq(b.len, 4002);
	cr_assert_str_eq(b.s + 3996, "999;xy");
	size_t cap = b.cap;
	jp_str_clear(&b);
	cr_assert_str_eq(b.s, "");
	jp_str_appendf(&b, "%s", "again");
	cr_assert_str_eq(b.s, "again");
	cr_assert_eq(b.cap, cap, "the memory is kept");
	jp_str_free(&b);
}

/* Out of memory at any allocation: every call still leaves a string to print, and the free
 * says -ENOMEM; a buffer that never failed frees with 0. */
Test(strbuf, out_of_memory_is_sticky_and_said)
{
	if (!tu_failnext_works())
		cr_skip_test("a sanitizer's allocator is interposed: no allocation can be failed");
	static char name[5000];
	memset(name, 'x', sizeof(name) - 1);
	for (unsigned long n = 1; n <= 3; n++) {
		struct jp_str b = { 0 };
		tu_failnext_arm(n);
		jp_str_printf(&b, "%s", "short");
		const char *r = jp_str_appendf(&b, "%s", name);
		jp_str_append(&b, "tail", 4);
		int fired;
		tu_failnext_disarm(&fired);
		cr_assert_not_null(r);
		cr_assert_eq(strlen(b.s), b.len);
		if (fired) {
			cr_assert(b.nomem, "allocation %lu failed unseen", n);
			cr_assert_lt(b.len, sizeof(name) + 8, "allocation %lu: a whole string", n);
		} else {
			cr_assert_eq(b.len, 5 + sizeof(name) - 1 + 4);
		}
		cr_assert_eq(jp_str_free(&b), fired ? -ENOMEM : 0, "allocation %lu", n);
		cr_assert_eq(b.nomem, 0, "free starts over");
	}
}
