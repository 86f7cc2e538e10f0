/* runfix.h - the in-process recording the inject unit tests share (runfix.c): NLOADS code
 * loads of 48 bytes in SLOTS reused address slots, one every 100 ns from T0, the even ones
 * sampled; a marker late in the file, an //anon map, a round every 4 loads. */
#ifndef JITPROF_TEST_INJECT_RUNFIX_H
#define JITPROF_TEST_INJECT_RUNFIX_H

#include <stddef.h>
#include <stdint.h>

#include "recorder/inject/inject_int.h"

#define NLOADS 40
#define SLOTS 8
#define T0 1000000ull

extern char *dir;		/* the test's directory: dump, recording, output */
extern char dump[4096], data[4200], out[4200], cache[4200];
extern uint64_t code_index[NLOADS];

/* Writes the dump and the recording (flags: pd_writer_open's, PD_WRITER_PIPE for a pipe). */
void rf_make_input(unsigned flags);
/* inject --no-elfs from data to out (pipe_out: pipe mode). */
int rf_run_no_elfs(int pipe_out, struct inj_stats *st, char *err, size_t errlen);
void rf_cleanup(void);
/* One byte of load's code in the dump changed in place, its mtime put back (touch -r): the
 * byte's offset. */
uint64_t rf_rewrite_code(uint32_t load);
/* The identities in out's origins section taken again from the dumps as they are now, as an
 * inject racing a rewrite would have: only the build-id check can then tell. */
void rf_reidentify(void);
/* One user-mode SAMPLE (IP, TID, TIME, PERIOD), and one executable MMAP2 of 4 KiB. */
struct pd_writer;
/* A recording at path with the one attr (cpu-clock, IP|TID|TIME|PERIOD, CLOCK_MONOTONIC). */
struct pd_writer *rf_open_recording(const char *path, unsigned flags);
void rf_sample(struct pd_writer *w, uint32_t pid, uint64_t t, uint64_t ip);
void rf_map(struct pd_writer *w, uint32_t pid, uint64_t t, uint64_t start, const char *f);

#endif
