/* jfr_meta.c - the metadata event of the JFR export: the types its events and constant pools
 * use (jdk.ExecutionSample, the stack trace and frame structs, and the pools of threads,
 * methods, classes, packages, symbols, frame types and thread states), with the names,
 * fields and annotations HotSpot gives them so that `jfr`, JDK Mission Control and IntelliJ
 * read them as their own. The encoding: a table of strings, then a tree of elements whose
 * names and attributes refer to it by index. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "recorder/report_views/jfr_int.h"

#define F_CPOOL 1u	/* a constant pool reference */
#define F_ARRAY 2u
#define F_TICKS 4u	/* @Timestamp("TICKS") */

struct field { const char *name; enum rp_jfr_type type; unsigned flags; const char *label; };
struct type {
	const char *name;
	enum rp_jfr_type id;
	const char *super;		/* NULL, "jdk.jfr.Event" or an annotation's */
	int simple;			/* a one-field type the parser makes its value */
	const char *label, *cat[2];	/* @Label, @Category */
	const struct field *f;
	size_t nf;
};

#define FIELDS(...) (const struct field[]){ __VA_ARGS__ }, \
	sizeof((const struct field[]){ __VA_ARGS__ }) / sizeof(struct field)
#define ANNOTATION "java.lang.annotation.Annotation"

static const struct type types[] = {
	{ "boolean", RP_JFR_T_BOOLEAN, 0, 0, 0, { 0 }, 0, 0 },
	{ "int", RP_JFR_T_INT, 0, 0, 0, { 0 }, 0, 0 },
	{ "long", RP_JFR_T_LONG, 0, 0, 0, { 0 }, 0, 0 },
	{ "java.lang.String", RP_JFR_T_STRING, 0, 0, 0, { 0 }, 0, 0 },
	{ "java.lang.Class", RP_JFR_T_CLASS, 0, 0, "Java Class", { 0 },
	  FIELDS({ "classLoader", RP_JFR_T_CLASS_LOADER, F_CPOOL, "Class Loader" },
		 { "name", RP_JFR_T_SYMBOL, F_CPOOL, "Name" },
		 { "package", RP_JFR_T_PACKAGE, F_CPOOL, "Package" },
		 { "modifiers", RP_JFR_T_INT, 0, "Access Modifiers" }) },
	{ "java.lang.Thread", RP_JFR_T_THREAD, 0, 0, "Thread", { 0 },
	  FIELDS({ "osName", RP_JFR_T_STRING, 0, "OS Thread Name" },
		 { "osThreadId", RP_JFR_T_LONG, 0, "OS Thread Id" },
		 { "javaName", RP_JFR_T_STRING, 0, "Java Thread Name" },
		 { "javaThreadId", RP_JFR_T_LONG, 0, "Java Thread Id" }) },
	{ "jdk.types.ClassLoader", RP_JFR_T_CLASS_LOADER, 0, 0, "Java Class Loader", { 0 },
	  FIELDS({ "type", RP_JFR_T_CLASS, F_CPOOL, "Type" },
		 { "name", RP_JFR_T_SYMBOL, F_CPOOL, "Name" }) },
	{ "jdk.types.FrameType", RP_JFR_T_FRAME_TYPE, 0, 1, "Frame type", { 0 },
	  FIELDS({ "description", RP_JFR_T_STRING, 0, "Description" }) },
	{ "jdk.types.ThreadState", RP_JFR_T_THREAD_STATE, 0, 1, "Java Thread State", { 0 },
	  FIELDS({ "name", RP_JFR_T_STRING, 0, "Name" }) },
	{ "jdk.types.StackTrace", RP_JFR_T_STACK_TRACE, 0, 0, "Stacktrace", { 0 },
	  FIELDS({ "truncated", RP_JFR_T_BOOLEAN, 0, "Truncated" },
		 { "frames", RP_JFR_T_STACK_FRAME, F_ARRAY, "Stack Frames" }) },
	{ "jdk.types.StackFrame", RP_JFR_T_STACK_FRAME, 0, 0, 0, { 0 },
	  FIELDS({ "method", RP_JFR_T_METHOD, F_CPOOL, "Java Method" },
		 { "lineNumber", RP_JFR_T_INT, 0, "Line Number" },
		 { "bytecodeIndex", RP_JFR_T_INT, 0, "Bytecode Index" },
		 { "type", RP_JFR_T_FRAME_TYPE, F_CPOOL, "Frame Type" }) },
	{ "jdk.types.Method", RP_JFR_T_METHOD, 0, 0, "Java Method", { 0 },
	  FIELDS({ "type", RP_JFR_T_CLASS, F_CPOOL, "Type" },
		 { "name", RP_JFR_T_SYMBOL, F_CPOOL, "Name" },
		 { "descriptor", RP_JFR_T_SYMBOL, F_CPOOL, "Descriptor" },
		 { "modifiers", RP_JFR_T_INT, 0, "Access Modifiers" },
		 { "hidden", RP_JFR_T_BOOLEAN, 0, "Hidden" }) },
	{ "jdk.types.Package", RP_JFR_T_PACKAGE, 0, 0, "Package", { 0 },
	  FIELDS({ "name", RP_JFR_T_SYMBOL, F_CPOOL, "Name" }) },
	{ "jdk.types.Symbol", RP_JFR_T_SYMBOL, 0, 1, "Symbol", { 0 },
	  FIELDS({ "string", RP_JFR_T_STRING, 0, "String" }) },
	{ "jdk.ExecutionSample", RP_JFR_T_EXECUTION_SAMPLE, "jdk.jfr.Event", 0,
	  "Method Profiling Sample", { "Java Virtual Machine", "Profiling" },
	  FIELDS({ "startTime", RP_JFR_T_LONG, F_TICKS, "Start Time" },
		 { "sampledThread", RP_JFR_T_THREAD, F_CPOOL, "Thread" },
		 { "stackTrace", RP_JFR_T_STACK_TRACE, F_CPOOL, "Stack Trace" },
		 { "state", RP_JFR_T_THREAD_STATE, F_CPOOL, "Thread State" }) },
	{ "jdk.jfr.Label", RP_JFR_T_LABEL, ANNOTATION, 0, 0, { 0 },
	  FIELDS({ "value", RP_JFR_T_STRING, 0, 0 }) },
	{ "jdk.jfr.Category", RP_JFR_T_CATEGORY, ANNOTATION, 0, 0, { 0 },
	  FIELDS({ "value", RP_JFR_T_STRING, F_ARRAY, 0 }) },
	{ "jdk.jfr.ContentType", RP_JFR_T_CONTENT_TYPE, ANNOTATION, 0, 0, { 0 }, 0, 0 },
	{ "jdk.jfr.Timestamp", RP_JFR_T_TIMESTAMP, ANNOTATION, 0, "Timestamp", { 0 },
	  FIELDS({ "value", RP_JFR_T_STRING, 0, 0 }) },
};

