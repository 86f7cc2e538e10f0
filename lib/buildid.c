/* buildid.c - see buildid.h. */
#include "lib/buildid.h"
#include "lib/grow.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

static int take(const uint8_t *desc, size_t dsz, uint8_t *id, size_t max)
{
	size_t n = dsz < max ? dsz : max;
	memcpy(id, desc, n);
	return (int)n;
}

static int is_gnu_id(uint32_t type, const void *name, size_t namesz, size_t descsz)
{
	return type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(name, "GNU", 4) && descsz;
}

int jp_notes_build_id(const void *notes, size_t len, uint8_t *id, size_t max)
{
	const uint8_t *p = notes;

	for (size_t off = 0; len - off >= 12 && off <= len;) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		size_t left = len - off - 12;
		size_t name_pad = ((size_t)namesz + 3u) & ~(size_t)3u;
		size_t desc_pad = ((size_t)descsz + 3u) & ~(size_t)3u;
		if (name_pad > left || descsz > left - name_pad)
			break;
		if (is_gnu_id(type, p + off + 12, namesz, descsz))
			return take(p + off + 12 + name_pad, descsz, id, max);
		if (desc_pad > left - name_pad)
			break;
		off += 12 + name_pad + desc_pad;
	}
	return -ENOENT;
}

/* gelf_getnote knows each note section's alignment (4 or 8) and byte order. */
static int in_data(Elf_Data *data, uint8_t *id, size_t max)
{
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off, next;

	while (data && data->d_buf &&
	       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		const uint8_t *b = data->d_buf;
		if (is_gnu_id(nh.n_type, b + name_off, nh.n_namesz, nh.n_descsz))
			return take(b + desc_off, nh.n_descsz, id, max);
		off = next;
	}
	return -ENOENT;
}

int jp_elf_build_id(Elf *elf, uint8_t *id, size_t max)
{
	size_t nph = 0;
	int n;

	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOTE &&
		    (n = in_data(elf_getdata(scn, NULL), id, max)) > 0)
			return n;
	}
	/* No section headers (stripped that far): the loader's view. */
	if (elf_getphdrnum(elf, &nph))
		return -ENOENT;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		Elf_Data *d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
						   ELF_T_NHDR);
		if ((n = in_data(d, id, max)) > 0)
			return n;
	}
	return -ENOENT;
}

int jp_notes_file_build_id(const char *path, uint8_t *id, size_t max)
{
	size_t len = 0, cap = 4096;
	uint8_t *buf = malloc(cap);
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0 || !buf) {
		rc = fd < 0 ? -errno : -ENOMEM;
		goto out;
	}
	/* sysfs files say size 4096 whatever they hold: read to the end. */
	for (;;) {
		if (len == cap && (cap >= (1u << 20) || jp_grow(&buf, &cap, cap + 1, 1, 0))) {
			rc = -ENOMEM;
			goto out;
		}
		ssize_t n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			goto out;
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	rc = jp_notes_build_id(buf, len, id, max);
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return rc;
}

const void *jp_vdso_image(size_t *len)
{
	const Elf64_Ehdr *eh = (const void *)getauxval(AT_SYSINFO_EHDR);

	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64)
		return NULL;
	*len = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	return eh;
}
