/* agent_int.h - state shared by the agent's files (options, callbacks, method cache, tier
 * lookup, accounting). libagent.so exports only the Agent_* entry points. */
#ifndef JITPROF_AGENT_INT_H
#define JITPROF_AGENT_INT_H

#include <jvmti.h>
#include <stdatomic.h>
#include <stdint.h>

#include "agent/options.h"
#include "jitdump/jitdump.h"

struct agent_stats {
	atomic_uint_fast64_t callback_ns, records, loads, unloads, dropped;
};

struct agent {
	JavaVM *vm;
	jvmtiEnv *jvmti;
	struct agent_options opt;
	struct jd_writer *w;
	atomic_int active;	/* 1 while callbacks may write */
	atomic_int inflight;	/* callbacks currently inside the writer path */
	atomic_int failed;	/* one warning only */
	atomic_int shut;	/* agent_shutdown ran */
	int attached;		/* started by Agent_OnAttach */
	struct agent_stats st;
};

extern struct agent agent_g;

/* One line on stderr, "jitprof agent: ...". */
void agent_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A failure: warns once, then the agent stops writing (the JVM runs on). */
void agent_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Guards every callback: returns 0 when the agent is off (then do nothing). */
int agent_enter(void);
void agent_leave(uint64_t t0);
uint64_t agent_now_ns(void);

/* Set on the thread that runs GenerateEvents: loads seen there are back-filled. */
extern _Thread_local int agent_backfilling;

/* ---- callbacks.c ---- */
void JNICALL agent_on_compiled_load(jvmtiEnv *jvmti, jmethodID method, jint code_size,
				    const void *code_addr, jint map_length,
				    const jvmtiAddrLocationMap *map, const void *compile_info);
void JNICALL agent_on_compiled_unload(jvmtiEnv *jvmti, jmethodID method, const void *code_addr);
void JNICALL agent_on_dynamic_code(jvmtiEnv *jvmti, const char *name, const void *address,
				   jint length);
void agent_callbacks_free(void);

/* ---- methods.c: per-method cache (names, source file, sorted line table, load count) ---- */
struct agent_line {
	jlocation start;	/* first bci of the run */
	int32_t line;
};

struct agent_method {
	jmethodID id;
	char *name;		/* "Ljava/util/HashMap;get(Ljava/lang/Object;)Ljava/lang/Object;" */
	char *file;		/* "java/util/HashMap.java", "" unknown */
	struct agent_line *lines;	/* ascending start */
	uint32_t nr_lines;
	atomic_uint loads;	/* compiled loads seen: the generation counter */
	atomic_int sampled;	/* its JMETHOD record is written (jstack.c) */
	struct agent_method *next;	/* hash chain */
};

/* The cached entry for id, created on first use (JVMTI calls happen outside any lock of ours).
 * NULL only when out of memory. Entries live until agent_methods_free(). */
struct agent_method *agent_method_get(jvmtiEnv *jvmti, jmethodID id, int want_lines);
/* "Ljava/util/HashMap;" + "HashMap.java" -> "java/util/HashMap.java" (malloc'd, NULL: no
 * memory). */
char *agent_source_path(const char *csig, const char *srcfile);
/* Line of bci in m, 0 if unknown. */
int32_t agent_method_line(const struct agent_method *m, jlocation bci);
/* nth occurrence of a stub name (1, 2, ...). */
uint32_t agent_stub_generation(const char *name);
/* code address -> code_index of the live load there (for unloads). */
void agent_addr_put(uint64_t addr, uint64_t code_index);
uint64_t agent_addr_take(uint64_t addr);	/* 0 when unknown */
void agent_methods_free(void);

/* ---- tier.c: HotSpot's exported VMStructs ---- */
/* 0 if this JVM exports the VMStructs the lookup needs. */
int agent_tier_init(void);
struct agent_nmethod {
	int32_t level;		/* HotSpot comp level 0-4 */
	int32_t compile_id;	/* -1 when this JVM does not export it */
	int32_t osr_bci;	/* -1 for a normal (non-OSR) entry */
};
/* The nmethod whose code starts at code_addr with code_size bytes, read from the code cache;
 * -ENOENT when it cannot be read with certainty (everything is then unknown). */
int agent_tier_lookup(const void *code_addr, uint64_t code_size, struct agent_nmethod *out);
/* A VMStructs field's offset (a static one's address), a VMTypes size; -1 when absent or
 * when this JVM exports no tables. */
long agent_vm_field(const char *type, const char *name);
long agent_vm_type_size(const char *type);

/* ---- interp.c: the method table for interpreter frames (JD_EXT_METHOD, JD_EXT_VM) ---- */
/* At start (after the writer and JVMTI are set up): checks the JVM, enables ClassPrepare.
 * 0, or -ENOTSUP (said once) when the table cannot be made here. */
int agent_interp_init(jvmtiEnv *jvmti);
/* In the live phase (VMInit, or at once on attach): starts the worker and queues every
 * class loaded so far. */
void agent_interp_start(jvmtiEnv *jvmti, JNIEnv *jni);

/* jfr.c: the `jfr` option's Flight Recording of compiles and traps, beside the dump at
 * dump_path (jit-PID.dump -> jit-PID.jfr); started in the live phase, written at exit or
 * by agent_jfr_stop (which waits for the start). A JVM without the Flight Recorder: one
 * warning. */
void agent_jfr_start(const char *dump_path);
void agent_jfr_stop(JNIEnv *jni);
void JNICALL agent_on_class_prepare(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass klass);
void agent_interp_stop(void);

/* ---- jstack.c, alloc.c, lock.c: samples the JVM takes (alloc=, lock=) ---- */
/* The current thread's Java stack, kind, weight, size and klass's name as a SAMPLE record
 * (names of new methods first); 0 or the writer's negative errno. */
int agent_sample_write(jvmtiEnv *jvmti, jthread thread, uint32_t kind, uint64_t weight,
		       uint64_t size, jclass klass);
/* Before SetEventCallbacks: the capabilities and callbacks of the samplers the options ask
 * for; one a JVM refuses is said in one line and turned off (the others go on). */
void agent_samplers_add(jvmtiEnv *jvmti, jvmtiEventCallbacks *cb);
/* Their events on (with the heap sampling interval) or off. */
void agent_samplers_set(jvmtiEnv *jvmti, jvmtiEventMode mode);
void JNICALL agent_on_sampled_alloc(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread,
				    jobject object, jclass klass, jlong size);
void JNICALL agent_on_contended_enter(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread,
				      jobject object);
void JNICALL agent_on_contended_entered(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread,
					jobject object);

/* ---- stats.c ---- */
/* Writes the JD_EXT_AGENT_STATS record and, with verbose, one summary line on stderr. */
void agent_stats_finish(void);

#endif
