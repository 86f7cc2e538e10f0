/* ondemand.c - the ELFs of an `inject --no-elfs` recording, built in memory when a reader
 * (report, archive and every export through them) first needs one: a symbols provider that
 * finds the build-id in the origins section, reads the dump whole once per run and checks
 * those bytes against its identity (a changed dump is refused, never mis-symbolized; a FIFO,
 * device or another user's file without -f too), parses only that load's records at the
 * offsets the origins give, and builds its ELF with synth exactly as the file-writing
 * path would, checking its build-id again; or, for a reader that needs symbols only, the ELF
 * without line tables and inline scopes (whose records are then not read at all). A dump gone
 * from its recorded path is looked for beside the recording read (a moved profile directory,
 * `mv` or `cp -a`), under the same file name and with the same identity. */
#include "recorder/origins/origins.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/hindex.h"
#include "lib/nomem.h"
#include "recorder/perfdata/perfdata.h"
#include "recorder/symbols/symbols.h"
#include "synth/synth.h"

/* The records of one load, each read alone: the file's header and the record copied into one
 * buffer, and a reader over that buffer (the reader owns the byte order and every length
 * check). Nothing of the dump is indexed or mapped. A file is read whole into memory when its
 * first ELF is asked for: its identity is the SHA-1 of those bytes (inj_file_id_read), so
 * every record is copied from the copy that was checked, never read from the file again (a
 * file rewritten afterwards cannot reach us; one another user shrinks cannot fault us). */
enum { R_LOAD, R_DEBUG, R_UNWIND, R_INFO, R_INL, NR_RECS };

struct one_rec {
	uint8_t *buf;
	struct jd_reader *r;
	struct jd_record rec;
};

struct od_file {
	uint8_t *all;		/* the whole file, checked; NULL: absent (a dump without
				 * companion) */
	size_t all_len;
	uint32_t hdr_size;
	int swap;
	const char *path;
};

struct od_dump {
	struct od_file f[2];	/* the dump, its companion */
	char *path;		/* where it is read (inj_origin_dump_path): recorded, or moved */
	struct jd_header header;
	int state;		/* 0 not opened, 1 open, -1 refused */
	char *msg;		/* why refused (malloc'd), said at each ELF asked of it */
};

struct ondemand {
	int symbols_only;	/* INJ_OD_SYMBOLS_ONLY */
	unsigned id_flags;	/* INJ_ID_FORCE with INJ_OD_FORCE */
	char *input_dir;	/* the recording's directory; NULL: read from a pipe */
	struct inj_origins o;
	struct od_dump *dumps;
	struct jp_hindex by_id;	/* build-id -> entry index */
	char comp_path[4096 + 16];
};

static void one_rec_free(struct one_rec *o)
{
	jd_reader_close(o->r);
	free(o->buf);
	memset(o, 0, sizeof(*o));
}

/* len bytes at off of f, from its checked copy. */
static int read_at(const struct od_file *f, void *buf, size_t len, uint64_t off)
{
	if (!f->all || off > f->all_len || len > f->all_len - off)
		return -EIO;
	memcpy(buf, f->all + off, len);
	return 0;
}

static uint32_t get32(const uint8_t *p, int swap)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

/* path read whole and checked against id (inj_file_id_read), its header parsed. The messages
 * name the file and what is wrong, never its bytes (a path swapped for another file must not
 * leak what that file holds). */
static int file_open(struct od_file *f, const char *path, const struct inj_file_id *id,
		     unsigned flags, const struct jp_log *log)
{
	struct jd_reader *r = NULL;
	int rc;
	f->path = path;
	if ((rc = inj_file_id_read(path, id, flags, &f->all, &f->all_len, log)) < 0)
		return rc;
	if (!f->all)
		return 0;	/* absent, as inject found it */
	if (f->all_len < 12)
		goto bad;
	f->swap = get32(f->all, 0) != JD_MAGIC && get32(f->all, 0) != JD_EXT_MAGIC;
	f->hdr_size = get32(f->all + 8, f->swap);
	/* A header extension is allowed; one past 64 KiB is not a dump we wrote or know. */
	if (f->hdr_size < 40 || f->hdr_size > (64u << 10) || f->hdr_size > f->all_len ||
	    jp_nomem_check(jd_reader_open_mem(&r, f->all, f->hdr_size, path, NULL, 0),
			   "reading a jitdump's header") < 0)
		goto bad;
	jd_reader_close(r);
	return 0;
bad:
	jp_logf(log, JP_LOG_ERROR, "%s: not a jitdump header", path);
	return -EINVAL;
}

