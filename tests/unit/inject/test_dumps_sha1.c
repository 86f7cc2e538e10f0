/* test_dumps_sha1.c - recorder/inject/dumps.c when libcrypto fails a load's build-id hash
 * (tests/lib/sha1_fail.h): the dump is refused with an error, no load is dropped quietly. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "recorder/inject/inject_int.h"
#include "tests/lib/sha1_fail.h"
#include "tests/lib/testutil.h"

/* Issue 34 finding 6: a hash libcrypto failed marked its load bad, as a damaged load is, and
 * inject went on without it (exit 0, a different answer). */
Test(dumps_sha1, failed_hash_fails_the_dump)
{
	char *dir = tu_tmpdir("inj-evp"), path[4096], err[512] = "";
	struct jd_writer_opts o = { .size = sizeof(o), .dir = dir };
	struct jd_writer *w = NULL;
	cr_assert_eq(jd_writer_open(&w, &o), 0);
	static const uint8_t code[16] = { 0x55, [15] = 0xc3 };
	struct jd_load_desc ld = { .name = "Lx;f()V", .code_addr = 0x1000, .code = code,
				   .code_size = sizeof(code), .timestamp = 100 };
	cr_assert_eq(jd_write_load(w, &ld, NULL), 0);
	snprintf(path, sizeof(path), "%s", jd_writer_path(w));
	cr_assert_eq(jd_writer_close(w), 0);

	struct jd_index *x = NULL;
	cr_assert_eq(jd_index_open(&x, path, err, sizeof(err)), 0, "%s", err);
	struct inj_dump_opts dopts = { .threads = 1 };
	struct inj_dump d;
	sha1_fail_arm(SHA1_FAIL_UPDATE);
	cr_expect_eq(inj_dump_init(&d, x, path, &dopts, JP_ERRBUF_LOG(err)), -EIO);
	cr_expect(sha1_failed);
	cr_expect(strstr(err, path) && strstr(err, "SHA-1"), "%s", err);
	inj_dump_fini(&d);
	sha1_fail_arm(SHA1_FAIL_NONE);
	tu_rmtree(dir);
	free(dir);
}
