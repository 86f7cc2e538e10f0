/* fuzz_symbols.c - libFuzzer target: report's ELF/DWARF symbol loader. The input is taken as
 * an ELF file (a jitted-*.so synth wrote, or any small ELF, as mutated): it is mapped into a
 * process, addresses across it are resolved with symbols, source lines and inline chains, code
 * is read for disassembly, and its build-id note is parsed.
 * fuzz-srcs: lib/ recorder/symbols/ recorder/perfdata/ safeio/
 * fuzz-libs: -lelf -ldw -ldebuginfod -larchive -lcrypto -lzstd -liberty -lpthread */
#include <fcntl.h>
#include <sys/stat.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recorder/symbols/symbols.h"
#include "tests/fuzz/memfd.h"

#define START 0x400000ull
#define LEN   0x100000ull

static volatile uint64_t sink;
static char dir[200], path[300], cache[300];

static void touch_str(const char *s)
{
	if (s)
		sink += strlen(s);
}

static void cleanup(void)
{
	unlink(path);
	rmdir(cache);
	rmdir(dir);
}

static void setup(void)
{
	/* in memory (/dev/shm): the ELF is rewritten for every execution */
	snprintf(dir, sizeof(dir), "%s/fuzz-symbols.XXXXXX", fz_tmp_base());
	if (!mkdtemp(dir))
		abort();
	snprintf(path, sizeof(path), "%s/jitted-1-1.so", dir);
	snprintf(cache, sizeof(cache), "%s/cache", dir);	/* empty: only the path is found */
	mkdir(cache, 0700);
	atexit(cleanup);
}

static void resolve(struct sym_session *s, uint64_t addr)
{
	struct sym_result r;
	if (sym_resolve(s, 100, addr, 10, 2, SYM_RES_LINES, &r) < 0)
		return;
	touch_str(r.dso_name);
	touch_str(r.sym);
	touch_str(r.sym_raw);
	touch_str(r.srcfile);
	for (unsigned i = 0; i < r.n_inline; i++) {
		touch_str(r.inl[i].func);
		touch_str(r.inl[i].file);
	}
	if (r.dso) {
		uint8_t code[64];
		long n = sym_dso_read_code(s, r.dso, r.dso_addr, code, sizeof(code));
		if (n > (long)sizeof(code))
			abort();
		for (long i = 0; i < n; i++)
			sink += code[i];
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!dir[0])
		setup();
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		abort();
	close(fd);

	struct sym_opts o = { .sz = sizeof(o), .buildid_dir = cache, .no_debuginfod = 1 };
	struct sym_session *s = sym_session_new(&o);
	if (!s)
		abort();
	sym_comm(s, 100, 100, "fuzz", 1);
	sym_mmap(s, 100, 100, START, LEN, 0, path, NULL, 0, 2, 1);
	/* .text of a synth ELF starts at 0x80; small ELFs keep code in the first pages */
	for (uint64_t off = 0; off < 0x400; off += 8)
		resolve(s, START + off);
	for (uint64_t off = 0x1000; off < 0x1400; off += 0x20)
		resolve(s, START + off);
	if (size >= 8) {	/* and somewhere the input itself points at */
		uint64_t off;
		memcpy(&off, data + size - 8, 8);
		resolve(s, START + off % LEN);
	}
	for (struct sym_dso *d = sym_dso_next(s, NULL); d; d = sym_dso_next(s, d)) {
		touch_str(sym_dso_long_name(d));
		touch_str(sym_dso_short_name(d));
	}
	sym_session_free(s);

	struct sym_build_id id;
	if (sym_elf_build_id(path, &id, NULL) == 0) {
		char hex[SYM_BUILD_ID_HEX];
		touch_str(sym_build_id_hex(&id, hex));
	}
	return 0;
}
