/* symbols_lines_perf.c - source lines from the ELFs `perf inject --jit` writes (DWARF v2: a
 * CU with only DW_AT_stmt_list, no address ranges, no .debug_aranges), found through the
 * CU's line table: every few bytes of every such ELF of the perf-jvmti fixture, against
 * `addr2line` as the oracle; and `jitprof report --sort srcline` names those lines. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recorder/symbols/symbols.h"
#include "tests/e2e/report_util.h"
#include "tests/lib/testutil.h"

#define STEP 5	/* bytes between probed addresses */

struct text {
	uint64_t addr, size, off;
	int has_lines;
};

static int text_of(const char *path, struct text *t)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0, "%s", path);
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	size_t shstrndx;
	int found = 0;
	memset(t, 0, sizeof(*t));
	cr_assert(elf && !elf_getshdrstrndx(elf, &shstrndx), "%s", path);
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(name, ".text")) {
			*t = (struct text){ sh.sh_addr, sh.sh_size, sh.sh_offset, t->has_lines };
			found = 1;
		}
		if (!strcmp(name, ".debug_line"))
			t->has_lines = 1;
	}
	elf_end(elf);
	close(fd);
	return found;
}

/* "dir/file.java:12" or "??:0" / "??:?", maybe with " (discriminator N)": base:line. */
static void normalize(char *line)
{
	line[strcspn(line, " ")] = 0;
	char *slash = strrchr(line, '/');
	if (slash)
		memmove(line, slash + 1, strlen(slash));
	if (!strncmp(line, "??", 2))
		strcpy(line, "??");
}

/* Probes one ELF: returns how many addresses had a line (both sides agreeing). */
static size_t probe(struct sym_session *s, uint32_t pid, const char *path, const struct text *t,
		    size_t *compared)
{
	/* mapped as perf recorded it: the code at its ELF address, pgoff the file offset */
	cr_assert_eq(sym_mmap(s, pid, pid, t->addr, t->size, t->off, path, NULL, 0, 2, 1), 0);
	size_t n = (size_t)(t->size + STEP - 1) / STEP, cmdlen = 64 + strlen(path) + n * 20;
	char *cmd = malloc(cmdlen);
	cr_assert(cmd);
	size_t k = (size_t)snprintf(cmd, cmdlen, "addr2line -e '%s'", path);
	for (size_t i = 0; i < n; i++)
		k += (size_t)snprintf(cmd + k, cmdlen - k, " 0x%llx",
				      (unsigned long long)(t->addr + i * STEP));
	struct tu_result r;
	cr_assert_eq(tu_sh(&r, cmd, 60), 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	size_t known = 0, i = 0;
	char *save = NULL;
	for (char *line = strtok_r(r.out, "\n", &save); line && i < n;
	     line = strtok_r(NULL, "\n", &save), i++) {
		uint64_t addr = t->addr + i * STEP;
		struct sym_result res;
		cr_assert_eq(sym_resolve(s, pid, addr, 2, 2, SYM_RES_LINES, &res), 0);
		char ours[600], want[600];
		const char *f = res.srcfile ? strrchr(res.srcfile, '/') : NULL;
		if (res.srcfile)
			snprintf(ours, sizeof(ours), "%s:%u", f ? f + 1 : res.srcfile, res.line);
		else
			snprintf(ours, sizeof(ours), "??");
		snprintf(want, sizeof(want), "%s", line);
		normalize(want);
		cr_expect_str_eq(ours, want, "%s at 0x%llx", path, (unsigned long long)addr);
		known += strcmp(want, "??") && !strcmp(ours, want);
	}
	cr_expect_eq(i, n, "addr2line answered %zu of %zu addresses", i, n);
	*compared += i;
	tu_result_free(&r);
	free(cmd);
	return known;
}

TestSuite(lines_perf, .init = rx_setup, .fini = rx_teardown);

Test(lines_perf, perf_injected_elfs_vs_addr2line, .timeout = 300)
{
	if (!tu_have("perf") || !tu_have("addr2line"))
		cr_skip_test("perf or addr2line is not installed");
	if (rx_fixture(dir))
		cr_skip_test(RX_FIXTURE " is absent");
	struct tu_result r;
	rx_ok(&r, "cd '%s' && HOME='%s/home' perf inject --jit -i perf.data -o perf.jit.data", dir,
	      dir);
	tu_result_free(&r);

	char jitdir[PATH_MAX], path[PATH_MAX + 256];
	snprintf(jitdir, sizeof(jitdir), "%s/jit", dir);
	DIR *dp = opendir(jitdir);
	cr_assert(dp);
	struct sym_opts o = { .sz = sizeof(o), .buildid_dir = "/nonexistent", .no_debuginfod = 1 };
	struct sym_session *s = sym_session_new(&o);
	size_t elfs = 0, compared = 0, known = 0;
	uint32_t pid = 1000;
	for (struct dirent *de; (de = readdir(dp));) {
		struct text t;
		if (strncmp(de->d_name, "jitted-", 7))
			continue;
		snprintf(path, sizeof(path), "%s/%s", jitdir, de->d_name);
		if (!text_of(path, &t) || !t.has_lines)
			continue;
		known += probe(s, pid++, path, &t, &compared);
		elfs++;
	}
	closedir(dp);
	sym_session_free(s);
	cr_log_info("%zu perf-injected ELFs with line tables, %zu addresses, %zu with lines", elfs,
		    compared, known);
	cr_expect_geq(elfs, 10, "the fixture's methods with line tables");
	cr_expect_geq(known, 200, "lines must be found, not only agree on none");

	/* and the report shows them: the fixture's hot loop is in Fixture.java */
	rx_ok(&r, "HOME='%s/home' '%s' report -i '%s/perf.jit.data' --sort srcline", dir,
	      rx_jitprof, dir);
	cr_expect(strstr(r.out, "Fixture.java:"), "%s", r.out);
	tu_result_free(&r);
}
