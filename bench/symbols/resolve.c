/* resolve.c - bench-symbols: replays a perf.data into recorder/symbols and resolves every
 * sample (symbol, and with --lines the source line and inline chain), printing the sample
 * count and the seconds it took; bench/symbols.sh sets it against perf script. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "recorder/perfdata/perfdata.h"
#include "recorder/symbols/symbols.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct bench {
	struct sym_session *s;
	unsigned flags;
	uint64_t samples, named, lined;
};

static int feed(void *ctx, const struct pd_event *ev)
{
	struct bench *b = ctx;
	sym_feed_event(b->s, ev);
	return 0;
}

static int on_sample(void *ctx, const struct pd_event *ev)
{
	struct bench *b = ctx;
	struct sym_result res;
	if (sym_resolve(b->s, ev->u.sample.pid, ev->u.sample.ip, pd_event_time(ev),
			ev->misc & PERF_RECORD_MISC_CPUMODE_MASK, b->flags, &res))
		return 0;
	b->samples++;
	b->named += res.sym != NULL;
	b->lined += res.srcfile != NULL;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench-symbols PERF.DATA [--lines]\n");
		return 2;
	}
	unsigned flags = argc > 2 && !strcmp(argv[2], "--lines") ? SYM_RES_LINES : 0;
	double t0 = now();
	struct pd_reader *r;
	int rc = pd_reader_open(&r, argv[1], NULL);
	if (rc) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(-rc));
		return 1;
	}
	struct sym_opts o = { .sz = sizeof(o), .no_debuginfod = 1 };
	struct sym_session *s = sym_session_new(&o);
	struct bench b = { .s = s, .flags = flags };
	const struct pd_tool tool = { .sz = sizeof(struct pd_tool),
		.sample = on_sample, .mmap = feed, .comm = feed,
		.fork = feed, .exit = feed, .build_id = feed, .ctx = &b };
	int damage;
	sym_feed_build_ids(s, r);
	if (pd_replay(r, &tool, &damage) < 0)
		return 1;
	if (damage < 0) {
		fprintf(stderr, "%s\n", pd_reader_error(r));
		return 1;
	}
	sym_session_free(s);
	pd_reader_close(r);
	printf("%llu samples, %llu with a symbol, %llu with a source line, %.3f s\n",
	       (unsigned long long)b.samples, (unsigned long long)b.named,
	       (unsigned long long)b.lined, now() - t0);
	return 0;
}
