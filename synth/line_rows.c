/* line_rows.c - which rows of a runtime's line table synth uses. Real dumps carry a few bad
 * entries (node 20 writes DEBUG_INFO rows outside their code): each costs only itself, the rest
 * of its table is kept. Line 0 ("no line") rows are left out so their range joins the row
 * before them, and the line program starts the first row at the code (dwarf.c). */
#include <string.h>

#include "synth/synth_int.h"

void synth_line_it_init(struct synth_line_it *it, const struct jd_line *rows, size_t n,
			uint64_t code_addr, uint64_t code_size)
{
	memset(it, 0, sizeof(*it));
	it->rows = rows;
	it->n = n;
	it->lo = code_addr;
	it->size = code_size;
}

const struct jd_line *synth_line_next(struct synth_line_it *it)
{
	while (it->i < it->n) {
		const struct jd_line *l = &it->rows[it->i++];
		int ok = l->addr >= it->lo && l->addr - it->lo < it->size &&
			 (!it->seen || l->addr >= it->last) && l->line >= 0 && l->file &&
			 strnlen(l->file, SYNTH_NAME_MAX + 1) <= SYNTH_NAME_MAX;
		if (!ok) {
			it->bad++;
			continue;
		}
		it->last = l->addr;	/* a line 0 row still orders the ones after it */
		it->seen = 1;
		if (l->line == 0)
			continue;
		it->kept++;
		return l;
	}
	return NULL;
}

size_t synth_lines_dropped(const struct synth_input *in)
{
	struct synth_line_it it;
	synth_line_it_init(&it, in->lines, in->nr_lines, in->code_addr, in->code_size);
	while (synth_line_next(&it))
		;
	return it.bad;
}
