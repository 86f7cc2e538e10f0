/* jfr.c - option `jfr`: a Flight Recording of the JVM's compilations and deoptimizations,
 * written beside the dump (jit-PID.jfr), so the report can say why each generation ended when
 * the JVM was not started with -XX:+LogCompilation (always the case after an attach). Only
 * jdk.Compilation (every compile: threshold 0), jdk.Deoptimization (without stack traces) and
 * jdk.JVMInformation (the pid, once a chunk) are enabled: the JVM's cost is one small event per compile and per uncommon trap, plus
 * JFR's start-up (its classes load on first use).
 *
 * Started through JNI with the jdk.jfr API (what `jcmd JFR.start` does for a user), in the
 * live phase (VMInit at launch, the attach itself on a running JVM), on a thread of its own. The recording has a
 * destination and dumpOnExit, so the JVM writes it when it exits; a `stop` writes it at once.
 * A JVM without the jdk.jfr module, or one that refuses, gets one warning and no recording:
 * the dump goes on. */
#include "agent/agent_int.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

/* JFR's start takes seconds (its classes, its generated code): a thread of ours does it, so
 * VMInit (the main thread) and an attach return at once. A stop waits for it. */
static struct {
	pthread_mutex_t mu;
	jobject recording;	/* a global reference while one runs */
	pthread_t tid;
	int starting;		/* tid is to be joined */
	char path[AGENT_DIR_MAX + 64];
} jf = { .mu = PTHREAD_MUTEX_INITIALIZER };

/* Clears a pending Java exception; 1 if there was one. */
static int thrown(JNIEnv *jni)
{
	if (!(*jni)->ExceptionCheck(jni))
		return 0;
	(*jni)->ExceptionClear(jni);
	return 1;
}

/* recording.enable(name), then settings on the EventSettings it returns. */
static int enable(JNIEnv *jni, jclass rc, jobject r, const char *name, int zero_threshold)
{
	jmethodID en = (*jni)->GetMethodID(jni, rc, "enable",
					   "(Ljava/lang/String;)Ljdk/jfr/EventSettings;");
	jstring s = en ? (*jni)->NewStringUTF(jni, name) : NULL;
	jobject es = s ? (*jni)->CallObjectMethod(jni, r, en, s) : NULL;
	if (thrown(jni) || !es)
		return -1;
	jclass esc = (*jni)->GetObjectClass(jni, es);
	jmethodID nost = (*jni)->GetMethodID(jni, esc, "withoutStackTrace",
					     "()Ljdk/jfr/EventSettings;");
	if (nost)
		(*jni)->CallObjectMethod(jni, es, nost);
	if (thrown(jni))
		return -1;
	if (zero_threshold) {
		jclass dc = (*jni)->FindClass(jni, "java/time/Duration");
		jfieldID zf = dc ? (*jni)->GetStaticFieldID(jni, dc, "ZERO", "Ljava/time/Duration;")
				 : NULL;
		jobject zero = zf ? (*jni)->GetStaticObjectField(jni, dc, zf) : NULL;
		jmethodID wt = (*jni)->GetMethodID(jni, esc, "withThreshold",
						   "(Ljava/time/Duration;)Ljdk/jfr/EventSettings;");
		if (!zero || !wt)
			return thrown(jni), -1;
		(*jni)->CallObjectMethod(jni, es, wt, zero);
	}
	return thrown(jni) ? -1 : 0;
}

/* java.nio.file.Paths.get(path) */
static jobject path_of(JNIEnv *jni, const char *path)
{
	jclass pc = (*jni)->FindClass(jni, "java/nio/file/Paths");
	jclass sc = (*jni)->FindClass(jni, "java/lang/String");
	jmethodID get = pc ? (*jni)->GetStaticMethodID(jni, pc, "get",
		"(Ljava/lang/String;[Ljava/lang/String;)Ljava/nio/file/Path;") : NULL;
	jstring s = get && sc ? (*jni)->NewStringUTF(jni, path) : NULL;
	jobjectArray none = s ? (*jni)->NewObjectArray(jni, 0, sc, NULL) : NULL;
	jobject p = none ? (*jni)->CallStaticObjectMethod(jni, pc, get, s, none) : NULL;
	return thrown(jni) ? NULL : p;
}

static int call_void(JNIEnv *jni, jclass rc, jobject r, const char *name, const char *sig,
		     jvalue *arg)
{
	jmethodID m = (*jni)->GetMethodID(jni, rc, name, sig);
	if (!m)
		return thrown(jni), -1;
	(*jni)->CallVoidMethodA(jni, r, m, arg);
	return thrown(jni) ? -1 : 0;
}

