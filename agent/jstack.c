/* jstack.c - a sample the JVM hands us (an allocation, a contended monitor enter) written as
 * a companion SAMPLE record: the thread's Java stack from GetStackTrace as method ids, bcis
 * and lines (the line tables cached per method by methods.c), the id's name once in a
 * JMETHOD record. Runs on the sampled Java thread: a stack array on the C stack, one
 * encode into the writer's buffer, no lock of ours held across a JVMTI call. */
#include "agent/agent_int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define JSTACK_MAX 128	/* deeper stacks keep their innermost frames */

/* Writes m's JMETHOD record the first time any thread uses m in a sample. */
static int name_once(struct agent_method *m)
{
	if (atomic_exchange(&m->sampled, 1))
		return 0;
	struct jd_ext_jmethod jm = { .method = (uintptr_t)m->id, .name = m->name,
				     .file = m->file };
	return jd_write_jmethod(agent_g.w, &jm, 0);
}

int agent_sample_write(jvmtiEnv *jvmti, jthread thread, uint32_t kind, uint64_t weight,
		       uint64_t size, jclass klass)
{
	jvmtiFrameInfo fi[JSTACK_MAX];
	struct jd_java_frame fr[JSTACK_MAX];
	jint n = 0;
	char *sig = NULL;
	int rc = 0;

	if ((*jvmti)->GetStackTrace(jvmti, thread, 0, JSTACK_MAX, fi, &n) != JVMTI_ERROR_NONE)
		n = 0;
	for (jint i = 0; i < n && !rc; i++) {
		struct agent_method *m = agent_method_get(jvmti, fi[i].method, agent_g.opt.lines);
		fr[i] = (struct jd_java_frame){ .method = (uintptr_t)fi[i].method,
						.bci = (int32_t)fi[i].location };
		if (m) {
			fr[i].line = fi[i].location >= 0 ? agent_method_line(m, fi[i].location) : 0;
			rc = name_once(m);
		}
	}
	if (klass)
		(*jvmti)->GetClassSignature(jvmti, klass, &sig, NULL);
	struct jd_ext_sample s = { .kind = kind, .tid = (uint32_t)syscall(SYS_gettid),
				   .weight = weight, .size = size, .nr_frames = (uint32_t)n,
				   .frames = fr, .klass = sig ? sig : "?" };
	if (!rc)
		rc = jd_write_sample(agent_g.w, &s, 0);
	if (sig)
		(*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
	if (!rc)
		atomic_fetch_add(&agent_g.st.records, 1);
	return rc;
}

/* One line naming what this JVM refused; the event is off, the others go on. */
static int add_cap(jvmtiEnv *jvmti, const jvmtiCapabilities *c, const char *event,
		   const char *cap)
{
	jvmtiError e = (*jvmti)->AddCapabilities(jvmti, c);
	if (e == JVMTI_ERROR_NONE)
		return 0;
	agent_warn("%s refused: this JVM does not grant %s (JVMTI error %d); the other events "
		   "go on", event, cap, (int)e);
	return -1;
}

void agent_samplers_add(jvmtiEnv *jvmti, jvmtiEventCallbacks *cb)
{
	struct agent_options *o = &agent_g.opt;
	jvmtiCapabilities c;
	jint version = 0;

	if (o->alloc) {
		(*jvmti)->GetVersionNumber(jvmti, &version);
		memset(&c, 0, sizeof(c));
		c.can_generate_sampled_object_alloc_events = 1;
		if (((version & JVMTI_VERSION_MASK_MAJOR) >> JVMTI_VERSION_SHIFT_MAJOR) < 11) {
			agent_warn("alloc refused: SampledObjectAlloc needs JVMTI 11 (JDK 11+), "
				   "this JVM has %d; the other events go on",
				   (int)((version & JVMTI_VERSION_MASK_MAJOR) >>
					 JVMTI_VERSION_SHIFT_MAJOR));
			o->alloc = 0;
		} else if (add_cap(jvmti, &c, "alloc",
				   "can_generate_sampled_object_alloc_events")) {
			o->alloc = 0;
		} else {
			cb->SampledObjectAlloc = agent_on_sampled_alloc;
		}
	}
	if (o->lock) {
		memset(&c, 0, sizeof(c));
		c.can_generate_monitor_events = 1;
		if (add_cap(jvmti, &c, "lock", "can_generate_monitor_events")) {
			o->lock = 0;
		} else {
			cb->MonitorContendedEnter = agent_on_contended_enter;
			cb->MonitorContendedEntered = agent_on_contended_entered;
		}
	}
}

void agent_samplers_set(jvmtiEnv *jvmti, jvmtiEventMode mode)
{
	const struct agent_options *o = &agent_g.opt;
	jvmtiError e = JVMTI_ERROR_NONE;

	if (o->alloc && mode == JVMTI_ENABLE &&
	    (e = (*jvmti)->SetHeapSamplingInterval(jvmti, (jint)o->alloc)) != JVMTI_ERROR_NONE)
		agent_warn("alloc refused: SetHeapSamplingInterval(%u) failed (JVMTI error %d)",
			   o->alloc, (int)e);
	if (o->alloc && e == JVMTI_ERROR_NONE)
		(*jvmti)->SetEventNotificationMode(jvmti, mode, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC,
						    NULL);
	if (o->lock) {
		(*jvmti)->SetEventNotificationMode(jvmti, mode, JVMTI_EVENT_MONITOR_CONTENDED_ENTER,
						    NULL);
		(*jvmti)->SetEventNotificationMode(jvmti, mode,
						    JVMTI_EVENT_MONITOR_CONTENDED_ENTERED, NULL);
	}
}
