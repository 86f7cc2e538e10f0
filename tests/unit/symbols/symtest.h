/* symtest.h - helpers shared by the symbols unit tests (symtest.c). */
#ifndef JITPROF_SYMTEST_H
#define JITPROF_SYMTEST_H

#include <stdint.h>

#include "recorder/symbols/symbols.h"

/* The C source every test builds: work() and other() with forced inlining. */
extern const char *st_src;

struct st_seg {
	uint64_t vaddr, off, memsz;
};
/* The executable PT_LOAD, page-aligned as the loader maps it. */
struct st_seg st_exec_segment(const char *path);
/* gcc -g -O2 FLAGS -o DIR/NAME DIR/t.c; returns the malloc'd output path. */
char *st_build(const char *dir, const char *name, const char *flags);
/* The same from the C source src. */
char *st_build_src(const char *dir, const char *name, const char *flags, const char *src);
/* Feeds the MMAP that loading layout_of at base would record, under the name recorded. */
int st_map(struct sym_session *s, uint32_t pid, const char *recorded, const char *layout_of,
	   uint64_t base, const struct sym_build_id *bid);
/* A report callback appending every message (one per line) to st_msgs. */
extern char st_msgs[16384];
void st_collect(void *ctx, enum jp_level level, const char *msg);
/* A session reading buildid_dir and symfs (NULL: none), no debuginfod, messages into st_msgs. */
struct sym_session *st_session(const char *buildid_dir, const char *symfs);
/* dir/sub, malloc'd. */
char *st_path(const char *dir, const char *sub);
/* The fixture of the DWARF cache tests: a fresh directory (*dir) holding a shared object built
 * with zlib-compressed DWARF 5 (*so, malloc'd; *bid its build-id) and an empty cache root
 * dir/cache (root); entry gets root's entry for it with suffix (lines_zcache_entry). Needs
 * libdeflate. */
void st_zcache_fixture(const char *prefix, char **dir, char **so, struct sym_build_id *bid,
		       char *root, size_t rootlen, const char *suffix, char *entry,
		       size_t entrylen);
/* A symbol's value from `nm` (the oracle). */
uint64_t st_nm_addr(const char *path, const char *sym);
/* Runs a shell command line that must succeed. */
void st_run(const char *cmdline);

/* Issue 16 finding 5: replaces the DWARF of the ELF at path with one unit of depth nested
 * DW_TAG_lexical_blocks, each covering [0, 1 MiB) (objcopy --update-section). */
void st_deep_dwarf(const char *path, unsigned depth);
/* Issue 34 finding 6: one compile unit covering [0, 1 MiB) that imports a partial unit, which
 * imports the next, n of them; the last imports the first again (LOOP); each imports the next
 * twice (TWICE: 2^n units walked). */
enum st_imports { ST_IMPORT_CHAIN, ST_IMPORT_LOOP, ST_IMPORT_TWICE };
void st_import_chain_dwarf(const char *path, unsigned n, enum st_imports how);

#endif
