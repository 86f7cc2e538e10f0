/* test_kernel.c - kernel symbols (recorder/symbols/kernel.c): kallsyms parsing (text symbols
 * only, modules, kptr_restrict), relocation by the recorded _text address (KASLR), a vmlinux
 * built here, and this host's /proc/kallsyms. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "recorder/symbols/symbols.h"
#include "tests/lib/testutil.h"
#include "tests/unit/symbols/symtest.h"

#define KTEXT 0xffffffff81000000ull

static const char *kallsyms_text =
	"ffffffff81000000 T _text\n"
	"ffffffff81000100 T start_kernel\n"
	"ffffffff81000200 t helper_fn\n"
	"ffffffff81000300 D some_data\n"
	"ffffffff81000400 W weak_fn\n"
	"ffffffff81000500 T end_fn\n"
	"ffffffffc0001000 t xfs_fn\t[xfs]\n"
	"ffffffffc0001100 T xfs_other\t[xfs]\n";

static char *dir;

static void setup(void)
{
	dir = tu_tmpdir("sym-kernel");
	st_msgs[0] = 0;
}

static void teardown(void)
{
	tu_rmtree(dir);
	free(dir);
}

TestSuite(kernel, .init = setup, .fini = teardown);

static struct sym_session *kernel_session(const char *kallsyms, const char *vmlinux,
					  uint64_t recorded_text)
{
	struct sym_opts o = { .sz = sizeof(o), .buildid_dir = "/nonexistent", .kallsyms = kallsyms,
			      .vmlinux = vmlinux, .no_debuginfod = 1, .log = { st_collect, NULL } };
	struct sym_session *s = sym_session_new(&o);
	cr_assert(s);
	cr_assert_eq(sym_mmap(s, SYM_PID_KERNEL, 0, recorded_text, 0x1000000, recorded_text,
			      "[kernel.kallsyms]_text", NULL, 0, 1, 0), 0);
	return s;
}

static void expect_ksym(struct sym_session *s, uint64_t addr, const char *name, uint64_t off)
{
	struct sym_result r;
	cr_assert_eq(sym_resolve(s, 1, addr, 1, 1, SYM_RES_LINES, &r), 0);
	cr_expect(r.kernel);
	cr_expect_str_eq(r.sym ? r.sym : "(none)", name, "at 0x%llx", (unsigned long long)addr);
	if (r.sym)
		cr_expect_eq(r.sym_off, off, "at 0x%llx", (unsigned long long)addr);
}

static char *write_kallsyms(const char *text)
{
	char *p = malloc(4200);
	snprintf(p, 4200, "%s/kallsyms", dir);
	cr_assert_eq(tu_write_file(p, text, strlen(text)), 0);
	return p;
}

Test(kernel, kallsyms_same_boot)
{
	char *ks = write_kallsyms(kallsyms_text);
	struct sym_session *s = kernel_session(ks, NULL, KTEXT);
	expect_ksym(s, KTEXT + 0x150, "start_kernel", 0x50);
	expect_ksym(s, KTEXT + 0x200, "helper_fn", 0);
	/* data symbols are not functions: helper_fn reaches up to the next text symbol */
	expect_ksym(s, KTEXT + 0x350, "helper_fn", 0x150);
	expect_ksym(s, KTEXT + 0x410, "weak_fn", 0x10);
	expect_ksym(s, 0xffffffffc0001010ull, "xfs_fn", 0x10);
	sym_session_free(s);
	free(ks);
}

Test(kernel, kaslr_relocation_by_recorded_text)
{
	char *ks = write_kallsyms(kallsyms_text);
	/* recorded on a boot where _text sat 0x2e00000 higher than in this kallsyms */
	uint64_t shift = 0x2e00000;
	struct sym_session *s = kernel_session(ks, NULL, KTEXT + shift);
	expect_ksym(s, KTEXT + shift + 0x150, "start_kernel", 0x50);
	expect_ksym(s, KTEXT + shift + 0x500, "end_fn", 0);
	/* module symbols do not move with _text */
	expect_ksym(s, 0xffffffffc0001104ull, "xfs_other", 4);
	struct sym_result r;
	cr_assert_eq(sym_resolve(s, 1, KTEXT + 0x150, 1, 1, 0, &r), 0);
	cr_expect_null(r.sym, "unrelocated address must not hit a symbol");
	sym_session_free(s);
	free(ks);
}

