/* safeio_int.h - what the unit tests reach inside safeio: the fallback walk, so it is tested
 * on kernels that have openat2 too. */
#ifndef JITPROF_SAFEIO_INT_H
#define JITPROF_SAFEIO_INT_H

#include "safeio/safeio.h"

/* sio_open_beneath without openat2: one O_NOFOLLOW component at a time. */
int sio_open_beneath_walk(int dirfd, const char *rel);
/* Turns a fresh O_NONBLOCK fd into a blocking one on a regular file; closes it otherwise. */
int sio_regular_or_close(int fd);

#endif
