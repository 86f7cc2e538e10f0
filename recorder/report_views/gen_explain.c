/* gen_explain.c - what the generations table and JSON say about each generation beyond its
 * samples: HotSpot's level, compile id and OSR bci, its active period and what ended it, and
 * (with --jvm-log) the trap or dependency behind a deoptimization and the inlining decisions. */
#include <inttypes.h>
#include <string.h>

#include "jitdump/jitdump.h"
#include "lib/nomem.h"
#include "recorder/report_views/views_int.h"

#define MAX_INLINE_SHOWN 8	/* per generation in the table; JSON has them all */

/* Level and compile id are the companion's (or the log's), never guessed. */
static int32_t row_level(const struct rp_load *l)
{
	if (l->compile_id > 0 || l->tier == JD_TIER_C1 || l->tier == JD_TIER_C2 ||
	    l->tier == JD_TIER_OTHER)
		return l->level;
	return l->jvm ? l->jvm->level : -1;
}

static int32_t row_compile_id(const struct rp_load *l)
{
	return l->compile_id > 0 ? l->compile_id : l->jvm ? l->jvm->compile_id : -1;
}

static int32_t row_osr_bci(const struct rp_load *l)
{
	if (l->jvm && l->jvm->osr_bci >= 0)
		return l->jvm->osr_bci;
	return (l->flags & JD_LOAD_OSR) && l->compile_id > 0 ? l->osr_bci : -1;
}

static void num_or_dash(FILE *out, const char *fmt, int32_t v)
{
	char b[16];
	snprintf(b, sizeof(b), "%d", v);
	fprintf(out, fmt, v >= 0 ? b : "-");
}

void rp_gen_print_head(FILE *out)
{
	fprintf(out, "  %4s  %-8s  %3s  %6s  %9s  %9s  %-15s  %7s  %7s  %7s  %9s  %-10s  %s\n",
		"gen", "tier", "lvl", "id", "active", "until", "until by", "code", "samples",
		"share", "samples/s", "ended", "hottest lines");
}

/* A period's end as the table prints it: seconds, or "before" (the attach) when unknown. */
static void seconds_or_before(FILE *out, double s, int before)
{
	if (before)
		fprintf(out, "%9s  ", "before");
	else
		fprintf(out, "%8.3fs  ", s);
}

void rp_gen_print_row(FILE *out, const struct rp_gen_row *r)
{
	const struct rp_load *l = r->load;
	fprintf(out, "  %4u  %-8s  ", l->generation, rp_load_tier(l));
	num_or_dash(out, "%3s  ", row_level(l));
	num_or_dash(out, "%6s  ", row_compile_id(l));
	seconds_or_before(out, r->active_from_s, r->from_src == RP_FROM_BEFORE_ATTACH);
	seconds_or_before(out, r->active_until_s, r->until_src == RP_UNTIL_BEFORE_ATTACH);
	fprintf(out, "%-15s  %7" PRIu64 "  %7" PRIu64 "  %6.2f%%  %9.1f  %-10s  ",
		rp_until_src_name(r->until_src), l->code_size, r->samples, 100 * r->share,
		r->per_sec, rp_end_kind_name(r->ended_by));
	for (int h = 0; h < r->nr_hot; h++)
		fprintf(out, "%s%s:%u (%.0f%%)", h ? ", " : "", r->hot[h].file, r->hot[h].line,
			100.0 * r->hot[h].samples / r->samples);
	fprintf(out, "%s\n", r->nr_hot ? "" : "-");
}

/* buf->s, whole; jp_nomem out of memory (its callers print, with no error path). */
static const char *said(struct jp_str *buf)
{
	if (buf->nomem)
		jp_nomem("a generation's detail");
	return buf->s;
}

const char *rp_gen_end_detail(const struct rp_gen_row *r, struct jp_str *buf)
{
	const struct rp_jvm_code *c = r->load->jvm;
	if (c && c->end == RP_END_DEOPT) {
		uint32_t line = rp_bci_line(r->load, c->trap_method, c->trap_bci);
		char at[32] = "";	/* " line " and a u32: bounded */
		if (line)
			snprintf(at, sizeof(at), " line %u", line);
		jp_str_printf(buf, "deoptimized: %s, action %s, at %s%s bci %d",
			      c->reason ? c->reason : "?", c->action ? c->action : "?",
			      c->trap_method ? c->trap_method : "?", at, c->trap_bci);
		return said(buf);
	}
	if (c && c->end == RP_END_DEPENDENCY) {
		jp_str_printf(buf, "dependency broken: %s (by %s)", c->reason ? c->reason : "?",
			      c->trap_method ? c->trap_method : "?");
		return said(buf);
	}
	return NULL;
}

