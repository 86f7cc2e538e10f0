/* elfsym.c - symbol tables: ELF .symtab (from the debug file when the binary is stripped),
 * else .dynsym, filtered and fixed up the way perf does (functions in loaded sections,
 * labels in text sections; zero sizes reach the next symbol; duplicates keep the best-bound name), so the
 * same sample lands on the same name as in perf report. */
#include "lib/nomem.h"
#include "recorder/symbols/symbols_int.h"
#include "lib/grow.h"

#include "safeio/safeio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int symtab_add(struct sym_table *t, uint64_t start, uint64_t size, const char *raw,
	       const char *name, uint8_t rank)
{
	if (JP_GROW_FOR(t->v, t->cap, t->n))
		return -ENOMEM;
	t->v[t->n++] = (struct sym_entry){ start, size, raw, name, rank, 0 };
	return 0;
}

static size_t underscores(const char *s)
{
	size_t n = 0;
	while (s[n] == '_')
		n++;
	return n;
}

/* perf's choose_best_symbol: sized, then not weak, then global, fewer leading underscores,
 * then the longer name; on a tie the one first in the file stays (0 here: sort_dedupe walks
 * each address's symbols in file order), e.g. libc's dlopen@GLIBC_2.2.5 before
 * dlopen@@GLIBC_2.34. "Sized" as perf 6.1 sees it: it gives each size-0 symbol the next
 * symbol's start as its end *before* dropping duplicates, so of several size-0 names at one
 * address only the last in the file has a length (libjvm's _SafeFetchN_fault after
 * SafeFetchN_impl). Negative when a is better. */
static int better(const struct sym_entry *a, int a_sized, const struct sym_entry *b,
		  int b_sized)
{
	if (a_sized != b_sized)
		return a_sized ? -1 : 1;
	/* a non-weak one over a weak one, then a global one over a local one */
	if ((a->rank == 1) != (b->rank == 1))
		return a->rank == 1 ? 1 : -1;
	if ((a->rank == 2) != (b->rank == 2))
		return a->rank == 2 ? -1 : 1;
	size_t ua = underscores(a->raw), ub = underscores(b->raw);
	if (ua != ub)
		return ua < ub ? -1 : 1;
	size_t la = strlen(a->raw), lb = strlen(b->raw);
	return la != lb ? (la > lb ? -1 : 1) : 0;
}

static int entry_cmp(const void *x, const void *y)
{
	const struct sym_entry *a = x, *b = y;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return better(a, a->size != 0, b, b->size != 0);
}

/* Sorted by address, one entry per address (the best name), through a sort of 16-byte keys:
 * libjvm alone has ~55k symbols. */
static int sort_dedupe(struct sym_table *t)
{
	struct sym_key *keys = malloc(t->n * sizeof(*keys));
	struct sym_entry *nv = malloc(t->n * sizeof(*nv));
	if (!keys || !nv) {
		free(keys);
		free(nv);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->n; i++)
		keys[i] = (struct sym_key){ t->v[i].start, i };
	sym_sort_keys(keys, t->n);
	size_t k = 0;
	for (size_t i = 0; i < t->n;) {
		size_t end = i + 1;
		while (end < t->n && keys[end].key == keys[i].key)
			end++;
		const struct sym_entry *best = &t->v[keys[i].idx];
		int best_sized = best->size || end == i + 1;
		for (size_t j = i + 1; j < end; j++) {
			const struct sym_entry *e = &t->v[keys[j].idx];
			int sized = e->size || j == end - 1;
			if (better(e, sized, best, best_sized) < 0) {
				best = e;
				best_sized = sized;
			}
		}
		nv[k++] = *best;
		i = end;
	}
	free(keys);
	free(t->v);
	t->v = nv;
	t->cap = t->n;
	t->n = k;
	return 0;
}

void symtab_finish(struct sym_table *t)
{
	if (!t->n)
		return;
	if (sort_dedupe(t)) {
		/* out of memory for the keys: sort in place */
		if (t->n > 1)
			qsort(t->v, t->n, sizeof(*t->v), entry_cmp);
		size_t k = 0;
		for (size_t i = 0; i < t->n; i++)
			if (!k || t->v[k - 1].start != t->v[i].start)
				t->v[k++] = t->v[i];
		t->n = k;
	}
	for (size_t i = 0; i < t->n; i++)
		if (!t->v[i].size)
			t->v[i].size = i + 1 < t->n ? t->v[i + 1].start - t->v[i].start : 4096;
}

struct sym_entry *symtab_find(const struct sym_table *t, uint64_t addr)
{
	size_t lo = sym_upper_bound(t->v, t->n, sizeof(*t->v), addr);
	/* a symbol nested in a bigger one may end before addr: look a little further back */
	for (size_t i = lo, tries = 0; i-- > 0 && tries < 8; tries++)
		if (addr - t->v[i].start < t->v[i].size)
			return &t->v[i];
	return NULL;
}

void symtab_free(struct sym_table *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}

static Elf_Scn *find_scn(Elf *elf, Elf64_Word type)
{
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			return scn;
	}
	return NULL;
}

#define SCN_KNOWN 1	/* classified */
#define SCN_ALLOC 2	/* occupies memory at run time */
#define SCN_TEXT 4	/* its name says text */

static uint8_t section_kind(Elf *elf, size_t shstrndx, size_t shndx)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_getscn(elf, shndx);
	if (!scn || !gelf_getshdr(scn, &sh))
		return SCN_KNOWN;
	const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
	return SCN_KNOWN | (sh.sh_flags & SHF_ALLOC ? SCN_ALLOC : 0) |
	       (name && strstr(name, "text") ? SCN_TEXT : 0);
}

