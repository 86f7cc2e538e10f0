/* plt.c - names for the PLT stubs, as perf 6.1 synthesizes them: one "<callee>@plt" symbol
 * per .rela.plt (or .rel.plt) entry, in relocation order, after a header the size of one
 * entry, for the .plt of the file the process maps (a debug file's .plt is NOBITS). Without
 * them a sample in a stub lands on nothing, or on a size-0 symbol before .plt (_init). */
#include "recorder/symbols/symbols_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static Elf_Scn *scn_named(Elf *elf, size_t shstrndx, const char *name, GElf_Shdr *sh)
{
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		const char *n;
		if (gelf_getshdr(scn, sh) && (n = elf_strptr(elf, shstrndx, sh->sh_name)) &&
		    !strcmp(n, name))
			return scn;
	}
	return NULL;
}

int plt_symbols(struct sym_session *s, Elf *elf, struct sym_table *t)
{
	GElf_Shdr plt, rel, dyn;
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) || !scn_named(elf, shstrndx, ".plt", &plt) ||
	    plt.sh_type == SHT_NOBITS || !plt.sh_entsize)
		return 0;
	Elf_Scn *rscn = scn_named(elf, shstrndx, ".rela.plt", &rel);
	if (!rscn)
		rscn = scn_named(elf, shstrndx, ".rel.plt", &rel);
	Elf_Scn *dscn = rscn ? elf_getscn(elf, rel.sh_link) : NULL;
	if (!dscn || !gelf_getshdr(dscn, &dyn) || dyn.sh_type != SHT_DYNSYM || !rel.sh_entsize ||
	    (rel.sh_type != SHT_RELA && rel.sh_type != SHT_REL))
		return 0;
	Elf_Data *rd = elf_getdata(rscn, NULL), *sd = elf_getdata(dscn, NULL);
	if (!rd || !sd)
		return 0;
	size_t n = rel.sh_size / rel.sh_entsize;
	uint64_t at = plt.sh_addr + plt.sh_entsize;	/* past the header */
	for (size_t i = 0; i < n; i++, at += plt.sh_entsize) {
		GElf_Rela ra;
		GElf_Rel r;
		GElf_Sym sym;
		uint64_t info;
		if (rel.sh_type == SHT_RELA) {
			if (!gelf_getrela(rd, (int)i, &ra))
				break;
			info = ra.r_info;
		} else {
			if (!gelf_getrel(rd, (int)i, &r))
				break;
			info = r.r_info;
		}
		const char *callee;
		if (at - plt.sh_addr >= plt.sh_size)
			break;
		if (!gelf_getsym(sd, (int)GELF_R_SYM(info), &sym) ||
		    !(callee = elf_strptr(elf, dyn.sh_link, sym.st_name)))
			continue;
		/* perf names the stub by the demangled callee */
		char buf[1024];
		snprintf(buf, sizeof(buf), "%s@plt", sess_demangle(s, callee));
		const char *name = sess_intern(s, buf);
		snprintf(buf, sizeof(buf), "%s@plt", callee);
		const char *raw = sess_intern(s, buf);
		if (!name || !raw || symtab_add(t, at, plt.sh_entsize, raw, name, 2))
			return -ENOMEM;
	}
	return 0;
}
