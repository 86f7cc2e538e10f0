# jitprof, the command. Each subdirectory (perfdata/, symbols/, report/, ...) is its own archive
# librecorder-<sub>.a so its unit tests (tests/unit/<sub>/) link only what they test; the
# commands (recorder/cmd/*.c, one file per subcommand) and main.c make the binary.
RECORDER_SUBDIRS := $(filter-out cmd,$(notdir $(patsubst %/,%,$(sort $(dir $(wildcard recorder/*/*.c))))))
RECORDER_CMD_SRCS := $(wildcard recorder/cmd/*.c)
RECORDER_LDLIBS := -lelf -ldw -lzstd -liberty \
	-lprotobuf-c -lz -lpthread -lm
# capstone (--compare), libxml2 (--jvm-log) and libarchive (lib/archive_api.h) are loaded when
# first used (lib/dynload.h), not linked: each would cost every run milliseconds at start; so is
# libdebuginfod (recorder/symbols/find.c, when DEBUGINFOD_URLS asks for it).
$(call objs_of,recorder/report_views/compare.c): MODULE_CFLAGS := \
	-DJP_SONAME_CAPSTONE='"$(call soname_of,capstone,libcapstone.so.4)"'
# libxml2's headers live under their own directory (jvmlog.c's streaming reader).
$(call objs_of,recorder/report_analysis/jvmlog.c): MODULE_CFLAGS := $(shell pkg-config --cflags libxml-2.0 2>/dev/null || echo -I/usr/include/libxml2) \
	-DJP_SONAME_XML2='"$(call soname_of,xml2,libxml2.so.2)"'

# Link order from mk/deps.mk: every archive before the archives it uses, no --start-group, so
# a call against the documented direction fails the link instead of hiding in a group.
RECORDER_LINK_ORDER := $(filter-out cmd,$(foreach m,$(MODULES),$(if $(filter recorder/%,$(DIR_$(m))),$(notdir $(DIR_$(m))))))
$(if $(filter-out $(RECORDER_LINK_ORDER),$(RECORDER_SUBDIRS)),\
  $(error recorder/$(filter-out $(RECORDER_LINK_ORDER),$(RECORDER_SUBDIRS)) is not a module in mk/deps.mk))
# A module of headers only (recorder/report/, the report's face over its four parts) has no
# archive.
RECORDER_SUBLIBS := $(foreach s,$(filter $(RECORDER_SUBDIRS),$(RECORDER_LINK_ORDER)),$(BUILD)/librecorder-$(s).a)
# Everything a command may call, in link order.
RECORDER_LINK_LIBS := $(RECORDER_SUBLIBS) $(BUILD)/libsynth.a $(BUILD)/libjitdump.a $(BUILD)/libjp.a \
	$(BUILD)/libsafeio.a

define recorder_sublib
$(BUILD)/librecorder-$(1).a: $(call objs_of,$(wildcard recorder/$(1)/*.c))
	@mkdir -p $$(@D)
	rm -f $$@ && ar rcs $$@ $$^
UNIT_LIBS_$(1) ?= $(BUILD)/librecorder-cmd.a $(RECORDER_LINK_LIBS)
UNIT_LDLIBS_$(1) ?= $(RECORDER_LDLIBS)
endef
$(foreach s,$(RECORDER_SUBDIRS),$(eval $(call recorder_sublib,$(s))))

# The command files except main.c, as an archive for tests that call a command's pieces.
$(BUILD)/librecorder-cmd.a: $(call objs_of,$(filter-out recorder/cmd/main.c,$(RECORDER_CMD_SRCS)))
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/jitprof: $(call objs_of,$(RECORDER_CMD_SRCS)) $(RECORDER_LINK_LIBS)
	$(CC) $(ALL_LDFLAGS) -o $@ $(call objs_of,$(RECORDER_CMD_SRCS)) $(RECORDER_LINK_LIBS) $(RECORDER_LDLIBS)

ALL_TARGETS  += $(BUILD)/jitprof
INSTALL_BINS += $(BUILD)/jitprof

# tests/unit/cli: the shared command helpers alone.
# and which of report's options go together (cmd_report_check.c: no call into report/).
UNIT_LIBS_cli := $(BUILD)/obj/recorder/cmd/cli.o $(BUILD)/obj/recorder/cmd/cmd_report_check.o \
	$(BUILD)/libsafeio.a $(BUILD)/libjp.a
