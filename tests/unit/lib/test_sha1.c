/* test_sha1.c - lib/sha1.c: libcrypto's SHA-1 loaded on first use gives the standard's
 * digests (FIPS 180-2's examples), one loading for every caller, and a replacement for tests. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/sha1.h"

static void hex(const unsigned char md[JP_SHA1_DIGEST], char out[2 * JP_SHA1_DIGEST + 1])
{
	for (int i = 0; i < JP_SHA1_DIGEST; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
}

Test(sha1, digests_of_the_standard)
{
	unsigned char md[JP_SHA1_DIGEST];
	char h[2 * JP_SHA1_DIGEST + 1];
	const char *why = NULL;
	cr_assert_eq(jp_sha1_buf("abc", 3, md, &why), 0, "%s", why);
	hex(md, h);
	cr_assert_str_eq(h, "a9993e364706816aba3e25717850c26c9cd0d89d");
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	cr_assert_eq(jp_sha1_buf(two, strlen(two), md, &why), 0, "%s", why);
	hex(md, h);
	cr_assert_str_eq(h, "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
}

Test(sha1, updates_in_parts_hash_as_one)
{
	const struct jp_sha1 *s = jp_sha1(NULL);
	cr_assert(s);
	cr_assert_eq(jp_sha1(NULL), s, "loaded once: the same functions every call");
	static unsigned char big[1000000];
	memset(big, 'a', sizeof(big));
	struct jp_sha1_ctx c;
	unsigned char md[JP_SHA1_DIGEST];
	char h[2 * JP_SHA1_DIGEST + 1];
	cr_assert(s->init(&c));
	cr_assert(s->update(&c, big, 1));
	cr_assert(s->update(&c, big + 1, sizeof(big) - 1));
	cr_assert(s->final(md, &c));
	hex(md, h);
	cr_assert_str_eq(h, "34aa973cd4c4daa4f61eeb2bdbad27316534016f");	/* a million 'a' */
}

static int refuse_init(struct jp_sha1_ctx *c)
{
	(void)c;
	return 0;
}

Test(sha1, a_replacement_is_used_until_taken_back)
{
	const struct jp_sha1 *real = jp_sha1(NULL);
	struct jp_sha1 fake = *real;
	fake.init = refuse_init;
	jp_sha1_replace(&fake);
	unsigned char md[JP_SHA1_DIGEST];
	const char *why = NULL;
	cr_assert_eq(jp_sha1_buf("abc", 3, md, &why), -EIO);
	cr_assert(why && strstr(why, "SHA-1 failed"), "%s", why ? why : "(none)");
	jp_sha1_replace(NULL);
	cr_assert_eq(jp_sha1(NULL), real);
	cr_assert_eq(jp_sha1_buf("abc", 3, md, NULL), 0);
}