/* The log's detail under a row: why it was made not entrant, then what it inlined. */
void rp_gen_print_detail(FILE *out, const struct rp_gen_row *r)
{
	const struct rp_jvm_code *c = r->load->jvm;
	struct jp_str why = { 0 };
	if (!c)
		return;
	if (rp_gen_end_detail(r, &why))
		fprintf(out, "        %s\n", why.s);
	jp_str_free(&why);
	for (size_t i = 0; i < c->nr_inl && i < MAX_INLINE_SHOWN; i++) {
		const struct rp_jvm_inline *in = &c->inl[i];
		uint32_t line = rp_call_site_line(r->load, in->callee, in->caller, in->bci);
		char at[32] = "";
		if (line)
			snprintf(at, sizeof(at), " line %u", line);
		fprintf(out, "        %s %s at %s%s bci %d: %s\n", in->ok ? "inlined    " :
			"not inlined", in->callee ? in->callee : "?", in->caller ? in->caller : "?",
			at, in->bci, in->why ? in->why : "");
	}
	if (c->nr_inl > MAX_INLINE_SHOWN)
		fprintf(out, "        ... %zu more inlining decisions (--json has them all)\n",
			c->nr_inl - MAX_INLINE_SHOWN);
}

#define NO_LOG "no JVM compilation log (--jvm-log FILE): end reasons are inferred from " \
	"loads and unloads only; no deoptimization reasons, no inlining decisions, no " \
	"not-entrant times"

static size_t nr_joined(const struct rp_session *s)
{
	size_t joined = 0;
	for (size_t i = 0; i < s->nr_loads; i++)
		joined += s->loads[i].jvm != NULL;
	return joined;
}

/* What the header says about the sources the view could use. */
/* HotSpot code in the recording (tiers our agent names): only then is a JVM log worth asking. */
static int has_hotspot(const struct rp_session *s)
{
	for (size_t i = 0; i < s->nr_loads; i++)
		if (s->loads[i].tier == JD_TIER_C1 || s->loads[i].tier == JD_TIER_C2)
			return 1;
	return 0;
}

void rp_gen_print_sources(FILE *out, const struct rp_session *s)
{
	const struct rp_jvmlog *jl = s->jvmlog;
	size_t bf = 0;
	for (size_t i = 0; i < s->nr_loads; i++)
		bf += !s->loads[i].runtime && (s->loads[i].flags & JD_LOAD_BACKFILLED);
	if (bf)
		fprintf(out, "# agent attached to a running JVM: %zu generations compiled before it, "
			"numbered by compile id, active from %s\n", bf,
			jl ? "their install (JVM log)" : "\"before\" (the attach)");
	if (!jl && has_hotspot(s)) {
		fprintf(out, "# %s\n", NO_LOG);
		return;
	}
	if (!jl) {
		fputs("# ends of generations inferred from loads, unloads and samples (the runtime "
		      "tells no more)\n", out);
		return;
	}
	if (rp_jvmlog_is_jfr(jl))
		fprintf(out, "# JVM's Flight Recording (compiles and uncommon traps; no inlining "
			"decisions or broken dependencies): process %u, %zu compiles, %zu loads "
			"joined\n", rp_jvmlog_pid(jl), rp_jvmlog_nr_codes(jl), nr_joined(s));
	else
		fprintf(out, "# JVM compilation log: process %u, %zu nmethods, %zu loads joined\n",
			rp_jvmlog_pid(jl), rp_jvmlog_nr_codes(jl), nr_joined(s));
	if (rp_jvmlog_cut(jl))
		fprintf(out, "# JVM compilation log truncated, used up to the cut: %s\n",
			rp_jvmlog_cut(jl));
}

static void json_str_or_null(FILE *out, const char *s)
{
	if (s)
		rp_json_str(out, s);
	else
		fputs("null", out);
}

static void json_int_or_null(FILE *out, int32_t v)
{
	if (v >= 0)
		fprintf(out, "%d", v);
	else
		fputs("null", out);
}

/* The generation that replaced r, -1 when none did. */
static int32_t by_gen(const struct rp_gen_row *r)
{
	return r->ended_by == RP_END_REPLACED && r->next ? (int32_t)r->next->generation : -1;
}

/* For a replaced generation: whether its successor is a higher tier or the same again. */
static const char *replaced_how(const struct rp_gen_row *r)
{
	int32_t a, b;
	if (r->ended_by != RP_END_REPLACED || !r->next)
		return NULL;
	a = row_level(r->load);
	b = row_level(r->next);
	if (a < 0 || b < 0)
		return NULL;
	return b > a ? "higher_tier" : b == a ? "recompiled" : "lower_tier";
}

