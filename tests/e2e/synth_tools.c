/* synth_tools.c - the ELFs of `jitprof synth` checked with the tools users point at them:
 * readelf/eu-readelf without warnings, eu-elflint --gnu-ld, llvm-dwarfdump --verify, addr2line
 * and llvm-symbolizer (inline chains), gdb, libdw, objdump; for minijit's dump, hand-built
 * loads (inline chains, unwind tables, aarch64), perf's own JVMTI fixture and node's dump. */
#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/e2e/synth_util.h"

struct frame {
	char func[512], file[1280];
	int line;
};

struct chain {
	struct frame f[32];
	int n;
};

static void push(struct chain *c, const char *func, const char *file, int line)
{
	cr_assert_lt(c->n, 32);
	struct frame *f = &c->f[c->n++];
	snprintf(f->func, sizeof(f->func), "%s", func);
	snprintf(f->file, sizeof(f->file), "%s", file);
	f->line = line;
}

/* What every symbolizer must say at row: the innermost frame at the row's file:line, then
 * each caller at its call site (jitprof's inline table), outermost the compiled method. */
static void expected(const struct su_load *l, const struct jd_line *row, struct chain *c)
{
	const struct jd_ext_inline *x = l->in.inl;
	const struct jd_inline_pc *p = NULL;
	c->n = 0;
	for (uint32_t j = 0; x && j < x->nr_pcs && x->pcs[j].addr <= row->addr; j++)
		p = &x->pcs[j];
	uint32_t depth = p ? p->depth : 0;
	if (depth <= 1) {
		push(c, l->in.name, row->file, row->line);
		return;
	}
	push(c, x->methods[p->frames[0].method].name, row->file, row->line);
	for (uint32_t k = 1; k < depth; k++) {
		const struct jd_inline_method *m = &x->methods[p->frames[k].method];
		push(c, k + 1 == depth ? l->in.name : m->name, m->file, p->frames[k].line);
	}
}

/* libdw joins a relative file name to the empty DW_AT_comp_dir as "/name" (docs/synth.md);
 * binutils, LLVM and gdb print the name as written. */
static int same_file(const char *got, const char *want, const char *tool)
{
	if (!strcmp(got, want))
		return 1;
	return !strcmp(tool, "libdw") && got[0] == '/' && want[0] != '/' && !strcmp(got + 1, want);
}

static void same_chain(const struct chain *got, const struct chain *want, const char *tool,
		       const struct su_load *l, uint64_t addr)
{
	cr_assert_eq(got->n, want->n, "%s %s 0x%lx: %d frames, want %d (%s)", tool, l->path,
		     (unsigned long)addr, got->n, want->n, want->f[0].func);
	for (int i = 0; i < want->n; i++) {
		cr_assert_str_eq(got->f[i].func, want->f[i].func, "%s 0x%lx frame %d", tool,
				 (unsigned long)addr, i);
		cr_assert(same_file(got->f[i].file, want->f[i].file, tool),
			  "%s 0x%lx frame %d: %s, want %s", tool, (unsigned long)addr, i,
			  got->f[i].file, want->f[i].file);
		cr_assert_eq(got->f[i].line, want->f[i].line, "%s 0x%lx frame %d", tool,
			     (unsigned long)addr, i);
	}
}

/* "file:line[:col][ (discriminator n)]" */
static void parse_loc(const char *loc, int with_col, struct frame *f)
{
	char buf[1200];
	snprintf(buf, sizeof(buf), "%s", loc);
	char *d = strstr(buf, " (discriminator");
	if (d)
		*d = 0;
	char *c = strrchr(buf, ':');
	cr_assert_not_null(c, "location '%s'", loc);
	if (with_col) {
		*c = 0;
		c = strrchr(buf, ':');
		cr_assert_not_null(c, "location '%s'", loc);
	}
	*c = 0;
	f->line = atoi(c + 1);
	snprintf(f->file, sizeof(f->file), "%s", buf);
}

/* Output of "addr2line -a -f -i" or "llvm-symbolizer --inlining" for several addresses:
 * a block per address of (function, location) pairs. */
