# recorder/inject: `jitprof inject --jit` (librecorder-inject.a, built by recorder/module.mk).
# Its unit tests link only what inject itself uses, so other modules mid-edit do not stop them;
# origins/ for the --no-elfs origins section it writes and --elfs-for reads; symbols/, with
# unwind/, for stacks.c (the maps and CFI a dwarf recording's user stacks unwind through).
UNIT_LIBS_inject = $(BUILD)/librecorder-inject.a $(BUILD)/librecorder-origins.a $(BUILD)/librecorder-unwind.a $(BUILD)/librecorder-symbols.a \
	$(BUILD)/librecorder-perfdata.a $(BUILD)/libsynth.a $(BUILD)/libjitdump.a $(BUILD)/libjp.a $(BUILD)/libsafeio.a
UNIT_LDLIBS_inject = $(RECORDER_LDLIBS)
# e2e java_stacks reads inject's output in file order (its maps before their samples).
E2E_LIBS_java_stacks := $(BUILD)/librecorder-perfdata.a $(BUILD)/libjp.a $(BUILD)/libsafeio.a
