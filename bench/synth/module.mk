# bench/synth.sh's helper: writes the 20k-load dump and times libsynth on it.
$(BUILD)/synth-bench: $(call objs_of,bench/synth/synth_bench.c) $(BUILD)/libsynth.a $(BUILD)/libjitdump.a \
	$(BUILD)/libsafeio.a $(BUILD)/libjp.a
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(SYNTH_LDLIBS) -lpthread

BENCHES += $(BUILD)/synth-bench
