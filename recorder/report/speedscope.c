/* speedscope.c - `--speedscope out.json`: speedscope's file format
 * (https://www.speedscope.app/file-format-schema.json), one sampled profile per thread with
 * its samples in time order (so the "Time Order" view is the recording's timeline), frames
 * named as the folded stacks name them (inlined ones marked _[i], generations merged unless
 * split) with their source file. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/report/report_int.h"

struct thread { uint32_t pid, tid; const char *comm; uint64_t samples; };

static int by_time(const void *a, const void *b, void *ctx)
{
	const struct rp_session *s = ctx;
	const struct rp_sample *x = &s->samples[*(const uint32_t *)a];
	const struct rp_sample *y = &s->samples[*(const uint32_t *)b];
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static int by_samples(const void *a, const void *b)
{
	const struct thread *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* The profiles go to a buffer first: the frame table they build comes before them. */
static int profiles(FILE *out, const struct rp_session *s, struct rp_strtab *fr,
		    const uint32_t *order, const struct thread *th, size_t nth)
{
	char name[1024];
	int ns = s->event && (strstr(s->event, "cpu-clock") || strstr(s->event, "task-clock"));
	for (size_t t = 0; t < nth; t++) {
		uint64_t total = 0;
		fprintf(out, "%s{\"type\":\"sampled\",\"name\":", t ? "," : "");
		snprintf(name, sizeof(name), "%s pid %u tid %u", th[t].comm ? th[t].comm : "?",
			 th[t].pid, th[t].tid);
		rp_json_str(out, name);
		fprintf(out, ",\"unit\":\"%s\",\"samples\":[", ns ? "nanoseconds" : "none");
		int any = 0;
		for (size_t i = 0; i < s->nr_samples; i++) {
			const struct rp_sample *smp = &s->samples[order[i]];
			if (smp->tid != th[t].tid || smp->pid != th[t].pid)
				continue;
			total += smp->period;
			fprintf(out, "%s[", any++ ? "," : "");
			for (uint32_t k = smp->nr; k-- > 0;) {
				const struct rp_frame *f = &s->frames[smp->first + k];
				uint32_t id;
				const char *nm = rp_frame_name(s, f, rp_stack_tag(s), name,
							       sizeof(name));
				int rc = rp_strtab_id(fr, nm, (uintptr_t)f->srcfile, &id);
				if (rc)
					return rc;
				fprintf(out, "%s%u", k + 1 < smp->nr ? "," : "", id);
			}
			fputc(']', out);
		}
		fprintf(out, "],\"weights\":[");
		any = 0;
		for (size_t i = 0; i < s->nr_samples; i++) {
			const struct rp_sample *smp = &s->samples[order[i]];
			if (smp->tid == th[t].tid && smp->pid == th[t].pid)
				fprintf(out, "%s%" PRIu64, any++ ? "," : "", ns ? smp->period : 1);
		}
		fprintf(out, "],\"startValue\":0,\"endValue\":%" PRIu64 "}",
			ns ? total : th[t].samples);
	}
	return 0;
}

int rp_write_speedscope(FILE *out, const struct rp_session *s, const char *name)
{
	uint32_t *order = malloc((s->nr_samples + 1) * sizeof(*order));
	struct thread *th = calloc(s->nr_samples + 1, sizeof(*th));
	struct rp_u64map tix = { 0 };
	struct rp_strtab fr = { 0 };
	char *buf = NULL;
	size_t len = 0, nth = 0;
	int rc = -ENOMEM;
	FILE *mem = NULL;
	if (!order || !th)
		goto out;
	for (size_t i = 0; i < s->nr_samples; i++) {
		const struct rp_sample *smp = &s->samples[i];
		uint64_t key = ((uint64_t)smp->pid << 32 | smp->tid) + 1;
		uint32_t t;
		order[i] = (uint32_t)i;
		if (!rp_map_get(&tix, key, &t)) {
			t = (uint32_t)nth++;
			th[t] = (struct thread){ smp->pid, smp->tid, smp->comm, 0 };
			if (rp_map_put(&tix, key, t) < 0)
				goto out;
		}
		th[t].samples++;
	}
	qsort_r(order, s->nr_samples, sizeof(*order), by_time, (void *)s);
	qsort(th, nth, sizeof(*th), by_samples);
	if (!(mem = open_memstream(&buf, &len)))
		goto out;
	rc = profiles(mem, s, &fr, order, th, nth);
	if (fclose(mem) && !rc)
		rc = -ENOMEM;
	if (rc)
		goto out;
	fprintf(out, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
		"\"exporter\":\"jitprof\",\"name\":");
	rp_json_str(out, name ? name : "jitprof");
	fprintf(out, ",\"activeProfileIndex\":0,\"shared\":{\"frames\":[");
	for (size_t i = 0; i < fr.n; i++) {
		fprintf(out, "%s{\"name\":", i ? "," : "");
		rp_json_str(out, fr.str[i]);
		if (fr.tag[i]) {
			fprintf(out, ",\"file\":");
			rp_json_str(out, (const char *)fr.tag[i]);
		}
		fputc('}', out);
	}
	fprintf(out, "]},\"profiles\":[");
	fwrite(buf, 1, len, out);
	fprintf(out, "]}\n");
	rc = ferror(out) ? -EIO : 0;
out:
	free(buf);
	free(order);
	free(th);
	rp_map_free(&tix);
	rp_strtab_free(&fr);
	return rc;
}
