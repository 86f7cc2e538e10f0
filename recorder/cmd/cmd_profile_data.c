/* cmd_profile_data.c - what `jitprof profile` reads once the recording is over: how many
 * samples, loads and dumps it holds, which JVM's compilation log to join (--jvm-log), node's
 * files brought out of the working directory, and the hottest row for the closing line. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "jitdump/jitdump.h"
#include "lib/nomem.h"
#include "recorder/cmd/cli.h"
#include "recorder/cmd/cmd_profile.h"
#include "recorder/perfdata/perfdata.h"
#include "safeio/safeio.h"

#define FUSE_MAGIC 0x65735546	/* a read there waits for whoever serves it */

/* Copies size bytes of in into a fresh out; -EINTR once a signal came. */
static int copy_bytes(int in, struct sio_out *o, uint64_t size)
{
	char buf[1 << 16];
	uint64_t off = 0;

	while (off < size) {
		size_t want = size - off < sizeof(buf) ? (size_t)(size - off) : sizeof(buf);
		ssize_t n = pread(in, buf, want, (off_t)off);
		if (profile_signal)
			return -EINTR;
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : 0;	/* shrank meanwhile: what there was */
		for (ssize_t w, done = 0; done < n; done += w)
			if ((w = write(o->fd, buf + done, (size_t)(n - done))) <= 0) {
				if (w < 0 && errno == EINTR && !profile_signal) {
					w = 0;
					continue;
				}
				return w < 0 ? -errno : -EIO;
			}
		off += (uint64_t)n;
	}
	return 0;
}

/* One staged file into the data directory; -errno with the reason in why. */
static int collect_one(struct profile *p, int stagefd, const char *name, uid_t uid, char *why,
		       size_t len)
{
	struct sio_out o;
	struct statfs fs;
	struct stat st;
	int fd = sio_open_beneath(stagefd, name), rc;

	if (fd < 0) {
		snprintf(why, len, "%s", fd == -ELOOP ? "a symbolic link" : sio_strerror(fd));
		return fd;
	}
	rc = fstat(fd, &st) || fstatfs(fd, &fs) ? -errno : 0;
	if (!rc && st.st_uid != uid) {
		snprintf(why, len, "owned by uid %u, not by the JVM's user (uid %u)",
			 (unsigned)st.st_uid, (unsigned)uid);
		rc = -EPERM;
	} else if (!rc && fs.f_type == FUSE_MAGIC) {
		snprintf(why, len, "on a FUSE file system");
		rc = -EPERM;
	} else if (!rc && (uint64_t)st.st_size > PROF_DUMP_MAX) {
		snprintf(why, len, "%llu bytes, more than the %llu a dump may have",
			 (unsigned long long)st.st_size, (unsigned long long)PROF_DUMP_MAX);
		rc = -EFBIG;
	} else if (rc) {
		snprintf(why, len, "%s", strerror(-rc));
	}
	if (!rc && (rc = sio_out_open(&o, p->dirfd, name, 0600)) < 0)
		snprintf(why, len, "its copy in the data directory: %s", sio_strerror(rc));
	else if (!rc && (rc = copy_bytes(fd, &o, (uint64_t)st.st_size)) < 0) {
		snprintf(why, len, "%s", rc == -EINTR ? "interrupted" : strerror(-rc));
		sio_out_abort(&o);
	} else if (!rc && (rc = sio_out_commit(&o)) < 0) {
		snprintf(why, len, "its copy in the data directory: %s", strerror(-rc));
	}
	close(fd);
	return rc;
}

