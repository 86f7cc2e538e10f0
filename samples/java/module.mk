# samples/java: Java programs to profile, compiled with javac into $(BUILD)/java (package
# jitprof.samples): Generations (C1 -> C2 -> deopt -> recompile), Lines (one expensive line per
# method: ground truth for source lines), StartupHeavy (~20k generated methods with -Xbatch),
# SteadyState (fixed ordinary work), ForkJvm (a JVM that starts another, as build tools do),
# Waits (known shares of sleeping, monitor waits and computing: off-CPU and wall time),
# Inlined (calls through inlined methods and a vtable stub: stacks as the code was inlined).
JAVA_SAMPLE_SRCS := $(wildcard samples/java/*.java)
JAVAC ?= javac

$(BUILD)/java/.built: $(JAVA_SAMPLE_SRCS)
	@mkdir -p $(@D)
	$(JAVAC) -g -d $(BUILD)/java $(JAVA_SAMPLE_SRCS)
	@touch $@

ALL_TARGETS += $(BUILD)/java/.built
