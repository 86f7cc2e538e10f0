# Generic rules shared by every module: objects mirror the source tree under $(BUILD)/obj.

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(MODULE_CFLAGS) -MMD -MP -c -o $@ $<

# objs_of(sources) -> object paths
objs_of = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
