/* jfr_names.c - a jitted frame's name as JFR's method: class, name and descriptor. The agent
 * writes "Lpkg/Cls;name(args)ret" (the load's identity keeps it); the report shows the
 * demangled "pkg.Cls.name(type, ...)" (inlined frames only have that), whose parameter types
 * are turned back into a descriptor. */
#include <stdio.h>
#include <string.h>

#include "recorder/report_views/jfr_int.h"

/* n bytes of s appended to buf with '.' made '/'. */
static void copy_internal(struct jp_str *buf, const char *s, size_t n)
{
	size_t at = buf->len;
	jp_str_append(buf, s, n);
	for (char *p = buf->s + at; *p; p++)
		if (*p == '.')
			*p = '/';
}

/* cls and name from the n1 bytes at c and the n2 at nm (internal form), desc emptied. */
static void start_method(struct rp_jfr_method *m, const char *c, size_t n1, const char *nm,
			 size_t n2)
{
	jp_str_clear(&m->cls);
	jp_str_clear(&m->name);
	jp_str_clear(&m->desc);
	copy_internal(&m->cls, c, n1);
	copy_internal(&m->name, nm, n2);
}

/* Neither empty nor holding what no Java name has but C++ and runtime names do. */
static int java_ident(const char *s, size_t n)
{
	return n && !memchr(s, ' ', n) && !memchr(s, ':', n) && !memchr(s, '(', n) &&
	       !memchr(s, ';', n) && !memchr(s, ',', n);
}

/* "Lpkg/Cls;name(args)ret". */
static int split_raw(const char *sym, struct rp_jfr_method *m)
{
	const char *semi = strchr(sym, ';'), *par = strchr(sym, '(');
	if (sym[0] != 'L' || !semi || !par || par < semi || !strchr(par, ')'))
		return 0;
	if (!java_ident(sym + 1, (size_t)(semi - sym - 1)) ||
	    !java_ident(semi + 1, (size_t)(par - semi - 1)))
		return 0;
	start_method(m, sym + 1, (size_t)(semi - sym - 1), semi + 1, (size_t)(par - semi - 1));
	jp_str_printf(&m->desc, "%s", par);
	return 1;
}

/* One parameter type as the demangler writes it ("int", "java.lang.String[][]") as a
 * descriptor, appended to d. 0, or -1 when it is no type. */
static int put_type(struct jp_str *d, const char *t, size_t n)
{
	static const struct { const char *name; char code; } prim[] = {
		{ "boolean", 'Z' }, { "byte", 'B' }, { "char", 'C' }, { "short", 'S' },
		{ "int", 'I' }, { "long", 'J' }, { "float", 'F' }, { "double", 'D' },
	};
	size_t dims = 0;
	while (n >= 2 && t[n - 2] == '[' && t[n - 1] == ']') {
		dims++;
		n -= 2;
	}
	if (!java_ident(t, n) || memchr(t, '[', n) || memchr(t, ']', n))
		return -1;
	while (dims--)
		jp_str_append(d, "[", 1);
	for (size_t i = 0; i < sizeof(prim) / sizeof(prim[0]); i++)
		if (strlen(prim[i].name) == n && !memcmp(prim[i].name, t, n)) {
			jp_str_append(d, &prim[i].code, 1);
			return 0;
		}
	jp_str_append(d, "L", 1);
	copy_internal(d, t, n);
	jp_str_append(d, ";", 1);
	return 0;
}

/* "pkg.Cls.name(type, ...)". */
static int split_demangled(const char *sym, struct rp_jfr_method *m)
{
	const char *par = strchr(sym, '(');
	size_t len = strlen(sym);
	if (!par || sym[len - 1] != ')')
		return 0;
	const char *dot = NULL;
	for (const char *p = sym; p < par; p++)
		if (*p == '.')
			dot = p;
	if (!dot || !java_ident(sym, (size_t)(dot - sym)) ||
	    !java_ident(dot + 1, (size_t)(par - dot - 1)))
		return 0;
	start_method(m, sym, (size_t)(dot - sym), dot + 1, (size_t)(par - dot - 1));
	jp_str_append(&m->desc, "(", 1);
	const char *p = par + 1, *end = sym + len - 1;
	for (int more = p < end; more;) {	/* after a comma, a parameter is due */
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *e = comma ? comma : end;
		if (put_type(&m->desc, p, (size_t)(e - p)))
			return 0;
		more = comma != NULL;
		p = comma ? comma + 1 + (comma[1] == ' ') : end;
	}
	jp_str_append(&m->desc, ")V", 2);	/* the return type is not in the name */
	return 1;
}

void rp_jfr_method_free(struct rp_jfr_method *m)
{
	jp_str_free(&m->cls);
	jp_str_free(&m->name);
	jp_str_free(&m->desc);
}

int rp_jfr_split_java(const char *sym, struct rp_jfr_method *m)
{
	if (!sym || !*sym)
		return 0;
	return split_raw(sym, m) || split_demangled(sym, m);
}
