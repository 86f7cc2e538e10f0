/* record_int.h - the pieces of recorder/record/ and how they meet: events.c (perf_event_open
 * per CPU, ring buffers), proc_snapshot.c (/proc and kernel maps), buildid_thread.c (the side thread),
 * hits.c (which DSOs got samples), recording.c (the loop that ties them to a pd_writer). */
#ifndef JITPROF_RECORD_INT_H
#define JITPROF_RECORD_INT_H

#include <linux/perf_event.h>
#include <stddef.h>

#include "recorder/perfdata/perfdata.h"
#include "recorder/record/record.h"

/* ---- events.c ---- */
struct rec_ring {
	int fd;
	int cpu;
	struct perf_event_mmap_page *pc;
	uint8_t *data;
	uint64_t size;		/* data bytes, a power of two */
	size_t map_len;
};

struct rec_evsel {
	struct perf_event_attr attr;
	char name[64];
	uint64_t *ids;		/* of its fds, for the file's attr section */
	size_t nids, capids;
	bool defaulted;		/* no -e: cycles, or cpu-clock where the PMU has none */
	bool off_cpu;		/* --off-cpu's context-switches (with PERF_RECORD_SWITCH) */
	bool refused;		/* the kernel cannot give it (said); not recorded */
};

struct rec_events {
	struct rec_evsel *evsels;	/* in the order asked; the first carries the side-band */
	size_t nevsels, cap_evsels;
	int *cpus;
	size_t ncpus;
	int *fds;		/* every evsel's */
	size_t nfds, capfds;
	struct rec_ring *rings;	/* one per CPU */
	size_t nrings;
	bool exclude_kernel;
};

/* event_spec.c: -e's names ("name[:u|k|p]", rHEX) into attr type/config/excludes; a list
 * "a,b" into one evsel each (errors said on log). */
int rec_parse_event(const char *spec, struct perf_event_attr *a, char *name, size_t nsz);
int rec_parse_event_list(struct rec_events *ev, const char *list, const struct jp_log *log);
/* A zeroed evsel appended to ev (pointer valid until the next add). */
int rec_events_add(struct rec_events *ev, struct rec_evsel **out);
/* The recorded events' names, comma separated, however many: malloc'd, NULL out of memory. */
char *rec_events_names(const struct rec_events *ev);

/* pid > 0 with inherit (a workload or -p threads), pid -1 for -a. tids: threads to open for
 * (NULL: just pid). Events start disabled; workload events arm enable_on_exec. */
int rec_events_open(struct rec_events *ev, const struct rec_opts *o, const pid_t *tids,
		    size_t ntids, bool workload);
int rec_events_enable(struct rec_events *ev);
int rec_events_disable(struct rec_events *ev);
void rec_events_close(struct rec_events *ev);

/* Calls fn for every record between tail and head, then releases the space. A record that
 * wraps the buffer end is copied into tmp (>= 64 KiB). Returns bytes consumed or -errno. */
typedef int (*rec_sink_fn)(void *ctx, const struct perf_event_header *h);
long rec_ring_drain(struct rec_ring *r, uint8_t *tmp, rec_sink_fn fn, void *ctx);

/* ---- buildid_thread.c ---- */
int rec_read_build_id(const char *path, uint8_t id[PD_BUILD_ID_MAX], size_t *size);
int rec_kernel_build_id(uint8_t id[PD_BUILD_ID_MAX], size_t *size);
int rec_notes_build_id(const char *path, uint8_t id[PD_BUILD_ID_MAX], size_t *size);

struct rec_bid_thread;
struct rec_bid_result {
	char *path;		/* malloc'd; the caller frees */
	uint8_t id[PD_BUILD_ID_MAX];
	size_t size;		/* 0: no build-id could be read */
};
/* keep_root: with --keep-deleted, the build-id cache the contents of deleted mapped files go
 * to (NULL: none are kept). */
int rec_bid_start(struct rec_bid_thread **t, const char *keep_root);
int rec_bid_request(struct rec_bid_thread *t, const char *path, pid_t pid);
/* A mapping [start, end) of pid: its build-id is read from path, else (the file was deleted
 * or replaced) through /proc/PID/map_files while the process lives. id non-NULL: the kernel
 * gave it already, only keep the file if it was deleted (no result is posted). */
int rec_bid_request_map(struct rec_bid_thread *t, const char *path, pid_t pid, uint64_t start,
			uint64_t end, const uint8_t *id, size_t id_size);
/* Deleted files whose contents went to the cache so far. */
size_t rec_bid_kept(struct rec_bid_thread *t);
/* Those that could not be kept so far, moved into *out (out->first is then the caller's). */
void rec_bid_not_kept(struct rec_bid_thread *t, struct rec_not_kept *out);
/* A deleted file over max bytes is not kept (REC_KEEP_MAX unless set before any request:
 * tests set less). */
