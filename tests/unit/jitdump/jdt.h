/* jdt.h - helpers the jitdump unit tests share: a writer in a fresh directory, reading a
 * whole file into records, and an independent byte swapper (written from the format text,
 * not from the library) to make foreign-endian dumps. */
#ifndef JITPROF_JDT_H
#define JITPROF_JDT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "jitdump/jitdump.h"

/* Now on clock c, in ns. */
uint64_t jdt_clock_ns(clockid_t c);

/* Opens a reader on path, or fails the test with the reader's message. */
struct jd_reader *jdt_open_or_die(const char *path);
/* The next record, which must be of kind id, or fails the test. */
void jdt_next_or_die(struct jd_reader *r, struct jd_record *rec, uint32_t id);

/* Opens a writer in a new temp dir (*dir, malloc'd; remove with tu_rmtree). */
struct jd_writer *jdt_writer(char **dir, size_t buffer_size);

/* Reads every record of a file (or memory) and counts; returns jd_reader_next's final rc. */
struct jdt_counts {
	uint64_t per_id[JD_CODE_MAX_PERF];
	uint64_t ext;
	uint64_t records;
	uint64_t lines;
};
int jdt_count_mem(const void *buf, size_t len, struct jdt_counts *c, char *err, size_t errlen);

/* Byte-swaps a native-order dump or companion file in place (header and every record field).
 * Returns 0, or -1 on a record it does not understand. */
int jdt_swap_file(uint8_t *buf, size_t len);

/* A small deterministic dump in memory: loads with lines ("\xff" repeats) and unwind data,
 * a move, close. */
void *jdt_sample_dump(size_t *len, char **dir);

#endif
