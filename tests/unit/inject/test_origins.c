/* test_origins.c - recorder/origins/origins.c: the origins section round-trips, every cut or
 * inconsistent section (or one of version 1) is refused with the byte offset, and a file's
 * identity notices a change of size, of any byte (a rewrite with its mtime put back, named
 * by its ctime), of its mtime, and takes a copy or rename of the same bytes; a FIFO or device at the path is refused without blocking,
 * and another user's file without INJ_ID_FORCE. */
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
#include "safeio/safeio.h"
#include "tests/lib/testutil.h"

static struct inj_origins sample(void)
{
	static struct inj_origin_dump d[2];
	static struct inj_origin v[3];
	d[0] = (struct inj_origin_dump){ .path = "/a/jit-1.dump",
					 .dump = { .dev = 1, .ino = 2, .size = 100, .mtime_ns = 5,
						   .ctime_ns = 6, .sha1 = { 1, 2, 3 },
						   .present = 1 } };
	d[1] = (struct inj_origin_dump){ .path = "/some/longer/dir/jit-22.dump",
					 .dump = { .size = 7, .mtime_ns = 9, .sha1 = { 9 },
						   .present = 1 },
					 .comp = { .dev = 3, .ino = 4, .size = 5, .mtime_ns = 6,
						   .ctime_ns = 1ull << 62, .sha1 = { [19] = 7 },
						   .present = 1 } };
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
	cr_assert_eq(inj_origins_decode(&out, buf, size, JP_ERRBUF_LOG(err)), 0, "%s", err);
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
		cr_assert_eq(inj_origins_decode(&out, buf, cut, JP_ERRBUF_LOG(err)), -EINVAL,
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
	cr_assert_eq(inj_origins_decode(&out, buf, size, JP_ERRBUF_LOG(err)), -EINVAL);
	buf[0] ^= 1;
	buf[16] = 0xff;		/* nr_entries far beyond the section */
	cr_assert_eq(inj_origins_decode(&out, buf, size, JP_ERRBUF_LOG(err)), -EINVAL);
	cr_assert(strstr(err, "do not fit"), "%s", err);
	buf[16] = 3;
	buf[size - 88 + 20] = 2;	/* last entry names dump 2 of 2 */
	cr_assert_eq(inj_origins_decode(&out, buf, size, JP_ERRBUF_LOG(err)), -EINVAL);
	cr_assert(strstr(err, "names dump 2"), "%s", err);
	buf[size - 88 + 20] = 0;
	buf[32 + 128 + 8] = 'x';	/* the first path is not absolute */
	cr_assert_eq(inj_origins_decode(&out, buf, size, JP_ERRBUF_LOG(err)), -EINVAL);
	cr_assert(strstr(err, "absolute"), "%s", err);
	buf[32 + 128 + 8] = '/';
	buf[8] = 1;		/* version 1: a first page's SHA-1 for identity, refused */
	cr_assert_eq(inj_origins_decode(&out, buf, size, JP_ERRBUF_LOG(err)), -EINVAL);
	cr_assert(strstr(err, "version 1") && strstr(err, "inject --no-elfs again"), "%s", err);
	free(buf);
}

static void chk(const char *path, const struct inj_file_id *id, unsigned flags, int want,
		const char *says)
{
	char msg[512] = "";
	cr_assert_eq(inj_file_id_check(path, id, flags, JP_ERRBUF_LOG(msg)), want, "%s", msg);
	if (says)
		cr_assert(strstr(msg, says) && strstr(msg, path), "wanted '%s': %s", says, msg);
}

Test(origins, file_identity_sees_every_change)
{
	char *dir = tu_tmpdir("origid"), path[4200], msg[512];
	struct inj_file_id id, gone;
	snprintf(path, sizeof(path), "%s/jit-1.dump", dir);
	cr_assert_eq(inj_file_id_get(path, &gone, JP_ERRBUF_LOG(msg)), 0);
	cr_assert_not(gone.present);
	cr_assert_eq(tu_write_file(path, "abcdef", 6), 0);
	cr_assert_eq(inj_file_id_get(path, &id, JP_ERRBUF_LOG(msg)), 0, "%s", msg);
	cr_assert(id.present);
	cr_assert_eq(id.size, 6);
	chk(path, &id, 0, 0, NULL);
	chk(path, &gone, 0, -ESTALE, "appeared");

	struct inj_file_id moved = id;	/* a copy or a rename: its own inode and ctime */
	moved.ino++;
	moved.ctime_ns++;
	chk(path, &moved, 0, 0, NULL);	/* the same bytes */
	moved.sha1[0] ^= 1;
	chk(path, &moved, 0, -ESTALE, "device or inode differs");

	struct inj_file_id other = id;	/* all the same but the bytes */
	other.sha1[0] ^= 1;
	chk(path, &other, 0, -ESTALE, "bytes differ");

	cr_assert_eq(tu_write_file(path, "abcdef", 6), 0);	/* same bytes, other mtime */
	struct timespec ts[2] = { { 1, 0 }, { 1, 0 } };
	cr_assert_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
	chk(path, &id, 0, -ESTALE, "another time");

	cr_assert_eq(tu_write_file(path, "abcdefg", 7), 0);
	chk(path, &id, 0, -ESTALE, "7 bytes, 6 then");

	cr_assert_eq(unlink(path), 0);
	chk(path, &id, 0, -ESTALE, "is gone");
	tu_rmtree(dir);
	free(dir);
}

/* Finding 5 (issue 34): names rewritten past the first 4 KiB and the mtime put back (touch
 * -r) passed the old identity (size, mtime, first page). */
Test(origins, a_rewrite_with_its_mtime_put_back_is_refused)
{
	char *dir = tu_tmpdir("origid"), path[4200], msg[512];
	static char big[3 * 4096];
	struct inj_file_id id;
	struct stat sb;
	snprintf(path, sizeof(path), "%s/jit-1.dump", dir);
	memset(big, 'a', sizeof(big));
	cr_assert_eq(tu_write_file(path, big, sizeof(big)), 0);
	cr_assert_eq(inj_file_id_get(path, &id, JP_ERRBUF_LOG(msg)), 0, "%s", msg);
	cr_assert_eq(stat(path, &sb), 0);
	struct timespec slept = { 0, 20 * 1000 * 1000 };	/* a ctime tick apart */
	nanosleep(&slept, NULL);
	int fd = open(path, O_WRONLY);
	cr_assert_eq(pwrite(fd, "EVIL", 4, 2 * 4096 + 7), 4);
	close(fd);
	struct timespec ts[2] = { sb.st_atim, sb.st_mtim };
	cr_assert_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
	chk(path, &id, 0, -ESTALE, "ctime differs, its bytes too");
	tu_rmtree(dir);
	free(dir);
}

/* Finding 5: a FIFO at the dump's path hung the reader; /dev/zero and /dev/urandom passed the
 * identity of an empty file. Both refused at once, naming the path, no byte of them read. */
Test(origins, a_fifo_or_device_at_the_path_is_refused_without_blocking, .timeout = 10)
{
	char *dir = tu_tmpdir("origid"), path[4200], msg[512];
	struct inj_file_id id;
	snprintf(path, sizeof(path), "%s/jit-1.dump", dir);
	cr_assert_eq(tu_write_file(path, "", 0), 0);
	cr_assert_eq(inj_file_id_get(path, &id, JP_ERRBUF_LOG(msg)), 0, "%s", msg);
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(mkfifo(path, 0600), 0);
	chk(path, &id, 0, SIO_ENOTREG, "not a regular file");
	cr_assert_eq(inj_file_id_get(path, &id, JP_ERRBUF_LOG(msg)), SIO_ENOTREG);
	const char *devs[] = { "/dev/zero", "/dev/urandom" };
	for (int i = 0; i < 2; i++) {
		struct stat sb;
		cr_assert_eq(unlink(path), 0);
		cr_assert_eq(symlink(devs[i], path), 0);
		cr_assert_eq(stat(devs[i], &sb), 0);
		id.mtime_ns = (uint64_t)sb.st_mtim.tv_sec * 1000000000ull +
			      (uint64_t)sb.st_mtim.tv_nsec;	/* what the old identity took */
		chk(path, &id, 0, SIO_ENOTREG, "not a regular file");
	}
	tu_rmtree(dir);
	free(dir);
}

/* Finding 11: a dump another user owns is read only when forced (-f). */
Test(origins, another_users_file_is_refused_unless_forced)
{
	char *dir = tu_tmpdir("origid"), path[4200], msg[512];
	struct inj_file_id id;
	if (geteuid() != 0) {
		cr_log_warn("not root: cannot give a file to another user; skipped");
		tu_rmtree(dir);
		free(dir);
		return;
	}
	snprintf(path, sizeof(path), "%s/jit-1.dump", dir);
	cr_assert_eq(tu_write_file(path, "abcdef", 6), 0);
	cr_assert_eq(chown(path, 54321, 54321), 0);
	cr_assert_eq(inj_file_id_get(path, &id, JP_ERRBUF_LOG(msg)), 0, "%s", msg);
	chk(path, &id, 0, -EPERM, "owned by uid 54321");
	chk(path, &id, 0, -EPERM, "-f reads it anyway");
	chk(path, &id, INJ_ID_FORCE, 0, NULL);
	tu_rmtree(dir);
	free(dir);
}
