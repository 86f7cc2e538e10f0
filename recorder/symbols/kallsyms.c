/* kallsyms.c - a kallsyms file kept as its text: one pass finds the text symbols' addresses
 * (16 bytes of index per symbol, no name copied), and a symbol's name is copied out only
 * when a sample lands in it. A kernel has ~100k-200k symbols and a profile hits a few
 * hundred, so parsing and interning every name (what perf does) is most of the cost. */
#include "lib/nomem.h"
#include "recorder/symbols/symbols_int.h"
#include "lib/grow.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Reads until EOF: /proc files report size 0. buf gets len bytes plus a NUL. */
int sym_read_all(const char *path, char **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t cap = 1 << 16, n = 0;
	char *b = malloc(cap);
	int rc = 0;
	while (b) {
		if (cap - n < 2 && jp_grow(&b, &cap, cap + 1, 1, 0)) {
			rc = -ENOMEM;
			break;
		}
		ssize_t got = read(fd, b + n, cap - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			rc = got < 0 ? -errno : 0;
			break;
		}
		n += (size_t)got;
	}
	close(fd);
	if (!b)
		return -ENOMEM;
	if (rc) {
		free(b);
		return rc;
	}
	b[n] = 0;
	*buf = b;
	*len = n;
	return 0;
}

/* A regular file is mapped (the page cache is the buffer; *st its identity, which keys the
 * index's cache entry); /proc/kallsyms is read (st->st_mode then says not regular). */
static int load_text(struct kallsyms *k, const char *path, struct stat *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct stat st;
	out->st_mode = 0;
	if (fstat(fd, &st)) {
		int rc = -errno;
		close(fd);
		return rc;
	}
	if (!S_ISREG(st.st_mode) || st.st_size <= 0) {
		close(fd);
		return sym_read_all(path, &k->text, &k->len);
	}
	void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return sym_read_all(path, &k->text, &k->len);
	k->text = p;
	k->len = (size_t)st.st_size;
	k->mapped = 1;
	*out = st;
	return 0;
}

static signed char hexval[256];

static void hex_init(void)
{
	static int done;
	if (done)
		return;
	memset(hexval, -1, sizeof(hexval));
	for (int i = 0; i < 10; i++)
		hexval['0' + i] = (signed char)i;
	for (int i = 0; i < 6; i++)
		hexval['a' + i] = hexval['A' + i] = (signed char)(10 + i);
	done = 1;
}

/* 8 lowercase hex digits at p, a byte each in parallel (SWAR): 1 and *val, or 0 if any is
 * not one (the caller then goes digit by digit). */
