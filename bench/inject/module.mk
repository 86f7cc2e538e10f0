# bench/inject: inject-gen, the synthetic JIT run (jitdump + perf.data) that bench/inject.sh
# and the tests/e2e/inject_* tests feed to `jitprof inject` and `perf inject`.
$(BUILD)/inject-gen: $(call objs_of,bench/inject/gen.c) $(BUILD)/librecorder-perfdata.a \
		$(BUILD)/libjitdump.a $(BUILD)/libjp.a $(BUILD)/libsafeio.a
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ -lpthread

BENCHES += $(BUILD)/inject-gen
# The e2e tests use it too, and they depend on ALL_TARGETS.
ALL_TARGETS += $(BUILD)/inject-gen
