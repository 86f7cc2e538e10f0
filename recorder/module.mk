# jitprof, the command. Each subdirectory (perfdata/, symbols/, report/, ...) is its own archive
# librecorder-<sub>.a so its unit tests (tests/unit/<sub>/) link only what they test; the
# commands (recorder/*.c, one file per subcommand) and main.c make the binary.
RECORDER_SUBDIRS := $(notdir $(patsubst %/,%,$(sort $(dir $(wildcard recorder/*/*.c)))))
RECORDER_CMD_SRCS := $(wildcard recorder/*.c)
RECORDER_LDLIBS := -lelf -ldw -lcrypto -lcapstone -ldebuginfod -larchive -lzstd -liberty -lxml2 \
	-lprotobuf-c -lz -lpthread -lm
# libxml2's headers live under their own directory (jvmlog.c's streaming reader).
$(call objs_of,recorder/report/jvmlog.c): MODULE_CFLAGS := $(shell pkg-config --cflags libxml-2.0 2>/dev/null || echo -I/usr/include/libxml2)

define recorder_sublib
$(BUILD)/librecorder-$(1).a: $(call objs_of,$(wildcard recorder/$(1)/*.c))
	@mkdir -p $$(@D)
	rm -f $$@ && ar rcs $$@ $$^
UNIT_LIBS_$(1) ?= $(BUILD)/librecorder-$(1).a $(BUILD)/librecorder-cmd.a $(RECORDER_SUBLIBS) $(BUILD)/libsynth.a $(BUILD)/libjitdump.a
UNIT_LDLIBS_$(1) ?= $(RECORDER_LDLIBS)
endef
RECORDER_SUBLIBS := $(foreach s,$(RECORDER_SUBDIRS),$(BUILD)/librecorder-$(s).a)
$(foreach s,$(RECORDER_SUBDIRS),$(eval $(call recorder_sublib,$(s))))

# The command files except main.c, as an archive for tests that call a command's pieces.
$(BUILD)/librecorder-cmd.a: $(call objs_of,$(filter-out recorder/main.c,$(RECORDER_CMD_SRCS)))
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

# Sub-archives may call each other (report uses symbols, symbols uses perfdata): group them.
$(BUILD)/jitprof: $(call objs_of,$(RECORDER_CMD_SRCS)) $(RECORDER_SUBLIBS) $(BUILD)/libsynth.a $(BUILD)/libjitdump.a
	$(CC) $(ALL_LDFLAGS) -o $@ $(call objs_of,$(RECORDER_CMD_SRCS)) -Wl,--start-group $(RECORDER_SUBLIBS) $(BUILD)/libsynth.a -Wl,--end-group $(BUILD)/libjitdump.a $(RECORDER_LDLIBS)

ALL_TARGETS  += $(BUILD)/jitprof
INSTALL_BINS += $(BUILD)/jitprof

# tests/unit/cli: the shared command helpers alone.
UNIT_LIBS_cli := $(BUILD)/obj/recorder/cli.o
