# libjitdump: the jitdump format, writer and reader. libc (and pthreads) only. Installed for
# other JITs: libjitdump.so.1 (SONAME, symbols versioned JITDUMP_1 by libjitdump.map),
# libjitdump.so -> libjitdump.so.1 for the linker, jitdump.h and jitdump.pc.
JITDUMP_SRCS := $(wildcard jitdump/*.c)
JITDUMP_OBJS := $(call objs_of,$(JITDUMP_SRCS))
JITDUMP_SOVERSION := 1
JITDUMP_VERSION := $(JITPROF_VERSION)

$(BUILD)/libjitdump.a: $(JITDUMP_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/libjitdump.so.$(JITDUMP_SOVERSION): $(JITDUMP_OBJS) jitdump/libjitdump.map
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -shared -Wl,-soname,libjitdump.so.$(JITDUMP_SOVERSION) \
		-Wl,--version-script=jitdump/libjitdump.map -Wl,-z,defs \
		-o $@ $(JITDUMP_OBJS) -lpthread

$(BUILD)/libjitdump.so: $(BUILD)/libjitdump.so.$(JITDUMP_SOVERSION)
	ln -sf libjitdump.so.$(JITDUMP_SOVERSION) $@

$(BUILD)/jitdump.pc: jitdump/jitdump.pc.in Makefile
	@mkdir -p $(@D)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(JITDUMP_VERSION)|' $< > $@

ALL_TARGETS  += $(BUILD)/libjitdump.a $(BUILD)/libjitdump.so $(BUILD)/jitdump.pc
INSTALL_LIBS += $(BUILD)/libjitdump.a $(BUILD)/libjitdump.so.$(JITDUMP_SOVERSION)
INSTALL_HDRS += jitdump/jitdump.h
UNIT_LIBS_jitdump := $(BUILD)/libjitdump.a
UNIT_LDLIBS_jitdump := -lpthread

# The linker's name and the pkg-config file, after the generic install has copied the rest.
.PHONY: install-jitdump
install: install-jitdump
# jitdump.pc is written for the PREFIX of the install, whatever PREFIX `make` had.
install-jitdump: $(BUILD)/libjitdump.so jitdump/jitdump.pc.in
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig
	ln -sf libjitdump.so.$(JITDUMP_SOVERSION) $(DESTDIR)$(PREFIX)/lib/libjitdump.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(JITDUMP_VERSION)|' \
		jitdump/jitdump.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/jitdump.pc
	chmod 0644 $(DESTDIR)$(PREFIX)/lib/pkgconfig/jitdump.pc
