/* lock.c - lock[=NS]: a contended monitor enter (JVMTI MonitorContendedEnter, then Entered
 * once the thread owns the monitor) that waited NS or longer becomes a SAMPLE record of the
 * nanoseconds waited, under the waiting thread's stack and the monitor object's class. An
 * uncontended enter raises neither event: such a program runs no code of ours. */
#include "agent/agent_int.h"

#include <string.h>

static _Thread_local uint64_t enter_ns;	/* this thread's pending contended enter */

void JNICALL agent_on_contended_enter(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread,
				      jobject object)
{
	(void)jvmti;
	(void)jni;
	(void)thread;
	(void)object;
	enter_ns = agent_now_ns();
}

void JNICALL agent_on_contended_entered(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread,
					jobject object)
{
	uint64_t t0 = agent_now_ns(), waited = enter_ns && t0 > enter_ns ? t0 - enter_ns : 0;

	enter_ns = 0;
	if (!waited || waited < agent_g.opt.lock_ns || !agent_enter())
		return;
	jclass klass = (*jni)->GetObjectClass(jni, object);
	int rc = agent_sample_write(jvmti, thread, JD_SAMPLE_LOCK, waited, 0, klass);
	if (klass)
		(*jni)->DeleteLocalRef(jni, klass);
	agent_leave(t0);
	if (rc < 0)
		agent_fail("cannot write a lock sample to %s: %s", jd_writer_path(agent_g.w),
			   strerror(-rc));
}
