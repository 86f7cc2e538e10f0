# recorder/record: the `jitprof record` engine (librecorder-record.a, built by recorder/module.mk).
# Its e2e tests read recordings with the perfdata library directly.
E2E_LIBS_record_perf := $(BUILD)/librecorder-perfdata.a $(BUILD)/libjp.a $(BUILD)/libsafeio.a
E2E_LIBS_record_read := $(BUILD)/librecorder-perfdata.a $(BUILD)/libjp.a $(BUILD)/libsafeio.a
E2E_LIBS_record_ctl := $(BUILD)/librecorder-perfdata.a $(BUILD)/libjp.a $(BUILD)/libsafeio.a
# Unit tests link the record and perfdata archives and cli.o only, not every command.
UNIT_LIBS_record := $(BUILD)/librecorder-record.a $(BUILD)/librecorder-perfdata.a $(BUILD)/libjp.a $(BUILD)/libsafeio.a
UNIT_LDLIBS_record := -lelf -ldw -lpthread
