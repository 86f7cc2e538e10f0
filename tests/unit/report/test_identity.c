/* test_identity.c - recorder/report/identity.c: what a generation is per runtime. HotSpot:
 * the JVM's class + name + signature, stubs/adapters/interpreter/tier "other" as runtime code;
 * V8: the function and its script position without the tier marker, the marker its tier;
 * anything else: the name. Then model.c numbers generations within each identity. */
#include <criterion/criterion.h>
#include <string.h>

#include "jitdump/jitdump.h"
#include "recorder/report_analysis/analysis_int.h"
#include "recorder/report_ingest/ingest_int.h"
#include "recorder/report_views/views_int.h"
#include "tests/unit/report/rptest.h"

static uint32_t add(struct rp_session *s, uint32_t pid, const char *method, uint32_t tier,
		    uint64_t t)
{
	uint32_t i = rt_load(s, pid, method, 0, t, 0, 0x1000 * t, 0x40);
	rp_load_at(s, i)->tier = tier;
	return i;
}

Test(identity, per_runtime)
{
	/* pid, name as the runtime wrote it, as shown, tier. A JVM (pid 7): two loads of f, two
	 * methods the readable name cannot tell apart (a covariant bridge), stubs and a
	 * method-handle intrinsic. node (pid 8): scan through its four tiers, another function,
	 * a builtin. minijit (pid 9): tier "other" is just an unnamed tier there. */
	static const struct { uint32_t pid; const char *raw, *shown; uint32_t tier; } tab[] = {
		{ 7, "Lp/A;f()V", "p.A.f()", JD_TIER_C1 },
		{ 7, "Lp/A;f()V", "p.A.f()", JD_TIER_C2 },
		{ 7, "Lp/A;g()Ljava/lang/Object;", "p.A.g()", JD_TIER_C2 },
		{ 7, "Lp/A;g()Lp/B;", "p.A.g()", JD_TIER_C2 },
		{ 7, "itable stub", "itable stub", JD_TIER_UNKNOWN },
		{ 7, "Interpreter", "Interpreter", JD_TIER_STUB },
		{ 7, "Ljava/lang/invoke/MethodHandle;linkToStatic(L;)V",
		  "java.lang.invoke.MethodHandle.linkToStatic()", JD_TIER_OTHER },
		{ 8, "JS:~scan /x.js:1:14", NULL, JD_TIER_UNKNOWN },
		{ 8, "JS:^scan /x.js:1:14", NULL, JD_TIER_UNKNOWN },
		{ 8, "JS:+scan /x.js:1:14", NULL, JD_TIER_UNKNOWN },
		{ 8, "JS:*scan /x.js:1:14", NULL, JD_TIER_UNKNOWN },
		{ 8, "JS:~other /x.js:5:1", NULL, JD_TIER_UNKNOWN },
		{ 8, "Builtin:ArrayPush", NULL, JD_TIER_UNKNOWN },
		{ 9, "checksum", NULL, JD_TIER_OTHER },
		{ 9, "checksum", NULL, JD_TIER_OTHER },
	};
	struct rp_session *s = rt_session();
	const char *raw[16] = { 0 };
	uint32_t l[16];
	size_t n = sizeof(tab) / sizeof(tab[0]);
	for (size_t i = 0; i < n; i++) {
		raw[i] = tab[i].raw;
		l[i] = add(s, tab[i].pid, tab[i].shown ? tab[i].shown : tab[i].raw, tab[i].tier,
			   i + 1);
	}
	cr_assert_eq(rp_identify_loads(s, raw, NULL), 0);
	rp_session_finish(s);
	const struct rp_load *L[16];
	for (size_t i = 0; i < n; i++)
		L[i] = rp_load_at(s, l[i]);
	/* JVM */
	cr_expect_eq(rp_load_ident(L[0]), rp_load_ident(L[1]));
	cr_expect_eq(L[0]->generation, 1);
	cr_expect_eq(L[1]->generation, 2);
	cr_expect_str_eq(rp_load_title(L[0]), "p.A.f()");
	cr_expect_neq(rp_load_ident(L[2]), rp_load_ident(L[3]), "two methods, one readable name");
	cr_expect_eq(L[2]->generation, 1);
	cr_expect_eq(L[3]->generation, 1);
	for (int i = 0; i < 4; i++)
		cr_expect_eq(L[i]->runtime, 0, "load %d", i);
	for (int i = 4; i < 7; i++)
		cr_expect_eq(L[i]->runtime, 1, "load %d is runtime code", i);
	/* V8 */
	static const uint32_t tiers[4] = { JD_TIER_INTERPRETER, RP_TIER_BASELINE, RP_TIER_MIDTIER,
					   RP_TIER_OPTIMIZED };
	for (int i = 7; i < 11; i++) {
		cr_expect_str_eq(rp_load_ident(L[i]), "JS:scan /x.js:1:14");
		cr_expect_str_eq(rp_load_title(L[i]), "JS:scan /x.js:1:14");
		cr_expect_eq(L[i]->tier, tiers[i - 7]);
		cr_expect_eq(L[i]->generation, (uint32_t)(i - 6));
		cr_expect_eq(L[i]->runtime, 0);
	}
	cr_expect_str_eq(rp_load_ident(L[11]), "JS:other /x.js:5:1");
	cr_expect_str_eq(rp_load_ident(L[12]), "Builtin:ArrayPush");
	cr_expect_eq(L[12]->runtime, 0);
	cr_expect_eq(L[12]->tier, JD_TIER_UNKNOWN);
	/* minijit */
	cr_expect_eq(L[13]->runtime, 0);
	cr_expect_eq(L[14]->generation, 2);
	rp_session_free(s);
}

