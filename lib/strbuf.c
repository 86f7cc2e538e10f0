/* strbuf.c - see strbuf.h. */
#include "lib/strbuf.h"

#include "lib/grow.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for need more bytes and a terminator after len: 0, or -1 with b->nomem set and b->s
 * still a string. */
static int reserve(struct jp_str *b, size_t need)
{
	if (!b->cap)
		b->s = NULL;	/* the constant "" is not grown */
	if (need < (size_t)-1 - b->len - 1 && !jp_grow(&b->s, &b->cap, b->len + need + 1, 1, 64))
		return 0;
	b->nomem = 1;
	if (!b->cap) {
		b->s = (char *)"";
		b->len = 0;
	}
	return -1;
}

static const char *vappendf(struct jp_str *b, const char *fmt, va_list ap)
{
	va_list again;
	va_copy(again, ap);
	if (!reserve(b, 0)) {
		int n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
		if (n < 0)			/* ENOMEM, or EOVERFLOW: over INT_MAX bytes */
			b->nomem = 1;
		else if ((size_t)n < b->cap - b->len)
			b->len += (size_t)n;
		else if (!reserve(b, (size_t)n))
			b->len += (size_t)vsnprintf(b->s + b->len, b->cap - b->len, fmt, again);
		b->s[b->len] = 0;	/* what fitted of a failed one is not kept */
	}
	va_end(again);
	return b->s;
}

const char *jp_str_printf(struct jp_str *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	jp_str_clear(b);
	const char *r = vappendf(b, fmt, ap);
	va_end(ap);
	return r;
}

const char *jp_str_appendf(struct jp_str *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	const char *r = vappendf(b, fmt, ap);
	va_end(ap);
	return r;
}

char *jp_str_reserve(struct jp_str *b, size_t n)
{
	return reserve(b, n) ? NULL : b->s + b->len;
}

const char *jp_str_append(struct jp_str *b, const char *p, size_t n)
{
	if (!reserve(b, n)) {
		memcpy(b->s + b->len, p, n);
		b->len += n;
		b->s[b->len] = 0;
	}
	return b->s;
}

void jp_str_clear(struct jp_str *b)
{
	b->len = 0;
	if (b->cap)
		b->s[0] = 0;	/* (the constant "" is read-only, and empty) */
}

int jp_str_free(struct jp_str *b)
{
	int rc = b->nomem ? -ENOMEM : 0;
	if (b->cap)
		free(b->s);
	*b = (struct jp_str){ 0 };
	return rc;
}
