/* kernel.c - kernel symbols: a vmlinux (--vmlinux, or over debuginfod by the recorded build-id
 * when the running kernel is another), a kallsyms file (option, archive, or the
 * build-id cache's [kernel.kallsyms]/<id>/kallsyms), else this host's /proc/kallsyms when its
 * build-id matches the recorded one. Addresses are moved by the difference between the
 * recorded runtime address of the reference symbol (_text, from the kernel map's pgoff) and
 * that symbol's address in the file, which undoes KASLR and a reboot in between. */
#include "lib/buildid.h"
#include "lib/nomem.h"
#include "recorder/symbols/symbols_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Modules load elsewhere than _text: only the core image's symbols move with it. */
static void relocate(struct sym_table *t, int64_t delta)
{
	for (size_t i = 0; i < t->n; i++)
		if (!t->v[i].module)
			t->v[i].start += (uint64_t)delta;
}

/* The reference symbol's link-time address, from the full table: the sorted one keeps one
 * name per address and _text shares its address with startup code. */
static int elf_symbol_value(Elf *elf, const char *name, uint64_t *val)
{
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		Elf_Data *data;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;
			if (gelf_getsym(data, (int)i, &sym) &&
			    (n = elf_strptr(elf, sh.sh_link, sym.st_name)) && !strcmp(n, name)) {
				*val = sym.st_value;
				return 0;
			}
		}
	}
	return -ENOENT;
}

static int load_vmlinux(struct sym_session *s, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	errno = 0;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		jp_nomem_if_errno("opening a vmlinux");
	int rc = -EINVAL;
	struct sym_build_id got = { 0 };
	char h1[SYM_BUILD_ID_HEX], h2[SYM_BUILD_ID_HEX];
	if (elf && s->kdso && s->kdso->bid.size &&
	    (dso_elf_build_id(elf, &got) || !sym_build_id_equal(&got, &s->kdso->bid))) {
		sess_msg(s, JP_LOG_WARN,
			 "%s: build-id %s differs from the recorded build-id %s of "
			 "[kernel.kallsyms]: refused", path,
			 got.size ? sym_build_id_hex(&got, h1) : "(none)",
			 sym_build_id_hex(&s->kdso->bid, h2));
	} else if (elf && !(rc = elfsym_table(elf, &s->ksyms))) {
		/* the names point into the image, which is closed below */
		for (size_t i = 0; i < s->ksyms.n && !rc; i++)
			if (!(s->ksyms.v[i].raw = sess_intern(s, s->ksyms.v[i].raw)))
				rc = -ENOMEM;
	}
	uint64_t ref;
	if (!rc && s->kref_addr &&
	    !elf_symbol_value(elf, s->kref_name ? s->kref_name : "_text", &ref))
		relocate(&s->ksyms, (int64_t)(s->kref_addr - ref));
	if (elf)
		elf_end(elf);
	close(fd);
	return jp_nomem_check(rc, "a vmlinux's symbols");
}

