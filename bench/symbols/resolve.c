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
	struct pd_ordered *q = pd_ordered_new(r);
	uint64_t samples = 0, named = 0, lined = 0;
	struct pd_event ev, out;
	sym_feed_build_ids(s, r);
	for (int more = 1; more;) {
		int got = pd_reader_next(r, &ev);
		if (got < 0) {
			fprintf(stderr, "%s\n", pd_reader_error(r));
			return 1;
		}
		if (!got) {
			pd_ordered_flush(q);
			more = 0;
		} else if (ev.type == PD_RECORD_FINISHED_ROUND) {
			pd_ordered_round(q);
		} else if (pd_ordered_push(q, &ev, pd_event_time(&ev))) {
			return 1;
		}
		while (pd_ordered_pop(q, &out) > 0) {
			if (sym_feed_event(s, &out) != 1)
				continue;
			struct sym_result res;
			if (sym_resolve(s, out.u.sample.pid, out.u.sample.ip, pd_event_time(&out),
					out.misc & 7, flags, &res))
				continue;
			samples++;
			named += res.sym != NULL;
			lined += res.srcfile != NULL;
		}
	}
	pd_ordered_free(q);
	sym_session_free(s);
	pd_reader_close(r);
	printf("%llu samples, %llu with a symbol, %llu with a source line, %.3f s\n",
	       (unsigned long long)samples, (unsigned long long)named, (unsigned long long)lined,
	       now() - t0);
	return 0;
}
