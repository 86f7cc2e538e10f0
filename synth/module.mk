# libsynth: one ELF (with build-id, DWARF, unwind info) per code load. libelf; libcrypto is
# loaded on first use (lib/sha1.h).
SYNTH_SRCS := $(wildcard synth/*.c)
SYNTH_OBJS := $(call objs_of,$(SYNTH_SRCS))
SYNTH_LDLIBS := -lelf

$(BUILD)/libsynth.a: $(SYNTH_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

ALL_TARGETS += $(BUILD)/libsynth.a
UNIT_LIBS_synth := $(BUILD)/libsynth.a $(BUILD)/libjitdump.a $(BUILD)/libsafeio.a $(BUILD)/libjp.a
# -lcrypto: the tests recompute build-ids through EVP, apart from what synth loads.
UNIT_LDLIBS_synth := $(SYNTH_LDLIBS) -ldw -lcrypto

# End-to-end checks of the ELFs with external tools (tests/e2e/synth_*.c) rebuild every load
# with libsynth and read it back with libelf/libdw.
$(foreach n,synth_tools synth_perf,$(eval E2E_LIBS_$(n) := $$(BUILD)/libsynth.a $$(BUILD)/libsafeio.a $$(BUILD)/libjp.a))
$(foreach n,synth_tools synth_perf,$(eval E2E_LDLIBS_$(n) := $$(SYNTH_LDLIBS) -ldw))
