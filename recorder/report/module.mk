# recorder/report: the report's presentation (librecorder-report.a, built by recorder/module.mk).
# Unit tests link only the archives report uses, so another module's work in progress cannot
# break them; the e2e tests drive the built `jitprof` and perf.
UNIT_LIBS_report := $(BUILD)/librecorder-report.a $(BUILD)/librecorder-inject.a \
	$(BUILD)/librecorder-symbols.a \
	$(BUILD)/librecorder-perfdata.a $(BUILD)/libsynth.a $(BUILD)/libjitdump.a $(BUILD)/libjp.a
