# recorder/unwind: user stacks unwound through CFI (librecorder-unwind.a, built by
# recorder/module.mk). Its unit tests link only what it uses.
UNIT_LIBS_unwind := $(BUILD)/librecorder-unwind.a $(BUILD)/libjp.a $(BUILD)/libsafeio.a
UNIT_LDLIBS_unwind := -ldw -lelf
