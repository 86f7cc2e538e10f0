/* inject_noelfs.c - `jitprof inject --no-elfs` end to end, for each producer {minijit, our
 * agent on samples/java, node --perf-prof}: one recording injected twice, on two copies of its
 * dumps, with files and with --no-elfs; the --no-elfs side must hold no ELF file, and every
 * jitprof report output on it (table, srcline, call graph, generations, JSON, folded stacks)
 * must be byte-identical to the same report on the file-writing side. Then the dump changes:
 * report refuses its ELFs with a message instead of using them, and `--elfs-for` writes the
 * files the file-writing path wrote, byte for byte, for perf report. */
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/e2e/inject_util.h"

static int count_elfs(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	cr_assert_not_null(d, "%s", dir);
	for (struct dirent *e; (e = readdir(d));)
		n += !strncmp(e->d_name, "jitted-", 7);
	closedir(d);
	return n;
}

static void sh_ok(const char *cmd, struct tu_result *res)
{
	cr_assert_eq(tu_sh(res, cmd, 300), 0);
	cr_assert_eq(res->status, 0, "%s\n%.3000s", cmd, res->err);
}

/* jitprof report ARGS on data, stdout and stderr kept. */
static void report(struct tu_result *res, const char *data, const char *args)
{
	char cmd[12288];
	snprintf(cmd, sizeof(cmd), "DEBUGINFOD_URLS= HOME=/nonexistent '%s' report -i '%s' %s",
		 tu_build("jitprof"), data, args);
	sh_ok(cmd, res);
}

static const char *const views[] = {
	"--sort dso,sym", "--sort dso,sym,srcline", "-g", "--generations", "--json",
	"--collapsed", "--sort comm,dso,sym,generation",
};

