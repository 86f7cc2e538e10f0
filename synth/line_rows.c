/* line_rows.c - which rows of a runtime's line table synth uses. Real dumps carry a few bad
 * entries (node 20 writes DEBUG_INFO rows outside their code): each costs only itself, the rest
 * of its table is kept. node 20 also writes the file names of a user script's rows from freed
 * memory: such a row keeps its address and line and takes the script its load names instead
 * ("JS:*fib /x/fib.js:1:13"), and the fragments of the old string that read as further rows
 * fall outside the code, out of order or without a name, and are dropped. Line 0 ("no line")
 * rows are left out so their range joins the row before them, and the line program starts the
 * first row at the code (dwarf.c). A row a few bytes before the code start (a prologue's line:
 * the runtime counts its entry from before the first instruction) gives the code's first bytes
 * their line: the last such row is kept, moved to the code start, unless a row starts there. */
#include <stdint.h>
#include <string.h>

#include "safeio/safeio.h"
#include "synth/synth_int.h"

void synth_line_it_init(struct synth_line_it *it, const struct jd_line *rows, size_t n,
			uint64_t code_addr, uint64_t code_size, const char *script)
{
	memset(it, 0, sizeof(*it));
	it->rows = rows;
	it->n = n;
	it->lo = code_addr;
	it->size = code_size;
	it->script = script;
}

const char *synth_name_script(const char *name, char *buf, size_t len)
{
	/* " PATH:LINE:COL" at the end: two numbers after the last two colons */
	const char *sp = name ? strrchr(name, ' ') : NULL, *end = sp ? sp + strlen(sp) : NULL;
	for (int k = 0; end && k < 2; k++) {
		const char *p = end;
		while (p > sp + 1 && p[-1] >= '0' && p[-1] <= '9')
			p--;
		end = p < end && p > sp + 1 && p[-1] == ':' ? p - 1 : NULL;
	}
	if (!end || end == sp + 1 || (size_t)(end - sp - 1) >= len)
		return NULL;
	memcpy(buf, sp + 1, (size_t)(end - sp - 1));
	buf[end - sp - 1] = 0;
	return sio_utf8_is_text(buf, SIZE_MAX) ? buf : NULL;
}

const char *synth_line_file(const char *file, const char *script)
{
	if (!file || !file[0])
		return NULL;
	return sio_utf8_is_text(file, SIZE_MAX) ? file : script;
}

/* The row held before the code: returned at the code start, or counted dropped when a row
 * starts there (shadowed) or it says "no line" (the first row is moved to the start then). */
static const struct jd_line *take_before(struct synth_line_it *it, int shadowed)
{
	const struct jd_line *b = it->before;
	it->before = NULL;
	it->seen = 1;
	it->last = it->lo;
	if (shadowed || b->line == 0) {
		it->bad += shadowed;
		return NULL;
	}
	it->kept++;
	it->clamped++;
	it->renamed += it->before_file != b->file;
	it->cur = *b;
	it->cur.addr = it->lo;
	it->cur.file = it->before_file;
	return &it->cur;
}

const struct jd_line *synth_line_next(struct synth_line_it *it)
{
	while (it->i < it->n) {
		const struct jd_line *l = &it->rows[it->i++];
		/* rows share their file's string (the jitdump reader makes a repeated name one
		 * string): the last one found to be text is not decoded or measured again */
		const char *file;
		int renamed = 0, fits;
		if (l->file && l->file == it->text_file) {
			file = l->file;
			fits = it->text_fits;
		} else {
			file = synth_line_file(l->file, it->script);
			renamed = file && file != l->file;
			fits = file && strnlen(file, SYNTH_NAME_MAX + 1) <= SYNTH_NAME_MAX;
			if (file && !renamed) {
				it->text_file = file;
				it->text_fits = fits;
			}
		}
		int usable = (!it->seen || l->addr >= it->last) && l->line >= 0 && fits;
		if (usable && !it->seen && l->addr < it->lo &&
		    it->lo - l->addr <= SYNTH_LINE_BEFORE_MAX &&
		    (!it->before || l->addr >= it->before->addr)) {
			if (it->before)
				it->bad++;	/* a later row before the code replaces it */
			it->before = l;
			it->before_file = file;
			continue;
		}
		if (!usable || l->addr < it->lo || l->addr - it->lo >= it->size) {
			it->bad++;
			continue;
		}
		if (it->before) {
			const struct jd_line *b = take_before(it, l->addr == it->lo);
			if (b) {
				it->i--;	/* l is read again after the row before it */
				return b;
			}
		}
		it->last = l->addr;	/* a line 0 row still orders the ones after it */
		it->seen = 1;
		if (l->line == 0)
			continue;
		it->kept++;
		if (renamed) {
			it->renamed++;
			it->cur = *l;
			it->cur.file = file;
			return &it->cur;
		}
		return l;
	}
	return it->before ? take_before(it, 0) : NULL;
}

size_t synth_lines_count(const struct synth_input *in, size_t *renamed)
{
	struct synth_line_it it;
	char script[SYNTH_SCRIPT_MAX + 1];
	synth_line_it_init(&it, in->lines, in->nr_lines, in->code_addr, in->code_size,
			   synth_name_script(in->name, script, sizeof(script)));
	while (synth_line_next(&it))
		;
	if (renamed)
		*renamed = it.renamed;
	return it.bad;
}

size_t synth_lines_dropped(const struct synth_input *in)
{
	return synth_lines_count(in, NULL);
}

size_t synth_lines_renamed(const struct synth_input *in)
{
	size_t renamed;
	synth_lines_count(in, &renamed);
	return renamed;
}
