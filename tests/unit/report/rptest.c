/* rptest.c - hand-built sessions and output capture for the report unit tests. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/report/rptest.h"

struct rp_session *rt_session(void)
{
	struct rp_session *s;
	cr_assert_eq(rp_session_new(&s), 0);
	return s;
}

void rt_sample(struct rp_session *s, const char *comm, uint32_t pid, uint64_t time,
	       uint64_t period, const struct rt_frame *frames)
{
	struct rp_frame f[32];
	uint32_t n = 0;
	for (; frames && frames[n].dso && n < 32; n++) {
		const struct rt_frame *t = &frames[n];
		f[n] = (struct rp_frame){
			.dso = rp_intern(s, t->dso), .sym = rp_intern(s, t->sym),
			.srcfile = rp_intern(s, t->file), .line = t->line, .load = t->load,
			.flags = t->flags, .ip = t->ip, .addr = t->ip,
		};
		if (t->load) {
			const struct rp_load *l = rp_load_at(s, t->load);
			f[n].symoff = t->ip - l->code_addr;
		}
	}
	struct rp_sample smp = { .time = time, .period = period, .pid = pid, .tid = pid,
				 .comm = rp_intern(s, comm) };
	cr_assert_eq(rp_add_sample(s, &smp, f, n), 0);
}

uint32_t rt_load(struct rp_session *s, uint32_t pid, const char *method, uint32_t gen,
		 uint64_t load_time, uint64_t end_time, uint64_t addr, uint64_t size)
{
	char dso[64];
	snprintf(dso, sizeof(dso), "jitted-%u-%zu.so", pid, rp_nr_loads(s) + 1);
	struct rp_load l = { .pid = pid, .method = rp_intern(s, method), .dso = rp_intern(s, dso),
			     .generation = gen, .load_time = load_time, .end_time = end_time,
			     .code_addr = addr, .code_size = size };
	uint32_t idx = rp_add_load(s, &l);
	cr_assert_neq(idx, 0);
	return idx;
}

char *rt_capture(int (*fn)(FILE *, void *), void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	cr_assert_not_null(fp);
	cr_assert_eq(fn(fp, arg), 0);
	fclose(fp);
	return buf;
}

struct said {
	FILE *fp;
	enum jp_level level;
};

static void keep_said(void *ctx, enum jp_level level, const char *msg)
{
	struct said *k = ctx;
	if (level >= k->level)
		fprintf(k->fp, "%s\n", msg);
}

char *rt_ingest_said(const char *data, const char *event, enum jp_level level, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	struct said k = { open_memstream(&buf, &len), level };
	struct rp_session *s = rt_session();
	struct rp_ingest_opts o = { .sz = sizeof(o), .input = data, .event = event,
				    .buildid_dir = "/nonexistent", .log = { keep_said, &k } };

	cr_assert_not_null(k.fp);
	*rc = rp_ingest(s, &o);
	fclose(k.fp);
	rp_session_free(s);
	return buf;
}
