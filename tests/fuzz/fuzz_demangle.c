/* fuzz_demangle.c - libFuzzer target: the Java demangler (sym_java_demangle) on a name of any
 * bytes, as a recorded ELF symbol or a dump's CODE_LOAD name reaches it. Promises: the output
 * is NUL-terminated inside the buffer; a name it does not demangle comes back unchanged; a
 * smaller buffer gets the same answer cut short.
 * fuzz-srcs: recorder/symbols/demangle.c lib/strbuf.c lib/grow.c
 * fuzz-libs: */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/symbols/symbols.h"

#define PROMISE(cond, what) do { if (!(cond)) { \
	fprintf(stderr, "demangler broke a promise: %s\n", what); abort(); } } while (0)

/* Buffers kept between executions (grown, never freed): an allocation per execution was a
 * third of the target's time under ASan. */
static char *buf;
static size_t buf_cap;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* the name up to its first NUL, as a C string; the output sized as sess_demangle's */
	size_t cap = 2 * size + 64, small = size / 3 + 1;
	if (size + 1 + cap + small > buf_cap) {
		buf_cap = size + 1 + cap + small;
		if (!(buf = realloc(buf, buf_cap)))
			abort();
	}
	char *in = buf, *out = buf + size + 1, *cut = out + cap;
	memcpy(in, data, size);
	in[size] = 0;
	int rc = sym_java_demangle(in, out, cap);
	PROMISE(rc == 0 || rc == 1, "a result that is neither 0 nor 1");
	PROMISE(memchr(out, 0, cap), "output not NUL-terminated");
	if (rc == 0)
		PROMISE(!strcmp(out, in), "a name not demangled came back changed");
	PROMISE(sym_java_demangle(in, cut, small) == rc, "another answer for a smaller buffer");
	size_t n = strlen(cut);
	PROMISE(n < small && !strncmp(cut, out, n) && (n == small - 1 || !out[n]),
		"a smaller buffer's output is not the output cut short");
	return 0;
}
