/* gen_inlined.c - `report --generations --method NAME`'s rows for the method's inlined copies:
 * the samples whose innermost method frame (rp_method_frame, as --methods counts) is the
 * method inlined into other code, per generation of that code. A method's generations count
 * only the samples of its own code; its inlined frames run in its callers' generations, and
 * are listed as such, never added to the method's own. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/report_views/views_int.h"

/* Samples of sym inlined, innermost, in generation host (a load) of process pid. */
struct inl_row {
	uint32_t pid, host;
	const char *sym;
	uint64_t samples;
};

static int by_method_then_samples(const void *pa, const void *pb)
{
	const struct inl_row *a = pa, *b = pb;
	int c = a->pid != b->pid ? (a->pid < b->pid ? -1 : 1) : strcmp(a->sym, b->sym);
	if (c)
		return c;
	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	return a->host < b->host ? -1 : a->host > b->host;
}

/* The rows of the methods m matches, in *rows (*n of them; sorted by process, method, then
 * samples). 0 or -ENOMEM. */
static int inl_rows(const struct rp_session *s, const struct rp_name_match *m,
		    struct inl_row **rows, size_t *n)
{
	struct rp_u64map matched = { 0 };	/* interned name -> 1 matches, 2 does not */
	size_t cap = 0;
	int rc = 0;
	*rows = NULL;
	*n = 0;
	for (size_t i = 0; i < s->nr_samples && !rc; i++) {
		const struct rp_sample *smp = &s->samples[i];
		const struct rp_frame *f = rp_method_frame(s, smp), *host = rp_leaf(s, smp);
		uint32_t v;
		if (!(f->flags & RP_FRAME_INLINED) || !host->load || host->load > s->nr_loads)
			continue;
		if (!rp_map_get(&matched, (uintptr_t)f->sym, &v)) {
			v = rp_name_matches(m, f->sym) ? 1 : 2;
			if (rp_map_put(&matched, (uintptr_t)f->sym, v) < 0) {
				rc = -ENOMEM;
				break;
			}
		}
		if (v != 1)
			continue;
		size_t k = 0;	/* few distinct rows: a method inlined into a few callers */
		while (k < *n && ((*rows)[k].sym != f->sym || (*rows)[k].host != host->load ||
				  (*rows)[k].pid != smp->pid))
			k++;
		if (k == *n) {
			if (rp_grow(rows, &cap, *n + 1, sizeof(**rows))) {
				rc = -ENOMEM;
				break;
			}
			(*rows)[(*n)++] = (struct inl_row){ smp->pid, host->load, f->sym, 0 };
		}
		(*rows)[k].samples++;
	}
	rp_map_free(&matched);
	if (rc) {
		free(*rows);
		*rows = NULL;
		*n = 0;
		return rc;
	}
	if (*n > 1)
		qsort(*rows, *n, sizeof(**rows), by_method_then_samples);
	return 0;
}

int rp_gen_print_inlined(FILE *out, const struct rp_session *s, const char *method,
			 size_t *printed)
{
	struct rp_name_match m;
	struct inl_row *rows;
	size_t n;
	rp_name_match_init(&m, method);
	int rc = inl_rows(s, &m, &rows, &n);
	rp_name_match_fini(&m);
	*printed = n;
	if (rc)
		return rc;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		uint64_t total = 0;
		while (j < n && rows[j].pid == rows[i].pid && rows[j].sym == rows[i].sym)
			total += rows[j++].samples;
		fprintf(out, "\n%s_[i]  (pid %u, inlined: %" PRIu64 " samples with it the innermost "
			"method, in the generations of the code it was inlined into; not in its own "
			"generations' counts)\n   gen  tier     samples  inlined into\n", rows[i].sym,
			rows[i].pid, total);
		for (; i < j; i++) {
			const struct rp_load *l = &s->loads[rows[i].host - 1];
			const char *into = rp_load_title(l);
			fprintf(out, "%6u  %-7s %8" PRIu64 "  %s\n", l->generation, rp_load_tier(l),
				rows[i].samples, into ? into : "?");
		}
	}
	free(rows);
	return ferror(out) ? -EIO : 0;
}
