/* jdt.h - helpers the jitdump unit tests share: a writer in a fresh directory, reading a
 * whole file into records, and an independent byte swapper (written from the format text,
 * not from the library) to make foreign-endian dumps. */
#ifndef JITPROF_JDT_H
#define JITPROF_JDT_H

#include <stddef.h>
#include <stdint.h>

#include "jitdump/jitdump.h"

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
