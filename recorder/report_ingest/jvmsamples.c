/* jvmsamples.c - report --event alloc|lock: samples the JVM took itself (the agent's alloc=
 * and lock= options) are not in perf.data but in each dump's companion file, as SAMPLE
 * records with Java stacks of method ids and JMETHOD records naming those ids. The replay
 * notes each jitdump marker the recording mapped, or jitted ELF beside a dump (its
 * directory and process); afterwards
 * each marker's companion is read twice, names first (a thread's JMETHOD may follow another
 * thread's sample that uses it), and every sample of the kind asked becomes one sample of
 * the session weighing its bytes (alloc) or nanoseconds waited (lock), its leaf the class:
 * "[alloc] java.lang.String", "[lock] pkg.Cls". Paths come from the recording: the
 * companion is opened beneath its directory, not through a final symlink, regular only. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jitdump/jitdump.h"
#include "recorder/perfdata/perfdata.h"
#include "recorder/report_ingest/ingest_int.h"
#include "recorder/symbols/symbols.h"

#define JV_MAX_FRAMES 130	/* the agent's 128 and the class leaf */

struct jv_marker {
	char *dir;
	uint32_t pid;		/* as the recording names the process */
	uint32_t dump_pid;	/* as the dump's name does (the JVM's namespace) */
};

struct jv_name {
	const char *sym, *file;	/* interned: "pkg.Cls.m(int)", "Cls.java" or NULL */
};

int rp_jvmsamples_wanted(const char *event)
{
	return event && (!strcmp(event, "alloc") || !strcmp(event, "lock"));
}

void rp_jvmsamples_pick(struct ingest *in, const char *event)
{
	in->jv.kind = !strcmp(event, "alloc") ? JD_SAMPLE_ALLOC : JD_SAMPLE_LOCK;
	in->s->jvm_leaf = 1;
	if (in->jv.kind == JD_SAMPLE_ALLOC)
		in->s->weigh_bytes = 1;
	else
		in->s->weigh_time = 1;
}

int rp_jvmsamples_mmap(struct ingest *in, const struct pd_event *ev)
{
	struct rp_jvmsamples *jv = &in->jv;
	const struct pd_mmap *m = &ev->u.mmap;
	uint32_t dump_pid;

	/* a marker (perf.data), or a jitted ELF inject put beside its dump (perf.jit.data:
	 * inject leaves the markers out) */
	if (!m->filename || (jd_is_marker_name(m->filename, &dump_pid) != 1 &&
					  !rp_is_jitted_name(m->filename, &dump_pid, NULL)))
		return 0;
	const char *slash = strrchr(m->filename, '/');
	size_t dl = slash ? (size_t)(slash - m->filename) : 1;
	const char *dir = slash ? m->filename : ".";
	for (size_t i = 0; i < jv->n; i++)
		if (jv->m[i].pid == m->pid && strlen(jv->m[i].dir) == (dl ? dl : 1) &&
		    !strncmp(jv->m[i].dir, dl ? dir : "/", dl ? dl : 1))
			return 0;
	if (rp_grow(&jv->m, &jv->cap, jv->n + 1, sizeof(*jv->m)))
		return -ENOMEM;
	char *d = dl ? strndup(dir, dl) : strdup("/");
	if (!d)
		return -ENOMEM;
	/* The companion's name is the dump's own pid (in the JVM's namespace); the samples
	 * belong to the process the recording saw map it. */
	jv->m[jv->n++] = (struct jv_marker){ .dir = d, .pid = m->pid, .dump_pid = dump_pid };
	return 0;
}

/* "Ljava/lang/String;" -> "java.lang.String", "[J" -> "long[]", "[[LA;" -> "A[][]", appended
 * to buf whole. */
