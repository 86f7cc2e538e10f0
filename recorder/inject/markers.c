/* markers.c - finding the jitdumps a recording names: marker mappings (perf's jit-<pid>.dump
 * rule), --jit-dir remapping, the clock check perf makes, and the runtime's anonymous code
 * mappings perf drops once a process has a dump. File-mode input is prescanned so every dump
 * is known before the first sample, whatever the file order of markers and samples. */
#include "lib/grow.h"
#include "lib/nomem.h"
#include "recorder/inject/inject_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void inj_warnf(struct inj_run_state *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	jp_vlogf(&s->o->log, JP_LOG_WARN, fmt, ap);
	va_end(ap);
}

/* The run's message kept whole; without the memory for it the run cannot say why it fails. */
static void run_err_keep(struct inj_run_state *s, const char *msg)
{
	char *m = strdup(msg);
	if (!m)
		jp_nomem("the run's error message");
	free(s->err);
	s->err = m;
}

static void run_err_latest(void *ctx, enum jp_level level, const char *msg)
{
	if (level == JP_LOG_ERROR)
		run_err_keep(ctx, msg);
}

static void run_err_first(void *ctx, enum jp_level level, const char *msg)
{
	struct inj_run_state *s = ctx;
	if (level == JP_LOG_ERROR && !s->err)
		run_err_keep(s, msg);
}

void inj_run_fail(struct inj_run_state *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	jp_vlogf(&(struct jp_log){ run_err_latest, s }, JP_LOG_ERROR, fmt, ap);
	va_end(ap);
}

const struct jp_log *inj_run_errlog(struct inj_run_state *s)
{
	free(s->err);
	s->err = NULL;
	s->errlog = (struct jp_log){ run_err_first, s };
	return &s->errlog;
}

/* perf inject's rule: a monotonic dump needs every event on CLOCK_MONOTONIC. */
static int check_clock(struct inj_run_state *s, const struct pd_reader *r,
		       const struct inj_dump *d, int arch)
{
	if (arch) {
		if (s->tc.valid)
			return 0;
		inj_run_fail(s, "%s uses arch (TSC) timestamps but the recording has no "
			     "TIME_CONV to convert them; record without -k", d->path);
		return -EINVAL;
	}
	for (size_t i = 0; i < pd_reader_nr_evsels(r); i++) {
		const struct perf_event_attr *a = &pd_reader_evsel(r, i)->attr;
		if (!a->use_clockid || a->clockid != CLOCK_MONOTONIC) {
			inj_run_fail(s, "%s is on CLOCK_MONOTONIC but event %zu of %s is not "
				     "(%s); its times cannot be merged: record with -k mono (perf "
				     "record -k mono, jitprof record -k mono)", d->path, i,
				     s->o->input,
				     a->use_clockid ? "another clockid" : "perf's default clock");
			return -EINVAL;
		}
	}
	return 0;
}

static int already_have(struct inj_run_state *s, uint32_t pid, const char *path)
{
	for (size_t i = 0; i < s->nr_dumps; i++)
		if (s->dumps[i]->pid == pid && !strcmp(s->dumps[i]->path, path))
			return 1;
	return 0;
}

static int same_file(const struct inj_dfile *f, const struct stat *sb)
{
	return f->ino && f->ino == (uint64_t)sb->st_ino && f->dev == (uint64_t)sb->st_dev &&
	       f->size == (int64_t)sb->st_size &&
	       f->mtime_ns == (uint64_t)sb->st_mtim.tv_sec * 1000000000u + sb->st_mtim.tv_nsec &&
	       f->ctime_ns == (uint64_t)sb->st_ctim.tv_sec * 1000000000u + sb->st_ctim.tv_nsec;
}

/* The file read already, by a marker of another process or by another part (issue 16 finding
 * 9: markers of many pids naming one large dump must not read and index it once per pid). */
static struct inj_dfile *find_file(const struct inj_run_state *s, const struct stat *sb)
{
	for (size_t i = 0; i < s->nr_dumps; i++)
		if (s->dumps[i]->df && same_file(s->dumps[i]->df, sb))
			return s->dumps[i]->df;
	return NULL;
}

/* Processes whose markers name this dump file already (INJ_MAX_PIDS_PER_DUMP bounds them:
 * each costs the dump's timeline and an MMAP2 per load in the output again). */
