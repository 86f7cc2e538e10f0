/* interp_names.c - a HotSpot interpreter frame named from the two words the unwinder read
 * from it (recorder/unwind: Method* and bytecode pointer), through the method table of its
 * process's dump (the agent's JD_EXT_METHOD records): the method's demangled name, its
 * source file, and the line of its bci. A method the table does not hold, or a bcp outside
 * its bytecodes, leaves the frame as resolve() made it ("Interpreter"): never a wrong name. */
#include <errno.h>
#include <string.h>

#include "jitdump/jitdump.h"
#include "recorder/report/ingest_int.h"
#include "recorder/symbols/symbols.h"

/* The line of bci: the last run starting at or before it; 0 unknown. */
static uint32_t line_of(const struct jd_ext_method *m, uint32_t bci)
{
	uint32_t lo = 0, hi = m->nr_lines;

	if (!hi || bci < m->lines[0].bci)
		return 0;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (m->lines[mid].bci <= bci)
			lo = mid;
		else
			hi = mid;
	}
	return m->lines[lo].line > 0 ? (uint32_t)m->lines[lo].line : 0;
}

/* "Lpkg/Cls;m(I)V" -> interned "pkg.Cls.m(int)", once per method record. */
static const char *name_of(struct ingest *in, const struct jd_ext_method *m)
{
	struct rp_unwind *u = &in->unwind;
	const char *v;
	size_t slot;
	char buf[1024];

	if (rp_memo_get(&u->names, m, &v, &slot))
		return v;
	sym_java_demangle(m->name, buf, sizeof(buf));
	v = rp_intern(in->s, buf);
	if (v)
		rp_memo_put(&u->names, m, v, slot);
	return v;
}

/* bcp as a bci of m, or -1 outside its bytecodes. A native method (no bytecodes) has bcp
 * 0 in its frame: bci 0, no line. */
static int64_t bci_of(const struct jd_ext_method *m, uint64_t bcp)
{
	if (!m->code_size)
		return bcp == 0 ? 0 : -1;
	return bcp >= m->code_addr && bcp - m->code_addr < m->code_size
		       ? (int64_t)(bcp - m->code_addr) : -1;
}

int rp_interp_resolve(const struct jd_index *x, uint64_t method, uint64_t bcp,
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
	*line = line_of(m, (uint32_t)b);
	return 0;
}

int rp_interp_name(struct ingest *in, const struct unw_frame *f, uint64_t time,
		   struct rp_frame *out)
{
	const struct jd_ext_method *m;
	uint32_t bci, line;

	if (rp_interp_resolve(f->data, f->method, f->bcp, f->bcp_slot, time, &m, &bci, &line)) {
		in->unwind.interp_unnamed++;
		return 0;
	}
	const char *sym = name_of(in, m);
	const char *slash = strrchr(m->file, '/');
	const char *file = m->file[0] ? rp_intern(in->s, slash ? slash + 1 : m->file) : NULL;
	if (!sym || (m->file[0] && !file))
		return -ENOMEM;
	out->sym = sym;
	out->srcfile = file;
	out->line = line;
	/* A symbol's identity is addr - symoff (hist.c): the method's bytecodes, one per method
	 * whatever template of the interpreter ran. */
	out->addr = m->code_addr + bci;
	out->symoff = bci;
	out->flags |= RP_FRAME_INTERPRETED;
	in->unwind.interp_named++;
	return 1;
}
