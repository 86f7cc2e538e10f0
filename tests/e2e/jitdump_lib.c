/* jitdump_lib.c - libjitdump as other JITs get it: libjitdump.so.1 by SONAME, every exported
 * symbol a function of jitdump.h versioned JITDUMP_1, and `make install` placing the library,
 * the linker's name, the header and jitdump.pc so that a program built with pkg-config's flags
 * links and runs. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib/testutil.h"

static char *sh_out(const char *cmd)
{
	struct tu_result r;
	cr_assert_eq(tu_sh(&r, cmd, 600), 0);
	cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err);
	char *out = strdup(r.out);
	tu_result_free(&r);
	return out;
}

Test(jitdump_lib, soname_and_versioned_exports)
{
	char cmd[8192];
	snprintf(cmd, sizeof(cmd), "readelf -d %s | grep SONAME", tu_build("libjitdump.so.1"));
	char *out = sh_out(cmd);
	cr_assert_not_null(strstr(out, "[libjitdump.so.1]"), "%s", out);
	free(out);

	snprintf(cmd, sizeof(cmd), "nm -D --defined-only --with-symbol-versions %s",
		 tu_build("libjitdump.so.1"));
	out = sh_out(cmd);
	char *hdr = tu_read_file("jitdump/jitdump.h", NULL);
	cr_assert_not_null(hdr, "run from the source tree");
	size_t n = 0;
	char *save = NULL;
	for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char type, name[256];
		if (sscanf(l, "%*s %c %255s", &type, name) != 2)
			continue;
		if (type == 'A')
			continue;	/* the version node itself */
		char *at = strstr(name, "@@JITDUMP_1");
		cr_assert_not_null(at, "exported without the JITDUMP_1 version: %s", name);
		*at = 0;
		char decl[300];
		snprintf(decl, sizeof(decl), "%s(", name);
		cr_assert_not_null(strstr(hdr, decl), "%s is exported but not in jitdump.h", name);
		n++;
	}
	cr_assert_gt(n, 10, "only %zu exports", n);
	free(out);
	/* and the other way: every function jitdump.h declares is exported (the version script
	 * names them one by one, so a new one left out of it would be hidden) */
	snprintf(cmd, sizeof(cmd), "nm -D --defined-only %s", tu_build("libjitdump.so.1"));
	out = sh_out(cmd);
	for (const char *p = hdr; (p = strstr(p, "jd_")); p++) {
		size_t len = strspn(p, "abcdefghijklmnopqrstuvwxyz_0123456789");
		/* a declaration: at a line start after its return type, name followed by '(' */
		if (p[len] != '(' || (p > hdr && (p[-1] != ' ' && p[-1] != '*')))
			continue;
		const char *bol = p;
		while (bol > hdr && bol[-1] != '\n')
			bol--;
		if (*bol == ' ' || *bol == '\t' || *bol == '/' || *bol == '#')
			continue;	/* a comment or a macro, not a declaration */
		char want[300], want_ver[300];	/* nm may print the version after the name */
		snprintf(want, sizeof(want), " %.*s\n", (int)len, p);
		snprintf(want_ver, sizeof(want_ver), " %.*s@", (int)len, p);
		cr_assert(strstr(out, want) || strstr(out, want_ver),
			  "%.*s is in jitdump.h but not exported (jitdump/libjitdump.map)", (int)len,
			  p);
	}
	free(hdr);
	free(out);
}

Test(jitdump_lib, make_install_and_pkg_config, .timeout = 600)
{
	if (!tu_have("pkg-config") || !tu_have("make") || access("Makefile", R_OK)) {
		cr_skip_test("needs make, pkg-config and the source tree as cwd");
	}
	char *dir = tu_tmpdir("jd-install");
	const char *build = getenv("JITPROF_BUILD");
	build = build && *build ? build : "build";
	int san = strstr(build, "san") != NULL;
	char cmd[16384];
	snprintf(cmd, sizeof(cmd), "make -s install BUILD=%s SANITIZE=%d DESTDIR=%s >/dev/null",
		 build, san, dir);
	free(sh_out(cmd));
	snprintf(cmd, sizeof(cmd), "readlink %s/usr/local/lib/libjitdump.so", dir);
	char *out = sh_out(cmd);
	cr_assert_str_eq(out, "libjitdump.so.1\n");
	free(out);

	char src[4200], exe[4200];
	snprintf(src, sizeof(src), "%s/use.c", dir);
	snprintf(exe, sizeof(exe), "%s/use", dir);
	static const char prog[] = "#include <jitdump.h>\n#include <stdio.h>\n"
				   "int main(void) { puts(jd_tier_name(JD_TIER_C2)); return 0; }\n";
	cr_assert_eq(tu_write_file(src, prog, sizeof(prog) - 1), 0);
	/* A sanitized build's library needs the sanitizer runtime in the program too. */
	snprintf(cmd, sizeof(cmd),
		 "export PKG_CONFIG_PATH=%s/usr/local/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=%s && "
		 "cc %s -o %s %s $(pkg-config --cflags --libs jitdump) && "
		 "LD_LIBRARY_PATH=%s/usr/local/lib %s", dir, dir,
		 san ? "-fsanitize=address,undefined" : "", exe, src, dir, exe);
	out = sh_out(cmd);
	cr_assert_str_eq(out, "C2\n");
	free(out);
	snprintf(cmd, sizeof(cmd), "readelf -d %s | grep NEEDED", exe);
	out = sh_out(cmd);
	cr_assert_not_null(strstr(out, "[libjitdump.so.1]"), "links by SONAME: %s", out);
	free(out);
	tu_rmtree(dir);
	free(dir);
}
