/* speedscope.c - `--speedscope out.json`: speedscope's file format
 * (https://www.speedscope.app/file-format-schema.json), one sampled profile per thread with
 * its samples in time order (so the "Time Order" view is the recording's timeline), frames
 * named as the folded stacks name them (inlined ones marked _[i], generations merged unless
 * split) with their source file. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/hindex.h"
#include "recorder/report_views/views_int.h"

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

/* A frame's id in the frame table by what its name and file are made of, so a frame seen
 * before costs one hash of 40 bytes instead of printing its name and hashing that (a third
 * of this export on a 200k-sample recording). Keys keep every field the name can depend on
 * (rp_frame_name): two frames with equal keys get equal names, so equal ids. */
struct fkey { const char *dso, *sym, *file; uint64_t ip; uint32_t flags, load; };
struct fent { struct fkey k; uint32_t id; };
struct fmemo { struct fent *v; size_t n, cap; struct jp_hindex ix; };

static struct fkey key_of(const struct rp_frame *f)
{
	struct fkey k;
	memset(&k, 0, sizeof(k));
	k.dso = f->dso, k.sym = f->sym, k.file = f->srcfile, k.flags = f->flags, k.load = f->load;
	k.ip = f->sym ? 0 : f->ip;	/* in the name only when there is no symbol */
	return k;
}

static int fkey_eq(const void *key, uint32_t idx, const void *ctx)
{
	const struct fmemo *m = ctx;
	return !memcmp(&m->v[idx].k, key, sizeof(struct fkey));
}

/* 1 and *id when known, else 0. */
static int memo_find(struct fmemo *m, const struct fkey *k, uint64_t h, uint32_t *id)
{
	int64_t i = jp_hindex_find(&m->ix, h, k, fkey_eq, m);
	if (i < 0)
		return 0;
	*id = m->v[i].id;
	return 1;
}

/* k (not in m: the caller looked, under the same hash h) gets id. */
static int memo_put(struct fmemo *m, const struct fkey *k, uint64_t h, uint32_t id)
{
	if (JP_GROW_FOR(m->v, m->cap, m->n))
		return -ENOMEM;
	m->v[m->n] = (struct fent){ .k = *k, .id = id };
	int rc = jp_hindex_add(&m->ix, h, m->n);
	if (!rc)
		m->n++;
	return rc;
}

/* ",123": fprintf's work without its format parsing, per frame and per weight (the profiles
 * go to this thread's own memory stream: no lock taken per call). */
static void put_num(FILE *out, int comma, uint64_t v)
{
	char b[24], *p = b + sizeof(b);
	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	if (comma)
		*--p = ',';
	fwrite_unlocked(p, 1, (size_t)(b + sizeof(b) - p), out);
}

static void put_id(FILE *out, int comma, uint32_t id)
{
	put_num(out, comma, id);
}

