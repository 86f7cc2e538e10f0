/* lines.c - source lines and inlined frames from DWARF (libdw), in process. Each DSO's DWARF
 * is opened once, on the first line lookup; the CUs' address ranges (from DW_AT_ranges /
 * low_pc, else from the CU's line table) are indexed once, so ELFs without .debug_aranges
 * (ours, perf's jitted ones) resolve as well as gcc's. */
#include "recorder/symbols/symbols_int.h"
#include "lib/grow.h"
#include "lib/nomem.h"

#include <assert.h>
#include <dlfcn.h>
#include <dwarf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* libdw's dwarf_begin_elf notes the directory of the file it reads (for dwz and split DWARF)
 * by realpath("/proc/self/fd/<fd>") (elfutils' __libdw_debugdir), even for an Elf made from
 * memory, whose fd is -1 and printed unsigned: five readlinks that always fail, 9 us in a
 * 12 us dwarf_begin_elf, for each of the hundreds of jitted ELFs a call-graph report opens
 * (all of them read into memory, find.c). That one path is answered here without a system
 * call; every other realpath (ours, libdw's for real files) goes on to the next definition
 * (libc's, or a sanitizer's). The answer is the one the kernel gives: no such file. */
#define NO_FD_PATH "/proc/self/fd/4294967295"

unsigned long sym_no_fd_realpaths;	/* how many were answered here, for the tests */

char *realpath(const char *restrict path, char *restrict resolved)
{
	static char *(*next)(const char *restrict, char *restrict);
	if (path && !strcmp(path, NO_FD_PATH)) {
		__atomic_add_fetch(&sym_no_fd_realpaths, 1, __ATOMIC_RELAXED);
		errno = ENOENT;
		return NULL;
	}
	char *(*fn)(const char *restrict, char *restrict) = __atomic_load_n(&next,
									  __ATOMIC_ACQUIRE);
	if (!fn) {	/* two threads may both look it up: the same answer */
		*(void **)&fn = dlsym(RTLD_NEXT, "realpath");
		if (!fn) {
			errno = ENOSYS;
			return NULL;
		}
		__atomic_store_n(&next, fn, __ATOMIC_RELEASE);
	}
	return fn(path, resolved);
}

Elf_Scn *lines_section(Elf *elf, const char *name, const char *alt)
{
	size_t shstrndx;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		const char *n;
		if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS &&
		    (n = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    (!strcmp(n, name) || (alt && !strcmp(n, alt))))
			return scn;
	}
	return NULL;
}

int lines_has_debug_info(Elf *elf)
{
	return lines_section(elf, ".debug_info", ".zdebug_info") != NULL;
}

static int cu_cmp(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The CU ranges being indexed. */
struct cu_index {
	struct cu_range *v;
	size_t n, cap;
};

static int add_cu_range(struct cu_index *x, uint64_t lo, uint64_t hi, Dwarf_Off off)
{
	if (hi <= lo)
		return 0;
	if (JP_GROW_FOR(x->v, x->cap, x->n))
		return -ENOMEM;
	x->v[x->n++] = (struct cu_range){ .lo = lo, .hi = hi, .cu_off = off };
	return 0;
}

/* A CU with a line table but no address ranges (perf inject --jit writes such DWARF v2:
 * only DW_AT_stmt_list; no .debug_aranges either): its ranges are its line table's
 * sequences, from the first row to the end_sequence row. */
static int index_line_table(struct cu_index *x, Dwarf_Die *cudie)
{
	Dwarf_Lines *lines;
	size_t n;
	if (dwarf_getsrclines(cudie, &lines, &n))
		return 0;	/* unreadable: the CU just finds nothing */
	Dwarf_Off off = dwarf_dieoffset(cudie);
	uint64_t lo = UINT64_MAX;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		bool end = false;
		if (!l || dwarf_lineaddr(l, &a) || dwarf_lineendsequence(l, &end))
			continue;
		if (a < lo)
			lo = a;
		if (end) {
			int rc = add_cu_range(x, lo, a, off);
			if (rc)
				return rc;
			lo = UINT64_MAX;
		}
	}
	return 0;
}

int lines_index_cus(Dwarf *dw, struct cu_range **cus, size_t *n_cus)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	struct cu_index x = { 0 };
	int rc = 0, got = 1;
	while (!rc &&
	       (errno = 0, got = dwarf_get_units(dw, cu, &cu, NULL, NULL, &cudie, NULL)) == 0) {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;
		if (!dwarf_hasattr(&cudie, DW_AT_low_pc) && !dwarf_hasattr(&cudie, DW_AT_ranges)) {
			if (dwarf_hasattr(&cudie, DW_AT_stmt_list))
				rc = index_line_table(&x, &cudie);
			continue;
		}
		while (!rc && (off = dwarf_ranges(&cudie, off, &base, &lo, &hi)) > 0)
			rc = add_cu_range(&x, lo, hi, dwarf_dieoffset(&cudie));
	}
	/* -1 is a failure, not the last unit: out of memory in libdw or libelf (malloc's errno)
	 * must not read as a file with fewer units, whose addresses then have no line. */
	if (!rc && got < 0 && errno == ENOMEM)
		rc = -ENOMEM;
	if (x.n)
		qsort(x.v, x.n, sizeof(*x.v), cu_cmp);
	*cus = x.v;
	*n_cus = x.n;
	return rc;
}