static int load_table(struct sym_table *t, Elf *elf, Elf_Scn *scn)
{
	GElf_Shdr sh;
	size_t shstrndx;
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data || !gelf_getshdr(scn, &sh) || !sh.sh_entsize || elf_getshdrstrndx(elf, &shstrndx))
		return -EINVAL;
	size_t n = sh.sh_size / sh.sh_entsize, nscn = 0;
	/* per section: SCN_* (asked once, not once per symbol) */
	uint8_t *text = NULL;
	if (!elf_getshdrnum(elf, &nscn) && nscn && !(text = calloc(nscn, 1)))
		return -ENOMEM;
	/* names straight from the string table when it ends in a NUL (every offset inside then
	 * names a terminated string), else through libelf's checked lookup */
	Elf_Data *str = elf_getdata(elf_getscn(elf, sh.sh_link), NULL);
	const char *strs = str && str->d_buf && str->d_size &&
			   ((const char *)str->d_buf)[str->d_size - 1] == 0 ? str->d_buf : NULL;
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym))
			break;
		int type = GELF_ST_TYPE(sym.st_info), bind = GELF_ST_BIND(sym.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE)
			continue;
		if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE ||
		    sym.st_shndx >= nscn)
			continue;
		if (!text[sym.st_shndx])
			text[sym.st_shndx] = section_kind(elf, shstrndx, sym.st_shndx);
		/* as perf: functions in any section loaded at run time (_init in .init covers
		 * the .plt after it), labels only in text and only if visible */
		int vis = GELF_ST_VISIBILITY(sym.st_other);
		if (!(text[sym.st_shndx] & SCN_ALLOC) ||
		    (type == STT_NOTYPE && (!(text[sym.st_shndx] & SCN_TEXT) ||
					    vis == STV_HIDDEN || vis == STV_INTERNAL)))
			continue;
		const char *raw = strs && sym.st_name < str->d_size ? strs + sym.st_name
					: elf_strptr(elf, sh.sh_link, sym.st_name);
		if (!raw || !*raw || raw[0] == '$')
			continue;
		if (type == STT_NOTYPE && !strncmp(raw, ".L", 2))
			continue;
		/* the string table lives as long as the DSO's Elf: no copy */
		uint8_t rank = bind == STB_GLOBAL ? 2 : bind == STB_WEAK ? 1 : 0;
		if (symtab_add(t, sym.st_value, sym.st_size, raw, NULL, rank))
			rc = -ENOMEM;
	}
	free(text);
	return rc;
}

/* The symbols of elf, plus the PLT stubs of runtime (the file mapped; may be elf) when s. */
static int table_of(Elf *elf, struct sym_table *t, struct sym_session *s, Elf *runtime)
{
	Elf_Scn *scn = find_scn(elf, SHT_SYMTAB);
	if (!scn)
		scn = find_scn(elf, SHT_DYNSYM);
	int rc = scn ? load_table(t, elf, scn) : -ENOENT;
	if (s && rc != -ENOMEM) {
		int prc = plt_symbols(s, runtime, t);
		rc = prc ? prc : rc;
	}
	symtab_finish(t);
	return rc && rc != -ENOENT ? rc : t->n ? 0 : -ENOENT;
}

int elfsym_table(Elf *elf, struct sym_table *t)
{
	return table_of(elf, t, NULL, NULL);
}

/* Anonymous executable memory: JITs that write no jitdump may describe it in
 * /tmp/perf-PID.map, "START SIZE name" per line in hex, with absolute addresses. */
static int load_perf_map(struct sym_session *s, struct sym_dso *d)
{
	/* The map's name comes from the recording: a FIFO or /dev/zero there must not stall us,
	 * and one another user wrote in the shared /tmp must not name root's samples (perf's
	 * rule: unless -f, the running user's or root's only). */
	struct stat sb;
	char why[128] = "cannot be checked";
	int fd = sio_open_regular(d->long_name);
	if (fd >= 0 && !s->o.force && (fstat(fd, &sb) < 0 ||
				       sio_owner_check(&sb, geteuid(), why, sizeof(why)) < 0)) {
		sess_msg(s, JP_LOG_WARN, "%s: %s: its symbols are not read (-f reads them)",
			 d->long_name, why);
		close(fd);
		fd = -EPERM;
	}
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		return -ENOENT;
	}
	char line[4096];
	int rc = 0;
	while (!rc && fgets(line, sizeof(line), f)) {
		char *p = line, *end;
		unsigned long long start = strtoull(p, &end, 16), size;
		if (end == p || *end != ' ')
			continue;
		size = strtoull(p = end + 1, &end, 16);
		if (end == p || *end != ' ')
			continue;
		end[1 + strcspn(end + 1, "\n")] = 0;
		const char *raw = sess_intern(s, end + 1);
		rc = raw ? symtab_add(&d->syms, start, size, raw, NULL, 2) : -ENOMEM;
	}
	fclose(f);
	symtab_finish(&d->syms);
	return rc ? rc : d->syms.n ? 0 : -ENOENT;
}

int elfsym_load(struct sym_session *s, struct sym_dso *d)
{
	if (d->syms_loaded)
		return d->syms.n ? 0 : -ENOENT;
	d->syms_loaded = 1;
	if (d->anon)
		return jp_nomem_check(load_perf_map(s, d), "a perf map's symbols");
	if (sym_dso_find(s, d, NULL) || dso_open(s, d))
		return -ENOENT;
	Elf *elf = d->elf;
	if (!find_scn(elf, SHT_SYMTAB) && !find_debug_file(s, d) && d->dbg_elf &&
	    find_scn(d->dbg_elf, SHT_SYMTAB))
		elf = d->dbg_elf;
	return jp_nomem_check(table_of(elf, &d->syms, s, d->elf), "an ELF file's symbols");
}
