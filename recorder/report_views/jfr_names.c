/* jfr_names.c - a jitted frame's name as JFR's method: class, name and descriptor. The agent
 * writes "Lpkg/Cls;name(args)ret" (the load's identity keeps it); the report shows the
 * demangled "pkg.Cls.name(type, ...)" (inlined frames only have that), whose parameter types
 * are turned back into a descriptor. */
#include <stdio.h>
#include <string.h>

#include "recorder/report_views/jfr_int.h"

/* n bytes of s into buf (size len) with '.' made '/': 0, or -1 when it does not fit. */
static int copy_internal(char *buf, size_t len, const char *s, size_t n)
{
	if (n >= len)
		return -1;
	for (size_t i = 0; i < n; i++)
		buf[i] = s[i] == '.' ? '/' : s[i];
	buf[n] = '\0';
	return 0;
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
	return !copy_internal(m->cls, sizeof(m->cls), sym + 1, (size_t)(semi - sym - 1)) &&
	       !copy_internal(m->name, sizeof(m->name), semi + 1, (size_t)(par - semi - 1)) &&
	       (size_t)snprintf(m->desc, sizeof(m->desc), "%s", par) < sizeof(m->desc);
}

/* One parameter type as the demangler writes it ("int", "java.lang.String[][]") as a
 * descriptor, appended at *off. 0, or -1 when it does not fit or is no type. */
static int put_type(char *d, size_t len, size_t *off, const char *t, size_t n)
{
	static const struct { const char *name; char code; } prim[] = {
		{ "boolean", 'Z' }, { "byte", 'B' }, { "char", 'C' }, { "short", 'S' },
		{ "int", 'I' }, { "long", 'J' }, { "float", 'F' }, { "double", 'D' },
	};
	while (n >= 2 && t[n - 2] == '[' && t[n - 1] == ']') {
		if (*off + 1 >= len)
			return -1;
		d[(*off)++] = '[';
		n -= 2;
	}
	if (!java_ident(t, n) || memchr(t, '[', n) || memchr(t, ']', n))
		return -1;
	for (size_t i = 0; i < sizeof(prim) / sizeof(prim[0]); i++)
		if (strlen(prim[i].name) == n && !memcmp(prim[i].name, t, n)) {
			if (*off + 1 >= len)
				return -1;
			d[(*off)++] = prim[i].code;
			d[*off] = '\0';
			return 0;
		}
	if (*off + n + 3 > len)
		return -1;
	d[(*off)++] = 'L';
	copy_internal(d + *off, len - *off, t, n);
	*off += n;
	d[(*off)++] = ';';
	d[*off] = '\0';
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
	if (copy_internal(m->cls, sizeof(m->cls), sym, (size_t)(dot - sym)) ||
	    copy_internal(m->name, sizeof(m->name), dot + 1, (size_t)(par - dot - 1)))
		return 0;
	size_t off = 0;
	m->desc[off++] = '(';
	const char *p = par + 1, *end = sym + len - 1;
	for (int more = p < end; more;) {	/* after a comma, a parameter is due */
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *e = comma ? comma : end;
		if (put_type(m->desc, sizeof(m->desc), &off, p, (size_t)(e - p)))
			return 0;
		more = comma != NULL;
		p = comma ? comma + 1 + (comma[1] == ' ') : end;
	}
	if (off + 3 > sizeof(m->desc))
		return 0;
	memcpy(m->desc + off, ")V", 3);	/* the return type is not in the name */
	return 1;
}

int rp_jfr_split_java(const char *sym, struct rp_jfr_method *m)
{
	if (!sym || !*sym)
		return 0;
	return split_raw(sym, m) || split_demangled(sym, m);
}
