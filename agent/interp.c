/* interp.c - the method table that names HotSpot interpreter frames (docs/agent.md, "Method
 * table"): for every method with bytecodes of every prepared class, the Method* an
 * interpreter frame holds, where its bytecodes start and how many there are, its name, source
 * file and line table (JD_EXT_METHOD), and once the frame layout (JD_EXT_VM). Off the JVM's
 * hot path: ClassPrepare only queues a global reference; a daemon thread attached to the JVM
 * makes the JVMTI calls (class signature and source file once per class) and the writes, in
 * batches.
 *
 * The one assumption on HotSpot's internals beyond VMStructs: a jmethodID points at a slot
 * holding the Method* (JNIHandleBlock-style method handles, HotSpot since JDK 6 up to 25);
 * the slot is read while our global reference keeps the class loaded. The bytecodes follow
 * the ConstMethod (ConstMethod::code_base() is `this + 1`), whose size and _code_size come
 * from VMTypes / VMStructs. Anything missing there, another JVM or another JDK: said once, no
 * table, and the reader then decodes no frame. */
#include "agent/agent_int.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* JDK feature releases whose x86_64 frame_x86.hpp has interpreter_frame_method_offset -3
 * and interpreter_frame_bcp_offset -8 (17 and 25 are checked by e2e interp_names). */
#define JDK_MIN 17
#define JDK_MAX 25
#define METHOD_SLOT (-3)
#define BCP_SLOT (-8)
#define ACC_NATIVE 0x0100
#define ACC_ABSTRACT 0x0400

static struct {
	int ok;
	long const_method;	/* Method::_constMethod */
	long cm_size;		/* sizeof(ConstMethod): the bytecodes follow it */
	long code_size;		/* ConstMethod::_code_size (u2) */
	struct jd_ext_vm vm;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_cond_t idle;	/* the worker finished a batch (agent_interp_stop waits) */
	jobject *q;		/* global refs of classes to describe */
	size_t n, cap;
	int stop, running, busy;
	size_t left;		/* classes the worker left out once past the deadline */
	_Atomic uint64_t deadline;	/* agent_now_ns() at which describing stops; 0 none */
	pthread_t tid;
	struct jd_method_line *lines;	/* the describing thread's scratch: one at a time */
	size_t lines_cap;
} ip = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER,
	 .idle = PTHREAD_COND_INITIALIZER };

/* The JDK feature release (17, 25), 0 unknown; the VM's name into vmname. */
static int jdk_version(jvmtiEnv *jvmti, char *vmname, size_t len)
{
	char *v = NULL, *n = NULL;
	int ver = 0;

	if ((*jvmti)->GetSystemProperty(jvmti, "java.vm.name", &n) == JVMTI_ERROR_NONE && n)
		snprintf(vmname, len, "%s", n);
	/* Set in the OnLoad phase already, unlike java.specification.version: "17.0.9+9",
	 * "25+36-LTS". */
	if ((*jvmti)->GetSystemProperty(jvmti, "java.vm.version", &v) == JVMTI_ERROR_NONE && v)
		ver = atoi(v);
	if (n)
		(*jvmti)->Deallocate(jvmti, (unsigned char *)n);
	if (v)
		(*jvmti)->Deallocate(jvmti, (unsigned char *)v);
	return ver;
}

/* -XX:+PreserveFramePointer, from the JVMFlag table VMStructs exports; 0 when unreadable. */
static int preserve_fp(void)
{
	long flags = agent_vm_field("JVMFlag", "flags"), num = agent_vm_field("JVMFlag", "numFlags");
	long name = agent_vm_field("JVMFlag", "_name"), addr = agent_vm_field("JVMFlag", "_addr");
	long size = agent_vm_type_size("JVMFlag");

	if (flags <= 0 || num <= 0 || name < 0 || addr < 0 || size <= 0)
		return 0;
	const char *base = *(const char *const *)flags;
	size_t n = *(const size_t *)num;
	for (size_t i = 0; base && i < n && i < 100000; i++) {
		const char *f = base + i * (size_t)size;
		const char *nm = *(const char *const *)(f + name);
		const bool *val = *(const bool *const *)(f + addr);
		if (nm && val && !strcmp(nm, "PreserveFramePointer"))
			return *val;
	}
	return 0;
}