#define REC_KEEP_MAX (1ull << 32)
void rec_bid_set_keep_max(struct rec_bid_thread *t, uint64_t max);
/* Takes up to max finished results; returns their number. */
size_t rec_bid_poll(struct rec_bid_thread *t, struct rec_bid_result *out, size_t max);
/* 0, or -ENOMEM once a result was lost for want of memory (the recording is not written). */
int rec_bid_error(struct rec_bid_thread *t);
/* Finishes the queue, joins the thread (results stay pollable), frees with rec_bid_free. */
void rec_bid_stop(struct rec_bid_thread *t);
void rec_bid_free(struct rec_bid_thread *t);

/* ---- hits.c ---- */
enum rec_bid_state { BID_UNKNOWN, BID_REQUESTED, BID_KNOWN, BID_NONE };
struct rec_dso {
	char *name;
	uint16_t cpumode;
	bool hit;
	enum rec_bid_state state;
	bool late;		/* pipe mode: its build-id outlasted the hold once; not waited for
				 * again (a hung file system must not stall every round) */
	uint8_t id[PD_BUILD_ID_MAX];
	uint8_t id_size;
};
struct rec_hits;
struct rec_hits *rec_hits_new(void);
void rec_hits_free(struct rec_hits *h);
/* Slots the pid table's lookups passed over so far (the flooding test). */
size_t rec_hits_probes(const struct rec_hits *h);
struct rec_dso *rec_hits_dso(struct rec_hits *h, const char *name, uint16_t cpumode);
int rec_hits_mmap(struct rec_hits *h, uint32_t pid, uint64_t start, uint64_t len,
		  struct rec_dso *d);
int rec_hits_fork(struct rec_hits *h, uint32_t pid, uint32_t ppid);	/* 0 or -ENOMEM */
void rec_hits_exec(struct rec_hits *h, uint32_t pid);
/* Marks the DSO at ip hit and returns it (NULL: not mapped yet, looked up again at finish;
 * or out of memory, which rec_hits_nomem then says: the recording would lack its build-id). */
struct rec_dso *rec_hits_sample(struct rec_hits *h, uint32_t pid, uint64_t ip, uint16_t cpumode);
bool rec_hits_nomem(const struct rec_hits *h);
void rec_hits_finish(struct rec_hits *h);
size_t rec_hits_nr_dsos(const struct rec_hits *h);
struct rec_dso *rec_hits_dso_at(struct rec_hits *h, size_t i);

/* ---- cache.c ---- */
/* buf as <root>/<name>/<hex id>/<kind> (written whole, then renamed) with the link
 * <root>/.build-id/xx/rest -> ../../<name>/<hex> (perf's layout). name: a recorded path
 * (leading '/' dropped; no "..") or "[vdso]". Beneath root nothing is followed: a symlink
 * planted inside the cache is refused with -ELOOP (safeio). */
int rec_cache_save(const char *root, const char *name, const uint8_t *id, size_t id_size,
		   const char *kind, const void *buf, size_t len);
/* This process's vdso image as [vdso]/<hex>/vdso, if its build-id is id. */
int rec_vdso_save(const char *root, const uint8_t *id, size_t id_size);

/* ---- hold.c ---- */
struct rec_hold {
	uint8_t *buf;		/* the round's records, as drained */
	size_t len, cap;
	struct rec_dso **wait;	/* DSOs hit while their build-id was being read */
	size_t nwait, capwait;
};
int rec_hold_record(struct rec_hold *h, const struct perf_event_header *hdr);
/* Notes that the round hit d; only a DSO whose build-id is still being read is waited for. */
int rec_hold_need(struct rec_hold *h, struct rec_dso *d);
/* How many noted DSOs are still without a result from the side thread. */
size_t rec_hold_pending(const struct rec_hold *h);
/* The hold ran out: the noted DSOs still without a result are marked late. */
void rec_hold_give_up(struct rec_hold *h);
/* Writes the held round and starts the next one. */
int rec_hold_flush(struct rec_hold *h, struct pd_writer *w);
void rec_hold_free(struct rec_hold *h);

/* ---- proc_snapshot.c ---- */
struct rec_synth_ctx {
	struct pd_writer *w;
	struct rec_hits *hits;
	struct rec_bid_thread *bids;
	bool pipe;
	bool keep_deleted;	/* --keep-deleted: every file map is looked at by the side thread */
};
/* "[kernel.kallsyms]_text" with pgoff = runtime _text and the kernel build-id, then one map
 * per loaded module ("[name]", as perf names modules it has no path for). */
int rec_synth_kernel(struct rec_synth_ctx *c);
/* The module maps from a /proc/modules-format file (0 if it is absent). */
int rec_synth_modules(struct rec_synth_ctx *c, const char *proc_modules);
/* COMM (+FORK with fork=true) for each thread and MMAP2 for each executable map of pid. */
int rec_synth_process(struct rec_synth_ctx *c, pid_t pid, bool fork);
int rec_synth_all(struct rec_synth_ctx *c);
/* Threads of pid from /proc/<pid>/task (malloc'd array, all of them): 0, -ENOMEM, or -errno
 * (-ESRCH: none). */
int rec_list_threads(pid_t pid, pid_t **tids, size_t *n);
/* Feeds one MMAP2/MMAP the recorder saw into hits and the build-id machinery: 0 or -ENOMEM. */
int rec_note_mmap(struct rec_synth_ctx *c, const struct pd_mmap *m, uint16_t misc);

#endif