/* The profiles go to a buffer first: the frame table they build comes before them. */
static int profiles(FILE *out, const struct rp_session *s, struct rp_strtab *fr,
		    struct fmemo *memo, const uint32_t *order, const struct thread *th, size_t nth,
		    uint32_t *by_ref)
{
	struct jp_str name = { 0 };
	int rc = 0;
	int ns = rp_period_is_ns(s) || s->weigh_bytes;	/* weights in the unit below */
	const char *unit = s->weigh_bytes ? "bytes" : ns ? "nanoseconds" : "none";
	for (size_t t = 0; t < nth; t++) {
		uint64_t total = 0;
		fprintf(out, "%s{\"type\":\"sampled\",\"name\":", t ? "," : "");
		rp_json_str(out, jp_str_printf(&name, "%s pid %u tid %u",
					       th[t].comm ? th[t].comm : "?", th[t].pid, th[t].tid));
		fprintf(out, ",\"unit\":\"%s\",\"samples\":[", unit);
		int any = 0;
		for (size_t i = 0; i < s->nr_samples; i++) {
			const struct rp_sample *smp = &s->samples[order[i]];
			if (smp->tid != th[t].tid || smp->pid != th[t].pid)
				continue;
			total += smp->period;
			fputs_unlocked(any++ ? ",[" : "[", out);
			for (uint32_t k = smp->nr; k-- > 0;) {
				/* a frame reference seen before: its id at once */
				uint32_t ref = s->chain[smp->first + k], id;
				if (by_ref[ref]) {
					put_id(out, k + 1 < smp->nr, by_ref[ref] - 1);
					continue;
				}
				const struct rp_frame *f = rp_chain_frame(s, smp->first + k);
				struct fkey key = key_of(f);
				uint64_t h = rp_hash_words(&key, sizeof(key));
				if (!memo_find(memo, &key, h, &id)) {
					const char *nm = rp_frame_name(s, f, rp_stack_tag(s), &name);
					rc = rp_strtab_id(fr, nm, (uintptr_t)f->srcfile, &id);
					if (rc || (rc = memo_put(memo, &key, h, id)))
						goto out;
				}
				by_ref[ref] = id + 1;
				put_id(out, k + 1 < smp->nr, id);
			}
			fputc_unlocked(']', out);
		}
		fprintf(out, "],\"weights\":[");
		any = 0;
		for (size_t i = 0; i < s->nr_samples; i++) {
			const struct rp_sample *smp = &s->samples[order[i]];
			if (smp->tid == th[t].tid && smp->pid == th[t].pid)
				put_num(out, any++, ns ? smp->period : 1);
		}
		fprintf(out, "],\"startValue\":0,\"endValue\":%" PRIu64 "}",
			ns ? total : th[t].samples);
	}
out:
	if (jp_str_free(&name) && !rc)
		rc = -ENOMEM;
	return rc;
}

int rp_write_speedscope(FILE *out, const struct rp_session *s, const char *name)
{
	uint32_t *order = malloc((s->nr_samples + 1) * sizeof(*order));
	/* a thread per sample at most, each entry written as its thread is first met: not
	 * zeroed (7 MB for 220k samples, every byte a page fault here) */
	struct thread *th = malloc((s->nr_samples + 1) * sizeof(*th));
	uint32_t *by_ref = calloc(s->nr_frames + 1, sizeof(*by_ref));	/* frame -> id + 1 */
	struct rp_u64map tix = { 0 };
	struct rp_strtab fr = { 0 };
	struct fmemo memo = { 0 };
	char *buf = NULL;
	size_t len = 0, nth = 0;
	int rc = -ENOMEM;
	FILE *mem = NULL;
	if (!order || !th || !by_ref)
		goto out;
	int sorted = 1;
	for (size_t i = 0; i < s->nr_samples; i++) {
		const struct rp_sample *smp = &s->samples[i];
		uint64_t key = ((uint64_t)smp->pid << 32 | smp->tid) + 1;
		uint32_t t;
		order[i] = (uint32_t)i;
		sorted &= !i || s->samples[i - 1].time <= smp->time;
		if (!rp_map_get(&tix, key, &t)) {
			t = (uint32_t)nth++;
			th[t] = (struct thread){ smp->pid, smp->tid, smp->comm, 0 };
			if (rp_map_put(&tix, key, t) < 0)
				goto out;
		}
		th[t].samples++;
	}
	if (!sorted)	/* the replay adds them in time order: mostly already so */
		qsort_r(order, s->nr_samples, sizeof(*order), by_time, (void *)s);
	qsort(th, nth, sizeof(*th), by_samples);
	if (!(mem = open_memstream(&buf, &len)))
		goto out;
	rc = profiles(mem, s, &fr, &memo, order, th, nth, by_ref);
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
	free(by_ref);
	rp_map_free(&tix);
	rp_strtab_free(&fr);
	free(memo.v);
	jp_hindex_free(&memo.ix);
	return rc;
}