static void class_name(const char *sig, struct jp_str *buf)
{
	static const char prim[] = "ZBCSIJFD", *const pname[] = { "boolean", "byte", "char",
		"short", "int", "long", "float", "double" };
	size_t dims = 0, at = buf->len;
	while (sig[dims] == '[')
		dims++;
	const char *t = sig + dims, *p;
	if (*t == 'L') {
		jp_str_append(buf, t + 1, strcspn(t + 1, ";"));
		for (char *q = buf->s + at; *q; q++)
			if (*q == '/')
				*q = '.';
	} else if (*t && t[1] == '\0' && (p = strchr(prim, *t))) {
		jp_str_appendf(buf, "%s", pname[p - prim]);
	} else {
		jp_str_appendf(buf, "%s", sig);
	}
	for (size_t i = 0; i < dims; i++)
		jp_str_append(buf, "[]", 2);
}

/* The marker's companion, opened beneath its directory; a failure is said whole here ("no
 * alloc samples from process N: why"), the path as long as the recording has it, unless only
 * counted (no kind asked: the report is of another event). */
static int open_companion(struct ingest *in, const struct jv_marker *mk, struct jd_reader **r,
			  unsigned flags)
{
	char name[64], err[512];	/* libjitdump's messages are under 512 bytes */
	char *display = NULL;
	int dfd = open(mk->dir, O_PATH | O_DIRECTORY | O_CLOEXEC), rc = -errno;

	snprintf(name, sizeof(name), "jit-%u.dump%s", mk->dump_pid, JD_EXT_SUFFIX);
	if (asprintf(&display, "%s/%s", mk->dir, name) < 0) {
		if (dfd >= 0)
			close(dfd);
		return -ENOMEM;
	}
	if (dfd >= 0) {
		rc = jd_reader_open_flags(r, dfd, name, display, flags, err, sizeof(err));
		close(dfd);
	}
	const char *what = in->jv.kind == JD_SAMPLE_ALLOC ? "alloc" : "lock";
	if (in->jv.kind && dfd < 0)
		jp_logf(&in->o->log, JP_LOG_WARN, "no %s samples from process %u: %s: %s", what,
			mk->pid, display, strerror(-rc));
	else if (in->jv.kind && rc < 0 && rc != -ENOMEM)
		jp_logf(&in->o->log, JP_LOG_WARN, "no %s samples from process %u: %s", what,
			mk->pid, err);
	free(display);
	return rc;
}

/* The companion's records other than keep passed over by size, not decoded: a JVM's method
 * table and inline stacks are most of it. */
static void read_only(struct jd_reader *r, uint32_t keep)
{
	for (uint32_t id = JD_EXT_LOAD_INFO; id <= JD_EXT_JMETHOD; id++)
		if (id != keep)
			jd_reader_skip_id(r, id);
}

/* The JMETHOD names of one companion into names (id -> index + 1 in by_id). */
static int read_names(struct ingest *in, struct jd_reader *r, struct rp_u64map *by_id,
		      struct jv_name **names, size_t *n, size_t *cap)
{
	struct jd_record rec;
	struct jp_str buf = { 0 };
	int rc;

	read_only(r, JD_EXT_JMETHOD);
	while ((rc = jd_reader_next(r, &rec)) == 1) {
		if (rec.id != JD_EXT_JMETHOD || !rec.u.jmethod.method)
			continue;
		if (rp_grow(names, cap, *n + 1, sizeof(**names))) {
			rc = -ENOMEM;
			break;
		}
		sym_java_demangle_str(rec.u.jmethod.name, &buf);
		const char *f = rec.u.jmethod.file, *slash = strrchr(f, '/');
		struct jv_name *v = &(*names)[*n];
		v->sym = rp_intern(in->s, buf.s);
		v->file = f[0] ? rp_intern(in->s, slash ? slash + 1 : f) : NULL;
		if (!v->sym || (f[0] && !v->file) || buf.nomem ||
		    rp_map_put(by_id, rec.u.jmethod.method, (uint32_t)++*n)) {
			rc = -ENOMEM;
			break;
		}
	}
	return jp_str_free(&buf) ? -ENOMEM : rc;
}

