/* test_malloc_tune.c - lib/malloc_tune.c: which GLIBC_TUNABLES a batch command re-executes
 * with (the user's own kept, a malloc setting of theirs left alone, the switch obeyed), and
 * the re-executed image handing the caller's environment back to whatever it starts. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/malloc_tune.h"

Test(malloc_tune, ours_alone_when_the_caller_sets_none)
{
	char v[512];
	cr_assert_eq(jp_malloc_tunables(NULL, NULL, v, sizeof(v)), 0);
	cr_assert_str_eq(v, JP_MALLOC_TUNABLES);
	cr_assert_eq(jp_malloc_tunables("", "1", v, sizeof(v)), 0);
	cr_assert_str_eq(v, JP_MALLOC_TUNABLES);
	cr_assert(strstr(v, "glibc.malloc.hugetlb=1"));
}

Test(malloc_tune, callers_tunables_kept_in_front)
{
	char v[512];
	cr_assert_eq(jp_malloc_tunables("glibc.rtld.optional_static_tls=4096", NULL, v, sizeof(v)),
		     0);
	cr_assert_str_eq(v, "glibc.rtld.optional_static_tls=4096:" JP_MALLOC_TUNABLES);
}

Test(malloc_tune, callers_malloc_setting_rules)
{
	char v[512];
	cr_assert_eq(jp_malloc_tunables("glibc.malloc.arena_max=2", NULL, v, sizeof(v)), -EEXIST);
	cr_assert_eq(jp_malloc_tunables("glibc.rtld.x=1:glibc.malloc.hugetlb=0", NULL, v,
					sizeof(v)), -EEXIST);
}

Test(malloc_tune, switched_off_and_too_long)
{
	char v[512], small[16];
	cr_assert_eq(jp_malloc_tunables(NULL, "0", v, sizeof(v)), -ECANCELED);
	cr_assert_eq(jp_malloc_tunables(NULL, NULL, small, sizeof(small)), -ENAMETOOLONG);
}

/* The re-executed image (the marker set) must not execute again, and puts the caller's
 * variable back: set, or unset. */
Test(malloc_tune, reexecuted_image_restores_the_callers_environment)
{
	char *argv[] = { (char *)"jitprof", NULL };
	setenv(JP_MALLOC_TUNED_FROM_ENV, "=glibc.rtld.x=1", 1);
	setenv("GLIBC_TUNABLES", JP_MALLOC_TUNABLES, 1);
	jp_malloc_tune(argv);
	cr_assert_str_eq(getenv("GLIBC_TUNABLES"), "glibc.rtld.x=1");
	cr_assert_null(getenv(JP_MALLOC_TUNED_FROM_ENV));

	setenv(JP_MALLOC_TUNED_FROM_ENV, "-", 1);
	setenv("GLIBC_TUNABLES", JP_MALLOC_TUNABLES, 1);
	jp_malloc_tune(argv);
	cr_assert_null(getenv("GLIBC_TUNABLES"));
	cr_assert_null(getenv(JP_MALLOC_TUNED_FROM_ENV));
}

/* Switched off, it returns at once with the environment untouched (no exec: this test would
 * not get to its asserts otherwise). */
Test(malloc_tune, switched_off_returns_untouched)
{
	char *argv[] = { (char *)"/nonexistent/jitprof", NULL };
	unsetenv(JP_MALLOC_TUNED_FROM_ENV);
	setenv(JP_MALLOC_TUNE_ENV, "0", 1);
	setenv("GLIBC_TUNABLES", "glibc.rtld.x=1", 1);
	jp_malloc_tune(argv);
	cr_assert_str_eq(getenv("GLIBC_TUNABLES"), "glibc.rtld.x=1");
	cr_assert_null(getenv(JP_MALLOC_TUNED_FROM_ENV));
}
