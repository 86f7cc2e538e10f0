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

#endif
