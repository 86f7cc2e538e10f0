/* options.c - parser for the agent's option string. It sees untrusted text typed by users, so
 * every item is bounded and reported precisely; nothing here touches JVMTI or allocates. */
#include "agent/options.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

void agent_options_default(struct agent_options *o)
{
	memset(o, 0, sizeof(*o));
	o->clock = JD_CLOCK_MONOTONIC;
	o->lines = 1;
	o->inline_stacks = 1;
	o->unload = 1;
	o->stubs = 1;
	o->methods = 1;
	o->flush_ms = AGENT_FLUSH_MS_DEFAULT;
}

/* A printable copy of user text for a message: at most 64 bytes, control characters and
 * non-ASCII bytes shown as '?', so the warning stays one readable line. */
static const char *shown(char *buf, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n && i < 64; i++)
		buf[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	buf[i] = '\0';
	return buf;
}

/* Compares the counted string [s, s+n) with a NUL-terminated literal. */
static int eq(const char *s, size_t n, const char *lit)
{
	return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

static int parse_bool(const char *v, size_t n, int *out)
{
	if (eq(v, n, "on") || eq(v, n, "1") || eq(v, n, "yes") || eq(v, n, "true")) {
		*out = 1;
		return 0;
	}
	if (eq(v, n, "off") || eq(v, n, "0") || eq(v, n, "no") || eq(v, n, "false")) {
		*out = 0;
		return 0;
	}
	return -EINVAL;
}

static int parse_clock(const char *v, size_t n, enum jd_clock *out)
{
	if (eq(v, n, "mono") || eq(v, n, "monotonic"))
		*out = JD_CLOCK_MONOTONIC;
	else if (eq(v, n, "raw") || eq(v, n, "monotonic_raw"))
		*out = JD_CLOCK_MONOTONIC_RAW;
	else if (eq(v, n, "tsc"))
		*out = JD_CLOCK_ARCH;
	else
		return -EINVAL;
	return 0;
}

static int parse_ms(const char *v, size_t n, unsigned *out)
{
	unsigned long x = 0;

	if (n == 0 || n > 10)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -EINVAL;
		x = x * 10 + (unsigned long)(v[i] - '0');
	}
	if (x > AGENT_FLUSH_MS_MAX)
		return -EINVAL;
	*out = (unsigned)x;
	return 0;
}

/* A decimal number up to max (at most 13 digits). */
static int parse_num(const char *v, size_t n, unsigned long long max, unsigned long long *out)
{
	unsigned long long x = 0;

	if (n == 0 || n > 13)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -EINVAL;
		x = x * 10 + (unsigned long long)(v[i] - '0');
	}
	if (x > max)
		return -EINVAL;
	*out = x;
	return 0;
}

static const char *const known[] = { "dir", "clock", "lines", "inline", "unload", "stubs",
				     "methods", "jfr", "flush", "verbose", "quiet", "stop", "alloc",
				     "lock" };

/* Flags: a key alone means on ("verbose"), and "key=off" works too. */
static int *flag_of(struct agent_options *o, const char *key, size_t kn)
{
	return eq(key, kn, "verbose") ? &o->verbose : eq(key, kn, "quiet") ? &o->quiet :
	       eq(key, kn, "stop") ? &o->stop : NULL;
}

/* The key ends at the first '=' or ':': jcmd drops "=value" from an unquoted argument, so
 * "dir:/x" is the spelling that survives it. */
static const char *separator(const char *item, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (item[i] == '=' || item[i] == ':')
			return item + i;
	return NULL;
}