Test(kernel, kptr_restrict_zero_addresses)
{
	char *ks = write_kallsyms("0000000000000000 T _text\n0000000000000000 T start_kernel\n");
	struct sym_session *s = kernel_session(ks, NULL, KTEXT);
	struct sym_result r;
	cr_assert_eq(sym_resolve(s, 1, KTEXT + 0x150, 1, 1, 0, &r), 0);
	cr_expect_null(r.sym);
	cr_expect_str_eq(r.dso_name, "[kernel.kallsyms]");
	cr_expect(strstr(st_msgs, "kptr_restrict"), "%s", st_msgs);
	sym_session_free(s);
	free(ks);
}

Test(kernel, vmlinux_relocated)
{
	char cmd[9000];
	snprintf(cmd, sizeof(cmd),
		 "cd %s && printf '.text\\n.globl _text\\n_text:\\n.globl startup_64\\n"
		 ".type startup_64,@function\\nstartup_64:\\n.fill 0x100,1,0x90\\n"
		 ".size startup_64,0x100\\n"
		 ".globl start_kernel\\n.type start_kernel,@function\\nstart_kernel:\\n"
		 ".fill 0x100,1,0x90\\n.size start_kernel,0x100\\n.type helper_fn,@function\\n"
		 "helper_fn:\\n.fill 0x80,1,0x90\\n.size helper_fn,0x80\\n' > k.s && "
		 "gcc -c k.s -o k.o && ld -static -Ttext=0x%llx -e _text --build-id -o vmlinux k.o",
		 dir, (unsigned long long)KTEXT);
	st_run(cmd);
	char vm[4200];
	snprintf(vm, sizeof(vm), "%s/vmlinux", dir);
	uint64_t shift = 0x1400000;
	struct sym_session *s = kernel_session(NULL, vm, KTEXT + shift);
	expect_ksym(s, KTEXT + shift + 0x108, "start_kernel", 8);
	expect_ksym(s, KTEXT + shift + 0x27f, "helper_fn", 0x7f);
	/* _text shares its address with startup_64, which names it in the table */
	expect_ksym(s, KTEXT + shift + 0x10, "startup_64", 0x10);
	sym_session_free(s);
}

/* This host's /proc/kallsyms (its text in *text, its length in *len) and the address of
 * schedule in it; skips the test where addresses are hidden (kptr_restrict). */
static uint64_t running_schedule(char **text, size_t *len)
{
	*text = tu_read_file("/proc/kallsyms", len);
	cr_assert(*text && *len);
	char *line = strstr(*text, " T schedule\n");
	if (!line || !strncmp(*text, "0000000000000000", 16)) {
		free(*text);
		cr_skip_test("/proc/kallsyms shows no addresses here (kptr_restrict)");
	}
	while (line > *text && line[-1] != '\n')
		line--;
	return strtoull(line, NULL, 16);
}

Test(kernel, host_proc_kallsyms)
{
	size_t len = 0;
	char *text;
	uint64_t addr = running_schedule(&text, &len);
	free(text);
	/* no kernel map recorded and no build-id: the running kernel's symbols are used */
	struct sym_opts o = { .sz = sizeof(o), .buildid_dir = "/nonexistent", .no_debuginfod = 1 };
	struct sym_session *s = sym_session_new(&o);
	expect_ksym(s, addr + 1, "schedule", 1);
	sym_session_free(s);
}

Test(kernel, host_kallsyms_refused_for_another_kernel)
{
	struct sym_opts o = { .sz = sizeof(o), .buildid_dir = "/nonexistent", .no_debuginfod = 1,
			      .log = { st_collect, NULL } };
	struct sym_session *s = sym_session_new(&o);
	uint8_t other[20] = { 0xde, 0xad, 0xbe, 0xef };
	cr_assert_eq(sym_mmap(s, SYM_PID_KERNEL, 0, KTEXT, 0x1000000, KTEXT,
			      "[kernel.kallsyms]_text", other, 20, 1, 0), 0);
	struct sym_result r;
	cr_assert_eq(sym_resolve(s, 1, KTEXT + 0x10, 1, 1, 0, &r), 0);
	cr_expect_null(r.sym);
	cr_expect(strstr(st_msgs, "deadbeef"), "%s", st_msgs);
	sym_session_free(s);
}

/* Lines out of address order (modules first), uppercase and short addresses, aliases at one
 * address (perf keeps the global one, then the one with fewer leading underscores, then the
 * longer name), data symbols, and junk lines. */
