/* cmd_profile_data.c - what `jitprof profile` reads once the recording is over: how many
 * samples, loads and dumps it holds, which JVM's compilation log to join (--jvm-log), node's
 * files brought out of the working directory, and the hottest row for the closing line. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "jitdump/jitdump.h"
#include "recorder/cli.h"
#include "recorder/cmd_profile.h"
#include "recorder/perfdata/perfdata.h"

/* Samples in a recording, code loads of jitted methods (MMAP2 of jitted-*.so) and jitdump
 * markers (mappings of jit-PID.dump); the samples of each pid in c->log_pid. */
void profile_count(const char *path, const char *cwd, struct counts *c)
{
	struct pd_reader *r;
	struct pd_event ev;
	uint32_t pid;
	size_t cwd_len = strlen(cwd);

	c->samples = c->loads = c->markers = 0;
	c->nr_cwd_dumps = c->dumps_elsewhere = 0;
	memset(c->log_samples, 0, sizeof(c->log_samples));
	if (pd_reader_open(&r, path, NULL))
		return;
	while (pd_reader_next(r, &ev) == 1) {
		if (ev.type == 9) {	/* PERF_RECORD_SAMPLE */
			c->samples++;
			for (int i = 0; i < c->nr_logs; i++)
				c->log_samples[i] += (pid_t)ev.u.sample.pid == c->log_pid[i];
		} else if ((ev.type == 1 || ev.type == 10) && ev.u.mmap.filename) {
			c->loads += strstr(ev.u.mmap.filename, "/jitted-") != NULL;
			if (!jd_is_marker_name(ev.u.mmap.filename, &pid))
				continue;
			c->markers++;
			const char *f = ev.u.mmap.filename, *slash = strrchr(f, '/');
			int seen = 0;
			for (int i = 0; i < c->nr_cwd_dumps; i++)
				seen |= c->cwd_dump_pid[i] == (pid_t)pid;
			if (seen)
				continue;
			if (cwd[0] && slash && (size_t)(slash - f) == cwd_len &&
			    !strncmp(f, cwd, cwd_len) && c->nr_cwd_dumps < MAX_MARKED)
				c->cwd_dump_pid[c->nr_cwd_dumps++] = (pid_t)pid;
			else
				c->dumps_elsewhere = 1;
		}
	}
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

/* "; hottest: SYMBOL (P%)" from the first row of a text report's table, or "". */
void profile_hottest(const char *report, char *buf, size_t len)
{
	char line[4096];
	FILE *f = fopen(report, "re");

	buf[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		char *sym = strstr(line, "] ");
		double pct;
		if (line[0] == '#' || sscanf(line, " %lf%%", &pct) != 1 || !sym)
			continue;
		sym[strcspn(sym, "\n")] = '\0';
		snprintf(buf, len, "; hottest: %.200s (%.1f%%)", sym + 2, pct);
		break;
	}
	if (f)
		fclose(f);
}
