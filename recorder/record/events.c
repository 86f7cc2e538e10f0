/* events.c - perf_event_open for the recorder: each event (evsel) one fd per (thread, CPU)
 * with inherit (an inherited cpu=-1 event cannot be mmapped), one ring buffer per CPU that
 * the other fds of that CPU redirect into, and fallbacks for kernels without newer bits. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/grow.h"
#include "recorder/record/record_int.h"

static int sys_perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return (int)syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Online CPUs from sysfs ("0-3,5"), else 0..nproc-1. */
static int online_cpus(int **out, size_t *n)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	char line[4096];
	long nproc = sysconf(_SC_NPROCESSORS_CONF);
	int *cpus = calloc((size_t)(nproc > 0 ? nproc : 1) + 4096, sizeof(int));
	size_t k = 0;

	if (!cpus) {
		if (f)
			fclose(f);
		return -ENOMEM;
	}
	if (f && fgets(line, sizeof(line), f)) {
		for (char *tok = strtok(line, ",\n"); tok && k < 4096; tok = strtok(NULL, ",\n")) {
			int lo, hi;
			int m = sscanf(tok, "%d-%d", &lo, &hi);
			if (m == 1)
				hi = lo;
			if (m < 1)
				continue;
			for (int c = lo; c <= hi && k < 4096; c++)
				cpus[k++] = c;
		}
	}
	if (f)
		fclose(f);
	for (; !k && k < (size_t)(nproc > 0 ? nproc : 1); k++)
		cpus[k] = (int)k;
	*out = cpus;
	*n = k;
	return 0;
}

/* Tries attr, then without the bits older kernels reject (EINVAL / E2BIG). */
static int open_with_fallback(struct rec_evsel *e, pid_t pid, int cpu)
{
	for (int step = 0;; step++) {
		int fd = sys_perf_event_open(&e->attr, pid, cpu);
		if (fd >= 0 || (errno != EINVAL && errno != E2BIG) || step > 3)
			return fd >= 0 ? fd : -errno;
		if (step == 0 && e->attr.build_id)
			e->attr.build_id = 0;		/* < 5.12 */
		else if (step <= 1 && (e->attr.ksymbol || e->attr.bpf_event))
			e->attr.ksymbol = e->attr.bpf_event = 0;	/* < 5.1 */
		else if (step <= 2 && e->attr.precise_ip)
			e->attr.precise_ip = 0;
		else
			return -EINVAL;
	}
}

/* The first open decides what this machine allows, in whichever order the answers come:
 * no PMU cycles here (VMs) -> cpu-clock, as perf does; kernel sampling not permitted
 * (kernel.perf_event_paranoid) -> user space only, with a warning. */
static int open_fallbacks(struct rec_evsel *e, const struct rec_opts *o, pid_t pid, int cpu)
{
	for (;;) {
		int fd = open_with_fallback(e, pid, cpu);
		if ((fd == -ENOENT || fd == -EOPNOTSUPP || fd == -ENODEV) && e->defaulted &&
		    e->attr.type == PERF_TYPE_HARDWARE && !e->nids) {
			e->attr.type = PERF_TYPE_SOFTWARE;
			e->attr.config = PERF_COUNT_SW_CPU_CLOCK;
			snprintf(e->name, sizeof(e->name), "cpu-clock");
			continue;
		}
		if ((fd == -EACCES || fd == -EPERM) && !e->attr.exclude_kernel && !e->nids &&
		    !e->attr.exclude_user) {
			e->attr.exclude_kernel = e->attr.exclude_hv = 1;
			fd = open_fallbacks(e, o, pid, cpu);
			if (fd >= 0 && !e->off_cpu)
				jp_logf(&o->log, JP_LOG_WARN, "kernel profiling not permitted: "
					"recording user space only (kernel.perf_event_paranoid)");
		}
		return fd;
	}
}

/* An event this kernel cannot give, said in one line naming what is missing; the others go
 * on. Only at its first open, before it has any fd. Returns 1 if e is given up. */
