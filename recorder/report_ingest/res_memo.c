/* res_memo.c - the frames ingest made of one address (pid, ip, cpumode), kept while the
 * symbol session promises the same answer (sym_resolve_epoch). A program past its start-up is
 * sampled 100k+ times between two maps, through a few thousand addresses: each frame of each
 * chain was resolved again (map lookup, DSO cache, three name memos, the load) where a copy of
 * the frames made the first time is the same. While maps keep coming (a start-up maps 34k
 * generations between 7k samples) nothing is kept: an epoch must first see RP_MEMO_WARMUP
 * resolutions. */
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "recorder/report_ingest/ingest_int.h"

#define SLOTS 16384		/* direct-mapped: a collision replaces */
#define WARMUP 64
#define MAX_STORE (1u << 20)	/* frames kept per epoch before starting over */

struct rp_res_slot {
	uint64_t ip;
	uint64_t stamp;		/* the memo's stamp when made; another: empty */
	uint32_t pid;
	uint16_t cpumode;
	uint16_t n;
	uint32_t first;		/* its frames: f[first .. first + n) */
};

static size_t slot_of(uint32_t pid, uint64_t ip, int cpumode)
{
	uint64_t h = (ip ^ (uint64_t)pid << 40 ^ (uint64_t)cpumode << 56) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 50) & (SLOTS - 1);
}

/* The stamp for epoch: a new one (every slot stale, the frames dropped) when it changed. */
static void at_epoch(struct rp_res_memo *m, uint64_t epoch)
{
	if (epoch == m->epoch)
		return;
	m->epoch = epoch;
	m->stamp++;
	m->n = 0;
	m->since = 0;
}

uint32_t rp_res_memo_get(struct rp_res_memo *m, uint64_t epoch, uint32_t pid, uint64_t ip,
			 int cpumode, const struct rp_frame **f)
{
	if (!epoch || !m->slot)
		return 0;
	at_epoch(m, epoch);
	const struct rp_res_slot *e = &m->slot[slot_of(pid, ip, cpumode)];
	if (e->stamp != m->stamp || e->ip != ip || e->pid != pid || e->cpumode != cpumode)
		return 0;
	*f = &m->f[e->first];
	return e->n;
}

void rp_res_memo_put(struct rp_res_memo *m, uint64_t epoch, uint32_t pid, uint64_t ip,
		     int cpumode, const struct rp_frame *f, uint32_t n)
{
	if (!epoch || !n || n > UINT16_MAX)
		return;
	at_epoch(m, epoch);
	if (m->since < WARMUP) {	/* maps coming thick and fast: keep nothing */
		m->since++;
		return;
	}
	if (!m->slot && !(m->slot = calloc(SLOTS, sizeof(*m->slot))))
		return;
	if (m->n + n > MAX_STORE) {
		m->stamp++;
		m->n = 0;
	}
	if (jp_grow(&m->f, &m->cap, m->n + n, sizeof(*m->f), 1024))
		return;
	memcpy(&m->f[m->n], f, n * sizeof(*f));
	m->slot[slot_of(pid, ip, cpumode)] = (struct rp_res_slot){
		.ip = ip, .stamp = m->stamp, .pid = pid, .cpumode = (uint16_t)cpumode,
		.n = (uint16_t)n, .first = (uint32_t)m->n };
	m->n += n;
}

void rp_res_memo_free(struct rp_res_memo *m)
{
	free(m->slot);
	free(m->f);
	memset(m, 0, sizeof(*m));
}
