/* agent.c - libagent.so's entry points. Start-up (Agent_OnLoad) and late attach
 * (Agent_OnAttach + GenerateEvents back-fill), the periodic flush thread, and shutdown at
 * VMDeath. Every failure is one "jitprof agent:" line on stderr and the agent switching itself
 * off; the entry points always return JNI_OK so the JVM runs on. */
#include "agent/agent_int.h"
#include "agent/dumpdir.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

struct agent agent_g;

static struct {
	pthread_t tid;
	int running, stop;
	pthread_mutex_t mu;
	pthread_cond_t cv;
} flusher = { .mu = PTHREAD_MUTEX_INITIALIZER };

static void vwarn(const char *fmt, va_list ap)
{
	char line[1024];

	vsnprintf(line, sizeof(line), fmt, ap);
	/* One line whatever paths or names went in. */
	for (char *p = line; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = '?';
	fprintf(stderr, "jitprof agent: %s\n", line);
}

void agent_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
}

void agent_fail(const char *fmt, ...)
{
	char msg[900];
	va_list ap;

	atomic_store(&agent_g.active, 0);
	if (atomic_exchange(&agent_g.failed, 1))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	agent_warn("%s; disabled, the JVM runs on without it", msg);
}

uint64_t agent_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int agent_enter(void)
{
	atomic_fetch_add(&agent_g.inflight, 1);
	if (atomic_load(&agent_g.active))
		return 1;
	atomic_fetch_sub(&agent_g.inflight, 1);
	return 0;
}

void agent_leave(uint64_t t0)
{
	atomic_fetch_add(&agent_g.st.callback_ns, agent_now_ns() - t0);
	atomic_fetch_sub(&agent_g.inflight, 1);
}

/* Waits (bounded) for callbacks still inside the writer; 0 when none is left. */
static int drain(void)
{
	for (int i = 0; i < 2000 && atomic_load(&agent_g.inflight) > 0; i++) {
		struct timespec ms = { 0, 1000000 };

		nanosleep(&ms, NULL);
	}
	return atomic_load(&agent_g.inflight) > 0 ? -EBUSY : 0;
}

static void *flush_main(void *arg)
{
	struct timespec due;

	(void)arg;
	pthread_mutex_lock(&flusher.mu);
	while (!flusher.stop) {
		clock_gettime(CLOCK_MONOTONIC, &due);
		due.tv_sec += agent_g.opt.flush_ms / 1000;
		due.tv_nsec += (long)(agent_g.opt.flush_ms % 1000) * 1000000L;
		if (due.tv_nsec >= 1000000000L) {
			due.tv_sec++;
			due.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&flusher.cv, &flusher.mu, &due);
		if (flusher.stop || !agent_enter())
			continue;
		int rc = jd_writer_flush(agent_g.w);

		agent_leave(agent_now_ns());
		if (rc < 0)
			agent_fail("cannot write %s: %s", jd_writer_path(agent_g.w), strerror(-rc));
	}
	pthread_mutex_unlock(&flusher.mu);
	return NULL;
}