static char *next_line(char **s)
{
	char *l = *s, *nl = l ? strchr(l, '\n') : NULL;
	if (!l || !*l)
		return NULL;
	if (nl)
		*nl = 0;
	*s = nl ? nl + 1 : l + strlen(l);
	return l;
}

static void parse_blocks(char *out, int llvm, struct chain *chains, size_t n)
{
	char *s = out, *ln;
	long k = llvm ? 0 : -1;	/* addr2line -a opens each block with the address */
	for (size_t i = 0; i < n; i++)
		chains[i].n = 0;
	while ((ln = next_line(&s))) {
		if ((!llvm && !strncmp(ln, "0x", 2)) || (llvm && !*ln)) {
			k++;
			continue;
		}
		cr_assert(k >= 0 && (size_t)k < n, "more blocks than addresses: '%s'", ln);
		struct chain *c = &chains[k];
		cr_assert_lt(c->n, 32);
		struct frame *f = &c->f[c->n++];
		snprintf(f->func, sizeof(f->func), "%s", ln);
		char *loc = next_line(&s);
		cr_assert_not_null(loc, "function '%s' without a location", ln);
		parse_loc(loc, llvm, f);
	}
}

/* libdw: the line row, then the scope chain from the innermost DIE (dwarf_getscopes stops at
 * the unit after an inlined scope; dwarf_getscopes_die walks through the callers). */
static void libdw_chain(Dwarf *dbg, uint64_t pc, struct chain *c)
{
	Dwarf_Die cu, *scopes, *chain;
	c->n = 0;
	cr_assert_not_null(dwarf_addrdie(dbg, pc, &cu), "libdw: no unit at 0x%lx",
			   (unsigned long)pc);
	Dwarf_Line *line = dwarf_getsrc_die(&cu, pc);
	cr_assert_not_null(line);
	int ln;
	dwarf_lineno(line, &ln);
	const char *file = dwarf_linesrc(line, NULL, NULL);
	Dwarf_Files *files;
	size_t nfiles;
	dwarf_getsrcfiles(&cu, &files, &nfiles);
	cr_assert_gt(dwarf_getscopes(&cu, pc, &scopes), 0);
	int n = dwarf_getscopes_die(&scopes[0], &chain);
	free(scopes);
	for (int i = 0; i < n; i++) {
		int tag = dwarf_tag(&chain[i]);
		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		Dwarf_Attribute a;
		const char *name = dwarf_formstring(dwarf_attr_integrate(&chain[i],
							DW_AT_linkage_name, &a));
		push(c, name ? name : "?", file ? file : "?", ln);
		if (tag == DW_TAG_subprogram)
			break;
		Dwarf_Word cf = 0, cl = 0;
		dwarf_formudata(dwarf_attr(&chain[i], DW_AT_call_file, &a), &cf);
		dwarf_formudata(dwarf_attr(&chain[i], DW_AT_call_line, &a), &cl);
		file = dwarf_filesrc(files, cf, NULL, NULL);
		ln = (int)cl;
	}
	free(chain);
}

/* The last row at each distinct address (rows sharing an address leave only the last). */
static size_t rows_of(const struct su_load *l, const struct jd_line **rows)
{
	size_t n = 0;
	for (size_t i = 0; i < l->in.nr_lines; i++) {
		if (i + 1 < l->in.nr_lines && l->in.lines[i + 1].addr == l->in.lines[i].addr)
			continue;
		rows[n++] = &l->in.lines[i];
	}
	return n;
}

