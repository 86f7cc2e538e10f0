/* jvmlog.c - HotSpot's own account of its compiled code (-XX:+LogCompilation), read with
 * libxml2's streaming reader in one pass: every nmethod (compile id, level, entry, install
 * time), how it stopped being entered (the runtime's uncommon_trap / dependency_failed /
 * make_not_entrant records, in the <tty> stream) and each compile task's inlining decisions
 * (the compiler threads' <compilation_log> sections the JVM appends when it exits). */
#include <errno.h>
#include <inttypes.h>
#include <libxml/xmlreader.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/dynload.h"
#include "lib/grow.h"
#include "safeio/safeio.h"
#include "recorder/report_analysis/jvmlog_int.h"

/* libxml2 (and the ICU it brings) is loaded by --jvm-log alone (lib/dynload.h: linked, it
 * costs every run ~4 ms at start). Its soname comes from the build (recorder/module.mk). */
#ifndef JP_SONAME_XML2
#define JP_SONAME_XML2 "libxml2.so.2"
#endif
/* Each field is the libxml2 function of its name: the list gives both. xmlFree is the
 * library's free function, a variable (never set here: xmlMemSetup is not called), not the
 * per-thread accessor the headers' xmlFree macro expands to. */
#define XML_FNS(X)                                                                         \
	X(xmlReaderForIO) X(xmlTextReaderSetErrorHandler) X(xmlTextReaderRead)             \
	X(xmlTextReaderNodeType) X(xmlTextReaderDepth) X(xmlTextReaderConstLocalName)       \
	X(xmlTextReaderIsEmptyElement) X(xmlTextReaderGetAttribute)                          \
	X(xmlTextReaderByteConsumed) X(xmlFreeTextReader)
static struct {
#define XML_FIELD(f) __typeof__(f) *f;
	XML_FNS(XML_FIELD)
#undef XML_FIELD
	xmlFreeFunc *free_fn;	/* "xmlFree", last */
} xml;
static struct jp_dynlib libxml2 = {
	.soname = JP_SONAME_XML2,
#define XML_NAME(f) #f,
	.names = (const char *const[]){ XML_FNS(XML_NAME) "xmlFree" },
#undef XML_NAME
	.slots = (void **)&xml,
	.n = sizeof(xml) / sizeof(void *),
};

static void xml_free(void *p)
{
	if (p)
		(*xml.free_fn)(p);
}

#define MAX_IDS (1u << 20)	/* per-task method/klass ids beyond this are ignored */


/* The parse state that spans elements. */
struct pstate {
	struct rp_jvmlog *jl;
	xmlTextReaderPtr r;
	/* runtime (tty) side */
	char thread[32];	/* current <writer thread>: a number (a longer one is no
				 * HotSpot's, and compares as cut) */
	struct rp_jvm_code *trap;		/* code of the open runtime uncommon_trap */
	int in_trap_depth;			/* its depth, -1 none */
	/* The last dependency_failed, open while its thread logs only more of them and the
	 * make_not_entrant records of the code they invalidate (the class-loading thread marks
	 * every dependent, then makes each not entrant: one batch, which may cross a
	 * millisecond of the stamps). */
	struct { const char *type, *witness; char thread[32]; int open; } dep;
	/* compiler (task) side */
	struct rp_jvm_code *task;
	char **names;				/* per-task id -> "holder.name" or klass name */
	size_t names_cap;
	struct { int depth; uint32_t method; int32_t bci; } parse[64];
	int nr_parse;
	struct { uint32_t callee; int32_t bci; uint32_t caller; int open; } call;
	struct jp_str errmsg;	/* libxml2's first error, its first line */
	int nomem;	/* an allocation failed: the log is not read (-ENOMEM) */
};


static char *attr(struct pstate *p, const char *name)
{
	return (char *)xml.xmlTextReaderGetAttribute(p->r, (const xmlChar *)name);
}