static void flusher_start(void)
{
	pthread_condattr_t ca;
	sigset_t all, old;

	if (agent_g.opt.flush_ms == 0)
		return;
	flusher.stop = 0;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&flusher.cv, &ca);
	pthread_condattr_destroy(&ca);
	/* The JVM's signals (SIGQUIT, SIGINT, ...) must never land on our thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	flusher.running = pthread_create(&flusher.tid, NULL, flush_main, NULL) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!flusher.running)
		agent_warn("no flush thread; data is written when buffers fill and at exit");
	else
		pthread_setname_np(flusher.tid, "jitprof-flush");
}

static void flusher_stop(void)
{
	if (!flusher.running)
		return;
	pthread_mutex_lock(&flusher.mu);
	flusher.stop = 1;
	pthread_cond_signal(&flusher.cv);
	pthread_mutex_unlock(&flusher.mu);
	pthread_join(flusher.tid, NULL);
	flusher.running = 0;
}

/* Closes the dump once: stats record, CODE_CLOSE, flush. Safe to call twice. */
static void agent_shutdown(void)
{
	int was_active, rc;

	if (atomic_exchange(&agent_g.shut, 1))
		return;
	flusher_stop();
	agent_interp_stop();
	was_active = atomic_exchange(&agent_g.active, 0);
	if (!agent_g.w)
		return;
	if (drain()) {	/* a callback is stuck inside the JVM: leave the writer to it */
		agent_warn("callbacks still running at exit; dump left unclosed");
		return;
	}
	if (was_active)
		agent_stats_finish();
	rc = jd_writer_close(agent_g.w);
	agent_g.w = NULL;
	if (rc < 0 && !atomic_load(&agent_g.failed))
		agent_fail("cannot finish the dump: %s", strerror(-rc));
}

static void JNICALL on_vm_death(jvmtiEnv *jvmti, JNIEnv *env)
{
	(void)jvmti;
	(void)env;
	agent_shutdown();
}

/* The live phase: the method table's worker starts and back-fills what is loaded. */
static void JNICALL on_vm_init(jvmtiEnv *jvmti, JNIEnv *env, jthread thread)
{
	(void)thread;
	if (agent_g.opt.methods)
		agent_interp_start(jvmti, env);
	if (agent_g.opt.jfr && agent_g.w)
		agent_jfr_start(jd_writer_path(agent_g.w));
}

static const char *jvmti_err(jvmtiEnv *jvmti, jvmtiError e)
{
	static char buf[64];
	char *name = NULL;

	if (jvmti && (*jvmti)->GetErrorName(jvmti, e, &name) == JVMTI_ERROR_NONE && name) {
		snprintf(buf, sizeof(buf), "%s", name);
		(*jvmti)->Deallocate(jvmti, (unsigned char *)name);
	} else {
		snprintf(buf, sizeof(buf), "JVMTI error %d", (int)e);
	}
	return buf;
}

static int enable(jvmtiEnv *jvmti, jvmtiEvent ev)
{
	jvmtiError e = (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, ev, NULL);

	if (e != JVMTI_ERROR_NONE) {
		agent_fail("cannot enable event %d: %s", (int)ev, jvmti_err(jvmti, e));
		return -1;
	}
	return 0;
}

static int setup_jvmti(JavaVM *vm)
{
	jvmtiCapabilities caps;
	jvmtiEventCallbacks cb;
	jvmtiEnv *jvmti = NULL;
	jvmtiError e;
	const struct agent_options *o = &agent_g.opt;

	if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK || !jvmti) {
		agent_fail("this JVM offers no JVMTI 1.2 environment");
		return -1;
	}
	agent_g.jvmti = jvmti;
	memset(&caps, 0, sizeof(caps));
	caps.can_generate_compiled_method_load_events = 1;
	if (o->lines || o->inline_stacks) {
		caps.can_get_line_numbers = 1;
		caps.can_get_source_file_name = 1;
	}
	e = (*jvmti)->AddCapabilities(jvmti, &caps);
	if (e != JVMTI_ERROR_NONE && (o->lines || o->inline_stacks)) {
		/* Names without lines beat no profile at all. */
		caps.can_get_line_numbers = caps.can_get_source_file_name = 0;
		e = (*jvmti)->AddCapabilities(jvmti, &caps);
		if (e == JVMTI_ERROR_NONE)
			agent_warn("no line numbers from this JVM; loads carry names only");
	}
	if (e != JVMTI_ERROR_NONE) {
		agent_fail("cannot get compiled-method events: %s", jvmti_err(jvmti, e));
		return -1;
	}
	memset(&cb, 0, sizeof(cb));
	cb.CompiledMethodLoad = agent_on_compiled_load;
	cb.CompiledMethodUnload = agent_on_compiled_unload;
	cb.DynamicCodeGenerated = agent_on_dynamic_code;
	cb.VMDeath = on_vm_death;
	cb.VMInit = on_vm_init;
	cb.ClassPrepare = agent_on_class_prepare;
	agent_samplers_add(jvmti, &cb);
	e = (*jvmti)->SetEventCallbacks(jvmti, &cb, (jint)sizeof(cb));
	if (e != JVMTI_ERROR_NONE) {
		agent_fail("cannot set callbacks: %s", jvmti_err(jvmti, e));
		return -1;
	}
	if (enable(jvmti, JVMTI_EVENT_COMPILED_METHOD_LOAD) || enable(jvmti, JVMTI_EVENT_VM_DEATH) ||
	    (o->unload && enable(jvmti, JVMTI_EVENT_COMPILED_METHOD_UNLOAD)) ||
	    (o->stubs && enable(jvmti, JVMTI_EVENT_DYNAMIC_CODE_GENERATED)))
		return -1;
	/* The method table starts in the live phase: VMInit, or now for an attach. */
	int methods = o->methods && !agent_interp_init(jvmti);
	if (!methods)
		agent_g.opt.methods = 0;	/* said once by agent_interp_init */
	if ((methods || o->jfr) && !agent_g.attached && enable(jvmti, JVMTI_EVENT_VM_INIT))
		return -1;
	agent_samplers_set(jvmti, JVMTI_ENABLE);
	return 0;
}

