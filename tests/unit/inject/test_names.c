/* test_names.c - recorder/inject/names.c: perf's anonymous-code rule, --jit-dir remapping and
 * the normalised absolute paths the MMAP2 names and the build-id cache need. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "recorder/inject/inject_int.h"

Test(names, anon_code_prefixes_are_perfs)
{
	cr_assert(inj_is_anon_code("//anon"));
	cr_assert(inj_is_anon_code("[anon:v8 code]"));
	cr_assert(inj_is_anon_code("/memfd:doublemapper (deleted)"));
	cr_assert_not(inj_is_anon_code("/usr/lib/libc.so.6"));
	cr_assert_not(inj_is_anon_code("[heap]"));
	cr_assert_not(inj_is_anon_code("/anon"));
}

Test(names, jit_dir_keeps_only_the_base_name)
{
	char b[64];
	cr_assert_eq(inj_dump_path("/var/x/.debug/jit/j-1/jit-42.dump", "/tmp/d", b, sizeof(b)), 0);
	cr_assert_str_eq(b, "/tmp/d/jit-42.dump");
	cr_assert_eq(inj_dump_path("/var/x/jit-42.dump", NULL, b, sizeof(b)), 0);
	cr_assert_str_eq(b, "/var/x/jit-42.dump");
	cr_assert_eq(inj_dump_path("/var/x/jit-42.dump", "/a/very/long/directory", b, 12),
		     -ENAMETOOLONG);
}

Test(names, dirname)
{
	char b[64];
	cr_assert_eq(inj_dirname("/a/b/jit-1.dump", b, sizeof(b)), 0);
	cr_assert_str_eq(b, "/a/b");
	cr_assert_eq(inj_dirname("/jit-1.dump", b, sizeof(b)), 0);
	cr_assert_str_eq(b, "/");
	cr_assert_eq(inj_dirname("jit-1.dump", b, sizeof(b)), 0);
	cr_assert_str_eq(b, ".");
}

Test(names, abspath_is_lexically_normalised)
{
	char b[4096], cwd[4096], want[4200];
	cr_assert_eq(inj_abspath("/a//b/./c/../d/", b, sizeof(b)), 0);
	cr_assert_str_eq(b, "/a/b/d");
	cr_assert_eq(inj_abspath("/../..", b, sizeof(b)), 0);
	cr_assert_str_eq(b, "/");
	cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
	cr_assert_eq(inj_abspath("x/./y", b, sizeof(b)), 0);
	snprintf(want, sizeof(want), "%s/x/y", strcmp(cwd, "/") ? cwd : "");
	cr_assert_str_eq(b, want);
	cr_assert_eq(inj_abspath("/abc", b, 3), -ENAMETOOLONG);
}
