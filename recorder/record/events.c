/* events.c - perf_event_open for the recorder: the event by name, one fd per (thread, CPU)
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

#include "recorder/record/record_int.h"

struct named_event {
	const char *name;
	uint32_t type;
	uint64_t config;
};

static const struct named_event named[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
};

/* "name[:mods]" or "rHEX"; mods u (user only), k (kernel only), p (precise; ignored). */
static int parse_event(const char *spec, struct perf_event_attr *a, char *name, size_t nsz)
{
	char base[64];
	const char *colon = strchr(spec, ':');
	size_t bl = colon ? (size_t)(colon - spec) : strlen(spec);
	bool found = false;

	if (bl == 0 || bl >= sizeof(base))
		return -EINVAL;
	memcpy(base, spec, bl);
	base[bl] = 0;
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (!strcmp(base, named[i].name)) {
			a->type = named[i].type;
			a->config = named[i].config;
			found = true;
		}
	if (!found && base[0] == 'r' && base[1]) {
		char *end;
		a->type = PERF_TYPE_RAW;
		a->config = strtoull(base + 1, &end, 16);
		found = !*end;
	}
	if (!found)
		return -ENOENT;
	for (const char *m = colon ? colon + 1 : ""; *m; m++) {
		if (*m == 'u')
			a->exclude_kernel = a->exclude_hv = 1;
		else if (*m == 'k')
			a->exclude_user = 1;
		else if (*m != 'p')
			return -EINVAL;
	}
	snprintf(name, nsz, "%s", spec);
	return 0;
}

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
static int open_with_fallback(struct rec_events *ev, pid_t pid, int cpu)
{
	for (int step = 0;; step++) {
		int fd = sys_perf_event_open(&ev->attr, pid, cpu);
		if (fd >= 0 || (errno != EINVAL && errno != E2BIG) || step > 3)
			return fd >= 0 ? fd : -errno;
		if (step == 0 && ev->attr.build_id)
			ev->attr.build_id = 0;		/* < 5.12 */
		else if (step <= 1 && (ev->attr.ksymbol || ev->attr.bpf_event))
			ev->attr.ksymbol = ev->attr.bpf_event = 0;	/* < 5.1 */
		else if (step <= 2 && ev->attr.precise_ip)
			ev->attr.precise_ip = 0;
		else
			return -EINVAL;
	}
}

/* The first open decides what this machine allows, in whichever order the answers come:
 * no PMU cycles here (VMs) -> cpu-clock, as perf does; kernel sampling not permitted
 * (kernel.perf_event_paranoid) -> user space only, with a warning. */
static int open_fallbacks(struct rec_events *ev, const struct rec_opts *o, pid_t pid, int cpu)
{
	for (;;) {
		int fd = open_with_fallback(ev, pid, cpu);
		if ((fd == -ENOENT || fd == -EOPNOTSUPP || fd == -ENODEV) && !o->event &&
		    ev->attr.type == PERF_TYPE_HARDWARE && !ev->nfds) {
			ev->attr.type = PERF_TYPE_SOFTWARE;
			ev->attr.config = PERF_COUNT_SW_CPU_CLOCK;
			snprintf(ev->name, sizeof(ev->name), "cpu-clock");
			continue;
		}
		if ((fd == -EACCES || fd == -EPERM) && !ev->attr.exclude_kernel && !ev->nfds &&
		    !ev->attr.exclude_user) {
			ev->attr.exclude_kernel = ev->attr.exclude_hv = 1;
			fd = open_fallbacks(ev, o, pid, cpu);
			if (fd >= 0)
				jp_logf(&o->log, JP_LOG_WARN, "kernel profiling not permitted: "
					"recording user space only (kernel.perf_event_paranoid)");
		}
		return fd;
	}
}

static int add_fd(struct rec_events *ev, int fd)
{
	if (ev->nfds == ev->capfds) {
		size_t n = ev->capfds ? 2 * ev->capfds : 64;
		int *f = realloc(ev->fds, n * sizeof(int));
		uint64_t *ids = realloc(ev->ids, n * sizeof(uint64_t));
		if (f)
			ev->fds = f;
		if (ids)
			ev->ids = ids;
		if (!f || !ids)
			return -ENOMEM;
		ev->capfds = n;
	}
	if (ioctl(fd, PERF_EVENT_IOC_ID, &ev->ids[ev->nfds]) < 0)
		return -errno;
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

static void init_attr(struct rec_events *ev, const struct rec_opts *o, bool workload)
{
	struct perf_event_attr *a = &ev->attr;

	a->size = sizeof(*a);
	/* One event only, so no IDENTIFIER (8 bytes a record): every record maps to attr 0. */
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CPU;
	if (o->callchain || o->stack_user)
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (o->stack_user) {
		/* perf's --call-graph dwarf: the kernel's part of the chain, the user part left to
		 * an unwinder reading the registers and the stack copy. */
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->exclude_callchain_user = 1;
		a->sample_regs_user = REC_REGS_USER_X86_64;
		a->sample_stack_user = (uint32_t)o->stack_user;
		/* perf's unwinder reads what is not in the copy from the maps' files, data
		 * segments included (perf record sets it too). */
		a->mmap_data = 1;
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
	/* Side-band: one event per CPU is all we open, so these are not duplicated. */
	a->mmap = a->mmap2 = a->comm = a->comm_exec = a->task = 1;
	a->ksymbol = a->bpf_event = 1;
	a->build_id = 1;
	a->watermark = 1;
	a->wakeup_watermark = 64u << 10;
	if (o->clockid >= 0) {
		a->use_clockid = 1;
		a->clockid = o->clockid;
	}
}

int rec_events_open(struct rec_events *ev, const struct rec_opts *o, const pid_t *tids,
		    size_t ntids, bool workload)
{
	pid_t all = -1;
	size_t pages = o->mmap_pages ? o->mmap_pages : 256;
	int err;

	memset(ev, 0, sizeof(*ev));
	init_attr(ev, o, workload);
	if (o->event) {
		err = parse_event(o->event, &ev->attr, ev->name, sizeof(ev->name));
		if (err)
			return jp_logf(&o->log, JP_LOG_ERROR, "unknown event '%s' (try cycles, "
				       "cpu-clock, task-clock, instructions, page-faults, rHEX)",
				       o->event), err;
	} else {
		ev->attr.type = PERF_TYPE_HARDWARE;
		ev->attr.config = PERF_COUNT_HW_CPU_CYCLES;
		snprintf(ev->name, sizeof(ev->name), "cycles");
	}
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
		for (size_t t = 0; t < ntids; t++) {
			int fd = open_fallbacks(ev, o, tids[t], ev->cpus[c]);
			if (fd == -ESRCH && tids != &all)
				continue;	/* a thread that exited meanwhile */
			if (fd < 0)
				return fd;
			if ((err = add_fd(ev, fd))) {
				close(fd);
				return err;
			}
			if (ring_fd < 0) {
				/* Unprivileged users may lock only perf_event_mlock_kb per CPU:
				 * smaller buffers rather than no recording. */
				while ((err = map_ring(&ev->rings[ev->nrings], fd, ev->cpus[c],
						       pages)) == -EPERM && pages > 8)
					pages /= 2;
				if (err)
					return err;
				ev->nrings++;
				ring_fd = fd;
			} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring_fd) < 0) {
				return -errno;
			}
		}
	}
	ev->exclude_kernel = ev->attr.exclude_kernel;
	return ev->nfds ? 0 : -ESRCH;
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
	free(ev->ids);
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
