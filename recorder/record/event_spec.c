/* event_spec.c - what `-e` names: perf's event names and rHEX with their u/k/p modifiers, one
 * or a comma-separated list of them, into the attrs the recorder opens (events.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "recorder/record/record_int.h"

struct named_event {
	const char *name;
	uint32_t type;
	uint64_t config;
};

static const struct named_event named[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
};

/* "name[:mods]" or "rHEX"; mods u (user only), k (kernel only), p (precise; ignored). */
int rec_parse_event(const char *spec, struct perf_event_attr *a, char *name, size_t nsz)
{
	char base[64];
	const char *colon = strchr(spec, ':');
	size_t bl = colon ? (size_t)(colon - spec) : strlen(spec);
	bool found = false;

	if (bl == 0 || bl >= sizeof(base))
		return -EINVAL;
	memcpy(base, spec, bl);
	base[bl] = 0;
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (!strcmp(base, named[i].name)) {
			a->type = named[i].type;
			a->config = named[i].config;
			found = true;
		}
	if (!found && base[0] == 'r' && base[1]) {
		char *end;
		a->type = PERF_TYPE_RAW;
		a->config = strtoull(base + 1, &end, 16);
		found = !*end;
	}
	if (!found)
		return -ENOENT;
	for (const char *m = colon ? colon + 1 : ""; *m; m++) {
		if (*m == 'u')
			a->exclude_kernel = a->exclude_hv = 1;
		else if (*m == 'k')
			a->exclude_user = 1;
		else if (*m != 'p')
			return -EINVAL;
	}
	snprintf(name, nsz, "%s", spec);
	return 0;
}

/* -e "a,b" (and the command's repeated -e, joined with commas): one evsel each, in order. */
int rec_parse_event_list(struct rec_events *ev, const char *list, const struct jp_log *log)
{
	const char *p = list;

	while (*p) {
		size_t len = strcspn(p, ",");
		char spec[64];
		struct rec_evsel *e;
		int err;

		if (len == 0 || len >= sizeof(spec))
			return jp_logf(log, JP_LOG_ERROR, "bad event list '%s': an empty or too "
				       "long name", list), -EINVAL;
		memcpy(spec, p, len);
		spec[len] = 0;
		if ((err = rec_events_add(ev, &e)))
			return err;
		if ((err = rec_parse_event(spec, &e->attr, e->name, sizeof(e->name))))
			return jp_logf(log, JP_LOG_ERROR, "unknown event '%s' (try cycles, "
				       "cpu-clock, task-clock, instructions, page-faults, rHEX)",
				       spec), err;
		p += len + (p[len] == ',');
	}
	return 0;
}

int rec_events_add(struct rec_events *ev, struct rec_evsel **out)
{
	if (JP_GROW_FOR(ev->evsels, ev->cap_evsels, ev->nevsels))
		return -ENOMEM;
	*out = &ev->evsels[ev->nevsels++];
	memset(*out, 0, sizeof(**out));
	return 0;
}
