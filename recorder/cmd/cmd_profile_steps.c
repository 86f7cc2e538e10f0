/* cmd_profile_steps.c - what `jitprof profile` does once the recording is over, in its own
 * process: inject's run (cmd_inject.h) and report's (cmd_report.h) called with options set
 * here, no `jitprof inject` or `jitprof report` started. Each step speaks as the command it
 * was (its messages say "jitprof inject:" or "jitprof report:", word for word as when it was a
 * child process), and a signal during a step ends the profile as the child's death did. */
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/nomem.h"
#include "recorder/cmd/cli.h"
#include "recorder/cmd/cmd_inject.h"
#include "recorder/cmd/cmd_profile.h"
#include "recorder/cmd/cmd_report.h"
#include "recorder/symbols/symbols.h"
#include "synth/synth.h"

/* Ctrl-C during a step: the steps' loops (inject's workers, report's ingest) take no stop
 * flag, and a flag looked at only between steps would let a long report run on. So a signal
 * while a step runs ends the process from the handler, as it ended the child that ran the
 * step before: the error line said (write(2), prepared when the step began), files report
 * unpacked removed, _exit(1). The outputs are cli_outfile's: an unnamed file (O_TMPFILE)
 * vanishes, the recording stays. Between steps the flag is looked at (cmd_profile.c). */
static volatile sig_atomic_t in_step;
static char stop_tail[PATH_MAX + 64];	/* "; the recording is DATA\n", DATA escaped */

void profile_step_signal(int sig)
{
	char num[12];
	size_t n = sizeof(num) - 1;

	if (!in_step)
		return;
	num[n] = '\0';
	do
		num[--n] = (char)('0' + sig % 10);
	while ((sig /= 10) && n);
	jp_put_stderr("jitprof profile: error: stopped by signal ");
	jp_put_stderr(num + n);
	jp_put_stderr(stop_tail);
	sym_remove_unpacked_now();
	_exit(1);
}

/* The step speaks as cmd (quiet: its info lines silenced, as its -q did); a signal that came
 * before it ends the profile here. */
static void step_begin(const struct profile *p, const char *cmd, int quiet)
{
	if (sio_snprintf_text(stop_tail, sizeof(stop_tail), "; the recording is %s\n", p->data) < 0)
		stop_tail[0] = '\0';
	cli_set_command(cmd);
	cli_set_quiet(quiet);
	atomic_signal_fence(memory_order_seq_cst);	/* stop_tail is whole before in_step */
	in_step = 1;
	if (profile_signal)
		profile_step_signal(profile_signal);
}

static void step_end(const struct profile *p)
{
	in_step = 0;
	cli_set_command("profile");
	cli_set_quiet(p->quiet);
}

int profile_inject(struct profile *p, struct inj_stats *st)
{
	/* --no-elfs unless asked: the report builds the sampled generations' ELFs in memory,
	 * no file per generation (docs/inject.md); --elfs-for writes them later for perf. The
	 * copies stay for report (--keep-stacks), which alone names interpreted Java frames
	 * (inject's chains leave them 'Interpreter'; docs/inject.md, "Dwarf recordings"). */
	struct inj_opts o = { .sz = sizeof(struct inj_opts), .input = p->data,
			      .output = p->jitdata, .no_elfs = !p->elfs,
			      .keep_stacks = p->cg.mode == PROF_CG_DWARF,
			      .jit_dir = p->jit_dir[0] ? p->jit_dir : NULL };
	char cache[PATH_MAX];
	int rc;

	/* ELFs that may not go beside their dump go to the cache, as inject's default */
	if (!o.no_elfs && synth_cache_default_root(cache, sizeof(cache)) == 0)
		o.fallback_cache_root = cache;
	step_begin(p, "inject", 1);
	rc = inject_write(&o, st);
	step_end(p);
	return rc;
}

/* One run of report on the recording (injected or not), as p asks: the event, -f for a
 * process the user chose (-p: its dumps are its owner's), the JVM's log; quiet as the
 * profile is, or always (the generations after the table: the table said the warnings).
 * last: nothing runs after it (its session is left to the process's end). */
static int report_step(struct profile *p, struct report_args *a, FILE *out, int quiet,
		       int last)
{
	int rc;

	a->quiet = quiet;
	a->force = p->pid ? 1 : 0;
	a->in.force = (size_t)a->force;
	a->in.event = p->report_event;
	a->in.fast_exit = last && !CLI_LEAK_CHECKED;
	step_begin(p, "report", quiet);
	rc = report_exec(a, out);
	step_end(p);
	return rc;
}

/* The report into p->out: a file format's file written by report; else the format's view
 * (the text report: the methods view, then from an injected recording its generations after
 * a blank line) into one file committed whole. -1 when it failed (said). */
static int report_once(struct profile *p, int injected, const char *log)
{
	struct cli_outfile o = { 0 };
	struct report_args a, g;
	int rc;

	report_args_init(&a);
	a.in.input = injected ? p->jitdata : p->data;
	/* the log explains generations: the HTML page's timeline, the text's generations (not
	 * its table, which report refuses it for) */
	a.jvm_log = p->fmt->flag ? log : NULL;
	if (report_want_format(&a, p->fmt, p->out))
		return cli_error("-o %s: no report of the %s", p->out, p->fmt->what), -1;
	if (p->fmt->flag_takes_file)	/* stdout: report writes only the file */
		return report_step(p, &a, stdout, p->quiet, 1) ? -1 : 0;
	if ((rc = cli_outfile_open(&o, p->out)) < 0) {
		cli_error("%s: %s", p->out, strerror(-rc));
		return -1;
	}
	if (!p->fmt->flag && p->report_event && strstr(p->agent_opts, p->report_event)) {
		/* -e alloc|lock: the JVM's samples are in no jitted code; the table by class (the
		 * leaf) with the stacks that allocate or wait */
		a.sort = "sym";
		a.sort_given = 1;
		a.graph = RP_GRAPH_CALLER;
		a.graph_given = 1;
	} else if (!p->fmt->flag) {
		/* The methods view: jitted methods first, the rest grouped, hot lines with
		 * methods. */
		a.methods = 1;
	}
	int gens = !p->fmt->flag && injected;
	rc = report_step(p, &a, o.fp, p->quiet, !gens);
	if (!rc && gens) {
		report_args_init(&g);
		g.in.input = a.in.input;
		g.jvm_log = log;
		g.generations = 1;
		rc = fputc('\n', o.fp) == EOF ? 1 : report_step(p, &g, o.fp, 1, 1);
	}
	if (rc) {
		cli_outfile_abort(&o);
		return -1;
	}
	if ((rc = cli_outfile_commit(&o)) < 0) {
		cli_error("%s: %s", p->out, strerror(-rc));
		return -1;
	}
	return 0;
}

/* The report, with the JVM's compilation log when there is one; a log the report cannot join
 * (not this run's, unreadable) costs the explanations, not the report. */
int profile_report(struct profile *p, int injected)
{
	const char *log = injected && p->jvm_log_path[0] ? p->jvm_log_path : NULL;
	int rc = report_once(p, injected, log);

	if (rc && log) {
		cli_warn("the report with %s failed (its message is above): writing it without the "
			 "JVM's compilation log", log);
		rc = report_once(p, injected, NULL);
	}
	return rc ? cli_error("the report failed") : 0;
}
