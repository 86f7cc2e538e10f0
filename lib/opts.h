/* opts.h - the one rule for every public options struct (libbpf's OPTS_VALID idea, our code):
 *   - the first member is `size_t sz`, set by the caller to sizeof(struct ...) it was built
 *     with; required: 0 is refused (it once meant "this header's size", and a caller built
 *     against an older, smaller struct then had bytes past its struct read). JP_OPTS sets it;
 *   - an older caller passes a smaller struct: the fields it does not have get their defaults
 *     (every default is the zero value);
 *   - a newer caller passes a larger struct: the bytes we do not know must be zero, otherwise
 *     the call is refused with -EINVAL instead of silently ignoring what was asked.
 * Use: `struct x_opts o; if (JP_OPTS_TAKE(&o, opts)) return -EINVAL;` and read the local
 * copy. Header-only. */
#ifndef JITPROF_LIB_OPTS_H
#define JITPROF_LIB_OPTS_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Declares options struct `type` named name with its sz set and the given fields, the rest
 * their zero defaults: JP_OPTS(inj_opts, o, .input = "perf.data"); */
#define JP_OPTS(type, name, ...) struct type name = { .sz = sizeof(struct type), __VA_ARGS__ }

/* The size the caller declared (0 when opts is NULL or its sz is 0: refused by the checks). */
static inline size_t jp_opts_sz(const void *opts, size_t known)
{
	size_t sz;

	(void)known;
	if (!opts)
		return 0;
	memcpy(&sz, opts, sizeof(sz));
	return sz;
}

/* known = sizeof our struct (not the end of its last field, so a field another branch adds
 * is known at once; the price: a newer caller's field in our tail padding goes unchecked, so
 * keep the tail padding-free). true when opts is NULL, not larger than known, or zero beyond
 * known. */
/* Not inlined: at a call site with a literal struct, gcc's bounds warning cannot see that the
 * tail loop runs only when the caller's struct is larger than ours. */
static __attribute__((noinline, unused)) bool jp_opts_valid(const void *opts, size_t known)
{
	size_t sz = jp_opts_sz(opts, known);

	if (opts && sz < sizeof(size_t))
		return false;	/* no size given, or one that cannot even hold sz: a caller bug */
	if (sz <= known)
		return true;
	for (size_t i = known; i < sz; i++)
		if (((const uint8_t *)opts)[i])
			return false;
	return true;
}
#define JP_OPTS_VALID(opts, type) jp_opts_valid((opts), sizeof(type))

/* Copies what the caller has of the struct into dst (dst_size bytes, zeroed first), so
 * fields it does not know read as their defaults; dst->sz becomes dst_size. */
static inline void jp_opts_copy(void *dst, size_t dst_size, const void *opts)
{
	size_t n = jp_opts_sz(opts, dst_size);

	memset(dst, 0, dst_size);
	if (opts)
		memcpy(dst, opts, n < dst_size ? n : dst_size);
	memcpy(dst, &dst_size, sizeof(dst_size));
}

/* Both steps: -EINVAL for unknown non-zero bytes, else 0 with the defaulted copy in dst. */
#define JP_OPTS_TAKE(dst, opts) \
	(JP_OPTS_VALID((opts), __typeof__(*(dst))) ? \
	 (jp_opts_copy((dst), sizeof(*(dst)), (opts)), 0) : -EINVAL)

#endif
