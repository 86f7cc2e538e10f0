# jitprof, the command: perf.data library, record, inject, report, symbols. Every .c under
# recorder/ belongs to it; main.c only dispatches (commands.h lists the subcommands).
RECORDER_SRCS := $(wildcard recorder/*.c recorder/*/*.c)
RECORDER_LIB_SRCS := $(filter-out recorder/main.c,$(RECORDER_SRCS))
RECORDER_OBJS := $(call objs_of,$(RECORDER_SRCS))
RECORDER_LDLIBS := -lelf -ldw -lcrypto -lcapstone -ldebuginfod -lzstd -lpthread -lm

# Everything but main.c as an archive, so unit tests link the pieces they test.
$(BUILD)/librecorder.a: $(call objs_of,$(RECORDER_LIB_SRCS))
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/jitprof: $(BUILD)/obj/recorder/main.o $(BUILD)/librecorder.a $(BUILD)/libsynth.a $(BUILD)/libjitdump.a
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(RECORDER_LDLIBS)

ALL_TARGETS  += $(BUILD)/jitprof
INSTALL_BINS += $(BUILD)/jitprof
UNIT_LIBS_recorder := $(BUILD)/librecorder.a $(BUILD)/libsynth.a $(BUILD)/libjitdump.a
UNIT_LDLIBS_recorder := $(RECORDER_LDLIBS)
