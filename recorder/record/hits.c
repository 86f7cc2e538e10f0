/* hits.c - which DSOs got samples, tracked as records arrive (so the BUILD_ID table needs no
 * second pass over the output): per-process sorted map lists, FORK links so a child without
 * its own maps looks in its parent's, and samples that precede their mapping (another CPU's
 * buffer drained later) retried at the end. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/hash_seed.h"
#include "recorder/record/record_int.h"

struct map {
	uint64_t start, end;
	struct rec_dso *dso;
};

struct proc {
	uint32_t pid, ppid;
	bool used;
	bool sorted;
	struct map *maps;
	size_t n, cap;
};

struct miss {
	uint32_t pid;
	uint16_t cpumode;
	uint64_t ip;
};

struct rec_hits {
	struct rec_dso **dsos;
	size_t ndsos, capdsos;
	struct proc *procs;	/* open addressing by pid; slot pid -1 = kernel */
	size_t nprocs, capprocs;
	size_t probes;		/* slots find_proc passed over (the flooding test) */
	struct miss *misses;
	size_t nmiss, capmiss;
	bool nomem;		/* a miss could not be kept: its DSO might not be marked hit */
};

#define KERNEL_PID 0xffffffffu
#define MAX_MISSES (1u << 20)

struct rec_hits *rec_hits_new(void)
{
	struct rec_hits *h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->capprocs = 1024;
	h->procs = calloc(h->capprocs, sizeof(*h->procs));
	if (!h->procs) {
		free(h);
		return NULL;
	}
	return h;
}

void rec_hits_free(struct rec_hits *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->ndsos; i++) {
		free(h->dsos[i]->name);
		free(h->dsos[i]);
	}
	for (size_t i = 0; i < h->capprocs; i++)
		free(h->procs[i].maps);
	free(h->dsos);
	free(h->procs);
	free(h->misses);
	free(h);
}

struct rec_dso *rec_hits_dso(struct rec_hits *h, const char *name, uint16_t cpumode)
{
	/* Few distinct DSOs per recording: a linear scan from the newest is enough. */
	for (size_t i = h->ndsos; i-- > 0;)
		if (!strcmp(h->dsos[i]->name, name))
			return h->dsos[i];
	if (jp_grow(&h->dsos, &h->capdsos, h->ndsos + 1, sizeof(*h->dsos), 64))
		return NULL;
	struct rec_dso *d = calloc(1, sizeof(*d));
	if (!d || !(d->name = strdup(name))) {
		free(d);
		return NULL;
	}
	d->cpumode = cpumode;
	h->dsos[h->ndsos++] = d;
	return d;
}

size_t rec_hits_nr_dsos(const struct rec_hits *h)
{
	return h->ndsos;
}

struct rec_dso *rec_hits_dso_at(struct rec_hits *h, size_t i)
{
	return i < h->ndsos ? h->dsos[i] : NULL;
}

static struct proc *find_proc(struct rec_hits *h, uint32_t pid, bool create);

static int rehash(struct rec_hits *h)
{
	struct proc *old = h->procs;
	size_t oldcap = h->capprocs;

	h->procs = calloc(2 * oldcap, sizeof(*h->procs));
	if (!h->procs) {
		h->procs = old;
		return -ENOMEM;
	}
	h->capprocs = 2 * oldcap;
	h->nprocs = 0;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].used) {
			struct proc *p = find_proc(h, old[i].pid, true);
			*p = old[i];
		}
	free(old);
	return 0;
}

/* Seeded like every table here (lib/hash_seed.h): pids are the kernel's, but a local user
 * picks theirs by forking, and a multiplier anyone can invert let them queue on one slot. */
static size_t pid_slot(uint32_t pid)
{
	return (size_t)jp_hash_bytes(&pid, sizeof(pid), jp_hash_seed());
}

static struct proc *find_proc(struct rec_hits *h, uint32_t pid, bool create)
{
	size_t mask = h->capprocs - 1, i = pid_slot(pid) & mask;