Test(kernel, kallsyms_unsorted_aliases_and_odd_lines)
{
	char *ks = write_kallsyms("ffffffffc0002000 t mod_fn\t[mymod]\n"
				  "ffffffff81000200 t __alias_local\n"
				  "ffffffff81000200 T __alias_global\n"
				  "ffffffff81000200 T _alias_global\n"
				  "FFFFFFFF81000100 T upper_case\n"
				  "garbage line\n"
				  "ffffffff81000000 T _text\n"
				  "ffffffff81000300 d data_sym\n"
				  "ffffffff81000400 T short_name\n"
				  "ffffffff81000400 T longer_name\n"
				  "ffffffff81000500 T end_fn");	/* no final newline */
	struct sym_session *s = kernel_session(ks, NULL, KTEXT);
	expect_ksym(s, KTEXT + 0x104, "upper_case", 4);
	expect_ksym(s, KTEXT + 0x210, "_alias_global", 0x10);
	expect_ksym(s, KTEXT + 0x310, "_alias_global", 0x110);
	expect_ksym(s, KTEXT + 0x401, "longer_name", 1);
	expect_ksym(s, KTEXT + 0x501, "end_fn", 1);
	expect_ksym(s, 0xffffffffc0002008ull, "mod_fn", 8);
	sym_session_free(s);
	free(ks);
}

Test(kernel, kallsyms_32bit_addresses)
{
	char *ks = write_kallsyms("c1000000 T _text\nc1000100 T start_kernel\nc1000200 t helper\n");
	struct sym_session *s = kernel_session(ks, NULL, 0xc1000000ull);
	expect_ksym(s, 0xc1000150ull, "start_kernel", 0x50);
	expect_ksym(s, 0xc1000201ull, "helper", 1);
	sym_session_free(s);
	free(ks);
}

/* The build-id cache's [kernel.kallsyms]/<id>/kallsyms names the recorded kernel's addresses
 * when the id is another machine's: used (here a small text of our own). But perf inject and
 * perf report file this host's /proc/kallsyms under a foreign recorded id: a byte-for-byte copy
 * of the running kernel's, while the running build-id is another, is refused and said. */
static struct sym_session *cached_kallsyms_session(const char *text, size_t len,
						   const uint8_t *id)
{
	char path[4400];
	snprintf(path, sizeof(path), "%s/[kernel.kallsyms]", dir);
	mkdir(path, 0755);
	strcat(path, "/de00000000000000000000000000000000000001");
	cr_assert_eq(mkdir(path, 0755), 0);
	strcat(path, "/kallsyms");
	cr_assert_eq(tu_write_file(path, text, len), 0);
	struct sym_opts o = { .sz = sizeof(o), .buildid_dir = dir, .no_debuginfod = 1,
			      .log = { st_collect, NULL } };
	struct sym_session *s = sym_session_new(&o);
	cr_assert(s);
	cr_assert_eq(sym_mmap(s, SYM_PID_KERNEL, 0, KTEXT, 0x1000000, KTEXT,
			      "[kernel.kallsyms]_text", id, 20, 1, 0), 0);
	return s;
}

Test(kernel, cached_kallsyms_of_the_recorded_id)
{
	static const uint8_t id[20] = { 0xde, [19] = 0x01 };
	struct sym_session *s = cached_kallsyms_session(kallsyms_text, strlen(kallsyms_text), id);
	expect_ksym(s, KTEXT + 0x104, "start_kernel", 4);
	sym_session_free(s);
}

Test(kernel, cached_copy_of_the_running_kallsyms_refused)
{
	struct sym_build_id running;
	size_t len = 0;
	if (sym_kernel_build_id(&running))
		cr_skip_test("/sys/kernel/notes gives no build-id here");
	char *text;
	uint64_t addr = running_schedule(&text, &len);
	static const uint8_t id[20] = { 0xde, [19] = 0x01 };	/* not the running kernel's */
	cr_assert(running.size != 20 || memcmp(running.data, id, 20));
	struct sym_session *s = cached_kallsyms_session(text, len, id);
	free(text);
	struct sym_result r;
	cr_assert_eq(sym_resolve(s, 1, addr + 1, 1, 1, 0, &r), 0);
	cr_expect_null(r.sym, "named %s from this host's symbols", r.sym);
	cr_expect(strstr(st_msgs, "a copy of this host's /proc/kallsyms"), "%s", st_msgs);
	sym_session_free(s);
}
