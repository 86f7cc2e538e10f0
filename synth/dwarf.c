/* dwarf.c - .debug_abbrev, .debug_info and .debug_aranges for one jitted function: a compile
 * unit, the concrete subprogram, and (from jitprof's inline table) abstract subprograms with
 * one DW_TAG_inlined_subroutine per contiguous inlined range, so symbolizers unfold inlining. */
#include <dwarf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "synth/dwarf_int.h"

#define PRODUCER "jitprof synth"

enum abbrev_code {
	AB_CU_JAVA = 1, AB_CU, AB_SUB_FILE_KIDS, AB_SUB_FILE, AB_SUB_KIDS, AB_SUB,
	AB_ABSTRACT, AB_INLINED_KIDS, AB_INLINED, AB_INLINED_KIDS_NOFILE, AB_INLINED_NOFILE,
};

struct abbrev_def {
	uint8_t code;
	uint8_t children;
	uint16_t tag;
	uint16_t attrs[9][2];	/* {DW_AT_*, DW_FORM_*}, ended by {0, 0} */
};

#define CU_ATTRS(...) { { DW_AT_name, DW_FORM_string }, { DW_AT_producer, DW_FORM_string }, \
	__VA_ARGS__ { DW_AT_low_pc, DW_FORM_addr }, { DW_AT_high_pc, DW_FORM_data8 }, \
	{ DW_AT_stmt_list, DW_FORM_sec_offset }, { DW_AT_comp_dir, DW_FORM_string } }
#define SUB_ATTRS(...) { { DW_AT_name, DW_FORM_string }, \
	{ DW_AT_linkage_name, DW_FORM_string }, { DW_AT_low_pc, DW_FORM_addr }, \
	{ DW_AT_high_pc, DW_FORM_data8 }, { DW_AT_external, DW_FORM_flag_present }, __VA_ARGS__ }
/* call_file only when the caller's file is known: index 0 is no file in DWARF 4 and
 * llvm-dwarfdump --verify rejects it. */
#define INL_ATTRS(...) { { DW_AT_abstract_origin, DW_FORM_ref4 }, \
	{ DW_AT_low_pc, DW_FORM_addr }, { DW_AT_high_pc, DW_FORM_data8 }, __VA_ARGS__ \
	{ DW_AT_call_line, DW_FORM_udata } }

static const struct abbrev_def abbrevs[] = {
	{ AB_CU_JAVA, 1, DW_TAG_compile_unit, CU_ATTRS({ DW_AT_language, DW_FORM_data2 },) },
	{ AB_CU, 1, DW_TAG_compile_unit, CU_ATTRS() },
	{ AB_SUB_FILE_KIDS, 1, DW_TAG_subprogram, SUB_ATTRS({ DW_AT_decl_file, DW_FORM_udata }) },
	{ AB_SUB_FILE, 0, DW_TAG_subprogram, SUB_ATTRS({ DW_AT_decl_file, DW_FORM_udata }) },
	{ AB_SUB_KIDS, 1, DW_TAG_subprogram, SUB_ATTRS() },
	{ AB_SUB, 0, DW_TAG_subprogram, SUB_ATTRS() },
	{ AB_ABSTRACT, 0, DW_TAG_subprogram, { { DW_AT_name, DW_FORM_string },
		{ DW_AT_linkage_name, DW_FORM_string }, { DW_AT_inline, DW_FORM_data1 },
		{ DW_AT_external, DW_FORM_flag_present } } },
	{ AB_INLINED_KIDS, 1, DW_TAG_inlined_subroutine,
	  INL_ATTRS({ DW_AT_call_file, DW_FORM_udata },) },
	{ AB_INLINED, 0, DW_TAG_inlined_subroutine, INL_ATTRS({ DW_AT_call_file, DW_FORM_udata },) },
	{ AB_INLINED_KIDS_NOFILE, 1, DW_TAG_inlined_subroutine, INL_ATTRS() },
	{ AB_INLINED_NOFILE, 0, DW_TAG_inlined_subroutine, INL_ATTRS() },
};

