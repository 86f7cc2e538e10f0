# agent: the JVMTI agent libjitprof-agent.so (installed under that name of its own; the build
# tree keeps libagent.so as a link to it, the name the docs and earlier command lines use).
# libjitdump's PIC objects are linked in statically and hidden (exports.map), so the JVM sees
# only Agent_OnLoad/OnAttach/OnUnload.
# JDK headers: from the javac on PATH, else Debian's OpenJDK 17.
AGENT_JDK ?= $(or $(patsubst %/bin/javac,%,$(realpath $(shell command -v javac 2>/dev/null))),/usr/lib/jvm/java-17-openjdk-amd64)
AGENT_SRCS := $(wildcard agent/*.c)
AGENT_OBJS := $(call objs_of,$(AGENT_SRCS))

$(AGENT_OBJS): MODULE_CFLAGS := -I$(AGENT_JDK)/include -I$(AGENT_JDK)/include/linux

$(BUILD)/libjitprof-agent.so: $(AGENT_OBJS) $(BUILD)/libjitdump.a $(BUILD)/libsafeio.a \
		agent/exports.map
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -shared -Wl,-soname,libjitprof-agent.so \
		-Wl,--version-script=agent/exports.map -Wl,-z,defs -o $@ $(AGENT_OBJS) \
		$(BUILD)/libjitdump.a $(BUILD)/libsafeio.a -ldl -lpthread
$(BUILD)/libagent.so: $(BUILD)/libjitprof-agent.so
	ln -sf libjitprof-agent.so $@

ALL_TARGETS  += $(BUILD)/libjitprof-agent.so $(BUILD)/libagent.so
INSTALL_LIBS += $(BUILD)/libjitprof-agent.so

# Unit tests (tests/unit/agent): the option parser (as a fuzz target would link it), the
# descriptor-to-range rule, the dump directory's trust and the samplers against a fake JVMTI
# table (the agent's objects linked whole), all without a JVM.
UNIT_LIBS_agent := $(call objs_of,$(wildcard agent/*.c)) $(BUILD)/libjitdump.a $(BUILD)/libsafeio.a
UNIT_LDLIBS_agent := -ldl -lpthread
$(call objs_of,$(wildcard tests/unit/agent/*.c)): MODULE_CFLAGS := -I$(AGENT_JDK)/include \
	-I$(AGENT_JDK)/include/linux
