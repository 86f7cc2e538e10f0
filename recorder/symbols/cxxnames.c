/* cxxnames.c - symbol names as perf report shows them: C++ through the C++ runtime's
 * demangler, cut down to what libiberty prints without DMGL_PARAMS; Java signatures through
 * sym_java_demangle (demangle.c). */
#include "recorder/symbols/symbols_int.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

/* C++ names through the C++ runtime's own demangler, loaded on first use so the tool does
 * not link libstdc++; without it C++ names stay mangled. */
typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);

static cxa_demangle_fn cxa_demangle(void)
{
	static int tried;
	static cxa_demangle_fn fn;
	if (!tried) {
		tried = 1;
		void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
		if (h)
			*(void **)&fn = dlsym(h, "__cxa_demangle");
	}
	return fn;
}

/* The operator an "operator" keyword at op names ("<<", "()", "new"...): its length after
 * the keyword, so brackets in it are not taken for template or parameter brackets. */
static size_t operator_len(const char *op)
{
	static const char *const ops[] = { "<<=", ">>=", "<=>", "->*", "<<", ">>", "<=", ">=",
					   "==", "!=", "&&", "||", "++", "--", "+=", "-=", "*=",
					   "/=", "%=", "&=", "|=", "^=", "->", "()", "[]", "<", ">",
					   "+", "-", "*", "/", "%", "^", "&", "|", "~", "!", "=", "," };
	for (size_t i = 0; i < sizeof(ops) / sizeof(*ops); i++)
		if (!strncmp(op, ops[i], strlen(ops[i])))
			return strlen(ops[i]);
	return 0;
}

/* perf report prints C++ names without parameters, return types or clone suffixes
 * (libiberty without DMGL_PARAMS): "void ns::f<int>(int) const [clone .part.0]" ->
 * "ns::f<int>", "std::ostream& std::operator<< <char>(...)" -> "std::operator<< <char>".
 * Special names ("non-virtual thunk to f()", "typeinfo for ...") are left whole, as libiberty
 * prints them.
 * Edits d in place. */
static void cxx_strip_params(char *d)
{
	/* libiberty prints a special name's inner function with its parameters */
	static const char *const special[] = {
		"non-virtual thunk to ", "virtual thunk to ", "covariant return thunk to ",
		"transaction clone for ", "non-transaction clone for ", "TLS init function for ",
		"TLS wrapper function for ", "hidden alias for ", "guard variable for ",
		"reference temporary #", "construction vtable for ", "vtable for ", "VTT for ",
		"typeinfo for ", "typeinfo name for ", "typeinfo fn for ", "java Class for ",
	};
	for (size_t k = 0; k < sizeof(special) / sizeof(*special); k++)
		if (!strncmp(d, special[k], strlen(special[k])))
			return;
	size_t n = strlen(d);
	while (n && d[n - 1] == ']') {
		char *clone = strstr(d, " [clone ");
		if (!clone)
			break;
		n = (size_t)(clone - d);
		d[n] = 0;
	}
	/* trailing cv and ref qualifiers of a member function ("() const &") */
	static const char *const quals[] = { " const", " volatile", " &&", " &", " noexcept" };
	size_t m = n;
	for (int again = 1; again;) {
		again = 0;
		for (size_t q = 0; q < sizeof(quals) / sizeof(*quals); q++) {
			size_t ql = strlen(quals[q]);
			if (m > ql && !memcmp(d + m - ql, quals[q], ql)) {
				m -= ql;
				again = 1;
			}
		}
	}
	if (m < n && d[m - 1] == ')') {
		n = m;
		d[n] = 0;
	}
	if (!n || d[n - 1] != ')')
		return;
	/* the function name's operator, whose brackets count for nothing */
	size_t op_lo = SIZE_MAX, op_hi = 0;
	for (char *op = d; (op = strstr(op, "operator")); op += 8) {
		op_lo = (size_t)(op - d);
		op_hi = op_lo + 8 + operator_len(op + 8);
	}
	/* back to the '(' that opens the parameter list */
	int depth = 0;
	size_t i = n;
	while (i-- > 0) {
		if (i >= op_lo && i < op_hi) {
			i = op_lo;
			continue;
		}
		char c = d[i];
		if (c == ')' || c == '>' || c == '}' || c == ']')
			depth++;
		else if ((c == '(' || c == '<' || c == '{' || c == '[') && --depth == 0)
			break;
	}
	if (depth || i == 0 || i == SIZE_MAX || d[i] != '(')
		return;
	d[i] = 0;
	/* a template function's return type: the text before the last top-level space */
	if (d[i - 1] != '>')
		return;
	depth = 0;
	for (size_t k = i; k-- > 0;) {
		if (k >= op_lo && k < op_hi) {
			k = op_lo;
			continue;
		}
		char c = d[k];
		if (c == ')' || c == '>' || c == '}' || c == ']')
			depth++;
		else if (c == '(' || c == '<' || c == '{' || c == '[')
			depth--;
		else if (c == ' ' && !depth && !(k >= 8 && !memcmp(d + k - 8, "operator", 8)) &&
			 k != op_hi) {
			memmove(d, d + k + 1, i - k);
			return;
		}
	}
}

const char *sess_demangle(struct sym_session *s, const char *raw)
{
	if (s->o.no_demangle || !raw)
		return raw;
	if (raw[0] == '_' && raw[1] == 'Z') {
		cxa_demangle_fn fn = cxa_demangle();
		int st = -1;
		char *d = fn ? fn(raw, NULL, NULL, &st) : NULL;
		if (d && st == 0)
			cxx_strip_params(d);
		const char *r = (d && st == 0) ? sess_intern(s, d) : raw;
		free(d);
		return r ? r : raw;
	}
	if (raw[0] != 'L' && !strchr(raw, '('))
		return raw;
	size_t cap = strlen(raw) * 2 + 64;
	char *buf = malloc(cap);
	if (!buf)
		return raw;
	const char *r = raw;
	if (sym_java_demangle(raw, buf, cap) == 1)
		r = sess_intern(s, buf);
	free(buf);
	return r ? r : raw;
}
