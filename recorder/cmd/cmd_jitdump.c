/* cmd_jitdump.c - `jitprof jitdump FILE`: a jitdump (or its companion file) made readable:
 * the header and every record, one per line with its byte offset, or as JSON, or summed up
 * (--stats: per record type, per method name with its number of loads = generations).
 * Damage is an error naming the offset (records before it are still shown); a partial record
 * at the tail is a warning, since a live or crashed writer leaves one. What is printed is
 * bounded by the file (SHOW_BUDGET): the same-file shorthand lets 18 bytes of a dump print a
 * whole path again, so a 1 MB dump could print gigabytes (issue 34, finding 9). */
#include <elf.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jitdump/jitdump.h"
#include "lib/grow.h"
#include "safeio/safeio.h"
#include "recorder/cmd/cli.h"
#include "recorder/cmd/jitdump_out.h"

/* The output one file may produce unless --all: an honest dump prints 2-4x its size. */
#define SHOW_BUDGET_FIXED (16ull << 20)
#define SHOW_BUDGET_PER_BYTE 16

static void usage(FILE *out)
{
	fprintf(out,
		"usage: jitprof jitdump [options] FILE\n\n"
		"Shows a jitdump (jit-PID.dump, from any writer) or a jitprof companion file\n"
		"(jit-PID.dump.jitprof): the header, then every record on one line with its byte\n"
		"offset (line-table entries and inline stacks indented below their record).\n\n"
		"      --json        the same as one JSON document\n"
		"      --stats       counts and bytes per record type, loads (= generations) and\n"
		"                    code bytes per method name\n"
		"      --companion   also read FILE.jitprof (generation/tier, inline stacks,\n"
		"                    unloads, agent accounting) when it exists\n"
		"      --all         show every record however much output it makes (by default\n"
		"                    a file's output stops past 16 MiB + 16x its size)\n"
		"  -V, --version     jitprof's version\n"
		"  -h, --help        this text\n\n"
		"Exit status: 0 when the file was read to its end (a partial record at the tail is\n"
		"a warning), 1 on damage (reported with its offset), an unreadable file, or output\n"
		"cut at its budget (what was left out is said).\n");
}

static const char *type_name(uint32_t id)
{
	static const char *perf[] = { "CODE_LOAD", "CODE_MOVE", "CODE_DEBUG_INFO", "CODE_CLOSE",
				      "CODE_UNWINDING_INFO" };
	static const char *ext[] = { "LOAD_INFO", "INLINE", "UNLOAD", "AGENT_STATS", "METHOD",
				     "VM", "SAMPLE", "JMETHOD" };
	if (id < JD_CODE_MAX_PERF)
		return perf[id];
	if (id >= JD_EXT_LOAD_INFO && id <= JD_EXT_JMETHOD)
		return ext[id - JD_EXT_LOAD_INFO];
	return "UNKNOWN";
}

static const char *mach_name(uint32_t m)
{
	switch (m) {
	case EM_X86_64: return "x86-64";
	case EM_386: return "i386";
	case EM_AARCH64: return "aarch64";
	case EM_ARM: return "arm";
	case EM_RISCV: return "riscv";
	case EM_PPC64: return "ppc64";
	case EM_PPC: return "ppc";
	case EM_S390: return "s390";
	}
	return "?";
}

static void print_header(struct jdo_out *o, struct jd_reader *r)
{
	const struct jd_header *h = jd_reader_header(r);
	if (!o->json)
		fputc('#', o->fp);
	jdo_obj_begin(o, "header");
	jdo_f_str(o, "file", jd_reader_path(r));
	jdo_f_str(o, "kind", jd_reader_is_ext(r) ? "jitprof-companion" : "jitdump");
	jdo_f_u64(o, "version", h->version);
	jdo_f_u64(o, "header_size", h->total_size);
	jdo_f_u64(o, "e_machine", h->elf_mach);
	jdo_f_str(o, "arch", mach_name(h->elf_mach));
	jdo_f_u64(o, "pid", h->pid);
	jdo_f_u64(o, "timestamp", h->timestamp);
	jdo_f_u64(o, "flags", h->flags);
	jdo_f_str(o, "clock", h->flags & JD_FLAGS_ARCH_TIMESTAMP ? "arch" : "monotonic");
	jdo_f_str(o, "byte_order", jd_reader_stats(r)->byte_swapped ? "swapped" : "native");
	jdo_f_u64(o, "file_size", jd_reader_size(r));
	jdo_obj_end(o);
	if (!o->json)
		fputc('\n', o->fp);
}

