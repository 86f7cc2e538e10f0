/* sha1_fail.h - the SHA-1 functions jitprof hashes with (lib/sha1.h, libcrypto's SHA1_Init,
 * SHA1_Update and SHA1_Final loaded on first use) replaced for a test binary: the call
 * sha1_fail_arm names fails once on demand, the others go to libcrypto. Include it in one file
 * of a binary. */
#ifndef JITPROF_TESTS_SHA1_FAIL_H
#define JITPROF_TESTS_SHA1_FAIL_H

#include <criterion/criterion.h>

#include "lib/sha1.h"

enum { SHA1_FAIL_NONE, SHA1_FAIL_INIT, SHA1_FAIL_UPDATE, SHA1_FAIL_FINAL };
static int sha1_fail_mode;
static int sha1_failed;		/* the call failed on demand */
static int sha1_calls_after;	/* SHA-1 calls made after that */
static struct jp_sha1 sha1_real;

#define SHA1_FAIL_ONCE(which) \
	do { \
		sha1_calls_after += sha1_failed; \
		if (sha1_fail_mode == (which) && !sha1_failed) { \
			sha1_failed = 1; \
			return 0; \
		} \
	} while (0)

static int sha1_fail_init(struct jp_sha1_ctx *c)
{
	SHA1_FAIL_ONCE(SHA1_FAIL_INIT);
	return sha1_real.init(c);
}

static int sha1_fail_update(struct jp_sha1_ctx *c, const void *data, size_t len)
{
	SHA1_FAIL_ONCE(SHA1_FAIL_UPDATE);
	return sha1_real.update(c, data, len);
}

static int sha1_fail_final(unsigned char md[JP_SHA1_DIGEST], struct jp_sha1_ctx *c)
{
	SHA1_FAIL_ONCE(SHA1_FAIL_FINAL);
	return sha1_real.final(md, c);
}

/* The next SHA-1 call of kind mode fails (SHA1_FAIL_NONE: none). */
static inline void sha1_fail_arm(int mode)
{
	static const struct jp_sha1 failing = { sha1_fail_init, sha1_fail_update,
						sha1_fail_final };
	if (!sha1_real.init) {
		const char *why = NULL;
		jp_sha1_replace(NULL);
		const struct jp_sha1 *real = jp_sha1(&why);
		cr_assert(real, "libcrypto's SHA-1: %s", why);
		sha1_real = *real;
	}
	jp_sha1_replace(&failing);
	sha1_fail_mode = mode;
	sha1_failed = sha1_calls_after = 0;
}

#endif