/* The record of kind id at offset off of f, or 0 with why logged. */
static int record_at(const struct od_file *f, uint64_t off, uint32_t id, struct one_rec *o,
		     const struct jp_log *log)
{
	uint8_t prefix[8];
	if (!f->all || off < f->hdr_size || read_at(f, prefix, 8, off) < 0)
		goto bad;
	uint32_t size = get32(prefix + 4, f->swap);
	if (size < 16 || size > (256u << 20))
		goto bad;
	if (!(o->buf = malloc((size_t)f->hdr_size + size)))
		jp_nomem("reading a jitdump record");	/* not a record missing */
	memcpy(o->buf, f->all, f->hdr_size);
	if (read_at(f, o->buf + f->hdr_size, size, off) < 0)
		goto bad;
	int rc = jd_reader_open_mem(&o->r, o->buf, (size_t)f->hdr_size + size, f->path, NULL, 0);
	if (!rc)
		rc = jd_reader_next(o->r, &o->rec);
	if (jp_nomem_check(rc, "reading a jitdump record") != 1 || o->rec.id != id)
		goto bad;
	o->rec.offset = off;
	return 1;
bad:
	one_rec_free(o);
	jp_logf(log, JP_LOG_ERROR, "%s: no record %u at offset %llu as the recording says: "
		"refused", f->path ? f->path : "companion", id, (unsigned long long)off);
	return 0;
}

/* Build-ids come from the recording: the index is seeded (lib/hindex.h), so a crafted one
 * cannot make the origins collide. */
static int id_eq(const void *key, uint32_t idx, const void *ctx)
{
	const struct ondemand *od = ctx;
	return !memcmp(od->o.v[idx].build_id, key, 20);
}

/* The table of the entries by build-id (the first entry of an id wins: its duplicates make
 * the same ELF). 0 or -ENOMEM. */
static int index_ids(struct ondemand *od)
{
	for (size_t i = 0; i < od->o.n; i++) {
		const uint8_t *id = od->o.v[i].build_id;
		uint64_t h = jp_hindex_hash(id, 20);
		if (jp_hindex_find(&od->by_id, h, id, id_eq, od) < 0 &&
		    jp_hindex_add(&od->by_id, h, i))
			return -ENOMEM;
	}
	return 0;
}

static const struct inj_origin *lookup(struct ondemand *od, const struct sym_build_id *id)
{
	if (id->size != 20)
		return NULL;
	int64_t at = jp_hindex_find(&od->by_id, jp_hindex_hash(id->data, 20), id->data, id_eq, od);
	return at < 0 ? NULL : &od->o.v[at];
}

/* Checks the identities of the dump and its companion, then opens them (no parsing). */
static int open_dump(struct ondemand *od, uint32_t k)
{
	struct od_dump *dd = &od->dumps[k];
	const struct inj_origin_dump *d = &od->o.dumps[k];
	char *comp = od->comp_path;
	if (dd->state)
		return dd->state;
	dd->state = -1;
	const char *path = dd->path = inj_origin_dump_path(&od->o, k, od->input_dir);
	if (!path)
		jp_nomem("a dump's path");	/* not a refused dump */
	if (jd_ext_path(path, comp, sizeof(od->comp_path)) < 0) {
		if (asprintf(&dd->msg, "%s: path too long", path) < 0)
			jp_nomem("a refused dump's message");
		return -1;
	}
	unsigned flags = od->id_flags;
	char *cp = strdup(comp);
	if (!cp)
		jp_nomem("a companion's name");	/* not a refused dump */
	dd->f[1].path = cp;	/* freed with the dump, whatever file_open says */
	/* why, held whole: it is quoted in the refusal each ELF of the dump says */
	struct jp_held why = { 0 };
	const struct jp_log hold = { jp_log_hold, &why };
	int rc = file_open(&dd->f[0], path, &d->dump, flags, &hold);
	if (rc == 0)
		rc = file_open(&dd->f[1], cp, &d->comp, flags, &hold);
	jp_nomem_check(rc, "reading a dump");	/* not a refused one */
	if (rc < 0) {
		struct stat st;
		int gone = stat(path, &st) < 0 && errno == ENOENT;
		if (why.nomem ||
		    asprintf(&dd->msg, "%s: its jitted ELFs are refused%s%s%s",
			     why.msg ? why.msg : strerror(-rc), rc == -ESTALE ? " (" : "",
			     rc != -ESTALE ? "" : gone && od->input_dir ?
			     "copy the dump and its .jitprof companion beside the recording, "
			     "keeping their times (mv, cp -a), or report an archive made where "
			     "they are (jitprof archive)" : "rerun jitprof inject on the recording",
			     rc == -ESTALE ? ")" : "") < 0)
			jp_nomem("a refused dump's message");
		free(why.msg);
		return -1;
	}
	struct jd_reader *r;
	if (jp_nomem_check(jd_reader_open_mem(&r, dd->f[0].all, dd->f[0].hdr_size, path, NULL, 0),
			   "reading a jitdump's header") < 0)
		return -1;
	dd->header = *jd_reader_header(r);
	jd_reader_close(r);
	dd->state = 1;
	return 1;
}