static int refuse(struct rec_events *ev, struct rec_evsel *e, int fd, const struct jp_log *log)
{
	if (e->nids || e == &ev->evsels[0])	/* the first carries the side-band */
		return 0;
	if (e->off_cpu && fd >= 0 && e->attr.exclude_kernel) {
		/* The switch-out sample is taken in the kernel's schedule(): an event that
		 * excludes the kernel never fires (perf -e cs:u records nothing either). */
		close(fd);
		jp_logf(log, JP_LOG_ERROR, "--off-cpu refused: context-switch samples need kernel "
			"sampling (kernel.perf_event_paranoid <= 1 or CAP_PERFMON); on-CPU goes on");
	} else if (fd >= 0 || (fd != -ENOENT && fd != -EOPNOTSUPP && fd != -ENODEV &&
				fd != -EINVAL && fd != -EACCES && fd != -EPERM)) {
		return 0;	/* opened, or an error that is not this event's (ESRCH, EMFILE) */
	} else if (e->off_cpu) {
		jp_logf(log, JP_LOG_ERROR, "--off-cpu refused: this kernel gives no context-switch "
			"records (PERF_RECORD_SWITCH, Linux 4.3): %s; on-CPU goes on", strerror(-fd));
	} else {
		jp_logf(log, JP_LOG_ERROR, "event %s refused by the kernel: %s; the others go on",
			e->name, strerror(-fd));
	}
	e->refused = true;
	return 1;
}

static int add_fd(struct rec_events *ev, struct rec_evsel *e, int fd)
{
	if (jp_grow(&ev->fds, &ev->capfds, ev->nfds + 1, sizeof(*ev->fds), 64) ||
	    jp_grow(&e->ids, &e->capids, e->nids + 1, sizeof(*e->ids), 64))
		return -ENOMEM;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &e->ids[e->nids]) < 0)
		return -errno;
	e->nids++;
	ev->fds[ev->nfds++] = fd;
	return 0;
}

static int map_ring(struct rec_ring *r, int fd, int cpu, size_t pages)
{
	long psz = sysconf(_SC_PAGESIZE);
	void *p;

	r->fd = fd;
	r->cpu = cpu;
	r->size = (uint64_t)pages * (uint64_t)psz;
	r->map_len = (pages + 1) * (size_t)psz;
	p = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	r->pc = p;
	r->data = (uint8_t *)p + psz;
	return 0;
}

/* What every evsel shares: one sample layout (the recorder decodes every record against the
 * first attr, and perf wants one id_hdr_size), with IDENTIFIER when there are several so
 * each record names its event. */
static void init_attr(struct perf_event_attr *a, const struct rec_opts *o, bool workload,
		      bool several)
{
	a->size = sizeof(*a);
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CPU;
	if (several)
		a->sample_type |= PERF_SAMPLE_IDENTIFIER;
	if (o->callchain || o->stack_user || o->off_cpu)
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (o->stack_user) {
		/* perf's --call-graph dwarf: the kernel's part of the chain, the user part left to
		 * an unwinder reading the registers and the stack copy. */
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->exclude_callchain_user = 1;
		a->sample_regs_user = REC_REGS_USER_X86_64;
		a->sample_stack_user = (uint32_t)o->stack_user;
	}
	if (o->period) {
		a->sample_period = o->period;
	} else {
		a->freq = 1;
		a->sample_freq = o->freq ? o->freq : 4000;
	}
	a->disabled = 1;
	a->inherit = !o->system_wide;
	a->enable_on_exec = workload;
	a->sample_id_all = 1;
	a->exclude_guest = 1;
	a->watermark = 1;
	a->wakeup_watermark = 64u << 10;
	if (o->clockid >= 0) {
		a->use_clockid = 1;
		a->clockid = o->clockid;
	}
}

/* Side-band records come from the first evsel only, so none is written twice. */
static void side_band(struct perf_event_attr *a, const struct rec_opts *o)
{
	a->mmap = a->mmap2 = a->comm = a->comm_exec = a->task = 1;
	a->ksymbol = a->bpf_event = 1;
	a->build_id = 1;
	/* perf's unwinder reads what is not in the copy from the maps' files, data segments
	 * included (perf record sets it too). */
	a->mmap_data = o->stack_user != 0;
}

