/* textf.c - printf for messages that quote data (safeio.h): the format is the message's own
 * text and is kept as it is, newlines included, while every %s argument is a name or path read
 * from somewhere and goes through the one escaper (text.c). Escaping the finished message
 * instead cannot tell the two apart: a message of two lines printed as one with \x0a. */
#include "safeio/safeio.h"
#include "safeio/safeio_int.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct sink {
	char *buf;
	size_t len, used;	/* used: the whole message's length, also past len */
};

static void put(void *ctx, const void *p, size_t n)
{
	struct sink *k = ctx;

	if (k->buf && k->used < k->len) {
		size_t room = k->len - k->used;
		memcpy(k->buf + k->used, p, n < room ? n : room);
	}
	k->used += n;
}

static void pad(struct sink *k, long n)
{
	while (n-- > 0)
		put(k, " ", 1);
}

/* s (at most prec bytes of it, prec < 0: all) escaped, in width columns (counted in bytes of
 * the escaped text), on the left with '-'. */
static void put_data(struct sink *k, const char *s, long prec, long width, int left)
{
	char cut[1024];
	struct sink count = { NULL, 0, 0 };

	if (!s)
		s = "(null)";
	if (prec >= 0 && strnlen(s, (size_t)prec) == (size_t)prec && s[prec]) {
		size_t n = (size_t)prec < sizeof(cut) - 1 ? (size_t)prec : sizeof(cut) - 1;
		memcpy(cut, s, n);
		cut[n] = '\0';
		s = cut;
	}
	if (width > 0)
		sio_escape_to(s, SIO_ESC_TEXT, put, &count);
	if (!left)
		pad(k, width - (long)count.used);
	sio_escape_to(s, SIO_ESC_TEXT, put, k);
	if (left)
		pad(k, width - (long)count.used);
}

/* One conversion other than %s, whose spec (stars resolved) is in spec: its argument taken
 * with the type its length modifier and conversion name. -1 for one not taken. */
static int put_other(struct sink *k, const char *spec, const char *lenmod, char conv,
		     va_list *ap)
{
	char out[512];
	int n;

#define AS(type) (n = snprintf(out, sizeof(out), spec, va_arg(*ap, type)))
	if (strchr("di", conv)) {
		if (!strcmp(lenmod, "l")) AS(long);
		else if (!strcmp(lenmod, "ll")) AS(long long);
		else if (!strcmp(lenmod, "j")) AS(intmax_t);
		else if (!strcmp(lenmod, "z")) AS(ptrdiff_t);	/* the signed size_t */
		else if (!strcmp(lenmod, "t")) AS(ptrdiff_t);
		else AS(int);
	} else if (strchr("ouxX", conv)) {
		if (!strcmp(lenmod, "l")) AS(unsigned long);
		else if (!strcmp(lenmod, "ll")) AS(unsigned long long);
		else if (!strcmp(lenmod, "j")) AS(uintmax_t);
		else if (!strcmp(lenmod, "z")) AS(size_t);
		else if (!strcmp(lenmod, "t")) AS(size_t);
		else AS(unsigned);
	} else if (strchr("eEfFgGaA", conv)) {
		if (!strcmp(lenmod, "L")) AS(long double);
		else AS(double);
	} else if (conv == 'c' && !*lenmod) {
		AS(int);
	} else if (conv == 'p') {
		AS(void *);
	} else {
		return -1;
	}
#undef AS
	if (n < 0)
		return -1;
	put(k, out, (size_t)n < sizeof(out) ? (size_t)n : sizeof(out) - 1);
	return 0;
}

/* A number of the format (width, precision) or a '*' argument; the format moved past it. */
static long number(const char **f, va_list *ap)
{
	long v = 0;

	if (**f == '*') {
		(*f)++;
		return va_arg(*ap, int);
	}
	while (**f >= '0' && **f <= '9' && v < 100000)
		v = v * 10 + *(*f)++ - '0';
	return v;
}

int sio_vsnprintf_text(char *buf, size_t len, const char *fmt, va_list ap0)
{
	struct sink k = { buf, len, 0 };
	const char *err = strerror(errno);	/* %m: before a call of ours changes errno */
	va_list ap;
	int rc = 0;

	va_copy(ap, ap0);
	while (*fmt && !rc) {
		const char *pct = strchr(fmt, '%');
		if (!pct) {
			put(&k, fmt, strlen(fmt));
			break;
		}
		put(&k, fmt, (size_t)(pct - fmt));
		const char *f = pct + 1;
		char flags[8] = "", lenmod[3] = "", spec[64];
		size_t nf = strspn(f, "-+ #0");
		if (*f == '%') {
			put(&k, "%", 1);
			fmt = f + 1;
			continue;
		}
		snprintf(flags, sizeof(flags), "%.*s", (int)(nf < 7 ? nf : 7), f);
		f += nf;
		long width = number(&f, &ap), prec = -1;
		int left = strchr(flags, '-') != NULL;
		if (width < 0) {	/* a negative '*' width: on the left */
			left = 1;
			width = -width;
		}
		if (*f == '.') {
			f++;
			prec = number(&f, &ap);
		}
		size_t nl = strspn(f, "hljztL");
		if (nl > 2) {
			rc = -1;
			break;
		}
		memcpy(lenmod, f, nl);
		lenmod[nl] = '\0';
		f += nl;
		char conv = *f;
		if (!conv) {
			rc = -1;
			break;
		}
		fmt = f + 1;
		if (conv == 's' && !nl) {
			put_data(&k, va_arg(ap, const char *), prec, width, left);
		} else if (conv == 'm') {
			put_data(&k, err, prec, width, left);
		} else {
			char w[24] = "", p[24] = "";
			if (width)
				snprintf(w, sizeof(w), "%ld", width);
			if (prec >= 0)
				snprintf(p, sizeof(p), ".%ld", prec);
			snprintf(spec, sizeof(spec), "%%%s%s%s%s%s%c", flags, left &&
				 !strchr(flags, '-') ? "-" : "", w, p, lenmod, conv);
			rc = put_other(&k, spec, lenmod, conv, &ap);
		}
	}
	va_end(ap);
	if (len)
		buf[k.used < len ? k.used : len - 1] = '\0';
	return rc ? -1 : k.used > INT32_MAX ? INT32_MAX : (int)k.used;
}

int sio_snprintf_text(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = sio_vsnprintf_text(buf, len, fmt, ap);
	va_end(ap);
	return n;
}