int agent_interp_init(jvmtiEnv *jvmti)
{
	char vmname[128] = "?";
	int ver = jdk_version(jvmti, vmname, sizeof(vmname));

	ip.const_method = agent_vm_field("Method", "_constMethod");
	ip.cm_size = agent_vm_type_size("ConstMethod");
	ip.code_size = agent_vm_field("ConstMethod", "_code_size");
#ifdef __x86_64__
	int arch = 1;
#else
	int arch = 0;
#endif
	if (!arch || (!strstr(vmname, "HotSpot") && !strstr(vmname, "OpenJDK")) ||
	    ver < JDK_MIN || ver > JDK_MAX || ip.const_method < 0 || ip.cm_size <= 0 ||
	    ip.code_size < 0) {
		if (!agent_g.opt.quiet)
			agent_warn("no method table: interpreter frames are decoded for HotSpot JDK "
				   "%d-%d on x86_64 only (this is %s, release %d%s)", JDK_MIN, JDK_MAX,
				   vmname, ver, ip.const_method < 0 || ip.cm_size <= 0 ?
				   ", without the VMStructs it needs" : "");
		return -ENOTSUP;
	}
	ip.vm = (struct jd_ext_vm){ .kind = JD_VM_HOTSPOT_X86_64, .version = (uint32_t)ver,
				    .flags = preserve_fp() ? JD_VM_PRESERVE_FP : 0,
				    .method_slot = METHOD_SLOT, .bcp_slot = BCP_SLOT };
	ip.ok = 1;
	return 0;
}

void JNICALL agent_on_class_prepare(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass klass)
{
	(void)jvmti;
	(void)thread;
	if (!ip.ok || !atomic_load(&agent_g.active))
		return;
	jobject g = (*jni)->NewGlobalRef(jni, klass);
	if (!g)
		return;
	pthread_mutex_lock(&ip.mu);
	if (ip.n == ip.cap) {
		size_t cap = ip.cap ? ip.cap * 2 : 256;
		void *q = realloc(ip.q, cap * sizeof(*ip.q));
		if (!q) {
			pthread_mutex_unlock(&ip.mu);
			(*jni)->DeleteGlobalRef(jni, g);
			atomic_fetch_add(&agent_g.st.dropped, 1);
			return;
		}
		ip.q = q;
		ip.cap = cap;
	}
	ip.q[ip.n++] = g;
	/* Woken per batch, not per class: start-up prepares thousands. */
	if (ip.n == 1)
		pthread_cond_signal(&ip.cv);
	pthread_mutex_unlock(&ip.mu);
}

static int cmp_line(const void *a, const void *b)
{
	const struct jd_method_line *x = a, *y = b;

	return x->bci < y->bci ? -1 : x->bci > y->bci;
}

/* id's line table into ip.lines, sorted; the number of rows (0: none or no memory). */
static uint32_t lines_of(jvmtiEnv *jvmti, jmethodID id)
{
	jvmtiLineNumberEntry *tab = NULL;
	jint n = 0;
	uint32_t k = 0;

	if ((*jvmti)->GetLineNumberTable(jvmti, id, &n, &tab) != JVMTI_ERROR_NONE || n <= 0)
		goto out;
	if ((size_t)n > ip.lines_cap) {
		void *p = realloc(ip.lines, (size_t)n * sizeof(*ip.lines));
		if (!p)
			goto out;
		ip.lines = p;
		ip.lines_cap = (size_t)n;
	}
	for (; k < (uint32_t)n; k++)
		ip.lines[k] = (struct jd_method_line){ (uint32_t)tab[k].start_location,
						       tab[k].line_number };
	qsort(ip.lines, k, sizeof(*ip.lines), cmp_line);
out:
	if (tab)
		(*jvmti)->Deallocate(jvmti, (unsigned char *)tab);
	return k;
}

/* One method's record (csig, file: its class's, asked once per class); abstract ones never
 * run. A native method has no bytecodes (size 0) but the same code base after its
 * ConstMethod: its interpreter frame holds bcp 0, or that address once its entry has called
 * the VM (which saves r13, set to it, into the bcp slot). Names as the compiled loads'
 * (agent_method_get): "Lpkg/Cls;name(sig)ret". */
