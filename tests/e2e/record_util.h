/* record_util.h - shared by the tests/e2e/record_*.c binaries: a short CPU-bound workload,
 * running commands that must succeed, and per-type / per-DSO counts computed with our own
 * perf.data reader (compared against perf as the oracle). Header-only: each e2e test is its
 * own binary, and only these three include it. */
#ifndef JITPROF_RECORD_UTIL_H
#define JITPROF_RECORD_UTIL_H

#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/perfdata/perfdata.h"
#include "tests/lib/testutil.h"

/* About half a second of shell arithmetic: user time in dash and libc, some kernel. */
#define RU_LOOP "i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done"

static const char *const ru_env[] = { "DEBUGINFOD_URLS=", NULL };

/* Each test gets a fresh directory and a recording path inside it. */
static char *dir;
static char data[512];

static void setup(void)
{
	dir = tu_tmpdir("record");
	snprintf(data, sizeof(data), "%s/rec.data", dir);
}

static void teardown(void)
{
	tu_rmtree(dir);
	free(dir);
}

/* Where this machine keeps what RU_LOOP runs in, as the kernel names it in a map: the shell
 * behind /bin/sh and the libc (ours, from /proc/self/maps: the same file the shell maps). */
static inline void ru_loop_files(char *shell, size_t slen, char *libc, size_t llen)
{
	char *rp = realpath("/bin/sh", NULL);
	snprintf(shell, slen, "%s", rp ? rp : "/bin/sh");
	free(rp);
	tu_self_map_path("/libc.so.6", libc, llen);
	cr_assert(libc[0], "no libc.so.6 in /proc/self/maps");
}

static inline void ru_require_perf(void)
{
	if (!tu_have("perf"))
		cr_skip_test("perf is not installed");
}

static inline void ru_ok(struct tu_result *r, char *const argv[], unsigned timeout)
{
	cr_assert_eq(tu_run(r, argv, ru_env, NULL, 0, timeout), 0, "cannot run %s", argv[0]);
	cr_assert_eq(r->status, 0, "%s %s exited %d:\n%s\n%s", argv[0], argv[1], r->status,
		     r->out, r->err);
}

/* perf's stderr minus lines that are about this machine, not about the file. */
static inline void ru_no_warnings(const char *what, const char *err)
{
	char *copy = strdup(err), *save = NULL;
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (!*l)
			continue;
		cr_assert(0, "%s printed: %s", what, l);
	}
	free(copy);
}

struct ru_types {
	size_t n[128];		/* per record type (>= 127 folded) */
	size_t total;
	int end;
};

static inline void ru_count_types(struct pd_reader *r, struct ru_types *t)
{
	struct pd_event ev;
	int k;

	memset(t, 0, sizeof(*t));
	while ((k = pd_reader_next(r, &ev)) > 0) {
		t->n[ev.type < 127 ? ev.type : 127]++;
		t->total++;
	}
	/* perf -D counts each COMPRESSED record as well as the records inside it. */
	t->n[PD_RECORD_COMPRESSED] += pd_reader_nr_compressed(r);
	t->total += pd_reader_nr_compressed(r);
	t->end = k;
}

/* Samples per DSO by our reader: maps per pid (FORK without exec shares the parent's). */
struct ru_map { uint32_t pid; uint64_t start, end; char name[256]; };
struct ru_dsos {
	struct ru_map *maps;
	size_t nmaps;
	uint32_t fork_pid[4096], fork_ppid[4096];
	size_t nforks;
	char names[512][256];
	size_t counts[512];
	size_t ndsos;
	size_t samples;
};

static inline const char *ru_lookup(struct ru_dsos *d, uint32_t pid, uint64_t ip)
{
	for (int depth = 0; depth < 8; depth++) {
		for (size_t i = d->nmaps; i-- > 0;)
			if (d->maps[i].pid == pid && ip >= d->maps[i].start && ip < d->maps[i].end)
				return d->maps[i].name;
		size_t j;
		for (j = 0; j < d->nforks && d->fork_pid[j] != pid; j++)
			;
		if (j == d->nforks)
			break;
		pid = d->fork_ppid[j];
	}
	return "[unknown]";
}

static inline void ru_dso_event(struct ru_dsos *d, const struct pd_event *ev, FILE *list)
{
	bool kernel = (ev->misc & 7) == PERF_RECORD_MISC_KERNEL;

	if ((ev->type == PERF_RECORD_MMAP2 || ev->type == PERF_RECORD_MMAP) && d->nmaps < 65536) {
		struct ru_map *m = &d->maps[d->nmaps++];
		m->pid = kernel ? UINT32_MAX : ev->u.mmap.pid;
		m->start = ev->u.mmap.start;
		m->end = ev->u.mmap.start + ev->u.mmap.len;
		snprintf(m->name, sizeof(m->name), "%s", kernel &&
			 !strncmp(ev->u.mmap.filename, "[kernel.kallsyms]", 17) ?
			 "[kernel.kallsyms]" : ev->u.mmap.filename);
	} else if (ev->type == PERF_RECORD_FORK && ev->u.task.pid != ev->u.task.ppid &&
		   d->nforks < 4096) {
		d->fork_pid[d->nforks] = ev->u.task.pid;
		d->fork_ppid[d->nforks++] = ev->u.task.ppid;
	} else if (ev->type == PERF_RECORD_SAMPLE) {
		const char *full = ru_lookup(d, kernel ? UINT32_MAX : ev->u.sample.pid,
					     ev->u.sample.ip);
		const char *base = strrchr(full, '/');
		size_t i;
		if (list)
			fprintf(list, "%llx %s\n", (unsigned long long)ev->u.sample.ip, full);
		base = base && full[0] == '/' ? base + 1 : full;
		for (i = 0; i < d->ndsos && strcmp(d->names[i], base); i++)
			;
		if (i == d->ndsos && d->ndsos < 512)
			snprintf(d->names[d->ndsos++], 256, "%s", base);
		if (i < 512)
			d->counts[i]++;
		d->samples++;
	}
}

/* Samples per DSO as perf resolves them: events in time order (our pd_ordered queue, perf's
 * FINISHED_ROUND rule), so a map drained from another CPU's buffer after a sample still
 * counts. list: when not NULL, gets one "ip dso" line per sample (full path, as perf script). */
static inline void ru_count_dsos(const char *path, struct ru_dsos *d, FILE *list)
{
	struct pd_reader *r;
	struct pd_ordered *q;
	struct pd_event ev, out;

	memset(d, 0, sizeof(*d));
	d->maps = calloc(65536, sizeof(*d->maps));
	cr_assert_eq(pd_reader_open(&r, path, NULL), 0);
	q = pd_ordered_new(r);
	while (pd_reader_next(r, &ev) > 0) {
		if (ev.type == PD_RECORD_FINISHED_ROUND)
			pd_ordered_round(q);
		else if (ev.type < PD_RECORD_USER_TYPE_START)
			cr_assert_eq(pd_ordered_push(q, &ev, pd_event_time(&ev)), 0);
		while (pd_ordered_pop(q, &out) > 0)
			ru_dso_event(d, &out, list);
	}
	pd_ordered_flush(q);
	while (pd_ordered_pop(q, &out) > 0)
		ru_dso_event(d, &out, list);
	pd_ordered_free(q);
	pd_reader_close(r);
	free(d->maps);
}

static inline size_t ru_top(const struct ru_dsos *d)
{
	size_t best = 0;
	for (size_t i = 1; i < d->ndsos; i++)
		if (d->counts[i] > d->counts[best])
			best = i;
	return best;
}

#endif
