# Unit tests: every directory tests/unit/<m>/ becomes one Criterion binary build/tests/unit-<m>,
# linked with what module <m> declares in UNIT_LIBS_<m> (and UNIT_LDLIBS_<m>), archives in
# mk/deps.mk's order (each before what it uses: no --start-group hides a cycle).
UNIT_DIRS := $(notdir $(wildcard tests/unit/*))
UNIT_BINS := $(foreach m,$(UNIT_DIRS),$(BUILD)/tests/unit-$(m))

define unit_rule
$(BUILD)/tests/unit-$(1): $(call objs_of,$(wildcard tests/unit/$(1)/*.c tests/lib/*.c)) $$(UNIT_LIBS_$(1))
	@mkdir -p $$(@D)
	$$(CC) $$(ALL_LDFLAGS) -o $$@ $$^ $$(UNIT_LDLIBS_$(1)) -lcriterion -lpthread
endef
$(foreach m,$(UNIT_DIRS),$(eval $(call unit_rule,$(m))))

# End-to-end tests: every tests/e2e/<name>.c is its own Criterion binary; they drive the built
# commands (and perf, java, node where present) as a user would.
E2E_SRCS := $(wildcard tests/e2e/*.c)
E2E_NAMES := $(patsubst tests/e2e/%.c,%,$(E2E_SRCS))
E2E_BINS := $(foreach n,$(E2E_NAMES),$(BUILD)/tests/e2e-$(n))
# e2e binaries link libjitdump (so they can read dumps) plus E2E_LIBS_<name>/E2E_LDLIBS_<name>.
define e2e_rule
$(BUILD)/tests/e2e-$(1): $(BUILD)/obj/tests/e2e/$(1).o $(call objs_of,$(wildcard tests/lib/*.c)) $$(E2E_LIBS_$(1)) $(BUILD)/libjitdump.a
	@mkdir -p $$(@D)
	$$(CC) $$(ALL_LDFLAGS) -o $$@ $$^ $$(E2E_LDLIBS_$(1)) -lcriterion -lpthread
endef
$(foreach n,$(E2E_NAMES),$(eval $(call e2e_rule,$(n))))

unit: $(UNIT_BINS)
	@scripts/run-tests.sh $(UNIT_BINS)

e2e: $(E2E_BINS) real-all
	@JITPROF_BUILD=$(BUILD) scripts/run-tests.sh $(E2E_BINS)

# Run one module's unit tests: make unit-jitdump
unit-%: $(BUILD)/tests/unit-%
	@scripts/run-tests.sh $<
e2e-%: $(BUILD)/tests/e2e-% real-all
	@JITPROF_BUILD=$(BUILD) scripts/run-tests.sh $<
