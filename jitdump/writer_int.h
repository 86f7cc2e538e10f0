/* writer_int.h - the writer's state, shared by writer.c (files, buffers), write.c (records)
 * and fork.c (what a forked child does). */
#ifndef JITPROF_WRITER_INT_H
#define JITPROF_WRITER_INT_H

#include <limits.h>
#include <pthread.h>
#include <sys/types.h>

#include "jitdump/jitdump.h"

/* Internal to libjitdump: not exported from libjitdump.so. */
#pragma GCC visibility push(hidden)

struct jd_sink {
	int fd;
	uint8_t *buf;
	size_t len, cap;
};

struct jd_writer {
	pthread_mutex_t lock;
	struct jd_writer *next;		/* fork.c's registry */
	pid_t pid;			/* whose files these are */
	unsigned fork_gen;		/* fork.c's generation when pid was last checked */
	int err;			/* sticky negative errno */
	enum jd_clock clock;
	uint32_t elf_mach;
	int no_ext;
	int shorthand;			/* opts.same_file_shorthand */
	size_t bufsize;
	uint64_t next_index;
	struct jd_sink dump, ext;	/* ext.fd < 0 until companion data is first written */
	uint64_t ext_hdr_flags;		/* JD_EXT_FLAG_* the companion's header holds */
	void *marker;
	size_t marker_len;
	uint8_t *scratch;		/* heads of units bigger than the buffer */
	size_t scratch_cap;
	int dirfd;			/* the dump directory, opened once (O_PATH) */
	int filefd;			/* where the files are: dirfd or a private subdir */
	char dir[PATH_MAX];		/* dirfd's name, for jd_writer_path only */
	char path[PATH_MAX + 32];
};

int jd_writer_open_files(struct jd_writer *w);
void jd_writer_drop_files(struct jd_writer *w);
void jd_writer_free(struct jd_writer *w);
/* Creates name beneath w->filefd (a stale file there is replaced, never followed) and writes
 * a header with magic. */
int jd_sink_open(struct jd_writer *w, struct jd_sink *s, const char *name, uint32_t magic);
int jd_sink_flush(struct jd_writer *w, struct jd_sink *s);
uint8_t *jd_sink_claim(struct jd_writer *w, struct jd_sink *s, size_t n);
int jd_sink_commit(struct jd_writer *w, struct jd_sink *s, const uint8_t *head, size_t n,
		   const void *tail, size_t tail_len);

/* fork.c */
void jd_fork_register(struct jd_writer *w);
void jd_fork_unregister(struct jd_writer *w);
/* Takes w->lock; in a forked child, first switches w to jit-<newpid>.dump. 0 or -errno
 * (the lock is held either way; release with pthread_mutex_unlock). */
int jd_writer_enter(struct jd_writer *w);
/* This process / thread, without a system call per record. */
pid_t jd_self_pid(void);
pid_t jd_self_tid(void);

#pragma GCC visibility pop

#endif
