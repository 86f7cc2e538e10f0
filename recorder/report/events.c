/* events.c - which event a report reads when the recording has several (perf record -e a,b):
 * the one --event names, else the first with samples, with a warning that names the others.
 * Percentages of two events are never summed into one table. */
#include "recorder/perfdata/perfdata.h"
#include "recorder/report/report_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* "cpu-clock" names "cpu-clock" and "cpu-clock:ppp" (perf's modifiers after the colon). */
static int names(const char *evsel_name, const char *want)
{
	size_t n = strlen(want);

	return evsel_name && !strncmp(evsel_name, want, n) &&
	       (evsel_name[n] == '\0' || (evsel_name[n] == ':' && !strchr(want, ':')));
}

/* The file's event names, comma separated ("?" for an unnamed one). */
static void list_names(const struct pd_reader *r, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < pd_reader_nr_evsels(r) && off < len; i++) {
		const struct pd_evsel *e = pd_reader_evsel(r, i);
		int n = snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
				 e->name ? e->name : "?");
		if (n < 0)
			break;
		off += (size_t)n;
	}
}

int rp_pick_event(const struct pd_reader *r, const char *name, const char *file,
		  const struct pd_evsel **out, char *err, size_t errlen)
{
	char all[512];

	for (size_t i = 0; i < pd_reader_nr_evsels(r); i++) {
		const struct pd_evsel *e = pd_reader_evsel(r, i);
		if (names(e->name, name)) {
			*out = e;
			return 0;
		}
	}
	list_names(r, all, sizeof(all));
	snprintf(err, errlen, "%s has no event '%s'; its events: %s", file, name, all);
	return -ENOENT;
}

void rp_warn_other_events(const struct pd_reader *r, const struct pd_evsel *chosen,
			  const struct jp_log *log)
{
	char all[512];

	list_names(r, all, sizeof(all));
	jp_logf(log, JP_LOG_WARN, "more than one event has samples (%s): reporting %s only; "
		"--event NAME chooses another", all,
		chosen && chosen->name ? chosen->name : "the first");
}
