/* perfdata_int.h - internal to recorder/perfdata/: the on-disk structs (size-checked), the
 * reader's state shared by reader.c, decode.c, features.c and swap.c, and small helpers. */
#ifndef JITPROF_PERFDATA_INT_H
#define JITPROF_PERFDATA_INT_H

#include <assert.h>
#include <string.h>

#include "recorder/perfdata/perfdata.h"

#define PD_MAGIC2 0x32454c4946524550ULL		/* "PERFILE2" read natively */
#define PD_MAGIC2_SWAPPED 0x50455246494c4532ULL

struct pd_file_section {
	uint64_t offset;
	uint64_t size;
};
static_assert(sizeof(struct pd_file_section) == 16, "perf_file_section");

struct pd_file_header {
	uint64_t magic;
	uint64_t size;
	uint64_t attr_size;
	struct pd_file_section attrs;
	struct pd_file_section data;
	struct pd_file_section event_types;
	uint64_t features[4];
};
static_assert(sizeof(struct pd_file_header) == 104, "perf_file_header");

struct pd_pipe_header {
	uint64_t magic;
	uint64_t size;
};
static_assert(sizeof(struct pd_pipe_header) == 16, "perf_pipe_file_header");

/* The fixed part of HEADER_BUILD_ID entries / type-67 records. */
struct pd_build_id_rec {
	struct perf_event_header header;
	int32_t pid;
	uint8_t data[PD_BUILD_ID_MAX];
	uint8_t size;
	uint8_t reserved1;
	uint16_t reserved2;
};
static_assert(sizeof(struct pd_build_id_rec) == 36, "perf_record_header_build_id");

/* MMAP2 fixed part (before the filename). */
struct pd_mmap2_rec {
	struct perf_event_header header;
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	union {
		struct {
			uint32_t maj, min;
			uint64_t ino, ino_generation;
		};
		struct {
			uint8_t build_id_size, res1;
			uint16_t res2;
			uint8_t build_id[20];
		};
	};
	uint32_t prot, flags;
};
static_assert(sizeof(struct pd_mmap2_rec) == 72, "perf_record_mmap2 fixed part");

static_assert(sizeof(struct perf_event_header) == 8, "perf_event_header");
static_assert(sizeof(struct perf_event_attr) >= 64, "perf_event_attr VER0");

/* The sample_type bits that make up the sid trailer. */
#define PD_SID_TYPES (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
		      PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

struct pd_feat {
	void *data;
	size_t size;
	bool present;
};

/* The present features as a bitmap (the header's layout), so loops visit the few dozen a
 * recording has rather than all 256 slots: those loops were 8 % of a fuzzing execution of
 * inject (four readers and a writer each). */
static inline void pd_feat_bit(uint64_t bits[4], unsigned f, bool on)
{
	if (on)
		bits[f / 64] |= 1ULL << (f % 64);
	else
		bits[f / 64] &= ~(1ULL << (f % 64));
}

/* The first feature in bits at or after f, PD_FEAT_MAX when none. */
static inline unsigned pd_feat_next(const uint64_t bits[4], unsigned f)
{
	while (f < PD_FEAT_MAX) {
		uint64_t m = bits[f / 64] >> (f % 64);
		if (m)
			return f + (unsigned)__builtin_ctzll(m);
		f = (f / 64 + 1) * 64;
	}
	return PD_FEAT_MAX;
}

#define PD_FOR_EACH_FEAT(f, bits) \
	for (unsigned f = pd_feat_next(bits, 0); f < PD_FEAT_MAX; f = pd_feat_next(bits, f + 1))

/* The reader's window lives in a block that the ordered queue may share (pd_reader_hold): an
 * event it queues is then read where the reader put it instead of copied (the samples of a
 * --call-graph dwarf recording are 8-64 KiB each: their copy into the queue was 5% of a
 * call-graph report's CPU). A block someone else holds is never moved or overwritten: the
 * reader's next fill starts a new one. One thread: the counts are plain. */
struct pd_block {
	size_t refs;	/* the reader's, while the block is its window, and the queue's events' */
	size_t held;	/* of those, the queue's (its memory bound counts the held blocks) */
	size_t cap;
	_Alignas(8) uint8_t data[];
};

/* A reference to the block holding the len bytes at p, when they lie in the reader's window
 * (not in a copy: swapped, realigned, decompressed); NULL otherwise. pd_block_release it. */
struct pd_block *pd_reader_hold(const struct pd_reader *r, const void *p, size_t len);
void pd_block_release(struct pd_block *b);