/* Every row of every load through addr2line, llvm-symbolizer, libdw and gdb. */
static void symbolize_all(const struct su_set *s)
{
	size_t checked = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct su_load *l = &s->v[i];
		if (!l->in.nr_lines)
			continue;
		const struct jd_line **rows = calloc(l->in.nr_lines, sizeof(*rows));
		size_t n = rows_of(l, rows);
		size_t cap = 64 + n * 24, o = 0;
		char *addrs = malloc(cap), *gdbx = malloc(cap * 2);
		size_t go = 0;
		for (size_t k = 0; k < n; k++) {
			uint64_t a = su_vaddr(l, rows[k]->addr);
			o += (size_t)snprintf(addrs + o, cap - o, " 0x%lx", (unsigned long)a);
			go += (size_t)snprintf(gdbx + go, cap * 2 - go, " -ex 'info line *0x%lx'",
					       (unsigned long)a);
		}
		struct chain *got = calloc(n, sizeof(*got)), want;
		struct tu_result r;
		su_sh(&r, "addr2line -a -f -i -e %s%s", l->path, addrs);
		cr_assert_eq(r.status, 0, "%s", r.err);
		parse_blocks(r.out, 0, got, n);
		for (size_t k = 0; k < n; k++) {
			expected(l, rows[k], &want);
			same_chain(&got[k], &want, "addr2line", l, rows[k]->addr);
		}
		tu_result_free(&r);
		su_sh(&r, "llvm-symbolizer --inlining --obj=%s%s", l->path, addrs);
		cr_assert_eq(r.status, 0, "%s", r.err);
		parse_blocks(r.out, 1, got, n);
		for (size_t k = 0; k < n; k++) {
			expected(l, rows[k], &want);
			same_chain(&got[k], &want, "llvm-symbolizer", l, rows[k]->addr);
		}
		tu_result_free(&r);
		/* gdb: 'Line N of "file" starts at address ...' for each row, innermost. */
		su_sh(&r, "gdb -batch -nx%s %s", gdbx, l->path);
		char *p = r.out;
		for (size_t k = 0; k < n; k++) {
			char want_s[1200];
			snprintf(want_s, sizeof(want_s), "Line %d of \"%s\"", rows[k]->line,
				 rows[k]->file);
			char *hit = strstr(p, want_s);
			cr_assert_not_null(hit, "gdb: no '%s' for row %zu in:\n%s", want_s, k, r.out);
			p = hit + 1;
		}
		cr_assert_eq(tu_count(r.err, "arning"), 0, "gdb warns: %s", r.err);
		tu_result_free(&r);
		Elf *elf = elf_memory((char *)l->elf.data, l->elf.size);
		Dwarf *dbg = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
		cr_assert_not_null(dbg);
		for (size_t k = 0; k < n; k++) {
			expected(l, rows[k], &want);
			libdw_chain(dbg, su_vaddr(l, rows[k]->addr), &got[k]);
			same_chain(&got[k], &want, "libdw", l, rows[k]->addr);
		}
		dwarf_end(dbg);
		elf_end(elf);
		checked += n;
		free(got);
		free(addrs);
		free(gdbx);
		free(rows);
	}
	cr_assert_gt(checked, 0, "no line rows were checked");
}

/* readelf/eu-readelf quiet, eu-elflint and llvm-dwarfdump --verify clean. */
static void lint(const struct su_load *l)
{
	struct tu_result r;
	su_sh(&r, "readelf -a -W --debug-dump=frames %s", l->path);
	cr_assert(r.status == 0 && !r.err_len, "readelf %s: %s", l->path, r.err);
	cr_assert_eq(tu_count(r.out, "Warning"), 0, "readelf %s warns", l->path);
	tu_result_free(&r);
	su_sh(&r, "eu-readelf -a %s", l->path);
	cr_assert(r.status == 0 && !r.err_len, "eu-readelf %s: %s", l->path, r.err);
	tu_result_free(&r);
	su_sh(&r, "eu-elflint --gnu-ld %s", l->path);
	cr_assert(r.status == 0 && strstr(r.out, "No errors"), "eu-elflint %s:\n%s%s", l->path,
		  r.out, r.err);
	tu_result_free(&r);
	su_sh(&r, "llvm-dwarfdump --verify %s", l->path);
	cr_assert(r.status == 0 && strstr(r.out, "No errors."), "llvm-dwarfdump %s:\n%s%s",
		  l->path, r.out, r.err);
	tu_result_free(&r);
}

static void lint_all(const struct su_set *s, size_t step)
{
	for (size_t i = 0; i < s->n; i += step)
		lint(&s->v[i]);
}

