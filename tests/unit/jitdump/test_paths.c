/* test_paths.c - jitdump/paths.c: perf's marker-name rule and the companion name. */
#include <criterion/criterion.h>
#include <errno.h>

#include "jitdump/jitdump.h"

Test(paths, marker_names)
{
	uint32_t pid = 0;
	cr_assert(jd_is_marker_name("/a/b/jit-1234.dump", &pid));
	cr_assert_eq(pid, 1234);
	cr_assert(jd_is_marker_name("jit-7.dump", NULL));
	const char *no[] = { "/a/jit-.dump", "/a/jit-12.dump.jitprof", "/a/xjit-12.dump",
			     "/a/jit-12a.dump", "/a/jit-12.dum", "/a/jit-99999999999.dump",
			     "/jit-12.dump/", "" };
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		cr_assert_not(jd_is_marker_name(no[i], &pid), "%s accepted", no[i]);
}

Test(paths, companion_name)
{
	char buf[64];
	cr_assert_eq(jd_ext_path("/t/jit-9.dump", buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "/t/jit-9.dump.jitprof");
	cr_assert_eq(jd_ext_path("/t/jit-9.dump", buf, 21), -ENAMETOOLONG);
	cr_assert_eq(jd_ext_path("/t/jit-9.dump", buf, 22), 0);
}