static void print_lines(struct jdo_out *o, const struct jd_debug_info *d)
{
	jdo_list_begin(o, "entries");
	for (uint64_t i = 0; i < d->nr_entry && !jdo_over_budget(o, d->nr_entry - i); i++) {
		jdo_item_begin(o);
		jdo_f_addr(o, "addr", d->entries[i].addr);
		jdo_f_str(o, "file", d->entries[i].file);
		jdo_f_i64(o, "line", d->entries[i].line);
		if (d->entries[i].discrim || o->json)
			jdo_f_i64(o, "discrim", d->entries[i].discrim);
		jdo_obj_end(o);
	}
	jdo_list_end(o);
}

static void print_inline(struct jdo_out *o, const struct jd_ext_inline *in)
{
	jdo_f_u64(o, "code_index", in->code_index);
	jdo_f_addr(o, "code_addr", in->code_addr);
	jdo_f_u64(o, "methods", in->nr_methods);
	jdo_f_u64(o, "inline_version", in->flags & JD_INLINE_BCI ? 2 : 1);
	jdo_list_begin(o, "pcs");
	for (uint32_t i = 0; i < in->nr_pcs && !jdo_over_budget(o, in->nr_pcs - i); i++) {
		const struct jd_inline_pc *pc = &in->pcs[i];
		jdo_item_begin(o);
		jdo_f_addr(o, "addr", pc->addr);
		jdo_list_begin(o, "frames");
		for (uint32_t k = 0; k < pc->depth; k++) {
			const struct jd_inline_method *m = &in->methods[pc->frames[k].method];
			if (!o->json)
				fputs(k ? " <-" : "", o->fp);
			jdo_obj_begin(o, NULL);
			jdo_f_str(o, "method", m->name);
			jdo_f_str(o, "file", m->file);
			jdo_f_i64(o, "line", pc->frames[k].line);
			if (in->flags & JD_INLINE_BCI)	/* version 1 has none: left out */
				jdo_f_i64(o, "bci", pc->frames[k].bci);
			jdo_obj_end(o);
		}
		jdo_list_end(o);
		jdo_obj_end(o);
	}
	jdo_list_end(o);
}

