# recorder/inject: `jitprof inject --jit` (librecorder-inject.a, built by recorder/module.mk).
# Its unit tests link only what inject itself uses, so other modules mid-edit do not stop them;
# symbols/ is in for ondemand.c (the --no-elfs ELFs a symbols session asks for) and, with
# unwind/, for stacks.c (the maps and CFI a dwarf recording's user stacks unwind through).
UNIT_LIBS_inject = $(BUILD)/librecorder-inject.a $(BUILD)/librecorder-unwind.a $(BUILD)/librecorder-symbols.a \
	$(BUILD)/librecorder-perfdata.a $(BUILD)/libsynth.a $(BUILD)/libjitdump.a $(BUILD)/libjp.a $(BUILD)/libsafeio.a
UNIT_LDLIBS_inject = $(RECORDER_LDLIBS)
