/* test_events.c - recorder/record/events.c: the names of the recorded events, for record's
 * summary line, are all there however many (issue 39: they were cut at 256 bytes). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/record/record_int.h"

Test(events, every_recorded_event_is_named)
{
	struct rec_evsel v[60];
	struct rec_events ev = { .evsels = v, .nevsels = 60 };
	char want[60 * 40] = "";

	memset(v, 0, sizeof(v));
	for (int i = 0; i < 60; i++) {
		snprintf(v[i].name, sizeof(v[i].name), "probe_libc:a_long_probe_name_%02d", i);
		strcat(want, i ? "," : "");
		strcat(want, v[i].name);
	}
	char *names = rec_events_names(&ev);
	cr_assert_not_null(names);
	cr_assert_gt(strlen(names), 1000);
	cr_assert_str_eq(names, want);
	free(names);

	ev.nevsels = 0;
	names = rec_events_names(&ev);
	cr_assert_str_eq(names, "");
	free(names);
}
