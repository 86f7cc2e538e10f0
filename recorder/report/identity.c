/* identity.c - which loads are generations of one method. A generation is a recompile of one
 * method identity, and what identifies a method depends on the runtime: HotSpot's class + name
 * + signature (its stubs, adapters, interpreter and method-handle intrinsics are distinct code
 * blobs that merely share names: "runtime code", never generations); a V8 function's name and
 * script position, with the tier marker (~ ^ + *) taken out and turned into the tier; any other
 * producer's name as it is. docs/report.md states the rules. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jitdump/jitdump.h"
#include "recorder/report/report_int.h"

/* "Lpkg/Cls;name(args)ret" (or an array class "[..;"), as HotSpot agents write names. */
int rp_is_jvm_name(const char *n)
{
	if (!n || (n[0] != 'L' && n[0] != '['))
		return 0;
	const char *semi = strchr(n, ';'), *paren = semi ? strchr(semi, '(') : NULL;
	return paren && paren > semi + 1 && strchr(paren, ')') != NULL;
}

uint32_t rp_v8_tier(char marker)
{
	switch (marker) {
	case '~': return JD_TIER_INTERPRETER;	/* Ignition */
	case '^': return RP_TIER_BASELINE;	/* Sparkplug */
	case '+': return RP_TIER_MIDTIER;	/* Maglev */
	case '*': return RP_TIER_OPTIMIZED;	/* TurboFan */
	default: return 0;
	}
}

/* "JS:~scan file.js:1:14" -> the marker's offset (3), else 0. */
static size_t v8_marker(const char *n)
{
	const char *colon = n ? strchr(n, ':') : NULL;
	if (!colon || colon == n || !rp_v8_tier(colon[1]) || !colon[2])
		return 0;
	for (const char *p = n; p < colon; p++)	/* a V8 code kind: letters only */
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z')))
			return 0;
	return (size_t)(colon + 1 - n);
}

uint64_t rp_raw_ident_hash(uint32_t pid, const char *raw)
{
	/* FNV-1a over the pid, then the name without V8's tier marker: what rp_identify_loads
	 * makes the identity of (an equal name is an equal identity; a collision only names one
	 * load more). */
	uint64_t h = 0xcbf29ce484222325ull;
	size_t m = v8_marker(raw);
	for (int i = 0; i < 4; i++)
		h = (h ^ ((pid >> (8 * i)) & 0xff)) * 0x100000001b3ull;
	for (size_t i = 0; raw[i]; i++)
		if (!m || i != m)
			h = (h ^ (unsigned char)raw[i]) * 0x100000001b3ull;
	return h ? h : 1;
}

static int has_pid(const uint32_t *v, size_t n, uint32_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == pid)
			return 1;
	return 0;
}

int rp_identify_loads(struct rp_session *s, const char *const *raw, const unsigned char *unnamed)
{
	uint32_t *jvms = malloc((s->nr_loads + 1) * sizeof(*jvms));
	size_t nr_jvms = 0;
	if (!jvms)
		return -1;
	for (size_t i = 0; i < s->nr_loads; i++)
		if (rp_is_jvm_name(raw[i]) && !has_pid(jvms, nr_jvms, s->loads[i].pid))
			jvms[nr_jvms++] = s->loads[i].pid;
	for (size_t i = 0; i < s->nr_loads; i++) {
		struct rp_load *l = &s->loads[i];
		l->ident = l->title = NULL;
		if (unnamed && unnamed[i])
			continue;	/* left unnamed (sampled_loads_only): no identity asked */
		const char *name = raw[i] ? raw[i] : l->method;
		size_t m = v8_marker(name);
		/* In a JVM, tier "other" is a native wrapper or method-handle intrinsic (level
		 * 0): blobs per signature, not compiles of the method; elsewhere (minijit) it is
		 * just a tier the runtime does not name. */
		int jvm = has_pid(jvms, nr_jvms, l->pid);
		l->runtime = l->tier == JD_TIER_STUB ||
			     (jvm && (l->tier == JD_TIER_OTHER || (raw[i] && !rp_is_jvm_name(raw[i]))));
		if (l->runtime)
			continue;
		if (m) {
			char buf[4096];
			snprintf(buf, sizeof(buf), "%.*s%s", (int)m, name, name + m + 1);
			l->ident = l->title = rp_intern(s, buf);
			if (!l->tier)
				l->tier = rp_v8_tier(name[m]);
		} else if (jvm && rp_is_jvm_name(raw[i])) {
			/* exact: the readable name drops the return type (covariant bridges) */
			l->ident = rp_intern(s, raw[i]);
		}
	}
	free(jvms);
	return 0;
}
