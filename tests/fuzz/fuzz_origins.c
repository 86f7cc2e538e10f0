/* fuzz_origins.c - libFuzzer target: the origins section `inject --no-elfs` writes
 * (inj_origins_decode over any bytes). Promises: a decoded section is self-consistent (every
 * entry names one of its dumps, every path is absolute) and encodes back to the same bytes.
 * fuzz-srcs: recorder/origins/origins.c recorder/perfdata/ lib/nomem.c lib/grow.c lib/hindex.c lib/hash_seed.c lib/sha1.c lib/dynload.c jitdump/ safeio/
 * fuzz-libs: -lpthread */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/origins/origins.h"
#include "tests/fuzz/jd_touch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct inj_origins o;
	char err[256];
	if (inj_origins_decode(&o, data, size, JP_ERRBUF_LOG(err)) < 0) {
		JD_PROMISE(err[0], "a refusal without a message");
		return 0;
	}
	for (size_t i = 0; i < o.n; i++)
		JD_PROMISE(o.v[i].dump < o.nr_dumps, "an entry names a dump that is not there");
	for (size_t k = 0; k < o.nr_dumps; k++)
		JD_PROMISE(o.dumps[k].path[0] == '/', "a relative dump path");
	void *buf;
	size_t n;
	if (inj_origins_encode(&o, &buf, &n) == 0) {
		/* The encoder zero-pads paths and the reserved fields: compare what it owns. */
		struct inj_origins back;
		JD_PROMISE(inj_origins_decode(&back, buf, n, JP_ERRBUF_LOG(err)) == 0,
			   "an encoded section does not decode");
		JD_PROMISE(back.n == o.n && back.nr_dumps == o.nr_dumps, "counts changed");
		for (size_t i = 0; i < o.n; i++)
			JD_PROMISE(!memcmp(&back.v[i], &o.v[i], sizeof(o.v[i])), "an entry changed");
		inj_origins_free(&back);
		free(buf);
	}
	inj_origins_free(&o);
	return 0;
}
