/* events.c - which event a report reads when the recording has several (perf record -e a,b):
 * the one --event names, else the first the recording asked for, with a warning that names
 * the others and their samples. Percentages of two events are never summed into one table. */
#include "lib/grow.h"
#include "lib/nomem.h"
#include "recorder/perfdata/perfdata.h"
#include "recorder/report_ingest/ingest_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* "cpu-clock" names "cpu-clock" and "cpu-clock:ppp" (perf's modifiers after the colon). */
static int names(const char *evsel_name, const char *want)
{
	size_t n = strlen(want);

	return evsel_name && !strncmp(evsel_name, want, n) &&
	       (evsel_name[n] == '\0' || (evsel_name[n] == ':' && !strchr(want, ':')));
}

/* The file's event names, comma separated ("?" for an unnamed one), each with its samples
 * when counts are given, then the JVM's own samples (jvm: alloc, lock) that it has:
 * malloc'd, however many (perf record -e takes dozens). Out of memory for the list stops the
 * process: the message is never said without it. */
static char *list_names(const struct pd_reader *r, const uint64_t *counts, size_t n,
			const uint64_t *jvm)
{
	char *all = NULL;
	size_t len;
	FILE *f = open_memstream(&all, &len);

	if (!f)
		jp_nomem("the list of a recording's events");
	for (size_t i = 0; i < pd_reader_nr_evsels(r); i++) {
		const struct pd_evsel *e = pd_reader_evsel(r, i);
		size_t idx = e->idx > 0 ? (size_t)e->idx : 0;
		fprintf(f, "%s%s", i ? ", " : "", e->name ? e->name : "?");
		if (counts)
			fprintf(f, " (%llu samples)",
				idx < n ? (unsigned long long)counts[idx] : 0ULL);
	}
	for (int k = 0; jvm && k < 2; k++)
		if (jvm[k])
			fprintf(f, ", %s (%llu samples from the JVM)", k ? "lock" : "alloc",
				(unsigned long long)jvm[k]);
	int bad = ferror(f);
	if (fclose(f) || bad)
		jp_nomem("the list of a recording's events");
	return all;
}

int rp_pick_event(const struct pd_reader *r, const char *name, const char *file,
		  const struct pd_evsel **out, const struct jp_log *log)
{
	for (size_t i = 0; i < pd_reader_nr_evsels(r); i++) {
		const struct pd_evsel *e = pd_reader_evsel(r, i);
		if (names(e->name, name)) {
			*out = e;
			return 0;
		}
	}
	char *all = list_names(r, NULL, 0, NULL);
	jp_logf(log, JP_LOG_ERROR, "%s has no event '%s'; its events: %s (and the reports of time "
		"or of the JVM's samples: offcpu, wall, alloc, lock)", file, name, all);
	free(all);
	return -ENOENT;
}

static int is_dummy(const struct pd_evsel *e)
{
	return e->attr.type == PERF_TYPE_SOFTWARE && e->attr.config == PERF_COUNT_SW_DUMMY;
}

const struct pd_evsel *rp_first_event(const struct pd_reader *r)
{
	for (size_t i = 0; i < pd_reader_nr_evsels(r); i++) {
		const struct pd_evsel *e = pd_reader_evsel(r, i);
		if (!is_dummy(e))
			return e;
	}
	return NULL;
}

void rp_warn_other_events(const struct pd_reader *r, const struct pd_evsel *chosen,
			  const uint64_t *counts, size_t n, const uint64_t *jvm, const char *asked,
			  const struct jp_log *log)
{
	char *all = list_names(r, counts, n, jvm);

	if (asked)	/* chosen by --event: the others said too (a warning: -q silences it) */
		jp_logf(log, JP_LOG_WARN, "reporting %s (--event); the recording's events: %s",
			asked, all);
	else
		jp_logf(log, JP_LOG_WARN, "the recording has several events: %s; reporting %s "
			"only; --event NAME chooses another", all,
			!chosen ? "the first with samples" : chosen->name ? chosen->name
			: "the first");
	free(all);
}

static int add_name(struct rp_events *ev, const char *name)
{
	if (JP_GROW_FOR(ev->name, ev->cap, ev->n) || !(ev->name[ev->n] = strdup(name)))
		return -ENOMEM;
	ev->n++;
	return 0;
}

int rp_recording_events(const char *input, const struct rp_session *shown, struct rp_events *ev,
			const struct jp_log *log)
{
	struct pd_reader_opts ro = { .sz = sizeof(ro), .log = log ? *log : (struct jp_log){ 0 } };
	struct pd_reader *r;
	const struct pd_evsel *cs;
	struct stat st;
	int rc, views;

	memset(ev, 0, sizeof(*ev));
	/* A pipe is read once, by the report itself. */
	if (!strcmp(input, "-") || stat(input, &st) || !S_ISREG(st.st_mode))
		return 0;
	if ((rc = pd_reader_open(&r, input, &ro)) < 0)
		return rc;
	views = rp_offcpu_views(r, &cs);
	rc = 0;
	for (size_t i = 0; i < pd_reader_nr_evsels(r) && !rc; i++) {
		const struct pd_evsel *e = pd_reader_evsel(r, i);
		/* the switches are the offcpu and wall views' */
		if (!is_dummy(e) && e != cs && e->name)
			rc = add_name(ev, e->name);
	}
	if (!rc && views)
		rc = add_name(ev, "offcpu");
	if (!rc && views > 1)
		rc = add_name(ev, "wall");
	uint64_t alloc = 0, lock = 0;
	if (shown)
		rp_get_jvm_samples(shown, &alloc, &lock);
	if (!rc && alloc)
		rc = add_name(ev, "alloc");
	if (!rc && lock)
		rc = add_name(ev, "lock");
	pd_reader_close(r);
	if (rc) {
		rp_events_free(ev);
		jp_logf(log, JP_LOG_ERROR, "%s: %s", input, strerror(-rc));
	}
	return rc;
}

void rp_events_free(struct rp_events *ev)
{
	for (size_t i = 0; i < ev->n; i++)
		free(ev->name[i]);
	free(ev->name);
	memset(ev, 0, sizeof(*ev));
}