/* The index entry of origin e, rebuilt from its own records only. */
static int entry_of(struct od_dump *dd, const struct inj_origin *e, int symbols_only,
		    struct jd_load_entry *le, struct one_rec rec[NR_RECS], const struct jp_log *log)
{
	struct od_file *dump = &dd->f[0], *comp = &dd->f[1];
	memset(le, 0, sizeof(*le));
	if (!record_at(dump, e->offset, JD_CODE_LOAD, &rec[R_LOAD], log))
		return 0;
	le->load = rec[R_LOAD].rec.u.load;
	le->timestamp = rec[R_LOAD].rec.timestamp;
	le->offset = e->offset;
	le->generation = e->generation;
	if (le->load.code_index != e->code_index) {
		jp_logf(log, JP_LOG_ERROR, "%s: code load at offset %llu is not code_index %llu: "
			"refused", dump->path, (unsigned long long)e->offset,
			(unsigned long long)e->code_index);
		return 0;
	}
	if (e->debug_offset && !symbols_only) {
		if (!record_at(dump, e->debug_offset, JD_CODE_DEBUG_INFO, &rec[R_DEBUG], log))
			return 0;
		le->lines = rec[R_DEBUG].rec.u.debug.entries;
		le->nr_lines = rec[R_DEBUG].rec.u.debug.nr_entry;
	}
	if (e->unwind_offset) {
		if (!record_at(dump, e->unwind_offset, JD_CODE_UNWINDING_INFO, &rec[R_UNWIND], log))
			return 0;
		le->unwind = &rec[R_UNWIND].rec.u.unwind;
	}
	if (e->info_offset) {
		if (!record_at(comp, e->info_offset, JD_EXT_LOAD_INFO, &rec[R_INFO], log))
			return 0;
		le->info = &rec[R_INFO].rec.u.load_info;
	}
	if (e->inl_offset && !symbols_only) {
		if (!record_at(comp, e->inl_offset, JD_EXT_INLINE, &rec[R_INL], log))
			return 0;
		le->inl = &rec[R_INL].rec.u.inl;
	}
	return 1;
}

/* The origin of build-id id and its dump, opened: 1, 0 when the recording names no such ELF,
 * or -ESTALE with why logged (the dump is gone or changed). */
static int origin_of(struct ondemand *od, const struct sym_build_id *id,
		     const struct inj_origin **e, struct od_dump **dd, const struct jp_log *log)
{
	if (!(*e = lookup(od, id)))
		return 0;
	*dd = &od->dumps[(*e)->dump];
	if (open_dump(od, (*e)->dump) < 0) {
		jp_logf(log, JP_LOG_ERROR, "%s", (*dd)->msg);
		return -ESTALE;
	}
	return 1;
}

/* "DUMP@OFFSET", malloc'd: where an ELF came from, for messages. NULL: out of memory. */
static char *origin_name(const struct od_dump *dd, const struct inj_origin *e)
{
	char *w = NULL;
	return asprintf(&w, "%s@%llu", dd->path, (unsigned long long)e->offset) < 0 ? NULL : w;
}

/* A load the synthesizer refused: -EINVAL, its reason (held whole) quoted after the load's
 * place. */
static int say_unbuildable(const struct jp_log *log, const char *path, uint64_t off,
			   struct jp_held *why)
{
	if (why->nomem)
		jp_nomem("a refused load's message");
	jp_logf(log, JP_LOG_ERROR, "%s: code load at offset %llu: %s", path,
		(unsigned long long)off, why->msg ? why->msg : "refused");
	free(why->msg);
	why->msg = NULL;
	return -EINVAL;
}

