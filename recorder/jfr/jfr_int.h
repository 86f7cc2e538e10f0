/* jfr_int.h - the reader's own parts (bytes.c, meta.c, chunk.c, value.c): a bounded cursor
 * over the file's bytes, the types a chunk's metadata declares, its constant-pool index and
 * its events. Not for other modules. */
#ifndef JITPROF_JFR_INT_H
#define JITPROF_JFR_INT_H

#include <stddef.h>
#include <stdint.h>

#include "lib/hindex.h"
#include "recorder/jfr/jfr.h"

#define JFR_HEADER_SIZE 68

/* How a type's value is encoded when it is not a class with fields. */
enum jfr_prim {
	JFR_P_NONE,	/* a class: its fields, in order */
	JFR_P_BOOLEAN, JFR_P_BYTE, JFR_P_CHAR, JFR_P_SHORT, JFR_P_INT, JFR_P_LONG,
	JFR_P_FLOAT, JFR_P_DOUBLE, JFR_P_STRING,
};

struct jfr_field {
	const char *name;
	uint64_t type;
	uint8_t cp;	/* a constant-pool key, not the value */
	uint8_t array;	/* dimension 1: a count, then the values */
};

struct jfr_class {
	uint64_t id;
	const char *name;
	enum jfr_prim prim;
	struct jfr_field *fields;
	size_t nfields, cap_fields;
};

struct jfr_pool_entry {
	uint64_t type, key;
	size_t off;	/* the value's first byte in the file */
	size_t end;	/* the end of the checkpoint event holding it */
};

struct jfr_chunk {
	size_t start, end;		/* file offsets */
	uint64_t start_ns, start_ticks, ticks_per_s;
	char **strings;			/* the metadata's string table, decoded */
	size_t nstrings;
	struct jfr_class *classes;
	size_t nclasses, cap_classes;
	struct jp_hindex class_ix;	/* by id */
	uint64_t string_type;		/* java.lang.String's id (string pool refs), or 0 */
	struct jfr_pool_entry *pool;
	size_t npool, cap_pool;
	struct jp_hindex pool_ix;	/* by (type, key) */
};

struct jfr_ev_ref {
	uint32_t chunk;
	uint64_t type;
	size_t off, end;	/* the fields, after the type id; the event's end */
};

struct jfr_file {
	const uint8_t *p;
	size_t size;
	const char *name;
	const struct jp_log *log;
	struct jfr_chunk *chunks;
	size_t nchunks, cap_chunks;
	struct jfr_ev_ref *ev;
	size_t nev, cap_ev;
	int truncated;
};

struct jfr_event {
	const struct jfr_file *f;
	const struct jfr_chunk *c;
	const struct jfr_class *k;
	size_t off, end;
};

/* A bounded read position: every read checks pos against end; the first failure sets bad
 * and later reads fail too, so a parser checks once per step. */
struct jfr_cur {
	const uint8_t *p;
	size_t pos, end;
	int bad;
};

int jfr_u8(struct jfr_cur *c, uint8_t *v);
int jfr_varint(struct jfr_cur *c, uint64_t *v);
int jfr_be(struct jfr_cur *c, size_t n, uint64_t *v);
/* A string value with its encoding byte. Into buf (len bytes, NUL-terminated, cut) when buf
 * is not NULL; *full gets the decoded length; *pool_key the key when it is a reference to
 * the string pool (encoding 2), else UINT64_MAX. 0, -ENOENT for null, -EINVAL damaged. */
int jfr_string(struct jfr_cur *c, char *buf, size_t len, size_t *full, uint64_t *pool_key);
/* The same into a new malloc'd string (NULL for a null string: *out NULL, 0). */
int jfr_string_dup(struct jfr_cur *c, char **out);

/* meta.c: parses the metadata event at [pos, end) into ch's classes. */
int jfr_parse_metadata(const struct jfr_file *f, struct jfr_chunk *ch, size_t pos, size_t end);
const struct jfr_class *jfr_class_by_id(const struct jfr_chunk *ch, uint64_t id);
const struct jfr_class *jfr_class_by_name(const struct jfr_chunk *ch, const char *name);
void jfr_chunk_free(struct jfr_chunk *ch);

/* value.c: skips one value of type (a field's cp/array flags apply); depth counts nesting. */
int jfr_skip_value(const struct jfr_chunk *ch, struct jfr_cur *c, uint64_t type, int cp,
		   int array, int depth);
/* The pool entry (type, key), or NULL. */
const struct jfr_pool_entry *jfr_pool_find(const struct jfr_chunk *ch, uint64_t type,
					   uint64_t key);

/* chunk.c: says a damaged file's problem at offset off through the file's log. */
void jfr_damaged(const struct jfr_file *f, size_t off, const char *what);

#endif