/* The table is the same in every ELF: encoded on the stack and appended with one copy (byte by
 * byte through the buffer it was a tenth of building an ELF in memory). */
#define ABBREV_BYTES (sizeof(abbrevs) / sizeof(abbrevs[0]) * (3 + 3 + 1 + 9 * 2 * 3 + 2) + 1)

static void put_uleb(uint8_t *t, size_t *n, uint32_t v)
{
	do {
		t[(*n)++] = (uint8_t)((v & 0x7f) | (v >> 7 ? 0x80 : 0));
		v >>= 7;
	} while (v);
}

void synth_dw_abbrev(struct synth_buf *b)
{
	uint8_t t[ABBREV_BYTES];
	size_t n = 0;
	for (size_t i = 0; i < sizeof(abbrevs) / sizeof(abbrevs[0]); i++) {
		const struct abbrev_def *a = &abbrevs[i];
		put_uleb(t, &n, a->code);
		put_uleb(t, &n, a->tag);
		t[n++] = a->children ? DW_CHILDREN_yes : DW_CHILDREN_no;
		for (unsigned k = 0; k < 9 && a->attrs[k][0]; k++) {
			put_uleb(t, &n, a->attrs[k][0]);
			put_uleb(t, &n, a->attrs[k][1]);
		}
		t[n++] = 0;
		t[n++] = 0;
	}
	t[n++] = 0;
	synth_buf_bytes(b, t, n);
}

/* The readable name's bytes: JVM names are name[1, 1 + *n) with '/' and ';' made '.'
 * (returns 1), others name as it is (0). */
static int readable_span(const char *name, size_t *n)
{
	const char *semi = name[0] == 'L' ? strchr(name, ';') : NULL;
	const char *paren = semi ? strchr(semi, '(') : NULL;
	if (!paren || paren == semi + 1 || semi == name + 1) {
		*n = strlen(name);
		return 0;
	}
	*n = (size_t)(paren - name - 1);
	return 1;
}

/* The readable name as a string appended to b: made in b, so no buffer bounds it. */
static void put_readable(struct synth_buf *b, const char *name)
{
	size_t n, at = b->len;
	int java = readable_span(name, &n);
	synth_buf_bytes(b, name + java, n);
	synth_buf_u8(b, 0);
	for (size_t i = at; java && !b->oom && i < at + n; i++)
		if (b->p[i] == '/' || b->p[i] == ';')
			b->p[i] = '.';
}

int synth_dw_readable_name(const char *name, char *buf, size_t len)
{
	size_t n;
	int java = readable_span(name, &n);
	if (!len)
		return java;
	if (n >= len)
		n = len - 1;
	for (size_t i = 0; i < n; i++) {
		char c = name[java + i];
		buf[i] = java && (c == '/' || c == ';') ? '.' : c;
	}
	buf[n] = 0;
	return java;
}

/* One inlined_subroutine: a contiguous range where method was inlined at call_file:call_line
 * into its parent (another node, or the concrete subprogram when parent == NO_PARENT). */
#define NO_PARENT UINT32_MAX
struct inl_node {
	uint32_t method, parent, call_file;
	int32_t call_line;
	uint64_t low, high;	/* absolute code addresses */
	int kids;
};

struct inl_tree {
	struct inl_node *v;
	size_t n, cap;
};

static int tree_push(struct inl_tree *t, const struct inl_node *node)
{
	if (jp_grow(&t->v, &t->cap, t->n + 1, sizeof(*t->v), 16))
		return -ENOMEM;
	t->v[t->n++] = *node;
	return 0;
}

static uint32_t method_file(const struct jd_ext_inline *x, struct synth_dw_files *files,
			    uint32_t m)
{
	const char *f = x->methods[m].file;
	return f[0] ? synth_dw_file(files, f) : 0;
}

/* Walks the pcs in address order keeping the chain of open nodes (outermost first); a frame
 * that continues with the same method and call site extends its node, anything else closes
 * it. Nodes therefore come out in DIE pre-order. */
