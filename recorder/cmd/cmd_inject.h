/* cmd_inject.h - `jitprof inject`'s run once its options are set (cmd_inject.c), which
 * `jitprof profile` calls in process. */
#ifndef JITPROF_CMD_INJECT_H
#define JITPROF_CMD_INJECT_H

#include "recorder/inject/inject.h"

/* inj_run of *o into o->output, which appears whole or not at all (cli_outfile; o->out_fd,
 * out_pipe, log and the progress callbacks are set here: o->log is not to be used after),
 * warnings said as they come, the summary through cli_info (quiet silences it). The exit
 * status of `jitprof inject`: 0; 1 with the error said; 3 when nothing was injected (no
 * jitdump named, or none readable: said; the output is a plain copy). Never exits. The run's
 * counts into *st when st is not NULL (what `profile` says of the injected file without
 * reading it again). */
int inject_write(struct inj_opts *o, struct inj_stats *st);

#endif
