# lib: helpers several modules share and none owns (elfutils' lib/, libbpf's strset.h): the log
# and options conventions (header-only), the GNU build-id note reader, the libraries loaded on
# first use (dynload.c, archive_api.c). libjp.a; the libraries above it link it last.
LIB_SRCS := $(wildcard lib/*.c)
LIB_OBJS := $(call objs_of,$(LIB_SRCS))

$(BUILD)/libjp.a: $(LIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

ALL_TARGETS += $(BUILD)/libjp.a
UNIT_LIBS_lib := $(BUILD)/libjp.a $(BUILD)/libsafeio.a
UNIT_LDLIBS_lib := -lelf -ldw -lpthread
# libarchive is loaded on first use (archive_api.h), in the version built against.
$(call objs_of,lib/archive_api.c): MODULE_CFLAGS := \
	-DJP_SONAME_ARCHIVE='"$(call soname_of,archive,libarchive.so.13)"'
# libcrypto too (sha1.h): only the runs that hash a synthesized ELF or an origin need it.
$(call objs_of,lib/sha1.c): MODULE_CFLAGS := \
	-DJP_SONAME_CRYPTO='"$(call soname_of,crypto,libcrypto.so.3)"'
