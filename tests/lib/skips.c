/* skips.c - makes every skip visible: Criterion prints a skipped test only with --verbose and
 * leaves it out of its totals, so a machine without perf, a JDK or node would read green. Each
 * binary that links tests/lib prints "[SKIP] suite::test: reason" for a skipped test, and
 * tu_skip_part prints "[SKIP-PART] ..." for a part of a test that could not run here;
 * scripts/run-tests.sh counts both and lists them with their reasons in its closing block. */
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <stdarg.h>
#include <stdio.h>

#include "tests/lib/testutil.h"

ReportHook(POST_TEST)(struct criterion_test_stats *stats)
{
	if (stats->test_status != CR_STATUS_SKIPPED)
		return;
	fprintf(stderr, "[SKIP] %s::%s: %s\n", stats->test->category, stats->test->name,
		stats->message && *stats->message ? stats->message : "(no reason given)");
}

void tu_skip_part(const char *fmt, ...)
{
	const struct criterion_test *t = criterion_current_test;
	char why[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	fprintf(stderr, "[SKIP-PART] %s::%s: %s\n", t ? t->category : "?", t ? t->name : "?", why);
}
