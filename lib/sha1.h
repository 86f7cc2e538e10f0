/* sha1.h - libcrypto's SHA-1, loaded on first use (lib/dynload.h): linked, libcrypto cost every
 * start of every command ~2.2 ms (its 21k relocations), twice with the malloc re-execution
 * (lib/malloc_tune.h), and only the runs that name a synthesized ELF or check an origin hash.
 * The low-level SHA1_Init/Update/Final, not EVP: they allocate nothing, and OpenSSL 3's lazy EVP
 * set-up crashed when one of its own allocations failed (synth/buildid_hash.c). */
#ifndef JITPROF_LIB_SHA1_H
#define JITPROF_LIB_SHA1_H

#include <stddef.h>

/* The context is libcrypto's SHA_CTX (openssl/sha.h: five hash words, two counters, a 64-byte
 * block, its fill): 96 bytes, kept here as words so that no caller needs OpenSSL's headers;
 * sha1.c checks the size against the header. */
#define JP_SHA1_DIGEST 20
struct jp_sha1_ctx {
	unsigned int words[24];
};

/* The three functions, with OpenSSL's meaning (1 on success). */
struct jp_sha1 {
	int (*init)(struct jp_sha1_ctx *c);
	int (*update)(struct jp_sha1_ctx *c, const void *data, size_t len);
	int (*final)(unsigned char md[JP_SHA1_DIGEST], struct jp_sha1_ctx *c);
};

/* libcrypto's SHA-1, loaded once for the process (any thread may be the first); NULL when
 * the library or a function cannot be had, with *why ("libcrypto.so.3 cannot be loaded: ...")
 * set when why is not NULL. */
const struct jp_sha1 *jp_sha1(const char **why);

/* For tests: the functions jp_sha1 hands out from now on, instead of libcrypto's (NULL: back to
 * libcrypto's), so that a test can make one call fail (tests/lib/sha1_fail.h). */
void jp_sha1_replace(const struct jp_sha1 *api);

/* The SHA-1 of len bytes at p into md: 0, or -EIO with *why set as above. */
int jp_sha1_buf(const void *p, size_t len, unsigned char md[JP_SHA1_DIGEST], const char **why);

#endif