static int64_t attr_int(struct pstate *p, const char *name, int64_t dflt)
{
	char *v = attr(p, name), *end;
	int64_t n = dflt;
	if (v) {
		n = strtoll(v, &end, 0);
		if (end == v)
			n = dflt;
	}
	xml_free(v);
	return n;
}

/* Stamps are seconds since the JVM started: anything not in [0, JVM_STAMP_MAX] is damage,
 * read as "none" (dflt). The bound keeps every stamp in nanoseconds far inside int64_t
 * (jvmjoin.c converts them; 3.3e68 from a fuzzed log overflowed the conversion). */
#define JVM_STAMP_MAX 1e9	/* 31 years */

static double attr_double(struct pstate *p, const char *name, double dflt)
{
	char *v = attr(p, name), *end;
	double d = dflt;
	if (v) {
		d = strtod(v, &end);
		if (end == v || !(d >= 0 && d <= JVM_STAMP_MAX))	/* NaN fails both */
			d = dflt;
	}
	xml_free(v);
	return d;
}

/* s kept for the log's lifetime; out of memory, the parse stops (p->nomem). */
static const char *keep(struct pstate *p, const char *s)
{
	const char *k = rp_jvmlog_keep(p->jl, s);
	p->nomem |= s && !k;
	return k;
}

static const char *attr_keep(struct pstate *p, const char *name)
{
	char *v = attr(p, name);
	const char *k = keep(p, v);
	xml_free(v);
	return k;
}

/* The code of a compile id (NULL: no valid id, which the log leaves out where a trap is a
 * compile-time one); out of memory, the parse stops. */
static struct rp_jvm_code *code_of(struct pstate *p, int64_t id)
{
	struct rp_jvm_code *c;
	p->nomem |= rp_jvmlog_code_of(p->jl, id, &c) == -ENOMEM;
	return c;
}


static void set_name(struct pstate *p, int64_t id, const char *name)
{
	if (id < 0 || id >= MAX_IDS || !name)
		return;
	size_t had = p->names_cap;
	if ((size_t)id >= had) {
		if (jp_grow(&p->names, &p->names_cap, (size_t)id + 1, sizeof(*p->names), 1024)) {
			p->nomem = 1;
			return;
		}
		memset(p->names + had, 0, (p->names_cap - had) * sizeof(*p->names));
	}
	free(p->names[id]);
	p->nomem |= !(p->names[id] = strdup(name));
}

static const char *name_of(struct pstate *p, int64_t id)
{
	return id >= 0 && (size_t)id < p->names_cap ? p->names[id] : NULL;
}

static void clear_names(struct pstate *p)
{
	for (size_t i = 0; i < p->names_cap; i++) {
		free(p->names[i]);
		p->names[i] = NULL;
	}
}

static void add_inline(struct pstate *p, int ok)
{
	struct rp_jvm_code *c = p->task;
	if (!c || !p->call.open)
		return;
	p->call.open = 0;
	if (JP_GROW_FOR(c->inl, c->cap_inl, c->nr_inl)) {
		p->nomem = 1;
		return;
	}
	c->inl[c->nr_inl++] = (struct rp_jvm_inline){
		.caller = keep(p, name_of(p, p->call.caller)),
		.callee = keep(p, name_of(p, p->call.callee)),
		.bci = p->call.bci, .ok = ok, .why = attr_keep(p, "reason"),
	};
}

/* <method id holder name .../>: remembered as "holder.name" for the calls that follow. */
static void on_method(struct pstate *p)
{
	char *holder = attr(p, "holder"), *name = attr(p, "name");
	const char *h = holder ? name_of(p, strtoll(holder, NULL, 10)) : NULL;
	struct jp_str buf = { 0 };	/* a method's name is the log's, whole */
	jp_str_printf(&buf, "%s%s%s", h ? h : "", h ? "." : "", name ? name : "?");
	set_name(p, attr_int(p, "id", -1), buf.s);
	p->nomem |= jp_str_free(&buf) != 0;
	xml_free(holder);
	xml_free(name);
}