/* --off-cpu: the software context-switches event sampled at every switch (period 1) gives
 * the switch-out time and call chain in the thread's own context; its context_switch bit
 * adds PERF_RECORD_SWITCH, whose switch-in records end each off-CPU interval. Both are per
 * thread and need nothing beyond what sampling the workload needs, unlike sched_switch
 * (tracefs, and a system-wide tracepoint perf filters afterwards). */
static int add_off_cpu(struct rec_events *ev, const struct perf_event_attr *tmpl)
{
	struct rec_evsel *e;
	int err = rec_events_add(ev, &e);

	if (err)
		return err;
	e->attr = *tmpl;
	e->attr.type = PERF_TYPE_SOFTWARE;
	e->attr.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	e->attr.freq = 0;
	e->attr.sample_period = 1;
	e->attr.context_switch = 1;
	e->off_cpu = true;
	snprintf(e->name, sizeof(e->name), "context-switches");
	return 0;
}

static int build_evsels(struct rec_events *ev, const struct rec_opts *o, bool workload)
{
	struct perf_event_attr tmpl = { 0 };
	struct rec_evsel *e;
	size_t n = 1;
	int err;

	for (const char *p = o->event; p && *p; p++)
		n += *p == ',';
	init_attr(&tmpl, o, workload, n + o->off_cpu > 1);
	if (o->event) {
		if ((err = rec_parse_event_list(ev, o->event, &o->log)))
			return err;
		for (size_t i = 0; i < ev->nevsels; i++) {
			struct perf_event_attr a = tmpl;
			a.type = ev->evsels[i].attr.type;
			a.config = ev->evsels[i].attr.config;
			a.exclude_kernel = ev->evsels[i].attr.exclude_kernel;
			a.exclude_hv = ev->evsels[i].attr.exclude_hv;
			a.exclude_user = ev->evsels[i].attr.exclude_user;
			ev->evsels[i].attr = a;
		}
	} else {
		if ((err = rec_events_add(ev, &e)))
			return err;
		e->attr = tmpl;
		/* Wall-clock time wants on-CPU samples worth time: cpu-clock's period is ns. */
		e->attr.type = o->off_cpu ? PERF_TYPE_SOFTWARE : PERF_TYPE_HARDWARE;
		e->attr.config = o->off_cpu ? PERF_COUNT_SW_CPU_CLOCK : PERF_COUNT_HW_CPU_CYCLES;
		e->defaulted = true;
		snprintf(e->name, sizeof(e->name), o->off_cpu ? "cpu-clock" : "cycles");
	}
	if (o->off_cpu && (err = add_off_cpu(ev, &tmpl)))
		return err;
	side_band(&ev->evsels[0].attr, o);
	return 0;
}

/* One (thread, CPU): every evsel's fd, the first mapping the CPU's ring (or redirected into
 * it). */
static int open_one(struct rec_events *ev, const struct rec_opts *o, pid_t tid, size_t c,
		    bool any, int *ring_fd, size_t *pages)
{
	int err;

	for (size_t k = 0; k < ev->nevsels; k++) {
		struct rec_evsel *e = &ev->evsels[k];
		if (e->refused)
			continue;
		int fd = open_fallbacks(e, o, tid, ev->cpus[c]);
		if (refuse(ev, e, fd, &o->log))
			continue;
		if (fd == -ESRCH && !any)
			return 0;	/* a thread that exited meanwhile */
		if (fd < 0)
			return fd;
		if ((err = add_fd(ev, e, fd))) {
			close(fd);
			return err;
		}
		if (*ring_fd < 0) {
			/* Unprivileged users may lock only perf_event_mlock_kb per CPU: smaller
			 * buffers rather than no recording. */
			while ((err = map_ring(&ev->rings[ev->nrings], fd, ev->cpus[c],
					       *pages)) == -EPERM && *pages > 8)
				*pages /= 2;
			if (err)
				return err;
			ev->nrings++;
			*ring_fd = fd;
		} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, *ring_fd) < 0) {
			return -errno;
		}
	}
	return 0;
}

