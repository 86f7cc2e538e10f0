/* test_origins.c - recorder/inject/origins.c: the origins section round-trips, every cut or
 * inconsistent section is refused with the byte offset, and a file's identity notices a
 * change of size, of its first bytes or of its mtime. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

#include "recorder/inject/inject_int.h"
#include "tests/lib/testutil.h"

static struct inj_origins sample(void)
{
	static struct inj_origin_dump d[2];
	static struct inj_origin v[3];
	d[0] = (struct inj_origin_dump){ .path = "/a/jit-1.dump",
					 .dump = { 100, 5, { 1, 2, 3 }, 1 } };
	d[1] = (struct inj_origin_dump){ .path = "/some/longer/dir/jit-22.dump",
					 .dump = { 7, 9, { 9 }, 1 }, .comp = { 3, 4, { 7 }, 1 } };
	for (int i = 0; i < 3; i++)
		v[i] = (struct inj_origin){ .build_id = { (uint8_t)i, 0xaa, [19] = 0x55 },
					    .dump = (uint32_t)(i % 2), .file_seq = (uint32_t)i,
					    .flags = i == 2 ? INJ_ORIGIN_NOLINES : 0,
					    .offset = 40 + 1000ull * i, .code_index = 7 + i,
					    .generation = (uint32_t)i + 1, .debug_offset = 3ull * i,
					    .unwind_offset = 5ull * i, .info_offset = 40ull + i,
					    .inl_offset = 1ull << 40 };
	return (struct inj_origins){ d, 2, v, 3 };
}

Test(origins, round_trip)
{
	struct inj_origins in = sample(), out;
	void *buf;
	size_t size;
	char err[256];
	cr_assert_eq(inj_origins_encode(&in, &buf, &size), 0);
	cr_assert_eq(inj_origins_decode(&out, buf, size, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(out.nr_dumps, 2);
	cr_assert_eq(out.n, 3);
	for (size_t k = 0; k < 2; k++) {
		cr_assert_str_eq(out.dumps[k].path, in.dumps[k].path);
		cr_assert_eq(memcmp(&out.dumps[k].dump, &in.dumps[k].dump, sizeof(in.dumps[k].dump)), 0);
		cr_assert_eq(memcmp(&out.dumps[k].comp, &in.dumps[k].comp, sizeof(in.dumps[k].comp)), 0);
	}
	for (size_t i = 0; i < 3; i++)
		cr_assert_eq(memcmp(&out.v[i], &in.v[i], sizeof(in.v[i])), 0, "entry %zu", i);
	inj_origins_free(&out);
	free(buf);
}

Test(origins, every_cut_is_refused_with_an_offset)
{
	struct inj_origins in = sample(), out;
	void *buf;
	size_t size;
	char err[256];
	cr_assert_eq(inj_origins_encode(&in, &buf, &size), 0);
	for (size_t cut = 0; cut < size; cut++) {
		err[0] = 0;
		cr_assert_eq(inj_origins_decode(&out, buf, cut, err, sizeof(err)), -EINVAL,
			     "cut at %zu accepted", cut);
		cr_assert(strstr(err, "origins section"), "cut %zu: %s", cut, err);
	}
	free(buf);
}

Test(origins, inconsistent_sections_are_refused)
{
	struct inj_origins in = sample(), out;
	uint8_t *buf;
	size_t size;
	char err[256];
	cr_assert_eq(inj_origins_encode(&in, (void **)&buf, &size), 0);
	buf[0] ^= 1;		/* magic */
	cr_assert_eq(inj_origins_decode(&out, buf, size, err, sizeof(err)), -EINVAL);
	buf[0] ^= 1;
	buf[16] = 0xff;		/* nr_entries far beyond the section */
	cr_assert_eq(inj_origins_decode(&out, buf, size, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "do not fit"), "%s", err);
	buf[16] = 3;
	buf[size - 88 + 20] = 2;	/* last entry names dump 2 of 2 */
	cr_assert_eq(inj_origins_decode(&out, buf, size, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "names dump 2"), "%s", err);
	buf[size - 88 + 20] = 0;
	buf[32 + 80 + 8] = 'x';	/* the first path is not absolute */
	cr_assert_eq(inj_origins_decode(&out, buf, size, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "absolute"), "%s", err);
	free(buf);
}

Test(origins, file_identity_sees_every_change)
{
	char *dir = tu_tmpdir("origid"), path[4200], msg[512];
	struct inj_file_id id, gone;
	snprintf(path, sizeof(path), "%s/jit-1.dump", dir);
	cr_assert_eq(inj_file_id_get(path, &gone), 0);
	cr_assert_not(gone.present);
	cr_assert_eq(tu_write_file(path, "abcdef", 6), 0);
	cr_assert_eq(inj_file_id_get(path, &id), 0);
	cr_assert(id.present);
	cr_assert_eq(id.size, 6);
	cr_assert_eq(inj_file_id_check(path, &id, msg, sizeof(msg)), 0);
	cr_assert_eq(inj_file_id_check(path, &gone, msg, sizeof(msg)), -ESTALE);
	cr_assert(strstr(msg, "appeared"), "%s", msg);

	cr_assert_eq(tu_write_file(path, "abcxef", 6), 0);	/* same size, other bytes */
	cr_assert_eq(inj_file_id_check(path, &id, msg, sizeof(msg)), -ESTALE);
	cr_assert(strstr(msg, "first bytes"), "%s", msg);

	cr_assert_eq(tu_write_file(path, "abcdef", 6), 0);	/* same bytes, other mtime */
	struct timespec ts[2] = { { 1, 0 }, { 1, 0 } };
	cr_assert_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
	cr_assert_eq(inj_file_id_check(path, &id, msg, sizeof(msg)), -ESTALE);
	cr_assert(strstr(msg, "another time"), "%s", msg);

	cr_assert_eq(tu_write_file(path, "abcdefg", 7), 0);
	cr_assert_eq(inj_file_id_check(path, &id, msg, sizeof(msg)), -ESTALE);
	cr_assert(strstr(msg, "7 bytes, 6 then"), "%s", msg);

	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(inj_file_id_check(path, &id, msg, sizeof(msg)), -ESTALE);
	cr_assert(strstr(msg, "is gone"), "%s", msg);
	tu_rmtree(dir);
	free(dir);
}
