/* index.c - a dump and its companion, read once into one entry per code load: the line table
 * and unwind data paired with it (perf's "next CODE_LOAD" rule, but only when the DEBUG_INFO
 * names the same code_addr), its generation (nth load of its name), and the companion's
 * generation/tier, inline stacks and unload time joined by code_index. Entries live in
 * fixed-size chunks and everything else in an arena, so a million loads cost a few hundred
 * allocations; names and code stay in the mapped files. */
#include "jitdump/jd_int.h"
#include "jitdump/index_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define CHUNK_SHIFT 12
#define CHUNK (1u << CHUNK_SHIFT)

struct jd_index {
	struct jd_reader *dump, *ext;
	struct jd_arena arena;
	struct jd_arena ext_arena;	/* the companion's records (index_ext.c) */
	struct jd_load_entry **chunks;
	size_t nr_chunks, nr_loads;
	size_t chunk0_cap;	/* the first chunk grows to CHUNK: a dump of 3 loads needs no 640 KB */
	struct jd_move_entry *moves;
	size_t nr_moves, moves_cap;
	const struct jd_ext_agent_stats *agent_stats;
	struct jd_method_tab methods;
	const struct jd_ext_vm *vm;
	struct jd_index_counts counts;
	struct jd_name_tab names;
	struct jd_u64_tab by_index, by_addr;
	uint32_t *prev_same_addr;	/* built on the first unload matched by address */
	/* perf's pending records: the next CODE_LOAD takes them. */
	const struct jd_line *pend_lines;
	size_t pend_nr;
	uint64_t pend_addr;
	int pend_debug;
	const struct jd_unwinding_info *pend_unwind;
	uint64_t pend_debug_off, pend_unwind_off;
	char warning[1024];
};

static void add_warning(struct jd_index *x, const char *msg)
{
	size_t n = strlen(x->warning);
	if (!*msg || n + 3 >= sizeof(x->warning))
		return;
	snprintf(x->warning + n, sizeof(x->warning) - n, "%s%s", n ? "; " : "", msg);
}

static struct jd_load_entry *entry(const struct jd_index *x, size_t i)
{
	return &x->chunks[i >> CHUNK_SHIFT][i & (CHUNK - 1)];
}

static struct jd_load_entry *new_entry(struct jd_index *x)
{
	if (x->nr_loads >= UINT32_MAX - 1)
		return NULL;
	/* Entries never move once the index is built (callers keep pointers); while it is
	 * being built nothing holds one across new_entry, so the first chunk may grow. */
	if (x->nr_loads && x->nr_loads == x->chunk0_cap && x->chunk0_cap < CHUNK) {
		size_t n = x->chunk0_cap * 4 < CHUNK ? x->chunk0_cap * 4 : CHUNK;
		void *p = realloc(x->chunks[0], n * sizeof(struct jd_load_entry));
		if (!p)
			return NULL;
		x->chunks[0] = p;
		x->chunk0_cap = n;
	}
	if ((x->nr_loads & (CHUNK - 1)) == 0) {
		size_t c = x->nr_loads >> CHUNK_SHIFT;
		if (c == x->nr_chunks) {
			size_t n = x->nr_chunks ? x->nr_chunks * 2 : 16;
			void *p = realloc(x->chunks, n * sizeof(*x->chunks));
			if (!p)
				return NULL;
			x->chunks = p;
			x->nr_chunks = n;
		}
		size_t n = c ? CHUNK : 16;
		x->chunks[c] = malloc(n * sizeof(struct jd_load_entry));
		if (!x->chunks[c])
			return NULL;
		if (!c)
			x->chunk0_cap = n;
	}
	struct jd_load_entry *e = entry(x, x->nr_loads++);
	memset(e, 0, sizeof(*e));
	return e;
}

static int on_debug(struct jd_index *x, const struct jd_record *r)
{
	if (x->pend_debug)
		x->counts.debug_orphaned++;	/* perf would drop (leak) it too */
	x->pend_lines = jd_arena_dup(&x->arena, r->u.debug.entries,
				     r->u.debug.nr_entry * sizeof(struct jd_line));
	if (!x->pend_lines)
		return -ENOMEM;
	x->pend_nr = r->u.debug.nr_entry;
	x->pend_addr = r->u.debug.code_addr;
	x->pend_debug = 1;
	x->pend_debug_off = r->offset;
	return 0;
}

