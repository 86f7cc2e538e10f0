/* test_jitted_name.c - rp_is_jitted_name (recorder/report/ingest.c): its hand parser of plain
 * digits gives sscanf("jitted-%llu-%llu.so%n")'s answer on every name, the odd ones (signs,
 * spaces, 20+ digits, suffixes) included; the expectation is sscanf itself, run here. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "recorder/report/report.h"

static void same_as_sscanf(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	unsigned long long p = 0, n = 0;
	int end = 0;
	int want = sscanf(b, "jitted-%llu-%llu.so%n", &p, &n, &end) == 2 && !b[end];
	uint32_t pid = 0;
	uint64_t idx = 0;
	int got = rp_is_jitted_name(path, &pid, &idx);
	cr_assert_eq(got, want, "%s: %d, sscanf says %d", path, got, want);
	if (want) {
		cr_assert_eq(pid, (uint32_t)p, "%s: pid %u, sscanf %llu", path, pid, p);
		cr_assert_eq(idx, (uint64_t)n, "%s: index %llu, sscanf %llu", path,
			     (unsigned long long)idx, n);
	}
}

Test(jitted_name, hand_parser_agrees_with_sscanf)
{
	static const char *const names[] = {
		"jitted-123-4.so", "/tmp/x/jitted-17332-12345.so", "dir/jitted-0-0.so",
		"jitted-4294967296-1.so",		/* pid wider than 32 bits: truncated alike */
		"jitted-1-18446744073709551615.so",	/* 20 digits: sscanf's path */
		"jitted-1-99999999999999999999.so",	/* overflow: sscanf clamps */
		"jitted-1234567890123456789-1.so",	/* 19 digits: the hand path */
		"jitted-+5-6.so", "jitted- 5-6.so", "jitted-5- 6.so", "jitted-5-+6.so",
		"jitted--5-6.so", "jitted-5--6.so", "jitted-5-6.so.1", "jitted-5-6.sox",
		"jitted-5-6.s", "jitted-5-6", "jitted-5.so", "jitted-5-.so", "jitted--.so",
		"jitted-", "jitted", "", "/", "jitted-5-6.so/", "xjitted-5-6.so", "perf-5.map",
		"jitted-05-007.so", "jitted-5_6.so", "jitted-5-6.SO",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		same_as_sscanf(names[i]);
}
