/* cxxnames.c - symbol names as perf report shows them: C++ through libiberty's demangler
 * called as perf calls it (cplus_demangle without DMGL_PARAMS: no parameters, return types or
 * clone suffixes, and names the C++ runtime's __cxa_demangle refuses, such as some of V8's
 * .isra clones, still come out); Java signatures through sym_java_demangle (demangle.c). */
#include "recorder/symbols/symbols_int.h"

#include <libiberty/demangle.h>
#include <stdlib.h>
#include <string.h>

#include "lib/nomem.h"

const char *sess_demangle(struct sym_session *s, const char *raw)
{
	if (s->o.no_demangle || !raw)
		return raw;
	if (raw[0] == '_' && raw[1] == 'Z') {
		char *d = cplus_demangle(raw, DMGL_ANSI);
		const char *r = d ? sess_intern(s, d) : raw;
		free(d);
		return r ? r : raw;
	}
	if (raw[0] != 'L' && !strchr(raw, '('))
		return raw;
	struct jp_str buf = { 0 };
	const char *r = raw;
	if (sym_java_demangle_str(raw, &buf) == 1)
		r = sess_intern(s, buf.s);
	if (jp_str_free(&buf))
		jp_nomem("a Java name demangled");	/* raw instead would be another name */
	return r ? r : raw;
}