static void print_record(struct jdo_out *o, const struct jd_record *r)
{
	if (!o->json)
		fprintf(o->fp, "@%-8" PRIu64 " %-19s", r->offset, type_name(r->id));
	jdo_obj_begin(o, NULL);
	if (o->json) {
		jdo_f_u64(o, "offset", r->offset);
		jdo_f_str(o, "type", type_name(r->id));
	}
	jdo_f_u64(o, "size", r->total_size);
	jdo_f_u64(o, "ts", r->timestamp);
	switch (r->id) {
	case JD_CODE_LOAD:
		jdo_f_u64(o, "pid", r->u.load.pid);
		jdo_f_u64(o, "tid", r->u.load.tid);
		jdo_f_u64(o, "code_index", r->u.load.code_index);
		jdo_f_addr(o, "code_addr", r->u.load.code_addr);
		if (r->u.load.vma != r->u.load.code_addr || o->json)
			jdo_f_addr(o, "vma", r->u.load.vma);
		jdo_f_u64(o, "code_size", r->u.load.code_size);
		jdo_f_str(o, "name", r->u.load.name);
		break;
	case JD_CODE_MOVE:
		jdo_f_u64(o, "pid", r->u.move.pid);
		jdo_f_u64(o, "tid", r->u.move.tid);
		jdo_f_u64(o, "code_index", r->u.move.code_index);
		jdo_f_addr(o, "old_code_addr", r->u.move.old_code_addr);
		jdo_f_addr(o, "new_code_addr", r->u.move.new_code_addr);
		jdo_f_addr(o, "vma", r->u.move.vma);
		jdo_f_u64(o, "code_size", r->u.move.code_size);
		break;
	case JD_CODE_DEBUG_INFO:
		jdo_f_addr(o, "code_addr", r->u.debug.code_addr);
		jdo_f_u64(o, "nr_entry", r->u.debug.nr_entry);
		print_lines(o, &r->u.debug);
		break;
	case JD_CODE_UNWINDING_INFO:
		jdo_f_u64(o, "unwinding_size", r->u.unwind.unwinding_size);
		jdo_f_u64(o, "eh_frame_hdr_size", r->u.unwind.eh_frame_hdr_size);
		jdo_f_u64(o, "mapped_size", r->u.unwind.mapped_size);
		break;
	case JD_EXT_LOAD_INFO:
		jdo_f_u64(o, "code_index", r->u.load_info.code_index);
		jdo_f_addr(o, "code_addr", r->u.load_info.code_addr);
		jdo_f_u64(o, "generation", r->u.load_info.generation);
		jdo_f_str(o, "tier", jd_tier_name(r->u.load_info.tier));
		jdo_f_i64(o, "level", r->u.load_info.level);
		jdo_f_u64(o, "flags", r->u.load_info.flags);
		jdo_f_u64(o, "info_version", r->u.load_info.flags & JD_LOAD_IDS ? 2 : 1);
		/* version 1 records (and loads the runtime could not name) say "unknown" */
		if (r->u.load_info.compile_id >= 0)
			jdo_f_i64(o, "compile_id", r->u.load_info.compile_id);
		else
			jdo_f_str(o, "compile_id", "unknown");
		if (r->u.load_info.osr_bci >= 0)
			jdo_f_i64(o, "osr_bci", r->u.load_info.osr_bci);
		else
			jdo_f_str(o, "osr_bci", r->u.load_info.flags & JD_LOAD_OSR ? "unknown" : "none");
		break;
	case JD_EXT_INLINE:
		print_inline(o, &r->u.inl);
		break;
	case JD_EXT_UNLOAD:
		jdo_f_u64(o, "code_index", r->u.unload.code_index);
		jdo_f_addr(o, "code_addr", r->u.unload.code_addr);
		jdo_f_u64(o, "pid", r->u.unload.pid);
		break;
	case JD_EXT_AGENT_STATS:
		jdo_f_u64(o, "callback_ns", r->u.stats.callback_ns);
		jdo_f_u64(o, "records", r->u.stats.records);
		jdo_f_u64(o, "bytes", r->u.stats.bytes);
		jdo_f_u64(o, "loads", r->u.stats.loads);
		jdo_f_u64(o, "unloads", r->u.stats.unloads);
		jdo_f_u64(o, "dropped", r->u.stats.dropped);
		break;
	case JD_EXT_METHOD:	/* the line table is left out: one line per method */
		jdo_f_addr(o, "method", r->u.method.method);
		jdo_f_str(o, "name", r->u.method.name);
		jdo_f_str(o, "file", r->u.method.file);
		jdo_f_addr(o, "code_addr", r->u.method.code_addr);
		jdo_f_u64(o, "code_size", r->u.method.code_size);
		jdo_f_u64(o, "lines", r->u.method.nr_lines);
		break;
	case JD_EXT_VM:
		jdo_f_u64(o, "kind", r->u.vm.kind);
		jdo_f_u64(o, "flags", r->u.vm.flags);
		jdo_f_u64(o, "version", r->u.vm.version);
		jdo_f_i64(o, "method_slot", r->u.vm.method_slot);
		jdo_f_i64(o, "bcp_slot", r->u.vm.bcp_slot);
		break;
	case JD_EXT_SAMPLE:	/* frames left out: their count only */
		jdo_f_str(o, "kind", r->u.sample.kind == JD_SAMPLE_ALLOC ? "alloc"
				     : r->u.sample.kind == JD_SAMPLE_LOCK ? "lock" : "?");
		jdo_f_u64(o, "tid", r->u.sample.tid);
		jdo_f_u64(o, "weight", r->u.sample.weight);
		jdo_f_u64(o, "size", r->u.sample.size);
		jdo_f_u64(o, "frames", r->u.sample.nr_frames);
		jdo_f_str(o, "class", r->u.sample.klass);
		break;
	case JD_EXT_JMETHOD:
		jdo_f_addr(o, "method", r->u.jmethod.method);
		jdo_f_str(o, "name", r->u.jmethod.name);
		jdo_f_str(o, "file", r->u.jmethod.file);
		break;
	}
	jdo_obj_end(o);
	if (!o->json)
		fputc('\n', o->fp);
}