static void start_recording(JNIEnv *jni, const char *path)
{
	if ((*jni)->PushLocalFrame(jni, 32) != JNI_OK)
		return (void)thrown(jni);
	jclass rc = (*jni)->FindClass(jni, "jdk/jfr/Recording");
	jmethodID ctor = rc ? (*jni)->GetMethodID(jni, rc, "<init>", "()V") : NULL;
	jobject r = ctor ? (*jni)->NewObject(jni, rc, ctor) : NULL;
	const char *why = "this JVM has no Flight Recorder (the jdk.jfr module)";
	if (thrown(jni) || !r)
		goto fail;
	why = "the Flight Recorder refused the recording's settings";
	jvalue a[1];
	a[0].l = (*jni)->NewStringUTF(jni, "jitprof");
	/* JVMInformation (once a chunk) names the process the report joins it to */
	if (enable(jni, rc, r, "jdk.Compilation", 1) || enable(jni, rc, r, "jdk.Deoptimization", 0) ||
	    enable(jni, rc, r, "jdk.JVMInformation", 0) ||
	    call_void(jni, rc, r, "setName", "(Ljava/lang/String;)V", a))
		goto fail;
	why = "the Flight Recorder cannot write beside the dump";
	a[0].l = path_of(jni, path);
	if (!a[0].l || call_void(jni, rc, r, "setDestination", "(Ljava/nio/file/Path;)V", a))
		goto fail;
	a[0].z = JNI_TRUE;
	if (call_void(jni, rc, r, "setDumpOnExit", "(Z)V", a))
		goto fail;
	why = "the Flight Recorder did not start";
	if (call_void(jni, rc, r, "start", "()V", NULL))
		goto fail;
	pthread_mutex_lock(&jf.mu);
	jf.recording = (*jni)->NewGlobalRef(jni, r);
	pthread_mutex_unlock(&jf.mu);
	(*jni)->PopLocalFrame(jni, NULL);
	if (agent_g.opt.verbose)
		agent_warn("recording compilations and deoptimizations into %s", path);
	return;
fail:
	(*jni)->PopLocalFrame(jni, NULL);
	agent_warn("jfr: %s; generations will have no deoptimization reasons", why);
}

static void *starter(void *arg)
{
	JavaVMAttachArgs aa = { JNI_VERSION_1_6, "jitprof-jfr", NULL };
	JNIEnv *jni = NULL;
	(void)arg;
	if ((*agent_g.vm)->AttachCurrentThreadAsDaemon(agent_g.vm, (void **)&jni, &aa) != JNI_OK)
		return NULL;
	start_recording(jni, jf.path);
	(*agent_g.vm)->DetachCurrentThread(agent_g.vm);
	return NULL;
}

void agent_jfr_start(const char *dump_path)
{
	size_t n = strlen(dump_path);
	sigset_t all, old;

	/* jit-PID.dump -> jit-PID.jfr */
	if (jf.starting || jf.recording || n < 5 || strcmp(dump_path + n - 5, ".dump") ||
	    n + 1 > sizeof(jf.path))
		return;
	snprintf(jf.path, sizeof(jf.path), "%.*s.jfr", (int)(n - 5), dump_path);
	sigfillset(&all);	/* the JVM's signals must never land on our thread */
	pthread_sigmask(SIG_BLOCK, &all, &old);
	jf.starting = pthread_create(&jf.tid, NULL, starter, NULL) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!jf.starting)
		agent_warn("jfr: no thread to start the Flight Recorder on");
}

void agent_jfr_stop(JNIEnv *jni)
{
	if (jf.starting) {	/* a stop right after the start: the recording first */
		pthread_join(jf.tid, NULL);
		jf.starting = 0;
	}
	pthread_mutex_lock(&jf.mu);
	jobject recording = jf.recording;
	jf.recording = NULL;
	pthread_mutex_unlock(&jf.mu);
	if (!recording || !jni)
		return;
	if ((*jni)->PushLocalFrame(jni, 8) == JNI_OK) {
		jclass rc = (*jni)->GetObjectClass(jni, recording);
		/* stop() writes the destination; close() releases the recording */
		jmethodID stop = (*jni)->GetMethodID(jni, rc, "stop", "()Z");
		if (stop)
			(*jni)->CallBooleanMethod(jni, recording, stop);
		if (!thrown(jni))
			call_void(jni, rc, recording, "close", "()V", NULL);
		(*jni)->PopLocalFrame(jni, NULL);
	}
	thrown(jni);
	(*jni)->DeleteGlobalRef(jni, recording);
}
