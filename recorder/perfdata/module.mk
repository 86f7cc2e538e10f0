# recorder/perfdata: the perf.data format library (librecorder-perfdata.a, built by
# recorder/module.mk). It links with libc alone (libzstd is dlopened when a file has COMPRESSED
# records); its unit tests add -lzstd to make such files.
UNIT_LIBS_perfdata := $(BUILD)/librecorder-perfdata.a $(BUILD)/libjp.a $(BUILD)/libsafeio.a
UNIT_LDLIBS_perfdata := -lzstd