static int on_load(struct jd_index *x, const struct jd_record *r)
{
	struct jd_load_entry *e = new_entry(x);
	if (!e)
		return -ENOMEM;
	e->load = r->u.load;
	e->timestamp = r->timestamp;
	e->offset = r->offset;
	e->generation = jd_name_tab_bump(&x->names, e->load.name);
	if (!e->generation)
		return -ENOMEM;
	if (x->pend_debug) {
		if (x->pend_addr == e->load.code_addr) {
			e->lines = x->pend_lines;
			e->nr_lines = x->pend_nr;
			e->debug_offset = x->pend_debug_off;
		} else {
			x->counts.debug_mismatched++;
		}
	}
	e->unwind = x->pend_unwind;
	e->unwind_offset = x->pend_unwind ? x->pend_unwind_off : 0;
	x->pend_debug = 0;
	x->pend_unwind = NULL;
	return 0;
}

static int on_move(struct jd_index *x, const struct jd_record *r)
{
	if (x->nr_moves == x->moves_cap) {
		size_t n = x->moves_cap ? x->moves_cap * 2 : 16;
		void *p = realloc(x->moves, n * sizeof(*x->moves));
		if (!p)
			return -ENOMEM;
		x->moves = p;
		x->moves_cap = n;
	}
	x->moves[x->nr_moves++] = (struct jd_move_entry){ r->u.move, r->timestamp };
	return 0;
}

static int on_dump_record(struct jd_index *x, const struct jd_record *r)
{
	switch (r->id) {
	case JD_CODE_LOAD:
		return on_load(x, r);
	case JD_CODE_DEBUG_INFO:
		return on_debug(x, r);
	case JD_CODE_UNWINDING_INFO:
		if (x->pend_unwind)
			x->counts.unwind_orphaned++;
		x->pend_unwind = jd_arena_dup(&x->arena, &r->u.unwind, sizeof(r->u.unwind));
		x->pend_unwind_off = r->offset;
		return x->pend_unwind ? 0 : -ENOMEM;
	case JD_CODE_MOVE:
		return on_move(x, r);
	}
	return 0;
}

/* How reading a file ended, as warnings: its damage (which ended it, every record before kept)
 * and its partial tail. */
static void warn_read_end(struct jd_index *x, const struct jd_reader *rd, int damaged)
{
	if (damaged) {
		char msg[600];
		snprintf(msg, sizeof(msg), "%s (records before it kept)", jd_reader_error(rd));
		add_warning(x, msg);
	}
	add_warning(x, jd_reader_warning(rd));
}

/* Reads every record of the dump into the index; damage ends it with a warning. */
static int read_dump(struct jd_index *x)
{
	struct jd_record rec;
	int rc;
	while ((rc = jd_reader_next(x->dump, &rec)) > 0) {
		int e = on_dump_record(x, &rec);
		if (e)
			return e;
	}
	if (rc == -ENOMEM)
		return rc;	/* not damage: what follows would be dropped for nothing */
	warn_read_end(x, x->dump, rc < 0);
	return 0;
}

static int build_by_index(struct jd_index *x)
{
	if (x->by_index.cap || !x->nr_loads)
		return 0;
	/* The first load of a code_index wins: foreign writers may reuse 0 for everything. */
	for (size_t i = x->nr_loads; i-- > 0;)
		if (jd_u64_tab_put(&x->by_index, entry(x, i)->load.code_index, (uint32_t)i))
			return -ENOMEM;
	return 0;
}

/* 1 found, 0 not, or -ENOMEM (the table could not be built: no answer). */
static int find_by_index(struct jd_index *x, uint64_t code_index, uint32_t *i)
{
	int rc = build_by_index(x);
	return rc ? rc : jd_u64_tab_get(&x->by_index, code_index, i);
}

