/* check_deps.c - scripts/check-deps.sh (`make check-deps`): the tree itself follows
 * mk/deps.mk; in a small tree of its own it finds an include against the direction, an
 * include of another module's internal header, a wrong link order and a stale table. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/lib/testutil.h"

static char *dir;

static void put(const char *rel, const char *text)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	char *slash = strrchr(path, '/');
	*slash = 0;
	char cmd[4300];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
	cr_assert_eq(system(cmd), 0);
	*slash = '/';
	cr_assert_eq(tu_write_file(path, text, strlen(text)), 0);
}

static struct tu_result run(const char *args)
{
	char cmd[8400], cwd[4096];
	struct tu_result r;
	cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
	/* The tree this test makes has its objects in build/: a make BUILD=... of ours does not
	 * apply there. */
	snprintf(cmd, sizeof(cmd), "BUILD=build CHECK_DEPS_ROOT=%s %s/scripts/check-deps.sh %s", dir,
		 cwd, args);
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	return r;
}

Test(check_deps, the_tree_follows_its_direction)
{
	struct tu_result r;
	cr_assert_eq(tu_sh(&r, "scripts/check-deps.sh", 120), 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	tu_result_free(&r);
}

Test(check_deps, violations_found)
{
	dir = tu_tmpdir("check-deps");
	put("mk/deps.mk", "MODULES := top low\nDIR_top := top\nDIR_low := low\n"
			  "USES_top := low\nUSES_low :=\n");
	put("docs/ARCHITECTURE.md", "x\n<!-- deps:begin (generated from mk/deps.mk by "
		"scripts/check-deps.sh --write-doc) -->\n<!-- deps:end -->\n");
	put("low/low.h", "int low(void);\n");
	put("low/low_int.h", "int low_int(void);\n");
	put("low/low.c", "#include \"low/low.h\"\n#include \"low/low_int.h\"\n");
	put("top/top.c", "#include \"low/low.h\"\n");
	struct tu_result r = run("--write-doc");
	cr_assert_eq(r.status, 0, "%s", r.err);
	tu_result_free(&r);
	r = run("");
	cr_assert_eq(r.status, 0, "a clean tree: %s", r.err);
	tu_result_free(&r);

	put("low/bad.c", "#include \"top/top.h\"\n");		/* against the direction */
	put("top/peek.c", "#include \"low/low_int.h\"\n");	/* another module's insides */
	r = run("");
	cr_assert_eq(r.status, 1);
	cr_assert_not_null(strstr(r.err, "low/bad.c:1: low may not include \"top/top.h\""),
			   "%s", r.err);
	cr_assert_not_null(strstr(r.err, "top/peek.c:1: \"low/low_int.h\" is internal to low"),
			   "%s", r.err);
	tu_result_free(&r);

	put("mk/deps.mk", "MODULES := low top\nDIR_top := top\nDIR_low := low\n"
			  "USES_top := low\nUSES_low :=\n");
	put("low/bad.c", "\n");
	put("top/peek.c", "\n");
	r = run("");
	cr_assert_eq(r.status, 1);
	cr_assert_not_null(strstr(r.err, "top uses low but MODULES lists low first"), "%s",
			   r.err);
	cr_assert_not_null(strstr(r.err, "dependency table differs"), "%s", r.err);
	tu_result_free(&r);
	tu_rmtree(dir);
	free(dir);
}

static void cc(const char *src, const char *obj)
{
	char cmd[9000];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/build/obj/%.*s' && cc -c -I '%s' "
		 "-o '%s/build/obj/%s' '%s/%s'", dir, (int)(strrchr(obj, '/') - obj), obj, dir, dir,
		 obj, dir, src);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* A call against the direction that no include shows (a prototype written by hand) is found
 * in the built objects, naming the calling object and the symbol; calls outside our modules
 * (libc, even a libc function a module defines again) and along the direction are not. */
Test(check_deps, call_against_the_direction_found)
{
	dir = tu_tmpdir("check-deps-calls");
	put("mk/deps.mk", "MODULES := top low\nDIR_top := top\nDIR_low := low\n"
			  "USES_top := low\nUSES_low :=\n");
	put("docs/ARCHITECTURE.md", "x\n<!-- deps:begin (generated from mk/deps.mk by "
		"scripts/check-deps.sh --write-doc) -->\n<!-- deps:end -->\n");
	put("low/low.h", "int low(void);\n");
	put("low/low.c", "#include <string.h>\n#include \"low/low.h\"\n"
			 "int low(void) { return (int)strlen(\"x\"); }\n");
	put("top/top.h", "int top(void);\n");
	put("top/top.c", "#include \"low/low.h\"\n#include \"top/top.h\"\n"
			 "int top(void) { return low() + 1; }\n");
	cc("low/low.c", "low/low.o");
	cc("top/top.c", "top/top.o");
	struct tu_result r = run("--write-doc");
	tu_result_free(&r);
	r = run("");
	cr_assert_eq(r.status, 0, "top calls low along the direction: %s", r.err);
	cr_assert_not_null(strstr(r.out, "every call between the 2 objects"), "%s", r.out);
	tu_result_free(&r);

	put("low/bad.c", "int top(void);\nint bad(void) { return top(); }\n");
	cc("low/bad.c", "low/bad.o");
	r = run("");
	cr_assert_eq(r.status, 1, "%s", r.out);
	cr_assert_not_null(strstr(r.err, "build/obj/low/bad.o: low calls top (defined by top, in "
				      "build/obj/top/top.o), but top is not in USES_low"),
			   "%s", r.err);
	cr_assert_null(strstr(r.err, "strlen"), "libc is not ours to check: %s", r.err);
	tu_result_free(&r);

	/* top defines a C library function again (as symbols answers libdw's realpath) and low
	 * calls that function: the C library's to call, not a call into top. */
	put("low/bad.c", "#include <stdlib.h>\nchar *bad(void) { return realpath(\"/\", 0); }\n");
	cc("low/bad.c", "low/bad.o");
	put("top/rp.c", "#include <stddef.h>\nchar *realpath(const char *p, char *r) "
			"{ (void)p; (void)r; return NULL; }\n");
	cc("top/rp.c", "top/rp.o");
	r = run("");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_not_null(strstr(r.out, "every call between the 4 objects"), "%s", r.out);
	tu_result_free(&r);
	tu_rmtree(dir);
	free(dir);
}

/* low/low.c and top/top.c built, the table written: the tree must then be clean. */
static void compile_top_and_low_clean(const char *why)
{
	cc("low/low.c", "low/low.o");
	cc("top/top.c", "top/top.o");
	struct tu_result r = run("--write-doc");
	tu_result_free(&r);
	r = run("");
	cr_assert_eq(r.status, 0, "%s: %s", why, r.err);
	tu_result_free(&r);
}

/* The rules beyond the direction: a module that may NEVER use another is refused its header
 * (and a USES row naming it), and a NO_OUTPUT module's objects are refused any writer (the
 * report's views never read perf.data; its analyses never write). */
Test(check_deps, never_and_no_output_rules_bite)
{
	dir = tu_tmpdir("check-deps-rules");
	put("mk/deps.mk", "MODULES := top low data\nDIR_top := top\nDIR_low := low\n"
			  "DIR_data := data\nUSES_top := low\nUSES_low :=\nUSES_data :=\n"
			  "NEVER_top := data\nNO_OUTPUT := low\n");
	put("docs/ARCHITECTURE.md", "x\n<!-- deps:begin (generated from mk/deps.mk by "
		"scripts/check-deps.sh --write-doc) -->\n<!-- deps:end -->\n");
	put("data/data.h", "int data(void);\n");
	put("low/low.h", "int low(int x);\n");
	put("low/low.c", "#include \"low/low.h\"\nint low(int x) { return x + 1; }\n");
	put("top/top.c", "#include <stdio.h>\n#include \"low/low.h\"\n"
			 "void top(FILE *o) { fprintf(o, \"%d\\n\", low(1)); }\n");
	compile_top_and_low_clean("top prints, low computes");
	struct tu_result r;

	/* low writes; top reads data's header. */
	put("low/low.c", "#include <stdio.h>\n#include \"low/low.h\"\n"
			 "int low(int x) { return printf(\"%d\\n\", x); }\n");
	cc("low/low.c", "low/low.o");
	put("top/peek.c", "#include \"data/data.h\"\n");
	r = run("");
	cr_assert_eq(r.status, 1, "%s", r.out);
	cr_assert_not_null(strstr(r.err, "build/obj/low/low.o: low writes output (calls "),
			   "%s", r.err);
	cr_assert_not_null(strstr(r.err, "which NO_OUTPUT forbids"), "%s", r.err);
	cr_assert_not_null(strstr(r.err, "top/peek.c:1: top may never include \"data/data.h\" "
				      "(NEVER_top: data)"), "%s", r.err);
	tu_result_free(&r);

	/* Nor may a USES row undo it. */
	put("mk/deps.mk", "MODULES := top low data\nDIR_top := top\nDIR_low := low\n"
			  "DIR_data := data\nUSES_top := low data\nUSES_low :=\nUSES_data :=\n"
			  "NEVER_top := data\nNO_OUTPUT := low\n");
	r = run("");
	cr_assert_eq(r.status, 1, "%s", r.out);
	cr_assert_not_null(strstr(r.err, "USES_top names data, which NEVER_top forbids"), "%s",
			   r.err);
	tu_result_free(&r);
	tu_rmtree(dir);
	free(dir);
}
