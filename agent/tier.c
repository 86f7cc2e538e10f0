/* tier.c - which HotSpot tier compiled a method, read (never guessed) from the code cache
 * through the VMStructs tables libjvm.so exports for its serviceability agent
 * (gHotSpotVMStructs, gHotSpotVMTypes). From the code address we walk CodeHeap's segment map
 * to the block start, as CodeHeap::find_block_for does, and accept the nmethod found there only
 * if its code begin AND size equal what JVMTI reported; then _comp_level, _entry_bci (OSR)
 * and _compile_id are read. Anything missing or inconsistent -> -ENOENT and the tier stays unknown. */
#include "agent/agent_int.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdbool.h>
#include <string.h>

#define INVOCATION_ENTRY_BCI (-1)	/* HotSpot's marker for a normal (non-OSR) entry */
#define SEGMAP_FREE 0xFF

static struct {
	int ok;
	uintptr_t heaps;	/* &CodeCache::_heaps */
	long ga_len, ga_data;
	long heap_memory, heap_segmap, heap_log2;
	long vs_low, vs_high;
	long hb_size, hb_used;
	long code_begin, code_end;	/* JDK <= 22: address fields */
	long code_offset, data_offset;	/* JDK >= 23: int offsets from the blob */
	long stub_offset, comp_level, entry_bci;
	long compile_id;	/* -1: this JVM does not export nmethod::_compile_id */
	long comp_level_size;
} vm;

static void *jvm_handle;

static int find_libjvm(struct dl_phdr_info *info, size_t size, void *data)
{
	const char *n = info->dlpi_name, *b;

	(void)size;
	if (!n || !(b = strrchr(n, '/')) || strcmp(b, "/libjvm.so") != 0)
		return 0;
	*(void **)data = dlopen(n, RTLD_LAZY | RTLD_NOLOAD);
	return 1;
}

/* An exported libjvm variable: global scope first, else libjvm.so itself. */
static void *sym(const char *name)
{
	void *p = dlsym(RTLD_DEFAULT, name);

	if (p)
		return p;
	if (!jvm_handle)
		dl_iterate_phdr(find_libjvm, &jvm_handle);
	return jvm_handle ? dlsym(jvm_handle, name) : NULL;
}

static int read_u64_sym(const char *name, uint64_t *out)
{
	uint64_t *p = sym(name);

	if (!p)
		return -1;
	*out = *p;
	return 0;
}

struct table {
	const char *base;
	uint64_t stride, type, field, offset, address, is_static, type_string, size;
};

static int open_table(struct table *t, const char *arr, const char *stride, const char *type,
		      const char *field, const char *off, const char *addr, const char *stat,
		      const char *tstr, const char *size)
{
	const char **base = sym(arr);

	memset(t, 0, sizeof(*t));
	if (!base || !*base || read_u64_sym(stride, &t->stride) || read_u64_sym(type, &t->type))
		return -1;
	t->base = *base;
	if (field && (read_u64_sym(field, &t->field) || read_u64_sym(off, &t->offset) ||
		      read_u64_sym(addr, &t->address) || read_u64_sym(stat, &t->is_static) ||
		      read_u64_sym(tstr, &t->type_string)))
		return -1;
	if (size && read_u64_sym(size, &t->size))
		return -1;
	return t->stride ? 0 : -1;
}

static const char *str_at(const char *e, uint64_t off)
{
	return *(const char *const *)(e + off);
}

/* Field offset (or static address), -1 when absent; its type name into *tname if asked. */
static long field(const struct table *t, const char *type, const char *name, const char **tname)
{
	for (const char *e = t->base; str_at(e, t->type); e += t->stride) {
		const char *f = str_at(e, t->field);

		if (!f || strcmp(str_at(e, t->type), type) || strcmp(f, name))
			continue;
		if (tname)
			*tname = str_at(e, t->type_string);
		if (*(const int32_t *)(e + t->is_static))
			return (long)*(const uintptr_t *)(e + t->address);
		return (long)*(const uint64_t *)(e + t->offset);
	}
	return -1;
}