int profile_collect_dumps(struct profile *p, int stagefd, uid_t uid, const char *shown)
{
	int fd = openat(stagefd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;
	char why[256];

	if (!d) {
		if (fd >= 0)
			close(fd);
		return cli_error("%s: %s", shown, strerror(errno));
	}
	while (!rc && (de = readdir(d))) {
		if (!prof_is_dump_file(de->d_name))
			continue;
		int r = collect_one(p, stagefd, de->d_name, uid, why, sizeof(why));
		if (r == -EINTR || r == -ENOSPC || r == -EIO)
			rc = cli_error("%s/%s: %s", shown, de->d_name, why);
		else if (r)
			cli_warn("%s/%s: %s: not read", shown, de->d_name, why);
	}
	closedir(d);
	return rc;
}

struct count_ctx {
	struct counts *c;
	const char *cwd;
	size_t cwd_len;
};

static int count_sample(void *ctx, const struct pd_event *ev)
{
	struct counts *c = ((struct count_ctx *)ctx)->c;
	c->samples++;
	for (int i = 0; i < c->nr_logs; i++)
		c->log_samples[i] += (pid_t)ev->u.sample.pid == c->log_pid[i];
	return 0;
}

/* A jitted method's code load (MMAP2 of a jitted-*.so) or a jitdump's marker mapping. */
static int count_mmap(void *ctx, const struct pd_event *ev)
{
	struct count_ctx *k = ctx;
	struct counts *c = k->c;
	const char *f = ev->u.mmap.filename, *slash;
	uint32_t pid;
	int seen = 0;

	if (!f)
		return 0;
	c->loads += strstr(f, "/jitted-") != NULL;
	if (!jd_is_marker_name(f, &pid))
		return 0;
	c->markers++;
	slash = strrchr(f, '/');
	for (int i = 0; i < c->nr_cwd_dumps; i++)
		seen |= c->cwd_dump_pid[i] == (pid_t)pid;
	if (seen)
		return 0;
	if (k->cwd[0] && slash && (size_t)(slash - f) == k->cwd_len &&
	    !strncmp(f, k->cwd, k->cwd_len) && c->nr_cwd_dumps < MAX_MARKED)
		c->cwd_dump_pid[c->nr_cwd_dumps++] = (pid_t)pid;
	else
		c->dumps_elsewhere = 1;
	return 0;
}

/* Samples in a recording, code loads of jitted methods (MMAP2 of jitted-*.so) and jitdump
 * markers (mappings of jit-PID.dump); the samples of each pid in c->log_pid. Read in file
 * order through perfdata's replay (only counts: no time order needed). */
void profile_count(const char *path, const char *cwd, struct counts *c)
{
	struct pd_reader *r;
	struct count_ctx k = { c, cwd, strlen(cwd) };
	const struct pd_tool tool = {
		.sz = sizeof(tool), .sample = count_sample, .mmap = count_mmap, .ctx = &k,
		.flags = PD_TOOL_FILE_ORDER,
	};

	c->samples = c->loads = c->markers = 0;
	c->nr_cwd_dumps = c->dumps_elsewhere = 0;
	memset(c->log_samples, 0, sizeof(c->log_samples));
	/* A regular file only, never blocking on a FIFO at the name. */
	int fd = sio_open_regular(path);
	if (fd < 0 || pd_reader_open_fd(&r, fd, path, NULL))
		return;
	jp_nomem_check(pd_replay(r, &tool, NULL), "counting a recording's samples");
	pd_reader_close(r);
}

/* The processes whose compilation log (jvm-pid<PID>.log) is in the data directory. */
void profile_find_jvm_logs(struct profile *p, struct counts *c)
{
	DIR *d = opendir(p->dir);
	struct dirent *de;
	pid_t pid;

	c->nr_logs = 0;
	while (d && (de = readdir(d)) && c->nr_logs < MAX_LOGS)
		if ((pid = prof_jvm_log_pid(de->d_name)))
			c->log_pid[c->nr_logs++] = pid;
	if (d)
		closedir(d);
}

void profile_pick_jvm_jfr(struct profile *p, int nspid)
{
	char path[sizeof(p->jvm_log_path)];
	struct stat st;

	if (snprintf(path, sizeof(path), "%s/jit-%d.jfr", p->jit_dir[0] ? p->jit_dir : p->dir,
		     nspid) >= (int)sizeof(path) || lstat(path, &st) || !S_ISREG(st.st_mode)) {
		cli_warn("--jvm-log: Java VM %d wrote no Flight Recording of its compiles (%s): the "
			 "report has no deoptimization reasons", nspid, path);
		return;
	}
	snprintf(p->jvm_log_path, sizeof(p->jvm_log_path), "%s", path);
}

/* The log of the JVM with the most samples (a launcher may start more than one). */
void profile_pick_jvm_log(struct profile *p, const struct counts *c)
{
	int best = -1;

	for (int i = 0; i < c->nr_logs; i++)
		if (best < 0 || c->log_samples[i] > c->log_samples[best])
			best = i;
	if (best < 0) {
		cli_warn("--jvm-log: no JVM wrote its compilation log into %s (killed before it "
			 "could?): the report has no deoptimization reasons", p->dir);
		return;
	}
	snprintf(p->jvm_log_path, sizeof(p->jvm_log_path), "%s/jvm-pid%d.log", p->dir,
		 (int)c->log_pid[best]);
	if (c->nr_logs > 1)
		cli_info("%d JVMs wrote a compilation log: joining that of process %d, which has the "
			 "most samples (%llu)", c->nr_logs, (int)c->log_pid[best],
			 c->log_samples[best]);
}

/* node (20) writes its jitdump, and V8 its code log, in its working directory: into the data
 * directory with the rest, when every dump of the recording is there (inject then reads them
 * with --jit-dir), so that a profile leaves nothing beside the user's files. */
void profile_tidy_node_files(struct profile *p, const struct counts *c)
{
	if (prof_runtime_of(p->cmd[0], p->forced) != PROF_RT_NODE || !p->cwd[0] ||
	    !c->nr_cwd_dumps || c->dumps_elsewhere || !strcmp(p->cwd, p->dir))
		return;
	int moved = prof_move_node_files(p->cwd, p->dir, c->cwd_dump_pid, c->nr_cwd_dumps);
	if (moved == c->nr_cwd_dumps)
		snprintf(p->jit_dir, sizeof(p->jit_dir), "%s", p->dir);
	else if (moved)		/* all or none: inject reads the dumps from one place */
		prof_move_node_files(p->dir, p->cwd, c->cwd_dump_pid, c->nr_cwd_dumps);
}

/* "; hottest Java method: NAME (P%)" from the methods view's closing comment, or for a
 * recording without jitted methods "; hottest: SYMBOL (P%)" from the heaviest symbol listed
 * under its groups; "" when there is neither. */
void profile_hottest(const char *report, char *buf, size_t len)
{
	char line[4096];
	FILE *f = fopen(report, "re");
	double best = -1;

	buf[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		double pct;
		int n = 0;
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "# hottest ", 10)) {
			snprintf(buf, len, "; %.250s", line + 2);
			break;
		}
		/* a group's symbol: "    P%  NAME", indented past the numbers */
		if (line[0] == ' ' && sscanf(line, " %lf%%  %n", &pct, &n) == 1 && n &&
		    strspn(line, " ") > 20 && pct > best) {
			best = pct;
			snprintf(buf, len, "; hottest: %.200s (%.1f%%)", line + n, pct);
		}
	}
	if (f)
		fclose(f);
}