static unsigned pids_of_file(const struct inj_run_state *s, const struct stat *sb)
{
	unsigned n = 0;
	for (size_t i = 0; i < s->nr_dumps; i++) {
		const struct inj_dfile *f = s->dumps[i]->df;
		n += !s->dumps[i]->superseded && f && f->ino == (uint64_t)sb->st_ino &&
		     f->dev == (uint64_t)sb->st_dev && sb->st_ino;
	}
	return n;
}

/* --no-elfs maps the user's own dumps instead of copying them (JD_INDEX_MAP_OWN: a third of
 * its time went to the copy), and refuses the run if one shrank meanwhile (inj_dumps_shrunk).
 * Writing ELFs copies: an ELF written from a dump that shrank would stay behind. */
static unsigned index_flags(const struct inj_run_state *s)
{
	return s->o->no_elfs ? JD_INDEX_MAP_OWN : 0;
}

/* libjitdump's jd_index_open_flags, its message (the path in it, up to PATH_MAX) into log. */
static int index_open(struct inj_run_state *s, struct jd_index **x, int dirfd, const char *base,
		      const char *path, const struct jp_log *log)
{
	char err[PATH_MAX + 512] = "";	/* the library's buffer */
	int rc = jd_index_open_flags(x, dirfd, base, path, index_flags(s), err, sizeof(err));
	if (rc < 0 && err[0])
		jp_logf(log, JP_LOG_ERROR, "%s", err);
	return rc;
}

/* The dump is opened through its directory, and that directory fd is where its ELFs go: the
 * text of a recorded path can name one directory while its symlinks lead the kernel to
 * another, so only the directory actually reached is ever written to (issue 16). The file is
 * indexed only when no other process or part read the same one (*f then set, shared); a file
 * named by INJ_MAX_PIDS_PER_DUMP processes already is not read again (-E2BIG). Why it
 * failed goes to log, whole. */
static int open_dump(struct inj_run_state *s, const char *path, int count_pids, int *dirfd,
		     struct stat *sb, int *shareable, struct inj_dfile **f, struct jd_index **x,
		     const struct jp_log *log)
{
	char dir[4096];
	struct stat after;
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	*f = NULL;
	*x = NULL;
	*shareable = 0;
	if (inj_dirname(path, dir, sizeof(dir)) < 0)
		return -ENAMETOOLONG;
	*dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (*dirfd < 0) {
		int rc = -errno;
		jp_logf(log, JP_LOG_ERROR, "%s: %s", dir, strerror(-rc));
		return rc;
	}
	int rc = 0;
	if (fstatat(*dirfd, base, sb, AT_SYMLINK_NOFOLLOW))
		memset(sb, 0, sizeof(*sb));
	if (count_pids && pids_of_file(s, sb) >= INJ_MAX_PIDS_PER_DUMP) {
		jp_logf(log, JP_LOG_ERROR, "named by more than %u processes "
			"(INJ_MAX_PIDS_PER_DUMP)", INJ_MAX_PIDS_PER_DUMP);
		rc = -E2BIG;
	} else if (sb->st_ino && (*f = find_file(s, sb))) {
		return 0;
	} else if ((rc = index_open(s, x, *dirfd, base, path, log)) >= 0) {
		s->st->dumps_indexed++;
		/* Changed while read (a live writer): this index is nobody else's. */
		*shareable = sb->st_ino && !fstatat(*dirfd, base, &after, AT_SYMLINK_NOFOLLOW) &&
			     after.st_ino == sb->st_ino && after.st_dev == sb->st_dev &&
			     after.st_size == sb->st_size &&
			     after.st_mtim.tv_sec == sb->st_mtim.tv_sec &&
			     after.st_mtim.tv_nsec == sb->st_mtim.tv_nsec &&
			     after.st_ctim.tv_sec == sb->st_ctim.tv_sec &&
			     after.st_ctim.tv_nsec == sb->st_ctim.tv_nsec;
	}
	if (rc < 0) {
		close(*dirfd);
		*dirfd = -1;
	}
	return rc;
}

/* ELFs go beside the dump only in a directory of the user running inject (or the sticky
 * /tmp of root's): anywhere else, someone else chose what is there and could swap it. */
static void trust_dir(struct inj_run_state *s, struct inj_dump *d)
{
	char why[160];
	if (!inj_dump_trust_dir(d, why, sizeof(why)))
		inj_warnf(s, "%s: its directory is %s: jitted-*.so files are written %s", d->path,
			  why, s->o->cache_root || s->o->fallback_cache_root ?
			  "only to the build-id cache" : "nowhere (--no-buildid-cache)");
}

