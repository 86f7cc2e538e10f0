/* log.h - the one error and log convention of jitprof's libraries: functions return 0 or a
 * negative errno, and every message goes through one `struct jp_log` the caller hands in with
 * the options (libbpf's print callback, per object instead of global). Nothing in a library
 * prints; a NULL fn drops messages. Header-only; a module that logs links safeio, which
 * formats the message: its own text as it is (newlines are lines), what it quotes (every %s
 * argument: names and paths read from files) escaped, so that a sink prints the message with
 * sio_fputs_message and no name can forge a line of it. */
#ifndef JITPROF_LIB_LOG_H
#define JITPROF_LIB_LOG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "safeio/safeio.h"

/* Ordered by severity; the values are what report and symbols used before (0, 1, 2). */
enum jp_level { JP_LOG_INFO = 0, JP_LOG_WARN = 1, JP_LOG_ERROR = 2 };

typedef void jp_log_fn(void *ctx, enum jp_level level, const char *msg);

struct jp_log {
	jp_log_fn *fn;		/* NULL: messages are dropped */
	void *ctx;
};

/* The whole message, however long (a path or a name from a file can be long): formatted on
 * the stack when it fits, else in a buffer of its size. Out of memory for that buffer, the
 * part that fits is passed on with "..." so a message is never lost. */
static inline void jp_vlogf(const struct jp_log *log, enum jp_level level, const char *fmt,
			    va_list ap)
{
	char msg[1024];
	va_list again;

	if (!log || !log->fn)
		return;
	va_copy(again, ap);
	int n = sio_vsnprintf_text(msg, sizeof(msg), fmt, ap);
	char *big = n >= (int)sizeof(msg) ? malloc((size_t)n + 1) : NULL;
	if (n < 0) {
		snprintf(msg, sizeof(msg), "(a message whose format is not taken: %s)", fmt);
		log->fn(log->ctx, level, msg);
	} else if (big) {
		sio_vsnprintf_text(big, (size_t)n + 1, fmt, again);
		log->fn(log->ctx, level, big);
		free(big);
	} else {
		if (n >= (int)sizeof(msg))
			memcpy(msg + sizeof(msg) - 4, "...", 4);
		log->fn(log->ctx, level, msg);
	}
	va_end(again);
}

static inline __attribute__((format(printf, 3, 4)))
void jp_logf(const struct jp_log *log, enum jp_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	jp_vlogf(log, level, fmt, ap);
	va_end(ap);
}

/* A log that keeps the first error-level message whole (ctx = struct jp_held, zeroed; the
 * caller frees msg): for a message said only when the call fails, or quoted inside another.
 * nomem: there was no memory to keep it (the caller says so: jp_nomem). */
struct jp_held {
	char *msg;
	int nomem;
};

static inline void jp_log_hold(void *ctx, enum jp_level level, const char *msg)
{
	struct jp_held *h = ctx;

	if (level == JP_LOG_ERROR && !h->msg && !h->nomem && !(h->msg = strdup(msg)))
		h->nomem = 1;
}

/* A log that keeps the first error-level message in a caller's buffer: for callers that
 * return one error string (ctx = struct jp_errbuf *). */
struct jp_errbuf {
	char *buf;
	size_t len;
};

static inline void jp_log_errbuf(void *ctx, enum jp_level level, const char *msg)
{
	struct jp_errbuf *e = ctx;

	if (level == JP_LOG_ERROR && e->len && !e->buf[0])
		snprintf(e->buf, e->len, "%s", msg);
}

/* A log into the array buf (emptied): `synth_build(in, &elf, JP_ERRBUF_LOG(err))`. The
 * compound literals live until the end of the caller's block. */
static inline const struct jp_log *jp_errbuf_log(struct jp_log *log, struct jp_errbuf *e,
						 char *buf, size_t len)
{
	e->buf = buf;
	e->len = len;
	if (len)
		buf[0] = 0;
	log->fn = jp_log_errbuf;
	log->ctx = e;
	return log;
}
#define JP_ERRBUF_LOG(buf) \
	jp_errbuf_log(&(struct jp_log){ 0 }, &(struct jp_errbuf){ 0 }, (buf), sizeof(buf))

#endif
