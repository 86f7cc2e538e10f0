/* sha1_fail.h - libcrypto's SHA1_Init, SHA1_Update and SHA1_Final interposed for a test binary
 * (its definitions win over libcrypto's for every caller linked into it): the call
 * sha1_fail_mode names fails once on demand, the others go to libcrypto. jitprof hashes with
 * these low-level calls (they allocate nothing; OpenSSL 3's EVP crashed when one of its own
 * allocations failed). Include it in one file of a binary. */
#ifndef JITPROF_TESTS_SHA1_FAIL_H
#define JITPROF_TESTS_SHA1_FAIL_H

#include <criterion/criterion.h>
#include <dlfcn.h>
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>

enum { SHA1_FAIL_NONE, SHA1_FAIL_INIT, SHA1_FAIL_UPDATE, SHA1_FAIL_FINAL };
static int sha1_fail_mode;
static int sha1_failed;		/* the call failed on demand */
static int sha1_calls_after;	/* SHA-1 calls made after that */

#define SHA1_FAIL_REAL(name) \
	static __typeof__(&name) real; \
	if (!real) \
		*(void **)&real = dlsym(RTLD_NEXT, #name); \
	cr_assert(real, "no libcrypto " #name)

#define SHA1_FAIL_ONCE(which) \
	do { \
		sha1_calls_after += sha1_failed; \
		if (sha1_fail_mode == (which) && !sha1_failed) { \
			sha1_failed = 1; \
			return 0; \
		} \
	} while (0)

int SHA1_Init(SHA_CTX *c)
{
	SHA1_FAIL_REAL(SHA1_Init);
	SHA1_FAIL_ONCE(SHA1_FAIL_INIT);
	return real(c);
}

int SHA1_Update(SHA_CTX *c, const void *data, size_t len)
{
	SHA1_FAIL_REAL(SHA1_Update);
	SHA1_FAIL_ONCE(SHA1_FAIL_UPDATE);
	return real(c, data, len);
}

int SHA1_Final(unsigned char *md, SHA_CTX *c)
{
	SHA1_FAIL_REAL(SHA1_Final);
	SHA1_FAIL_ONCE(SHA1_FAIL_FINAL);
	return real(md, c);
}

/* The next SHA-1 call of kind mode fails (SHA1_FAIL_NONE: none). */
static inline void sha1_fail_arm(int mode)
{
	sha1_fail_mode = mode;
	sha1_failed = sha1_calls_after = 0;
}

#endif