/* Where a dump's marker was seen: what every part of that dump inherits. */
struct marker_src {
	uint32_t pid, nspid, cpu;
	uint64_t time, offset;
	const char *name;
};

/* Reads the dump at path and adds it to the run: the whole dump, or (prev set) one more part
 * of a followed dump with what was written since prev was read. 1 added, 0 nothing added
 * (unusable: warned; or no new record in the grown file), <0 refuse the run. */
static int add_part(struct inj_run_state *s, const struct pd_reader *r, const char *path,
		    const struct marker_src *m, struct inj_dump *prev)
{
	struct jd_index *x = NULL;
	struct inj_dfile *f = NULL;
	struct stat sb;
	struct jp_held why = { 0 };	/* quoted whole in the warning */
	int dirfd = -1;
	int shareable;
	int rc = open_dump(s, path, !prev, &dirfd, &sb, &shareable, &f, &x,
			   &(struct jp_log){ jp_log_hold, &why });
	int64_t size = sb.st_ino ? (int64_t)sb.st_size : -1;
	if (why.nomem)
		jp_nomem("an error message");
	if (rc == -ENOMEM) {	/* the dump is fine: its loads may not be left out */
		free(why.msg);
		inj_run_fail(s, "out of memory (reading jitdump %s)", path);
		return rc;
	}
	if (rc < 0 && prev) {
		prev->closed = 1;	/* stop following; what was read stays */
		inj_warnf(s, "jitdump %s: cannot read it again as it grew, its later code stays "
			  "unnamed: %s", path, why.msg ? why.msg : strerror(-rc));
		free(why.msg);
		return 0;
	}
	if (rc < 0) {
		s->st->dumps_missing++;
		inj_warnf(s, "jitdump %s (marker at offset %llu of %s) unusable, its code stays "
		      "unnamed: %s", path, (unsigned long long)m->offset, s->o->input,
		      why.msg ? why.msg : strerror(-rc));
		free(why.msg);
		return 0;
	}
	free(why.msg);
	const struct jd_index *cur = f ? f->x : x;
	if (prev && jd_index_nr_loads(cur) <= prev->nr_loads &&
	    jd_index_nr_moves(cur) <= prev->nr_moves) {
		/* grown by a partial record or by what we do not map: nothing new yet */
		prev->size = size;
		prev->closed = jd_index_stats(cur)->per_id[JD_CODE_CLOSE] > 0;
		if (x)
			jd_index_close(x);
		close(dirfd);
		return 0;
	}
	struct inj_dump *d = calloc(1, sizeof(*d));
	if (!d || JP_GROW_FOR(s->dumps, s->cap_dumps, s->nr_dumps)) {
		free(d);
		if (x)
			jd_index_close(x);
		close(dirfd);
		inj_run_fail(s, "out of memory");
		return -ENOMEM;
	}
	int arch = (jd_index_header(cur)->flags & JD_FLAGS_ARCH_TIMESTAMP) != 0;
	struct inj_dump_opts dopts = { arch, &s->tc, s->o->threads, prev ? prev->nr_loads : 0,
				       prev ? prev->nr_moves : 0, f, s->hasher };
	rc = inj_dump_init(d, x, path, &dopts, inj_run_errlog(s));
	d->dirfd = dirfd;	/* closed by inj_dump_fini from here on */
	if (!f && d->df && shareable) {	/* its identity, for the next marker naming it */
		d->df->dev = (uint64_t)sb.st_dev;
		d->df->ino = (uint64_t)sb.st_ino;
		d->df->size = (int64_t)sb.st_size;
		d->df->mtime_ns = (uint64_t)sb.st_mtim.tv_sec * 1000000000u + sb.st_mtim.tv_nsec;
		d->df->ctime_ns = (uint64_t)sb.st_ctim.tv_sec * 1000000000u + sb.st_ctim.tv_nsec;
	}
	if (rc == 0)
		trust_dir(s, d);
	if (rc == 0)
		rc = check_clock(s, r, d, arch);
	if (rc == 0 && !(d->marker = strdup(m->name)))
		rc = -ENOMEM;
	if (rc < 0) {
		inj_dump_fini(d);
		free(d);
		return rc;
	}
	d->pid = m->pid;
	d->nspid = m->nspid;
	d->marker_time = m->time;
	d->marker_cpu = m->cpu;
	d->size = size;
	if (prev) {
		prev->superseded = 1;
		d->waited_us = prev->waited_us;
		s->st->rereads++;
	} else {
		s->st->dumps++;
	}
	s->dumps[s->nr_dumps++] = d;
	if ((rc = inj_sim_add_dump(s->sim, d)) < 0)
		return rc;
	/* perf has already flushed up to here: earlier loads take effect now instead. */
	s->st->clamped += inj_dump_clamp(d, inj_sim_flush_limit(s->sim));
	if (d->nr_bad)
		inj_warnf(s, "%s: %zu code loads not injected (%s)", path, d->nr_bad, d->bad_msg);
	else if (d->nr_nolines)
		inj_warnf(s, "%s: %zu code loads injected without their inline or unwind tables "
			  "(%s)", path, d->nr_nolines, d->bad_msg);
	if (d->nr_trimmed)
		inj_warnf(s, "%s: %zu line-table entries outside their code or out of order dropped "
			  "in %zu code loads (the rest of each table kept)", path, d->nr_rows_dropped,
			  d->nr_trimmed);
	if (d->nr_renamed)
		inj_warnf(s, "%s: %zu line-table entries in %zu code loads name their file with "
			  "bytes that are not text (node 20 writes such names): given the script "
			  "their load names instead", path, d->nr_rows_renamed, d->nr_renamed);
	if (s->o->all)
		for (uint32_t i = (uint32_t)d->first_load; i < d->nr_loads; i++)
			if (!(d->loads[i].flags & (INJ_BAD | INJ_QUEUED))) {
				d->loads[i].flags |= INJ_QUEUED;
				if ((rc = inj_pool_push(s->pool, d, i)) < 0)
					return rc;
			}
	return 1;
}

