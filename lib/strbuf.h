/* strbuf.h - the one growable string: names and messages formatted whole, however long (a
 * Java method with generics or a C++ template passes any fixed buffer), grown through jp_grow.
 * Out of memory is sticky, as a FILE's error is: the call leaves a string (what fitted) so the
 * caller's printing goes on, and jp_str_free says -ENOMEM, which the owner returns (or, with
 * no error path, passes to jp_nomem): never a cut name with exit status 0. */
#ifndef JITPROF_LIB_STRBUF_H
#define JITPROF_LIB_STRBUF_H

#include <stddef.h>

struct jp_str {			/* zero-initialized = empty */
	char *s;		/* NUL-terminated after any call below; NULL before the first */
	size_t len, cap;	/* cap 0: s is not ours (a constant "") */
	int nomem;		/* a call since the last jp_str_free ran out of memory */
};

/* The string as fmt formats it, replacing what b held; returns b->s, valid until b changes. */
const char *jp_str_printf(struct jp_str *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The same, appended to what b holds. */
const char *jp_str_appendf(struct jp_str *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Room for n more bytes and a terminator after b->len: where they go (b->s + b->len), or NULL
 * out of memory. The caller writes them and their terminator, then adds n to b->len. */
char *jp_str_reserve(struct jp_str *b, size_t n);
/* n bytes of p appended (no terminator needed in p). */
const char *jp_str_append(struct jp_str *b, const char *p, size_t n);
/* b emptied, its memory kept for the next string. */
void jp_str_clear(struct jp_str *b);
/* Frees b and leaves it empty, usable again: 0, or -ENOMEM when a call since the last free ran
 * out of memory (what was made with b is then not the answer). */
int jp_str_free(struct jp_str *b);

#endif
