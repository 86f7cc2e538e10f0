/* build_chunk.h - a JFR chunk assembled byte by byte for the reader's tests, from the format
 * (not from any reader): metadata with a few classes, a checkpoint, events. */
#ifndef JITPROF_TEST_BUILD_CHUNK_H
#define JITPROF_TEST_BUILD_CHUNK_H

#include <stddef.h>
#include <stdint.h>

struct bbuf {
	uint8_t p[1 << 16];
	size_t n;
};

void bb_u8(struct bbuf *b, uint8_t v);
void bb_varint(struct bbuf *b, uint64_t v);
void bb_be(struct bbuf *b, uint64_t v, int bytes);
void bb_utf8(struct bbuf *b, const char *s);	/* encoding 3 */
void bb_bytes(struct bbuf *b, const void *p, size_t n);
/* Wraps payload as an event: its size (counting itself) first. */
void bb_event(struct bbuf *out, const struct bbuf *payload);

/* A chunk's header (format 2.1, compressed integers, final) into the emptied b: start in ns
 * since the epoch, duration, start ticks, ticks per second. Its size and the checkpoint's and
 * metadata's offsets are left for bb_chunk_end, when b holds the whole chunk. */
void bb_chunk_begin(struct bbuf *b, uint64_t start_ns, uint64_t dur_ns, uint64_t start_ticks,
		    uint64_t ticks_per_s);
void bb_chunk_end(struct bbuf *b, size_t cp, size_t meta);

/* The test chunk: classes long(20) int(21) java.lang.String(22) Symbol(30){string}
 * Method(31){name: Symbol cp, line: int} Deopt(100, "test.Deopt"){startTime long,
 * compileId int, tags int[], method Method cp, reason String, note String cp}; a pool with
 * Symbol 1 "foo", Method 5 {1, 42}, String 9 "pooled"; and two Deopt events: compileId 7
 * at ticks start+2000 (1000 ticks/s... see the .c), and compileId -1 with a Latin-1 and a
 * UTF-16 string. Returns the chunk's size in out. */
void build_test_chunk(struct bbuf *out);

#endif
