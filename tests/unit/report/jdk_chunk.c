/* jdk_chunk.c - see jdk_chunk.h. Class ids and pool keys are this file's own; what matters
 * is the shape: the reader follows the metadata, not fixed ids. */
#include "tests/unit/report/jdk_chunk.h"

#include <criterion/criterion.h>
#include <string.h>

const char *const jdk_method_names[2] = { "demo/Hot loop (I)I", "demo/Hot inner ()V" };

static const char *const reasons[] = { "null_check", "class_check", "unstable_if" };
static const char *const actions[] = { "none", "maybe_recompile", "reinterpret",
				       "make_not_entrant" };
#define NR(a) (sizeof(a) / sizeof((a)[0]))

/* Pool keys: Symbols 1.., the Class 20, Methods 30.., reasons 40.., actions 50.. */
static const char *const symbols[] = { "demo/Hot", "loop", "(I)I", "inner", "()V" };
enum { SYM_KEY = 1, CLASS_KEY = 20, METHOD_KEY = 30, REASON_KEY = 40, ACTION_KEY = 50 };

/* The metadata's string table, filled as the element tree is written. */
struct strtab {
	const char *s[64];
	size_t n;
};

static size_t sx(struct strtab *t, const char *s)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->s[i], s))
			return i;
	cr_assert_lt(t->n, NR(t->s));
	t->s[t->n] = s;
	return t->n++;
}

/* An element with attributes (name, value pairs) and nchildren children to follow. */
static void element(struct bbuf *m, struct strtab *t, const char *name, const char *const *attrs,
		    size_t nattrs, size_t nchildren)
{
	bb_varint(m, sx(t, name));
	bb_varint(m, nattrs);
	for (size_t i = 0; i < nattrs; i++) {
		bb_varint(m, sx(t, attrs[2 * i]));
		bb_varint(m, sx(t, attrs[2 * i + 1]));
	}
	bb_varint(m, nchildren);
}

static void field(struct bbuf *m, struct strtab *t, const char *name, const char *cls, int cp)
{
	const char *const a[] = { "name", name, "class", cls, "constantPool", "true" };
	element(m, t, "field", a, cp ? 3 : 2, 0);
}

static void class(struct bbuf *m, struct strtab *t, const char *name, const char *id,
		  size_t nfields)
{
	element(m, t, "class", (const char *const[]){ "name", name, "id", id }, 2, nfields);
}

static void classes(struct bbuf *m, struct strtab *t)
{
	element(m, t, "root", NULL, 0, 1);
	element(m, t, "metadata", NULL, 0, 11);
	class(m, t, "long", "20", 0);
	class(m, t, "int", "21", 0);
	class(m, t, "java.lang.String", "22", 0);
	class(m, t, "boolean", "23", 0);
	class(m, t, "jdk.types.Symbol", "30", 1);
	field(m, t, "string", "22", 0);
	class(m, t, "java.lang.Class", "31", 1);
	field(m, t, "name", "30", 1);
	class(m, t, "jdk.types.Method", "32", 3);
	field(m, t, "type", "31", 1);
	field(m, t, "name", "30", 1);
	field(m, t, "descriptor", "30", 1);
	class(m, t, "jdk.types.DeoptimizationReason", "33", 1);
	field(m, t, "reason", "22", 0);
	class(m, t, "jdk.types.DeoptimizationAction", "34", 1);
	field(m, t, "action", "22", 0);
	class(m, t, "jdk.Compilation", "100", 7);
	field(m, t, "startTime", "20", 0);
	field(m, t, "duration", "20", 0);
	field(m, t, "method", "32", 1);
	field(m, t, "compileId", "21", 0);
	field(m, t, "compileLevel", "21", 0);
	field(m, t, "succeded", "23", 0);
	field(m, t, "isOsr", "23", 0);
	class(m, t, "jdk.Deoptimization", "101", 6);
	field(m, t, "startTime", "20", 0);
	field(m, t, "compileId", "21", 0);
	field(m, t, "method", "32", 1);
	field(m, t, "bci", "21", 0);
	field(m, t, "reason", "33", 1);
	field(m, t, "action", "34", 1);
}