Test(synth_tools, minijit_dump)
{
	char *dir = tu_tmpdir("synth-mj");
	char *dump = su_minijit_dump(dir, "");
	char out[4096];
	snprintf(out, sizeof(out), "%s/elfs", dir);
	struct su_set s;
	su_synth(&s, dump, out);
	cr_assert_geq(s.n, 4);
	lint_all(&s, 1);
	symbolize_all(&s);
	/* Generations of one name: distinct build-ids though the name is shared. */
	for (size_t i = 0; i < s.n; i++)
		for (size_t j = i + 1; j < s.n; j++)
			cr_assert(memcmp(s.v[i].elf.build_id, s.v[j].elf.build_id, 20));
	/* Determinism: a second run gives the same bytes. */
	char out2[4096];
	snprintf(out2, sizeof(out2), "%s/again", dir);
	struct su_set s2;
	su_synth(&s2, dump, out2);
	for (size_t i = 0; i < s.n; i++) {
		cr_assert_eq(s2.v[i].elf.size, s.v[i].elf.size);
		struct tu_result r;
		su_sh(&r, "cmp %s %s", s.v[i].path, s2.v[i].path);
		cr_assert_eq(r.status, 0, "%s", r.out);
		tu_result_free(&r);
	}
	/* objdump shows each method's code at .text (the symbol at text_offset). */
	const struct su_load *l = &s.v[0];
	struct tu_result r;
	su_sh(&r, "objdump -d %s", l->path);
	char want[1024];
	snprintf(want, sizeof(want), "%016lx <%s>:", (unsigned long)l->elf.text_offset,
		 l->in.name);
	cr_assert_not_null(strstr(r.out, want), "objdump:\n%s", r.out);
	snprintf(want, sizeof(want), "%4lx:\t%02x ", (unsigned long)l->elf.text_offset,
		 l->in.code[0]);
	cr_assert_not_null(strstr(r.out, want), "first byte: %s\n%s", want, r.out);
	tu_result_free(&r);
	su_free(&s);
	su_free(&s2);
	free(dump);
	tu_rmtree(dir);
	free(dir);
}

/* Hand-built loads through libjitdump's writer: a three-deep inline chain, equal code as two
 * generations, runtime unwind tables, and aarch64 code. */
static void write_hand_dump(const char *dir, uint32_t machine, const uint8_t *code, size_t size)
{
	struct jd_writer *w;
	struct jd_writer_opts o = { .size = sizeof(o), .dir = dir, .elf_mach = machine };
	cr_assert_eq(jd_writer_open(&w, &o), 0);
	static const char foo[] = "/src/com/acme/Foo.java", bar[] = "com/acme/Bar.java";
	struct jd_line lines[4];
	struct jd_inline_method m[3] = { { "Lcom/acme/Foo;bar(I)I", foo },
					 { "Lcom/acme/Bar;inl()V", bar },
					 { "Lcom/acme/Foo;tiny()I", foo } };
	struct jd_inline_frame f[4][3] = {
		{ { 0, 10, -1 } }, { { 1, 40, -1 }, { 0, 12, -1 } },
		{ { 2, 7, -1 }, { 1, 41, -1 }, { 0, 12, -1 } }, { { 0, 13, -1 } },
	};
	static const uint32_t depth[4] = { 1, 2, 3, 1 };
	struct jd_inline_pc pcs[4];
	uint64_t base = 0x7f1200000000ull;
	for (int i = 0; i < 4; i++) {
		lines[i] = (struct jd_line){ base + 4 * (uint64_t)i, f[i][0].line, 0,
					     m[f[i][0].method].file };
		pcs[i] = (struct jd_inline_pc){ lines[i].addr, depth[i], f[i] };
	}
	struct jd_ext_inline inl = { .nr_methods = 3, .nr_pcs = 4, .methods = m, .pcs = pcs };
	struct jd_ext_load_info info = { .tier = JD_TIER_C2, .level = 4 };
	struct jd_load_desc d = { .name = m[0].name, .code_addr = base, .code = code,
				  .code_size = size, .lines = lines, .nr_lines = 4,
				  .info = &info, .inl = &inl };
	cr_assert_eq(jd_write_load(w, &d, NULL), 0);
	cr_assert_eq(jd_write_load(w, &d, NULL), 0);	/* generation 2, same bytes */
	cr_assert_eq(jd_writer_close(w), 0);
}

