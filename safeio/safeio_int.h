/* safeio_int.h - what safeio's files share and the unit tests reach: the fallback walk, so it
 * is tested on kernels that have openat2 too. */
#ifndef JITPROF_SAFEIO_INT_H
#define JITPROF_SAFEIO_INT_H

#include "safeio/safeio.h"

/* sio_open_beneath without openat2: one O_NOFOLLOW component at a time. */
int sio_open_beneath_walk(int dirfd, const char *rel);
/* Turns a fresh O_NONBLOCK fd into a blocking one on a regular file; closes it otherwise. */
int sio_regular_or_close(int fd);
/* 1 if the relative path has a ".." component: refused outright by every beneath call
 * (openat2's RESOLVE_BENEATH would let one through while it stays inside). */
int sio_has_dotdot(const char *p);

/* How sio_escape_to shows what is not plain: text (\xNN, \uXXXX), a JSON string's inside, or
 * a message: text whose own newlines stay lines (text.c). */
enum sio_esc { SIO_ESC_TEXT, SIO_ESC_JSON, SIO_ESC_MESSAGE };
void sio_escape_to(const char *s, enum sio_esc mode, void (*put)(void *, const void *, size_t),
		   void *ctx);

#endif
