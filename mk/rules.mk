# Generic rules shared by every module: objects mirror the source tree under $(BUILD)/obj.

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(MODULE_CFLAGS) -MMD -MP -c -o $@ $<

# objs_of(sources) -> object paths
objs_of = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
# The soname of the installed development library lib$(1).so (what a dlopen of the version built
# against asks for: lib/dynload.h), or $(2) when it cannot be read.
soname_of = $(or $(shell objdump -p "$$($(CC) -print-file-name=lib$(1).so)" 2>/dev/null | \
	awk '/SONAME/ { print $$2 }'),$(2))

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
