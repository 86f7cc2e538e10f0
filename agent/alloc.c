/* alloc.c - alloc=BYTES: the JVM's heap sampling (JVMTI SampledObjectAlloc, one object about
 * every BYTES allocated by a thread, at a random point) turned into SAMPLE records. A sample
 * stands for the interval's bytes, or for the object's own size when it is larger (a large
 * object is always sampled): the sum estimates the bytes each stack and class allocated. */
#include "agent/agent_int.h"

#include <string.h>

void JNICALL agent_on_sampled_alloc(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread,
				    jobject object, jclass klass, jlong size)
{
	(void)jni;
	(void)object;
	if (!agent_enter())
		return;
	uint64_t t0 = agent_now_ns();
	uint64_t sz = size > 0 ? (uint64_t)size : 0;
	uint64_t w = sz > agent_g.opt.alloc ? sz : agent_g.opt.alloc;
	int rc = agent_sample_write(jvmti, thread, JD_SAMPLE_ALLOC, w, sz, klass);
	agent_leave(t0);
	if (rc < 0)
		agent_fail("cannot write an allocation sample to %s: %s",
			   jd_writer_path(agent_g.w), strerror(-rc));
}
