/* synth_sha1_fail.c - `jitprof synth` when libcrypto fails (issue 34 finding 6): an LD_PRELOAD
 * shim fails every SHA1_Init; the command stops with an error naming the call, exits
 * non-zero and lists no ELF. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jitdump/jitdump.h"
#include "tests/lib/testutil.h"

Test(synth_sha1_fail, hash_failure_stops_the_command, .timeout = 120)
{
	char *t = tu_tmpdir("synth-sha1"), dump[4400], cmd[20000], jp[PATH_MAX];
	cr_assert(t && realpath(tu_build("jitprof"), jp));
	struct jd_writer_opts o = { .size = sizeof(o), .dir = t };
	struct jd_writer *w = NULL;
	cr_assert_eq(jd_writer_open(&w, &o), 0);
	static const uint8_t code[16] = { 0x55, [15] = 0xc3 };
	for (int i = 0; i < 8; i++) {
		struct jd_load_desc ld = { .name = "Lx;f()V", .code_addr = 0x1000u * (unsigned)(i + 1),
					   .code = code, .code_size = sizeof(code),
					   .timestamp = 100u + (unsigned)i };
		cr_assert_eq(jd_write_load(w, &ld, NULL), 0);
	}
	snprintf(dump, sizeof(dump), "%s", jd_writer_path(w));
	cr_assert_eq(jd_writer_close(w), 0);
	struct tu_result r;
	snprintf(cmd, sizeof(cmd), "cd '%s' && printf 'int SHA1_Init(void *c) { (void)c; "
		 "return 0; }\\n' > shim.c && cc -shared -fPIC -o shim.so shim.c && mkdir out && "
		 "ASAN_OPTIONS=verify_asan_link_order=0${ASAN_OPTIONS:+:$ASAN_OPTIONS} "
		 "LD_PRELOAD=$PWD/shim.so '%s' synth --threads 1 -o out '%s'", t, jp, dump);
	cr_assert_eq(tu_sh(&r, cmd, 100), 0);
	cr_expect_neq(r.status, 0, "synth exited 0 with every hash failing");
	cr_expect(strstr(r.err, "SHA1_Init failed"), "%s", r.err);
	cr_expect(strstr(r.err, " 0 ELFs in out"), "%s", r.err);
	cr_expect_str_eq(r.out, "", "ELFs listed that were never written");
	tu_result_free(&r);
	tu_rmtree(t);
	free(t);
}
