# recorder/perfdata: the perf.data format library (librecorder-perfdata.a, built by
# recorder/module.mk). Its unit tests link only this archive: it depends on libc alone.
UNIT_LIBS_perfdata := $(BUILD)/librecorder-perfdata.a
UNIT_LDLIBS_perfdata :=
