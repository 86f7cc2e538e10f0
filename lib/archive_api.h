/* archive_api.h - libarchive, loaded on first use (lib/dynload.h): only `jitprof archive` and
 * reports given --archive read or write archives, and linked it cost every run ~4.5 ms at
 * start. Each field is the libarchive function of the same name with "archive_" before it
 * (read_new is archive_read_new), typed from libarchive's own headers. */
#ifndef JITPROF_LIB_ARCHIVE_API_H
#define JITPROF_LIB_ARCHIVE_API_H

#include <archive.h>
#include <archive_entry.h>
#include <stddef.h>

#include "lib/log.h"

#define JP_ARCHIVE_FNS(X)                                                                    \
	X(read_new) X(read_support_filter_all) X(read_support_format_all)                    \
	X(read_open_filename) X(read_next_header) X(read_data_block) X(read_free)            \
	X(error_string) X(entry_pathname) X(entry_filetype) X(entry_hardlink)                \
	X(entry_symlink) X(write_new) X(write_add_filter_zstd)                               \
	X(write_set_format_pax_restricted) X(write_open_fd) X(write_header) X(write_data)   \
	X(write_close) X(write_free) X(entry_new) X(entry_free) X(entry_set_pathname)        \
	X(entry_set_mtime) X(entry_set_uid) X(entry_set_gid) X(entry_set_filetype)           \
	X(entry_set_perm) X(entry_set_symlink) X(entry_set_size)

struct jp_archive_api {
#define JP_ARCHIVE_FIELD(name) __typeof__(archive_##name) *name;
	JP_ARCHIVE_FNS(JP_ARCHIVE_FIELD)
#undef JP_ARCHIVE_FIELD
};

/* The functions, loaded once; NULL when the library or one of them is missing, with
 * "<file>: <doing>: <why>" logged at JP_LOG_ERROR (why: "libarchive.so.13 cannot be loaded:
 * ..."; doing: the caller's words, "cannot read an archive"). */
const struct jp_archive_api *jp_archive_api(const struct jp_log *log, const char *file,
					    const char *doing);

#endif
