/* jfr_int.h - the JFR export's own parts (jfr.c, jfr_writer.c, jfr_meta.c, jfr_names.c): the
 * byte encoding of a Flight Recorder chunk (format 2.0, as the jdk.jfr module's
 * RecordingInput reads it), the type ids of the metadata this export declares, and how a
 * frame's name becomes a class, a method and a descriptor. Not for other modules. */
#ifndef JITPROF_JFR_INT_H
#define JITPROF_JFR_INT_H

#include <stddef.h>
#include <stdint.h>

#include "lib/strbuf.h"

/* A growing byte buffer; the first failed growth sets err (-ENOMEM) and later puts do
 * nothing, so a writer checks once at the end. */
struct rp_jfr_buf {
	uint8_t *p;
	size_t n, cap;
	int err;
};
void rp_jfr_put(struct rp_jfr_buf *b, const void *bytes, size_t len);
void rp_jfr_u8(struct rp_jfr_buf *b, uint8_t v);
/* JFR's compressed integers: 7 bits a byte, least significant first, the high bit saying
 * more follow; the ninth byte carries 8 bits. Longs are their 64 bits unsigned; an int is
 * written as its 32 bits unsigned (-1: 5 bytes), as the reader casts back to int. */
void rp_jfr_varint(struct rp_jfr_buf *b, uint64_t v);
static inline void rp_jfr_int(struct rp_jfr_buf *b, int32_t v)
{
	rp_jfr_varint(b, (uint32_t)v);
}
size_t rp_jfr_varint_len(uint64_t v);
/* A string with its encoding byte: NULL (0), empty (1), or UTF-8 bytes with their length (3). */
void rp_jfr_str(struct rp_jfr_buf *b, const char *s);
void rp_jfr_be16(struct rp_jfr_buf *b, uint16_t v);
void rp_jfr_be64(struct rp_jfr_buf *b, uint64_t v);
/* Appends the event whose payload (type id and fields) is ev, preceded by its size: the
 * compressed size of the whole event, size field included. */
void rp_jfr_event(struct rp_jfr_buf *out, const struct rp_jfr_buf *ev);
void rp_jfr_buf_free(struct rp_jfr_buf *b);

/* Type ids of the metadata jfr_meta.c declares (0 and 1 are the metadata and checkpoint
 * events' own). Constant pools are written under these ids. */
enum rp_jfr_type {
	RP_JFR_T_BOOLEAN = 4, RP_JFR_T_INT, RP_JFR_T_LONG, RP_JFR_T_STRING,
	RP_JFR_T_CLASS = 20, RP_JFR_T_THREAD, RP_JFR_T_CLASS_LOADER, RP_JFR_T_FRAME_TYPE,
	RP_JFR_T_THREAD_STATE, RP_JFR_T_STACK_TRACE, RP_JFR_T_STACK_FRAME, RP_JFR_T_METHOD,
	RP_JFR_T_PACKAGE, RP_JFR_T_SYMBOL,
	RP_JFR_T_EXECUTION_SAMPLE = 100,
	RP_JFR_T_LABEL = 200, RP_JFR_T_CATEGORY, RP_JFR_T_CONTENT_TYPE, RP_JFR_T_TIMESTAMP,
};

/* Frame types, the keys of their pool, with the descriptions HotSpot writes. */
enum rp_jfr_frame_type { RP_JFR_FT_INTERPRETED = 1, RP_JFR_FT_JIT, RP_JFR_FT_INLINED,
			 RP_JFR_FT_NATIVE, RP_JFR_FT__END };
const char *rp_jfr_frame_type_name(enum rp_jfr_frame_type t);

/* The metadata event (type 0) describing every type above, its start time in ticks. */
void rp_jfr_metadata(struct rp_jfr_buf *out, uint64_t start_ticks);

/* A frame's name as a Java method: class in internal form ("java/lang/String"), method
 * name, descriptor ("(I)V"), each whole in its growable buffer (zero-initialized before the
 * first use, reused after, freed by rp_jfr_method_free). Takes what the agent writes
 * ("Ljava/lang/String;indexOf(I)I") and the report's demangled form
 * ("java.lang.String.indexOf(int)", whose return type is not in the name: written V).
 * 1 when the name is one of those, else 0 (a native symbol; the buffers then hold anything). */
struct rp_jfr_method {
	struct jp_str cls, name, desc;
};
int rp_jfr_split_java(const char *sym, struct rp_jfr_method *m);
void rp_jfr_method_free(struct rp_jfr_method *m);

#endif