static void on_task_element(struct pstate *p, const char *n, int depth)
{
	while (p->nr_parse && p->parse[p->nr_parse - 1].depth >= depth)
		p->nr_parse--;	/* parses closed since */
	if (!strcmp(n, "klass") || !strcmp(n, "type")) {
		char *name = attr(p, "name");
		set_name(p, attr_int(p, "id", -1), name);
		xml_free(name);
	} else if (!strcmp(n, "method")) {
		on_method(p);
	} else if (!strcmp(n, "parse") && p->nr_parse < 64) {
		p->parse[p->nr_parse++] = (typeof(p->parse[0])){
			depth, (uint32_t)attr_int(p, "method", 0), -1 };
	} else if (!strcmp(n, "bc") && p->nr_parse) {
		p->parse[p->nr_parse - 1].bci = (int32_t)attr_int(p, "bci", -1);
	} else if (!strcmp(n, "call") && p->nr_parse) {
		p->call.open = 1;
		p->call.callee = (uint32_t)attr_int(p, "method", 0);
		p->call.caller = p->parse[p->nr_parse - 1].method;
		p->call.bci = p->parse[p->nr_parse - 1].bci;
	} else if (!strcmp(n, "inline_success") || !strcmp(n, "inline_fail")) {
		add_inline(p, n[7] == 's');
	}
}

/* make_not_entrant: why, from what the same thread logged just before it. */
static void on_not_entrant(struct pstate *p, struct rp_jvm_code *c, double stamp)
{
	c->not_entrant = stamp;
	/* A trap's thread makes its code not entrant itself; a compiler thread never traps. */
	if (c->trap_thread && c->trap_thread == strtoull(p->thread, NULL, 10)) {
		c->end = RP_END_DEOPT;
	} else if (p->dep.open && !strcmp(p->dep.thread, p->thread)) {
		c->end = RP_END_DEPENDENCY;
		c->action = NULL;
		c->trap_bci = -1;
		c->reason = p->dep.type;
		c->trap_method = p->dep.witness;
	} else {
		/* A compiler thread retires the old code when it installs the new one. */
		c->end = RP_END_REPLACED;
		c->reason = c->action = c->trap_method = NULL;
		c->trap_bci = -1;
	}
}

static void on_tty_element(struct pstate *p, const char *n, int depth)
{
	/* anything else the dependency's thread logs ends its batch */
	if (p->dep.open && strcmp(n, "writer") && strcmp(n, "dependency_failed") &&
	    strcmp(n, "make_not_entrant") && !strcmp(p->dep.thread, p->thread))
		p->dep.open = 0;
	if (!strcmp(n, "writer")) {
		char *t = attr(p, "thread");
		snprintf(p->thread, sizeof(p->thread), "%s", t ? t : "");
		xml_free(t);
	} else if (!strcmp(n, "nmethod")) {
		struct rp_jvm_code *c = code_of(p, attr_int(p, "compile_id", -1));
		if (!c)
			return;
		c->level = (int32_t)attr_int(p, "level", -1);
		c->entry = (uint64_t)attr_int(p, "entry", 0);
		c->size = (uint64_t)attr_int(p, "size", 0);
		c->stamp = attr_double(p, "stamp", -1);
		if (!c->method)
			c->method = attr_keep(p, "method");
	} else if (!strcmp(n, "task_queued")) {
		struct rp_jvm_code *c = code_of(p, attr_int(p, "compile_id", -1));
		if (c)
			c->osr_bci = (int32_t)attr_int(p, "osr_bci", -1);
	} else if (!strcmp(n, "uncommon_trap")) {
		int64_t id = attr_int(p, "compile_id", -1);
		struct rp_jvm_code *c;
		/* without compile_id: a compile-time trap point, not a runtime trap; the last
		 * trap before the code is made not entrant is the one that did it */
		if (id <= 0 || !(c = code_of(p, id)) || c->not_entrant >= 0)
			return;
		c->trap_thread = strtoull(p->thread, NULL, 10);
		c->reason = attr_keep(p, "reason");
		c->action = attr_keep(p, "action");
		c->trap_method = NULL;
		c->trap_bci = -1;
		/* an empty element has no end event: nothing of it stays open */
		if (!xml.xmlTextReaderIsEmptyElement(p->r)) {
			p->trap = c;
			p->in_trap_depth = depth;
		}
	} else if (!strcmp(n, "jvms") && p->trap && depth == p->in_trap_depth + 1 &&
		   !p->trap->trap_method) {
		/* the innermost frame comes first */
		p->trap->trap_method = attr_keep(p, "method");
		p->trap->trap_bci = (int32_t)attr_int(p, "bci", -1);
	} else if (!strcmp(n, "dependency_failed")) {
		p->dep.type = attr_keep(p, "type");
		p->dep.witness = attr_keep(p, "witness");
		snprintf(p->dep.thread, sizeof(p->dep.thread), "%s", p->thread);
		p->dep.open = 1;
	} else if (!strcmp(n, "make_not_entrant")) {
		struct rp_jvm_code *c = code_of(p, attr_int(p, "compile_id", -1));
		if (c && c->not_entrant < 0)
			on_not_entrant(p, c, attr_double(p, "stamp", -1));
	}
}