static int build_tree(const struct synth_input *in, struct synth_dw_files *files,
		      struct inl_tree *t)
{
	const struct jd_ext_inline *x = in->inl;
	uint32_t *open = NULL;
	uint32_t sp = 0, maxd = 0;
	for (uint32_t i = 0; i < x->nr_pcs; i++)
		maxd = x->pcs[i].depth > maxd ? x->pcs[i].depth : maxd;
	if (maxd > 1 && !(open = calloc(maxd, sizeof(*open))))
		return -ENOMEM;
	for (uint32_t i = 0; i < x->nr_pcs; i++) {
		const struct jd_inline_pc *p = &x->pcs[i];
		uint64_t hi = i + 1 < x->nr_pcs ? x->pcs[i + 1].addr : in->code_addr + in->code_size;
		uint32_t chain = p->depth > 1 ? p->depth - 1 : 0, j = 0;
		for (; j < chain && j < sp; j++) {
			const struct jd_inline_frame *f = &p->frames[p->depth - 2 - j];
			const struct jd_inline_frame *caller = f + 1;
			const struct inl_node *nd = &t->v[open[j]];
			if (nd->method != f->method || nd->call_line != caller->line ||
			    nd->call_file != method_file(x, files, caller->method))
				break;
		}
		sp = j;
		for (; j < chain; j++) {
			const struct jd_inline_frame *f = &p->frames[p->depth - 2 - j];
			struct inl_node nd = {
				.method = f->method, .parent = j ? open[j - 1] : NO_PARENT,
				.call_file = method_file(x, files, f[1].method),
				.call_line = f[1].line, .low = p->addr,
			};
			if (tree_push(t, &nd)) {
				free(open);
				return -ENOMEM;
			}
			if (j)
				t->v[open[j - 1]].kids = 1;
			open[sp++] = (uint32_t)(t->n - 1);
		}
		for (j = 0; j < sp; j++)
			t->v[open[j]].high = hi;
	}
	free(open);
	return 0;
}

static void die_names(struct synth_buf *b, const char *name)
{
	put_readable(b, name);
	synth_buf_str(b, name);
}

/* Abstract subprograms first (so references point backwards), offsets into aoff[method]. */
static void write_abstracts(struct synth_buf *b, const struct jd_ext_inline *x,
			    const struct inl_tree *t, uint32_t *aoff)
{
	for (size_t i = 0; i < t->n; i++) {
		uint32_t m = t->v[i].method;
		if (aoff[m])
			continue;
		aoff[m] = (uint32_t)b->len;
		synth_buf_uleb(b, AB_ABSTRACT);
		die_names(b, x->methods[m].name);
		synth_buf_u8(b, DW_INL_inlined);
	}
}

static void write_inlined(struct synth_buf *b, const struct inl_tree *t, const uint32_t *aoff,
			  uint64_t code_addr, uint64_t text_vaddr)
{
	/* Pre-order: before a node, close the open nodes that are not its ancestors. */
	uint32_t *stack = t->n ? malloc(t->n * sizeof(*stack)) : NULL;
	size_t sp = 0;
	if (t->n && !stack) {
		b->oom = 1;
		return;
	}
	for (size_t i = 0; i < t->n; i++) {
		const struct inl_node *nd = &t->v[i];
		while (sp && stack[sp - 1] != nd->parent) {
			sp--;
			if (t->v[stack[sp]].kids)
				synth_buf_u8(b, 0);
		}
		synth_buf_uleb(b, nd->call_file ? (nd->kids ? AB_INLINED_KIDS : AB_INLINED)
					       : (nd->kids ? AB_INLINED_KIDS_NOFILE : AB_INLINED_NOFILE));
		synth_buf_u32(b, aoff[nd->method]);
		synth_buf_u64(b, text_vaddr + (nd->low - code_addr));
		synth_buf_u64(b, nd->high - nd->low);
		if (nd->call_file)
			synth_buf_uleb(b, nd->call_file);
		synth_buf_uleb(b, (uint64_t)nd->call_line);
		stack[sp++] = (uint32_t)i;
	}
	while (sp)
		if (t->v[stack[--sp]].kids)
			synth_buf_u8(b, 0);
	free(stack);
}

