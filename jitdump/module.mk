# libjitdump: the jitdump format, writer and reader. libc (and pthreads) only.
JITDUMP_SRCS := $(wildcard jitdump/*.c)
JITDUMP_OBJS := $(call objs_of,$(JITDUMP_SRCS))

$(BUILD)/libjitdump.a: $(JITDUMP_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/libjitdump.so: $(JITDUMP_OBJS)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -shared -Wl,-soname,libjitdump.so -o $@ $^ -lpthread

ALL_TARGETS  += $(BUILD)/libjitdump.a $(BUILD)/libjitdump.so
INSTALL_LIBS += $(BUILD)/libjitdump.a $(BUILD)/libjitdump.so
INSTALL_HDRS += jitdump/jitdump.h
UNIT_LIBS_jitdump := $(BUILD)/libjitdump.a
UNIT_LDLIBS_jitdump := -lpthread
