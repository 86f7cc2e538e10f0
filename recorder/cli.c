/* cli.c - error reporting, progress and atomic output files for the jitprof commands. */
#include "recorder/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
	command = buf;
}

void cli_set_quiet(int q)
{
	quiet = q;
}

static void vsay(const char *kind, const char *fmt, va_list ap)
{
	if (progress_shown)
		cli_progress_end();
	fprintf(stderr, "%s: %s", command, kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
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

void cli_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsay("warning: ", fmt, ap);
	va_end(ap);
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

/* Existing non-regular files are opened for writing as they are. */
static int outfile_open_direct(struct cli_outfile *o, const char *path, const struct stat *sb)
{
	if (S_ISDIR(sb->st_mode))
		return -EISDIR;
	o->fd = open(path, O_WRONLY | O_CLOEXEC);
	if (o->fd < 0)
		return -errno;
	o->fp = fdopen(o->fd, "w");
	if (!o->fp) {
		int err = -errno;
		close(o->fd);
		o->fd = -1;
		return err;
	}
	o->direct = 1;
	o->unseekable = lseek(o->fd, 0, SEEK_CUR) < 0;
	return 0;
}

int cli_outfile_open(struct cli_outfile *o, const char *path)
{
	struct stat sb;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	if (!strcmp(path, "-")) {
		o->is_stdout = o->direct = 1;
		o->fp = stdout;
		o->fd = STDOUT_FILENO;
		o->unseekable = lseek(o->fd, 0, SEEK_CUR) < 0;
		return 0;
	}
	if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
		return outfile_open_direct(o, path, &sb);
	o->path = strdup(path);
	if (!o->path || asprintf(&o->tmp, "%s.tmp.%d", path, (int)getpid()) < 0) {
		free(o->path);
		return -ENOMEM;
	}
	/* The temp name is predictable: never write through a link planted there. */
	unlink(o->tmp);
	o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (o->fd < 0) {
		int err = -errno;
		free(o->path);
		free(o->tmp);
		o->tmp = o->path = NULL;
		return err;
	}
	o->fp = fdopen(o->fd, "w");
	if (!o->fp) {
		int err = -errno;
		cli_outfile_abort(o);
		return err;
	}
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
	o->fd = -1;
	if (o->direct)
		return err;
	if (!err && rename(o->tmp, o->path))
		err = -errno;
	if (err)
		unlink(o->tmp);
	free(o->path);
	free(o->tmp);
	o->path = o->tmp = NULL;
	return err;
}

void cli_outfile_abort(struct cli_outfile *o)
{
	if (o->is_stdout)
		return;
	if (o->fp)
		fclose(o->fp);
	else if (o->fd >= 0)
		close(o->fd);
	if (o->tmp)
		unlink(o->tmp);
	free(o->path);
	free(o->tmp);
	memset(o, 0, sizeof(*o));
	o->fd = -1;
}
