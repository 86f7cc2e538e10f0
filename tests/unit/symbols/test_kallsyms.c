/* test_kallsyms.c - recorder/symbols/kallsyms.c's reader at the edges of a mapped file. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/symbols/symbols_int.h"
#include "tests/lib/testutil.h"

/* Issue 34 finding 6: a kallsyms file whose last line is only an address, without newline,
 * ending at a page's end: the reader looked at the byte after the address (*p at p == end),
 * one past the mapping. The file is mapped where a PROT_NONE page follows it, so that read
 * faults; the line is skipped and the symbols before it are read. */
Test(kallsyms, last_line_of_digits_at_a_page_end, .timeout = 30)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), len = 2 * pg;
	static const char head[] = "ffffffff81000000 T _text\nffffffff81000100 T ",
			  tail[] = "ffffffff81000600";
	char *text = malloc(len), *dir = tu_tmpdir("sym-kallsyms"), path[4200];
	cr_assert(text && dir);
	memcpy(text, head, sizeof(head) - 1);
	/* the second symbol's name fills the file up to the last line */
	memset(text + sizeof(head) - 1, 'x', len - (sizeof(head) - 1) - sizeof(tail));
	text[len - sizeof(tail)] = '\n';
	memcpy(text + len - (sizeof(tail) - 1), tail, sizeof(tail) - 1);
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	cr_assert_eq(tu_write_file(path, text, len), 0);

	/* a hole of the file's size just below a PROT_NONE page: the next mapping of that size
	 * goes there (the kernel picks the highest gap that fits) */
	char *r = mmap(NULL, len + pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert(r != MAP_FAILED);
	cr_assert_eq(munmap(r, len), 0);
	struct kallsyms k;
	int rc = kallsyms_open(&k, path, "_text", 0);
	cr_assert_eq(rc, 0);
	if (!k.mapped || k.text != r) {
		kallsyms_free(&k);
		cr_skip_test("the file was not mapped before the guard page (%p, hole %p)",
			     (void *)k.text, (void *)r);
	}
	cr_expect_eq(k.n, 2);
	cr_expect_eq(k.v[0].addr, 0xffffffff81000000ull);
	cr_expect_eq(k.v[1].addr, 0xffffffff81000100ull);
	kallsyms_free(&k);
	munmap(r + len, pg);
	tu_rmtree(dir);
	free(dir);
	free(text);
}

/* The index kept in the build-id cache (kallsyms_cache.c): the first open writes the entry,
 * the next maps it and answers alike (symbols, order, one per address, a relocation of the
 * core image); a changed file, an entry others may write, and an entry pointing off a line's
 * start are not taken, and the text is indexed again. */
