/* procs.c - each process's executable, as its mappings give it: what an export names the
 * profile's main binary (pprof shows the first mapping as "File:", and the recording's first
 * frames are often the kernel's). The first file mapped executable in a process that is no
 * shared library, jitted code, jitdump marker or anonymous memory is its executable: the
 * kernel maps the program before its libraries, and perf's synthesized mappings list
 * /proc/PID/maps in address order, where the program comes first. An exec starts over (a
 * launcher such as env or a shell script runs first in the pid a JVM ends up in); a new
 * process runs its parent's program until it execs. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "jitdump/jitdump.h"
#include "lib/grow.h"
#include "recorder/report_model/model.h"

/* A shared library as pprof tells them apart: "*.so" or "*.so.N...". */
static int is_library(const char *base)
{
	const char *so = strstr(base, ".so");
	for (; so; so = strstr(so + 1, ".so"))
		if (!so[3] || so[3] == '.' || so[3] == '_')
			return 1;
	return 0;
}

/* pid's entry (its program, or NULL since an exec), or NULL when none was ever made: found
 * through a map, since every mapping of a system-wide recording asks. */
static struct rp_proc_exe *find(const struct rp_session *s, uint32_t pid)
{
	uint32_t i;
	return rp_map_get(&s->exe_of, (uint64_t)pid + 1, &i) ? &s->exes[i - 1] : NULL;
}

/* pid's program is name from now on. */
static void set(struct rp_session *s, uint32_t pid, const char *name)
{
	struct rp_proc_exe *e = find(s, pid);
	if (e) {
		e->name = name;
		return;
	}
	if (!name)
		return;
	if (JP_GROW_FOR(s->exes, s->exes_cap, s->nr_exes))
		return;	/* then no name: the export goes without it */
	if (rp_map_put(&s->exe_of, (uint64_t)pid + 1, (uint32_t)s->nr_exes + 1) < 0)
		return;
	s->exes[s->nr_exes++] = (struct rp_proc_exe){ pid, name };
}

void rp_note_mapping(struct rp_session *s, uint32_t pid, const char *path, int exec)
{
	uint32_t marker;
	if (!exec || !path || path[0] != '/' || !strncmp(path, "//", 2) ||
	    !strncmp(path, "/memfd:", 7) || rp_is_jitted_name(path, NULL, NULL) ||
	    jd_is_marker_name(path, &marker) == 1)
		return;
	const char *base = strrchr(path, '/') + 1;
	if (!*base || is_library(base))
		return;
	const struct rp_proc_exe *e = find(s, pid);
	if (e && e->name)
		return;	/* the first one since the exec is the program */
	set(s, pid, rp_intern(s, base));
}

void rp_note_exec(struct rp_session *s, uint32_t pid)
{
	struct rp_proc_exe *e = find(s, pid);
	if (e)
		e->name = NULL;
}

void rp_note_fork(struct rp_session *s, uint32_t parent, uint32_t child)
{
	const struct rp_proc_exe *p = find(s, parent);
	set(s, child, p ? p->name : NULL);	/* NULL: a pid used again forgets its old one */
}

const char *rp_process_exe(const struct rp_session *s, uint32_t pid)
{
	const struct rp_proc_exe *e = find(s, pid);
	return e ? e->name : NULL;
}

const char *rp_comm_unknown(struct rp_session *s, uint32_t pid, uint32_t tid)
{
	char buf[16];

	/* perf's names: the idle task is "swapper"; a thread no COMM named, ":TID". */
	if (pid == 0 && tid == 0)
		return rp_intern(s, "swapper");
	snprintf(buf, sizeof(buf), ":%d", (int)tid);
	return rp_intern(s, buf);
}
