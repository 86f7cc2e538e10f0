# docs: man pages generated from the commands' --help texts (scripts/man.sh, help2man) and the
# bash completion (scripts/completion.bash); both installed by `make install`.
MAN_STAMP := $(BUILD)/man/.stamp
$(MAN_STAMP): $(BUILD)/jitprof scripts/man.sh
	scripts/man.sh $(BUILD)/jitprof $(BUILD)/man
	@touch $@

ifneq ($(shell command -v help2man 2>/dev/null),)
ALL_TARGETS += $(MAN_STAMP)
endif

.PHONY: man install-docs
man: $(MAN_STAMP)

install: install-docs
install-docs: $(MAN_STAMP)
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 0644 $(BUILD)/man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 0644 scripts/completion.bash \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/jitprof