/* ---- --stats ------------------------------------------------------------------------- */

#define NR_TYPES (JD_CODE_MAX_PERF + (JD_EXT_JMETHOD - JD_EXT_LOAD_INFO + 1))

struct name_load {
	const char *name;
	uint64_t code_size;
};

struct stats {
	uint64_t count[NR_TYPES], bytes[NR_TYPES];
	struct name_load *loads;
	size_t nr_loads, cap;
};

static int type_slot(uint32_t id)
{
	return id < JD_CODE_MAX_PERF ? (int)id : JD_CODE_MAX_PERF + (int)(id - JD_EXT_LOAD_INFO);
}

static int stats_add(struct stats *s, const struct jd_record *r)
{
	int t = type_slot(r->id);
	s->count[t]++;
	s->bytes[t] += r->total_size;
	if (r->id != JD_CODE_LOAD)
		return 0;
	if (jp_grow(&s->loads, &s->cap, s->nr_loads + 1, sizeof(*s->loads), 1024))
		return -1;
	s->loads[s->nr_loads++] = (struct name_load){ r->u.load.name, r->u.load.code_size };
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct name_load *)a)->name, ((const struct name_load *)b)->name);
}

struct method_row {
	const char *name;
	uint64_t loads, bytes;
};

static int by_loads(const void *a, const void *b)
{
	const struct method_row *x = a, *y = b;
	if (x->loads != y->loads)
		return x->loads < y->loads ? 1 : -1;
	return strcmp(x->name, y->name);
}

