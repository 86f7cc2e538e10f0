/* main.c - the jitprof command: dispatches to one subcommand per file (commands.h), the batch
 * ones with glibc's malloc tuned first. Nothing else lives here. */
#include <stdio.h>
#include <string.h>

#include "lib/malloc_tune.h"
#include "recorder/cmd/cli.h"

#define JITPROF_COMMAND(name, summary) int cmd_##name(int argc, char **argv);
#include "recorder/cmd/commands.h"
#undef JITPROF_COMMAND

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
#define JITPROF_COMMAND(name, summary) { #name, cmd_##name, summary },
#include "recorder/cmd/commands.h"
#undef JITPROF_COMMAND
	{ NULL, NULL, NULL },
};

/* Subcommands are C identifiers in commands.h; users type dashes ("buildid-list"). */
static int name_matches(const char *cname, const char *typed)
{
	for (; *cname && *typed; cname++, typed++) {
		char c = *cname == '_' ? '-' : *cname;
		if (c != *typed)
			return 0;
	}
	return !*cname && !*typed;
}

/* The commands that make one pass over a recording or a dump, allocating as they go: they
 * run with glibc's malloc tuned (lib/malloc_tune.h). profile too, which runs inject and
 * report in its own process: the re-executed image puts the caller's GLIBC_TUNABLES back,
 * so the recording and the user's program it starts see the environment as it was (an
 * untuned profile faulted 2.5x the pages of its steps, 7.9k against 3.2k for minijit).
 * record is left as it is: it starts the user's program, whose memory behaviour is what is
 * being measured. */
static int batch_command(const char *cname)
{
	static const char *const batch[] = { "inject", "report", "archive", "buildid_list",
					     "jitdump", "synth", "profile" };
	for (size_t i = 0; i < sizeof(batch) / sizeof(batch[0]); i++)
		if (!strcmp(batch[i], cname))
			return 1;
	return 0;
}

static void print_name(FILE *out, const char *cname)
{
	char buf[64];
	size_t i = 0;
	for (; cname[i] && i + 1 < sizeof(buf); i++)
		buf[i] = cname[i] == '_' ? '-' : cname[i];
	buf[i] = 0;
	fprintf(out, "  %-14s ", buf);
}

static void usage(FILE *out)
{
	fprintf(out, "usage: jitprof [--version] [--help] COMMAND [ARGS]\n\n"
		     "Makes JIT-compiled code visible to perf-style profiling.\n\ncommands:\n");
	for (const struct command *c = commands; c->name; c++) {
		print_name(out, c->name);
		fprintf(out, "%s\n", c->summary);
	}
	fprintf(out, "\n'jitprof COMMAND --help' describes one command.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
		if (argc > 2 && strcmp(name, "help") == 0) {
			char *args[] = { argv[2], (char *)"--help", NULL };
			for (const struct command *c = commands; c->name; c++)
				if (name_matches(c->name, argv[2]))
					return c->fn(2, args);
		}
		usage(stdout);
		return 0;
	}
	if (!strcmp(name, "--version") || !strcmp(name, "version")) {
		printf("jitprof %s\n", JITPROF_VERSION);
		return 0;
	}
	for (const struct command *c = commands; c->name; c++) {
		if (name_matches(c->name, name)) {
			if (!strcmp(c->name, "inject"))
				jp_malloc_tune_here();	/* its threads allocate little */
			else if (batch_command(c->name))
				jp_malloc_tune(argv);
			cli_set_command(c->name);
			/* getopt names the program after argv[0] in its messages: "jitprof
			 * report: unrecognized option", as our own errors say it. */
			char prog[64];
			snprintf(prog, sizeof(prog), "jitprof %s", name);
			argv[1] = prog;
			return c->fn(argc - 1, argv + 1);
		}
	}
	fprintf(stderr, "jitprof: '%s' is not a command; see 'jitprof --help'\n", name);
	return 2;
}
