# The jitdump benchmark's helper (bench/jitdump.sh runs it).
$(BUILD)/bench/jdbench: $(call objs_of,bench/jitdump/jdbench.c) $(BUILD)/libjitdump.a
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ -lpthread

BENCHES += $(BUILD)/bench/jdbench