/* libc's debug file (Debian 12): 1.4 of its 9.9 MB of inflated DWARF are location lists,
 * 16% of the zlib work a call-graph report of a C program paid at start-up. */
void lines_skip_unread(Elf *elf)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_COMPRESSED) ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (strcmp(name, ".debug_loclists") && strcmp(name, ".debug_loc"))
			continue;
		sh.sh_type = SHT_NOBITS;
		gelf_update_shdr(scn, &sh);
	}
}

static int dw_open_once(struct sym_session *s, struct sym_dso *d)
{
	if (d->dw_ahead)
		return dwarf_ahead_take(s, d);
	if (d->dw_tried)
		return d->dw ? 0 : -ENOENT;
	/* A separate debug file (libc's, say: its sections compressed) as the read-ahead reads
	 * it, through the inflated copy of the build-id cache; a DSO no sample hit (only its
	 * callers' frames) was not read ahead. */
	int rc = s->o.no_lines ? 1 : dwarf_read_now(s, d);
	if (rc <= 0)
		return rc;
	d->dw_tried = 1;
	if (sym_dso_find(s, d, NULL) || dso_open(s, d))
		return -ENOENT;
	Elf *elf = d->elf;
	if (!lines_has_debug_info(elf)) {
		if (find_debug_file(s, d) || !lines_has_debug_info(d->dbg_elf))
			return -ENOENT;
		elf = d->dbg_elf;
	}
	d->dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (!d->dw) {
		sess_msg(s, JP_LOG_WARN, "%s: unreadable DWARF: %s", d->path ? d->path : d->long_name,
			 dwarf_errmsg(-1));
		return -EINVAL;
	}
	return lines_index_cus(d->dw, &d->cus, &d->n_cus);
}

/* Out of memory indexing the units is fatal: its callers read any failure as "no lines". */
static int dw_open(struct sym_session *s, struct sym_dso *d)
{
	return jp_nomem_check(dw_open_once(s, d), "indexing a DWARF file's units");
}

void lines_free(struct sym_dso *d)
{
	for (size_t i = 0; i < d->n_cus; i++)
		if (d->cus[i].owns_scopes) {
			free(d->cus[i].scopes->subs);
			free(d->cus[i].scopes->top);
			free(d->cus[i].scopes);
		}
	dwarf_ahead_drop(d);
	if (d->dw)
		dwarf_end(d->dw);
	d->dw = NULL;
	if (d->dw_elf)
		elf_end(d->dw_elf);
	d->dw_elf = NULL;
	lines_zbuf_free(&d->dw_zbuf);	/* the sections dw read, inflated */
	free(d->cus);
	d->cus = NULL;
	d->n_cus = 0;
}

static struct cu_range *find_cu(struct sym_dso *d, uint64_t addr, Dwarf_Die *cudie)
{
	size_t lo = sym_upper_bound(d->cus, d->n_cus, sizeof(*d->cus), addr);
	for (size_t i = lo; i-- > 0;)
		if (addr < d->cus[i].hi)
			return dwarf_offdie(d->dw, d->cus[i].cu_off, cudie) ? &d->cus[i] : NULL;
		else if (lo - i > 8)
			break;
	return NULL;
}

/* The tags libdw's scope walk (__libdw_visit_scopes) descends into. */
static bool may_have_scopes(int tag)
{
	switch (tag) {
	case DW_TAG_compile_unit: case DW_TAG_module: case DW_TAG_lexical_block:
	case DW_TAG_with_stmt: case DW_TAG_catch_block: case DW_TAG_try_block:
	case DW_TAG_entry_point: case DW_TAG_inlined_subroutine: case DW_TAG_subprogram:
	case DW_TAG_namespace: case DW_TAG_class_type: case DW_TAG_structure_type:
		return true;
	default:
		return false;
	}
}