int rec_events_open(struct rec_events *ev, const struct rec_opts *o, const pid_t *tids,
		    size_t ntids, bool workload)
{
	pid_t all = -1;
	/* --off-cpu: a sample with a call chain at every switch (100k/s for a server): 4 MiB. */
	size_t pages = o->mmap_pages ? o->mmap_pages : o->off_cpu ? 1024 : 256;
	int err;

	memset(ev, 0, sizeof(*ev));
	if ((err = build_evsels(ev, o, workload)))
		return err;
	if ((err = online_cpus(&ev->cpus, &ev->ncpus)))
		return err;
	if (!tids) {
		tids = &all;
		ntids = 1;
	}
	ev->rings = calloc(ev->ncpus, sizeof(*ev->rings));
	if (!ev->rings)
		return -ENOMEM;
	for (size_t c = 0; c < ev->ncpus; c++) {
		int ring_fd = -1;
		for (size_t t = 0; t < ntids; t++)
			if ((err = open_one(ev, o, tids[t], c, tids == &all, &ring_fd, &pages)))
				return err;
	}
	/* Refused evsels are dropped: the file lists what was recorded. */
	size_t k = 0;
	for (size_t i = 0; i < ev->nevsels; i++) {
		if (ev->evsels[i].refused)
			free(ev->evsels[i].ids);
		else
			ev->evsels[k++] = ev->evsels[i];
	}
	ev->nevsels = k;
	ev->exclude_kernel = k && ev->evsels[0].attr.exclude_kernel;
	return ev->nfds ? 0 : -ESRCH;
}

/* "a,b": the recorded events' names, for the summary line. */
char *rec_events_names(const struct rec_events *ev)
{
	size_t len = 1;

	for (size_t i = 0; i < ev->nevsels; i++)
		len += strlen(ev->evsels[i].name) + 1;
	char *s = malloc(len), *p = s;
	for (size_t i = 0; s && i < ev->nevsels; i++)
		p = stpcpy(stpcpy(p, i ? "," : ""), ev->evsels[i].name);
	if (s)
		*p = 0;
	return s;
}

static int ioctl_all(struct rec_events *ev, unsigned long req)
{
	for (size_t i = 0; i < ev->nfds; i++)
		if (ioctl(ev->fds[i], req, 0) < 0)
			return -errno;
	return 0;
}

int rec_events_enable(struct rec_events *ev)
{
	return ioctl_all(ev, PERF_EVENT_IOC_ENABLE);
}

int rec_events_disable(struct rec_events *ev)
{
	return ioctl_all(ev, PERF_EVENT_IOC_DISABLE);
}

void rec_events_close(struct rec_events *ev)
{
	for (size_t i = 0; i < ev->nrings; i++)
		munmap(ev->rings[i].pc, ev->rings[i].map_len);
	for (size_t i = 0; i < ev->nfds; i++)
		close(ev->fds[i]);
	free(ev->rings);
	free(ev->fds);
	for (size_t i = 0; i < ev->nevsels; i++)
		free(ev->evsels[i].ids);
	free(ev->evsels);
	free(ev->cpus);
	memset(ev, 0, sizeof(*ev));
}

long rec_ring_drain(struct rec_ring *r, uint8_t *tmp, rec_sink_fn fn, void *ctx)
{
	/* The kernel publishes data_head after writing the records: acquire pairs with it. */
	uint64_t head = __atomic_load_n(&r->pc->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->pc->data_tail, pos = tail, mask = r->size - 1;
	int err = 0;

	while (pos < head && !err) {
		const struct perf_event_header *h = (const void *)(r->data + (pos & mask));
		uint64_t off = pos & mask;
		if (h->size < sizeof(*h))
			break;	/* corrupt: drop the rest of this pass rather than spin */
		if (off + h->size > r->size) {
			uint64_t first = r->size - off;
			memcpy(tmp, r->data + off, first);
			memcpy(tmp + first, r->data, h->size - first);
			h = (const void *)tmp;
		}
		err = fn(ctx, h);
		pos += h->size;
	}
	/* Release: our reads of the records happen before the kernel may overwrite them. */
	__atomic_store_n(&r->pc->data_tail, head, __ATOMIC_RELEASE);
	return err ? err : (long)(head - tail);
}
