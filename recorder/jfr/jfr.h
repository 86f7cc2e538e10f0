/* jfr.h - reads a JDK Flight Recorder file (format 2.x, as HotSpot writes it since JDK 11):
 * the chunks, their metadata (which types exist and what fields they have), their constant
 * pools, and events picked by type name, whose fields are read by a dotted path through the
 * metadata ("method.type.name.string" follows a constant-pool reference to a Method, then
 * to its Class, its Symbol and the Symbol's string).
 *
 * Why our own reader: no C library reads JFR (the JDK's is Java, async-profiler's and
 * Datadog's are Java, one Rust crate exists), and the report needs only a few event types
 * from a file the profiled JVM wrote, which is data: every length, count, offset, type id
 * and depth is checked against the bytes and the limits below; bad input is an error naming
 * the offset, never a crash or a guess. The file's bytes are the caller's and must outlive
 * the reader (it keeps offsets into them, not copies). */
#ifndef JITPROF_JFR_H
#define JITPROF_JFR_H

#include <stddef.h>
#include <stdint.h>

#include "lib/log.h"

struct jfr_file;
struct jfr_event;

/* Opens the size bytes at p (a whole file: one or more chunks), named name in messages.
 * 0, or -EINVAL (not a JFR file, or damaged: the reason and the byte offset said through
 * log), -ENOTSUP (a format version other than 2.x), -ENOMEM. A chunk the JVM was still
 * writing, or one cut short (a file copied while it records), ends the file: the chunks
 * before it are read, jfr_truncated says so and log has a warning. */
int jfr_open_mem(const void *p, size_t size, const char *name, const struct jp_log *log,
		 struct jfr_file **out);
void jfr_close(struct jfr_file *f);

size_t jfr_nr_chunks(const struct jfr_file *f);
/* 1 when the file's last chunk was unfinished or cut short and was left out. */
int jfr_truncated(const struct jfr_file *f);

/* Calls fn for every event of the named type (e.g. "jdk.Deoptimization") in file order,
 * stopping when fn returns non-zero (that value is returned). 0 when none has the type. */
typedef int (*jfr_event_fn)(const struct jfr_event *ev, void *arg);
int jfr_each_event(const struct jfr_file *f, const char *type, jfr_event_fn fn, void *arg);
/* The number of events of the named type. */
size_t jfr_count_events(const struct jfr_file *f, const char *type);

/* The event's start time in nanoseconds since the epoch (the chunk's clock: its start in
 * nanoseconds plus the ticks since its start). -1 when the event has no startTime field. */
int64_t jfr_event_time_ns(const struct jfr_event *ev);

/* A field's value by its dotted path. A type with one field (the metadata's simple types,
 * such as a deoptimization's reason) reads as that field: "reason" is "reason.reason". Integers of any width, booleans and chars come out as
 * int64; a float or double field is refused (-EINVAL). Strings are copied into buf (cut to
 * len - 1 bytes; the full length is returned through *full when not NULL). A null string,
 * or a constant-pool reference whose entry is missing (key 0 means null in HotSpot's
 * pools), gives -ENOENT; so does a path that names no field. -EINVAL: damaged bytes. */
int jfr_get_int(const struct jfr_event *ev, const char *path, int64_t *out);
int jfr_get_str(const struct jfr_event *ev, const char *path, char *buf, size_t len,
		size_t *full);

/* Limits on what a file may make the reader do (docs/SECURITY.md, "Limits"). */
#define JFR_MAX_DEPTH 16	/* nested values and metadata elements */
#define JFR_MAX_CHUNKS 4096
#define JFR_MAX_STRING (1u << 20)	/* bytes of one decoded string */

#endif
