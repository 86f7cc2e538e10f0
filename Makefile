# jitprof: one GNU Makefile for the whole tree. Each module describes its own targets in
# <module>/module.mk; this file holds the shared flags, the generic rules and the top targets.

# The one version of everything built here: `jitprof --version`, jitdump.pc, the man pages.
JITPROF_VERSION := 1.0.0

CC       ?= cc
PREFIX   ?= /usr/local
DESTDIR  ?=
SANITIZE ?= 0

# Sanitized builds live apart so a plain `make` never links against ASan objects.
ifeq ($(SANITIZE),1)
BUILD    ?= build/san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
else
BUILD    ?= build
SANFLAGS :=
endif

WARN     := -Wall -Wextra -Werror
CFLAGS   ?= -O2 -g
ALL_CFLAGS = -std=gnu11 $(WARN) $(CFLAGS) -fPIC -D_GNU_SOURCE -I. $(SANFLAGS) \
	-DJITPROF_VERSION='"$(JITPROF_VERSION)"'
ALL_LDFLAGS = $(LDFLAGS) $(SANFLAGS)

# Filled in by the module fragments.
ALL_TARGETS  :=
UNIT_TESTS   :=
E2E_TESTS    :=
BENCHES      :=
FUZZERS      :=
INSTALL_BINS :=
INSTALL_LIBS :=
INSTALL_HDRS :=

.PHONY: all check check-deps demo bench fuzz install clean deps unit e2e
all: real-all

include mk/rules.mk
include mk/deps.mk
include $(sort $(wildcard */module.mk */*/module.mk))
include mk/tests.mk

real-all: $(ALL_TARGETS)

deps:
	@scripts/deps.sh

# The #includes, the calls between the built objects (so it builds first) and
# docs/ARCHITECTURE.md's table against mk/deps.mk's module direction.
check-deps: real-all
	@BUILD=$(BUILD) scripts/check-deps.sh

# check = set-up, dependency direction, build, every test. Unit tests first: they are fast
# and pinpoint. Everything is built CHECK_JOBS at a time (the test binaries too; check-deps,
# one serial script, runs once the tree is built, beside the test binaries' compiles); the
# test binaries then run two at a time, each running its tests one at a time (RUN_JOBS and
# TEST_JOBS: scripts/run-tests.sh).
CHECK_JOBS ?= 2
check: deps
	@$(MAKE) --no-print-directory -j$(CHECK_JOBS) check-deps all $(UNIT_BINS) $(E2E_BINS)
	@$(MAKE) --no-print-directory unit e2e

demo: deps
	@$(MAKE) --no-print-directory all
	@scripts/demo.sh $(BUILD)

bench: deps
	@$(MAKE) --no-print-directory all $(BENCHES)
	@scripts/bench.sh $(BUILD)

fuzz:
	@scripts/fuzz.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/jitprof
	$(if $(INSTALL_BINS),install -m 0755 $(INSTALL_BINS) $(DESTDIR)$(PREFIX)/bin/)
	$(if $(INSTALL_LIBS),install -m 0644 $(INSTALL_LIBS) $(DESTDIR)$(PREFIX)/lib/)
	$(if $(INSTALL_HDRS),install -m 0644 $(INSTALL_HDRS) $(DESTDIR)$(PREFIX)/include/jitprof/)

clean:
	rm -rf build
