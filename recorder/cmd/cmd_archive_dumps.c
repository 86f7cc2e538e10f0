/* cmd_archive_dumps.c - the jitdumps of a recording into `jitprof archive`'s tar. The ELFs
 * (by build-id) give the sampled generations their symbols and lines; the generations view
 * also wants the ones no sample landed in, and every generation's tier, level and compile id,
 * which only the dump (and its .jitprof companion) holds. They are packed by file name under
 * RP_ARCHIVE_DUMPS, where report --archive looks for a dump that is not where inject read it.
 * A dump is a path a recording names: read as a regular file of ours or root's (or anyone's
 * with -f), within the archive's budget. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jitdump/jitdump.h"
#include "lib/grow.h"
#include "recorder/cmd/cli.h"
#include "recorder/cmd/cmd_archive.h"
#include "recorder/report/report.h"

/* The dump beside a jitted ELF (dir/jitted-PID-N.so -> dir/jit-PID.dump) into buf; 0 when
 * name is no jitted ELF's. */
static int dump_of(const char *name, char *buf, size_t len)
{
	const char *base = strrchr(name, '/');
	unsigned pid;
	char tail;

	if (!base || sscanf(base + 1, "jitted-%u-%*u.s%c", &pid, &tail) != 2 || tail != 'o')
		return 0;
	int n = snprintf(buf, len, "%.*s/jit-%u.dump", (int)(base - name), name, pid);
	return n > 0 && (size_t)n < len;
}

/* One file (path) as member; a file that is absent is no error (a dump without companion),
 * one that is not ours a warning. 1 added, 0 not, or -errno. */
static int add_one(struct archive_job *j, const char *path, const char *member)
{
	struct stat st;
	char why[128];
	void *buf;
	size_t len;
	int rc;

	if (lstat(path, &st))
		return 0;
	if (!S_ISREG(st.st_mode)) {
		cli_warn("%s: not a regular file: not archived", path);
		return 0;
	}
	if (!j->force && sio_owner_check(&st, geteuid(), why, sizeof(why))) {
		cli_warn("%s: %s: not archived (-f archives it)", path, why);
		return 0;
	}
	if ((rc = archive_budget_take(j, (size_t)st.st_size, path)) < 0)
		return rc;
	if ((rc = archive_slurp(path, &buf, &len)) < 0) {
		cli_warn("%s: %s: not archived", path, sio_strerror(rc));
		return 0;
	}
	if (!(rc = archive_budget_take(j, len, path)) && !(rc = archive_add_file(j, member, buf,
										  len))) {
		j->bytes += len;
		if (j->verbose)
			cli_info("%s %s", member, path);
	}
	free(buf);
	return rc ? rc : 1;
}

/* Member names already used: two directories' jit-PID.dump of one pid keep the first. */
static int seen(char **names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return 1;
	return 0;
}

int archive_add_dumps(struct archive_job *j, struct sym_session *ss)
{
	char dump[PATH_MAX], comp[PATH_MAX + 16], member[PATH_MAX];
	char **names = NULL;	/* a few: one per process that wrote a dump */
	size_t n = 0, cap = 0;
	int rc = 0;

	for (struct sym_dso *d = sym_dso_next(ss, NULL); d && rc >= 0; d = sym_dso_next(ss, d)) {
		if (!dump_of(sym_dso_long_name(d), dump, sizeof(dump)))
			continue;
		const char *base = strrchr(dump, '/') + 1;
		if (seen(names, n, base))
			continue;
		if (JP_GROW_FOR(names, cap, n) || !(names[n] = strdup(base))) {
			rc = -ENOMEM;
			break;
		}
		n++;
		snprintf(member, sizeof(member), RP_ARCHIVE_DUMPS "/%s", base);
		if ((rc = add_one(j, dump, member)) <= 0)
			continue;
		j->dumps++;
		if (jd_ext_path(dump, comp, sizeof(comp)) == 0) {
			snprintf(member, sizeof(member), RP_ARCHIVE_DUMPS "/%s" JD_EXT_SUFFIX, base);
			rc = add_one(j, comp, member);
		}
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc < 0 ? rc : 0;
}
