/* test_lines_skip.c - lines_skip_unread (recorder/symbols/lines.c): a debug file's compressed
 * location lists are hidden from libdw in the private handle only (the file and other
 * handles unchanged), the sections lines need are left alone, and libdw still opens the
 * DWARF and indexes its CUs. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recorder/symbols/symbols_int.h"
#include "tests/lib/testutil.h"
#include "tests/unit/symbols/symtest.h"

static char *dir;

static void setup(void)
{
	dir = tu_tmpdir("sym-skip");
	elf_version(EV_CURRENT);
}

static void teardown(void)
{
	tu_rmtree(dir);
	free(dir);
}

TestSuite(lines_skip, .init = setup, .fini = teardown, .timeout = 60);

/* The header of elf's section `name`: found, or the test fails. */
static GElf_Shdr section(Elf *elf, const char *name)
{
	size_t shstrndx;
	cr_assert_eq(elf_getshdrstrndx(elf, &shstrndx), 0);
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		cr_assert(gelf_getshdr(scn, &sh));
		const char *n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (n && !strcmp(n, name))
			return sh;
	}
	cr_assert_fail("no section %s", name);
	return (GElf_Shdr){ 0 };
}

Test(lines_skip, compressed_location_lists_hidden_in_the_private_handle_only)
{
	/* -O2 keeps variables in registers that change: gcc writes location lists */
	char *so = st_build(dir, "z.so", "-fPIC -shared -gz=zlib -gdwarf-5");
	int fd = open(so, O_RDONLY);
	cr_assert_geq(fd, 0);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	cr_assert(elf);
	GElf_Shdr loc = section(elf, ".debug_loclists");
	cr_assert_eq(loc.sh_type, SHT_PROGBITS);
	cr_assert(loc.sh_flags & SHF_COMPRESSED, "gcc -gz wrote no compressed sections");

	lines_skip_unread(elf);
	cr_assert_eq(section(elf, ".debug_loclists").sh_type, SHT_NOBITS);
	const char *kept[] = { ".debug_info", ".debug_abbrev", ".debug_line", ".debug_rnglists" };
	for (size_t i = 0; i < sizeof(kept) / sizeof(*kept); i++)
		cr_assert_eq(section(elf, kept[i]).sh_type, SHT_PROGBITS, "%s hidden", kept[i]);
	Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	cr_assert(dw, "libdw refused the edited handle: %s", dwarf_errmsg(-1));
	struct cu_range *cus = NULL;
	size_t n_cus = 0;
	cr_assert_eq(lines_index_cus(dw, &cus, &n_cus), 0);
	cr_assert_geq(n_cus, 1);
	free(cus);
	dwarf_end(dw);
	elf_end(elf);

	/* the file itself, read again, still has them */
	Elf *again = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	cr_assert(again);
	cr_assert_eq(section(again, ".debug_loclists").sh_type, SHT_PROGBITS);
	elf_end(again);
	close(fd);
	free(so);
}
