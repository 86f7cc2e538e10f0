# bench/agent: the do-nothing JVMTI agent bench/agent.sh measures as HotSpot's own floor.
BENCH_NULL_AGENT_OBJS := $(call objs_of,bench/agent/null_agent.c)
$(BENCH_NULL_AGENT_OBJS): MODULE_CFLAGS := -I$(AGENT_JDK)/include -I$(AGENT_JDK)/include/linux

$(BUILD)/bench/libnullagent.so: $(BENCH_NULL_AGENT_OBJS)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -shared -o $@ $^

BENCHES += $(BUILD)/bench/libnullagent.so
