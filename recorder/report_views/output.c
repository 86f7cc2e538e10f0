/* output.c - machine-readable outputs: JSON (the table's rows, and the generations view when
 * asked, with the same numbers the tables print) and folded stacks for flamegraph.pl or
 * speedscope (one line per distinct stack, root first). With -g each JSON row carries its
 * heaviest call stacks. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/hindex.h"
#include "safeio/safeio.h"
#include "recorder/report_views/views_int.h"

/* The UTF-8 sequence at p (its first byte >= 0x80) written as it is, or bad for a byte that is
 * not one: JSON and XML are UTF-8, and their parsers refuse a file that is not. The bytes used. */
static size_t put_utf8(FILE *out, const unsigned char *p, const char *bad)
{
	size_t n = sio_utf8_len(p);
	if (!n) {
		fputs(bad, out);
		return 1;
	}
	fwrite(p, 1, n, out);
	return n;
}

void rp_json_str(FILE *out, const char *str)
{
	sio_fput_json_str(str ? str : "", out);
}

void rp_xml_str(FILE *out, const char *str)
{
	for (const unsigned char *p = (const unsigned char *)(str ? str : ""); *p;) {
		size_t n = 0;	/* a run that needs no escape goes out in one fwrite */
		while (p[n] >= 0x20 && p[n] < 0x80 && !strchr("<>&\"'", p[n]))
			n++;
		if (n) {
			fwrite(p, 1, n, out);
			p += n;
			continue;
		}
		if (*p >= 0x80) {
			p += put_utf8(out, p, SIO_UTF8_REPLACEMENT);
			continue;
		}
		switch (*p) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		default:
			/* XML 1.0 forbids most control characters even escaped. */
			fputc('?', out);
		}
		p++;
	}
}

static void json_hot(FILE *out, const struct rp_gen_row *r)
{
	fputc('[', out);
	for (int h = 0; h < r->nr_hot; h++) {
		fprintf(out, "%s{\"file\": ", h ? ", " : "");
		rp_json_str(out, r->hot[h].file);
		fprintf(out, ", \"line\": %u, \"samples\": %" PRIu64 "}", r->hot[h].line,
			r->hot[h].samples);
	}
	fputc(']', out);
}

static void json_generations(FILE *out, const struct rp_gen_view *v, const struct rp_session *s)
{
	fprintf(out, ",\n \"generations\": {\"total_samples\": %" PRIu64 ", \"unloaded_samples\": %"
		PRIu64 ", \"unknown_samples\": %" PRIu64 ", ", v->total_samples,
		v->unloaded_samples, v->unknown_samples);
	rp_gen_json_sources(out, s);
	fprintf(out, ", \"methods\": [");
	for (size_t i = 0; i < v->nr_methods; i++) {
		const struct rp_gen_method *m = &v->methods[i];
		fprintf(out, "%s\n  {\"pid\": %u, \"method\": ", i ? "," : "", m->pid);
		rp_json_str(out, m->method);
		fprintf(out, ", \"generations\": [");
		for (size_t k = 0; k < m->nr_rows; k++) {
			const struct rp_gen_row *r = &m->rows[k];
			fprintf(out, "%s\n   {\"generation\": %u, \"tier\": \"%s\", \"load_time_s\": %.6f, "
				"\"lifetime_s\": %.6f, \"code_size\": %" PRIu64 ", \"samples\": %" PRIu64
				", \"process_samples\": %" PRIu64 ", \"share\": %.6f, "
				"\"samples_per_sec\": %.3f, \"dso\": ", k ? "," : "",
				r->load->generation, rp_load_tier(r->load), r->rel_load_s,
				r->lifetime_s, r->load->code_size, r->samples, r->proc_samples, r->share,
				r->per_sec);
			rp_json_str(out, r->load->dso);
			fprintf(out, ", \"build_id\": ");
			if (r->load->build_id)
				rp_json_str(out, r->load->build_id);
			else
				fputs("null", out);
			fprintf(out, ", \"hottest_lines\": ");
			json_hot(out, r);
			fprintf(out, ", ");
			rp_gen_json_fields(out, r);
			/* hot_lines: the schema's name; hottest_lines kept for older readers */
			fprintf(out, ", \"hot_lines\": ");
			json_hot(out, r);
			fprintf(out, "}");
		}
		fprintf(out, "]}");
	}
	fprintf(out, "]}");
}