static long type_size(const struct table *t, const char *type)
{
	if (!type)
		return -1;
	for (const char *e = t->base; str_at(e, t->type); e += t->stride)
		if (strcmp(str_at(e, t->type), type) == 0)
			return (long)*(const uint64_t *)(e + t->size);
	return -1;
}

/* The two tables, opened once by agent_tier_init for every lookup of the agent. */
static struct table s, t;
static int tables_ok;

long agent_vm_field(const char *type, const char *name)
{
	return tables_ok ? field(&s, type, name, NULL) : -1;
}

long agent_vm_type_size(const char *type)
{
	return tables_ok ? type_size(&t, type) : -1;
}

int agent_tier_init(void)
{
	const char *lvl_type = NULL;
	long hb_header, hdr_used;

	if (open_table(&s, "gHotSpotVMStructs", "gHotSpotVMStructEntryArrayStride",
		       "gHotSpotVMStructEntryTypeNameOffset", "gHotSpotVMStructEntryFieldNameOffset",
		       "gHotSpotVMStructEntryOffsetOffset", "gHotSpotVMStructEntryAddressOffset",
		       "gHotSpotVMStructEntryIsStaticOffset", "gHotSpotVMStructEntryTypeStringOffset",
		       NULL) ||
	    open_table(&t, "gHotSpotVMTypes", "gHotSpotVMTypeEntryArrayStride",
		       "gHotSpotVMTypeEntryTypeNameOffset", NULL, NULL, NULL, NULL, NULL,
		       "gHotSpotVMTypeEntrySizeOffset"))
		return -ENOENT;
	tables_ok = 1;
	vm.heaps = (uintptr_t)field(&s, "CodeCache", "_heaps", NULL);
	vm.ga_len = field(&s, "GrowableArrayBase", "_len", NULL);
	vm.ga_data = field(&s, "GrowableArray<int>", "_data", NULL);
	vm.heap_memory = field(&s, "CodeHeap", "_memory", NULL);
	vm.heap_segmap = field(&s, "CodeHeap", "_segmap", NULL);
	vm.heap_log2 = field(&s, "CodeHeap", "_log2_segment_size", NULL);
	vm.vs_low = field(&s, "VirtualSpace", "_low", NULL);
	vm.vs_high = field(&s, "VirtualSpace", "_high", NULL);
	vm.hb_size = type_size(&t, "HeapBlock");
	hb_header = field(&s, "HeapBlock", "_header", NULL);
	hdr_used = field(&s, "HeapBlock::Header", "_used", NULL);
	vm.hb_used = hb_header < 0 || hdr_used < 0 ? -1 : hb_header + hdr_used;
	vm.code_begin = field(&s, "CodeBlob", "_code_begin", NULL);
	vm.code_end = field(&s, "CodeBlob", "_code_end", NULL);
	vm.code_offset = field(&s, "CodeBlob", "_code_offset", NULL);
	vm.data_offset = field(&s, "CodeBlob", "_data_offset", NULL);
	vm.stub_offset = field(&s, "nmethod", "_stub_offset", NULL);
	vm.comp_level = field(&s, "nmethod", "_comp_level", &lvl_type);
	vm.entry_bci = field(&s, "nmethod", "_entry_bci", NULL);
	vm.compile_id = field(&s, "nmethod", "_compile_id", NULL);
	vm.comp_level_size = type_size(&t, lvl_type);
	if (!vm.heaps || vm.heaps == (uintptr_t)-1 || vm.ga_len < 0 || vm.ga_data < 0 ||
	    vm.heap_memory < 0 || vm.heap_segmap < 0 || vm.heap_log2 < 0 || vm.vs_low < 0 ||
	    vm.vs_high < 0 || vm.hb_size <= 0 || vm.hb_used < 0 || vm.stub_offset < 0 ||
	    vm.comp_level < 0 || vm.entry_bci < 0 ||
	    (vm.code_begin < 0 && vm.code_offset < 0) ||
	    (vm.comp_level_size != 1 && vm.comp_level_size != 2 && vm.comp_level_size != 4))
		return -ENOENT;
	vm.ok = 1;
	return 0;
}

static long max4(long a, long b, long c, long d)
{
	long m = a > b ? a : b;

	m = m > c ? m : c;
	return m > d ? m : d;
}