static void on_error(void *arg, const char *msg, xmlParserSeverities sev,
		     xmlTextReaderLocatorPtr loc)
{
	struct pstate *p = arg;
	(void)loc;
	/* the first error is the one that stopped the reader; warnings do not stop it */
	if (sev != XML_PARSER_SEVERITY_ERROR && sev != XML_PARSER_SEVERITY_VALIDITY_ERROR)
		return;
	if (!p->errmsg.len)
		jp_str_append(&p->errmsg, msg, strcspn(msg, "\n"));
}

static int parse(struct pstate *p, const char *path, const struct jp_log *log)
{
	int rc = 0, root = 0, in_tty = 0;
	while (!p->nomem && (rc = xml.xmlTextReaderRead(p->r)) == 1) {
		int type = xml.xmlTextReaderNodeType(p->r), depth = xml.xmlTextReaderDepth(p->r);
		const char *n = (const char *)xml.xmlTextReaderConstLocalName(p->r);
		if (type == XML_READER_TYPE_END_ELEMENT) {
			if (!strcmp(n, "tty"))
				in_tty = 0;
			else if (!strcmp(n, "uncommon_trap"))
				p->trap = NULL, p->in_trap_depth = -1;
			else if (!strcmp(n, "task"))
				p->task = NULL;
			continue;
		}
		if (type != XML_READER_TYPE_ELEMENT || !n)
			continue;
		if (!root) {
			if (strcmp(n, "hotspot_log"))
				return jp_logf(log, JP_LOG_ERROR, "%s: not a HotSpot compilation "
					       "log (root element <%s>, expected <hotspot_log>: "
					       "-XX:+LogCompilation)", path, n), -EINVAL;
			p->jl->pid = (uint32_t)attr_int(p, "process", 0);
			root = 1;
			continue;
		}
		if (depth == 1 && !strcmp(n, "tty")) {
			in_tty = !xml.xmlTextReaderIsEmptyElement(p->r);
		} else if (in_tty) {
			on_tty_element(p, n, depth);
		} else if (!strcmp(n, "task")) {
			p->task = code_of(p, attr_int(p, "compile_id", -1));
			p->nr_parse = 0;
			p->call.open = 0;
			clear_names(p);
			if (p->task && !p->task->method)
				p->task->method = attr_keep(p, "method");
			if (p->task)
				p->task->osr_bci = (int32_t)attr_int(p, "osr_bci", p->task->osr_bci);
		} else if (p->task) {
			on_task_element(p, n, depth);
		}
	}
	if (p->nomem)
		return jp_logf(log, JP_LOG_ERROR, "%s: cannot read: out of memory", path), -ENOMEM;
	p->jl->bytes = (uint64_t)xml.xmlTextReaderByteConsumed(p->r);
	if (rc < 0 && !root)
		return jp_logf(log, JP_LOG_ERROR, "%s: not a HotSpot compilation log at byte %"
			       PRIu64 ": %s", path, p->jl->bytes,
			       p->errmsg.len ? p->errmsg.s : "unreadable"), -EINVAL;
	if (!root)
		return jp_logf(log, JP_LOG_ERROR, "%s: empty, not a HotSpot compilation log",
			       path), -EINVAL;
	if (rc < 0)
		jp_str_printf(&p->jl->cut, "%s: cut at byte %" PRIu64 ": %s", path, p->jl->bytes,
			      p->errmsg.len ? p->errmsg.s : "unreadable");
	if (p->jl->cut.nomem || p->errmsg.nomem)
		return jp_logf(log, JP_LOG_ERROR, "%s: cannot read: out of memory", path), -ENOMEM;
	return 0;
}