static int load_kallsyms(struct sym_session *s, const char *path)
{
	kallsyms_free(&s->kall);
	/* the file's index kept in the build-id cache (kallsyms_cache.c) */
	int root = s->buildid_dir ? open(s->buildid_dir, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
	int rc = kallsyms_open_cached(&s->kall, path, s->kref_name ? s->kref_name : "_text",
				      s->kref_addr, root);
	if (root >= 0)
		close(root);
	if (rc == -EPERM)
		sess_msg(s, JP_LOG_WARN, "%s: all addresses are 0 (kptr_restrict?)", path);
	if (!rc && !s->kall.n) {
		kallsyms_free(&s->kall);
		rc = -ENOENT;
	}
	return jp_nomem_check(rc, "a kallsyms file's symbols");
}

int sym_kernel_build_id(struct sym_build_id *id)
{
	int n = jp_notes_file_build_id("/sys/kernel/notes", id->data, SYM_BUILD_ID_MAX);
	/* unread, the running kernel would pass for the recorded one or not by chance */
	jp_nomem_check(n, "the running kernel's build-id");
	if (n <= 0)
		return n < 0 ? n : -ENOENT;
	id->size = (uint8_t)n;
	return 0;
}

/* 1 when fd's text is this host's /proc/kallsyms byte for byte. perf inject and perf report
 * cache the running kernel's /proc/kallsyms under the *recorded* kernel's build-id when the
 * two differ (a perf defect, seen with perf 6.1 on a recording from another kernel build):
 * such an entry names another kernel's addresses. Two builds differ within the first symbols
 * (their addresses move), so a genuine entry stops the comparison early; a copy costs one
 * read of /proc/kallsyms. fd is left at its start. */
static int is_running_kallsyms(int fd)
{
	int proc = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	if (proc < 0)
		return 0;
	static char a[65536], b[65536];
	size_t na = 0, nb = 0;
	int same = 1;
	for (;;) {
		if (!na) {
			ssize_t n = read(fd, a, sizeof(a));
			if (n < 0) {
				same = 0;
				break;
			}
			na = (size_t)n;
		}
		if (!nb) {
			ssize_t n = read(proc, b, sizeof(b));
			if (n < 0) {
				same = 0;
				break;
			}
			nb = (size_t)n;
		}
		if (!na || !nb) {
			same = !na && !nb;
			break;
		}
		size_t m = na < nb ? na : nb;
		if (memcmp(a, b, m)) {
			same = 0;
			break;
		}
		memmove(a, a + m, na - m);
		memmove(b, b + m, nb - m);
		na -= m;
		nb -= m;
	}
	close(proc);
	lseek(fd, 0, SEEK_SET);
	return same;
}

/* A cached or archived kallsyms for the recorded build-id that is in truth this host's (see
 * is_running_kallsyms) while this host runs another kernel build: refused, said once. */
static int foreign_id_running_text(struct sym_session *s, int fd, const char *path)
{
	struct sym_build_id id;
	char h1[SYM_BUILD_ID_HEX], h2[SYM_BUILD_ID_HEX];
	if (sym_kernel_build_id(&id) || sym_build_id_equal(&id, &s->kdso->bid) ||
	    !is_running_kallsyms(fd))
		return 0;
	sess_msg(s, JP_LOG_WARN,
		 "%s: a copy of this host's /proc/kallsyms (running kernel %s) filed under the "
		 "recorded kernel's build-id %s (perf caches it so): refused, kernel samples stay "
		 "unresolved", path, sym_build_id_hex(&id, h1), sym_build_id_hex(&s->kdso->bid, h2));
	return 1;
}

/* This host's running kernel is the recorded one only if /sys/kernel/notes says so. */
static int host_kernel_matches(struct sym_session *s)
{
	struct sym_build_id id;
	char h1[SYM_BUILD_ID_HEX], h2[SYM_BUILD_ID_HEX];
	if (!s->kdso || !s->kdso->bid.size)
		return 1;
	if (sym_kernel_build_id(&id))
		return 0;
	if (sym_build_id_equal(&id, &s->kdso->bid))
		return 1;
	sess_msg(s, JP_LOG_WARN,
		 "/proc/kallsyms: running kernel's build-id %s differs from the recorded "
		 "build-id %s: refused", sym_build_id_hex(&id, h1), sym_build_id_hex(&s->kdso->bid, h2));
	return 0;
}

int kernel_load(struct sym_session *s)
{
	if (s->ksyms_loaded)
		return s->ksyms.n || s->kall.n ? 0 : -ENOENT;
	s->ksyms_loaded = 1;
	if (s->o.vmlinux)
		return load_vmlinux(s, s->o.vmlinux);
	if (s->o.kallsyms)
		return load_kallsyms(s, s->o.kallsyms);
	if (s->kdso && s->kdso->bid.size) {
		char *path = NULL, buf[64];
		void *img;
		size_t len;
		if (!source_lookup(s, &s->kdso->bid, "kallsyms", &path, &img, &len)) {
			int afd = open(path, O_RDONLY | O_CLOEXEC);
			int rc = afd >= 0 && foreign_id_running_text(s, afd, path) ? -ENOENT :
				 load_kallsyms(s, path);
			if (afd >= 0)
				close(afd);
			free(path);
			if (!rc)
				return 0;
		}
		/* the cache's copy, opened beneath the cache without following links, then read
		 * through the descriptor's /proc path */
		int fd = sym_cache_open(s->buildid_dir, &s->kdso->bid, "[kernel.kallsyms]",
					"kallsyms");
		if (fd >= 0) {
			snprintf(buf, sizeof(buf), "/proc/self/fd/%d", fd);
			char shown[4200];
			snprintf(shown, sizeof(shown), "%s/[kernel.kallsyms]/%s/kallsyms",
				 s->buildid_dir ? s->buildid_dir : "~/.debug",
				 sym_build_id_hex(&s->kdso->bid, (char[SYM_BUILD_ID_HEX]){ 0 }));
			int rc = foreign_id_running_text(s, fd, shown) ? -ENOENT :
				 load_kallsyms(s, buf);
			close(fd);
			if (!rc)
				return 0;
		}
	}
	if (host_kernel_matches(s))
		return load_kallsyms(s, "/proc/kallsyms");
	/* Another machine's kernel: its vmlinux by build-id over debuginfod (the vmlinux's own
	 * build-id is checked again by load_vmlinux). */
	char *path = NULL;
	int rc = dbgd_find_kernel(s, &s->kdso->bid, &path);
	if (!rc) {
		rc = load_vmlinux(s, path);
		if (!rc)
			sess_msg(s, JP_LOG_INFO, "[kernel.kallsyms]: symbols from %s (debuginfod)",
				 path);
	}
	free(path);
	return rc ? -ENOENT : 0;
}

struct sym_entry *kernel_find(struct sym_session *s, uint64_t addr)
{
	return s->kall.n ? kallsyms_find(s, &s->kall, addr) : symtab_find(&s->ksyms, addr);
}
