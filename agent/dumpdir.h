/* dumpdir.h - the agent's choice of dump directory (dumpdir.c); no JVMTI, so unit tests and
 * the option fuzzer can link it alone. */
#ifndef JITPROF_AGENT_DUMPDIR_H
#define JITPROF_AGENT_DUMPDIR_H

#include <stddef.h>

/* The directory to write in (out; "" = the library's default) for the dir= option (NULL or
 * "": $JITDUMPDIR if set, judged the same way). A dir that is a symlink, owned by another user than us or root, or writable by others
 * without the sticky bit is replaced by $HOME/.debug/jit, and warn gets the one line saying
 * so and naming the file it would have written. 0 or a negative errno. */
int agent_dump_dir(const char *dir, char *out, size_t len, char *warn, size_t warnlen);

#endif