/* Latest load at addr not after time t that is still loaded; 1, 0 or -ENOMEM as above. */
static int find_by_addr(struct jd_index *x, uint64_t addr, uint64_t t, uint32_t *out)
{
	if (!x->prev_same_addr) {
		x->prev_same_addr = malloc((x->nr_loads + 1) * sizeof(uint32_t));
		if (!x->prev_same_addr)
			return -ENOMEM;
		for (size_t i = 0; i < x->nr_loads; i++) {
			uint32_t prev;
			uint64_t a = entry(x, i)->load.code_addr;
			x->prev_same_addr[i] = jd_u64_tab_get(&x->by_addr, a, &prev) ? prev
										  : UINT32_MAX;
			if (jd_u64_tab_put(&x->by_addr, a, (uint32_t)i))
				return -ENOMEM;
		}
	}
	uint32_t i;
	if (!jd_u64_tab_get(&x->by_addr, addr, &i))
		return 0;
	for (; i != UINT32_MAX; i = x->prev_same_addr[i]) {
		struct jd_load_entry *e = entry(x, i);
		if (e->timestamp <= t && !e->unload_time) {
			*out = i;
			return 1;
		}
	}
	return 0;
}

static int join_ext_record(struct jd_index *x, const struct jd_ext_rec *r)
{
	uint32_t i;
	int found = 0;
	switch (r->id) {
	case JD_EXT_LOAD_INFO:
		if ((found = find_by_index(x, r->u.info->code_index, &i)) <= 0)
			break;
		entry(x, i)->info = r->u.info;
		entry(x, i)->info_offset = r->offset;
		return 0;
	case JD_EXT_INLINE:
		if ((found = find_by_index(x, r->u.inl->code_index, &i)) <= 0)
			break;
		entry(x, i)->inl_offset = r->offset;
		entry(x, i)->inl = r->u.inl;
		return 0;
	case JD_EXT_UNLOAD:
		found = r->u.unload.code_index
				? find_by_index(x, r->u.unload.code_index, &i)
				: find_by_addr(x, r->u.unload.code_addr, r->timestamp, &i);
		if (found <= 0)
			break;
		entry(x, i)->unload_time = r->timestamp ? r->timestamp : 1;
		return 0;
	case JD_EXT_AGENT_STATS:
		x->agent_stats = r->u.stats;
		return 0;
	case JD_EXT_METHOD:
		return jd_method_tab_add(&x->methods, r->u.method, r->timestamp);
	case JD_EXT_VM:
		x->vm = r->u.vm;
		return 0;
	default:
		return 0;
	}
	if (found < 0)
		return found;	/* unmatched for want of memory is not unmatched */
	x->counts.ext_unmatched++;
	return 0;
}

/* The companion's records joined to the loads in file order, and its warnings after the
 * dump's: what reading it after the dump gave. */
static int join_ext(struct jd_index *x, struct jd_ext_read *e)
{
	x->ext = e->r;
	e->r = NULL;
	x->ext_arena = e->arena;
	e->arena.head = NULL;
	if (!x->ext) {
		if (e->rc)
			return e->rc;
		add_warning(x, e->why);
		return 0;
	}
	for (size_t k = 0; k < e->n; k++) {
		int rc = join_ext_record(x, &e->v[k]);
		if (rc)
			return rc;
	}
	jd_method_tab_finish(&x->methods);
	if (e->rc)
		return e->rc;
	warn_read_end(x, x->ext, e->damaged);
	return 0;
}

static void summarize(struct jd_index *x)
{
	char msg[256];
	const struct jd_index_counts *c = &x->counts;
	if (c->debug_mismatched) {
		snprintf(msg, sizeof(msg), "%llu DEBUG_INFO not matching the next CODE_LOAD's "
			 "address ignored", (unsigned long long)c->debug_mismatched);
		add_warning(x, msg);
	}
	if (c->debug_orphaned || c->unwind_orphaned) {
		snprintf(msg, sizeof(msg), "%llu DEBUG_INFO and %llu UNWINDING_INFO without a "
			 "CODE_LOAD of their own", (unsigned long long)c->debug_orphaned,
			 (unsigned long long)c->unwind_orphaned);
		add_warning(x, msg);
	}
	if (c->ext_unmatched) {
		snprintf(msg, sizeof(msg), "%llu companion records name no load of the dump",
			 (unsigned long long)c->ext_unmatched);
		add_warning(x, msg);
	}
}

