/* jitdump_out.c - the emitter behind `jitprof jitdump` (jitdump_out.h). */
#include <inttypes.h>
#include <stdio.h>

#include "safeio/safeio.h"
#include "recorder/cmd/jitdump_out.h"

ssize_t jdo_counted_write(void *cookie, const char *buf, size_t n)
{
	struct jdo_out *o = cookie;
	size_t w = fwrite(buf, 1, n, stdout);
	o->written += w;
	return w == n ? (ssize_t)n : -1;
}

/* Past the budget: the records and entries not yet begun are counted, not printed (lists and
 * objects already open are closed, so --json stays valid). Checked per record and per entry:
 * one DEBUG_INFO record may hold a million entries. */
int jdo_over_budget(struct jdo_out *o, uint64_t skipped_entries)
{
	if (o->written <= o->limit)
		return 0;
	o->cut_entries += skipped_entries;
	return 1;
}

/* Strings come from the file: JSON-escaped, or made harmless for a terminal (safeio's one
 * escaping path: control characters, bidirectional controls, line separators; JSON stays valid
 * whatever the file says). */
void jdo_put_str(struct jdo_out *o, const char *s)
{
	if (o->json)
		sio_fput_json_str(s, o->fp);
	else
		sio_fputs_text(s, o->fp);
}

void jdo_key(struct jdo_out *o, const char *k)
{
	if (o->json)
		fprintf(o->fp, "%s\"%s\":", o->first ? "" : ",", k);
	else
		fprintf(o->fp, " %s=", k);
	o->first = 0;
}

void jdo_f_u64(struct jdo_out *o, const char *k, uint64_t v)
{
	jdo_key(o, k);
	fprintf(o->fp, "%" PRIu64, v);
}

void jdo_f_i64(struct jdo_out *o, const char *k, int64_t v)
{
	jdo_key(o, k);
	fprintf(o->fp, "%" PRId64, v);
}

/* Addresses: hex for people, numbers for programs. */
void jdo_f_addr(struct jdo_out *o, const char *k, uint64_t v)
{
	jdo_key(o, k);
	fprintf(o->fp, o->json ? "%" PRIu64 : "0x%" PRIx64, v);
}

void jdo_f_str(struct jdo_out *o, const char *k, const char *s)
{
	jdo_key(o, k);
	jdo_put_str(o, s);
}

void jdo_obj_begin(struct jdo_out *o, const char *k)
{
	if (o->json) {
		if (k)
			jdo_key(o, k);
		else if (!o->first)
			fputc(',', o->fp);
		fputc('{', o->fp);
	}
	o->first = 1;
}

void jdo_obj_end(struct jdo_out *o)
{
	if (o->json)
		fputc('}', o->fp);
	o->first = 0;
}

void jdo_list_begin(struct jdo_out *o, const char *k)
{
	if (o->json) {
		jdo_key(o, k);
		fputc('[', o->fp);
	}
	o->first = 1;
}

void jdo_list_end(struct jdo_out *o)
{
	if (o->json)
		fputc(']', o->fp);
	o->first = 0;
}

/* A sub-entry: a JSON object in a list, or an indented line for people. */
void jdo_item_begin(struct jdo_out *o)
{
	if (!o->json)
		fputs("\n     ", o->fp);
	jdo_obj_begin(o, NULL);
}

