/* test_buildid_sha1.c - synth/buildid_hash.c when libcrypto fails (tests/lib/sha1_fail.h). */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "tests/lib/sha1_fail.h"
#include "tests/unit/synth/st.h"

/* Issue 34 finding 6: after a failed digest init (then EVP_DigestInit_ex) the hash went on updating the context
 * (a crash in h_flush on a context without a digest). Each failing call is now an error
 * naming it, the context is not used after it, and the next build-id is the right one. */
static void expect_failure(int m, const char *call)
{
	struct st_load l;
	st_load_init(&l, 1);
	uint8_t good[SYNTH_BUILD_ID_SIZE], id[SYNTH_BUILD_ID_SIZE];
	char err[256] = "";
	sha1_fail_arm(SHA1_FAIL_NONE);
	cr_assert_eq(synth_build_id(&l.in, good, JP_ERRBUF_LOG(err)), 0, "%s", err);

	sha1_fail_arm(m);
	cr_expect_eq(synth_build_id(&l.in, id, JP_ERRBUF_LOG(err)), -EIO);
	cr_expect(sha1_failed, "the %s failure was not injected", call);
	cr_expect_eq(sha1_calls_after, 0, "%d SHA-1 calls after %s failed", sha1_calls_after, call);
	cr_expect(strstr(err, call) && strstr(err, "SHA-1"), "%s", err);
	/* the ELF built from it fails the same way: the synth command's path */
	struct synth_elf e;
	sha1_fail_arm(m);
	cr_expect_eq(synth_build(&l.in, &e, JP_ERRBUF_LOG(err)), -EIO);
	cr_expect(strstr(err, call), "%s", err);

	sha1_fail_arm(SHA1_FAIL_NONE);
	cr_assert_eq(synth_build_id(&l.in, id, JP_ERRBUF_LOG(err)), 0, "%s", err);
	cr_expect(!memcmp(id, good, sizeof(id)), "the id after a failure differs");
}

Test(buildid_sha1, init_failure_is_an_error)
{
	expect_failure(SHA1_FAIL_INIT, "SHA1_Init");
}

Test(buildid_sha1, update_failure_is_an_error)
{
	expect_failure(SHA1_FAIL_UPDATE, "SHA1_Update");
}

Test(buildid_sha1, final_failure_is_an_error)
{
	expect_failure(SHA1_FAIL_FINAL, "SHA1_Final");
}