Test(synth_tools, hand_built_x86_64)
{
	char *dir = tu_tmpdir("synth-hand");
	uint8_t code[24];
	memset(code, 0x90, sizeof(code));
	code[23] = 0xc3;
	write_hand_dump(dir, EM_X86_64, code, sizeof(code));
	char *dump = su_find_dump(dir), out[4096];
	snprintf(out, sizeof(out), "%s/elfs", dir);
	struct su_set s;
	su_synth(&s, dump, out);
	cr_assert_eq(s.n, 2);
	cr_assert_eq(s.v[1].in.generation, 2);
	cr_assert(memcmp(s.v[0].elf.build_id, s.v[1].elf.build_id, 20), "generations share an id");
	lint_all(&s, 1);
	symbolize_all(&s);
	su_free(&s);
	free(dump);
	tu_rmtree(dir);
	free(dir);
}

Test(synth_tools, hand_built_aarch64)
{
	char *dir = tu_tmpdir("synth-a64");
	uint8_t code[16];
	static const uint8_t nop[4] = { 0x1f, 0x20, 0x03, 0xd5 }, ret[4] = { 0xc0, 0x03, 0x5f, 0xd6 };
	for (int i = 0; i < 3; i++)
		memcpy(code + 4 * i, nop, 4);
	memcpy(code + 12, ret, 4);
	write_hand_dump(dir, EM_AARCH64, code, sizeof(code));
	char *dump = su_find_dump(dir), out[4096];
	snprintf(out, sizeof(out), "%s/elfs", dir);
	struct su_set s;
	su_synth(&s, dump, out);
	lint_all(&s, 1);
	symbolize_all(&s);
	struct tu_result r;
	su_sh(&r, "llvm-objdump -d %s", s.v[0].path);
	cr_assert_not_null(strstr(r.out, "file format elf64-littleaarch64"), "%s", r.out);
	char want[64];
	snprintf(want, sizeof(want), "%lx: c0 03 5f d6", (unsigned long)s.v[0].elf.text_offset + 12);
	const char *hit = strstr(r.out, want);
	cr_assert_not_null(hit, "want '%s' in:\n%s", want, r.out);
	cr_assert(!strncmp(hit + strlen(want) + strspn(hit + strlen(want), " \t"), "ret", 3),
		  "the last instruction is not ret:\n%s", r.out);
	tu_result_free(&r);
	su_free(&s);
	free(dump);
	tu_rmtree(dir);
	free(dir);
}

/* perf's own JVMTI agent's dump (a third-party writer): every tenth ELF through the linters,
 * every load with lines through the symbolizers. */
#define FIXTURE "../shared/fixtures/perf-jvmti/jit-27543.dump"

Test(synth_tools, perf_jvmti_fixture, .timeout = 240)
{
	if (access(FIXTURE, R_OK))
		cr_skip_test("fixture %s absent (needs shared/ beside the clone)", FIXTURE);
	char *dir = tu_tmpdir("synth-fx");
	struct su_set s;
	su_synth(&s, FIXTURE, dir);
	cr_assert_eq(s.n, 460);
	lint_all(&s, 10);
	size_t with_lines = 0;
	for (size_t i = 0; i < s.n; i++)
		with_lines += s.v[i].in.nr_lines > 0;
	cr_assert_eq(with_lines, 67);
	symbolize_all(&s);
	su_free(&s);
	tu_rmtree(dir);
	free(dir);
}