static void metadata(struct bbuf *out)
{
	static struct bbuf tree, m;
	struct strtab t = { .n = 0 };
	tree.n = m.n = 0;
	classes(&tree, &t);
	bb_varint(&m, 0);	/* type: metadata; start, duration, id */
	bb_varint(&m, 0);
	bb_varint(&m, 0);
	bb_varint(&m, 1);
	bb_varint(&m, t.n);
	for (size_t i = 0; i < t.n; i++)
		bb_utf8(&m, t.s[i]);
	bb_bytes(&m, tree.p, tree.n);
	bb_event(out, &m);
}

/* Every pool the events refer to. */
static void checkpoint(struct bbuf *out)
{
	static struct bbuf c;
	c.n = 0;
	bb_varint(&c, 1);	/* type: checkpoint; start, duration, delta (none), flags */
	bb_varint(&c, 0);
	bb_varint(&c, 0);
	bb_varint(&c, 0);
	bb_u8(&c, 0);
	bb_varint(&c, 5);	/* pools */
	bb_varint(&c, 30);	/* Symbols */
	bb_varint(&c, NR(symbols));
	for (size_t i = 0; i < NR(symbols); i++) {
		bb_varint(&c, SYM_KEY + i);
		bb_utf8(&c, symbols[i]);
	}
	bb_varint(&c, 31);	/* the Class: demo/Hot */
	bb_varint(&c, 1);
	bb_varint(&c, CLASS_KEY);
	bb_varint(&c, SYM_KEY + 0);
	bb_varint(&c, 32);	/* Methods: {type, name, descriptor} */
	bb_varint(&c, 2);
	for (int i = 0; i < 2; i++) {
		bb_varint(&c, METHOD_KEY + i);
		bb_varint(&c, CLASS_KEY);
		bb_varint(&c, SYM_KEY + 1 + 2 * i);
		bb_varint(&c, SYM_KEY + 2 + 2 * i);
	}
	bb_varint(&c, 33);
	bb_varint(&c, NR(reasons));
	for (size_t i = 0; i < NR(reasons); i++) {
		bb_varint(&c, REASON_KEY + i);
		bb_utf8(&c, reasons[i]);
	}
	bb_varint(&c, 34);
	bb_varint(&c, NR(actions));
	for (size_t i = 0; i < NR(actions); i++) {
		bb_varint(&c, ACTION_KEY + i);
		bb_utf8(&c, actions[i]);
	}
	bb_event(out, &c);
}

static size_t key_of(const char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return i;
	cr_assert_fail("%s: not in the chunk's pools", name);
	return 0;
}

static void event(struct bbuf *out, const struct jdk_ev *e)
{
	static struct bbuf b;
	b.n = 0;
	bb_varint(&b, e->deopt ? 101 : 100);
	bb_varint(&b, e->t);
	if (!e->deopt) {
		bb_varint(&b, e->dur);
		bb_varint(&b, METHOD_KEY + (uint64_t)e->method);
		bb_varint(&b, (uint32_t)e->compile_id);
		bb_varint(&b, (uint32_t)e->level);
		bb_u8(&b, 1);	/* succeded */
		bb_u8(&b, (uint8_t)e->osr);
	} else {
		bb_varint(&b, (uint32_t)e->compile_id);
		bb_varint(&b, METHOD_KEY + (uint64_t)e->method);
		bb_varint(&b, (uint32_t)e->bci);
		bb_varint(&b, REASON_KEY + key_of(reasons, NR(reasons), e->reason));
		bb_varint(&b, ACTION_KEY + key_of(actions, NR(actions), e->action));
	}
	bb_event(out, &b);
}

void build_jdk_chunk(struct bbuf *out, const struct jdk_ev *evs, size_t n)
{
	bb_chunk_begin(out, JDK_CHUNK_START_NS, 60000000000ull, 0, 1000000000);
	for (size_t i = 0; i < n; i++)
		event(out, &evs[i]);
	size_t cp = out->n;
	checkpoint(out);
	size_t meta = out->n;
	metadata(out);
	cr_assert_lt(out->n, sizeof(out->p), "the chunk outgrew its buffer");
	bb_chunk_end(out, cp, meta);
}
