/* ends.c - why walks ended, as words: each enum unw_end's name, and a run's early ends
 * counted by reason in one line ("no CFI 12, read outside the stack copy 3") for the
 * reports' summaries. */
#include <stdio.h>

#include "recorder/unwind/unwind.h"

const char *unw_end_name(enum unw_end e)
{
	static const char *const names[UNW_END_NR] = {
		"root", "max frames", "no registers", "no CFI", "read outside the stack copy",
		"no progress up the stack", "CFI not evaluated",
		"frame pointer outside the stack copy",
	};
	return (unsigned)e < UNW_END_NR ? names[e] : "?";
}

int unw_end_is_copy_end(enum unw_end e, uint64_t valid, uint64_t copy)
{
	return (e == UNW_END_MEMORY || e == UNW_END_NO_FP) && copy && valid == copy;
}

size_t unw_copy_end_hint(uint64_t cut, uint64_t copy, char *buf, size_t len)
{
	int n = 0;
	if (cut && copy < UNW_STACK_COPY_MAX)
		n = snprintf(buf, len, "%llu of them where a full %llu-byte stack copy ended: "
			     "--call-graph dwarf,%u copies the most, and reaches further",
			     (unsigned long long)cut, (unsigned long long)copy, UNW_STACK_COPY_MAX);
	else if (cut)
		n = snprintf(buf, len, "%llu of them where a full %llu-byte stack copy, the "
			     "largest the kernel makes, ended", (unsigned long long)cut,
			     (unsigned long long)copy);
	else if (len)
		buf[0] = 0;
	return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len ? len - 1 : 0;
}

size_t unw_ends_format(const uint64_t ends[UNW_END_NR], char *buf, size_t len)
{
	size_t n = 0;
	if (len)
		buf[0] = 0;
	for (int e = UNW_END_ROOT + 1; e < UNW_END_NR && n < len; e++)
		if (ends[e])
			n += (size_t)snprintf(buf + n, len - n, "%s%s %llu", n ? ", " : "",
					      unw_end_name(e), (unsigned long long)ends[e]);
	return n < len ? n : len ? len - 1 : 0;	/* truncated: what buf holds */
}
