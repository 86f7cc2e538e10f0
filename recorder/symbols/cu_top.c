/* cu_top.c - a DWARF unit's own children indexed by their address ranges (struct cu_top in
 * symbols_int.h): filled while lines.c walks the unit once, then searched for the first level
 * of every address's scopes instead of scanning the children in order. */
#include <stdlib.h>

#include "lib/grow.h"
#include "recorder/symbols/symbols_int.h"

/* The address ranges of a child of the CU, for cs->top; a range libdw cannot read turns the
 * index off (the scan in order then meets it, as libdw would). */
int cu_top_note(struct cu_scopes *cs, Dwarf_Die *die)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (lo >= hi)
			continue;
		if (JP_GROW_FOR(cs->top, cs->cap_top, cs->n_top))
			return -ENOMEM;
		cs->top[cs->n_top++] = (struct cu_top){ .lo = lo, .hi = hi, .die = *die };
	}
	if (off < 0)
		cs->top_bad = 1;
	return 0;
}

static int top_cmp(const void *a, const void *b)
{
	const struct cu_top *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Below this many ranges the scan in order is as fast as the search. */
#define CU_TOP_MIN 32

/* After the walk: cs->top sorted, and kept only where a search gives what the scan in order
 * gives (disjoint ranges: one child at most holds an address). */
void cu_top_finish(struct cu_scopes *cs)
{
	if (!cs->top_bad && cs->n_top >= CU_TOP_MIN) {
		qsort(cs->top, cs->n_top, sizeof(*cs->top), top_cmp);
		for (size_t i = 1; i < cs->n_top && !cs->top_bad; i++)
			cs->top_bad = cs->top[i].lo < cs->top[i - 1].hi;
		if (!cs->top_bad)
			return;
	}
	free(cs->top);
	cs->top = NULL;
	cs->n_top = cs->cap_top = 0;
}

/* The child of the CU whose range holds addr, through cs->top: 1 and *child, or 0 for none. */
int cu_top_find(const struct cu_scopes *cs, uint64_t addr, Dwarf_Die *child)
{
	size_t lo = 0, hi = cs->n_top;
	while (lo < hi) {	/* the first range starting above addr */
		size_t mid = lo + (hi - lo) / 2;
		if (cs->top[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= cs->top[lo - 1].hi)
		return 0;
	*child = cs->top[lo - 1].die;
	return 1;
}