	while (h->procs[i].used) {
		if (h->procs[i].pid == pid)
			return &h->procs[i];
		i = (i + 1) & mask;
		h->probes++;
	}
	if (!create)
		return NULL;
	if (2 * (h->nprocs + 1) > h->capprocs) {
		if (rehash(h))
			return NULL;
		return find_proc(h, pid, true);
	}
	h->procs[i].used = true;
	h->procs[i].pid = pid;
	h->procs[i].ppid = KERNEL_PID - 1;	/* none */
	h->nprocs++;
	return &h->procs[i];
}

int rec_hits_mmap(struct rec_hits *h, uint32_t pid, uint64_t start, uint64_t len,
		  struct rec_dso *d)
{
	struct proc *p = find_proc(h, pid, true);

	if (!p || !d)
		return -ENOMEM;
	if (jp_grow(&p->maps, &p->cap, p->n + 1, sizeof(*p->maps), 16))
		return -ENOMEM;
	p->maps[p->n++] = (struct map){ start, start + len, d };
	p->sorted = false;
	return 0;
}

int rec_hits_fork(struct rec_hits *h, uint32_t pid, uint32_t ppid)
{
	struct proc *p;

	if (pid == ppid)
		return 0;	/* a new thread: same process */
	p = find_proc(h, pid, true);
	if (!p)
		return -ENOMEM;	/* the child's samples in its parent's maps would go unseen */
	p->ppid = ppid;
	return 0;
}

void rec_hits_exec(struct rec_hits *h, uint32_t pid)
{
	struct proc *p = find_proc(h, pid, false);

	if (p) {
		p->n = 0;	/* a new image: the old maps are gone */
		p->ppid = KERNEL_PID - 1;
	}
}

static int map_cmp(const void *a, const void *b)
{
	const struct map *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The newest map covering ip wins; sorting is stable enough for the overlap cases perf
 * itself resolves by replacement (we only need "which DSO"). */
static struct rec_dso *lookup(struct proc *p, uint64_t ip)
{
	size_t lo = 0, hi;

	if (!p->sorted && p->n) {
		qsort(p->maps, p->n, sizeof(*p->maps), map_cmp);
		p->sorted = true;
	}
	hi = p->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->maps[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* lo = first map starting after ip; scan back over overlapping candidates. */
	for (size_t i = lo; i-- > 0;) {
		if (ip < p->maps[i].end)
			return p->maps[i].dso;
		if (lo - i > 8)
			break;
	}
	return NULL;
}

static struct rec_dso *resolve(struct rec_hits *h, uint32_t pid, uint64_t ip, uint16_t cpumode)
{
	bool kernel = cpumode == PERF_RECORD_MISC_KERNEL;
	uint32_t cur = kernel ? KERNEL_PID : pid;

	for (int depth = 0; depth < 16; depth++) {
		struct proc *p = find_proc(h, cur, false);
		struct rec_dso *d;
		if (!p)
			return NULL;
		if ((d = lookup(p, ip))) {
			d->hit = true;
			return d;
		}
		if (p->ppid == KERNEL_PID - 1)
			return NULL;
		cur = p->ppid;
	}
	return NULL;
}

struct rec_dso *rec_hits_sample(struct rec_hits *h, uint32_t pid, uint64_t ip, uint16_t cpumode)
{
	struct rec_dso *d = resolve(h, pid, ip, cpumode);
	if (d || h->nmiss >= MAX_MISSES)
		return d;
	if (jp_grow(&h->misses, &h->capmiss, h->nmiss + 1, sizeof(*h->misses), 256)) {
		h->nomem = true;
		return NULL;
	}
	h->misses[h->nmiss++] = (struct miss){ pid, cpumode, ip };
	return NULL;
}

void rec_hits_finish(struct rec_hits *h)
{
	for (size_t i = 0; i < h->nmiss; i++)
		resolve(h, h->misses[i].pid, h->misses[i].ip, h->misses[i].cpumode);
	h->nmiss = 0;
}

bool rec_hits_nomem(const struct rec_hits *h)
{
	return h->nomem;
}

size_t rec_hits_probes(const struct rec_hits *h)
{
	return h->probes;
}
