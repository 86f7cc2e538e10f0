/* buildid.h - the one reader of GNU build-id notes (NT_GNU_BUILD_ID, owner "GNU"): in a raw
 * note sequence (/sys/kernel/notes, a module's notes file) and in an ELF (its SHT_NOTE
 * sections, else its PT_NOTE segments). record and symbols both read ids through here. */
#ifndef JITPROF_LIB_BUILDID_H
#define JITPROF_LIB_BUILDID_H

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

/* notes: len bytes of {namesz, descsz, type, name, desc} in host byte order, 4-byte padded.
 * Copies at most max bytes of the first GNU build-id into id; returns how many (> 0), or
 * -ENOENT. Every length is checked against what is left. */
int jp_notes_build_id(const void *notes, size_t len, uint8_t *id, size_t max);
/* The same for an ELF handle. */
int jp_elf_build_id(Elf *elf, uint8_t *id, size_t max);
/* Reads a whole small file (a notes file under /sys) and looks in it: size or -errno. */
int jp_notes_file_build_id(const char *path, uint8_t *id, size_t max);
/* This process's vdso as the kernel maps it (the same image in every process): its ELF
 * image and, in *len, its length up to the end of its section headers; NULL when there is
 * none or it is no 64-bit ELF. */
const void *jp_vdso_image(size_t *len);

#endif