/* The fields of docs/generations.schema.json, after the row's opening brace. */
void rp_gen_json_fields(FILE *out, const struct rp_gen_row *r)
{
	const struct rp_load *l = r->load;
	const struct rp_jvm_code *c = l->jvm;
	fprintf(out, "\"gen\": %u, \"code_addr\": %" PRIu64 ", \"level\": ", l->generation,
		l->code_addr);
	json_int_or_null(out, row_level(l));
	fputs(", \"compile_id\": ", out);
	json_int_or_null(out, row_compile_id(l));
	fputs(", \"osr_bci\": ", out);
	json_int_or_null(out, row_osr_bci(l));
	fputs(", \"active_from\": ", out);
	if (r->from_src == RP_FROM_BEFORE_ATTACH)
		fputs("null", out);
	else
		fprintf(out, "%.6f", r->active_from_s);
	fprintf(out, ", \"active_from_source\": \"%s\", \"active_until\": %.6f, "
		"\"active_until_source\": \"%s\", \"samples_per_s\": %.3f, \"ended_by\": "
		"{\"kind\": \"%s\", \"reason\": ", rp_from_src_name(r->from_src),
		r->active_until_s, rp_until_src_name(r->until_src), r->per_sec,
		rp_end_kind_name(r->ended_by));
	int logged = c && c->end == r->ended_by;
	json_str_or_null(out, logged && c->reason ? c->reason : replaced_how(r));
	fputs(", \"action\": ", out);
	json_str_or_null(out, logged ? c->action : NULL);
	fputs(", \"method\": ", out);
	json_str_or_null(out, logged ? c->trap_method : NULL);
	fputs(", \"bci\": ", out);
	json_int_or_null(out, logged ? c->trap_bci : -1);
	fputs(", \"by_gen\": ", out);
	json_int_or_null(out, by_gen(r));
	/* The log names a bytecode index; the agent's inline stacks (version 2) put it on a
	 * line when a pc descriptor of this generation has that (method, bci). */
	uint32_t tline = logged ? rp_bci_line(l, c->trap_method, c->trap_bci) : 0;
	fputs(", \"line\": ", out);
	json_int_or_null(out, tline ? (int32_t)tline : -1);
	fputs("}, \"inlined\": ", out);
	if (!c) {
		fputs("null", out);
		return;
	}
	fputc('[', out);
	for (size_t i = 0; i < c->nr_inl; i++) {
		const struct rp_jvm_inline *in = &c->inl[i];
		fprintf(out, "%s{\"callee\": ", i ? ", " : "");
		json_str_or_null(out, in->callee);
		fputs(", \"caller\": ", out);
		json_str_or_null(out, in->caller);
		fputs(", \"bci\": ", out);
		json_int_or_null(out, in->bci);
		uint32_t line = rp_call_site_line(l, in->callee, in->caller, in->bci);
		fputs(", \"line\": ", out);
		json_int_or_null(out, line ? (int32_t)line : -1);
		fprintf(out, ", \"ok\": %s, \"why\": ", in->ok ? "true" : "false");
		json_str_or_null(out, in->why);
		fputc('}', out);
	}
	fputc(']', out);
}

void rp_gen_html_fields(FILE *out, const struct rp_gen_row *r)
{
	const struct rp_load *l = r->load;
	struct jp_str why = { 0 };
	fputs("\"level\":", out);
	json_int_or_null(out, row_level(l));
	fputs(",\"id\":", out);
	json_int_or_null(out, row_compile_id(l));
	fprintf(out, ",\"until\":%.6f,\"until_by\":\"%s\",\"ended\":\"%s\",\"by_gen\":",
		r->active_until_s, rp_until_src_name(r->until_src), rp_end_kind_name(r->ended_by));
	json_int_or_null(out, by_gen(r));
	fputs(",\"why\":", out);
	const char *detail = rp_gen_end_detail(r, &why);
	json_str_or_null(out, detail ? detail : replaced_how(r));
	jp_str_free(&why);
}

void rp_gen_html_sources(FILE *out, const struct rp_session *s)
{
	const struct rp_jvmlog *jl = s->jvmlog;
	if (jl) {
		struct jp_str buf = { 0 };	/* the cut names the log's path: whole */
		jp_str_printf(&buf, "%s of process %u joined: %zu %s, %zu loads.%s%s",
			      rp_jvmlog_is_jfr(jl) ? "The JVM's Flight Recording" :
			      "HotSpot's compilation log", rp_jvmlog_pid(jl), rp_jvmlog_nr_codes(jl),
			      rp_jvmlog_is_jfr(jl) ? "compiles" : "nmethods",
			      nr_joined(s), rp_jvmlog_cut(jl) ? " Truncated, used up to the cut: " : "",
			      rp_jvmlog_cut(jl) ? rp_jvmlog_cut(jl) : "");
		rp_json_str(out, said(&buf));
		jp_str_free(&buf);
		return;
	}
	if (has_hotspot(s))
		rp_json_str(out, "No HotSpot compilation log: what ended each generation is inferred "
			    "from loads and unloads. For the deoptimization or broken dependency "
			    "behind it: jitprof report --html ... --jvm-log FILE, or jitprof profile "
			    "--jvm-log.");
	else
		fputs("null", out);
}

void rp_gen_json_sources(FILE *out, const struct rp_session *s)
{
	const struct rp_jvmlog *jl = s->jvmlog;
	if (!jl) {
		fputs("\"jvm_log\": null, \"missing\": ", out);
		rp_json_str(out, NO_LOG);
		return;
	}
	fprintf(out, "\"jvm_log\": {\"pid\": %u, \"nmethods\": %zu, \"joined\": %zu, "
		"\"truncated\": ", rp_jvmlog_pid(jl), rp_jvmlog_nr_codes(jl), nr_joined(s));
	json_str_or_null(out, rp_jvmlog_cut(jl));
	fputc('}', out);
}
