# recorder/report: the report's face (report.h) over report_views, report_analysis,
# report_ingest and report_model (librecorder-report_*.a, built by recorder/module.mk), and the
# one table of output formats (formats.c, librecorder-report.a). The unit tests of all five
# (tests/unit/report/) link only the archives report uses, and `jitprof report`'s own command
# files (test_formats.c asks its option table), so another module's work in progress cannot
# break them; the e2e tests drive the built `jitprof` and perf.
REPORT_LIBS := $(if $(wildcard recorder/report/*.c),$(BUILD)/librecorder-report.a) \
	$(BUILD)/librecorder-report_views.a \
	$(BUILD)/librecorder-report_analysis.a $(BUILD)/librecorder-report_ingest.a \
	$(BUILD)/librecorder-report_model.a
UNIT_LDLIBS_report := $(RECORDER_LDLIBS)
REPORT_CMD_OBJS := $(call objs_of,recorder/cmd/cli.c $(wildcard recorder/cmd/cmd_report*.c))
UNIT_LIBS_report := $(REPORT_CMD_OBJS) $(REPORT_LIBS) $(BUILD)/librecorder-origins.a \
	$(BUILD)/librecorder-unwind.a $(BUILD)/librecorder-symbols.a \
	$(BUILD)/librecorder-perfdata.a $(BUILD)/librecorder-jfr.a $(BUILD)/libsynth.a $(BUILD)/libjitdump.a $(BUILD)/libjp.a $(BUILD)/libsafeio.a
# test_jvmlog_jfr.c builds its recordings with the JFR reader tests' byte helpers (bb_*)
UNIT_LIBS_report += $(BUILD)/obj/tests/unit/jfr/build_chunk.o

# The HTML report's JS and CSS are files of their own (recorder/report_views/html/), turned into C
# arrays at build time with od (coreutils: no xxd needed) and linked into the views archive. The
# JS is report_data.js then report.js, one script (the first opens the function the second
# closes).
RP_HTML_JS := recorder/report_views/html/report_data.js recorder/report_views/html/report.js
RP_HTML_ASSETS := $(RP_HTML_JS) recorder/report_views/html/report.css
$(BUILD)/gen/recorder/report_views/html_assets.c: $(RP_HTML_ASSETS) recorder/report/module.mk
	@mkdir -p $(@D)
	{ printf 'const char rp_html_js[] = {\n'; \
	  cat $(RP_HTML_JS) | od -An -v -tx1 | sed 's/ \([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  printf '0 };\nconst char rp_html_css[] = {\n'; \
	  od -An -v -tx1 recorder/report_views/html/report.css | sed 's/ \([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  printf '0 };\n'; } > $@.tmp && mv $@.tmp $@
$(BUILD)/obj/gen/recorder/report_views/html_assets.o: $(BUILD)/gen/recorder/report_views/html_assets.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<
$(BUILD)/librecorder-report_views.a: $(BUILD)/obj/gen/recorder/report_views/html_assets.o

# pprof's profile.proto (vendored with its licence in recorder/report_views/pprof/) -> C by protoc-c.
RP_PB_DIR := $(BUILD)/gen/recorder/report_views/pprof
$(RP_PB_DIR)/profile.pb-c.c $(RP_PB_DIR)/profile.pb-c.h: recorder/report_views/pprof/profile.proto
	@mkdir -p $(RP_PB_DIR)
	protoc-c --c_out=$(RP_PB_DIR) --proto_path=recorder/report_views/pprof profile.proto
$(BUILD)/obj/gen/recorder/report_views/pprof/profile.pb-c.o: $(RP_PB_DIR)/profile.pb-c.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -I$(RP_PB_DIR) -c -o $@ $<
$(BUILD)/obj/recorder/report_views/pprof.o: MODULE_CFLAGS += -I$(RP_PB_DIR)
$(BUILD)/obj/recorder/report_views/pprof.o: $(RP_PB_DIR)/profile.pb-c.h
$(BUILD)/librecorder-report_views.a: $(BUILD)/obj/gen/recorder/report_views/pprof/profile.pb-c.o
$(BUILD)/obj/tests/unit/report/test_pprof.o: MODULE_CFLAGS += -I$(RP_PB_DIR)
$(BUILD)/obj/tests/unit/report/test_pprof.o: $(RP_PB_DIR)/profile.pb-c.h
# scripts/fuzz.sh compiles fuzz_report from sources, the generated ones (under build/) included.
fuzz: $(BUILD)/gen/recorder/report_views/html_assets.c $(RP_PB_DIR)/profile.pb-c.c
