# safeio: file-system access on behalf of untrusted input (libsafeio.a, libc only). Everything
# that opens a path a recording, dump or archive names, or writes beside one, goes through it.
SAFEIO_SRCS := $(wildcard safeio/*.c)

$(BUILD)/libsafeio.a: $(call objs_of,$(SAFEIO_SRCS))
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

ALL_TARGETS += $(BUILD)/libsafeio.a
UNIT_LIBS_safeio := $(BUILD)/libsafeio.a
