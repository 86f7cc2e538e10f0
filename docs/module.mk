# docs: man pages generated from the commands' --help texts (scripts/man.sh, help2man) and the
# bash completion (scripts/completion.bash); both installed by `make install`.
MAN_STAMP := $(BUILD)/man/.stamp
$(MAN_STAMP): $(BUILD)/jitprof scripts/man.sh
	scripts/man.sh $(BUILD)/jitprof $(BUILD)/man
	@touch $@

# Without help2man (make deps installs it) everything else still builds and installs; the
# man pages are then left out, and install says so.
HAVE_HELP2MAN := $(if $(shell command -v help2man 2>/dev/null),1,)
ifeq ($(HAVE_HELP2MAN),1)
ALL_TARGETS += $(MAN_STAMP)
endif

.PHONY: man install-docs
man: $(MAN_STAMP)

install: install-docs
install-docs: $(if $(HAVE_HELP2MAN),$(MAN_STAMP))
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 0644 scripts/completion.bash \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/jitprof
ifeq ($(HAVE_HELP2MAN),1)
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0644 $(BUILD)/man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
else
	@echo "install: help2man is not installed: man pages left out (apt-get install help2man)"
endif