/* node writes UNWINDING_INFO: the .eh_frame FDEs must cover exactly the method's .text. */
Test(synth_tools, node_unwind_tables, .timeout = 240)
{
	if (!tu_have("node"))
		cr_skip_test("node is not installed");
	char *dir = tu_tmpdir("synth-node");
	struct tu_result r;
	su_sh(&r, "cd %s && node --perf-prof --perf-prof-unwinding-info -e "
		  "'function f(n){let s=0;for(let i=0;i<n;i++)s+=i*i%%7;return s}"
		  "let t=0;for(let k=0;k<300;k++)t+=f(20000);console.log(t)'", dir);
	cr_assert_eq(r.status, 0, "%s", r.err);
	tu_result_free(&r);
	char *dump = su_find_dump(dir), out[4096];
	snprintf(out, sizeof(out), "%s/elfs", dir);
	struct su_set s;
	su_synth(&s, dump, out);
	size_t with_eh = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct su_load *l = &s.v[i];
		if (l->in.unwind_size <= l->in.eh_frame_hdr_size)
			continue;
		with_eh++;
		lint(l);
		/* The FDE starts at .text and ends inside it (V8 leaves its constant pool out). */
		su_sh(&r, "readelf --debug-dump=frames %s", l->path);
		char want[128];
		snprintf(want, sizeof(want), "pc=%016lx..", (unsigned long)l->elf.text_offset);
		const char *fde = strstr(r.out, want);
		cr_assert_not_null(fde, "%s: no FDE at .text in:\n%s", l->path, r.out);
		unsigned long end = strtoul(fde + strlen(want), NULL, 16);
		cr_assert(end > l->elf.text_offset && end <= l->elf.text_offset + l->in.code_size,
			  "%s: FDE ends at 0x%lx", l->path, end);
		tu_result_free(&r);
	}
	cr_assert_gt(with_eh, 0, "node wrote no .eh_frame");
	lint_all(&s, s.n / 20 + 1);
	su_free(&s);
	free(dump);
	tu_rmtree(dir);
	free(dir);
}

/* Inline frames whose methods have no known source file (runtimes report "" then): the
 * DIEs leave DW_AT_call_file out and every tool still accepts the file. */
Test(synth_tools, inline_without_files)
{
	char *dir = tu_tmpdir("synth-nofile");
	struct jd_writer *w;
	struct jd_writer_opts o = { .size = sizeof(o), .dir = dir };
	cr_assert_eq(jd_writer_open(&w, &o), 0);
	uint8_t code[16];
	memset(code, 0x90, sizeof(code));
	struct jd_inline_method m[2] = { { "LA;a()V", "" }, { "LB;b()V", "" } };
	struct jd_inline_frame f[2] = { { 1, 5, -1 }, { 0, 7, -1 } };
	struct jd_inline_pc pcs[1] = { { 0x6000, 2, f } };
	struct jd_ext_inline inl = { .nr_methods = 2, .nr_pcs = 1, .methods = m, .pcs = pcs };
	struct jd_load_desc d = { .name = "LA;a()V", .code_addr = 0x6000, .code = code,
				  .code_size = sizeof(code), .inl = &inl };
	cr_assert_eq(jd_write_load(w, &d, NULL), 0);
	cr_assert_eq(jd_writer_close(w), 0);
	char *dump = su_find_dump(dir), out[4096];
	snprintf(out, sizeof(out), "%s/elfs", dir);
	struct su_set s;
	su_synth(&s, dump, out);
	lint_all(&s, 1);
	struct tu_result r;
	su_sh(&r, "addr2line -f -i -e %s 0x%lx", s.v[0].path, (unsigned long)s.v[0].elf.text_offset);
	cr_assert_str_eq(r.out, "LB;b()V\n??:?\nLA;a()V\n??:7\n", "the call line survives");
	tu_result_free(&r);
	su_free(&s);
	free(dump);
	tu_rmtree(dir);
	free(dir);
}

/* The command's own behaviour: stubs skipped unless --all, the build-id cache option and
 * errors that name the file. */