/* Notes the DIE at st[sp] if libdw's scope walk reaches it (desc[sp - 1]: every ancestor
 * is a scope), and whether the walk descends below it: an imported unit's children are
 * walked in its place, as siblings of the units it sits among (libdw's walk_children). */
static int note_die(struct cu_scopes *cs, Dwarf_Die *die, bool *desc, int sp)
{
	if (sp == 1 && !cs->top_bad && cu_top_note(cs, die))
		return -ENOMEM;
	desc[sp] = false;
	if (!desc[sp - 1])
		return 0;
	int tag = dwarf_tag(die);
	if (tag == DW_TAG_imported_unit) {
		cs->imports = 1;
		desc[sp] = true;
		return 0;
	} else if (tag == DW_TAG_subprogram) {
		if (JP_GROW_FOR(cs->subs, cs->cap, cs->n))
			return -ENOMEM;
		cs->subs[cs->n++] = dwarf_dieoffset(die);
	}
	desc[sp] = may_have_scopes(tag);
	return 0;
}

/* The first child of die into *child (0), or 1 for none, <0 damaged; an imported unit's
 * are those of the unit it imports (*unit: that unit's DIE, else NULL), as libdw follows it. */
static int first_child(Dwarf_Die *die, Dwarf_Die *child, const void **unit)
{
	*unit = NULL;
	if (dwarf_tag(die) == DW_TAG_imported_unit) {
		Dwarf_Attribute attr;
		Dwarf_Die u;
		if (!dwarf_formref_die(dwarf_attr(die, DW_AT_import, &attr), &u))
			return 1;
		*unit = u.addr;
		return dwarf_child(&u, child);
	}
	return dwarf_haschildren(die) ? dwarf_child(die, child) : 1;
}

enum { WALK_OK = 1, WALK_DEEP = 0, WALK_IMPORTS = -1, WALK_LOOP = -2, WALK_NOMEM = -3 };

/* WALK_OK if libdw's scope walk (dwarf_getscopes, which recurses once per level and once per
 * imported unit) stays within SYM_DWARF_MAX_DEPTH levels counting both, and reads at most
 * SYM_DWARF_IMPORT_BUDGET DIEs through imported units (each import is walked again wherever
 * it is imported: units importing each other twice over double per level); else why not.
 * Found by a walk that keeps its own stack (dwarf_child and dwarf_siblingof do not recurse);
 * the same walk fills cs. */
static int cu_walk(Dwarf_Die *cudie, struct cu_scopes *cs)
{
	static __thread Dwarf_Die st[SYM_DWARF_MAX_DEPTH + 2];
	static __thread bool desc[SYM_DWARF_MAX_DEPTH + 2];
	static __thread const void *unit[SYM_DWARF_MAX_DEPTH + 2];	/* imported below st[i] */
	unsigned imported = 0;	/* units open on the stack */
	size_t budget = SYM_DWARF_IMPORT_BUDGET;
	int sp = 0;
	st[0] = *cudie;
	desc[0] = true;
	unit[0] = NULL;
	for (;;) {
		int r = first_child(&st[sp], &st[sp + 1], &unit[sp]);
		if (r == 0) {
			if (unit[sp]) {
				for (int i = 0; i < sp; i++)
					if (unit[i] == unit[sp])
						return WALK_LOOP;	/* libdw refuses it too */
				imported++;
			}
			if (++sp > SYM_DWARF_MAX_DEPTH)
				return WALK_DEEP;
			unit[sp] = NULL;
			if (imported && !budget--)
				return WALK_IMPORTS;
			if (note_die(cs, &st[sp], desc, sp))
				return WALK_NOMEM;
			continue;
		}
		if (r < 0 && sp == 0)
			return WALK_OK;	/* damaged: getscopes stops there as well */
		unit[sp] = NULL;
		while (sp > 0) {
			Dwarf_Die next;
			r = dwarf_siblingof(&st[sp], &next);
			if (r == 0) {
				st[sp] = next;
				if (imported && !budget--)
					return WALK_IMPORTS;
				if (note_die(cs, &st[sp], desc, sp))
					return WALK_NOMEM;
				break;
			}
			if (r < 0)
				return WALK_OK;
			sp--;
			if (unit[sp]) {	/* the end of an imported unit's children */
				imported--;
				unit[sp] = NULL;
			}
		}
		if (sp == 0)
			return WALK_OK;
	}
}

/* Why cu_walk refused a unit, for the warning. */
static_assert(SYM_DWARF_MAX_DEPTH == 512 && SYM_DWARF_IMPORT_BUDGET == 1u << 20,
	      "walk_refusal names the limits");
