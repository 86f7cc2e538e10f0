/* null_agent.c - bench/agent.sh's floor: a JVMTI agent that enables the same events as
 * libagent.so (CompiledMethodLoad, DynamicCodeGenerated) and does nothing in them. What it costs
 * is what HotSpot spends producing the events; libagent.so's own cost is the difference. */
#include <jvmti.h>
#include <string.h>

static void JNICALL on_load(jvmtiEnv *jvmti, jmethodID method, jint code_size,
			    const void *code_addr, jint map_length,
			    const jvmtiAddrLocationMap *map, const void *compile_info)
{
	(void)jvmti, (void)method, (void)code_size, (void)code_addr;
	(void)map_length, (void)map, (void)compile_info;
}

static void JNICALL on_stub(jvmtiEnv *jvmti, const char *name, const void *address, jint length)
{
	(void)jvmti, (void)name, (void)address, (void)length;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
	jvmtiCapabilities caps;
	jvmtiEventCallbacks cb;
	jvmtiEnv *jvmti;

	(void)options, (void)reserved;
	if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK)
		return JNI_OK;
	memset(&caps, 0, sizeof(caps));
	caps.can_generate_compiled_method_load_events = 1;
	memset(&cb, 0, sizeof(cb));
	cb.CompiledMethodLoad = on_load;
	cb.DynamicCodeGenerated = on_stub;
	if ((*jvmti)->AddCapabilities(jvmti, &caps) == JVMTI_ERROR_NONE &&
	    (*jvmti)->SetEventCallbacks(jvmti, &cb, (jint)sizeof(cb)) == JVMTI_ERROR_NONE) {
		(*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE,
						   JVMTI_EVENT_COMPILED_METHOD_LOAD, NULL);
		(*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE,
						   JVMTI_EVENT_DYNAMIC_CODE_GENERATED, NULL);
	}
	return JNI_OK;
}