static void put_method(jvmtiEnv *jvmti, jmethodID id, const char *csig, const char *file)
{
	jint mods = 0;
	char *mname = NULL, *msig = NULL, *name = NULL;

	if ((*jvmti)->GetMethodModifiers(jvmti, id, &mods) != JVMTI_ERROR_NONE ||
	    (mods & ACC_ABSTRACT))
		return;
	int native = (mods & ACC_NATIVE) != 0;
	uintptr_t method = *(const uintptr_t *)id;
	uintptr_t cm = method ? *(const uintptr_t *)(method + (uintptr_t)ip.const_method) : 0;
	uint16_t size = cm && !native ? *(const uint16_t *)(cm + (uintptr_t)ip.code_size) : 0;
	if (!cm || (!size && !native) ||
	    (*jvmti)->GetMethodName(jvmti, id, &mname, &msig, NULL) != JVMTI_ERROR_NONE ||
	    asprintf(&name, "%s%s%s", csig, mname ? mname : "?", msig ? msig : "") < 0)
		name = NULL;
	if (name) {
		struct jd_ext_method m = {
			.method = method, .code_addr = cm + (uintptr_t)ip.cm_size,
			.code_size = size, .nr_lines = native ? 0 : lines_of(jvmti, id),
			.lines = ip.lines, .name = name, .file = file,
		};
		int rc = jd_write_method(agent_g.w, &m, 0);
		if (rc < 0)
			agent_fail("cannot write %s: %s", jd_writer_path(agent_g.w),
				   strerror(-rc));
	}
	free(name);
	if (mname)
		(*jvmti)->Deallocate(jvmti, (unsigned char *)mname);
	if (msig)
		(*jvmti)->Deallocate(jvmti, (unsigned char *)msig);
}

static void describe_class(jvmtiEnv *jvmti, jclass k)
{
	jmethodID *ms = NULL;
	jint n = 0;
	char *csig = NULL, *src = NULL, *file = NULL;

	if ((*jvmti)->GetClassSignature(jvmti, k, &csig, NULL) != JVMTI_ERROR_NONE || !csig ||
	    (*jvmti)->GetClassMethods(jvmti, k, &n, &ms) != JVMTI_ERROR_NONE)
		goto out;
	if ((*jvmti)->GetSourceFileName(jvmti, k, &src) == JVMTI_ERROR_NONE && src)
		file = agent_source_path(csig, src);
	for (jint i = 0; i < n; i++)
		put_method(jvmti, ms[i], csig, file ? file : "");
out:
	free(file);
	if (ms)
		(*jvmti)->Deallocate(jvmti, (unsigned char *)ms);
	if (csig)
		(*jvmti)->Deallocate(jvmti, (unsigned char *)csig);
	if (src)
		(*jvmti)->Deallocate(jvmti, (unsigned char *)src);
}

/* The classes of batch described and their global refs deleted, on a thread the JVM knows;
 * those left once agent_now_ns() passes ip.deadline (set at the stop) only deleted. Returns
 * how many. */
static size_t describe_refs(JNIEnv *jni, jobject *batch, size_t n)
{
	size_t left = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t deadline = atomic_load(&ip.deadline);
		if (deadline && agent_now_ns() > deadline)
			left++;
		else if (agent_enter()) {
			uint64_t t0 = agent_now_ns();
			describe_class(agent_g.jvmti, batch[i]);
			agent_leave(t0);
		}
		(*jni)->DeleteGlobalRef(jni, batch[i]);
	}
	return left;
}

/* One batch, on this thread attached to the JVM for its length only: an attached thread
 * parked "in native" would hold the JVM's exit for 300 ms (VM_Exit waits for such threads). */
static size_t describe_batch(jobject *batch, size_t n)
{
	JavaVMAttachArgs aa = { JNI_VERSION_1_6, "jitprof-methods", NULL };
	JNIEnv *jni = NULL;

	if ((*agent_g.vm)->AttachCurrentThreadAsDaemon(agent_g.vm, (void **)&jni, &aa) != JNI_OK)
		return n;	/* the refs leak: a JVM that refuses a thread is on its way out */
	size_t left = describe_refs(jni, batch, n);
	(*agent_g.vm)->DetachCurrentThread(agent_g.vm);
	return left;
}

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&ip.mu);
	for (;;) {
		if (!ip.n || ip.stop) {
			pthread_cond_wait(&ip.cv, &ip.mu);
			continue;
		}
		size_t n = ip.n;
		jobject *batch = ip.q;
		ip.q = NULL;
		ip.n = ip.cap = 0;
		ip.busy = 1;
		pthread_mutex_unlock(&ip.mu);
		size_t left = describe_batch(batch, n);
		free(batch);
		pthread_mutex_lock(&ip.mu);
		ip.left += left;
		ip.busy = 0;
		pthread_cond_broadcast(&ip.idle);
	}
	return NULL;
}

