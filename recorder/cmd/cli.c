/* cli.c - error reporting, progress and atomic output files for the jitprof commands. */
#include "recorder/cmd/cli.h"

#include "lib/nomem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

static const char *command = "jitprof";
static int quiet;
static int progress_shown;
static uint64_t progress_last_ns;

void cli_set_command(const char *name)
{
	static char buf[64];
	snprintf(buf, sizeof(buf), "jitprof %s", name);
	for (char *p = buf; *p; p++)	/* as users type it: buildid-list, not buildid_list */
		if (*p == '_')
			*p = '-';
	command = buf;
	jp_nomem_prefix(buf);
}

void cli_set_quiet(int q)
{
	quiet = q;
}

/* "jitprof CMD: KIND" and a message: its own newlines are lines, anything else that is not
 * printable escaped (a message a library formatted has its data escaped already). */
static void say(const char *kind, const char *msg)
{
	if (progress_shown)
		cli_progress_end();
	fprintf(stderr, "%s: %s", command, kind);
	sio_fputs_message(msg, stderr);
	fputc('\n', stderr);
}

/* The format is the message (printed as it is, lines and all); what it quotes from a
 * recording, every %s argument, is escaped: a terminal's escape sequences and newlines in a
 * name show as \xNN and cannot forge a line. */
static void vsay(const char *kind, const char *fmt, va_list ap)
{
	char small[1024], *msg = small;
	va_list aq;

	va_copy(aq, ap);
	int n = sio_vsnprintf_text(small, sizeof(small), fmt, aq);
	va_end(aq);
	if (n >= (int)sizeof(small) && (msg = malloc((size_t)n + 1)))
		sio_vsnprintf_text(msg, (size_t)n + 1, fmt, ap);
	say(kind, n < 0 ? fmt : msg ? msg : small);	/* out of memory: what fits */
	if (msg != small)
		free(msg);
}

int cli_error_msg(const char *lead, const char *msg)
{
	char *all = NULL;

	if (asprintf(&all, "%s%s", lead, msg) < 0)
		all = NULL;
	say("error: ", all ? all : msg);
	free(all);
	return 1;
}

int cli_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsay("error: ", fmt, ap);
	va_end(ap);
	return 1;
}

int cli_version(void)
{
	printf("jitprof %s\n", JITPROF_VERSION);
	return 0;
}

int cli_check_freq(uint64_t hz)
{
	char buf[32] = "";
	unsigned long long max;
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");

	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f) || sscanf(buf, "%llu", &max) != 1 || max == 0) {
		fclose(f);
		return 0;
	}
	fclose(f);
	if (hz <= max)
		return 0;
	return cli_usage_error("-F %llu: above the kernel's limit of %llu Hz "
			       "(kernel.perf_event_max_sample_rate; raise it with sysctl, or ask "
			       "for less)", (unsigned long long)hz, max);
}

int cli_usage_brief(void (*usage)(FILE *out))
{
	char *text = NULL, *end;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	if (!mem) {
		usage(stderr);
		return 2;
	}
	usage(mem);
	fclose(mem);
	end = text ? strstr(text, "\n\n") : NULL;
	if (text)
		fprintf(stderr, "%.*s\n", end ? (int)(end - text) : (int)len, text);
	free(text);
	fprintf(stderr, "see '%s --help'\n", command);
	return 2;
}

int cli_refuse_binary_tty(const char *path, const char *what)
{
	if (!path || strcmp(path, "-") || !isatty(STDOUT_FILENO))
		return 0;
	return cli_usage_error("refusing to write %s to a terminal; use -o FILE or a pipe", what);
}

int cli_usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsay("error: ", fmt, ap);
	va_end(ap);
	fprintf(stderr, "see '%s --help'\n", command);
	return 2;
}

int cli_debuginfod_timeout(const char *v, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long n = strtoul(v, &end, 10);
	if (!*v || *end || errno || !n || n > 86400 || *v == '-')
		return cli_usage_error("--debuginfod-timeout: '%s' is not a number of seconds "
				       "(1 to 86400)", v);
	*out = n;
	return 0;
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsay("warning: ", fmt, ap);
	va_end(ap);
}

static void log_pass(struct cli_log *l, enum jp_level level, const char *msg)
{
	if (l->fn)
		l->fn(l->ctx, level, msg);
	else if (level != JP_LOG_INFO)
		say("warning: ", msg);	/* jp_logf escaped what it quotes */
	else if (!quiet)
		say("", msg);
}

void cli_log_drop(void *ctx, enum jp_level level, const char *msg)
{
	(void)ctx, (void)level, (void)msg;
}

/* The held message said through fn and let go. */
static void pass_held(struct cli_log *l)
{
	if (l->holding)
		log_pass(l, JP_LOG_ERROR, l->held);
	free(l->held);
	l->held = NULL;
	l->holding = 0;
}

void cli_log_msg(void *ctx, enum jp_level level, const char *msg)
{
	struct cli_log *l = ctx;
	pass_held(l);
	if (level != JP_LOG_ERROR) {
		log_pass(l, level, msg);
		return;
	}
	/* kept whole (a path can be long); without the memory for it, the process cannot go on
	 * to say the error it is about to return */
	if (!(l->held = strdup(msg)))
		jp_nomem("an error message");
	l->holding = 1;
}