static inline __attribute__((always_inline)) int hex8(const char *p, uint64_t *val)
{
	const uint64_t ones = 0x0101010101010101ull, high = 0x80 * ones;
	uint64_t w;
	memcpy(&w, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	if (w & high)
		return 0;
	/* per byte, all below 0x80: x >= c is ((x | 0x80) - c) & 0x80, x <= c is
	 * ((c | 0x80) - x) & 0x80, with no borrow between bytes */
	uint64_t digit = ((w | high) - 0x30 * ones) & ((0xb9 * ones) - w) & high;
	uint64_t alpha = ((w | high) - 0x61 * ones) & ((0xe6 * ones) - w) & high;
	if ((digit | alpha) != high)
		return 0;
	/* '0'-'9' -> 0-9, 'a'-'f' -> 10-15, then nibbles pairwise into one number (the first
	 * character is the lowest byte and the most significant digit) */
	uint64_t v = (w & 0x0f * ones) + 9 * ((w >> 6) & ones);
	v = ((v << 4) | (v >> 8)) & 0x00ff00ff00ff00ffull;
	v = ((v << 8) | (v >> 16)) & 0x0000ffff0000ffffull;
	v = ((v << 16) | (v >> 32)) & 0xffffffffull;
	*val = v;
	return 1;
}

/* The name of the symbol whose line starts at off: *len bytes up to the tab before a
 * module name or the end of the line. */
static const char *ks_name(const struct kallsyms *k, uint32_t off, size_t *len, int *module)
{
	const char *p = k->text + off, *end = k->text + k->len;
	while (p < end && *p != ' ')
		p++;
	p = p + 3 <= end ? p + 3 : end;	/* " T " */
	const char *q = p;
	while (q < end && *q != '\n' && *q != '\t')
		q++;
	*len = (size_t)(q - p);
	if (module)
		*module = q < end && *q == '\t';
	return p;
}

static int ksym_cmp(const void *x, const void *y)
{
	const struct ksym *a = x, *b = y;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

/* "ffffffff81000000 T _text" with an optional "\t[module]": text symbols (T, t, W, w) as
 * perf keeps them. *ref_addr gets the address of ref_name (a core symbol, not a module's). */
static int index_text(struct kallsyms *k, const char *ref_name, uint64_t *ref_addr)
{
	const char *text = k->text, *p = text, *end = text + k->len;
	size_t cap = k->len / 40 + 16, reflen = ref_name ? strlen(ref_name) : 0;
	int nonzero = 0, sorted = 1;
	*ref_addr = 0;
	if (k->len > UINT32_MAX)
		return -EFBIG;
	if (!(k->v = malloc(cap * sizeof(*k->v))))
		return -ENOMEM;
	hex_init();
	while (p < end) {
		const char *line = p;
		uint64_t addr = 0, hi, lo;
		int d;
		if (end - p > 16 && p[16] == ' ' && hex8(p, &hi) && hex8(p + 8, &lo)) {
			addr = hi << 32 | lo;	/* the usual 16 digits */
			p += 16;
		} else {
			while (p < end && (d = hexval[(unsigned char)*p]) >= 0) {
				addr = addr << 4 | (uint64_t)d;
				p++;
			}
		}
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		eol = eol ? eol : end;
		/* " T " fits before the line's end before any of it is read: a file may end
		 * in digits at a page's end (eol <= end) */
		int ok = p > line && p - line <= 16 && eol - p >= 3 && *p == ' ' && p[2] == ' ';
		char type = ok ? p[1] : 0;
		const char *name = ok ? p + 3 : eol;
		p = eol + 1;
		if (!ok)
			continue;
		if (reflen && name + reflen == eol &&
		    !memcmp(name, ref_name, reflen))
			*ref_addr = addr;
		if (type != 'T' && type != 't' && type != 'W' && type != 'w')
			continue;
		if (JP_GROW_FOR(k->v, cap, k->n))
			return -ENOMEM;
		if (k->n && addr < k->v[k->n - 1].addr)
			sorted = 0;
		nonzero |= addr != 0;
		k->v[k->n++] = (struct ksym){ addr, (uint32_t)(line - text), 0 };
	}
	if (!nonzero)
		return -EPERM;	/* kptr_restrict: every address reads as 0 */
	return sorted;
}

/* Moves the core image's symbols by delta; modules load elsewhere and stay. */
static void relocate(struct kallsyms *k, int64_t delta)
{
	for (size_t i = 0; i < k->n; i++) {
		size_t len;
		int module;
		ks_name(k, k->v[i].line, &len, &module);
		if (!module)
			k->v[i].addr += (uint64_t)delta;
	}
}

/* One symbol per address, the one perf names it by: the last in file order. perf 6.1 sets
 * each kallsyms symbol's end to the next one's start *before* it drops duplicates, so of the
 * names at one address only the last has a length, and choose_best_symbol's first rule (a
 * sized symbol over an empty one) settles it: __x86_indirect_thunk_rax after
 * __pi___x86_indirect_thunk_rax, __x64_sys_rt_sigreturn after __ia32_sys_rt_sigreturn. The
 * entries are sorted by (address, line), so the last of a run is that one. */
static void dedupe(struct kallsyms *k)
{
	size_t w = 0;
	for (size_t i = 0; i < k->n; i++) {
		if (w && k->v[w - 1].addr == k->v[i].addr) {
			k->v[w - 1] = k->v[i];
			continue;
		}
		if (w != i)	/* unmoved entries stay unwritten: a cached index's pages not copied */
			k->v[w] = k->v[i];
		w++;
	}
	k->n = w;
}

int kallsyms_open(struct kallsyms *k, const char *path, const char *ref_name,
		  uint64_t recorded_ref)
{
	return kallsyms_open_cached(k, path, ref_name, recorded_ref, -1);
}

int kallsyms_open_cached(struct kallsyms *k, const char *path, const char *ref_name,
			 uint64_t recorded_ref, int cache_root)
{
	struct stat st;
	memset(k, 0, sizeof(*k));
	int rc = load_text(k, path, &st);
	if (rc)
		return rc;
	uint64_t ref;
	int regular = S_ISREG(st.st_mode);
	/* the cache keeps the index sorted and one symbol per address, before any relocation:
	 * the core image's symbols move together and never meet a module's address, so sorting
	 * and deduplicating again after a move gives what doing it once after would */
	if (!regular || !kallsyms_cache_load(cache_root, &st, ref_name, k, &ref)) {
		rc = index_text(k, ref_name, &ref);
		if (rc < 0) {
			kallsyms_free(k);
			return rc;
		}
		if (!rc)
			qsort(k->v, k->n, sizeof(*k->v), ksym_cmp);
		dedupe(k);
		if (regular)
			kallsyms_cache_save(cache_root, &st, ref_name, k, ref);
	}
	if (recorded_ref && ref && ref != recorded_ref) {
		relocate(k, (int64_t)(recorded_ref - ref));
		qsort(k->v, k->n, sizeof(*k->v), ksym_cmp);
		dedupe(k);
	}
	return 0;
}

struct sym_entry *kallsyms_find(struct sym_session *s, struct kallsyms *k, uint64_t addr)
{
	size_t i = sym_upper_bound(k->v, k->n, sizeof(*k->v), addr);
	if (!i--)
		return NULL;
	/* like perf, a symbol reaches up to the next one (the last gets a page) */
	uint64_t size = i + 1 < k->n ? k->v[i + 1].addr - k->v[i].addr : 4096;
	if (addr - k->v[i].addr >= size)
		return NULL;
	if (k->v[i].mat)
		return k->mat[k->v[i].mat - 1];
	char name[1024];
	size_t len;
	const char *n = ks_name(k, k->v[i].line, &len, NULL);
	snprintf(name, sizeof(name), "%.*s", (int)len, n);
	struct sym_entry *e = malloc(sizeof(*e));
	const char *raw = sess_intern(s, name);
	if (!e || !raw || JP_GROW_FOR(k->mat, k->cap_mat, k->n_mat))
		jp_nomem("a kernel symbol");	/* NULL would be "no symbol here" */
	*e = (struct sym_entry){ k->v[i].addr, size, raw, NULL, 0, 0 };
	k->mat[k->n_mat++] = e;
	k->v[i].mat = (uint32_t)k->n_mat;
	return e;
}

void kallsyms_free(struct kallsyms *k)
{
	if (k->mapped)
		munmap(k->text, k->len);
	else
		free(k->text);
	if (k->v_map)
		munmap(k->v_map, k->v_map_len);
	else
		free(k->v);
	for (size_t i = 0; i < k->n_mat; i++)
		free(k->mat[i]);
	free(k->mat);
	memset(k, 0, sizeof(*k));
}