void agent_interp_start(jvmtiEnv *jvmti, JNIEnv *jni)
{
	jclass *ks = NULL;
	jint n = 0;
	sigset_t all, old;

	if (!ip.ok)
		return;
	pthread_mutex_lock(&ip.mu);
	ip.stop = 0;
	pthread_mutex_unlock(&ip.mu);
	if (!ip.running) {
		/* The JVM's signals must never land on our thread. */
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		ip.running = pthread_create(&ip.tid, NULL, worker, NULL) == 0;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (!ip.running) {
			agent_warn("no method table: no thread for it");
			return;
		}
		pthread_setname_np(ip.tid, "jitprof-methods");
	}
	int rc = jd_write_vm(agent_g.w, &ip.vm);
	if (rc < 0)
		agent_fail("cannot write %s: %s", jd_writer_path(agent_g.w), strerror(-rc));
	if ((*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_PREPARE,
					       NULL) != JVMTI_ERROR_NONE)
		agent_warn("no method table for classes loaded from now on: no ClassPrepare");
	/* After enabling: a class prepared in between is queued twice, never missed. */
	if ((*jvmti)->GetLoadedClasses(jvmti, &n, &ks) != JVMTI_ERROR_NONE)
		return;
	for (jint i = 0; i < n; i++) {
		jint st = 0;
		if ((*jvmti)->GetClassStatus(jvmti, ks[i], &st) == JVMTI_ERROR_NONE &&
		    (st & JVMTI_CLASS_STATUS_PREPARED) && !(st & (JVMTI_CLASS_STATUS_ARRAY |
								  JVMTI_CLASS_STATUS_PRIMITIVE)))
			agent_on_class_prepare(jvmti, jni, NULL, ks[i]);
		(*jni)->DeleteLocalRef(jni, ks[i]);
	}
	(*jvmti)->Deallocate(jvmti, (unsigned char *)ks);
}

/* The worker is parked (detached from the JVM), never ended; a restart (a later attach)
 * wakes it. The classes it had not reached yet are described here, on the stopping thread
 * (VMDeath's, an attach's stop: the JVM's, JVMTI still answering): the worker lags the
 * JVM's class preparation, and what was still queued at the exit was dropped unsaid, the
 * frames of those classes left 'Interpreter' (javac on JDK 25: the classes System.exit loads
 * to log the exit; e2e agent_methods_exit). For STOP_BUDGET_NS at most: the exit waits no
 * longer; what is left is counted as dropped and said. A thread the JVM does not know
 * (Agent_OnUnload) leaves them: their refs go with the JVM. */
#define STOP_BUDGET_NS 200000000ull
void agent_interp_stop(void)
{
	JNIEnv *jni = NULL;
	struct timespec until;

	/* The worker ends its batch by the deadline (one class at a time: describing shares
	 * its scratch, so never two threads at once), then this thread takes the queue. */
	atomic_store(&ip.deadline, agent_now_ns() + STOP_BUDGET_NS);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)(STOP_BUDGET_NS / 1000000000ull) + 1;
	pthread_mutex_lock(&ip.mu);
	ip.stop = 1;
	while (ip.busy && pthread_cond_timedwait(&ip.idle, &ip.mu, &until) == 0)
		;
	int stuck = ip.busy;
	jobject *rest = ip.q;
	size_t n = ip.n, left = ip.left + n;
	ip.q = NULL;
	ip.n = ip.cap = 0;
	ip.left = 0;
	pthread_mutex_unlock(&ip.mu);
	if (n && !stuck && agent_g.vm && agent_g.w &&
	    (*agent_g.vm)->GetEnv(agent_g.vm, (void **)&jni, JNI_VERSION_1_6) == JNI_OK)
		left -= n - describe_refs(jni, rest, n);
	atomic_store(&ip.deadline, 0);
	if (left) {
		atomic_fetch_add(&agent_g.st.dropped, left);
		agent_warn("%zu classes prepared in the JVM's last moments are not in the method "
			   "table (%llu ms spent at the exit%s): their interpreted frames stay "
			   "unnamed", left, STOP_BUDGET_NS / 1000000,
			   stuck ? "; its worker thread did not finish" : "");
	}
	free(rest);
}
