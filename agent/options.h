/* options.h - the agent's option string ("dir=/tmp/j,clock=mono,lines=off,verbose"), parsed on
 * its own so a fuzz target can link options.c alone. Internal to agent/. */
#ifndef JITPROF_AGENT_OPTIONS_H
#define JITPROF_AGENT_OPTIONS_H

#include <stddef.h>

#include "jitdump/jitdump.h"

#define AGENT_DIR_MAX 4096
#define AGENT_FLUSH_MS_DEFAULT 1000u
#define AGENT_FLUSH_MS_MAX 3600000u
#define AGENT_ALLOC_DEFAULT (512u << 10)	/* the JVM's own heap sampling interval */
#define AGENT_ALLOC_MAX (1u << 30)
#define AGENT_LOCK_NS_MAX 3600000000000ull

struct agent_options {
	char dir[AGENT_DIR_MAX];	/* "" = the writer's default ($JITDUMPDIR, ~/.debug/jit) */
	enum jd_clock clock;
	int lines;		/* DEBUG_INFO from compile_info */
	int inline_stacks;	/* JD_EXT_INLINE records */
	int unload;		/* CompiledMethodUnload -> JD_EXT_UNLOAD */
	int stubs;		/* DynamicCodeGenerated -> named loads */
	int methods;		/* the method table (JD_EXT_METHOD) for interpreter frames */
	int jfr;		/* a Flight Recording of compiles and traps beside the dump */
	unsigned flush_ms;	/* periodic flush; 0 = only at exit */
	unsigned alloc;		/* allocation sampling interval in bytes; 0 = off */
	int lock;		/* contended monitor enters sampled */
	unsigned long long lock_ns;	/* ... those that waited at least this long */
	int verbose;
	int quiet;		/* no start line naming the dump */
	int stop;		/* a command, not a setting: stop writing and close the dump */
};

/* Sets *o to the defaults. */
void agent_options_default(struct agent_options *o);

/* Parses a comma-separated option string (NULL or "" = defaults) into *o. Returns 0, or
 * -EINVAL with a one-line message naming the offending item in err (always NUL-terminated
 * when errlen > 0); *o then holds the defaults plus whatever parsed before the bad item. */
int agent_options_parse(struct agent_options *o, const char *s, char *err, size_t errlen);

#endif