/* The compiled method's own source file: the outermost inline frame's, else the first row's. */
static const char *cu_file(const struct synth_input *in, const struct jd_line *lines, size_t n)
{
	const struct jd_ext_inline *x = in->inl;
	for (uint32_t i = 0; x && i < x->nr_pcs; i++)
		if (x->pcs[i].depth) {
			const char *f = x->methods[x->pcs[i].frames[x->pcs[i].depth - 1].method].file;
			if (f[0])
				return f;
			break;
		}
	return n ? lines[0].file : NULL;
}

void synth_dw_cu_head(struct synth_buf *b, const char *name, int java, uint64_t low,
		      uint64_t size, const char *comp_dir)
{
	synth_buf_u32(b, 0);		/* unit_length, patched by the caller */
	synth_buf_u16(b, 4);
	synth_buf_u32(b, 0);		/* debug_abbrev_offset */
	synth_buf_u8(b, 8);		/* address_size */
	synth_buf_uleb(b, java ? AB_CU_JAVA : AB_CU);
	synth_buf_str(b, name);
	synth_buf_str(b, PRODUCER);
	if (java)
		synth_buf_u16(b, DW_LANG_Java);
	synth_buf_u64(b, low);
	synth_buf_u64(b, size);
	synth_buf_u32(b, 0);		/* stmt_list: our only line unit */
	synth_buf_str(b, comp_dir ? comp_dir : "");
}

void synth_dw_sub(struct synth_buf *b, const char *name, const char *linkage, uint64_t low,
		  uint64_t size)
{
	synth_buf_uleb(b, AB_SUB);
	synth_buf_str(b, name);
	synth_buf_str(b, linkage);
	synth_buf_u64(b, low);
	synth_buf_u64(b, size);
}

static int write_info(struct synth_dwarf *d, const struct synth_input *in,
		      struct synth_dw_files *files, const struct jd_line *lines, size_t n,
		      uint64_t text_vaddr)
{
	struct synth_buf *b = &d->info;
	struct inl_tree t = { 0 };
	uint32_t *aoff = NULL;
	size_t rlen = strlen(in->name) + 1;	/* the readable name is no longer */
	char *readable = malloc(rlen);
	int rc = readable ? 0 : -ENOMEM;
	if (!rc && in->inl && in->inl->nr_methods) {
		aoff = calloc(in->inl->nr_methods, sizeof(*aoff));
		rc = aoff ? build_tree(in, files, &t) : -ENOMEM;
	}
	if (rc)
		goto out;
	int java = synth_dw_readable_name(in->name, readable, rlen);
	const char *file = cu_file(in, lines, n);

	synth_dw_cu_head(b, file ? file : readable, java, text_vaddr, in->code_size,
			 in->comp_dir);

	if (t.n)
		write_abstracts(b, in->inl, &t, aoff);
	uint32_t decl = file ? synth_dw_file(files, file) : 0;
	synth_buf_uleb(b, decl ? (t.n ? AB_SUB_FILE_KIDS : AB_SUB_FILE)
			       : (t.n ? AB_SUB_KIDS : AB_SUB));
	die_names(b, in->name);
	synth_buf_u64(b, text_vaddr);
	synth_buf_u64(b, in->code_size);
	if (decl)
		synth_buf_uleb(b, decl);
	if (t.n) {
		write_inlined(b, &t, aoff, in->code_addr, text_vaddr);
		synth_buf_u8(b, 0);	/* end of the subprogram's children */
	}
	synth_buf_u8(b, 0);		/* end of the CU's children */
	synth_buf_put_u32(b, 0, (uint32_t)(b->len - 4));
out:
	free(readable);
	free(aoff);
	free(t.v);
	return rc;
}

