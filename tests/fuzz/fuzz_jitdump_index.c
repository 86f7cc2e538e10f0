/* fuzz_jitdump_index.c - libFuzzer target: jd_index_open over a dump and its companion file,
 * the whole-dump view inject and report consume. The input is the dump followed by the
 * companion: it is split where the companion's magic first appears after the dump header.
 * fuzz-srcs: jitdump/
 * fuzz-libs: -lpthread */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jitdump/jitdump.h"
#include "tests/fuzz/jd_touch.h"
#include "tests/fuzz/memfd.h"

static char dir_path[200], dump_path[256], ext_path[300];

static void cleanup(void)
{
	unlink(ext_path);
	unlink(dump_path);
	rmdir(dir_path);
}

static void put_file(const char *path, const uint8_t *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		abort();
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w <= 0)
			abort();
		p += w;
		n -= (size_t)w;
	}
	close(fd);
}

static size_t companion_start(const uint8_t *data, size_t size)
{
	static const uint8_t le[4] = { 0x31, 0x58, 0x50, 0x4a }, be[4] = { 0x4a, 0x50, 0x58, 0x31 };
	for (size_t i = JD_HEADER_SIZE; i + 4 <= size; i++)
		if (!memcmp(data + i, le, 4) || !memcmp(data + i, be, 4))
			return i;
	return size;
}

static void touch_entry(const struct jd_load_entry *e)
{
	jd_touch_str(e->load.name);
	jd_touch_bytes(e->load.code, e->load.code_size);
	jd_touch_lines(e->lines, e->nr_lines);
	if (e->unwind)
		jd_touch_bytes(e->unwind->data, e->unwind->unwinding_size);
	if (e->info)
		jd_touch_sink += e->info->generation;
	if (e->inl)
		jd_touch_inline(e->inl);
	JD_PROMISE(e->generation >= 1, "generation 0 in the index");
}

/* The method table: every record whole, its lines ascending, each found again by its
 * pointer (the record of its time or an earlier one of the same pointer). */
static void touch_methods(const struct jd_index *x)
{
	const struct jd_ext_method *prev = NULL;
	for (size_t i = 0; i < jd_index_nr_methods(x); i++) {
		const struct jd_ext_method *m = jd_index_method_nth(x, i);
		JD_PROMISE(m != NULL, "a method of the table missing");
		jd_touch_str(m->name);
		jd_touch_str(m->file);
		for (uint32_t k = 0; k < m->nr_lines; k++) {
			JD_PROMISE(!k || m->lines[k].bci >= m->lines[k - 1].bci, "lines not sorted");
			jd_touch_sink += m->lines[k].line;
		}
		JD_PROMISE(!prev || prev->method <= m->method, "the table is not sorted");
		const struct jd_ext_method *f = jd_index_method(x, m->method, UINT64_MAX);
		JD_PROMISE(f && f->method == m->method, "a method not found by its pointer");
		prev = m;
	}
	JD_PROMISE(!jd_index_method_nth(x, jd_index_nr_methods(x)), "a method past the end");
	if (jd_index_vm(x))
		jd_touch_sink += jd_index_vm(x)->method_slot;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!dump_path[0]) {
		/* in memory (/dev/shm): both files are rewritten for every execution */
		snprintf(dir_path, sizeof(dir_path), "%s/fuzz-jd-index.XXXXXX", fz_tmp_base());
		if (!mkdtemp(dir_path))
			abort();
		snprintf(dump_path, sizeof(dump_path), "%s/jit-1.dump", dir_path);
		snprintf(ext_path, sizeof(ext_path), "%s%s", dump_path, JD_EXT_SUFFIX);
		atexit(cleanup);
	}
	size_t split = companion_start(data, size);
	put_file(dump_path, data, split);
	if (split < size)
		put_file(ext_path, data + split, size - split);
	else
		unlink(ext_path);

	struct jd_index *x = NULL;
	char err[512];
	if (jd_index_open(&x, dump_path, err, sizeof(err)) < 0) {
		jd_touch_str(err);
		return 0;
	}
	size_t n = jd_index_nr_loads(x);
	JD_PROMISE(n <= split / JD_LOAD_FIXED_SIZE, "more loads than the dump can hold");
	for (size_t i = 0; i < n; i++)
		touch_entry(jd_index_load(x, i));
	for (size_t i = 0; i < jd_index_nr_moves(x); i++)
		jd_touch_sink += jd_index_move(x, i)->move.new_code_addr;
	if (jd_index_agent_stats(x))
		jd_touch_sink += jd_index_agent_stats(x)->loads;
	touch_methods(x);
	jd_touch_str(jd_index_warning(x));
	jd_touch_sink += jd_index_stats(x)->records + jd_index_header(x)->pid;
	/* Leaving the inline stacks out (report without --jvm-log) reads the same dump: the same
	 * loads, none with an inline stack. (The companion may join more: a damaged inline
	 * record passed over undecoded no longer ends its reading.) */
	struct jd_index *y = NULL;
	if (jd_index_open_flags(&y, AT_FDCWD, dump_path, NULL, JD_INDEX_NO_INLINE, err,
				sizeof(err)) >= 0) {
		JD_PROMISE(jd_index_nr_loads(y) == n, "another dump read without inline stacks");
		for (size_t i = 0; i < n; i++) {
			JD_PROMISE(!jd_index_load(y, i)->inl, "an inline stack was kept");
			touch_entry(jd_index_load(y, i));
		}
		jd_index_close(y);
	}
	jd_index_close(x);
	return 0;
}