static int open_writer(void)
{
	struct jd_writer_opts wo = { .size = sizeof(wo) };
	char dir[4096], warn[4096 * 2 + 200];
	int rc, fd;

	rc = agent_dump_dir_open(agent_g.opt.dir, &fd, dir, sizeof(dir), warn, sizeof(warn));
	if (rc < 0) {
		agent_fail("cannot use %s as the dump directory (jit-%d.dump): %s", dir,
			   (int)getpid(), strerror(-rc));
		return -1;
	}
	if (warn[0])
		agent_warn("%s", warn);
	wo.clock = agent_g.opt.clock;
	rc = jd_writer_open_at(&agent_g.w, fd, dir, &wo);
	close(fd);
	if (rc < 0) {
		agent_g.w = NULL;
		agent_fail("cannot create %s/jit-%d.dump: %s", dir, (int)getpid(), strerror(-rc));
		return -1;
	}
	return 0;
}

/* Back-fills code that existed before we attached (Agent_OnAttach only). */
static void backfill(jvmtiEnv *jvmti)
{
	jvmtiError e;

	agent_backfilling = 1;
	e = (*jvmti)->GenerateEvents(jvmti, JVMTI_EVENT_COMPILED_METHOD_LOAD);
	if (e != JVMTI_ERROR_NONE)
		agent_warn("cannot back-fill compiled methods: %s", jvmti_err(jvmti, e));
	if (agent_g.opt.stubs) {
		e = (*jvmti)->GenerateEvents(jvmti, JVMTI_EVENT_DYNAMIC_CODE_GENERATED);
		if (e != JVMTI_ERROR_NONE)
			agent_warn("cannot back-fill stubs: %s", jvmti_err(jvmti, e));
	}
	agent_backfilling = 0;
}

/* Turns the code events off after a stop (HotSpot then stops paying for compile_info) or
 * back on for a restart; VMDeath stays on. */
static void set_code_events(jvmtiEventMode mode)
{
	static const jvmtiEvent evs[] = { JVMTI_EVENT_COMPILED_METHOD_LOAD,
		JVMTI_EVENT_COMPILED_METHOD_UNLOAD, JVMTI_EVENT_DYNAMIC_CODE_GENERATED };

	for (size_t i = 0; agent_g.jvmti && i < sizeof(evs) / sizeof(evs[0]); i++)
		(*agent_g.jvmti)->SetEventNotificationMode(agent_g.jvmti, mode, evs[i], NULL);
	if (agent_g.jvmti)
		agent_samplers_set(agent_g.jvmti, mode);
}

