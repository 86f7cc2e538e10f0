/* memo.c - a find callback's answers kept by (pid, pc) while the caller's maps promise the
 * same answer (its epoch): a sample's walk asks where each of its 20-30 return addresses
 * lives, and a profile's samples share a few thousand of them, so all but the first asks of
 * an address skip the map lookup, the DSO's table and the jitted code's load. Direct-mapped:
 * a collision replaces, a new epoch empties every slot at once (a stamp). */
#include <errno.h>
#include <stdlib.h>

#include "lib/hash_seed.h"
#include "recorder/unwind/unwind.h"

#define SLOTS 8192

struct memo_slot {
	uint64_t pc;
	uint64_t stamp;		/* the memo's stamp when made; another: empty */
	uint32_t pid;
	int rc;			/* 0 or -ENOENT: find's answer */
	struct unw_module m;
};

struct unw_memo {
	uint64_t epoch, stamp, seed;
	struct unw_memo_stats stats;
	struct memo_slot slot[SLOTS];
};

int unw_memo_new(struct unw_memo **out)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	(*out)->stamp = 1;	/* calloc's slots are stale */
	(*out)->seed = jp_hash_seed();
	return 0;
}

void unw_memo_free(struct unw_memo *mm)
{
	free(mm);
}

void unw_memo_stats(const struct unw_memo *mm, struct unw_memo_stats *st)
{
	*st = mm->stats;
}

/* Seeded: the pcs come from the recording, and a crafted one must not make every address
 * share a slot (it would only cost the memo, but for nothing). */
static struct memo_slot *slot_of(struct unw_memo *mm, uint32_t pid, uint64_t pc)
{
	uint64_t h = (pc ^ mm->seed ^ (uint64_t)pid << 40) * 0x9e3779b97f4a7c15ull;
	return &mm->slot[(h ^ h >> 29) >> 51 & (SLOTS - 1)];
}

int unw_memo_find(struct unw_memo *mm, uint64_t epoch, uint32_t pid, uint64_t pc,
		  unw_find_fn find, void *ctx, struct unw_module *m)
{
	struct memo_slot *s;
	int rc;

	if (!mm || !epoch)
		return find(ctx, pc, m);
	if (epoch != mm->epoch) {
		mm->epoch = epoch;
		mm->stamp++;
	}
	s = slot_of(mm, pid, pc);
	if (s->stamp == mm->stamp && s->pc == pc && s->pid == pid) {
		mm->stats.hits++;
		*m = s->m;
		return s->rc;
	}
	mm->stats.misses++;
	rc = find(ctx, pc, m);
	if (rc && rc != -ENOENT)	/* -ENOMEM: said, never kept */
		return rc;
	*s = (struct memo_slot){ .pc = pc, .stamp = mm->stamp, .pid = pid, .rc = rc, .m = *m };
	return rc;
}
