# tests/faults: the allocation-failure shim (an LD_PRELOAD .so, never linked into anything) and
# the sweep script tests/e2e/faults_alloc.c runs with it. Built without sanitizers: it stands
# between the program and whichever allocator comes next (glibc's or ASan's).
FAILALLOC_SO := $(BUILD)/tests/libfailalloc.so
ALL_TARGETS += $(FAILALLOC_SO)

$(FAILALLOC_SO): tests/faults/failalloc.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(WARN) $(CFLAGS) -fPIC -shared -D_GNU_SOURCE -o $@ $< -ldl
