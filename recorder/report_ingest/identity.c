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
#include "lib/nomem.h"
#include "lib/strbuf.h"
#include "recorder/report_ingest/ingest_int.h"

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

/* "JS:~scan file.js:1:14" -> the marker's offset (3), else 0. A V8 code kind is letters
 * only, so a Java name is turned down at its first '/', not searched whole for a colon. */
static size_t v8_marker(const char *n)
{
	const char *p = n;
	if (!p)
		return 0;
	while ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z'))
		p++;
	if (*p != ':' || p == n || !rp_v8_tier(p[1]) || !p[2])
		return 0;
	return (size_t)(p + 1 - n);
}

uint64_t rp_raw_ident_hash(uint32_t pid, const char *raw)
{
	/* The pid and the name without V8's tier marker: what rp_identify_loads makes the
	 * identity of (an equal name is an equal identity; a collision only names one load
	 * more). A word at a time: a Java start-up asks it of each of its 34k loads. */
	char buf[1024], *cut = buf;	/* a longer name is copied to the heap, not cut */
	size_t m = v8_marker(raw), len = strlen(raw);
	const char *name = raw;
	if (m) {	/* hashed as the same name that never had one */
		if (len > sizeof(buf) && !(cut = malloc(len)))
			jp_nomem("a load's name");	/* a hash is no error path */
		memcpy(cut, raw, m);
		memcpy(cut + m, raw + m + 1, len - m - 1);
		name = cut;
		len--;
	}
	uint64_t h = rp_hash_words(name, len) ^ (uint64_t)pid * 0x9e3779b97f4a7c15ull;
	if (cut != buf)
		free(cut);
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
	struct jp_str buf = { 0 };
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
			jp_str_printf(&buf, "%.*s%s", (int)m, name, name + m + 1);
			l->ident = l->title = rp_intern(s, buf.s);
			if (!l->tier)
				l->tier = rp_v8_tier(name[m]);
		} else if (jvm && rp_is_jvm_name(raw[i])) {
			/* exact: the readable name drops the return type (covariant bridges) */
			l->ident = rp_intern(s, raw[i]);
		}
	}
	free(jvms);
	return jp_str_free(&buf) ? -1 : 0;
}