/* With -g (the hist kept its members): the row's distinct call stacks, heaviest first, each
 * outermost frame first (leaf first with -g callee), as the folded stacks name frames. */
#define JSON_STACKS 20
struct stack_row { uint32_t id; uint64_t samples; };

static int by_samples_desc(const void *a, const void *b)
{
	const struct stack_row *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int json_stacks(FILE *out, const struct rp_session *s, const struct rp_entry *e,
		       int leaf_first)
{
	struct rp_strtab st = { 0 };
	struct stack_row *rows = calloc(e->nr_members + 1, sizeof(*rows));
	struct jp_str buf = { 0 }, name = { 0 };
	int rc = rows ? 0 : -ENOMEM;
	for (uint32_t m = 0; m < e->nr_members && !rc; m++) {
		const struct rp_sample *smp = &s->samples[e->members[m]];
		jp_str_printf(&buf, "%s", "");
		for (uint32_t k = 0; k < smp->nr; k++) {
			uint32_t i = leaf_first ? k : smp->nr - 1 - k;
			rp_frame_name(s, rp_chain_frame(s, smp->first + i), rp_stack_tag(s), &name);
			jp_str_appendf(&buf, "%s%s", k ? "\x1f" : "", name.s);
		}
		uint32_t id;
		if ((rc = rp_strtab_id(&st, buf.s, 0, &id)))
			break;
		rows[id].id = id;
		rows[id].samples++;
	}
	if (!rc) {
		qsort(rows, st.n, sizeof(*rows), by_samples_desc);
		fprintf(out, ", \"stacks\": [");
		for (size_t i = 0; i < st.n && i < JSON_STACKS; i++) {
			fprintf(out, "%s{\"samples\": %" PRIu64 ", \"frames\": [", i ? ", " : "",
				rows[i].samples);
			const char *p = st.str[rows[i].id];
			for (int k = 0; *p; k++) {
				size_t l = strcspn(p, "\x1f");
				jp_str_clear(&name);
				jp_str_append(&name, p, l);
				fputs(k ? ", " : "", out);
				rp_json_str(out, name.s);
				p += l;
				if (*p)
					p++;
			}
			fputs("]}", out);
		}
		fputc(']', out);
	}
	rp_strtab_free(&st);
	free(rows);
	if (jp_str_free(&buf) | jp_str_free(&name) && !rc)
		rc = -ENOMEM;
	return rc;
}

int rp_print_json(FILE *out, const struct rp_hist *h, const struct rp_session *s,
		  const char *method, int with_generations)
{
	struct jp_str buf = { 0 }, bare = { 0 };
	int rc = 0;
	fprintf(out, "{\"event\": ");
	rp_json_str(out, s->event);
	fprintf(out, ", \"samples\": %" PRIu64 ", \"total_period\": %" PRIu64 ", \"lost\": %" PRIu64
		", \"start_ns\": %" PRIu64 ", \"end_ns\": %" PRIu64 ",\n \"sort\": [", h->total_samples,
		h->total_period, s->lost, s->start, s->end);
	for (int k = 0; k < h->nr_keys; k++)
		fprintf(out, "%s\"%s\"", k ? ", " : "", rp_key_name(h->keys[k]));
	fprintf(out, "],\n \"rows\": [");
	for (size_t i = 0; i < h->nr_entries; i++) {
		const struct rp_entry *e = &h->entries[i];
		fprintf(out, "%s\n  {\"overhead\": %.4f, \"period\": %" PRIu64 ", \"samples\": %" PRIu64,
			i ? "," : "", h->total_period ? 100.0 * e->period / h->total_period : 0,
			e->period, e->samples);
		for (int k = 0; k < h->nr_keys; k++) {
			fprintf(out, ", \"%s\": ", rp_key_name(h->keys[k]));
			const char *v = rp_entry_key_str(h, e, h->keys[k], &buf);
			/* The table's "[.] "/"[k] " mark is not part of the name. */
			if (h->keys[k] == RP_KEY_SYM && v[0] == '[' && v[2] == ']' && v[3] == ' ')
				v += 4;
			if (h->keys[k] == RP_KEY_SYM && (e->leaf->flags & RP_METHOD_MARKS)) {
				/* the name as the method's own rows have it; "inlined" or
				 * "interpreted" says how */
				int in = !!(e->leaf->flags & RP_FRAME_INLINED);
				const char *mark = in ? "_[i]" : "_[int]";
				size_t l = strlen(v), ml = strlen(mark);
				if (l >= ml && !strcmp(v + l - ml, mark))
					l -= ml;
				jp_str_clear(&bare);
				rp_json_str(out, jp_str_append(&bare, v, l));
				fputs(in ? ", \"inlined\": true" : ", \"interpreted\": true", out);
				continue;
			}
			rp_json_str(out, v);
		}
		if (e->members && (rc = json_stacks(out, s, e, h->leaf_first)))
			break;
		fputc('}', out);
	}
	/* a name that did not fit in memory: -ENOMEM, not a row without it */
	if (jp_str_free(&buf) | jp_str_free(&bare) && !rc)
		rc = -ENOMEM;
	if (rc)
		return rc;
	fprintf(out, "]");
	if (with_generations) {
		struct rp_gen_view v;
		int rc = rp_gen_view_build(&v, s, method);
		if (rc)
			return rc;
		json_generations(out, &v, s);
		rp_gen_view_free(&v);
	}
	fprintf(out, "}\n");
	return ferror(out) ? -EIO : 0;
}

/* ---- folded stacks ------------------------------------------------------------------ */

struct stack_count { char *stack; uint64_t count; };

static int stack_order(const void *a, const void *b)
{
	return strcmp(((const struct stack_count *)a)->stack, ((const struct stack_count *)b)->stack);
}

/* Appends ";", name and suffix to buf, ';' and newlines in the name made ':'. */
static void append_name(struct jp_str *buf, const char *name, const char *suffix)
{
	size_t at = buf->len + 1, n = strlen(name);
	jp_str_appendf(buf, ";%s%s", name, suffix);
	if (buf->len < at + n)
		return;		/* out of memory: buf says it */
	for (char *p = buf->s + at, *end = p + n; p < end; p++)
		if (*p == ';' || *p == '\n')
			*p = ':';
}

/* "comm;outer;...;leaf" of one sample into buf; semicolons inside names would split frames.
 * A frame whose name is its symbol and a fixed mark (nearly all) is not formatted twice. */
static void stack_of(const struct rp_session *s, const struct rp_sample *smp,
		     struct jp_str *buf, struct jp_str *name)
{
	unsigned tag = rp_stack_tag(s);
	jp_str_printf(buf, "%s", smp->comm ? smp->comm : "?");
	for (uint32_t i = smp->nr; i-- > 0;) {
		const struct rp_frame *f = rp_chain_frame(s, smp->first + i);
		const char *suffix, *sym = rp_frame_name_fixed(s, f, tag, &suffix);
		if (!sym) {
			sym = rp_frame_name(s, f, tag, name);
			suffix = "";
		}
		append_name(buf, sym, suffix);
	}
}

/* rp_collapse's tables: the folded strings (t, indexed by string) and, per distinct list of
 * frame references, the first sample that had it and the string it folded to (r, indexed by
 * the references: a sample whose references were seen goes to that string without making
 * it again). */
struct collapse {
	const struct rp_session *s;
	struct stack_count *t;
	size_t n, cap;
	struct { uint32_t sample, stack; } *r;
	size_t nr, rcap;
	struct jp_hindex by_string, by_refs;
	struct jp_str buf, name;	/* the sample being folded, one frame's name */
};

static int string_eq(const void *key, uint32_t idx, const void *ctx)
{
	return !strcmp(((const struct collapse *)ctx)->t[idx].stack, key);
}

static int refs_eq(const void *key, uint32_t idx, const void *ctx)
{
	const struct collapse *c = ctx;
	const struct rp_sample *smp = key, *o = &c->s->samples[c->r[idx].sample];
	return o->comm == smp->comm && o->nr == smp->nr &&
	       !memcmp(&c->s->chain[o->first], &c->s->chain[smp->first],
		       smp->nr * sizeof(*c->s->chain));
}

/* The folded string of sample i (its references not seen before) found or added: its index. */
static int64_t fold_sample(struct collapse *c, size_t i)
{
	stack_of(c->s, &c->s->samples[i], &c->buf, &c->name);
	const char *buf = c->buf.s;
	uint64_t h = rp_hash_words(buf, c->buf.len);
	int64_t k = jp_hindex_find(&c->by_string, h, buf, string_eq, c);
	if (k >= 0)
		return k;
	if (JP_GROW_FOR(c->t, c->cap, c->n) || !(c->t[c->n].stack = strdup(buf)))
		return -ENOMEM;
	c->t[c->n].count = 0;
	if (jp_hindex_add(&c->by_string, h, c->n)) {
		free(c->t[c->n].stack);
		return -ENOMEM;
	}
	return (int64_t)c->n++;
}

static int collapse_all(struct collapse *c)
{
	const struct rp_session *s = c->s;
	for (size_t i = 0; i < s->nr_samples; i++) {
		const struct rp_sample *smp = &s->samples[i];
		uint64_t rh = rp_hash_words((const char *)&s->chain[smp->first],
					 smp->nr * sizeof(*s->chain)) ^ (uintptr_t)smp->comm;
		int64_t k = jp_hindex_find(&c->by_refs, rh, smp, refs_eq, c);
		if (k >= 0) {
			c->t[c->r[k].stack].count += rp_stack_weight(s, smp);
			continue;
		}
		int64_t j = fold_sample(c, i);
		if (j < 0)
			return (int)j;
		c->t[j].count += rp_stack_weight(s, smp);
		if (JP_GROW_FOR(c->r, c->rcap, c->nr))
			return -ENOMEM;
		c->r[c->nr].sample = (uint32_t)i;
		c->r[c->nr].stack = (uint32_t)j;
		if (jp_hindex_add(&c->by_refs, rh, c->nr))
			return -ENOMEM;
		c->nr++;
	}
	return 0;
}

int rp_collapse(const struct rp_session *s, struct rp_stacks *out)
{
	struct collapse c = { .s = s };
	int rc = collapse_all(&c);
	memset(out, 0, sizeof(*out));
	if (jp_str_free(&c.buf) | jp_str_free(&c.name) && !rc)
		rc = -ENOMEM;
	free(c.r);
	jp_hindex_free(&c.by_refs);
	jp_hindex_free(&c.by_string);
	/* Sorted: stable output, and what flamegraph.pl expects. */
	if (!rc && c.n > 1)
		qsort(c.t, c.n, sizeof(*c.t), stack_order);
	if (!rc && !(out->v = malloc((c.n ? c.n : 1) * sizeof(*out->v))))
		rc = -ENOMEM;
	for (size_t j = 0; j < c.n; j++)
		if (rc)
			free(c.t[j].stack);
		else
			out->v[j] = (struct rp_stack){ c.t[j].stack, c.t[j].count };
	out->n = rc ? 0 : c.n;
	free(c.t);
	return rc;
}

void rp_stacks_free(struct rp_stacks *st)
{
	for (size_t i = 0; i < st->n; i++)
		free(st->v[i].stack);
	free(st->v);
	memset(st, 0, sizeof(*st));
}

int rp_print_collapsed(FILE *out, const struct rp_session *s)
{
	struct rp_stacks st;
	int rc = rp_collapse(s, &st);
	if (rc)
		return rc;
	for (size_t i = 0; i < st.n; i++)
		fprintf(out, "%s %" PRIu64 "\n", st.v[i].stack, st.v[i].count);
	rp_stacks_free(&st);
	return ferror(out) ? -EIO : 0;
}