static const char *walk_refusal(int rc)
{
	if (rc == WALK_LOOP)
		return "imports a unit that imports it back";
	if (rc == WALK_IMPORTS)
		return "reads more than SYM_DWARF_IMPORT_BUDGET (1 Mi) DIEs through imported units";
	return "nests deeper than SYM_DWARF_MAX_DEPTH (512) levels, imported units counted";
}

static int depth_ok(struct sym_session *s, struct sym_dso *d, struct cu_range *cu,
		    Dwarf_Die *cudie)
{
	if (!cu->depth) {
		struct cu_scopes *cs = calloc(1, sizeof(*cs));
		int rc = cs ? cu_walk(cudie, cs) : WALK_NOMEM;
		if (rc == WALK_NOMEM) {	/* no inline frames this time, walked again next */
			if (cs) {
				free(cs->subs);
				free(cs->top);
			}
			free(cs);
			return 0;
		}
		cu_top_finish(cs);
		int v = rc == WALK_OK ? 1 : -1;
		cu->owns_scopes = 1;
		for (size_t i = 0; i < d->n_cus; i++)	/* every range of this CU */
			if (d->cus[i].cu_off == cu->cu_off) {
				d->cus[i].depth = v;
				d->cus[i].scopes = cs;
			}
		if (v < 0)
			sess_msg(s, JP_LOG_WARN, "%s: DWARF unit at offset %llu %s: its inline "
				 "frames are not read", d->path ? d->path : d->long_name,
				 (unsigned long long)cu->cu_off, walk_refusal(rc));
	}
	return cu->depth > 0;
}

/* The name a frame is shown with: the linkage name demangled, else DW_AT_name (both
 * followed through abstract_origin/specification). */
static const char *die_func_name(struct sym_session *s, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *n = NULL;
	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr)) {
		n = dwarf_formstring(&attr);
		if (n)
			return sess_demangle(s, sess_intern(s, n));
	}
	if (dwarf_attr_integrate(die, DW_AT_name, &attr))
		n = dwarf_formstring(&attr);
	return n ? sess_intern(s, n) : NULL;
}

static const char *call_file(struct sym_session *s, Dwarf_Die *cudie, Dwarf_Die *die,
			     unsigned *line)
{
	Dwarf_Attribute attr;
	Dwarf_Word fileidx = 0, ln = 0;
	Dwarf_Files *files;
	size_t nfiles;
	*line = 0;
	if (dwarf_attr(die, DW_AT_call_line, &attr) && !dwarf_formudata(&attr, &ln))
		*line = (unsigned)ln;
	if (!dwarf_attr(die, DW_AT_call_file, &attr) || dwarf_formudata(&attr, &fileidx) ||
	    dwarf_getsrcfiles(cudie, &files, &nfiles) || fileidx >= nfiles)
		return NULL;
	return sess_intern(s, dwarf_filesrc(files, fileidx, NULL, NULL));
}

#define SLOW_PATH (-1)

static int off_cmp(const void *a, const void *b)
{
	Dwarf_Off x = *(const Dwarf_Off *)a, y = *(const Dwarf_Off *)b;
	return x < y ? -1 : x > y;
}

/* What dwarf_getscopes(cudie, addr) then dwarf_getscopes_die(innermost) give, without their
 * cost: both walk the whole CU for every address (the first to find an inline's abstract
 * origin, the second to find the innermost DIE's parents), 12% of a call-graph report on a
 * Java start-up (libc's CUs are large). The path is found by descending into the first child
 * that contains addr, as libdw's pruned walk does; the origin is looked up among the CU's
 * reachable subprograms, which is where libdw's walk finds it or finds nothing (then it
 * returns no scopes). Fills *scopes innermost first up to the CU; returns their number, 0
 * for none, SLOW_PATH where libdw decides (imported units, a range error libdw may
 * tolerate, an origin that is no subprogram), or -ENOMEM. */
