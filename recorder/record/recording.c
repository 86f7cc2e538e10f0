/* recording.c - one recording from start to finish: the workload held on a pipe until its
 * events are open, synthesis, the drain loop (FINISHED_ROUND after every pass that found
 * data), build-ids from the side thread, a clean stop when the caller's stop flag is raised
 * (its SIGINT/SIGTERM handler) or the workload exits, and the features written at the end.
 * A library: messages go to o->log, progress to o->progress; it installs no signal handler. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/opts.h"
#include "recorder/record/record_int.h"

struct session {
	const struct rec_opts *o;
	struct rec_stats *st;
	struct rec_events ev;
	struct pd_writer *w;
	struct rec_synth_ctx sc;
	uint8_t *tmp;
	struct rec_hold hold;	/* pipe mode: the round being drained */
	uint64_t first_time, last_time;
	pid_t child;
	int go_fd, err_fd;
	bool reaped;
};

int rec_parse_clock(const char *s)
{
	static const struct { const char *name; int id; } clocks[] = {
		{ "mono", 1 }, { "monotonic", 1 }, { "CLOCK_MONOTONIC", 1 },
		{ "raw", 4 }, { "monotonic_raw", 4 }, { "CLOCK_MONOTONIC_RAW", 4 },
		{ "boot", 7 }, { "boottime", 7 }, { "CLOCK_BOOTTIME", 7 },
		{ "realtime", 0 }, { "real", 0 }, { "CLOCK_REALTIME", 0 },
		{ "tai", 11 }, { "CLOCK_TAI", 11 },
	};
	char *end;
	long v;

	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++)
		if (!strcasecmp(s, clocks[i].name))
			return clocks[i].id;
	v = strtol(s, &end, 10);
	if (*s && !*end && (v == 0 || v == 1 || v == 4 || v == 7 || v == 11))
		return (int)v;
	return -EINVAL;
}

static int sink(void *ctx, const struct perf_event_header *h)
{
	struct session *s = ctx;
	struct pd_event e;
	struct rec_dso *d;

	s->st->records++;
	if (pd_decode_attr(&s->ev.evsels[0].attr, h, h->size, &e) == 0) {
		switch (h->type) {
		case PERF_RECORD_SAMPLE:
			s->st->samples++;
			/* The rings are drained CPU by CPU: the first drained is not the
			 * earliest. */
			if (!s->first_time || e.u.sample.time < s->first_time)
				s->first_time = e.u.sample.time;
			if (e.u.sample.time > s->last_time)
				s->last_time = e.u.sample.time;
			d = rec_hits_sample(s->sc.hits, e.u.sample.pid, e.u.sample.ip,
					    h->misc & PERF_RECORD_MISC_CPUMODE_MASK);
			if ((!d && rec_hits_nomem(s->sc.hits)) ||
			    (s->sc.pipe && rec_hold_need(&s->hold, d)))
				return -ENOMEM;
			break;
		case PERF_RECORD_MMAP:
		case PERF_RECORD_MMAP2:
			if (rec_note_mmap(&s->sc, &e.u.mmap, h->misc))
				return -ENOMEM;
			break;
		case PERF_RECORD_COMM:
			if (e.u.comm.exec)
				rec_hits_exec(s->sc.hits, e.u.comm.pid);
			break;
		case PERF_RECORD_FORK:
			if (rec_hits_fork(s->sc.hits, e.u.task.pid, e.u.task.ppid))
				return -ENOMEM;
			break;
		case PERF_RECORD_LOST:
		case PERF_RECORD_LOST_SAMPLES:
			s->st->lost += e.u.lost.lost;
			break;
		default:
			break;
		}
	}
	if (s->sc.pipe)
		return rec_hold_record(&s->hold, h);
	return pd_writer_write(s->w, h, h->size);
}

/* Build-ids the side thread found: pipe mode sends them at once (type 67), file mode keeps
 * them for the table of hit DSOs. */
