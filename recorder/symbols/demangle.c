/* demangle.c - Java method names as Java users read them. JVMTI agents name code loads as
 * class signature + method name + method signature ("LPkg/Cls;m([LPkg/Cls;I)D"); this parses
 * the JVM descriptor grammar (and generic signatures) properly, where perf 6.1's
 * character-by-character rewrite misplaces array brackets. */
#include "recorder/symbols/symbols.h"

#include <string.h>

struct out {
	char *buf;
	size_t cap, len;
	unsigned depth;		/* type arguments open around the type being read */
};

static void put(struct out *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++, o->len++)
		if (o->len + 1 < o->cap)
			o->buf[o->len] = s[i];
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

/* A binary class name segment: '/' becomes '.'; stops at ';', '<', '.' (inner generic). */
static const char *class_name(const char *p, struct out *o)
{
	const char *start = p;
	for (; *p && *p != ';' && *p != '<' && *p != '.'; p++)
		put(o, *p == '/' ? "." : p, 1);
	return p == start ? NULL : p;
}

static const char *type_sig(const char *p, struct out *o);

/* Each '<' is one level of recursion (type_sig -> type_args -> type_sig): a name is a
 * recording's bytes, and "L" + "A<L" x 250,000 overflowed the stack. Deeper than the cap is
 * malformed: the name is then shown as it was recorded. */
static const char *type_args(const char *p, struct out *o)
{
	/* p at '<' */
	if (o->depth >= SYM_JAVA_MAX_NESTING)
		return NULL;
	o->depth++;
	puts_(o, "<");
	p++;
	for (int first = 1; *p != '>'; first = 0) {
		if (!*p)
			return NULL;
		if (!first)
			puts_(o, ", ");
		if (*p == '*') {
			puts_(o, "?");
			p++;
			continue;
		}
		if (*p == '+' || *p == '-') {
			puts_(o, *p == '+' ? "? extends " : "? super ");
			p++;
		}
		if (!(p = type_sig(p, o)))
			return NULL;
	}
	puts_(o, ">");
	o->depth--;
	return p + 1;
}

/* One field type; returns the position after it or NULL on a malformed descriptor. */
static const char *type_sig(const char *p, struct out *o)
{
	static const char prim[] = "BCDFIJSZV";
	static const char *const names[] = { "byte", "char", "double", "float", "int",
					     "long", "short", "boolean", "void" };
	const char *hit = *p ? strchr(prim, *p) : NULL;
	if (hit) {
		puts_(o, names[hit - prim]);
		return p + 1;
	}
	switch (*p) {
	case '[': {
		unsigned dims = 0;
		while (*p == '[')
			p++, dims++;
		if (!(p = type_sig(p, o)))
			return NULL;
		while (dims--)
			puts_(o, "[]");
		return p;
	}
	case 'T':
		p = class_name(p + 1, o);
		return p && *p == ';' ? p + 1 : NULL;
	case 'L':
		p++;
		for (;;) {
			if (!(p = class_name(p, o)))
				return NULL;
			if (*p == '<' && !(p = type_args(p, o)))
				return NULL;
			if (*p == ';')
				return p + 1;
			if (*p != '.')
				return NULL;
			puts_(o, ".");	/* Outer<T>.Inner: the generic form of Outer$Inner */
			p++;
		}
	default:
		return NULL;
	}
}

/* <T:Ljava/lang/Object;U::Ljava/lang/Comparable<TU;>;> : validated and left out, as in a
 * stack trace. */
static const char *skip_type_params(const char *p)
{
	char scratch[1];
	struct out sink = { scratch, 0, 0, 0 };
	p++;
	while (*p != '>') {
		const char *colon = strchr(p, ':');
		if (!colon || colon == p)
			return NULL;
		p = colon;
		while (*p == ':') {
			p++;
			if (*p == 'L' || *p == 'T' || *p == '[') {
				if (!(p = type_sig(p, &sink)))
					return NULL;
			}
		}
	}
	return p + 1;
}

