/* interp_names.c - a HotSpot interpreter frame named from the two words the unwinder read
 * from it (recorder/unwind: Method* and bytecode pointer), through the method table of its
 * process's dump (the agent's JD_EXT_METHOD records): the method's demangled name, its
 * source file, and the line of its bci. A method the table does not hold, or a bcp outside
 * its bytecodes, leaves the frame as resolve() made it ("Interpreter"): never a wrong name. */
#include <errno.h>
#include <string.h>

#include "jitdump/jitdump.h"
#include "recorder/origins/origins.h"
#include "recorder/report_ingest/ingest_int.h"
#include "recorder/symbols/symbols.h"

/* "Lpkg/Cls;m(I)V" -> interned "pkg.Cls.m(int)", once per method record. */
static const char *name_of(struct ingest *in, const struct jd_ext_method *m)
{
	struct rp_unwind *u = &in->unwind;
	const char *v;
	size_t slot;
	struct jp_str buf = { 0 };

	if (rp_memo_get(&u->names, m, &v, &slot))
		return v;
	sym_java_demangle_str(m->name, &buf);
	v = rp_intern(in->s, buf.s);
	if (jp_str_free(&buf))
		v = NULL;	/* -ENOMEM, as the interner's NULL */
	if (v)
		rp_memo_put(&u->names, m, v, slot);
	return v;
}

int rp_interp_resolve(const struct jd_index *x, uint64_t method, uint64_t bcp,
		      uint64_t bcp_slot, uint64_t time, const struct jd_ext_method **out,
		      uint32_t *bci, uint32_t *line)
{
	/* inject names the same frames by the same rule (its ELF of interpreted methods) */
	return inj_interp_resolve(x, method, bcp, bcp_slot, time, out, bci, line);
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
