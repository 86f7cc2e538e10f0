/* commands.h - the jitprof subcommands: one line each, X-macro style, read twice by main.c
 * (once for the prototypes, once for the dispatch table). Each command is one file with one
 * entry function `int cmd_<name>(int argc, char **argv)` returning the process exit code.
 * Listed in workflow order: `jitprof --help` prints them so. */
#ifndef JITPROF_COMMAND
#define JITPROF_COMMAND(name, summary)
#endif
/* JITPROF_COMMAND(name, one-line summary) */
JITPROF_COMMAND(profile, "record a command or a running JVM, merge its jitted code, write a report: one step")
JITPROF_COMMAND(record, "sample a command, process or the system into perf.data")
JITPROF_COMMAND(inject, "merge jitted code (jitdumps) into a recording: one ELF per sampled generation")
JITPROF_COMMAND(report, "overhead by symbol and source line; generations of jitted methods side by side")
JITPROF_COMMAND(archive, "every ELF a recording needs, by build-id, in one tar.zst for another machine")
JITPROF_COMMAND(buildid_list, "the build-ids a recording refers to (like perf buildid-list), or of one ELF")
JITPROF_COMMAND(jitdump, "a jitdump or companion file made readable: header, every record, --json, --stats")
JITPROF_COMMAND(synth, "every code load (method generation) of a jitdump as its own ELF, with build-ids")
