/* test_name_match.c - recorder/report/name_match.c: how --method, --compare and
 * --diff-generations match a method's name: as typed (Java's $, dots, parentheses and
 * brackets need no escaping), or as an extended regex when the text is one. */
#include <criterion/criterion.h>

#include "recorder/report_analysis/analysis_int.h"
#include "recorder/report_ingest/ingest_int.h"
#include "recorder/report_views/views_int.h"

static int matches(const char *text, const char *name)
{
	struct rp_name_match m;
	rp_name_match_init(&m, text);
	int r = rp_name_matches(&m, name);
	rp_name_match_fini(&m);
	return r;
}

#define LAMBDA "WordFreq.lambda$rank$0(WordFreq$Scorer, java.util.Map$Entry)"

Test(name_match, as_typed)
{
	/* As a regex each of these matches nothing in the name it was copied from. */
	cr_assert(matches("WordFreq.lambda$rank$0", LAMBDA));
	cr_assert(matches("lambda$rank$0(WordFreq$Scorer", LAMBDA), "no valid regex: as typed");
	cr_assert(matches("Generations$Shape[]", "total(jitprof.samples.Generations$Shape[])"));
	cr_assert(!matches("lambda$rank$1", LAMBDA));
	cr_assert(!matches("x", NULL));
}

Test(name_match, as_regex)
{
	cr_assert(matches("^WordFreq\\.lambda", LAMBDA));
	cr_assert(matches("rank|count", LAMBDA));
	cr_assert(matches("Map\\$Entry\\)$", LAMBDA));
	cr_assert(!matches("^lambda", LAMBDA), "anchored: not at the start");
	cr_assert(!matches("^WordFreq\\.count", LAMBDA));
}

Test(name_match, says_what_is_no_regex)
{
	char why[128] = "";
	cr_assert(rp_name_is_regex("a$b(c)", why, sizeof(why)));
	cr_assert(!rp_name_is_regex("area(", why, sizeof(why)));
	cr_assert_neq(why[0], 0, "regcomp's reason given");
}