static int32_t read_int(uintptr_t p, long size)
{
	if (size == 1)
		return *(const int8_t *)p;
	if (size == 2)
		return *(const int16_t *)p;
	return *(const int32_t *)p;
}

/* The start of the used block holding a, or 0, following CodeHeap::find_block_for. */
static uintptr_t block_of(uintptr_t heap, uintptr_t a, uintptr_t *hi)
{
	uintptr_t lo = *(const uintptr_t *)(heap + vm.heap_memory + vm.vs_low);
	uintptr_t mlo = *(const uintptr_t *)(heap + vm.heap_segmap + vm.vs_low);
	uintptr_t mhi = *(const uintptr_t *)(heap + vm.heap_segmap + vm.vs_high);
	int log2 = *(const int *)(heap + vm.heap_log2);
	const uint8_t *map = (const uint8_t *)mlo;
	uintptr_t seg, block;

	*hi = *(const uintptr_t *)(heap + vm.heap_memory + vm.vs_high);
	if (a < lo || a >= *hi || log2 < 3 || log2 > 20 || !mlo || mhi <= mlo)
		return 0;
	seg = (a - lo) >> log2;
	if (seg >= mhi - mlo || map[seg] == SEGMAP_FREE)
		return 0;
	while (map[seg] > 0) {
		if (map[seg] == SEGMAP_FREE || map[seg] > seg)
			return 0;
		seg -= map[seg];
	}
	block = lo + (seg << log2);
	if (block + (uintptr_t)vm.hb_size >= *hi || !*(const bool *)(block + vm.hb_used))
		return 0;
	return block;
}

int agent_tier_lookup(const void *code_addr, uint64_t code_size, struct agent_nmethod *out)
{
	uintptr_t a = (uintptr_t)code_addr, heaps, block = 0, hi = 0, nm, begin, end1, end2;
	const uintptr_t *data;
	int32_t len, lvl;
	long reach;

	if (!vm.ok || !(heaps = *(const uintptr_t *)vm.heaps))
		return -ENOENT;
	len = *(const int32_t *)(heaps + vm.ga_len);
	data = *(const uintptr_t *const *)(heaps + vm.ga_data);
	for (int32_t i = 0; data && i < len && i < 64 && !block; i++)
		if (data[i])
			block = block_of(data[i], a, &hi);
	if (!block)
		return -ENOENT;
	nm = block + (uintptr_t)vm.hb_size;
	reach = max4(vm.code_begin, vm.code_end, vm.code_offset, vm.data_offset);
	reach = max4(reach, vm.stub_offset, vm.comp_level, vm.entry_bci);
	reach = (reach > vm.compile_id ? reach : vm.compile_id) + 8;
	if (nm + (uintptr_t)reach > hi)
		return -ENOENT;
	if (vm.code_begin >= 0) {
		begin = *(const uintptr_t *)(nm + vm.code_begin);
		end1 = vm.code_end >= 0 ? *(const uintptr_t *)(nm + vm.code_end) : 0;
	} else {
		begin = nm + (uintptr_t)*(const int32_t *)(nm + vm.code_offset);
		end1 = vm.data_offset >= 0 ? nm + (uintptr_t)*(const int32_t *)(nm + vm.data_offset)
					   : 0;
	}
	end2 = nm + (uintptr_t)*(const int32_t *)(nm + vm.stub_offset);
	if (begin != a || (end1 - a != code_size && end2 - a != code_size))
		return -ENOENT;
	/* 0 is a native wrapper or method-handle intrinsic, 1-3 C1, 4 C2. */
	lvl = read_int(nm + vm.comp_level, vm.comp_level_size);
	if (lvl < 0 || lvl > 4)
		return -ENOENT;
	out->level = lvl;
	out->osr_bci = *(const int32_t *)(nm + vm.entry_bci);
	if (out->osr_bci < 0)
		out->osr_bci = INVOCATION_ENTRY_BCI;
	out->compile_id = vm.compile_id >= 0 ? *(const int32_t *)(nm + vm.compile_id) : -1;
	if (out->compile_id < 0)
		out->compile_id = -1;
	return 0;
}
