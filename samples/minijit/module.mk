# minijit: a toy JIT writing jitdumps, the pipeline's test subject without a JVM.
MINIJIT_SRCS := $(wildcard samples/minijit/*.c)

# The line tables name toy.mjs by its absolute path, as a compiler names its sources.
$(BUILD)/obj/samples/minijit/minijit.o: MODULE_CFLAGS := -DMINIJIT_SOURCE='"$(abspath samples/minijit/toy.mjs)"'

$(BUILD)/minijit: $(call objs_of,$(MINIJIT_SRCS)) $(BUILD)/libjitdump.a
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ -lpthread

ALL_TARGETS += $(BUILD)/minijit
