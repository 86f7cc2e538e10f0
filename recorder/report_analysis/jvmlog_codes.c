/* jvmlog_codes.c - the JVM's account of its code, kept by compile id with the strings it
 * points to, whichever source filled it (jvmlog_int.h); and --jvm-log's entry point, which
 * tells a Flight Recording (its "FLR" magic) from a compilation log. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/grow.h"
#include "safeio/safeio.h"
#include "recorder/report_analysis/jvmlog_int.h"

const char *rp_jvmlog_keep(struct rp_jvmlog *jl, const char *s)
{
	if (!s)
		return NULL;
	if (jp_grow(&jl->strs, &jl->strs_cap, jl->nr_strs + 1, sizeof(*jl->strs), 256))
		return NULL;
	/* a name from the log is shown as the recording's are (model.c's rp_intern): libxml2
	 * decodes character references, so a C1 or bidirectional control can be in it */
	char *d = sio_has_controls(s) ? sio_escape_controls(s) : strdup(s);
	if (d)
		jl->strs[jl->nr_strs++] = d;
	return d;
}

/* The code with this compile id, created on first mention. */
int rp_jvmlog_code_of(struct rp_jvmlog *jl, int64_t id, struct rp_jvm_code **out)
{
	uint32_t v;
	*out = NULL;
	if (id <= 0 || id > INT32_MAX)
		return -EINVAL;
	if (rp_map_get(&jl->by_id, (uint64_t)id + 1, &v))
		return *out = &jl->codes[v - 1], 0;
	if (jp_grow(&jl->codes, &jl->cap, jl->nr + 1, sizeof(*jl->codes), 256) ||
	    rp_map_put(&jl->by_id, (uint64_t)id + 1, (uint32_t)jl->nr + 1))
		return -ENOMEM;
	struct rp_jvm_code *c = &jl->codes[jl->nr++];
	*c = (struct rp_jvm_code){ .compile_id = (int32_t)id, .level = -1, .osr_bci = -1,
				   .not_entrant = -1, .trap_bci = -1, .stamp = -1 };
	*out = c;
	return 0;
}

int rp_jvmlog_open(struct rp_jvmlog **out, const char *path, const struct jp_log *log)
{
	char magic[4] = { 0 };
	int fd;

	*out = NULL;
	if ((fd = sio_open_regular(path)) < 0)
		return jp_logf(log, JP_LOG_ERROR, "%s: %s", path, sio_strerror(fd)), fd;
	ssize_t n = pread(fd, magic, sizeof(magic), 0);
	int rc = n == 4 && !memcmp(magic, "FLR", 4) ? rp_jvmlog_open_jfr(out, fd, path, log)
						    : rp_jvmlog_open_xml(out, fd, path, log);
	close(fd);
	return rc;
}

void rp_jvmlog_free(struct rp_jvmlog *jl)
{
	if (!jl)
		return;
	for (size_t i = 0; i < jl->nr; i++)
		free(jl->codes[i].inl);
	for (size_t i = 0; i < jl->nr_strs; i++)
		free(jl->strs[i]);
	free(jl->strs);
	free(jl->codes);
	rp_map_free(&jl->by_id);
	jp_str_free(&jl->cut);
	jp_str_free(&jl->notes);
	free(jl);
}

uint32_t rp_jvmlog_pid(const struct rp_jvmlog *jl) { return jl->pid; }
int rp_jvmlog_is_jfr(const struct rp_jvmlog *jl) { return jl->jfr; }
size_t rp_jvmlog_nr_codes(const struct rp_jvmlog *jl) { return jl->nr; }
uint64_t rp_jvmlog_bytes(const struct rp_jvmlog *jl) { return jl->bytes; }
const char *rp_jvmlog_cut(const struct rp_jvmlog *jl) { return jl->cut.len ? jl->cut.s : NULL; }
const char *rp_jvmlog_notes(const struct rp_jvmlog *jl)
{
	return jl->notes.len ? jl->notes.s : NULL;
}

const struct rp_jvm_code *rp_jvmlog_code(const struct rp_jvmlog *jl, size_t i)
{
	return i < jl->nr ? &jl->codes[i] : NULL;
}

const struct rp_jvm_code *rp_jvmlog_find(const struct rp_jvmlog *jl, int32_t compile_id)
{
	uint32_t v;
	if (compile_id <= 0 || !rp_map_get(&jl->by_id, (uint64_t)compile_id + 1, &v))
		return NULL;
	return &jl->codes[v - 1];
}

const char *rp_end_kind_name(enum rp_end_kind k)
{
	static const char *const n[] = { "running", "replaced", "deopt", "dependency",
					 "unloaded", "not_entrant" };
	return (size_t)k < sizeof(n) / sizeof(n[0]) ? n[k] : "?";
}