static const char *const frame_types[RP_JFR_FT__END] = {
	[RP_JFR_FT_INTERPRETED] = "Interpreted", [RP_JFR_FT_JIT] = "JIT compiled",
	[RP_JFR_FT_INLINED] = "Inlined", [RP_JFR_FT_NATIVE] = "Native",
};

const char *rp_jfr_frame_type_name(enum rp_jfr_frame_type t)
{
	return t > 0 && t < RP_JFR_FT__END ? frame_types[t] : NULL;
}

/* The string table, filled as the tree is written (a few hundred strings: a linear search). */
#define MAX_STRS 256
struct meta {
	struct rp_jfr_buf tree;
	const char *str[MAX_STRS];
	char nums[64][8];	/* type ids as text, each once: the table points at them */
	size_t nstr, nnums;
};

static size_t sidx(struct meta *m, const char *s)
{
	for (size_t i = 0; i < m->nstr; i++)
		if (!strcmp(m->str[i], s))
			return i;
	if (m->nstr == MAX_STRS) {	/* the types above have about 120 strings */
		m->tree.err = -E2BIG;
		return 0;
	}
	m->str[m->nstr] = s;
	return m->nstr++;
}

static const char *num(struct meta *m, unsigned v)
{
	char t[8];
	snprintf(t, sizeof(t), "%u", v);
	for (size_t i = 0; i < m->nnums; i++)
		if (!strcmp(m->nums[i], t))
			return m->nums[i];
	if (m->nnums == sizeof(m->nums) / sizeof(m->nums[0])) {
		m->tree.err = -E2BIG;
		return "0";
	}
	return memcpy(m->nums[m->nnums++], t, sizeof(t));
}