static void print_stats(struct jdo_out *o, struct stats *s, const struct jd_reader_stats *rs)
{
	if (s->nr_loads > 1)
		qsort(s->loads, s->nr_loads, sizeof(*s->loads), by_name);
	struct method_row *rows = calloc(s->nr_loads + 1, sizeof(*rows));
	size_t n = 0;
	for (size_t i = 0; rows && i < s->nr_loads; i++) {
		if (!n || strcmp(rows[n - 1].name, s->loads[i].name))
			rows[n++] = (struct method_row){ s->loads[i].name, 0, 0 };
		rows[n - 1].loads++;
		rows[n - 1].bytes += s->loads[i].code_size;
	}
	if (n > 1)
		qsort(rows, n, sizeof(*rows), by_loads);
	size_t regen = 0;
	for (size_t i = 0; i < n; i++)
		regen += rows[i].loads > 1;
	if (o->json) {
		jdo_obj_begin(o, "stats");
		jdo_obj_begin(o, "types");
	} else {
		fprintf(o->fp, "%-20s %12s %14s\n", "record type", "count", "bytes");
	}
	for (uint32_t id = 0; id < JD_EXT_JMETHOD + 1; id++) {
		if (id == JD_CODE_MAX_PERF)
			id = JD_EXT_LOAD_INFO;
		int t = type_slot(id);
		if (o->json) {
			jdo_obj_begin(o, type_name(id));
			jdo_f_u64(o, "count", s->count[t]);
			jdo_f_u64(o, "bytes", s->bytes[t]);
			jdo_obj_end(o);
		} else if (s->count[t] || id < JD_CODE_MAX_PERF) {
			fprintf(o->fp, "%-20s %12" PRIu64 " %14" PRIu64 "\n", type_name(id),
				s->count[t], s->bytes[t]);
		}
	}
	if (o->json) {
		jdo_obj_end(o);
		jdo_f_u64(o, "unknown_skipped", rs->unknown_skipped);
		jdo_f_u64(o, "method_names", n);
		jdo_f_u64(o, "recompiled_names", regen);
		jdo_list_begin(o, "methods");
		for (size_t i = 0; i < n; i++) {
			jdo_obj_begin(o, NULL);
			jdo_f_str(o, "name", rows[i].name);
			jdo_f_u64(o, "loads", rows[i].loads);
			jdo_f_u64(o, "code_bytes", rows[i].bytes);
			jdo_obj_end(o);
		}
		jdo_list_end(o);
		jdo_obj_end(o);
	} else {
		fprintf(o->fp, "%-20s %12" PRIu64 "\n", "unknown (skipped)", rs->unknown_skipped);
		if (!n)		/* a companion file: no loads, no names */
			goto out;
		fprintf(o->fp, "\n%zu method names, %zu loaded more than once (generations)\n"
			       "%8s %12s  %s\n", n, regen, "loads", "code bytes", "name");
		for (size_t i = 0; i < n; i++) {
			fprintf(o->fp, "%8" PRIu64 " %12" PRIu64 "  ", rows[i].loads, rows[i].bytes);
			jdo_put_str(o, rows[i].name);
			fputc('\n', o->fp);
		}
	}
out:
	free(rows);
}

/* ---- driver ---------------------------------------------------------------------------- */

struct opts {
	int json, stats, companion, all;
};

/* Says what the budget left out of one file's output; 1 when something was. */
static int report_cut(struct jdo_out *o, const char *path)
{
	if (!o->cut_records && !o->cut_entries)
		return 0;
	if (o->json) {
		jdo_f_u64(o, "cut_records", o->cut_records);
		jdo_f_u64(o, "cut_entries", o->cut_entries);
	}
	fflush(o->fp);
	cli_error("%s: output stopped past %" PRIu64 " bytes (16 MiB + 16x the file's size): "
		  "%" PRIu64 " records and %" PRIu64 " line/inline entries not shown; --all "
		  "shows them", path, o->limit, o->cut_records, o->cut_entries);
	return 1;
}

