/* test_options.c - agent/options.c: defaults, every option and value form, and precise errors
 * for the bad ones (the agent prints that message as its one warning line). */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "agent/options.h"

static struct agent_options o;
static char err[256];

static int parse(const char *s)
{
	return agent_options_parse(&o, s, err, sizeof(err));
}

Test(options, defaults_for_null_and_empty)
{
	cr_assert_eq(parse(NULL), 0);
	cr_expect_str_empty(o.dir);
	cr_expect_eq(o.clock, JD_CLOCK_MONOTONIC);
	cr_expect(o.lines && o.inline_stacks && o.unload && o.stubs && o.methods);
	cr_expect_eq(o.jfr, 0, "a Flight Recording only when asked for");
	cr_expect_eq(o.flush_ms, AGENT_FLUSH_MS_DEFAULT);
	cr_expect_eq(o.verbose, 0);
	cr_assert_eq(parse(""), 0);
	cr_assert_eq(parse(",,"), 0);
	cr_expect_eq(o.lines, 1);
}

Test(options, every_option)
{
	cr_assert_eq(parse("dir=/tmp/a b,clock=raw,lines=off,inline=0,unload=no,stubs=false,"
			   "flush=250,verbose"), 0, "%s", err);
	cr_expect_str_eq(o.dir, "/tmp/a b");
	cr_expect_eq(o.clock, JD_CLOCK_MONOTONIC_RAW);
	cr_expect_eq(o.lines, 0);
	cr_expect_eq(o.inline_stacks, 0);
	cr_expect_eq(o.unload, 0);
	cr_expect_eq(o.stubs, 0);
	cr_expect_eq(o.flush_ms, 250);
	cr_expect_eq(o.verbose, 1);
	cr_assert_eq(parse("clock=tsc,lines=on,verbose=off,flush=0"), 0);
	cr_expect_eq(o.clock, JD_CLOCK_ARCH);
	cr_expect_eq(o.lines, 1);
	cr_expect_eq(o.verbose, 0);
	cr_expect_eq(o.flush_ms, 0);
	cr_assert_eq(parse("clock=mono"), 0);
	cr_expect_eq(o.clock, JD_CLOCK_MONOTONIC);
	cr_assert_eq(parse("jfr=on,methods=off"), 0, "%s", err);
	cr_expect_eq(o.jfr, 1);
	cr_expect_eq(o.methods, 0);
	cr_expect_eq(parse("jfr=sometimes"), -EINVAL);
}

Test(options, later_items_win)
{
	cr_assert_eq(parse("lines=off,lines=on,dir=/a,dir=/b"), 0);
	cr_expect_eq(o.lines, 1);
	cr_expect_str_eq(o.dir, "/b");
}

Test(options, errors_name_the_item)
{
	cr_expect_eq(parse("verbose,bogus=1"), -EINVAL);
	cr_expect(strstr(err, "unknown option 'bogus'"), "%s", err);
	cr_expect_eq(parse("lines"), -EINVAL);
	cr_expect(strstr(err, "'lines' needs a value"), "%s", err);
	cr_expect_eq(parse("clock=sundial"), -EINVAL);
	cr_expect(strstr(err, "'sundial'") && strstr(err, "clock"), "%s", err);
	cr_expect_eq(parse("flush=3600001"), -EINVAL);
	cr_expect_eq(parse("flush=-1"), -EINVAL);
	cr_expect_eq(parse("flush="), -EINVAL);
	cr_expect_eq(parse("flush=99999999999999999999"), -EINVAL);
	cr_expect_eq(parse("stubs=maybe"), -EINVAL);
	cr_expect_eq(parse("dir="), -EINVAL);
	cr_expect_eq(parse("=x"), -EINVAL);
	cr_expect_eq(parse("linesx=on"), -EINVAL);
}