void synth_dw_aranges(struct synth_buf *b, uint64_t text_vaddr, uint64_t size)
{
	synth_buf_u32(b, 44);		/* unit_length: 2+4+1+1 + 4 pad + 2 tuples of 16 */
	synth_buf_u16(b, 2);
	synth_buf_u32(b, 0);		/* debug_info_offset */
	synth_buf_u8(b, 8);		/* address_size */
	synth_buf_u8(b, 0);		/* segment_selector_size */
	synth_buf_zero(b, 4);		/* tuples start at a multiple of 2 * address_size */
	synth_buf_u64(b, text_vaddr);
	synth_buf_u64(b, size);
	synth_buf_zero(b, 16);
}

/* Without a line table, the inline table's innermost frames give the rows. */
static struct jd_line *lines_from_inline(const struct jd_ext_inline *x, size_t *n)
{
	struct jd_line *v = calloc(x->nr_pcs ? x->nr_pcs : 1, sizeof(*v));
	*n = 0;
	for (uint32_t i = 0; v && i < x->nr_pcs; i++) {
		const struct jd_inline_pc *p = &x->pcs[i];
		if (!p->depth || !x->methods[p->frames[0].method].file[0])
			continue;
		v[*n].addr = p->addr;
		v[*n].line = p->frames[0].line;
		v[(*n)++].file = x->methods[p->frames[0].method].file;
	}
	return v;
}

/* The rows the line program encodes: the usable ones (synth_line_next), the first moved to the
 * code start so the code before a runtime's first entry (the prologue) has its line. */
static struct jd_line *usable_rows(const struct synth_input *in, const struct jd_line *rows,
				   size_t n, size_t *out_n, const char *script)
{
	struct jd_line *v = malloc((n ? n : 1) * sizeof(*v));
	struct synth_line_it it;
	*out_n = 0;
	if (!v)
		return NULL;
	synth_line_it_init(&it, rows, n, in->code_addr, in->code_size, script);
	for (const struct jd_line *l; (l = synth_line_next(&it));)
		v[(*out_n)++] = *l;
	if (*out_n)
		v[0].addr = in->code_addr;
	return v;
}

int synth_dwarf_build(const struct synth_input *in, uint64_t text_vaddr, struct synth_dwarf *d,
		      const struct jp_log *log)
{
	memset(d, 0, sizeof(*d));
	size_t n = 0, nd = 0;
	struct jd_line *derived = NULL, *lines;
	struct synth_dw_files files = { 0 };
	if (!in->nr_lines && in->inl && !(derived = lines_from_inline(in->inl, &nd)))
		return synth_err(log, -ENOMEM, "out of memory for line rows");
	/* renamed rows point into script: it lives as long as lines */
	char script_buf[SYNTH_SCRIPT_MAX + 1];
	const char *script = synth_name_script(in->name, script_buf, sizeof(script_buf));
	lines = derived ? usable_rows(in, derived, nd, &n, script)
			: usable_rows(in, in->lines, in->nr_lines, &n, script);
	free(derived);
	if (!lines)
		return synth_err(log, -ENOMEM, "out of memory for line rows");
	/* Every file the DIEs name must be in the table the line header lists. */
	for (size_t i = 0; i < n; i++)
		synth_dw_file(&files, lines[i].file);
	for (uint32_t m = 0; in->inl && m < in->inl->nr_methods; m++)
		method_file(in->inl, &files, m);

	synth_dw_abbrev(&d->abbrev);
	synth_dw_line_unit(&d->line, &files, lines, n, in->code_addr, in->code_size, text_vaddr);
	int rc = write_info(d, in, &files, lines, n, text_vaddr);
	synth_dw_aranges(&d->aranges, text_vaddr, in->code_size);
	int oom = files.oom || d->abbrev.oom || d->info.oom || d->line.oom || d->aranges.oom;
	synth_dw_files_free(&files);
	free(lines);
	if (rc || oom) {
		synth_dwarf_free(d);
		return synth_err(log, rc ? rc : -ENOMEM, "out of memory encoding DWARF");
	}
	return 0;
}

void synth_dwarf_free(struct synth_dwarf *d)
{
	synth_buf_free(&d->abbrev);
	synth_buf_free(&d->info);
	synth_buf_free(&d->line);
	synth_buf_free(&d->aranges);
}