static int get(void *ctx, const struct sym_build_id *id, const char *long_name, void **image,
	       size_t *len, char **what, const struct jp_log *log)
{
	struct ondemand *od = ctx;
	const struct inj_origin *e;
	struct od_dump *dd;
	struct one_rec rec[NR_RECS] = { 0 };
	struct jd_load_entry le;
	int rc = origin_of(od, id, &e, &dd, log);
	struct jp_held why = { 0 };
	const struct jp_log hold = { jp_log_hold, &why };
	(void)long_name;
	if (rc <= 0)
		return rc;
	const char *path = dd->path;
	struct synth_input in;
	struct synth_elf elf = { 0 };
	char *w = NULL;
	if (!entry_of(dd, e, od->symbols_only, &le, rec, log)) {
		rc = -ESTALE;
		goto out;
	}
	/* exactly as inject made its build-id (inj_load_input) */
	synth_input_from_load(&in, &dd->header, &le);
	in.file_seq = e->file_seq;
	if (e->flags & INJ_ORIGIN_NOLINES)
		synth_input_drop_bad_debug(&in, NULL);
	/* Symbols only: no line or inline record read, so the id cannot be recomputed; the
	 * dump's identity, checked when it was opened, and the load record's code_index
	 * (entry_of) vouch for it. */
	int built = od->symbols_only ? synth_build_symbols(&in, e->build_id, &elf, &hold)
				     : synth_build(&in, &elf, &hold);
	if (built < 0) {
		rc = say_unbuildable(log, path, e->offset, &why);
	} else if (memcmp(elf.build_id, e->build_id, 20)) {
		jp_logf(log, JP_LOG_ERROR, "%s: code load at offset %llu no longer makes the ELF "
			"the recording names (build-id differs): refused", path,
			(unsigned long long)e->offset);
		rc = -ESTALE;
	} else if (!(w = origin_name(dd, e))) {
		rc = -ENOMEM;
	} else {
		*image = elf.data;	/* the session frees it */
		*len = elf.size;
		*what = w;
		elf.data = NULL;
	}
	synth_elf_free(&elf);
out:
	for (int i = 0; i < NR_RECS; i++)
		one_rec_free(&rec[i]);
	free(why.msg);	/* an error synth went past */
	return rc;
}

/* get's shortcut for INJ_OD_NO_ELF: the load's record alone (no line or inline record, no
 * ELF), its symbol and layout as synth_build_symbols would lay them out. */
static int get_symbols(void *ctx, const struct sym_build_id *id, const char *long_name,
		       struct sym_provided *out, const struct jp_log *log)
{
	struct ondemand *od = ctx;
	const struct inj_origin *e;
	struct od_dump *dd;
	struct one_rec rec[NR_RECS] = { 0 };
	struct jd_load_entry le;
	struct synth_input in;
	struct synth_symbol sym;
	struct jp_held why = { 0 };
	int rc = origin_of(od, id, &e, &dd, log);
	(void)long_name;
	if (rc <= 0)
		return rc;
	if (!entry_of(dd, e, 1, &le, rec, log)) {
		rc = -ESTALE;
		goto out;
	}
	synth_input_from_load(&in, &dd->header, &le);
	if (synth_symbol(&in, &sym, &(struct jp_log){ jp_log_hold, &why }) < 0) {
		rc = say_unbuildable(log, dd->path, e->offset, &why);
		goto out;
	}
	*out = (struct sym_provided){ .seg_off = 0, .seg_size = sym.load_size, .seg_vaddr = 0,
				      .sym_start = sym.value, .sym_size = sym.size };
	/* the name lies in the record, freed below: a copy goes to the session */
	out->sym_name = strdup(sym.name);
	out->what = origin_name(dd, e);
	if (!out->sym_name || !out->what) {
		free(out->sym_name);
		free(out->what);
		rc = -ENOMEM;
	}
out:
	for (int i = 0; i < NR_RECS; i++)
		one_rec_free(&rec[i]);
	free(why.msg);	/* an error synth went past */
	return rc;
}

static void fini(void *ctx)
{
	struct ondemand *od = ctx;
	for (size_t k = 0; od->dumps && k < od->o.nr_dumps; k++) {
		struct od_dump *dd = &od->dumps[k];
		for (int i = 0; i < 2; i++)
			free(dd->f[i].all);
		free((char *)dd->f[1].path);
		free(dd->path);
		free(dd->msg);
	}
	free(od->input_dir);
	free(od->dumps);
	jp_hindex_free(&od->by_id);
	inj_origins_free(&od->o);
	free(od);
}

int inj_ondemand_attach(struct sym_session *ss, const struct pd_reader *r, const char *input,
			unsigned flags, const struct jp_log *log)
{
	struct ondemand *od = calloc(1, sizeof(*od));
	if (!od)
		jp_nomem("reading the origins section");
	od->symbols_only = !!(flags & INJ_OD_SYMBOLS_ONLY);
	od->id_flags = (flags & INJ_OD_FORCE) ? INJ_ID_FORCE : 0;
	int rc = inj_origins_read(r, input, &od->o, log);
	if (rc < 0) {
		free(od);
		return rc == -ENOENT ? 0 : rc;
	}
	od->input_dir = inj_input_dir(input);
	od->dumps = calloc(od->o.nr_dumps + 1, sizeof(*od->dumps));
	if (!od->dumps || index_ids(od) < 0)
		jp_nomem("indexing the origins section");	/* not a damaged recording */
	struct sym_provider p = { get, fini, od,
				  od->symbols_only && (flags & INJ_OD_NO_ELF) ? get_symbols : NULL };
	if ((rc = sym_session_set_provider(ss, &p)) < 0) {
		fini(od);
		jp_logf(log, JP_LOG_ERROR, "%s: %s", input, strerror(-rc));
		return rc;
	}
	return 1;
}
