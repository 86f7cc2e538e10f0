/* test_samplers.c - agent/jstack.c's agent_samplers_add against a JVM that refuses: a fake
 * JVMTI environment (its function table, as a JVM hands one out) reports an old version, or
 * refuses one capability; the refused event is said in one line naming what is missing and
 * switched off, the other goes on with its callbacks. No JVM is needed: the agent reaches
 * JVMTI only through that table. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <string.h>

#include "agent/agent_int.h"

static jint fake_version;
static int refuse_alloc, refuse_lock;

static jvmtiError JNICALL get_version(jvmtiEnv *env, jint *v)
{
	(void)env;
	*v = fake_version;
	return JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL add_caps(jvmtiEnv *env, const jvmtiCapabilities *c)
{
	(void)env;
	if ((c->can_generate_sampled_object_alloc_events && refuse_alloc) ||
	    (c->can_generate_monitor_events && refuse_lock))
		return JVMTI_ERROR_NOT_AVAILABLE;
	return JVMTI_ERROR_NONE;
}

static struct jvmtiInterface_1_ table;
static const struct jvmtiInterface_1_ *env_ptr = &table;
static jvmtiEnv *const fake = (jvmtiEnv *)&env_ptr;

static void setup(void)
{
	memset(&table, 0, sizeof(table));
	table.GetVersionNumber = get_version;
	table.AddCapabilities = add_caps;
	fake_version = JVMTI_VERSION_11;
	refuse_alloc = refuse_lock = 0;
	agent_options_default(&agent_g.opt);
	agent_g.opt.alloc = 512 * 1024;
	agent_g.opt.lock = 1;
	cr_redirect_stderr();
}

Test(samplers, both_granted, .init = setup)
{
	jvmtiEventCallbacks cb = { 0 };

	agent_samplers_add(fake, &cb);
	cr_expect(cb.SampledObjectAlloc && cb.MonitorContendedEnter && cb.MonitorContendedEntered);
	cr_expect_eq(agent_g.opt.alloc, 512 * 1024);
	cr_expect_eq(agent_g.opt.lock, 1);
	fflush(stderr);
	cr_expect_stderr_eq_str("");
}

Test(samplers, a_refused_capability_is_said_and_the_other_goes_on, .init = setup)
{
	jvmtiEventCallbacks cb = { 0 };

	refuse_alloc = 1;
	agent_samplers_add(fake, &cb);
	cr_expect_null(cb.SampledObjectAlloc);
	cr_expect_eq(agent_g.opt.alloc, 0, "alloc is off");
	cr_expect(cb.MonitorContendedEnter && cb.MonitorContendedEntered, "lock goes on");
	cr_expect_eq(agent_g.opt.lock, 1);
	fflush(stderr);
	cr_expect_stderr_eq_str("jitprof agent: alloc refused: this JVM does not grant "
				"can_generate_sampled_object_alloc_events (JVMTI error 98); the other "
				"events go on\n");
}

Test(samplers, an_old_jvmti_refuses_alloc_only, .init = setup)
{
	jvmtiEventCallbacks cb = { 0 };

	fake_version = JVMTI_VERSION_9;
	refuse_lock = 1;
	agent_samplers_add(fake, &cb);
	cr_expect_null(cb.SampledObjectAlloc);
	cr_expect_null(cb.MonitorContendedEnter);
	cr_expect_eq(agent_g.opt.alloc, 0);
	cr_expect_eq(agent_g.opt.lock, 0);
	fflush(stderr);
	cr_expect_stderr_eq_str("jitprof agent: alloc refused: SampledObjectAlloc needs JVMTI 11 "
				"(JDK 11+), this JVM has 9; the other events go on\n"
				"jitprof agent: lock refused: this JVM does not grant "
				"can_generate_monitor_events (JVMTI error 98); the other events go on\n");
}