/* Reads one file, printing as asked; 0 read whole, 1 damaged or unreadable. */
static int show_file(struct jdo_out *o, const struct opts *op, const char *path, int *warned)
{
	struct jd_reader *r;
	char err[512];
	if (jd_reader_open(&r, path, err, sizeof(err))) {
		if (o->json)
			jdo_f_str(o, "error", err);
		return cli_error("%s", err);
	}
	struct stats s = { 0 };
	struct jd_record rec;
	int rc;
	uint64_t size = jd_reader_size(r);
	o->limit = op->all || size > (UINT64_MAX - SHOW_BUDGET_FIXED) / SHOW_BUDGET_PER_BYTE
		   ? UINT64_MAX : o->written + SHOW_BUDGET_FIXED + SHOW_BUDGET_PER_BYTE * size;
	o->cut_records = o->cut_entries = 0;
	print_header(o, r);
	/* What perf would refuse even though we read it (Mono wrote version 2 for years). */
	const struct jd_header *h = jd_reader_header(r);
	if (!jd_reader_is_ext(r) && h->version != JD_VERSION)
		cli_warn("%s: version %u: perf accepts only version %u", path, h->version,
			 JD_VERSION);
	if (!jd_reader_is_ext(r) && (h->flags & ~JD_FLAGS_ARCH_TIMESTAMP))
		cli_warn("%s: flags 0x%" PRIx64 " has reserved bits set: perf refuses the dump",
			 path, h->flags);
	if (!op->stats)
		jdo_list_begin(o, "records");
	while ((rc = jd_reader_next(r, &rec)) > 0) {
		if (op->stats) {
			if (stats_add(&s, &rec)) {
				rc = -1;
				break;
			}
		} else if (jdo_over_budget(o, 0)) {
			o->cut_records++;
		} else {
			print_record(o, &rec);
		}
	}
	if (!op->stats)
		jdo_list_end(o);
	else if (rc >= 0)
		print_stats(o, &s, jd_reader_stats(r));
	const struct jd_reader_stats *st = jd_reader_stats(r);
	if (o->json) {
		jdo_f_u64(o, "records_read", st->records);
		jdo_f_u64(o, "unknown_skipped", st->unknown_skipped);
		jdo_f_u64(o, "truncated_bytes", st->truncated_bytes);
		if (rc < 0)
			jdo_f_str(o, "error", rc == -1 ? "out of memory" : jd_reader_error(r));
	} else if (!op->stats) {
		fprintf(o->fp, "# %" PRIu64 " records, %" PRIu64 " unknown skipped\n", st->records,
			st->unknown_skipped);
	}
	int ret = report_cut(o, path);
	fflush(o->fp);
	if (rc < 0) {
		ret = cli_error("%s", rc == -1 ? "out of memory" : jd_reader_error(r));
	} else if (st->truncated_bytes) {
		cli_warn("dropped %" PRIu64 " bytes of a partial record at offset %" PRIu64
			 " of %s (writer still running or killed); everything before it is shown",
			 st->truncated_bytes, st->truncated_offset, path);
		*warned = 1;
	}
	free(s.loads);
	jd_reader_close(r);
	return ret;
}

int cmd_jitdump(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "stats", no_argument, NULL, 's' },
		{ "companion", no_argument, NULL, 'c' },
		{ "all", no_argument, NULL, 'a' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts op = { 0 };
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "Vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': op.json = 1; break;
		case 's': op.stats = 1; break;
		case 'c': op.companion = 1; break;
		case 'a': op.all = 1; break;
		case 'h': usage(stdout); return 0;
		case 'V': return cli_version();
		default: return cli_usage_brief(usage);
		}
	}
	if (optind != argc - 1) {
		return cli_usage_brief(usage);
	}
	const char *path = argv[optind];
	char ext[4096];
	int have_ext = op.companion && !jd_ext_path(path, ext, sizeof(ext)) &&
		       access(ext, F_OK) == 0;
	if (op.companion && !have_ext)
		cli_warn("no companion file %s%s", path, JD_EXT_SUFFIX);
	static char obuf[1 << 16];
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	struct jdo_out o = { NULL, op.json, 1, 0, UINT64_MAX, 0, 0 };
	/* Counted as it leaves its own 4 KiB buffer: the count lags by at most that much. */
	o.fp = fopencookie(&o, "w", (cookie_io_functions_t){ .write = jdo_counted_write });
	if (!o.fp)
		return cli_error("out of memory");
	static char cbuf[4096];
	setvbuf(o.fp, cbuf, _IOFBF, sizeof(cbuf));
	int warned = 0;
	jdo_obj_begin(&o, NULL);
	int ret = show_file(&o, &op, path, &warned);
	if (have_ext) {
		if (!o.json)
			fputc('\n', o.fp);
		jdo_obj_begin(&o, "companion");
		ret |= show_file(&o, &op, ext, &warned);
		jdo_obj_end(&o);
	}
	jdo_obj_end(&o);
	if (o.json)
		fputc('\n', o.fp);
	int werr = fclose(o.fp);
	if (werr || fflush(stdout) || ferror(stdout))
		return cli_error("writing the output failed");
	return ret;
}