/* One SAMPLE of the kind asked as a session sample: the class leaf, then its frames. */
static int add_one(struct ingest *in, const struct jv_marker *mk, const struct jd_record *rec,
		   const struct rp_u64map *by_id, const struct jv_name *names,
		   struct rp_frame *fr, struct jp_str *buf)
{
	const struct jd_ext_sample *s = &rec->u.sample;
	uint32_t nr = s->nr_frames < JV_MAX_FRAMES - 1 ? s->nr_frames : JV_MAX_FRAMES - 1, v;

	jp_str_printf(buf, "[%s] ", s->kind == JD_SAMPLE_ALLOC ? "alloc" : "lock");
	class_name(s->klass, buf);
	fr[0] = (struct rp_frame){ .dso = in->jv.class_dso, .sym = rp_intern(in->s, buf->s) };
	if (!fr[0].sym || buf->nomem)
		return -ENOMEM;
	fr[0].addr = fr[0].ip = (uintptr_t)fr[0].sym;	/* one identity per class */
	for (uint32_t i = 0; i < nr; i++) {
		const struct jd_java_frame *j = &s->frames[i];
		struct rp_frame *f = &fr[i + 1];
		*f = (struct rp_frame){ .dso = in->jv.java_dso, .ip = j->method, .addr = j->method,
					.flags = RP_FRAME_JAVA };
		if (j->method && rp_map_get(by_id, j->method, &v)) {
			f->sym = names[v - 1].sym;
			f->srcfile = names[v - 1].file;
			f->line = j->line > 0 ? (uint32_t)j->line : 0;
		} else {
			in->jv.unnamed++;
		}
	}
	struct rp_sample smp = { .time = rec->timestamp, .period = s->weight ? s->weight : 1,
				 .pid = mk->pid, .tid = s->tid };
	const char *raw = sym_comm_of(in->ss, mk->pid, s->tid, rec->timestamp);
	smp.comm = raw ? rp_intern(in->s, raw) : rp_comm_unknown(in->s, mk->pid, s->tid);
	if (!smp.comm)
		return -ENOMEM;
	in->jv.samples++;
	return rp_add_sample(in->s, &smp, fr, nr + 1);
}

static int read_samples(struct ingest *in, const struct jv_marker *mk, struct jd_reader *r,
			const struct rp_u64map *by_id, const struct jv_name *names)
{
	struct rp_frame fr[JV_MAX_FRAMES];
	struct jd_record rec;
	struct jp_str buf = { 0 };	/* a class's name */
	int rc;

	read_only(r, JD_EXT_SAMPLE);
	while ((rc = jd_reader_next(r, &rec)) == 1) {
		if (rec.id != JD_EXT_SAMPLE)
			continue;
		in->jv.any[rec.u.sample.kind == JD_SAMPLE_ALLOC ? 0
			   : rec.u.sample.kind == JD_SAMPLE_LOCK ? 1 : 2]++;
		if (rec.u.sample.kind == in->jv.kind &&
		    (rc = add_one(in, mk, &rec, by_id, names, fr, &buf)) < 0)
			break;
	}
	return jp_str_free(&buf) ? -ENOMEM : rc;
}

/* One marker's companion: names, then samples. A damaged record ends it with a warning (the
 * samples before it count); out of memory ends the report. */
static int read_marker(struct ingest *in, const struct jv_marker *mk)
{
	struct jd_reader *r = NULL;
	struct rp_u64map by_id = { 0 };
	struct jv_name *names = NULL;
	size_t n = 0, cap = 0;
	int rc = open_companion(in, mk, &r, 0);

	if (rc < 0)
		return rc == -ENOMEM ? rc : 0;
	/* Damage ends the names where it ends the samples: the second pass says it. */
	rc = read_names(in, r, &by_id, &names, &n, &cap);
	if (rc != -ENOMEM) {
		jd_reader_close(r);
		r = NULL;
		if ((rc = open_companion(in, mk, &r, 0)) >= 0)
			rc = read_samples(in, mk, r, &by_id, names);
	}
	if (rc < 0 && rc != -ENOMEM && r)
		jp_logf(&in->o->log, JP_LOG_WARN, "%s: samples after the damage left out",
			jd_reader_error(r));
	jd_reader_close(r);
	rp_map_free(&by_id);
	free(names);
	return rc == -ENOMEM ? rc : 0;
}