static void noelfs(enum producer p)
{
	char *dir = tu_tmpdir("injnoelf");
	char rec[400], files[400], lazy[400], a[500], b[500], raw_data[500], cmd[8192];
	struct tu_result res;
	snprintf(rec, sizeof(rec), "%s/rec", dir);
	snprintf(files, sizeof(files), "%s/files", dir);
	snprintf(lazy, sizeof(lazy), "%s/lazy", dir);
	snprintf(a, sizeof(a), "%s/files.data", dir);
	snprintf(b, sizeof(b), "%s/lazy.data", dir);
	cr_assert_eq(mkdir(rec, 0755), 0);
	record(p, JITPROF, rec, "perf.data");
	snprintf(cmd, sizeof(cmd), "mkdir '%s' '%s' && cp '%s'/jit-*.dump* '%s' && cp '%s'/jit-*.dump* "
		 "'%s'", files, lazy, rec, files, rec, lazy);
	sh_ok(cmd, &res);
	tu_result_free(&res);
	snprintf(cmd, sizeof(cmd), "DEBUGINFOD_URLS= HOME=/nonexistent '%s' inject --jit -q -i "
		 "'%s/perf.data' -o '%s' --jit-dir '%s' && DEBUGINFOD_URLS= HOME=/nonexistent '%s' "
		 "inject --jit -q --no-elfs -i '%s/perf.data' -o '%s' --jit-dir '%s'",
		 tu_build("jitprof"), rec, a, files, tu_build("jitprof"), rec, b, lazy);
	sh_ok(cmd, &res);
	tu_result_free(&res);
	/* --threads 1 hashes every build-id before the stream, on the one thread; otherwise
	 * they are hashed behind it (hasher.c): the same bytes either way. */
	snprintf(cmd, sizeof(cmd), "DEBUGINFOD_URLS= HOME=/nonexistent '%s' inject --jit -q "
		 "--no-elfs --threads 1 -i '%s/perf.data' -o '%s.t1' --jit-dir '%s' && cmp '%s' "
		 "'%s.t1' && rm '%s.t1'", tu_build("jitprof"), rec, b, lazy, b, b, b);
	sh_ok(cmd, &res);
	tu_result_free(&res);
	int nfiles = count_elfs(files);
	cr_assert_gt(nfiles, 0, "the file-writing path wrote no ELF: nothing jitted was sampled");
	report(&res, b, "--sort dso");
	cr_assert(strstr(res.out, "jitted-"), "no jitted DSO in the --no-elfs report");
	tu_result_free(&res);
	cr_assert_eq(count_elfs(lazy), 0, "--no-elfs created ELF files");

	snprintf(raw_data, sizeof(raw_data), "%s/perf.data", rec);
	for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
		struct tu_result ra, rb, raw;
		report(&ra, a, views[i]);
		report(&rb, b, views[i]);
		report(&raw, raw_data, views[i]);
		cr_assert(ra.out_len == rb.out_len && !memcmp(ra.out, rb.out, ra.out_len),
			  "report %s differs:\n--- files\n%.1500s\n--- --no-elfs\n%.1500s", views[i],
			  ra.out, rb.out);
		/* and the jitted code is what makes it: the recording alone reads otherwise */
		cr_assert(raw.out_len != rb.out_len || memcmp(raw.out, rb.out, rb.out_len),
			  "report %s is the same without injection", views[i]);
		tu_result_free(&ra);
		tu_result_free(&rb);
		tu_result_free(&raw);
	}

	/* archive builds the ELFs too: with the dumps gone, a report on the archive is the same. */
	struct tu_result ra, rb;
	char jp[1200];
	snprintf(cmd, sizeof(cmd), "cd '%s' && DEBUGINFOD_URLS= HOME=/nonexistent '%s' archive -i '%s' "
		 "-o '%s/lazy.tar.zst' && mkdir away && mv jit-* away/", lazy,
		 abs_build("jitprof", jp, sizeof(jp)), b, dir);
	sh_ok(cmd, &res);
	tu_result_free(&res);
	char args[600];
	snprintf(args, sizeof(args), "--sort dso,sym --archive '%s/lazy.tar.zst'", dir);
	report(&ra, a, "--sort dso,sym");
	report(&rb, b, args);
	cr_assert(ra.out_len == rb.out_len && !memcmp(ra.out, rb.out, ra.out_len),
		  "report on the archive differs:\n%.1500s\n---\n%.1500s", ra.out, rb.out);
	tu_result_free(&ra);
	tu_result_free(&rb);
	snprintf(cmd, sizeof(cmd), "cd '%s' && mv away/* . && rmdir away", lazy);
	sh_ok(cmd, &res);
	tu_result_free(&res);

	/* --elfs-for: the same files, the same bytes. */
	snprintf(cmd, sizeof(cmd), "'%s' inject -q --elfs-for '%s' && cd '%s' && for f in "
		 "jitted-*; do cmp \"$f\" '%s'/\"$f\" || exit 1; done", tu_build("jitprof"), b, files,
		 lazy);
	sh_ok(cmd, &res);
	tu_result_free(&res);
	cr_assert_eq(count_elfs(lazy), nfiles);

	/* A moved directory (mv keeps the dumps' identity): gone from their recorded paths, the
	 * dumps beside the recording read are used, and the report is the same. */
	snprintf(cmd, sizeof(cmd), "rm -f '%s'/jitted-* && mv '%s'/jit-* '%s'/", lazy, lazy, dir);
	sh_ok(cmd, &res);
	tu_result_free(&res);
	report(&ra, a, "--sort dso,sym");
	report(&rb, b, "--sort dso,sym");
	cr_assert(ra.out_len == rb.out_len && !memcmp(ra.out, rb.out, ra.out_len),
		  "report with the dumps beside the recording differs:\n%.1500s\n---\n%.1500s\n%s",
		  ra.out, rb.out, rb.err);
	cr_assert_null(strstr(rb.err, "since inject"), "%s", rb.err);
	tu_result_free(&ra);
	tu_result_free(&rb);
	/* ... and --elfs-for writes the same files where the dumps are now, saying that perf
	 * then needs the build-id cache (the mappings name the old directory). */
	snprintf(cmd, sizeof(cmd), "'%s' inject --elfs-for '%s' && cd '%s' && for f in jitted-*; "
		 "do cmp \"$f\" '%s'/\"$f\" || exit 1; done", tu_build("jitprof"), b, files, dir);
	sh_ok(cmd, &res);
	cr_assert(strstr(res.err, "was moved since inject") && strstr(res.err, "add --cache"),
		  "%s", res.err);
	tu_result_free(&res);
	cr_assert_eq(count_elfs(dir), nfiles);
	cr_assert_eq(count_elfs(lazy), 0);
	snprintf(cmd, sizeof(cmd), "rm -f '%s'/jitted-* && mv '%s'/jit-* '%s'/", dir, dir, lazy);
	sh_ok(cmd, &res);
	tu_result_free(&res);

	/* A dump changed after inject: refused by name, never used to name samples. */
	snprintf(cmd, sizeof(cmd), "rm -f '%s'/jitted-* && printf x >> \"$(ls '%s'/jit-*.dump | "
		 "head -n 1)\"", lazy, lazy);
	sh_ok(cmd, &res);
	tu_result_free(&res);
	report(&res, b, "--sort dso,sym");
	cr_assert(strstr(res.err, "changed since inject"), "no refusal: %.2000s", res.err);
	tu_result_free(&res);
	snprintf(cmd, sizeof(cmd), "'%s' inject -q --elfs-for '%s'", tu_build("jitprof"), b);
	cr_assert_eq(tu_sh(&res, cmd, 120), 0);
	cr_assert_eq(res.status, 1, "--elfs-for on a changed dump exited %d", res.status);
	cr_assert(strstr(res.err, "changed since inject"), "%s", res.err);
	tu_result_free(&res);
	cr_assert_eq(count_elfs(lazy), 0);
	tu_rmtree(dir);
	free(dir);
}

Test(inject_noelfs, minijit, .timeout = 300) { noelfs(MINIJIT); }
Test(inject_noelfs, java_agent, .timeout = 300) { noelfs(JAVA); }
Test(inject_noelfs, node_perf_prof, .timeout = 300) { noelfs(NODE); }

Test(inject_noelfs, pipe_output_is_a_usage_error)
{
	struct tu_result res;
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "{ '%s' inject --no-elfs -i /dev/null -o -; echo \"rc=$?\" >&2; } "
		 "| cat", tu_build("jitprof"));
	cr_assert_eq(tu_sh(&res, cmd, 60), 0);
	cr_assert(strstr(res.err, "needs a file output"), "%s", res.err);
	cr_assert(strstr(res.err, "rc=2"), "%s", res.err);
	tu_result_free(&res);
}
