# recorder/symbols: symbol resolution (librecorder-symbols.a, built by recorder/module.mk).
# Archives (`--archive`, sources added with sym_session_add_source) are read with libarchive,
# which recorder/module.mk's RECORDER_LDLIBS carries.

# e2e tests of this module drive `jitprof` and also call the library directly.
SYMBOLS_E2E := $(patsubst tests/e2e/%.c,%,$(wildcard tests/e2e/symbols_*.c))
$(foreach n,$(SYMBOLS_E2E),$(eval E2E_LIBS_$(n) := $$(RECORDER_LINK_LIBS)))
$(foreach n,$(SYMBOLS_E2E),$(eval E2E_LDLIBS_$(n) := $$(RECORDER_LDLIBS)))

# Our unit tests need only this archive (others may be mid-edit).
UNIT_LIBS_symbols := $(BUILD)/librecorder-symbols.a $(BUILD)/librecorder-perfdata.a \
	$(BUILD)/libjp.a
