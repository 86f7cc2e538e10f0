/* cli.h - what every jitprof command shares: how it reports errors and warnings, progress on
 * a terminal, and output files that appear whole or not at all. */
#ifndef JITPROF_CLI_H
#define JITPROF_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "lib/log.h"
#include "safeio/safeio.h"

#ifndef JITPROF_VERSION	/* set once, in the Makefile */
#error "JITPROF_VERSION is set by the Makefile"
#endif

/* 1 in builds with a leak checker (ASan/LSan): commands then free what they would otherwise
 * leave to process exit for speed, so the checker reports only real leaks. */
#if defined(__SANITIZE_ADDRESS__)
#define CLI_LEAK_CHECKED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CLI_LEAK_CHECKED 1
#endif
#endif
#ifndef CLI_LEAK_CHECKED
#define CLI_LEAK_CHECKED 0
#endif

void cli_set_command(const char *name);
/* Output "-" (stdout) for binary data while stdout is a terminal: refused as a usage error
 * (returns 2, said with what), else 0. No command writes binary into a terminal. */
int cli_refuse_binary_tty(const char *path, const char *what);
/* -F HZ within what the kernel samples at (kernel.perf_event_max_sample_rate, which the
 * kernel also lowers by itself when sampling takes too long): 0, or the usage error said
 * with the limit and how to raise it (returns 2). Where the limit cannot be read, 0: the
 * kernel refuses the event itself then. */
int cli_check_freq(uint64_t hz);
/* -V/--version of every command: prints "jitprof VERSION" on stdout, returns 0. */
int cli_version(void);
/* A usage error: the message, then where the help is; returns 2, the exit status of every
 * usage error. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* -e given again: ev appended to buf as "a,b" (a usage error, said, when it does not fit). */
int cli_append_event(char *buf, size_t len, const char *ev);
/* A command line the command cannot take (getopt has said which option): the synopsis of
 * usage's text (up to its first blank line) and where the rest is, on stderr; returns 2. The
 * whole help is for --help: a typo should not scroll the error off the screen. */
int cli_usage_brief(void (*usage)(FILE *out));
/* "jitprof <cmd>: error: ..." on stderr. Returns 1 so commands can `return cli_error(...)`. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same for a message a library formatted (sio_snprintf_text, jp_logf: what it quotes
 * is escaped already), after lead (our own words): its newlines printed as lines. */
int cli_error_msg(const char *lead, const char *msg);
/* --debuginfod-timeout SECONDS of report and archive: a whole number from 1 to 86400 into
 * *out, 0; else the usage error said, 2. */
int cli_debuginfod_timeout(const char *v, uint64_t *out);
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_set_quiet(int quiet);

/* A library's log (lib/log.h) as a command prints it. Libraries return -errno and log the
 * failure they return last, at JP_LOG_ERROR; they also log, at the same level, damage they
 * went on from. So each message goes to fn (the command's policy: quiet, verbose) as it
 * comes, except the latest error-level one, held until the next message or cli_log_done:
 * printed as the command's error when the call failed, else through fn like the others.
 * fn NULL: warnings and errors as cli_warn, info as cli_info. */
struct cli_log {
	jp_log_fn *fn;
	void *ctx;
	const char *lead;	/* our words before the error cli_log_done prints ("--jvm-log: ") */
	char *held;		/* the latest error-level message, whole (malloc'd) */
	int holding;
};
/* A cli_log's fn for a call whose warnings the command says otherwise (a second read of
 * what it has read): they are dropped; the error is still held and said. */
void cli_log_drop(void *ctx, enum jp_level level, const char *msg);
/* The jp_log_fn of a struct cli_log (ctx). */
void cli_log_msg(void *ctx, enum jp_level level, const char *msg);
#define CLI_LOG(l) ((struct jp_log){ cli_log_msg, (l) })
/* After the library call: rc < 0 prints the held message (else strerror) as the error and
 * returns 1; otherwise passes a held message on through fn and returns 0. */
int cli_log_done(struct cli_log *l, int rc);
/* perf's rule for a recording: one owned by neither the current user nor root is refused
 * unless forced (-f): its owner chose every path and name in it. Returns 0, or prints the
 * error and returns 1 (path "-", or one that does not exist, is left to the reader). */
int cli_check_input_owner(const char *path, int force);

/* Progress on stderr, only when stderr is a terminal; at most ~10 updates a second.
 * done/total in units of the caller's choosing (total 0 = unknown). */
void cli_progress(const char *what, uint64_t done, uint64_t total);
void cli_progress_end(void);

/* An output file created fresh beside path (unnamed O_TMPFILE, or a random O_EXCL temp) and
 * given its name on commit, so a reader never sees a half-written file that looks valid and
 * nothing planted at the name is written through. path "-" means stdout; /dev/null is written
 * in place; any other FIFO, device or socket at path is refused (SIO_ENOTREG: word errors
 * with sio_strerror). */
struct cli_outfile {
	FILE *fp;
	int fd;			/* the file's descriptor (fp has a duplicate of its own) */
	struct sio_out out;	/* not direct: the file being created */
	int is_stdout;
	int direct;		/* written in place: stdout or /dev/null */
	int unseekable;		/* a pipe or terminal: stream formats only */
	int pending;		/* opened and not yet committed or aborted */
};
int cli_outfile_open(struct cli_outfile *o, const char *path);
int cli_outfile_commit(struct cli_outfile *o);	/* fsync-free rename; 0 or -errno */
void cli_outfile_abort(struct cli_outfile *o);	/* removes the temp file */

#endif
