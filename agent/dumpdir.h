/* dumpdir.h - the agent's choice of dump directory (dumpdir.c); no JVMTI, so unit tests and
 * the option fuzzer can link it alone. */
#ifndef JITPROF_AGENT_DUMPDIR_H
#define JITPROF_AGENT_DUMPDIR_H

#include <stddef.h>

/* Opens the directory to write in for the dir= option (NULL or "": $JITDUMPDIR if set,
 * judged the same way; neither: $HOME/.debug/jit) once, as an O_PATH fd in *fd (the caller's
 * to close), its name in path (for messages and the writer). The name is walked one
 * component at a time without following a symlink (one in a directory only its owner or root
 * may change is followed), missing levels created 0700 only in a directory nobody else may
 * rename things in, and the opened directory checked on its fd. A dir that is a symlink,
 * owned by another user than us or root, or writable by others without the sticky bit is
 * replaced by $HOME/.debug/jit, and warn gets the one line saying so and naming the file it
 * would have written. 0, or a negative errno with path naming the directory that failed. */
int agent_dump_dir_open(const char *dir, int *fd, char *path, size_t len, char *warn,
			size_t warnlen);

#endif