/* The "stop" command (jitprof profile's detach): the dump is finished and closed as at VM
 * death, so it is whole for the reader, and a later load starts a new one. */
static jint stop_command(const struct agent_options *o)
{
	char path[AGENT_DIR_MAX + 64];

	if (!agent_g.w || !atomic_load(&agent_g.active)) {
		agent_warn("stop: not writing a jitdump, nothing to stop");
		return JNI_OK;
	}
	snprintf(path, sizeof(path), "%s", jd_writer_path(agent_g.w));
	JNIEnv *env = NULL;
	if ((*agent_g.vm)->GetEnv(agent_g.vm, (void **)&env, JNI_VERSION_1_6) == JNI_OK)
		agent_jfr_stop(env);
	set_code_events(JVMTI_DISABLE);
	agent_shutdown();
	if (!o->quiet)
		agent_warn("stopped; %s is complete", path);
	return JNI_OK;
}

/* A load after an earlier one: a stopped (or failed) agent starts over with the new
 * options, a running one is left alone. 1 when start() should go on. */
static int load_again(const struct agent_options *o)
{
	if (agent_g.w && atomic_load(&agent_g.active)) {
		if (!o->quiet)
			agent_warn("already writing %s; this load changes nothing",
				   jd_writer_path(agent_g.w));
		return 0;
	}
	agent_shutdown();
	atomic_store(&agent_g.shut, 0);
	atomic_store(&agent_g.failed, 0);
	atomic_store(&agent_g.st.callback_ns, 0);
	atomic_store(&agent_g.st.records, 0);
	atomic_store(&agent_g.st.loads, 0);
	atomic_store(&agent_g.st.unloads, 0);
	atomic_store(&agent_g.st.dropped, 0);
	return 1;
}

static jint start(JavaVM *vm, const char *options, int attach)
{
	struct agent_options o;
	char err[512];
	int again = agent_g.vm != NULL;

	if (agent_options_parse(&o, options, err, sizeof(err))) {
		if (again) {
			agent_warn("%s; this load changes nothing", err);
		} else {
			agent_g.vm = vm;
			agent_fail("%s", err);
		}
		return JNI_OK;
	}
	if (o.stop)
		return stop_command(&o);
	if (again && !load_again(&o))
		return JNI_OK;
	agent_g.vm = vm;
	agent_g.attached = attach;
	agent_g.opt = o;
	if (!again && agent_tier_init() && agent_g.opt.verbose)
		agent_warn("no HotSpot VMStructs here: tiers are recorded as unknown");
	/* The writer first: without a file there is nothing to enable events for. */
	if (open_writer())
		return JNI_OK;
	atomic_store(&agent_g.active, 1);
	if (setup_jvmti(vm)) {
		atomic_store(&agent_g.active, 0);
		jd_writer_close(agent_g.w);
		agent_g.w = NULL;
		return JNI_OK;
	}
	/* Said even without verbose: a dump nobody knows about is a silent prerequisite. */
	if (!agent_g.opt.quiet)
		agent_warn("writing %s", jd_writer_path(agent_g.w));
	flusher_start();
	if (attach || again) {
		JNIEnv *env = NULL;
		backfill(agent_g.jvmti);
		if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_6) != JNI_OK)
			env = NULL;
		if (agent_g.opt.methods && env)
			agent_interp_start(agent_g.jvmti, env);
		if (agent_g.opt.jfr)
			agent_jfr_start(jd_writer_path(agent_g.w));
	}
	return JNI_OK;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
	(void)reserved;
	return start(vm, options, 0);
}

JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved)
{
	(void)reserved;
	return start(vm, options, 1);
}

JNIEXPORT void JNICALL Agent_OnUnload(JavaVM *vm)
{
	(void)vm;
	agent_shutdown();
	if (atomic_load(&agent_g.inflight) == 0) {
		agent_methods_free();
		agent_callbacks_free();
	}
}