static const char ks_text[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000100 t alias_first\n"
	"ffffffff81000100 T alias_last\n"
	"ffffffff81000050 T out_of_order\n"
	"ffffffff81000200 D some_data\n"
	"ffffffff81000300 W weak_one\n"
	"ffffffffc0001000 t mod_fn\t[mymod]\n";

static void open_cached(struct kallsyms *k, const char *path, int root, uint64_t ref)
{
	cr_assert_eq(kallsyms_open_cached(k, path, "_text", ref, root), 0);
}

static void expect_index(const struct kallsyms *k, uint64_t delta)
{
	static const uint64_t want[] = { 0xffffffff81000000ull, 0xffffffff81000050ull,
					 0xffffffff81000100ull, 0xffffffff81000300ull };
	cr_assert_eq(k->n, 5, "%zu symbols", k->n);
	for (size_t i = 0; i < 4; i++)
		cr_expect_eq(k->v[i].addr, want[i] + delta, "symbol %zu: %#llx", i,
			     (unsigned long long)k->v[i].addr);
	cr_expect_eq(k->v[4].addr, 0xffffffffc0001000ull, "a module's symbol stays");
	/* of the two at one address, the last in the file */
	cr_expect(!strncmp(k->text + k->v[2].line + 19, "alias_last", 10));
}

Test(kallsyms, index_cached_and_taken_back)
{
	char *dir = tu_tmpdir("sym-kscache"), path[4200], root_path[4200];
	cr_assert(dir);
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	snprintf(root_path, sizeof(root_path), "%s/cache", dir);
	cr_assert_eq(tu_write_file(path, ks_text, sizeof(ks_text) - 1), 0);
	cr_assert_eq(mkdir(root_path, 0700), 0);
	int root = open(root_path, O_PATH | O_DIRECTORY);
	cr_assert(root >= 0);
	struct kallsyms k;

	open_cached(&k, path, root, 0);
	cr_expect_null(k.v_map, "the first open indexes the text");
	expect_index(&k, 0);
	kallsyms_free(&k);
	open_cached(&k, path, root, 0);
	cr_expect_not_null(k.v_map, "the second maps the cache's entry");
	expect_index(&k, 0);
	kallsyms_free(&k);
	/* the core image moved by 0x200000 (another boot): the same as indexing afresh */
	open_cached(&k, path, root, 0xffffffff81200000ull);
	cr_expect_not_null(k.v_map);
	expect_index(&k, 0x200000);
	kallsyms_free(&k);

	/* an entry others may write is not ours to trust */
	char entry[4300];
	struct stat st;
	cr_assert_eq(stat(path, &st), 0);
	snprintf(entry, sizeof(entry), "%s/.jitprof/kallsyms/%llx-%llx", root_path,
		 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
	cr_assert_eq(chmod(entry, 0666), 0);
	open_cached(&k, path, root, 0);
	cr_expect_null(k.v_map, "an entry others may write was taken");
	expect_index(&k, 0);
	kallsyms_free(&k);	/* the entry written again, 0600 */

	/* an entry whose first symbol points inside a line */
	size_t len;
	char *bytes = tu_read_file(entry, &len);
	cr_assert(bytes && len > 64 + 16);
	bytes[len - 5 * 16 + 8] = 3;	/* the first entry's line offset */
	cr_assert_eq(unlink(entry), 0);
	cr_assert_eq(tu_write_file(entry, bytes, len), 0);
	cr_assert_eq(chmod(entry, 0600), 0);
	free(bytes);
	open_cached(&k, path, root, 0);
	cr_expect_null(k.v_map, "an entry off the text's lines was taken");
	expect_index(&k, 0);
	kallsyms_free(&k);

	/* the file rewritten (another mtime, another size): indexed again */
	static const char more[] = "ffffffff81000400 T added\n";
	char *grown = malloc(sizeof(ks_text) + sizeof(more));
	cr_assert(grown);
	snprintf(grown, sizeof(ks_text) + sizeof(more), "%s%s", ks_text, more);
	cr_assert_eq(tu_write_file(path, grown, strlen(grown)), 0);
	free(grown);
	open_cached(&k, path, root, 0);
	cr_expect_null(k.v_map, "a changed file's old index was taken");
	cr_expect_eq(k.n, 6);
	kallsyms_free(&k);
	close(root);
	tu_rmtree(dir);
	free(dir);
}

/* Run as root with another user's build-id cache (HOME kept by sudo -E): the index is made
 * from the text and nothing is written there. */
Test(kallsyms, another_users_cache_root_is_not_written)
{
	if (geteuid() != 0)
		cr_skip_test("needs root to give the cache root to another user");
	char *dir = tu_tmpdir("sym-kscache-other"), path[4200], root_path[4200], made[4300];
	cr_assert(dir);
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	snprintf(root_path, sizeof(root_path), "%s/cache", dir);
	snprintf(made, sizeof(made), "%s/.jitprof", root_path);
	cr_assert_eq(tu_write_file(path, ks_text, sizeof(ks_text) - 1), 0);
	cr_assert_eq(mkdir(root_path, 0700), 0);
	cr_assert_eq(chown(root_path, 54321, 54321), 0);
	int root = open(root_path, O_PATH | O_DIRECTORY);
	cr_assert(root >= 0);
	struct kallsyms k;
	open_cached(&k, path, root, 0);
	expect_index(&k, 0);
	kallsyms_free(&k);
	struct stat st;
	cr_expect_neq(lstat(made, &st), 0, "root made %s in uid 54321's cache", made);
	close(root);
	tu_rmtree(dir);
	free(dir);
}