/* An element's head: its name, its attributes as key/value pairs (kv, n of them), its number
 * of children (written next by the caller). */
static void head(struct meta *m, const char *name, const char *const *kv, size_t n,
		 size_t children)
{
	rp_jfr_varint(&m->tree, sidx(m, name));
	rp_jfr_varint(&m->tree, n);
	for (size_t i = 0; i < n; i++) {
		rp_jfr_varint(&m->tree, sidx(m, kv[2 * i]));
		rp_jfr_varint(&m->tree, sidx(m, kv[2 * i + 1]));
	}
	rp_jfr_varint(&m->tree, children);
}

static void annotation(struct meta *m, enum rp_jfr_type id, const char *key, const char *value)
{
	const char *kv[] = { "class", num(m, id), key, value };
	head(m, "annotation", kv, value ? 2 : 1, 0);
}

static void field(struct meta *m, const struct field *f)
{
	const char *kv[8] = { "name", f->name, "class", num(m, f->type) };
	size_t n = 2;
	if (f->flags & F_CPOOL)
		kv[2 * n] = "constantPool", kv[2 * n + 1] = "true", n++;
	if (f->flags & F_ARRAY)
		kv[2 * n] = "dimension", kv[2 * n + 1] = "1", n++;
	head(m, "field", kv, n, !!f->label + !!(f->flags & F_TICKS));
	if (f->label)
		annotation(m, RP_JFR_T_LABEL, "value", f->label);
	if (f->flags & F_TICKS)
		annotation(m, RP_JFR_T_TIMESTAMP, "value", "TICKS");
}

static void type(struct meta *m, const struct type *t)
{
	const char *kv[6] = { "name", t->name, "id", num(m, t->id) };
	size_t n = 2;
	if (t->simple)
		kv[2 * n] = "simpleType", kv[2 * n + 1] = "true", n++;
	else if (t->super)
		kv[2 * n] = "superType", kv[2 * n + 1] = t->super, n++;
	int content = t->id == RP_JFR_T_TIMESTAMP;	/* a content type: formats its field */
	head(m, "class", kv, n, t->nf + !!t->label + !!t->cat[0] + content);
	if (t->label)
		annotation(m, RP_JFR_T_LABEL, "value", t->label);
	if (content)
		annotation(m, RP_JFR_T_CONTENT_TYPE, NULL, NULL);
	if (t->cat[0]) {
		const char *ckv[] = { "class", num(m, RP_JFR_T_CATEGORY), "value-0", t->cat[0],
				      "value-1", t->cat[1] };
		head(m, "annotation", ckv, t->cat[1] ? 3 : 2, 0);
	}
	for (size_t i = 0; i < t->nf; i++)
		field(m, &t->f[i]);
}

void rp_jfr_metadata(struct rp_jfr_buf *out, uint64_t start_ticks)
{
	struct meta m = { .tree = { 0 } };
	size_t nt = sizeof(types) / sizeof(types[0]);
	head(&m, "root", NULL, 0, 2);
	head(&m, "metadata", NULL, 0, nt);
	for (size_t i = 0; i < nt; i++)
		type(&m, &types[i]);
	const char *region[] = { "locale", "en_US", "gmtOffset", "0" };
	head(&m, "region", region, 2, 0);

	struct rp_jfr_buf ev = { 0 };
	rp_jfr_varint(&ev, 0);		/* the metadata event's type */
	rp_jfr_varint(&ev, start_ticks);
	rp_jfr_varint(&ev, 0);		/* duration */
	rp_jfr_varint(&ev, 1);		/* the metadata's id: the only one in the chunk */
	rp_jfr_varint(&ev, m.nstr);
	for (size_t i = 0; i < m.nstr; i++)
		rp_jfr_str(&ev, m.str[i]);
	rp_jfr_put(&ev, m.tree.p, m.tree.n);
	if (m.tree.err && !ev.err)
		ev.err = m.tree.err;
	rp_jfr_event(out, &ev);
	rp_jfr_buf_free(&ev);
	rp_jfr_buf_free(&m.tree);
}
