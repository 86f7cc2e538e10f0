/* archive_api.c - see archive_api.h. */
#include "lib/archive_api.h"

#include "lib/dynload.h"

/* The soname comes from the build (lib/module.mk), so the version built against is asked for. */
#ifndef JP_SONAME_ARCHIVE
#define JP_SONAME_ARCHIVE "libarchive.so.13"
#endif

static struct jp_archive_api api;
static struct jp_dynlib lib = {
	.soname = JP_SONAME_ARCHIVE,
#define JP_ARCHIVE_NAME(name) "archive_" #name,
	.names = (const char *const[]){ JP_ARCHIVE_FNS(JP_ARCHIVE_NAME) },
#undef JP_ARCHIVE_NAME
	.slots = (void **)&api,
	.n = sizeof(api) / sizeof(void *),
};

const struct jp_archive_api *jp_archive_api(const struct jp_log *log, const char *file,
					    const char *doing)
{
	if (jp_dynload(&lib)) {
		jp_logf(log, JP_LOG_ERROR, "%s: %s: %s", file, doing, lib.err);
		return NULL;
	}
	return &api;
}
