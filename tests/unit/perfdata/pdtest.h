/* pdtest.h - shared by the perfdata unit tests: a small recording written with the library's
 * writer (what it contains is listed in struct pdt_expect), and a reader loop that counts. */
#ifndef JITPROF_PDTEST_H
#define JITPROF_PDTEST_H

#include <stddef.h>
#include <stdint.h>

#include "recorder/perfdata/perfdata.h"

struct pdt_expect {
	size_t samples, mmap2, comm, fork, rounds, build_ids;
	uint64_t first_ip, last_time;
};

/* The attr every test file uses: IP|TID|TIME|PERIOD|CPU|IDENTIFIER|CALLCHAIN, sample_id_all. */
void pdt_attr(struct perf_event_attr *a);
/* One sample record of pdt_attr's layout (id, ip, pid = tid, time; a 3-deep callchain). */
void pdt_sample(struct pd_writer *w, uint64_t id, uint64_t ip, uint32_t pid, uint64_t t);
/* Writes nsamples samples (3-deep callchains), 2 MMAP2 (one build-id variant), COMM, FORK,
 * features and build-ids to path. pipe: pipe mode. */
void pdt_write(const char *path, int pipe, size_t nsamples, struct pdt_expect *exp);

struct pdt_counts {
	size_t records, samples, mmap2, comm, fork, rounds, attrs, features, build_id_recs;
	uint64_t first_ip, last_time;
	int end;		/* the last pd_reader_next result: 0 clean, <0 error */
	char err[512];
};
/* Opens path and reads it to the end (or the first error). Returns pd_reader_open's result. */
int pdt_count(const char *path, struct pdt_counts *c);

#endif
