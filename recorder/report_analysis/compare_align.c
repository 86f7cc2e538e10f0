/* compare_align.c - two disassembled generations lined up by their code, not by row: a
 * longest common subsequence over normalized instructions (mnemonic and operands with every
 * number, i.e. addresses, displacements and immediates that move between compiles, made one
 * token), so the same instruction sequence pairs up across inserted or removed code. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/report_analysis/analysis_int.h"

/* Above this many DP cells (n*m) the listings are paired by row (the table would be big). */
#define MAX_CELLS (24u << 20)

uint64_t rp_insn_norm_hash(const char *mnemonic, const char *ops)
{
	uint64_t h = rp_hash_bytes(mnemonic, strlen(mnemonic), 1469598103934665603ull);
	for (const char *p = ops; *p;) {
		if ((*p >= '0' && *p <= '9') && (p == ops || !((p[-1] >= 'a' && p[-1] <= 'z') ||
							   (p[-1] >= '0' && p[-1] <= '9')))) {
			/* a number (0x.. or decimal) is one token */
			while ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') || *p == 'x')
				p++;
			h = rp_hash_bytes("#", 1, h);
			continue;
		}
		h = rp_hash_bytes(p, 1, h);
		p++;
	}
	return h;
}

/* Pairs a[0..na) with b[0..nb): *out gets (ia, ib) pairs in order, -1 on the side that has
 * no counterpart. Returns the number of pairs or -ENOMEM. */
long rp_align(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, struct rp_pair **out)
{
	struct rp_pair *p = malloc((na + nb + 1) * sizeof(*p));
	size_t n = 0;
	*out = p;
	if (!p)
		return -ENOMEM;
	if (na && nb && (na + 1) * (nb + 1) > MAX_CELLS) {
		for (size_t i = 0; i < na || i < nb; i++)
			p[n++] = (struct rp_pair){ i < na ? (long)i : -1, i < nb ? (long)i : -1 };
		return (long)n;
	}
	/* L[i][j] = LCS length of a[i..] and b[j..], filled from the end. */
	size_t w = nb + 1;
	uint32_t *L = calloc((na + 1) * w, sizeof(*L));
	if (!L) {
		free(p);
		*out = NULL;
		return -ENOMEM;
	}
	for (size_t i = na; i-- > 0;)
		for (size_t j = nb; j-- > 0;)
			L[i * w + j] = a[i] == b[j] ? L[(i + 1) * w + j + 1] + 1
				     : L[(i + 1) * w + j] > L[i * w + j + 1] ? L[(i + 1) * w + j]
									       : L[i * w + j + 1];
	size_t i = 0, j = 0;
	while (i < na || j < nb) {
		if (i < na && j < nb && a[i] == b[j])
			p[n++] = (struct rp_pair){ (long)i++, (long)j++ };
		else if (j >= nb || (i < na && L[(i + 1) * w + j] >= L[i * w + j + 1]))
			p[n++] = (struct rp_pair){ (long)i++, -1 };
		else
			p[n++] = (struct rp_pair){ -1, (long)j++ };
	}
	free(L);
	return (long)n;
}
