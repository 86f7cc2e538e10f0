# agent: the JVMTI agent libagent.so. libjitdump's PIC objects are linked in statically and
# hidden (exports.map), so the JVM sees only Agent_OnLoad/OnAttach/OnUnload.
# JDK headers: from the javac on PATH, else Debian's OpenJDK 17.
AGENT_JDK ?= $(or $(patsubst %/bin/javac,%,$(realpath $(shell command -v javac 2>/dev/null))),/usr/lib/jvm/java-17-openjdk-amd64)
AGENT_SRCS := $(wildcard agent/*.c)
AGENT_OBJS := $(call objs_of,$(AGENT_SRCS))

$(AGENT_OBJS): MODULE_CFLAGS := -I$(AGENT_JDK)/include -I$(AGENT_JDK)/include/linux

$(BUILD)/libagent.so: $(AGENT_OBJS) $(BUILD)/libjitdump.a $(BUILD)/libsafeio.a agent/exports.map
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -shared -Wl,-soname,libagent.so -Wl,--version-script=agent/exports.map \
		-Wl,-z,defs -o $@ $(AGENT_OBJS) $(BUILD)/libjitdump.a $(BUILD)/libsafeio.a -ldl -lpthread

ALL_TARGETS  += $(BUILD)/libagent.so
INSTALL_LIBS += $(BUILD)/libagent.so

# Unit tests (tests/unit/agent): the option parser (as a fuzz target would link it), the
# descriptor-to-range rule and the dump directory's trust, all without a JVM.
UNIT_LIBS_agent := $(BUILD)/obj/agent/options.o $(BUILD)/obj/agent/ranges.o \
	$(BUILD)/obj/agent/dumpdir.o $(BUILD)/libjitdump.a $(BUILD)/libsafeio.a