/* One "key[=value]" item of n bytes. */
static int parse_item(struct agent_options *o, const char *item, size_t n, char *err,
		      size_t errlen)
{
	const char *eqs = separator(item, n);
	size_t kn = eqs ? (size_t)(eqs - item) : n, i;
	int *flag;
	const char *v = eqs ? eqs + 1 : NULL;
	size_t vn = eqs ? n - kn - 1 : 0;
	char key[65], val[65];
	int rc = 0;

	for (i = 0; i < sizeof(known) / sizeof(known[0]) && !eq(item, kn, known[i]); i++)
		;
	if (i == sizeof(known) / sizeof(known[0])) {
		snprintf(err, errlen, "unknown option '%s' (known: dir= clock= lines= inline= "
			 "unload= stubs= methods= jfr= flush= alloc[=BYTES] lock[=NS] verbose "
			 "quiet stop)", shown(key, item, kn));
		return -EINVAL;
	}
	unsigned long long num = 0;
	if (!v && eq(item, kn, "alloc")) {	/* alone: the JVM's default interval */
		o->alloc = AGENT_ALLOC_DEFAULT;
	} else if (!v && eq(item, kn, "lock")) {	/* alone: every contended enter */
		o->lock = 1;
		o->lock_ns = 0;
	} else if (eq(item, kn, "alloc")) {
		if (!(rc = parse_num(v, vn, AGENT_ALLOC_MAX, &num)))
			o->alloc = (unsigned)num;
	} else if (eq(item, kn, "lock")) {
		if (!(rc = parse_num(v, vn, AGENT_LOCK_NS_MAX, &num))) {
			o->lock = 1;
			o->lock_ns = num;
		}
	} else if ((flag = flag_of(o, item, kn))) {
		if (v)
			rc = parse_bool(v, vn, flag);
		else
			*flag = 1;
	} else if (!v) {
		snprintf(err, errlen, "option '%s' needs a value (jcmd drops '=value' from an "
			 "unquoted argument: write %s:VALUE, or quote twice: '\"%s=VALUE\"')",
			 shown(key, item, kn), key, key);
		return -EINVAL;
	} else if (eq(item, kn, "dir")) {
		if (vn == 0 || vn >= sizeof(o->dir) || memchr(v, '\0', vn)) {
			snprintf(err, errlen, "option dir: empty or longer than %zu bytes",
				 sizeof(o->dir) - 1);
			return -EINVAL;
		}
		memcpy(o->dir, v, vn);
		o->dir[vn] = '\0';
	} else if (eq(item, kn, "clock")) {
		rc = parse_clock(v, vn, &o->clock);
	} else if (eq(item, kn, "lines")) {
		rc = parse_bool(v, vn, &o->lines);
	} else if (eq(item, kn, "inline")) {
		rc = parse_bool(v, vn, &o->inline_stacks);
	} else if (eq(item, kn, "unload")) {
		rc = parse_bool(v, vn, &o->unload);
	} else if (eq(item, kn, "stubs")) {
		rc = parse_bool(v, vn, &o->stubs);
	} else if (eq(item, kn, "methods")) {
		rc = parse_bool(v, vn, &o->methods);
	} else if (eq(item, kn, "jfr")) {
		rc = parse_bool(v, vn, &o->jfr);
	} else {
		rc = parse_ms(v, vn, &o->flush_ms);
	}
	if (rc)
		snprintf(err, errlen, "bad value '%s' for option %s (%s)", shown(val, v, vn),
			 shown(key, item, kn),
			 eq(item, kn, "clock") ? "mono, raw or tsc" :
			 eq(item, kn, "flush") ? "milliseconds, 0 to 3600000" :
			 eq(item, kn, "alloc") ? "bytes, 0 (off) to 1073741824" :
			 eq(item, kn, "lock") ? "nanoseconds waited, 0 to 3600000000000" :
						"on or off");
	return rc;
}

int agent_options_parse(struct agent_options *o, const char *s, char *err, size_t errlen)
{
	char dummy[1];

	if (!err || errlen == 0) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = '\0';
	agent_options_default(o);
	if (!s)
		return 0;
	while (*s) {
		const char *end = strchr(s, ',');
		size_t n = end ? (size_t)(end - s) : strlen(s);

		if (n > 0) {
			int rc = parse_item(o, s, n, err, errlen);
			if (rc)
				return rc;
		}
		s += n;
		if (*s == ',')
			s++;
	}
	return 0;
}
