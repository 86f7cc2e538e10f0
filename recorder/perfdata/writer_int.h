/* writer_int.h - the writer's state, shared by writer.c (records, layout) and
 * writer_features.c (feature payloads, build-id table). Internal to recorder/perfdata/. */
#ifndef JITPROF_PERFDATA_WRITER_INT_H
#define JITPROF_PERFDATA_WRITER_INT_H

#include "lib/hindex.h"
#include "recorder/perfdata/perfdata_int.h"

struct pd_wattr {
	struct perf_event_attr attr;
	uint64_t *ids;
	size_t nr_ids;
	char *name;
};

struct pd_wbuild_id {
	int32_t pid;
	uint16_t cpumode;
	uint8_t size;
	uint8_t id[PD_BUILD_ID_MAX];
	char *filename;
};

struct pd_writer {
	int fd;
	bool own_fd;
	bool pipe;
	bool started;
	int err;		/* sticky: the first write error */
	char *name;
	uint8_t *buf;
	size_t len, cap;
	uint64_t bytes;		/* stream offset of the next byte (buffered included) */
	uint64_t attrs_offset, data_offset;

	struct pd_wattr *attrs;
	size_t nr_attrs, cap_attrs;
	struct pd_feat feats[PD_FEAT_MAX];
	uint64_t feat_bits[4];	/* which feats are present */
	bool auto_event_desc;	/* EVENT_DESC generated from the attrs at close */
	struct pd_wbuild_id *bids;
	size_t nr_bids, cap_bids;
	struct jp_hindex bid_index;	/* (pid, filename) -> bids index */
};

int pd_writer_emit(struct pd_writer *w, const void *p, size_t n);
int pd_writer_start(struct pd_writer *w);
/* Pipe mode: one HEADER_FEATURE record for feature f. */
int pd_writer_emit_feature_record(struct pd_writer *w, unsigned f);
/* File mode at close: BUILD_ID and EVENT_DESC payloads from the lists. */
int pd_writer_build_features(struct pd_writer *w);
void pd_writer_free_features(struct pd_writer *w);

#endif
