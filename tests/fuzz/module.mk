# tests/fuzz: libFuzzer targets are built by scripts/fuzz.sh (`make fuzz`) with clang, straight
# from sources. Their seeds and regression inputs are also replayed by an ordinary unit test,
# tests/unit/fuzzreg (one file per target), linked here with every library the targets read.
UNIT_LIBS_fuzzreg = $(REPORT_LIBS) $(BUILD)/librecorder-inject.a $(BUILD)/librecorder-origins.a \
	$(BUILD)/librecorder-unwind.a $(BUILD)/librecorder-symbols.a \
	$(BUILD)/librecorder-perfdata.a $(BUILD)/librecorder-jfr.a \
	$(BUILD)/libsynth.a $(BUILD)/libjitdump.a $(BUILD)/libjp.a $(BUILD)/libsafeio.a $(BUILD)/obj/agent/options.o
UNIT_LDLIBS_fuzzreg = -lelf -ldw -lcrypto -lzstd -liberty \
	-lprotobuf-c -lz -lm -lpthread

# Issue 8's fault tests (tests/e2e/faults_*.c) read perf.data files with our reader.
FAULTS_E2E := $(patsubst tests/e2e/%.c,%,$(wildcard tests/e2e/faults_*.c))
$(foreach n,$(FAULTS_E2E),$(eval E2E_LIBS_$(n) := $$(RECORDER_LINK_LIBS)))
$(foreach n,$(FAULTS_E2E),$(eval E2E_LDLIBS_$(n) := $$(RECORDER_LDLIBS)))
