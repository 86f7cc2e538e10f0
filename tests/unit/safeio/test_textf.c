/* test_textf.c - safeio/textf.c: a message's own text (its newlines) kept, what it quotes
 * escaped; the other conversions as printf makes them; cut to the buffer with the whole
 * length returned; sio_fputs_message keeps only newlines. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>

#include "safeio/safeio.h"

Test(textf, newlines_of_the_message_kept_those_of_data_escaped)
{
	char buf[256];
	int n = sio_snprintf_text(buf, sizeof(buf), "'%s' matches %zu methods:\n  %s\n  %s",
				  "Sort", (size_t)2, "a.B\nfake line", "c\x1b[2Jd");

	cr_assert_str_eq(buf, "'Sort' matches 2 methods:\n  a.B\\x0afake line\n  c\\x1b[2Jd");
	cr_assert_eq(n, (int)strlen(buf));
}

Test(textf, conversions_as_printf)
{
	char buf[256], want[256];
	long long big = -1234567890123LL;
	void *ptr = buf;

	sio_snprintf_text(buf, sizeof(buf), "%d %5u|%-4x|%08.3f %lld %zu %c %p %% %ld %.2e",
			  -7, 42u, 0xabu, 3.14159, big, (size_t)99, 'q', ptr, 1L << 40,
			  12345.678);
	snprintf(want, sizeof(want), "%d %5u|%-4x|%08.3f %lld %zu %c %p %% %ld %.2e", -7, 42u,
		 0xabu, 3.14159, big, (size_t)99, 'q', ptr, 1L << 40, 12345.678);
	cr_assert_str_eq(buf, want);
	sio_snprintf_text(buf, sizeof(buf), "[%*d] [%-*s] [%.*s] [%6s] [%.3s]", 5, 12, 4, "ab", 2,
			  "xyz", "q\x01", "a\nbcd");
	cr_assert_str_eq(buf, "[   12] [ab  ] [xy] [ q\\x01] [a\\x0ab]");
	errno = ENOENT;
	sio_snprintf_text(buf, sizeof(buf), "open: %m");
	cr_assert_str_eq(buf, "open: No such file or directory");
}

Test(textf, cut_to_the_buffer_whole_length_returned)
{
	char buf[8];
	int n = sio_snprintf_text(buf, sizeof(buf), "ab%scd", "\n\n");

	cr_assert_eq(n, 12, "ab + 2 x \\x0a + cd");
	cr_assert_str_eq(buf, "ab\\x0a\\");
	cr_assert_eq(sio_snprintf_text(NULL, 0, "%s-%d", "x", 5), 3);
}

Test(textf, conversion_not_taken)
{
	char buf[32];
	int at;

	cr_assert_eq(sio_snprintf_text(buf, sizeof(buf), "a%nb", &at), -1);
}

Test(textf, message_keeps_its_newlines_only)
{
	char *p = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&p, &len);

	cr_assert_not_null(f);
	cr_assert_eq(sio_fputs_message("two\nlines\x1b[0m\t\xff", f), 0);
	fclose(f);
	cr_assert_str_eq(p, "two\nlines\\x1b[0m\\x09\\xff");
	free(p);
}