int inj_marker_take(struct inj_run_state *s, const struct pd_reader *r,
		    const struct pd_event *ev, int open_new)
{
	const struct pd_mmap *m = &ev->u.mmap;
	uint32_t nspid;
	char path[4096];
	if (!jd_is_marker_name(m->filename, &nspid))
		return 0;
	if (inj_dump_path(m->filename, s->o->jit_dir, path, sizeof(path)) < 0) {
		inj_warnf(s, "%s: path too long, not injected", m->filename);
		return 0;
	}
	if (already_have(s, m->pid, path))
		return 1;
	if (!open_new)
		return 0;	/* the prescan found it unusable and said so */
	struct marker_src src = {
		.pid = m->pid == (uint32_t)-1 || m->pid == 0 ? nspid : m->pid, .nspid = nspid,
		.cpu = ev->has_sid ? ev->sid.cpu : 0, .time = ev->has_sid ? ev->sid.time : 0,
		.offset = ev->offset, .name = m->filename,
	};
	return add_part(s, r, path, &src, NULL);
}

/* A whole dump's tail damage, said once per dump: at once for a complete recording, at the
 * end for a followed one (a live writer's file often ends in a partial record meanwhile). */
void inj_dump_warn_salvaged(struct inj_run_state *s, struct inj_dump *d)
{
	const char *w = jd_index_warning(d->x);
	if (!w || !*w || d->superseded)
		return;
	s->st->dumps_salvaged++;
	inj_warnf(s, "%s: salvaged: the %zu code loads before the damage are injected, what "
		  "follows it is dropped (%s)", d->path, d->nr_loads, w);
}

/* 1 while the writer still has its marker mapped: it may write more. Only a live pipe
 * asks, and the marker's name in the writer's own maps tells a reused pid apart. */
static int writer_alive(const struct inj_dump *d)
{
	char maps[64], line[4608];
	snprintf(maps, sizeof(maps), "/proc/%u/maps", d->pid);
	FILE *f = fopen(maps, "re");
	int alive = 0;
	while (f && !alive && fgets(line, sizeof(line), f)) {
		char *nl = strchr(line, '\n'), *p = strchr(line, '/');
		if (nl)
			*nl = 0;
		alive = p && !strcmp(p, d->marker);
	}
	if (f)
		fclose(f);
	return alive;
}

#define FOLLOW_POLL_US 10000

