/* interp_resolve.c - an interpreter frame's method, bci and line from the two words the
 * unwinder read from it, through the dump's method table: the one resolver inject (its
 * interpreted-methods ELF) and report (its own walk of kept stack copies) both name frames
 * with, so the two never disagree. */
#include <errno.h>

#include "jitdump/jitdump.h"
#include "recorder/origins/origins.h"

/* bcp as a bci of m, or -1 outside its bytecodes. A native method's frame holds bcp 0 until
 * its entry calls the VM (InterpreterMacroAssembler::call_VM_base saves r13 there: the address
 * after its ConstMethod, where bytecodes would start), which the agent writes as its
 * code_addr (0 before it did: then only bcp 0 is known). */
static int64_t bci_of(const struct jd_ext_method *m, uint64_t bcp)
{
	if (!m->code_size)
		return bcp == 0 || (m->code_addr && bcp == m->code_addr) ? 0 : -1;
	return bcp >= m->code_addr && bcp - m->code_addr < m->code_size
		       ? (int64_t)(bcp - m->code_addr) : -1;
}

int inj_interp_resolve(const struct jd_index *x, uint64_t method, uint64_t bcp,
		       uint64_t bcp_slot, uint64_t time, const struct jd_ext_method **out,
		       uint32_t *bci, uint32_t *line)
{
	const struct jd_ext_method *m = x && method ? jd_index_method(x, method, time) : NULL;
	/* The top frame's live bcp (r13) first, else what its slot saved at the last call. */
	int64_t b = m ? bci_of(m, bcp) : -1;

	if (m && b < 0)
		b = bci_of(m, bcp_slot);
	if (b < 0)
		return -ENOENT;
	*out = m;
	*bci = (uint32_t)b;
	/* The line of the last run starting at or before bci; 0 unknown. */
	uint32_t lo = 0, hi = m->nr_lines;
	*line = 0;
	if (!hi || *bci < m->lines[0].bci)
		return 0;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (m->lines[mid].bci <= *bci)
			lo = mid;
		else
			hi = mid;
	}
	*line = m->lines[lo].line > 0 ? (uint32_t)m->lines[lo].line : 0;
	return 0;
}

int inj_interp_method_start(const struct jd_index *x, uint64_t method, uint64_t *bcp)
{
	const struct jd_ext_method *m = x && method ? jd_index_method(x, method, UINT64_MAX)
						    : NULL;
	if (!m)
		return -ENOENT;
	*bcp = m->code_addr;
	return 0;
}
