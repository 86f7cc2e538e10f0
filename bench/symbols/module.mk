# bench/symbols: bench-symbols, sample resolution alone (recorder/symbols), for bench/symbols.sh.
$(BUILD)/bench-symbols: $(call objs_of,bench/symbols/resolve.c) $(BUILD)/librecorder-symbols.a \
		$(BUILD)/librecorder-perfdata.a $(BUILD)/libjitdump.a $(BUILD)/libjp.a
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(RECORDER_LDLIBS)

BENCHES += $(BUILD)/bench-symbols
