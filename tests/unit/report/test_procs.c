/* test_procs.c - recorder/report/procs.c: which mapping is a process's program (what pprof's
 * header names): the first executable file that is no library, jitted code, jitdump marker or
 * anonymous memory; each process its own, an exec starting over, a child its parent's. */
#include <criterion/criterion.h>
#include <sys/mman.h>

#include "recorder/perfdata/perfdata.h"
#include "recorder/report_analysis/analysis_int.h"
#include "recorder/report_ingest/ingest_int.h"
#include "recorder/report_views/views_int.h"
#include "tests/unit/report/rptest.h"

Test(procs, first_program_mapping_of_each_process)
{
	struct rp_session *s = rt_session();
	rp_note_mapping(s, 7, "/usr/lib/jvm/java-17/bin/java", 0);	/* not executable */
	rp_note_mapping(s, 7, "/tmp/jit-7.dump", 1);			/* jitdump marker */
	rp_note_mapping(s, 7, "/tmp/jitted-7-3.so", 1);
	rp_note_mapping(s, 7, "//anon", 1);
	rp_note_mapping(s, 7, "[vdso]", 1);
	rp_note_mapping(s, 7, "/usr/lib/x86_64-linux-gnu/libc.so.6", 1);
	rp_note_mapping(s, 7, "/usr/lib/jvm/java-17/lib/server/libjvm.so", 1);
	rp_note_mapping(s, 7, "/usr/lib/libfoo.so_1", 1);
	cr_assert_null(rp_process_exe(s, 7), "no program mapped yet");
	rp_note_mapping(s, 7, "/usr/lib/jvm/java-17/bin/java", 1);
	rp_note_mapping(s, 7, "/usr/bin/other", 1);
	rp_note_mapping(s, 8, "/usr/bin/node", 1);
	cr_assert_str_eq(rp_process_exe(s, 7), "java", "the first one wins");
	cr_assert_str_eq(rp_process_exe(s, 8), "node");
	cr_assert_null(rp_process_exe(s, 9));
	/* a program whose name only contains ".so" is not a library */
	rp_note_mapping(s, 9, "/opt/sonar/bin/app.sock-server", 1);
	cr_assert_str_eq(rp_process_exe(s, 9), "app.sock-server");
	rp_session_free(s);
}

/* A launcher (env, a shell script) execs the JVM in its own pid: the program is the one
 * mapped after the last exec; a child runs its parent's until it execs. */
Test(procs, exec_and_fork)
{
	struct rp_session *s = rt_session();
	rp_note_mapping(s, 7, "/usr/bin/env", 1);
	cr_assert_str_eq(rp_process_exe(s, 7), "env");
	rp_note_exec(s, 7);
	cr_assert_null(rp_process_exe(s, 7));
	rp_note_mapping(s, 7, "/usr/lib/jvm/java-17/bin/java", 1);
	cr_assert_str_eq(rp_process_exe(s, 7), "java");
	rp_note_fork(s, 7, 8);
	cr_assert_str_eq(rp_process_exe(s, 8), "java");
	rp_note_exec(s, 8);
	rp_note_mapping(s, 8, "/usr/bin/node", 1);
	cr_assert_str_eq(rp_process_exe(s, 8), "node");
	cr_assert_str_eq(rp_process_exe(s, 7), "java", "the parent keeps its own");
	rp_note_fork(s, 9, 10);	/* a parent never seen: nothing known */
	cr_assert_null(rp_process_exe(s, 10));
	rp_session_free(s);
}

/* The events that say it, as the replay hands them over. */
Test(procs, from_events)
{
	struct rp_session *s = rt_session();
	struct pd_event ev = { .type = PERF_RECORD_MMAP2 };
	ev.u.mmap = (struct pd_mmap){ .pid = 5, .is_mmap2 = true, .prot = PROT_READ,
				      .filename = "/usr/bin/env" };
	rp_note_process_event(s, &ev);
	cr_assert_null(rp_process_exe(s, 5), "not mapped executable");
	ev.u.mmap.prot = PROT_READ | PROT_EXEC;
	rp_note_process_event(s, &ev);
	cr_assert_str_eq(rp_process_exe(s, 5), "env");
	ev = (struct pd_event){ .type = PERF_RECORD_COMM };
	ev.u.comm = (struct pd_comm){ .pid = 5, .tid = 5, .comm = "java", .exec = true };
	rp_note_process_event(s, &ev);
	cr_assert_null(rp_process_exe(s, 5), "exec forgets the launcher");
	ev = (struct pd_event){ .type = PERF_RECORD_MMAP, .misc = PERF_RECORD_MISC_USER };
	ev.u.mmap = (struct pd_mmap){ .pid = 5, .filename = "/usr/lib/jvm/x/bin/java" };
	rp_note_process_event(s, &ev);
	cr_assert_str_eq(rp_process_exe(s, 5), "java", "MMAP without MISC_MMAP_DATA: code");
	ev = (struct pd_event){ .type = PERF_RECORD_FORK };
	ev.u.task = (struct pd_task){ .pid = 6, .ppid = 5, .tid = 6, .ptid = 5 };
	rp_note_process_event(s, &ev);
	cr_assert_str_eq(rp_process_exe(s, 6), "java");
	rp_session_free(s);
}

/* A sample's thread that no COMM named gets perf's name: the idle task "swapper", any other
 * ":TID", a sample without a task ":-1". */
Test(procs, names_of_unnamed_threads_as_perf_gives_them)
{
	struct rp_session *s = rt_session();
	cr_assert_str_eq(rp_comm_unknown(s, 0, 0), "swapper");
	cr_assert_str_eq(rp_comm_unknown(s, 42, 43), ":43");
	cr_assert_str_eq(rp_comm_unknown(s, UINT32_MAX, UINT32_MAX), ":-1");
	cr_assert_eq(rp_comm_unknown(s, 42, 43), rp_comm_unknown(s, 42, 43), "interned");
	rp_session_free(s);
}