static int take_build_ids(struct session *s)
{
	struct rec_bid_result res[64];
	size_t n;
	int err = 0;

	while ((n = rec_bid_poll(s->sc.bids, res, 64))) {
		for (size_t i = 0; i < n; i++) {
			struct rec_dso *d = rec_hits_dso(s->sc.hits, res[i].path,
							 PERF_RECORD_MISC_USER);
			if (!d) {
				err = -ENOMEM;	/* the id would be lost */
			} else if (res[i].size) {
				d->state = BID_KNOWN;
				d->id_size = (uint8_t)res[i].size;
				memcpy(d->id, res[i].id, res[i].size);
				s->st->build_ids++;
				if (s->sc.pipe && !err)
					err = pd_writer_add_build_id(s->w, -1, d->cpumode, d->id,
								     d->id_size, d->name);
			} else {
				d->state = BID_NONE;
			}
			free(res[i].path);
		}
	}
	return err ? err : rec_bid_error(s->sc.bids);
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Pipe mode: the held round goes out once the build-ids its samples need are out, or when
 * REC_BID_HOLD_MS ran out (those DSOs are counted). */
static int release_round(struct session *s)
{
	uint64_t start = now_ms();
	size_t pending;
	int err;

	while (!(err = take_build_ids(s)) && (pending = rec_hold_pending(&s->hold))) {
		if (now_ms() - start >= REC_BID_HOLD_MS) {
			s->st->late_dsos += pending;
			rec_hold_give_up(&s->hold);
			break;
		}
		struct timespec ts = { 0, 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	if (s->hold.nwait) {
		s->st->held_rounds++;
		s->st->held_ms += now_ms() - start;
	}
	return err ? err : rec_hold_flush(&s->hold, s->w);
}

static int drain_all(struct session *s)
{
	bool any = false;
	int err;

	for (size_t i = 0; i < s->ev.nrings; i++) {
		long n = rec_ring_drain(&s->ev.rings[i], s->tmp, sink, s);
		if (n < 0)
			return (int)n;
		any |= n > 0;
	}
	if (s->sc.pipe && (err = release_round(s)))
		return err;
	if (any && (err = pd_writer_finished_round(s->w)))
		return err;
	return take_build_ids(s);
}

/* The workload waits on go_fd until its events exist; exec failure comes back on err_fd. */
static int fork_workload(struct session *s)
{
	int go[2], ep[2];

	if (pipe2(go, O_CLOEXEC) || pipe2(ep, O_CLOEXEC))
		return -errno;
	s->child = fork();
	if (s->child < 0)
		return -errno;
	if (s->child == 0) {
		char c;
		int e;
		close(go[1]);
		close(ep[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (s->o->output && !strcmp(s->o->output, "-"))
			dup2(2, 1);	/* stdout carries the perf.data stream */
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(s->o->argv[0], s->o->argv);
		e = errno;
		if (write(ep[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ep[1]);
	s->go_fd = go[1];
	s->err_fd = ep[0];
	return 0;
}

static int start_workload(struct session *s)
{
	int e = 0;
	ssize_t n;

	if (write(s->go_fd, "g", 1) != 1)
		return -errno;
	close(s->go_fd);
	s->go_fd = -1;
	n = read(s->err_fd, &e, sizeof(e));
	close(s->err_fd);
	s->err_fd = -1;
	if (n == (ssize_t)sizeof(e)) {
		jp_logf(&s->o->log, JP_LOG_ERROR, "cannot run '%s': %s", s->o->argv[0],
			strerror(e));
		return -e;
	}
	return 0;
}

static int stop_requested(const struct session *s)
{
	return s->o->stop ? *s->o->stop : 0;
}

static void reap(struct session *s, int status)
{
	s->reaped = true;
	s->st->workload_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Polled by the drain loop (no SIGCHLD handler: signals belong to the command). */
static bool workload_exited(struct session *s)
{
	int status;

	if (s->child <= 0 || s->reaped || waitpid(s->child, &status, WNOHANG) != s->child)
		return false;
	reap(s, status);
	return true;
}

static void stop_workload(struct session *s, int sig)
{
	int status;

	if (s->child <= 0 || s->reaped)
		return;
	if (sig)
		kill(s->child, sig);
	/* Bounded: a workload that ignores the signal must not hold the file hostage. */
	for (int i = 0; i < 500; i++) {
		pid_t r = waitpid(s->child, &status, sig ? WNOHANG : 0);
		if (r == s->child) {
			reap(s, status);
			return;
		}
		if (r < 0)
			return;
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
}

static int set_features(struct session *s)
{
	const struct rec_opts *o = s->o;
	int err = pd_writer_set_host_features(s->w);

	if (!err && o->orig_argc > 0)
		err = pd_writer_set_cmdline(s->w, o->orig_argc, o->orig_argv);
	if (!err && o->clockid >= 0) {
		struct timespec res, tod, clk;
		clock_getres(o->clockid, &res);
		clock_gettime(CLOCK_REALTIME, &tod);
		clock_gettime(o->clockid, &clk);
		err = pd_writer_set_clock(s->w, o->clockid,
			(uint64_t)res.tv_sec * 1000000000ull + (uint64_t)res.tv_nsec,
			(uint64_t)tod.tv_sec * 1000000000ull + (uint64_t)tod.tv_nsec,
			(uint64_t)clk.tv_sec * 1000000000ull + (uint64_t)clk.tv_nsec);
	}
	return err;
}

/* File mode: one BUILD_ID entry per DSO that got samples (and whose id is known). */
static int finish_build_ids(struct session *s)
{
	int err = 0;

	rec_bid_stop(s->sc.bids);
	s->st->kept_deleted = rec_bid_kept(s->sc.bids);
	rec_bid_not_kept(s->sc.bids, &s->st->not_kept);
	err = take_build_ids(s);
	rec_hits_finish(s->sc.hits);
	for (size_t i = 0; i < rec_hits_nr_dsos(s->sc.hits) && !err && !s->sc.pipe; i++) {
		struct rec_dso *d = rec_hits_dso_at(s->sc.hits, i);
		if (d->hit && d->state == BID_KNOWN)
			err = pd_writer_add_build_id(s->w, -1, d->cpumode, d->id, d->id_size,
						     d->name);
	}
	if (!err && !s->sc.pipe && s->st->samples)
		err = pd_writer_set_sample_time(s->w, s->first_time, s->last_time);
	/* The vdso is in no file: a report can name its samples only from the cached image. */
	struct rec_dso *vdso = rec_hits_dso(s->sc.hits, "[vdso]", PERF_RECORD_MISC_USER);
	if (!err && s->o->buildid_dir && vdso && vdso->hit && vdso->state == BID_KNOWN) {
		int rc = rec_vdso_save(s->o->buildid_dir, vdso->id, vdso->id_size);
		s->st->vdso_saved = rc == 0;
		if (rc)
			jp_logf(&s->o->log, JP_LOG_WARN, "vdso image not saved in %s: %s",
				s->o->buildid_dir, strerror(-rc));
	}
	return err;
}

static void progress(struct session *s)
{
	if (s->o->progress)
		s->o->progress(s->o->ctx, s->st->samples, pd_writer_bytes(s->w));
}

static int loop(struct session *s)
{
	struct pollfd *pfd = calloc(s->ev.nrings, sizeof(*pfd));
	int err = 0;

	if (!pfd)
		return -ENOMEM;
	for (size_t i = 0; i < s->ev.nrings; i++)
		pfd[i] = (struct pollfd){ .fd = s->ev.rings[i].fd, .events = POLLIN };
	while (!err && !stop_requested(s)) {
		poll(pfd, s->ev.nrings, 100);
		err = drain_all(s);
		progress(s);
		if (workload_exited(s))
			break;
		if (s->o->pid && kill(s->o->pid, 0) && errno == ESRCH)
			break;	/* the attached process is gone */
	}
	free(pfd);
	return err;
}

static int setup(struct session *s)
{
	const struct rec_opts *o = s->o;
	pid_t *tids = NULL;
	size_t ntids = 0;
	bool workload = o->argv && o->argv[0];
	int err;

	if (workload && (err = fork_workload(s)))
		return err;
	if (o->pid && (err = rec_list_threads(o->pid, &tids, &ntids))) {
		if (err != -ENOMEM)	/* the command says that one */
			jp_logf(&o->log, JP_LOG_ERROR, "no such process %d", (int)o->pid);
		return err;
	}
	if (workload && !o->system_wide && !o->pid) {
		tids = malloc(sizeof(pid_t));
		if (!tids)
			return -ENOMEM;
		tids[0] = s->child;
		ntids = 1;
	}
	err = rec_events_open(&s->ev, o, tids, ntids, workload && !o->system_wide && !o->pid);
	free(tids);
	if (err)
		return err;
	if (!(s->st->event_name = rec_events_names(&s->ev)))
		return -ENOMEM;
	for (size_t i = 0; i < s->ev.nevsels; i++) {
		const struct rec_evsel *e = &s->ev.evsels[i];
		if ((err = pd_writer_add_attr(s->w, &e->attr, e->ids, e->nids, e->name)) < 0)
			return err;
	}
	if ((err = set_features(s)))
		return err;
	if (!s->ev.exclude_kernel && (err = rec_synth_kernel(&s->sc)) && err != -EPERM)
		return err;
	if (o->system_wide)
		err = rec_synth_all(&s->sc);
	else if (o->pid)
		err = rec_synth_process(&s->sc, o->pid, false);
	else if (workload) {
		const char *base = strrchr(o->argv[0], '/');
		err = pd_writer_comm(s->w, (uint32_t)s->child, (uint32_t)s->child,
				     base ? base + 1 : o->argv[0], false, NULL);
	}
	if (!err)
		err = pd_writer_finished_round(s->w);
	if (err)
		return err;
	if (!workload || o->system_wide || o->pid)
		if ((err = rec_events_enable(&s->ev)))
			return err;
	return workload ? start_workload(s) : 0;
}

int rec_run(const struct rec_opts *opts, struct rec_stats *st)
{
	struct rec_opts oc;

	memset(st, 0, sizeof(*st));
	if (JP_OPTS_TAKE(&oc, opts))
		return -EINVAL;
	const struct rec_opts *o = &oc;
	if (o->stack_user % 8 || o->stack_user > REC_STACK_USER_MAX)
		return jp_logf(&o->log, JP_LOG_ERROR, "user stack copy of %zu bytes: a multiple "
			       "of 8 up to %u wanted", o->stack_user, REC_STACK_USER_MAX), -EINVAL;
	struct session s = { .o = o, .st = st, .go_fd = -1, .err_fd = -1 };
	const char *path = o->output ? o->output : "perf.data";
	bool pipe_mode = !strcmp(path, "-");
	int err, err2;

	/* One fd per (thread, CPU): -p on a big process needs more than the default 1024. */
	struct rlimit nofile;
	if (!getrlimit(RLIMIT_NOFILE, &nofile) && nofile.rlim_cur < nofile.rlim_max) {
		nofile.rlim_cur = nofile.rlim_max;
		setrlimit(RLIMIT_NOFILE, &nofile);
	}
	s.sc.pipe = pipe_mode;
	s.sc.keep_deleted = o->keep_deleted && o->buildid_dir;
	s.tmp = malloc(1u << 16);
	s.sc.hits = rec_hits_new();
	if (!s.tmp || !s.sc.hits || rec_bid_start(&s.sc.bids, o->keep_deleted ? o->buildid_dir : NULL)) {
		err = -ENOMEM;
		goto out;
	}
	if ((err = pd_writer_open_fd(&s.w, o->out_fd, path, pipe_mode ? PD_WRITER_PIPE : 0)))
		goto out;
	s.sc.w = s.w;
	err = setup(&s);
	if (!err)
		err = loop(&s);
	rec_events_disable(&s.ev);
	if (stop_requested(&s))
		stop_workload(&s, stop_requested(&s));
	/* What the kernel wrote before the disable is still in the buffers. */
	err2 = drain_all(&s);
	err = err ? err : err2;
	if (!err)
		err = finish_build_ids(&s);
	st->bytes = pd_writer_bytes(s.w);
	err2 = pd_writer_close(s.w);
	s.w = NULL;
	err = err ? err : err2;
out:
	if (s.w)
		pd_writer_close(s.w);
	if (s.go_fd >= 0)
		close(s.go_fd);	/* the held workload sees EOF and exits */
	if (s.err_fd >= 0)
		close(s.err_fd);
	stop_workload(&s, s.reaped ? 0 : stop_requested(&s));
	rec_events_close(&s.ev);
	rec_bid_free(s.sc.bids);
	rec_hits_free(s.sc.hits);
	free(s.tmp);
	rec_hold_free(&s.hold);
	return err;
}