static int scope_path(const struct cu_scopes *cs, Dwarf_Die *cudie, uint64_t addr,
		      Dwarf_Die **scopes)
{
	static __thread Dwarf_Die path[SYM_DWARF_MAX_DEPTH + 2];
	int n = 0, inl = -1, r;
	if (!cs || cs->imports)
		return SLOW_PATH;
	path[n++] = *cudie;
	for (;;) {
		Dwarf_Die child;
		int tag = 0;
		bool found = false;
		if (n == 1 && cs->n_top) {	/* the CU's children, by their ranges */
			if (!cu_top_find(cs, addr, &child))
				break;
			tag = dwarf_tag(&child);
			found = true;
			r = 0;
		} else if ((r = dwarf_child(&path[n - 1], &child)) != 0) {
			break;
		} else do {
			tag = dwarf_tag(&child);
			if (tag == DW_TAG_imported_unit)
				return SLOW_PATH;
			int h = dwarf_haspc(&child, addr);
			if (h < 0)
				return SLOW_PATH;
			if (h > 0) {
				found = true;
				break;
			}
		} while ((r = dwarf_siblingof(&child, &child)) == 0);
		if (r < 0 || n > SYM_DWARF_MAX_DEPTH)
			return SLOW_PATH;
		if (!found)
			break;
		if (tag == DW_TAG_inlined_subroutine)
			inl = n;
		path[n++] = child;
		if (!may_have_scopes(tag) || !dwarf_haschildren(&child))
			break;
	}
	if (n == 1)
		return 0;	/* no DIE of the CU contains addr */
	if (inl >= 0) {
		Dwarf_Attribute attr;
		Dwarf_Die origin;
		if (!dwarf_formref_die(dwarf_attr(&path[inl], DW_AT_abstract_origin, &attr),
				       &origin))
			return 0;
		if (dwarf_tag(&origin) != DW_TAG_subprogram)
			return SLOW_PATH;
		Dwarf_Off off = dwarf_dieoffset(&origin);
		if (!bsearch(&off, cs->subs, cs->n, sizeof(*cs->subs), off_cmp))
			return 0;
	}
	Dwarf_Die *v = malloc((size_t)n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (int i = 0; i < n; i++)
		v[i] = path[n - 1 - i];
	*scopes = v;
	return n;
}

int lines_lookup(struct sym_session *s, struct sym_dso *d, struct sym_cached *c)
{
	Dwarf_Die cudie;
	struct cu_range *cu;
	if (dw_open(s, d) || !(cu = find_cu(d, c->addr, &cudie)))
		return -ENOENT;
	Dwarf_Line *l = dwarf_getsrc_die(&cudie, c->addr);
	if (l) {
		int ln = 0;
		dwarf_lineno(l, &ln);
		c->srcfile = sess_intern(s, dwarf_linesrc(l, NULL, NULL));
		c->line = ln > 0 ? (unsigned)ln : 0;
	}
	/* dwarf_getscopes continues an inlined instance with its abstract origin's scopes;
	 * the real nesting comes from the innermost DIE's own parents */
	Dwarf_Die *scopes = NULL, inner;
	if (!depth_ok(s, d, cu, &cudie))
		return 0;
	int n = scope_path(cu->scopes, &cudie, c->addr, &scopes);
	if (n == -ENOMEM)
		return n;
	if (n == SLOW_PATH) {
		n = dwarf_getscopes(&cudie, c->addr, &scopes);
		if (n <= 0)
			return 0;
		inner = scopes[0];
		free(scopes);
		scopes = NULL;
		n = dwarf_getscopes_die(&inner, &scopes);
	}
	if (n <= 0)
		return 0;
	/* frames: each inlined_subroutine up to the enclosing subprogram, innermost first */
	size_t k = 0;
	struct sym_inline *inl = calloc((size_t)n, sizeof(*inl));
	if (!inl) {
		free(scopes);
		return -ENOMEM;
	}
	const char *file = c->srcfile;
	unsigned line = c->line;
	for (int i = 0; i < n; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		inl[k].func = die_func_name(s, &scopes[i]);
		inl[k].file = file;
		inl[k].line = line;
		k++;
		if (tag == DW_TAG_subprogram)
			break;
		file = call_file(s, &cudie, &scopes[i], &line);
	}
	free(scopes);
	if (!k) {
		free(inl);
		return 0;
	}
	c->inl = inl;
	c->n_inline = (unsigned)k;
	return 0;
}

int sym_dso_lines(struct sym_session *s, struct sym_dso *d, uint64_t lo, uint64_t hi,
		  void (*fn)(void *ctx, uint64_t addr, const char *file, int line), void *ctx)
{
	Dwarf_Die cu;
	Dwarf_Lines *lines;
	size_t n;
	int rc = dw_open(s, d);
	if (rc)
		return rc;
	if (!find_cu(d, lo, &cu) || dwarf_getsrclines(&cu, &lines, &n))
		return -ENOENT;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		int line;
		bool end;
		if (!l || dwarf_lineaddr(l, &a) || a < lo || a >= hi || dwarf_lineno(l, &line) ||
		    (!dwarf_lineendsequence(l, &end) && end))
			continue;
		fn(ctx, a, dwarf_linesrc(l, NULL, NULL), line);
	}
	return 0;
}