Test(synth_tools, command_options)
{
	char *dir = tu_tmpdir("synth-cmd");
	struct jd_writer *w;
	struct jd_writer_opts o = { .size = sizeof(o), .dir = dir };
	cr_assert_eq(jd_writer_open(&w, &o), 0);
	uint8_t code[16];
	memset(code, 0x90, sizeof(code));
	struct jd_ext_load_info stub = { .tier = JD_TIER_STUB, .level = -1 };
	struct jd_load_desc d = { .name = "Interpreter", .code_addr = 0x5000, .code = code,
				  .code_size = sizeof(code), .info = &stub };
	cr_assert_eq(jd_write_load(w, &d, NULL), 0);
	d.name = "LFoo;m()V";
	d.info = NULL;
	cr_assert_eq(jd_write_load(w, &d, NULL), 0);
	cr_assert_eq(jd_writer_close(w), 0);
	char *dump = su_find_dump(dir);
	struct tu_result r;
	su_sh(&r, "%s synth %s -o %s/a", tu_build("jitprof"), dump, dir);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_eq(tu_count(r.out, "\n"), 1, "the stub is skipped:\n%s", r.out);
	cr_assert_not_null(strstr(r.out, " LFoo;m()V"));
	cr_assert_not_null(strstr(r.err, "1 stubs skipped"), "%s", r.err);
	tu_result_free(&r);
	su_sh(&r, "%s synth %s -o %s/b --all --buildid-dir %s/cache", tu_build("jitprof"), dump,
	      dir, dir);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_eq(tu_count(r.out, "\n"), 2, "--all keeps the stub:\n%s", r.out);
	char hex[64];
	cr_assert_eq(sscanf(r.out, "%63s", hex), 1);
	tu_result_free(&r);
	su_sh(&r, "ls %s/cache/.build-id/%.2s/%s/elf", dir, hex, hex + 2);
	cr_assert_eq(r.status, 0, "no cache entry for %s: %s", hex, r.err);
	tu_result_free(&r);
	su_sh(&r, "%s synth %s/missing.dump -o %s/c", tu_build("jitprof"), dir, dir);
	cr_assert_eq(r.status, 1);
	cr_assert_not_null(strstr(r.err, "missing.dump"), "%s", r.err);
	tu_result_free(&r);
	su_sh(&r, "%s synth %s", tu_build("jitprof"), dump);
	cr_assert_eq(r.status, 2, "-o is required");
	tu_result_free(&r);
	free(dump);
	tu_rmtree(dir);
	free(dir);
}

/* An ELF that cannot be put in place at the end of an 800-byte directory (a directory holds
 * its name): the error names the whole path (it was cut at the 512 bytes of synth's
 * buffer). */
Test(synth_tools, place_error_names_a_long_path_whole)
{
	char *dir = tu_tmpdir("synth-long");
	struct jd_writer *w;
	struct jd_writer_opts o = { .size = sizeof(o), .dir = dir };
	cr_assert_eq(jd_writer_open(&w, &o), 0);
	uint8_t code[16];
	memset(code, 0x90, sizeof(code));
	struct jd_load_desc d = { .name = "LFoo;m()V", .code_addr = 0x5000, .code = code,
				  .code_size = sizeof(code) };
	cr_assert_eq(jd_write_load(w, &d, NULL), 0);
	cr_assert_eq(jd_writer_close(w), 0);
	char *dump = su_find_dump(dir), out[4200], file[8800];
	cr_assert_gt(tu_long_dir(out, sizeof(out), dir, 3), 0);
	struct tu_result r;
	su_sh(&r, "%s synth %s -o %s", tu_build("jitprof"), dump, out);
	cr_assert_eq(r.status, 0, "%s", r.err);
	char name[4400];
	cr_assert_eq(sscanf(r.out, "%*s %4399s", name), 1, "%s", r.out);
	tu_result_free(&r);
	const char *base = strrchr(name, '/');
	snprintf(file, sizeof(file), "%s/%s", out, base ? base + 1 : name);
	cr_assert_eq(unlink(file), 0, "%s", file);
	cr_assert_eq(mkdir(file, 0755), 0);
	su_sh(&r, "%s synth %s -o %s", tu_build("jitprof"), dump, out);
	cr_assert_eq(r.status, 1, "%s", r.err);
	char want[8900];
	snprintf(want, sizeof(want), "%s: Is a directory", file);
	cr_assert(strstr(r.err, want), "the path cut (%zu bytes of stderr): ...%s", strlen(r.err),
		  r.err + (strlen(r.err) > 200 ? strlen(r.err) - 200 : 0));
	tu_result_free(&r);
	free(dump);
	tu_rmtree(dir);
	free(dir);
}
