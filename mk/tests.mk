# Unit tests: every directory tests/unit/<m>/ becomes one Criterion binary build/tests/unit-<m>,
# linked with what module <m> declares in UNIT_LIBS_<m> (and UNIT_LDLIBS_<m>).
UNIT_DIRS := $(notdir $(wildcard tests/unit/*))
UNIT_BINS := $(foreach m,$(UNIT_DIRS),$(BUILD)/tests/unit-$(m))

define unit_rule
$(BUILD)/tests/unit-$(1): $(call objs_of,$(wildcard tests/unit/$(1)/*.c tests/lib/*.c)) $$(UNIT_LIBS_$(1))
	@mkdir -p $$(@D)
	$$(CC) $$(ALL_LDFLAGS) -o $$@ -Wl,--start-group $$^ -Wl,--end-group $$(UNIT_LDLIBS_$(1)) -lcriterion -lpthread
endef
$(foreach m,$(UNIT_DIRS),$(eval $(call unit_rule,$(m))))

# End-to-end tests: every tests/e2e/<name>.c is its own Criterion binary; they drive the built
# commands (and perf, java, node where present) as a user would.
E2E_SRCS := $(wildcard tests/e2e/*.c)
E2E_BINS := $(patsubst tests/e2e/%.c,$(BUILD)/tests/e2e-%,$(E2E_SRCS))
$(BUILD)/tests/e2e-%: $(BUILD)/obj/tests/e2e/%.o $(call objs_of,$(wildcard tests/lib/*.c))
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ -lcriterion -lpthread

unit: $(UNIT_BINS)
	@scripts/run-tests.sh $(UNIT_BINS)

e2e: $(E2E_BINS) real-all
	@JITPROF_BUILD=$(BUILD) scripts/run-tests.sh $(E2E_BINS)

# Run one module's unit tests: make unit-jitdump
unit-%: $(BUILD)/tests/unit-%
	@scripts/run-tests.sh $<
e2e-%: $(BUILD)/tests/e2e-% real-all
	@JITPROF_BUILD=$(BUILD) scripts/run-tests.sh $<
