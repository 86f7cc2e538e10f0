/* test_interp.c - recorder/inject/interp.c: interpreter frames of a hostile method table
 * written here (libjitdump's writer) become addresses in one ELF per process, read back with
 * libelf: a known method at bci b is exactly that method's symbol + b, named
 * "pkg.Cls.m(sig)_[int]", with the line of b in the ELF's DWARF (libdw); a garbage Method*,
 * a bcp outside the bytecodes, a method of more bytecodes than a JVM allows (left out of the
 * ELF) give no address, never another method's; a Method* reused after an unload names the
 * method of its time; the ELF is made once per process, each at its own range. */
#include <criterion/criterion.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jitdump/jitdump.h"
#include "recorder/inject/inject_int.h"
#include "synth/synth.h"
#include "tests/lib/testutil.h"

#define PID 777u

static char *dir;
static struct jd_index *x;
static struct inj_pool *pool;
static struct inj_interp *ip;
static struct inj_dump d;

static void setup(void)
{
	char err[512], path[4200];
	struct jd_writer *w;
	dir = tu_tmpdir("interp");
	JD_OPTS(jd_writer_opts, o, .dir = dir);
	cr_assert_eq(jd_writer_open(&w, &o), 0);
	static const struct jd_method_line la[] = { { 0, 20 }, { 5, 21 }, { 9, 23 } };
	/* a first row past bci 0: the bytecodes before it at no line */
	static const struct jd_method_line lb[] = { { 2, 40 } };
	const struct jd_ext_method m[] = {
		{ .method = 0x7000, .code_addr = 0x9000, .code_size = 12, .nr_lines = 3,
		  .lines = la, .name = "Lp/A;a(I)V", .file = "A.java" },
		{ .method = 0x6000, .name = "Lp/A;n()J", .file = "A.java" },	/* native */
		{ .method = 0x6100, .code_addr = 0xd000, .name = "Lp/A;nb()V",
		  .file = "A.java" },		/* native, with its code base (agent since 12-04) */
		{ .method = 0x5000, .code_addr = 0x20000, .code_size = 100000, .name = "Lp/H;huge()V",
		  .file = "H.java" },					/* > 65535 bytecodes */
		{ .method = 0x4000, .code_addr = 0xb000, .code_size = 8, .nr_lines = 1,
		  .lines = lb, .name = "Lp/B;b()V", .file = "B.java" },
		{ .method = 0x4100, .code_addr = 0xc000, .code_size = 8, .name = "Lp/B;b()V",
		  .file = "B.java" },					/* the same name again */
	};
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		cr_assert_eq(jd_write_method(w, &m[i], 100), 0);
	const struct jd_ext_method c = { .method = 0x7000, .code_addr = 0xa000, .code_size = 4,
					 .name = "Lp/C;c()V", .file = "" };
	cr_assert_eq(jd_write_method(w, &c, 500), 0);	/* 0x7000 reused after an unload */
	snprintf(path, sizeof(path), "%s", jd_writer_path(w));
	cr_assert_eq(jd_writer_close(w), 0);
	cr_assert_eq(jd_index_open(&x, path, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(jd_index_nr_methods(x), 7, "%s", jd_index_warning(x));
	cr_assert_eq(inj_pool_new(&pool, 1, NULL), 0);
	d = (struct inj_dump){ .x = x, .path = path, .dir = dir, .beside = 1, .pid = PID,
			       .e_machine = EM_X86_64, .marker_time = 1 };
	d.dirfd = open(dir, O_RDONLY | O_DIRECTORY);
	cr_assert_geq(d.dirfd, 0);
	cr_assert_eq(inj_interp_new(&ip, pool, NULL), 0);
	cr_assert_not_null(ip);
}

static void teardown(void)
{
	inj_interp_free(ip);
	inj_pool_finish(pool, NULL, NULL, JP_LOG_WARN);
	close(d.dirfd);
	jd_index_close(x);
	tu_rmtree(dir);
	free(dir);
}

TestSuite(interp, .init = setup, .fini = teardown);

static uint64_t addr_of(uint32_t pid, uint64_t method, uint64_t bcp, uint64_t bcp_slot,
			uint64_t time)
{
	struct unw_frame f = { .pc = 0x1234, .method = method, .bcp = bcp, .bcp_slot = bcp_slot };
	uint64_t a = 1;
	cr_assert_eq(inj_interp_addr(ip, pid, &d, &f, time, &a), 0);
	return a;
}

/* The ELF file of pid (seq 0): the symbol holding file offset off, and its line by libdw. */
static void symbol_at(uint32_t pid, uint64_t off, char *name, size_t len, int *line)
{
	char file[64], path[4200];
	cr_assert_eq(synth_interp_file_name(pid, 0, file, sizeof(file)), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	elf_version(EV_CURRENT);
	int fd = open(path, O_RDONLY);
	cr_assert_geq(fd, 0, "%s", path);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	name[0] = 0;
	while ((scn = elf_nextscn(e, scn)) && gelf_getshdr(scn, &sh) && sh.sh_type != SHT_SYMTAB)
		;
	cr_assert_not_null(scn);
	Elf_Data *data = elf_getdata(scn, NULL);
	for (size_t i = 1; i < sh.sh_size / sh.sh_entsize; i++) {
		GElf_Sym s;
		gelf_getsym(data, (int)i, &s);
		if (off >= s.st_value && off < s.st_value + s.st_size) {
			cr_assert_eq(name[0], 0, "two symbols hold 0x%llx", (unsigned long long)off);
			snprintf(name, len, "%s", elf_strptr(e, sh.sh_link, s.st_name));
		}
	}
	elf_end(e);
	close(fd);
	/* the line, as perf's and report's symbolizers read it */
	static const Dwfl_Callbacks cb = { .find_elf = dwfl_build_id_find_elf,
					   .find_debuginfo = dwfl_standard_find_debuginfo };
	Dwfl *dw = dwfl_begin(&cb);
	Dwfl_Module *mod = dwfl_report_offline(dw, "", path, -1);
	cr_assert_not_null(mod);
	dwfl_report_end(dw, NULL, NULL);
	Dwarf_Addr base;
	dwfl_module_info(mod, NULL, &base, NULL, NULL, NULL, NULL, NULL);
	Dwfl_Line *l = dwfl_module_getsrc(mod, base + off);
	*line = -1;
	if (l)
		dwfl_lineinfo(l, NULL, line, NULL, NULL, NULL);
	dwfl_end(dw);
}

/* Symbol name and line of the frame's address (its offset from the ELF's base). */
static void check(uint64_t a, const char *want, int want_line)
{
	char name[256];
	int line;
	cr_assert_geq(a, INJ_INTERP_BASE);
	cr_assert_lt(a, INJ_INTERP_BASE + INJ_INTERP_SPAN);
	symbol_at(PID, a - INJ_INTERP_BASE + 0xe0, name, sizeof(name), &line);
	cr_assert_str_eq(name, want);
	cr_assert_eq(line, want_line, "%s: line %d, want %d", want, line, want_line);
}

Test(interp, known_methods_named_exactly)
{
	uint64_t a6 = addr_of(PID, 0x7000, 0x9006, 0, 200);
	check(a6, "p.A.a(int)_[int]", 21);
	check(addr_of(PID, 0x7000, 0x1234, 0x9000, 200), "p.A.a(int)_[int]", 20);	/* slot */
	cr_assert_eq(addr_of(PID, 0x7000, 0x9009, 0, 200), a6 + 3);
	check(a6 + 3, "p.A.a(int)_[int]", 23);
	check(addr_of(PID, 0x6000, 0, 0, 200), "p.A.n()_[int]", 0);	/* native: bci 0 */
	/* a native frame after its entry called the VM: its code base in the slot */
	check(addr_of(PID, 0x6100, 0x55, 0xd000, 200), "p.A.nb()_[int]", 0);
	/* b's one row at bci 2: bcis 0 and 1 at line 0 (not a neighbour's line) */
	uint64_t b0 = addr_of(PID, 0x4000, 0xb000, 0, 200);
	check(b0, "p.B.b()_[int]", 0);
	check(b0 + 1, "p.B.b()_[int]", 0);
	check(b0 + 2, "p.B.b()_[int]", 40);
	/* the same name under another Method*: a symbol of its own */
	uint64_t c0 = addr_of(PID, 0x4100, 0xc000, 0, 200);
	cr_assert_neq(c0, b0);
	check(c0, "p.B.b()_[int]", 0);
	/* 0x7000 after its unload is C.c, in a range of its own */
	uint64_t cc = addr_of(PID, 0x7000, 0xa002, 0, 600);
	cr_assert(cc < a6 - 6 || cc >= a6 + 6);
	char name[256];
	int line;
	symbol_at(PID, cc - INJ_INTERP_BASE + 0xe0, name, sizeof(name), &line);
	cr_assert_str_eq(name, "p.C.c()_[int]");
	uint64_t named, unnamed, elfs;
	inj_interp_counts(ip, &named, &unnamed, &elfs);
	cr_assert_eq(named, 8);
	cr_assert_eq(unnamed, 0);
}

Test(interp, hostile_frames_never_a_wrong_name)
{
	cr_assert_neq(addr_of(PID, 0x7000, 0x9000, 0, 200), 0);	/* the ELF is made */
	cr_assert_eq(addr_of(PID, 0xdead0000, 0x9000, 0x9000, 200), 0);	/* garbage Method* */
	cr_assert_eq(addr_of(PID, 0, 0x9000, 0x9000, 200), 0);
	cr_assert_eq(addr_of(PID, 0x7000, 0x900c, 0x8fff, 200), 0);	/* bcp outside */
	cr_assert_eq(addr_of(PID, 0x6000, 0x55, 0x56, 200), 0);	/* native, bcp not 0 */
	cr_assert_eq(addr_of(PID, 0x6100, 0xd001, 0xd008, 200), 0);	/* nor its code base */
	cr_assert_eq(addr_of(PID, 0x7000, 0x9006, 0x9006, 600), 0);	/* C.c's time: not C's */
	/* more bytecodes than a method can have: out of the ELF, no address */
	cr_assert_eq(addr_of(PID, 0x5000, 0x20010, 0, 200), 0);
	uint64_t named, unnamed, elfs;
	inj_interp_counts(ip, &named, &unnamed, &elfs);
	cr_assert_eq(named, 1);
	cr_assert_eq(unnamed, 7);
}

Test(interp, one_elf_per_process_each_its_range)
{
	uint64_t a = addr_of(PID, 0x7000, 0x9006, 0, 200);
	uint64_t b = addr_of(PID + 1, 0x7000, 0x9006, 0, 200);
	cr_assert_eq(a, b, "every process maps its ELF at the same base (its own address space)");
	char file[64], path[4200];
	cr_assert_eq(synth_interp_file_name(PID + 1, 0, file, sizeof(file)), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	cr_assert_eq(access(path, R_OK), 0);
	cr_assert(synth_is_interp_name(path));
	cr_assert_not(synth_is_interp_name("/x/jitted-12-3.so"));
	cr_assert_not(synth_is_interp_name("/x/jitted-12-interp.so.x"));
	cr_assert(synth_is_interp_name("jitted-12-interp-2.so"));
	/* the ELF is built once per process: its file is not rewritten on the next frame */
	struct stat st0, st1;
	cr_assert_eq(stat(path, &st0), 0);
	cr_assert_eq(unlink(path), 0);
	addr_of(PID + 1, 0x4000, 0xb000, 0, 200);
	cr_assert_neq(stat(path, &st1), 0);
	(void)st0;
}