/* "(params)ret[^throws]" -> "(a, b)"; the return type is dropped, as perf report does. */
static const char *method_sig(const char *p, struct out *o)
{
	char scratch[1];
	struct out sink = { scratch, 0, 0, 0 };
	if (*p == '<' && !(p = skip_type_params(p)))
		return NULL;
	if (*p != '(')
		return NULL;
	puts_(o, "(");
	p++;
	for (int first = 1; *p != ')'; first = 0) {
		if (!first)
			puts_(o, ", ");
		if (!(p = type_sig(p, o)))
			return NULL;
	}
	puts_(o, ")");
	p++;
	if (!(p = type_sig(p, &sink)))
		return NULL;
	while (*p == '^')
		if (!(p = type_sig(p + 1, &sink)))
			return NULL;
	return p;
}

/* in as it is; *full its length. */
static int copy_raw(const char *in, char *out, size_t outlen, size_t *full)
{
	*full = strlen(in);
	if (outlen) {
		size_t n = *full < outlen - 1 ? *full : outlen - 1;
		memcpy(out, in, n);
		out[n] = 0;
	}
	return 0;
}

/* Method names are Java identifiers, lambda$main$0, or <init>/<clinit>; a '<' after a name
 * opens the generic type parameters of the signature. */
static const char *method_name(const char *p, struct out *o)
{
	const char *start = p;
	if (!strncmp(p, "<init>", 6) || !strncmp(p, "<clinit>", 8))
		p = strchr(p, '>') + 1;
	else
		while (*p && *p != '(' && *p != '<' && *p != ';' && *p != '/' && *p != ' ')
			p++;
	put(o, start, (size_t)(p - start));
	return p == start ? NULL : p;
}

/* sym_java_demangle, *full the length of the whole name (what outlen must pass). */
static int demangle(const char *in, char *out, size_t outlen, size_t *full)
{
	struct out o = { out, outlen, 0, 0 };
	const char *p = in;
	if (!in)
		return copy_raw("", out, outlen, full);
	if (in[0] == 'L' && strchr(in, ';')) {
		/* agent form: class signature, then method name, then descriptor */
		if (!(p = type_sig(p, &o)))
			return copy_raw(in, out, outlen, full);
	} else {
		/* "pkg/Cls.m(sig)", "pkg.Cls::m(sig)": the class ends at the last separator
		 * before the signature */
		const char *paren = strchr(in, '(');
		const char *sep = NULL;
		size_t seplen = 0;
		if (!paren || strchr(in, ' '))
			return copy_raw(in, out, outlen, full);
		for (const char *q = in; q < paren; q++) {
			if (*q == '.') {
				sep = q;
				seplen = 1;
			} else if (q[0] == ':' && q[1] == ':') {
				sep = q++;
				seplen = 2;
			}
		}
		if (!sep)
			return copy_raw(in, out, outlen, full);
		for (const char *q = in; q < sep; q++)
			put(&o, *q == '/' ? "." : q, 1);
		p = sep + seplen;
	}
	puts_(&o, ".");
	if (!(p = method_name(p, &o)))
		return copy_raw(in, out, outlen, full);
	if (*p && (!(p = method_sig(p, &o)) || *p))
		return copy_raw(in, out, outlen, full);
	if (outlen)
		out[o.len < outlen ? o.len : outlen - 1] = 0;
	*full = o.len;
	return 1;
}

int sym_java_demangle(const char *in, char *out, size_t outlen)
{
	size_t full;
	return demangle(in, out, outlen, &full);
}

int sym_java_demangle_str(const char *in, struct jp_str *out)
{
	size_t need;
	jp_str_clear(out);
	demangle(in, NULL, 0, &need);	/* measured first: a name expands (I -> "int, ") */
	char *p = jp_str_reserve(out, need);
	if (!p)
		return 0;
	int rc = demangle(in, p, need + 1, &need);
	out->len += need;
	return rc;
}