int jd_index_open_flags(struct jd_index **out, int dirfd, const char *name, const char *display,
			unsigned flags, char *err, size_t errlen)
{
	*out = NULL;
	if (!display)
		display = name;
	struct jd_index *x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	unsigned rflags = flags & JD_INDEX_MAP_OWN ? JD_READER_MAP_OWN : 0;
	int rc = jd_reader_open_flags(&x->dump, dirfd, name, display, rflags, err, errlen);
	if (rc)
		goto fail;
	/* The companion, if any, is read meanwhile (index_ext.c) and joined after the dump. */
	char ext[4096], ext_display[4096];
	struct jd_ext_read er = { .dirfd = dirfd, .name = ext, .display = ext_display,
				  .reader_flags = rflags,
				  .no_inline = (flags & JD_INDEX_NO_INLINE) != 0 };
	int with_ext = !jd_reader_is_ext(x->dump) && !jd_ext_path(name, ext, sizeof(ext)) &&
		       !jd_ext_path(display, ext_display, sizeof(ext_display)) &&
		       faccessat(dirfd, ext, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
	if (with_ext)
		jd_ext_read_start(&er);
	rc = read_dump(x);
	if (x->pend_debug)
		x->counts.debug_orphaned++;
	if (x->pend_unwind)
		x->counts.unwind_orphaned++;
	if (with_ext) {
		jd_ext_read_wait(&er);
		int erc = join_ext(x, &er);
		if (!rc)
			rc = erc;
		jd_reader_close(er.r);
		jd_arena_free(&er.arena);
		free(er.v);
	}
	if (rc) {
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", display, strerror(-rc));
		goto fail;
	}
	summarize(x);
	*out = x;
	return 0;
fail:
	jd_index_close(x);
	return rc;
}

int jd_index_open_at(struct jd_index **out, int dirfd, const char *name, const char *display,
		     char *err, size_t errlen)
{
	return jd_index_open_flags(out, dirfd, name, display, 0, err, errlen);
}

int jd_index_open(struct jd_index **out, const char *dump_path, char *err, size_t errlen)
{
	return jd_index_open_at(out, AT_FDCWD, dump_path, dump_path, err, errlen);
}

void jd_index_close(struct jd_index *x)
{
	if (!x)
		return;
	for (size_t c = 0; c * CHUNK < x->nr_loads; c++)
		free(x->chunks[c]);
	free(x->chunks);
	free(x->moves);
	free(x->prev_same_addr);
	jd_name_tab_free(&x->names);
	jd_u64_tab_free(&x->by_index);
	jd_u64_tab_free(&x->by_addr);
	jd_method_tab_free(&x->methods);
	jd_arena_free(&x->arena);
	jd_arena_free(&x->ext_arena);
	jd_reader_close(x->dump);
	jd_reader_close(x->ext);
	free(x);
}

const struct jd_header *jd_index_header(const struct jd_index *x)
{
	return jd_reader_header(x->dump);
}

size_t jd_index_nr_loads(const struct jd_index *x)
{
	return x->nr_loads;
}

const struct jd_load_entry *jd_index_load(const struct jd_index *x, size_t i)
{
	return i < x->nr_loads ? entry(x, i) : NULL;
}

size_t jd_index_nr_moves(const struct jd_index *x)
{
	return x->nr_moves;
}

const struct jd_move_entry *jd_index_move(const struct jd_index *x, size_t i)
{
	return i < x->nr_moves ? &x->moves[i] : NULL;
}

const struct jd_ext_agent_stats *jd_index_agent_stats(const struct jd_index *x)
{
	return x->agent_stats;
}

const struct jd_ext_method *jd_index_method(const struct jd_index *x, uint64_t method,
					    uint64_t time)
{
	return jd_method_tab_find(&x->methods, method, time);
}

size_t jd_index_nr_methods(const struct jd_index *x)
{
	return x->methods.n;
}

const struct jd_ext_method *jd_index_method_nth(const struct jd_index *x, size_t i)
{
	return i < x->methods.n ? x->methods.v[i].m : NULL;
}

const struct jd_ext_vm *jd_index_vm(const struct jd_index *x)
{
	return x->vm;
}

const struct jd_reader_stats *jd_index_stats(const struct jd_index *x)
{
	return jd_reader_stats(x->dump);
}

const struct jd_index_counts *jd_index_counts(const struct jd_index *x)
{
	return &x->counts;
}

int jd_index_shrunk(const struct jd_index *x)
{
	return jd_reader_shrunk(x->dump) || (x->ext && jd_reader_shrunk(x->ext));
}

const char *jd_index_warning(const struct jd_index *x)
{
	return x->warning;
}
