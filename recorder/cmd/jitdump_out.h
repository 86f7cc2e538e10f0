/* jitdump_out.h - the emitter behind `jitprof jitdump`: fields written as " key=value" for
 * people or as JSON for programs through one set of calls, strings from the file escaped
 * (safeio's one escaping path), and the bytes written counted against the output budget. */
#ifndef JITPROF_JITDUMP_OUT_H
#define JITPROF_JITDUMP_OUT_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct jdo_out {
	FILE *fp;		/* a counting stream over stdout (jdo_counted_write) */
	int json;
	int first;		/* no field yet in the current JSON object */
	uint64_t written;	/* bytes the stream has passed on */
	uint64_t limit;		/* no new record or entry once written is past it */
	uint64_t cut_records, cut_entries;	/* left out for the limit */
};

ssize_t jdo_counted_write(void *cookie, const char *buf, size_t n);
int jdo_over_budget(struct jdo_out *o, uint64_t skipped_entries);
void jdo_put_str(struct jdo_out *o, const char *s);
void jdo_key(struct jdo_out *o, const char *k);
void jdo_f_u64(struct jdo_out *o, const char *k, uint64_t v);
void jdo_f_i64(struct jdo_out *o, const char *k, int64_t v);
void jdo_f_addr(struct jdo_out *o, const char *k, uint64_t v);
void jdo_f_str(struct jdo_out *o, const char *k, const char *s);
void jdo_obj_begin(struct jdo_out *o, const char *k);
void jdo_obj_end(struct jdo_out *o);
void jdo_list_begin(struct jdo_out *o, const char *k);
void jdo_list_end(struct jdo_out *o);
void jdo_item_begin(struct jdo_out *o);

#endif
