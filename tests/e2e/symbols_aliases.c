/* symbols_aliases.c - which name an address with several symbols gets: perf's choice, taken
 * from `perf script` on this machine. A recording is written here with one sample at every
 * address where the running kernel (/proc/kallsyms), libc (its .dynsym, and its debug file's
 * .symtab when installed) or an installed JDK's libjvm has two or more names, and each
 * sample's name from our resolver must be perf script's. Nothing is assumed about which
 * aliases exist. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "recorder/perfdata/perfdata.h"
#include "recorder/symbols/symbols.h"
#include "tests/lib/testutil.h"

#define PID 4242
#define MAX_ADDRS 4000

struct addrs {
	uint64_t v[MAX_ADDRS];
	size_t n;
};

/* "ADDR TYPE NAME" lines (nm, /proc/kallsyms): every text address that has 2+ names. */
static void alias_addrs(const char *cmd, uint64_t base, struct addrs *out)
{
	struct tu_result r;
	cr_assert_eq(tu_sh(&r, cmd, 120), 0);
	uint64_t prev = 0;
	int count = 0;
	for (char *save = NULL, *l = strtok_r(r.out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		uint64_t a;
		char type;
		if (sscanf(l, "%" SCNx64 " %c", &a, &type) != 2 || strchr(l, '[') ||
		    !strchr("TtWwi", type) || !a)
			continue;
		count = a == prev ? count + 1 : 1;
		prev = a;
		if (count == 2 && out->n < MAX_ADDRS)
			out->v[out->n++] = a + base;
	}
	tu_result_free(&r);
}

static void sample(struct pd_writer *w, uint16_t misc, uint64_t ip, uint64_t t)
{
	struct { struct perf_event_header h; uint64_t ip; uint32_t pid, tid; uint64_t time; } s = {
		{ PERF_RECORD_SAMPLE, misc, sizeof(s) }, ip, PID, PID, t };
	cr_assert_eq(pd_writer_write(w, &s, sizeof(s)), 0);
}

Test(aliases, names_at_shared_addresses_are_perfs, .timeout = 300)
{
	if (!tu_have("perf") || !tu_have("nm"))
		cr_skip_test("perf or nm is not installed");
	char *dir = tu_tmpdir("aliases");
	char data[600], cmd[8192], libc[4096], hex[SYM_BUILD_ID_HEX];
	struct sym_build_id kid, lid;
	snprintf(data, sizeof(data), "%s/a.data", dir);
	cr_assert_eq(sym_kernel_build_id(&kid), 0, "no kernel build-id here");
	cr_assert(tu_self_map_path("/libc.so.6", libc, sizeof(libc))[0]);
	cr_assert_eq(sym_elf_build_id(libc, &lid, NULL), 0);

	/* kernel: text symbols of the core kernel; _text is where perf relocates from */
	struct addrs *k = calloc(1, sizeof(*k)), *u = calloc(1, sizeof(*u));
	struct tu_result r;
	cr_assert_eq(tu_sh(&r, "awk '$3 == \"_text\" { print $1; exit }' /proc/kallsyms", 30), 0);
	uint64_t text = strtoull(r.out, NULL, 16);
	tu_result_free(&r);
	if (text)
		alias_addrs("cat /proc/kallsyms", 0, k);
	else
		tu_skip_part("kernel addresses hidden here (kptr_restrict)");
	/* user space: libc, and a JDK's libjvm when one is installed (SafeFetchN_impl) */
	const uint64_t base = 0x7f0000000000ull, jbase = 0x7e0000000000ull;
	snprintf(cmd, sizeof(cmd), "nm -D -n --defined-only '%s'; f=/usr/lib/debug/.build-id/"
		 "%.2s/%s.debug; [ -r $f ] && nm -n --defined-only $f", libc,
		 sym_build_id_hex(&lid, hex), hex + 2);
	alias_addrs(cmd, base, u);
	size_t nlibc = u->n;
	cr_assert_gt(u->n, 0, "libc has versioned aliases (clock_gettime@...) everywhere");
	char jvm[4096] = "";
	struct sym_build_id jid = { 0 };
	cr_assert_eq(tu_sh(&r, "ls /usr/lib/jvm/*/lib/server/libjvm.so 2>/dev/null | head -1", 30),
		     0);
	if (sscanf(r.out, "%4095s", jvm) == 1 && !sym_elf_build_id(jvm, &jid, NULL)) {
		snprintf(cmd, sizeof(cmd), "nm -n --defined-only '%s' 2>/dev/null", jvm);
		alias_addrs(cmd, jbase, u);
	} else {
		jvm[0] = 0;
		tu_skip_part("no JDK's libjvm.so here");
	}
	tu_result_free(&r);
	cr_log_info("%zu kernel, %zu libc, %zu libjvm addresses with aliases", k->n, nlibc,
		    u->n - nlibc);

	struct pd_writer *w;
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
				     .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
						    PERF_SAMPLE_TIME,
				     .sample_id_all = 1, .sample_period = 1 };
	cr_assert_eq(pd_writer_open(&w, data, 0), 0);
	cr_assert_geq(pd_writer_add_attr(w, &a, NULL, 0, "cpu-clock"), 0);
	struct pd_sid sid = { .pid = PID, .tid = PID, .time = 1 };
	cr_assert_eq(pd_writer_comm(w, PID, PID, "aliases", true, &sid), 0);
	struct stat st;
	cr_assert_eq(stat(libc, &st), 0);
	struct pd_mmap2_args m = { .pid = PID, .tid = PID, .cpumode = PERF_RECORD_MISC_USER,
				   .start = base, .len = (uint64_t)st.st_size, .pgoff = 0,
				   .prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE,
				   .filename = libc };
	cr_assert_eq(pd_writer_mmap2(w, &m, &sid), 0);
	if (jvm[0]) {
		cr_assert_eq(stat(jvm, &st), 0);
		m.start = jbase;
		m.len = (uint64_t)st.st_size;
		m.filename = jvm;
		cr_assert_eq(pd_writer_mmap2(w, &m, &sid), 0);
		cr_assert_eq(pd_writer_add_build_id(w, -1, PERF_RECORD_MISC_USER, jid.data,
						    jid.size, jvm), 0);
	}
	if (text) {
		struct pd_mmap2_args km = { .pid = UINT32_MAX, .cpumode = PERF_RECORD_MISC_KERNEL,
					    .start = text, .len = ~0ull - text, .pgoff = text,
					    .filename = "[kernel.kallsyms]_text" };
		cr_assert_eq(pd_writer_mmap2(w, &km, &sid), 0);
		cr_assert_eq(pd_writer_add_build_id(w, -1, PERF_RECORD_MISC_KERNEL, kid.data,
						    kid.size, "[kernel.kallsyms]"), 0);
	}
	cr_assert_eq(pd_writer_add_build_id(w, -1, PERF_RECORD_MISC_USER, lid.data, lid.size,
					    libc), 0);
	uint64_t t = 10;
	for (size_t i = 0; i < k->n; i++)
		sample(w, PERF_RECORD_MISC_KERNEL, k->v[i], t++);
	for (size_t i = 0; i < u->n; i++)
		sample(w, PERF_RECORD_MISC_USER, u->v[i], t++);
	cr_assert_eq(pd_writer_close(w), 0);

	/* perf's names, one line per sample: "ip sym" */
	snprintf(cmd, sizeof(cmd), "HOME='%s' DEBUGINFOD_URLS= perf script -i '%s' -F ip,sym "
		 "--no-demangle 2>/dev/null", dir, data);
	cr_assert_eq(tu_sh(&r, cmd, 240), 0);
	cr_assert_eq(r.status, 0, "%s", r.err);

	struct sym_opts o = { .sz = sizeof(o), .no_demangle = 1, .no_debuginfod = 1 };
	struct sym_session *s = sym_session_new(&o);
	struct pd_reader *rd;
	struct pd_event ev;
	cr_assert_eq(pd_reader_open(&rd, data, NULL), 0);
	cr_assert_eq(sym_feed_build_ids(s, rd), 0);
	char *save = NULL, *line = strtok_r(r.out, "\n", &save);
	size_t n = 0, differ = 0, kernel = 0;
	while (pd_reader_next(rd, &ev) > 0) {
		if (sym_feed_event(s, &ev) != 1)
			continue;
		cr_assert_not_null(line, "perf script printed fewer samples than the %zu written",
				   k->n + u->n);
		struct sym_result res;
		cr_assert_eq(sym_resolve(s, ev.u.sample.pid, ev.u.sample.ip, pd_event_time(&ev),
					 ev.misc & 7, 0, &res), 0);
		const char *psym = strchr(line + strspn(line, " "), ' ');
		psym = psym ? psym + 1 : "[unknown]";
		const char *ours = res.sym ? res.sym : "[unknown]";
		if (strcmp(ours, psym)) {
			differ++;
			cr_log_error("%s at 0x%" PRIx64 ": perf %s, ours %s", (ev.misc & 7) == 1 ?
				     "kernel" : ev.u.sample.ip >= base ? "libc" : "libjvm",
				     ev.u.sample.ip, psym, ours);
		}
		kernel += (ev.misc & 7) == 1;
		n++;
		line = strtok_r(NULL, "\n", &save);
	}
	cr_assert_eq(n, k->n + u->n);
	cr_assert_eq(differ, 0, "%zu of %zu aliased addresses named otherwise than perf (%zu "
		     "kernel)", differ, n, kernel);
	pd_reader_close(rd);
	sym_session_free(s);
	tu_result_free(&r);
	free(k);
	free(u);
	tu_rmtree(dir);
	free(dir);
}