struct pd_reader {
	bool unfinished;	/* the header's data size is 0: perf record never finalized it */
	char *path;
	int fd;
	bool pipe;
	bool swap;
	bool skip_samples;	/* PD_TOOL_SKIP_SAMPLES: samples delivered undecoded */
	bool eof;		/* pipe: read() returned 0 */
	char *err;		/* the last error, whole (pd_set_err); NULL: none */

	/* Buffered window over the stream: buf holds bytes [buf_off, buf_off + buf_len). */
	struct pd_block *block;	/* buf's: buf == block->data, buf_cap == block->cap */
	uint8_t *buf;
	size_t buf_cap;
	size_t buf_len;
	size_t buf_pos;		/* consumed bytes in buf */
	uint64_t buf_off;	/* stream offset of buf[0] */
	uint64_t pos;		/* stream offset of the next record */
	uint64_t data_offset, data_end;	/* file mode; pipe mode: data_end = UINT64_MAX */

	uint8_t *rec;		/* host-order copy of the current record (swap or wrap) */
	size_t rec_cap;
	uint8_t *extra;
	size_t extra_cap;

	/* each its own allocation: a pipe's attrs come among its events, and the evsels
	 * handed out before (a report's chosen event) must keep their address */
	struct pd_evsel **evsels;
	size_t nr_evsels, cap_evsels;
	size_t id_hdr_size;
	uint64_t *id_index;	/* sorted {id, evsel index} pairs */
	size_t nr_index;
	bool index_dirty;	/* attrs added since id_index was built */
	size_t nr_ids_total;

	struct pd_feat feats[PD_FEAT_MAX];
	uint64_t feat_bits[4];	/* which feats are present */
	unsigned feats_dropped;	/* flagged in the header but cut off or out of the file */
	struct pd_build_id_ev *bids;
	size_t nr_bids, cap_bids;
	char **cmdline;		/* parsed CMDLINE, NULL-terminated */
	size_t cmdline_n;

	/* Decompressed COMPRESSED payloads: records in [dpos, dlen) are delivered first; more
	 * come from the kept payload zin[zin_pos, zin_len) (and zstd's own buffer when zfull). */
	struct pd_zstd *zstd;
	uint8_t *dbuf;
	size_t dlen, dpos, dcap;
	uint8_t *zin;
	size_t zin_len, zin_pos, zin_cap;
	int zfull;			/* the last call filled its output: zstd may hold more */
	uint64_t dsrc_off;	/* offset of the COMPRESSED record they came from */
	uint64_t nr_compressed;
	uint64_t dtotal, dsrc_total;	/* bytes decompressed, compressed bytes read */
};


/* Keeps "<path>: offset <off>: <fmt...>" whole for pd_reader_error and returns err; out of
 * memory for the message stops the process (jp_nomem): an error is never said cut. */
int pd_set_err(struct pd_reader *r, int err, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* swap.c: field-aware byte swapping of a record (header already swapped) in place. */
void pd_swap_attr(void *attr, size_t size);
void pd_swap_record(const struct pd_reader *r, void *rec, size_t size);
void pd_swap_feature(unsigned feat, void *data, size_t size);

/* compressed.c */
int pd_decompress(struct pd_reader *r, const void *data, size_t n, uint64_t off);
/* More of the kept payload inflated after [dpos, dlen): 1 some, 0 none left, or an error. */
int pd_decompress_more(struct pd_reader *r);
void pd_zstd_free(struct pd_reader *r);

/* header.c: the file header, attrs, ids, feature table (first16: the bytes already read). */
int pd_open_file_mode(struct pd_reader *r, const uint8_t *first16);

/* reader.c / header.c / features.c */
int pd_reader_add_evsel(struct pd_reader *r, const void *attr, size_t attr_size,
			const uint64_t *ids, size_t nr_ids, uint64_t off);
int pd_reader_store_feature(struct pd_reader *r, unsigned feat, const void *data, size_t size,
			    uint64_t off);
/* As store, but data (malloc'd, size bytes) becomes the reader's: no copy. */
void pd_reader_take_feature(struct pd_reader *r, unsigned feat, void *data, size_t size);
int pd_reader_add_build_id(struct pd_reader *r, const void *rec, size_t size, bool in_feature);
void pd_reader_free_features(struct pd_reader *r);

/* header.c-style string helpers shared by writer and reader. */
static inline size_t pd_align(size_t n, size_t a)
{
	return (n + a - 1) & ~(a - 1);
}

/* Overflow-safe "does [off, off+len) fit in total". */
static inline bool pd_fits(uint64_t off, uint64_t len, uint64_t total)
{
	return off <= total && len <= total - off;
}

#endif
