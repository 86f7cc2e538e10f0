/* grow.h - the one growth helper for arrays (libbpf's libbpf_ensure_mem): what the modules
 * above lib/ call instead of each writing its own realloc-and-double. Sizes come from
 * recordings, so the product of count and size is checked before it is asked for. */
#ifndef JITPROF_LIB_GROW_H
#define JITPROF_LIB_GROW_H

#include <stddef.h>

/* Makes *arrp (an array of elem-byte items with room for *cap) hold at least need items: the
 * capacity doubles from *cap, or from min_cap when the array is empty. 0, or -ENOMEM (out of
 * memory, or need * elem past SIZE_MAX) with *arrp and *cap unchanged. arrp is the address
 * of the array's pointer (T **), passed as void * so any item type fits. */
int jp_grow(void *arrp, size_t *cap, size_t need, size_t elem, size_t min_cap);

/* Room for item n (an append at index n), 8 items at first. */
#define JP_GROW_FOR(arr, cap, n) jp_grow(&(arr), &(cap), (size_t)(n) + 1, sizeof(*(arr)), 8)

#endif
