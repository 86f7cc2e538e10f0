/* note.c - the reader beside the .note.jitprof writer (elf.c's build_notes): finds our vendor
 * note in an ELF image and parses its owner text, so no consumer decodes our bytes by hand. */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "synth/synth.h"

/* The numeric keys the writer puts before " name=", and where each goes. */
static int put_field(struct synth_note *n, const char *key, size_t klen, uint64_t v)
{
	static const struct { const char *key; size_t off; int is64; } keys[] = {
		{ "generation", offsetof(struct synth_note, generation), 0 },
		{ "code_index", offsetof(struct synth_note, code_index), 1 },
		{ "timestamp", offsetof(struct synth_note, timestamp), 1 },
		{ "tier", offsetof(struct synth_note, tier), 0 },
		{ "flags", offsetof(struct synth_note, flags), 0 },
		{ "pid", offsetof(struct synth_note, pid), 0 },
		{ "code_addr", offsetof(struct synth_note, code_addr), 1 },
	};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (strlen(keys[i].key) != klen || memcmp(keys[i].key, key, klen))
			continue;
		char *p = (char *)n + keys[i].off;
		if (keys[i].is64) {
			memcpy(p, &v, sizeof(v));
		} else {
			uint32_t v32 = (uint32_t)v;
			memcpy(p, &v32, sizeof(v32));
		}
		return 0;
	}
	return 0;	/* a key a later writer added: skipped */
}

int synth_note_parse(const char *text, size_t len, struct synth_note *n)
{
	size_t pl = strlen(SYNTH_NOTE_PREFIX);
	const char *end = memchr(text, 0, len);

	memset(n, 0, sizeof(*n));
	if (!end || (size_t)(end - text) < pl || memcmp(text, SYNTH_NOTE_PREFIX, pl))
		return -EINVAL;
	for (const char *p = text + pl; p < end;) {
		const char *eq = memchr(p, '=', (size_t)(end - p));
		if (!eq)
			return -EINVAL;
		if (eq - p == 4 && !memcmp(p, "name", 4)) {
			n->name = eq + 1;	/* runs to the end: it may hold spaces */
			return 0;
		}
		char *stop;
		uint64_t v = strtoull(eq + 1, &stop, 0);
		if (stop == eq + 1 || (*stop != ' ' && *stop))
			return -EINVAL;
		put_field(n, p, (size_t)(eq - p), v);
		p = *stop ? stop + 1 : stop;
	}
	return 0;
}

int synth_note_read(const void *elf, size_t size, struct synth_note *n)
{
	int found = 0;
	size_t shstrndx;
	Elf *e;

	memset(n, 0, sizeof(*n));
	elf_version(EV_CURRENT);
	if (!(e = elf_memory((char *)elf, size)))
		return 0;
	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		goto out;
	for (Elf_Scn *scn = elf_nextscn(e, NULL); scn && !found; scn = elf_nextscn(e, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off, next;
		while (d && (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == SYNTH_NOTE_TYPE &&
			    !synth_note_parse((const char *)d->d_buf + name_off, nh.n_namesz, n)) {
				found = 1;
				break;
			}
			off = next;
		}
	}
out:
	elf_end(e);
	return found;
}
