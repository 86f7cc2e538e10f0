/* fuzz_perfdata.c - libFuzzer target: the perf.data reader, every input read twice: from a
 * memfd (seekable: file mode as perf record writes it, header, attrs, feature table) and from
 * a pipe (streamed: how `perf record -o -` output arrives). Every event is decoded and pushed
 * through the ordered-events queue, every feature parser is called; then the memfd once more
 * through pd_replay, the driver every consumer uses.
 * fuzz-srcs: recorder/perfdata/ lib/nomem.c lib/grow.c lib/hindex.c lib/hash_seed.c safeio/
 * fuzz-libs: */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "recorder/perfdata/perfdata.h"

static volatile uint64_t sink;

#define PROMISE(cond, what) do { if (!(cond)) { \
	fprintf(stderr, "perf.data reader broke a promise: %s\n", what); abort(); } } while (0)

static void touch(const void *p, uint64_t n)
{
	const uint8_t *b = p;
	uint64_t s = 0;
	for (uint64_t i = 0; i < n; i++)
		s += b[i];
	sink += s;
}

static void touch_str(const char *s)
{
	if (s)
		sink += strlen(s);
}

static void touch_event(const struct pd_event *ev)
{
	touch(ev->raw, ev->size);
	if (ev->extra)
		touch(ev->extra, ev->extra_size);
	switch (ev->type) {
	case PERF_RECORD_SAMPLE:
		if (ev->u.sample.callchain)
			touch(ev->u.sample.callchain, ev->u.sample.nr_callchain * 8);
		if (ev->u.sample.raw_data)
			touch(ev->u.sample.raw_data, ev->u.sample.raw_size);
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		touch_str(ev->u.mmap.filename);
		PROMISE(ev->u.mmap.build_id_size <= PD_BUILD_ID_MAX, "build-id size");
		break;
	case PERF_RECORD_COMM:
		touch_str(ev->u.comm.comm);
		break;
	case PERF_RECORD_KSYMBOL:
		touch_str(ev->u.ksymbol.name);
		break;
	case PD_RECORD_HEADER_BUILD_ID:
		touch_str(ev->u.build_id.filename);
		break;
	case PD_RECORD_HEADER_FEATURE:
		if (ev->u.feature.data)
			touch(ev->u.feature.data, ev->u.feature.size);
		break;
	}
	if (ev->evsel)
		touch_str(ev->evsel->name);
}

static void touch_features(const struct pd_reader *r)
{
	static const unsigned strings[] = { PD_FEAT_HOSTNAME, PD_FEAT_OSRELEASE, PD_FEAT_VERSION,
					    PD_FEAT_ARCH, PD_FEAT_CPUDESC, PD_FEAT_CPUID };
	const char *s;
	const char *const *argv;
	size_t argc, size;
	uint32_t a, b;
	uint64_t x, y;
	struct pd_clock_data cd;

	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
		if (pd_reader_feat_string(r, strings[i], &s) == 0)
			touch_str(s);
	if (pd_reader_feat_cmdline(r, &argc, &argv) == 0)
		for (size_t i = 0; i < argc; i++)
			touch_str(argv[i]);
	if (pd_reader_feat_nrcpus(r, &a, &b) == 0)
		sink += a + b;
	if (pd_reader_feat_clockid(r, &x) == 0)
		sink += x;
	if (pd_reader_feat_clock_data(r, &cd) == 0)
		sink += cd.tod_ns;
	if (pd_reader_feat_sample_time(r, &x, &y) == 0)
		sink += x + y;
	for (unsigned f = 0; f < PD_FEAT_MAX; f++) {
		const void *p = pd_reader_feature(r, f, &size);
		PROMISE(!p == !pd_reader_has_feature(r, f), "has_feature disagrees with feature");
		if (p)
			touch(p, size);
	}
	for (size_t i = 0; i < pd_reader_nr_build_ids(r); i++) {
		const struct pd_build_id_ev *id = pd_reader_build_id(r, i);
		touch_str(id->filename);
		PROMISE(id->size <= PD_BUILD_ID_MAX, "build-id table entry size");
	}
	for (size_t i = 0; i < pd_reader_nr_evsels(r); i++) {
		const struct pd_evsel *e = pd_reader_evsel(r, i);
		touch(e->ids, e->nr_ids * sizeof(*e->ids));
		touch_str(e->name);
	}
}

static void read_all(int fd, size_t size)
{
	struct pd_reader *r = NULL;
	struct pd_reader_opts o = { .sz = sizeof(o), .window = 4096 };	/* small: many refills */
	if (pd_reader_open_fd(&r, fd, "fuzz.data", &o) < 0)
		return;
	struct pd_ordered *q = pd_ordered_new(r);
	struct pd_event ev;
	uint64_t n = 0;
	int ret;
	while ((ret = pd_reader_next(r, &ev)) == 1) {
		touch_event(&ev);
		/* every record takes 8 bytes at least, except those compressed records inflate */
		PROMISE(++n <= size / 8 || pd_reader_nr_compressed(r),
			"more events than the input can hold");
		if (!q)
			continue;
		if (ev.type == PD_RECORD_FINISHED_ROUND)
			pd_ordered_round(q);
		else
			pd_ordered_push(q, &ev, pd_event_time(&ev));
		while (pd_ordered_pop(q, &ev) == 1)
			touch_event(&ev);
	}
	touch_str(pd_reader_error(r));
	touch_features(r);
	if (q) {
		pd_ordered_flush(q);
		uint64_t last = 0;
		while (pd_ordered_pop(q, &ev) == 1) {
			uint64_t t = pd_event_time(&ev);
			PROMISE(t >= last || t == 0, "ordered queue popped out of time order");
			last = t ? t : last;
			touch_event(&ev);
		}
		pd_ordered_free(q);
	}
	pd_reader_close(r);
}

static int on_any(void *ctx, const struct pd_event *ev)
{
	(void)ctx;
	touch_event(ev);
	return 0;
}

static int on_round(void *ctx)
{
	(void)ctx;
	sink++;
	return 0;
}

/* Every callback of the replay driver; whatever the input, it ends (0) or says damage. */
static void replay_all(int fd)
{
	struct pd_reader *r = NULL;
	if (pd_reader_open_fd(&r, fd, "fuzz.data", NULL) < 0)
		return;
	const struct pd_tool t = { .sz = sizeof(struct pd_tool),
		.sample = on_any, .mmap = on_any, .comm = on_any,
		.fork = on_any, .exit = on_any, .lost = on_any,
		.build_id = on_any, .other = on_any, .finished_round = on_round };
	int damage;
	int rc = pd_replay(r, &t, &damage);
	PROMISE(rc == 0 || rc == -ENOMEM, "replay failed without a callback error");
	sink += (uint64_t)-damage;
	pd_reader_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz.data", 0);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		abort();
	int again = dup(fd);
	/* The reader starts with read(2) (it cannot know a pipe from a file yet): from 0. */
	lseek(fd, 0, SEEK_SET);
	read_all(fd, size);	/* takes ownership of fd */
	if (again >= 0 && lseek(again, 0, SEEK_SET) == 0)
		replay_all(again);
	else if (again >= 0)
		close(again);

	int p[2];
	if (pipe(p) < 0)
		abort();
	if (fcntl(p[1], F_SETPIPE_SZ, 1 << 20) < (int)size && size > 65536) {
		close(p[0]);
		close(p[1]);
		return 0;	/* cannot stage it in one pipe buffer: file mode only */
	}
	if (size && write(p[1], data, size) != (ssize_t)size)
		abort();
	close(p[1]);
	read_all(p[0], size);
	return 0;
}