int inj_follow(struct inj_run_state *s, const struct pd_reader *r, uint64_t upto)
{
	long long budget_ms = s->o->follow_wait_ms ? s->o->follow_wait_ms : INJ_FOLLOW_WAIT_MS;
	size_t n = s->nr_dumps;
	for (size_t i = 0; i < n; i++) {
		struct inj_dump *d = s->dumps[i];
		while (!d->superseded && !d->closed && d->newest < upto) {
			struct stat sb;
			if (!stat(d->path, &sb) && (int64_t)sb.st_size != d->size) {
				struct marker_src src = { d->pid, d->nspid, d->marker_cpu,
							  d->marker_time, 0, d->marker };
				int rc = add_part(s, r, d->path, &src, d);
				if (rc < 0)
					return rc;
				if (rc > 0)
					d = s->dumps[s->nr_dumps - 1];
				continue;
			}
			if (budget_ms < 0)
				break;
			if (!writer_alive(d)) {
				/* Gone, but it may have written its last records between the stat
				 * above and its exit: look once more, or a sample of this round
				 * would meet its load's MMAP2 only a round later. */
				if (!stat(d->path, &sb) && (int64_t)sb.st_size != d->size)
					continue;
				break;
			}
			if (d->waited_us >= (uint64_t)budget_ms * 1000) {
				if (d->waited_us != UINT64_MAX)
					s->st->behind++;	/* once per dump */
				d->waited_us = UINT64_MAX;
				break;
			}
			usleep(FOLLOW_POLL_US);
			d->waited_us += FOLLOW_POLL_US;
			s->st->wait_ms += FOLLOW_POLL_US / 1000;
		}
	}
	return 0;
}

int inj_marker_drop_anon(struct inj_run_state *s, const struct pd_event *ev)
{
	const struct pd_mmap *m = &ev->u.mmap;
	if (!inj_is_anon_code(m->filename))
		return 0;
	for (size_t i = 0; i < s->nr_dumps; i++)
		if (s->dumps[i]->pid == m->pid &&
		    (!ev->has_sid || ev->sid.time >= s->dumps[i]->marker_time))
			return 1;
	return 0;
}

int inj_dumps_shrunk(struct inj_run_state *s)
{
	for (size_t i = 0; i < s->nr_dumps; i++) {
		if (!jd_index_shrunk(s->dumps[i]->x))
			continue;
		inj_run_fail(s, "%s: the dump shrank while it was read (truncated by "
			     "its writer?): its build-ids cannot be trusted; inject it again",
			     s->dumps[i]->path);
		return -ESTALE;
	}
	return 0;
}

int inj_reader_open(struct inj_run_state *s, struct pd_reader **r)
{
	struct pd_reader_opts ro = { .sz = sizeof(ro), .log = *inj_run_errlog(s) };
	return pd_reader_open(r, s->o->input, &ro);	/* its message names file and offset */
}

struct prescan {
	struct inj_run_state *s;
	const struct pd_reader *r;
};

static int prescan_mmap(void *ctx, const struct pd_event *ev)
{
	struct prescan *p = ctx;
	int rc = inj_marker_take(p->s, p->r, ev, 1);
	return rc < 0 ? rc : 0;
}

static int prescan_other(void *ctx, const struct pd_event *ev)
{
	struct prescan *p = ctx;
	if (ev->type == PD_RECORD_TIME_CONV && !p->s->tc.valid)
		inj_time_conv_parse(&p->s->tc, ev->raw, ev->size);
	return 0;
}

/* Through the one replay driver in file order, as the main pass (run.c says why): the first
 * TIME_CONV in the file is the one taken, before the markers after it. */
int inj_prescan(struct inj_run_state *s)
{
	struct pd_reader *r = NULL;
	int rc = inj_reader_open(s, &r);
	if (rc < 0)
		return rc;
	struct prescan p = { s, r };
	const struct pd_tool tool = { .sz = sizeof(tool), .mmap = prescan_mmap,
				      .other = prescan_other, .ctx = &p,
				      .flags = PD_TOOL_FILE_ORDER | PD_TOOL_SKIP_SAMPLES };
	rc = pd_replay(r, &tool, NULL);
	pd_reader_close(r);
	s->prescanned = 1;
	if (rc == -ENOMEM && !s->err)	/* no memory is no damage: a dump left out */
		inj_run_fail(s, "out of memory (reading the recording's markers)");
	return rc < 0 && s->err ? rc : 0;	/* damage: the main pass reports it */
}
