/* frames.c - what every stack view shares about frames and samples: the kind of a frame
 * (interpreted, C1, C2, inlined, native, kernel: colours, legends, exports), whether a
 * method's generations are one frame, and the sample filter (--pid, --tid, --time, --method)
 * applied once so that every output sees the same samples. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "jitdump/jitdump.h"
#include "recorder/report_model/model.h"

static const char *const kind_names[RP_KIND__MAX] = {
	[RP_KIND_NATIVE] = "native", [RP_KIND_KERNEL] = "kernel", [RP_KIND_INLINED] = "inlined",
	[RP_KIND_INTERP] = "interpreted", [RP_KIND_C1] = "C1", [RP_KIND_C2] = "C2",
	[RP_KIND_JIT] = "jit", [RP_KIND_JAVA] = "java",
};

const char *rp_kind_name(enum rp_kind k)
{
	return k < RP_KIND__MAX ? kind_names[k] : "?";
}

const char *rp_kind_label(enum rp_kind k)
{
	switch (k) {
	case RP_KIND_JIT: return "stub / other JIT";
	case RP_KIND_C1: return "C1 / baseline";
	case RP_KIND_C2: return "C2 / optimized";
	case RP_KIND_JAVA: return "Java (JVM's stack)";
	default: return rp_kind_name(k);
	}
}

enum rp_kind rp_frame_kind(const struct rp_session *s, const struct rp_frame *f)
{
	if (f->flags & RP_FRAME_INLINED)
		return RP_KIND_INLINED;
	if (f->flags & RP_FRAME_INTERPRETED)
		return RP_KIND_INTERP;
	if (f->flags & RP_FRAME_JAVA)
		return RP_KIND_JAVA;
	if (f->flags & RP_FRAME_KERNEL)
		return RP_KIND_KERNEL;
	const struct rp_load *l = f->load && f->load <= s->nr_loads ? &s->loads[f->load - 1]
								       : NULL;
	if (!l)
		/* HotSpot's template interpreter is one stub named so, in no load of a method. */
		return f->sym && !strcmp(f->sym, "Interpreter") ? RP_KIND_INTERP : RP_KIND_NATIVE;
	/* V8's tiers map to the JVM's by role: a quick first compile, an optimizing one. */
	switch (l->tier) {
	case JD_TIER_INTERPRETER: return RP_KIND_INTERP;
	case JD_TIER_C1: case RP_TIER_BASELINE: case RP_TIER_MIDTIER: return RP_KIND_C1;
	case JD_TIER_C2: case RP_TIER_OPTIMIZED: return RP_KIND_C2;
	default:
		return f->sym && !strcmp(f->sym, "Interpreter") ? RP_KIND_INTERP : RP_KIND_JIT;
	}
}

int rp_set_dso_build_id(struct rp_session *s, const char *dso, const char *hex)
{
	const char *bid = rp_intern(s, hex);
	if (!dso || !bid)
		return -ENOMEM;
	if (JP_GROW_FOR(s->bids, s->bids_cap, s->nr_bids))
		return -ENOMEM;
	s->bids[s->nr_bids++] = bid;
	return rp_map_put(&s->dso_bid, (uintptr_t)dso, (uint32_t)s->nr_bids) < 0 ? -ENOMEM : 0;
}

const char *rp_dso_build_id(const struct rp_session *s, const char *dso)
{
	uint32_t v;
	return dso && rp_map_get(&s->dso_bid, (uintptr_t)dso, &v) ? s->bids[v - 1] : NULL;
}

void rp_set_split_generations(struct rp_session *s, int on)
{
	s->split_gens = on;
}

int rp_split_generations(const struct rp_session *s)
{
	return s->split_gens;
}

unsigned rp_stack_tag(const struct rp_session *s)
{
	return RP_NAME_KMARK | RP_NAME_IMARK | (s->split_gens ? RP_NAME_GEN : 0);
}

uint32_t rp_frame_split_load(const struct rp_session *s, const struct rp_frame *f)
{
	if (!s->split_gens || !f->load || f->load > s->nr_loads)
		return 0;
	return s->loads[f->load - 1].runtime ? 0 : f->load;	/* stubs have no generations */
}

static int keep(const struct rp_session *s, const struct rp_sample *smp,
		const struct rp_filter *f, const struct rp_name_match *m)
{
	if (f->has_pid && smp->pid != f->pid)
		return 0;
	if (f->has_tid && smp->tid != f->tid)
		return 0;
	uint64_t rel = smp->time >= s->start ? smp->time - s->start : 0;
	if (rel < f->from_ns || (f->to_ns && rel > f->to_ns))
		return 0;
	if (!m)
		return 1;
	for (uint32_t i = 0; i < smp->nr; i++) {
		const struct rp_frame *fr = rp_chain_frame(s, smp->first + i);
		if (f->generation && (!fr->load || s->loads[fr->load - 1].generation != f->generation))
			continue;
		if (rp_name_matches(m, fr->sym))
			return 1;
	}
	return 0;
}

void rp_session_filter(struct rp_session *s, const struct rp_filter *f)
{
	struct rp_name_match m;
	if (f->method)
		rp_name_match_init(&m, f->method);
	size_t n = 0;
	for (size_t i = 0; i < s->nr_samples; i++)
		if (keep(s, &s->samples[i], f, f->method ? &m : NULL))
			s->samples[n++] = s->samples[i];
	s->nr_samples = n;
	if (f->method)
		rp_name_match_fini(&m);
	rp_session_finish(s);
}

const char *rp_describe(const struct rp_session *s, struct jp_str *buf)
{
	double secs = s->end > s->start ? (double)(s->end - s->start) / 1e9 : 0;
	return jp_str_printf(buf, "%s, %zu samples, %.2f s", s->event ? s->event : "?",
			     s->nr_samples, secs);
}

void rp_kind_color(enum rp_kind k, double l, char *buf, size_t len)
{
	/* Hue and saturation per kind; lightness within a band so neighbours differ. */
	static const struct { int h, s, l; } c[RP_KIND__MAX] = {
		[RP_KIND_NATIVE] = { 8, 70, 60 }, [RP_KIND_KERNEL] = { 32, 90, 58 },
		[RP_KIND_INLINED] = { 178, 55, 55 }, [RP_KIND_INTERP] = { 100, 50, 58 },
		[RP_KIND_C1] = { 52, 85, 55 }, [RP_KIND_C2] = { 212, 70, 62 },
		[RP_KIND_JIT] = { 280, 45, 65 }, [RP_KIND_JAVA] = { 140, 45, 52 },
	};
	if (k >= RP_KIND__MAX)
		k = RP_KIND_NATIVE;
	snprintf(buf, len, "hsl(%d,%d%%,%d%%)", c[k].h, c[k].s, c[k].l - 8 + (int)(l * 16));
}