Test(options, long_inputs_are_bounded)
{
	static char big[3 * AGENT_DIR_MAX];

	memset(big, 'a', sizeof(big) - 1);
	memcpy(big, "dir=", 4);
	cr_expect_eq(parse(big), -EINVAL);
	cr_expect_lt(strlen(err), sizeof(err));
	memcpy(big, "xyz=", 4);
	cr_expect_eq(parse(big), -EINVAL);
	cr_expect(strstr(err, "unknown option"), "%s", err);
	/* a dir just under the limit is kept whole */
	memset(big, 'b', sizeof(big));
	memcpy(big, "dir=", 4);
	big[4 + AGENT_DIR_MAX - 1] = '\0';
	cr_expect_eq(parse(big), 0, "%s", err);
	cr_expect_eq(strlen(o.dir), AGENT_DIR_MAX - 1);
}

Test(options, no_error_buffer)
{
	cr_expect_eq(agent_options_parse(&o, "bogus", NULL, 0), -EINVAL);
	cr_expect_eq(agent_options_parse(&o, "verbose", NULL, 0), 0);
}

Test(options, messages_stay_one_printable_line)
{
	cr_expect_eq(parse("flush=1\n2"), -EINVAL);
	cr_expect_null(strchr(err, '\n'), "%s", err);
	cr_expect(strstr(err, "'1?2'"), "%s", err);
	cr_expect_eq(parse("bo\tgus\x7f=1"), -EINVAL);
	cr_expect(strstr(err, "'bo?gus?'"), "%s", err);
}

/* jcmd drops "=value" from an unquoted argument: "dir:/x" survives it, and the message for a
 * value lost on the way says so. */
Test(options, colon_spelling_and_jcmd_hint)
{
	cr_expect_eq(parse("dir:/tmp/j,clock:raw,lines:off"), 0, "%s", err);
	cr_expect_str_eq(o.dir, "/tmp/j");
	cr_expect_eq(o.clock, JD_CLOCK_MONOTONIC_RAW);
	cr_expect_eq(o.lines, 0);
	cr_expect_eq(parse("dir=/a:b"), 0, "%s", err);
	cr_expect_str_eq(o.dir, "/a:b", "the first separator ends the key");
	cr_expect_eq(parse("dir"), -EINVAL);
	cr_expect_str_eq(err, "option 'dir' needs a value (jcmd drops '=value' from an unquoted "
			      "argument: write dir:VALUE, or quote twice: '\"dir=VALUE\"')");
}

Test(options, quiet_and_stop_flags)
{
	cr_expect_eq(parse("quiet"), 0, "%s", err);
	cr_expect_eq(o.quiet, 1);
	cr_expect_eq(o.stop, 0);
	cr_expect_eq(parse("stop,quiet=off"), 0, "%s", err);
	cr_expect_eq(o.stop, 1);
	cr_expect_eq(o.quiet, 0);
	cr_expect_eq(parse("stop=maybe"), -EINVAL);
}

Test(options, alloc_and_lock)
{
	cr_assert_eq(parse(NULL), 0);
	cr_expect_eq(o.alloc, 0);
	cr_expect_eq(o.lock, 0);
	cr_assert_eq(parse("alloc,lock"), 0, "%s", err);
	cr_expect_eq(o.alloc, 512 * 1024);	/* the JVM's own default interval */
	cr_expect_eq(o.lock, 1);
	cr_expect_eq(o.lock_ns, 0);
	cr_assert_eq(parse("alloc=4096,lock=250000"), 0, "%s", err);
	cr_expect_eq(o.alloc, 4096);
	cr_expect_eq(o.lock, 1);
	cr_expect_eq(o.lock_ns, 250000);
	cr_assert_eq(parse("alloc:0,lock:3600000000000"), 0, "%s", err);
	cr_expect_eq(o.alloc, 0);
	cr_expect_eq(o.lock_ns, 3600000000000ull);
	cr_expect_eq(parse("alloc=1073741825"), -EINVAL);
	cr_expect(strstr(err, "bad value '1073741825' for option alloc (bytes"), "%s", err);
	cr_expect_eq(parse("lock=3600000000001"), -EINVAL);
	cr_expect(strstr(err, "option lock (nanoseconds"), "%s", err);
	cr_expect_eq(parse("alloc=12k"), -EINVAL);
	cr_expect_eq(parse("lock=99999999999999999999"), -EINVAL);
	cr_expect_eq(parse("lock="), -EINVAL);
}
