/* sha1.c - see sha1.h. */
#include "lib/sha1.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>

#define OPENSSL_SUPPRESS_DEPRECATED	/* for SHA_CTX's declaration beside the deprecated calls */
#include <openssl/sha.h>

#include "lib/dynload.h"

/* The soname comes from the build (lib/module.mk), so the version built against is asked for. */
#ifndef JP_SONAME_CRYPTO
#define JP_SONAME_CRYPTO "libcrypto.so.3"
#endif

_Static_assert(sizeof(struct jp_sha1_ctx) == sizeof(SHA_CTX),
	       "struct jp_sha1_ctx must be libcrypto's SHA_CTX");
_Static_assert(_Alignof(struct jp_sha1_ctx) >= _Alignof(SHA_CTX),
	       "struct jp_sha1_ctx must align as libcrypto's SHA_CTX");

static struct jp_sha1 api;
static struct jp_dynlib lib = {
	.soname = JP_SONAME_CRYPTO,
	.names = (const char *const[]){ "SHA1_Init", "SHA1_Update", "SHA1_Final" },
	.slots = (void **)&api,
	.n = sizeof(api) / sizeof(void *),
};
static pthread_once_t once = PTHREAD_ONCE_INIT;
static const struct jp_sha1 *replaced;

/* jp_dynload is for one thread at a time; inject hashes on worker threads (its hasher). A
 * definition already in the process's global scope wins over the library's own, as it did when
 * libcrypto was linked: a preloaded SHA1_Init interposes (LD_PRELOAD shims, tests/e2e). */
static void load(void)
{
	if (jp_dynload(&lib))
		return;
	for (size_t i = 0; i < lib.n; i++) {
		void *first = dlsym(RTLD_DEFAULT, lib.names[i]);
		if (first)
			lib.slots[i] = first;
	}
}

void jp_sha1_replace(const struct jp_sha1 *with)
{
	replaced = with;
}

const struct jp_sha1 *jp_sha1(const char **why)
{
	if (replaced)
		return replaced;
	pthread_once(&once, load);
	if (lib.state > 0)
		return &api;
	if (why)
		*why = lib.err;
	return NULL;
}

int jp_sha1_buf(const void *p, size_t len, unsigned char md[JP_SHA1_DIGEST], const char **why)
{
	const struct jp_sha1 *s = jp_sha1(why);
	struct jp_sha1_ctx c;
	if (!s)
		return -EIO;
	if (s->init(&c) && s->update(&c, p, len) && s->final(md, &c))
		return 0;
	if (why)
		*why = "SHA-1 failed in libcrypto";
	return -EIO;
}