int cli_log_done(struct cli_log *l, int rc)
{
	if (rc >= 0) {
		pass_held(l);
		return 0;
	}
	int said = l->holding ? cli_error_msg(l->lead ? l->lead : "", l->held)
			      : cli_error("%s%s", l->lead ? l->lead : "", strerror(-rc));
	free(l->held);
	l->held = NULL;
	l->holding = 0;
	return said;
}

void cli_info(const char *fmt, ...)
{
	if (quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsay("", fmt, ap);
	va_end(ap);
}

int cli_check_input_owner(const char *path, int force)
{
	struct stat sb;
	if (force || !strcmp(path, "-") || stat(path, &sb) || sb.st_uid == geteuid() ||
	    sb.st_uid == 0)
		return 0;
	return cli_error("%s: not owned by the current user (uid %u) or root but by uid %u; "
			 "use -f to read it anyway", path, (unsigned)geteuid(), (unsigned)sb.st_uid);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void cli_progress(const char *what, uint64_t done, uint64_t total)
{
	if (quiet || !isatty(STDERR_FILENO))
		return;
	uint64_t t = now_ns();
	if (progress_shown && t - progress_last_ns < 100000000ull && done != total)
		return;
	progress_last_ns = t;
	if (total)
		fprintf(stderr, "\r%s: %llu/%llu (%u%%)   ", what, (unsigned long long)done,
			(unsigned long long)total, (unsigned)(done * 100 / total));
	else
		fprintf(stderr, "\r%s: %llu   ", what, (unsigned long long)done);
	progress_shown = 1;
}

void cli_progress_end(void)
{
	if (progress_shown)
		fputs("\r\033[K", stderr);
	progress_shown = 0;
}

/* The null device is the one non-regular output that can neither leak nor stall: -o /dev/null
 * is written in place. Every other FIFO, device or socket at the name is refused. */
static int is_null_device(const struct stat *sb)
{
	return S_ISCHR(sb->st_mode) && major(sb->st_rdev) == 1 && minor(sb->st_rdev) == 3;
}

static int outfile_fp(struct cli_outfile *o, int fd)
{
	o->fp = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!o->fp) {
		int err = -errno;
		if (fd >= 0)
			close(fd);
		return err;
	}
	o->unseekable = lseek(o->fd, 0, SEEK_CUR) < 0;
	return 0;
}

int cli_outfile_open(struct cli_outfile *o, const char *path)
{
	struct stat sb;
	int rc;

	memset(o, 0, sizeof(*o));
	o->fd = o->out.fd = o->out.dirfd = -1;
	if (!strcmp(path, "-")) {
		o->is_stdout = o->direct = 1;
		o->fp = stdout;
		o->fd = STDOUT_FILENO;
		o->unseekable = lseek(o->fd, 0, SEEK_CUR) < 0;
		return 0;
	}
	if (stat(path, &sb) == 0 && is_null_device(&sb)) {
		o->direct = 1;
		o->fd = open(path, O_WRONLY | O_CLOEXEC);
		if (o->fd < 0)
			return -errno;
		if ((rc = outfile_fp(o, fcntl(o->fd, F_DUPFD_CLOEXEC, 0))) < 0) {
			close(o->fd);
			o->fd = -1;
			return rc;
		}
		o->pending = 1;
		return 0;
	}
	/* A fresh file named only on commit: nothing planted at path (or at a temp name) is
	 * ever opened, so a FIFO there can neither stall us nor read what we write. */
	if ((rc = sio_out_open_path(&o->out, path, 0644)) < 0)
		return rc;
	o->fd = o->out.fd;
	/* the stream gets its own descriptor: o->fd must stay open until the file is named */
	if ((rc = outfile_fp(o, fcntl(o->fd, F_DUPFD_CLOEXEC, 0))) < 0) {
		sio_out_abort(&o->out);
		o->fd = -1;
		return rc;
	}
	o->pending = 1;
	return 0;
}

int cli_outfile_commit(struct cli_outfile *o)
{
	int err = 0;
	if (o->is_stdout)
		return fflush(stdout) ? -errno : 0;
	if (fflush(o->fp) || ferror(o->fp))
		err = -(errno ? errno : EIO);
	if (fclose(o->fp) && !err)
		err = -errno;
	o->fp = NULL;
	if (o->direct) {
		if (close(o->fd) && !err)
			err = -errno;
	} else if (err) {
		sio_out_abort(&o->out);
	} else {
		err = sio_out_commit(&o->out);
	}
	o->fd = -1;
	o->pending = 0;
	return err;
}

void cli_outfile_abort(struct cli_outfile *o)
{
	if (o->is_stdout)
		return;
	if (o->fp)
		fclose(o->fp);
	if (o->direct && o->fd >= 0)
		close(o->fd);
	else
		sio_out_abort(&o->out);
	memset(o, 0, sizeof(*o));
	o->fd = o->out.fd = o->out.dirfd = -1;
}

int cli_append_event(char *buf, size_t len, const char *ev)
{
	size_t used = strlen(buf);

	if (!*ev || used + 1 + strlen(ev) >= len)
		return cli_usage_error("-e: '%s' is empty or the events are too long", ev);
	snprintf(buf + used, len - used, "%s%s", used ? "," : "", ev);
	return 0;
}