/* What the guard left out of the log, said once for the whole file. */
/* 0, or -ENOMEM. */
static int guard_notes(struct rp_jvmlog *jl, const struct rp_jvmlog_guard *g, const char *path)
{
	struct jp_str *n = &jl->notes;
	if (g->doctypes)
		jp_str_appendf(n, "%s: the document type declaration at byte %" PRIu64 " ignored "
			       "(HotSpot writes none)", path, g->doctype_off);
	if (g->refs_dropped)
		jp_str_appendf(n, "%s%s: %" PRIu64 " references to entities other than XML's "
			       "predefined ones not expanded ('&' read as '?'), the first at byte %"
			       PRIu64, n->len ? "; " : "", path, g->refs_dropped, g->refs_off);
	if (g->attrs_dropped)
		jp_str_appendf(n, "%s%s: %" PRIu64 " attributes past %d in one element ignored, "
			       "the first at byte %" PRIu64, n->len ? "; " : "", path,
			       g->attrs_dropped, RP_JVMLOG_MAX_ATTRS, g->attrs_off);
	return n->nomem ? -ENOMEM : 0;
}

int rp_jvmlog_open_xml(struct rp_jvmlog **out, int fd, const char *path,
		       const struct jp_log *log)
{
	struct pstate p = { .in_trap_depth = -1 };
	struct rp_jvmlog_guard *g = NULL;
	int rc;
	*out = NULL;
	if (jp_dynload(&libxml2)) {
		return jp_logf(log, JP_LOG_ERROR, "%s: cannot read a compilation log: %s", path,
			       libxml2.err), -ENOTSUP;
	}
	p.jl = calloc(1, sizeof(*p.jl));
	g = p.jl ? malloc(sizeof(*g)) : NULL;
	if (g)
		rp_jvmlog_guard_init(g, fd);
	/* NONET: nothing is fetched for a log. No NOENT, no HUGE: entities stay unexpanded and
	 * libxml2 keeps its size limits. The guard's byte scan assumes UTF-8 (HotSpot's), so the
	 * encoding is fixed: a declared or byte-order-marked other one cannot hide a DOCTYPE. */
	p.r = g ? xml.xmlReaderForIO(rp_jvmlog_guard_read, NULL, g, path, "UTF-8",
				    XML_PARSE_NONET | XML_PARSE_IGNORE_ENC) : NULL;
	if (!p.r) {
		free(g);
		rp_jvmlog_free(p.jl);
		return jp_logf(log, JP_LOG_ERROR, "%s: cannot read: out of memory", path), -ENOMEM;
	}
	xml.xmlTextReaderSetErrorHandler(p.r, on_error, &p);
	rc = parse(&p, path, log);
	xml.xmlFreeTextReader(p.r);
	if (!rc && (rc = guard_notes(p.jl, g, path)))
		jp_logf(log, JP_LOG_ERROR, "%s: cannot read: out of memory", path);
	free(g);
	jp_str_free(&p.errmsg);
	clear_names(&p);
	free(p.names);
	if (rc) {
		rp_jvmlog_free(p.jl);
		return rc;
	}
	*out = p.jl;
	return 0;
}