int rp_jvmsamples_count(struct ingest *in)
{
	struct rp_jvmsamples *jv = &in->jv;
	struct jd_record rec;
	int rc = 0;

	for (size_t i = 0; i < jv->n && rc != -ENOMEM; i++) {
		struct jd_reader *r = NULL;
		/* Its header first (40 bytes): a companion without JD_EXT_FLAG_SAMPLES holds no
		 * sample (or was written before the flag was: then --event finds them). Stack
		 * outputs read no dump; a JVM's method table is tens of MB. */
		if ((rc = open_companion(in, &jv->m[i], &r, JD_READER_HEADER)) < 0)
			continue;	/* none to count: the report is of another event */
		int any = !!(jd_reader_header(r)->flags & JD_EXT_FLAG_SAMPLES);
		jd_reader_close(r);
		r = NULL;
		if (!any || (rc = open_companion(in, &jv->m[i], &r, 0)) < 0)
			continue;
		read_only(r, JD_EXT_SAMPLE);
		while ((rc = jd_reader_next(r, &rec)) == 1)
			if (rec.id == JD_EXT_SAMPLE)
				jv->any[rec.u.sample.kind == JD_SAMPLE_ALLOC ? 0
					: rec.u.sample.kind == JD_SAMPLE_LOCK ? 1 : 2]++;
		jd_reader_close(r);
	}
	if (rc == -ENOMEM)
		return jp_logf(&in->o->log, JP_LOG_ERROR, "out of memory reading the JVM's "
			       "samples"), -ENOMEM;
	return 0;
}

int rp_jvmsamples_finish(struct ingest *in)
{
	const struct jp_log *log = &in->o->log;
	struct rp_jvmsamples *jv = &in->jv;
	const char *what = jv->kind == JD_SAMPLE_ALLOC ? "alloc" : "lock";
	int rc = 0;

	jv->class_dso = rp_intern(in->s, jv->kind == JD_SAMPLE_ALLOC ? "[alloc]" : "[lock]");
	jv->java_dso = rp_intern(in->s, "[java]");
	for (size_t i = 0; i < jv->n && rc >= 0 && jv->class_dso && jv->java_dso; i++)
		rc = read_marker(in, &jv->m[i]);
	if (rc < 0 || !jv->class_dso || !jv->java_dso)
		return jp_logf(log, JP_LOG_ERROR, "out of memory reading the JVM's samples"),
		       -ENOMEM;
	if (!jv->n)
		return jp_logf(log, JP_LOG_ERROR, "%s maps no jitdump: --event %s reads the "
			       "samples the agent writes beside its dump (run the JVM with the "
			       "agent's %s option, e.g. `jitprof profile -e %s`)", in->o->input,
			       what, jv->kind == JD_SAMPLE_ALLOC ? "alloc" : "lock", what), -ENOENT;
	if (!jv->samples)
		return jp_logf(log, JP_LOG_ERROR, "%s: its JVM wrote no %s samples (alloc: %llu, "
			       "lock: %llu): run it with the agent's %s option (`jitprof profile "
			       "-e %s`)", in->o->input, what, (unsigned long long)jv->any[0],
			       (unsigned long long)jv->any[1], what, what), -ENOENT;
	/* said as --event's other choices are (events.c): a warning, -q silences it */
	jp_logf(&in->o->log, JP_LOG_WARN, "reporting %s: %llu samples from the JVM (the "
		"companion's samples: alloc %llu, lock %llu)%s", what,
		(unsigned long long)jv->samples, (unsigned long long)jv->any[0],
		(unsigned long long)jv->any[1], jv->unnamed ? "; some frames name no method" : "");
	return 0;
}

void rp_jvmsamples_free(struct rp_jvmsamples *jv)
{
	for (size_t i = 0; i < jv->n; i++)
		free(jv->m[i].dir);
	free(jv->m);
}
