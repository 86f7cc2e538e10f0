/* meta.c - a chunk's metadata event: a string table, then a tree of elements (name,
 * attributes as string-table indexes, children). The reader keeps what decoding needs: every
 * `class` element (id, name) with its `field` children (name, type id, constantPool,
 * dimension), in declaration order, which is the order of the bytes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "recorder/jfr/jfr_int.h"

struct meta_walk {
	const struct jfr_file *f;
	struct jfr_chunk *ch;
	struct jfr_cur c;
	int nomem;
};

static const char *str_at(const struct jfr_chunk *ch, uint64_t i)
{
	return i < ch->nstrings && ch->strings[i] ? ch->strings[i] : "";
}

static enum jfr_prim prim_of(const char *name)
{
	static const struct {
		const char *name;
		enum jfr_prim prim;
	} t[] = {
		{ "boolean", JFR_P_BOOLEAN }, { "byte", JFR_P_BYTE }, { "char", JFR_P_CHAR },
		{ "short", JFR_P_SHORT }, { "int", JFR_P_INT }, { "long", JFR_P_LONG },
		{ "float", JFR_P_FLOAT }, { "double", JFR_P_DOUBLE },
		{ "java.lang.String", JFR_P_STRING },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(name, t[i].name))
			return t[i].prim;
	return JFR_P_NONE;
}

static uint64_t num(const char *s)
{
	char *e;
	unsigned long long v = strtoull(s, &e, 10);
	return *s && !*e ? v : UINT64_MAX;
}

static int class_eq(const void *key, uint32_t idx, const void *ctx)
{
	const struct jfr_chunk *ch = ctx;
	return ch->classes[idx].id == *(const uint64_t *)key;
}

const struct jfr_class *jfr_class_by_id(const struct jfr_chunk *ch, uint64_t id)
{
	int64_t i = jp_hindex_find((struct jp_hindex *)&ch->class_ix,
				   jp_hindex_hash(&id, sizeof(id)), &id, class_eq, ch);
	return i < 0 ? NULL : &ch->classes[i];
}

const struct jfr_class *jfr_class_by_name(const struct jfr_chunk *ch, const char *name)
{
	for (size_t i = 0; i < ch->nclasses; i++)
		if (!strcmp(ch->classes[i].name, name))
			return &ch->classes[i];
	return NULL;
}

/* One element and its subtree. kind: 0 anywhere, 1 inside a class (fields are kept). */
static int element(struct meta_walk *w, struct jfr_class *in, int depth)
{
	uint64_t name, nattr, nchild, k, v;
	const char *id = NULL, *cname = NULL, *ftype = NULL, *cp = NULL, *dim = NULL;

	if (depth > JFR_MAX_DEPTH)
		return jfr_damaged(w->f, w->c.pos, "metadata nested too deep"), -EINVAL;
	if (jfr_varint(&w->c, &name) || jfr_varint(&w->c, &nattr) ||
	    nattr > w->c.end - w->c.pos)
		return -EINVAL;
	for (uint64_t i = 0; i < nattr; i++) {
		if (jfr_varint(&w->c, &k) || jfr_varint(&w->c, &v))
			return -EINVAL;
		const char *key = str_at(w->ch, k), *val = str_at(w->ch, v);
		if (!strcmp(key, "id"))
			id = val;
		else if (!strcmp(key, "name"))
			cname = val;
		else if (!strcmp(key, "class"))
			ftype = val;
		else if (!strcmp(key, "constantPool"))
			cp = val;
		else if (!strcmp(key, "dimension"))
			dim = val;
	}
	const char *ename = str_at(w->ch, name);
	struct jfr_class *cls = NULL;
	if (!in && !strcmp(ename, "class") && id && cname) {
		struct jfr_chunk *ch = w->ch;
		uint64_t cid = num(id);
		if (cid == UINT64_MAX || jfr_class_by_id(ch, cid))
			return jfr_damaged(w->f, w->c.pos, "a class without a number, or twice"),
			       -EINVAL;
		if (JP_GROW_FOR(ch->classes, ch->cap_classes, ch->nclasses) ||
		    jp_hindex_add(&ch->class_ix, jp_hindex_hash(&cid, sizeof(cid)), ch->nclasses))
			return w->nomem = 1, -ENOMEM;
		cls = &ch->classes[ch->nclasses++];
		*cls = (struct jfr_class){ .id = cid, .name = cname, .prim = prim_of(cname) };
		if (!strcmp(cname, "java.lang.String"))
			ch->string_type = cid;
	} else if (in && !strcmp(ename, "field") && cname && ftype) {
		struct jfr_field fl = { .name = cname, .type = num(ftype),
					.cp = cp && !strcmp(cp, "true"),
					.array = dim && strcmp(dim, "0") };
		if (JP_GROW_FOR(in->fields, in->cap_fields, in->nfields))
			return w->nomem = 1, -ENOMEM;
		in->fields[in->nfields++] = fl;
	}
	if (jfr_varint(&w->c, &nchild) || nchild > w->c.end - w->c.pos)
		return -EINVAL;
	/* cls may move when a child class grows the array: children of a class are fields. */
	size_t self = cls ? (size_t)(cls - w->ch->classes) : SIZE_MAX;
	for (uint64_t i = 0; i < nchild; i++) {
		struct jfr_class *parent = self != SIZE_MAX ? &w->ch->classes[self] : in;
		int rc = element(w, parent, depth + 1);
		if (rc)
			return rc;
	}
	return 0;
}

int jfr_parse_metadata(const struct jfr_file *f, struct jfr_chunk *ch, size_t pos, size_t end)
{
	struct meta_walk w = { .f = f, .ch = ch, .c = { .p = f->p, .pos = pos, .end = end } };
	uint64_t skip, n;

	/* the event's size and type were read by the caller; then start, duration, id */
	for (int i = 0; i < 3; i++)
		jfr_varint(&w.c, &skip);
	if (jfr_varint(&w.c, &n) || n > end - w.c.pos)
		goto bad;
	if (!(ch->strings = calloc(n ? n : 1, sizeof(*ch->strings))))
		return -ENOMEM;
	ch->nstrings = n;
	for (uint64_t i = 0; i < n; i++) {
		int rc = jfr_string_dup(&w.c, &ch->strings[i]);
		if (rc == -ENOMEM)
			return rc;
		if (rc)
			goto bad;
	}
	int rc = element(&w, NULL, 0);
	if (w.nomem)
		return -ENOMEM;
	if (rc || w.c.bad)
		goto bad;
	for (size_t i = 0; i < ch->nclasses; i++)	/* the fields' types all declared */
		for (size_t j = 0; j < ch->classes[i].nfields; j++)
			if (!jfr_class_by_id(ch, ch->classes[i].fields[j].type))
				return jfr_damaged(f, pos, "metadata: a field of an undeclared type"),
				       -EINVAL;
	return 0;
bad:
	jfr_damaged(f, w.c.pos, "metadata event cut short or malformed");
	return -EINVAL;
}

void jfr_chunk_free(struct jfr_chunk *ch)
{
	for (size_t i = 0; i < ch->nstrings; i++)
		free(ch->strings[i]);
	free(ch->strings);
	for (size_t i = 0; i < ch->nclasses; i++)
		free(ch->classes[i].fields);
	free(ch->classes);
	jp_hindex_free(&ch->class_ix);
	free(ch->pool);
	jp_hindex_free(&ch->pool_ix);
	memset(ch, 0, sizeof(*ch));
}
