/* gen_print.c - the generations view as text (`report --generations`): the analysis's rows
 * (generations.c) under each method, with the columns and detail lines of gen_explain.c. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "recorder/report_views/views_int.h"

int rp_print_generations(FILE *out, const struct rp_session *s, const char *method)
{
	struct rp_gen_view v;
	int rc = rp_gen_view_build(&v, s, method);
	if (rc)
		return rc;
	double span = s->end > s->start ? (s->end - s->start) / 1e9 : 0;
	fprintf(out, "# Generations of jitted methods: recording %.3f s, %" PRIu64 " samples\n",
		span, v.total_samples);
	fprintf(out, "# Samples in code already unloaded: %" PRIu64 ", in unknown code: %" PRIu64
		"\n", v.unloaded_samples, v.unknown_samples);
	rp_gen_print_sources(out, s);
	/* "samples/s" read as a speed: said once what it counts. */
	fputs("# Columns: share = of the process's samples; samples/s = the generation's samples "
	      "per second of its active period (how often it was found running, not a speed)\n#\n",
	      out);
	if (!s->nr_loads)
		fprintf(out, "# no jitted code loads in this recording: it was not injected "
			"(jitprof inject --jit -i IN -o OUT), or no process wrote a jitdump "
			"(inject then exits 3 and says so)\n");
	else if (!v.nr_methods && !method)
		fprintf(out, "# no method has more than one generation\n");
	size_t quiet = 0;
	for (size_t i = 0; i < v.nr_methods; i++) {
		const struct rp_gen_method *m = &v.methods[i];
		uint64_t total = rp_gen_method_samples(m);
		/* Unsampled recompiles (stubs, startup code) would bury the answer. */
		if (!total && !method) {
			quiet++;
			continue;
		}
		fprintf(out, "%s%s  (pid %u, %zu generation%s, %" PRIu64 " samples)\n",
			i > quiet ? "\n" : "",
			m->method, m->pid, m->nr_rows, m->nr_rows == 1 ? "" : "s", total);
		rp_gen_print_head(out);
		for (size_t k = 0; k < m->nr_rows; k++) {
			rp_gen_print_row(out, &m->rows[k]);
			rp_gen_print_detail(out, &m->rows[k]);
		}
	}
	size_t inlined = 0;
	if (method && s->nr_loads && (rc = rp_gen_print_inlined(out, s, method, &inlined))) {
		rp_gen_view_free(&v);
		return rc;
	}
	if (method && s->nr_loads && !v.nr_methods && !inlined)
		fprintf(out, "# no method matches --method\n");
	if (quiet)
		fprintf(out, "\n# %zu more method%s with several generations and no samples "
			"(--method NAME shows them)\n", quiet, quiet == 1 ? "" : "s");
	if (v.runtime_loads)
		fprintf(out, "\n# runtime code (stubs, adapters, interpreter; not generations): %zu "
			"loads, %" PRIu64 " samples\n", v.runtime_loads, v.runtime_samples);
	rp_gen_view_free(&v);
	return ferror(out) ? -EIO : 0;
}
