# recorder/jfr: the JDK Flight Recorder reader (librecorder-jfr.a, built by recorder/module.mk).
# Its e2e test reads recordings the JVM writes and compares with the JDK's own `jfr` tool.
E2E_LIBS_jfr_read := $(BUILD)/librecorder-jfr.a $(BUILD)/libjp.a $(BUILD)/libsafeio.a
UNIT_LIBS_jfr := $(BUILD)/librecorder-jfr.a $(BUILD)/libjp.a $(BUILD)/libsafeio.a
UNIT_LDLIBS_jfr := -lpthread
