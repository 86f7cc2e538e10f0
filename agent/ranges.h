/* ranges.h - pc descriptors to ranges (ranges.c), used by callbacks.c. */
#ifndef JITPROF_AGENT_RANGES_H
#define JITPROF_AGENT_RANGES_H

#include <stddef.h>
#include <stdint.h>

#include "jitdump/jitdump.h"

/* pcs[0..np) ascending (equal pcs allowed): each moves to the start of the instructions its
 * descriptor describes, the previous descriptor's pc, the first to lo (the code start); of
 * descriptors at one pc the last is kept, one at lo is dropped. Returns the new count. */
size_t agent_pcs_to_ranges(struct jd_inline_pc *pcs, size_t np, uint64_t lo);

#endif
