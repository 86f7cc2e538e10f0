/* gencheck.c - the generations invariant asked of a recording an e2e test made: `jitprof report
 * --check-generations` (every sample inside its generation's active period, running ones until
 * the end; recorder/report/gen_check.c), its summary kept for the test's message. */
#include <stdio.h>
#include <string.h>

#include "tests/lib/testutil.h"

int tu_check_generations(const char *data, const char *extra, char *msg, size_t len)
{
	char cmd[8192];
	struct tu_result r;
	snprintf(cmd, sizeof(cmd), "DEBUGINFOD_URLS= '%s' report -q -i '%s' --check-generations %s",
		 tu_build("jitprof"), data, extra ? extra : "");
	int rc = tu_sh(&r, cmd, 300);
	int bad = rc || r.status != 0 || !strstr(r.out, " 0 outside their generation's active "
						 "period, 0 generations inconsistent");
	snprintf(msg, len, "%s: exit %d\n%.3000s%.1000s", data, r.status, r.out ? r.out : "",
		 r.err ? r.err : "");
	tu_result_free(&r);
	return bad;
}
