/* ranges.c - HotSpot's pc descriptors turned into the ranges jitdump rows and inline pcs
 * describe (apart from callbacks.c so a unit test can run it without a JVM). */
#include "agent/ranges.h"

/* HotSpot's descriptors (PcDescs) describe the state at their pc, the end of the instructions
 * that lead to it: C2 records a non-safepoint descriptor after the instruction it describes,
 * a call's descriptor is its return address. jitdump rows and inline pcs say where a range
 * starts, so descriptor i becomes the range [pc of descriptor i-1, its own pc): each pc moves
 * to its predecessor's, the first to the code start (docs/agent.md shows the evidence). Of
 * descriptors at one pc the last wins; one at the code start covers nothing. In place. */
size_t agent_pcs_to_ranges(struct jd_inline_pc *pcs, size_t np, uint64_t lo)
{
	size_t n = 0;

	for (size_t i = 0; i < np; i++) {
		if (pcs[i].addr == lo)
			continue;
		if (n > 0 && pcs[n - 1].addr == pcs[i].addr)
			n--;
		pcs[n++] = pcs[i];
	}
	for (size_t i = n; i-- > 0;)
		pcs[i].addr = i ? pcs[i - 1].addr : lo;
	return n;
}