/* Loads no frame lands in are left unnamed for frame-only outputs: they get no identity, yet
 * their raw names still make their process a JVM: here the only Java-named load is unnamed,
 * and the stub beside it is runtime code only because its process is a JVM. */
Test(identity, unnamed_loads_still_find_jvms)
{
	struct rp_session *s = rt_session();
	const char *raw[2] = { "Lp/A;f()V", "itable stub" };
	uint32_t f = add(s, 7, "p.A.f()", JD_TIER_C2, 1);
	uint32_t stub = add(s, 7, "itable stub", JD_TIER_UNKNOWN, 2);
	const unsigned char unnamed[2] = { 1, 0 };
	cr_assert_eq(rp_identify_loads(s, raw, unnamed), 0);
	cr_expect_null(rp_load_at(s, f)->ident, "an unnamed load gets no identity");
	cr_expect_eq(rp_load_at(s, stub)->runtime, 1, "the process is still a JVM");
	rp_session_free(s);
}

/* The flame graph and --html name only the loads of sampled methods, found by
 * rp_raw_ident_hash of the runtime's names: equal identities (as rp_identify_loads makes
 * them) must hash equal, and here, with no collision, different ones differently. */
Test(identity, raw_hash_follows_identity)
{
	static const struct { uint32_t pid; const char *raw; } tab[] = {
		{ 7, "Lp/A;f()V" }, { 7, "Lp/A;f()V" }, { 7, "Lp/A;g()Ljava/lang/Object;" },
		{ 7, "Lp/A;g()Lp/B;" }, { 8, "Lp/A;f()V" }, { 9, "JS:~scan /x.js:1:14" },
		{ 9, "JS:^scan /x.js:1:14" }, { 9, "JS:*scan /x.js:1:14" },
		{ 9, "JS:*scan /x.js:1:15" }, { 9, "JS:~other /x.js:5:1" }, { 10, "checksum" },
		{ 10, "checksum" }, { 10, "checksum2" },
	};
	size_t n = sizeof(tab) / sizeof(tab[0]);
	struct rp_session *s = rt_session();
	const char *raw[16] = { 0 };
	uint32_t l[16];
	for (size_t i = 0; i < n; i++) {
		raw[i] = tab[i].raw;
		l[i] = add(s, tab[i].pid, tab[i].raw, JD_TIER_UNKNOWN, i + 1);
	}
	cr_assert_eq(rp_identify_loads(s, raw, NULL), 0);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			const struct rp_load *a = rp_load_at(s, l[i]), *b = rp_load_at(s, l[j]);
			int same = a->pid == b->pid && rp_load_ident(a) == rp_load_ident(b);
			int hashed = rp_raw_ident_hash(tab[i].pid, tab[i].raw) ==
				     rp_raw_ident_hash(tab[j].pid, tab[j].raw);
			cr_expect_eq(same, hashed, "%u '%s' and %u '%s'", tab[i].pid, tab[i].raw,
				     tab[j].pid, tab[j].raw);
		}
	cr_expect_neq(rp_raw_ident_hash(1, ""), 0);
	rp_session_free(s);

	/* Names longer than the hash's stack buffer follow the same rule: the tier marker
	 * taken out, the rest compared whole. */
	static char tiers[3][3000];
	const char marks[3] = { '~', '*', 0 };
	for (int k = 0; k < 3; k++) {
		char *p = tiers[k] + snprintf(tiers[k], sizeof(tiers[k]), "JS:");
		if (marks[k])
			*p++ = marks[k];
		memset(p, 'f', 2500);
		strcpy(p + 2500, " /x.js:1:1");
	}
	cr_expect_eq(rp_raw_ident_hash(9, tiers[0]), rp_raw_ident_hash(9, tiers[1]));
	cr_expect_eq(rp_raw_ident_hash(9, tiers[0]), rp_raw_ident_hash(9, tiers[2]));
	cr_expect_neq(rp_raw_ident_hash(9, tiers[0]), rp_raw_ident_hash(8, tiers[0]));
	tiers[1][2000] = 'g';
	cr_expect_neq(rp_raw_ident_hash(9, tiers[0]), rp_raw_ident_hash(9, tiers[1]));
}
