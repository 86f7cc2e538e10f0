/* jitted_name.c - "jitted-<pid>-<n>.so", the name both perf inject and jitprof inject give
 * the ELF of one code load: which mmaps and DSOs are jitted code, and of which load. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "recorder/report_model/model.h"

/* Plain decimal digits (at most 19: no overflow) at *s, advancing it; 0 if none. */
static int digits(const char **s, unsigned long long *v)
{
	const char *q = *s;
	unsigned long long x = 0;
	for (; *q >= '0' && *q <= '9'; q++) {
		if (q - *s >= 19)
			return 0;
		x = x * 10 + (unsigned)(*q - '0');
	}
	if (q == *s)
		return 0;
	*s = q;
	*v = x;
	return 1;
}

/* "jitted-<pid>-<n>.so": what both perf inject and jitprof inject name a code load. Asked
 * for every mmap and sampled DSO name, so plain digits are parsed by hand; anything else
 * (a sign, spaces, 20+ digits) gets sscanf's exact answer. */
int rp_is_jitted_name(const char *path, uint32_t *pid, uint64_t *idx)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	unsigned long long p, n;
	int end = 0;
	if (strncmp(b, "jitted-", 7))
		return 0;
	const char *q = b + 7;
	if (digits(&q, &p)) {
		if (*q != '-')
			return 0;
		q++;
		if (digits(&q, &n)) {
			if (strcmp(q, ".so"))
				return 0;
			end = -1;
		}
	}
	if (end == 0 && (sscanf(b, "jitted-%llu-%llu.so%n", &p, &n, &end) != 2 || b[end]))
		return 0;
	if (pid)
		*pid = (uint32_t)p;
	if (idx)
		*idx = n;
	return 1;
}
