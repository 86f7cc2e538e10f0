/* evp_fail.h - libcrypto's EVP_DigestInit_ex, EVP_DigestUpdate and EVP_DigestFinal_ex
 * interposed for a test binary (its definitions win over libcrypto's for every caller linked
 * into it): the call evp_fail_mode names fails once on demand, the others go to libcrypto.
 * Include it in one file of a binary. */
#ifndef JITPROF_TESTS_EVP_FAIL_H
#define JITPROF_TESTS_EVP_FAIL_H

#include <criterion/criterion.h>
#include <dlfcn.h>
#include <openssl/evp.h>

enum { EVP_FAIL_NONE, EVP_FAIL_INIT, EVP_FAIL_UPDATE, EVP_FAIL_FINAL };
static int evp_fail_mode;
static int evp_failed;		/* the call failed on demand */
static int evp_calls_after;	/* EVP calls made after that */

#define EVP_FAIL_REAL(name) \
	static __typeof__(&name) real; \
	if (!real) \
		*(void **)&real = dlsym(RTLD_NEXT, #name); \
	cr_assert(real, "no libcrypto " #name)

#define EVP_FAIL_ONCE(which) \
	do { \
		evp_calls_after += evp_failed; \
		if (evp_fail_mode == (which) && !evp_failed) { \
			evp_failed = 1; \
			return 0; \
		} \
	} while (0)

int EVP_DigestInit_ex(EVP_MD_CTX *ctx, const EVP_MD *type, ENGINE *impl)
{
	EVP_FAIL_REAL(EVP_DigestInit_ex);
	EVP_FAIL_ONCE(EVP_FAIL_INIT);
	return real(ctx, type, impl);
}

int EVP_DigestUpdate(EVP_MD_CTX *ctx, const void *d, size_t cnt)
{
	EVP_FAIL_REAL(EVP_DigestUpdate);
	EVP_FAIL_ONCE(EVP_FAIL_UPDATE);
	return real(ctx, d, cnt);
}

int EVP_DigestFinal_ex(EVP_MD_CTX *ctx, unsigned char *md, unsigned int *s)
{
	EVP_FAIL_REAL(EVP_DigestFinal_ex);
	EVP_FAIL_ONCE(EVP_FAIL_FINAL);
	return real(ctx, md, s);
}

/* The next EVP call of kind mode fails (EVP_FAIL_NONE: none). */
static inline void evp_fail_arm(int mode)
{
	evp_fail_mode = mode;
	evp_failed = evp_calls_after = 0;
}

#endif
